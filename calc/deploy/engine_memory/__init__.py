"""The KV-cache pool [tokens, bytes per GPU] a serving engine allocates at start-up, predicted
from what a user knows before starting it: model, GPU, TP/PP, dtypes and engine settings.

``predict_kv_pool`` composes the engine's own accounting (``calc.deploy.engine_memory.vllm``,
``.sglang``, ``.trtllm``, each a set of pure functions that cite the engine source) and
returns every term: usable memory, weights, activation peak, non-torch memory, CUDA graphs,
budget, blocks, tokens and max concurrency. ``EngineConfig`` holds each engine's defaults by
version in one place (``engine_settings``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from calc.data.model_schema import ModelConfig
from calc.deploy import state_pages as _sp
from calc.deploy.engine_memory import sglang as _sg
from calc.deploy.engine_memory import trtllm as _trt
from calc.deploy.engine_memory import vllm as _vl
from calc.errors import InvalidInputError, UnknownNameError
from calc.formulas.elementwise import cdiv
from calc.output.derivation import figure

GIB = 2**30

# ---------------------------------------------------------------------------------------------
# Engine settings and their defaults, by engine and version


@dataclass(frozen=True, kw_only=True)
class EngineConfig:
    """One engine's start-up settings that size the KV pool, every default resolved (names are
    kvcalc's; the engine's own name of ``memory_fraction`` is in ``FRACTION_NAMES``). What a
    user set, with None for "the engine's default", is ``calc.deploy.deployment.EngineSettings``;
    ``Deployment.engine_config`` resolves it into this."""

    engine: str  # vllm, sglang, trtllm
    version: str
    memory_fraction: float | None  # None: the engine's automatic choice (SGLang by TP)
    block_size: int  # tokens per KV page (SGLang: page_size)
    max_batched_tokens: int  # tokens of the profiling forward pass
    max_num_seqs: int  # sequences a step may hold; rows of the sampler's profiling pass
    cuda_graphs: bool = True
    max_model_len: int | None = None  # None: the model's max_ctx
    max_tokens: int | None = None  # TensorRT-LLM KvCacheConfig.max_tokens cap
    cuda_graph_max_bs: int | None = None  # SGLang 0.5: None = its default by GPU and TP


FRACTION_NAMES = {
    "vllm": "gpu_memory_utilization",
    "sglang": "mem_fraction_static",
    "trtllm": "free_gpu_memory_fraction",
}

DEFAULTS: dict[tuple[str, str], EngineConfig] = {
    # vllm/config/cache.py (gpu_memory_utilization 0.9, block_size 16); vllm/engine/arg_utils.py
    # get_batch_defaults: API server on a >= 70 GiB GPU, 8192 batched tokens, 1024 sequences.
    ("vllm", "0.19"): EngineConfig(
        engine="vllm",
        version="0.19",
        memory_fraction=0.9,
        block_size=16,
        max_batched_tokens=8192,
        max_num_seqs=1024,
    ),
    # python/sglang/srt/server_args.py: mem_fraction_static by TP, page_size 1,
    # chunked_prefill_size 8192, max_running_requests from the pool.
    ("sglang", "0.4"): EngineConfig(
        engine="sglang",
        version="0.4",
        memory_fraction=None,
        block_size=1,
        max_batched_tokens=8192,
        max_num_seqs=1024,
    ),
    # server_args.py 0.5: mem_fraction_static from a reserve; chunked_prefill_size and
    # cuda_graph_max_bs by GPU memory (calc.deploy.engine_memory.sglang.BUCKETS_0_5; 8192 on H100)
    ("sglang", "0.5"): EngineConfig(
        engine="sglang",
        version="0.5",
        memory_fraction=None,
        block_size=1,
        max_batched_tokens=8192,
        max_num_seqs=1024,
    ),
    # tensorrt_llm/llmapi/llm_args.py: KvCacheConfig.free_gpu_memory_fraction 0.9,
    # tokens_per_block 32, max_num_tokens 8192, max_batch_size 2048.
    ("trtllm", "1.0"): EngineConfig(
        engine="trtllm",
        version="1.0",
        memory_fraction=0.9,
        block_size=32,
        max_batched_tokens=8192,
        max_num_seqs=2048,
    ),
}
LATEST = {"vllm": "0.19", "sglang": "0.5", "trtllm": "1.0"}

# vllm/engine/arg_utils.py EngineArgs.get_batch_defaults: GPUs with >= 70 GiB that are not
# A100s get (max_num_batched_tokens, max_num_seqs) = (8192, 1024) for the API server and
# (16384, 1024) for the offline LLM class; every other GPU (2048, 256) and (8192, 256).
VLLM_LARGE_GPU_BYTES = 70 * GIB
VLLM_BATCH_DEFAULTS = {
    (True, "api_server"): (8192, 1024),
    (True, "llm_class"): (16384, 1024),
    (False, "api_server"): (2048, 256),
    (False, "llm_class"): (8192, 256),
}


def vllm_batch_defaults(device_memory_bytes: int, device_name: str, entrypoint="api_server"):
    """vLLM's default (max_num_batched_tokens, max_num_seqs) on a GPU (get_batch_defaults)."""
    large = device_memory_bytes >= VLLM_LARGE_GPU_BYTES and "a100" not in device_name.lower()
    return VLLM_BATCH_DEFAULTS[(large, entrypoint)]


def engine_settings(
    engine: str, version: str | None = None, *, hw=None, entrypoint="api_server", **overrides
) -> EngineConfig:
    """``engine``'s defaults at ``version`` (default: the latest modelled), for the GPU ``hw``
    where the engine's defaults depend on it (vLLM's batch sizes), with ``overrides``
    (keyword = EngineConfig field; None values are ignored)."""
    if engine not in LATEST:
        raise UnknownNameError("engine", engine, LATEST)
    version = version or LATEST[engine]
    key = (engine, version)
    if key not in DEFAULTS:
        versions = [v for e, v in DEFAULTS if e == engine]
        raise UnknownNameError(f"{engine} version", version, versions)
    if entrypoint not in ("api_server", "llm_class"):
        raise InvalidInputError(f"entrypoint must be api_server or llm_class, got {entrypoint!r}")
    base = DEFAULTS[key]
    if engine == "vllm" and (hw is not None or entrypoint != "api_server"):
        memory = usable_memory_bytes(hw) if hw is not None else VLLM_LARGE_GPU_BYTES
        name = f"{getattr(hw, 'name', '')} {getattr(hw, 'display_name', '')}"
        tokens, seqs = vllm_batch_defaults(memory, name, entrypoint)
        base = replace(base, max_batched_tokens=tokens, max_num_seqs=seqs)
    if key == ("sglang", "0.5") and hw is not None:
        chunk, _ = _sg.bucket_defaults_0_5(usable_memory_bytes(hw) / _sg.MIB, 1)
        base = replace(base, max_batched_tokens=chunk)
    given = {k: v for k, v in overrides.items() if v is not None}
    return replace(base, **given)


# ---------------------------------------------------------------------------------------------
# Usable memory and checkpoint weights: the two inputs other work will refine


# Memory as torch reports it (``torch.cuda.mem_get_info`` total), which engines budget from;
# the label minus what the driver and ECC reserve. Used when a hardware profile has no
# ``usable_memory_bytes`` of its own.
def usable_memory_bytes(hw) -> int:
    """Device memory an engine budgets from [bytes]: what torch reports as the device's total
    (the profile's ``usable_memory_bytes``, sourced per profile), else the label capacity."""
    return int(hw.budget_memory_bytes)


def checkpoint_weights_bytes_per_gpu(cfg: ModelConfig, tp: int, pp: int, weight_dtype: str):
    """Weights on the busiest GPU [bytes] as the engine loads them: each component in its
    checkpoint format, ``weight_dtype`` re-quantising the linear layers while embeddings,
    lm_head, norms and router keep theirs (``calc.deploy.checkpoint``; fp8 and compressed-tensors
    checkpoints list lm_head among the ignored modules, vLLM and SGLang never quantize
    embeddings)."""
    from calc.deploy.checkpoint import weight_bytes_per_gpu_by_component
    from calc.deploy.parallel import shard

    return sum(
        weight_bytes_per_gpu_by_component(cfg, shard(cfg, tp=tp, pp=pp), weight_dtype).values()
    )


# ---------------------------------------------------------------------------------------------
# The model's numbers the engine formulas take


@dataclass(frozen=True)
class KvShape:
    """One GPU's KV layout as the engine pages it."""

    bytes_per_token_per_layer: float  # one token, one attention layer, this GPU's heads
    layer_slots: int  # layers (or hybrid layer slots) that get one page per block
    n_groups: int  # KV cache groups (1 unless hybrid)
    full_groups: int
    sliding_groups: int
    window: int | None  # sliding window [tokens]
    n_kv_layers: int  # attention layers holding KV on this GPU
    mamba_groups: int = 0  # groups of Mamba layers (one page of state per request each)
    mamba_state_bytes_per_layer: float = 0  # one request's conv + SSM state in one layer
    n_mamba_layers: int = 0

    @property
    def bytes_per_token(self) -> float:
        """One token over all of this GPU's KV layers [bytes]."""
        return self.bytes_per_token_per_layer * self.n_kv_layers


def kv_shape(cfg: ModelConfig, tp: int, pp: int, kv_bytes_per_element: float) -> KvShape:
    """Per-GPU KV shape of ``cfg`` under tp × pp (heads split or replicated, MLA whole; the
    busiest stage's layers; full, sliding and Mamba layers counted apart for vLLM's hybrid
    allocator)."""
    # per token per layer: K/V heads, MLA latent, sparse attention's index key (state_pages)
    per_layer = _sp.attention_bytes_per_token_per_layer(cfg, tp, kv_bytes_per_element)
    stage = cdiv(cfg.n_layers, pp)
    kinds = cfg.layers[:stage]
    n_full = sum(1 for k in kinds if k == "full")
    n_slide = sum(1 for k in kinds if k in ("sliding", "chunked"))
    n_mamba = _sp.state_layers(kinds)  # Mamba, Mamba-2 and gated DeltaNet layers
    window = cfg.sliding_window or cfg.attention_chunk_size
    if n_full + n_slide == 0:
        raise InvalidInputError(f"{cfg.name} has no attention layer on a GPU: no KV pool to size")
    state = _sp.state_bytes_per_layer(cfg, tp, kinds)
    counts = [n for n in (n_full, n_slide, n_mamba) if n]
    size = _vl.hybrid_group_size(counts) if len(counts) > 1 else counts[0]
    full_groups = _vl.hybrid_groups([n_full], size) if n_full else 0
    sliding_groups = _vl.hybrid_groups([n_slide], size) if n_slide else 0
    mamba_groups = _vl.hybrid_groups([n_mamba], size) if n_mamba else 0
    return KvShape(
        per_layer,
        size,
        full_groups + sliding_groups + mamba_groups,
        full_groups,
        sliding_groups,
        window if n_slide else None,
        n_full + n_slide,
        mamba_groups,
        state,
        n_mamba,
    )


def layer_width_per_gpu(cfg: ModelConfig, tp: int) -> int:
    """Elements one token keeps alive in the widest layer on one GPU (bf16 temporaries, freed
    after the layer): gated FFN 3·d_ffn (gate+up, activated), plain FFN 2·d_ffn, a MoE layer's
    shared experts the same; attention 2·Q + K + V (Q and the attention output). The routed
    experts' buffers are the MoE workspace, counted apart (they are kept)."""
    live = 3 if cfg.ffn_kind == "gated" else 2
    widths = [0]
    if cfg.n_dense_ffn_layers:
        widths.append(live * cdiv(cfg.d_ffn, tp))
    if cfg.moe is not None:
        widths.append(cfg.moe.n_shared_experts * live * cdiv(cfg.moe.shared_ffn, tp))
    q = cfg.n_heads // tp * cfg.k_head_dim
    kv = cdiv(cfg.n_kv_heads, tp) * (cfg.k_head_dim + cfg.v_head_dim)
    widths.append(2 * q + kv)
    return max(widths)


# ---------------------------------------------------------------------------------------------
# The prediction


@dataclass(frozen=True)
class PoolPrediction:
    """Every term of one engine's KV pool on the busiest GPU (bytes unless named)."""

    engine: str
    version: str
    memory_fraction: float
    usable_memory_bytes: int  # what torch reports for the device
    weights_bytes: float
    activation_bytes: float  # torch peak of the profiling pass (0 where not subtracted)
    non_torch_bytes: float
    cuda_graph_bytes: float  # subtracted before the pool (0: captured after it, in the slack)
    kv_budget_bytes: float
    kv_bytes_per_token: float  # one token over this GPU's KV layers
    page_size_bytes: float  # one block of one layer
    num_blocks: int
    tokens: int  # the pool the engine prints
    max_concurrency: float  # requests of max_model_len tokens at once
    max_model_len: int
    block_size: int  # tokens per block as the engine runs it (vLLM raises it for Mamba pages)
    sources: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    figures: list = field(default_factory=list)  # calc.output.derivation.Figure, for --explain
    paging: VllmPaging | None = None  # vLLM's block accounting per request (None: by tokens)

    @property
    def kv_pool_bytes(self) -> float:
        """Bytes the pool's tokens take [bytes] (the budget less the rounding to blocks)."""
        return self.tokens * self.kv_bytes_per_token


@dataclass(frozen=True)
class VllmPaging:
    """How vLLM's block pool serves requests: ``num_blocks`` blocks, each ``block_bytes`` (one
    page per layer slot of a KV cache group); a request of ctx tokens takes, per full-attention
    group, ceil(ctx / block_size) blocks, per sliding-window group its window plus one prefill
    chunk (``vllm.sliding_window_blocks_per_request``), per Mamba group one block."""

    num_blocks: int
    block_bytes: float
    block_size: int
    full_groups: int
    sliding_groups: int
    mamba_groups: int
    window: int | None
    max_batched_tokens: int

    def blocks_per_request(self, ctx):
        """Blocks one request of ``ctx`` tokens holds (ctx may be a numpy array)."""
        blocks = self.full_groups * _vl.full_attention_blocks_per_request(ctx, self.block_size)
        if self.sliding_groups:
            blocks = blocks + self.sliding_groups * _vl.sliding_window_blocks_per_request(
                self.window, self.max_batched_tokens, ctx, self.block_size
            )
        return blocks + self.mamba_groups * _vl.MAMBA_BLOCKS_PER_REQUEST


SOURCES = {
    "vllm": {
        "usable_memory": "torch.cuda.mem_get_info total (gpu_worker.py init_device)",
        "weights": "model load (gpu_model_runner.py load_model: 'Model loading took')",
        "activation": "gpu_model_runner.py profile_run + _dummy_sampler_run (torch peak)",
        "non_torch": "gpu_worker.py determine_available_memory (non-torch increase)",
        "cuda_graphs": "captured after the pool (gpu_worker.py compile_or_warm_up_model)",
        "budget": "gpu_worker.py determine_available_memory (requested − non-KV)",
        "blocks": "v1/core/kv_cache_utils.py (budget // page_size // num_layers)",
        "tokens": "v1/core/kv_cache_utils.py ('GPU KV cache size')",
    },
    "sglang": {
        "usable_memory": "torch.cuda.mem_get_info (utils.get_available_gpu_memory)",
        "weights": "model_runner.py load_model",
        "activation": "not subtracted: fits in 1 − mem_fraction_static",
        "non_torch": "free memory after load (model_runner.py profile_max_num_token)",
        "cuda_graphs": "captured after the pool, in 1 − mem_fraction_static",
        "budget": "model_runner.py profile_max_num_token (rest_memory)",
        "blocks": "page_size tokens per page (server_args.py)",
        "tokens": "model_runner.py profile_max_num_token (rest // cell_size)",
    },
    "trtllm": {
        "usable_memory": "cudaMemGetInfo total",
        "weights": "model load",
        "activation": "profiling forward pass before the KV cache (reference/memory.md)",
        "non_torch": "CUDA context, NCCL",
        "cuda_graphs": "captured after the pool",
        "budget": "llm_args.py KvCacheConfig.free_gpu_memory_fraction × free memory",
        "blocks": "kvCacheManager.cpp (tokens_per_block)",
        "tokens": "kvCacheManager.cpp (min of fraction and max_tokens, whole blocks)",
    },
}


def _sglang_auto_fraction(settings: EngineConfig, usable: int, tp: int, pp: int) -> float:
    """SGLang's own choice of mem_fraction_static for ``settings.version``."""
    if settings.version == "0.4":
        return _sg.auto_mem_fraction_static(tp)
    gpu_mem = usable / _sg.MIB
    chunk, graph_bs = _sg.bucket_defaults_0_5(gpu_mem, tp)
    reserved = _sg.reserved_memory_mib(
        gpu_mem, settings.max_batched_tokens or chunk, settings.cuda_graph_max_bs or graph_bs,
        tp, pp,
    )  # fmt: skip
    return _sg.auto_mem_fraction_static_0_5(gpu_mem, reserved)


def predict_kv_pool(
    cfg: ModelConfig,
    hw,
    *,
    settings: EngineConfig,
    tp: int = 1,
    pp: int = 1,
    weight_dtype: str | None = None,
    kv_bytes_per_element: float = 2.0,
    weights_bytes: float | None = None,
    activation_bytes: float | None = None,
    non_torch_bytes: float | None = None,
    usable_bytes: int | None = None,
) -> PoolPrediction:
    """The KV pool ``settings.engine`` allocates on the busiest GPU of ``cfg`` on ``hw`` at
    tp × pp. ``weights_bytes``, ``activation_bytes`` and ``non_torch_bytes`` replace the
    modelled terms when given (a calibration measured on the user's machine)."""
    from calc.data.limits import MAX_CTX, check_positive_int

    for name, value, upper in (
        ("tp", tp, 4096),
        ("pp", pp, 4096),
        ("block-size", settings.block_size, 1 << 20),
        ("max-batched-tokens", settings.max_batched_tokens, MAX_CTX),
        ("max-num-seqs", settings.max_num_seqs, MAX_CTX),
        ("max-model-len", settings.max_model_len or cfg.max_ctx, MAX_CTX),
    ):
        check_positive_int(name, value, upper)
    fraction_given = settings.memory_fraction
    if fraction_given is not None and not 0 < fraction_given <= 1:
        raise InvalidInputError(
            f"{FRACTION_NAMES[settings.engine]} must be a fraction in (0, 1], got {fraction_given}"
        )
    weight_dtype = weight_dtype or cfg.dtype
    usable = usable_memory_bytes(hw) if usable_bytes is None else usable_bytes
    if weights_bytes is None:
        weights_bytes = checkpoint_weights_bytes_per_gpu(cfg, tp, pp, weight_dtype)
    shape = kv_shape(cfg, tp, pp, kv_bytes_per_element)
    max_model_len = settings.max_model_len or cfg.max_ctx
    tokens_pass = settings.max_batched_tokens
    rows = min(settings.max_num_seqs, tokens_pass)
    workspace = 0
    if cfg.moe is not None:
        workspace = _vl.moe_workspace_bytes(
            tokens_pass, cfg.moe.experts_per_token, cdiv(cfg.moe.d_expert_ffn, tp), cfg.d_model
        )
    modelled_activation = _vl.activation_peak_bytes(
        tokens_pass, cfg.d_model, layer_width_per_gpu(cfg, tp), rows, cfg.vocab_size, workspace
    )
    if non_torch_bytes is None:
        non_torch_bytes = _vl.non_torch_bytes(tp)
    block_size = settings.block_size
    if cfg.indexer is not None:  # sparse MLA and indexer kernels page 64 tokens at a time
        block_size = _sp.sparse_block_size(block_size)
    warnings: list[str] = []
    engine = settings.engine
    if shape.n_mamba_layers and engine == "vllm":
        block_size = _vl.mamba_attention_block_size(
            block_size, shape.mamba_state_bytes_per_layer, shape.bytes_per_token_per_layer
        )
    elif shape.n_mamba_layers:
        warnings.append(
            f"{engine}'s Mamba state pool is not modelled: the pool counts attention KV only"
        )
    page = _vl.page_size_bytes(block_size, shape.bytes_per_token_per_layer)
    paging = None
    if engine == "vllm":
        fraction = settings.memory_fraction or DEFAULTS[("vllm", "0.19")].memory_fraction
        act = modelled_activation if activation_bytes is None else activation_bytes
        budget = _vl.available_kv_bytes(
            _vl.requested_memory_bytes(usable, fraction), weights_bytes, act, non_torch_bytes
        )
        blocks = int(_vl.num_blocks(budget, page, shape.layer_slots))
        tokens = int(_vl.pool_tokens(blocks, shape.n_groups, block_size))
        per_request = shape.full_groups * _vl.full_attention_blocks_per_request(
            max_model_len, block_size
        )
        if shape.sliding_groups:
            per_request += shape.sliding_groups * _vl.sliding_window_blocks_per_request(
                shape.window, tokens_pass, max_model_len, block_size
            )
        per_request += shape.mamba_groups * _vl.MAMBA_BLOCKS_PER_REQUEST
        concurrency = _vl.max_concurrency(blocks, per_request)
        paging = VllmPaging(
            num_blocks=blocks,
            block_bytes=page * shape.layer_slots,
            block_size=block_size,
            full_groups=shape.full_groups,
            sliding_groups=shape.sliding_groups,
            mamba_groups=shape.mamba_groups,
            window=shape.window,
            max_batched_tokens=tokens_pass,
        )
    elif engine == "sglang":
        fraction = settings.memory_fraction or _sglang_auto_fraction(settings, usable, tp, pp)
        act = 0.0 if activation_bytes is None else activation_bytes
        budget = _sg.rest_memory_bytes(usable, fraction, weights_bytes + act, non_torch_bytes)
        tokens = int(_sg.max_total_num_tokens(budget, shape.bytes_per_token, block_size))
        pool_all_layers = tokens
        stage = cfg.layers[: cdiv(cfg.n_layers, pp)]
        n_full = sum(1 for k in stage if k == "full")
        n_swa = sum(1 for k in stage if k in ("sliding", "chunked"))
        if n_full and n_swa:  # the hybrid SWA pool reports its full-attention layers' tokens
            full, _ = _sg.swa_pool_tokens(tokens, n_full + n_swa, n_full, n_swa)
            tokens = full // block_size * block_size
        blocks = tokens // block_size
        concurrency = tokens / max_model_len
    elif engine == "trtllm":
        fraction = settings.memory_fraction or DEFAULTS[("trtllm", "1.0")].memory_fraction
        act = modelled_activation if activation_bytes is None else activation_bytes
        free = _trt.free_memory_bytes(usable, weights_bytes, act, non_torch_bytes)
        budget = free * fraction
        by_fraction = _trt.fraction_tokens(
            free, fraction, shape.bytes_per_token, settings.block_size
        )
        tokens = int(_trt.capped_tokens(by_fraction, settings.max_tokens, settings.block_size))
        blocks = tokens // settings.block_size
        concurrency = tokens / (cdiv(max_model_len, settings.block_size) * settings.block_size)
    else:
        raise UnknownNameError("engine", engine, LATEST)
    figures = []
    if activation_bytes is None and engine != "sglang":
        figures.append(
            figure(
                "activation_bytes",
                act,
                "bytes",
                "2 × {tokens} × {d_model} × 2 + {moe_workspace} + max({tokens} × "
                "{layer_width} × 2, {rows} × {vocab_size} × {bytes_per_logit})",
                tokens=tokens_pass,
                d_model=cfg.d_model,
                moe_workspace=workspace,
                layer_width=layer_width_per_gpu(cfg, tp),
                rows=rows,
                vocab_size=cfg.vocab_size,
                bytes_per_logit=_vl.SAMPLER_BYTES_PER_LOGIT,
            )
        )
    budget_formula = {
        "vllm": "{usable} × {fraction} − {weights} − {activation} − {non_torch}",
        "sglang": "{usable} × {fraction} − {weights} − {activation} − {non_torch}",
        "trtllm": "{fraction} × ({usable} − {weights} − {activation} − {non_torch})",
    }[engine]
    figures.append(
        figure(
            "kv_budget_bytes",
            budget,
            "bytes",
            budget_formula,
            usable=usable,
            fraction=fraction,
            weights=weights_bytes,
            activation=act,
            non_torch=non_torch_bytes,
        )
    )
    if engine == "vllm":
        figures += [
            figure(
                "num_blocks",
                blocks,
                "blocks",
                "max({budget}, 0) // {page} // {layer_slots}",
                budget=int(budget),
                page=page,
                layer_slots=shape.layer_slots,
            ),
            figure(
                "tokens",
                tokens,
                "tokens",
                "{blocks} // {groups} × {block_size}",
                blocks=blocks,
                groups=shape.n_groups,
                block_size=block_size,
            ),
            figure(
                "max_concurrency",
                concurrency,
                "requests",
                "{blocks} / {blocks_per_request}",
                blocks=blocks,
                blocks_per_request=per_request,
            ),
        ]
    elif engine == "sglang":
        one_pool = figure(
            "tokens",
            pool_all_layers,
            "tokens",
            "max({budget}, 0) // {cell_size} // {page_size} × {page_size}",
            budget=int(budget),
            cell_size=shape.bytes_per_token,
            page_size=block_size,
        )
        if tokens == pool_all_layers:
            figures.append(one_pool)
        else:  # the hybrid SWA pool: the full layers' share (calc.deploy.engine_memory.sglang)
            figures.append(
                figure(
                    "tokens",
                    tokens,
                    "tokens",
                    "floor({pool} × {layers} / ({ratio} × {swa_layers} + {full_layers}) "
                    "/ {page_size}) × {page_size}",
                    pool=pool_all_layers,
                    layers=n_full + n_swa,
                    ratio=_sg.SWA_FULL_TOKENS_RATIO,
                    swa_layers=n_swa,
                    full_layers=n_full,
                    page_size=block_size,
                )
            )
    else:
        figures.append(
            figure(
                "tokens",
                tokens,
                "tokens",
                "min({by_fraction}, {max_tokens_in_blocks})"
                if settings.max_tokens
                else "{by_fraction}",
                by_fraction=by_fraction,
                max_tokens_in_blocks=cdiv(settings.max_tokens or 0, settings.block_size)
                * settings.block_size,
            )
        )
    return PoolPrediction(
        engine=engine,
        version=settings.version,
        memory_fraction=fraction,
        usable_memory_bytes=usable,
        weights_bytes=weights_bytes,
        activation_bytes=act,
        non_torch_bytes=non_torch_bytes,
        cuda_graph_bytes=0.0,
        kv_budget_bytes=budget,
        kv_bytes_per_token=shape.bytes_per_token,
        page_size_bytes=page,
        num_blocks=blocks,
        tokens=tokens,
        max_concurrency=concurrency,
        max_model_len=max_model_len,
        block_size=block_size,
        sources=SOURCES[engine],
        warnings=warnings,
        figures=figures,
        paging=paging if engine == "vllm" else None,
    )
