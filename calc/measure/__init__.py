"""Measurement mode: runs real attention and GEMM kernels through PyTorch and scores the
roofline predictions against them (``kvcalc measure``).

torch is imported lazily here and only here (``import_torch``); nothing else in the package
imports it. ``counts`` (FLOPs and bytes of each kernel) and ``calibrate`` are pure Python.
"""

from __future__ import annotations

from calc.errors import MissingDependencyError


def import_torch():
    """The torch module, or MissingDependencyError with the install hint for the extra."""
    try:
        import torch
    except ImportError:
        raise MissingDependencyError("torch", "measure") from None
    return torch
