"""`kvcalc flops`: FLOPs per op of a prefill and of one decode step."""

from __future__ import annotations

from calc.cli import options as o
from calc.cli.option_groups import DEPLOYMENT, Options, with_options, without


# FLOPs and op times of a forward pass: no engine, and the MoE imbalance is a step time's
@with_options(without(DEPLOYMENT, "moe_imbalance"))
def flops(
    model: o.Model,
    prompt: o.Prompt = 1024,
    gen: o.Gen = 1,
    ctx: o.DecodeCtx = None,
    batch: o.Batch = 1,
    hardware: o.Hardware = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
    *,
    options: Options,
) -> None:
    """FLOPs per op for the prefill of BATCH prompts and one decode step at CTX (default
    prompt + gen, the last step), with bytes and arithmetic intensity, and the end-to-end
    FLOPs of prompt + GEN tokens; with --hardware, the bound and time of each op.

    Example: kvcalc flops --model llama3-70b --prompt 2048 --hardware h100
    """
    from calc.cli.common import check_lengths, emit_report
    from calc.cli.deploy_common import deployment_of
    from calc.deploy.deployment import Workload
    from calc.reports.latency import flops_report

    check_lengths(prompt, gen)
    dep = deployment_of(model, hardware, fmt, options)
    work = Workload(ctx=ctx or prompt + gen, batch=batch, prompt=prompt, gen=gen)
    report = flops_report(dep, work)
    title = f"{dep.model.display_name}: FLOPs (model totals; ops per GPU)"
    emit_report(report, fmt, output, title=title, explain=explain, perf=True)
