"""`kvcalc capacity`: KV budget, pool, concurrency, max context, paging and prefix sharing."""

from __future__ import annotations

from calc.cli import deploy_options as d
from calc.cli import options as o
from calc.cli.option_groups import DEPLOYMENT, ENGINE, Options, with_options


@with_options(DEPLOYMENT, ENGINE)
def capacity(
    model: o.Model,
    hardware: o.HardwareRequired,
    ctx: o.Ctx,
    batch: o.Batch = 1,
    shared_prefix: d.SharedPrefix = None,
    users: d.Users = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
    *,
    options: Options,
) -> None:
    """How many sequences fit: KV budget per GPU, KV pool in tokens, max concurrency at CTX,
    max context at BATCH, paged vs contiguous waste, and prefix-sharing savings.

    Example: kvcalc capacity --model llama3-70b --hardware h100 --tp 4 --ctx 8192 --engine vllm
    """
    from calc.cli.common import emit_report, on_gpus, run_job

    report = run_job(
        "capacity", fmt, model, hardware, ctx, batch, shared_prefix=shared_prefix, users=users,
        **options.deployment,
    )  # fmt: skip
    what = f" ({options['engine']}): KV capacity per GPU (GB = 10^9 B, GiB = 2^30 B)"
    emit_report(report, fmt, output, title=on_gpus(report.deployment, what), explain=explain)
