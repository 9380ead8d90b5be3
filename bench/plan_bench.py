"""Wall and CPU time of `kvcalc plan` with the wider search of issue 22 over every shipped profile
(dtypes as released + fp8 + fp4 where native, KV as released + fp8, TP and EP up to the scale-up
domain, multi-node EP, disaggregated pools chosen apart, margins from the class bands), a whole
process each run (start-up, every profile, the screen, the simulated replica sizing, rendering).

Cases: issue 13's Llama 3 70B ask and issue 22's five realistic questions:

    llama3-70b        10 req/s  2,048 + 256    p99 TTFT 2 s, TPOT 50 ms
    llama3.3-70b      10 req/s  2,048 + 256    2 s / 50 ms
    llama3.3-70b      50 req/s  2,048 + 256    2 s / 50 ms
    deepseek-r1        5 req/s  1,024 + 4,096  5 s / 50 ms
    gpt-oss-120b      20 req/s  1,024 + 1,024  2 s / 30 ms
    qwen3-235b-a22b   10 req/s  2,048 + 512    2 s / 50 ms

Usage: python bench/plan_bench.py [--runs N] [--method auto|simulation|analytic] [--case NAME]
Reports each run's wall and CPU time (user + system of the child and its workers: what the
command itself used, whatever else the machine runs), their medians per case, and the stage counts
and answer of the last run. The target (issue 22) is under 2 s on 2 cores. The plan evaluates
families in two forked workers when the machine has a core to spare (KVCALC_PLAN_WORKERS=1:
none); on a busy machine the wall time is the CPU time stretched by the others' load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

CASES = {
    "llama3-70b": ("llama3-70b", 10, 2048, 256, "2s", "50ms"),
    "llama3.3-70b@10": ("llama3.3-70b", 10, 2048, 256, "2s", "50ms"),
    "llama3.3-70b@50": ("llama3.3-70b", 50, 2048, 256, "2s", "50ms"),
    "deepseek-r1": ("deepseek-r1", 5, 1024, 4096, "5s", "50ms"),
    "gpt-oss-120b": ("gpt-oss-120b", 20, 1024, 1024, "2s", "30ms"),
    "qwen3-235b-a22b": ("qwen3-235b-a22b", 10, 2048, 512, "2s", "50ms"),
}


def argv(case: str) -> list[str]:
    m, rate, p, g, ttft, tpot = CASES[case]
    return ["plan", "--model", m, "--rate", str(rate), "--prompt", str(p), "--gen", str(g),
            "--ttft-p99", ttft, "--tpot-p99", tpot, "-f", "json"]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--method", default="auto")
    ap.add_argument("--case", action="append", choices=sorted(CASES))
    a = ap.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", "calc"], check=True)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for case in a.case or list(CASES):
        cmd = [sys.executable, "-m", "calc", *argv(case), "--method", a.method]
        times, cpus, out = [], [], None
        for _ in range(a.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            r = subprocess.run(cmd, capture_output=True, text=True, check=True)
            times.append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            out = json.loads(r.stdout)
        print(
            f"{case}: wall median {statistics.median(times):.2f} s (min {min(times):.2f}), cpu "
            f"median {statistics.median(cpus):.2f} s over {a.runs} runs; families "
            f"{out['n_families']} screened, {out['n_screened_out']} out, {out['n_evaluated']} "
            f"evaluated ({out['method']}), {out['n_unscreened']} not screened"
        )
        print(f"  {out['answer']}")


if __name__ == "__main__":
    main()
