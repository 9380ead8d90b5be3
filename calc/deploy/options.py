"""The Deployment of the deployment options by the CLI's names (``model``, ``hardware``, ``tp``,
``weight_dtype``, ``mem_util``, ``activation`` as "2GiB", ...): model and hardware loaded,
calibration applied, sizes parsed, everything validated once, and what was assumed on the way
collected as warnings. Every command and every API function builds its Deployment here."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from calc.errors import InvalidInputError

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment


class DeploymentOptions(TypedDict, total=False):
    """The deployment options every sizing command takes beside ``model`` and ``hardware``, by
    the CLI's names (``--weight-dtype`` is ``weight_dtype``); defaults and meanings are
    ``build_deployment``'s, help in docs/cli.md."""

    tp: int  # tensor-parallel GPUs per pipeline stage [1]
    pp: int  # pipeline-parallel stages [1]
    ep: int  # expert-parallel GPUs [1]
    dp: int | None  # data-parallel replicas (None: 1, or ep / tp under expert parallelism)
    gpus: int | None  # GPUs in all: alone the tensor-parallel size, beside tp/pp the replicas
    weight_dtype: str | None  # weight dtype or quantisation format (None: as released)
    kv_dtype: str | None  # KV-cache dtype or format (None: the model's)
    compute_dtype: str | None  # tensor-core dtype of the matmuls (None: from the weights)
    engine: str  # serving engine: vllm, sglang or trtllm ["vllm"]
    engine_version: str | None  # engine release (None: the newest modelled)
    mem_util: float | None  # the engine's memory fraction (None: its default)
    block_size: int | None  # tokens per KV block (None: the engine's)
    max_batched_tokens: int | None  # tokens per forward pass (None: the engine's)
    max_num_seqs: int | None  # sequences per step (None: the engine's)
    activation: str | float | None  # measured activation peak per GPU, "2GiB" or bytes
    overhead: str | float | None  # measured non-torch memory per GPU, "1GiB" or bytes
    max_model_len: int | None  # the engine's maximum model length (None: the model's limit)
    chunked_prefill: bool | None  # prompts split into chunks (None: the engine's default)
    prefix_cache: bool | None  # False: no prefix cache (SGLang --disable-radix-cache)
    calibration: str | Path | None  # kvcalc calibration YAML applied to the hardware profile
    allreduce: str | None  # tensor-parallel all-reduce: custom or nccl (None: the engine's)
    moe_a2a: str | None  # MoE traffic under attention data parallel: gather or deepep
    cuda_graphs: bool | None  # False: every pass eager (vLLM --enforce-eager); None: default
    moe_backend: str | None  # MoE kernels: TensorRT-LLM CUTLASS/TRTLLM/DEEPGEMM, SGLang triton...
    compile_cache: str | None  # torch.compile cold or warm at start-up (None: cold)
    rocm_kernels: str | None  # attention kernels on AMD GPUs: aiter or triton (None: engine's)
    scheduler_recv_interval: int | None  # SGLang: new requests read every N decode steps
    batch_wait_iters: int | None  # TensorRT-LLM: steps contexts wait beside generation
    batch_wait_ratio: float | None  # TensorRT-LLM: the wait's threshold, × max_num_tokens
    mamba_ssm_dtype: str | None  # SGLang: the hybrid state's recurrent dtype
    max_mamba_cache_size: int | None  # SGLang: the hybrid state pool's slots (server's total)
    max_prefill_tokens: int | None  # SGLang: one prefill batch's new prompt tokens
    moe_imbalance: float | None  # busiest GPU's expert tokens over the mean, 1..ep


class Option:  # a plain class: a dataclass or named tuple costs start-up time to define
    """One option as every command declares it and the API takes it: ``name`` (the keyword;
    the flag is ``--name-with-dashes``), ``type`` (what the CLI parses), ``default``, ``help``
    (the unit in brackets), ``aliases`` (further flags: a short one, a negative form) and
    ``hidden`` (an older spelling kept working, left out of --help)."""

    __slots__ = ("aliases", "default", "help", "hidden", "name", "type")

    def __init__(self, name: str, type: Any, default: Any, help: str,
                 aliases: tuple[str, ...] = (), *, hidden: bool = False) -> None:  # fmt: skip
        self.name, self.type, self.default, self.help = name, type, default, help
        self.aliases, self.hidden = aliases, hidden

    def __repr__(self) -> str:
        return f"Option({self.name!r}, {self.type!r}, {self.default!r})"

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


# The deployment options, declared once, in DeploymentOptions' order (tests/test_options.py):
# calc.cli.option_groups makes them every sizing command's typer options.
OPTION_SPECS = (
    Option("tp", int, 1, "Tensor-parallel GPUs (split heads and FFN)."),
    Option("pp", int, 1, "Pipeline-parallel stages (split layers)."),
    Option("ep", int, 1, "Expert-parallel GPUs (spread MoE experts)."),
    Option(
        "dp", int | None, None,
        "Data-parallel replicas (each serves batch / dp); with --ep > --tp it is the "
        "attention-DP size ep / tp (the default).",
    ),
    Option(
        "gpus", int | None, None,
        "GPUs of --hardware in all. Alone: shorthand for --tp N (one tensor-parallel "
        "group); with --tp/--pp: the rest are data-parallel replicas.",
    ),
    Option(
        "weight_dtype", str | None, None,
        "fp32|bf16|fp16|fp8|int8|int4|fp4, or with scales: fp8-tensor|fp8-block128|"
        "int8-channel|int4-g128|int4-g128-sym|fp4-g128|mxfp4|nvfp4 (default: the model's).",
    ),
    Option(
        "kv_dtype", str | None, None,
        "KV-cache dtype: fp32|bf16|fp16|fp8|int8|int4|fp4, or with per-token-head "
        "scales: fp8-token-head|int8-token-head|int4-token-head (default: model's).",
    ),
    Option(
        "compute_dtype", str | None, None,
        "Tensor-core dtype of the matmuls (default: bf16 for weight-only int8/int4/fp4, "
        "fp8 for fp8 weights on fp8 hardware, else the weight dtype).",
    ),
    Option(
        "engine", str, "vllm",
        "Whose start-up memory accounting to apply (calc/deploy/engines): vllm "
        "(gpu_memory_utilization × device memory − weights − activation peak − non-torch), "
        "sglang (mem_fraction_static × device memory − weights − non-torch) or trtllm "
        "(free_gpu_memory_fraction × what is free after weights and activations).",
    ),
    Option(
        "engine_version", str | None, None,
        "Engine release whose defaults and accounting apply, e.g. 0.11 or 0.33.0 "
        "(default: the newest modelled: vllm 0.33.0, sglang 0.5.23, trtllm 1.2.1; another "
        "release uses the nearest modelled one, with a warning; docs/engines.md).",
    ),
    Option(
        "mem_util", float | None, None,
        "Fraction of GPU memory the engine may use (vLLM gpu_memory_utilization, SGLang "
        "mem_fraction_static, TensorRT-LLM free_gpu_memory_fraction; default: the engine's).",
    ),
    Option(
        "block_size", int | None, None,
        "Tokens per KV block (paged allocation; default: the engine's).",
    ),
    Option(
        "max_batched_tokens", int | None, None,
        "Tokens in the largest forward pass (sizes the activation peak; vLLM "
        "max_num_batched_tokens; default: the engine's for the GPU).",
    ),
    Option(
        "max_num_seqs", int | None, None,
        "Sequences per step (vLLM max_num_seqs: the sampler rows of its profiling pass; "
        "default: the engine's for the GPU).",
    ),
    Option(
        "activation", str | None, None,
        "Activation peak per GPU, overriding the estimate from the model shape "
        "(e.g. 4.8GiB or bytes; vLLM logs it as 'peak activation').",
    ),
    Option(
        "overhead", str | None, None,
        "Non-torch memory per GPU (CUDA context, NCCL, custom all-reduce buffers), e.g. "
        "0.25GiB (default: modelled by TP, calc/deploy/engines; `kvcalc log` measures it).",
    ),
    Option(
        "max_model_len", int | None, None,
        "Tokens contiguous preallocation reserves per sequence (default: the model's max).",
    ),
    Option(
        "chunked_prefill", bool | None, None,
        "Split prompts into chunks of at most --max-batched-tokens (vLLM and SGLang do by "
        "default, trtllm-serve does not; default: the engine's).",
        ("--chunked-prefill/--no-chunked-prefill",),
    ),
    Option(
        "prefix_cache", bool | None, None,
        "The engine's prefix cache (off: SGLang --disable-radix-cache, vLLM "
        "--no-enable-prefix-caching, TensorRT-LLM enable_block_reuse false): the launch "
        "command states it, and SGLang without it admits requests that run to their output "
        "length (simulate, score). Default: the engine's (on).",
        ("--prefix-cache/--no-prefix-cache",),
    ),
    Option(
        "calibration", Path | None, None,
        "A calibration to apply: YAML from `kvcalc measure --save-calibration` "
        "(measured efficiencies) or `kvcalc score --save-calibration` (fitted to benchmark "
        "runs).",
    ),
    Option(
        "allreduce", str | None, None,
        "Tensor-parallel all-reduce: custom (the engine's one-shot/two-shot kernels and "
        "NVLS inside an NVLink domain, NCCL beyond; the default of vLLM, SGLang and "
        "TensorRT-LLM) or nccl (NCCL alone, as plain PyTorch code runs).",
    ),
    Option(
        "moe_a2a", str | None, None,
        "MoE traffic under attention data parallelism (--ep > --tp): gather (all-gather the "
        "tokens, reduce-scatter the outputs: vLLM's and SGLang's default) or deepep (DeepEP "
        "dispatch/combine: SGLang --moe-a2a-backend deepep, vLLM --all2all-backend deepep_*); "
        "default: the engine's (TensorRT-LLM's NVLink all-to-all on NVL72).",
    ),
    Option(
        "cuda_graphs", bool | None, None,
        "CUDA graphs (off: every pass eager, as vLLM --enforce-eager / SGLang "
        "--disable-cuda-graph): the engine's memory (no graph pool), its launch command and "
        "the serving simulation (simulate, score: each kernel's launch paid on the CPU) follow "
        "it; latency's single-step figures assume graphs. Default: the engine's.",
        ("--cuda-graphs/--enforce-eager",),
    ),
    Option(
        "moe_backend", str | None, None,
        "TensorRT-LLM's MoE backend (moe_config.backend): CUTLASS (the engine's default), "
        "TRTLLM (trtllm-gen: NVFP4, fp8-block128, MXFP4 experts on B200/GB200/B300/GB300; "
        "NVFP4 timed from its measured speed-up over CUTLASS) or DEEPGEMM (fp8-block128); "
        "SGLang's --moe-runner-backend for block-fp8 experts: triton, flashinfer_trtllm "
        "(trtllm-gen) or deep_gemm, each timed by its own curve where the profile has one; "
        "vLLM's --moe-backend (0.17.0 on; environment variables for fp8 experts at 0.16): "
        "flashinfer_trtllm, flashinfer_cutlass, triton, deep_gemm or marlin, timed by the curve "
        "of that backend's rows where kvcalc has one, another standing in (--explain says "
        "which); for gpt-oss's MXFP4 experts on B200/GB200/B300/GB300 also "
        "flashinfer_trtllm_mxfp4_mxfp8 (MXFP8 activations, VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1) "
        "or flashinfer_trtllm_mxfp4_bf16 (vLLM's default there); marlin for them is "
        "VLLM_MXFP4_USE_MARLIN=1 before vLLM 0.19.0. The launch command states it. "
        "Default: the engine's (SGLang: by release, GPU and architecture; vLLM: its oracle's "
        "pick by release, GPU, format and gating).",
    ),
    Option(
        "compile_cache", str | None, None,
        "torch.compile at the engine's start: cold (compiled afresh, a new server's first "
        "start) or warm (compiled graphs loaded from the cache). From vLLM 0.11.1 a cold "
        "compile benchmarks Inductor's kernels inside the memory profile, holding a copy of "
        "the embedding table, which can set the activation peak. Default: cold.",
    ),
    Option(
        "rocm_kernels", str | None, None,
        "The kernel library the engine's attention runs on an AMD GPU: aiter (AMD's tuned "
        "kernels: AITER's or ROCm's own paged attention; SGLang's default, vLLM's from 0.19.0, "
        "below it VLLM_ROCM_USE_AITER=1) or triton (vLLM's Triton unified attention, its "
        "default below 0.19.0: a decode step's attention takes at least its kernel's serial "
        "walk over each sequence's keys, measured). AMD GPUs only. Default: the engine "
        "release's (vLLM below 0.19.0 triton, else aiter).",
    ),
    Option(
        "scheduler_recv_interval", int | None, None,
        "SGLang --scheduler-recv-interval N (0.5.2+): the scheduler reads new requests every N "
        "decode steps, so each waits (N − 1) / 2 steps more on average before its prefill "
        "(simulate, score, plan, latency's TTFT); the launch command states it. Default: 1.",
    ),
    Option(
        "batch_wait_iters", int | None, None,
        "TensorRT-LLM batch_wait_timeout_iters T (1.1.0+, with --batch-wait-ratio): new "
        "prompts are held beside running generation requests for up to T steps while the "
        "scheduled tokens stay below ratio × max_num_tokens (not under attention DP); the "
        "YAML states it. Default: off.",
    ),
    Option(
        "batch_wait_ratio", float | None, None,
        "TensorRT-LLM batch_wait_max_tokens_ratio r in [0, 1] (with --batch-wait-iters): the "
        "held prompts go in once their tokens reach r × max_num_tokens. Default: off.",
    ),
    Option(
        "mamba_ssm_dtype", str | None, None,
        "SGLang --mamba-ssm-dtype float32|bfloat16|float16 (0.5.2+; float16 0.5.9+): the "
        "recurrent state's dtype on hybrid (Mamba / gated-DeltaNet) models, so the bytes of "
        "each state slot and the slots the pool holds. Default: the release's (from 0.5.9 the "
        "config's mamba_ssm_dtype, else float32; before, float32).",
    ),
    Option(
        "max_mamba_cache_size", int | None, None,
        "SGLang --max-mamba-cache-size N (0.5.2+): the hybrid state pool's slots, the server's "
        "total (each attention-DP rank N // ranks), in place of SGLang's share of the memory; "
        "the running requests stay capped at slots // slots a request. Default: SGLang sizes it.",
    ),
    Option(
        "max_prefill_tokens", int | None, None,
        "SGLang --max-prefill-tokens N: the new prompt tokens one prefill batch takes in "
        "(beside the chunk, --max-batched-tokens); requests join the batch until N are taken, "
        "a first one whatever its length. Default: 16384.",
    ),
    Option(
        "moe_imbalance", float | None, None,
        "MoE load imbalance under --ep: tokens the busiest GPU's experts get over the "
        "mean (1 = balanced, the default; at most ep). Scales its expert work and all-to-all.",
    ),
)  # fmt: skip
OPTIONS = tuple(DeploymentOptions.__annotations__)
# the options EngineSettings.from_options takes (it holds their defaults)
ENGINE_OPTIONS = (
    "engine", "engine_version", "mem_util", "block_size", "max_batched_tokens", "max_num_seqs",
    "activation", "overhead", "max_model_len", "allreduce", "chunked_prefill", "prefix_cache",
    "moe_a2a", "cuda_graphs", "moe_backend", "compile_cache", "rocm_kernels",
    "scheduler_recv_interval", "batch_wait_iters", "batch_wait_ratio", "mamba_ssm_dtype",
    "max_mamba_cache_size", "max_prefill_tokens",
)  # fmt: skip
OPTION_NAMES = ("model", "hardware", *OPTIONS)  # a command's parameters that build its Deployment


def resolve_gpus(tp: int, pp: int, dp: int | None, gpus: int | None) -> tuple[int, int | None]:
    """(tp, dp) with ``--gpus N``, the deployment's GPUs in all, applied. Alone it is a stated
    shorthand for ``--tp N`` (serving engines shard a model over one tensor-parallel group
    first); beside --tp/--pp the remaining factor is data-parallel replicas (as in `train`)."""
    if gpus is None:
        return tp, dp
    if tp == 1 and pp == 1 and dp is None:
        return gpus_as_tp(gpus), None
    return tp, gpus_replicas(tp, pp, dp, gpus)


def gpus_as_tp(gpus: int) -> int:
    """``--gpus N`` given alone: the tensor-parallel size N, checked."""
    from calc.data.limits import MAX_PARALLEL, check_positive_int

    check_positive_int("gpus", gpus, MAX_PARALLEL)
    return gpus


def said_of_gpus(exc: InvalidInputError, tp: int, gpus: int) -> InvalidInputError:
    """``exc``, an error about ``--tp tp``, said of ``--gpus gpus``: given alone it became the
    tensor-parallel size, and the user should read the flag they gave."""
    import re

    text = re.sub(rf"--tp {tp}\b", f"--gpus {gpus} (one tensor-parallel group)", str(exc))
    return InvalidInputError(text)


def gpus_replicas(tp: int, pp: int, dp: int | None, gpus: int, **more: int) -> int:
    """The data-parallel replicas of ``--gpus`` (the GPUs in all) beside --tp, --pp and the
    further factors ``more`` (`train`'s ``cp``): gpus / (tp × pp × ...), which must be whole
    and agree with ``--dp`` where given. Every command that takes --gpus applies it here."""
    from calc.data.limits import MAX_PARALLEL, check_positive_int

    check_positive_int("gpus", gpus, MAX_PARALLEL * MAX_PARALLEL)  # tp × pp × dp
    sizes = {"tp": tp, "pp": pp, **more}
    world = math.prod(sizes.values())
    named = " × ".join(f"--{k} {v}" for k, v in sizes.items())
    if gpus % world:
        raise InvalidInputError(f"--gpus {gpus} is not a multiple of {named}")
    if dp is not None and dp != gpus // world:
        raise InvalidInputError(f"--gpus {gpus} disagrees with {named} × --dp {dp}")
    return gpus // world


def what_if_layout(attention=None, **sizes):
    """A function cfg -> the what-if AttentionLayout of --attention (None: the model's own),
    after checking the choice and the sizes (1..1,000,000)."""
    from calc.data.limits import check_choice

    check_choice("--attention", attention, ("mha", "gqa", "mqa", "mla"))
    for flag, value in sizes.items():
        if value is not None and not 0 < value <= 1_000_000:
            raise InvalidInputError(f"--{flag.replace('_', '-')} must be in 1..1,000,000")

    def layout(cfg):
        from calc.formulas.attention_layout import attention_layout

        return attention_layout(cfg, attention, **sizes)

    return layout


def check_options(given, allowed=OPTIONS, what: str = "deployment option") -> None:
    """Refuse a keyword that is no option (a typo), naming the closest ones."""
    from calc.errors import UnknownNameError

    for name in given:
        if name not in allowed:
            raise UnknownNameError(what, name, allowed)


def build_deployment(
    model: str,
    hardware: str | None = None,
    *,
    notes: list[str] | None = None,
    tp: int = 1, pp: int = 1, ep: int = 1, dp: int | None = None, gpus: int | None = None,
    weight_dtype: str | None = None, kv_dtype: str | None = None,
    compute_dtype: str | None = None,
    calibration=None,
    layout=None,
    moe_imbalance: float | None = None,
    **engine,
) -> Deployment:  # fmt: skip
    """The Deployment of a command's options (model and hardware loaded, calibration applied,
    sizes parsed, everything validated once). ``engine``: the engine's options, by the names
    and with the defaults of ``EngineSettings.from_options`` (engine, engine_version,
    mem_util, ...). ``notes`` gains, in order, what the model's import assumed, the
    calibration's notes and a release not modelled: what the CLI prints as warnings.
    ``layout``: a function cfg -> AttentionLayout (``what_if_layout``)."""
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.checkpoint import model_warnings
    from calc.deploy.deployment import Deployment, EngineSettings

    notes = [] if notes is None else notes
    check_options(engine, ENGINE_OPTIONS, "engine option")
    if calibration is not None and not hardware:  # it calibrates a profile: none to calibrate
        raise InvalidInputError(
            "--calibration corrects a --hardware profile's efficiencies: give --hardware too"
        )
    settings = EngineSettings.of(engine)
    cfg = load_model(model)
    notes += model_warnings(cfg)
    hw = None
    if hardware:
        hw = load_hardware(hardware)
        if calibration is not None:  # calc.data.calibration (pydantic) only when a file is given
            from calc.data.calibration import calibrated

            hw = calibrated(hw, calibration, notes)
    lay = layout(cfg) if layout is not None else None
    tp_given = tp
    tp, dp = resolve_gpus(tp, pp, dp, gpus)
    try:
        dep = Deployment.build(
            cfg, hw, tp=tp, pp=pp, ep=ep, dp=dp, weight_dtype=weight_dtype, kv_dtype=kv_dtype,
            compute_dtype=compute_dtype, layout=lay, engine=settings, moe_imbalance=moe_imbalance,
        )  # fmt: skip
    except InvalidInputError as exc:
        if gpus is None or tp == tp_given:
            raise
        raise said_of_gpus(exc, tp, gpus) from None
    notes += dep.engine_config.warnings
    if calibration is not None:  # fitted to another engine, release, model or dtype: said
        from calc.deploy.calibration_match import calibration_note

        notes += [n for n in (calibration_note(calibration, dep),) if n]
    why = dep.engine_model.cannot_load(dep)  # a release older than the model: said, not refused
    if why is not None:
        notes.append(why)
    return dep
