"""Benchmark of `kvcalc sweep`: scenario rows evaluated per second (memory, capacity, latency
and cost columns, excluding file writing) and the CSV writing rate.

Run: python bench/sweep_bench.py [--repeat 5] [--ctx 128..131072:+128] [--batch 1..64]
The default grid is 2 models × 2 GPUs × 4 TP degrees × 1,024 contexts × 64 batches =
1,048,576 rows. The target is ≥ 1,000,000 rows/s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calc.render import write_atomic
from calc.sweep import parse_values, sweep, to_csv_columns

TARGET_ROWS_PER_S = 1_000_000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="llama3-8b,llama3-70b")
    ap.add_argument("--hardware", default="h100,h200")
    ap.add_argument("--tp", default="1,2,4,8")
    ap.add_argument("--ctx", default="128..131072:+128")
    ap.add_argument("--batch", default="1..64")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    grid = dict(
        ctx=parse_values(args.ctx, "--ctx"),
        batch=parse_values(args.batch, "--batch"),
        tp=parse_values(args.tp, "--tp"),
    )
    models, hardware = args.models.split(","), args.hardware.split(",")
    result = sweep(models, hardware, **grid)  # warm-up: imports, YAML loading, caches
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        result = sweep(models, hardware, **grid)
        times.append(time.perf_counter() - t0)
    best, median = min(times), sorted(times)[len(times) // 2]
    rows = result.n_rows
    py = platform.python_version()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {py}")
    print(f"grid: {rows:,} rows × {len(result.columns)} columns")
    print(f"evaluate: best {best * 1e3:,.1f} ms, median {median * 1e3:,.1f} ms "
          f"-> {rows / best:,.0f} rows/s (best), {rows / median:,.0f} rows/s (median)")  # fmt: skip

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "grid.csv"
        t0 = time.perf_counter()
        text = to_csv_columns(result)
        t1 = time.perf_counter()
        write_atomic(out, text)
        t2 = time.perf_counter()
        size = out.stat().st_size
    print(f"csv: format {t1 - t0:,.2f} s + write {t2 - t1:,.2f} s = {t2 - t0:,.2f} s "
          f"-> {rows / (t2 - t0):,.0f} rows/s, {size / 1e6 / (t2 - t0):,.1f} MB/s "
          f"({size / 1e6:,.1f} MB)")  # fmt: skip
    ok = rows / median >= TARGET_ROWS_PER_S
    print(f"target ≥ {TARGET_ROWS_PER_S:,} rows/s (median): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
