"""Parameters [parameters] and per-sequence state [elements] of a gated DeltaNet linear-attention
layer (Qwen3-Next, Qwen3.5), as pure functions of its shape.

A gated DeltaNet layer [Yang, Kautz & Hatamizadeh 2024, "Gated Delta Networks"] keeps no KV
cache: each sequence holds a fixed state whatever its length, the last K − 1 inputs of a causal
conv1d over q, k and v, and one d_k × d_v matrix per value head that the delta rule updates
once per token. Shapes follow vLLM's ``QwenGatedDeltaNetAttention``
(vllm/model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py) and
``MambaStateShapeCalculator.gated_delta_net_state_shape`` (mamba_utils.py):

- ``in_proj_qkvz``: d → 2·n_k·d_k (q, k) + 2·n_v·d_v (v and the output gate z);
- ``in_proj_ba``: d → 2·n_v (the per-head write strength β and decay input a);
- ``conv1d``: depthwise over conv_dim = 2·n_k·d_k + n_v·d_v channels, kernel K, no bias;
- ``dt_bias`` and ``A_log``: one per value head;
- ``norm``: a gated RMSNorm of d_v, one weight shared by every head;
- ``out_proj``: n_v·d_v → d.

State of one sequence: conv (K − 1) × conv_dim; recurrent n_v × d_v × d_k (vLLM's
``temporal_state_shape``). This is the Mamba-2 state formula with n_v heads of width d_v,
d_state = d_k and n_k groups (calc.formulas.ssm.mamba2_state_elements), which is how
calc.formulas.ssm.mixer_shape describes it.
"""

from __future__ import annotations


def gated_deltanet_conv_dim(n_key_heads, n_value_heads, key_head_dim, value_head_dim):
    """Channels of the conv1d [elements]: q and k (2·n_k·d_k) and v (n_v·d_v)."""
    return 2 * n_key_heads * key_head_dim + n_value_heads * value_head_dim


def gated_deltanet_params(
    d_model, n_key_heads, n_value_heads, key_head_dim, value_head_dim, conv_kernel
):
    """One gated DeltaNet layer [parameters] (or one TP rank's share, given its heads; the
    norm's d_v weights are then replicated): in_proj_qkvz + in_proj_ba + conv1d + dt_bias +
    A_log + norm + out_proj."""
    key_dim = n_key_heads * key_head_dim
    value_dim = n_value_heads * value_head_dim
    in_proj = d_model * (2 * key_dim + 2 * value_dim) + d_model * 2 * n_value_heads
    conv = gated_deltanet_conv_dim(n_key_heads, n_value_heads, key_head_dim, value_head_dim)
    per_head = 2 * n_value_heads  # dt_bias, A_log
    return in_proj + conv * conv_kernel + per_head + value_head_dim + value_dim * d_model


def gated_deltanet_state_elements(
    n_key_heads, n_value_heads, key_head_dim, value_head_dim, conv_kernel
):
    """Cached elements of one sequence in one layer: conv (K − 1)·conv_dim + recurrent
    n_v·d_v·d_k."""
    conv = gated_deltanet_conv_dim(n_key_heads, n_value_heads, key_head_dim, value_head_dim)
    return (conv_kernel - 1) * conv + n_value_heads * value_head_dim * key_head_dim
