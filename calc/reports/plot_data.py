"""The numbers behind ``kvcalc plot``: roofline ceilings [FLOP/s] with a model's ops placed on
them, KV bytes per context [bytes] across attention kinds, max concurrency per context
[sequences], and output tokens/s per GPU against tokens/s per user [tokens/s] per layout with
their Pareto frontier. Plain lists of points; ``calc.output.plot`` only draws them.

Nothing here computes a new quantity: the ops come from ``calc.reports.latency`` (decode_step,
prefill), KV bytes from ``calc.formulas.attention_layout``, weights and capacity from
``calc.reports.memory``,
concurrency from ``calc.reports.capacity``, the frontier from ``calc.reports.frontier``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict, Unpack

from calc.data.hardware_schema import HardwareProfile
from calc.data.limits import MAX_CTX, check_positive_int
from calc.data.model_schema import ModelConfig
from calc.errors import InvalidInputError, not_one_of
from calc.formulas.attention_layout import AttentionLayout, attention_layout

if TYPE_CHECKING:
    from calc.deploy.steps import StepDeployment

PLOT_KINDS = ("roofline", "memory", "capacity", "frontier")
ATTENTION_KINDS = ("mha", "gqa", "mqa", "mla")
# MLA what-if of a model that is not MLA: DeepSeek-V3's latent (config.json kv_lora_rank 512,
# qk_rope_head_dim 64), the sizes the `memory --attention mla` error message suggests.
DEFAULT_KV_LORA_RANK = 512
DEFAULT_QK_ROPE_HEAD_DIM = 64
DEFAULT_WHAT_IF_KV_HEADS = 8  # GQA what-if of an MHA/MQA/MLA model (Llama-3's choice)
MIN_PLOT_CTX = 512
SIXTEEN_BIT_OR_WIDER = ("bf16", "fp16", "fp32", "tf32")


Point = tuple[float, float]

# the deployment options beside --tp and the dtypes that place the model (Deployment.build's
# keywords, by the CLI's names); a chart's further options are its engine's (EngineSettings.of)
PLACEMENT = ("pp", "ep", "dp", "compute_dtype", "moe_imbalance")
# what `plot memory` draws with beside --gpus: KV bytes of each layout and the GPUs' memory
# minus the weights; no other deployment or engine option changes it
MEMORY_OPTIONS = ("weight_dtype", "kv_dtype")


def split_options(options) -> tuple[dict, dict]:
    """(Deployment.build's placement keywords, the engine's options) of a chart's further
    deployment and engine ``options`` (by the CLI's names; None where not given)."""
    given = dict(options or {})
    placement = {k: given.pop(k) for k in PLACEMENT if k in given}
    return placement, given


def engine_settings(engine_options, max_model_len: int):
    """The chart's EngineSettings: ``engine_options`` by the CLI's names (engine, mem_util,
    block_size, activation as "2GiB", ...), the max model length the chart's unless given."""
    from calc.deploy.deployment import EngineSettings

    opts = dict(engine_options)
    if opts.get("max_model_len") is None:
        opts["max_model_len"] = max_model_len
    return EngineSettings.of(opts)


# ---------------------------------------------------------------------------------------
# Roofline


def roofline_polyline(peak_flops_per_s, bytes_per_s, x_lo, x_hi) -> list[Point]:
    """Corners of the roofline min(peak, intensity × bandwidth) [FLOP/s] over intensities
    x_lo..x_hi [FLOP/byte]: straight lines on log-log axes, so the corners draw it exactly."""
    ridge = peak_flops_per_s / bytes_per_s
    pts: list[Point] = [(x_lo, min(peak_flops_per_s, x_lo * bytes_per_s))]
    if x_lo < ridge < x_hi:
        pts.append((ridge, peak_flops_per_s))
    pts.append((x_hi, min(peak_flops_per_s, x_hi * bytes_per_s)))
    return pts


@dataclass(frozen=True)
class Ceiling:
    """A flat compute roof of one dtype: peak and expected (achievable) FLOP/s, ridge points."""

    dtype: str
    peak_flops_per_s: float
    expected_flops_per_s: float
    ridge_point: float  # peak / HBM bandwidth [FLOP/byte]


@dataclass(frozen=True)
class OpPoint:
    """One op of a step placed on the roofline: x = intensity, y = attained FLOP/s."""

    key: str  # marker in the terminal chart: d1.. for decode, p1.. for prefill
    phase: str  # decode | prefill
    name: str
    flops: float
    bytes: float
    arithmetic_intensity: float  # FLOP/byte
    flops_per_s: float  # flops / time_s at the expected efficiency: on the dashed roof
    time_s: float
    bound: str
    model: str = ""


@dataclass(frozen=True)
class RooflineData:
    model: str
    hardware: str
    compute_dtype: str
    batch: int
    ctx: int
    prompt: int
    bytes_per_s: float  # peak HBM bandwidth
    expected_bytes_per_s: float
    ceilings: list[Ceiling]
    points: list[OpPoint]
    omitted: list[str]  # ops without FLOPs (embedding, norms) or collectives: no intensity
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    warnings: list[str] = field(default_factory=list)  # the engine's: a release not modelled

    def roof(self, ceiling: Ceiling, expected: bool = False) -> list[Point]:
        """The roofline of ``ceiling`` (peak, or expected with ``expected``) over x_range."""
        if expected:
            return roofline_polyline(
                ceiling.expected_flops_per_s, self.expected_bytes_per_s, *self.x_range
            )
        return roofline_polyline(ceiling.peak_flops_per_s, self.bytes_per_s, *self.x_range)


def _decade_floor(x: float) -> float:
    import math

    return 10.0 ** math.floor(math.log10(x))


def _decade_ceil(x: float) -> float:
    import math

    return 10.0 ** math.ceil(math.log10(x))


def _op_points(cfg: ModelConfig, dec, pre) -> tuple[list[OpPoint], list[str]]:
    """(the compute ops of the decode step and the prefill as roofline points, keyed d1,
    d2, ... and p1, ...; the ops left out: no FLOPs or no bytes)."""
    from calc.deploy.ops import COMPUTE

    points: list[OpPoint] = []
    omitted: list[str] = []
    for phase, step in (("decode", dec), ("prefill", pre)):
        n = 0
        for op in step.ops:
            if op.kind != COMPUTE or not op.flops or not op.bytes:
                omitted.append(f"{phase} {op.name}")
                continue
            n += 1
            points.append(
                OpPoint(
                    f"{phase[0]}{n}",
                    phase,
                    op.name,
                    float(op.flops),
                    float(op.bytes),
                    float(op.arithmetic_intensity),
                    float(op.flops / op.time_s),
                    float(op.time_s),
                    op.bound,
                    cfg.name,
                )
            )
    return points, omitted


def roofline_data(
    cfg: ModelConfig, hw: HardwareProfile, *, batch: int = 1, ctx: int = 8192,
    prompt: int = 1024, options=None, **deploy: Unpack[StepDeployment],
) -> RooflineData:  # fmt: skip
    """The hardware's rooflines for the dtypes the ops run in (the compute dtype and the 16-bit
    attention dtype) and the compute ops of one decode step (``batch`` sequences at ``ctx``)
    and of the prefill of ``batch`` prompts of ``prompt`` tokens, per GPU. ``options``: the
    further deployment and engine options (``split_options``)."""
    from calc.data.limits import MAX_BATCH
    from calc.deploy.deployment import Deployment
    from calc.deploy.rates import efficiencies
    from calc.deploy.steps import step_of

    for name, value, upper in (("batch", batch, MAX_BATCH), ("ctx", ctx, MAX_CTX),
                               ("prompt", prompt, MAX_CTX)):  # fmt: skip
        check_positive_int(name, value, upper)
    placement, engine = split_options(options)
    build = {("compute_dtype" if k == "compute" else k): v for k, v in deploy.items()}
    dep = Deployment.build(cfg, hw, **build, **placement,
                           engine=engine_settings(engine, None))  # fmt: skip
    dec = step_of(dep, "expected", batch=batch, ctx=ctx)
    pre = step_of(dep, "expected", batch=batch, prompt=prompt)
    b_eff = efficiencies(hw, "expected")[1]
    bw = hw.hbm_bandwidth_bytes_per_s
    dtypes = [dec.compute_dtype]
    if dec.compute_dtype not in SIXTEEN_BIT_OR_WIDER:  # attention runs at bf16 (latency.rates)
        dtypes.append("bf16")
    ceilings = [
        Ceiling(
            d,
            hw.peak_flops_per_s[d],
            hw.peak_flops_per_s[d] * efficiencies(hw, "expected", d)[0],
            hw.peak_flops_per_s[d] / bw,
        )
        for d in dtypes
    ]
    points, omitted = _op_points(cfg, dec, pre)
    xs = [p.arithmetic_intensity for p in points] + [c.ridge_point for c in ceilings]
    x_range = (_decade_floor(min(xs) / 2), _decade_ceil(max(xs) * 2))
    top = max(c.peak_flops_per_s for c in ceilings)
    low = min([x_range[0] * bw * b_eff] + [p.flops_per_s for p in points])
    y_range = (_decade_floor(low), top * 2.5)
    return RooflineData(
        cfg.name,
        hw.name,
        dec.compute_dtype,
        batch,
        ctx,
        prompt,
        bw,
        bw * b_eff,
        ceilings,
        points,
        omitted,
        x_range,
        y_range,
        list(dep.engine_config.warnings),
    )


# ---------------------------------------------------------------------------------------
# KV bytes and concurrency across attention kinds


def ctx_grid(max_ctx: int, min_ctx: int = MIN_PLOT_CTX) -> list[int]:
    """Contexts to plot: powers of two from ``min_ctx`` below ``max_ctx``, then ``max_ctx``."""
    check_positive_int("max-ctx", max_ctx, MAX_CTX)
    lo = min(min_ctx, max_ctx)
    out, c = [], lo
    while c < max_ctx:
        out.append(c)
        c *= 2
    out.append(max_ctx)
    return out


@dataclass(frozen=True)
class Series:
    """One line of a chart: a label, the layout it was computed for, and (x, y) points."""

    label: str
    kind: str
    points: list[Point]
    own: bool = False  # the model's own attention layout
    layout: AttentionLayout | None = field(default=None, repr=False, compare=False)
    model: str = ""  # the model the series is of (one series per model in a multi-model plot)
    mark: str = ""  # its character in a terminal chart, when not the attention kind's


def _describe(layout: AttentionLayout) -> str:
    if layout.kind == "mla":
        return f"MLA, latent {layout.kv_lora_rank} + rope {layout.qk_rope_head_dim}"
    heads = "1 KV head" if layout.n_kv_heads == 1 else f"{layout.n_kv_heads} KV heads"
    return f"{layout.kind.upper()}, {heads}"


def _windows(layout: AttentionLayout) -> str:
    parts = [f"{n} of {layout.n_layers} layers windowed at {cap:,}" for cap, n in layout.windowed]
    return "; ".join(parts)


class WhatIfShapes(TypedDict, total=False):
    """The shapes of the what-if layouts (``attention_layouts``; None: the model's own, else
    the default)."""

    kv_heads: int | None  # KV heads of the GQA what-if
    kv_lora_rank: int | None  # latent width of the MLA what-if
    qk_rope_head_dim: int | None  # RoPE key width of the MLA what-if


def attention_layouts(
    cfg: ModelConfig,
    *,
    kv_heads: int | None = None,
    kv_lora_rank: int | None = None,
    qk_rope_head_dim: int | None = None,
) -> list[tuple[str, AttentionLayout, bool]]:
    """(label, layout, is_own) for MHA, GQA, MQA and MLA what-ifs of ``cfg`` and its own layout.

    What-ifs keep the model's layers, heads, head widths and windows (``attention_layout``).
    GQA uses ``kv_heads`` (default: the model's own, else 8 where 8 divides n_heads, else it
    is left out); MLA uses the model's latent, else ``kv_lora_rank``/``qk_rope_head_dim``
    (default DeepSeek-V3's 512 and 64). The model's own layout is marked, not repeated.
    """
    own = attention_layout(cfg)
    if kv_heads is None and cfg.attention != "gqa":
        n = DEFAULT_WHAT_IF_KV_HEADS
        kv_heads = n if cfg.n_heads > n and cfg.n_heads % n == 0 else None
    if cfg.mla is None:
        kv_lora_rank = kv_lora_rank or DEFAULT_KV_LORA_RANK
        qk_rope_head_dim = qk_rope_head_dim or DEFAULT_QK_ROPE_HEAD_DIM
    out = []
    for kind in ATTENTION_KINDS:
        if kind == "gqa" and kv_heads is None and cfg.attention != "gqa":
            continue
        layout = attention_layout(
            cfg,
            kind,
            kv_heads=kv_heads if kind == "gqa" else None,
            kv_lora_rank=kv_lora_rank if kind == "mla" else None,
            qk_rope_head_dim=qk_rope_head_dim if kind == "mla" else None,
        )
        out.append((_describe(layout), layout, layout == own))
    if not any(is_own for _, _, is_own in out):
        out.append((_describe(own), own, True))
    labelled = []
    for label, layout, is_own in out:
        if is_own:
            note = _windows(layout)
            label += f" (model's own{'; ' + note if note else ''})"
        labelled.append((label, layout, is_own))
    return labelled


def _kv_bytes_per_element(layout: AttentionLayout, kv_dtype: str) -> float:
    from calc.formulas.quant import kv_bytes_per_element

    width = layout.kv_lora_rank + layout.qk_rope_head_dim if layout.kind == "mla" else None
    return kv_bytes_per_element(kv_dtype, width or layout.k_head_dim)


@dataclass(frozen=True)
class MemoryData:
    model: str
    kv_dtype: str
    batch: int
    ctxs: list[int]
    series: list[Series]  # y: KV bytes of ``batch`` sequences of ctx tokens
    hardware: str | None = None
    gpus: int = 1
    memory_capacity_bytes: int | None = None
    weights_bytes: int | None = None
    kv_budget_bytes: int | None = None  # capacity − weights: the horizontal line
    models: tuple[str, ...] = ()  # several models: one series each (``combine``)


def memory_data(
    cfg: ModelConfig,
    hw: HardwareProfile | None = None,
    *,
    batch: int = 1, gpus: int = 1, max_ctx: int | None = None,
    weight_dtype: str | None = None, kv_dtype: str | None = None,
    **what_if: Unpack[WhatIfShapes],
) -> MemoryData:  # fmt: skip
    """KV cache [bytes] of ``batch`` sequences vs ctx for each attention kind; with ``hw``,
    ``gpus`` × its memory minus the weights (``calc.reports.memory.memory_report``) as the
    budget."""
    from calc.data.limits import MAX_BATCH
    from calc.deploy.deployment import Deployment, Workload
    from calc.reports.memory import memory_report

    check_positive_int("batch", batch, MAX_BATCH)
    kv_dtype = (cfg.kv_dtype or cfg.dtype) if kv_dtype is None else kv_dtype
    ctxs = ctx_grid(cfg.context_limit if max_ctx is None else max_ctx)
    layouts = attention_layouts(cfg, **what_if)
    series = []
    for label, layout, own in layouts:
        bpe = _kv_bytes_per_element(layout, kv_dtype)
        pts = [(c, layout.kv_bytes_per_sequence(c, bpe) * batch) for c in ctxs]
        series.append(Series(label, layout.kind, pts, own, layout, cfg.name))
    data = MemoryData(cfg.name, kv_dtype, batch, ctxs, series)
    if hw is None:
        return data
    dep = Deployment.build(cfg, hw, tp=gpus, weight_dtype=weight_dtype, kv_dtype=kv_dtype)
    rep = memory_report(dep, Workload(ctx=ctxs[0])).fields
    return MemoryData(
        cfg.name,
        kv_dtype,
        batch,
        ctxs,
        series,
        hw.name,
        gpus,
        rep["memory_capacity_bytes"],
        rep["weights_bytes"],
        rep["memory_capacity_bytes"] - rep["weights_bytes"],
    )


def check_plot_kind(kind: str) -> None:
    if kind not in PLOT_KINDS:
        raise InvalidInputError(not_one_of("plot kind", kind, PLOT_KINDS))


@dataclass(frozen=True)
class CapacityData:
    model: str
    hardware: str
    tp: int
    engine: str
    mem_util: float
    kv_dtype: str
    ctxs: list[int]
    series: list[Series]  # y: max concurrent sequences at ctx (0: not one fits)
    weights_bytes_per_gpu: int
    kv_budget_bytes: int  # per GPU, the same for every attention kind
    warnings: list[str] = field(default_factory=list)  # capacity_report's, each once
    # several models (``combine``): (model, weights_bytes_per_gpu, kv_budget_bytes) each
    per_model: tuple[tuple[str, int, int], ...] = ()


def capacity_data(
    cfg: ModelConfig,
    hw: HardwareProfile,
    *,
    tp: int = 1, max_ctx: int | None = None,
    weight_dtype: str | None = None, kv_dtype: str | None = None,
    engine: str = "vllm", mem_util: float | None = None, engine_version: str | None = None,
    options=None, **what_if: Unpack[WhatIfShapes],
) -> CapacityData:  # fmt: skip
    """Max concurrency [sequences] vs ctx for each attention kind: ``max_concurrency`` of
    ``calc.reports.capacity.capacity_report`` (KV budget of the most loaded GPU over the paged KV of
    one sequence, engine defaults: 16-token blocks, vLLM's reserve) at each ctx of the grid.
    ``options``: the further deployment and engine options (``split_options``)."""
    from calc.deploy.deployment import Deployment, Workload
    from calc.reports.capacity import capacity_report

    ctxs = ctx_grid(cfg.context_limit if max_ctx is None else max_ctx)
    layouts = attention_layouts(cfg, **what_if)
    placement, more = split_options(options)
    settings = engine_settings(
        {"engine": engine, "engine_version": engine_version, "mem_util": mem_util, **more},
        max(ctxs[-1], cfg.context_limit),
    )  # fmt: skip
    series, fields, warnings = [], {}, []
    for label, layout, own in layouts:
        dep = Deployment.build(cfg, hw, tp=tp, weight_dtype=weight_dtype, kv_dtype=kv_dtype,
                               layout=layout, engine=settings, **placement)  # fmt: skip
        rep = capacity_report(dep, Workload(ctx=ctxs[0]))
        fields = rep.fields
        # a release not modelled and the weights-do-not-fit warning once each; not the per-ctx
        # "--batch 1 does not fit"
        warnings += [
            w
            for w in (*dep.engine_config.warnings, *rep.warnings)
            if w not in warnings and not w.startswith("does not fit: --batch")
        ]
        # the ledger's max_concurrency (as capacity_report's) at each ctx of the grid
        pts = [(c, int(dep.per_gpu.max_concurrency(c))) for c in ctxs]
        series.append(Series(label, layout.kind, pts, own, layout, cfg.name))
    return CapacityData(
        cfg.name,
        hw.name,
        tp,
        engine,
        fields["mem_util"],
        fields["kv_dtype"],
        ctxs,
        series,
        fields["weights_bytes_per_gpu"],
        fields["kv_budget_bytes"],
        warnings,
    )


@dataclass(frozen=True)
class FrontierData:
    """Output tokens/s per GPU against output tokens/s per user, one curve per layout (each
    point one concurrency), and the Pareto frontier of all the points."""

    model: str
    hardware: str
    prompt: int
    gen: int
    engine: str
    curves: list  # [(model, label, [FrontierPoint, ...]), ...]
    frontier: list  # [FrontierPoint, ...] by rising tokens/s per user
    skipped: list[str] = field(default_factory=list)  # layouts left out, with the reason
    weight_dtype: str = ""
    kv_dtype: str = ""
    warnings: list[str] = field(default_factory=list)  # the engine's: a release not modelled


def frontier_data(
    cfg: ModelConfig,
    hw: HardwareProfile,
    *,
    prompt: int = 1024,
    gen: int = 256,
    tps: list[int] | None = None,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    engine: str = "vllm", engine_version: str | None = None, mem_util: float | None = None,
    efficiency: str = "expected", options=None,
) -> FrontierData:  # fmt: skip
    """``calc.reports.frontier.layout_curves`` of ``cfg`` on ``hw`` at requests of ``prompt``
    + ``gen`` tokens, with their Pareto frontier. ``options``: the further deployment and
    engine options (``split_options``)."""
    from calc.data.limits import MAX_CTX
    from calc.reports.frontier import layout_curves, pareto

    check_positive_int("prompt", prompt, MAX_CTX)
    check_positive_int("gen", gen, MAX_CTX)
    placement, more = split_options(options)
    settings = engine_settings(
        {"engine": engine, "engine_version": engine_version, "mem_util": mem_util, **more},
        prompt + gen,
    )
    curves, skipped = layout_curves(
        cfg, hw, prompt=prompt, gen=gen, tps=tps, weight_dtype=weight_dtype,
        kv_dtype=kv_dtype, engine=settings, efficiency=efficiency, **placement,
    )  # fmt: skip
    first = curves[0].deployment if curves else None
    return FrontierData(
        cfg.name,
        hw.name,
        prompt,
        gen,
        engine,
        [(cfg.name, c.label, c.points) for c in curves],
        pareto([p for c in curves for p in c.points]),
        skipped,
        first.weight_dtype if first else (weight_dtype or ""),
        first.kv_dtype if first else (kv_dtype or ""),
        list(first.engine_config.warnings) if first else [],
    )


MODEL_MARKS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def combine(datas: list) -> RooflineData | MemoryData | CapacityData | FrontierData:
    """The data of one chart of several models, from each model's own data (same kind, same
    hardware and settings): one series per model, its own attention layout (the what-ifs are
    single-model views), marked A, B, C, ...; roofline ops keyed A.d1, B.p3, ... Computes
    nothing new."""
    import dataclasses

    if len(datas) == 1:
        return datas[0]
    if len(datas) > len(MODEL_MARKS):
        raise InvalidInputError(f"plot at most {len(MODEL_MARKS)} models at once")
    names = tuple(d.model for d in datas)
    first = datas[0]
    if isinstance(first, FrontierData):
        from calc.reports.frontier import pareto

        curves = [
            (m, f"{m} {label}", [dataclasses.replace(p, series=f"{m} {label}") for p in pts])
            for d in datas
            for m, label, pts in d.curves
        ]
        return dataclasses.replace(
            first,
            model=", ".join(names),
            curves=curves,
            frontier=pareto([p for _, _, pts in curves for p in pts]),
            skipped=[f"{d.model} {s}" for d in datas for s in d.skipped],
        )
    if isinstance(first, RooflineData):
        ceilings = {c.dtype: c for d in datas for c in d.ceilings}
        points = [
            dataclasses.replace(p, key=f"{MODEL_MARKS[i]}.{p.key}")
            for i, d in enumerate(datas)
            for p in d.points
        ]
        return dataclasses.replace(
            first,
            model=", ".join(names),
            compute_dtype=", ".join(dict.fromkeys(d.compute_dtype for d in datas)),
            ceilings=list(ceilings.values()),
            points=points,
            omitted=[f"{d.model} {o}" for d in datas for o in d.omitted],
            x_range=(min(d.x_range[0] for d in datas), max(d.x_range[1] for d in datas)),
            y_range=(min(d.y_range[0] for d in datas), max(d.y_range[1] for d in datas)),
        )
    series = []
    for i, d in enumerate(datas):
        own = next(s for s in d.series if s.own)
        note = _windows(own.layout) if own.layout is not None else ""
        label = f"{d.model}: {_describe(own.layout) if own.layout else own.kind}"
        label += f" ({note})" if note else ""
        series.append(dataclasses.replace(own, label=label, own=False, mark=MODEL_MARKS[i]))
    ctxs = sorted({c for d in datas for c in d.ctxs})
    common = dict(model=", ".join(names), ctxs=ctxs, series=series)
    if isinstance(first, MemoryData):
        # each model has its own weights: no single memory-minus-weights line
        return dataclasses.replace(
            first,
            **common,
            kv_dtype=", ".join(dict.fromkeys(d.kv_dtype for d in datas)),
            memory_capacity_bytes=None,
            weights_bytes=None,
            kv_budget_bytes=None,
            models=names,
        )
    return dataclasses.replace(
        first,
        **common,
        kv_dtype=", ".join(dict.fromkeys(d.kv_dtype for d in datas)),
        warnings=[f"{d.model}: {w}" for d in datas for w in d.warnings],
        per_model=tuple((d.model, d.weights_bytes_per_gpu, d.kv_budget_bytes) for d in datas),
    )


def plot_rows(d: RooflineData | MemoryData | CapacityData | FrontierData) -> list[dict]:
    """The numbers behind a chart as flat rows (for --format json|csv), base units."""
    from calc.output.derivation import whole

    return [{k: whole(v) for k, v in row.items()} for row in _rows(d)]


def _rows(d: RooflineData | MemoryData | CapacityData | FrontierData) -> list[dict]:
    if isinstance(d, FrontierData):
        on = {(p.series, p.concurrency) for p in d.frontier}
        return [
            {"model": m, **p.row(), "on_frontier": (p.series, p.concurrency) in on}
            for m, _, pts in d.curves
            for p in pts
        ]
    if isinstance(d, RooflineData):
        return [
            {
                "model": p.model,
                "phase": p.phase,
                "name": p.name,
                "flops": p.flops,
                "bytes": p.bytes,
                "arithmetic_intensity": p.arithmetic_intensity,
                "attained_flops_per_s": p.flops_per_s,
                "time_s": p.time_s,
                "bound": p.bound,
            }
            for p in d.points
        ]
    y_key = "kv_cache_bytes" if isinstance(d, MemoryData) else "max_concurrency"
    return [
        {
            "model": s.model,
            "series": s.label,
            "attention": s.kind,
            "own": s.own or bool(s.mark),
            "ctx": int(x),
            y_key: y,
        }
        for s in d.series
        for x, y in s.points
    ]
