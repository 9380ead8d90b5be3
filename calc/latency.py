"""Roofline latency [s] of prefill (TTFT), one decode step (TPOT) and a whole request (E2E),
and tokens/s, from the per-op FLOPs and bytes of ``calc.ops``.

Each op takes max(FLOPs / achievable FLOP/s, bytes / achievable bytes/s) (``calc.roofline``);
a step is the sum over its ops (kernels run one after another; no overlap is assumed, so
communication adds to compute). Collectives take the times of ``calc.parallel``.

Achievable rates are peak × efficiency. ``efficiency`` picks the band of the hardware profile:
``peak`` (100%: the speed of light), ``low``, ``expected`` or ``high`` (the profile's
``efficiency.matmul`` and ``efficiency.memory`` bands). Low efficiency gives the longest time.

The peak FLOP/s used is that of the *compute* dtype (``compute_dtype``): weights in
bf16/fp16/fp32 compute in that dtype; fp8 weights run W8A8 fp8 GEMMs at the fp8 peak where
the hardware has fp8 tensor cores (Hopper, Blackwell) and weight-only (bf16 compute) where it
has not (A100); int8, int4 and fp4 weights are taken as weight-only quantisation (dequantised
to bf16 inside the GEMM, as Marlin/AWQ/GPTQ kernels do), so they save bytes but not FLOP time.
Pass ``compute_dtype`` to override (e.g. ``int8`` for SmoothQuant W8A8, ``fp4`` for NVFP4).
Attention (scores and values) always runs at the 16-bit peak (bf16, or fp32/tf32 when
computing in fp32): FlashAttention/FlashMLA compute in bf16 even with fp8 weights or an fp8 KV
cache, which they dequantise on load. The recurrent SSM work (Mamba scans, conv1d) runs on
CUDA cores in fp32 and is timed at the profile's fp32 peak.

Quantised formats with scales (``calc.quant``) move their exact bytes, scales included
(weights: ``weight_bytes_per_element``; KV: ``kv_bytes_per_element`` per cached head), and
compute as follows: fp8-tensor and fp8-block128 run fp8 GEMMs where the hardware has an fp8
peak (DeepSeek-V3's block-scaled fp8, DeepGEMM) and weight-only elsewhere; mxfp4 and nvfp4
run fp4 GEMMs where it has an fp4 peak (Blackwell) and are weight-only (bf16) elsewhere (as
gpt-oss's MXFP4 experts on Hopper); int8-channel, int4-g128(-sym) and fp4-g128 are
weight-only (bf16 compute).

Definitions: a decode step at context ``ctx`` processes one token per sequence whose sequence
is then ``ctx`` tokens long (it attends to ``ctx`` keys). TTFT is the prefill of ``batch``
prompts of ``prompt`` tokens (its lm_head gives the first token). Generating ``gen`` tokens
then takes gen − 1 decode steps at contexts prompt + 1 … prompt + gen − 1, summed exactly:
E2E = TTFT + Σ_{j=1}^{gen−1} TPOT(prompt + j).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from calc.deployment import MAX_BATCH, MAX_CTX, Deployment, Workload, check_positive_int
from calc.derivation import Figure, figure, whole
from calc.errors import InvalidInputError
from calc.hardware_schema import Band, HardwareProfile
from calc.model_schema import ModelConfig
from calc.ops import ALL_TO_ALL, ALLREDUCE, COMPUTE, Op, Sizes, forward_ops
from calc.parallel import all_to_all_time_s, p2p_time_s, ring_allreduce_time_s
from calc.quant import (
    is_plain,
)
from calc.roofline import arithmetic_intensity, is_compute_bound, op_time_s, ridge_point

EFFICIENCIES = ("peak", "low", "expected", "high")
WEIGHT_ONLY = ("int8", "int4", "fp4")
# quantised weight formats -> the tensor-core dtype they run at where the hardware has it
# (else weight-only, bf16); formats absent here are weight-only everywhere
NATIVE_COMPUTE = {
    "fp8-tensor": "fp8",
    "fp8-block128": "fp8",
    "mxfp4": "fp4",
    "nvfp4": "fp4",
}


# ---------------------------------------------------------------------------------------
# Rates


def compute_dtype(weight_dtype: str, peaks, override: str | None = None) -> str:
    """The dtype whose tensor-core peak times the matmuls (see the module docstring)."""
    if override is not None:
        if override not in peaks:
            raise InvalidInputError(
                f"--compute-dtype {override}: the hardware has no {override} peak; "
                f"it lists {', '.join(peaks)}"
            )
        return override
    if weight_dtype in WEIGHT_ONLY:
        return "bf16"
    if not is_plain(weight_dtype):  # a quantised format with scales (calc.quant)
        native = NATIVE_COMPUTE.get(weight_dtype)
        return native if native in peaks else "bf16"
    if weight_dtype == "fp32":
        return next((d for d in ("fp32", "tf32") if d in peaks), "bf16")
    return weight_dtype if weight_dtype in peaks else "bf16"


def activation_bytes_per_element(dtype: str) -> float:
    """Bytes of one activation element in HBM: 4 when computing in fp32/tf32, else 2."""
    return 4.0 if dtype in ("fp32", "tf32") else 2.0


def ridge_points(hw: HardwareProfile) -> dict[str, float]:
    """Ridge point [FLOP/byte] of ``hw`` for each dtype it lists: peak FLOP/s / HBM bytes/s."""
    return {
        dtype: ridge_point(peak, hw.hbm_bandwidth_bytes_per_s)
        for dtype, peak in hw.peak_flops_per_s.items()
    }


def check_efficiency(efficiency: str) -> None:
    """Raise unless ``efficiency`` names a band: peak, low, expected or high."""
    if efficiency not in EFFICIENCIES:
        raise InvalidInputError(
            f"efficiency {efficiency!r} is not one of: {', '.join(EFFICIENCIES)}"
        )


def efficiencies(hw: HardwareProfile, efficiency: str) -> tuple[float, float]:
    """(matmul, memory) fractions of peak for ``efficiency`` (peak means 1.0, 1.0)."""
    check_efficiency(efficiency)
    if efficiency == "peak":
        return 1.0, 1.0
    e = hw.efficiency
    return getattr(e.matmul, efficiency), getattr(e.memory, efficiency)


def with_efficiency(
    hw: HardwareProfile, matmul: float | None = None, memory: float | None = None
) -> HardwareProfile:
    """``hw`` with its matmul and/or memory band replaced by one value (low = expected = high):
    a number the user states overrides the whole band."""
    update = {}
    for flag, value, key in (("--matmul-eff", matmul, "matmul"), ("--mem-eff", memory, "memory")):
        if value is None:
            continue
        if isinstance(value, bool) or not 0 < value <= 1:
            raise InvalidInputError(f"{flag} must be a fraction of peak in (0, 1], got {value!r}")
        update[key] = Band(low=float(value), expected=float(value), high=float(value))
    if not update:
        return hw
    update["source"] = f"{hw.efficiency.source} (overridden: {', '.join(update)})"
    return replace(hw, efficiency=replace(hw.efficiency, **update))


@dataclass(frozen=True)
class Rates:
    """Achievable rates for one efficiency: FLOP/s of the compute dtype and HBM bytes/s."""

    flops_per_s: float
    bytes_per_s: float
    link_bytes_per_s: float
    link_latency_s: float
    attention_flops_per_s: float
    vector_flops_per_s: float  # fp32 CUDA-core rate (SSM scans, conv1d)


def rates(hw: HardwareProfile, dtype: str, efficiency: str) -> Rates:
    m, b = efficiencies(hw, efficiency)
    attn = dtype if dtype in ("bf16", "fp16", "fp32", "tf32") else "bf16"
    peaks = hw.peak_flops_per_s
    return Rates(
        peaks[dtype] * m,
        hw.hbm_bandwidth_bytes_per_s * b,
        hw.interconnect_bandwidth_bytes_per_s,
        hw.interconnect_latency_s,
        peaks[attn] * m,
        peaks.get("fp32", peaks[attn]) * m,
    )


def _flops_rate(op: Op, r: Rates) -> float:
    if op.vector:
        return r.vector_flops_per_s
    return r.attention_flops_per_s if op.attention else r.flops_per_s


def op_time(op: Op, r: Rates):
    """Time of one op [s]: the roofline for compute ops, the collective's time otherwise."""
    if op.kind == COMPUTE:
        return op_time_s(op.flops, op.bytes, _flops_rate(op, r), r.bytes_per_s)
    msg = op.bytes / op.count
    if op.kind == ALLREDUCE:
        one = ring_allreduce_time_s(msg, op.group, r.link_bytes_per_s, r.link_latency_s)
    elif op.kind == ALL_TO_ALL:
        one = all_to_all_time_s(msg, op.group, r.link_bytes_per_s, r.link_latency_s)
    else:
        one = p2p_time_s(msg, r.link_bytes_per_s, r.link_latency_s)
    return op.count * one


# ---------------------------------------------------------------------------------------
# Steps


@dataclass(frozen=True)
class OpTiming:
    """One op of a step with its roofline figures (the JSON ``ops`` entries)."""

    name: str
    flops: Any
    bytes: Any
    arithmetic_intensity: Any
    bound: str | None
    time_s: Any
    kind: str = COMPUTE

    def row(self) -> dict:
        return {
            "name": self.name,
            "flops": whole(self.flops),
            "bytes": whole(self.bytes),
            "arithmetic_intensity": self.arithmetic_intensity,
            "bound": self.bound,
            "time_s": self.time_s,
        }


@dataclass(frozen=True)
class Step:
    """A prefill or a decode step on one GPU: total time [s], FLOPs, bytes, and its ops."""

    time_s: Any
    flops: Any
    bytes: Any
    ops: list[OpTiming]
    efficiency: str
    compute_dtype: str
    rates: Rates | None
    raw: list[Op] = field(repr=False, default_factory=list)


@dataclass(frozen=True)
class _Setup:
    cfg: ModelConfig
    sharding: Any
    layout: Any
    sizes: Sizes
    dtype: str
    weight_dtype: str
    kv_dtype: str


def _setup(dep: Deployment) -> _Setup:
    """The op-level view of a deployment: its sharding, layout, bytes per element and the
    compute dtype, all resolved by ``Deployment`` (no re-resolution here)."""
    dtype = dep.compute_dtype
    sizes = Sizes(
        dep.weight_bytes_per_element,
        dep.kv_bytes_per_element,
        activation_bytes_per_element(dtype),
        dep.state_bytes_per_element,
        dep.weight_bytes_per_element_by_component,
    )
    return _Setup(dep.model, dep.sharding, dep.layout, sizes, dtype, dep.weight_dtype, dep.kv_dtype)


def _deployment(cfg, hw, weight_dtype, kv_dtype, tp, pp, ep, compute) -> Deployment:
    return Deployment.build(
        cfg,
        hw,
        tp=tp,
        pp=pp,
        ep=ep,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        compute_dtype=compute,
    )


def _bound(op: Op, r: Rates) -> str:
    if op.kind != COMPUTE:
        return "network"
    if is_compute_bound(op.flops, op.bytes, _flops_rate(op, r), r.bytes_per_s):
        return "compute"
    return "memory"


def _step(st: _Setup, hw, efficiency, raw: list[Op]) -> Step:
    """The step of ``raw`` ops: with ``hw`` each op's roofline time and bound, else FLOPs and
    bytes only (times and bounds None)."""
    flops = sum(op.flops for op in raw)
    moved = sum(op.bytes for op in raw if op.kind == COMPUTE)
    r = rates(hw, st.dtype, efficiency) if hw is not None else None
    times = [op_time(op, r) for op in raw] if r is not None else [None] * len(raw)
    timings = [
        OpTiming(
            op.name,
            op.flops,
            op.bytes,
            arithmetic_intensity(op.flops, op.bytes),
            _bound(op, r) if r is not None and not hasattr(t, "shape") else None,
            t,
            op.kind,
        )
        for op, t in zip(raw, times, strict=True)
    ]
    total = sum(times) if r is not None else None
    return Step(total, flops, moved, timings, efficiency, st.dtype, r, raw)


def _check_counts(name: str, value, upper: int):
    """Scalars: a positive int. Arrays: positive whole numbers, as float64 (no overflow)."""
    if hasattr(value, "shape") or isinstance(value, list | tuple):
        import numpy as np

        arr = np.asarray(value)
        if arr.dtype.kind not in "iuf" or not np.all(arr == np.floor(arr)):
            raise InvalidInputError(f"--{name} must hold whole numbers")
        if arr.size and not (np.all(arr > 0) and np.all(arr <= upper)):
            raise InvalidInputError(f"--{name} values must be in 1..{upper:,}")
        return arr.astype(np.float64)
    check_positive_int(name, value, upper)
    return value


def step_of(dep: Deployment, efficiency: str = "expected", **counts) -> Step:
    """The step of one forward pass of ``dep`` on one GPU (``counts``: batch and ctx for a
    decode step, or batch and prompt for a prefill; batch is one replica's sequences)."""
    check_efficiency(efficiency)  # a bad name is an error even where no time is computed
    st = _setup(dep)
    raw = forward_ops(dep.model, st.sharding, st.layout, st.sizes, **counts)
    return _step(st, dep.hardware, efficiency, raw)


def decode_step(
    cfg: ModelConfig,
    hw: HardwareProfile | None,
    *,
    batch,
    ctx,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    tp: int = 1,
    pp: int = 1,
    ep: int = 1,
    efficiency: str = "expected",
    compute: str | None = None,
) -> Step:
    """One decode step of ``batch`` sequences at context ``ctx`` on one GPU of the deployment.

    ``.time_s`` is the TPOT [s] (None without hardware), ``.flops`` and ``.bytes`` the step's
    FLOPs and HBM bytes per GPU, ``.ops`` each op's figures.
    """
    batch = _check_counts("batch", batch, MAX_BATCH)
    ctx = _check_counts("ctx", ctx, MAX_CTX)
    dep = _deployment(cfg, hw, weight_dtype, kv_dtype, tp, pp, ep, compute)
    return step_of(dep, efficiency, batch=batch, ctx=ctx)


def prefill(
    cfg: ModelConfig,
    hw: HardwareProfile | None,
    *,
    prompt,
    batch,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    tp: int = 1,
    pp: int = 1,
    ep: int = 1,
    efficiency: str = "expected",
    compute: str | None = None,
) -> Step:
    """The prefill of ``batch`` prompts of ``prompt`` tokens on one GPU: ``.time_s`` = TTFT."""
    batch = _check_counts("batch", batch, MAX_BATCH)
    prompt = _check_counts("prompt", prompt, MAX_CTX)
    dep = _deployment(cfg, hw, weight_dtype, kv_dtype, tp, pp, ep, compute)
    return step_of(dep, efficiency, batch=batch, prompt=prompt)


def tpot_s(cfg: ModelConfig, hw: HardwareProfile, *, batch, ctx, **kw):
    """TPOT [s] for ``batch`` and ``ctx`` that may be numpy arrays (they broadcast; no loop
    over elements). The same ops and roofline as ``decode_step`` (which takes the same
    keywords ``kw``), whose ``.time_s`` it equals."""
    return decode_step(cfg, hw, batch=batch, ctx=ctx, **kw).time_s


def ttft_s(cfg: ModelConfig, hw: HardwareProfile, *, prompt, batch, **kw):
    """TTFT [s] for ``prompt`` and ``batch`` that may be numpy arrays (broadcasting); equals
    ``prefill(...).time_s`` (same keywords ``kw``)."""
    return prefill(cfg, hw, prompt=prompt, batch=batch, **kw).time_s


def generation_time_of(dep: Deployment, *, prompt, gen, batch, efficiency="expected"):
    """Time of the gen − 1 decode steps after the prefill [s]: Σ_{j=1}^{gen−1} TPOT(prompt + j),
    an exact sum evaluated as one vectorised call (the KV grows by one token per step)."""
    if gen <= 1:
        return 0.0
    import numpy as np

    ctxs = np.arange(prompt + 1, prompt + gen, dtype=np.float64)
    return float(np.sum(step_of(dep, efficiency, batch=batch, ctx=ctxs).time_s))


def generation_flops(cfg, *, prompt, gen, batch, weight_dtype=None, kv_dtype=None):
    """Model FLOPs of the gen − 1 decode steps after the prefill [FLOP]:
    batch × Σ_{j=1}^{gen−1} F(prompt + j), one vectorised call (as generation_time_of)."""
    if gen <= 1:
        return 0
    import numpy as np

    ctxs = np.arange(prompt + 1, prompt + gen, dtype=np.float64)
    step = decode_step(cfg, None, batch=1, ctx=ctxs, weight_dtype=weight_dtype, kv_dtype=kv_dtype)
    return whole(batch * float(np.sum(step.flops)))


# ---------------------------------------------------------------------------------------
# Reports


@dataclass(frozen=True)
class LatencyReport:
    fields: dict  # JSON keys -> unrounded base-unit values, in output order
    figures: list[Figure]
    warnings: list[str] = field(default_factory=list)


def _op_figures(prefix: str, step: Step) -> list[Figure]:
    r = step.rates
    figs = []
    for op, t in zip(step.raw, step.ops, strict=True):
        if op.kind == COMPUTE:
            figs.append(
                figure(
                    f"{prefix}.{op.name}.time_s",
                    t.time_s,
                    "s",
                    "max({flops} FLOP / {flops_per_s} FLOP/s, {bytes} B / {bytes_per_s} B/s)",
                    flops=op.flops,
                    flops_per_s=_flops_rate(op, r),
                    bytes=op.bytes,
                    bytes_per_s=r.bytes_per_s,
                )
            )
        else:
            n = op.group
            shape = {
                ALLREDUCE: "{count} × (2·({n}−1)/{n} × {msg} B / {bw} B/s + 2·({n}−1) × {lat} s)",
                ALL_TO_ALL: "{count} × (({n}−1)/{n} × {msg} B / {bw} B/s + ({n}−1) × {lat} s)",
            }.get(op.kind, "{count} × ({msg} B / {bw} B/s + {lat} s)")
            figs.append(
                figure(
                    f"{prefix}.{op.name}.time_s",
                    t.time_s,
                    "s",
                    shape,
                    count=op.count,
                    n=n,
                    msg=op.bytes / op.count,
                    bw=r.link_bytes_per_s,
                    lat=r.link_latency_s,
                )
            )
    return figs


def _attention_flops(pairs, n_heads, head_dim):
    """Scores + values of ``pairs`` query-key pairs (k and v heads of equal width)."""
    from calc import flops as F

    return F.attn_score_flops(pairs, n_heads, head_dim) + F.attn_value_flops(
        pairs, n_heads, head_dim
    )


def _flops_figures(cfg: ModelConfig, prompt: int, ctx: int) -> list[Figure]:
    """The per-token formulas of the dense linear ops, the attention and the SSM mixers
    (model totals), and how many layers have each."""
    from calc import flops as F
    from calc.ops import attended_token_layers

    d, L, h = cfg.d_model, cfg.n_layers, cfg.n_heads
    n_attn = cfg.n_attention_layers
    figs = []
    if cfg.mla is None and n_attn:
        dk, kv = cfg.k_head_dim, cfg.n_kv_heads
        figs.append(
            figure(
                "qkv_o_flops_per_token_per_layer",
                F.qkv_proj_flops(1, d, h, kv, dk, dk) + F.o_proj_flops(1, h, dk, d),
                "FLOP",
                "2 × ({d}·{h}·{hd} + 2·{d}·{kv}·{hd} + {h}·{hd}·{d})",
                d=d,
                h=h,
                kv=kv,
                hd=dk,
            )
        )
        figs.append(
            figure(
                "decode_attention_flops_per_token_per_layer",
                _attention_flops(F.decode_pairs(ctx), h, dk),
                "FLOP",
                "2 × {ctx} × {h} × {hd} (scores) + 2 × {ctx} × {h} × {hd} (values)",
                ctx=ctx,
                h=h,
                hd=dk,
            )
        )
        figs.append(
            figure(
                "prefill_attention_flops_per_sequence_per_layer",
                _attention_flops(F.causal_pairs(prompt), h, dk),
                "FLOP",
                "4 × {S}·({S}+1)/2 pairs × {h} × {hd}",
                S=prompt,
                h=h,
                hd=dk,
            )
        )
        if cfg.n_layers_of("sliding"):
            w = cfg.sliding_window + cfg.sink_tokens
            figs.append(
                figure(
                    "sliding_decode_attention_flops_per_token_per_layer",
                    _attention_flops(F.sliding_decode_pairs(ctx, w), h, dk),
                    "FLOP",
                    "4 × min({ctx}, {W}) keys × {h} × {hd}",
                    ctx=ctx,
                    W=w,
                    h=h,
                    hd=dk,
                )
            )
            m = min(prompt, w)
            figs.append(
                figure(
                    "sliding_prefill_attention_flops_per_sequence_per_layer",
                    _attention_flops(F.sliding_causal_pairs(prompt, w), h, dk),
                    "FLOP",
                    "4 × ({m}·({m}+1)/2 + ({S} − {m})·{W}) pairs × {h} × {hd}",
                    m=m,
                    S=prompt,
                    W=w,
                    h=h,
                    hd=dk,
                )
            )
    if n_attn:
        terms, kw = [], {"ctx": ctx}
        if cfg.n_layers_of("full"):
            terms.append("{n_full} × {ctx}")
            kw["n_full"] = cfg.n_layers_of("full")
        if cfg.n_layers_of("sliding"):
            terms.append("{n_sliding} × min({ctx}, {W})")
            kw.update(n_sliding=cfg.n_layers_of("sliding"), W=cfg.sliding_window + cfg.sink_tokens)
        if cfg.n_layers_of("chunked"):
            terms.append("{n_chunked} × (({ctx} − 1) mod {C} + 1)")
            kw.update(n_chunked=cfg.n_layers_of("chunked"), C=cfg.attention_chunk_size)
        figs.append(
            figure(
                "decode_attended_token_layers",
                attended_token_layers(cfg, ctx, True),
                "token-layers",
                " + ".join(terms) + " (keys attended per attention layer, summed)",
                **kw,
            )
        )
    figs += _ssm_figures(cfg)
    gated = cfg.ffn_kind == "gated"
    n_mat = 3 if gated else 2
    if cfg.n_dense_ffn_layers:
        figs.append(
            figure(
                "ffn_flops_per_token_per_layer",
                F.ffn_flops(1, d, cfg.d_ffn, gated),
                "FLOP",
                "2 × {n_mat} × {d} × {d_ffn}",
                n_mat=n_mat,
                d=d,
                d_ffn=cfg.d_ffn,
            )
        )
    if cfg.moe is not None:
        m = cfg.moe
        figs.append(
            figure(
                "active_expert_flops_per_token_per_layer",
                F.routed_expert_flops(1, m.experts_per_token, d, m.d_expert_ffn, gated)
                + F.shared_expert_flops(1, m.n_shared_experts, d, m.shared_ffn, gated)
                + F.router_flops(1, d, m.n_routed_experts),
                "FLOP",
                "2 × ({k}·{n_mat}·{d}·{d_e} + {n_shared}·{n_mat}·{d}·{d_s} + {d}·{E} router)",
                k=m.experts_per_token,
                n_mat=n_mat,
                d=d,
                d_e=m.d_expert_ffn,
                n_shared=m.n_shared_experts,
                d_s=m.shared_ffn,
                E=m.n_routed_experts,
            )
        )
    figs.append(
        figure(
            "lm_head_flops_per_token",
            F.lm_head_flops(1, d, cfg.vocab_size),
            "FLOP",
            "2 × {d} × {vocab}",
            d=d,
            vocab=cfg.vocab_size,
        )
    )
    figs.append(Figure("layers", L, "", "n_layers"))
    counts = {
        "attention_layers": n_attn,
        "sliding_layers": cfg.n_layers_of("sliding"),
        "chunked_layers": cfg.n_layers_of("chunked"),
        "ssm_layers": cfg.n_layers_of("mamba", "mamba2"),
        "dense_ffn_layers": cfg.n_dense_ffn_layers,
        "moe_layers": cfg.n_moe_layers,
    }
    for key, n in counts.items():
        if n != L or key == "attention_layers":
            figs.append(Figure(key, n, "", f"layers of {cfg.name} with this part"))
    return figs


def _ssm_figures(cfg: ModelConfig) -> list[Figure]:
    """Per-token FLOPs of one SSM mixer of each kind the model has (whole model shapes)."""
    from calc import flops as F
    from calc.ssm import mixer_shape

    figs = []
    d = cfg.d_model
    for kind in ("mamba", "mamba2"):
        if not cfg.n_layers_of(kind):
            continue
        m = mixer_shape(cfg, kind)
        E, N, K = m.d_inner, m.d_state, m.d_conv
        if kind == "mamba":
            R = m.dt_rank
            value = (
                F.mamba1_in_proj_flops(1, d, E)
                + F.conv1d_flops(1, E, K)
                + F.mamba1_x_dt_proj_flops(1, E, N, R)
                + F.mamba1_scan_flops(1, E, N)
                + F.ssm_out_proj_flops(1, E, d)
            )
            formula = (
                "2·{d}·2·{E} (in_proj) + 2·{E}·{K} (conv1d) + 2·{E}·({R} + 2·{N}) + 2·{R}·{E} "
                "(x_proj, dt_proj) + 9·{E}·{N} (scan) + 2·{E}·{d} (out_proj)"
            )
            kw = dict(d=d, E=E, K=K, R=R, N=N)
        else:
            G, H = m.n_groups, m.n_heads
            value = (
                F.mamba2_in_proj_flops(1, d, E, G, N, H)
                + F.conv1d_flops(1, m.conv_dim, K)
                + F.mamba2_decode_scan_flops(1, E, N)
                + F.ssm_out_proj_flops(1, E, d)
            )
            formula = (
                "2·{d}·(2·{E} + 2·{G}·{N} + {H}) (in_proj) + 2·({E} + 2·{G}·{N})·{K} (conv1d) "
                "+ 5·{E}·{N} (state update) + 2·{E}·{d} (out_proj)"
            )
            kw = dict(d=d, E=E, G=G, N=N, H=H, K=K)
        figs.append(
            figure(f"{kind}_decode_flops_per_token_per_layer", value, "FLOP", formula, **kw)
        )
    return figs


def _unsharded(dep: Deployment) -> Deployment:
    """The same model and dtypes on one GPU, no hardware: model FLOPs, not per-GPU ones."""
    return replace(dep, hardware=None, tp=1, pp=1, ep=1, dp=1)


def _model_flops(dep: Deployment, *, batch, ctx, prompt):
    """Model FLOPs (no parallelism): decode per token at ``ctx`` and prefill of the batch."""
    one = _unsharded(dep)
    return (
        step_of(one, batch=1, ctx=ctx).flops,
        step_of(one, batch=batch, prompt=prompt).flops,
    )


def _rows(step: Step, sol: Step | None = None) -> list[dict]:
    rows = []
    for i, t in enumerate(step.ops):
        row = t.row()
        if sol is not None:
            row["time_speed_of_light_s"] = sol.ops[i].time_s
        rows.append(row)
    return rows


def flops_report(dep: Deployment, work: Workload) -> LatencyReport:
    """FLOPs per op of the prefill of ``batch`` prompts and of one decode step at ``work.ctx``
    (the CLI's default: prompt + gen, the last step), with bytes and intensity; with hardware,
    bound and roofline time at the expected efficiency. ``decode_flops_per_token``,
    ``prefill_flops`` and ``e2e_flops`` (prefill + the gen − 1 decode steps after it) are model
    totals (all GPUs); the ``ops`` lists are per GPU under tp/pp/ep."""
    from calc.elementwise import cdiv

    cfg, hw = dep.model, dep.hardware
    prompt, gen, batch, ctx = work.prompt, work.gen or 1, work.batch, work.ctx
    if prompt is None:
        raise InvalidInputError("flops needs --prompt")
    st = _setup(dep)
    local = cdiv(batch, dep.replicas)
    dec = step_of(dep, batch=local, ctx=ctx)
    pre = step_of(dep, batch=local, prompt=prompt)
    per_token, prefill_flops = _model_flops(dep, batch=batch, ctx=ctx, prompt=prompt)
    tp, pp, ep = dep.tp, dep.pp, dep.ep
    fields: dict = {
        "model": cfg.name,
        "hardware": hw.name if hw else None,
        "prompt": prompt,
        "ctx": ctx,
        "batch": batch,
        "tp": tp,
        "pp": pp,
        "ep": ep,
        "weight_dtype": st.weight_dtype,
        "kv_dtype": st.kv_dtype,
        "compute_dtype": st.dtype if hw else None,
        "decode_flops_per_token": per_token,
        "decode_flops_per_step": per_token * batch,
        "prefill_flops": prefill_flops,
        "prefill_flops_per_token": prefill_flops / (batch * prompt),
        "gen": gen,
        "e2e_flops": prefill_flops
        + generation_flops(
            cfg,
            prompt=prompt,
            gen=gen,
            batch=batch,
            weight_dtype=dep.weight_dtype,
            kv_dtype=dep.kv_dtype,
        ),
        "decode_bytes_per_step_per_gpu": whole(dec.bytes),
        "decode_arithmetic_intensity": arithmetic_intensity(dec.flops, dec.bytes),
        "prefill_arithmetic_intensity": arithmetic_intensity(pre.flops, pre.bytes),
    }
    if hw is not None:
        fields["ridge_point_flop_per_byte"] = ridge_points(hw)[st.dtype]
    fields["ops"] = _rows(dec)
    fields["prefill_ops"] = _rows(pre)
    figs = _flops_figures(cfg, prompt, ctx)
    figs.append(
        figure(
            "decode_flops_per_token",
            per_token,
            "FLOP",
            "Σ ops of one decode step at ctx {ctx} (matmuls + attention, all layers)",
            ctx=ctx,
        )
    )
    figs.append(
        figure(
            "prefill_flops",
            prefill_flops,
            "FLOP",
            "Σ ops of the prefill of {batch} × {prompt} tokens (lm_head on the last token only)",
            batch=batch,
            prompt=prompt,
        )
    )
    if hw is not None:
        figs.append(_ridge_figure(hw, st.dtype))
    return LatencyReport(fields, figs, _warnings(cfg, prompt, ctx, st, hw))


def _ridge_figure(hw: HardwareProfile, dtype: str) -> Figure:
    return figure(
        "ridge_point_flop_per_byte",
        ridge_points(hw)[dtype],
        "FLOP/B",
        "{peak} FLOP/s / {bw} B/s (" + dtype + " peak over HBM bandwidth)",
        peak=hw.peak_flops_per_s[dtype],
        bw=hw.hbm_bandwidth_bytes_per_s,
    )


def _warnings(cfg, prompt, ctx, st: _Setup, hw) -> list[str]:
    out = []
    longest = max(ctx, prompt)
    if longest > cfg.max_ctx:
        out.append(f"context {longest:,} exceeds {cfg.name}'s max context of {cfg.max_ctx:,}")
    if hw is not None and st.weight_dtype == "fp8" and st.dtype != "fp8":
        out.append(
            f"{hw.name} has no fp8 tensor cores: fp8 weights are timed as weight-only "
            "(bf16 compute)"
        )
    native = NATIVE_COMPUTE.get(st.weight_dtype)
    if hw is not None and native and st.dtype != native and native not in hw.peak_flops_per_s:
        out.append(
            f"{hw.name} has no {native} tensor cores: {st.weight_dtype} weights are timed as "
            "weight-only (bf16 compute; their exact bytes, scales included, are read)"
        )
    return out


def latency_report(
    dep: Deployment,
    work: Workload,
    *,
    matmul_eff: float | None = None,
    mem_eff: float | None = None,
) -> LatencyReport:
    """TTFT, TPOT, E2E and tokens/s of ``work.batch`` requests of ``work.prompt`` +
    ``work.gen`` tokens on ``dep``.

    Each time is given at the expected efficiency (``ttft_s``, ``tpot_s``, ``e2e_s``), at the
    speed of light (``ttft_speed_of_light_s`` …: 100% of peak) and as a band (``ttft_low_s``
    from the profile's high efficiencies, ``ttft_high_s`` from its low ones; likewise
    ``output_tokens_low_per_s`` and ``output_tokens_high_per_s``). TPOT is one decode step at
    ``work.ctx`` (the CLI's default is prompt + gen, the last and slowest step);
    ``tpot_mean_s`` is the mean over the generation, (E2E − TTFT) / (gen − 1), which is what
    serving benchmarks report as TPOT. ``output_tokens_per_s`` is the deployment's decode
    throughput batch / TPOT (``..._per_gpu`` divides by its GPUs); ``e2e_tokens_per_s`` the
    generated tokens of the whole request over its E2E time. With dp replicas each serves
    ceil(batch / dp) of the sequences. ``ops`` are the decode step's ops per GPU.
    """
    from calc.elementwise import cdiv

    cfg = dep.model
    prompt, gen, batch, ctx = work.prompt, work.gen, work.batch, work.ctx
    if prompt is None or gen is None:
        raise InvalidInputError("latency needs --prompt and --gen")
    hw = with_efficiency(dep.hardware, matmul_eff, mem_eff)
    dep = replace(dep, hardware=hw)
    st = _setup(dep)
    local = cdiv(batch, dep.replicas)  # sequences of one replica
    per_token, prefill_flops = _model_flops(dep, batch=batch, ctx=ctx, prompt=prompt)
    times: dict[str, dict] = {}
    steps: dict[str, tuple[Step, Step]] = {}
    for eff in EFFICIENCIES:
        dec = step_of(dep, eff, batch=local, ctx=ctx)
        pre = step_of(dep, eff, batch=local, prompt=prompt)
        gen_time = generation_time_of(dep, prompt=prompt, gen=gen, batch=local, efficiency=eff)
        e2e = pre.time_s + gen_time
        times[eff] = {
            "ttft_s": pre.time_s,
            "tpot_s": dec.time_s,
            "e2e_s": e2e,
            "output_tokens_per_s": batch / dec.time_s,
            "tpot_mean_s": gen_time / (gen - 1) if gen > 1 else dec.time_s,
        }
        steps[eff] = (dec, pre)
    exp, sol, lo, hi = times["expected"], times["peak"], times["high"], times["low"]
    dec, pre = steps["expected"]
    ledger = dep.per_gpu.at(max(ctx, prompt + gen), batch).fields()
    m_eff, b_eff = efficiencies(hw, "expected")
    fields: dict = {
        "model": cfg.name,
        "hardware": hw.name,
        "prompt": prompt,
        "gen": gen,
        "batch": batch,
        "ctx": ctx,
        "tp": dep.tp,
        "pp": dep.pp,
        "ep": dep.ep,
        "dp": dep.dp,
        "gpus": dep.gpus,
        "weight_dtype": st.weight_dtype,
        "kv_dtype": st.kv_dtype,
        "compute_dtype": st.dtype,
        "decode_flops_per_token": per_token,
        "prefill_flops": prefill_flops,
        "ridge_point_flop_per_byte": ridge_points(hw)[st.dtype],
        "matmul_efficiency": m_eff,
        "memory_efficiency": b_eff,
    }
    for key in ("ttft_s", "tpot_s", "tpot_mean_s", "e2e_s", "output_tokens_per_s"):
        unit = "_per_s" if key.endswith("_per_s") else "_s"
        stem = key.removesuffix(unit)
        fields[key] = exp[key]
        fields[f"{stem}_speed_of_light{unit}"] = sol[key]
        # the band is in the quantity's own terms: low/high time, low/high tokens/s
        slow, fast = lo[key], hi[key]
        fields[f"{stem}_low{unit}"] = min(slow, fast)
        fields[f"{stem}_high{unit}"] = max(slow, fast)
    fields["output_tokens_per_s_per_gpu"] = exp["output_tokens_per_s"] / dep.gpus
    fields["tokens_per_sequence_per_s"] = 1 / exp["tpot_s"]
    fields["e2e_tokens_per_s"] = batch * gen / exp["e2e_s"]
    fields["decode_bytes_per_step_per_gpu"] = whole(dec.bytes)
    fields["decode_arithmetic_intensity"] = arithmetic_intensity(dec.flops, dec.bytes)
    mem_total = (
        ledger["weights_bytes_per_gpu"]
        + ledger["kv_cache_bytes_per_gpu"]
        + ledger["ssm_state_bytes_per_gpu"]
    )
    fields.update(ledger)
    fields["memory_per_gpu_bytes"] = whole(mem_total)
    fields["memory_capacity_per_gpu_bytes"] = hw.memory_bytes
    fields["ops"] = _rows(dec, steps["peak"][0])
    fields["prefill_ops"] = _rows(pre, steps["peak"][1])

    figs = _flops_figures(cfg, prompt, ctx)
    figs.append(_ridge_figure(hw, st.dtype))
    figs.append(
        figure(
            "achievable_flops_per_s",
            dec.rates.flops_per_s,
            "FLOP/s",
            "{peak} × {eff} (matmul efficiency, expected)",
            peak=hw.peak_flops_per_s[st.dtype],
            eff=m_eff,
        )
    )
    figs.append(
        figure(
            "achievable_bytes_per_s",
            dec.rates.bytes_per_s,
            "B/s",
            "{bw} × {eff} (memory efficiency, expected)",
            bw=hw.hbm_bandwidth_bytes_per_s,
            eff=b_eff,
        )
    )
    figs += _op_figures("decode", dec)
    figs.append(Figure("tpot_s", exp["tpot_s"], "s", "Σ decode op times (above)"))
    sol_dec = steps["peak"][0]
    figs.append(
        figure(
            "tpot_speed_of_light_s",
            sol["tpot_s"],
            "s",
            "Σ over ops of max(op FLOP / {peak_flops_per_s}, op bytes / {bandwidth_bytes_per_s}) "
            "(step totals: {step_flops} FLOP, {step_bytes} bytes)",
            step_flops=sol_dec.flops,
            peak_flops_per_s=hw.peak_flops_per_s[st.dtype],
            bandwidth_bytes_per_s=hw.hbm_bandwidth_bytes_per_s,
            step_bytes=sol_dec.bytes,
        )
    )
    figs += _op_figures("prefill", pre)
    figs.append(Figure("ttft_s", exp["ttft_s"], "s", "Σ prefill op times (above)"))
    figs.append(
        figure(
            "e2e_s",
            exp["e2e_s"],
            "s",
            "ttft + Σ_(j=1..{g}) tpot(ctx = {prompt} + j) = {ttft} + {rest}",
            g=gen - 1,
            prompt=prompt,
            ttft=exp["ttft_s"],
            rest=exp["e2e_s"] - exp["ttft_s"],
        )
    )
    figs.append(
        figure(
            "output_tokens_per_s",
            exp["output_tokens_per_s"],
            "tokens/s",
            "{batch} / {tpot}",
            batch=batch,
            tpot=exp["tpot_s"],
        )
    )
    figs.append(
        figure(
            "memory_per_gpu_bytes",
            fields["memory_per_gpu_bytes"],
            "bytes",
            "{weights} + {kv} + {state}",
            weights=ledger["weights_bytes_per_gpu"],
            kv=ledger["kv_cache_bytes_per_gpu"],
            state=ledger["ssm_state_bytes_per_gpu"],
        )
    )
    warnings = _warnings(cfg, prompt, ctx, st, hw)
    if not fields["fits"]:
        from calc.capacity import does_not_fit

        g = dep.per_gpu
        work_all = Workload(ctx=max(ctx, prompt + gen), batch=batch)
        message = does_not_fit(dep, work_all, g.max_ctx(batch, max(cfg.max_ctx, work_all.ctx)))
        warnings.append(f"{message} (times are still shown)")
    return LatencyReport(fields, figs, warnings)
