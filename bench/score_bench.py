"""Speed of `kvcalc score` on a 10,000-request result file: reading it, replaying the run through
the serving simulation and printing the comparison, as one command in a fresh process.

Usage: python bench/score_bench.py [--requests N] [--runs R] [--keep FILE]

The file is a `vllm bench serve --save-result --save-detailed` JSON (the largest layout: every
request's input and output length, TTFT, start time, latency and its list of inter-token gaps)
of N requests of Llama-3.1-8B on one H100 at 20 requests/s, prompts lognormal (mean 512, cv 1)
and outputs lognormal (mean 256, cv 0.8), written by this script from kvcalc's own simulation
(the figures are only there to be read: what is timed is the work, not their values). Reports
the file's size and the median and best wall time and the CPU time of `kvcalc score FILE -H
h100 -f json` over R runs (after one warm-up), a fresh interpreter each run (start-up included).
The target: under 2 s on 2 cores for 10,000 requests.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_file(path: Path, n: int) -> None:
    """A detailed vLLM result file of ``n`` requests (module docstring)."""
    import numpy as np

    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment
    from calc.serve.simulate import simulate
    from calc.serve.workload import LengthDist, LoadSpec

    dep = Deployment.build(load_model("llama3.1-8b"), load_hardware("h100"))
    load = LoadSpec(rate_per_s=20.0, prompt=LengthDist.lognormal(512, 1.0),
                    gen=LengthDist.lognormal(256, 0.8), n_requests=n)  # fmt: skip
    r = simulate(dep, load, seed=1)
    rng = np.random.default_rng(2)
    gen = r.gen_each.astype(int)
    itls = [(r.tpot_each_s[i] * rng.uniform(0.9, 1.1, g - 1)).round(6).tolist() if g > 1 else []
            for i, g in enumerate(gen)]  # fmt: skip
    ms = 1000.0
    doc = {
        "date": "20261201-000000", "backend": "vllm",
        "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "num_prompts": n, "request_rate": 20.0, "burstiness": 1.0, "max_concurrency": None,
        "duration": r.makespan_s, "completed": int(r.n_requests), "failed": 0,
        "total_input_tokens": int(r.prompt_each.sum()), "total_output_tokens": int(gen.sum()),
        "request_throughput": r.requests_per_s, "output_throughput": r.output_tokens_per_s,
        "input_lens": r.prompt_each.astype(int).tolist(), "output_lens": gen.tolist(),
        "ttfts": r.ttft_each_s.round(6).tolist(), "itls": itls,
        "start_times": r.arrival_each_s.round(6).tolist(),
        "latencies": r.e2e_each_s.round(6).tolist(),
        "errors": [""] * int(r.n_requests),
        "mean_ttft_ms": r.ttft_s["mean"] * ms, "median_ttft_ms": r.ttft_s["p50"] * ms,
        "p99_ttft_ms": r.ttft_s["p99"] * ms, "mean_tpot_ms": r.tpot_s["mean"] * ms,
        "median_tpot_ms": r.tpot_s["p50"] * ms, "p99_tpot_ms": r.tpot_s["p99"] * ms,
        "mean_itl_ms": r.itl_s["mean"] * ms, "median_itl_ms": r.itl_s["p50"] * ms,
        "p99_itl_ms": r.itl_s["p99"] * ms, "mean_e2el_ms": r.e2e_s["mean"] * ms,
        "median_e2el_ms": r.e2e_s["p50"] * ms, "p99_e2el_ms": r.e2e_s["p99"] * ms,
    }  # fmt: skip
    path.write_text(json.dumps(doc))


def run_once(path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one `kvcalc score` in a fresh interpreter."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "calc", "score", str(path), "-H", "h100", "-f", "json"],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"kvcalc score failed: {out.stderr.strip()}")
    json.loads(out.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", type=Path, default=None, help="write the file here and keep it")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "vllm-detailed.json"
        write_file(path, args.requests)
        size = path.stat().st_size
        run_once(path)  # warm-up (file cache, bytecode)
        walls, cpus = zip(*(run_once(path) for _ in range(args.runs)), strict=True)
    print(f"{args.requests:,} requests, {size / 1e6:.1f} MB: `kvcalc score` wall median "
          f"{statistics.median(walls):.2f} s (best {min(walls):.2f} s), CPU median "
          f"{statistics.median(cpus):.2f} s over {args.runs} runs; target < 2 s")


if __name__ == "__main__":
    main()
