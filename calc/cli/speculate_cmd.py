"""`kvcalc speculate`: speculative decoding / MTP tokens per step, speedup and extra memory."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import options as o
from calc.cli.option_groups import DEPLOYMENT, ENGINE, Options, with_options


@with_options(DEPLOYMENT, ENGINE)
def speculate(
    model: o.Model,
    hardware: o.HardwareRequired,
    gamma: Annotated[int, typer.Option("--gamma", help="Draft length γ (tokens per proposal).")],
    alpha: Annotated[
        float, typer.Option("--alpha", help="Acceptance rate α of each draft token, 0..1.")
    ],
    draft: Annotated[
        str | None, typer.Option("--draft", help="Draft model (name, YAML or config.json).")
    ] = None,
    mtp: Annotated[
        int, typer.Option("--mtp", help="Use N multi-token-prediction modules as the draft.")
    ] = 0,
    draft_tp: Annotated[
        int,
        typer.Option(
            "--draft-tp",
            help="Tensor-parallel GPUs of the draft model (vLLM draft_tensor_parallel_size: 1 "
            "or the target's --tp).",
        ),
    ] = 1,
    ctx: o.Ctx = 4096,
    batch: o.Batch = 1,
    fmt: o.Format = "table",
    output: o.Output = None,
    *,
    options: Options,
) -> None:
    """Expected tokens per target step (1 − α^(γ+1)) / (1 − α), the speedup with the draft's
    own roofline cost, and the draft's extra weights and KV cache.

    Example: kvcalc speculate -m llama3-70b --draft llama3-8b -H h100 --gamma 4 --alpha 0.8
    """
    from calc.cli.common import emit_report
    from calc.cli.deploy_common import deployment_of
    from calc.data.registry import load_model
    from calc.deploy.deployment import Workload
    from calc.reports.speculative import speculate_report

    dep = deployment_of(model, hardware, fmt, options)
    report = speculate_report(
        dep,
        Workload(ctx=ctx, batch=batch),
        gamma=gamma,
        alpha=alpha,
        draft=load_model(draft) if draft else None,
        mtp_layers=mtp,
        draft_tp=draft_tp,
    )
    emit_report(report, fmt, output, title=f"{dep.model.display_name}: speculative decoding")
