"""Achievable rates [FLOP/s, bytes/s] of a GPU for a compute dtype and an efficiency band,
and the time [s] of one op at those rates: the roofline for compute ops
(``calc.formulas.roofline``),
the collective's time for communication (``calc.deploy.parallel``).

The peak FLOP/s used is that of the *compute* dtype (``compute_dtype``): weights in
bf16/fp16/fp32 compute in that dtype; fp8 weights run W8A8 fp8 GEMMs at the fp8 peak where
the hardware has fp8 tensor cores (Hopper, Blackwell) and weight-only (bf16 compute) where it
has not (A100); int8, int4 and fp4 weights are taken as weight-only quantisation (dequantised
to bf16 inside the GEMM, as Marlin/AWQ/GPTQ kernels do), so they save bytes but not FLOP time.
Attention (scores and values) always runs at the 16-bit peak; the recurrent SSM work runs on
CUDA cores in fp32 and is timed at the profile's fp32 peak.

Achievable rates are peak × efficiency. ``efficiency`` picks the band of the hardware profile:
``peak`` (100%: the speed of light), ``low``, ``expected`` or ``high``. GEMMs in fp8 take the
profile's ``matmul_fp8`` band where it has one, and so do the other sub-16-bit tensor-core
GEMMs (fp4, int8, int4: their own fractions are not measured; they quantise activations and
rescale outputs as fp8 GEMMs do); attention and CUDA-core work the bf16 band.
Every kernel pays the profile's ``kernel_overhead_s`` (none at ``peak``).

GEMMs over weights (ops with a ``fmt``) are timed per their own component's format: a 16-bit
lm_head or router beside fp8 linear layers runs at the 16-bit rate (ModelOpt and
llm-compressor leave them unquantised). Beyond the roofline of their FLOPs and bytes they pay:

- **small M**: tensor cores compute whole tiles, so a GEMM of M rows computes
  ceil(M / tile) × tile of them (``gemm_tile_m``: Hopper's wgmma is 64 rows); routed experts
  pad each touched expert's rows (``Op.gemm_m`` is their mean). A measured curve
  (``gemm_m_curve``, from ``kvcalc measure``) replaces the padding: the roofline time × its
  slowdown at M, interpolated linearly in log M and held at its ends.
- **weight-only kernels** (int8/int4 weights dequantised to bf16 inside the GEMM, on hardware
  without a tensor-core rate of the format): their weights stream at the profile's
  ``efficiency.weight_only`` fraction of the memory band (the dequantisation in the inner
  loop keeps such kernels from reaching a plain GEMV's bandwidth). 4-bit float weights (mxfp4,
  nvfp4) take ``efficiency.weight_only_fp4`` at the chosen efficiency where the profile states
  it apart (a band: their own kernel, e.g. vLLM's Triton MXFP4 MoE on MI300X), else int4's.
- **grouped GEMMs** (MoE routed experts): both rates × ``efficiency.grouped_gemm``.

None of these applies at ``peak`` (the speed of light).

**Kernel curves.** Where the profile has curves fitted to measured kernel times
(``HardwareProfile.kernels``, ``calc.formulas.kernel_curves``, fitted by
``tools/fit_kernels.py``), they time their kernels in place of the bands above: each GEMM over
weights by its dtype's curve (its own shape: wave quantisation over the SMs at narrow per-GPU
n, the main loop's fill at short k, the activation quantisation of a low-precision GEMM),
decode attention by the KV dtype's curve (a fixed cost and one per sequence, the KV-cache
write included), prefill attention by its prompt length, a MoE layer's whole fused pipeline
by the experts' format, an all-reduce by its measured segments, an expert-parallel
all-to-all inside the scale-up domain by the engine's measured DeepEP dispatch and combine
(low-latency kernels at decode, normal ones at prefill). ``low`` and ``high``
efficiency scale a curve's times by its band (the middle half of the measured kernels). Ops
without a curve (norms, embedding, SSM layers) keep the bands; an op with a measured floor
(``Op.floor_s``: the chunked gated-DeltaNet prefill) takes the longer of it and its roofline,
at every band but ``peak``.
No curve time is below the op's speed of light (its roofline at 100% of the peaks).
``curve_time`` is the one place an op's time is taken from a curve; ``curve_of`` names the
curve and its source (``--explain``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from calc.data.hardware_schema import Band, HardwareProfile, KernelCurves
from calc.deploy.ops import (
    ALL_TO_ALL,
    ALLREDUCE,
    COMBINE_BYTES_PER_ELEMENT,
    COMPUTE,
    DISPATCH_BYTES_PER_ELEMENT,
    Op,
)
from calc.deploy.parallel import (
    CUSTOM_INCLUSIVE_ENGINES,
    Link,
    all_to_all_time_s,
    allreduce_time_s,
    custom_fits,
    from_lower,
    p2p_time_s,
    stage_windows,
)
from calc.errors import InvalidInputError, not_one_of
from calc.formulas import kernel_curves as KC
from calc.formulas.quant import is_plain
from calc.formulas.roofline import op_time_s, ridge_point

EFFICIENCIES = ("peak", "low", "expected", "high")
# tensor-core dtypes below 16 bits: their GEMMs take the profile's matmul_fp8 band
LOW_PRECISION_TENSOR_DTYPES = ("fp8", "fp4", "int8", "int4")
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
    if not is_plain(weight_dtype):  # a quantised format with scales (calc.formulas.quant)
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
            not_one_of("efficiency", efficiency, EFFICIENCIES)
        )


def efficiencies(hw: HardwareProfile, efficiency: str, dtype: str = "bf16") -> tuple[float, float]:
    """(matmul, memory) fractions of peak for ``efficiency`` (peak means 1.0, 1.0). GEMMs in
    fp8 take the profile's ``matmul_fp8`` band where it has one (fp8 GEMMs reach a lower
    fraction of their peak than bf16 ones: mamf-finder, H100 0.709 against 0.803)."""
    check_efficiency(efficiency)
    if efficiency == "peak":
        return 1.0, 1.0
    e = hw.efficiency
    low_precision = dtype in LOW_PRECISION_TENSOR_DTYPES
    band = e.matmul_fp8 if low_precision and e.matmul_fp8 is not None else e.matmul
    if dtype == "fp4" and e.matmul_fp4 is not None:  # fp4 measured or bounded apart
        band = e.matmul_fp4
    return getattr(band, efficiency), getattr(e.memory, efficiency)


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
        if key == "matmul":
            update["matmul_fp8"] = None  # the stated fraction holds for every dtype
    if not update:
        return hw
    update["source"] = f"{hw.efficiency.source} (overridden: {', '.join(update)})"
    # a stated fraction times every kernel: the measured curves step aside
    return replace(hw, efficiency=replace(hw.efficiency, **update), kernels=None)


@dataclass(frozen=True)
class Rates:
    """Achievable rates for one efficiency: FLOP/s of the compute dtype and HBM bytes/s."""

    flops_per_s: float
    bytes_per_s: float
    link_bytes_per_s: float
    link_latency_s: float
    attention_flops_per_s: float
    vector_flops_per_s: float  # fp32 CUDA-core rate (SSM scans, conv1d)
    kernel_s: float = 0.0  # fixed cost of one kernel [s] (profile's kernel_overhead_s)
    link: Link | None = None  # scale-up link, domain and scale-out network of collectives
    # GEMMs by weight format (see the module docstring)
    linear_fmt: str | None = None  # the deployment's linear format: its GEMMs run at flops_per_s
    gemm_flops_per_s: Mapping[str, float] = field(default_factory=dict)  # per tensor-core dtype
    weight_only: Mapping[str, float] = field(default_factory=dict)  # family -> memory fraction
    grouped: float = 1.0  # MoE grouped GEMMs' fraction of both rates
    tile_m: int | None = None  # GEMM rows are padded to a multiple of this
    m_curve: tuple[tuple[float, float], ...] | None = None  # (log M, slowdown), sorted
    dtype: str = "bf16"  # the tensor-core dtype of flops_per_s
    # the kernel curves (None: the bands time every op), the efficiency picking their band,
    # the dense peaks and HBM bandwidth their fractions are of, the KV cache's dtype
    curves: KernelCurves | None = None
    efficiency: str = "expected"
    peaks: Mapping[str, float] = field(default_factory=dict)
    hbm_bytes_per_s: float = 0.0
    kv_dtype: str | None = None
    engine: str | None = None  # the serving engine: its scale on the attention curves
    # the engine's release against the tables its own fused-MoE curve is fitted to [×]
    # (calc.deploy.moe_pipeline.MoePipeline.scale_at)
    moe_release_scale: float = 1.0
    # what the expert-parallel all-gather moves, in words ("": the 16-bit hidden states)
    gather_note: str = ""
    # the stated MoE backend's (speed-up, decay) over the engine's own fused-MoE curve
    # (calc.deploy.moe_pipeline.backend_time_ratio); None: the curve's kernels
    moe_backend_fit: Any = None
    # the engine's fused-MoE runner, (name, why) (``Engine.moe_runner``): its own curve where
    # the profile has one (``KernelCurves.moe_runner``); None: the engine's curve as it is
    moe_runner: Any = None
    # the engine's own MoE curve key of the backend it runs the experts on, tried first
    # (``MoeRunner.curve`` of ``Engine.moe_runner``); None: the format's keys alone
    moe_curve_key: str | None = None


def rates(
    hw: HardwareProfile,
    dtype: str,
    efficiency: str,
    linear_fmt: str | None = None,
    custom_allreduce: bool = False,
    kv_dtype: str | None = None,
    engine: str | None = None,
    moe_release_scale: float = 1.0,
    allreduce_route=None,
) -> Rates:
    """The rates of ``hw`` computing its linear layers (format ``linear_fmt``) in ``dtype``;
    ``custom_allreduce``: the engine's own all-reduce kernels run inside an NVLink domain;
    ``kv_dtype`` picks the decode-attention curve; ``moe_release_scale`` times the engine's own
    fused-MoE curve at its release; ``allreduce_route``: the release's declared all-reduce
    choice (``calc.deploy.parallel.engine_route``). A measured small-M curve (a calibration)
    keeps the bands for GEMMs; the speed of light uses no curve."""
    m, b = efficiencies(hw, efficiency)  # attention and CUDA-core work: the 16-bit band
    m_gemm = efficiencies(hw, efficiency, dtype)[0]
    attn = dtype if dtype in ("bf16", "fp16", "fp32", "tf32") else "bf16"
    peaks = hw.peak_flops_per_s
    real = efficiency != "peak"  # the speed of light pays no kernel inefficiency
    e = hw.efficiency
    curve = hw.gemm_m_curve if real else None
    kernel_s = (hw.kernel_overhead_s or 0.0) if real else 0.0
    k = hw.kernels
    if real and k is not None and k.elementwise is not None:  # measured: every other kernel
        kernel_s = SERVING_FIXED_SHARE * k.elementwise.fixed_s
    return Rates(
        peaks[dtype] * m_gemm,
        hw.hbm_bandwidth_bytes_per_s * b,
        hw.interconnect_bandwidth_bytes_per_s,
        hw.interconnect_latency_s,
        peaks[attn] * m,
        peaks.get("fp32", peaks[attn]) * m,
        kernel_s,
        link_of(hw, custom_allreduce, engine, allreduce_route),
        linear_fmt,
        {d: p * efficiencies(hw, efficiency, d)[0] for d, p in peaks.items()},
        weight_only_fractions(hw, efficiency) if real else {},
        (e.grouped_gemm or 1.0) if real else 1.0,
        hw.gemm_tile_m if real else None,
        None if not curve else tuple((math.log(p.m), p.slowdown) for p in curve),
        dtype,
        hw.kernels if real else None,
        efficiency,
        dict(peaks),
        hw.hbm_bandwidth_bytes_per_s,
        kv_dtype,
        engine,
        moe_release_scale,
    )


def link_of(
    hw: HardwareProfile, custom_allreduce: bool = False, engine: str | None = None, route=None
) -> Link:
    """The collectives' links of ``hw``: NVLink/xGMI within its scale-up domain, its scale-out
    network beyond (when the profile gives them); ``custom_allreduce``: the engine's own
    all-reduce kernels may run inside the domain (NVLS where the switch multicasts), up to
    their buffer as ``engine`` takes it (``custom_fits``), or as its release's ``route``
    declares (``calc.deploy.parallel.engine_route``)."""
    out = hw.scale_out
    return Link(
        hw.interconnect_bandwidth_bytes_per_s,
        hw.interconnect_latency_s,
        hw.scale_up_domain_gpus,
        None if out is None else out.bandwidth_bytes_per_s,
        None if out is None else out.latency_s,
        custom_allreduce,
        bool(hw.scale_up_multicast),
        engine in CUSTOM_INCLUSIVE_ENGINES,
        route,
    )


def flops_rate(op: Op, r: Rates) -> float:
    if op.vector:
        return r.vector_flops_per_s
    return r.attention_flops_per_s if op.attention else r.flops_per_s


def weight_only_family(fmt: str | None) -> str | None:
    """The weight-only kernel family of a weight format: "int8", "int4", "fp4" (4-bit float
    formats: ``weight_only_fractions`` gives them int4's fraction unless the profile states
    their own), None for a plain or fp8 format."""
    if fmt is None:
        return None
    if fmt.startswith("int8"):
        return "int8"
    if fmt.startswith("int4"):
        return "int4"
    if fmt.startswith(("fp4", "mxfp4", "nvfp4")):
        return "fp4"
    return None


def weight_only_fractions(hw: HardwareProfile, efficiency: str) -> dict[str, float]:
    """The fraction of the memory band [×] each weight-only family's weight streaming reaches
    at ``efficiency`` (low / expected / high): ``efficiency.weight_only`` for int8 and int4;
    fp4 from its own band ``weight_only_fp4`` where the profile states one, else int4's."""
    e = hw.efficiency
    out = dict(e.weight_only or {})
    if e.weight_only_fp4 is not None and efficiency in ("low", "expected", "high"):
        out["fp4"] = getattr(e.weight_only_fp4, efficiency)
    elif "int4" in out:
        out["fp4"] = out["int4"]
    return out


def _padded_rows(m, tile: int):
    """ceil(m / tile) × tile, for numbers or numpy arrays (rows of at least one tile)."""
    return -(-m // tile) * tile


def _slowdown(m, curve):
    import numpy as np

    xs, ys = zip(*curve, strict=True)
    out = np.interp(np.log(np.maximum(m, 1)), xs, ys)
    return out if hasattr(m, "shape") else float(out)


@dataclass(frozen=True)
class GemmTerms:
    """A GEMM's roofline terms as timed: FLOPs (rows padded to whole tiles) at its format's
    rate, bytes (weight-only weights scaled up by 1 / their streaming fraction) at the memory
    band (both rates × the grouped-GEMM factor), and the measured small-M slowdown (1 without
    a curve). Time = max(flops / flops_per_s, bytes / bytes_per_s) × slowdown."""

    flops: Any
    flops_per_s: float
    bytes: Any
    bytes_per_s: float
    slowdown: Any = 1.0

    @property
    def time_s(self):
        return op_time_s(self.flops, self.bytes, self.flops_per_s, self.bytes_per_s) * self.slowdown


def gemm_dtype(op: Op, r: Rates) -> str:
    """The tensor-core dtype that times a GEMM over weights (``op.fmt`` set)."""
    own = op.fmt == r.linear_fmt or not r.gemm_flops_per_s
    return r.dtype if own else compute_dtype(op.fmt, r.gemm_flops_per_s)


def gemm_terms(op: Op, r: Rates) -> GemmTerms:
    """The terms of a GEMM over weights (``op.fmt`` set; see the module docstring)."""
    own = op.fmt == r.linear_fmt or not r.gemm_flops_per_s
    dt = gemm_dtype(op, r)
    f = r.flops_per_s if own else r.gemm_flops_per_s[dt]
    fam = weight_only_family(op.fmt)
    wo = r.weight_only.get(fam, 1.0) if fam is not None and dt in ("bf16", "fp16") else 1.0
    g = r.grouped if op.grouped else 1.0
    wb = op.weight_bytes
    moved = op.bytes if wo == 1.0 else op.bytes - wb + wb / wo
    m = op.gemm_m
    if r.m_curve is not None and m is not None:
        return GemmTerms(op.flops, f * g, moved, r.bytes_per_s * g, _slowdown(m, r.m_curve))
    flops = op.flops
    if r.tile_m and m is not None:
        flops = flops * _padded_rows(m, r.tile_m) / m
    return GemmTerms(flops, f * g, moved, r.bytes_per_s * g)


def is_gemm(op: Op) -> bool:
    """A compute op that is a GEMM over weights of a known format (timed by ``gemm_terms``)."""
    return op.kind == COMPUTE and op.fmt is not None and not op.attention and not op.vector


# ---------------------------------------------------------------------------------------
# Kernel curves

# The share of a kernel's fixed cost as measured alone that a serving step pays [×]: fitted,
# one constant for every curve and GPU, together with each engine's host time per step
# (bench/validation_serving.py --fit as it was at f287d8b, issue 20 round 2: the training
# half's TPOT, its separation from the host time coming from models of 8 to 94 layers, i.e.
# different kernel counts per step; today's fit gives 0.560, kept for the held-out data:
# docs/validation/host_fit.yaml, calc.deploy.host_costs). The kernel
# tables time each kernel (or one layer's fused MoE) replayed alone in a CUDA graph: its fixed
# cost carries the replay's own launch and the kernel's ramp-up and drain with nothing to
# overlap them; in a serving step's graph no per-kernel launch is paid and consecutive kernels
# overlap their tails (programmatic dependent launch on Hopper and Blackwell).
SERVING_FIXED_SHARE = 0.665

# a GEMM's tensor-core dtype -> the curves that may time it, in order
GEMM_CURVES = {"bf16": ("bf16",), "fp8": ("fp8", "fp8_block"), "fp8_block": ("fp8_block", "fp8"),
               "fp4": ("fp4",)}  # fmt: skip
GEMM_PEAK = {"bf16": "bf16", "fp8": "fp8", "fp8_block": "fp8", "fp4": "fp4"}
# bytes of one input activation element of a GEMM in that dtype (block scales included)
GEMM_ACT_BYTES = {"bf16": 2.0, "fp8": 1.0, "fp8_block": 1 + 4 / 128, "fp4": 0.5 + 1 / 16}
# the peak a MoE curve's compute fraction is of (mxfp4 and int4 experts: weight-only, 16-bit)
MOE_PEAK = {"bf16": "bf16", "fp8": "fp8", "fp8_block": "fp8", "fp4": "fp4", "mxfp4": "bf16",
            "int4": "bf16", "fp8_cutlass": "fp8"}  # fmt: skip


# the engines whose measured all-to-all times a deployment of an engine without its own, in
# order: the moe_a2a tables (TensorRT-LLM's and vLLM's DeepEP runs) before SGLang's own
# DeepEP benchmark, which times the kernels alone and runs 2-4x faster at small sizes
A2A_ENGINES = ("trtllm", "vllm", "sglang")


def _gather_curve(op: Op, r: Rates):
    """NCCL's measured all-gather and reduce-scatter for a gather op (both at its GPU count,
    inside the scale-up domain), else (None, None)."""
    table = r.curves.gather if r.curves is not None else None
    link = r.link
    if not table or op.comm != "gather" or op.group < 2:
        return None, None
    if link is not None and link.domain_gpus is not None and op.group > link.domain_gpus:
        return None, None
    ag, rs = table.get("all_gather"), table.get("reduce_scatter")
    if ag is None or rs is None or op.group not in ag.segments or op.group not in rs.segments:
        return None, None
    return "gather.nccl", ag  # the reduce-scatter's curve beside it (_gather_pair)


def _gather_pair(r: Rates):
    return r.curves.gather["all_gather"], r.curves.gather["reduce_scatter"]


def _gather_time(op: Op, r: Rates):
    """All-gathers and reduce-scatters of a gather op by NCCL's segments [s]."""
    n = op.group
    out = 0.0
    for curve, msg in zip(_gather_pair(r), op.phase_bytes, strict=True):
        out = out + _least([KC.gather_segment_time_s(msg, n, lat, bw)
                            for lat, bw in curve.segments[n]])  # fmt: skip
    return op.layers * out


def _a2a_curve(op: Op, r: Rates):
    """The all-to-all curve of ``op``: the engine's own (else A2A_ENGINES' order) in DeepEP's
    low-latency kernels at decode, its normal kernels at prefill; (None, None) without one, or
    when the group crosses the scale-up domain (the tables measure one node)."""
    table = r.curves.all_to_all if r.curves is not None else None
    link = r.link
    if not table or not op.fanout or op.group < 2:
        return None, None
    if link is not None and link.domain_gpus is not None and op.group > link.domain_gpus:
        return None, None
    mode = "low_latency" if op.prompt is None else "normal"
    # TensorRT-LLM's NVLink all-to-all where measured, else DeepEP's kernels stand for it
    modes = ("mnnvl", mode) if op.comm == "mnnvl" else (mode,)
    for m in modes:
        for eng in (r.engine, *A2A_ENGINES):
            curve = (table.get(eng) or {}).get(m) if eng else None
            if curve is not None:
                return f"all_to_all@{eng}.{m}", curve
    return None, None


def _a2a_bytes(op: Op, name: str):
    """(dispatch, combine) bytes of one call on the busiest GPU: its tokens × d_model × the
    copies the kernels send (normal and TensorRT-LLM's NVLink all-to-all: once per GPU holding
    one of a token's experts; low-latency: once per expert) × bytes per element (fp8 and
    scales out, bf16 back)."""
    ranks, k = op.fanout
    sent = op.route_elements / op.layers * (k if name.endswith(".low_latency") else ranks)
    return sent * DISPATCH_BYTES_PER_ELEMENT, sent * COMBINE_BYTES_PER_ELEMENT


def _a2a_time(op: Op, r: Rates, name: str, curve):
    """An expert-parallel op's dispatches and combines by the engine's measured curve [s]."""
    d, c = _a2a_bytes(op, name)
    one = KC.all_to_all_call_time_s(d, *curve.dispatch) + KC.all_to_all_call_time_s(
        c, *curve.combine
    )
    return op.layers * one * _band_scale(curve, r.efficiency)


def _engine_scale(name: str, r: Rates) -> float:
    """The serving engine's own kernels against the pooled curve ``name`` (1 without a
    figure: ``KernelCurves.engine_scale``)."""
    table = r.curves.engine_scale if r.curves is not None else None
    if not table or r.engine not in table:
        return 1.0
    return table[r.engine].get(name, 1.0)


def _backend_scale(name: str, op: Op, r: Rates):
    """The stated MoE backend's time over the engine's own fused-MoE curve ``name`` at
    ``op``'s rows per active expert (1 for any other curve, or no backend fit)."""
    if r.moe_backend_fit is None or not name.startswith(f"moe@{r.engine}."):
        return 1.0
    from calc.deploy.moe_pipeline import backend_time_ratio

    return backend_time_ratio(r.moe_backend_fit, op.gemm_m)


def _routes_of(op: Op, curve):
    """The route elements a MoE curve's per-route term counts (``MoeCurve.routes``)."""
    return op.batch_route_elements if curve.routes == "batch" else op.route_elements


def _release_scale(name: str, r: Rates) -> float:
    """The engine's release against the tables its own fused-MoE curve ``name`` is fitted to
    (1 for any other curve: a pooled one mixes the engines' tables)."""
    return r.moe_release_scale if name.startswith(f"moe@{r.engine}.") else 1.0


def _band_scale(curve, efficiency: str) -> float:
    """A curve's time ratio at ``efficiency``: 1 expected, its band's upper end at low, its
    lower end at high."""
    if efficiency == "low":
        return curve.band[1]
    if efficiency == "high":
        return curve.band[0]
    return 1.0


def _first(table, keys):
    if not table:
        return None, None
    for k in keys:
        if k in table:
            return k, table[k]
    return None, None


def _gemm_key(op: Op, r: Rates) -> tuple[str | None, float]:
    """(the GEMM's dtype key, its weight-only streaming fraction)."""
    own = op.fmt == r.linear_fmt or not r.gemm_flops_per_s
    dt = r.dtype if own else compute_dtype(op.fmt, r.gemm_flops_per_s)
    fam = weight_only_family(op.fmt)
    wo = r.weight_only.get(fam, 1.0) if fam is not None and dt in ("bf16", "fp16") else 1.0
    if dt in ("bf16", "fp16"):
        return "bf16", wo
    if dt == "fp8":
        return ("fp8_block" if op.fmt == "fp8-block128" else "fp8"), wo
    if dt == "fp4":
        return "fp4", wo
    return None, wo


def _moe_keys(fmt: str | None, peaks) -> tuple[str, ...]:
    if fmt is None or fmt in ("bf16", "fp16", "fp32"):
        return ("bf16",)
    if fmt in ("fp8", "fp8-tensor"):
        return ("fp8", "fp8_block")
    if fmt == "fp8-block128":
        return ("fp8_block", "fp8")
    if fmt in ("nvfp4", "mxfp4"):
        native = ("fp4",) if "fp4" in peaks else ()
        return (*native, "mxfp4", "int4") if fmt == "nvfp4" else ("mxfp4", *native)
    if fmt.startswith("int4"):
        return ("int4",)
    return ()


def curve_of(op: Op, r: Rates):
    """The curve that times ``op`` under ``r`` and its name ("gemm.fp8", "moe.mxfp4",
    "allreduce.custom" …), or (None, None) where the bands time it."""
    c = r.curves
    if c is None:
        return None, None
    if op.kind == ALLREDUCE:
        table = c.allreduce or {}
        n = op.group
        for kind in ("custom", "nccl"):
            if kind in table and n in table[kind].segments:
                if kind == "custom" and not _custom_allowed(op, r):
                    continue
                return f"allreduce.{kind}", table[kind]
        return None, None
    if op.kind == ALL_TO_ALL:
        return _gather_curve(op, r) if op.comm == "gather" else _a2a_curve(op, r)
    if op.kind != COMPUTE:
        return None, None
    if op.grouped and op.layers:
        keys = _moe_keys(op.fmt, r.peaks)
        key, curve = _runner_curve(c, r, keys)  # the runner the engine runs, where fitted
        if curve is not None:
            return f"moe@{r.engine}.{key}.{r.moe_runner[0]}", curve
        own = (c.moe_engine or {}).get(r.engine)
        first = (r.moe_curve_key,) if r.moe_curve_key else ()
        key, curve = _first(own, (*first, *keys))  # the engine's own kernels where fitted
        if curve is not None:
            return f"moe@{r.engine}.{key}", curve
        key, curve = _first(c.moe, keys)
        return (f"moe.{key}", curve) if curve is not None else (None, None)
    if is_gemm(op) and op.gemm_shapes and op.layers and r.m_curve is None:
        key, _ = _gemm_key(op, r)
        own = (c.gemm_engine or {}).get(r.engine) or {}
        if key in own:  # the engine's own GEMMs where fitted (only its own dtype key)
            return f"gemm@{r.engine}.{key}", own[key]
        key, curve = _first(c.gemm, GEMM_CURVES.get(key, ()))
        return (f"gemm.{key}", curve) if curve is not None else (None, None)
    if op.attention and op.attn_kind in ("gqa", "mla") and op.layers:
        pre = "mla_" if op.attn_kind == "mla" else ""  # DeepSeek's latent attention apart
        if op.prompt is None:
            kv = "fp8" if r.kv_dtype and r.kv_dtype.startswith(("fp8", "int8")) else "bf16"
            key, curve = _first(getattr(c, f"{pre}decode_attention"), (kv, "bf16", "fp8"))
            name = f"{pre}decode_attention.{key}"
            return (name, curve) if curve is not None else (None, None)
        key, curve = _first(getattr(c, f"{pre}prefill_attention"), ("bf16",))
        return (f"{pre}prefill_attention.{key}", curve) if curve is not None else (None, None)
    return None, None


def _runner_curve(c, r: Rates, keys):
    """(key, curve) of the engine's fused-MoE runner ``r.moe_runner`` for the first of
    ``keys`` the profile fits for it (``KernelCurves.moe_runner``), or (None, None)."""
    if r.moe_runner is None or not c.moe_runner:
        return None, None
    return _first((c.moe_runner.get(r.engine) or {}).get(r.moe_runner[0]), keys)


def _kind(name: str) -> str:
    """A curve name's kind: "gemm", "moe", "decode_attention", "mla_prefill_attention" …
    (an engine's own curve, "moe@vllm.fp8", is of its pooled curve's kind)."""
    return name.split(".")[0].split("@")[0]


def _custom_allowed(op: Op, r: Rates) -> bool:
    link = r.link
    if link is None or not link.custom or link.domain_gpus is None:
        return False
    return op.group <= link.domain_gpus


def curve_time(op: Op, r: Rates):
    """``op``'s time from its kernel curve [s] (its other kernels at the fixed cost each), or
    None where no curve times it. The one place per-op-class curve times are formed: a
    multiplier for an op class (GEMM, attention, MoE, communication) applies here."""
    name, curve = curve_of(op, r)
    if curve is None:
        return None
    kind = _kind(name)
    L = op.layers
    if kind == "allreduce":
        msg = op.bytes / op.count
        times = [KC.allreduce_segment_time_s(msg, op.group, lat, bw)
                 for lat, bw in curve.segments[op.group]]  # fmt: skip
        one = _least(times)
        stages = r.link.stages(op.group) if r.link is not None else None
        if name == "allreduce.custom" and stages is not None:  # the release's declared choice
            return op.count * _declared_curve_time(msg, op.group, stages, r)
        if name == "allreduce.custom" and "nccl" in (r.curves.allreduce or {}):
            nccl = r.curves.allreduce["nccl"].segments.get(op.group)
            if nccl:  # beyond the custom kernels' buffer the engine falls back to NCCL
                big = _least([KC.allreduce_segment_time_s(msg, op.group, lat, bw)
                              for lat, bw in nccl])  # fmt: skip
                one = _where(custom_fits(msg, r.engine), _minimum(one, big), big)
        return op.count * one
    if kind == "all_to_all":
        return _a2a_time(op, r, name, curve)
    if kind == "gather":
        return _gather_time(op, r)
    scale = _band_scale(curve, r.efficiency)
    W = r.hbm_bytes_per_s
    if kind == "gemm":
        key = name.split(".")[1]
        t = 0.0
        for one in _gemm_times(op, r, curve, key):
            t = t + one
        other = op.kernels - L * len(op.gemm_shapes)
        floor = op_time_s(op.flops, op.bytes - op.eager_bytes, r.peaks[GEMM_PEAK[key]], W)
        eager = op.eager_bytes / r.bytes_per_s  # element-wise kernels beside the GEMMs
        return _maximum(L * t * scale, floor) + other * r.kernel_s + eager
    if kind == "moe":
        scale = scale * _release_scale(name, r) * _backend_scale(name, op, r)
        key = curve.peak or MOE_PEAK[name.split(".")[1]]
        t = KC.moe_time_s(
            op.flops, op.bytes, op.gemm_m, _routes_of(op, curve), op.active_experts,
            flops_per_s=r.peaks[key], bytes_per_s=W, compute=curve.compute,
            memory=curve.memory, fixed_s=L * SERVING_FIXED_SHARE * curve.fixed_s,
            per_route_element_s=curve.per_route_element_s, tile_m=curve.tile_m,
            sharpness=curve.sharpness, per_expert_s=curve.per_expert_s,
        )  # fmt: skip
        out = _maximum(t * scale, op_time_s(op.flops, op.bytes, r.peaks[key], W))
        return out + _outside_curve(op, name) * r.kernel_s
    first = bool(op.kernels)  # the scores op carries the kernel's fixed costs
    scale *= _engine_scale(name, r)
    P = r.peaks["bf16"]
    if kind.endswith("decode_attention"):
        t = KC.decode_attention_time_s(
            op.flops, op.bytes, op.seqs, flops_per_s=P, bytes_per_s=W,
            compute=curve.compute, memory=curve.memory,
            fixed_s=L * SERVING_FIXED_SHARE * curve.fixed_s if first else 0.0,
            per_sequence_s=L * curve.per_sequence_s if first else 0.0,
            sharpness=curve.sharpness,
        )  # fmt: skip
    else:
        t = KC.prefill_attention_time_s(
            op.flops, op.bytes, op.prompt, flops_per_s=P, bytes_per_s=W,
            compute=curve.compute, memory=curve.memory,
            fixed_s=L * SERVING_FIXED_SHARE * curve.fixed_s if first else 0.0,
            prompt_half=curve.prompt_half,
            sharpness=curve.sharpness,
        )  # fmt: skip
    # the rotary embedding: the kernel of the layer the curve's measurement leaves out
    rest = (op.kernels - L) * r.kernel_s if first else 0.0
    return _maximum(t * scale, op_time_s(op.flops, op.bytes, P, W)) + rest


def _stage_segments(stage, n: int, r: Rates) -> list:
    """The measured segments that time one stage of a declared all-reduce choice: the engine's
    kernels and symmetric memory by the custom table (vLLM's all-reduce as its release
    dispatched it: 0.24.0 runs symmetric memory from 256 KiB to 64 MiB at 8 Hopper GPUs, so
    its segments measure both); NCCL by NCCL's table (the custom table where it has none)."""
    table = r.curves.allreduce or {}
    custom = list(table["custom"].segments[n])
    if stage.algorithm == "nccl":
        nccl = table["nccl"].segments.get(n) if "nccl" in table else None
        return list(nccl) if nccl else custom
    own = _engine_allreduce(stage, n, r)
    return list(own.segments[n]) if own is not None else custom


def _engine_allreduce(stage, n: int, r: Rates):
    """The engine's own measured all-reduce curve that times ``stage`` over ``n`` GPUs
    (``ArStage.curve``, ``KernelCurves.allreduce_engine``), or None (``allreduce.custom``)."""
    if stage.curve is None or stage.algorithm == "nccl":
        return None
    own = (r.curves.allreduce_engine or {}).get(stage.curve)
    return own if own is not None and n in own.segments else None


def _stage_at(message_bytes: float, stages):
    """The stage of a declared choice that takes a message of ``message_bytes``."""
    for st, lo, strict in stage_windows(stages):
        if from_lower(message_bytes, lo, strict) and st.fits(message_bytes):
            return st
    return stages[-1]


def _declared_curve_time(msg, n: int, stages, r: Rates):
    """One all-reduce of ``msg`` bytes as the release declares its choice, each stage timed by
    its measured segments (``_stage_segments``) [s]; element-wise for arrays."""
    out = None
    for st, lo, strict in stage_windows(stages):
        t = _least([KC.allreduce_segment_time_s(msg, n, lat, bw)
                    for lat, bw in _stage_segments(st, n, r)])  # fmt: skip
        if out is None:
            out = t
            continue
        out = _where(from_lower(msg, lo, strict) & st.fits(msg), t, out)
    return out


def _gemm_times(op: Op, r: Rates, curve, key: str) -> list:
    """Each GEMM of ``op``'s layer by the curve [s]: its shape, the weights' bytes per
    element (scales included; weight-only streaming fraction applied) and the activation
    quantisation of a low-precision GEMM."""
    _, wo = _gemm_key(op, r)
    nk = sum(n * k for n, k in op.gemm_shapes)
    w = op.weight_bytes / (op.layers * nk) / wo
    a = GEMM_ACT_BYTES[key]
    return [
        KC.gemm_time_s(
            op.gemm_m, n, k, flops_per_s=r.peaks[GEMM_PEAK[key]],
            bytes_per_s=r.hbm_bytes_per_s, weight_bytes_per_element=w,
            act_bytes_per_element=a, quantize_bytes_per_element=0.0 if key == "bf16" else 2.0 + a,
            compute=curve.compute, memory=curve.memory,
            fixed_s=SERVING_FIXED_SHARE * curve.fixed_s, tile_m=curve.tile_m,
            tile_n=curve.tile_n, k_half=curve.k_half, sharpness=curve.sharpness,
            sms=r.curves.sms,
        )
        for n, k in op.gemm_shapes
    ]


# long: one case per kernel curve of --explain's arithmetic (kernel model's to split)
def curve_explain(op: Op, r: Rates):
    """``curve_time``'s arithmetic for ``--explain``: (template, numbers) whose evaluation is
    the op's time, the curve's name and the curve; None where no curve times ``op``. Arrays
    are taken at their first element."""
    import numpy as np

    name, curve = curve_of(op, r)
    if curve is None:
        return None

    def one(x):
        return float(np.asarray(x, dtype=np.float64).flat[0])

    kind = _kind(name)
    if kind == "allreduce":
        msg, n = one(op.bytes / op.count), op.group
        segs = list(curve.segments[n])
        stages = r.link.stages(n) if r.link is not None else None
        if name == "allreduce.custom" and stages is not None:
            stage = _stage_at(msg, stages)
            segs = _stage_segments(stage, n, r)
            nccl = (r.curves.allreduce or {}).get("nccl")
            if stage.algorithm == "nccl" and nccl is not None and n in nccl.segments:
                name, curve = "allreduce.nccl", nccl  # the curve that times it, by name
            own = _engine_allreduce(stage, n, r)
            if own is not None:
                name, curve = f"allreduce@{stage.curve}", own
        elif name == "allreduce.custom":
            nccl = (r.curves.allreduce or {}).get("nccl")
            extra = list(nccl.segments.get(n, [])) if nccl is not None else []
            segs = segs + extra if custom_fits(msg, r.engine) else extra or segs
        nums = {"count": one(op.count), "f": 2.0 * (n - 1) / n, "msg": msg}
        parts = []
        for i, (lat, bw) in enumerate(segs):
            nums[f"lat{i}"], nums[f"bw{i}"] = lat, bw
            parts.append(f"{{lat{i}}} s + {{f}} × {{msg}} B / {{bw{i}}} B/s")
        if len(parts) == 1:  # one segment (a declared stage timed by one)
            return "{count} × (" + parts[0] + ")", nums, name, curve
        return "{count} × min(" + ", ".join(parts) + ")", nums, name, curve
    if kind == "gather":
        n = op.group
        nums = {"layers": op.layers, "f": (n - 1) / n}
        parts = []
        for i, (c, msg) in enumerate(zip(_gather_pair(r), op.phase_bytes, strict=True)):
            segs = []
            for j, (lat, bw) in enumerate(c.segments[n]):
                nums[f"lat{i}{j}"], nums[f"bw{i}{j}"] = lat, bw
                segs.append(f"{{lat{i}{j}}} s + {{f}} × {{m{i}}} B / {{bw{i}{j}}} B/s")
            nums[f"m{i}"] = one(msg)
            parts.append("min(" + ", ".join(segs) + ")")
        return "{layers} × (" + " + ".join(parts) + ")", nums, name, curve
    if kind == "all_to_all":
        d, c = _a2a_bytes(op, name)
        nums = {"layers": op.layers, "fd": curve.dispatch[0], "d": one(d), "bd": curve.dispatch[1],
                "fc": curve.combine[0], "c": one(c), "bc": curve.combine[1],
                "scale": _band_scale(curve, r.efficiency)}  # fmt: skip
        tmpl = ("{layers} × ({fd} s + {d} B / {bd} B/s + {fc} s + {c} B / {bc} B/s) × {scale}")
        return tmpl, nums, name, curve
    scale = _band_scale(curve, r.efficiency)
    W, L = r.hbm_bytes_per_s, op.layers
    scalar = replace(op, flops=one(op.flops), bytes=one(op.bytes),
                     weight_bytes=one(op.weight_bytes), gemm_m=one(op.gemm_m)
                     if op.gemm_m is not None else None, seqs=one(op.seqs)
                     if op.seqs is not None else None, prompt=one(op.prompt)
                     if op.prompt is not None else None,
                     route_elements=one(_routes_of(op, curve)) if kind == "moe"
                     else one(op.route_elements),
                     active_experts=one(op.active_experts))  # fmt: skip
    if kind == "gemm":
        key = name.split(".")[1]
        eager = one(op.eager_bytes)
        floor = op_time_s(scalar.flops, scalar.bytes - eager, r.peaks[GEMM_PEAK[key]], W)
        nums = {"layers": L, "scale": scale, "floor": floor}
        parts = []
        for i, g in enumerate(_gemm_times(scalar, r, curve, key)):
            nums[f"g{i}"] = one(g)
            parts.append(f"{{g{i}}} s")
        other = op.kernels - L * len(op.gemm_shapes)
        nums["other"], nums["kernel_s"] = other, r.kernel_s
        tmpl = ("max({layers} × (" + " + ".join(parts) + ") × {scale}, {floor} s)"
                " + {other} × {kernel_s} s")  # fmt: skip
        if eager:  # an engine's eager element-wise kernels at the memory rate
            nums["eager"], nums["bw"] = eager, r.bytes_per_s
            tmpl += " + {eager} B / {bw} B/s"
        return tmpl, nums, name, curve
    if kind == "moe":
        return _moe_explain(scalar, r, name, curve, scale, one)
    P = r.peaks["bf16"]
    first = bool(op.kernels)
    scale *= _engine_scale(name, r)
    reach = curve.compute
    head = 0.0
    if first:
        head = L * SERVING_FIXED_SHARE * curve.fixed_s
        if kind.endswith("decode_attention"):
            head += L * curve.per_sequence_s * scalar.seqs
    if kind.endswith("prefill_attention"):
        reach = curve.compute * scalar.prompt / (scalar.prompt + curve.prompt_half)
    nums = {
        "head": head,
        "tc": scalar.flops / (P * reach),
        "tm": scalar.bytes / (W * curve.memory),
        "sh": curve.sharpness,
        "scale": scale,
        "floor": op_time_s(scalar.flops, scalar.bytes, P, W),
        "rest": (op.kernels - L) * r.kernel_s if first else 0.0,
    }
    tmpl = ("max(({head} s + ({tc} s ^ {sh} + {tm} s ^ {sh}) ^ (1 / {sh})) × {scale}, {floor} s)"
            " + {rest} s")  # fmt: skip
    return tmpl, nums, name, curve


def _outside_curve(op: Op, name: str):
    """Kernels of a fused-MoE ``op`` that its curve ``name`` leaves out: the routing kernels
    a release runs beyond those of the release the engine's own curve was measured at
    (``Op.curve_kernels``; none beside the pooled curves, whose tables mix the engines)."""
    return op.curve_kernels if name.startswith("moe@") else 0


def _moe_explain(scalar: Op, r: Rates, name: str, curve, scale: float, one):
    """``curve_explain`` of a fused-MoE layer (``scalar``: the op at its first element)."""
    W, L = r.hbm_bytes_per_s, scalar.layers
    P = r.peaks[curve.peak or MOE_PEAK[name.split(".")[1]]]
    rows = scalar.gemm_m
    pad = one(KC.padded_rows(rows, curve.tile_m)) / rows
    nums = {
        "fixed": L * SERVING_FIXED_SHARE * curve.fixed_s,
        "route": curve.per_route_element_s * scalar.route_elements,
        "per_expert": curve.per_expert_s,  # [s] per active local expert
        "active": scalar.active_experts,
        "tc": scalar.flops * pad / (P * curve.compute),
        "tm": scalar.bytes / (W * curve.memory),
        "sh": curve.sharpness,
        "scale": scale,
        "floor": op_time_s(scalar.flops, scalar.bytes, P, W),
    }
    tmpl = ("max(({fixed} s + {route} s + {per_expert} s × {active} + ({tc} s ^ {sh}"
            " + {tm} s ^ {sh}) ^ (1 / {sh})) × {scale}, {floor} s)")  # fmt: skip
    release = _release_scale(name, r)
    if release != 1.0:  # the engine's release against the curve's tables, shown apart
        nums["release"] = release
        tmpl = tmpl.replace("× {scale},", "× {scale} × {release},")
    backend = _backend_scale(name, scalar, r)
    if backend != 1.0:  # the stated MoE backend against the curve's kernels, shown apart
        nums["backend"] = backend
        tmpl = tmpl.replace(", {floor} s)", " × {backend}, {floor} s)")
    outside = _outside_curve(scalar, name)
    if outside:  # the release's routing kernels beyond the curve's
        nums["routing"], nums["kernel_s"] = outside, r.kernel_s
        tmpl += " + {routing} × {kernel_s} s"
    return tmpl, nums, name, curve


# what a gather moves where the engine's MoE pipeline states nothing of its own
GATHER_NOTE = ("m0: the stage's tokens × d_model as 16-bit hidden states, m1: the same "
               "reduce-scattered")


STAGE_WORDS = {
    "own": "the engine's own one-shot/two-shot kernels",
    "symm": "symmetric memory",
    "nccl": "NCCL",
}


def allreduce_note(op: Op, r: Rates) -> str:
    """Which algorithm the engine release declares for ``op``'s all-reduce message (its first,
    for arrays), in words ("" where the release declares none)."""
    import numpy as np

    if op.kind != ALLREDUCE or r.link is None or not op.count:
        return ""
    stages = r.link.stages(op.group)
    if stages is None:
        return ""
    if not _custom_allowed(op, r):
        stages = (stages[-1],)
    msg = float(np.asarray(op.bytes / op.count, dtype=np.float64).flat[0])
    st = _stage_at(msg, stages)
    what = STAGE_WORDS[st.algorithm] + (" (multimem)" if st.multimem else "")
    if st.max_bytes is not None:
        size = (f"{st.max_bytes / 2**20:g} MiB" if st.max_bytes % 2**16 == 0
                else f"{st.max_bytes:,.0f} B")  # fmt: skip
        what += f" up to {size}" + ("" if st.inclusive else " exclusive")
    table = (r.curves.allreduce or {}) if r.curves is not None else {}
    if st.algorithm == "nccl" and "nccl" in table and op.group in table["nccl"].segments:
        what += f", timed by curve allreduce.nccl ({table['nccl'].source})"
    own = _engine_allreduce(st, op.group, r)
    if own is not None:
        what += f", timed by its own curve allreduce@{st.curve} ({own.source})"
    return (f"; {r.engine or 'the engine'}'s release runs {what} for {msg:,.0f} B at "
            f"{op.group} GPUs (calc/deploy/parallel.py engine_route)")


def curve_note(name: str, r: Rates, op: Op | None = None) -> str:
    """What a curve's source line adds for the deployment: what the engine's expert-parallel
    all-gather moves, the engine's release scale on its own fused-MoE curve, the algorithm
    the release runs for an all-reduce of ``op``'s size ("" where none applies)."""
    if name.startswith(("allreduce.", "allreduce@")) and op is not None:
        return allreduce_note(op, r)
    if name == "gather.nccl":
        return "; " + (r.gather_note or GATHER_NOTE)
    out = ""
    if r.moe_runner is not None and name.startswith(f"moe@{r.engine}."):
        out = f"; MoE runner {r.moe_runner[0]}: {r.moe_runner[1]}"
    if r.moe_backend_fit is not None and name.startswith(f"moe@{r.engine}."):
        speedup, decay = r.moe_backend_fit
        out += (f"; × m^{decay:g} / {speedup:g} (m: rows per active expert) for the stated MoE "
               "backend against the curve's kernels (calc/deploy/moe_pipeline.py "
               "TRTLLM_BACKEND_SOURCE)")  # fmt: skip
    release = _release_scale(name, r)
    if release == 1.0:
        return out
    return (f"; × {release:g} for the engine's release (its MoE tables of that release over "
            "the curve's: calc/deploy/moe_pipeline.py TRTLLM_MOE_RELEASE_SCALE)") + out


def _least(times):
    out = times[0]
    for t in times[1:]:
        out = _minimum(out, t)
    return out


def _maximum(a, b):
    """The larger, element-wise for arrays: no curve time beats the op's speed of light."""
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return np.maximum(a, b)
    return max(a, b)


def _minimum(a, b):
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return np.minimum(a, b)
    return min(a, b)


def _where(cond, a, b):
    if hasattr(cond, "shape"):
        import numpy as np

        return np.where(cond, a, b)
    return a if cond else b


def op_time(op: Op, r: Rates):
    """Time of one op [s]: the op's kernel curve where the profile has one (``curve_time``),
    else the roofline for compute ops and the collective's time otherwise, plus the fixed cost
    of each of its kernels (a collective is one kernel)."""
    if r.curves is not None:
        t = curve_time(op, r)
        if t is not None:
            return t
    if op.kind == COMPUTE:
        if is_gemm(op):
            t = gemm_terms(op, r).time_s
        else:
            t = op_time_s(op.flops, op.bytes, flops_rate(op, r), r.bytes_per_s)
            if op.floor_s is not None and r.efficiency != "peak":  # its measured time
                t = _maximum(t, op.floor_s)
        return t + op.kernels * r.kernel_s if op.kernels and r.kernel_s else t
    if not op.count:  # no collective (the host-time op of a step calibration: timed there)
        return 0.0
    msg = op.bytes / op.count
    link = r.link or Link(r.link_bytes_per_s, r.link_latency_s)
    if op.kind == ALLREDUCE:
        one = allreduce_time_s(msg, op.group, link)
    elif op.kind == ALL_TO_ALL:
        one = all_to_all_time_s(msg, op.group, *link.crossing(op.group))
    else:
        one = p2p_time_s(msg, *link.crossing(op.group))
    return op.count * (one + r.kernel_s)
