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
  loop keeps such kernels from reaching a plain GEMV's bandwidth).
- **grouped GEMMs** (MoE routed experts): both rates × ``efficiency.grouped_gemm``.

None of these applies at ``peak`` (the speed of light).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from calc.data.hardware_schema import Band, HardwareProfile
from calc.deploy.ops import ALL_TO_ALL, ALLREDUCE, COMPUTE, Op
from calc.deploy.parallel import Link, all_to_all_time_s, allreduce_time_s, p2p_time_s
from calc.errors import InvalidInputError
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
            f"efficiency {efficiency!r} is not one of: {', '.join(EFFICIENCIES)}"
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


def rates(
    hw: HardwareProfile,
    dtype: str,
    efficiency: str,
    linear_fmt: str | None = None,
    custom_allreduce: bool = False,
) -> Rates:
    """The rates of ``hw`` computing its linear layers (format ``linear_fmt``) in ``dtype``;
    ``custom_allreduce``: the engine's own all-reduce kernels run inside an NVLink domain."""
    m, b = efficiencies(hw, efficiency)  # attention and CUDA-core work: the 16-bit band
    m_gemm = efficiencies(hw, efficiency, dtype)[0]
    attn = dtype if dtype in ("bf16", "fp16", "fp32", "tf32") else "bf16"
    peaks = hw.peak_flops_per_s
    real = efficiency != "peak"  # the speed of light pays no kernel inefficiency
    e = hw.efficiency
    curve = hw.gemm_m_curve if real else None
    return Rates(
        peaks[dtype] * m_gemm,
        hw.hbm_bandwidth_bytes_per_s * b,
        hw.interconnect_bandwidth_bytes_per_s,
        hw.interconnect_latency_s,
        peaks[attn] * m,
        peaks.get("fp32", peaks[attn]) * m,
        (hw.kernel_overhead_s or 0.0) if real else 0.0,
        link_of(hw, custom_allreduce),
        linear_fmt,
        {d: p * efficiencies(hw, efficiency, d)[0] for d, p in peaks.items()},
        dict(e.weight_only or {}) if real else {},
        (e.grouped_gemm or 1.0) if real else 1.0,
        hw.gemm_tile_m if real else None,
        None if not curve else tuple((math.log(p.m), p.slowdown) for p in curve),
        dtype,
    )


def link_of(hw: HardwareProfile, custom_allreduce: bool = False) -> Link:
    """The collectives' links of ``hw``: NVLink/xGMI within its scale-up domain, its scale-out
    network beyond (when the profile gives them); ``custom_allreduce``: the engine's own
    all-reduce kernels may run inside the domain (NVLS where the switch multicasts)."""
    out = hw.scale_out
    return Link(
        hw.interconnect_bandwidth_bytes_per_s,
        hw.interconnect_latency_s,
        hw.scale_up_domain_gpus,
        None if out is None else out.bandwidth_bytes_per_s,
        None if out is None else out.latency_s,
        custom_allreduce,
        bool(hw.scale_up_multicast),
    )


def flops_rate(op: Op, r: Rates) -> float:
    if op.vector:
        return r.vector_flops_per_s
    return r.attention_flops_per_s if op.attention else r.flops_per_s


def weight_only_family(fmt: str | None) -> str | None:
    """The weight-only kernel family of a weight format: "int8", "int4" (4-bit integer and
    4-bit float formats dequantised to bf16 alike), None for a plain or fp8 format."""
    if fmt is None:
        return None
    if fmt.startswith("int8"):
        return "int8"
    if fmt.startswith(("int4", "fp4", "mxfp4", "nvfp4")):
        return "int4"
    return None


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


def gemm_terms(op: Op, r: Rates) -> GemmTerms:
    """The terms of a GEMM over weights (``op.fmt`` set; see the module docstring)."""
    own = op.fmt == r.linear_fmt or not r.gemm_flops_per_s
    dt = r.dtype if own else compute_dtype(op.fmt, r.gemm_flops_per_s)
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


def op_time(op: Op, r: Rates):
    """Time of one op [s]: the roofline for compute ops, the collective's time otherwise, plus
    the fixed cost of each of its kernels (a collective is one kernel)."""
    if op.kind == COMPUTE:
        if is_gemm(op):
            t = gemm_terms(op, r).time_s
        else:
            t = op_time_s(op.flops, op.bytes, flops_rate(op, r), r.bytes_per_s)
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
