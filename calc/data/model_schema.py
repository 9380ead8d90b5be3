"""Strict schema of a model config YAML (shapes in elements, counts in layers/heads).

Plain frozen dataclasses (see calc.data.schema_base): pydantic validates a user's file against
them strictly; a shipped config is built directly and checked against that by the tests.
"""

from functools import cached_property
from typing import Annotated, Literal

from calc.data.schema_base import Bounds, Schema, schema

Dtype = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]
# A stored weight format: a plain dtype or a quantised format with its scales (calc.formulas.quant).
WeightFormat = Literal[
    "fp32",
    "bf16",
    "fp16",
    "fp8",
    "int8",
    "int4",
    "fp4",
    "fp8-tensor",
    "fp8-block128",
    "int8-channel",
    "int4-g128",
    "int4-g128-sym",
    "fp4-g128",
    "mxfp4",
    "nvfp4",
    "mxfp8",
    "nf4-g64",
    "int4-g32",
    "int4-g32-sym",
    "int4-g64",
    "int4-g64-sym",
    "int8-g32",
    "int8-g32-sym",
    "int8-g64",
    "int8-g64-sym",
    "int8-g128",
    "int8-g128-sym",
]
# attention projections (MLA: q_a/q_b/kv_a/kv_b; GQA: q/k/v or fused qkv; o; the sparse
# attention indexer), named as an exclude list names them
AttentionPart = Literal[
    "q_a_proj", "q_b_proj", "kv_a_proj", "kv_b_proj", "q_proj", "k_proj", "v_proj",
    "qkv_proj", "o_proj", "indexer",
]
RopeType = Literal["default", "linear", "dynamic", "yarn", "llama3", "longrope"]
AttentionKind = Literal["mha", "gqa", "mqa", "mla"]
# What one layer's token mixer is. full: attends to (and caches) every earlier token;
# sliding: the last ``sliding_window`` tokens; chunked: tokens of its own
# ``attention_chunk_size``-token chunk (Llama-4 local layers); mamba / mamba2: a selective
# state-space layer with a fixed per-sequence state and no KV cache; linear_attention: a gated
# DeltaNet layer (Qwen3-Next, Qwen3.5), likewise a fixed state (a conv window and a
# d_k × d_v matrix per value head) and no KV cache; mlp: no mixer at all, only a dense FFN
# (Nemotron-H's "-" layers); moe: no mixer, only an MoE FFN (Nemotron-H's "E" layers).
LayerType = Literal[
    "full", "sliding", "chunked", "mamba", "mamba2", "linear_attention", "mlp", "moe"
]
ATTENTION_LAYER_TYPES = ("full", "sliding", "chunked")
# mixers that keep a fixed recurrent state per sequence instead of a KV cache
SSM_LAYER_TYPES = ("mamba", "mamba2", "linear_attention")
FFN_ONLY_LAYER_TYPES = ("mlp", "moe")
# weight components that exist layer by layer (calc.deploy.checkpoint.COMPONENTS)
LAYER_COMPONENTS = ("attention", "dense_ffn", "routed_experts", "shared_experts", "ssm")

Positive = Annotated[int, Bounds(gt=0)]
NonNegative = Annotated[int, Bounds(ge=0)]
Text = Annotated[str, Bounds(min_length=1)]


@schema
class MLAConfig(Schema):
    """Multi-head latent attention (DeepSeek-V2/V3): low-rank Q and joint KV compression."""

    kv_lora_rank: Positive  # width of the cached latent c_KV
    q_lora_rank: Positive | None = None  # None: full-rank W_Q
    qk_rope_head_dim: Positive  # decoupled RoPE key width (cached, shared)
    qk_nope_head_dim: Positive  # per-head non-RoPE query/key width
    v_head_dim: Positive  # per-head value width


@schema
class MoEConfig(Schema):
    """Mixture-of-experts FFN: routed experts, top-k, shared experts, leading dense layers."""

    n_routed_experts: Annotated[int, Bounds(gt=0, le=100_000)]
    experts_per_token: Positive
    n_shared_experts: NonNegative = 0
    d_expert_ffn: Positive  # intermediate width of one routed expert
    d_shared_expert_ffn: Positive | None = None  # width of one shared expert; default d_expert_ffn
    n_dense_layers: NonNegative = 0  # leading layers with a dense FFN
    router_bias: bool = False  # per-expert bias (DeepSeek-V3)
    layer_period: Positive = 1  # every layer_period-th FFN layer is MoE (Jamba: 2)
    layer_offset: NonNegative = 0  # index of the first MoE layer (Jamba: 1)
    # a d_model -> 1 sigmoid gate on the shared experts' output (Qwen2-MoE, Qwen3-Next, Qwen3.5)
    shared_expert_gate: bool = False
    # latent MoE (Nemotron-3 Super): routed experts work in a d_latent-wide space, entered and
    # left through two d_model × d_latent projections per MoE layer; None: d_model
    d_latent: Positive | None = None
    # group-limited routing (DeepSeek-V2/V3: config.json n_group, topk_group): the experts
    # form n_expert_groups contiguous groups and a token picks its experts within
    # expert_groups_per_token of them; 1 and 1: plain top-k
    n_expert_groups: Positive = 1
    expert_groups_per_token: Positive = 1

    def __post_init__(self) -> None:
        if self.experts_per_token > self.n_routed_experts:
            raise ValueError(
                f"experts_per_token ({self.experts_per_token}) exceeds "
                f"n_routed_experts ({self.n_routed_experts})"
            )
        G, g = self.n_expert_groups, self.expert_groups_per_token
        if self.n_routed_experts % G or g > G:
            raise ValueError(
                f"n_expert_groups ({G}) must divide n_routed_experts ({self.n_routed_experts}) "
                f"and expert_groups_per_token ({g}) must not exceed it"
            )
        if self.experts_per_token > g * (self.n_routed_experts // G):
            raise ValueError(
                f"experts_per_token ({self.experts_per_token}) exceeds the experts of "
                f"{g} of {G} groups ({g * (self.n_routed_experts // G)})"
            )

    @property
    def shared_ffn(self) -> int:
        return self.d_shared_expert_ffn or self.d_expert_ffn


@schema
class SSMConfig(Schema):
    """Mamba (v1) or Mamba-2 mixer shape, as the upstream config names it (mamba_* keys)."""

    d_state: Annotated[int, Bounds(gt=0, le=100_000)]  # SSM state width N per channel/head
    d_conv: Annotated[int, Bounds(gt=0, le=1_000)]  # causal conv1d kernel width
    expand: Annotated[int, Bounds(gt=0, le=64)] = 2  # d_inner = expand × d_model
    # inner width; default expand × d_model (Mamba-2: heads × head_dim)
    d_inner: Positive | None = None
    dt_rank: Positive | None = None  # Mamba-1 Δ projection rank
    n_heads: Positive | None = None  # Mamba-2 heads
    head_dim: Positive | None = None  # Mamba-2 head width
    n_groups: Positive = 1  # Mamba-2 B/C groups
    conv_bias: bool = True
    proj_bias: bool = False
    inner_norms: bool = False  # Mamba-1: RMSNorms on Δ, B and C (Jamba's mamba mixer)
    state_dtype: Dtype | None = None  # dtype of the cached conv/SSM state; default the KV dtype
    # dtype of the SSM (recurrent) state alone, when it differs from the conv state's
    # (vLLM: mamba_ssm_cache_dtype; Nemotron-H keeps it in fp32); default state_dtype
    recurrent_dtype: Dtype | None = None


@schema
class LinearAttentionConfig(Schema):
    """Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5), as the config's ``linear_*``
    keys give it: q and k in ``n_key_heads`` heads of ``key_head_dim``, v and the output gate z
    in ``n_value_heads`` heads of ``value_head_dim``, a causal conv1d over q, k and v. Each
    sequence keeps a fixed state per layer (calc.formulas.linear_attention)."""

    n_key_heads: Annotated[int, Bounds(gt=0, le=100_000)]  # linear_num_key_heads
    n_value_heads: Annotated[int, Bounds(gt=0, le=100_000)]  # linear_num_value_heads
    key_head_dim: Annotated[int, Bounds(gt=0, le=100_000)]  # linear_key_head_dim
    value_head_dim: Annotated[int, Bounds(gt=0, le=100_000)]  # linear_value_head_dim
    conv_kernel: Annotated[int, Bounds(gt=0, le=1_000)] = 4  # linear_conv_kernel_dim
    state_dtype: Dtype | None = None  # conv state dtype; default the model's dtype
    # the delta-rule (recurrent) state's dtype (Qwen3.5: mamba_ssm_dtype float32); default
    # state_dtype
    recurrent_dtype: Dtype | None = None

    def __post_init__(self) -> None:
        if self.n_value_heads % self.n_key_heads:
            raise ValueError(
                f"linear_attention.n_value_heads ({self.n_value_heads}) is not a multiple of "
                f"n_key_heads ({self.n_key_heads})"
            )


@schema
class IndexerConfig(Schema):
    """DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2, GLM-5): in every MLA
    layer a small multi-head scorer picks the ``topk`` earlier tokens each query attends to,
    from a cache of one ``head_dim`` key per token (fp8 with a fp32 scale per 128 elements,
    calc.formulas.kv_cache.indexer_key_bytes_per_token)."""

    n_heads: Annotated[int, Bounds(gt=0, le=100_000)]  # index_n_heads
    head_dim: Annotated[int, Bounds(gt=0, le=100_000)]  # index_head_dim
    topk: Annotated[int, Bounds(gt=0, le=1_000_000_000)]  # index_topk
    # indexer_rope_interleave: the indexer rotates interleaved pairs as MLA does (GLM-5), so
    # the engines reuse MLA's RoPE table; false (DeepSeek-V3.2): a second, NeoX-style table
    rope_interleave: bool = False


@schema
class WeightDtypes(Schema):
    """The stored format of each weight component as the checkpoint is released; a component
    left out has the model's ``dtype`` (calc.deploy.checkpoint resolves them)."""

    embedding: WeightFormat | None = None
    lm_head: WeightFormat | None = None
    attention: WeightFormat | None = None  # q/k/v/o projections (MLA: all its projections)
    dense_ffn: WeightFormat | None = None
    routed_experts: WeightFormat | None = None
    shared_experts: WeightFormat | None = None
    router: WeightFormat | None = None
    ssm: WeightFormat | None = None  # Mamba mixers
    norms: WeightFormat | None = None
    vision: WeightFormat | None = None  # vision tower and its projector
    audio: WeightFormat | None = None  # audio tower and its projector


@schema
class TowerConfig(Schema):
    """A ViT-style vision (or audio) encoder and the projector into the text model, as the
    config's ``vision_config`` gives it. Its weights sit in memory; they cost no FLOPs per
    generated token (calc.formulas.params.tower_params counts them)."""

    n_layers: Annotated[int, Bounds(gt=0, le=10_000)]
    d_model: Annotated[int, Bounds(gt=0, le=1_000_000)]  # hidden_size
    d_ffn: Annotated[int, Bounds(gt=0, le=10_000_000)]  # intermediate_size
    ffn_kind: Literal["gated", "mlp"] = "mlp"
    norm: Literal["rmsnorm", "layernorm"] = "layernorm"
    bias: bool = True  # biases on the attention and FFN projections
    n_channels: Annotated[int, Bounds(gt=0, le=64)] = 3
    patch_size: Annotated[int, Bounds(gt=0, le=4_096)]
    patch_bias: bool = True  # the patch-embedding convolution has a bias
    # learned absolute position table entries (0: rotary, e.g. Pixtral); usually
    # (image_size / patch_size)², + 1 with a class token
    n_positions: NonNegative = 0
    class_token: bool = False
    pre_norm: bool = False  # a norm before the first layer (CLIP's pre_layrnorm, Pixtral)
    post_norm: bool = True  # a norm after the last layer
    # projector: matrices [in, out] in order (with a bias each when projector_bias), then
    # projector_norms norms of the given widths
    projector: list[list[Annotated[int, Bounds(gt=0, le=10_000_000)]]] | None = None
    projector_bias: bool = False
    projector_norms: list[Annotated[int, Bounds(gt=0, le=10_000_000)]] | None = None

    def __post_init__(self) -> None:
        if any(len(m) != 2 for m in self.projector or ()):
            raise ValueError("each projector entry is one matrix: [in, out]")


@schema
class RopeScaling(Schema):
    """The config's ``rope_scaling``: how RoPE is stretched past the trained context."""

    type: RopeType
    factor: Annotated[float, Bounds(gt=0, le=100_000)] = 1.0
    original_max_ctx: Positive | None = None  # original_max_position_embeddings
    # multimodal RoPE: the config's rope_parameters carry an ``mrope_section`` (Qwen2-VL,
    # Qwen3.5): positions are (t, h, w) triples; vLLM sizes the table for 4 × the positions
    mrope: bool = False


@schema
class ModelConfig(Schema):
    """One model's architecture, as read from its upstream config.json."""

    name: Annotated[str, Bounds(min_length=1, max_length=100)]
    display_name: Text
    source: Text  # upstream config.json URL
    n_layers: Annotated[int, Bounds(gt=0, le=10_000)]
    d_model: Annotated[int, Bounds(gt=0, le=1_000_000)]
    n_heads: Annotated[int, Bounds(gt=0, le=100_000)]
    n_kv_heads: Annotated[int, Bounds(gt=0, le=100_000)]
    head_dim: Annotated[int, Bounds(gt=0, le=100_000)] | None = None
    d_ffn: Annotated[int, Bounds(gt=0, le=10_000_000)]  # dense FFN intermediate width
    # gated: three matrices (SwiGLU/GeGLU); mlp: two (GELU/ReLU)
    ffn_kind: Literal["gated", "mlp"]
    vocab_size: Annotated[int, Bounds(gt=0, le=100_000_000)]
    tie_embeddings: bool
    max_ctx: Annotated[int, Bounds(gt=0, le=1_000_000_000)]
    norm: Literal["rmsnorm", "layernorm"] = "rmsnorm"
    norms_per_layer: Annotated[int, Bounds(ge=0, le=16)] = 2
    qkv_bias: bool = False
    o_bias: bool = False
    ffn_bias: bool = False
    dtype: Dtype = "bf16"  # released dtype of the unquantised tensors (torch_dtype)
    weight_dtypes: WeightDtypes | None = None  # released format per component; default dtype
    # layers whose component stays in ``dtype`` though weight_dtypes quantises that component
    # elsewhere (an exclude list naming single layers, e.g. ModelOpt's), by component:
    # {ssm: [4, 11]} (calc.deploy.checkpoint weighs each component's bytes by them)
    unquantised_layers: dict[str, list[Annotated[int, Bounds(ge=0, le=10_000)]]] | None = None
    # attention projections every layer keeps in ``dtype`` while the rest of attention is
    # quantised (NVIDIA's NVFP4 DeepSeek releases keep q_a/q_b/kv_a/kv_b and the indexer)
    unquantised_parts: list[AttentionPart] | None = None
    kv_dtype: Dtype | None = None  # KV-cache dtype; default: dtype
    mla: MLAConfig | None = None
    moe: MoEConfig | None = None
    ssm: SSMConfig | None = None
    # one entry per layer (as the config's layer_types)
    layer_types: list[LayerType] | None = None
    # repeated from layer 0 over all layers (Gemma 2: sliding, full)
    layer_pattern: list[LayerType] | None = None
    sliding_window: Positive | None = None  # tokens a sliding layer sees
    attention_chunk_size: Positive | None = None  # chunked layers
    sink_tokens: NonNegative = 0  # StreamingLLM sink tokens a sliding layer keeps beyond W
    attention_sinks: bool = False  # learned per-head sink logit in every attention layer (gpt-oss)
    qk_norm: bool = False  # RMSNorm on q and k heads (head_dim each)
    # head: one norm of head_dim for q and one for k, shared by the heads (Qwen3, Gemma 3);
    # layer: one over all q heads and one over all KV heads (MiniMax-M2's per_layer)
    qk_norm_scope: Literal["head", "layer"] = "head"
    # q_proj also yields a per-head sigmoid gate on the attention output (Qwen3-Next, Qwen3.5):
    # one more n_heads × head_dim × d_model matrix per attention layer
    attn_output_gate: bool = False
    lm_head_bias: bool = False  # the output projection has a bias (Phi-2)
    ffn_per_layer: bool = True  # false: FFNs only in 'mlp'/'moe' layers (Nemotron-H)
    linear_attention: LinearAttentionConfig | None = None  # gated DeltaNet layers' shape
    indexer: IndexerConfig | None = None  # DeepSeek sparse attention (needs mla)
    # multi-token-prediction modules after the last layer (num_nextn_predict_layers): loaded
    # only for MTP speculative decoding, so not in the parameter totals
    # (calc.formulas.params.mtp_params)
    mtp_layers: Annotated[int, Bounds(ge=0, le=64)] = 0
    rope_scaling: RopeScaling | None = None
    # RoPE's rotary width per attention head [elements]: config.json's ``rotary_dim``
    # (MiniMax-M2), or head_dim × ``partial_rotary_factor`` (``rotary_pct``; Qwen3-Next,
    # Qwen3.5, GLM-4, Phi-2) as the engines' get_rope truncate it; 0: no RoPE (Jamba,
    # Nemotron-H attention); None: head_dim (MLA: qk_rope_head_dim, ``rotary_width``)
    rotary_dim: NonNegative | None = None
    # the sliding layers rotate with their own, unscaled RoPE (Gemma 3: rope_local_base_freq,
    # rope_parameters.sliding_attention) beside the full layers' scaled one: a second table
    local_rope: bool = False
    vision: TowerConfig | None = None  # vision encoder + projector (multimodal checkpoints)
    audio: TowerConfig | None = None  # audio encoder + projector
    # config.json's ``architectures[0]`` and top-level ``model_type`` (a multimodal wrapper's,
    # not its text_config's): engines key per-model start-up rules on them (vLLM's model
    # config hooks by architecture, its multimodal prefix-LM list by model_type)
    architecture: Annotated[str, Bounds(min_length=1, max_length=100)] | None = None
    model_type: Annotated[str, Bounds(min_length=1, max_length=100)] | None = None
    notes: str | None = None
    # what an import from config.json assumed where the config did not say (best-effort
    # reading of an unknown model_type); shown as warnings by every command
    assumed: list[Text] | None = None
    # bytes of the checkpoint's tensors as its model.safetensors.index.json states them
    # (metadata.total_size); compared with the analytic weights (calc.deploy.checkpoint)
    checkpoint_bytes: Annotated[int, Bounds(gt=0)] | None = None

    def __post_init__(self) -> None:
        """The cross-field checks (shapes agree; each layer kind has what it needs)."""
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
        if kinds & {"mamba", "mamba2"} and self.ssm is None:
            raise ValueError("mamba/mamba2 layers need an ssm: block")
        if (
            "mamba2" in kinds
            and self.ssm is not None
            and not (self.ssm.n_heads and self.ssm.head_dim)
        ):
            raise ValueError("mamba2 layers need ssm.n_heads and ssm.head_dim")
        if "mamba" in kinds and self.ssm is not None and self.ssm.dt_rank is None:
            raise ValueError("mamba layers need ssm.dt_rank")
        if "linear_attention" in kinds and self.linear_attention is None:
            raise ValueError("linear_attention layers need a linear_attention: block")
        if "moe" in kinds and self.moe is None:
            raise ValueError("moe layers need a moe: block")
        if "moe" in kinds and self.ffn_per_layer:
            raise ValueError("moe layers are FFN-only layers: set ffn_per_layer: false")
        if self.mla is not None and kinds - {"full", *SSM_LAYER_TYPES, *FFN_ONLY_LAYER_TYPES}:
            raise ValueError("MLA models with windowed attention layers are not supported")
        if self.indexer is not None and self.mla is None:
            raise ValueError("indexer (sparse attention) needs an mla: block")
        if self.rotary_dim is not None and self.mla is not None:
            raise ValueError("MLA's rotary width is mla.qk_rope_head_dim: leave rotary_dim out")
        if self.rotary_dim is not None and self.head_dim and self.rotary_dim > self.head_dim:
            raise ValueError(f"rotary_dim ({self.rotary_dim}) exceeds head_dim ({self.head_dim})")
        for comp, idx in (self.unquantised_layers or {}).items():
            if comp not in LAYER_COMPONENTS:
                raise ValueError(
                    f"unquantised_layers: {comp!r} is not a per-layer component (one of "
                    f"{', '.join(LAYER_COMPONENTS)})"
                )
            if any(i >= self.n_layers for i in idx):
                raise ValueError(
                    f"unquantised_layers.{comp} names layer {max(idx)}; the model has "
                    f"{self.n_layers} layers"
                )

    @property
    def context_limit(self) -> int:
        """The longest context the model is meant to run [tokens].

        max_position_embeddings (``max_ctx``) unless the RoPE scaling stretches it: YaRN and
        dynamic NTK scale the original length (original_max_position_embeddings, default
        max_position_embeddings) by ``factor``, linear scaling likewise when the config gives
        the original length; llama3 and longrope configs (and linear ones without an original
        length, e.g. Gemma 3) already state the stretched length as max_position_embeddings.
        The largest of the two counts.
        """
        r = self.rope_scaling
        if r is None or r.type in ("default", "llama3", "longrope"):
            return self.max_ctx
        if r.type == "linear" and r.original_max_ctx is None:
            return self.max_ctx
        return max(self.max_ctx, int((r.original_max_ctx or self.max_ctx) * r.factor))

    @cached_property
    def layers(self) -> tuple[str, ...]:
        """The type of every layer: layer_types, layer_pattern repeated, or all 'full' (computed
        once: a frozen config never changes)."""
        if self.layer_types is not None:
            return tuple(self.layer_types)
        if self.layer_pattern is not None:
            p = self.layer_pattern
            return tuple(p[i % len(p)] for i in range(self.n_layers))
        return ("full",) * self.n_layers

    @cached_property
    def layer_counts(self) -> dict[str, int]:
        """How many layers of each type (computed once, as ``layers``)."""
        from collections import Counter

        return dict(Counter(self.layers))

    def n_layers_of(self, *kinds: str) -> int:
        """How many layers have one of ``kinds`` (e.g. ``n_layers_of("sliding")``)."""
        counts = self.layer_counts
        if len(kinds) == 1:  # the common call, without the set
            return counts.get(kinds[0], 0)
        return sum(counts.get(k, 0) for k in set(kinds))

    @property
    def n_attention_layers(self) -> int:
        """Layers with an attention mixer (full, sliding or chunked): these hold a KV cache."""
        return self.n_layers_of(*ATTENTION_LAYER_TYPES)

    def has_ffn(self, i: int) -> bool:
        """Whether layer ``i`` has an FFN (dense or MoE)."""
        return self.ffn_per_layer or self.layers[i] in FFN_ONLY_LAYER_TYPES

    def layer_has(self, component: str, i: int) -> bool:
        """Whether layer ``i`` has the linear ``component`` (attention, ssm, dense_ffn,
        routed_experts, shared_experts: ``calc.data.hf_quant.LINEAR``)."""
        kind = self.layers[i]
        if component == "attention":
            return kind in ATTENTION_LAYER_TYPES
        if component == "ssm":
            return kind in SSM_LAYER_TYPES
        if component == "dense_ffn":
            return self.has_ffn(i) and not self.is_moe_layer(i)
        if component == "shared_experts":
            return self.is_moe_layer(i) and bool(self.moe and self.moe.n_shared_experts)
        return self.is_moe_layer(i)

    def is_moe_layer(self, i: int) -> bool:
        """Whether layer ``i``'s FFN is a mixture of experts (an FFN-only model: its 'moe'
        layers)."""
        m = self.moe
        if m is None or not self.has_ffn(i):
            return False
        if not self.ffn_per_layer:
            return self.layers[i] == "moe"
        if i < max(m.n_dense_layers, m.layer_offset):
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
    def rotary_width(self) -> int:
        """RoPE's rotary width per head [elements]: MLA's qk_rope_head_dim, else ``rotary_dim``
        (0: no RoPE), else head_dim (the width of every engine's cos/sin table row)."""
        if self.mla is not None:
            return self.mla.qk_rope_head_dim
        if self.rotary_dim is not None:
            return self.rotary_dim
        return self.k_head_dim

    @property
    def rope_tables(self) -> int:
        """Distinct RoPE tables the model's attention needs [tables]: none without RoPE; a
        second where DeepSeek sparse attention's indexer rotates NeoX-style beside MLA's
        interleaved RoPE (vLLM deepseek_v2.py ``indexer_rope_emb``, SGLang dsa_indexer.py:
        ``get_rope`` keys its tables by ``is_neox_style``)."""
        if self.rotary_width == 0:
            return 0
        return 2 if self.indexer is not None and not self.indexer.rope_interleave else 1

    @property
    def v_head_dim(self) -> int:
        """Width of one value head: head_dim, or for MLA v_head_dim."""
        if self.mla is not None:
            return self.mla.v_head_dim
        assert self.head_dim is not None
        return self.head_dim

    @cached_property
    def n_moe_layers(self) -> int:
        return sum(1 for i in range(self.n_layers) if self.is_moe_layer(i))

    @cached_property
    def n_dense_ffn_layers(self) -> int:
        return sum(1 for i in range(self.n_layers) if self.has_ffn(i)) - self.n_moe_layers
