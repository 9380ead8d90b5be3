"""Benchmark of `kvcalc sweep`: rows evaluated per second (memory, capacity, latency and cost
columns, no text), CSV and JSON written per second (streamed, chunk by chunk), and the whole
command `kvcalc sweep ... -f csv -o FILE` at 1M and 10M rows: wall time, CPU time and peak RSS
(memory must not grow with the row count).

Run: python bench/sweep_bench.py [--repeat 3] [--jobs 0] [--skip-10m] [--markdown FILE]
(``--markdown docs/sweep-bench.md`` writes the figures as that page).

CSV is measured twice without a disk, written to /dev/null: by one process, and by the
command's worker processes (``--jobs``, default one per CPU, at most 4), which write their
chunks to the descriptor themselves in turn, as they do to stdout; the CSV target is met by
the better of the two (the target is for 2 cores). JSON is measured in one process into a
byte counter.
The 1M grid is 2 models × 2 GPUs × 4 TP degrees × 1,024 contexts × 64 batches = 1,048,576
rows; the 10M grid has 640 batches (10,485,760 rows). Targets on a 2-core machine: CSV
≥ 2,000,000 rows/s, and 10M rows to a CSV file in ≤ 10 s. On a shared machine read the CPU
times beside the wall times: wall time counts the time other processes held the cores; the
CPU time of the worker processes is measured too (rows per CPU-second: two free cores give
at most twice that).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from calc.reports.sweep import parse_values, plan  # noqa: E402
from calc.reports.sweep_io import write_csv, write_json  # noqa: E402

TARGET_CSV_ROWS_PER_S = 2_000_000
TARGET_10M_S = 10.0
GRID = dict(models="llama3-8b,llama3-70b", hardware="h100,h200", tp="1,2,4,8",
            ctx="128..131072:+128")  # fmt: skip


class _Sink:
    """A file that counts bytes and keeps none (the formatting rate without the disk)."""

    def __init__(self) -> None:
        self.n = 0

    def write(self, data: bytes) -> None:
        self.n += len(data)


def _plan(batch: str):
    return plan(
        GRID["models"].split(","),
        GRID["hardware"].split(","),
        ctx=parse_values(GRID["ctx"], "--ctx"),
        batch=parse_values(batch, "--batch"),
        tp=parse_values(GRID["tp"], "--tp"),
    )


def _cpu_s() -> float:
    """CPU time of this process and of its waited-for children [s]."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _timed(fn, repeat: int) -> tuple[float, float, float]:
    """(best wall, median wall, CPU of the best run, this process and its workers) [s]."""
    runs = []
    for _ in range(repeat):
        c0, t0 = _cpu_s(), time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t0, _cpu_s() - c0))
    walls = sorted(w for w, _ in runs)
    best = min(runs)
    return best[0], walls[len(walls) // 2], best[1]


def _to_devnull(p, jobs: int) -> None:
    with open(os.devnull, "wb") as fh:
        write_csv(p, fh, jobs)


def _csv_size(p) -> int:
    """The CSV's size in bytes (the text written to /dev/null), counted once."""
    sink = _Sink()
    write_csv(p, sink)
    return sink.n


_MEASURE = """
import os, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stderr=subprocess.DEVNULL)
_, status, u = os.wait4(p.pid, 0)
print(os.waitstatus_to_exitcode(status), time.perf_counter() - t0,
      u.ru_utime + u.ru_stime, u.ru_maxrss)
"""


def _command(batch: str, out: Path, jobs: int) -> tuple[float, float, int]:
    """`kvcalc sweep ... -f csv -o out` in a fresh process: (wall s, CPU s, peak RSS bytes)."""
    args = [sys.executable, "-m", "calc", "sweep", "-m", GRID["models"], "-H", GRID["hardware"],
            "--tp", GRID["tp"], "--ctx", GRID["ctx"], "--batch", batch, "-f", "csv", "-o",
            str(out), "--jobs", str(jobs)]  # fmt: skip
    # Run through a small fresh interpreter that starts the command and reports its rusage: a
    # child forked (or vforked) from this process would count this benchmark's own memory (the
    # CSV and JSON it has just formatted) in its peak RSS, which Linux keeps across exec.
    out_text = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args], cwd=ROOT, capture_output=True, text=True,
        check=False,
    ).stdout.split()  # fmt: skip
    code, wall, cpu, rss_kib = int(out_text[0]), *map(float, out_text[1:])
    if code:
        raise SystemExit(f"kvcalc sweep failed ({code})")
    # ru_maxrss is in KiB on Linux; the rusage of the command includes its worker processes'
    # CPU, and its peak RSS is the largest single process
    return wall, cpu, int(rss_kib * 1024)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=0, help="--jobs of the command (0: auto)")
    ap.add_argument("--skip-10m", action="store_true", help="leave out the 10M-row command")
    ap.add_argument("--markdown", type=Path, help="also write the figures to this file")
    args = ap.parse_args()
    lines: list[str] = []

    def print(text: str) -> None:  # every figure also goes to the report
        lines.append(text)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, numpy {_numpy_version()}, load average "
          f"{load:.2f}")  # fmt: skip

    p = _plan("1..64")
    rows = p.n_rows
    print(f"grid: {rows:,} rows × {len(p.columns)} columns, {p.n_chunks} chunks")

    def evaluate() -> None:
        for chunk in p.chunks():
            chunk.columns.get("fits")

    best, median, cpu = _timed(evaluate, args.repeat)
    print(f"evaluate: best {best:,.3f} s (CPU {cpu:,.3f} s), median {median:,.3f} s "
          f"-> {rows / best:,.0f} rows/s (best)")  # fmt: skip
    met: dict[str, bool] = {}
    jobs = args.jobs or max(1, min(os.cpu_count() or 1, 4))  # as the command's --jobs 0
    for name, writer in (("csv", write_csv), ("json", write_json)):
        sink = _Sink()
        if name == "csv":
            best, median, cpu = _timed(lambda: _to_devnull(p, 1), args.repeat)
            size = _csv_size(p)
        else:
            best, median, cpu = _timed(lambda w=writer, s=sink: w(p, s), args.repeat)
            size = sink.n / args.repeat
        print(f"{name} (evaluate + format, 1 process, no disk): best {best:,.3f} s "
              f"(CPU {cpu:,.3f} s), median {median:,.3f} s -> {rows / best:,.0f} rows/s, "
              f"{rows / cpu:,.0f} rows per CPU-second, {size / 1e6:,.1f} MB")  # fmt: skip
        rate = rows / best
        if name == "csv" and jobs > 1:
            # the same text made and written by `jobs` worker processes (the command's
            # --jobs); the CPU time is theirs and this process's
            best, median, cpu = _timed(lambda: _to_devnull(p, jobs), args.repeat)
            print(f"csv (evaluate + format, {jobs} worker processes, no disk): best "
                  f"{best:,.3f} s (CPU {cpu:,.3f} s, workers and parent), median "
                  f"{median:,.3f} s -> {rows / best:,.0f} rows/s, {rows / cpu:,.0f} rows "
                  "per CPU-second")  # fmt: skip
            rate = max(rate, rows / best)
        if name == "csv":  # on 2 cores: the better of one process and the workers
            met[f"CSV ≥ {TARGET_CSV_ROWS_PER_S:,} rows/s ({rate:,.0f})"] = (
                rate >= TARGET_CSV_ROWS_PER_S
            )
    with tempfile.TemporaryDirectory() as tmp:
        sizes = [("1M", "1..64")] + ([] if args.skip_10m else [("10M", "1..640")])
        for label, batch in sizes:
            out = Path(tmp) / f"grid-{label}.csv"
            wall, cpu, rss = _command(batch, out, args.jobs)
            n = _plan(batch).n_rows
            mb = out.stat().st_size / 1e6
            print(f"kvcalc sweep -f csv -o FILE, {n:,} rows ({mb:,.0f} MB): wall {wall:,.2f} s "
                  f"-> {n / wall:,.0f} rows/s; CPU {cpu:,.2f} s -> {n / cpu:,.0f} rows per "
                  f"CPU-second; peak RSS {rss / 2**20:,.0f} MiB")  # fmt: skip
            out.unlink()
            if label == "10M":
                met[f"10M rows ≤ {TARGET_10M_S:g} s ({wall:.2f} s)"] = wall <= TARGET_10M_S
    load_end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average at the end {load_end:.2f} (other processes' share of the cores)")
    print("targets: " + "; ".join(f"{k}: {'met' if v else 'NOT met'}" for k, v in met.items()))
    if args.markdown:
        _write_markdown(args.markdown, lines)
    return 0 if all(met.values()) else 1


def _numpy_version() -> str:
    import numpy

    return numpy.__version__


def _write_markdown(path: Path, lines: list[str]) -> None:
    head: list[str] = []
    for line in (__doc__ or "").strip().splitlines():
        if line.startswith(("Run:", "(``--markdown")) or (not line and head and not head[-1]):
            continue  # the command line, and a blank line after a blank line
        head.append(line)
    text = [
        "# `kvcalc sweep` benchmark",
        "",
        "Written by `python bench/sweep_bench.py --markdown docs/sweep-bench.md` "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}).",
        "",
        *head,
        "",
        "```text",
        *lines,
        "```",
        "",
    ]
    path.write_text("\n".join(text))


if __name__ == "__main__":
    sys.exit(main())
