"""Start-up time of kvcalc commands against the bare import of their stack
(`python -c "import typer, rich.table, pydantic, yaml, numpy"`), in the same run: CPU time
(user + system of the child process, from ``os.wait4``) and wall time, in milliseconds.

Usage: python bench/startup_bench.py [--runs N] [--all]

CPU time is the figure the target is set on (issue 27: ``kvcalc memory`` at or under 0.6x
the stack's CPU time): wall time on a shared machine also counts the time the process waited
for a core. Each command runs N times, the commands alternating (after one warm-up each, so
the OS file cache is warm for all); the report gives the median and min per command and the
ratio of the medians to the stack import. The calc package is byte-compiled first, as
`pip install` does (a source checkout run with PYTHONDONTWRITEBYTECODE=1 would otherwise
recompile every module on every start). ``--all`` adds one invocation of every sizing
command (capacity, latency, cost, simulate --help, ...) to the table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

PY = sys.executable
MEMORY = "kvcalc memory --model llama3-70b --ctx 8192"
STACK = "python -c 'import typer, rich.table, pydantic, yaml, numpy'"
COMMANDS = {
    MEMORY: [PY, "-m", "calc", "memory", "--model", "llama3-70b", "--ctx", "8192"],
    STACK: [PY, "-c", "import typer, rich.table, pydantic, yaml, numpy"],
    "python -c 'pass' (interpreter floor)": [PY, "-c", "pass"],
}
_AT = ["--model", "llama3-70b", "--hardware", "h100", "--tp", "4"]
MORE = {
    "kvcalc --help": [PY, "-m", "calc", "--help"],
    "kvcalc capacity ... --ctx 8192": [PY, "-m", "calc", "capacity", *_AT, "--ctx", "8192"],
    "kvcalc latency ...": [PY, "-m", "calc", "latency", *_AT],
    "kvcalc cost ... --ctx 4096": [PY, "-m", "calc", "cost", *_AT, "--ctx", "4096"],
    "kvcalc simulate ... --rate 1 -n 20": [PY, "-m", "calc", "simulate", *_AT, "--rate", "1",
                                           "-n", "20"],
    "import calc (the API's package)": [PY, "-c", "import calc"],
}
TARGET = 0.6  # kvcalc memory's CPU time over the stack import's (issue 27)


def _run(cmd: list[str]) -> tuple[float, float]:
    """(CPU seconds: user + system, wall seconds) of one run of ``cmd``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--all", action="store_true", help="time every sizing command too")
    args = parser.parse_args()
    import compileall

    import calc

    compileall.compile_dir(Path(calc.__file__).parent, quiet=1)
    commands = {**COMMANDS, **(MORE if args.all else {})}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    wall: dict[str, list[float]] = {name: [] for name in commands}
    for cmd in commands.values():
        _run(cmd)  # warm-up
    for _ in range(args.runs):
        for name, cmd in commands.items():
            c, w = _run(cmd)
            cpu[name].append(c)
            wall[name].append(w)
    base_cpu, base_wall = statistics.median(cpu[STACK]), statistics.median(wall[STACK])
    head = f"{'command':<52} {'CPU ms':>7} {'min':>6} {'/stack':>7} {'wall ms':>8} {'/stack':>7}"
    print(f"{args.runs} runs each; median (and min) CPU time = user + system of the process")
    print(head)
    for name in commands:
        c, w = statistics.median(cpu[name]), statistics.median(wall[name])
        print(
            f"{name:<52} {c * 1e3:>7.1f} {min(cpu[name]) * 1e3:>6.1f} {c / base_cpu:>7.2f} "
            f"{w * 1e3:>8.1f} {w / base_wall:>7.2f}"
        )
    ratio = statistics.median(cpu[MEMORY]) / base_cpu
    verdict = "met" if ratio <= TARGET else "NOT met"
    print(f"kvcalc memory / bare stack import, CPU time = {ratio:.2f} "
          f"(target <= {TARGET}: {verdict})")  # fmt: skip


if __name__ == "__main__":
    main()
