"""Data: model and hardware schemas, the registry of shipped files, YAML/JSON and file I/O, units
and dtypes, calibration files."""
