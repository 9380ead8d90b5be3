"""The serving simulation (``calc.serve.simulate``) as the plan's evaluator: a deployment of
``replicas`` copies of one replica under a ``calc.reports.plan_eval.Load`` (fixed prompt and
output lengths, Poisson arrivals, round-robin over the replicas), its TTFT/TPOT percentiles as
a ``LoadEval``. The iteration-time table of a replica is built once and reused for every
replica count."""

from __future__ import annotations

from calc.deploy.deployment import Deployment

# requests simulated per evaluation when not stated: the p99 rests on the slowest 10 of them
DEFAULT_REQUESTS = 1000
_TABLES: dict = {}  # id(one-replica deployment) -> (deployment, efficiency, step table)


def _table(dep: Deployment, efficiency: str, max_ctx: int):
    from calc.serve.steptime import step_table

    key = (id(dep), efficiency, max_ctx)
    hit = _TABLES.get(key)
    if hit is None or hit[0] is not dep:
        if len(_TABLES) > 64:
            _TABLES.clear()
        hit = (dep, step_table(dep, efficiency, max_ctx=max_ctx))
        _TABLES[key] = hit
    return hit[1]


def simulate_load(
    dep: Deployment,
    load,
    replicas: int = 1,
    *,
    seed: int = 0,
    efficiency: str = "expected",
    max_requests: int | None = None,
):
    from dataclasses import replace

    from calc.reports.plan_eval import LoadEval
    from calc.serve.simulate import simulate
    from calc.serve.workload import LengthDist, LoadSpec

    rate = load.rate_per_s
    target = dep
    if replicas > 1:
        if dep.ep > 1:  # a replica is a whole expert group: one of them at rate / replicas
            rate /= replicas
        else:
            target = replace(dep, dp=replicas)
    spec = LoadSpec(
        rate_per_s=rate,
        prompt=LengthDist.fixed(load.prompt),
        gen=LengthDist.fixed(load.gen),
        n_requests=max_requests or DEFAULT_REQUESTS,
    )
    table = _table(dep, efficiency, load.prompt + load.gen + 1)
    res = simulate(
        target, spec, seed=seed, efficiency=efficiency, max_requests=max_requests, step_time=table
    )
    reason = res.saturation_reason if res.saturated else None
    return LoadEval(
        {k: res.ttft_s[k] for k in ("p50", "p90", "p99")},
        {k: res.tpot_s[k] for k in ("p50", "p90", "p99")},
        bool(res.saturated),
        reason or ("the queue grows without bound" if res.saturated else None),
        "simulation",
        decode_batch=None,
        prefill_load=None,
    )
