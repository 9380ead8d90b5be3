"""`kvcalc train`: memory per GPU, FLOPs, step time and cost of a training or fine-tuning run."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import deploy_options as d
from calc.cli import options as o
from calc.cli.option_groups import Options, with_options
from calc.cli.price_options import PRICE


# long: its own typer options (parallelism, recipe, LoRA, run length) stand in its signature
@with_options(PRICE)
def train(
    model: o.Model,
    hardware: o.HardwareRequired,
    ctx: Annotated[int, typer.Option("--ctx", help="Tokens per training sequence.")] = 4096,
    micro_batch: Annotated[
        int, typer.Option("--micro-batch", help="Sequences per micro-batch on one replica.")
    ] = 1,
    global_batch: Annotated[
        int | None,
        typer.Option(
            "--global-batch",
            help="Sequences per optimizer step (default: micro-batch × dp, × 4·pp micro-batches "
            "when pipelined).",
        ),
    ] = None,
    tp: o.Tp = 1,
    pp: o.Pp = 1,
    ep: o.Ep = 1,
    cp: Annotated[
        int, typer.Option("--cp", help="Context-parallel GPUs (split the sequence).")
    ] = 1,
    dp: Annotated[
        int | None, typer.Option("--dp", help="Data-parallel replicas (default: from --gpus).")
    ] = None,
    gpus: Annotated[
        int | None,
        typer.Option(
            "--gpus",
            help="GPUs of --hardware in all: tp × pp × cp × dp (sets --dp). With --tp/--pp/--cp "
            "the rest are data-parallel replicas, as in every command; alone all of them are "
            "(where a serving command takes it alone as --tp N).",
        ),
    ] = None,
    recipe: Annotated[
        str,
        typer.Option(
            "--recipe",
            help="Precision recipe: bf16 (bf16 weights and grads, fp32 master + Adam: 16 B/param), "
            "bf16-fp32-grads (Megatron: 18), fp32 (16), fp8 (fp8 weights: 17), fp8-bf16-moments "
            "(13).",
        ),
    ] = "bf16",
    zero: Annotated[
        int,
        typer.Option(
            "--zero",
            help="ZeRO stage over the data-parallel ranks: 0 DDP, 1 optimizer states (Megatron "
            "distributed optimizer), 2 + gradients, 3 + weights (= FSDP full shard).",
        ),
    ] = 0,
    recompute: Annotated[
        str,
        typer.Option(
            "--recompute", help="Activation recomputation: none|selective|full (checkpointing)."
        ),
    ] = "none",
    flash: Annotated[
        bool,
        typer.Option(
            "--flash/--no-flash", help="FlashAttention (no ctx × ctx score matrix is stored)."
        ),
    ] = True,
    dropout: Annotated[
        bool, typer.Option("--dropout", help="The model trains with dropout (1-byte masks).")
    ] = False,
    sequence_parallel: Annotated[
        bool,
        typer.Option(
            "--sequence-parallel/--no-sequence-parallel",
            help="Split the hidden-width activations over --tp too (Megatron sequence parallel).",
        ),
    ] = True,
    virtual_stages: Annotated[
        int,
        typer.Option(
            "--virtual-stages", help="Model chunks per pipeline stage (interleaved 1F1B if > 1)."
        ),
    ] = 1,
    finetune: Annotated[
        str,
        typer.Option(
            "--finetune",
            help="full (every weight trains), lora (frozen base in the recipe's weight dtype) "
            "or qlora (frozen NF4 base); adapters train in fp32 with Adam.",
        ),
    ] = "full",
    lora_rank: Annotated[int, typer.Option("--lora-rank", help="LoRA rank r.")] = 16,
    lora_targets: Annotated[
        str,
        typer.Option(
            "--lora-targets", help="all (every linear of a block, as QLoRA) or qv (W_Q and W_V)."
        ),
    ] = "all",
    adapter_dtype: Annotated[
        str,
        typer.Option(
            "--adapter-dtype",
            help="LoRA adapter weights and grads: fp32 (PEFT's default: 16 B/param with Adam) "
            "or bf16 (QLoRA's script: 12 B/param).",
        ),
    ] = "fp32",
    tokens: Annotated[
        float | None,
        typer.Option("--tokens", help="Training tokens of the run (e.g. 15e12): time and cost."),
    ] = None,
    mfu: Annotated[
        float | None,
        typer.Option(
            "--mfu",
            help="Time the run at this model-FLOPs utilisation (e.g. 0.4) instead of the "
            "compute model.",
        ),
    ] = None,
    efficiency: d.Efficiency = "expected",
    utilization: Annotated[
        float | None,
        typer.Option(
            "--utilization", help="Owned: fraction of its life the GPU is busy (default 1)."
        ),
    ] = None,
    power_w: Annotated[
        float | None,
        typer.Option(
            "--power-w", hidden=True, help="Owned: power per GPU [W] (--power-kw-per-gpu)."
        ),
    ] = None,
    overhead: Annotated[
        str,
        typer.Option(
            "--overhead",
            help="Memory per GPU outside model states and activations (CUDA context, NCCL, "
            "allocator), e.g. 2GiB.",
        ),
    ] = "0.5GiB",
    network_bandwidth: Annotated[
        str,
        typer.Option(
            "--network-bandwidth",
            help="Inter-node bandwidth per GPU per direction for DP and PP traffic, e.g. 50GB "
            "(per second).",
        ),
    ] = "50GB",
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
    *,
    options: Options,
) -> None:
    """Memory per GPU (weights, gradients, optimizer states, activations) and the fit, FLOPs
    per token (6N + attention, recomputation), step time with pipeline bubble and
    communication, and with --tokens the run's time, GPU-hours and dollars.

    Example: kvcalc train --model llama3-70b --hardware h100 --tp 8 --pp 4 --gpus 1024
    --zero 1 --recompute selective --tokens 15e12 --mfu 0.4
    """
    from calc.api import train as run
    from calc.cli.common import check_choice, emit_report
    from calc.output.render import FORMATS

    check_choice("--format", fmt, FORMATS)
    report = run(
        model, hardware, ctx=ctx, micro_batch=micro_batch, global_batch=global_batch, tp=tp,
        pp=pp, ep=ep, cp=cp, dp=dp, gpus=gpus, recipe=recipe, zero=zero, recompute=recompute,
        flash=flash, dropout=dropout, sequence_parallel=sequence_parallel,
        virtual_stages=virtual_stages, finetune=finetune, lora_rank=lora_rank,
        lora_targets=lora_targets, adapter_dtype=adapter_dtype, tokens=tokens, mfu=mfu,
        efficiency=efficiency, utilization=utilization, power_w=power_w, overhead=overhead,
        network_bandwidth=network_bandwidth, **options.prices,
    )  # fmt: skip
    emit_report(
        report,
        fmt,
        output,
        title=f"{report.fields['model']} training on {report.fields['gpus']:,} × "
        f"{report.fields['hardware']} (GB = 10^9 B, GiB = 2^30 B)",
        explain=explain,
    )
