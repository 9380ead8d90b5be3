"""Options of the deployment commands (capacity, cost, check, sweep), defined once."""

from __future__ import annotations

from typing import Annotated

import typer

Engine = Annotated[
    str,
    typer.Option(
        "--engine",
        help="Whose start-up memory accounting to apply (calc/deploy/engines): vllm "
        "(gpu_memory_utilization × device memory − weights − activation peak − non-torch), "
        "sglang (mem_fraction_static × device memory − weights − non-torch) or trtllm "
        "(free_gpu_memory_fraction × what is free after weights and activations).",
    ),
]
EngineVersion = Annotated[
    str | None,
    typer.Option(
        "--engine-version",
        help="Engine release whose defaults and accounting apply, e.g. 0.11 or 0.33.0 "
        "(default: the newest modelled: vllm 0.33.0, sglang 0.5.23, trtllm 1.2.1; another "
        "release uses the nearest modelled one, with a warning; docs/engines.md).",
    ),
]
MemUtil = Annotated[
    float | None,
    typer.Option(
        "--mem-util",
        help="Fraction of GPU memory the engine may use (vLLM gpu_memory_utilization, SGLang "
        "mem_fraction_static, TensorRT-LLM free_gpu_memory_fraction; default: the engine's).",
    ),
]
BlockSize = Annotated[
    int | None,
    typer.Option(
        "--block-size", help="Tokens per KV block (paged allocation; default: the engine's)."
    ),
]
MaxBatchedTokens = Annotated[
    int | None,
    typer.Option(
        "--max-batched-tokens",
        help="Tokens in the largest forward pass (sizes the activation peak; vLLM "
        "max_num_batched_tokens; default: the engine's for the GPU).",
    ),
]
AllReduce = Annotated[
    str | None,
    typer.Option(
        "--allreduce",
        help="Tensor-parallel all-reduce: custom (the engine's one-shot/two-shot kernels and "
        "NVLS inside an NVLink domain, NCCL beyond; the default of vLLM, SGLang and "
        "TensorRT-LLM) or nccl (NCCL alone, as plain PyTorch code runs).",
    ),
]
MoeImbalance = Annotated[
    float | None,
    typer.Option(
        "--moe-imbalance",
        help="MoE load imbalance under --ep: tokens the busiest GPU's experts get over the "
        "mean (1 = balanced, the default; at most ep). Scales its expert work and all-to-all.",
    ),
]
MaxNumSeqs = Annotated[
    int | None,
    typer.Option(
        "--max-num-seqs",
        help="Sequences per step (vLLM max_num_seqs: the sampler rows of its profiling pass; "
        "default: the engine's for the GPU).",
    ),
]
Activation = Annotated[
    str | None,
    typer.Option(
        "--activation",
        help="Activation peak per GPU, overriding the estimate from the model shape "
        "(e.g. 4.8GiB or bytes; vLLM logs it as 'peak activation').",
    ),
]
Overhead = Annotated[
    str | None,
    typer.Option(
        "--overhead",
        help="Non-torch memory per GPU (CUDA context, NCCL, custom all-reduce buffers), e.g. "
        "0.25GiB (default: modelled by TP, calc/deploy/engines; `kvcalc log` measures it).",
    ),
]
MaxModelLen = Annotated[
    int | None,
    typer.Option(
        "--max-model-len",
        help="Tokens contiguous preallocation reserves per sequence (default: the model's max).",
    ),
]
SharedPrefix = Annotated[
    int | None,
    typer.Option("--shared-prefix", help="Prompt tokens every one of --users shares."),
]
Users = Annotated[
    int | None, typer.Option("--users", help="Sequences sharing the --shared-prefix.")
]
UsdPerHour = Annotated[
    float | None,
    typer.Option("--usd-per-hour", help="Price per GPU-hour, overriding the profile's."),
]
Prompt = Annotated[
    int | None,
    typer.Option("--prompt", help="Prompt tokens (TTFT and input cost; default: --ctx)."),
]
MaxTpotMs = Annotated[
    float | None,
    typer.Option("--max-tpot-ms", help="Latency target: time per output token [ms]."),
]
MaxTtftMs = Annotated[
    float | None,
    typer.Option("--max-ttft-ms", help="Latency target: time to first token [ms]."),
]
Efficiency = Annotated[
    str,
    typer.Option(
        "--efficiency",
        help="Which achievable fraction of peak to use: peak|low|expected|high.",
    ),
]
