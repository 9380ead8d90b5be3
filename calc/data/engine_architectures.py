"""Which model architectures (a checkpoint's config.json ``architectures[0]``) each modelled
engine release can load, from calc/data/engine_architectures.json (captured from each
release's PyPI wheel by tools/capture_engine_architectures.py; its ``source`` says how).

Per engine, each architecture maps to the releases where loading it starts and stops,
alternately: ``["0.4.5"]`` from 0.4.5 on, ``["0.10.0", "0.25.0"]`` from 0.10.0 until 0.25.0
(removed). An engine whose table lists no architecture (TensorRT-LLM: its wheel is not on
PyPI and no stored revision of its model registry can be tied to a release; its ``meta`` says
what was tried) and an architecture no modelled release of an engine lists (SGLang's
Transformers fallback may still run it) are unknown: never refused.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


def parse_version(release: str) -> tuple[int, ...]:
    """A modelled release as numbers ("0.10.1.1" -> (0, 10, 1, 1)); the table's releases and
    the wing's modelled ones are plain dotted numbers."""
    return tuple(int(x) for x in release.split("."))


@cache
def _table() -> dict:
    text = resources.files("calc.data").joinpath("engine_architectures.json").read_text()
    return json.loads(text)


def spans(engine: str, architecture: str) -> list[str] | None:
    """The releases where ``engine`` starts and stops loading ``architecture``, alternately;
    None where unknown (no table for the engine, or the architecture in none of its
    releases)."""
    table = _table().get(engine)
    if not table:
        return None
    return table["architectures"].get(architecture)


def loads(engine: str, release: str, architecture: str | None) -> bool | None:
    """Whether ``engine`` at modelled ``release`` loads ``architecture``; None: unknown."""
    edges = spans(engine, architecture) if architecture else None
    if edges is None:
        return None
    at = parse_version(release)
    started = sum(1 for e in edges if parse_version(e) <= at)
    return started % 2 == 1


def refusal(engine: str, release: str, architecture: str | None) -> str | None:
    """Why ``engine`` at modelled ``release`` cannot load ``architecture`` (naming the releases
    that do), or None where it can or it is unknown."""
    if loads(engine, release, architecture) is not False:
        return None
    edges = spans(engine, architecture)
    at = parse_version(release)
    later = [e for e in edges[::2] if parse_version(e) > at]
    if later:
        return (f"{engine} {release} cannot load {architecture} (from {later[0]}); "
                f"use --engine-version {later[0]} or later")  # fmt: skip
    releases = _table()[engine]["releases"]
    stop = edges[-1]  # removed: the last release before the stop loads it
    last = releases[releases.index(stop) - 1]
    return (f"{engine} {release} cannot load {architecture} (removed in {stop}; loaded "
            f"{edges[-2]} to {last}); use --engine-version {last} or earlier")  # fmt: skip
