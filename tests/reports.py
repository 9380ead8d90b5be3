"""Keyword front-ends over the (deployment, workload) reports, for tests that state a case as
model + hardware + keywords. Each builds the one ``Deployment`` the CLI would build."""

from __future__ import annotations

from calc.deploy.deployment import Deployment, EngineSettings, Workload

_ENGINE = ("engine", "version", "mem_util", "block_size", "max_batched_tokens",
           "activation_bytes", "overhead_bytes", "max_model_len")  # fmt: skip
_DEPLOY = ("tp", "pp", "ep", "dp", "weight_dtype", "kv_dtype", "compute_dtype", "layout")


def deployment(cfg, hw=None, **kw) -> Deployment:
    eng = {k if k != "engine" else "name": kw.pop(k) for k in _ENGINE if k in kw}
    if "compute" in kw:
        kw["compute_dtype"] = kw.pop("compute")
    dep = {k: kw.pop(k) for k in _DEPLOY if k in kw}
    assert not kw, f"unknown keywords {sorted(kw)}"
    return Deployment.build(cfg, hw, engine=EngineSettings(**eng), **dep)


def capacity(cfg, hw, *, ctx, batch=1, shared_prefix=None, users=None, **kw):
    from calc.reports.capacity import capacity_report

    return capacity_report(
        deployment(cfg, hw, **kw),
        Workload(ctx=ctx, batch=batch),
        shared_prefix=shared_prefix,
        users=users,
    )


def memory(cfg, *, ctx, batch=1, hardware=None, gpus=1, **kw):
    from calc.reports.memory import memory_report

    return memory_report(deployment(cfg, hardware, tp=gpus, **kw), Workload(ctx=ctx, batch=batch))


def latency(cfg, hw, *, prompt, gen, batch=1, ctx=None, matmul_eff=None, mem_eff=None, **kw):
    from calc.reports.latency import latency_report

    work = Workload(ctx=ctx or prompt + gen, batch=batch, prompt=prompt, gen=gen)
    return latency_report(deployment(cfg, hw, **kw), work, matmul_eff=matmul_eff, mem_eff=mem_eff)


def flops(cfg, hw=None, *, prompt, gen=1, ctx=None, batch=1, **kw):
    from calc.reports.latency import flops_report

    work = Workload(ctx=ctx or prompt + gen, batch=batch, prompt=prompt, gen=gen)
    return flops_report(deployment(cfg, hw, **kw), work)


def cost(cfg, hw, *, ctx, batch=1, prompt=None, usd_per_hour=None, max_tpot_ms=None,
         max_ttft_ms=None, efficiency="expected", **kw):  # fmt: skip
    from calc.reports.cost import cost_report

    return cost_report(
        deployment(cfg, hw, **kw),
        Workload(ctx=ctx, batch=batch, prompt=prompt),
        usd_per_hour=usd_per_hour,
        max_tpot_ms=max_tpot_ms,
        max_ttft_ms=max_ttft_ms,
        efficiency=efficiency,
    )
