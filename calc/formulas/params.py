"""Parameter counts [parameters] of each part of a transformer, as pure functions of its shape.

Every function takes plain numbers (ints, or numpy arrays that broadcast) and returns a count
of weights. ``model_params`` composes them for a ModelConfig; it adds no arithmetic of its own
beyond multiplying per-layer counts by how many layers have them.
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.data.model_schema import ModelConfig, TowerConfig


def qk_norm_params(head_dim, qk_norm=True, n_heads=1, n_kv_heads=1):
    """RMSNorm on queries and keys: per head, one head_dim norm each shared by all heads
    (Qwen3, Gemma 3: 2 × head_dim per layer); over the whole layer (MiniMax-M2's per_layer
    norms), pass the head counts: (n_heads + n_kv_heads) × head_dim."""
    return (n_heads + n_kv_heads) * head_dim * qk_norm


def attention_sink_params(n_heads, sinks=True):
    """Learned sink logit per head (gpt-oss): n_heads per attention layer."""
    return n_heads * sinks


def embedding_params(vocab_size, d_model):
    """Token embedding table: vocab_size × d_model."""
    return vocab_size * d_model


def attention_params(
    d_model, n_heads, n_kv_heads, head_dim, qkv_bias=False, o_bias=False, output_gate=False
):
    """MHA/GQA/MQA projections: W_Q (d × h·hd), W_K and W_V (d × kv·hd each), W_O (h·hd × d).

    Biases add h·hd + 2·kv·hd (QKV) and d (O). An output gate (Qwen3-Next, Qwen3.5: q_proj
    also yields a per-head sigmoid gate of the attention output) adds d × h·hd.
    """
    q = d_model * n_heads * head_dim * (1 + output_gate)
    kv = 2 * d_model * n_kv_heads * head_dim
    o = n_heads * head_dim * d_model
    bias = (n_heads + 2 * n_kv_heads) * head_dim * qkv_bias + d_model * o_bias
    return q + kv + o + bias


def indexer_params(d_model, q_lora_rank, n_index_heads, index_head_dim):
    """DeepSeek sparse attention's lightning indexer in one layer [parameters]: wq_b
    (q_lora × heads·hd), wk (d × hd), weights_proj (d × heads), k_norm LayerNorm (2·hd)
    (vLLM deepseek_v2.py ``Indexer``)."""
    return (
        q_lora_rank * n_index_heads * index_head_dim
        + d_model * index_head_dim
        + d_model * n_index_heads
        + 2 * index_head_dim
    )


def mla_attention_params(
    d_model, n_heads, kv_lora_rank, q_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim
):
    """Multi-head latent attention (DeepSeek-V2/V3) projections, norms of the latents included.

    Q: d × q_lora + q_lora (norm) + q_lora × h·(nope+rope); or d × h·(nope+rope) if q_lora is 0.
    KV: d × (kv_lora + rope) [W_DKV and the shared RoPE key] + kv_lora (norm)
        + kv_lora × h·(nope + v) [W_UK, W_UV].
    O: h·v × d.
    """
    qk_head = qk_nope_head_dim + qk_rope_head_dim
    if q_lora_rank:
        q = d_model * q_lora_rank + q_lora_rank + q_lora_rank * n_heads * qk_head
    else:
        q = d_model * n_heads * qk_head
    kv = (
        d_model * (kv_lora_rank + qk_rope_head_dim)
        + kv_lora_rank
        + kv_lora_rank * n_heads * (qk_nope_head_dim + v_head_dim)
    )
    o = n_heads * v_head_dim * d_model
    return q + kv + o


def ffn_params(d_model, d_ffn, gated, bias=False):
    """One FFN: gated (SwiGLU) 3·d·d_ffn, plain MLP 2·d·d_ffn; bias adds d_ffn·(1+gated) + d."""
    n_mat = 2 + gated
    return n_mat * d_model * d_ffn + bias * (d_ffn * (1 + gated) + d_model)


def router_params(d_model, n_routed_experts, router_bias=False, shared_expert_gate=False):
    """MoE gate: d × n_experts, plus one bias per expert where the model has it, plus the
    shared experts' d → 1 gate where the model has one (Qwen2-MoE, Qwen3-Next)."""
    gate = d_model * shared_expert_gate
    return d_model * n_routed_experts + n_routed_experts * router_bias + gate


def latent_projection_params(d_model, d_latent):
    """A latent MoE's two projections into and out of the experts' space [parameters]:
    2 × d × d_latent per MoE layer (0 without a latent space)."""
    return 2 * d_model * d_latent if d_latent else 0


def moe_layer_params(
    d_model,
    n_experts,
    d_expert_ffn,
    n_shared_experts,
    d_shared_ffn,
    n_routed_experts,
    gated,
    ffn_bias=False,
    router_bias=False,
):
    """FFN parameters of one MoE layer holding ``n_experts`` routed experts (all of them, or one
    GPU's share): the experts (with the FFN bias), the shared experts (no bias) and the router
    over all ``n_routed_experts``."""
    return (
        n_experts * ffn_params(d_model, d_expert_ffn, gated, ffn_bias)
        + n_shared_experts * ffn_params(d_model, d_shared_ffn, gated)
        + router_params(d_model, n_routed_experts, router_bias)
    )


def norm_params(d_model, layernorm):
    """One norm: RMSNorm has a scale (d); LayerNorm a scale and a bias (2d)."""
    return d_model * (1 + layernorm)


def tower_params(
    n_layers,
    d_model,
    d_ffn,
    gated,
    layernorm,
    bias,
    n_channels,
    patch_size,
    patch_bias,
    n_positions,
    class_token,
    pre_norm,
    post_norm,
):
    """A ViT encoder (vision tower; audio encoders of the same shape) [parameters].

    Patch embedding: a conv of n_channels·patch²·d (+ d bias); learned positions
    n_positions·d; a class token d. Each layer: attention 4·d² (+ 4·d bias), FFN
    (gated 3, plain 2 matrices of d·d_ffn, biases d_ffn·(1+gated) + d), two norms. Norms
    before the first and after the last layer where the encoder has them.
    """
    norm = norm_params(d_model, layernorm)
    layer = (
        4 * d_model * d_model
        + 4 * d_model * bias
        + ffn_params(d_model, d_ffn, gated, bias)
        + 2 * norm
    )
    patch = n_channels * patch_size * patch_size * d_model + d_model * patch_bias
    return (
        patch
        + n_positions * d_model
        + d_model * class_token
        + n_layers * layer
        + norm * (pre_norm + post_norm)
    )


def projector_params(matrices, bias=False, norm_widths=()):
    """The projector from a tower into the text model [parameters]: each [in, out] matrix
    in·out (+ out bias), plus RMS/LayerNorm scales of the given widths."""
    return sum(i * o + o * bias for i, o in matrices) + sum(norm_widths)


def tower_config_params(t: TowerConfig | None) -> int:
    """All parameters of one tower config, encoder and projector (0 for None)."""
    if t is None:
        return 0
    return tower_params(
        t.n_layers,
        t.d_model,
        t.d_ffn,
        t.ffn_kind == "gated",
        t.norm == "layernorm",
        t.bias,
        t.n_channels,
        t.patch_size,
        t.patch_bias,
        t.n_positions,
        t.class_token,
        t.pre_norm,
        t.post_norm,
    ) + projector_params(t.projector or (), t.projector_bias, t.projector_norms or ())


@dataclass(frozen=True)
class ParamBreakdown:
    """Parameter counts of a model by part [parameters]."""

    embedding: int
    lm_head: int
    attention: int  # all layers
    dense_ffn: int  # all dense-FFN layers
    moe_routed: int  # all routed experts of all MoE layers
    moe_routed_active: int  # experts_per_token of them per MoE layer
    moe_shared: int
    router: int
    norms: int
    ssm: int = 0  # all Mamba/Mamba-2 mixers
    vision: int = 0  # vision tower + projector (memory only: no FLOPs per text token)
    audio: int = 0  # audio tower + projector

    @property
    def text(self) -> int:
        """The language model alone (no vision/audio tower) [parameters]."""
        return self.total - self.vision - self.audio

    @property
    def total(self) -> int:
        return (
            self.embedding
            + self.lm_head
            + self.attention
            + self.dense_ffn
            + self.moe_routed
            + self.moe_shared
            + self.router
            + self.norms
            + self.ssm
            + self.vision
            + self.audio
        )

    @property
    def active(self) -> int:
        """Parameters one text token touches: everything but the routed experts it skips and
        the vision/audio towers (which run once per image or clip, not per token)."""
        return self.text - self.moe_routed + self.moe_routed_active


def layer_qk_norm_params(cfg: ModelConfig) -> int:
    """q/k norm weights of one attention layer of ``cfg`` [params] (0 without q/k norms)."""
    if cfg.qk_norm_scope == "layer":
        return qk_norm_params(cfg.k_head_dim, cfg.qk_norm, cfg.n_heads, cfg.n_kv_heads)
    return qk_norm_params(cfg.k_head_dim, cfg.qk_norm)


def layer_indexer_params(cfg: ModelConfig) -> int:
    """The sparse-attention indexer of one attention layer of ``cfg`` [params] (0 without)."""
    ix = cfg.indexer
    if ix is None or cfg.mla is None:
        return 0
    return indexer_params(cfg.d_model, cfg.mla.q_lora_rank or cfg.d_model, ix.n_heads, ix.head_dim)


def layer_attention_params(cfg: ModelConfig) -> int:
    """Attention parameters of one attention layer of ``cfg`` (MLA or MHA/GQA/MQA), with its
    q/k norms, learned sinks, output gate and sparse-attention indexer where the model has
    them."""
    extra = (
        layer_qk_norm_params(cfg)
        + attention_sink_params(cfg.n_heads, cfg.attention_sinks)
        + layer_indexer_params(cfg)
    )
    if cfg.mla is not None:
        m = cfg.mla
        return (
            mla_attention_params(
                cfg.d_model,
                cfg.n_heads,
                m.kv_lora_rank,
                m.q_lora_rank or 0,
                m.qk_rope_head_dim,
                m.qk_nope_head_dim,
                m.v_head_dim,
            )
            + extra
        )
    return extra + attention_params(
        cfg.d_model,
        cfg.n_heads,
        cfg.n_kv_heads,
        cfg.k_head_dim,
        cfg.qkv_bias,
        cfg.o_bias,
        cfg.attn_output_gate,
    )


def expert_params(cfg: ModelConfig, d_expert_ffn: int | None = None) -> int:
    """One routed expert of ``cfg`` [params] (width ``d_expert_ffn``, default the config's),
    in the latent space of a latent MoE."""
    m = cfg.moe
    assert m is not None
    width = m.d_expert_ffn if d_expert_ffn is None else d_expert_ffn
    return ffn_params(m.d_latent or cfg.d_model, width, cfg.ffn_kind == "gated", cfg.ffn_bias)


# model_params' answers by config object (the config kept beside its answer, so its id stays
# its own): a frozen config never changes, and a plan asks for one config's counts hundreds
# of times
_COUNTED: dict[int, tuple[ModelConfig, ParamBreakdown]] = {}
_COUNTED_MAX = 256  # configs remembered before the memo starts afresh (a long-lived process)


def model_params(cfg: ModelConfig) -> ParamBreakdown:
    """Total and per-part parameter counts of ``cfg`` (no MTP/draft modules).

    Attention counts once per attention layer (full, sliding or chunked), SSM mixers once per
    Mamba layer, FFNs once per layer that has one (dense or MoE by ``cfg.is_moe_layer``).
    Counted once per config object (``_COUNTED``).
    """
    hit = _COUNTED.get(id(cfg))
    if hit is not None and hit[0] is cfg:
        return hit[1]
    out = _count_params(cfg)
    if len(_COUNTED) >= _COUNTED_MAX:
        _COUNTED.clear()
    _COUNTED[id(cfg)] = (cfg, out)
    return out


def _count_params(cfg: ModelConfig) -> ParamBreakdown:
    """``model_params`` counted afresh."""
    from calc.data.model_schema import SSM_LAYER_TYPES
    from calc.formulas.ssm import layer_ssm_params

    gated = cfg.ffn_kind == "gated"
    layernorm = cfg.norm == "layernorm"
    emb = embedding_params(cfg.vocab_size, cfg.d_model)
    moe = cfg.moe
    n_moe, n_dense = cfg.n_moe_layers, cfg.n_dense_ffn_layers
    expert = 0 if moe is None else expert_params(cfg)
    latent = 0 if moe is None else latent_projection_params(cfg.d_model, moe.d_latent)
    shared_gate = moe is not None and moe.shared_expert_gate and moe.n_shared_experts > 0
    return ParamBreakdown(
        embedding=emb,
        lm_head=(0 if cfg.tie_embeddings else emb) + cfg.vocab_size * cfg.lm_head_bias,
        attention=cfg.n_attention_layers * layer_attention_params(cfg),
        dense_ffn=n_dense * ffn_params(cfg.d_model, cfg.d_ffn, gated, cfg.ffn_bias),
        moe_routed=0 if moe is None else n_moe * (moe.n_routed_experts * expert + latent),
        moe_routed_active=0 if moe is None else n_moe * (moe.experts_per_token * expert + latent),
        moe_shared=0
        if moe is None
        else n_moe * moe.n_shared_experts * ffn_params(cfg.d_model, moe.shared_ffn, gated),
        router=0
        if moe is None
        else n_moe * router_params(cfg.d_model, moe.n_routed_experts, moe.router_bias, shared_gate),
        norms=(cfg.n_layers * cfg.norms_per_layer + 1) * norm_params(cfg.d_model, layernorm),
        ssm=sum(
            n * layer_ssm_params(cfg, k) for k in SSM_LAYER_TYPES if (n := cfg.n_layers_of(k))
        ),
        vision=tower_config_params(cfg.vision),
        audio=tower_config_params(cfg.audio),
    )


def attention_norm_params(cfg: ModelConfig) -> int:
    """Norm weights inside one attention layer [params]: MLA's latent norms (q_lora_rank +
    kv_lora_rank), the q/k norms and the sparse-attention indexer's key LayerNorm
    (2 × index head_dim). Checkpoints store them as norms (unquantised), so
    ``params_by_component`` moves them from attention to norms."""
    mla = 0 if cfg.mla is None else (cfg.mla.q_lora_rank or 0) + cfg.mla.kv_lora_rank
    index = 0 if cfg.indexer is None else 2 * cfg.indexer.head_dim
    return mla + layer_qk_norm_params(cfg) + index


def mtp_params(cfg: ModelConfig) -> int:
    """Parameters of the multi-token-prediction modules [params], not in ``model_params``:
    each is one more decoder layer (attention and, as the model's last layer, an MoE FFN if
    the model has experts) with its two norms, a 2·d × d projection of the concatenated
    embedding and hidden state, and three norms of d (embedding, hidden, output); the
    embedding and lm_head are the main model's (DeepSeek-V3, Qwen3-Next, GLM-4.5 MTP
    layouts). A checkpoint that stores its own copies of them is larger."""
    if not cfg.mtp_layers:
        return 0
    d = cfg.d_model
    gated = cfg.ffn_kind == "gated"
    m = cfg.moe
    if m is None:
        ffn = ffn_params(d, cfg.d_ffn, gated, cfg.ffn_bias)
    else:
        ffn = (
            m.n_routed_experts * expert_params(cfg)
            + latent_projection_params(d, m.d_latent)
            + m.n_shared_experts * ffn_params(d, m.shared_ffn, gated)
            + router_params(d, m.n_routed_experts, m.router_bias,
                            m.shared_expert_gate and m.n_shared_experts > 0)
        )  # fmt: skip
    norm = norm_params(d, cfg.norm == "layernorm")
    layer = layer_attention_params(cfg) + ffn + 2 * norm
    return cfg.mtp_layers * (layer + 2 * d * d + 3 * norm)


def attention_part_params(cfg: ModelConfig, part: str) -> int:
    """Parameters of one projection of one attention layer of ``cfg`` [params] (whole model,
    tp = 1), named as checkpoint exclude lists name them: MLA's q_a/q_b/kv_a/kv_b, GQA's
    q/k/v (or fused qkv), o, and the sparse-attention indexer (its norm counted as a norm);
    0 for a part the model does not have."""
    d, h = cfg.d_model, cfg.n_heads
    if part == "indexer":
        return layer_indexer_params(cfg) - (2 * cfg.indexer.head_dim if cfg.indexer else 0)
    if cfg.mla is not None:
        m = cfg.mla
        q_lora = m.q_lora_rank or 0
        sizes = {
            "q_a_proj": d * q_lora,
            "q_b_proj": q_lora * h * (m.qk_nope_head_dim + m.qk_rope_head_dim) if q_lora else 0,
            "q_proj": 0 if q_lora else d * h * (m.qk_nope_head_dim + m.qk_rope_head_dim),
            "kv_a_proj": d * (m.kv_lora_rank + m.qk_rope_head_dim),
            "kv_b_proj": m.kv_lora_rank * h * (m.qk_nope_head_dim + m.v_head_dim),
            "o_proj": h * m.v_head_dim * d,
        }
        return sizes.get(part, 0)
    hd, kv = cfg.k_head_dim, cfg.n_kv_heads
    q = (d * h * hd) * (1 + cfg.attn_output_gate) + h * hd * cfg.qkv_bias
    k = d * kv * hd + kv * hd * cfg.qkv_bias
    sizes = {
        "q_proj": q,
        "k_proj": k,
        "v_proj": k,
        "qkv_proj": q + 2 * k,
        "o_proj": h * hd * d + d * cfg.o_bias,
    }
    return sizes.get(part, 0)
