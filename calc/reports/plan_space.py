"""The search space of ``kvcalc plan``: the deployment families it tries for one model on one
kind of hardware. A family is (model, hardware, dtypes, tp, pp, ep, engine); its replica count
is chosen by the search (``calc.reports.plan``).

The space is stated:

- **weight formats** (``--weight-dtype``, an allowed list): by default the checkpoint as
  released and the formats the hardware runs natively below it: ``fp8`` (W8A8) where the profile
  has an fp8 peak and the released linear layers are wider, ``fp4`` where it has an fp4 peak
  (NVFP4 on NVIDIA, MXFP4 on AMD) and they are wider than 4 bits. A 4-bit format the model has
  no published checkpoint in (``calc/data/quantised_checkpoints.yaml``) is marked "needs a
  quantised checkpoint" (engines quantise to fp8 as they load, so fp8 needs none).
- **KV-cache formats** (``--kv-dtype``): as released, and fp8 where the profile has an fp8 peak.
  Every allowed weight format is tried with every allowed KV format.
- **tensor parallel**: powers of two up to the scale-up domain (NVLink, xGMI; 8 when the profile
  does not say) and the model's attention heads.
- **pipeline parallel**: 1, and 2 or 4 stages at tp = min(the largest tp, 8) (a model that
  does not fit one node).
- **expert parallel** (MoE models): ep = tp (experts over the TP group); ep from 2 up to the
  scale-up domain with tp 1 (attention data parallel inside the expert group, DeepSeek's
  layout: EP 16-72 on NVL72); and across nodes (multi-node DP+EP: ep 16, 32, 64 on a smaller
  domain, its all-to-all over the scale-out network) where the profile states one.

- **engines**: the ones asked for that run on the GPU's vendor (TensorRT-LLM is CUDA-only: it is
  not tried on AMD).

Layouts the model's shape does not allow (heads or experts not divisible, ``Deployment.build``
refuses them) are skipped, not reported.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_DOMAIN = 8  # GPUs of the scale-up domain when the profile does not say
PP_CHOICES = (2, 4)
MULTI_NODE_EP = (16, 32, 64)  # expert groups across nodes where the domain is smaller
RELEASED = "released"
# released linear-layer formats that fp8 would not shrink (already 8 bits or fewer)
_NARROW8 = ("fp8", "int8", "int4", "fp4", "mxfp4", "nvfp4", "mxfp8")
_NARROW4 = ("int4", "fp4", "mxfp4", "nvfp4", "nf4")
NATIVE = ("fp8", "fp4")  # the names --weight-dtype takes for "the hardware's own format"


@dataclass(frozen=True)
class DtypeChoice:
    """A weight/KV format pair: None keeps the checkpoint's released format."""

    weight_dtype: str | None
    kv_dtype: str | None
    label: str  # "as released", "fp8 w / fp8 kv", ...
    # the published checkpoint in that weight format (a repository), None where none is known
    checkpoint: str | None = None
    needs_checkpoint: bool = False  # a 4-bit format the model has no published checkpoint in


AS_RELEASED = DtypeChoice(None, None, "as released")
FP8 = DtypeChoice("fp8", "fp8", "fp8 w / fp8 kv")


def published_checkpoints() -> dict:
    """``calc/data/quantised_checkpoints.yaml``: model -> format -> {repo, source}."""
    from calc.data.quantised_checkpoints import published_checkpoints as table

    return table()


def fp4_format(hw) -> str:
    """The fp4 format a GPU runs natively: MXFP4 on AMD (CDNA4), NVFP4 on NVIDIA (Blackwell)."""
    return "mxfp4" if hw.vendor.upper() == "AMD" else "nvfp4"


def _weight_format(name: str, hw) -> str | None:
    """A --weight-dtype entry as a kvcalc format: ``released`` → None, ``fp4`` → the GPU's
    own 4-bit format, anything else as given."""
    if name == RELEASED:
        return None
    if name == "fp4":
        return fp4_format(hw)
    return name


def default_weight_dtypes(cfg, hw) -> tuple[str, ...]:
    """As released, fp8 and fp4 where the GPU runs them natively and they shrink the weights."""
    from calc.deploy.checkpoint import linear_dtype

    released = linear_dtype(cfg, None)
    out = [RELEASED]
    if "fp8" in hw.peak_flops_per_s and not released.startswith(_NARROW8):
        out.append("fp8")
    if "fp4" in hw.peak_flops_per_s and not released.startswith(_NARROW4):
        out.append("fp4")
    return tuple(out)


def default_kv_dtypes(cfg, hw) -> tuple[str, ...]:
    """As released, and fp8 where the GPU has an fp8 peak and the cache is wider."""
    released = cfg.kv_dtype or cfg.dtype
    out = [RELEASED]
    if "fp8" in hw.peak_flops_per_s and not released.startswith(("fp8", "int8", "int4", "fp4")):
        out.append("fp8")
    return tuple(out)


def _checkpoint(cfg, fmt: str | None) -> tuple[str | None, bool]:
    """(published repository, needs one) of the weight format ``fmt`` for ``cfg``."""
    from calc.deploy.checkpoint import linear_dtype

    if fmt is None or fmt == linear_dtype(cfg, None) or not fmt.startswith(_NARROW4):
        return None, False
    entry = published_checkpoints().get(cfg.name, {}).get(fmt)
    return (entry["repo"], False) if entry else (None, True)


def dtype_choices(cfg, hw, weights=None, kvs=None) -> list[DtypeChoice]:
    """Every allowed weight format with every allowed KV format (module docstring); ``weights``
    and ``kvs`` are the user's lists (None: the defaults)."""
    from calc.deploy.checkpoint import linear_dtype

    weights = default_weight_dtypes(cfg, hw) if weights is None else weights
    kvs = default_kv_dtypes(cfg, hw) if kvs is None else kvs
    released = linear_dtype(cfg, None)
    out, seen = [], set()
    for w in weights:
        fmt = _weight_format(w, hw)
        if fmt == released:  # the checkpoint's own format is the checkpoint as released
            fmt = None  # (checkpoint.resolved_dtypes): served as published, nothing to quantise
        repo, needs = _checkpoint(cfg, fmt)
        for k in kvs:
            kv = None if k == RELEASED else k
            key = (fmt, kv)
            if key in seen:
                continue
            seen.add(key)
            label = (
                "as released"
                if fmt is None and kv is None
                else (f"{fmt or 'released'} w / {kv or 'released'} kv")
            )
            out.append(DtypeChoice(fmt, kv, label, repo, needs))
    return out


def engine_runs_on(name: str, hw) -> bool:
    """Whether the engine called ``name`` runs on ``hw``'s vendor (``Engine.runs_on``;
    TensorRT-LLM: NVIDIA only)."""
    from calc.deploy.engines import engine

    return engine(name).runs_on(hw)


def domain_of(hw) -> int:
    """GPUs of the scale-up domain [GPUs]."""
    return hw.scale_up_domain_gpus or DEFAULT_DOMAIN


def tp_choices(cfg, hw) -> list[int]:
    """Powers of two up to min(scale-up domain, attention heads)."""
    top = min(domain_of(hw), max(1, cfg.n_heads or 1))
    out, t = [], 1
    while t <= top:
        out.append(t)
        t *= 2
    return out


def ep_choices(cfg, hw) -> list[int]:
    """Expert-parallel group sizes with tp 1: powers of two from 2 to the scale-up domain, the
    domain itself (72 on NVL72), and across nodes 16, 32, 64 where the domain is smaller and the
    profile states a scale-out network; at most the routed experts."""
    if cfg.moe is None:
        return []
    experts = cfg.moe.n_routed_experts
    domain = domain_of(hw)
    out, e = [], 2
    while e <= domain:
        out.append(e)
        e *= 2
    if domain > 1 and domain not in out:
        out.append(domain)
    if hw.scale_out is not None and domain > 1:
        out += [e for e in MULTI_NODE_EP if e > domain]
    return [e for e in out if e <= experts]


def parallel_layouts(cfg, hw) -> list[tuple[int, int, int]]:
    """(tp, pp, ep) layouts to try, in order of GPUs per replica."""
    tps = tp_choices(cfg, hw)
    top = min(tps[-1], DEFAULT_DOMAIN)
    moe = cfg.moe is not None
    out: list[tuple[int, int, int]] = []
    for tp in tps:
        out.append((tp, 1, 1))
        if moe and tp > 1:
            out.append((tp, 1, tp))
    for ep in ep_choices(cfg, hw):
        out.append((1, 1, ep))
    for pp in PP_CHOICES:
        out.append((top, pp, 1))
        if moe and top > 1:
            out.append((top, pp, top))
    seen: set = set()
    uniq = [x for x in out if not (x in seen or seen.add(x))]
    return sorted(uniq, key=lambda x: (max(x[0], x[2]) * x[1], x))
