"""The search space of ``kvcalc plan``: the deployment families it tries for one model on one
kind of hardware. A family is (model, hardware, dtypes, tp, pp, ep, engine); its replica count
is chosen by the search (``calc.reports.plan``).

The space is kept small and stated:

- **dtypes**: the checkpoint as released (weights and KV in their released formats), and, where
  the hardware has fp8 tensor cores (an ``fp8`` peak in its profile) and the released linear
  layers are 16-bit, fp8 weights (W8A8, vLLM ``--quantization fp8``) with an fp8 KV cache.
- **tensor parallel**: powers of two up to the scale-up domain (NVLink/xGMI; 8 when the profile
  does not say), never above 8 (engines shard one node; larger groups pay inter-node
  all-reduces every layer).
- **pipeline parallel**: 1, and 2 or 4 stages at the largest tp (only for a model that does
  not fit one domain).
- **expert parallel** (MoE models): off, ep = tp (experts spread over the TP group), and
  ep = the domain with tp 1 (attention data parallel inside the expert group, DeepSeek's
  layout).

Layouts the model's shape does not allow (heads or experts not divisible, ``Deployment.build``
refuses them) are skipped, not reported.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_TP = 8
PP_CHOICES = (2, 4)
# released linear-layer formats that fp8 would not shrink (already 8 bits or fewer)
_NARROW = ("fp8", "int8", "int4", "fp4", "mxfp4", "nvfp4")


@dataclass(frozen=True)
class DtypeChoice:
    """A weight/KV dtype pair: None keeps the checkpoint's released format."""

    weight_dtype: str | None
    kv_dtype: str | None
    label: str  # "as released" or "fp8 w / fp8 kv"


AS_RELEASED = DtypeChoice(None, None, "as released")
FP8 = DtypeChoice("fp8", "fp8", "fp8")


def dtype_choices(cfg, hw) -> list[DtypeChoice]:
    """As released; plus fp8 weights and KV where the hardware has an fp8 peak and the
    released linear layers are wider than 8 bits."""
    from calc.deploy.checkpoint import linear_dtype

    out = [AS_RELEASED]
    released = linear_dtype(cfg, None)
    if "fp8" in hw.peak_flops_per_s and not released.startswith(_NARROW):
        out.append(FP8)
    return out


def tp_choices(hw) -> list[int]:
    """Powers of two up to min(scale-up domain, 8)."""
    domain = min(hw.scale_up_domain_gpus or MAX_TP, MAX_TP)
    out, t = [], 1
    while t <= domain:
        out.append(t)
        t *= 2
    return out


def parallel_layouts(cfg, hw) -> list[tuple[int, int, int]]:
    """(tp, pp, ep) layouts to try, in order of GPUs per replica."""
    tps = tp_choices(hw)
    top = tps[-1]
    out: list[tuple[int, int, int]] = []
    moe = cfg.moe is not None
    for tp in tps:
        out.append((tp, 1, 1))
        if moe and tp > 1:
            out.append((tp, 1, tp))
    if moe and top > 1:
        out.append((1, 1, top))
    for pp in PP_CHOICES:
        out.append((top, pp, 1))
        if moe and top > 1:
            out.append((top, pp, top))
    seen: set = set()
    uniq = [x for x in out if not (x in seen or seen.add(x))]
    return sorted(uniq, key=lambda x: (max(x[0], x[2]) * x[1], x))
