"""A deployment: one model on one kind of hardware, sharded tp × pp × ep (× dp replicas), with
its dtypes and its serving engine's settings, resolved and validated once. Every report takes a
``Deployment`` and a ``Workload``; per-GPU sizes come from its ledger (``dep.per_gpu``,
``calc.deploy.ledger``), so no two commands can disagree on them.

Parallel layout (the conventions vLLM and SGLang use; details in ``calc.deploy.parallel``):

- ``tp`` splits heads and FFN widths, ``pp`` splits layers into contiguous stages, ``ep``
  spreads whole routed experts.
- ``dp``: data-parallel replicas. Without expert parallelism each replica is a whole copy of
  the model on tp × pp GPUs and serves batch / dp of the sequences. With ``ep > tp`` the
  attention is data parallel inside the expert group (DeepSeek-V3's layout, vLLM's
  ``--data-parallel-size`` with ``--enable-expert-parallel``): dp is then ep / tp and cannot
  be set apart from it.

GPUs = max(tp, ep) × pp × (dp without EP, else 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from calc.data.limits import (
    MAX_BATCH,
    MAX_CTX,
    check_bytes,
    check_fraction,
    check_parallel,
    check_positive_int,
)
from calc.errors import InvalidInputError, not_one_of

if TYPE_CHECKING:
    from calc.data.hardware_schema import HardwareProfile
    from calc.data.model_schema import ModelConfig
    from calc.deploy.ledger import PerGpu
    from calc.deploy.parallel import Sharding
    from calc.formulas.attention_layout import AttentionLayout

ALLREDUCE_KINDS = ("custom", "nccl")
COMPILE_CACHE_STATES = ("cold", "warm")  # EngineSettings.compile_cache


@dataclass(frozen=True, kw_only=True)
class EngineSettings:
    """The serving engine and what the user set of its settings. Every None is the engine's own
    default for its release and the GPU (the engine wing, ``calc.deploy.engines``, is the one
    home of the defaults; ``Deployment.engine_config`` resolves them)."""

    name: str = "vllm"
    version: str | None = None  # None: the newest release modelled
    mem_util: float | None = None  # vLLM gpu_memory_utilization, SGLang mem_fraction_static
    block_size: int | None = None  # tokens per KV page
    max_batched_tokens: int | None = None  # tokens of the profiling forward pass
    max_num_seqs: int | None = None  # sequences per step (rows of the sampler's pass)
    activation_bytes: float | None = None  # a measured activation peak; None: modelled
    overhead_bytes: float | None = None  # measured non-torch memory; None: modelled by TP
    max_model_len: int | None = None  # contiguous preallocation per sequence; None: model max
    # tensor-parallel all-reduce: "custom" (the engine's one-shot/two-shot kernels and NVLS
    # within an NVLink domain, NCCL beyond) or "nccl" (NCCL alone, as plain PyTorch code such
    # as gpt-fast runs); None: the engine's default, custom for vLLM, SGLang and TensorRT-LLM
    allreduce: str | None = None
    cuda_graphs: bool | None = None  # False: eager (vLLM --enforce-eager); None: the default
    max_tokens: int | None = None  # TensorRT-LLM KvCacheConfig.max_tokens cap of the pool
    # prompts split into chunks of max_batched_tokens (None: the engine's default: on for vLLM
    # V1 and SGLang, off for trtllm-serve)
    chunked_prefill: bool | None = None
    # expert-parallel traffic under attention data parallel: "gather" (all-gather, reduce-
    # scatter) or "deepep" (SGLang --moe-a2a-backend deepep, vLLM --all2all-backend deepep_*,
    # TensorRT-LLM's wide EP); None: the engine's default (calc.deploy.moe_pipeline)
    moe_a2a: str | None = None
    # the prefix cache: False where the server runs without one (SGLang --disable-radix-cache,
    # which changes its admission: calc.serve.policies); None: the engine's default
    prefix_cache: bool | None = None
    # the fused MoE's kernels by the engine's name for them (TensorRT-LLM MoeConfig.backend:
    # CUTLASS, TRTLLM, DEEPGEMM; SGLang --moe-runner-backend: triton, flashinfer_trtllm,
    # deep_gemm; vLLM --moe-backend: flashinfer_trtllm, flashinfer_cutlass, triton, deep_gemm,
    # marlin); None: the engine's default (calc.deploy.moe_pipeline, Engine.moe_runner)
    moe_backend: str | None = None
    # torch.compile at start-up: "cold" (compiled afresh: vLLM 0.11.1+'s Inductor benchmarks
    # the embedding kernel on a copy of its table inside the profiling pass) or "warm"
    # (compiled graphs loaded from the cache); None: cold, a fresh server's first start
    compile_cache: str | None = None
    # the kernel library the engine's attention runs on an AMD GPU: "aiter" (AMD's tuned
    # kernels, which kvcalc's AMD profiles describe) or "triton" (vLLM's Triton unified
    # attention, its default without VLLM_ROCM_USE_AITER=1); None: the engine's default
    # (calc.deploy.engines: vLLM triton, SGLang aiter). Only AMD GPUs take it.
    rocm_kernels: str | None = None
    # the scheduler settings that hold new requests back (calc.serve.admission; None: the
    # engine's default, nothing held): SGLang's --scheduler-recv-interval (new requests read
    # every N decode steps), TensorRT-LLM's batch_wait_timeout_iters and
    # batch_wait_max_tokens_ratio (contexts held beside running generation requests for up to
    # that many steps while the scheduled tokens stay below ratio × max_num_tokens)
    recv_interval: int | None = None
    batch_wait_iters: int | None = None
    batch_wait_ratio: float | None = None
    # hybrid models' recurrent-state pool (SGLang; calc.deploy.engines.sglang.hybrid): the
    # recurrent state's dtype (--mamba-ssm-dtype, kvcalc's name: fp32, bf16, fp16; None: the
    # release's default) and the pool's slots, the server's total (--max-mamba-cache-size;
    # None: the engine sizes it)
    mamba_ssm_dtype: str | None = None
    max_mamba_cache_size: int | None = None
    # the new prompt tokens of one prefill batch (SGLang --max-prefill-tokens; None: the
    # release's default; calc.serve.policies.PrefillFirst)
    max_prefill_tokens: int | None = None

    def __post_init__(self) -> None:
        from calc.deploy.engines import NAMES, engine, engine_name
        from calc.deploy.moe_pipeline import EP_COMMS

        if self.moe_a2a not in (None, *EP_COMMS):
            raise InvalidInputError(
                not_one_of("--moe-a2a", self.moe_a2a, EP_COMMS)
            )

        if self.compile_cache not in (None, *COMPILE_CACHE_STATES):
            raise InvalidInputError(
                not_one_of("--compile-cache", self.compile_cache, COMPILE_CACHE_STATES)
            )
        if self.allreduce not in (None, *ALLREDUCE_KINDS):
            raise InvalidInputError(
                not_one_of("--allreduce", self.allreduce, ALLREDUCE_KINDS)
            )
        if self.name not in NAMES:  # "TRT-LLM", "tensorrt" -> trtllm; else the nearest named
            object.__setattr__(self, "name", engine_name(self.name))
        if self.moe_backend is not None:
            named = engine(self.name)
            spelled = {b.upper(): b for b in named.moe.backends}  # the engine's own spelling
            backend = spelled.get(str(self.moe_backend).upper(), str(self.moe_backend))
            if not named.moe.backends:
                raise InvalidInputError(
                    f"--moe-backend is not a setting kvcalc models for {named.title}: drop it"
                )
            if backend not in named.moe.backends:
                raise InvalidInputError(
                    f"--moe-backend {self.moe_backend!r} is not one of {named.title}'s "
                    f"modelled MoE backends: {', '.join(named.moe.backends)}"
                )
            object.__setattr__(self, "moe_backend", backend)
        if self.rocm_kernels is not None:
            named = engine(self.name)
            kernels = str(self.rocm_kernels).lower()
            if not named.rocm_kernels:
                raise InvalidInputError(
                    f"--rocm-kernels is not a setting kvcalc models for {named.title} (it does "
                    "not run on AMD GPUs): drop it"
                )
            if kernels not in named.rocm_kernels:
                raise InvalidInputError(
                    f"--rocm-kernels {self.rocm_kernels!r} is not one of {named.title}'s "
                    f"modelled ROCm kernel libraries: {', '.join(named.rocm_kernels)}"
                )
            object.__setattr__(self, "rocm_kernels", kernels)
        _check_admission(self)
        _check_state_settings(self)
        _check_prefill_settings(self)
        if self.mem_util is not None:
            check_fraction("mem-util", self.mem_util)
        for flag, value, upper in (
            ("block-size", self.block_size, 1 << 20),
            ("max-batched-tokens", self.max_batched_tokens, MAX_CTX),
            ("max-num-seqs", self.max_num_seqs, MAX_BATCH),
            ("max-model-len", self.max_model_len, MAX_CTX),
            ("max-tokens", self.max_tokens, 10**12),
        ):
            if value is not None:
                check_positive_int(flag, value, upper)
        if self.activation_bytes is not None:
            check_bytes("activation", self.activation_bytes)
        if self.overhead_bytes is not None:
            check_bytes("overhead", self.overhead_bytes)

    @classmethod
    def of(cls, options: Mapping[str, object], flag: str = "--") -> EngineSettings:
        """``from_options`` with the engine options found in ``options`` by name (a command's
        ``locals()``, a check spec's fields); the ones absent keep their defaults."""
        import inspect

        names = set(inspect.signature(cls.from_options).parameters) - {"flag"}
        return cls.from_options(**{k: options[k] for k in names if k in options}, flag=flag)

    @classmethod
    def from_options(
        cls,
        engine: str = "vllm",
        *,
        engine_version: str | None = None,
        # memory: its fraction, KV pages, the profiling pass's sizes, measured terms
        mem_util: float | None = None, block_size: int | None = None,
        max_batched_tokens: int | None = None, max_num_seqs: int | None = None,
        activation: str | int | None = None, overhead: str | int | None = None,
        max_model_len: int | None = None,
        # how it runs: collectives, prompt chunks, the prefix cache, CUDA graphs
        allreduce: str | None = None, chunked_prefill: bool | None = None,
        prefix_cache: bool | None = None, moe_a2a: str | None = None,
        cuda_graphs: bool | None = None, moe_backend: str | None = None,
        compile_cache: str | None = None, rocm_kernels: str | None = None,
        # what holds new requests back: SGLang's receive interval, TensorRT-LLM's batch wait
        scheduler_recv_interval: int | None = None, batch_wait_iters: int | None = None,
        batch_wait_ratio: float | None = None,
        # hybrid models' state pool: the recurrent state's dtype, the pool's slots (SGLang)
        mamba_ssm_dtype: str | None = None, max_mamba_cache_size: int | None = None,
        # one prefill batch's new prompt tokens (SGLang)
        max_prefill_tokens: int | None = None,
        flag: str = "--",
    ) -> EngineSettings:  # fmt: skip
        """The settings from the options a command or a check spec states (the same names);
        sizes given as text ("0.5GiB") or bytes. ``flag`` prefixes the names in errors."""
        from calc.data.units import parse_bytes

        def size(value, name):
            return None if value is None else parse_bytes(value, f"{flag}{name}")

        return cls(
            name=engine,
            version=engine_version,
            mem_util=mem_util,
            block_size=block_size,
            max_batched_tokens=max_batched_tokens,
            max_num_seqs=max_num_seqs,
            activation_bytes=size(activation, "activation"),
            overhead_bytes=size(overhead, "overhead"),
            max_model_len=max_model_len,
            allreduce=allreduce,
            chunked_prefill=chunked_prefill,
            prefix_cache=prefix_cache,
            moe_a2a=moe_a2a,
            cuda_graphs=cuda_graphs,
            moe_backend=moe_backend,
            compile_cache=compile_cache,
            rocm_kernels=rocm_kernels,
            recv_interval=scheduler_recv_interval,
            batch_wait_iters=batch_wait_iters,
            batch_wait_ratio=batch_wait_ratio,
            mamba_ssm_dtype=mamba_ssm_dtype,
            max_mamba_cache_size=max_mamba_cache_size,
            max_prefill_tokens=max_prefill_tokens,
        )


# EngineSettings' state-pool fields by their flags, and --mamba-ssm-dtype's values (SGLang's
# names, server_args.py choices, and kvcalc's) by kvcalc's name
STATE_FLAGS = {"mamba_ssm_dtype": "--mamba-ssm-dtype",
               "max_mamba_cache_size": "--max-mamba-cache-size"}  # fmt: skip
STATE_DTYPES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16",
                "fp32": "fp32", "bf16": "bf16", "fp16": "fp16"}  # fmt: skip


def _check_state_settings(settings: EngineSettings) -> None:
    """Refuse a state-pool setting (``STATE_FLAGS``) the engine does not have, a dtype not one
    of float32, bfloat16, float16, or a slot count out of 1..10^9; the dtype kept by kvcalc's
    name (fp32, bf16, fp16). The release's own limits: ``Engine.cannot_size_state``."""
    from calc.deploy.engines import engine

    stated = [k for k in STATE_FLAGS if getattr(settings, k) is not None]
    if not stated:
        return
    named = engine(settings.name)
    for key in stated:
        if key not in named.state_settings:
            raise InvalidInputError(
                f"{STATE_FLAGS[key]} is not a setting of {named.title} (SGLang's hybrid "
                "state pool): drop it"
            )
    dtype = settings.mamba_ssm_dtype
    if dtype is not None:
        name = STATE_DTYPES.get(str(dtype).lower())
        if name is None:
            raise InvalidInputError(
                not_one_of("--mamba-ssm-dtype", dtype, ("float32", "bfloat16", "float16"))
            )
        object.__setattr__(settings, "mamba_ssm_dtype", name)
    if settings.max_mamba_cache_size is not None:
        check_positive_int("max-mamba-cache-size", settings.max_mamba_cache_size, 10**9)


def _check_prefill_settings(settings: EngineSettings) -> None:
    """Refuse ``--max-prefill-tokens`` on an engine without it (``Engine.prefill_settings``)
    or out of 1..10^9 tokens."""
    from calc.deploy.engines import engine

    if settings.max_prefill_tokens is None:
        return
    named = engine(settings.name)
    if "max_prefill_tokens" not in named.prefill_settings:
        raise InvalidInputError(
            f"--max-prefill-tokens is not a setting of {named.title} (SGLang's bound on one "
            "prefill batch's prompt tokens; the step budget is --max-batched-tokens): drop it"
        )
    check_positive_int("max-prefill-tokens", settings.max_prefill_tokens, 10**9)


# EngineSettings' admission fields by their flags (calc.deploy.options)
ADMISSION_FLAGS = {"recv_interval": "--scheduler-recv-interval",
                   "batch_wait_iters": "--batch-wait-iters",
                   "batch_wait_ratio": "--batch-wait-ratio"}  # fmt: skip


def _check_admission(settings: EngineSettings) -> None:
    """Refuse an admission setting (``ADMISSION_FLAGS``) the engine does not have, one out of
    its range (a receive interval or batch wait of 1..1,000,000 steps, a ratio in [0, 1]), or
    a batch wait stated without its ratio above 0 or the other way round: TensorRT-LLM holds
    contexts back only while both are above 0 (``py_executor.py`` ``_waiting_requests`` stops
    waiting once the steps waited reach the timeout or the tokens reach ratio ×
    max_num_tokens, so either at 0 stops it at once)."""
    import math

    from calc.deploy.engines import engine

    stated = {k: getattr(settings, k) for k in ADMISSION_FLAGS if getattr(settings, k) is not None}
    if not stated:
        return
    named = engine(settings.name)
    for key in stated:
        if key not in named.admission_settings:
            have = ", ".join(ADMISSION_FLAGS[k] for k in named.admission_settings)
            its = f"its own: {have}" if have else "it has none that holds requests back"
            raise InvalidInputError(
                f"{ADMISSION_FLAGS[key]} is not a setting of {named.title} ({its}): drop it"
            )
    for key in ("recv_interval", "batch_wait_iters"):
        if key in stated:
            check_positive_int(ADMISSION_FLAGS[key].lstrip("-"), stated[key], 1_000_000)
    ratio = stated.get("batch_wait_ratio")
    if ratio is not None:
        if isinstance(ratio, bool) or not isinstance(ratio, int | float) or \
                not (math.isfinite(ratio) and 0 <= ratio <= 1):  # fmt: skip
            raise InvalidInputError(f"--batch-wait-ratio must be in [0, 1], got {ratio!r}")
        object.__setattr__(settings, "batch_wait_ratio", float(ratio))
    if ("batch_wait_iters" in stated) != bool(ratio):
        raise InvalidInputError(
            "--batch-wait-iters and --batch-wait-ratio go together: TensorRT-LLM holds new "
            "prompts back only while both are above 0 (a timeout of T steps and a threshold of "
            "ratio × max_num_tokens tokens); give both, or neither"
        )


@dataclass(frozen=True, kw_only=True)
class Workload:
    """What the deployment serves: ``batch`` concurrent sequences of ``ctx`` tokens (for the
    whole deployment); ``prompt`` and ``gen`` where a report times requests."""

    ctx: int
    batch: int = 1
    prompt: int | None = None
    gen: int | None = None

    def __post_init__(self) -> None:
        if self.prompt is not None:
            check_positive_int("prompt", self.prompt, MAX_CTX)
        if self.gen is not None:
            check_positive_int("gen", self.gen, MAX_CTX)
        if self.prompt and self.gen and self.ctx == self.prompt + self.gen > MAX_CTX:
            # a context the command derived: name the options the user gave, not --ctx
            raise InvalidInputError(
                f"--prompt + --gen must be at most {MAX_CTX:,} tokens, got {self.ctx:,}"
            )
        check_positive_int("ctx", self.ctx, MAX_CTX)
        check_positive_int("batch", self.batch, MAX_BATCH)


def _check_format(name, flag: str, lookup) -> None:
    """A plain dtype or a format ``lookup`` (calc.formulas.quant) knows, else its error listing
    all."""
    if not isinstance(name, str) or not name:
        raise InvalidInputError(f"{flag} must name a dtype or format, got {name!r}")
    lookup(name)


@dataclass(frozen=True, kw_only=True)
class Deployment:
    """This model, sharded this way, in these dtypes, on this hardware, under this engine.

    Build it with ``Deployment.build`` (which resolves defaults and validates everything once);
    the fields are then plain resolved values.
    """

    model: ModelConfig
    hardware: HardwareProfile | None
    tp: int
    pp: int
    ep: int
    dp: int
    weight_dtype: str  # the linear layers' format (calc.deploy.checkpoint.linear_dtype)
    weight_override: str | None  # --weight-dtype as given (None: the checkpoint as released)
    kv_dtype: str
    compute_override: str | None
    layout: AttentionLayout
    engine: EngineSettings = field(default_factory=EngineSettings)
    # MoE load imbalance under expert parallelism: tokens the busiest GPU's experts receive
    # over the mean (1: perfectly balanced routing; ep at most); it scales that GPU's routed
    # expert work and its all-to-all traffic [×]
    moe_imbalance: float = 1.0

    @classmethod
    def build(
        cls,
        model: ModelConfig,
        hardware: HardwareProfile | None = None,
        *,
        tp: int = 1, pp: int = 1, ep: int = 1, dp: int | None = None,  # the parallel layout
        # the number formats (None: the checkpoint's, the model's, from the weights)
        weight_dtype: str | None = None, kv_dtype: str | None = None,
        compute_dtype: str | None = None,
        layout: AttentionLayout | None = None,  # a what-if attention layout
        engine: EngineSettings | None = None,
        moe_imbalance: float | None = None,
    ) -> Deployment:  # fmt: skip
        from calc.deploy.checkpoint import linear_dtype
        from calc.formulas.attention_layout import attention_layout
        from calc.formulas.quant import kv_format, weight_format

        check_parallel(tp=tp, pp=pp, ep=ep)
        attn_dp = max(1, ep // tp)
        if dp is None:
            dp = attn_dp
        check_parallel(dp=dp)
        if ep > 1 and dp != attn_dp:
            raise InvalidInputError(
                f"--dp {dp} with --ep {ep} --tp {tp}: under expert parallelism the attention "
                f"is data parallel inside the expert group, so --dp is ep / tp = {attn_dp}"
            )
        override = weight_dtype
        if override is not None:
            _check_format(override, "--weight-dtype", weight_format)
        # the linear layers' format: --weight-dtype re-quantises them, the rest of the
        # checkpoint keeps its released formats (calc.deploy.checkpoint)
        weight_dtype = linear_dtype(model, override)
        kv_dtype = (model.kv_dtype or model.dtype) if kv_dtype is None else kv_dtype
        _check_format(weight_dtype, "--weight-dtype", weight_format)
        _check_format(kv_dtype, "--kv-dtype", kv_format)
        from calc.deploy.moe_pipeline import default_moe_imbalance

        # unstated: the published default imbalance under expert parallelism
        imbalance = default_moe_imbalance(ep) if moe_imbalance is None else moe_imbalance
        if isinstance(imbalance, bool) or not 1 <= imbalance <= max(1, ep):
            raise InvalidInputError(
                f"--moe-imbalance must be in 1..ep (the busiest GPU's experts get at most all "
                f"the tokens: 1..{max(1, ep)} at --ep {ep}), got {moe_imbalance!r}"
            )
        dep = cls(
            model=model,
            hardware=hardware,
            tp=tp,
            pp=pp,
            ep=ep,
            dp=dp,
            weight_dtype=weight_dtype,
            weight_override=override,
            kv_dtype=kv_dtype,
            compute_override=compute_dtype,
            layout=layout or attention_layout(model),
            engine=engine or EngineSettings(),
            moe_imbalance=float(imbalance),
        )
        _check_built(dep, engine, hardware)
        return dep

    def rebuilt(self, **changes) -> Deployment:
        """This deployment built again (and validated again) with ``changes`` to
        ``Deployment.build``'s keywords, every other setting as it is."""
        kw = dict(
            tp=self.tp, pp=self.pp, ep=self.ep, dp=self.dp, weight_dtype=self.weight_override,
            kv_dtype=self.kv_dtype, compute_dtype=self.compute_override, layout=self.layout,
            engine=self.engine, moe_imbalance=self.moe_imbalance,
        )  # fmt: skip
        return Deployment.build(self.model, self.hardware, **(kw | changes))

    # -- sharding ---------------------------------------------------------------------------

    @cached_property
    def sharding(self) -> Sharding:
        """Per-GPU shapes (``calc.deploy.parallel.shard``): heads, widths, experts, layers per
        stage."""
        from calc.deploy.parallel import shard

        return shard(self.model, tp=self.tp, pp=self.pp, ep=self.ep)

    @property
    def replicas(self) -> int:
        """Whole copies of the model (data parallel without expert parallelism)."""
        return 1 if self.ep > 1 else self.dp

    @property
    def gpus(self) -> int:
        """GPUs of the deployment: max(tp, ep) × pp × replicas."""
        return self.sharding.gpus * self.replicas

    @property
    def sequence_groups(self) -> int:
        """Groups the deployment's sequences are split into, each served by its own GPUs:
        replicas × attention-DP ranks inside an expert group."""
        return self.replicas * self.sharding.dp_attn

    # -- dtypes -----------------------------------------------------------------------------

    @cached_property
    def weight_dtypes(self) -> dict[str, str]:
        """Format of each weight component: the checkpoint's as released, the linear layers in
        ``weight_dtype`` (``calc.deploy.checkpoint.resolved_dtypes``)."""
        from calc.deploy.checkpoint import resolved_dtypes

        return resolved_dtypes(self.model, self.weight_dtype)

    @cached_property
    def weight_bytes_per_element_by_component(self) -> dict[str, float]:
        """Bytes per weight of each component, scales included (``calc.formulas.quant``)."""
        from calc.deploy.checkpoint import component_bytes_per_element

        return component_bytes_per_element(self.model, self.weight_dtype)

    @cached_property
    def weight_bytes_per_element(self) -> float:
        """Mean bytes per weight held by one GPU, each component in its own format."""
        from calc.deploy.checkpoint import weight_bytes_per_param

        return weight_bytes_per_param(self.model, self.weight_dtype, self.sharding)

    @cached_property
    def weights_bytes_per_gpu(self) -> float:
        """Weights on the busiest GPU [bytes], each component in its own format."""
        from calc.deploy.checkpoint import weight_bytes_per_gpu_by_component

        return sum(
            weight_bytes_per_gpu_by_component(self.model, self.sharding, self.weight_dtype).values()
        )

    @cached_property
    def kv_bytes_per_element(self) -> float:
        """Bytes per cached KV element, per-token-head scales included (``calc.formulas.quant``)."""
        from calc.formulas.quant import kv_bytes_per_element

        return kv_bytes_per_element(self.kv_dtype, self.layout.kv_head_width)

    @cached_property
    def state_dtype(self) -> str:
        """dtype of the Mamba conv/SSM state (``calc.formulas.ssm.ssm_state_dtype``)."""
        from calc.formulas.ssm import ssm_state_dtype

        return ssm_state_dtype(self.model, self.kv_dtype)

    @cached_property
    def state_bytes_per_element(self) -> float:
        from calc.data.dtypes import bytes_per_element

        return bytes_per_element(self.state_dtype)

    @cached_property
    def compute_dtype(self) -> str:
        """The tensor-core dtype the matmuls run at (policy in
        ``calc.deploy.rates.compute_dtype``)."""
        from calc.deploy.rates import compute_dtype

        if self.hardware is None:
            return self.compute_override or compute_dtype(self.weight_dtype, {"bf16": 1.0})
        return compute_dtype(
            self.weight_dtype, self.hardware.peak_flops_per_s, self.compute_override
        )

    # -- the engine -------------------------------------------------------------------------

    @property
    def custom_allreduce(self) -> bool:
        """Whether tensor-parallel all-reduces may use the engine's own kernels (one-shot,
        two-shot, NVLS) where the group is inside one NVLink domain: every modelled engine
        does by default; ``allreduce="nccl"`` says NCCL alone."""
        return self.engine.allreduce != "nccl"

    @property
    def engine_model(self):
        """The serving engine (``calc.deploy.engines``: its releases and their rules)."""
        from calc.deploy.engines import engine

        return engine(self.engine.name)

    @cached_property
    def engine_config(self):
        """The engine's settings with its defaults for this release and GPU filled in
        (``calc.deploy.engines.base.EngineConfig``; ``.warnings``: a release not modelled, a
        setting the release takes but may not run as sized: ``Engine.setting_notes``)."""
        from dataclasses import replace

        ec = self.engine_model.config(self.engine, self.hardware)
        notes = tuple(self.engine_model.setting_notes(self, ec))
        return replace(ec, warnings=(*ec.warnings, *notes)) if notes else ec

    # -- the ledger -------------------------------------------------------------------------

    @cached_property
    def per_gpu(self) -> PerGpu:
        """The memory ledger of the busiest GPU (``calc.deploy.ledger``); needs hardware."""
        from calc.deploy.ledger import per_gpu_ledger

        if self.hardware is None:
            raise InvalidInputError("this needs --hardware (the GPU whose memory is budgeted)")
        return per_gpu_ledger(self)

    @cached_property
    def derived(self) -> dict:
        """What the modules that time this deployment derive from its frozen fields alone,
        kept with it so that it is built once however often it is asked for (the op-level view
        of ``calc.deploy.steps.op_setup``)."""
        return {}

    def describe(self) -> str:
        """'tp 4 × pp 2' style summary of the parallel layout."""
        parts = [f"tp {self.tp}"]
        if self.pp > 1:
            parts.append(f"pp {self.pp}")
        if self.ep > 1:
            parts.append(f"ep {self.ep}")
        if self.dp > 1:
            parts.append(f"dp {self.dp}")
        return " × ".join(parts)


def _check_built(dep: Deployment, engine: EngineSettings | None,
                 hardware: HardwareProfile | None) -> None:  # fmt: skip
    """Validate a just-built deployment now, one clear error line each: its parallel layout
    against the model's shape, the engine release, the engine on the GPU, the compute dtype
    against the peaks, ROCm kernels on an AMD GPU, and the engine settings the release and
    layout can run (MoE backend, admission holds, state-pool sizes)."""
    dep.sharding  # noqa: B018 - validates tp/pp/ep against the model's shape now
    dep.engine_config  # noqa: B018 - validates the engine version
    if hardware is not None:
        _check_engine_runs_on(dep.engine.name, hardware)
        dep.compute_dtype  # noqa: B018 - validates --compute-dtype against the peaks
    if engine is not None and engine.rocm_kernels is not None and hardware is not None:
        from calc.deploy.engines.gpus import runs_rocm

        if not runs_rocm(hardware):
            raise InvalidInputError(
                f"--rocm-kernels {engine.rocm_kernels} applies to AMD GPUs; "
                f"{hardware.name} is {hardware.vendor}'s: drop it"
            )
    why = dep.engine_model.cannot_run_moe_backend(dep)
    if why is None:  # a release or layout without the stated admission settings
        why = dep.engine_model.cannot_hold_back(dep)
    if why is None:  # a release without the stated state-pool settings
        why = dep.engine_model.cannot_size_state(dep)
    if why is None:  # a KV page or KV dtype the release refuses (calc.deploy.engines.accepts)
        why = dep.engine_model.cannot_take(dep)
    if why is not None:
        raise InvalidInputError(why)


def _check_engine_runs_on(name: str, hw: HardwareProfile) -> None:
    """An InvalidInputError where the engine called ``name`` does not run on ``hw``'s GPUs
    (TensorRT-LLM on an AMD profile): its figures would describe no deployment."""
    from calc.deploy.engines import engine

    e = engine(name)
    if not e.runs_on(hw):
        raise InvalidInputError(
            f"{e.title} runs on {' or '.join(e.vendors)} GPUs only, not on {hw.name} "
            f"({hw.vendor}): choose another --engine"
        )
