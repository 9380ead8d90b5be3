"""Disaggregated families of ``kvcalc plan`` (xPyD): x prefill replicas of one shape and y
decode replicas of another, the prompt's KV sent between them [replicas, USD per hour].

For each model × hardware × dtypes × engine among the plan's evaluated families, every layout
that passed the analytic screen is a candidate for either pool:

- **prefill shape and x**: the shape whose least x meeting the margined p99 TTFT (the analytic
  prefill pool of ``calc.reports.plan_eval.disaggregated_eval``: a single-server queue of
  prompts at rate / x, plus the KV transfer) costs least (x × GPUs per replica);
- **decode shape and y**: the shape whose least y meeting the margined p99 TPOT (the decode pool
  at rate / y, no prefill in its steps) costs least.

Each least count is found by doubling then bisection (the p99s fall as replicas are added).
Where the serving simulation is installed, the pairs that could beat the best aggregated price
(the ``SIMULATE_PAIRS`` cheapest at most ``SIMULATE_WITHIN`` × it) are then simulated, both pools
(``calc.reports.plan_eval.simulated_disaggregated_eval``): x grows while the TTFT misses, y while
the TPOT misses, then each comes down while the pair still passes. Rows say which evaluated them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from calc.reports.plan import PlanQuery
    from calc.reports.plan_types import Choice, Rejection, Screened

SIMULATE_WITHIN = 1.3  # simulate a pair priced at most this × the best aggregated price
SIMULATE_PAIRS = 2  # and at most this many pairs, the cheapest by their analytic price
MAX_REPLICAS = 256
STEPS = 3  # simulated corrections of x and y when the analytic pair misses


def _least(ok, top: int) -> int | None:
    """The first n in 1..top with ok(n) (ok monotone in n), by doubling then bisection."""
    hi = 1
    while hi <= top and not ok(hi):
        hi *= 2
    if hi == 1:
        return 1
    lo, hi = hi // 2, min(hi, top)
    if not ok(hi):
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def _top(query: PlanQuery, s: Screened) -> int:
    from calc.reports.plan_types import limit_replicas

    lim = limit_replicas(query, s)
    return MAX_REPLICAS if lim is None else min(MAX_REPLICAS, lim)


def prefill_count(query: PlanQuery, p: Screened) -> int | None:
    """Least prefill replicas of ``p`` whose analytic p99 TTFT meets the margined target."""
    from calc.reports.plan_eval import disaggregated_eval

    slo, load, eff = p.slo or query.slo, query.load, query.efficiency

    def ok(x: int) -> bool:
        ev = disaggregated_eval(p.dep, load, x, 1_000_000, efficiency=eff)
        return not ev.saturated and ev.ttft_p99_s <= slo.ttft_p99_s

    return _least(ok, _top(query, p))


def decode_count(query: PlanQuery, p: Screened, d: Screened, x: int) -> int | None:
    """Least decode replicas of ``d`` whose analytic p99 TPOT meets the margined target."""
    from calc.reports.plan_eval import disaggregated_eval

    slo, load, eff = d.slo or query.slo, query.load, query.efficiency

    def ok(y: int) -> bool:
        ev = disaggregated_eval(p.dep, load, x, y, efficiency=eff, decode=d.dep)
        return not ev.saturated and ev.tpot_p99_s <= slo.tpot_p99_s

    return _least(ok, _top(query, d))


def size_pools(query: PlanQuery, p: Screened, d: Screened, simulate=None, *, seed: int = 0
               ) -> Choice | Rejection:  # fmt: skip
    """x prefill replicas of ``p`` and y decode replicas of ``d`` meeting both margined SLOs:
    analytic, then corrected by the simulation when ``simulate`` (the plan's evaluator) is
    given (module docstring)."""
    from calc.reports.plan_eval import disaggregated_eval, simulated_disaggregated_eval
    from calc.reports.plan_types import Choice, Rejection, miss_detail

    load, eff = query.load, query.efficiency
    slo = p.slo or query.slo
    fam = p.family
    x = prefill_count(query, p)
    if x is None:
        top = _top(query, p)
        ev = disaggregated_eval(p.dep, load, top, 1_000_000, efficiency=eff)
        reason = "saturated" if ev.saturated else "SLO ttft"
        return Rejection(fam, "disaggregated", reason,
                         miss_detail(reason, ev, slo, top, p.confidence) + " prefill",
                         p.dep)  # fmt: skip
    y = decode_count(query, p, d, x)
    if y is None:
        top = _top(query, d)
        ev = disaggregated_eval(p.dep, load, x, top, efficiency=eff, decode=d.dep)
        reason = "saturated" if ev.saturated else "SLO tpot"
        return Rejection(fam, "disaggregated", reason,
                         miss_detail(reason, ev, slo, top, p.confidence) + " decode",
                         p.dep)  # fmt: skip
    ev = disaggregated_eval(p.dep, load, x, y, efficiency=eff, decode=d.dep)
    if simulate is not None:

        def sim(x_: int, y_: int):
            return simulated_disaggregated_eval(p.dep, d.dep, load, x_, y_, seed=seed,
                                                efficiency=eff)  # fmt: skip

        def misses(e) -> str | None:
            if e.saturated:
                return "ttft" if (e.reason or "").startswith("prefill") else "tpot"
            if e.ttft_p99_s > slo.ttft_p99_s:
                return "ttft"
            if e.tpot_p99_s > slo.tpot_p99_s:
                return "tpot"
            return None

        tops = (_top(query, p), _top(query, d))
        e = sim(x, y)
        for _ in range(STEPS):
            miss = misses(e)
            if miss is None:
                break
            if miss == "ttft" and x < tops[0]:
                x = min(tops[0], x + max(1, x // 4))
            elif miss == "tpot" and y < tops[1]:
                y = min(tops[1], y + max(1, y // 4))
            else:
                break
            e = sim(x, y)
        if (miss := misses(e)) is not None:
            reason = "saturated" if e.saturated else f"SLO {miss}"
            return Rejection(fam, "disaggregated", reason,
                             miss_detail(reason, e, slo, x + y, p.confidence), p.dep)  # fmt: skip
        for nx, ny in ((x - 1, y), (x, y - 1)):  # one replica fewer in either pool
            if min(nx, ny) >= 1 and misses(t := sim(nx, ny)) is None:
                x, y, e = nx, ny, t
        ev = e
    gpus = x * p.gpus_per_replica + y * d.gpus_per_replica
    usd = gpus * p.usd_per_gpu_hour
    over = []
    if query.max_gpus is not None and gpus > query.max_gpus:
        over.append(f"{gpus:,} GPUs > --max-gpus {query.max_gpus:,}")
    if query.budget_usd_per_hour is not None and usd > query.budget_usd_per_hour:
        over.append(f"${usd:,.2f}/h > --budget-usd-per-hour {query.budget_usd_per_hour:g}")
    if over:
        return Rejection(fam, "disaggregated", "budget",
                         f"needs {x:,} prefill + {y:,} decode replicas: " + "; ".join(over),
                         p.dep)  # fmt: skip
    return Choice(p, "disaggregated", x + y, ev, x, y, None if d is p else d)


def disaggregated_choices(query: PlanQuery, evaluated: list, survivors: list, best_usd: float,
                          simulate=None, *, seed: int = 0) -> list:  # fmt: skip
    """One disaggregated pair per model × hardware × dtypes × engine among the ``evaluated``
    families, its two shapes chosen apart from that group's ``survivors`` (module docstring)."""
    import math

    from calc.reports.plan_types import Rejection

    groups: dict = {}
    for s in survivors:
        groups.setdefault(s.family.group(), []).append(s)
    out, pairs, seen = [], [], set()
    for s in evaluated:
        key = s.family.group()
        if key in seen:
            continue
        seen.add(key)
        why = s.dep.engine_model.cannot_disaggregate(s.dep)
        if why is not None:  # the release has no disaggregated servers: not sized, not ranked
            out.append(Rejection(s.family, "disaggregated", "engine release", why, s.dep))
            continue
        shapes = groups[key]
        counts = [(prefill_count(query, c), c) for c in shapes]
        counts = [(x, c) for x, c in counts if x is not None]
        if not counts:
            out.append(size_pools(query, s, s))  # its rejection, with the reason
            continue
        x, p = min(counts, key=lambda t: (t[0] * t[1].gpus_per_replica, t[1].gpus_per_replica))
        ys = [(decode_count(query, p, c, x), c) for c in shapes]
        ys = [(y, c) for y, c in ys if y is not None]
        if not ys:
            out.append(size_pools(query, p, p))
            continue
        y, d = min(ys, key=lambda t: (t[0] * t[1].gpus_per_replica, t[1].gpus_per_replica))
        pairs.append(((x * p.gpus_per_replica + y * d.gpus_per_replica) * p.usd_per_gpu_hour, p, d))
    # the simulation checks the pairs that could win: the SIMULATE_PAIRS cheapest by their
    # analytic price within SIMULATE_WITHIN × the best aggregated price
    pairs.sort(key=lambda t: (t[0], t[1].gpus_per_replica))
    for i, (price, p, d) in enumerate(pairs):
        close = price <= SIMULATE_WITHIN * best_usd or math.isinf(best_usd)
        sim = simulate if close and i < SIMULATE_PAIRS else None
        out.append(size_pools(query, p, d, sim, seed=seed))
    return out
