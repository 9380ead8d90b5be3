"""Bytes per element of each numeric format [bytes]; sub-byte formats are fractions, never 0."""

from __future__ import annotations

from calc.errors import UnknownNameError

# Storage bytes per element of the element payload alone (no scale factors).
BYTES_PER_ELEMENT: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "fp4": 0.5,
}

DTYPES = tuple(BYTES_PER_ELEMENT)


def bytes_per_element(dtype: str) -> float:
    """Bytes one element of ``dtype`` occupies [bytes], e.g. bf16 -> 2.0, int4 -> 0.5.

    Plain dtypes only (no scales). Quantized formats with group/block scales (fp8-block128,
    int4-g128, mxfp4, nvfp4, fp8-token-head, ...) are in calc/formulas/quant.py:
    ``weight_bytes_per_element`` and ``kv_bytes_per_element``.
    """
    try:
        return BYTES_PER_ELEMENT[dtype]
    except KeyError:
        raise UnknownNameError("dtype", dtype, BYTES_PER_ELEMENT) from None
