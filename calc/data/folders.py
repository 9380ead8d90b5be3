"""Where the shipped data folders are [paths]: model_configs/ and hardware_profiles/ inside
calc/ in an installed wheel, beside it in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent  # calc/


def data_dir(folder: str) -> Path:
    """Installed wheels carry the folder inside calc/; a source checkout has it beside calc/."""
    inside = _PKG / folder
    return inside if inside.is_dir() else _PKG.parent / folder
