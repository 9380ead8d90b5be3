"""A temporary hardware profile ('cpu-probe') whose peaks are this machine's measured matmul
rate [FLOP/s] and copy bandwidth [bytes/s], for `kvcalc measure --device cpu`.

Pure Python: the rates come from the suite's probe_gemm and probe_copy rows.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform

from calc.data.hardware_schema import Band, Efficiency, FigureSource, HardwareProfile, Price

PROFILE_NAME = "cpu-probe"


def _memory_bytes() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # not POSIX: a placeholder, never used
        return 1


def cpu_profile(
    matmul_flops_per_s: float, copy_bytes_per_s: float, dtype: str, threads: int
) -> HardwareProfile:
    """A valid HardwareProfile whose peaks are the probed rates (efficiency 1: the probe
    defines peak, so fractions of peak read as fractions of what this CPU did on a large
    GEMM and a large copy). bf16 is required by the schema: it gets the probed rate when
    the probe ran in another dtype."""
    cpu = platform.processor() or platform.machine() or "cpu"
    mem = _memory_bytes()
    one = Band(low=1.0, expected=1.0, high=1.0)
    peaks = {dtype: float(matmul_flops_per_s)}
    peaks.setdefault("bf16", float(matmul_flops_per_s))
    return HardwareProfile(
        name=PROFILE_NAME,
        display_name=f"this CPU ({cpu}, {threads} torch threads), probed",
        vendor="probe",
        source="kvcalc measure --device cpu: large GEMM and large copy measured on this machine",
        memory_bytes=max(1, mem),
        memory_label=f"{mem / 1e9:.1f} GB",
        memory_label_unit="GB",
        hbm_bandwidth_bytes_per_s=float(copy_bytes_per_s),
        peak_flops_per_s=peaks,
        peak_note=f"dense: measured {dtype} GEMM rate (no sparsity); bf16 copies it if absent",
        interconnect="none (single CPU)",
        interconnect_bandwidth_bytes_per_s=1.0,
        interconnect_latency_s=1.0,
        prices=[
            Price(
                basis="owned_tco",
                usd_per_gpu_hour=1e-9,
                kind="placeholder",
                source="not priced (a probe profile)",
                date=_dt.date.today().strftime("%Y-%m"),
                rule="a probe profile has no price",
            )
        ],
        efficiency=Efficiency(
            matmul=one, memory=one, source="the probe defines peak", provenance="measured"
        ),
        provenance={
            key: FigureSource(kind="measured", source="kvcalc measure --device cpu on this machine")
            for key in ("peak_flops_per_s", "hbm_bandwidth_bytes_per_s", "interconnect")
        },
        notes="temporary profile built by kvcalc measure; not a datasheet",
    )
