"""Reads a Hugging Face ``config.json`` into a ModelConfig (shapes in elements, counts in layers),
driven by what the config says rather than by a list of model names.

The architecture comes from the keys: the layer types (calc.data.hf_layers), the attention
kind (MHA/GQA/MQA by the head counts; MLA with ``kv_lora_rank``; DeepSeek sparse attention
with ``index_*``; gated DeltaNet with ``linear_*``; Mamba with ``mamba_*`` / ``ssm_state_size``),
the MoE shape, MTP modules (calc.data.hf_blocks), towers (calc.data.hf_towers) and the
checkpoint's quantisation (calc.data.hf_quant). What no key states (FFN kind, norms per
layer, biases) comes from the family's code (calc.data.hf_families); for a ``model_type`` kvcalc
does not know, the importer reads the same keys and records each assumption in ``assumed``,
which every command prints as a warning. A needed key that is missing is a ConfigError naming
it, and a config with no readable decoder (no layers, heads or width; an encoder family) is
refused.

Documented defaults where a key is absent (each family's Transformers config class):

- ``num_key_value_heads`` absent: num_attention_heads (MHA; every Transformers config class).
- ``head_dim`` absent or null: hidden_size / num_attention_heads (the modelling code's rule).
- ``tie_word_embeddings`` absent: False, except gemma/gemma2/gemma3/falcon (True).
- falcon: ``ffn_hidden_size`` absent is 4 × hidden_size (FalconMLP).
- gemma3_text, llama4_text, qwen3_next: calc.data.hf_families.DEFAULTS.

Multimodal wrappers hold the language model in ``text_config`` (or ``language_config`` /
``llm_config``) and the encoder in ``vision_config``; a ``text_config`` without ``model_type``
takes the wrapper's known text family (calc.data.hf_families.INNER_TYPES), else it is read
as an unknown type with a warning, never as another family.

A snapshot folder's ``hf_quant_config.json`` (ModelOpt) is read when config.json has no
``quantization_config``, and its ``model.safetensors.index.json`` total size is kept as
``checkpoint_bytes`` (calc.deploy.checkpoint compares it with the analytic weights).
"""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

from calc.data import hf_blocks, hf_families
from calc.data.hf_checks import check_hf_config, smallest_period
from calc.data.hf_keys import HfConfig
from calc.data.hf_layers import layer_types as read_layer_types
from calc.data.hf_quant import LINEAR, hf_quant_block, read_quantization
from calc.data.hf_towers import vision_tower
from calc.data.model_schema import ModelConfig
from calc.data.yaml_io import parse_json, read_text, validate
from calc.errors import ConfigError
from calc.output.safe_text import is_name

# the families whose facts kvcalc knows (any other model_type is read from its keys)
FAMILIES = tuple(hf_families.FAMILIES) + tuple(hf_families.ALIASES)
MAX_CONFIG_BYTES = 32_000_000  # real configs with per-module quantisation lists reach 3 MB
_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}
_TEXT_KEYS = ("text_config", "language_config", "llm_config")
# names of quantised releases (nvidia/...-NVFP4, ...-FP8, ...-AWQ): a config.json without
# quantization_config under such a name is sized in its dtype, with a warning
_QUANTISED_NAME = re.compile(r"(nvfp4|mxfp4|fp8|fp4|awq|gptq|int4|int8|w4a16|w8a8)", re.I)
_ROPE_TYPES = {
    "linear": "linear",
    "dynamic": "dynamic",
    "yarn": "yarn",
    "llama3": "llama3",
    "longrope": "longrope",
    "su": "longrope",
}


def _unwrap(data: dict[str, Any], where: str) -> tuple[dict, dict | None, Any, list[str]]:
    """(text config, vision config, wrapper model_type, assumptions) of a config.json: a
    multimodal wrapper's language model with the wrapper's dtype, tie and quantization keys
    carried in."""
    outer_type = data.get("model_type")
    vision = data.get("vision_config") if isinstance(data.get("vision_config"), dict) else None
    inner = next((data[k] for k in _TEXT_KEYS if isinstance(data.get(k), dict)), None)
    if inner is None:
        return data, vision, outer_type, []
    inner = dict(inner)
    for key in ("quantization_config", "torch_dtype", "dtype", "tie_word_embeddings"):
        if key not in inner and data.get(key) is not None:
            inner[key] = data[key]
    assumed = []
    if inner.get("model_type") is None:
        known = hf_families.INNER_TYPES.get(str(outer_type))
        if known is not None:
            inner["model_type"] = known
        else:
            assumed.append(
                f"text_config has no model_type and the wrapper {outer_type!r} is not one "
                "kvcalc knows: read from the text_config's keys"
            )
    if inner.get("model_type") == "gemma3":
        inner["model_type"] = "gemma3_text"
    return inner, vision, outer_type, assumed


def _refuse_unreadable(c: HfConfig, mt: Any) -> None:
    """A config no decoder can be read from is refused (the encoder families by name; any
    other without layers, heads and a width)."""
    if mt in hf_families.NOT_DECODERS:
        raise ConfigError(
            f"{c.where}: model_type {mt!r} is not supported: kvcalc sizes decoder-only "
            "language models (write the model YAML by hand)"
        )
    missing = [
        k
        for k, alts in (
            ("num_hidden_layers", ("num_hidden_layers", "n_layer", "num_layers")),
            ("num_attention_heads", ("num_attention_heads", "n_head", "num_heads")),
            ("hidden_size", ("hidden_size", "n_embd", "n_embed", "d_model")),
        )
        if c.first(*alts) is None
    ]
    if missing:
        if mt is None:  # name what is absent, never "None"
            what = f"config.json has no 'model_type' and no {', '.join(missing)}"
        else:  # a value that is not a name is not echoed (it may be any text of any file)
            kind = f"model_type {mt!r}" if is_name(mt) else "its model_type"
            what = f"{kind} is not supported: its config.json has no {', '.join(missing)}"
        raise ConfigError(
            f"{c.where}: {what}, so no decoder can be read from it; write the model YAML by hand"
        )


def _rope_scaling(c: HfConfig) -> dict | None:
    """The RoPE scaling block (calc.data.model_schema.RopeScaling), or None for plain RoPE."""
    r = c.get("rope_scaling")
    if not isinstance(r, dict):
        r = c.get("rope_parameters")
    if not isinstance(r, dict):
        return None
    kind = _ROPE_TYPES.get(str(r.get("rope_type") or r.get("type")))
    mrope = "mrope_section" in r  # multimodal RoPE (Qwen2-VL, Qwen3.5): a larger vLLM table
    if kind is None:  # default / unknown: no change to the context limit
        return {"type": "default", "mrope": True} if mrope else None
    out: dict[str, Any] = {"type": kind, "factor": float(r.get("factor") or 1.0)}
    if mrope:
        out["mrope"] = True
    orig = r.get("original_max_position_embeddings") or c.get("original_max_position_embeddings")
    if orig:
        out["original_max_ctx"] = int(orig)
    return out


def _dims(c: HfConfig, fam: hf_families.Family) -> dict[str, Any]:
    """Width, layers, heads, KV heads, vocabulary and context of the decoder."""
    falcon = fam.name == "falcon"
    d = c.need_one("hidden_size", "n_embd", "n_embed", "d_model")
    n_heads = c.need_one("num_attention_heads", "n_head", "num_heads")
    if falcon:
        if c.get("new_decoder_architecture", False):
            n_kv = c.need("num_kv_heads", "the new decoder architecture's KV heads")
        else:
            n_kv = 1 if c.get("multi_query", True) else n_heads
    else:
        n_kv = c.first("num_key_value_heads", "num_kv_heads", "n_head_kv", default=n_heads)
    return dict(
        n_layers=c.need_one("num_hidden_layers", "n_layer", "num_layers"),
        d_model=d,
        n_heads=n_heads,
        n_kv_heads=n_kv,
        vocab_size=c.need("vocab_size"),
        max_ctx=c.need_one(
            "max_position_embeddings",
            "n_positions",
            "max_sequence_length",
            "seq_length",
            what="max_ctx",
        ),
    )


def _ffn(c: HfConfig, fam: hf_families.Family, d: int, generic: bool) -> tuple[str, int | None]:
    """(FFN kind, dense FFN width)."""
    kind = fam.ffn
    if generic:
        act = str(c.first("mlp_hidden_act", "hidden_act", "hidden_activation", default=""))
        if act in ("relu2", "squared_relu"):
            kind = "mlp"  # squared ReLU MLPs have no gate (Nemotron)
        else:
            c.assume(hf_families.GENERIC_ASSUMPTIONS[1])
    if fam.name == "falcon":
        return kind, c.get("ffn_hidden_size") or 4 * d
    if fam.name == "llama4_text":
        return kind, c.get("intermediate_size_mlp")
    return kind, c.first("intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim")


def _layout(fields_: dict, types: list[str] | None, c: HfConfig) -> None:
    """layer_pattern / layer_types and the windows they need, into ``fields_``."""
    if types is None or set(types) == {"full"}:
        return
    period = smallest_period(types)  # O(n_layers), not O(n_layers²)
    if period <= 8:
        fields_["layer_pattern"] = types[:period]  # e.g. [sliding, full]
    else:
        fields_["layer_types"] = types
    if "sliding" in types:
        fields_["sliding_window"] = c.need("sliding_window", "sliding layers")
    if "chunked" in types:
        fields_["attention_chunk_size"] = c.need("attention_chunk_size", "chunked layers")


def _attention_parts(cfg: ModelConfig) -> set[str]:
    """The projections of one attention layer of ``cfg``, as exclude lists name them."""
    if cfg.mla is not None:
        q = {"q_a_proj", "q_b_proj"} if cfg.mla.q_lora_rank else {"q_proj"}
        return q | {"kv_a_proj", "kv_b_proj", "o_proj"} | ({"indexer"} if cfg.indexer else set())
    return {"q_proj", "k_proj", "v_proj", "o_proj"}


def _apply_quantization(
    fields_: dict, q: dict, c: HfConfig, outer: dict[str, Any]
) -> None:
    """``weight_dtypes``, ``unquantised_layers`` / ``unquantised_parts``, ``kv_dtype`` and a note
    from a quantization config, for the components and layers this model has."""
    qz = read_quantization(q, c.where, fields_["n_layers"])
    for text in qz.assumed:
        c.assume(text)
    try:  # the layers of each component, from the model as read so far
        shape = ModelConfig.from_trusted({**fields_, "weight_dtypes": None})
    except (TypeError, ValueError):
        validate(ModelConfig, fields_, c.where)  # reports what is wrong, one line
        raise
    formats: dict[str, str] = {}
    unquantised: dict[str, list[int]] = {}
    for comp in LINEAR:
        fmt = qz.formats.get(comp)
        with_comp = {i for i in range(shape.n_layers) if shape.layer_has(comp, i)}
        if fmt is None or not with_comp:
            continue
        kept = qz.excluded.get(comp, set())
        kept = set(with_comp) if kept == "*" else set(kept)
        if qz.quantised is not None:
            done = qz.quantised.get(comp, set())
            kept |= set() if done == "*" else with_comp - set(done)
        kept &= with_comp
        if kept == with_comp:
            continue  # left in the checkpoint's dtype in every layer
        formats[comp] = fmt
        if kept:
            unquantised[comp] = sorted(kept)
    if "lm_head" in qz.formats and "lm_head" not in qz.excluded:
        formats["lm_head"] = qz.formats["lm_head"]
    parts = []
    attn_layers = {i for i in range(shape.n_layers) if shape.layer_has("attention", i)}
    every = {p for p, ls in qz.parts.items() if ls == "*" or set(ls) >= attn_layers}
    if "attention" in formats and every >= _attention_parts(shape):
        del formats["attention"]  # every projection of every layer excluded: all 16 bit
        unquantised.pop("attention", None)
    for part, layers in sorted(qz.parts.items()):
        if "attention" not in formats:
            break
        covered = attn_layers if layers == "*" else set(layers) & attn_layers
        if covered == attn_layers - set(unquantised.get("attention", ())) or covered == attn_layers:
            parts.append(part)
        elif covered:
            c.assume(f"attention {part} excluded from quantisation in {len(covered)} of "
                     f"{len(attn_layers)} layers: counted as quantised")  # fmt: skip
    fields_["weight_dtypes"] = formats
    if unquantised:
        fields_["unquantised_layers"] = unquantised
    if parts:
        fields_["unquantised_parts"] = parts
    note = qz.note
    if qz.quantised is not None:  # mixed precision: the formats this model has
        note = "ModelOpt MIXED_PRECISION (" + ", ".join(
            f"{c} {f}" for c, f in sorted(formats.items())
        ) + ")"
    present = {c for c in LINEAR if any(shape.layer_has(c, i) for i in range(shape.n_layers))}
    kept_comps = sorted(present & set(qz.formats) - set(formats))
    if kept_comps:
        note += f"; unconverted: {', '.join(kept_comps)}"
    if qz.kv_dtype is not None and "kv_dtype" not in fields_:
        fields_["kv_dtype"] = qz.kv_dtype
        note += "; fp8 KV cache with per-layer k/v scales (kv_cache_quant_algo)"
    fields_["notes"] = note


def hf_to_fields(
    data: dict[str, Any], where: str, name: str, hf_quant: dict | None = None
) -> dict[str, Any]:
    """ModelConfig fields from a parsed config.json (raises ConfigError naming what is
    missing); ``hf_quant``: the snapshot's parsed hf_quant_config.json, if any."""
    outer = data
    text, vision, outer_type, assumed = _unwrap(data, where)
    mt = text.get("model_type")
    fam = hf_families.family_of(mt if isinstance(mt, str) else None)
    canonical = hf_families.canonical(mt if isinstance(mt, str) else None)
    text = {**hf_families.DEFAULTS.get(str(canonical), {}), **text}
    blocks = text.get("layers_block_type")
    if text.get("num_hidden_layers") is None and isinstance(blocks, list):
        text["num_hidden_layers"] = len(blocks)  # transformers v5 Nemotron-H states only this
    check_hf_config(text, where)  # types and ranges first: nothing below computes unchecked
    c = HfConfig(text, where)
    for a in assumed:
        c.assume(a)
    generic = fam is None
    if generic:
        _refuse_unreadable(c, mt)
        fam = hf_families.GENERIC
        what = f"model_type {mt!r} is not one kvcalc knows" if mt else "no model_type"
        c.assume(
            f"{what}: read from its keys, assuming "
            + "; ".join(hf_families.GENERIC_ASSUMPTIONS[::2])
        )
    family = str(canonical) if not generic else "generic"
    dims = _dims(c, fam)
    d, n_heads = dims["d_model"], dims["n_heads"]
    ffn_kind, d_ffn = _ffn(c, fam, d, generic)
    norm = fam.norm
    if generic and c.has("layer_norm_eps") and not c.has("rms_norm_eps"):
        norm = "layernorm"
        c.assume("LayerNorm (the config gives layer_norm_eps)")
    fields_: dict[str, Any] = dict(
        name=name,
        display_name=name,
        source=where,
        **dims,
        tie_embeddings=c.get("tie_word_embeddings", fam.tie),
        dtype=_DTYPES.get(c.get("torch_dtype") or c.get("dtype") or "bfloat16", "bf16"),
        ffn_kind=ffn_kind,
        norm=norm,
        norms_per_layer=fam.norms_per_layer,
    )
    _engine_keys(fields_, outer, outer_type)
    _attention_fields(fields_, c, fam, family, d // n_heads)
    _rotary_fields(fields_, c, fam)
    _block_fields(fields_, c, fam, family, d_ffn)
    if vision is not None:
        tower = vision_tower(vision, outer_type, d, c)
        if tower is not None:
            fields_["vision"] = tower
    if isinstance(outer.get("audio_config"), dict):
        c.assume("audio tower not counted (no audio tower kvcalc knows)")
    _quantization_fields(fields_, c, outer, hf_quant, where)
    if c.assumed:
        fields_["assumed"] = list(c.assumed)
    return fields_


def _engine_keys(fields_: dict, outer: dict, outer_type: Any) -> None:
    """config.json's ``architectures[0]`` and top-level ``model_type``, which engines key
    per-model rules on (a name that is not a short string is left out)."""
    arch = outer.get("architectures")
    first = arch[0] if isinstance(arch, list) and arch else None
    for key, value in (("architecture", first), ("model_type", outer_type)):
        if isinstance(value, str) and 0 < len(value) <= 100:
            fields_[key] = value


def _attention_fields(fields_: dict, c: HfConfig, fam, family: str, head_dim: int) -> None:
    """The attention's fields: MLA (with a sparse indexer) or the head width; biases, q/k
    norms, the output gate, sinks: the family's code, else the config's keys."""
    mla = hf_blocks.mla(c)
    if mla is None:
        fields_["head_dim"] = (
            c.first("head_dim", "attention_head_dim", "kv_channels") or head_dim
        )
    else:
        fields_["mla"] = mla
        ix = hf_blocks.indexer(c)
        if ix is not None:
            fields_["indexer"] = ix
    qkv_bias = fam.qkv_bias
    if qkv_bias is None:
        qkv_bias = bool(c.first("attention_bias", "qkv_bias", "bias", default=False))
    o_bias = qkv_bias if fam.o_bias is None else fam.o_bias
    ffn_bias = fam.ffn_bias
    if ffn_bias is None:
        ffn_bias = bool(c.first("mlp_bias", default=False))
        if family == "falcon":
            ffn_bias = bool(c.get("bias", False))
    fields_.update(qkv_bias=qkv_bias, o_bias=o_bias, ffn_bias=ffn_bias)
    qk_norm = fam.qk_norm
    if qk_norm is None:
        qk_norm = bool(c.first("use_qk_norm", "qk_layernorm", "qk_norm", default=False))
    if qk_norm and mla is None:
        fields_["qk_norm"] = True
        if c.get("qk_norm_type") == "per_layer":
            fields_["qk_norm_scope"] = "layer"  # MiniMax-M2: norms over all heads
    if c.get("attn_output_gate", fam.attn_output_gate) and mla is None:
        fields_["attn_output_gate"] = True
    if fam.lm_head_bias:
        fields_["lm_head_bias"] = True
    if family == "falcon" and c.get("parallel_attn", True) and not c.get(
        "new_decoder_architecture", False
    ):
        fields_["norms_per_layer"] = 1
    if family == "gpt_oss":
        fields_["attention_sinks"] = True


def _rotary_fields(fields_: dict, c: HfConfig, fam) -> None:
    """RoPE's rotary width where it is not the whole head: 0 for a family without RoPE; the
    config's ``rotary_dim`` (MiniMax-M2); else head_dim × ``partial_rotary_factor``
    (``rotary_pct``, ``rotary_emb_fraction``; at top level or in rope_parameters), truncated
    as the engines' get_rope do. MLA's width is its qk_rope_head_dim."""
    if "mla" in fields_:
        return
    if not fam.rope:
        fields_["rotary_dim"] = 0
        return
    if fam.local_rope:
        fields_["local_rope"] = True
    head = fields_["head_dim"]
    rp = c.get("rope_parameters")
    rp = rp if isinstance(rp, dict) else {}
    dim = c.get("rotary_dim")
    factor = c.first("partial_rotary_factor", "rotary_pct", "rotary_emb_fraction")
    factor = rp.get("partial_rotary_factor", factor)
    if isinstance(dim, int) and 0 < dim < head:
        fields_["rotary_dim"] = dim
    elif isinstance(factor, (int, float)) and 0 < factor < 1:
        fields_["rotary_dim"] = int(head * factor)


def _block_fields(fields_: dict, c: HfConfig, fam, family: str, d_ffn: int | None) -> None:
    """The layer types and the blocks they need (SSM, linear attention, MoE, the FFN width),
    MTP layers and RoPE scaling."""
    types = read_layer_types(c, family, fields_["n_layers"])
    _layout(fields_, types, c)
    if types is not None and {"mlp", "moe"} & set(types):
        fields_["ffn_per_layer"] = False
    ssm = hf_blocks.ssm(c, types)
    if ssm is not None:
        fields_["ssm"] = ssm
    la = hf_blocks.linear_attention(c, types)
    if la is not None:
        fields_["linear_attention"] = la
    moe = hf_blocks.moe(c, fam, c.first("intermediate_size", "ffn_hidden_size"), types)
    if moe is not None:
        fields_["moe"] = moe
    if d_ffn is None:
        if moe is None:
            raise c.missing("intermediate_size", "the FFN width")
        d_ffn = moe["d_expert_ffn"]  # no dense FFN: the field is unused but required
    fields_["d_ffn"] = d_ffn
    mtp = hf_blocks.mtp_layers(c)
    if mtp:
        fields_["mtp_layers"] = mtp
    rope = _rope_scaling(c)
    if rope is not None:
        fields_["rope_scaling"] = rope


def _quantization_fields(fields_: dict, c: HfConfig, outer: dict, hf_quant: dict | None,
                         where: str) -> None:  # fmt: skip
    """The checkpoint's formats from its quantization_config (or ModelOpt's
    hf_quant_config.json); a name that reads quantised without either, said."""
    q = c.get("quantization_config") or outer.get("quantization_config")
    mixed = isinstance(q, dict) and str(q.get("quant_algo", "")).upper() == "MIXED_PRECISION"
    unlisted = mixed and "quantized_layers" not in q
    if hf_quant is not None and (not isinstance(q, dict) or unlisted):
        # ModelOpt's own file, the one with a mixed checkpoint's per-module list
        q = hf_quant_block(hf_quant, f"{where} (hf_quant_config.json)")
    name = fields_["name"]
    if isinstance(q, dict):
        _apply_quantization(fields_, q, c, outer)
    elif _QUANTISED_NAME.search(name):
        c.assume(
            f"the name {name!r} reads like a quantised release but the config has no "
            "quantization_config (and no hf_quant_config.json beside it): weights sized in "
            f"{fields_['dtype']}; pass the snapshot folder or write weight_dtypes"
        )


def _parse(path: Path) -> dict[str, Any]:
    # duplicate keys and huge digit counts refused; NaN / Infinity read as floats (real
    # configs carry them in keys the importer never uses, which check_hf_config guards)
    data = parse_json(read_text(path, max_bytes=MAX_CONFIG_BYTES), path, nonfinite=True)
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


def _beside(path: Path, name: str) -> Path | None:
    """The file ``name`` in the folder of a snapshot's config.json, if there is one."""
    if path.name != "config.json":
        return None
    other = path.parent / name
    try:
        return other if other.is_file() else None
    except OSError:
        return None


def safetensors_total_bytes(path: Path) -> int | None:
    """``metadata.total_size`` of the model.safetensors.index.json beside a snapshot's
    config.json [bytes], or None (no index, or one without the key)."""
    index = _beside(path, "model.safetensors.index.json")
    if index is None:
        return None
    data = parse_json(read_text(index, max_bytes=MAX_CONFIG_BYTES), index)
    total = data.get("metadata", {}).get("total_size") if isinstance(data, dict) else None
    if total is None:
        return None
    if isinstance(total, bool) or not isinstance(total, int) or total <= 0:
        raise ConfigError(f"{index}: metadata.total_size must be a positive integer of bytes")
    return total


def load_hf_config(path, name: str | None = None, source: str | None = None) -> ModelConfig:
    """A ModelConfig from a Hugging Face config.json file, or a snapshot folder holding one
    (with its hf_quant_config.json and model.safetensors.index.json when present;
    ConfigError names what is wrong)."""
    path = config_path(path)
    quant = _beside(path, "hf_quant_config.json")
    hf_quant = _parse(quant) if quant is not None else None
    fields_ = hf_to_fields(_parse(path), str(path), name or default_name(path), hf_quant)
    total = safetensors_total_bytes(path)
    if total is not None:
        fields_["checkpoint_bytes"] = total
    if source:
        fields_["source"] = source
    return validate(ModelConfig, fields_, path)


def fetch_hf_config(repo_id: str) -> Path:
    """Local path of ``repo_id``'s config.json (calc.data.hf_fetch: the cache when offline, one
    line at once when the Hub cannot be reached, its size checked before the download), with
    its hf_quant_config.json and model.safetensors.index.json beside it when the repository
    has them (a ModelOpt release's formats, the checkpoint's size)."""
    from calc.data.hf_fetch import fetch_config, fetch_extras
    from calc.data.yaml_io import MAX_FILE_BYTES

    path = fetch_config(repo_id, MAX_FILE_BYTES)
    fetch_extras(repo_id, ("hf_quant_config.json", "model.safetensors.index.json"), MAX_FILE_BYTES)
    return path


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
