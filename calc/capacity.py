"""KV-cache capacity of a deployment: the KV budget [bytes] on its most loaded GPU, the pool it
holds [tokens], concurrent sequences at a context [sequences], and paged vs contiguous waste.

KV budget = usable memory − weights − runtime reserve, per GPU, where the reserve is the
activation peak of one forward pass over the max batched tokens plus framework overhead (CUDA
context, NCCL, allocator); how an engine combines them is in ``calc.engines``. Under tensor
parallelism each GPU holds ``max(1, n_kv_heads // tp)`` KV heads (heads are replicated when
tp > n_kv_heads, as vLLM does); MLA caches one latent per token per layer that every TP rank
holds whole. Under pipeline parallelism the most loaded stage holds ``ceil(n_layers / pp)``
layers. Paged allocation rounds each sequence up to whole blocks of ``block_size`` tokens;
contiguous preallocation reserves ``max_model_len`` tokens per sequence.

The formula functions take plain numbers or numpy arrays (``calc.sweep`` evaluates a grid with
them); ``capacity_report`` composes them for one deployment and carries each derivation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from calc.attention_layout import AttentionLayout, attention_layout
from calc.checkpoint import linear_dtype, weight_bytes_per_param
from calc.derivation import Figure, figure, whole
from calc.elementwise import cdiv, maximum, minimum
from calc.engines import ENGINES, engine_kv_budget_bytes
from calc.errors import InvalidInputError
from calc.hardware_schema import HardwareProfile
from calc.memory import MAX_BATCH, MAX_CTX, check_positive_int, max_ctx_within
from calc.model_schema import ModelConfig
from calc.quant import kv_bytes_per_element

ACTIVATION_BYTES = 2  # activations run in bf16/fp16 whatever the weight dtype
DEFAULT_MEM_UTIL = 0.9
DEFAULT_BLOCK_SIZE = 16  # vLLM's default block (tokens per KV page)
# vLLM's default max_num_batched_tokens for its API server on >= 70 GiB GPUs
# (vllm/engine/arg_utils.py, get_batch_defaults); its profiling pass runs this many tokens.
DEFAULT_MAX_BATCHED_TOKENS = 8192
# vLLM's default max_num_seqs on >= 70 GiB GPUs: the profiling pass samples this many rows of
# fp32 logits (min(max_num_seqs, max_num_batched_tokens)).
LOGIT_ROWS = 1024
LOGIT_BYTES = 4
DEFAULT_OVERHEAD_BYTES = 2**29  # 0.5 GiB non-torch memory (CUDA context, NCCL) per GPU


# ---------------------------------------------------------------------------------------------
# Formulas (plain numbers or numpy arrays)


def usable_memory_bytes(memory_bytes, mem_util):
    """Memory an engine may use on one GPU [bytes]: memory × fraction."""
    return memory_bytes * mem_util


def kv_heads_per_gpu(n_kv_heads, tp):
    """KV heads one TP rank caches: max(1, n_kv_heads // tp) (replicated when tp > heads)."""
    return maximum(n_kv_heads // tp, 1)


def layers_on_most_loaded_stage(n_layers, pp):
    """Layers the fullest pipeline stage holds: ceil(n_layers / pp)."""
    return cdiv(n_layers, pp)


def weights_params_per_gpu(cfg: ModelConfig, tp: int, pp: int) -> int:
    """Parameters on the most loaded GPU: ``calc.parallel.params_per_gpu`` (its stage's
    layers, its TP shard of each, the norms and router it replicates, the vocabulary tables
    it holds) — the same figure `kvcalc latency` uses."""
    from calc.parallel import params_per_gpu, shard

    return params_per_gpu(cfg, shard(cfg, tp=tp, pp=pp))


def weights_bytes_per_gpu(cfg: ModelConfig, tp: int, pp: int, bpe) -> float:
    """Weights on the most loaded GPU [bytes]: its parameters × bytes per parameter."""
    return weights_params_per_gpu(cfg, tp, pp) * bpe


def activation_peak_bytes(
    tokens, d_model, attn_width, ffn_width, tp, vocab_size, logit_rows=LOGIT_ROWS
):
    """Activation peak of one forward pass over ``tokens`` batched tokens [bytes] (estimate).

    Live at the widest point of a layer: the residual stream and the normed hidden state
    (2 × d_model) plus the wider of the attention projections (``attn_width``: Q, K, V and the
    attention output) and the FFN intermediates (``ffn_width``: gate+up and the activated
    product, 3 × d_ffn gated, 2 × d_ffn plain), TP-split, in bf16 (2 bytes); plus the sampler's
    fp32 logits for min(logit_rows, tokens) rows of vocab_size / tp. Layers run one at a time,
    so this does not grow with depth. This is a lower bound of what an engine measures: vLLM's
    profiling peak also holds the sampler's temporaries (softmax, sorting for top-p) and
    compilation buffers, e.g. 4.76 GiB logged for Llama-3.1-8B on an H100 (llm-d-benchmark,
    config_explorer/empirical-vllm-memory-results.md) where this estimate gives 1.27 GiB.
    Pass the logged "peak activation" as ``--activation`` to match a running engine.
    """
    rows = minimum(logit_rows, tokens)
    per_token = 2 * d_model + maximum(attn_width, ffn_width) / tp
    return tokens * per_token * ACTIVATION_BYTES + rows * vocab_size / tp * LOGIT_BYTES


def kv_budget_bytes(usable_bytes, weights_bytes, activation_bytes, overhead_bytes):
    """KV budget per GPU [bytes]: usable − weights − activation peak − framework overhead."""
    return usable_bytes - weights_bytes - activation_bytes - overhead_bytes


def paged_tokens(ctx, block_size):
    """Tokens a paged cache reserves for a sequence of ``ctx`` tokens: whole blocks."""
    return cdiv(ctx, block_size) * block_size


def pool_units(budget_bytes, unit_bytes):
    """Whole units (blocks, sequences) of ``unit_bytes`` that fit in ``budget_bytes``; 0 if the
    budget is negative."""
    return maximum(budget_bytes, 0) // unit_bytes


def waste_bytes(reserved_tokens, used_tokens, kv_bytes_per_token):
    """Reserved but unused KV [bytes]: (reserved − used) tokens × bytes per token."""
    return (reserved_tokens - used_tokens) * kv_bytes_per_token


# ---------------------------------------------------------------------------------------------
# Model shape -> the numbers the formulas take


@dataclass(frozen=True)
class Shape:
    """The few numbers of a model the capacity formulas need (plain ints)."""

    d_model: int
    attn_width: int
    ffn_width: int
    vocab_size: int


def model_shape(cfg: ModelConfig) -> Shape:
    v_heads = cfg.n_heads if cfg.mla is not None else cfg.n_kv_heads
    # Q + K + V + attention output, per token (MLA prefill expands the latent to full K and V)
    attn = cfg.n_heads * cfg.k_head_dim + v_heads * (cfg.k_head_dim + cfg.v_head_dim)
    attn += cfg.n_heads * cfg.v_head_dim
    live = 3 if cfg.ffn_kind == "gated" else 2
    ffn = cfg.d_ffn if cfg.n_dense_ffn_layers else 0
    if cfg.moe is not None:
        m = cfg.moe
        ffn = max(ffn, m.experts_per_token * m.d_expert_ffn + m.n_shared_experts * m.shared_ffn)
    return Shape(
        d_model=cfg.d_model,
        attn_width=attn,
        ffn_width=live * ffn,
        vocab_size=cfg.vocab_size,
    )


class PerGpuLayout:
    """The KV one GPU holds: the layout's own per-sequence bytes (window-aware where the layout
    is) scaled by the GPU's share of KV heads and layers. Adds no KV formula of its own."""

    def __init__(self, layout: AttentionLayout, tp, pp):
        self.layout = layout
        self.heads = kv_heads_per_gpu(layout.n_kv_heads, tp)
        self.layers = layers_on_most_loaded_stage(layout.n_layers, pp)

    def kv_bytes_per_sequence(self, ctx, bytes_per_element):
        whole_model = self.layout.kv_bytes_per_sequence(ctx, bytes_per_element)
        return (
            whole_model * self.heads * self.layers / (self.layout.n_kv_heads * self.layout.n_layers)
        )


# ---------------------------------------------------------------------------------------------
# One deployment


@dataclass(frozen=True)
class CapacityReport:
    fields: dict
    figures: list[Figure]
    warnings: list[str] = field(default_factory=list)


def _check_fraction(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise InvalidInputError(f"--{name} must be a fraction in (0, 1], got {value!r}")


def capacity_report(
    cfg: ModelConfig,
    hw: HardwareProfile,
    *,
    ctx: int,
    batch: int = 1,
    tp: int = 1,
    pp: int = 1,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    engine: str = "vllm",
    mem_util: float = DEFAULT_MEM_UTIL,
    block_size: int = DEFAULT_BLOCK_SIZE,
    max_batched_tokens: int = DEFAULT_MAX_BATCHED_TOKENS,
    activation_bytes: int | None = None,
    overhead_bytes: int = DEFAULT_OVERHEAD_BYTES,
    max_model_len: int | None = None,
    shared_prefix: int | None = None,
    users: int | None = None,
    layout: AttentionLayout | None = None,
) -> CapacityReport:
    """KV budget, pool, concurrency, max context and paging waste of one deployment."""
    check_positive_int("ctx", ctx, MAX_CTX)
    check_positive_int("batch", batch, MAX_BATCH)
    check_positive_int("tp", tp, 4096)
    check_positive_int("pp", pp, 4096)
    check_positive_int("block-size", block_size, 1 << 20)
    check_positive_int("max-batched-tokens", max_batched_tokens, MAX_CTX)
    _check_fraction("mem-util", mem_util)
    if engine not in ENGINES:
        from calc.errors import UnknownNameError

        raise UnknownNameError("engine", engine, ENGINES)
    if pp > cfg.n_layers:
        raise InvalidInputError(f"--pp {pp} exceeds {cfg.name}'s {cfg.n_layers} layers")
    max_model_len = max_model_len or cfg.context_limit
    warnings: list[str] = []
    if ctx > cfg.context_limit:
        warnings.append(f"--ctx {ctx:,} exceeds {cfg.name}'s max context of {cfg.context_limit:,}")
    check_positive_int("max-model-len", max_model_len, MAX_CTX)
    if ctx > max_model_len:
        warnings.append(
            f"--ctx {ctx:,} exceeds the max model length {max_model_len:,}; contiguous "
            f"preallocation is sized for --max-model-len {ctx:,} instead"
        )
        max_model_len = ctx
    # each component in its checkpoint format (calc.checkpoint), scales included
    weight_dtype = linear_dtype(cfg, weight_dtype)
    kv_dtype = (cfg.kv_dtype or cfg.dtype) if kv_dtype is None else kv_dtype
    layout = layout or attention_layout(cfg)
    from calc.parallel import shard

    w_b = weight_bytes_per_param(cfg, weight_dtype, shard(cfg, tp=tp, pp=pp))
    kv_b = kv_bytes_per_element(kv_dtype, layout.kv_head_width)
    shape = model_shape(cfg)
    gpu = PerGpuLayout(layout, tp, pp)
    if layout.kind != "mla" and layout.n_kv_heads % tp and tp % layout.n_kv_heads:
        warnings.append(
            f"--tp {tp} does not divide {cfg.name}'s {layout.n_kv_heads} KV heads (engines "
            "refuse this split); the most loaded GPU is assumed to hold "
            f"{gpu.heads} heads"
        )

    weights = whole(weights_bytes_per_gpu(cfg, tp, pp, w_b))
    estimated = activation_bytes is None
    if estimated:
        activation_bytes = whole(
            activation_peak_bytes(
                max_batched_tokens,
                shape.d_model,
                shape.attn_width,
                shape.ffn_width,
                tp,
                shape.vocab_size,
            )
        )
    usable = whole(usable_memory_bytes(hw.memory_bytes, mem_util))
    # floored to whole bytes, as vLLM's int(available_kv_cache_memory)
    budget = math.floor(
        engine_kv_budget_bytes(
            engine, hw.memory_bytes, mem_util, weights, activation_bytes, overhead_bytes
        )
    )
    per_token = whole(gpu.kv_bytes_per_sequence(1, kv_b))
    block_bytes = whole(gpu.kv_bytes_per_sequence(block_size, kv_b))
    blocks = int(pool_units(budget, block_bytes))
    pool_tokens = blocks * block_size
    seq_tokens = paged_tokens(ctx, block_size)
    seq_bytes = whole(gpu.kv_bytes_per_sequence(seq_tokens, kv_b))
    concurrency = int(pool_units(budget, seq_bytes))
    cont_bytes = whole(gpu.kv_bytes_per_sequence(max_model_len, kv_b))
    concurrency_contiguous = int(pool_units(budget, cont_bytes))
    # largest ctx whose whole blocks, times batch, fit the budget
    fit_tokens = max_ctx_within(gpu, kv_b, max(budget, 0) / batch)  # type: ignore[arg-type]
    # capped at the model's context limit (RoPE scaling, max_position_embeddings)
    max_ctx_at_batch = min(fit_tokens // block_size * block_size, cfg.context_limit)
    paged_waste = whole(waste_bytes(seq_tokens, ctx, per_token))
    contiguous_waste = whole(waste_bytes(max_model_len, ctx, per_token))

    eng = ENGINES[engine]
    fields: dict = {
        "model": cfg.name,
        "hardware": hw.name,
        "engine": engine,
        "tp": tp,
        "pp": pp,
        "gpus": tp * pp,
        "weight_dtype": weight_dtype,
        "kv_dtype": kv_dtype,
        "ctx": ctx,
        "batch": batch,
        "block_size": block_size,
        "mem_util": mem_util,
        "memory_bytes": hw.memory_bytes,
        "usable_memory_bytes": usable,
        "weights_bytes_per_gpu": weights,
        "activation_peak_bytes": activation_bytes,
        "overhead_bytes": overhead_bytes,
        "kv_budget_bytes": budget,
        "kv_bytes_per_token": per_token,
        "kv_block_bytes": block_bytes,
        "kv_cache_blocks": blocks,
        "kv_cache_tokens": pool_tokens,
        "kv_bytes_per_sequence": seq_bytes,
        "max_concurrency": concurrency,
        "fits": batch <= concurrency,
        "max_ctx_at_batch": max_ctx_at_batch,
        "max_model_len": max_model_len,
        "max_concurrency_contiguous": concurrency_contiguous,
        "paged_waste_bytes_per_sequence": paged_waste,
        "contiguous_waste_bytes_per_sequence": contiguous_waste,
        "paged_waste_bytes": paged_waste * concurrency,
        "contiguous_waste_bytes": contiguous_waste * concurrency_contiguous,
    }
    act_formula = (
        "{tokens} × (2 × {d_model} + max({attn_width}, {ffn_width}) / {tp}) × 2 "
        "+ min(1024, {tokens}) × {vocab} / {tp} × 4"
    )
    figs = [
        figure(
            "weights_bytes_per_gpu",
            weights,
            "bytes",
            "{params} params on the busiest GPU (tp {tp}, pp {pp}) × {bytes}",
            params=weights_params_per_gpu(cfg, tp, pp),
            tp=tp,
            pp=pp,
            bytes=w_b,
        ),
        figure(
            "activation_peak_bytes",
            activation_bytes,
            "bytes",
            act_formula,
            tokens=max_batched_tokens,
            d_model=shape.d_model,
            attn_width=shape.attn_width,
            ffn_width=shape.ffn_width,
            tp=tp,
            vocab=shape.vocab_size,
        )
        if estimated
        else Figure("activation_peak_bytes", activation_bytes, "bytes", "given (--activation)"),
        figure(
            "kv_budget_bytes",
            budget,
            "bytes",
            # the engine's own name for the fraction, e.g. gpu_memory_utilization × memory ...
            eng.formula.replace("{fraction}", "{" + eng.fraction_name + "}"),
            **{eng.fraction_name: mem_util},
            memory=hw.memory_bytes,
            weights=weights,
            activation=activation_bytes,
            overhead=overhead_bytes,
        ),
        figure(
            "kv_bytes_per_token",
            per_token,
            "bytes",
            "{whole_model} × {heads_per_gpu}/{kv_heads} heads × {layers_on_gpu}/{n_layers} layers",
            whole_model=layout.kv_bytes_per_token(kv_b),
            heads_per_gpu=gpu.heads,
            kv_heads=layout.n_kv_heads,
            layers_on_gpu=gpu.layers,
            n_layers=layout.n_layers,
        ),
        figure(
            "kv_cache_blocks",
            blocks,
            "blocks",
            "floor({budget} / {block_bytes})",
            budget=budget,
            block_bytes=block_bytes,
        ),
        figure(
            "kv_cache_tokens",
            pool_tokens,
            "tokens",
            "{blocks} × {block_size}",
            blocks=blocks,
            block_size=block_size,
        ),
        figure(
            "max_concurrency",
            concurrency,
            "sequences",
            "floor({budget} / KV(ceil({ctx} / {block_size}) × {block_size} tokens) = {seq})",
            budget=budget,
            ctx=ctx,
            block_size=block_size,
            seq=seq_bytes,
        ),
        figure(
            "max_concurrency_contiguous",
            concurrency_contiguous,
            "sequences",
            "floor({budget} / KV({max_model_len} tokens) = {seq})",
            budget=budget,
            max_model_len=max_model_len,
            seq=cont_bytes,
        ),
        figure(
            "max_ctx_at_batch",
            max_ctx_at_batch,
            "tokens",
            "largest whole-block ctx with {batch} × KV(ctx) ≤ {budget}, at most {limit}",
            batch=batch,
            budget=budget,
            limit=cfg.context_limit,
        ),
    ]
    if shared_prefix is not None or users is not None:
        from calc.prefix_sharing import prefix_sharing_fields

        extra, extra_figs = prefix_sharing_fields(
            gpu, kv_b, budget, ctx=ctx, block_size=block_size, prefix=shared_prefix, users=users
        )
        fields.update(extra)
        figs += extra_figs

    if budget <= 0:
        warnings.append(
            f"does not fit: {cfg.name} needs {weights / 1e9:,.2f} GB of weights + "
            f"{(activation_bytes + overhead_bytes) / 1e9:,.2f} GB runtime reserve per GPU, "
            f"{hw.name} gives {engine} {usable / 1e9:,.2f} GB ({mem_util:g} × "
            f"{hw.memory_bytes / 1e9:,.2f} GB); raise --tp/--pp, lower --weight-dtype, or "
            "raise --mem-util"
        )
    elif concurrency < batch:
        warnings.append(
            f"does not fit: --batch {batch:,} at --ctx {ctx:,} needs {batch * seq_bytes / 1e9:,.2f}"
            f" GB of KV per GPU, the budget is {budget / 1e9:,.2f} GB; at --ctx {ctx:,} at most "
            f"{concurrency:,} sequences fit, at --batch {batch:,} the largest --ctx is "
            f"{max_ctx_at_batch:,} (or raise --tp, lower --kv-dtype)"
        )
    if engine == "sglang" and activation_bytes + overhead_bytes > hw.memory_bytes * (1 - mem_util):
        warnings.append(
            f"sglang leaves activations to the 1 − mem_fraction_static share "
            f"({hw.memory_bytes * (1 - mem_util) / 1e9:,.2f} GB), smaller than the estimated "
            f"activation peak + overhead ({(activation_bytes + overhead_bytes) / 1e9:,.2f} GB): "
            "lower --mem-util or --max-batched-tokens"
        )
    return CapacityReport(fields, figs, warnings)
