"""Strict schema of a model config YAML (shapes in elements, counts in layers/heads)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Dtype = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]
AttentionKind = Literal["mha", "gqa", "mqa", "mla"]

_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


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
        return self

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
        return 0 if self.moe is None else self.n_layers - self.moe.n_dense_layers

    @property
    def n_dense_ffn_layers(self) -> int:
        return self.n_layers - self.n_moe_layers
