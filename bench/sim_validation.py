"""The serving simulation (calc/serve) against the published TensorRT-LLM throughput rows of
bench/validation_throughput.py (trtllm-bench at max load: every request at once, fixed input
and output lengths), beside the steady-state model (calc/reports/throughput.py).

Usage: python bench/sim_validation.py [--requests N]
Each row is simulated with --engine trtllm (whole-request reservation, no preemption) and the
row's formats; all requests arrive at t = 0 (a constant rate of 10^6 requests/s), N requests
(default: about 2 × 10^6 tokens' worth, 300 to 3,000), output tokens/s over the makespan.
Prints the signed error of every row and the medians; no constant is fitted here.

Settings: TensorRT-LLM's defaults (max_num_tokens 8,192, chunked prefill off), except where a
row's prompt exceeds them: such a run cannot have been served at the defaults (the engine
refuses the request), so that row takes the max_batch_size / max_num_tokens trtllm-bench's own
heuristic gives it (``bench_settings`` in bench/validation_throughput.py), marked ``*``, for the
simulation and the steady state alike.
"""

from __future__ import annotations

import argparse
import statistics

from validation_throughput import ROWS, deployment


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=None)
    args = ap.parse_args()

    from calc.reports.throughput import serving_throughput
    from calc.serve.simulate import simulate
    from calc.serve.workload import LengthDist, LoadSpec

    errs, steady_errs = [], []
    print(f"{'row':<58}{'published':>10}{'simulated':>11}{'error':>8}{'steady':>9}{'error':>8}")
    for row in ROWS:
        dep = deployment(row)
        mark = ""
        if row.prompt > dep.engine_config.max_batched_tokens:  # refused at the defaults
            dep, mark = deployment(row, bench=True), "*"
        n = args.requests or max(300, min(3000, int(2e6 / (row.prompt + row.gen))))
        load = LoadSpec(
            rate_per_s=1e6,
            arrival="constant",
            prompt=LengthDist.fixed(row.prompt),
            gen=LengthDist.fixed(row.gen),
            n_requests=n,
        )
        sim = simulate(dep, load).output_tokens_per_s
        steady = serving_throughput(dep, prompt=row.prompt, gen=row.gen)
        st = steady.output_tokens_per_s_per_gpu * dep.gpus
        pub = row.published_output_tokens_per_s
        errs.append(sim / pub - 1)
        steady_errs.append(st / pub - 1)
        print(
            f"{row.id + mark:<58.58}{pub:>10,.0f}{sim:>11,.0f}{errs[-1]:>+8.1%}{st:>9,.0f}"
            f"{steady_errs[-1]:>+8.1%}"
        )
    print(
        f"simulation: signed median {statistics.median(errs):+.1%}, median |error| "
        f"{statistics.median(abs(e) for e in errs):.1%}; steady state: signed median "
        f"{statistics.median(steady_errs):+.1%}, median |error| "
        f"{statistics.median(abs(e) for e in steady_errs):.1%}"
    )


if __name__ == "__main__":
    main()
