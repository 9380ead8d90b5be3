"""`kvcalc latency` (alias `roofline`): TTFT, TPOT, end-to-end time and tokens/s."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import options as o
from calc.cli.option_groups import DEPLOYMENT, ENGINE, Options, with_options

MatmulEff = Annotated[
    float | None,
    typer.Option("--matmul-eff", help="Achievable fraction of peak FLOP/s (overrides the band)."),
]
MemEff = Annotated[
    float | None,
    typer.Option("--mem-eff", help="Achievable fraction of HBM bandwidth (overrides the band)."),
]


@with_options(DEPLOYMENT, ENGINE)
def latency(
    model: o.Model,
    hardware: o.HardwareRequired,
    prompt: o.Prompt = 1024,
    gen: o.Gen = 256,
    batch: o.Batch = 1,
    ctx: o.DecodeCtx = None,
    matmul_eff: MatmulEff = None,
    mem_eff: MemEff = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
    *,
    options: Options,
) -> None:
    """Roofline TTFT, TPOT, end-to-end time and tokens/s: speed of light (100% of peak), expected
    (the profile's efficiencies) and a low-high band; per-op bound and time; memory per GPU.

    Example: kvcalc latency --model llama3-70b --hardware h100 --tp 4 --prompt 1024 --gen 256
    """
    from calc.cli.common import check_lengths, emit_report, on_gpus, run_job

    check_lengths(prompt, gen)
    report = run_job(
        "latency", fmt, model, hardware, prompt, gen, batch, ctx=ctx, matmul_eff=matmul_eff,
        mem_eff=mem_eff, **options.deployment,
    )  # fmt: skip
    what = ": roofline latency (low/high: band from the efficiency range; GB = 10^9 B)"
    title = on_gpus(report.deployment, what)
    emit_report(report, fmt, output, title=title, explain=explain, perf=True)
