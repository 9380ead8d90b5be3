"""Start-up time of `kvcalc memory --model llama3-70b --ctx 8192` against the bare import of
its stack (`python -c "import typer, rich.table, pydantic, yaml, numpy"`), in the same run.

Usage: python bench/startup_bench.py [--runs N]
Each command runs N times alternately (after one warm-up each, so the OS file cache is warm
for both); the report gives the median and min wall time per command in milliseconds.
The calc package is byte-compiled first, as `pip install` does (a source checkout run with
PYTHONDONTWRITEBYTECODE=1 would otherwise recompile every module on every start).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = {
    "kvcalc memory --model llama3-70b --ctx 8192": [
        sys.executable,
        "-m",
        "calc",
        "memory",
        "--model",
        "llama3-70b",
        "--ctx",
        "8192",
    ],
    "python -c 'import typer, rich.table, pydantic, yaml, numpy'": [
        sys.executable,
        "-c",
        "import typer, rich.table, pydantic, yaml, numpy",
    ],
    "python -c 'pass' (interpreter floor)": [sys.executable, "-c", "pass"],
}


def _run(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    import compileall

    import calc

    compileall.compile_dir(Path(calc.__file__).parent, quiet=1)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for cmd in COMMANDS.values():
        _run(cmd)  # warm-up
    for _ in range(args.runs):
        for name, cmd in COMMANDS.items():
            times[name].append(_run(cmd))
    print(f"{'command':<62} {'median ms':>10} {'min ms':>8}")
    for name, ts in times.items():
        print(f"{name:<62} {statistics.median(ts) * 1e3:>10.1f} {min(ts) * 1e3:>8.1f}")
    k, b = (statistics.median(times[n]) for n in list(COMMANDS)[:2])
    print(f"kvcalc / bare stack import = {k / b:.2f} (target <= 1.00)")


if __name__ == "__main__":
    main()
