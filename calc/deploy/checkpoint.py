"""Weights as a checkpoint stores them: the format of each component and its bytes [bytes].

A released checkpoint is rarely one dtype. gpt-oss stores its routed experts in MXFP4 and
everything else in bf16; DeepSeek-V3/R1 store every linear layer in fp8 with 128 × 128 block
scales but the embedding, lm_head, norms and router in bf16; AWQ/GPTQ and fp8 checkpoints
made by llm-compressor or AutoAWQ quantise the linear layers of the decoder and leave the
embedding, lm_head, norms, router and vision tower in 16 bit. A model config records this
in ``weight_dtypes`` (one format per component); a component it leaves out has ``dtype``.

``--weight-dtype X`` re-quantises the linear layers (``REQUANTISED``: attention, dense FFN,
routed and shared experts, SSM mixers) to X, as such a tool would; the embedding, lm_head,
norms, router and the vision/audio towers keep their checkpoint format.

Components (the same names as ``calc.formulas.params.ParamBreakdown`` and
``calc.deploy.parallel.params_per_gpu_by_component``):

embedding, lm_head, attention (q/k/v/o and MLA's projections with their biases, sink
logits), dense_ffn, routed_experts (with their biases), shared_experts, router, ssm, norms
(the per-layer and final norms, MLA's latent norms, q/k head norms), vision, audio.

Bytes per component = parameters × ``calc.formulas.quant.weight_bytes_per_element`` of its format
(scales included; per-row formats use k = d_model, the input width of most projections). A
component some of whose layers the checkpoint leaves unquantised (``unquantised_layers``, e.g. a
ModelOpt exclude list naming the first and last layers) costs the layer-weighted mean of the two
rates.

A snapshot folder's ``model.safetensors.index.json`` states the bytes of every stored tensor
(``metadata.total_size``); ``checkpoint_size_warning`` compares it with the analytic weights.
"""

from __future__ import annotations

from collections.abc import Mapping

from calc.data.model_schema import ModelConfig
from calc.formulas.params import attention_norm_params
from calc.formulas.quant import weight_bytes_per_element

COMPONENTS = (
    "embedding",
    "lm_head",
    "attention",
    "dense_ffn",
    "routed_experts",
    "shared_experts",
    "router",
    "ssm",
    "norms",
    "vision",
    "audio",
)
# the linear layers of the decoder: what ``--weight-dtype`` re-quantises
REQUANTISED = ("attention", "dense_ffn", "routed_experts", "shared_experts", "ssm")


def released_dtypes(cfg: ModelConfig) -> dict[str, str]:
    """The format of every component as the checkpoint is released."""
    over = cfg.weight_dtypes
    out = {}
    for c in COMPONENTS:
        f = getattr(over, c) if over is not None else None
        out[c] = f or cfg.dtype
    return out


def resolved_dtypes(cfg: ModelConfig, weight_dtype: str | None = None) -> dict[str, str]:
    """The format of every component: as released, with the linear layers (``REQUANTISED``)
    in ``weight_dtype`` when it is given. ``weight_dtype`` equal to the checkpoint's own
    ``linear_dtype`` means the checkpoint as released (``--weight-dtype mxfp4`` on gpt-oss
    keeps its bf16 attention), so a caller may always pass the resolved name."""
    out = released_dtypes(cfg)
    if weight_dtype is not None and weight_dtype != linear_dtype(cfg):
        out.update(dict.fromkeys(REQUANTISED, weight_dtype))
    return out


def linear_dtype(cfg: ModelConfig, weight_dtype: str | None = None) -> str:
    """The format of the decoder's linear layers, the one that names a deployment's weight
    dtype and picks its tensor-core dtype: ``weight_dtype`` when given, else the format of
    the requantisable component with the most parameters (gpt-oss: the experts' mxfp4;
    DeepSeek-V3: fp8-block128)."""
    if weight_dtype is not None:
        return weight_dtype
    from calc.formulas.params import model_params

    p = model_params(cfg)
    dtypes = released_dtypes(cfg)
    sizes = {c: getattr(p, _PART[c]) for c in REQUANTISED}
    biggest = max(REQUANTISED, key=lambda c: sizes[c])
    return dtypes[biggest] if sizes[biggest] else cfg.dtype


# ParamBreakdown attribute of each component
_PART = {
    "embedding": "embedding",
    "lm_head": "lm_head",
    "attention": "attention",
    "dense_ffn": "dense_ffn",
    "routed_experts": "moe_routed",
    "shared_experts": "moe_shared",
    "router": "router",
    "ssm": "ssm",
    "norms": "norms",
    "vision": "vision",
    "audio": "audio",
}


def params_by_component(cfg: ModelConfig) -> dict[str, int]:
    """Parameters of the whole model by component [params] (the attention layers' own norms
    counted as norms)."""
    from calc.formulas.params import model_params

    p = model_params(cfg)
    out = {c: getattr(p, _PART[c]) for c in COMPONENTS}
    moved = cfg.n_attention_layers * attention_norm_params(cfg)
    out["attention"] -= moved
    out["norms"] += moved
    return out


def bytes_per_element_by_component(
    dtypes: Mapping[str, str],
    k: int,
    unquantised: Mapping[str, float] | None = None,
    base_dtype: str = "bf16",
) -> dict[str, float]:
    """Bytes per parameter of each component's format [bytes], scales included; a component
    whose share f of layers stays in ``base_dtype`` (``unquantised``) costs
    f × base + (1 − f) × its format."""
    out = {c: weight_bytes_per_element(f, k=k) for c, f in dtypes.items()}
    for c, f in (unquantised or {}).items():
        if f and c in out:
            out[c] = f * weight_bytes_per_element(base_dtype) + (1 - f) * out[c]
    return out


def unquantised_shares(cfg: ModelConfig, weight_dtype: str | None = None) -> dict[str, float]:
    """Share of each component's parameters the released checkpoint keeps in ``cfg.dtype``
    [fraction]: its layers in ``unquantised_layers``, and of attention in the other layers the
    projections in ``unquantised_parts``. None when ``weight_dtype`` re-quantises the linear
    layers (a tool converts them all)."""
    if not (cfg.unquantised_layers or cfg.unquantised_parts) or (
        weight_dtype is not None and weight_dtype != linear_dtype(cfg)
    ):
        return {}
    out = {}
    for comp, idx in (cfg.unquantised_layers or {}).items():
        layers = [i for i in range(cfg.n_layers) if cfg.layer_has(comp, i)]
        if layers:
            kept = set(idx)
            out[comp] = sum(1 for i in layers if i in kept) / len(layers)
    if cfg.unquantised_parts:
        from calc.formulas.params import (
            attention_norm_params,
            attention_part_params,
            layer_attention_params,
        )

        per_layer = layer_attention_params(cfg) - attention_norm_params(cfg)
        parts = sum(attention_part_params(cfg, p) for p in set(cfg.unquantised_parts))
        f = min(parts / per_layer, 1.0) if per_layer else 0.0
        layers_share = out.get("attention", 0.0)
        out["attention"] = layers_share + (1 - layers_share) * f
    return out


def component_bytes_per_element(
    cfg: ModelConfig, weight_dtype: str | None = None
) -> dict[str, float]:
    """Bytes per parameter of every component of ``cfg`` as loaded [bytes]: its resolved
    format, with the layers the checkpoint leaves unquantised weighed in."""
    return bytes_per_element_by_component(
        resolved_dtypes(cfg, weight_dtype),
        cfg.d_model,
        unquantised_shares(cfg, weight_dtype),
        cfg.dtype,
    )


def weight_bytes_by_component(
    params: Mapping[str, int], bytes_per_element: Mapping[str, float]
) -> dict[str, float]:
    """Bytes of each component [bytes]: its parameters × its format's bytes per parameter."""
    return {c: n * bytes_per_element[c] for c, n in params.items()}


def model_weight_bytes(cfg: ModelConfig, weight_dtype: str | None = None) -> dict[str, float]:
    """Bytes of every component of the whole model [bytes]."""
    return weight_bytes_by_component(
        params_by_component(cfg), component_bytes_per_element(cfg, weight_dtype)
    )


def weight_bytes_per_gpu_by_component(
    cfg: ModelConfig, s, weight_dtype: str | None = None
) -> dict[str, float]:
    """Bytes of every component on the busiest GPU under sharding ``s`` [bytes]."""
    from calc.deploy.parallel import params_per_gpu_by_component

    return weight_bytes_by_component(
        params_per_gpu_by_component(cfg, s), component_bytes_per_element(cfg, weight_dtype)
    )


def mean_bytes_per_param(weight_bytes: Mapping[str, float], params: Mapping[str, int]) -> float:
    """Bytes per parameter over all components [bytes]: total bytes / total parameters, the
    single rate that reproduces the mixed-format total when multiplied by the parameters."""
    n = sum(params.values())
    return sum(weight_bytes.values()) / n if n else 0.0


def weight_bytes_per_param(cfg: ModelConfig, weight_dtype: str | None = None, s=None) -> float:
    """The mean bytes per parameter of the whole model (``s`` None) or of the busiest GPU of
    sharding ``s`` [bytes]: what the modules that multiply a parameter count by one rate
    (calc.reports.memory, calc.reports.capacity, calc.reports.sweep) use, so their totals are the
    per-component sum."""
    if s is None:
        params = params_by_component(cfg)
    else:
        from calc.deploy.parallel import params_per_gpu_by_component

        params = params_per_gpu_by_component(cfg, s)
    bpe = component_bytes_per_element(cfg, weight_dtype)
    return mean_bytes_per_param(weight_bytes_by_component(params, bpe), params)


# How far a snapshot's safetensors total may differ from the analytic weights before kvcalc
# warns [fraction]: what the analytic count leaves out on purpose, per-tensor scales of fp8 and
# NVFP4 tensors (input/weight/k/v scales, 4 B each), norms some exporters keep in fp32, and the
# byte padding of a few odd-shaped tensors, stay far below 1% of any model's weights.
CHECKPOINT_TOLERANCE = 0.01


def checkpoint_size_warning(cfg: ModelConfig) -> str | None:
    """A warning when the snapshot's ``model.safetensors.index.json`` total (``checkpoint_bytes``)
    disagrees with the analytic weights by more than ``CHECKPOINT_TOLERANCE``, allowing for MTP
    modules the checkpoint may store (with or without their own embedding and lm_head copies,
    which engines load only for MTP speculation); None when it agrees or is not known."""
    if cfg.checkpoint_bytes is None:
        return None
    from calc.formulas.params import mtp_params

    analytic = sum(model_weight_bytes(cfg).values())
    rate = weight_bytes_per_param(cfg)
    mtp = mtp_params(cfg) * rate
    copies = 2 * cfg.vocab_size * cfg.d_model * cfg.mtp_layers * weight_bytes_per_element(cfg.dtype)
    low, high = analytic, analytic + mtp + copies
    total = cfg.checkpoint_bytes
    if low * (1 - CHECKPOINT_TOLERANCE) <= total <= high * (1 + CHECKPOINT_TOLERANCE):
        return None
    off = total / analytic - 1
    extra = f" (+{mtp / 1e9:,.2f} GB of MTP modules allowed)" if mtp else ""
    return (
        f"{cfg.name}: model.safetensors.index.json states {total / 1e9:,.2f} GB of tensors, "
        f"kvcalc's weights are {analytic / 1e9:,.2f} GB{extra}: {off:+.1%}, more than scales and "
        "padding explain; check the config's quantization and towers against the checkpoint"
    )


def model_warnings(cfg: ModelConfig) -> list[str]:
    """What every command says about a model before its figures: what its import assumed, and
    a checkpoint size that disagrees with the analytic weights."""
    out = [f"{cfg.name}: import assumed {a}" for a in (cfg.assumed or ())]
    size = checkpoint_size_warning(cfg)
    if size:
        out.append(size)
    return out
