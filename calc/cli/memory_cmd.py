"""`kvcalc memory`: weights + KV cache bytes, and the fit on GPUs."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import options as o


def memory(
    model: o.Model,
    ctx: o.Ctx,
    batch: o.Batch = 1,
    weight_dtype: o.WeightDtype = None,
    kv_dtype: o.KvDtype = None,
    hardware: o.Hardware = None,
    gpus: o.Gpus = 1,
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
) -> None:
    """Memory of weights and KV cache for BATCH sequences of CTX tokens.

    Example: kvcalc memory --model llama3-70b --ctx 8192 --batch 4 --hardware h100 --gpus 4
    """
    from calc.cli.common import emit_report, load_inputs
    from calc.memory import memory_report

    cfg, hw, layout = load_inputs(
        model,
        hardware,
        attention=attention,
        kv_heads=kv_heads,
        kv_lora_rank=kv_lora_rank,
        qk_rope_head_dim=qk_rope_head_dim,
        fmt=fmt,
    )
    report = memory_report(
        cfg,
        ctx=ctx,
        batch=batch,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        hardware=hw,
        gpus=gpus,
        layout=layout,
    )
    emit_report(
        report,
        fmt,
        output,
        title=f"{cfg.display_name}: weights + KV cache (GB = 10^9 B, GiB = 2^30 B)",
        explain=explain,
    )
