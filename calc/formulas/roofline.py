"""Roofline time [s] of one operation: max(FLOPs / FLOP/s, bytes / bytes/s), and ridge points.

Pure functions of numbers; each accepts numpy arrays and broadcasts.
"""

from __future__ import annotations

from calc.formulas.elementwise import maximum


def ridge_point(flops_per_s, bytes_per_s):
    """Arithmetic intensity [FLOP/byte] above which an op is compute-bound: peak / bandwidth."""
    return flops_per_s / bytes_per_s


def arithmetic_intensity(flops, bytes_moved):
    """FLOPs per byte moved [FLOP/byte]."""
    return flops / bytes_moved


def compute_time_s(flops, flops_per_s):
    return flops / flops_per_s


def memory_time_s(bytes_moved, bytes_per_s):
    return bytes_moved / bytes_per_s


def op_time_s(flops, bytes_moved, flops_per_s, bytes_per_s):
    """Roofline time of one op [s]: the slower of computing and moving its data."""
    return maximum(compute_time_s(flops, flops_per_s), memory_time_s(bytes_moved, bytes_per_s))


def is_compute_bound(flops, bytes_moved, flops_per_s, bytes_per_s):
    """True where the op's intensity is at or above the ridge point."""
    return flops * bytes_per_s >= bytes_moved * flops_per_s
