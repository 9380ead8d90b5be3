"""Parameters [parameters] and per-sequence state [bytes] of Mamba and Mamba-2 SSM layers.

An SSM layer has no KV cache: each sequence keeps a fixed state whatever its length, a
short convolution window and the recurrent SSM state. All functions take plain numbers.

Shapes follow the reference implementations (state-spaces/mamba ``Mamba``/``Mamba2``, the
Hugging Face ``JambaMambaMixer`` and ``NemotronHMamba2Mixer``):

Mamba-1 [Gu & Dao 2023]: in_proj d → 2·d_inner (x and gate z); depthwise conv1d over
d_inner channels of width d_conv; x_proj d_inner → dt_rank + 2·d_state (Δ, B, C); dt_proj
dt_rank → d_inner with bias; A_log d_inner × d_state; D d_inner; out_proj d_inner → d.

Mamba-2 [Dao & Gu 2024]: in_proj d → 2·d_inner + 2·n_groups·d_state + n_heads (z, x, B, C,
dt); conv1d over conv_dim = d_inner + 2·n_groups·d_state channels; dt_bias, A_log, D one per
head; a gated RMSNorm of d_inner; out_proj d_inner → d.

The cached conv state is the last d_conv − 1 inputs of every conv channel, as vLLM keeps it
(``mamba_utils``: conv_state_shape = (d_conv − 1, conv_dim)); the reference Hugging Face and
mamba_ssm caches keep d_conv columns, one more.
"""

from __future__ import annotations

from calc.model_schema import ModelConfig, SSMConfig


def mamba1_params(
    d_model, d_inner, d_state, d_conv, dt_rank, conv_bias=True, proj_bias=False, inner_norms=False
):
    """One Mamba-1 mixer: in_proj + conv1d + x_proj + dt_proj + A_log + D + out_proj (+ norms)."""
    in_proj = d_model * 2 * d_inner + proj_bias * 2 * d_inner
    conv = d_inner * d_conv + conv_bias * d_inner
    x_proj = d_inner * (dt_rank + 2 * d_state)
    dt_proj = dt_rank * d_inner + d_inner
    a_and_d = d_inner * d_state + d_inner
    out_proj = d_inner * d_model + proj_bias * d_model
    norms = inner_norms * (dt_rank + 2 * d_state)
    return in_proj + conv + x_proj + dt_proj + a_and_d + out_proj + norms


def mamba2_params(
    d_model, n_heads, head_dim, d_state, d_conv, n_groups=1, conv_bias=True, proj_bias=False
):
    """One Mamba-2 mixer: in_proj + conv1d + dt_bias/A_log/D + gated norm + out_proj."""
    d_inner = n_heads * head_dim
    conv_dim = d_inner + 2 * n_groups * d_state
    in_width = 2 * d_inner + 2 * n_groups * d_state + n_heads
    in_proj = d_model * in_width + proj_bias * in_width
    conv = conv_dim * d_conv + conv_bias * conv_dim
    per_head = 3 * n_heads
    norm = d_inner
    out_proj = d_inner * d_model + proj_bias * d_model
    return in_proj + conv + per_head + norm + out_proj


def mamba1_state_elements(d_inner, d_state, d_conv):
    """Cached elements of one sequence in one Mamba-1 layer: conv (d_conv−1)·d_inner + SSM
    d_inner·d_state."""
    return (d_conv - 1) * d_inner + d_inner * d_state


def mamba2_state_elements(n_heads, head_dim, d_state, d_conv, n_groups=1):
    """Cached elements of one sequence in one Mamba-2 layer: conv (d_conv−1)·conv_dim + SSM
    n_heads·head_dim·d_state."""
    conv_dim = n_heads * head_dim + 2 * n_groups * d_state
    return (d_conv - 1) * conv_dim + n_heads * head_dim * d_state


def ssm_d_inner(ssm: SSMConfig, d_model: int, mamba2: bool = False) -> int:
    """Inner width: explicit d_inner, Mamba-2 heads × head_dim, or expand × d_model."""
    if ssm.d_inner:
        return ssm.d_inner
    if mamba2 and ssm.n_heads and ssm.head_dim:
        return ssm.n_heads * ssm.head_dim
    return ssm.expand * d_model


def layer_ssm_params(cfg: ModelConfig, kind: str) -> int:
    """Parameters of one ``kind`` ('mamba' or 'mamba2') mixer of ``cfg``."""
    s = cfg.ssm
    assert s is not None  # guaranteed by the schema for models with SSM layers
    if kind == "mamba2":
        return mamba2_params(
            cfg.d_model, s.n_heads, s.head_dim, s.d_state, s.d_conv, s.n_groups,
            s.conv_bias, s.proj_bias,
        )  # fmt: skip
    return mamba1_params(
        cfg.d_model, ssm_d_inner(s, cfg.d_model), s.d_state, s.d_conv, s.dt_rank,
        s.conv_bias, s.proj_bias, s.inner_norms,
    )  # fmt: skip


def ssm_state_elements_per_sequence(cfg: ModelConfig) -> int:
    """State elements one sequence keeps in all SSM layers of ``cfg`` (0 without SSM)."""
    s = cfg.ssm
    if s is None:
        return 0
    n1, n2 = cfg.n_layers_of("mamba"), cfg.n_layers_of("mamba2")
    total = 0
    if n1:
        total += n1 * mamba1_state_elements(ssm_d_inner(s, cfg.d_model), s.d_state, s.d_conv)
    if n2:
        total += n2 * mamba2_state_elements(s.n_heads, s.head_dim, s.d_state, s.d_conv, s.n_groups)
    return total


def ssm_state_bytes_per_sequence(cfg: ModelConfig, bytes_per_element) -> float:
    """Fixed SSM state of one sequence [bytes], independent of ctx: elements × bytes."""
    return ssm_state_elements_per_sequence(cfg) * bytes_per_element
