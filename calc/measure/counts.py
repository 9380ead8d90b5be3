"""FLOPs [FLOP] and bytes moved [bytes] of each measured kernel, from its shape alone.

Pure functions of plain numbers (ints, floats or numpy arrays that broadcast). The bytes are
those an ideal kernel moves through memory once (inputs read, output written); the FLOPs
count multiply and add as two, and leave softmax, scaling and masking out (they are a few
percent of the matmuls at head widths of 64 and more). A kernel that moves more than this
(a gather copy, a materialised score matrix) shows up as prediction error, not as a
different count.
"""

from __future__ import annotations


def gemm_flops(m, k, n):
    """[m, k] @ [k, n]: 2 · m · k · n [FLOP]."""
    return 2 * m * k * n


def gemm_bytes(m, k, n, bytes_per_element):
    """[m, k] @ [k, n] -> [m, n]: (m·k + k·n + m·n) · bytes [bytes] (A, B read, C written)."""
    return (m * k + k * n + m * n) * bytes_per_element


def causal_pairs(seq):
    """Query-key pairs a causal mask keeps for ``seq`` tokens: seq · (seq + 1) / 2."""
    return seq * (seq + 1) // 2


def prefill_attention_flops(batch, n_heads, seq, k_head_dim, v_head_dim):
    """Causal self-attention over ``seq`` tokens: 2 · batch · n_heads · pairs · (dk + dv).

    QKᵀ costs 2·dk per kept (query, key) pair and PV 2·dv; a causal kernel skips the
    masked half, so pairs = seq·(seq+1)/2 [FLOP].
    """
    return 2 * batch * n_heads * causal_pairs(seq) * (k_head_dim + v_head_dim)


def prefill_attention_bytes(batch, seq, n_heads, n_kv_heads, k_head_dim, v_head_dim, bpe):
    """Q, K, V read and O written once: batch · seq · (H·dk + Hkv·(dk + dv) + H·dv) · bpe."""
    per_token = n_heads * k_head_dim + n_kv_heads * (k_head_dim + v_head_dim) + n_heads * v_head_dim
    return batch * seq * per_token * bpe


def decode_attention_flops(batch, n_heads, ctx, k_head_dim, v_head_dim):
    """One query token over ``ctx`` cached tokens: 2 · batch · n_heads · ctx · (dk + dv).

    With dk = dv = head_dim this is 4 · B · H · ctx · head_dim [FLOP]. GQA and MQA do the
    same arithmetic as MHA (every query head attends); they only read fewer KV bytes.
    """
    return 2 * batch * n_heads * ctx * (k_head_dim + v_head_dim)


def decode_attention_bytes(
    batch, n_heads, ctx, kv_bytes_per_token_per_layer, k_head_dim, v_head_dim, bpe
):
    """KV of ``ctx`` tokens read once per sequence plus Q read and O written [bytes]:
    batch · (ctx · kv_bytes_per_token_per_layer + n_heads · (dk + dv) · bpe).

    ``kv_bytes_per_token_per_layer`` comes from AttentionLayout (the one KV-size entry point).
    """
    return batch * (ctx * kv_bytes_per_token_per_layer + n_heads * (k_head_dim + v_head_dim) * bpe)


def block_table_bytes(batch, ctx, block_tokens=16, index_bytes=8):
    """Block table of a paged cache: batch · ceil(ctx / block_tokens) · index_bytes [bytes]."""
    return batch * (-(-ctx // block_tokens)) * index_bytes


def mla_decode_flops(
    batch, n_heads, ctx, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim
):
    """Absorbed MLA decode of one token over ``ctx`` latent tokens [FLOP]:

    q absorption 2·B·H·nope·rank + scores 2·B·H·ctx·(rank + rope) + PV over the latent
    2·B·H·ctx·rank + output up-projection 2·B·H·rank·v.
    """
    absorb = 2 * batch * n_heads * qk_nope_head_dim * kv_lora_rank
    scores = 2 * batch * n_heads * ctx * (kv_lora_rank + qk_rope_head_dim)
    pv = 2 * batch * n_heads * ctx * kv_lora_rank
    up = 2 * batch * n_heads * kv_lora_rank * v_head_dim
    return absorb + scores + pv + up


def mla_decode_bytes(
    batch,
    n_heads,
    ctx,
    kv_bytes_per_token_per_layer,
    kv_lora_rank,
    qk_rope_head_dim,
    qk_nope_head_dim,
    v_head_dim,
    bpe,
):
    """Latent cache read once per sequence, W_UK and W_UV read once, q read, o written:

    batch · ctx · kv_bytes_per_token_per_layer + H · rank · (nope + v) · bpe
    + batch · H · (nope + rope + v) · bpe [bytes].
    """
    cache = batch * ctx * kv_bytes_per_token_per_layer
    weights = n_heads * kv_lora_rank * (qk_nope_head_dim + v_head_dim) * bpe
    io = batch * n_heads * (qk_nope_head_dim + qk_rope_head_dim + v_head_dim) * bpe
    return cache + weights + io


def copy_bytes(n_elements, bpe):
    """A device copy reads and writes every element: 2 · n · bpe [bytes]."""
    return 2 * n_elements * bpe
