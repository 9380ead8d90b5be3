"""`kvcalc memory`: weights + KV cache bytes, and the fit on GPUs."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import deploy_options as d
from calc.cli import options as o


def memory(
    model: o.Model,
    ctx: o.Ctx,
    batch: o.Batch = 1,
    weight_dtype: o.WeightDtype = None,
    kv_dtype: o.KvDtype = None,
    hardware: o.Hardware = None,
    gpus: o.Gpus = None,
    tp: o.Tp = 1,
    pp: o.Pp = 1,
    ep: o.Ep = 1,
    dp: o.Dp = None,
    engine: d.Engine = "vllm",
    engine_version: d.EngineVersion = None,
    mem_util: d.MemUtil = None,
    block_size: d.BlockSize = None,
    max_batched_tokens: d.MaxBatchedTokens = None,
    max_num_seqs: d.MaxNumSeqs = None,
    activation: d.Activation = None,
    overhead: d.Overhead = None,
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
    """Memory of weights and KV cache for BATCH sequences of CTX tokens (whole model) and,
    with --hardware, the per-GPU ledger (weights, KV, SSM state, runtime reserve) and its fit.

    Example: kvcalc memory --model llama3-70b --ctx 8192 --batch 4 --hardware h100 --gpus 4
    """
    from calc.api import memory as run
    from calc.cli.common import check_choice, emit_report, job_options
    from calc.output.render import ROW_FORMATS

    check_choice("--format", fmt, ROW_FORMATS)
    report = run(**job_options(memory, locals()))
    dep = report.deployment
    emit_report(
        report,
        fmt,
        output,
        title=f"{dep.model.display_name}: weights + KV cache (GB = 10^9 B, GiB = 2^30 B)",
        explain=explain,
    )
