"""Durations written for people ("2s", "50ms", "200us", "1.5", "0.05s") parsed to seconds [s]."""

from __future__ import annotations

import math
import re

from calc.errors import InvalidInputError

# unit -> seconds per unit; a bare number is seconds
UNITS_S = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "min": 60.0}
_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(s|ms|us|µs|min)?\s*$")
MAX_DURATION_S = 86_400.0  # a day: no latency target is longer


def parse_duration(text, flag: str) -> float:
    """Seconds of ``text``: a number with an optional unit (s, ms, us, min); a bare number is
    seconds. Positive and at most a day, else one error naming ``flag``."""
    if isinstance(text, bool):
        raise InvalidInputError(f"{flag} must be a duration such as 2s or 50ms, got {text!r}")
    if isinstance(text, int | float):
        value = float(text)
    else:
        m = _DURATION.match(str(text))
        if m is None:
            raise InvalidInputError(
                f"{flag} must be a duration such as 2s, 50ms or 200us, got {text!r}"
            )
        value = float(m.group(1)) * UNITS_S[m.group(2) or ""]
    if not math.isfinite(value) or not 0 < value <= MAX_DURATION_S:
        raise InvalidInputError(f"{flag} must be in (0, 1 day], got {text!r}")
    return value
