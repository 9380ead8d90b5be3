"""One forward pass of a deployment on one GPU [s, FLOP, bytes]: a decode step (TPOT), a prefill
(TTFT) and the decode steps of a generation, from the per-op FLOPs and bytes of ``calc.deploy.ops``
at the rates of ``calc.deploy.rates``.

Each op takes max(FLOPs / achievable FLOP/s, bytes / achievable bytes/s)
(``calc.formulas.roofline``);
a step is the sum over its ops (kernels run one after another; no overlap is assumed, so
communication adds to compute). Each op also pays the profile's fixed cost per kernel
(``kernel_overhead_s``: the CUDA-graph replay gap and each kernel's ramp-up and tail) for each
kernel it stands for (``Op.kernels``); a collective is one kernel. Collectives take the times
of ``calc.deploy.parallel`` (the all-reduce by NCCL's protocol cost model).

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

Quantised formats with scales (``calc.formulas.quant``) move their exact bytes, scales included
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
from functools import cache, cached_property
from typing import Any, TypedDict, Unpack

from calc.data.hardware_schema import HardwareProfile
from calc.data.limits import MAX_BATCH, MAX_CTX, check_positive_int
from calc.data.model_schema import ModelConfig
from calc.deploy.deployment import Deployment
from calc.deploy.moe_pipeline import ep_comm_of
from calc.deploy.ops import COMPUTE, Op, Sizes, forward_ops
from calc.deploy.rates import (
    Rates,
    activation_bytes_per_element,
    check_efficiency,
    flops_rate,
    gemm_terms,
    is_gemm,
    op_time,
    rates,
)
from calc.deploy.step_calibration import calibrated
from calc.errors import InvalidInputError
from calc.formulas.cuda_graphs import captured_batch_sizes, padded_batch  # noqa: F401
from calc.formulas.roofline import arithmetic_intensity, is_compute_bound
from calc.output.derivation import whole

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
    calibration: Any = None  # the hardware's StepCalibration applied (calc.deploy.step_calibration)
    # the engine's attention-kernel adjustments applied to this step (``AttentionKernels``), or
    # None: every attention op at its roofline (``--explain`` states them)
    attention_kernels: Any = None


@dataclass(frozen=True)
class AttentionKernels:
    """What a step's attention kernels add to their roofline: the decode walk (seconds per
    tile, keys per tile step) and the prefill multiple [×], each None where not applied, and
    where each figure comes from."""

    walk: Any = None
    prefill_scale: float | None = None
    walk_source: str = ""
    prefill_source: str = ""


@dataclass(frozen=True)
class OpSetup:
    cfg: ModelConfig
    sharding: Any
    layout: Any
    sizes: Sizes
    dtype: str
    weight_dtype: str
    kv_dtype: str
    custom_allreduce: bool = False
    moe_imbalance: float = 1.0
    moe_kernels: int | None = None  # kernels of one MoE layer (calc.deploy.moe_pipeline)
    # of those, the ones the engine's own measured fused-MoE curve leaves out (its routing)
    moe_outside_curve: int = 0
    engine: str | None = None  # the serving engine (its scale on the attention curves)
    # expert-parallel traffic ("gather", "deepep", "mnnvl") and the all-gather's bytes per element
    moe_comm: str = "deepep"
    gather_bytes: float | None = None
    # the engine's release against the tables its own fused-MoE curve is fitted to [×]
    moe_release_scale: float = 1.0
    gather_note: str = ""  # what the all-gather moves, in words (MoePipeline.gather_source)
    # the release's declared all-reduce choice by size (calc.deploy.parallel.engine_route)
    allreduce_route: Any = None
    # the stated MoE backend against the kernels the engine's own fused-MoE curve times:
    # (speed-up, decay) (calc.deploy.moe_pipeline.MoePipeline.backend_speedup); None: as timed
    moe_backend_fit: Any = None
    # (seconds per tile, keys per tile step) of a decode attention kernel bound by its serial
    # walk over the keys (the engine's ``attention_walk`` for its ROCm kernels on an AMD GPU);
    # None: attention at its roofline
    attention_walk: Any = None
    # the time of a prefill attention kernel against its roofline [×] (the engine's
    # ``prefill_attention_scale`` for its ROCm kernels on an AMD GPU); None: the roofline
    prefill_attention_scale: Any = None
    # (walk source, prefill-multiple source) of those two (the engine's
    # ``attention_kernel_sources``), or None
    attention_sources: Any = None
    # kernels the shared experts of one MoE layer launch beyond an FFN's (the engine's eager MoE
    # op: calc.deploy.moe_pipeline.MoePipeline.shared_extra_kernels)
    shared_extra_kernels: int = 0
    # the engine's fused-MoE runner for the routed experts (``Engine.moe_runner``: SGLang's
    # --moe-runner-backend, vLLM's --moe-backend); None: the engine's own curve as it is
    moe_runner: Any = None
    # the bytes those kernels move per element of the shared experts' input and intermediate
    # (calc.deploy.moe_pipeline.MoePipeline.shared_extra_bytes)
    shared_extra_bytes: tuple = (0.0, 0.0)
    # the engine's own MoE curve key of the backend it runs these experts on, tried before the
    # format's (``MoeRunner.curve`` of ``Engine.moe_runner``); None: the format's
    moe_curve_key: str | None = None

    @cached_property
    def rates_made(self) -> dict:
        """(id(hw), efficiency) -> (hw, the Rates formed for it): ``_rates_of``'s memo."""
        return {}


def op_setup(dep: Deployment) -> OpSetup:
    """The op-level view of a deployment: its sharding, layout, bytes per element and the
    compute dtype, all resolved by ``Deployment`` (no re-resolution here); built once per
    deployment (kept in ``Deployment.derived``: a function of its frozen fields alone), however
    many steps are asked of it."""
    derived = dep.derived
    st = derived.get("op_setup")
    if st is None:
        st = derived["op_setup"] = _build_op_setup(dep)
    return st


def _build_op_setup(dep: Deployment) -> OpSetup:
    """``op_setup`` built afresh."""
    dtype = dep.compute_dtype
    sizes = Sizes(
        dep.weight_bytes_per_element,
        dep.kv_bytes_per_element,
        activation_bytes_per_element(dtype),
        dep.state_bytes_per_element,
        dep.weight_bytes_per_element_by_component,
        dep.weight_dtypes,
    )
    moe, outside, shared, shared_bytes = None, 0, 0, (0.0, 0.0)
    comm, gather, release, note, backend = "deepep", None, 1.0, "", None
    # the engine's rule for the routed experts' kernels, and the curve that times them
    runner = dep.engine_model.moe_runner(dep) if dep.model.moe is not None else None
    if dep.model.moe is not None:
        pipe = dep.engine_model.moe
        fmt = dep.weight_dtypes.get("routed_experts")
        ec = dep.engine_config  # the release asked for (a 1.3 build is measured as is)
        asked = ec.version_asked or ec.version
        moe = pipe.kernels_for(fmt, asked)
        outside = pipe.outside_curve(fmt, asked)
        shared = pipe.shared_extra_kernels(dep.weight_dtypes.get("shared_experts"), asked)
        release = pipe.scale_at(asked)
        domain = dep.hardware.scale_up_domain_gpus if dep.hardware is not None else None
        comm = ep_comm_of(pipe, domain, dep.engine.moe_a2a)
        m = dep.model
        gather = pipe.gather_bytes_per_element(fmt, m.d_model, m.moe.experts_per_token)
        note = pipe.gather_source
        backend = pipe.backend_speedup(dep.engine.moe_backend, fmt)
        shared_bytes = pipe.shared_extra_bytes(dep.weight_dtypes.get("shared_experts"),
                                               m.ffn_kind == "gated", asked)  # fmt: skip
    return OpSetup(
        dep.model,
        dep.sharding,
        dep.layout,
        sizes,
        dtype,
        dep.weight_dtype,
        dep.kv_dtype,
        dep.custom_allreduce,
        dep.moe_imbalance,
        moe,
        outside,
        dep.engine.name,
        comm,
        gather,
        release,
        note,
        _allreduce_route(dep),
        backend,
        _attention_walk(dep),
        dep.engine_model.prefill_attention_scale(dep.engine_config.rocm_kernels),
        dep.engine_model.attention_kernel_sources(dep.engine_config.rocm_kernels),
        shared,
        runner,
        shared_bytes,
        runner.curve if runner is not None else None,
    )


def _attention_walk(dep: Deployment):
    """The serial walk of ``dep``'s decode attention kernel (the engine's ``attention_walk``
    for its resolved ``rocm_kernels``: None off AMD GPUs, where none is resolved or stated)."""
    return dep.engine_model.attention_walk(dep.engine_config.rocm_kernels)


def _allreduce_route(dep: Deployment):
    """The engine release's all-reduce choice by message size on ``dep``'s GPU (None: the
    engine declares none, or NCCL alone)."""
    if dep.hardware is None or not dep.custom_allreduce:
        return None
    from calc.deploy.engines.gpus import compute_capability

    rocm = str(getattr(dep.hardware, "vendor", "")).upper() == "AMD"
    return _release_route(dep.engine.name, dep.engine_config.version,
                          compute_capability(dep.hardware), rocm)  # fmt: skip


@cache
def _release_route(engine: str, version: str, capability, rocm: bool):
    """``engine_route`` of the release ``version`` of ``engine`` on a GPU of ``capability``
    (a function of those alone: the release's rules are data), formed once per key."""
    from calc.deploy.engines import engine as engine_of
    from calc.deploy.parallel import engine_route

    return engine_route(engine_of(engine).rules(version), capability, rocm)


def _bound(op: Op, r: Rates) -> str:
    if op.kind != COMPUTE:
        return "network"
    if is_gemm(op):  # its own format's rate, padded rows, weight-only streaming
        g = gemm_terms(op, r)
        return (
            "compute"
            if is_compute_bound(g.flops, g.bytes, g.flops_per_s, g.bytes_per_s)
            else "memory"
        )
    if is_compute_bound(op.flops, op.bytes, flops_rate(op, r), r.bytes_per_s):
        return "compute"
    return "memory"


def _step(st: OpSetup, hw, efficiency, raw: list[Op]) -> Step:
    """The step of ``raw`` ops: with ``hw`` each op's roofline time and bound, else FLOPs and
    bytes only (times and bounds None)."""
    flops = sum(op.flops for op in raw)
    moved = sum(op.bytes for op in raw if op.kind == COMPUTE)
    r = _rates_of(st, hw, efficiency) if hw is not None else None
    times = [op_time(op, r) for op in raw] if r is not None else [None] * len(raw)
    kernels = _attention_kernels(st, efficiency) if r is not None else None
    if kernels is not None and kernels.walk is not None:
        times = walk_bound(raw, times, *kernels.walk)
    if kernels is not None and kernels.prefill_scale is not None:
        times = prefill_scaled(raw, times, kernels.prefill_scale)
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
    cal = hw.step_calibration if r is not None else None
    if cal is not None:  # op-class multipliers, host times
        raw, times, timings = calibrated(raw, times, timings, cal)
    total = sum(times) if r is not None else None
    return Step(total, flops, moved, timings, efficiency, st.dtype, r, raw, cal, kernels)


def _rates_of(st: OpSetup, hw, efficiency: str) -> Rates:
    """The rates ``st``'s ops run at on ``hw`` at ``efficiency``, formed once per (hw,
    efficiency) for a setup (``OpSetup.rates_made``; a deployment asks for many steps)."""
    made = st.rates_made
    key = (id(hw), efficiency)
    hit = made.get(key)
    if hit is not None and hit[0] is hw:
        return hit[1]
    r = rates(hw, st.dtype, efficiency, st.weight_dtype, st.custom_allreduce, st.kv_dtype,
              st.engine, st.moe_release_scale, st.allreduce_route)  # fmt: skip
    if st.gather_note:
        r = replace(r, gather_note=st.gather_note)
    if st.moe_backend_fit is not None:
        r = replace(r, moe_backend_fit=st.moe_backend_fit)
    if st.moe_runner is not None:
        r = replace(r, moe_runner=st.moe_runner)
    if st.moe_curve_key is not None:
        r = replace(r, moe_curve_key=st.moe_curve_key)
    made[key] = (hw, r)
    return r


def _attention_kernels(st: OpSetup, efficiency: str) -> AttentionKernels | None:
    """The attention-kernel adjustments ``st`` carries that apply at ``efficiency`` (the walk
    and the prefill multiple at WALK_EFFICIENCIES only), or None."""
    if efficiency not in WALK_EFFICIENCIES or (
        st.attention_walk is None and st.prefill_attention_scale is None
    ):
        return None
    walk_src, prefill_src = st.attention_sources or ("", "")
    return AttentionKernels(st.attention_walk, st.prefill_attention_scale, walk_src, prefill_src)


# the bands a serial-walk-bound attention kernel is timed by its walk at: not at ``high`` (a
# Triton-written kernel at its best runs as fast as AMD's tuned one: vLLM's ROCm attention blog,
# AITER's own Triton unified kernel at 0.94-1.06 x ROCM_AITER_FA's TPOT) nor at ``peak``
WALK_EFFICIENCIES = ("low", "expected")


def walk_bound(raw: list[Op], times: list, tile_s: float, keys_per_tile: float) -> list:
    """``times`` with each decode attention kernel (an ``attn_scores`` op and the
    ``attn_values`` op after it, both carrying ``Op.keys``) taking at least its serial walk
    [s]: keys / keys_per_tile tiles of tile_s each, the length of one workgroup's walk over
    its share of every layer's keys (calc.deploy.engines.vllm.rocm_attention). The excess over
    the pair's roofline goes to the scores op. Arrays broadcast."""
    import numpy as np

    out = list(times)
    for i, op in enumerate(raw[:-1]):
        if op.name != "attn_scores" or op.keys is None or raw[i + 1].name != "attn_values":
            continue
        walk = tile_s * op.keys / keys_per_tile
        both = out[i] + out[i + 1]
        extra = np.maximum(walk - both, 0.0)
        out[i] = out[i] + (extra if hasattr(extra, "shape") and extra.shape else float(extra))
    return out


def prefill_scaled(raw: list[Op], times: list, scale: float) -> list:
    """``times`` with each GQA prefill attention op (``Op.attention`` with a ``prompt``,
    ``attn_kind`` "gqa": the unified kernel's prefill; MLA's prefill is another kernel) ``scale``
    times as long [s] (calc.deploy.engines.vllm.rocm_attention.TRITON_PREFILL_SCALE)."""
    return [t * scale if op.attention and op.prompt is not None and op.attn_kind == "gqa" else t
            for op, t in zip(raw, times, strict=True)]  # fmt: skip


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
    st = op_setup(dep)
    raw = forward_ops(
        dep.model,
        st.sharding,
        st.layout,
        st.sizes,
        imbalance=st.moe_imbalance,
        moe_kernels=st.moe_kernels,
        moe_outside_curve=st.moe_outside_curve,
        shared_extra_kernels=st.shared_extra_kernels,
        shared_extra_bytes=st.shared_extra_bytes,
        moe_comm=st.moe_comm,
        gather_bytes=st.gather_bytes,
        **counts,
    )
    return _step(st, dep.hardware, efficiency, raw)


class StepDeployment(TypedDict, total=False):
    """The deployment keywords of ``decode_step`` and ``prefill``: ``Deployment.build``'s, with
    its defaults (the formats as released, tp = pp = ep = 1), ``compute`` its compute_dtype."""

    weight_dtype: str | None
    kv_dtype: str | None
    tp: int
    pp: int
    ep: int
    compute: str | None


def _keyword_step(cfg, hw, efficiency, deploy: StepDeployment, **counts) -> Step:
    """The step of the deployment given by keywords; ``counts`` are checked whole numbers or
    arrays of them."""
    counts = {k: _check_counts(k, v, MAX_BATCH if k == "batch" else MAX_CTX)
              for k, v in counts.items()}  # fmt: skip
    build = {("compute_dtype" if k == "compute" else k): v for k, v in deploy.items()}
    return step_of(Deployment.build(cfg, hw, **build), efficiency, **counts)


def decode_step(
    cfg: ModelConfig,
    hw: HardwareProfile | None,
    *,
    batch,
    ctx,
    efficiency: str = "expected",
    **deploy: Unpack[StepDeployment],
) -> Step:
    """One decode step of ``batch`` sequences at context ``ctx`` on one GPU of the deployment.

    ``.time_s`` is the TPOT [s] (None without hardware), ``.flops`` and ``.bytes`` the step's
    FLOPs and HBM bytes per GPU, ``.ops`` each op's figures.
    """
    return _keyword_step(cfg, hw, efficiency, deploy, batch=batch, ctx=ctx)


def prefill(
    cfg: ModelConfig,
    hw: HardwareProfile | None,
    *,
    prompt,
    batch,
    efficiency: str = "expected",
    **deploy: Unpack[StepDeployment],
) -> Step:
    """The prefill of ``batch`` prompts of ``prompt`` tokens on one GPU: ``.time_s`` = TTFT."""
    return _keyword_step(cfg, hw, efficiency, deploy, batch=batch, prompt=prompt)


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


def padded_decode_s(dep: Deployment, efficiency: str = "expected", *, batch, padded, ctx):
    """A decode step of ``batch`` sequences replayed in the graph of ``padded`` sequences [s]:
    every op but attention at the padded batch (the dummy requests' tokens go through the
    GEMMs, the MoE layer and the collectives), attention at the real one (the dummies hold one
    cached token each; their attention is left out)."""
    import numpy as np

    real = step_of(dep, efficiency, batch=batch, ctx=ctx)
    if np.all(np.asarray(padded) == np.asarray(batch)):
        return real.time_s
    pad = step_of(dep, efficiency, batch=padded, ctx=ctx)
    return pad.time_s - _attention_s(pad) + _attention_s(real)


def _attention_s(step: Step):
    """The time of a step's attention ops [s]."""
    return sum(t.time_s for op, t in zip(step.raw, step.ops, strict=True) if op.attention)
