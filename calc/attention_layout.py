"""The cached-attention shape of a model, optionally replaced by a what-if attention kind.

It composes the kv_cache formulas; it adds no arithmetic. A what-if keeps the model's layers,
heads and head widths and changes only what is cached: MHA caches every head, MQA one, GQA
``n_kv_heads``, MLA the latent plus the RoPE key.
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.errors import InvalidInputError
from calc.kv_cache import (
    kv_bytes_per_token,
    kv_bytes_per_token_per_layer,
    mla_kv_bytes_per_token_per_layer,
)
from calc.model_schema import AttentionKind, ModelConfig


@dataclass(frozen=True)
class AttentionLayout:
    """What one model caches per token. The single entry point for KV sizes: memory,
    capacity and latency all ask ``kv_bytes_per_sequence`` rather than re-deriving it."""

    kind: AttentionKind
    n_layers: int  # layers that hold a KV cache
    n_heads: int
    n_kv_heads: int  # MLA: 1 latent shared by all heads
    k_head_dim: int
    v_head_dim: int
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0

    def kv_bytes_per_token_per_layer(self, bytes_per_element):
        if self.kind == "mla":
            return mla_kv_bytes_per_token_per_layer(
                self.kv_lora_rank, self.qk_rope_head_dim, bytes_per_element
            )
        return kv_bytes_per_token_per_layer(
            self.n_kv_heads, self.k_head_dim, self.v_head_dim, bytes_per_element
        )

    def cached_token_layers(self, ctx):
        """Token-layers held for one sequence of ``ctx`` tokens: every layer caches all."""
        return ctx * self.n_layers

    def kv_bytes_per_token(self, bytes_per_element):
        """Bytes one more token adds to a sequence's cache (all caching layers)."""
        return kv_bytes_per_token(
            self.kv_bytes_per_token_per_layer(bytes_per_element), self.n_layers
        )

    def kv_bytes_per_sequence(self, ctx, bytes_per_element):
        """KV cache of one sequence of ``ctx`` tokens [bytes] (ctx may be a numpy array)."""
        return self.kv_bytes_per_token_per_layer(bytes_per_element) * self.cached_token_layers(ctx)


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
        n_layers=cfg.n_layers,
        n_heads=cfg.n_heads,
        k_head_dim=cfg.k_head_dim,
        v_head_dim=cfg.v_head_dim,
    )
    if kind == "mla":
        rank = kv_lora_rank or (cfg.mla.kv_lora_rank if cfg.mla else None)
        rope = qk_rope_head_dim or (cfg.mla.qk_rope_head_dim if cfg.mla else None)
        if rank is None or rope is None:
            raise InvalidInputError(
                f"--attention mla on {cfg.name} (not an MLA model) needs --kv-lora-rank and "
                "--qk-rope-head-dim (DeepSeek-V3 uses 512 and 64)"
            )
        return AttentionLayout(
            "mla", n_kv_heads=1, kv_lora_rank=rank, qk_rope_head_dim=rope, **base
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
