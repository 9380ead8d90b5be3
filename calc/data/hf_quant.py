"""The released weight formats of a quantised checkpoint [one format per component], read from
its ``quantization_config`` (config.json) or ModelOpt's ``hf_quant_config.json``: which linear
components are quantised to which format, which layers or projections the checkpoint leaves in
16 bit, and the KV-cache dtype the checkpoint asks for.

A quantised checkpoint is never sized as bf16 silently: a method or format kvcalc cannot
express is a ConfigError.

Methods: fp8 (per-tensor, or 128 × 128 block scales), fbgemm_fp8 (per-row scales, a few bytes
per row, counted as per-tensor), compressed-tensors (fp8, int4/int8
groups, nvfp4), gptq / awq, mxfp4, bitsandbytes, and ModelOpt (``quant_method: modelopt`` or
``hf_quant_config.json``): FP8, NVFP4 / W4A16_NVFP4, MXFP8, MXFP4, INT4 AWQ, INT8 SmoothQuant,
and MIXED_PRECISION, whose ``quantized_layers`` give each module its own algorithm. ModelOpt's
``kv_cache_quant_algo: FP8`` (or a float8 ``kv_cache_scheme``) stores the KV cache in fp8 with
one k and one v scale per attention layer; vLLM's ``--kv-cache-dtype auto`` then uses fp8
(vllm/utils/torch_utils.py ``resolve_kv_cache_dtype_string``).

Exclude lists (``ignore``, ``modules_to_not_convert``, ``exclude_modules``) are read module by
module: the layer index (``layers.N.``, or ModelOpt's glob ``layers.N*``), the component
(attention, dense FFN, routed or shared experts, SSM / linear-attention mixer, lm_head) and,
for attention, the projection. A component excluded in every layer stays 16 bit; in some
layers, those layers are listed in ``unquantised_layers``; an attention projection excluded in
every layer is listed in ``unquantised_parts``. Norms, routers, MTP modules and towers are
never converted here, listed or not.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from calc.errors import ConfigError

# linear components a quantisation method converts (calc.deploy.checkpoint.REQUANTISED)
LINEAR = ("attention", "dense_ffn", "routed_experts", "shared_experts", "ssm")
FFN = ("dense_ffn", "routed_experts", "shared_experts")
# attention projections an exclude list may name (calc.deploy.checkpoint.attention_part_params)
PARTS = {
    "q_a_proj": "q_a_proj", "q_b_proj": "q_b_proj", "kv_a_proj_with_mqa": "kv_a_proj",
    "kv_a_proj": "kv_a_proj", "kv_b_proj": "kv_b_proj", "q_proj": "q_proj", "k_proj": "k_proj",
    "v_proj": "v_proj", "o_proj": "o_proj", "indexer": "indexer", "qkv_proj": "qkv_proj",
}  # fmt: skip

_MODELOPT_ALGOS = {
    "FP8": "fp8-tensor",
    "FP8_PER_CHANNEL_PER_TOKEN": "fp8-tensor",
    "FP8_PB_WO": "fp8-block128",
    "FP8_BLOCK": "fp8-block128",
    "NVFP4": "nvfp4",
    "W4A16_NVFP4": "nvfp4",
    "W4A8_NVFP4_FP8": "nvfp4",
    "NVFP4_AWQ": "nvfp4",
    "MXFP8": "mxfp8",
    "MXFP4": "mxfp4",
    "W4A8_MXFP4_FP8": "mxfp4",
    "INT8_SQ": "int8-channel",
    "W8A8_SQ_PER_CHANNEL": "int8-channel",
}
_AWQ = ("W4A16_AWQ", "W4A8_AWQ", "INT4_AWQ")


@dataclass
class Quantization:
    """What a quantisation config says: the format of each linear component, the layers and
    attention projections left unquantised, the KV dtype, and a note for the model YAML."""

    formats: dict[str, str]  # component -> format (a component absent stays in dtype)
    note: str
    kv_dtype: str | None = None
    # component -> layers excluded ('*': all of them); attention projection -> layers
    excluded: dict[str, set | str] = field(default_factory=dict)
    parts: dict[str, set | str] = field(default_factory=dict)
    assumed: list[str] = field(default_factory=list)
    # MIXED_PRECISION: component -> layers with a quantised module (the rest stay in dtype)
    quantised: dict[str, set | str] | None = None


# -- exclude lists ---------------------------------------------------------------------------

_TOWER = re.compile(r"(vision|visual|image|multi_modal|mm_projector|mm_|audio|patch_merge)")
_MTP = re.compile(r"(^|\.)(mtp|eh_proj|enorm|hnorm|shared_head)")
_LAYER = re.compile(r"layers\.(\d+)(\*|\.|$)")
# modules no quantisation method converts (not Linear layers), listed or not
_NEVER = ("gate", "router", "e_score_correction_bias", "bias", "conv1d", "a_log", "d",
          "dt_bias")  # fmt: skip


def _layers_of(pattern: str, n_layers: int) -> set | str:
    """The layers a module name or ModelOpt glob names: ``layers.N.`` that layer, ``layers.N*``
    every layer whose index starts with N (fnmatch), no index: all ('*')."""
    m = _LAYER.search(pattern)
    if m is None:
        return "*"
    n = m.group(1)
    if m.group(2) == "*":
        return {i for i in range(n_layers) if str(i).startswith(n)}
    return {int(n)} if int(n) < n_layers else set()


def classify(module: str) -> tuple[str | None, str | None]:
    """(component, attention projection) of a module name or glob; component None for what is
    never converted here (norms, routers, towers, MTP), 'mlp' for an FFN that is dense or MoE
    by layer, 'layer' for a whole layer (``layers.0*``), 'lm_head' / 'embedding'."""
    p = re.sub(r"[\\$^]", "", module.removeprefix("re:").lower())  # a regex's anchors
    if _TOWER.search(p) or _MTP.search(p):
        return None, None
    index = _LAYER.search(p)
    tail = p[index.end() :] if index else p
    last = [s for s in re.split(r"[.*]+", tail) if s]
    leaf = last[-1] if last else ""
    if "lm_head" in p or (leaf == "head" and not index):
        return "lm_head", None
    if "embed" in p:
        return "embedding", None
    if not last:
        return "layer", None  # model.layers.0* : the whole layer
    if "norm" in leaf or leaf in _NEVER or (leaf.endswith("_gate") and not leaf.endswith("proj")):
        return None, None  # norms, routers, convolutions, SSM scalars: never quantised anyway
    if "shared_expert" in tail:
        return "shared_experts", None
    if "experts" in tail:
        return "routed_experts", None
    if "linear_attn" in tail or "mamba" in tail or (
        "mixer" in tail and re.search(r"(in_proj|out_proj|conv1d|dt_proj|x_proj)", tail)
    ):
        return "ssm", None
    if re.search(r"(self_attn|attention|attn|mixer)", tail):
        part = next((PARTS[s] for s in last if s in PARTS), None)
        if part is None and any(s.startswith("index") for s in last):
            part = "indexer"
        return "attention", part
    if re.search(r"(mlp|ffn|feed_forward|block_sparse_moe)", tail):
        return "mlp", None
    return None, None


# one module name of each component in the Transformers layout, to test a ``re:`` pattern
# against (compressed-tensors matches its regexes with re.match on the module's name)
_CANONICAL = {
    "attention": ("model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.o_proj"),
    "dense_ffn": ("model.layers.0.mlp.gate_proj", "model.layers.0.mlp.down_proj"),
    "routed_experts": ("model.layers.0.mlp.experts.0.gate_proj",
                       "model.layers.0.block_sparse_moe.experts.0.w1"),
    "shared_experts": ("model.layers.0.mlp.shared_experts.gate_proj",
                       "model.layers.0.mlp.shared_expert.gate_proj"),
    "ssm": ("model.layers.0.linear_attn.in_proj_qkvz", "model.layers.0.mamba.in_proj",
            "backbone.layers.0.mixer.in_proj"),
    "lm_head": ("lm_head",),
}  # fmt: skip


def _regex_components(pattern: str) -> set[str]:
    """Components one of whose module names a ``re:`` pattern matches (re.match)."""
    try:
        rx = re.compile(pattern)
    except re.error:
        return set()
    return {c for c, names in _CANONICAL.items() if any(rx.match(n) for n in names)}


def read_excludes(patterns, n_layers: int) -> tuple[dict, dict]:
    """(component -> excluded layers, attention projection -> excluded layers) of an exclude
    list; '*' means every layer."""
    comps: dict[str, set | str] = {}
    parts: dict[str, set | str] = {}

    def add(table, key, layers):
        old = table.get(key, set())
        table[key] = "*" if "*" in (old, layers) else old | layers

    for raw in patterns or ():
        if str(raw).startswith("re:") and not _TOWER.search(str(raw)):
            for comp in _regex_components(str(raw)[3:]):
                add(comps, comp, "*")
            continue
        comp, part = classify(str(raw))
        if comp is None:
            continue
        layers = _layers_of(str(raw), n_layers)
        if comp in ("lm_head", "embedding"):
            add(comps, comp, "*")
        elif part is not None:
            add(parts, part, layers)
        elif comp == "layer":
            for c in (*LINEAR, "mlp"):
                add(comps, c, layers)
        else:
            add(comps, comp, layers)
    if "mlp" in comps:
        for c in FFN:
            add(comps, c, comps["mlp"])
        del comps["mlp"]
    return comps, parts


# -- methods ---------------------------------------------------------------------------------


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
    if kind == "float" and bits == 4 and group == 32:
        return "mxfp4"
    if kind == "int" and bits == 8 and strategy == "channel":
        return "int8-channel"
    if kind == "int" and bits in (4, 8) and group in (32, 64, 128):
        return f"int{bits}-g{group}" + ("-sym" if w.get("symmetric", True) else "")
    raise ConfigError(
        f"{where}: compressed-tensors weights of {bits}-bit {kind} with strategy {strategy} "
        f"and group {group} have no kvcalc format; write weight_dtypes in the model YAML"
    )


def _modelopt_format(algo: Any, group: Any, where: str) -> str:
    a = str(algo).upper()
    if a in _MODELOPT_ALGOS:
        return _MODELOPT_ALGOS[a]
    if a in _AWQ:
        g = group or 128
        if g not in (32, 64, 128):
            raise ConfigError(f"{where}: ModelOpt {a} with group_size {g} has no kvcalc format")
        return f"int4-g{g}-sym"
    raise ConfigError(
        f"{where}: ModelOpt quant_algo {algo!r} is not understood (known: "
        f"{', '.join([*_MODELOPT_ALGOS, *_AWQ, 'MIXED_PRECISION'])}); write weight_dtypes "
        "in the model YAML rather than size it as unquantised"
    )


def _kv_fp8(q: dict) -> bool:
    algo = q.get("kv_cache_quant_algo")
    if isinstance(algo, str) and algo.upper().startswith("FP8"):
        return True
    s = q.get("kv_cache_scheme")
    return isinstance(s, dict) and s.get("type") == "float" and s.get("num_bits") == 8


def _modelopt(q: dict, where: str, n_layers: int) -> Quantization:
    """ModelOpt: one algorithm for every quantised linear, or MIXED_PRECISION with one per
    module (``quantized_layers``); components a module list leaves out stay in dtype."""
    algo = q.get("quant_algo")
    if algo is None:
        raise ConfigError(f"{where}: ModelOpt quantization has no quant_algo")
    excludes = q.get("exclude_modules") or q.get("ignore") or []
    comps, parts = read_excludes(excludes, n_layers)
    kv = "fp8" if _kv_fp8(q) else None
    if str(algo).upper() != "MIXED_PRECISION":
        fmt = _modelopt_format(algo, q.get("group_size"), where)
        formats = dict.fromkeys(LINEAR, fmt)
        note = f"ModelOpt {str(algo).upper()} ({fmt})"
        return Quantization(formats, note, kv, comps, parts)
    layers = q.get("quantized_layers")
    if not isinstance(layers, dict) or not layers:
        raise ConfigError(f"{where}: ModelOpt MIXED_PRECISION without quantized_layers")
    seen: dict[str, Counter] = {}
    quantised_layers: dict[str, set | str] = {}
    for module, spec in layers.items():
        if not isinstance(spec, dict):
            raise ConfigError(f"{where}: quantized_layers[{module!r}] is not an object")
        comp, _ = classify(module)
        if comp in (None, "layer", "embedding"):
            continue
        fmt = _modelopt_format(spec.get("quant_algo"), spec.get("group_size"), where)
        targets = FFN if comp == "mlp" else (comp,)
        for c in targets:
            seen.setdefault(c, Counter())[fmt] += 1
            if c != "lm_head":
                ls = _layers_of(module, n_layers)
                old = quantised_layers.get(c, set())
                quantised_layers[c] = "*" if "*" in (old, ls) else old | ls
    formats = {c: cnt.most_common(1)[0][0] for c, cnt in seen.items()}
    out = Quantization(formats, "", kv, comps, parts)
    for c, cnt in seen.items():
        if len(cnt) > 1:
            out.assumed.append(
                f"ModelOpt mixed precision: {c} in {', '.join(sorted(cnt))}; counted as "
                f"{formats[c]} throughout"
            )
    out.quantised = quantised_layers  # a component's other layers stay in dtype
    out.note = "ModelOpt MIXED_PRECISION (" + ", ".join(
        f"{c} {f}" for c, f in sorted(formats.items())
    ) + ")"
    return out


def _fp8_with_mixed_modules(q: dict, where: str, n_layers: int, fmt: str) -> Quantization:
    """An fp8 checkpoint whose ModelOpt ``quantized_layers`` give some modules another format
    (NVIDIA's DeepSeek-V4 NVFP4 releases: experts NVFP4, the other linears fp8 blocks)."""
    if not isinstance(q.get("quantized_layers"), dict):
        raise ConfigError(
            f"{where}: fp8 quantization_config with quant_algo MIXED_PRECISION but no "
            "quantized_layers: pass the snapshot folder (its hf_quant_config.json) or write "
            "weight_dtypes"
        )
    qz = _modelopt(q, where, n_layers)
    listed = dict(qz.quantised or {})
    for c in LINEAR:
        if c not in qz.formats:
            qz.formats[c] = fmt
            listed[c] = "*"
    qz.quantised = listed
    qz.note = f"fp8 weights ({fmt}) with per-module ModelOpt formats"
    return qz


def read_quantization(q: dict, where: str, n_layers: int) -> Quantization:
    """The Quantization of a ``quantization_config`` (or hf_quant_config's ``quantization``
    block, passed with ``quant_method: modelopt``). An unknown method is a ConfigError."""
    method = str(q.get("quant_method", "unknown")).lower()
    if method == "modelopt" or ("quant_algo" in q and method in ("unknown", "none")):
        return _modelopt(q, where, n_layers)
    ignore = q.get("modules_to_not_convert") or q.get("ignore") or q.get("ignored_layers")
    kv = "fp8" if _kv_fp8(q) else None
    if method == "fp8":
        block = q.get("weight_block_size")
        fmt = "fp8-block128" if list(block or []) == [128, 128] else "fp8-tensor"
        if str(q.get("quant_algo", "")).upper() == "MIXED_PRECISION":
            return _fp8_with_mixed_modules(q, where, n_layers, fmt)
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
    elif method == "fbgemm_fp8":  # Meta's FP8 releases: fp8 weights, one fp32 scale per row
        fmt, note = "fp8-tensor", "fbgemm fp8 weights (per-row scales)"
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
            "(known: fp8, compressed-tensors, gptq, awq, mxfp4, bitsandbytes, modelopt); "
            "write weight_dtypes in the model YAML rather than size it as unquantised"
        )
    comps, parts = read_excludes(ignore, n_layers)
    return Quantization(dict.fromkeys(LINEAR, fmt), note, kv, comps, parts)


def hf_quant_block(data: dict, where: str) -> dict:
    """The ``quantization`` block of a ModelOpt hf_quant_config.json as a quantization_config
    (``quant_method: modelopt``)."""
    block = data.get("quantization")
    if not isinstance(block, dict):
        raise ConfigError(f"{where}: hf_quant_config.json has no 'quantization' object")
    return {**block, "quant_method": "modelopt"}
