"""Bounds of user input [tokens, sequences, GPUs, bytes]: sanity limits that reject absurd or
impossible numbers with one clear message before any arithmetic (not model limits)."""

from __future__ import annotations

from calc.errors import InvalidInputError, not_one_of

MAX_CTX = 10**9  # tokens per sequence accepted at all (a sanity bound, not a model limit)
MAX_BATCH = 10**7
MAX_PARALLEL = 4096


def check_positive_int(name: str, value, upper: int) -> None:
    """Reject zero, negative, non-integer and absurd sizes with one clear message."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= upper:
        raise InvalidInputError(f"--{name} must be an integer in 1..{upper:,}, got {value!r}")


def check_parallel(**sizes: int) -> None:
    """Each parallel size of a layout (``tp``, ``pp``, ``ep``, ``dp``; training's ``cp``) an
    integer in 1..MAX_PARALLEL: the one limit of every command's layout, serving or training."""
    for name, value in sizes.items():
        check_positive_int(name, value, MAX_PARALLEL)


def check_fraction(name: str, value) -> None:
    """Reject a fraction outside (0, 1]."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise InvalidInputError(f"--{name} must be a fraction in (0, 1], got {value!r}")


def check_bytes(name: str, value) -> None:
    """Reject a size in bytes that is negative, not a number or absurd (≥ 2^60)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 2**60:
        raise InvalidInputError(f"--{name} must be a size in bytes ≥ 0, got {value!r}")


def check_choice(flag: str, value, choices) -> None:
    """Reject a value outside a closed set, listing the valid ones (None: not given)."""
    if value is not None and value not in choices:
        raise InvalidInputError(not_one_of(flag, value, choices))
