"""Strict schema of a hardware profile YAML (bytes, bytes/s, FLOP/s, USD per GPU-hour).

Plain frozen dataclasses (see calc.schema_base): pydantic validates a user's file against
them strictly; a shipped profile is built directly and checked against that by the tests.
"""

from typing import Annotated, Literal

from calc.schema_base import Bounds, Schema, schema

PeakDtype = Literal["fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4", "int4"]

Fraction = Annotated[float, Bounds(gt=0, le=1)]
Text = Annotated[str, Bounds(min_length=1)]


@schema
class Band(Schema):
    """An achievable fraction of a peak: low, expected, high (each in (0, 1])."""

    low: Fraction
    expected: Fraction
    high: Fraction

    def __post_init__(self) -> None:
        if not self.low <= self.expected <= self.high:
            raise ValueError("need low <= expected <= high")


@schema
class Efficiency(Schema):
    """Achievable fractions of peak, with where they were measured."""

    matmul: Band  # achieved / peak dense tensor FLOP/s on large GEMMs
    memory: Band  # achieved / peak HBM bandwidth on large copies
    source: Text


@schema
class HardwareProfile(Schema):
    """One accelerator (per GPU): memory, bandwidth, dense peaks, interconnect, price."""

    name: Annotated[str, Bounds(min_length=1, max_length=100)]
    display_name: Text
    vendor: Text
    source: Text  # datasheet URL
    memory_bytes: Annotated[int, Bounds(gt=0, le=10**14)]  # HBM capacity per GPU [bytes]
    memory_label: Text  # the vendor's label, e.g. "80 GB"
    # what the vendor's 'GB' label really counts: 10^9 (GB) or 2^30 (GiB) bytes
    memory_label_unit: Literal["GB", "GiB"]
    hbm_bandwidth_bytes_per_s: Annotated[float, Bounds(gt=0, le=1e15)]
    # dense (no structured sparsity) tensor-core peak per dtype [FLOP/s]
    peak_flops_per_s: dict[PeakDtype, float]
    peak_note: Text  # states the peaks are dense
    interconnect: Text
    # per GPU, per direction [bytes/s]
    interconnect_bandwidth_bytes_per_s: Annotated[float, Bounds(gt=0, le=1e14)]
    interconnect_latency_s: Annotated[float, Bounds(gt=0, le=1)]  # per collective hop [s]
    usd_per_hour: Annotated[float, Bounds(gt=0, le=10_000)]  # price per GPU-hour [USD]
    price_date: Annotated[str, Bounds(pattern=r"^\d{4}-\d{2}(-\d{2})?$")]
    price_source: Text
    efficiency: Efficiency
    notes: str | None = None

    def __post_init__(self) -> None:
        for dtype, value in self.peak_flops_per_s.items():
            if not 0 < value <= 1e18:
                raise ValueError(f"peak_flops_per_s.{dtype} must be in (0, 1e18], got {value}")
        if "bf16" not in self.peak_flops_per_s:
            raise ValueError("peak_flops_per_s must include bf16")
