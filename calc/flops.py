"""Floating-point operations [FLOP] of each operation of a transformer forward pass.

One multiply-accumulate is 2 FLOP, so a matmul of ``tokens`` rows through a ``d_in × d_out``
weight costs ``2 · tokens · d_in · d_out``. Every function takes plain numbers (ints, floats or
numpy arrays that broadcast) and returns FLOPs; none knows about configs, so the same code path
serves one answer and a million-row sweep.

Conventions (stated once, used everywhere):

- Only the matmuls and the attention products are counted. Softmax, RoPE, norms, SiLU and
  residual adds are element-wise (a few FLOP per element, < 0.1% of a layer, and not run on the
  tensor cores); they are not part of these counts.
- Causal attention over a prompt of S tokens: query i attends to keys 1..i, so the prompt has
  ``S(S+1)/2`` query-key pairs, not S². One decode step at context ``ctx`` (the sequence length
  including the token being processed) has ``ctx`` pairs per sequence.
- Attention FLOPs per pair: scores ``2 · n_heads · k_head_dim`` (Q·Kᵀ), value aggregation
  ``2 · n_heads · v_head_dim`` (P·V). GQA/MQA share K/V heads but every query head still
  does its own products, so the counts use ``n_heads``, not ``n_kv_heads``.
- MLA (DeepSeek-V2/V3): the prefill uses the explicit form (latent up-projected to per-head K
  and V); decode uses the absorbed form, where W_UK is folded into the query and W_UV into the
  output, so attention runs against the cached latent directly (DeepSeek-V2 paper, §2.1.2;
  FlashMLA).

References: [1] Kaplan et al. 2020, "Scaling Laws for Neural Language Models", Table 1 (2N
FLOP per token for the matmuls); [2] DeepSeek-AI 2024, "DeepSeek-V2", §2.1 (MLA).
"""

from __future__ import annotations


def linear_flops(tokens, d_in, d_out):
    """A dense projection: 2 · tokens · d_in · d_out [FLOP]."""
    return 2 * tokens * d_in * d_out


def qkv_proj_flops(tokens, d_model, n_heads, n_kv_heads, k_head_dim, v_head_dim):
    """Q, K and V projections (GQA shapes): 2 · t · d · (h·dk + kv·(dk + dv)) [FLOP].

    With dk = dv = head_dim: Q is d × h·hd, K and V are d × kv·hd each.
    """
    return linear_flops(
        tokens, d_model, n_heads * k_head_dim + n_kv_heads * (k_head_dim + v_head_dim)
    )


def o_proj_flops(tokens, n_heads, v_head_dim, d_model):
    """Output projection: 2 · t · h·dv · d [FLOP]."""
    return linear_flops(tokens, n_heads * v_head_dim, d_model)


def causal_pairs(prompt):
    """Query-key pairs of causal attention over ``prompt`` tokens: S(S+1)/2."""
    return prompt * (prompt + 1) // 2


def decode_pairs(ctx):
    """Query-key pairs of one decode step at context ``ctx``: the new token sees ``ctx`` keys."""
    return ctx


def attn_score_flops(pairs, n_heads, k_head_dim):
    """Attention scores Q·Kᵀ: 2 · pairs · h · dk [FLOP]."""
    return 2 * pairs * n_heads * k_head_dim


def attn_value_flops(pairs, n_heads, v_head_dim):
    """Value aggregation P·V: 2 · pairs · h · dv [FLOP]."""
    return 2 * pairs * n_heads * v_head_dim


def ffn_flops(tokens, d_model, d_ffn, gated):
    """One FFN: gated (SwiGLU: gate, up, down) 2·t·3·d·d_ffn; plain MLP 2·t·2·d·d_ffn [FLOP]."""
    return 2 * tokens * (2 + gated) * d_model * d_ffn


def router_flops(tokens, d_model, n_routed_experts):
    """MoE gate logits: 2 · t · d · n_experts [FLOP] (the top-k selection is not counted)."""
    return linear_flops(tokens, d_model, n_routed_experts)


def routed_expert_flops(tokens, experts_per_token, d_model, d_expert_ffn, gated):
    """The active routed experts: each token runs ``experts_per_token`` expert FFNs [FLOP]."""
    return ffn_flops(tokens * experts_per_token, d_model, d_expert_ffn, gated)


def shared_expert_flops(tokens, n_shared_experts, d_model, d_shared_ffn, gated):
    """Shared experts (every token runs all of them) [FLOP]."""
    return n_shared_experts * ffn_flops(tokens, d_model, d_shared_ffn, gated)


def expected_active_experts(n_experts, experts_per_token, tokens):
    """Distinct experts a batch of ``tokens`` touches under uniform routing [experts].

    Each token picks k of E; an expert is missed by one token with probability 1 − k/E, by all
    of them with (1 − k/E)^tokens, so E · (1 − (1 − k/E)^tokens) experts are read. One token
    reads k experts; a large batch reads all E.
    """
    return n_experts * (1 - (1 - experts_per_token / n_experts) ** tokens)


def lm_head_flops(tokens, d_model, vocab_size):
    """Logits: 2 · t · d · vocab [FLOP]."""
    return linear_flops(tokens, d_model, vocab_size)


# MLA (multi-head latent attention) -------------------------------------------------------


def mla_q_down_flops(tokens, d_model, q_lora_rank):
    """W_DQ: 2 · t · d · q_lora_rank [FLOP] (absent when the model has no q_lora_rank)."""
    return linear_flops(tokens, d_model, q_lora_rank)


def mla_q_up_flops(tokens, q_in, n_heads, qk_nope_head_dim, qk_rope_head_dim):
    """W_UQ (and the RoPE query): 2 · t · q_in · h·(nope + rope) [FLOP].

    ``q_in`` is q_lora_rank, or d_model for a full-rank W_Q.
    """
    return linear_flops(tokens, q_in, n_heads * (qk_nope_head_dim + qk_rope_head_dim))


def mla_kv_down_flops(tokens, d_model, kv_lora_rank, qk_rope_head_dim):
    """W_DKV and the shared RoPE key: 2 · t · d · (kv_lora_rank + rope) [FLOP]."""
    return linear_flops(tokens, d_model, kv_lora_rank + qk_rope_head_dim)


def mla_kv_up_flops(tokens, kv_lora_rank, n_heads, qk_nope_head_dim, v_head_dim):
    """Explicit form (prefill): W_UK and W_UV expand each latent to per-head K and V:
    2 · t · r · h·(nope + v) [FLOP]."""
    return linear_flops(tokens, kv_lora_rank, n_heads * (qk_nope_head_dim + v_head_dim))


def mla_q_absorb_flops(tokens, n_heads, qk_nope_head_dim, kv_lora_rank):
    """Absorbed form (decode): each head's no-RoPE query times W_UK^T, giving a query in the
    latent space: 2 · t · h · nope · r [FLOP]."""
    return 2 * tokens * n_heads * qk_nope_head_dim * kv_lora_rank


def mla_absorbed_score_flops(pairs, n_heads, kv_lora_rank, qk_rope_head_dim):
    """Absorbed scores against the cached latent and RoPE key: 2 · pairs · h · (r + rope)."""
    return 2 * pairs * n_heads * (kv_lora_rank + qk_rope_head_dim)


def mla_absorbed_value_flops(pairs, n_heads, kv_lora_rank):
    """Absorbed value aggregation over the cached latent: 2 · pairs · h · r [FLOP]."""
    return 2 * pairs * n_heads * kv_lora_rank


def mla_v_absorb_flops(tokens, n_heads, kv_lora_rank, v_head_dim):
    """Absorbed form (decode): the latent-space output of each head times W_UV:
    2 · t · h · r · v [FLOP]."""
    return 2 * tokens * n_heads * kv_lora_rank * v_head_dim
