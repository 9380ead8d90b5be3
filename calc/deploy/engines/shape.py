"""The model's numbers every engine's start-up accounting takes, per GPU: one token's KV bytes
per layer, the attention / sliding / Mamba layers a pipeline stage holds and how a paged
allocator groups them, the widest layer's live elements per token, the device memory torch
reports [bytes] and the weights as the checkpoint loads [bytes]."""

from __future__ import annotations

import math
from dataclasses import dataclass

from calc.data.model_schema import ModelConfig
from calc.deploy import state_pages as _sp
from calc.errors import InvalidInputError
from calc.formulas.elementwise import cdiv


def usable_memory_bytes(hw) -> int:
    """Device memory an engine budgets from [bytes]: what torch reports as the device's total
    (the profile's ``usable_memory_bytes``, sourced per profile), else the label capacity."""
    return int(hw.budget_memory_bytes)


def checkpoint_weights_bytes_per_gpu(cfg: ModelConfig, tp: int, pp: int, weight_dtype: str):
    """Weights on the busiest GPU [bytes] as the engine loads them: each component in its
    checkpoint format, ``weight_dtype`` re-quantising the linear layers while embeddings,
    lm_head, norms and router keep theirs (``calc.deploy.checkpoint``)."""
    from calc.deploy.checkpoint import weight_bytes_per_gpu_by_component
    from calc.deploy.parallel import shard

    return sum(
        weight_bytes_per_gpu_by_component(cfg, shard(cfg, tp=tp, pp=pp), weight_dtype).values()
    )


FLOAT_DTYPES = ("fp32", "fp16", "bf16")


def loaded_weights_bytes(dep) -> float:
    """Weights on the busiest GPU as vLLM and SGLang load them [bytes]: a 16/32-bit ``--dtype``
    other than the checkpoint's casts every component, the embeddings and norms too (the model
    is built in that dtype: ``--dtype float32`` doubles a bf16 checkpoint's tables as well);
    otherwise the checkpoint's formats (``Deployment.weights_bytes_per_gpu``)."""
    fmt = dep.weight_override
    if fmt in FLOAT_DTYPES and fmt != dep.model.dtype:
        from calc.data.dtypes import BYTES_PER_ELEMENT
        from calc.deploy.parallel import params_per_gpu

        return params_per_gpu(dep.model, dep.sharding) * BYTES_PER_ELEMENT[fmt]
    return dep.weights_bytes_per_gpu


def hybrid_group_size(layers_per_kind: list[int], ratio: float | None) -> int:
    """Layers per KV-cache group of a hybrid allocator: the smallest kind's layer count, or the
    largest when it is within ``ratio`` × the smallest (None: always the smallest), so that no
    kind is split into many tiny groups (vLLM ``_get_kv_cache_groups_uniform_page_size``)."""
    small, large = min(layers_per_kind), max(layers_per_kind)
    return large if ratio is not None and large < small * ratio else small


def hybrid_groups(layers_per_kind: list[int], group_size: int) -> int:
    """Number of groups: each kind padded to whole groups of ``group_size`` layers."""
    return sum(math.ceil(n / group_size) for n in layers_per_kind)


@dataclass(frozen=True)
class KvShape:
    """One GPU's KV layout as a paged allocator groups it."""

    bytes_per_token_per_layer: float  # one token, one attention layer, this GPU's heads
    layer_slots: int  # layers (or hybrid layer slots) that get one page per block
    n_groups: int  # KV cache groups (1 unless hybrid)
    full_groups: int
    sliding_groups: int
    window: int | None  # sliding window [tokens]
    n_kv_layers: int  # attention layers holding KV on this GPU
    n_full: int = 0
    n_sliding: int = 0
    mamba_groups: int = 0  # groups of Mamba layers (one page of state per request each)
    mamba_state_bytes_per_layer: float = 0  # one request's conv + SSM state in one layer
    n_mamba_layers: int = 0

    @property
    def bytes_per_token(self) -> float:
        """One token over all of this GPU's KV layers [bytes]."""
        return self.bytes_per_token_per_layer * self.n_kv_layers


def kv_shape(
    cfg: ModelConfig, tp: int, pp: int, kv_bytes_per_element: float, ratio: float | None = 1.5
) -> KvShape:
    """Per-GPU KV shape of ``cfg`` under tp × pp (heads split or replicated, MLA whole; the
    first stage's layers, the largest; full, sliding and Mamba layers counted apart and grouped
    at ``ratio`` (``hybrid_group_size``))."""
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
    size = hybrid_group_size(counts, ratio) if len(counts) > 1 else counts[0]
    full_groups = hybrid_groups([n_full], size) if n_full else 0
    sliding_groups = hybrid_groups([n_slide], size) if n_slide else 0
    mamba_groups = hybrid_groups([n_mamba], size) if n_mamba else 0
    return KvShape(
        bytes_per_token_per_layer=per_layer,
        layer_slots=size,
        n_groups=full_groups + sliding_groups + mamba_groups,
        full_groups=full_groups,
        sliding_groups=sliding_groups,
        window=window if n_slide else None,
        n_kv_layers=n_full + n_slide,
        n_full=n_full,
        n_sliding=n_slide,
        mamba_groups=mamba_groups,
        mamba_state_bytes_per_layer=state,
        n_mamba_layers=n_mamba,
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
