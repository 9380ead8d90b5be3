"""Writes records as JSON Lines [UTF-8 text, one JSON object per line, newline-terminated]: the
rows of a command (``plan``'s ranked deployments, ``check``'s results, ``simulate``'s rates or
requests, ``plot``'s points) in a form that streams into ``jq``, pandas
(``read_json(lines=True)``) or polars (``read_ndjson``) a line at a time.

Each line holds the same keys and unrounded base units as the command's JSON and CSV; a NaN or
infinite number is ``null`` (JSON has neither), numpy scalars are plain numbers. A record is
written whole or not at all: a line never holds a newline (``json.dumps`` escapes it).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any, BinaryIO


def json_default(obj: Any) -> Any:
    if hasattr(obj, "item"):  # numpy scalar
        return obj.item()
    if hasattr(obj, "tolist"):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def json_clean(obj: Any) -> Any:
    """JSON has no NaN/inf: they become null (the field names say the unit)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: json_clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_clean(v) for v in obj]
    return obj


def record_line(record: dict) -> str:
    """One record as one line of JSON (keys in the record's order), newline included."""
    return (
        json.dumps(json_clean(record), default=json_default, allow_nan=False, ensure_ascii=False)
        + "\n"
    )


def to_jsonl(records: Iterable[dict]) -> str:
    """Every record, a line each (an empty string for none)."""
    return "".join(record_line(r) for r in records)


def write_jsonl(records: Iterable[Any], fh: BinaryIO) -> int:
    """Write ``records`` (dicts, or objects with ``row()``) to the binary file ``fh`` as they
    come, a line each; returns the number written. For a stream of records too long to hold
    (a simulation's requests): nothing is gathered."""
    n = 0
    for r in records:
        fh.write(record_line(r.row() if hasattr(r, "row") else r).encode())
        n += 1
    return n
