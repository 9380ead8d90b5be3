"""``kvcalc plan --explain``: why the winning deployment fits and meets the SLOs, and which op
dominates its TTFT and TPOT [figures with their arithmetic]."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from calc.output.derivation import Figure, figure

if TYPE_CHECKING:
    from calc.reports.plan import Choice, PlanQuery


def _dominant(step) -> tuple[str, float, str]:
    """(op name, share of the step, bound) of the step's slowest op."""
    ops = [o for o in step.ops if o.time_s is not None]
    top = max(ops, key=lambda o: o.time_s)
    return top.name, top.time_s / step.time_s, top.bound or "?"


def _offered(load) -> str:
    """The load as offered: users in a closed loop, or the rate."""
    if load.closed:
        return f"{load.concurrency:,} users in a closed loop"
    return f"{load.rate_per_s:g} requests/s in all"


def explain(c: Choice, query: PlanQuery) -> list[Figure]:
    """Why the winner fits and meets the SLOs, and what dominates its TTFT and TPOT."""
    return [
        *_fit_and_replicas(c, query),
        *_bounds(c, query),
        *_under_load(c, query),
        _price(c),
        *_p99s(c, query),
    ]


def _fit_and_replicas(c: Choice, query: PlanQuery) -> list[Figure]:
    """The requests one GPU's KV pool holds, a replica's tokens/s and the replicas the load
    needs at least."""
    s, load = c.screened, query.load
    p, g = load.prompt, load.gen
    g_ = s.dep.per_gpu
    pool = int(g_.max_sequences_per_gpu(p + g))
    if load.closed:
        replicas = Figure(
            "replicas_min",
            s.replicas_min,
            "replicas",
            f"⌈{load.concurrency:,} users / the sequences one replica holds⌉",
        )
    else:
        replicas = figure(
            "replicas_min",
            s.replicas_min,
            "replicas",
            "⌈{rate} × ({prompt} + {gen}) / ({cap} × {tokens_per_s})⌉",
            rate=load.rate_per_s,
            prompt=load.new_prompt,
            gen=g,
            cap=query.utilisation_cap,
            tokens_per_s=s.replica_tokens_per_s,
        )
    return [
        Figure(
            "max_sequences_per_gpu",
            pool,
            "sequences",
            f"requests of {p + g:,} tokens the KV pool of one GPU holds "
            f"({g_.pool_tokens:,} tokens in {g_.block_size}-token blocks): it fits",
        ),
        Figure(
            "replica_tokens_per_s",
            s.replica_tokens_per_s,
            "tokens/s",
            f"steady-state (output + input) tokens/s per GPU × {s.gpus_per_replica} GPU(s) of "
            "a replica (prefill charged; calc.reports.throughput)",
        ),
        replicas,
    ]


def _bounds(c: Choice, query: PlanQuery) -> list[Figure]:
    """The TTFT and TPOT one request alone sees, each with its slowest op."""
    from calc.deploy.steps import step_of

    s, dep, eff = c.screened, c.screened.dep, query.efficiency
    p, g = query.load.prompt, query.load.gen
    name, share, bound = _dominant(step_of(dep, eff, batch=1, prompt=p))
    ttft = Figure(
        "ttft_bound_s",
        s.ttft_bound_s,
        "s",
        f"prefill of one {p:,}-token prompt; slowest op {name} ({share:.0%} of it, {bound}-bound)",
    )
    name, share, bound = _dominant(step_of(dep, eff, batch=1, ctx=p + g))
    tpot = Figure(
        "tpot_bound_s",
        s.tpot_bound_s,
        "s",
        f"decode step of one sequence at {p + g:,} tokens; slowest op {name} "
        f"({share:.0%}, {bound}-bound)",
    )
    return [ttft, tpot]


def _under_load(c: Choice, query: PlanQuery) -> list[Figure]:
    """The decode batch and prefill share of a replica under the load (the analytic
    estimate where the simulation gave none), and a disaggregated plan's KV transfer."""
    from calc.deploy.steps import step_of

    dep, load, ev, eff = c.screened.dep, query.load, c.evaluation, query.efficiency
    p, g = load.prompt, load.gen
    figs = []
    est = ev
    if ev.decode_batch is None and c.mode == "aggregated":  # the simulation's: estimate it
        from calc.reports.plan_eval import analytic_eval

        est = analytic_eval(dep, load.per_replica(c.replicas), efficiency=eff)
    if est.decode_batch is not None:
        b = max(1, math.ceil(est.decode_batch / dep.pp))
        name, share, bound = _dominant(step_of(dep, eff, batch=b, ctx=p + g // 2))
        figs.append(
            Figure(
                "decode_batch",
                est.decode_batch,
                "sequences",
                f"sequences decoding at once per replica (Little's law, analytic); a step of "
                f"{b:,} at {p + g // 2:,} tokens: slowest op {name} ({share:.0%}, {bound}-bound)",
            )
        )
    if est.prefill_load is not None:
        figs.append(
            Figure(
                "prefill_load",
                est.prefill_load,
                "fraction",
                "share of a replica's time spent prefilling: rate per replica × prefill time / pp",
            )
        )
    if c.mode == "disaggregated":
        figs.append(
            Figure(
                "kv_transfer_s",
                ev.kv_transfer_s,
                "s",
                "one prompt's KV shard per GPU over the scale-out network "
                "(p2p: bytes / bandwidth + latency)",
            )
        )
    return figs


def _price(c: Choice) -> Figure:
    """The deployment's USD per hour."""
    return figure(
        "usd_per_hour_per_deployment",
        c.usd_per_hour,
        "USD/h",
        "{gpus} × {usd_per_gpu_hour}",
        gpus=c.gpus,
        usd_per_gpu_hour=c.screened.usd_per_gpu_hour,
    )


def _p99s(c: Choice, query: PlanQuery) -> list[Figure]:
    """The p99 TTFT and TPOT under the load, each at the pessimistic end of its band where
    the family has one."""
    s, ev = c.screened, c.evaluation
    figs = []
    if s.confidence is not None:
        for kind in ("ttft", "tpot"):  # each p99 at the pessimistic end of its band
            p99, factor = f"{kind}_p99_s", f"{kind}_factor"
            terms = {p99: getattr(ev, p99), factor: getattr(s.confidence, factor)}
            figs.append(
                figure(f"{kind}_p99_pessimistic_s", terms[p99] * terms[factor], "s",
                       f"{{{p99}}} × {{{factor}}}", **terms)
            )  # fmt: skip
    figs.append(
        Figure(
            "ttft_p99_s",
            ev.ttft_p99_s,
            "s",
            f"{ev.method}: p99 TTFT of {c.replicas} replica(s) at {_offered(query.load)}"
            if c.mode == "aggregated"
            else f"{ev.method}: queue + prefill + KV transfer",
        )
    )
    figs.append(Figure("tpot_p99_s", ev.tpot_p99_s, "s", f"{ev.method}: p99 TPOT"))
    return figs
