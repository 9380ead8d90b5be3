"""Throughput per GPU [output tokens/s per GPU] against interactivity [output tokens/s per user]
of deployments as their load grows, and the Pareto frontier of all of them: the trade-off a
buyer reads (more users on a GPU, each served more slowly).

A point is one deployment at one concurrency n (sequences per sequence group, as a benchmark
client's ``--max-concurrency`` sets it), in the steady state of ``calc.reports.throughput``
(requests of prompt + gen tokens, prefill charged, chunked prefill sharing the GPU):

    output tokens/s per GPU  = n × groups × gen / cycle / G      (``serving_throughput``)
    output tokens/s per user = gen / cycle

where one cycle serves every sequence of a replica once from its first prompt token to its last
output token. The per-user figure is the output rate one request sees over its life (its own
prefill and the other requests' prefill chunks included), so it sits below 1 / TPOT by the
prefill's share. The concurrencies are the powers of two up to the engine's own (its
``max_num_seqs`` and its KV pool at prompt + gen tokens), and that maximum. Nothing here is a
new formula: every figure is ``serving_throughput``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.deploy.deployment import Deployment


@dataclass(frozen=True)
class FrontierPoint:
    """One deployment at one load."""

    series: str  # which deployment (a label)
    concurrency: int  # sequences in flight, whole deployment
    serving_output_tokens_per_s_per_user: float  # gen / cycle [tokens/s]
    serving_output_tokens_per_s_per_gpu: float  # steady-state output throughput [tokens/s per GPU]

    def row(self) -> dict:
        return {
            "series": self.series,
            "serving_concurrency": self.concurrency,
            "serving_output_tokens_per_s_per_user": self.serving_output_tokens_per_s_per_user,
            "serving_output_tokens_per_s_per_gpu": self.serving_output_tokens_per_s_per_gpu,
        }


def concurrency_levels(most: int) -> list[int]:
    """1, 2, 4, ... below ``most``, then ``most`` [sequences per group]."""
    out, n = [], 1
    while n < most:
        out.append(n)
        n *= 2
    return [*out, most] if most >= 1 else []


def deployment_curve(
    dep: Deployment, *, prompt: int, gen: int, label: str, efficiency: str = "expected"
) -> list[FrontierPoint]:
    """``dep``'s points from one sequence per group to the engine's own concurrency; empty
    when not one request of prompt + gen tokens fits."""
    import numpy as np

    from calc.reports.throughput import serving_throughput

    full = serving_throughput(dep, prompt=prompt, gen=gen, efficiency=efficiency)
    if full is None:
        return []
    most = int(full.concurrency) // dep.sequence_groups
    levels = np.asarray(concurrency_levels(most), dtype=np.float64)
    s = serving_throughput(
        dep, prompt=prompt, gen=gen, efficiency=efficiency, max_concurrency=levels
    )
    per_user = gen / np.asarray(s.cycle_s, dtype=np.float64)
    return [
        FrontierPoint(label, int(n), float(u), float(t))
        for n, u, t in zip(
            np.asarray(s.concurrency),
            per_user,
            np.asarray(s.output_tokens_per_s_per_gpu),
            strict=True,
        )
    ]


def pareto(points: list[FrontierPoint]) -> list[FrontierPoint]:
    """The points no other beats on both axes (more tokens/s per user and per GPU), by
    rising tokens/s per user: the frontier line."""
    best: list[FrontierPoint] = []
    top = -1.0
    for p in sorted(
        points,
        key=lambda q: (
            -q.serving_output_tokens_per_s_per_user,
            -q.serving_output_tokens_per_s_per_gpu,
        ),
    ):
        if p.serving_output_tokens_per_s_per_gpu > top:
            best.append(p)
            top = p.serving_output_tokens_per_s_per_gpu
    return best[::-1]


def pareto_xy(xs, ys, keep: int | None = None):
    """Indices of the Pareto-optimal pairs (x, y both higher is better) of two arrays, by
    rising x; ``keep`` thins a long frontier to about that many points (its ends kept)."""
    import numpy as np

    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    ok = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
    if not ok.size:
        return ok
    order = ok[np.lexsort((-y[ok], -x[ok]))]  # x falling, then y falling
    running = np.maximum.accumulate(y[order])
    prev = np.concatenate([[-np.inf], running[:-1]])
    front = order[y[order] > prev][::-1]
    if keep is not None and front.size > keep:
        picks = np.unique(np.linspace(0, front.size - 1, keep).round().astype(np.int64))
        front = front[picks]
    return front


@dataclass(frozen=True)
class LayoutCurve:
    """One layout's curve (the deployment and its points)."""

    label: str
    deployment: Deployment
    points: list[FrontierPoint]


def layout_curves(
    cfg,
    hw,
    *,
    prompt: int,
    gen: int,
    tps: list[int] | None = None,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    engine=None,
    efficiency: str = "expected",
    label_model: bool = False,
    **placement,
) -> tuple[list[LayoutCurve], list[str]]:
    """A curve for each tensor-parallel size of ``cfg`` on ``hw`` (``tps``; default every power
    of two up to the NVLink domain, at most 8) that the model's shape allows and where one
    request fits; the sizes left out, each with its reason. ``placement``: further
    ``Deployment.build`` keywords for every size (pp, ep, dp, compute_dtype, moe_imbalance)."""
    from calc.deploy.deployment import EngineSettings
    from calc.errors import InvalidInputError

    if tps is None:
        domain = hw.scale_up_domain_gpus or 1
        tps = [t for t in (1, 2, 4, 8) if t <= max(1, min(domain, 8))]
    settings = engine or EngineSettings(max_model_len=prompt + gen)
    curves, skipped = [], []
    for tp in tps:
        label = f"{cfg.name} tp{tp}" if label_model else f"tp {tp}"
        try:
            dep = Deployment.build(
                cfg, hw, tp=tp, weight_dtype=weight_dtype, kv_dtype=kv_dtype, engine=settings,
                **placement,
            )  # fmt: skip
        except InvalidInputError as exc:
            skipped.append(f"{label}: {exc}")
            continue
        pts = deployment_curve(dep, prompt=prompt, gen=gen, label=label, efficiency=efficiency)
        if not pts:
            skipped.append(f"{label}: not one request of {prompt + gen:,} tokens fits")
            continue
        curves.append(LayoutCurve(label, dep, pts))
    return curves, skipped
