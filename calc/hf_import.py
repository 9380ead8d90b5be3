"""Reads a Hugging Face ``config.json`` into a ModelConfig (shapes in elements, counts in layers).

Only the keys of the families below are understood; a needed key that is missing is a
ConfigError naming it, never a guess. Where a key is absent the importer uses what the
family's Transformers config class defaults to and says so here:

- ``num_key_value_heads`` absent: num_attention_heads (MHA; every Transformers config class).
- ``head_dim`` absent or null: hidden_size / num_attention_heads (the modelling code's rule).
- ``tie_word_embeddings`` absent: False, except gemma2/gemma3 (their classes default True).
- falcon: ``ffn_hidden_size`` absent is 4 × hidden_size (FalconMLP).

Layer patterns: an explicit ``layer_types`` list wins; otherwise mistral/mixtral with a
``sliding_window`` slide in every layer, qwen2/qwen2_moe/qwen3* slide only with
``use_sliding_window`` in layers ≥ ``max_window_layers``, gemma2 alternates local/global from
layer 0, gemma3 is global every ``sliding_window_pattern``-th layer, gpt_oss alternates, jamba
places attention every ``attn_layer_period`` from ``attn_layer_offset``, nemotron_h reads its
``hybrid_override_pattern`` (M Mamba-2, * attention, - MLP).
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

from calc.errors import ConfigError, MissingDependencyError
from calc.hf_checks import check_hf_config, smallest_period
from calc.model_schema import ModelConfig
from calc.yaml_io import parse_json, read_text, validate

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
            raise ConfigError(
                f"{self.where}: {self.data.get('model_type')} config.json has no {key!r}{why}; "
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
    if family in ("mistral", "mixtral") and window:
        return ["sliding"] * n_layers
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
    if family == "jamba" and c.get("num_experts", 1) > 1:
        return dict(
            n_routed_experts=c.need("num_experts"),
            experts_per_token=c.need("num_experts_per_tok"),
            d_expert_ffn=d_ffn,
            layer_period=c.need("expert_layer_period"),
            layer_offset=c.need("expert_layer_offset"),
        )
    return None


def _quant_note(q: dict) -> tuple[str | None, str]:
    """(dtype for ModelConfig or None, a note) from a quantization_config."""
    method = str(q.get("quant_method", "unknown"))
    if method == "fp8":
        block = q.get("weight_block_size")
        return "fp8", f"fp8 weights{f' with {block} block scales' if block else ''}"
    if method in ("gptq", "awq") and q.get("bits") == 4:
        return "int4", f"{method} int4, group_size {q.get('group_size')}"
    if method == "mxfp4":
        return None, "MoE experts in MXFP4 (quantization_config); use --weight-dtype mxfp4"
    return None, f"quantization_config quant_method {method} (not applied)"


def hf_to_fields(data: dict[str, Any], where: str, name: str) -> dict[str, Any]:
    """ModelConfig fields from a parsed config.json (raises ConfigError naming what is missing)."""
    if isinstance(data.get("text_config"), dict):  # multimodal wrapper (Gemma 3)
        data = {**data["text_config"], "quantization_config": data.get("quantization_config")}
        data.setdefault("model_type", "gemma3_text")
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
    fields["d_ffn"] = d_ffn
    if falcon:
        fields.update(norm="layernorm", qkv_bias=c.get("bias", False), o_bias=c.get("bias", False))
        if c.get("parallel_attn", True) and not c.get("new_decoder_architecture", False):
            fields["norms_per_layer"] = 1
    if family in ("llama", "mistral", "mixtral") or family.startswith(("qwen3", "gemma")):
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
    q = c.get("quantization_config")
    if isinstance(q, dict):
        dtype, note = _quant_note(q)
        if dtype:
            fields["dtype"] = dtype
            fields["kv_dtype"] = fields.get("kv_dtype") or "bf16"
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


def load_hf_config(path, name: str | None = None, source: str | None = None) -> ModelConfig:
    """A ModelConfig from a Hugging Face config.json file (ConfigError names what is wrong)."""
    path = Path(path)
    fields = hf_to_fields(_parse(path), str(path), name or default_name(path))
    if source:
        fields["source"] = source
    return validate(ModelConfig, fields, path)


def fetch_hf_config(repo_id: str) -> Path:
    """Local path of ``repo_id``'s config.json via huggingface_hub (cached; offline: cache)."""
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise MissingDependencyError("huggingface_hub", "hf") from None
    try:
        return Path(hf_hub_download(repo_id, "config.json"))
    except Exception as exc:  # hub errors: offline, gated, not found; all one line
        raise ConfigError(
            f"hf:{repo_id}: cannot fetch config.json ({type(exc).__name__}): not in the local "
            "cache and the Hub is unreachable or refused; check the name and network, or pass "
            "a local config.json path"
        ) from exc


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
