"""Achieved efficiencies [fraction of peak] from measured rows, as a Calibration (the schema
of calc.data.calibration) that `--calibration FILE` applies to a hardware profile.

Pure Python over report rows. Only rows with status 'ok' count: a rejected (wrong) or
failed kernel never calibrates anything.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence

from calc.data.calibration import Calibration, KernelEfficiency
from calc.data.hardware_schema import Band
from calc.measure.timing import quantile

BATCH_BUCKETS = ((1, 8), (9, 64), (65, 512), (513, 10**9))
_MAX_KERNEL_FRACTION = 1.5  # KernelEfficiency's bound


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
    return [r for r in rows if r["status"] == "ok" and r.get("measured_median_s")]


def kernel_efficiencies(rows: Sequence[dict]) -> list[KernelEfficiency]:
    """Median achieved fraction per (kernel class, bound, batch range), in row order."""
    groups: dict[tuple[str, str, tuple[int, int]], list[dict]] = {}
    for r in usable(rows):
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
    from memory-bound rows (the copy probe among them). Where no usable row is of that
    bound, the probe row of that resource is used; failing that, the fallback band.
    """
    ok = usable(rows)

    def pick(bound: str, probe: str, fallback: Band) -> Band:
        chosen = [r for r in ok if r["bound"] == bound]
        if not chosen:
            chosen = [r for r in ok if r["kernel"] == probe]
        return band(chosen) or fallback

    return Calibration(
        kind="kvcalc-calibration",
        hardware=hardware,
        device=device,
        created=created or _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        matmul=pick("compute", "probe_gemm", fallback_matmul),
        memory=pick("memory", "probe_copy", fallback_memory),
        kernels=kernel_efficiencies(rows),
    )


def calibration_yaml(cal: Calibration) -> str:
    """The YAML text of ``cal`` with a header saying what it is."""
    import yaml

    head = (
        "# kvcalc calibration: achieved fractions of the profile's peaks, measured by\n"
        "# `kvcalc measure`. Use with: kvcalc latency --calibration THIS_FILE ...\n"
    )
    return head + yaml.safe_dump(cal.model_dump(), sort_keys=False)
