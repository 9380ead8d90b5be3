"""The options of `kvcalc train` beside the model, the hardware and the price group, declared
once (name, type, default, help; tp, pp and ep as every sizing command declares them, and
``--efficiency`` as cost and sweep do): ``calc.cli.option_groups.with_options(TRAIN)`` makes
them its typer options, in this order, and ``calc.api.train`` takes them by these names."""

from __future__ import annotations

from calc.cli.deploy_options import EFFICIENCY
from calc.cli.option_groups import specs
from calc.deploy.options import Option

TRAIN = (
    Option("ctx", int, 4096, "Tokens per training sequence."),
    Option("micro_batch", int, 1, "Sequences per micro-batch on one replica."),
    Option(
        "global_batch", int | None, None,
        "Sequences per optimizer step (default: micro-batch × dp, × 4·pp micro-batches when "
        "pipelined).",
    ),
    *specs("tp", "pp", "ep"),
    Option("cp", int, 1, "Context-parallel GPUs (split the sequence)."),
    Option("dp", int | None, None, "Data-parallel replicas (default: from --gpus)."),
    Option(
        "gpus", int | None, None,
        "GPUs of --hardware in all: tp × pp × cp × dp (sets --dp). With --tp/--pp/--cp the "
        "rest are data-parallel replicas, as in every command; alone all of them are (where a "
        "serving command takes it alone as --tp N).",
    ),
    Option(
        "recipe", str, "bf16",
        "Precision recipe: bf16 (bf16 weights and grads, fp32 master + Adam: 16 B/param), "
        "bf16-fp32-grads (Megatron: 18), fp32 (16), fp8 (fp8 weights: 17), fp8-bf16-moments "
        "(13).",
    ),
    Option(
        "zero", int, 0,
        "ZeRO stage over the data-parallel ranks: 0 DDP, 1 optimizer states (Megatron "
        "distributed optimizer), 2 + gradients, 3 + weights (= FSDP full shard).",
    ),
    Option("recompute", str, "none",
           "Activation recomputation: none|selective|full (checkpointing)."),
    Option("flash", bool, True, "FlashAttention (no ctx × ctx score matrix is stored).",
           ("--flash/--no-flash",)),
    Option("dropout", bool, False, "The model trains with dropout (1-byte masks)."),
    Option(
        "sequence_parallel", bool, True,
        "Split the hidden-width activations over --tp too (Megatron sequence parallel).",
        ("--sequence-parallel/--no-sequence-parallel",),
    ),
    Option("virtual_stages", int, 1,
           "Model chunks per pipeline stage (interleaved 1F1B if > 1)."),
    Option(
        "finetune", str, "full",
        "full (every weight trains), lora (frozen base in the recipe's weight dtype) or qlora "
        "(frozen NF4 base); adapters train in fp32 with Adam.",
    ),
    Option("lora_rank", int, 16, "LoRA rank r."),
    Option("lora_targets", str, "all",
           "all (every linear of a block, as QLoRA) or qv (W_Q and W_V)."),
    Option(
        "adapter_dtype", str, "fp32",
        "LoRA adapter weights and grads: fp32 (PEFT's default: 16 B/param with Adam) or bf16 "
        "(QLoRA's script: 12 B/param).",
    ),
    Option("tokens", float | None, None,
           "Training tokens of the run (e.g. 15e12): time and cost."),
    Option(
        "mfu", float | None, None,
        "Time the run at this model-FLOPs utilisation (e.g. 0.4) instead of the compute model.",
    ),
    EFFICIENCY,
    Option("utilization", float | None, None,
           "Owned: fraction of its life the GPU is busy (default 1)."),
    Option("power_w", float | None, None, "Owned: power per GPU [W] (--power-kw-per-gpu).",
           hidden=True),
    Option(
        "overhead", str, "0.5GiB",
        "Memory per GPU outside model states and activations (CUDA context, NCCL, allocator), "
        "e.g. 2GiB.",
    ),
    Option(
        "network_bandwidth", str | None, None,
        "Scale-out network bandwidth per GPU per direction, e.g. 50GB (per second), for the "
        "collectives whose ranks span more than one NVLink/xGMI domain (default: the "
        "profile's scale-out network, else 50GB).",
    ),
)  # fmt: skip
