"""Output: rendering of tables, charts, derivations and the registry of output names."""
