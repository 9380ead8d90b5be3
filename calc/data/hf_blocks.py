"""The blocks of a Hugging Face config [elements, experts, layers] read from the keys that
describe them, whatever the ``model_type``: the MoE shape, MLA and its sparse-attention
indexer, Mamba / Mamba-2 mixers, gated DeltaNet linear attention and MTP modules.

Each reader returns the fields of one calc.data.model_schema block (or None when the config
has no such block). The many names families give one quantity are tried in turn
(``HfConfig.first``); where a quantity has no key, the family's code decides
(calc.data.hf_families) or the importer assumes and says so.
"""

from __future__ import annotations

from typing import Any

from calc.data.hf_families import Family
from calc.data.hf_keys import HfConfig
from calc.errors import ConfigError

DTYPES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16", "fp32": "fp32",
          "bf16": "bf16", "fp16": "fp16"}  # fmt: skip

# families whose routed experts are intermediate_size wide (no moe_intermediate_size key)
_EXPERT_WIDTH_IS_FFN = ("mixtral", "gpt_oss", "llama4_text", "jamba", "minimax_m2")


def _dtype(c: HfConfig, key: str) -> str | None:
    v = c.get(key)
    if v is None:
        return None
    if v not in DTYPES:
        raise ConfigError(f"{c.where}: {key} {v!r} is not one of {', '.join(DTYPES)}")
    return DTYPES[v]


def _routing_groups(c: HfConfig) -> dict:
    """Group-limited routing (DeepSeek-V2/V3's grouped top-k: n_group, topk_group), or none."""
    groups = c.first("n_group")
    if not groups or groups <= 1:
        return {}
    return dict(n_expert_groups=groups,
                expert_groups_per_token=c.need_one("topk_group", what="the groups a token uses"))


def moe(c: HfConfig, fam: Family, d_ffn: int | None, types: list[str] | None) -> dict | None:
    """MoEConfig fields: routed experts and top-k, expert width, shared experts, leading dense
    layers, the MoE layer period, router bias, shared-expert gate and latent width; None for a
    dense model (no expert count, or one expert)."""
    n = c.first("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts")
    if not n or n <= 1:
        return None
    name = fam.name
    top_k = c.need_one(
        "num_experts_per_tok", "experts_per_token", "num_experts_per_token", "top_k_experts",
        "moe_top_k", what="the MoE top-k",
    )  # fmt: skip
    width = c.first("moe_intermediate_size", "expert_intermediate_size")
    if width is None:
        if d_ffn is None:
            raise c.missing("moe_intermediate_size", "the expert width")
        if name not in _EXPERT_WIDTH_IS_FFN:
            c.assume(f"routed experts {d_ffn:,} wide (intermediate_size; no "
                     "moe_intermediate_size)")  # fmt: skip
        width = d_ffn
    out: dict[str, Any] = dict(n_routed_experts=n, experts_per_token=top_k, d_expert_ffn=width)
    out.update(_routing_groups(c))
    shared_n = c.first("n_shared_experts", "num_shared_experts")
    shared_w = c.first(
        "moe_shared_expert_intermediate_size", "shared_expert_intermediate_size",
        "shared_intermediate_size",
    )  # fmt: skip
    if name == "llama4_text":  # Llama4TextMoe.shared_expert: one, as wide as the experts
        shared_n, shared_w = 1, None
    if shared_w and not shared_n:
        shared_n = 1  # Qwen-style: one shared expert of the stated width
    if shared_n and shared_w != 0:
        out["n_shared_experts"] = shared_n
        if shared_w and shared_w != width:  # per shared expert (vLLM: width × count)
            out["d_shared_expert_ffn"] = shared_w
        if fam.shared_expert_gate:
            out["shared_expert_gate"] = True
    dense = c.first("first_k_dense_replace", "first_k_dense")
    only = c.get("mlp_only_layers") or []
    if only:
        if sorted(only) != list(range(len(only))):
            raise ConfigError(
                f"{c.where}: mlp_only_layers {only[:8]} are not the leading layers; write the "
                "model YAML by hand"
            )
        dense = max(dense or 0, len(only))
    if dense:
        out["n_dense_layers"] = dense
    step = c.first("decoder_sparse_step", "moe_layer_freq")
    if isinstance(step, list):  # one 0/1 per layer (MiMo-V2, MiniMax-M3): leading dense layers
        lead = next((i for i, v in enumerate(step) if v), len(step))
        if not all(v in (0, 1) and not isinstance(v, bool) for v in step) or not all(step[lead:]):
            raise ConfigError(
                f"{c.where}: moe_layer_freq {step[:8]}... is not leading dense layers then MoE "
                "layers; write the model YAML by hand"
            )
        dense = max(dense or 0, lead)
        if dense:
            out["n_dense_layers"] = dense
        step = 1
    if isinstance(step, int) and step > 1:
        out.update(layer_period=step, layer_offset=step - 1)
    if name == "llama4_text" and c.get("interleave_moe_layer_step", 1) > 1:
        step = c.get("interleave_moe_layer_step")  # layer i is MoE when (i + 1) % step == 0
        out.update(layer_period=step, layer_offset=step - 1)
    if name == "jamba":
        out.update(
            layer_period=c.need("expert_layer_period"), layer_offset=c.need("expert_layer_offset")
        )
    if fam.router_bias is not None:
        bias = fam.router_bias
    else:
        bias = c.get("topk_method") == "noaux_tc" or bool(c.get("use_routing_bias", False))
    if bias:
        out["router_bias"] = True
    if c.get("moe_latent_size"):
        out["d_latent"] = c.get("moe_latent_size")
    if types is not None and "moe" in types:  # FFN-only MoE layers carry the pattern
        out.pop("n_dense_layers", None)
    return out


def mla(c: HfConfig) -> dict | None:
    """MLAConfig fields when the config has a compressed KV (kv_lora_rank), else None."""
    if not c.has("kv_lora_rank"):
        return None
    return dict(
        kv_lora_rank=c.need("kv_lora_rank", "MLA"),
        q_lora_rank=c.get("q_lora_rank"),
        qk_rope_head_dim=c.need("qk_rope_head_dim", "MLA"),
        qk_nope_head_dim=c.need("qk_nope_head_dim", "MLA"),
        v_head_dim=c.need("v_head_dim", "MLA"),
    )


def indexer(c: HfConfig) -> dict | None:
    """IndexerConfig fields of DeepSeek sparse attention (index_* keys), else None."""
    if not (c.has("index_topk") or c.has("index_n_heads")):
        return None
    kinds = c.get("indexer_types")
    if isinstance(kinds, list) and set(kinds) - {"full"}:
        c.assume("indexer_types: layers that share another layer's top-k counted with their "
                 "own indexer and index keys (an upper bound)")  # fmt: skip
    return dict(
        n_heads=c.need("index_n_heads", "the sparse-attention indexer"),
        head_dim=c.need("index_head_dim", "the sparse-attention indexer"),
        topk=c.need("index_topk", "the sparse-attention indexer"),
        rope_interleave=bool(c.get("indexer_rope_interleave", False)),
    )


def ssm(c: HfConfig, types: list[str] | None) -> dict | None:
    """SSMConfig fields of Mamba (mamba_* keys, Jamba) or Mamba-2 (ssm_state_size,
    mamba_num_heads: Nemotron-H) layers, else None."""
    kinds = set(types or ())
    if "mamba2" in kinds:
        out = dict(
            d_state=c.need("ssm_state_size"),
            d_conv=c.need_one("conv_kernel", "mamba_d_conv"),
            n_heads=c.need("mamba_num_heads"),
            head_dim=c.need("mamba_head_dim"),
            n_groups=c.need_one("n_groups", "mamba_n_groups"),
            conv_bias=c.get("use_conv_bias", True),
            proj_bias=c.get("mamba_proj_bias", False),
        )
    elif "mamba" in kinds:
        out = dict(
            d_state=c.need("mamba_d_state"),
            d_conv=c.need("mamba_d_conv"),
            expand=c.need("mamba_expand"),
            dt_rank=c.need("mamba_dt_rank"),
            conv_bias=c.get("mamba_conv_bias", True),
            proj_bias=c.get("mamba_proj_bias", False),
            inner_norms=True,  # JambaMambaMixer: dt_layernorm, b_layernorm, c_layernorm
        )
    else:
        return None
    rec = _dtype(c, "mamba_ssm_cache_dtype") or _dtype(c, "mamba_ssm_dtype")
    if rec:
        out["recurrent_dtype"] = rec
    return out


def linear_attention(c: HfConfig, types: list[str] | None) -> dict | None:
    """LinearAttentionConfig fields of gated DeltaNet layers (linear_* keys: Qwen3-Next,
    Qwen3.5) or of Kimi Linear's KDA layers (linear_attn_config), else None."""
    if "linear_attention" not in set(types or ()):
        return None
    la = c.get("linear_attn_config")
    if isinstance(la, dict) and not c.has("linear_num_value_heads"):
        heads, dim = la.get("num_heads"), la.get("head_dim")
        if not (isinstance(heads, int) and isinstance(dim, int) and heads > 0 and dim > 0):
            raise c.missing("linear_attn_config.num_heads / head_dim", "the KDA layers")
        c.assume("KDA linear-attention layers sized as gated DeltaNet with as many key as "
                 "value heads (same state; their gate projections are not counted)")  # fmt: skip
        out = dict(
            n_key_heads=heads, n_value_heads=heads, key_head_dim=dim, value_head_dim=dim,
            conv_kernel=la.get("short_conv_kernel_size", 4),
        )  # fmt: skip
    else:
        what = "the linear-attention layers"
        out = dict(
            n_key_heads=c.need("linear_num_key_heads", what),
            n_value_heads=c.need("linear_num_value_heads", what),
            key_head_dim=c.need("linear_key_head_dim", what),
            value_head_dim=c.need("linear_value_head_dim", what),
            conv_kernel=c.get("linear_conv_kernel_dim", 4),
        )
    rec = _dtype(c, "mamba_ssm_dtype") or _dtype(c, "mamba_ssm_cache_dtype")
    if rec:
        out["recurrent_dtype"] = rec
    return out


def mtp_layers(c: HfConfig) -> int:
    """Multi-token-prediction modules after the last layer (0 without)."""
    n = c.first("num_nextn_predict_layers", "mtp_num_hidden_layers")
    if n is None and c.get("use_mtp"):
        n = c.get("num_mtp_modules", 1) * c.get("mtp_transformer_layers", 1)
    return n if isinstance(n, int) and n > 0 else 0
