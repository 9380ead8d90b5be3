"""KV-cache bytes [bytes] per token, per layer and per sequence of a model's cached-attention
shape, optionally replaced by a what-if attention kind.

It composes the kv_cache formulas; it adds no arithmetic. A what-if keeps the model's layers,
heads and head widths and changes only what is cached: MHA caches every head, MQA one, GQA
``n_kv_heads``, MLA the latent plus the RoPE key.
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.data.model_schema import AttentionKind, ModelConfig
from calc.errors import InvalidInputError
from calc.formulas.kv_cache import (
    indexer_key_bytes_per_token,
    kv_bytes_per_token,
    kv_bytes_per_token_per_layer,
    mla_kv_bytes_per_token_per_layer,
    sparse_mla_fp8_bytes_per_token_per_layer,
)
from calc.formulas.layer_pattern import cached_token_layers, windowed_groups


@dataclass(frozen=True)
class AttentionLayout:
    """What one model caches per token. The single entry point for KV sizes: memory,
    capacity and latency all ask ``kv_bytes_per_sequence`` rather than re-deriving it."""

    kind: AttentionKind
    n_layers: int  # layers that hold a KV cache (full + sliding + chunked)
    n_heads: int
    n_kv_heads: int  # MLA: 1 latent shared by all heads
    k_head_dim: int
    v_head_dim: int
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    # ((cap_tokens, n_layers), ...): windowed layers (sliding, chunked) among the n_layers,
    # each holding at most cap tokens. Empty: every caching layer is full attention.
    windowed: tuple[tuple[int, int], ...] = ()
    # model layers the caching layers are spread over (hybrids: more than n_layers); 0 = same
    n_model_layers: int = 0
    # sparse attention (DeepSeek-V3.2): tokens each query attends to (0: dense), and the
    # indexer key each caching layer keeps per token in its own fp8 format [bytes]
    sparse_topk: int = 0
    index_bytes_per_token_per_layer: float = 0

    @property
    def sparse(self) -> bool:
        """Whether queries attend to a top-k of the cached tokens (DeepSeek sparse attention)."""
        return self.sparse_topk > 0

    @property
    def n_full_layers(self) -> int:
        """Caching layers that hold every token (full attention)."""
        return self.n_layers - sum(n for _, n in self.windowed)

    @property
    def kv_head_width(self) -> int:
        """Elements of one cached head of one token (the group of a per-token-head KV scale):
        k_head_dim, or for MLA the latent plus the RoPE key."""
        if self.kind == "mla":
            return self.kv_lora_rank + self.qk_rope_head_dim
        return self.k_head_dim

    def kv_bytes_per_token_per_layer(self, bytes_per_element):
        """One token in one caching layer [bytes]: its K/V (or MLA latent) and, with sparse
        attention, the indexer key. A sparse MLA layer in an fp8 cache (1 B per element)
        stores the latent with fp32 scales per 128 and a bf16 RoPE key (656 B for
        DeepSeek-V3.2, ``sparse_mla_fp8_bytes_per_token_per_layer``)."""
        if self.kind == "mla":
            if self.sparse and _is_one(bytes_per_element):
                latent = sparse_mla_fp8_bytes_per_token_per_layer(
                    self.kv_lora_rank, self.qk_rope_head_dim
                )
            else:
                latent = mla_kv_bytes_per_token_per_layer(
                    self.kv_lora_rank, self.qk_rope_head_dim, bytes_per_element
                )
            return latent + self.index_bytes_per_token_per_layer
        return kv_bytes_per_token_per_layer(
            self.n_kv_heads, self.k_head_dim, self.v_head_dim, bytes_per_element
        )

    def cached_token_layers(self, ctx):
        """Token-layers held for one sequence of ``ctx`` tokens (ctx may be a numpy array).

        Σ over caching layers of min(ctx, window): full layers hold ctx, a sliding layer
        min(ctx, W [+ sinks]), a chunked-local layer min(ctx, chunk). Engines charge it so:
        HF's hybrid cache allocates exactly W slots per sliding layer; vLLM frees blocks
        that leave the window (block rounding is paging, added by the capacity model).
        See calc/formulas/layer_pattern.py.
        """
        return cached_token_layers(ctx, self.n_full_layers, self.windowed)

    def kv_bytes_per_token(self, bytes_per_element):
        """Bytes one more token adds to a sequence's cache while ctx is below every window
        (all caching layers); past a window that layer's share stops growing."""
        return kv_bytes_per_token(
            self.kv_bytes_per_token_per_layer(bytes_per_element), self.n_layers
        )

    def kv_bytes_per_sequence(self, ctx, bytes_per_element):
        """KV cache of one sequence of ``ctx`` tokens [bytes] (ctx may be a numpy array)."""
        return self.kv_bytes_per_token_per_layer(bytes_per_element) * self.cached_token_layers(ctx)


def _is_one(x) -> bool:
    """Whether a bytes-per-element scalar is exactly 1 (fp8); False for arrays."""
    return isinstance(x, int | float) and x == 1


def attention_layout(
    cfg: ModelConfig,
    kind: AttentionKind | None = None,
    *,
    kv_heads: int | None = None,
    kv_lora_rank: int | None = None,
    qk_rope_head_dim: int | None = None,
) -> AttentionLayout:
    """The model's own layout, or the what-if ``kind`` with the sizes it needs."""
    kind = kind or cfg.attention
    base = dict(
        n_layers=cfg.n_attention_layers,
        n_heads=cfg.n_heads,
        k_head_dim=cfg.k_head_dim,
        v_head_dim=cfg.v_head_dim,
        windowed=windowed_groups(
            cfg.layers, cfg.sliding_window, cfg.attention_chunk_size, cfg.sink_tokens
        ),
        n_model_layers=cfg.n_layers,
    )
    if kind == "mla":
        rank = kv_lora_rank or (cfg.mla.kv_lora_rank if cfg.mla else None)
        rope = qk_rope_head_dim or (cfg.mla.qk_rope_head_dim if cfg.mla else None)
        if rank is None or rope is None:
            raise InvalidInputError(
                f"--attention mla on {cfg.name} (not an MLA model) needs --kv-lora-rank and "
                "--qk-rope-head-dim (DeepSeek-V3 uses 512 and 64)"
            )
        ix = cfg.indexer if cfg.mla is not None else None
        sparse = {}
        if ix is not None:
            sparse = dict(
                sparse_topk=ix.topk,
                index_bytes_per_token_per_layer=indexer_key_bytes_per_token(ix.head_dim),
            )
        return AttentionLayout(
            "mla", n_kv_heads=1, kv_lora_rank=rank, qk_rope_head_dim=rope, **base, **sparse
        )
    if kind == "mha":
        return AttentionLayout("mha", n_kv_heads=cfg.n_heads, **base)
    if kind == "mqa":
        return AttentionLayout("mqa", n_kv_heads=1, **base)
    # gqa
    n_kv = kv_heads or (cfg.n_kv_heads if cfg.attention == "gqa" else None)
    if n_kv is None:
        raise InvalidInputError(f"--attention gqa on {cfg.name} needs --kv-heads N")
    if n_kv > cfg.n_heads or cfg.n_heads % n_kv:
        raise InvalidInputError(
            f"--kv-heads {n_kv} must divide n_heads ({cfg.n_heads}) of {cfg.name}"
        )
    return AttentionLayout("gqa", n_kv_heads=n_kv, **base)
