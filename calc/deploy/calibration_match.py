"""Whether a calibration file was fitted to what a command predicts: the engine, engine
release, model and dtype it records (``calc.data.calibration.Calibration``) against the
command's, as one warning line naming what differs (None where all it records agrees, or it
records none of them: files written before the fields). The hardware's mismatch is said by
``calc.data.calibration.calibrated``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from calc.data.calibration import Calibration
    from calc.deploy.deployment import Deployment


FIELDS = ("engine", "engine_version", "model", "dtype")


def recorded(dep: Deployment) -> dict[str, str]:
    """What a calibration fitted to ``dep``'s runs records of it: its engine, the modelled
    release, its model and the format of its linear layers."""
    ec = dep.engine_config
    return {"engine": ec.engine, "engine_version": ec.version, "model": dep.model.name,
            "dtype": dep.weight_dtype}  # fmt: skip


def _said(values: dict[str, str | None]) -> str:
    """'vLLM 0.19.1, llama3-8b, bf16' of the fields present."""
    from calc.deploy.engines import NAMES, engine

    name = values.get("engine")
    words = [engine(name).title if name in NAMES else name, values.get("engine_version")]
    head = " ".join(w for w in words if w)
    rest = [values[k] for k in ("model", "dtype") if values.get(k)]
    return ", ".join([head, *rest] if head else rest)


def _differ(cal: Calibration, ours: dict[str, str]) -> tuple[str, str] | None:
    """(what ``cal`` records, what ``ours`` has) of the fields that differ, in words, or None
    (a field absent from either side is not compared; a release differing is said with its
    engine, and a different engine with its release)."""
    theirs = {k: getattr(cal, k) for k in FIELDS}
    keys = [k for k in FIELDS if theirs[k] is not None and ours.get(k) is not None]
    differ = {k for k in keys if theirs[k] != ours[k]}
    if differ & {"engine", "engine_version"}:
        differ |= {"engine", "engine_version"} & set(keys)
    if not differ:
        return None
    shown = [k for k in keys if k in differ]
    return _said({k: theirs[k] for k in shown}), _said({k: ours[k] for k in shown})


def mismatch(cal: Calibration, path: Path | str, ours: dict[str, str]) -> str | None:
    """One line where what ``cal`` (read from ``path``) records differs from ``ours``
    (``recorded``'s keys), else None."""
    return grid_mismatch(cal, path, [ours])


def grid_mismatch(cal: Calibration, path: Path | str, grid) -> str | None:
    """``mismatch`` over the deployments of a grid (``recorded``'s dicts): one line naming the
    first that differs and how many more do, else None."""
    found: dict[str, str] = {}
    for ours in grid:
        d = _differ(cal, ours)
        if d is not None:
            found.setdefault(d[1], d[0])
    if not found:
        return None
    now, was = next(iter(found.items()))
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return (f"calibration {path} was fitted to {was}, not this command's {now}{more}: it is "
            "applied as it is")  # fmt: skip


def grid_note(path: Path | str | None, grid) -> str | None:
    """``grid_mismatch`` of the calibration file at ``path`` (None: no file)."""
    if path is None:
        return None
    from calc.data.calibration import load_calibration

    return grid_mismatch(load_calibration(path), path, list(grid))


def models_note(path: Path | str | None, settings, cfgs, weight_dtype: str | None) -> str | None:
    """``grid_note`` for ``cfgs`` (model configs) under engine ``settings``
    (``EngineSettings``) with their linear layers in ``weight_dtype`` (None: as released)."""
    if path is None:
        return None
    from calc.deploy.checkpoint import linear_dtype
    from calc.deploy.engines import engine

    release = engine(settings.name).versions.resolve(settings.version).release
    grid = [{"engine": settings.name, "engine_version": release, "model": cfg.name,
             "dtype": linear_dtype(cfg, weight_dtype)} for cfg in cfgs]  # fmt: skip
    return grid_note(path, grid)


def calibration_note(path: Path | str | None, dep: Deployment) -> str | None:
    """``mismatch`` of the calibration file at ``path`` (None: no file) and ``dep``."""
    return grid_note(path, [recorded(dep)])
