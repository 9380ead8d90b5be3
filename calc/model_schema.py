"""Strict schema of a model config YAML (shapes in elements, counts in layers/heads)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Dtype = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]
AttentionKind = Literal["mha", "gqa", "mqa", "mla"]
# What one layer's token mixer is. full: attends to (and caches) every earlier token;
# sliding: the last ``sliding_window`` tokens; chunked: tokens of its own
# ``attention_chunk_size``-token chunk (Llama-4 local layers); mamba / mamba2: a selective
# state-space layer with a fixed per-sequence state and no KV cache; mlp: no mixer at all,
# only an FFN (Nemotron-H's "-" layers).
LayerType = Literal["full", "sliding", "chunked", "mamba", "mamba2", "mlp"]
ATTENTION_LAYER_TYPES = ("full", "sliding", "chunked")
SSM_LAYER_TYPES = ("mamba", "mamba2")

_STRICT = ConfigDict(
    extra="forbid", frozen=True, strict=True, allow_inf_nan=False, defer_build=True
)


class MLAConfig(BaseModel):
    """Multi-head latent attention (DeepSeek-V2/V3): low-rank Q and joint KV compression."""

    model_config = _STRICT

    kv_lora_rank: int = Field(gt=0, description="width of the cached latent c_KV")
    q_lora_rank: int | None = Field(default=None, gt=0, description="None: full-rank W_Q")
    qk_rope_head_dim: int = Field(gt=0, description="decoupled RoPE key width (cached, shared)")
    qk_nope_head_dim: int = Field(gt=0, description="per-head non-RoPE query/key width")
    v_head_dim: int = Field(gt=0, description="per-head value width")


class MoEConfig(BaseModel):
    """Mixture-of-experts FFN: routed experts, top-k, shared experts, leading dense layers."""

    model_config = _STRICT

    n_routed_experts: int = Field(gt=0, le=100_000)
    experts_per_token: int = Field(gt=0)
    n_shared_experts: int = Field(default=0, ge=0)
    d_expert_ffn: int = Field(gt=0, description="intermediate width of one routed expert")
    d_shared_expert_ffn: int | None = Field(
        default=None, gt=0, description="width of one shared expert; default d_expert_ffn"
    )
    n_dense_layers: int = Field(default=0, ge=0, description="leading layers with a dense FFN")
    router_bias: bool = Field(default=False, description="per-expert bias (DeepSeek-V3)")
    layer_period: int = Field(
        default=1, gt=0, description="every layer_period-th FFN layer is MoE (Jamba: 2)"
    )
    layer_offset: int = Field(
        default=0, ge=0, description="index of the first MoE layer (Jamba: 1)"
    )

    @model_validator(mode="after")
    def _top_k(self) -> MoEConfig:
        if self.experts_per_token > self.n_routed_experts:
            raise ValueError(
                f"experts_per_token ({self.experts_per_token}) exceeds "
                f"n_routed_experts ({self.n_routed_experts})"
            )
        return self

    @property
    def shared_ffn(self) -> int:
        return self.d_shared_expert_ffn or self.d_expert_ffn


class SSMConfig(BaseModel):
    """Mamba (v1) or Mamba-2 mixer shape, as the upstream config names it (mamba_* keys)."""

    model_config = _STRICT

    d_state: int = Field(gt=0, le=100_000, description="SSM state width N per channel/head")
    d_conv: int = Field(gt=0, le=1_000, description="causal conv1d kernel width")
    expand: int = Field(default=2, gt=0, le=64, description="d_inner = expand × d_model")
    d_inner: int | None = Field(
        default=None,
        gt=0,
        description="inner width; default expand × d_model (Mamba-2: heads × head_dim)",
    )
    dt_rank: int | None = Field(default=None, gt=0, description="Mamba-1 Δ projection rank")
    n_heads: int | None = Field(default=None, gt=0, description="Mamba-2 heads")
    head_dim: int | None = Field(default=None, gt=0, description="Mamba-2 head width")
    n_groups: int = Field(default=1, gt=0, description="Mamba-2 B/C groups")
    conv_bias: bool = True
    proj_bias: bool = False
    inner_norms: bool = Field(
        default=False, description="Mamba-1: RMSNorms on Δ, B and C (Jamba's mamba mixer)"
    )
    state_dtype: Dtype | None = Field(
        default=None, description="dtype of the cached conv/SSM state; default the KV dtype"
    )


class ModelConfig(BaseModel):
    """One model's architecture, as read from its upstream config.json."""

    model_config = _STRICT

    name: str = Field(min_length=1, max_length=100)
    display_name: str = Field(min_length=1)
    source: str = Field(min_length=1, description="upstream config.json URL")
    n_layers: int = Field(gt=0, le=10_000)
    d_model: int = Field(gt=0, le=1_000_000)
    n_heads: int = Field(gt=0, le=100_000)
    n_kv_heads: int = Field(gt=0, le=100_000)
    head_dim: int | None = Field(default=None, gt=0, le=100_000)
    d_ffn: int = Field(gt=0, le=10_000_000, description="dense FFN intermediate width")
    ffn_kind: Literal["gated", "mlp"] = Field(
        description="gated: three matrices (SwiGLU/GeGLU); mlp: two (GELU/ReLU)"
    )
    vocab_size: int = Field(gt=0, le=100_000_000)
    tie_embeddings: bool
    max_ctx: int = Field(gt=0, le=1_000_000_000)
    norm: Literal["rmsnorm", "layernorm"] = "rmsnorm"
    norms_per_layer: int = Field(default=2, ge=0, le=16)
    qkv_bias: bool = False
    o_bias: bool = False
    ffn_bias: bool = False
    dtype: Dtype = Field(default="bf16", description="released weight dtype")
    kv_dtype: Dtype | None = Field(default=None, description="KV-cache dtype; default: dtype")
    mla: MLAConfig | None = None
    moe: MoEConfig | None = None
    ssm: SSMConfig | None = None
    layer_types: list[LayerType] | None = Field(
        default=None, description="one entry per layer (as the config's layer_types)"
    )
    layer_pattern: list[LayerType] | None = Field(
        default=None, description="repeated from layer 0 over all layers (Gemma 2: sliding, full)"
    )
    sliding_window: int | None = Field(
        default=None, gt=0, description="tokens a sliding layer sees"
    )
    attention_chunk_size: int | None = Field(default=None, gt=0, description="chunked layers")
    sink_tokens: int = Field(
        default=0, ge=0, description="StreamingLLM sink tokens a sliding layer keeps beyond W"
    )
    attention_sinks: bool = Field(
        default=False, description="learned per-head sink logit in every attention layer (gpt-oss)"
    )
    qk_norm: bool = Field(default=False, description="RMSNorm on q and k heads (head_dim each)")
    ffn_per_layer: bool = Field(
        default=True, description="false: FFNs only in 'mlp' layers (Nemotron-H)"
    )
    notes: str | None = None

    @model_validator(mode="after")
    def _shapes(self) -> ModelConfig:
        if self.mla is None:
            if self.head_dim is None:
                raise ValueError("head_dim is required (give the config's value, do not derive)")
            if self.n_kv_heads > self.n_heads:
                raise ValueError(f"n_kv_heads ({self.n_kv_heads}) exceeds n_heads ({self.n_heads})")
            if self.n_heads % self.n_kv_heads:
                raise ValueError(
                    f"n_heads ({self.n_heads}) is not divisible by n_kv_heads ({self.n_kv_heads})"
                )
        if self.moe is not None and self.moe.n_dense_layers > self.n_layers:
            raise ValueError(
                f"moe.n_dense_layers ({self.moe.n_dense_layers}) exceeds n_layers ({self.n_layers})"
            )
        if self.layer_types is not None and self.layer_pattern is not None:
            raise ValueError("give layer_types or layer_pattern, not both")
        if self.layer_types is not None and len(self.layer_types) != self.n_layers:
            raise ValueError(
                f"layer_types has {len(self.layer_types)} entries, n_layers is {self.n_layers}"
            )
        if self.layer_pattern is not None and not self.layer_pattern:
            raise ValueError("layer_pattern is empty")
        kinds = set(self.layers)
        if "sliding" in kinds and self.sliding_window is None:
            raise ValueError("sliding layers need sliding_window (tokens)")
        if "chunked" in kinds and self.attention_chunk_size is None:
            raise ValueError("chunked layers need attention_chunk_size (tokens)")
        if kinds & set(SSM_LAYER_TYPES) and self.ssm is None:
            raise ValueError("mamba/mamba2 layers need an ssm: block")
        if (
            "mamba2" in kinds
            and self.ssm is not None
            and not (self.ssm.n_heads and self.ssm.head_dim)
        ):
            raise ValueError("mamba2 layers need ssm.n_heads and ssm.head_dim")
        if "mamba" in kinds and self.ssm is not None and self.ssm.dt_rank is None:
            raise ValueError("mamba layers need ssm.dt_rank")
        if self.mla is not None and kinds - {"full"}:
            raise ValueError("MLA models with windowed or SSM layers are not supported")
        return self

    @property
    def layers(self) -> tuple[str, ...]:
        """The type of every layer: layer_types, layer_pattern repeated, or all 'full'."""
        if self.layer_types is not None:
            return tuple(self.layer_types)
        if self.layer_pattern is not None:
            p = self.layer_pattern
            return tuple(p[i % len(p)] for i in range(self.n_layers))
        return ("full",) * self.n_layers

    def n_layers_of(self, *kinds: str) -> int:
        """How many layers have one of ``kinds`` (e.g. ``n_layers_of("sliding")``)."""
        return sum(1 for t in self.layers if t in kinds)

    @property
    def n_attention_layers(self) -> int:
        """Layers with an attention mixer (full, sliding or chunked): these hold a KV cache."""
        return self.n_layers_of(*ATTENTION_LAYER_TYPES)

    def has_ffn(self, i: int) -> bool:
        """Whether layer ``i`` has an FFN (dense or MoE)."""
        return self.ffn_per_layer or self.layers[i] == "mlp"

    def is_moe_layer(self, i: int) -> bool:
        """Whether layer ``i``'s FFN is a mixture of experts."""
        m = self.moe
        if m is None or not self.has_ffn(i) or i < max(m.n_dense_layers, m.layer_offset):
            return False
        return (i - m.layer_offset) % m.layer_period == 0

    @property
    def attention(self) -> AttentionKind:
        """The attention kind implied by the shape: MLA, or MHA/GQA/MQA by n_kv_heads."""
        if self.mla is not None:
            return "mla"
        if self.n_kv_heads == self.n_heads:
            return "mha"
        if self.n_kv_heads == 1:
            return "mqa"
        return "gqa"

    @property
    def k_head_dim(self) -> int:
        """Width of one key head: head_dim, or for MLA qk_nope_head_dim + qk_rope_head_dim."""
        if self.mla is not None:
            return self.mla.qk_nope_head_dim + self.mla.qk_rope_head_dim
        assert self.head_dim is not None  # guaranteed by _shapes
        return self.head_dim

    @property
    def v_head_dim(self) -> int:
        """Width of one value head: head_dim, or for MLA v_head_dim."""
        if self.mla is not None:
            return self.mla.v_head_dim
        assert self.head_dim is not None
        return self.head_dim

    @property
    def n_moe_layers(self) -> int:
        return sum(1 for i in range(self.n_layers) if self.is_moe_layer(i))

    @property
    def n_dense_ffn_layers(self) -> int:
        return sum(1 for i in range(self.n_layers) if self.has_ffn(i)) - self.n_moe_layers
