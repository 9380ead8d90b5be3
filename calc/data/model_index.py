"""The shipped model configs already parsed [JSON text per file], each keyed by its YAML's size
and CRC-32: what ``calc.data.registry`` reads for a shipped model whose file is unchanged, so
a command that sizes one model neither imports nor runs the YAML parser (about a sixth of
`kvcalc memory`'s start-up). A file edited since (or added) no longer matches and is parsed
from its YAML as before: the index can be stale, never wrong.

Regenerate after editing model_configs/ (tests/test_model_index.py fails while it is stale,
so the speed is kept): python -m calc.data.model_index > calc/data/model_index.json
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

INDEX = Path(__file__).resolve().parent / "model_index.json"


@cache
def _index() -> dict:
    try:
        files = json.loads(INDEX.read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):  # absent or damaged: parse the YAMLs
        return {}
    return files if isinstance(files, dict) else {}


def indexed(name: str, raw: bytes) -> dict | None:
    """The parsed mapping of the shipped model ``name`` whose file holds ``raw``, when the
    index holds it unchanged (a fresh object each call), else None."""
    import zlib

    entry = _index().get(name)
    if not isinstance(entry, list) or entry[:2] != [len(raw), zlib.crc32(raw)]:
        return None
    return json.loads(entry[2])


def _exact(value) -> bool:
    """Whether JSON gives ``value`` back as it is (str keys, no dates, finite floats)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _exact(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_exact(v) for v in value)
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    return value is None or isinstance(value, bool | int | str)


def build() -> str:
    """The index of every shipped model config, as the text of model_index.json."""
    import zlib

    from calc.data.folders import data_dir
    from calc.data.yaml_io import load_mapping

    files = {}
    for path in sorted(data_dir("model_configs").glob("*.yaml"), key=lambda p: p.stem):
        name = path.stem
        data = load_mapping(path)
        if _exact(data):
            raw = path.read_bytes()
            text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
            files[name] = [len(raw), zlib.crc32(raw), text]
    body = json.dumps({"format": 1, "files": files}, ensure_ascii=False, indent=0)
    return body + "\n"


if __name__ == "__main__":
    print(build(), end="")
