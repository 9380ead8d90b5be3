"""Measured efficiencies [fraction of peak] saved by `kvcalc measure` and applied to a profile.

A calibration file replaces a hardware profile's datasheet-derived efficiency bands with the
ones achieved on the user's own machine, so `latency`, `capacity`, `cost` and `check` predict
with measured rates (``--calibration FILE``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from calc.data.hardware_schema import Band, GemmPoint, HardwareProfile
from calc.data.yaml_io import load_mapping, validate

_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)


class KernelEfficiency(BaseModel):
    """Achieved fraction of peak for one kernel class over one size range."""

    model_config = _STRICT

    kernel: str = Field(min_length=1, description="e.g. gemm, decode_attention, prefill_attention")
    bound: str = Field(pattern="^(compute|memory)$")
    size_range: str = Field(min_length=1, description="e.g. 'batch 1-8, ctx 1024-8192'")
    achieved_fraction: float = Field(gt=0, le=1.5)
    samples: int = Field(ge=1)


class Calibration(BaseModel):
    """Contents of a calibration YAML written by ``kvcalc measure --save-calibration``."""

    model_config = _STRICT

    kind: str = Field(pattern="^kvcalc-calibration$")
    hardware: str = Field(min_length=1, description="profile the fractions are relative to")
    device: str = Field(min_length=1, description="what ran the kernels (torch device name)")
    created: str = Field(min_length=1)
    matmul: Band
    memory: Band
    kernels: list[KernelEfficiency] = Field(default_factory=list)
    # Fixed cost of one kernel [s] (HardwareProfile.kernel_overhead_s) and how it was
    # timed: a CUDA-graph replay (what engines do at decode) or eager launches (CPU). Files
    # written before these fields existed leave them out: the profile's own values stay.
    kernel_overhead_s: float | None = Field(default=None, ge=0, le=1e-3)
    kernel_overhead_variant: str | None = Field(default=None, pattern="^(cuda_graph|eager)$")
    # Small-M GEMM slowdown vs M (HardwareProfile.gemm_m_curve), sorted by m
    gemm_m_curve: list[GemmPoint] | None = Field(default=None, min_length=1)


def load_calibration(path: Path | str) -> Calibration:
    path = Path(path)
    return validate(Calibration, load_mapping(path), path)


def apply_calibration(hw: HardwareProfile, cal: Calibration, path: Path | str) -> HardwareProfile:
    """``hw`` with its efficiency bands replaced by the measured ones, and its fixed kernel
    cost and small-M GEMM curve where the file has them (kept otherwise)."""
    eff = replace(hw.efficiency, matmul=cal.matmul, memory=cal.memory, source=f"calibration {path}")
    measured: dict = {}
    if cal.kernel_overhead_s is not None:
        how = f" ({cal.kernel_overhead_variant})" if cal.kernel_overhead_variant else ""
        measured["kernel_overhead_s"] = cal.kernel_overhead_s
        measured["kernel_overhead_source"] = f"calibration {path}{how}"
    if cal.gemm_m_curve:
        measured["gemm_m_curve"] = sorted(cal.gemm_m_curve, key=lambda p: p.m)
    # the user's own measurement times every kernel: the profile's fitted curves step aside
    return replace(hw, efficiency=eff, kernels=None, **measured)


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
