"""Training FLOPs [FLOP]: 6ND plus the attention term, the forward/backward split and the
extra forward work of recomputation.

Conventions (those of calc/formulas/flops.py): a multiply-accumulate is 2 FLOP; only matmuls and the
attention products count. One token's forward pass through the matmul parameters is 2·N
(N: the parameters a token multiplies: active parameters less the embedding lookup and the
norms, the lm_head included) [1]; its backward pass is twice that (the gradient with respect
to the input and to the weight, each a matmul of the same size), so a training token costs
6·N [1] [2]. Attention adds, per causal sequence of ctx tokens and attention layer,
2·h·(dk + dv)·pairs forward (pairs = ctx(ctx+1)/2, or the windowed count), again ×3 with its
backward [3] (PaLM, App. B, counts 6·N + 12·L·h·dh·ctx per token for non-causal attention;
causal attention halves it).

Model FLOPs (what MFU counts) exclude recomputation; hardware FLOPs add it: full
recomputation reruns the forward pass (+2·N + the forward attention per token: 8·N in all);
selective recomputation reruns the attention core [4]; FlashAttention's backward recomputes
the scores Q·Kᵀ [5] (+2·h·dk per pair) whatever the recompute policy.

References: [1] Kaplan et al. 2020, "Scaling Laws for Neural Language Models", §2.1 (C = 6ND).
[2] Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters",
App. (72·B·s·l·h² model FLOPs; 96 with full recomputation). [3] Chowdhery et al. 2022, "PaLM",
App. B. [4] Korthikanti et al. 2022, §5. [5] Dao 2023, "FlashAttention-2", §3.1.2.
"""

from __future__ import annotations

from calc.formulas.flops import (
    attn_score_flops,
    attn_value_flops,
    causal_pairs,
    chunked_causal_pairs,
    sliding_causal_pairs,
)


def matmul_params(params_active, embedding_params, norm_params, tie_embeddings):
    """The parameters a token multiplies [params]: the active ones less the norms and the
    embedding lookup (a gather, not a matmul); tied embeddings are the lm_head's matmul."""
    return params_active - norm_params - (0 if tie_embeddings else embedding_params)


def six_nd_flops(params, tokens):
    """Training FLOPs of the matmuls: 6 · N · D [FLOP] [1]."""
    return 6 * params * tokens


def forward_matmul_flops_per_token(params):
    """Forward FLOPs of the matmuls per token: 2 · N [FLOP]."""
    return 2 * params


def attention_forward_flops(pairs, n_heads, k_head_dim, v_head_dim):
    """Forward attention of ``pairs`` query-key pairs in one layer: scores 2·h·dk + values
    2·h·dv per pair [FLOP]."""
    return attn_score_flops(pairs, n_heads, k_head_dim) + attn_value_flops(
        pairs, n_heads, v_head_dim
    )


def layer_pairs(kind, ctx, window=None, chunk=None):
    """Causal query-key pairs of one sequence of ``ctx`` tokens in a layer of ``kind``."""
    if kind == "sliding":
        return sliding_causal_pairs(ctx, window)
    if kind == "chunked":
        return chunked_causal_pairs(ctx, chunk)
    return causal_pairs(ctx)


def training_flops_per_token(forward_flops_per_token):
    """Forward + backward = 3 × forward [FLOP] (backward = 2 × forward)."""
    return 3 * forward_flops_per_token


def backward_flops_per_token(forward_flops_per_token):
    """The backward pass: 2 × the forward [FLOP]."""
    return 2 * forward_flops_per_token


def recompute_flops_per_token(recompute, matmul_forward, attention_forward, attention_scores,
                              flash):  # fmt: skip
    """Extra forward work per token beyond the model FLOPs [FLOP]: full reruns the forward
    (matmuls + attention), selective the attention core (not again under FlashAttention,
    whose backward recomputes it anyway), plus FlashAttention's recomputed scores."""
    extra = 0
    if recompute == "full":
        extra += matmul_forward + attention_forward
    elif recompute == "selective" and not flash:
        extra += attention_forward
    if flash:
        extra += attention_scores
    return extra
