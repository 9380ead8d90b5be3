"""Parses sizes given on the command line or in a spec ("0.5GiB", "2GB", "1048576") to bytes."""

from __future__ import annotations

import re

from calc.errors import InvalidInputError

_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_SIZE = re.compile(
    r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?\s*([a-zA-Z]*)\s*$", re.ASCII
)


def parse_bytes(text: str | int | float, flag: str) -> int:
    """Bytes in ``text``: a plain number is bytes; GB/MB/KB are powers of 10, GiB/MiB/KiB of 2."""
    if isinstance(text, bool):
        raise InvalidInputError(f"{flag} must be a size such as 0.5GiB or 2GB, got {text!r}")
    if isinstance(text, int | float):
        value = float(text)
    else:
        m = _SIZE.match(str(text))
        unit = m.group(3).lower() if m else None
        if m is None or unit not in _UNITS:
            raise InvalidInputError(
                f"{flag} {text!r} is not a size; write e.g. 536870912, 0.5GiB or 2GB "
                "(GB = 10^9 bytes, GiB = 2^30 bytes)"
            )
        # digit counts checked before any arithmetic: 1e400 or 1e99999999 is refused here,
        # never computed (10 ** 99999999 alone would run for minutes)
        mantissa, exponent = m.group(1), (m.group(2) or "0").lstrip("+")
        if len(mantissa) > 30 or len(exponent.lstrip("-")) > 3 or abs(int(exponent)) > 100:
            raise InvalidInputError(f"{flag} must be between 0 and 10 PB, got {text!r}")
        value = float(mantissa) * 10.0 ** int(exponent) * _UNITS[unit]
    if not 0 <= value <= 1e16:
        raise InvalidInputError(f"{flag} must be between 0 and 10 PB, got {text!r}")
    return round(value)


def parse_bytes_or_none(text: str | int | float | None, flag: str) -> int | None:
    """``parse_bytes`` of ``text``, or None where the option was not given."""
    return None if text is None else parse_bytes(text, flag)
