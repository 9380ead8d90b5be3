"""The shapes one layer of a model runs at [elements], optionally scaled down by an integer
divisor so the CPU path finishes in seconds. Pure Python (no torch).

Scaling divides d_model, d_ffn, q_lora_rank and the head counts, and keeps what defines the
kernels: head widths, the query-heads-per-KV-head group, MLA's latent and RoPE widths.
"""

from __future__ import annotations

import copy
from typing import TypeVar

from calc.data.model_schema import AttentionKind, ModelConfig
from calc.formulas.attention_layout import AttentionLayout, attention_layout

T = TypeVar("T")


def scaled_heads(n_heads: int, n_kv_heads: int, scale: int) -> tuple[int, int]:
    """(n_heads, n_kv_heads) divided by ``scale`` keeping the GQA group n_heads / n_kv_heads.

    MQA stays at one KV head; otherwise at least two KV heads remain so that GQA does not
    collapse into MQA. Example: (32, 8) at scale 8 -> (8, 2).
    """
    group = n_heads // n_kv_heads
    if n_kv_heads == 1:
        return max(1, n_heads // scale), 1
    kv = max(2, n_kv_heads // scale)
    return kv * group, kv


def _copy(obj: T, **update: object) -> T:
    """``obj`` with ``update`` applied and NOT re-checked: one layer of a model whose
    layer_types lists every layer would fail ModelConfig's n_layers check."""
    new = copy.copy(obj)
    for name, value in update.items():
        object.__setattr__(new, name, value)
    return new


def scaled_model(cfg: ModelConfig, scale: int) -> ModelConfig:
    """One layer of ``cfg`` with widths and head counts divided by ``scale`` (1: unchanged)."""
    if scale == 1:
        return _copy(cfg, n_layers=1)
    if cfg.mla is not None:
        heads = max(1, cfg.n_heads // scale)
        n_heads, n_kv = heads, heads
    else:
        n_heads, n_kv = scaled_heads(cfg.n_heads, cfg.n_kv_heads, scale)
    update = {
        "n_layers": 1,
        "d_model": max(64, cfg.d_model // scale),
        "d_ffn": max(64, cfg.d_ffn // scale),
        "n_heads": n_heads,
        "n_kv_heads": n_kv,
    }
    if cfg.mla is not None and cfg.mla.q_lora_rank:
        update["mla"] = _copy(cfg.mla, q_lora_rank=max(64, cfg.mla.q_lora_rank // scale))
    return _copy(cfg, **update)


def decode_variants(cfg: ModelConfig) -> list[AttentionKind]:
    """Attention kinds measured for decode: MLA alone for an MLA model; otherwise the
    model's own kind first, then the MHA/GQA/MQA what-ifs on the same shape."""
    if cfg.attention == "mla":
        return ["mla"]
    kinds: list[AttentionKind] = [cfg.attention]
    kinds += [k for k in ("mha", "mqa") if k != cfg.attention]
    return kinds


def layout_for(cfg: ModelConfig, kind: AttentionKind) -> AttentionLayout:
    """The (scaled) model's layout as ``kind`` (GQA only ever on a GQA model, see above)."""
    return attention_layout(cfg, kind)


def gemm_shapes(cfg: ModelConfig) -> list[tuple[str, int, int]]:
    """(name, K, N) of each decode GEMM of one layer, x[batch, K] @ W[K, N].

    MHA/GQA/MQA: qkv (d_model -> (H + 2·Hkv)·head_dim), o, ffn_up (gate and up fused for a
    gated FFN), ffn_down. MLA: q_down/q_up (or q), kv_down (d_model -> rank + rope), o, and
    the dense FFN. The FFN is the dense one (d_ffn); MoE expert GEMMs are not measured.
    """
    d, f = cfg.d_model, cfg.d_ffn
    up = 2 * f if cfg.ffn_kind == "gated" else f
    if cfg.mla is not None:
        m = cfg.mla
        q_width = cfg.n_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim)
        attn = []
        if m.q_lora_rank:
            attn += [("q_down", d, m.q_lora_rank), ("q_up", m.q_lora_rank, q_width)]
        else:
            attn += [("q", d, q_width)]
        attn += [
            ("kv_down", d, m.kv_lora_rank + m.qk_rope_head_dim),
            ("o", cfg.n_heads * m.v_head_dim, d),
        ]
    else:
        qkv = cfg.n_heads * cfg.k_head_dim + cfg.n_kv_heads * (cfg.k_head_dim + cfg.v_head_dim)
        attn = [("qkv", d, qkv), ("o", cfg.n_heads * cfg.v_head_dim, d)]
    return [*attn, ("ffn_up", d, up), ("ffn_down", f, d)]
