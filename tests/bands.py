"""A shipped hardware profile without its kernel curves: the efficiency bands time every op, as
the tests of the band model's formulas need (``calc.deploy.rates``)."""

from __future__ import annotations

from dataclasses import replace

from calc.data.registry import load_hardware


def bands(name: str):
    """``load_hardware(name)`` with ``kernels`` None."""
    return replace(load_hardware(name), kernels=None)
