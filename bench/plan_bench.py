"""Wall time of the issue's `kvcalc plan` case, a whole process each run (start-up, every
hardware profile, the analytic screen, the simulated replica sizing, rendering):

    kvcalc plan --model llama3-70b --rate 10 --prompt 2048 --gen 256 --ttft-p99 2s
        --tpot-p99 50ms

Usage: python bench/plan_bench.py [--runs N] [--method auto|simulation|analytic]
Reports each run's wall and CPU time (user + system of the child: what the command itself
used, whatever else the machine runs), their medians, and the stage counts of the last run (families
built, screened out, evaluated). The target (issue 13) is under 5 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

ARGS = ["plan", "--model", "llama3-70b", "--rate", "10", "--prompt", "2048", "--gen", "256",
        "--ttft-p99", "2s", "--tpot-p99", "50ms", "-f", "json"]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--method", default="auto")
    a = ap.parse_args()
    cmd = [sys.executable, "-m", "calc", *ARGS, "--method", a.method]
    subprocess.run([sys.executable, "-m", "compileall", "-q", "calc"], check=True)
    times, cpus, out = [], [], None
    for i in range(a.runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out = json.loads(r.stdout)
        print(f"run {i + 1}: wall {times[-1]:.2f} s, cpu {cpus[-1]:.2f} s")
    print(
        f"wall median {statistics.median(times):.2f} s (min {min(times):.2f}), cpu median "
        f"{statistics.median(cpus):.2f} s over {a.runs} runs (wall includes waiting for a "
        "busy machine; cpu is the command's own time)"
    )
    top = out["rows"][0]
    print(
        f"families {out['n_families']}, screened out {out['n_screened_out']}, evaluated "
        f"{out['n_evaluated']} ({out['method']}); winner {top['hardware']} tp{top['tp']} "
        f"{top['weight_dtype']} × {top['replicas']} ({top['mode']}), "
        f"${top['usd_per_hour_per_deployment']:.2f}/h, p99 TTFT {top['ttft_p99_s'] * 1e3:.0f} ms, "
        f"p99 TPOT {top['tpot_p99_s'] * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    main()
