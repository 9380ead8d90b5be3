"""What each known Hugging Face ``model_type``'s modelling code does that its config.json leaves
unsaid (FFN kind, norms per layer, biases, q/k norms, defaults of omitted keys), as data.

The importer (calc.data.hf_import) reads the architecture from a config's keys: layer types,
attention kind, MoE shape. A family here adds only the facts no key states. A ``model_type``
not listed is read from its keys all the same, with the generic family ``GENERIC`` and a
warning naming each assumption; ``ALIASES`` maps the names of released models that reuse a
family's code (``kimi_k2`` is DeepSeek-V3's architecture) to that family.

Sources: Transformers' and vLLM's modelling code for each family (vLLM 0.33:
vllm/model_executor/models/<family>.py; the config classes' defaults in
vllm/transformers_utils/configs and transformers' configuration_<family>.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Family:
    """Facts of one model family's code (None: read the config's key, e.g. attention_bias)."""

    name: str
    ffn: str = "gated"  # gated: gate/up/down (SwiGLU, GeGLU); mlp: up/down (GELU, relu²)
    norm: str = "rmsnorm"
    norms_per_layer: int = 2
    qkv_bias: bool | None = None  # None: attention_bias (default False)
    o_bias: bool | None = None  # None: as the q/k/v bias
    qk_norm: bool | None = None  # None: use_qk_norm / qk_layernorm (default False)
    tie: bool = False  # transformers' default of tie_word_embeddings
    shared_expert_gate: bool = False  # Qwen-style sigmoid gate on the shared expert
    router_bias: bool | None = None  # None: topk_method noaux_tc / use_routing_bias
    attn_output_gate: bool = False  # default of attn_output_gate (Qwen3-Next: True)
    lm_head_bias: bool = False
    parallel_block: bool = False  # attention and FFN read one norm (Phi-2, GPT-J)
    rope: bool = True  # False: the attention has no rotary embedding (Jamba, Nemotron-H)
    # the sliding layers' own RoPE (Gemma 3's rope_local_base_freq, unscaled)
    local_rope: bool = False
    ffn_bias: bool | None = None  # None: mlp_bias (default False)
    # keys the config class fills in when the file omits them
    defaults: dict[str, Any] = field(default_factory=dict)


_LLAMA = Family("llama")
_QWEN2 = Family("qwen2", qkv_bias=True, o_bias=False)
_QWEN3 = Family("qwen3", qk_norm=True)
_QWEN_HYBRID = Family(
    "qwen3_next", qk_norm=True, shared_expert_gate=True, attn_output_gate=True
)
_DEEPSEEK = Family("deepseek_v3")

FAMILIES: dict[str, Family] = {
    "llama": _LLAMA,
    "mistral": Family("mistral"),
    "mixtral": Family("mixtral"),
    "phi3": Family("phi3"),
    "granite": Family("granite"),  # Llama's layers; the multipliers change no size
    "mimo": Family("mimo", qkv_bias=True, o_bias=False),  # Qwen2's attention
    "qwen2": _QWEN2,
    "qwen2_moe": Family("qwen2_moe", qkv_bias=True, o_bias=False, shared_expert_gate=True),
    "qwen3": _QWEN3,
    "qwen3_moe": Family("qwen3_moe", qk_norm=True),
    "qwen3_vl_text": _QWEN3,
    "qwen3_vl_moe_text": Family("qwen3_moe", qk_norm=True),
    "qwen3_next": _QWEN_HYBRID,
    "qwen3_5_text": _QWEN_HYBRID,
    "qwen3_5_moe_text": _QWEN_HYBRID,
    "deepseek_v2": Family("deepseek_v2"),
    "deepseek_v3": _DEEPSEEK,
    "deepseek_v32": Family("deepseek_v32"),
    "glm_moe_dsa": Family("glm_moe_dsa", router_bias=True),
    "glm4_moe_lite": Family("glm4_moe_lite", router_bias=True),
    # GLM-4.5/4.6: q/k/v biases by attention_bias, none on o_proj; e_score_correction_bias
    # always (vLLM glm4_moe.py Glm4MoE: gate.e_score_correction_bias)
    "glm4_moe": Family("glm4_moe", o_bias=False, router_bias=True),
    "minimax_m2": Family("minimax_m2"),
    "gemma": Family("gemma", tie=True),  # GeGLU, 2 RMSNorms (input, post-attention)
    "gemma2": Family("gemma2", norms_per_layer=4, tie=True),
    "gemma3": Family("gemma3", norms_per_layer=4, qk_norm=True, tie=True, local_rope=True),
    "gemma3_text": Family(
        "gemma3_text", norms_per_layer=4, qk_norm=True, tie=True, local_rope=True
    ),
    "gpt_oss": Family("gpt_oss", qkv_bias=True, o_bias=True, ffn_bias=True, router_bias=True),
    "jamba": Family("jamba", rope=False),  # no positional embedding (vLLM jamba.py)
    # Nemotron-H: one RMSNorm per single-mixer layer, relu² MLPs and experts, no biases, no
    # RoPE (vLLM's and SGLang's nemotron_h.py build no rotary embedding)
    "nemotron_h": Family(
        "nemotron_h", ffn="mlp", norms_per_layer=1, router_bias=True, rope=False
    ),
    "falcon": Family("falcon", ffn="mlp", norm="layernorm", tie=True),
    # Llama 4's use_qk_norm is a weightless L2 norm (Llama4TextL2Norm): no parameters
    "llama4_text": Family("llama4_text", qk_norm=False),
    # Phi-2: one LayerNorm feeds attention and MLP in parallel; every projection has a bias,
    # lm_head too (transformers modeling_phi.py)
    "phi": Family(
        "phi",
        ffn="mlp",
        norm="layernorm",
        norms_per_layer=1,
        qkv_bias=True,
        o_bias=True,
        ffn_bias=True,
        lm_head_bias=True,
        parallel_block=True,
    ),
}
# released model_types that reuse a family's code unchanged
ALIASES = {"kimi_k2": "deepseek_v3"}

# What a family's Transformers config class defaults to, for keys released configs omit.
DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma3_text": {  # Gemma3TextConfig.__init__
        "vocab_size": 262_208,
        "max_position_embeddings": 131_072,
        "sliding_window": 4096,
        "sliding_window_pattern": 6,
        "head_dim": 256,
        "tie_word_embeddings": True,
    },
    "llama4_text": {  # Llama4TextConfig.__init__
        "interleave_moe_layer_step": 1,
        "intermediate_size_mlp": 16384,
        "no_rope_layer_interval": 4,
    },
    "qwen3_next": {"full_attention_interval": 4},  # Qwen3NextConfig.__init__
    # GLM-4.5/4.6 rotate half of each head when the config omits it (vLLM glm4_moe.py
    # rope_parameters.setdefault("partial_rotary_factor", 0.5); SGLang's getattr(..., 0.5))
    "glm4_moe": {"partial_rotary_factor": 0.5},
}

# the text model inside each multimodal wrapper whose text_config may omit model_type
INNER_TYPES = {
    "gemma3": "gemma3_text",
    "llama4": "llama4_text",
    "mistral3": "mistral",
    "qwen3_5": "qwen3_5_text",
    "qwen3_5_moe": "qwen3_5_moe_text",
    "qwen3_vl": "qwen3_vl_text",
    "qwen3_vl_moe": "qwen3_vl_moe_text",
    "kimi_vl": "deepseek_v3",
    "kimi_k25": "deepseek_v3",
    "llava": "llama",
}

# model_types that are not decoder-only language models: refused by name
NOT_DECODERS = frozenset(
    "bert roberta distilbert albert electra deberta deberta-v2 xlm-roberta t5 mt5 umt5 bart "
    "mbart pegasus marian whisper clip siglip vit wav2vec2 hubert".split()
)

# the generic family an unknown model_type is read with; the importer lists these
GENERIC = Family("generic")
GENERIC_ASSUMPTIONS = (
    "RMSNorm, two norms per layer",
    "a gated (SwiGLU-style, 3-matrix) FFN",
    "no biases unless attention_bias / mlp_bias say so",
)


def family_of(model_type: str | None) -> Family | None:
    """The known family of ``model_type`` (aliases resolved), or None."""
    if model_type is None:
        return None
    return FAMILIES.get(ALIASES.get(model_type, model_type))


def canonical(model_type: str | None) -> str | None:
    """``model_type`` with aliases resolved."""
    return None if model_type is None else ALIASES.get(model_type, model_type)
