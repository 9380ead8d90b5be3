"""Calibration files [fraction of peak, ratio, s]: one schema, whoever wrote it, applied to a
hardware profile by every command's ``--calibration FILE``.

- ``kvcalc measure --save-calibration``: the efficiency bands achieved on the user's own
  machine (``matmul``, ``memory``), the fixed cost of one kernel, the small-M GEMM curve;
- ``kvcalc score --save-calibration``: multipliers on the op times of a forward pass by class
  (``op_multipliers``: gemm, attention, moe, communication), a host time per forward pass
  (``host_step_s``) and per sequence it samples (``host_per_seq_s``), and a latency of each
  request outside the engine's loop (``request_s``: the serving simulation adds it between a
  client's send and the engine's arrival), fitted to benchmark runs, with what they were
  fitted to (``fit``: the runs, their residuals, and the residual band per figure a calibrated
  row carries in ``plan`` and ``latency``).

A file may hold either part or both; what it leaves out keeps the profile's own values.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from calc.data.hardware_schema import (
    Band,
    FigureSource,
    GemmPoint,
    HardwareProfile,
    StepCalibration,
)
from calc.data.yaml_io import load_mapping, validate
from calc.errors import ConfigError

_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)


class KernelEfficiency(BaseModel):
    """Achieved fraction of peak for one kernel class over one size range."""

    model_config = _STRICT

    kernel: str = Field(min_length=1, description="e.g. gemm, decode_attention, prefill_attention")
    bound: str = Field(pattern="^(compute|memory)$")
    size_range: str = Field(min_length=1, description="e.g. 'batch 1-8, ctx 1024-8192'")
    achieved_fraction: float = Field(gt=0, le=1.5)
    samples: int = Field(ge=1)


class OpMultipliers(BaseModel):
    """Multipliers on the op times of one forward pass, by op class (1: as modelled)."""

    model_config = _STRICT

    gemm: float = Field(default=1.0, gt=0, le=100, description="GEMMs over weights")
    attention: float = Field(default=1.0, gt=0, le=100, description="attention kernels")
    moe: float = Field(default=1.0, gt=0, le=100, description="MoE routed experts")
    communication: float = Field(default=1.0, gt=0, le=100, description="collectives")


class FittedRun(BaseModel):
    """One benchmark run a calibration was fitted to, and its residuals after the fit."""

    model_config = _STRICT

    source: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    residual_pct: dict[str, float] = Field(default_factory=dict)


class FittedBand(BaseModel):
    """The fit's residual on one figure [%]: the signed error predicted / measured − 1 at its
    low and high end over the runs fitted on, widened by ``rule`` (calc/reports/
    calibration_band.py): the band a calibrated row carries."""

    model_config = _STRICT

    low_pct: float = Field(gt=-100, le=1000)
    high_pct: float = Field(gt=-100, le=1000)
    runs: int = Field(ge=1)
    rule: str = Field(min_length=1)


class FitRecord(BaseModel):
    """What ``kvcalc score --save-calibration`` fitted, and to what."""

    model_config = _STRICT

    parameters: list[str] = Field(min_length=1)
    deployment: str = Field(min_length=1, description="the runs' deployment, in words")
    runs: list[FittedRun] = Field(min_length=1)
    rms_residual_pct: float = Field(ge=0)
    # per figure (ttft, tpot, output_tokens_per_s); files written before it leave it out
    band: dict[Literal["ttft", "tpot", "output_tokens_per_s"], FittedBand] | None = None


class Calibration(BaseModel):
    """Contents of a calibration YAML (module docstring)."""

    model_config = _STRICT

    kind: str = Field(pattern="^kvcalc-calibration$")
    hardware: str = Field(min_length=1, description="profile the fractions are relative to")
    device: str = Field(min_length=1, description="what ran the kernels or the benchmark")
    created: str = Field(min_length=1)
    matmul: Band | None = None
    memory: Band | None = None
    kernels: list[KernelEfficiency] = Field(default_factory=list)
    # Fixed cost of one kernel [s] (HardwareProfile.kernel_overhead_s) and how it was
    # timed: a CUDA-graph replay (what engines do at decode) or eager launches (CPU). Files
    # written before these fields existed leave them out: the profile's own values stay.
    kernel_overhead_s: float | None = Field(default=None, ge=0, le=1e-3)
    kernel_overhead_variant: str | None = Field(default=None, pattern="^(cuda_graph|eager)$")
    # Small-M GEMM slowdown vs M (HardwareProfile.gemm_m_curve), sorted by m
    gemm_m_curve: list[GemmPoint] | None = Field(default=None, min_length=1)
    # Fitted to benchmark runs (kvcalc score): op-class multipliers, host time per step [s]
    op_multipliers: OpMultipliers | None = None
    host_step_s: float | None = Field(default=None, ge=0, le=1.0)
    host_per_seq_s: float | None = Field(default=None, ge=0, le=0.1)
    request_s: float | None = Field(default=None, ge=0, le=10.0)
    fit: FitRecord | None = None
    # What it was fitted to beside the hardware (kvcalc score: the runs' engine, its modelled
    # release, the model and its linear layers' format; kvcalc measure: the model and --dtype),
    # each left out where the runs differ; files written before these fields leave them out,
    # and nothing is compared (calc.deploy.calibration_match)
    engine: str | None = Field(default=None, min_length=1, max_length=40)
    engine_version: str | None = Field(default=None, min_length=1, max_length=40)
    model: str | None = Field(default=None, min_length=1, max_length=200)
    dtype: str | None = Field(default=None, min_length=1, max_length=40)


def load_calibration(path: Path | str) -> Calibration:
    """The calibration file at ``path``; a file without its ``kind`` (a model config, a
    hardware profile given by mistake) is named as no calibration, not by its first field."""
    path = Path(path)
    data = load_mapping(path)
    if "kind" not in data:
        raise ConfigError(
            f"{path}: not a kvcalc calibration file (no 'kind: kvcalc-calibration'): make one "
            "with kvcalc score or kvcalc measure --save-calibration"
        )
    return validate(Calibration, data, path)


def apply_calibration(hw: HardwareProfile, cal: Calibration, path: Path | str) -> HardwareProfile:
    """``hw`` with its efficiency bands replaced by the measured ones, its fixed kernel cost,
    small-M GEMM curve, op-class multipliers and host time per step where the file has them
    (kept otherwise)."""
    measured: dict = {}
    if cal.matmul is not None or cal.memory is not None:
        measured["efficiency"] = replace(
            hw.efficiency,
            matmul=cal.matmul or hw.efficiency.matmul,
            memory=cal.memory or hw.efficiency.memory,
            source=f"calibration {path}",
            provenance="measured",  # the file's own bands (kvcalc measure), not the profile's
        )
    if cal.kernel_overhead_s is not None:
        how = f" ({cal.kernel_overhead_variant})" if cal.kernel_overhead_variant else ""
        measured["kernel_overhead_s"] = cal.kernel_overhead_s
        measured["kernel_overhead_source"] = f"calibration {path}{how}"
        measured["provenance"] = {**hw.provenance, "kernel_overhead_s": FigureSource(
            kind="measured", source=f"calibration {path}{how}")}  # fmt: skip
    if cal.gemm_m_curve:
        measured["gemm_m_curve"] = sorted(cal.gemm_m_curve, key=lambda p: p.m)
    kernel_figures = bool(measured)  # a measured band, fixed kernel cost or small-M GEMM curve
    if (cal.op_multipliers is not None or cal.host_step_s is not None or cal.host_per_seq_s
            or cal.request_s):  # fmt: skip
        m = cal.op_multipliers or OpMultipliers()
        measured["step_calibration"] = StepCalibration(
            gemm=m.gemm,
            attention=m.attention,
            moe=m.moe,
            communication=m.communication,
            host_step_s=cal.host_step_s or 0.0,
            host_per_seq_s=cal.host_per_seq_s or 0.0,
            request_s=cal.request_s or 0.0,
            source=f"calibration {path}",
            band=_band(cal),
        )
    if kernel_figures:  # the user's own kernel measurement: the fitted curves step aside
        measured["kernels"] = None
    return replace(hw, **measured)


def _band(cal: Calibration) -> dict | None:
    """The file's fit band as the profile's ``ResidualBand``s [fraction] (None without one)."""
    from calc.data.hardware_schema import ResidualBand

    if cal.fit is None or not cal.fit.band:
        return None
    return {k: ResidualBand(low=b.low_pct / 100, high=b.high_pct / 100, runs=b.runs, rule=b.rule)
            for k, b in cal.fit.band.items()}  # fmt: skip


def save_calibration(path: Path | str, cal: Calibration, flag: str = "--save-calibration") -> None:
    """Write ``cal`` as YAML with a header saying what it is, atomically."""
    import yaml

    from calc.output.render import write_atomic

    head = (
        "# kvcalc calibration (kind kvcalc-calibration). Use with any command:\n"
        "#   kvcalc latency --calibration THIS_FILE ...\n"
    )
    data = cal.model_dump(exclude_none=True)
    write_atomic(Path(path), head + yaml.safe_dump(data, sort_keys=False), flag)


def calibrated(
    hw: HardwareProfile, path: Path | str | None, warnings: list[str] | None = None
) -> HardwareProfile:
    """``hw`` with the calibration file at ``path`` applied, or ``hw`` itself if no path.

    A file measured on other hardware still applies (its fractions are relative to that
    hardware's peaks); a note is appended to ``warnings`` so the user sees the mismatch.
    """
    if path is None:
        return hw
    cal = load_calibration(path)
    if warnings is not None and cal.hardware != hw.name:
        warnings.append(
            f"calibration {path} was measured on {cal.hardware!r} ({cal.device}), "
            f"not on {hw.name!r}: its efficiencies are applied to {hw.name}'s peaks"
        )
    return apply_calibration(hw, cal, path)


# ---------------------------------------------------------------------------------------------
# Engine overheads measured from a start-up log (`kvcalc log --save-calibration`)


class EngineOverheads(BaseModel):
    """Memory an engine used beside weights and KV on one GPU, as its own log printed it
    [bytes]: the profiling pass's torch activation peak and its non-torch memory."""

    model_config = _STRICT

    kind: str = Field(pattern="^kvcalc-engine-calibration$")
    engine: str = Field(pattern="^(vllm|sglang|trtllm)$")
    engine_version: str | None = None
    hardware: str = Field(min_length=1)
    tp: int = Field(ge=1)
    pp: int = Field(ge=1)
    model: str = Field(min_length=1, description="model of the log the figures come from")
    activation_bytes: int | None = Field(default=None, ge=0)
    non_torch_bytes: int | None = Field(default=None, ge=0)
    source: str = Field(min_length=1, description="the log file")
    created: str = Field(min_length=1)


def load_engine_overheads(path: Path | str) -> EngineOverheads:
    path = Path(path)
    return validate(EngineOverheads, load_mapping(path), path)


def save_engine_overheads(path: Path | str, overheads: EngineOverheads) -> None:
    """Write ``overheads`` as YAML, atomically (nothing half-written, an old file kept on error)."""
    import yaml

    from calc.output.render import write_atomic

    data = overheads.model_dump()
    write_atomic(Path(path), yaml.safe_dump(data, sort_keys=False))
