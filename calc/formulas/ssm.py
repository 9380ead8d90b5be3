"""Parameters [parameters] and per-sequence state [bytes] of the layers that keep a fixed
recurrent state instead of a KV cache: Mamba and Mamba-2 SSM layers, and gated DeltaNet
linear attention (its shape functions are in calc.formulas.linear_attention).

Such a layer has no KV cache: each sequence keeps a fixed state whatever its length, a
short convolution window and the recurrent (SSM or delta-rule) state. The two parts may be
stored in different dtypes (vLLM's ``mamba_cache_dtype`` for the conv state and
``mamba_ssm_cache_dtype`` for the recurrent one; Nemotron-H and Qwen3.5 keep the recurrent
state in fp32). All functions take plain numbers.

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

from dataclasses import dataclass

from calc.data.model_schema import SSM_LAYER_TYPES, ModelConfig, SSMConfig


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


@dataclass(frozen=True)
class MixerShape:
    """One state mixer's widths on one GPU (under tensor parallelism: a 1/tp share of the inner
    channels / heads; Mamba-2 B/C groups split when tp divides them, replicated when there is
    one group, as vLLM's MambaMixer2 does). A gated DeltaNet layer ('linear_attention') has
    the Mamba-2 state shape: n_heads value heads of head_dim = d_v, d_state = d_k, n_groups
    key heads."""

    kind: str  # 'mamba', 'mamba2' or 'linear_attention'
    d_inner: int  # E (this GPU's share)
    d_state: int  # N
    d_conv: int  # K
    dt_rank: int = 0  # Mamba-1 R (not split: x_proj is row-parallel)
    n_heads: int = 0  # Mamba-2 heads on this GPU
    head_dim: int = 0
    n_groups: int = 1  # Mamba-2 B/C groups on this GPU

    @property
    def conv_dim(self) -> int:
        """Channels of the conv1d: E (Mamba-1) or E + 2·G·N (Mamba-2: x, B and C; gated
        DeltaNet: v, q and k)."""
        if self.kind in ("mamba2", "linear_attention"):
            return self.d_inner + 2 * self.n_groups * self.d_state
        return self.d_inner

    @property
    def conv_elements(self) -> int:
        """Cached conv state of one sequence: (K − 1) × conv channels."""
        return (self.d_conv - 1) * self.conv_dim

    @property
    def recurrent_elements(self) -> int:
        """Cached SSM / delta-rule state of one sequence: E × N (Mamba-1), heads × head_dim ×
        N (Mamba-2, gated DeltaNet)."""
        return self.d_inner * self.d_state

    @property
    def state_elements(self) -> int:
        """Cached conv + SSM state elements of one sequence in this mixer."""
        if self.kind in ("mamba2", "linear_attention"):
            return mamba2_state_elements(
                self.n_heads, self.head_dim, self.d_state, self.d_conv, self.n_groups
            )
        return mamba1_state_elements(self.d_inner, self.d_state, self.d_conv)

    def state_bytes(self, conv_bytes_per_element, recurrent_bytes_per_element) -> float:
        """Cached state of one sequence in this mixer [bytes]: conv elements × their bytes +
        recurrent elements × theirs."""
        return (
            self.conv_elements * conv_bytes_per_element
            + self.recurrent_elements * recurrent_bytes_per_element
        )


def ssm_groups_per_gpu(n_groups: int, tp: int) -> int:
    """Mamba-2 B/C groups on one GPU: n_groups / tp, or all of them when they cannot split
    (vLLM replicates a single group; other non-divisible counts are rejected by shard)."""
    return n_groups // tp if n_groups % tp == 0 else n_groups


def mixer_shape(cfg: ModelConfig, kind: str, tp: int = 1) -> MixerShape:
    """The ``kind`` mixer of ``cfg`` on one of ``tp`` GPUs (tp must divide its heads/width)."""
    if kind == "linear_attention":
        la = cfg.linear_attention
        assert la is not None  # the schema: linear_attention layers need the block
        heads, head_dim = la.n_value_heads // tp, la.value_head_dim
        state, conv, groups = la.key_head_dim, la.conv_kernel, max(la.n_key_heads // tp, 1)
        return _headed_mixer(kind, heads, head_dim, state, conv, groups)
    s = cfg.ssm
    assert s is not None  # guaranteed by the schema for models with SSM layers
    if kind == "mamba2":
        assert s.n_heads is not None and s.head_dim is not None  # schema
        groups = ssm_groups_per_gpu(s.n_groups, tp)
        return _headed_mixer(kind, s.n_heads // tp, s.head_dim, s.d_state, s.d_conv, groups)
    assert s.dt_rank is not None  # schema
    return MixerShape("mamba", ssm_d_inner(s, cfg.d_model) // tp, s.d_state, s.d_conv, s.dt_rank)


def _headed_mixer(kind: str, heads: int, head_dim: int, state: int, conv: int, groups: int):
    """A mixer of ``heads`` heads of ``head_dim`` on one GPU (Mamba-2, linear attention)."""
    return MixerShape(kind, heads * head_dim, state, conv, n_heads=heads, head_dim=head_dim,
                      n_groups=groups)  # fmt: skip


def layer_ssm_params(cfg: ModelConfig, kind: str, tp: int = 1) -> int:
    """Parameters of one ``kind`` ('mamba', 'mamba2' or 'linear_attention') mixer of ``cfg``
    held by one of ``tp`` GPUs (its share of the channels/heads; the rest replicated). tp = 1:
    the whole mixer."""
    if kind == "linear_attention":
        from calc.formulas.linear_attention import gated_deltanet_params

        la = cfg.linear_attention
        assert la is not None  # schema
        m = mixer_shape(cfg, kind, tp)
        return gated_deltanet_params(
            cfg.d_model, m.n_groups, m.n_heads, la.key_head_dim, la.value_head_dim,
            la.conv_kernel,
        )  # fmt: skip
    s = cfg.ssm
    assert s is not None  # guaranteed by the schema for models with SSM layers
    m = mixer_shape(cfg, kind, tp)
    if kind == "mamba2":
        return mamba2_params(
            cfg.d_model, m.n_heads, m.head_dim, m.d_state, m.d_conv, m.n_groups,
            s.conv_bias, s.proj_bias,
        )  # fmt: skip
    return mamba1_params(
        cfg.d_model, m.d_inner, m.d_state, m.d_conv, m.dt_rank,
        s.conv_bias, s.proj_bias, s.inner_norms,
    )  # fmt: skip


def ssm_state_elements_per_sequence(cfg: ModelConfig, tp: int = 1) -> int:
    """State elements one sequence keeps in all state layers (Mamba, Mamba-2, gated DeltaNet)
    of ``cfg`` on one of ``tp`` GPUs (0 without them)."""
    return sum(
        n * mixer_shape(cfg, k, tp).state_elements
        for k in SSM_LAYER_TYPES
        if (n := cfg.n_layers_of(k))
    )


def ssm_state_bytes_per_sequence(cfg: ModelConfig, bytes_per_element, tp: int = 1) -> float:
    """Fixed state of one sequence [bytes], independent of ctx: conv elements ×
    ``bytes_per_element`` + recurrent elements × the recurrent state's bytes (the config's
    ``recurrent_dtype``, else ``bytes_per_element``)."""
    rec = recurrent_bytes_per_element(cfg, bytes_per_element)
    return sum(
        n * mixer_shape(cfg, k, tp).state_bytes(bytes_per_element, rec)
        for k in SSM_LAYER_TYPES
        if (n := cfg.n_layers_of(k))
    )


def ssm_state_dtype(cfg: ModelConfig, kv_dtype: str) -> str:
    """dtype of the cached conv (and, unless ``recurrent_dtype`` says otherwise, recurrent)
    state. Mamba: the config's ``ssm.state_dtype``, else the KV dtype when it is a plain dtype,
    else (a scaled KV format such as fp8-token-head) the model's dtype: engines do not apply
    per-token-head KV quantisation to the SSM state. Gated DeltaNet: its
    ``linear_attention.state_dtype``, else the model's dtype whatever the KV dtype (vLLM's
    ``mamba_cache_dtype`` auto is the model dtype: an fp8-KV Qwen3.5 log's attention block
    of 1,568 tokens is what a bf16 conv state gives)."""
    from calc.formulas.quant import is_plain

    if cfg.ssm is None and cfg.linear_attention is not None:
        return cfg.linear_attention.state_dtype or cfg.dtype
    explicit = cfg.ssm.state_dtype if cfg.ssm is not None else None
    return explicit or (kv_dtype if is_plain(kv_dtype) else cfg.dtype)


def recurrent_bytes_per_element(cfg: ModelConfig, conv_bytes_per_element) -> float:
    """Bytes per element of the recurrent (SSM / delta-rule) state: the config's
    ``recurrent_dtype`` (ssm or linear_attention block), else the conv state's."""
    from calc.data.dtypes import bytes_per_element

    block = cfg.ssm if cfg.ssm is not None else cfg.linear_attention
    dtype = block.recurrent_dtype if block is not None else None
    return bytes_per_element(dtype) if dtype else conv_bytes_per_element


def layer_state_bytes(cfg: ModelConfig, kind: str, tp: int, conv_bytes_per_element) -> float:
    """State of one sequence in one ``kind`` layer on one of ``tp`` GPUs [bytes]."""
    return mixer_shape(cfg, kind, tp).state_bytes(
        conv_bytes_per_element, recurrent_bytes_per_element(cfg, conv_bytes_per_element)
    )
