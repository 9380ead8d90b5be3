"""The published quantised checkpoints of the shipped models [Hugging Face repository ids], by
model and weight format, as ``calc/data/quantised_checkpoints.yaml`` declares them: what
``kvcalc plan`` marks a 4-bit family by and what a launch command loads in place of the
model's own repository."""

from __future__ import annotations

from functools import cache
from pathlib import Path

TABLE = Path(__file__).resolve().parent / "quantised_checkpoints.yaml"


@cache
def published_checkpoints() -> dict:
    """model -> format -> {repo, source[, quantises]} (``quantises``: the release the
    checkpoint was made from where it is not the model config's own, e.g. the Instruct
    fine-tune of a base config, with the same shapes)."""
    from calc.data.yaml_io import load_mapping

    return load_mapping(TABLE)


def published_checkpoint(model: str, fmt: str) -> dict | None:
    """The entry of ``model`` in weight format ``fmt``, None where kvcalc knows none."""
    return published_checkpoints().get(model, {}).get(fmt)
