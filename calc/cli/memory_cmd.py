"""`kvcalc memory`: weights + KV cache bytes, and the fit on GPUs."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import options as o
from calc.cli.option_groups import DEPLOYMENT, ENGINE, Options, with_options


@with_options(DEPLOYMENT, ENGINE)
def memory(
    model: o.Model,
    ctx: o.Ctx,
    batch: o.Batch = 1,
    hardware: o.Hardware = None,
    attention: Annotated[
        str | None,
        typer.Option(
            "--attention",
            help="What-if: recompute the KV cache as mha|gqa|mqa|mla on the same model shape.",
        ),
    ] = None,
    kv_heads: Annotated[
        int | None, typer.Option("--kv-heads", help="KV heads for --attention gqa.")
    ] = None,
    kv_lora_rank: Annotated[
        int | None, typer.Option("--kv-lora-rank", help="Latent width for --attention mla.")
    ] = None,
    qk_rope_head_dim: Annotated[
        int | None, typer.Option("--qk-rope-head-dim", help="RoPE key width for --attention mla.")
    ] = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
    *,
    options: Options,
) -> None:
    """Memory of weights and KV cache for BATCH sequences of CTX tokens (whole model) and,
    with --hardware, the per-GPU ledger (weights, KV, SSM state, runtime reserve) and its fit.

    Example: kvcalc memory --model llama3-70b --ctx 8192 --batch 4 --hardware h100 --gpus 4
    """
    from calc.cli.common import emit_report, run_job

    report = run_job(
        "memory", fmt, model, ctx, batch, hardware=hardware, attention=attention, kv_heads=kv_heads,
        kv_lora_rank=kv_lora_rank, qk_rope_head_dim=qk_rope_head_dim, **options.deployment,
    )  # fmt: skip
    name = report.deployment.model.display_name
    title = f"{name}: weights + KV cache (GB = 10^9 B, GiB = 2^30 B)"
    emit_report(report, fmt, output, title=title, explain=explain)
