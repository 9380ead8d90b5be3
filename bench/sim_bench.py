"""Speed of the serving simulation (calc/serve): the iteration-time table of a deployment and
one simulation of N requests at several loads (below, near and above saturation).

Usage: python bench/sim_bench.py [--requests N] [--runs R]
Reports the median and min wall time per case in milliseconds (after one warm-up) and the
median CPU time of the process (less inflated than wall time on a busy machine), with the
iterations simulated and the preemptions, so a slow case can be read against its work. The
target is about 50 ms for 2,000 requests (a plan evaluates dozens of deployments).
"""

from __future__ import annotations

import argparse
import statistics
import time

CASES = [
    # (model, hardware, tp, rate requests/s, prompt, gen)
    ("llama3-8b", "h100", 1, 2.0, "lognormal:2048:0.5", "256"),
    ("llama3-70b", "h100", 4, 0.5, "lognormal:2048:0.5", "lognormal:256:0.5"),
    ("llama3-70b", "h100", 4, 5.0, "lognormal:2048:0.5", "lognormal:256:0.5"),
    ("llama3-70b", "h100", 4, 20.0, "lognormal:2048:0.5", "lognormal:256:0.5"),
    ("mixtral-8x7b", "h100", 2, 10.0, "uniform:100:4000", "uniform:10:500"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment
    from calc.serve.simulate import simulate
    from calc.serve.steptime import step_table
    from calc.serve.workload import LengthDist, LoadSpec

    print(f"{'case':<48}{'table ms':>10}{'sim median ms':>15}{'min ms':>9}{'cpu ms':>9}"
          f"{'iters':>9}{'preempt':>9}{'saturated':>11}")  # fmt: skip
    for model, hw, tp, rate, prompt, gen in CASES:
        dep = Deployment.build(load_model(model), load_hardware(hw), tp=tp)
        load = LoadSpec(
            rate_per_s=rate,
            prompt=LengthDist.parse(prompt),
            gen=LengthDist.parse(gen),
            n_requests=args.requests,
        )
        t0 = time.perf_counter()
        table = step_table(dep, max_ctx=65536)
        table_ms = (time.perf_counter() - t0) * 1e3
        simulate(dep, load, step_time=table)  # warm-up
        times, cpu = [], []
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            r = simulate(dep, load, step_time=table)
            times.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
        name = f"{model} tp{tp} {rate:g}/s {prompt} {gen}"
        print(
            f"{name:<48.48}{table_ms:>10.1f}{statistics.median(times):>15.1f}{min(times):>9.1f}"
            f"{statistics.median(cpu):>9.1f}{r.iterations:>9}{r.preemptions:>9}"
            f"{'yes' if r.saturated else 'no':>11}"
        )


if __name__ == "__main__":
    main()
