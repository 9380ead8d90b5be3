"""KV-cache size [bytes] per token, per sequence and per batch, for MHA/GQA/MQA and MLA.

MHA, GQA and MQA are one formula that differs only in ``n_kv_heads`` (n_heads, a divisor of
it, or 1). MLA caches one compressed latent c_KV (kv_lora_rank) plus the decoupled RoPE key
(qk_rope_head_dim) per token per layer, shared by all heads: there is no factor 2 and no head
count. Sparse attention (DeepSeek-V3.2, GLM-5) adds the indexer's key per token per layer, in
its own fp8 format whatever the KV dtype. All functions take plain numbers or numpy arrays.
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


# DeepSeek sparse attention's caches (vLLM flashmla_sparse.py and deepseek_v2.py Indexer;
# SGLang's NSA pool prints the same 656 + 132 B per token per layer): the fp8 latent carries
# one fp32 scale per 128 elements and keeps its RoPE part in bf16; the indexer's key is fp8
# with one fp32 scale per 128 elements.
SPARSE_SCALE_GROUP = 128
SCALE_BYTES = 4  # fp32
ROPE_BYTES_PER_ELEMENT = 2  # bf16


def sparse_mla_fp8_bytes_per_token_per_layer(kv_lora_rank, qk_rope_head_dim):
    """The fp8 latent cache of a sparse-attention MLA layer (vLLM's ``fp8_ds_mla``) [bytes]:
    kv_lora_rank × 1 + kv_lora_rank / 128 × 4 (scales) + qk_rope_head_dim × 2 (bf16 RoPE key);
    DeepSeek-V3.2: 512 + 16 + 128 = 656 B."""
    return (
        kv_lora_rank
        + -(-kv_lora_rank // SPARSE_SCALE_GROUP) * SCALE_BYTES
        + qk_rope_head_dim * ROPE_BYTES_PER_ELEMENT
    )


def indexer_key_bytes_per_token(index_head_dim):
    """The indexer's cached key of one token in one layer [bytes]: index_head_dim fp8 values
    and one fp32 scale per 128 of them; DeepSeek-V3.2: 128 + 4 = 132 B."""
    return index_head_dim + -(-index_head_dim // SPARSE_SCALE_GROUP) * SCALE_BYTES


def kv_bytes_per_token(bytes_per_token_per_layer, n_layers):
    """Whole model, one token: per-layer bytes × number of layers that cache it."""
    return bytes_per_token_per_layer * n_layers


def kv_cache_bytes(bytes_per_token, ctx, batch=1):
    """KV cache of ``batch`` sequences of ``ctx`` tokens each: bytes/token × ctx × batch."""
    return bytes_per_token * ctx * batch
