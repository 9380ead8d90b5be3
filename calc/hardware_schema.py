"""Strict schema of a hardware profile YAML (bytes, bytes/s, FLOP/s, USD per GPU-hour)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

_STRICT = ConfigDict(
    extra="forbid", frozen=True, strict=True, allow_inf_nan=False, defer_build=True
)

PeakDtype = Literal["fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4", "int4"]


class Band(BaseModel):
    """An achievable fraction of a peak: low, expected, high (each in (0, 1])."""

    model_config = _STRICT

    low: float = Field(gt=0, le=1)
    expected: float = Field(gt=0, le=1)
    high: float = Field(gt=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> Band:
        if not self.low <= self.expected <= self.high:
            raise ValueError("need low <= expected <= high")
        return self


class Efficiency(BaseModel):
    """Achievable fractions of peak, with where they were measured."""

    model_config = _STRICT

    matmul: Band = Field(description="achieved / peak dense tensor FLOP/s on large GEMMs")
    memory: Band = Field(description="achieved / peak HBM bandwidth on large copies")
    source: str = Field(min_length=1)


class HardwareProfile(BaseModel):
    """One accelerator (per GPU): memory, bandwidth, dense peaks, interconnect, price."""

    model_config = _STRICT

    name: str = Field(min_length=1, max_length=100)
    display_name: str = Field(min_length=1)
    vendor: str = Field(min_length=1)
    source: str = Field(min_length=1, description="datasheet URL")
    memory_bytes: int = Field(gt=0, le=10**14, description="HBM capacity per GPU [bytes]")
    memory_label: str = Field(min_length=1, description='the vendor\'s label, e.g. "80 GB"')
    memory_label_unit: Literal["GB", "GiB"] = Field(
        description="what the vendor's 'GB' label really counts: 10^9 (GB) or 2^30 (GiB) bytes"
    )
    hbm_bandwidth_bytes_per_s: float = Field(gt=0, le=1e15)
    peak_flops_per_s: dict[PeakDtype, float] = Field(
        description="dense (no structured sparsity) tensor-core peak per dtype [FLOP/s]"
    )
    peak_note: str = Field(min_length=1, description="states the peaks are dense")
    interconnect: str = Field(min_length=1)
    interconnect_bandwidth_bytes_per_s: float = Field(
        gt=0, le=1e14, description="per GPU, per direction [bytes/s]"
    )
    interconnect_latency_s: float = Field(gt=0, le=1, description="per collective hop [s]")
    usd_per_hour: float = Field(gt=0, le=10_000, description="price per GPU-hour [USD]")
    price_date: str = Field(pattern=r"^\d{4}-\d{2}(-\d{2})?$")
    price_source: str = Field(min_length=1)
    efficiency: Efficiency
    notes: str | None = None

    @model_validator(mode="after")
    def _peaks(self) -> HardwareProfile:
        for dtype, value in self.peak_flops_per_s.items():
            if not 0 < value <= 1e18:
                raise ValueError(f"peak_flops_per_s.{dtype} must be in (0, 1e18], got {value}")
        if "bf16" not in self.peak_flops_per_s:
            raise ValueError("peak_flops_per_s must include bf16")
        return self
