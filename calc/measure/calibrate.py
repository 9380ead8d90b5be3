"""Achieved efficiencies [fraction of peak] from measured rows, as a Calibration (the schema
of calc.data.calibration) that `--calibration FILE` applies to a hardware profile.

Pure Python over report rows. Only rows with status 'ok' that are not too noisy count: a
rejected (wrong) or failed kernel, or one timed on an unsteady machine, never calibrates
anything.

Besides the efficiency bands (from the suite's kernels, the large probes among them): the
fixed cost of one kernel [s] (the kernel_overhead rows: a CUDA-graph replay where measured,
else eager launches) and the small-M GEMM curve (the gemm_m rows): at M rows a GEMM takes
slowdown(M) × its roofline time at the calibrated bands, plus one fixed kernel cost, so
slowdown = (measured - kernel cost) / roofline, the median over the model's GEMM shapes.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence

from calc.data.calibration import Calibration, KernelEfficiency
from calc.data.hardware_schema import Band, GemmPoint
from calc.measure.timing import quantile

BATCH_BUCKETS = ((1, 8), (9, 64), (65, 512), (513, 10**9))
_MAX_KERNEL_FRACTION = 1.5  # KernelEfficiency's bound
OVERHEAD_KERNEL = "kernel_overhead"  # rows timing one tiny kernel (per kernel of a chain)
CURVE_KERNEL = "gemm_m"  # rows of the small-M GEMM curve
OVERHEAD_VARIANTS = ("cuda_graph", "eager")  # the first one measured is the one saved
_MAX_OVERHEAD_S = 1e-3  # HardwareProfile.kernel_overhead_s's bound
_SLOWDOWN_RANGE = (0.5, 100.0)  # GemmPoint.slowdown's bounds


def batch_bucket(batch: int) -> tuple[int, int]:
    """The batch range a row calibrates: 1-8, 9-64, 65-512 or 513+."""
    for lo, hi in BATCH_BUCKETS:
        if lo <= batch <= hi:
            return lo, hi
    return BATCH_BUCKETS[-1]


def _fractions(r: dict) -> tuple[float, float, float]:
    """(slow, median, fast) achieved fraction of the bound resource's peak of one row:
    at the p90, median and p10 times."""
    f = r["fraction_of_peak"]
    med = r["measured_median_s"]
    return f * med / r["measured_p90_s"], f, f * med / r["measured_p10_s"]


def band(rows: Sequence[dict]) -> Band | None:
    """low = slowest fraction seen (p90 times), expected = median over rows of the median
    fraction, high = fastest (p10 times); each clamped to (0, 1]. None without rows."""
    if not rows:
        return None
    slow, mid, fast = zip(*(_fractions(r) for r in rows), strict=True)
    low, exp, high = (min(1.0, x) for x in (min(slow), quantile(mid, 0.5), max(fast)))
    low = min(low, exp)
    high = max(high, exp)
    return Band(low=low, expected=exp, high=high)


def usable(rows: Sequence[dict]) -> list[dict]:
    """Rows that may calibrate: status ok, timed, and not too noisy to score."""
    return [
        r
        for r in rows
        if r["status"] == "ok" and r.get("measured_median_s") and not r.get("too_noisy")
    ]


def kernel_overhead(rows: Sequence[dict]) -> tuple[float, str] | None:
    """(fixed cost of one kernel [s], variant): the median of the kernel_overhead rows of the
    first variant measured of cuda_graph, eager (capped at the profile schema's 1 ms)."""
    ok = [r for r in usable(rows) if r["kernel"] == OVERHEAD_KERNEL]
    for variant in OVERHEAD_VARIANTS:
        times = [r["measured_median_s"] for r in ok if r["variant"] == variant]
        if times:
            return min(_MAX_OVERHEAD_S, quantile(times, 0.5)), variant
    return None


def roofline_at_bands_s(r: dict, matmul: Band, memory: Band) -> float:
    """Roofline time [s] of a measured row at the bands' expected fractions of its profile's
    peaks, from the row alone: its flops_fraction (= flops / median / peak FLOP/s) and
    bandwidth_fraction give flops / peak = median × flops_fraction, so
    max(flops / (peak × matmul), bytes / (bandwidth × memory))
    = median × max(flops_fraction / matmul, bandwidth_fraction / memory).
    Rows of reports probed on different machines (other peaks) thus combine."""
    med = r["measured_median_s"]
    return med * max(
        r["flops_fraction"] / matmul.expected, r["bandwidth_fraction"] / memory.expected
    )


def gemm_slowdown(r: dict, matmul: Band, memory: Band, kernel_overhead_s: float) -> float:
    """(measured - kernel cost) / roofline time at the bands of one GEMM row [ratio]: 1 on
    the roofline, 2 twice as slow."""
    return (r["measured_median_s"] - kernel_overhead_s) / roofline_at_bands_s(r, matmul, memory)


def gemm_m_curve(
    rows: Sequence[dict], matmul: Band, memory: Band, kernel_overhead_s: float = 0.0
) -> list[GemmPoint] | None:
    """The small-M curve: per M (the gemm_m rows' batch), the median slowdown over the GEMM
    shapes measured at that M, clamped to GemmPoint's [0.5, 100]; sorted by M. None
    without gemm_m rows."""
    by_m: dict[int, list[float]] = {}
    for r in usable(rows):
        if r["kernel"] == CURVE_KERNEL:
            slowdown = gemm_slowdown(r, matmul, memory, kernel_overhead_s)
            by_m.setdefault(r["batch"], []).append(slowdown)
    if not by_m:
        return None
    lo, hi = _SLOWDOWN_RANGE
    return [
        GemmPoint(m=m, slowdown=min(hi, max(lo, quantile(v, 0.5)))) for m, v in sorted(by_m.items())
    ]


def kernel_efficiencies(rows: Sequence[dict]) -> list[KernelEfficiency]:
    """Median achieved fraction per (kernel class, bound, batch range), in row order (the
    kernel_overhead rows excluded: they have no work to be a fraction of)."""
    groups: dict[tuple[str, str, tuple[int, int]], list[dict]] = {}
    for r in usable(rows):
        if r["kernel"] == OVERHEAD_KERNEL:
            continue
        groups.setdefault((r["kernel"], r["bound"], batch_bucket(r["batch"])), []).append(r)
    out = []
    for (kernel, bound, (lo, hi)), rs in groups.items():
        batches = sorted({r["batch"] for r in rs})
        ctxs = sorted({r["ctx"] for r in rs if r["ctx"]})
        size = f"batch {batches[0]}-{batches[-1]} (bucket {lo}-{hi if hi < 10**9 else 'up'})"
        if ctxs:
            size += f", ctx {ctxs[0]}-{ctxs[-1]}"
        frac = quantile([r["fraction_of_peak"] for r in rs], 0.5)
        out.append(
            KernelEfficiency(
                kernel=kernel,
                bound=bound,
                size_range=size,
                achieved_fraction=min(_MAX_KERNEL_FRACTION, frac),
                samples=len(rs),
            )
        )
    return out


def build_calibration(
    rows: Sequence[dict],
    *,
    hardware: str,
    device: str,
    fallback_matmul: Band,
    fallback_memory: Band,
    created: str | None = None,
) -> Calibration:
    """The Calibration of a measured suite.

    matmul band: from compute-bound rows (the large-GEMM probe among them); memory band:
    from memory-bound rows (the copy probe among them); neither from the kernel_overhead
    nor the gemm_m rows. Where no usable row is of that bound, the probe row of that
    resource is used; failing that, the fallback band. Then the fixed cost of one kernel,
    and the small-M GEMM curve at the bands just fitted, less that cost.
    """
    ok = [r for r in usable(rows) if r["kernel"] not in (OVERHEAD_KERNEL, CURVE_KERNEL)]

    def pick(bound: str, probe: str, fallback: Band) -> Band:
        chosen = [r for r in ok if r["bound"] == bound]
        if not chosen:
            chosen = [r for r in ok if r["kernel"] == probe]
        return band(chosen) or fallback

    matmul = pick("compute", "probe_gemm", fallback_matmul)
    memory = pick("memory", "probe_copy", fallback_memory)
    overhead = kernel_overhead(rows)
    curve = gemm_m_curve(rows, matmul, memory, overhead[0] if overhead else 0.0)
    return Calibration(
        kind="kvcalc-calibration",
        hardware=hardware,
        device=device,
        created=created or _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        matmul=matmul,
        memory=memory,
        kernels=kernel_efficiencies(rows),
        kernel_overhead_s=overhead[0] if overhead else None,
        kernel_overhead_variant=overhead[1] if overhead else None,
        gemm_m_curve=curve,
    )


def calibration_yaml(cal: Calibration) -> str:
    """The YAML text of ``cal`` with a header saying what it is."""
    import yaml

    head = (
        "# kvcalc calibration: achieved fractions of the profile's peaks, measured by\n"
        "# `kvcalc measure`. Use with: kvcalc latency --calibration THIS_FILE ...\n"
    )
    return head + yaml.safe_dump(cal.model_dump(), sort_keys=False)
