"""Reads a Hugging Face ``config.json`` into a ModelConfig (shapes in elements, counts in layers).

Only the keys of the families below are understood; a needed key that is missing is a
ConfigError naming it, never a guess. Where a key is absent the importer uses what the
family's Transformers config class defaults to and says so here:

- ``num_key_value_heads`` absent: num_attention_heads (MHA; every Transformers config class).
- ``head_dim`` absent or null: hidden_size / num_attention_heads (the modelling code's rule).
- ``tie_word_embeddings`` absent: False, except gemma2/gemma3 (their classes default True).
- falcon: ``ffn_hidden_size`` absent is 4 × hidden_size (FalconMLP).

- gemma3_text: Gemma3TextConfig's defaults for what the released configs omit:
  vocab_size 262208, max_position_embeddings 131072, sliding_window 4096,
  sliding_window_pattern 6, head_dim 256, rope_theta irrelevant here.
- llama4_text: interleave_moe_layer_step 1, intermediate_size_mlp 16384, no_rope_layers
  every 4th layer (Llama4TextConfig: ``no_rope_layer_interval`` 4).
- mistral3 / pixtral vision: spatial_merge_size 2, multimodal_projector_bias False.

Multimodal wrappers (gemma3, llama4, mistral3) hold the language model in ``text_config``
and the vision encoder in ``vision_config``; the encoder and its projector become the
model's ``vision`` tower (memory only). ``quantization_config`` becomes ``weight_dtypes``
(see ``_quantization``): a quantised checkpoint is never sized as bf16, and a method that
cannot be expressed is a ConfigError.

Layer patterns: an explicit ``layer_types`` list wins; otherwise mistral/mixtral with a
``sliding_window`` slide in every layer, qwen2/qwen2_moe/qwen3* slide only with
``use_sliding_window`` in layers ≥ ``max_window_layers``, gemma2 alternates local/global from
layer 0, gemma3 is global every ``sliding_window_pattern``-th layer, gpt_oss alternates, jamba
places attention every ``attn_layer_period`` from ``attn_layer_offset``, nemotron_h reads its
``hybrid_override_pattern`` (M Mamba-2, * attention, - MLP).
"""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

from calc.data.hf_checks import check_hf_config, smallest_period
from calc.data.model_schema import ModelConfig
from calc.data.yaml_io import parse_json, read_text, validate
from calc.errors import ConfigError
from calc.output.safe_text import is_name

FAMILIES = (
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "deepseek_v2",
    "deepseek_v3",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "gpt_oss",
    "jamba",
    "nemotron_h",
    "falcon",
    "phi3",
    "llama4",
    "llama4_text",
    "mistral3",
)
_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}
_LAYER_TYPES = {
    "full_attention": "full",
    "sliding_attention": "sliding",
    "chunked_attention": "chunked",
}


class _Cfg:
    """The config dict with a ``need`` that names the missing key and the file."""

    def __init__(self, data: dict[str, Any], where: str) -> None:
        self.data, self.where = data, where

    def get(self, key: str, default: Any = None) -> Any:
        v = self.data.get(key)
        return default if v is None else v

    def need(self, key: str, what: str = "") -> Any:
        v = self.data.get(key)
        if v is None:
            why = f" (needed for {what})" if what else ""
            kind = self.data.get("model_type")  # None when the file names no model_type
            kind = f"{kind} " if is_name(kind) else ""
            raise ConfigError(
                f"{self.where}: {kind}config.json has no {key!r}{why}; "
                "add it to the file or write the model YAML by hand"
            )
        return v


def _layer_types(c: _Cfg, family: str, n_layers: int) -> list[str] | None:
    explicit = c.get("layer_types")
    if explicit is not None:
        try:
            return [_LAYER_TYPES[t] for t in explicit]
        except KeyError as exc:
            raise ConfigError(
                f"{c.where}: layer type {exc.args[0]!r} is not supported "
                f"(known: {', '.join(_LAYER_TYPES)})"
            ) from None
    window = c.get("sliding_window")
    if family in ("mistral", "mixtral", "phi3") and window:
        return ["sliding"] * n_layers
    if family == "llama4_text":
        chunk = c.get("attention_chunk_size")
        no_rope = c.get("no_rope_layers")  # 1: RoPE (chunked local) layer, 0: NoPE global
        if not chunk:
            return None
        if isinstance(no_rope, list) and len(no_rope) == n_layers:
            return ["chunked" if r else "full" for r in no_rope]
        every = c.get("no_rope_layer_interval", 4)
        return ["full" if (i + 1) % every == 0 else "chunked" for i in range(n_layers)]
    if family.startswith("qwen") and c.get("use_sliding_window", False) and window:
        first = c.get("max_window_layers", 0)
        return ["sliding" if i >= first else "full" for i in range(n_layers)]
    if family == "gemma2":
        c.need("sliding_window", "Gemma 2's local layers")
        return ["sliding" if i % 2 == 0 else "full" for i in range(n_layers)]
    if family in ("gemma3", "gemma3_text"):
        c.need("sliding_window", "Gemma 3's local layers")
        period = c.get("sliding_window_pattern") or c.need("_sliding_window_pattern")
        return ["full" if (i + 1) % period == 0 else "sliding" for i in range(n_layers)]
    if family == "gpt_oss":
        c.need("sliding_window", "gpt-oss's banded layers")
        return ["sliding" if i % 2 == 0 else "full" for i in range(n_layers)]
    if family == "jamba":
        period = c.need("attn_layer_period", "the attention/Mamba layout")
        offset = c.need("attn_layer_offset", "the attention/Mamba layout")
        return ["full" if i % period == offset else "mamba" for i in range(n_layers)]
    if family == "nemotron_h":
        pattern = c.need("hybrid_override_pattern", "the hybrid layer layout")
        kinds = {"M": "mamba2", "*": "full", "-": "mlp"}
        bad = sorted(set(pattern) - set(kinds))
        if bad:
            raise ConfigError(
                f"{c.where}: hybrid_override_pattern symbol(s) {', '.join(bad)} not supported "
                "(known: M Mamba-2, * attention, - MLP)"
            )
        if len(pattern) != n_layers:
            raise ConfigError(
                f"{c.where}: hybrid_override_pattern has {len(pattern)} layers, "
                f"num_hidden_layers is {n_layers}"
            )
        return [kinds[ch] for ch in pattern]
    return None


def _moe(c: _Cfg, family: str, d_ffn: int) -> dict | None:
    if family == "mixtral":
        return dict(
            n_routed_experts=c.need("num_local_experts"),
            experts_per_token=c.need("num_experts_per_tok"),
            d_expert_ffn=d_ffn,
        )
    if family in ("qwen2_moe", "qwen3_moe"):
        if c.get("mlp_only_layers") or c.get("decoder_sparse_step", 1) != 1:
            raise ConfigError(
                f"{c.where}: mlp_only_layers / decoder_sparse_step other than every layer "
                "MoE is not supported"
            )
        moe = dict(
            n_routed_experts=c.need("num_experts"),
            experts_per_token=c.need("num_experts_per_tok"),
            d_expert_ffn=c.need("moe_intermediate_size"),
        )
        shared = c.get("shared_expert_intermediate_size", 0)
        if shared:
            moe.update(n_shared_experts=1, d_shared_expert_ffn=shared)
        return moe
    if family in ("deepseek_v2", "deepseek_v3"):
        return dict(
            n_routed_experts=c.need("n_routed_experts"),
            experts_per_token=c.need("num_experts_per_tok"),
            n_shared_experts=c.get("n_shared_experts", 0),
            d_expert_ffn=c.need("moe_intermediate_size"),
            n_dense_layers=c.get("first_k_dense_replace", 0),
            router_bias=c.get("topk_method") == "noaux_tc",  # e_score_correction_bias
        )
    if family == "gpt_oss":
        return dict(
            n_routed_experts=c.need("num_local_experts"),
            experts_per_token=c.get("num_experts_per_tok") or c.need("experts_per_token"),
            d_expert_ffn=d_ffn,
            router_bias=True,  # GptOssTopKRouter has a bias
        )
    if family == "llama4_text":
        step = c.get("interleave_moe_layer_step", 1)
        moe = dict(
            n_routed_experts=c.need("num_local_experts"),
            experts_per_token=c.get("num_experts_per_tok", 1),
            n_shared_experts=1,  # Llama4TextMoe.shared_expert
            d_expert_ffn=d_ffn,
        )
        if step > 1:  # layer i is MoE when (i + 1) % step == 0
            moe.update(layer_period=step, layer_offset=step - 1)
        return moe
    if family == "jamba" and c.get("num_experts", 1) > 1:
        return dict(
            n_routed_experts=c.need("num_experts"),
            experts_per_token=c.need("num_experts_per_tok"),
            d_expert_ffn=d_ffn,
            layer_period=c.need("expert_layer_period"),
            layer_offset=c.need("expert_layer_offset"),
        )
    return None


# linear components a quantisation method converts (calc.deploy.checkpoint.REQUANTISED)
_LINEAR = ("attention", "dense_ffn", "routed_experts", "shared_experts", "ssm")
# module-name fragments of an ignore / modules_to_not_convert list -> the component they keep
_MODULE_PARTS = {
    "self_attn": ("attention",),
    "attn": ("attention",),
    "experts": ("routed_experts",),
    "shared_expert": ("shared_experts",),
    "mlp": ("dense_ffn", "routed_experts", "shared_experts"),
    "mamba": ("ssm",),
    "mixer": ("ssm",),
}


def _kept(patterns) -> set[str]:
    """Linear components an ignore list keeps unquantised (the embedding, lm_head, router,
    norms and vision towers are never converted here, listed or not). Per component: an
    entry naming one layer's module keeps that component in 16 bit in every layer (an
    upper bound on the bytes)."""
    kept: set[str] = set()
    for raw in patterns or ():
        p = str(raw).removeprefix("re:")
        if re.search(r"(vision|visual|image|multi_modal|mm_|audio)", p):
            continue  # a tower's modules: towers keep their checkpoint format anyway
        if re.search(r"(\.gate|_gate|router)\b\$?$", p):
            continue  # the MoE router / a shared-expert gate: never converted here
        for frag, comps in _MODULE_PARTS.items():
            if frag not in p:
                continue
            if frag == "mlp" and ("experts" in p or "shared_expert" in p):
                continue  # the experts' own fragments say which
            kept.update(comps)
    return kept


def _ct_format(w: dict, where: str) -> str:
    """compressed-tensors weight scheme -> a calc.formulas.quant format name."""
    bits, kind = w.get("num_bits"), w.get("type", "int")
    strategy, group = w.get("strategy"), w.get("group_size")
    block = w.get("block_structure")
    if kind == "float" and bits == 8:
        if strategy == "block" and list(block or []) == [128, 128]:
            return "fp8-block128"
        return "fp8-tensor"  # per-tensor or per-channel scales (a few bytes per row)
    if kind == "float" and bits == 4 and group == 16:
        return "nvfp4"
    if kind == "int" and bits == 8 and strategy == "channel":
        return "int8-channel"
    if kind == "int" and bits in (4, 8) and group in (32, 64, 128):
        return f"int{bits}-g{group}" + ("-sym" if w.get("symmetric", True) else "")
    raise ConfigError(
        f"{where}: compressed-tensors weights of {bits}-bit {kind} with strategy {strategy} "
        f"and group {group} have no kvcalc format; write weight_dtypes in the model YAML"
    )


def _quantization(q: dict, where: str) -> tuple[dict[str, str], str]:
    """``weight_dtypes`` (linear components -> format) and a note from a
    quantization_config. An unknown method is a ConfigError: a quantised checkpoint is
    never sized as bf16 silently."""
    method = str(q.get("quant_method", "unknown"))
    ignore = q.get("modules_to_not_convert") or q.get("ignore") or q.get("ignored_layers")
    if method == "fp8":
        block = q.get("weight_block_size")
        fmt = "fp8-block128" if list(block or []) == [128, 128] else "fp8-tensor"
        note = f"fp8 weights{f' with {block} block scales' if block else ''}"
    elif method in ("gptq", "awq"):
        bits, group = q.get("bits"), q.get("group_size")
        if bits not in (4, 8) or group not in (32, 64, 128):
            raise ConfigError(
                f"{where}: {method} with {bits} bits and group_size {group} has no kvcalc "
                "format (4 or 8 bits, group 32, 64 or 128); write weight_dtypes in the model "
                "YAML"
            )
        sym = q.get("sym", True) if method == "gptq" else not q.get("zero_point", True)
        fmt = f"int{bits}-g{group}" + ("-sym" if sym else "")
        note = f"{method} int{bits}, group_size {group}"
    elif method == "mxfp4":
        fmt, note = "mxfp4", "mxfp4 weights (quantization_config)"
    elif method == "compressed-tensors":
        groups = q.get("config_groups") or {}
        schemes = [g.get("weights") for g in groups.values() if isinstance(g, dict)]
        schemes = [w for w in schemes if isinstance(w, dict)]
        if not schemes:
            raise ConfigError(f"{where}: compressed-tensors config has no weight scheme")
        fmts = {_ct_format(w, where) for w in schemes}
        if len(fmts) > 1:
            raise ConfigError(
                f"{where}: compressed-tensors groups use several formats "
                f"({', '.join(sorted(fmts))}); write weight_dtypes in the model YAML"
            )
        fmt = fmts.pop()
        note = f"compressed-tensors {fmt}"
    elif method == "bitsandbytes":
        if q.get("load_in_4bit"):
            fmt = "nf4-g64"
            note = f"bitsandbytes 4-bit ({q.get('bnb_4bit_quant_type', 'fp4')})"
            if q.get("bnb_4bit_use_double_quant"):
                note += ", double-quantised absmax counted as fp32 (an upper bound)"
        elif q.get("load_in_8bit"):
            fmt, note = "int8-channel", "bitsandbytes LLM.int8()"
        else:
            raise ConfigError(f"{where}: bitsandbytes config loads neither 4- nor 8-bit")
        ignore = q.get("llm_int8_skip_modules") or ignore
    else:
        raise ConfigError(
            f"{where}: quantization_config quant_method {method!r} is not understood "
            "(known: fp8, compressed-tensors, gptq, awq, mxfp4, bitsandbytes); write "
            "weight_dtypes in the model YAML rather than size it as unquantised"
        )
    kept = _kept(ignore)
    dtypes = {c: fmt for c in _LINEAR if c not in kept}
    if kept:
        note += f"; unconverted: {', '.join(sorted(kept))}"
    return dtypes, note


# What a family's Transformers config class defaults to, for keys released configs omit.
_DEFAULTS: dict[str, dict[str, Any]] = {
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
}
_ROPE_TYPES = {
    "linear": "linear",
    "dynamic": "dynamic",
    "yarn": "yarn",
    "llama3": "llama3",
    "longrope": "longrope",
    "su": "longrope",
}


def _rope_scaling(c: _Cfg) -> dict | None:
    """The RoPE scaling block (calc.data.model_schema.RopeScaling), or None for plain RoPE."""
    r = c.get("rope_scaling")
    if not isinstance(r, dict):
        return None
    kind = _ROPE_TYPES.get(str(r.get("rope_type") or r.get("type")))
    if kind is None:  # default / mrope / unknown: no change to the context limit
        return None
    out: dict[str, Any] = {"type": kind, "factor": float(r.get("factor") or 1.0)}
    orig = r.get("original_max_position_embeddings") or c.get("original_max_position_embeddings")
    if orig:
        out["original_max_ctx"] = int(orig)
    return out


def _vision(v: dict[str, Any], kind: str, text_d: int, where: str) -> dict[str, Any]:
    """The vision tower (calc.data.model_schema.TowerConfig) of a multimodal config.json."""
    c = _Cfg(v, where)
    d = c.need("hidden_size", "the vision tower")
    tower: dict[str, Any] = dict(
        n_layers=c.need("num_hidden_layers", "the vision tower"),
        d_model=d,
        d_ffn=c.need("intermediate_size", "the vision tower"),
        patch_size=c.need("patch_size", "the vision tower"),
        n_channels=c.get("num_channels", 3),
    )
    if kind == "gemma3":  # SigLIP: learned positions, biases, LayerNorm, GELU MLP
        side = c.need("image_size", "the vision tower") // tower["patch_size"]
        tower.update(n_positions=side * side, projector=[[d, text_d]], projector_norms=[d])
    elif kind == "mistral3":  # Pixtral: RoPE-2D, RMSNorm, SwiGLU, no biases; patch merger
        m = c.get("spatial_merge_size", 2)
        tower.update(
            ffn_kind="gated",
            norm="rmsnorm",
            bias=False,
            patch_bias=False,
            pre_norm=True,
            post_norm=False,
            projector=[[d * m * m, d], [d, text_d], [text_d, text_d]],
            projector_norms=[d],
        )
    elif kind == "llama4":  # CLIP-like with a class token; pixel-shuffle adapter
        side = c.need("image_size", "the vision tower") // tower["patch_size"]
        p_in = c.need("projector_input_dim", "the pixel-shuffle adapter")
        p_out = c.need("projector_output_dim", "the pixel-shuffle adapter")
        out_dim = c.get("vision_output_dim", p_out)
        tower.update(
            n_positions=side * side + 1,
            class_token=True,
            pre_norm=True,
            patch_bias=False,
            # Llama4VisionMLP2: fc1 intermediate_size (the pixel-shuffled width, d / ratio²)
            # -> projector_input_dim, fc2 projector_output_dim²; then linear_1 to the text
            projector=[[tower["d_ffn"], p_in], [p_out, p_out], [out_dim, text_d]],
        )
    return tower


def hf_to_fields(data: dict[str, Any], where: str, name: str) -> dict[str, Any]:
    """ModelConfig fields from a parsed config.json (raises ConfigError naming what is missing)."""
    outer = data
    vision_cfg = data.get("vision_config") if isinstance(data.get("vision_config"), dict) else None
    outer_type = data.get("model_type")
    if isinstance(data.get("text_config"), dict):  # multimodal wrapper (Gemma 3, Llama 4, ...)
        inner = dict(data["text_config"])
        for key in ("quantization_config", "torch_dtype", "dtype", "tie_word_embeddings"):
            if key not in inner and data.get(key) is not None:
                inner[key] = data[key]
        inner_type = {"gemma3": "gemma3_text", "llama4": "llama4_text", "mistral3": "mistral"}
        inner.setdefault("model_type", inner_type.get(str(outer_type), "gemma3_text"))
        if inner.get("model_type") == "gemma3":
            inner["model_type"] = "gemma3_text"
        data = inner
    data = {**_DEFAULTS.get(str(data.get("model_type")), {}), **data}
    check_hf_config(data, where)  # types and ranges first: nothing below computes unchecked
    c = _Cfg(data, where)
    family = c.need("model_type", "choosing the family")
    if family not in FAMILIES:
        raise ConfigError(
            f"{where}: model_type {family!r} is not supported by import-hf "
            f"(supported: {', '.join(FAMILIES)}); write the model YAML by hand"
        )
    falcon = family == "falcon"
    d = (c.get("hidden_size") or c.need("n_embed")) if falcon else c.need("hidden_size")
    n_layers = (
        (c.get("num_hidden_layers") or c.need("n_layer")) if falcon else c.need("num_hidden_layers")
    )
    n_heads = (
        (c.get("num_attention_heads") or c.need("n_head"))
        if falcon
        else c.need("num_attention_heads")
    )
    if falcon:
        if c.get("new_decoder_architecture", False):
            n_kv = c.need("num_kv_heads", "the new decoder architecture's KV heads")
        else:
            n_kv = 1 if c.get("multi_query", True) else n_heads
    else:
        n_kv = c.get("num_key_value_heads", n_heads)
    fields: dict[str, Any] = dict(
        name=name,
        display_name=name,
        source=where,
        n_layers=n_layers,
        d_model=d,
        n_heads=n_heads,
        n_kv_heads=n_kv,
        vocab_size=c.need("vocab_size"),
        max_ctx=c.need("max_position_embeddings", "max_ctx"),
        tie_embeddings=c.get(
            "tie_word_embeddings", family in ("gemma2", "gemma3", "gemma3_text") or falcon
        ),
        dtype=_DTYPES.get(c.get("torch_dtype") or c.get("dtype") or "bfloat16", "bf16"),
        ffn_kind="mlp" if family in ("falcon", "nemotron_h") else "gated",
    )
    head_dim = c.get("head_dim") or c.get("attention_head_dim")
    if family not in ("deepseek_v2", "deepseek_v3"):
        fields["head_dim"] = head_dim or d // n_heads
    d_ffn = (c.get("ffn_hidden_size") or 4 * d) if falcon else c.need("intermediate_size")
    # Llama 4: intermediate_size is the expert width, dense layers use intermediate_size_mlp
    fields["d_ffn"] = c.get("intermediate_size_mlp") if family == "llama4_text" else d_ffn
    if falcon:
        fields.update(norm="layernorm", qkv_bias=c.get("bias", False), o_bias=c.get("bias", False))
        if c.get("parallel_attn", True) and not c.get("new_decoder_architecture", False):
            fields["norms_per_layer"] = 1
    if family in ("llama", "mistral", "mixtral", "phi3", "llama4_text") or family.startswith(
        ("qwen3", "gemma")
    ):
        bias = c.get("attention_bias", False)
        fields.update(qkv_bias=bias, o_bias=bias, ffn_bias=c.get("mlp_bias", False))
    if family in ("qwen2", "qwen2_moe"):
        fields["qkv_bias"] = True  # Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False
    if family.startswith("qwen3") or family in ("gemma3", "gemma3_text"):
        fields["qk_norm"] = True
    if family.startswith("gemma"):
        fields["norms_per_layer"] = 4
    if family == "gpt_oss":
        bias = c.get("attention_bias", True)
        fields.update(qkv_bias=bias, o_bias=bias, ffn_bias=True, attention_sinks=True)
    if family in ("deepseek_v2", "deepseek_v3"):
        fields["mla"] = dict(
            kv_lora_rank=c.need("kv_lora_rank", "MLA"),
            q_lora_rank=c.get("q_lora_rank"),
            qk_rope_head_dim=c.need("qk_rope_head_dim", "MLA"),
            qk_nope_head_dim=c.need("qk_nope_head_dim", "MLA"),
            v_head_dim=c.need("v_head_dim", "MLA"),
        )
    layer_types = _layer_types(c, family, n_layers)
    if layer_types is not None and set(layer_types) != {"full"}:
        period = smallest_period(layer_types)  # O(n_layers), not O(n_layers²)
        if period <= 8:
            fields["layer_pattern"] = layer_types[:period]  # e.g. [sliding, full]
        else:
            fields["layer_types"] = layer_types
        if "sliding" in layer_types:
            fields["sliding_window"] = c.need("sliding_window", "sliding layers")
        if "chunked" in layer_types:
            fields["attention_chunk_size"] = c.need("attention_chunk_size", "chunked layers")
    if family == "jamba":
        fields["ssm"] = dict(
            d_state=c.need("mamba_d_state"),
            d_conv=c.need("mamba_d_conv"),
            expand=c.need("mamba_expand"),
            dt_rank=c.need("mamba_dt_rank"),
            conv_bias=c.get("mamba_conv_bias", True),
            proj_bias=c.get("mamba_proj_bias", False),
            inner_norms=True,  # JambaMambaMixer: dt_layernorm, b_layernorm, c_layernorm
        )
    if family == "nemotron_h":
        fields.update(norms_per_layer=1, ffn_per_layer=False, ffn_bias=c.get("mlp_bias", False))
        fields["ssm"] = dict(
            d_state=c.need("ssm_state_size"),
            d_conv=c.need("conv_kernel"),
            n_heads=c.need("mamba_num_heads"),
            head_dim=c.need("mamba_head_dim"),
            n_groups=c.need("n_groups"),
            conv_bias=c.get("use_conv_bias", True),
            proj_bias=c.get("mamba_proj_bias", False),
        )
    moe = _moe(c, family, d_ffn)
    if moe is not None:
        fields["moe"] = moe
    rope = _rope_scaling(c)
    if rope is not None:
        fields["rope_scaling"] = rope
    if vision_cfg is not None and outer_type in ("gemma3", "llama4", "mistral3"):
        fields["vision"] = _vision(vision_cfg, str(outer_type), d, where)
    q = c.get("quantization_config") or outer.get("quantization_config")
    if isinstance(q, dict):
        dtypes, note = _quantization(q, where)
        moe = fields.get("moe")
        absent = set() if "ssm" in fields else {"ssm"}  # components this model lacks
        if moe is None:
            absent |= {"routed_experts", "shared_experts"}
        else:
            if not moe.get("n_shared_experts"):
                absent.add("shared_experts")
            if not moe.get("n_dense_layers") and moe.get("layer_period", 1) == 1:
                absent.add("dense_ffn")
        fields["weight_dtypes"] = {c: f for c, f in dtypes.items() if c not in absent}
        fields["notes"] = note
    return fields


def _parse(path: Path) -> dict[str, Any]:
    data = parse_json(read_text(path), path)  # duplicate keys, NaN, huge digits refused
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object of fields")
    return data


def default_name(path: Path) -> str:
    """``org-model`` from ``.../model/config.json``, else the file's stem."""
    stem = path.parent.name if path.name == "config.json" and path.parent.name else path.stem
    return stem.lower() or "imported"


def config_path(path) -> Path:
    """``path`` itself, or for a snapshot folder (a Hugging Face model download) the
    config.json inside it."""
    path = Path(path)
    try:
        is_dir = path.is_dir()
    except (OSError, ValueError):  # a name the OS refuses: read_text reports it
        is_dir = False
    if is_dir:
        inner = path / "config.json"
        if not inner.is_file():
            raise ConfigError(
                f"{path}: is a directory without a config.json; pass a Hugging Face snapshot "
                "folder or the config.json file itself"
            )
        return inner
    return path


def load_hf_config(path, name: str | None = None, source: str | None = None) -> ModelConfig:
    """A ModelConfig from a Hugging Face config.json file, or a snapshot folder holding one
    (ConfigError names what is wrong)."""
    path = config_path(path)
    fields = hf_to_fields(_parse(path), str(path), name or default_name(path))
    if source:
        fields["source"] = source
    return validate(ModelConfig, fields, path)


def fetch_hf_config(repo_id: str) -> Path:
    """Local path of ``repo_id``'s config.json (calc.data.hf_fetch: the cache when offline, one
    line at once when the Hub cannot be reached, its size checked before the download)."""
    from calc.data.hf_fetch import fetch_config
    from calc.data.yaml_io import MAX_FILE_BYTES

    return fetch_config(repo_id, MAX_FILE_BYTES)


def load_hf_model(spec: str) -> ModelConfig:
    """``hf:org/name`` -> ModelConfig, with the Hub URL as its source."""
    repo_id = spec.removeprefix("hf:")
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise ConfigError(f"{spec!r}: expected hf:org/name, e.g. hf:mistralai/Mistral-7B-v0.1")
    path = fetch_hf_config(repo_id)
    return load_hf_config(
        path,
        name=repo_id.split("/")[1].lower(),
        source=f"https://huggingface.co/{repo_id}/blob/main/config.json",
    )


def to_yaml(cfg: ModelConfig) -> str:
    """The model YAML text of ``cfg`` (non-default fields, in schema order)."""
    import yaml

    data = cfg.to_dict(exclude_defaults=True)
    for k in ("name", "display_name", "source"):
        data[k] = getattr(cfg, k)
    order = [f.name for f in fields(cfg)]
    data = {k: data[k] for k in order if k in data}
    # the source as a JSON string: no newline (nor YAML's NEL, LS, PS) can end the comment
    source = json.dumps(cfg.source)
    header = f"# Imported from {source} by `kvcalc import-hf`; check against the model card.\n"
    return header + yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100)
