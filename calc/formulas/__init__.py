"""Formulas: pure functions of plain numbers (parameters, KV bytes, FLOPs, SSM state, roofline,
quantised bytes)."""
