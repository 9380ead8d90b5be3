"""The serving simulation (``calc.serve.simulate``) as the plan's evaluator: one replica of a
deployment under a ``calc.reports.plan_eval.Load`` (fixed prompt and output lengths, Poisson
arrivals), its TTFT/TPOT percentiles as a ``LoadEval``."""

from __future__ import annotations

from calc.deploy.deployment import Deployment

# requests simulated per evaluation when not stated: enough that the p99 rests on ~20 requests
DEFAULT_REQUESTS = 2000


def simulate_load(
    dep: Deployment,
    load,
    *,
    seed: int = 0,
    efficiency: str = "expected",
    max_requests: int | None = None,
):
    from calc.reports.plan_eval import LoadEval
    from calc.serve.simulate import simulate
    from calc.serve.workload import LengthDist, LoadSpec

    spec = LoadSpec(
        rate_per_s=load.rate_per_s,
        prompt=LengthDist.fixed(load.prompt),
        gen=LengthDist.fixed(load.gen),
        n_requests=max_requests or DEFAULT_REQUESTS,
    )
    res = simulate(dep, spec, seed=seed, efficiency=efficiency, max_requests=max_requests)
    reason = getattr(res, "saturated_reason", None) if res.saturated else None
    return LoadEval(
        {k: res.ttft_s[k] for k in ("p50", "p90", "p99")},
        {k: res.tpot_s[k] for k in ("p50", "p90", "p99")},
        bool(res.saturated),
        reason or ("the queue grows without bound" if res.saturated else None),
        "simulation",
        decode_batch=None,
        prefill_load=None,
    )
