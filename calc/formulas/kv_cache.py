"""KV-cache size [bytes] per token, per sequence and per batch, for MHA/GQA/MQA and MLA.

MHA, GQA and MQA are one formula that differs only in ``n_kv_heads`` (n_heads, a divisor of
it, or 1). MLA caches one compressed latent c_KV (kv_lora_rank) plus the decoupled RoPE key
(qk_rope_head_dim) per token per layer, shared by all heads: there is no factor 2 and no head
count. All functions take plain numbers or numpy arrays.
"""

from __future__ import annotations


def kv_bytes_per_token_per_layer(n_kv_heads, k_head_dim, v_head_dim, bytes_per_element):
    """K and V of one token in one layer: n_kv_heads × (k_head_dim + v_head_dim) × bytes.

    With k_head_dim == v_head_dim == head_dim this is 2 × n_kv_heads × head_dim × bytes.
    """
    return n_kv_heads * (k_head_dim + v_head_dim) * bytes_per_element


def mla_kv_bytes_per_token_per_layer(kv_lora_rank, qk_rope_head_dim, bytes_per_element):
    """MLA cache of one token in one layer: (kv_lora_rank + qk_rope_head_dim) × bytes."""
    return (kv_lora_rank + qk_rope_head_dim) * bytes_per_element


def kv_bytes_per_token(bytes_per_token_per_layer, n_layers):
    """Whole model, one token: per-layer bytes × number of layers that cache it."""
    return bytes_per_token_per_layer * n_layers


def kv_cache_bytes(bytes_per_token, ctx, batch=1):
    """KV cache of ``batch`` sequences of ``ctx`` tokens each: bytes/token × ctx × batch."""
    return bytes_per_token * ctx * batch
