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
- A sliding-window layer of W tokens: query i attends to keys max(1, i−W+1)..i, min(i, W) of
  them (Mistral, Gemma 2/3, gpt-oss: the window includes the query's own token; StreamingLLM
  sink tokens widen it to W + sinks). A chunked-local layer (Llama 4) attends within its own
  chunk of C tokens: ((i − 1) mod C) + 1 keys.
- Attention FLOPs per pair: scores ``2 · n_heads · k_head_dim`` (Q·Kᵀ), value aggregation
  ``2 · n_heads · v_head_dim`` (P·V). GQA/MQA share K/V heads but every query head still
  does its own products, so the counts use ``n_heads``, not ``n_kv_heads``.
- MLA (DeepSeek-V2/V3): the prefill uses the explicit form (latent up-projected to per-head K
  and V); decode uses the absorbed form, where W_UK is folded into the query and W_UV into the
  output, so attention runs against the cached latent directly (DeepSeek-V2 paper, §2.1.2;
  FlashMLA).

- Mamba/Mamba-2 (SSM) layers: their projections and conv1d count like any matmul (2 FLOP per
  multiply-accumulate); the scan is counted as stated in each function (SSM section below).

References: [1] Kaplan et al. 2020, "Scaling Laws for Neural Language Models", Table 1 (2N
FLOP per token for the matmuls); [2] DeepSeek-AI 2024, "DeepSeek-V2", §2.1 (MLA);
[3] Gu & Dao 2023, "Mamba: Linear-Time Sequence Modeling with Selective State Spaces",
Algorithm 2 (selective SSM shapes); [4] Dao & Gu 2024, "Transformers are SSMs" (Mamba-2),
§6 and Listing 1 (the chunked SSD algorithm); [5] state-spaces/mamba issue #110 (9·L·D·N
FLOP for the selective scan).
"""

from __future__ import annotations

from calc.formulas.elementwise import minimum
from calc.formulas.expert_routing import busiest_active_experts  # noqa: F401  (re-exported)


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


def sliding_causal_pairs(prompt, window):
    """Query-key pairs of a causal prompt of S tokens under a window of W keys:
    Σ_{i=1..S} min(i, W) = m(m+1)/2 + (S − m)·W with m = min(S, W).

    The first m queries see all earlier keys (a triangle); each later one sees exactly W.
    With S ≤ W this is S(S+1)/2, the full causal count.
    """
    m = minimum(prompt, window)
    return m * (m + 1) // 2 + (prompt - m) * window


def sliding_decode_pairs(ctx, window):
    """Keys one decode step at context ``ctx`` attends to under a window of W: min(ctx, W)."""
    return minimum(ctx, window)


def chunked_causal_pairs(prompt, chunk):
    """Query-key pairs of a causal prompt of S tokens in chunked-local attention (chunk C):
    each whole chunk a triangle C(C+1)/2, the last partial chunk of r = S mod C tokens
    r(r+1)/2: ⌊S/C⌋·C(C+1)/2 + r(r+1)/2."""
    whole, r = prompt // chunk, prompt % chunk
    return whole * (chunk * (chunk + 1) // 2) + r * (r + 1) // 2


def chunked_decode_pairs(ctx, chunk):
    """Keys one decode step at context ``ctx`` attends to in chunked-local attention:
    the tokens of its own chunk so far, ((ctx − 1) mod C) + 1."""
    return (ctx - 1) % chunk + 1


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


# SSM (Mamba, Mamba-2) --------------------------------------------------------------------
#
# Shapes per token (d = d_model; Mamba-1 [3]: E = d_inner, N = d_state, R = dt_rank, K =
# d_conv; Mamba-2 [4]: H heads of P, E = H·P, G groups of B/C of width N):
#   in_proj   d → 2E (x, z)                    | d → 2E + 2GN + H (z, x, B, C, dt)
#   conv1d    depthwise, width K, E channels   | K, conv_dim = E + 2GN channels
#   x_proj    E → R + 2N (Δ, B, C); dt_proj R → E (Mamba-1 only)
#   scan      h_t = exp(Δ_t A) h_{t−1} + Δ_t B_t x_t;  y_t = C_t h_t  (E·N state elements)
#   out_proj  E → d


def conv1d_flops(tokens, channels, d_conv):
    """Depthwise causal conv1d: each of ``channels`` channels takes d_conv multiply-adds per
    token: 2 · t · channels · K [FLOP]."""
    return 2 * tokens * channels * d_conv


def mamba1_in_proj_flops(tokens, d_model, d_inner):
    """Mamba-1 in_proj (x and the gate z): 2 · t · d · 2E [FLOP]."""
    return linear_flops(tokens, d_model, 2 * d_inner)


def mamba1_x_dt_proj_flops(tokens, d_inner, d_state, dt_rank):
    """Mamba-1 x_proj (E → R + 2N: Δ, B, C) and dt_proj (R → E):
    2 · t · E · (R + 2N) + 2 · t · R · E [FLOP]."""
    return linear_flops(tokens, d_inner, dt_rank + 2 * d_state) + linear_flops(
        tokens, dt_rank, d_inner
    )


def mamba1_scan_flops(tokens, d_inner, d_state):
    """Mamba-1 selective scan: 9 FLOP per state element per token, 9 · t · E · N [5]
    (discretise exp(ΔA) and ΔB·x, update h, read out C·h). The same at prefill (the kernel
    runs the recurrence in SRAM, a work-efficient scan) and at decode (one step)."""
    return 9 * tokens * d_inner * d_state


def mamba2_in_proj_flops(tokens, d_model, d_inner, n_groups, d_state, n_heads):
    """Mamba-2 in_proj (z, x, B, C, dt in one matmul): 2 · t · d · (2E + 2GN + H) [FLOP]."""
    return linear_flops(tokens, d_model, 2 * d_inner + 2 * n_groups * d_state + n_heads)


def mamba2_decode_scan_flops(tokens, d_inner, d_state):
    """Mamba-2 recurrent step (``selective_state_update``): per state element h ← a·h +
    (dt·x)·B (multiply, multiply, add: 3 FLOP; a = exp(dt·A) is one scalar per head) and
    y += C·h (2 FLOP): 5 · t · E · N [FLOP]."""
    return 5 * tokens * d_inner * d_state


def ssd_sum_sq_chunks(prompt, chunk):
    """Σ q_j² over the chunks of a prompt of S tokens cut into chunks of Q (the last one
    r = S − (c−1)·Q long, c = ⌈S/Q⌉): (c − 1)·Q² + r²."""
    c = -(-prompt // chunk)
    r = prompt - (c - 1) * chunk
    return (c - 1) * chunk * chunk + r * r


def mamba2_prefill_scan_flops(prompt, d_inner, d_state, n_groups, chunk=256):
    """Mamba-2 SSD over one prompt of S tokens, chunked by Q (``chunk_size``; 256 in
    mamba_ssm, 128 in Nemotron-H) [4, §6, Listing 1] [FLOP]:

    - intra-chunk (diagonal blocks): C·Bᵀ per group, 2·Σq²·N·G, and its masked product with
      X per head, 2·Σq²·E (each chunk a full q × q block, as the kernels compute it);
    - chunk states Bᵀ·X: 2·S·E·N; passing the state between chunks: 2·⌈S/Q⌉·E·N;
    - outputs from the states C·h: 2·S·E·N.

    Total 2·Σq²·(E + G·N) + 4·S·E·N + 2·⌈S/Q⌉·E·N, with Σq² from ``ssd_sum_sq_chunks``.
    """
    sq = ssd_sum_sq_chunks(prompt, chunk)
    c = -(-prompt // chunk)
    return (
        2 * sq * (d_inner + n_groups * d_state)
        + 4 * prompt * d_inner * d_state
        + (2 * c * d_inner * d_state)
    )


def ssm_out_proj_flops(tokens, d_inner, d_model):
    """out_proj of either Mamba: 2 · t · E · d [FLOP]."""
    return linear_flops(tokens, d_inner, d_model)
