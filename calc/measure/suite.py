"""Runs the measurement suite of one layer of a model and scores each kernel: measured time
[s] against the roofline prediction [s], achieved FLOP/s and bytes/s, fraction of peak, and
prediction error [%]. A kernel whose output misses its float64 reference is rejected.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from calc.data.calibration import Calibration
from calc.data.hardware_schema import HardwareProfile
from calc.data.model_schema import ModelConfig
from calc.errors import InvalidInputError, KvcalcError, not_one_of
from calc.formulas.roofline import is_compute_bound, op_time_s
from calc.measure import import_torch, kernels, shapes
from calc.measure.calibrate import build_calibration
from calc.measure.probe import cpu_profile
from calc.measure.reference import TOLERANCE, relative_error
from calc.measure.timing import Timing, n_buffers, quantile, time_runs

DEVICES = ("cpu", "cuda")
DTYPES = ("bf16", "fp16", "fp32")
QUICK_SCALE = 8  # widths and head counts divided by this on the CPU path (and --quick)
DEFAULTS = {  # (batches, ctxs) when none are given
    "cpu": ((1, 4), (256, 1024)),
    "cuda": ((1, 16, 64), (1024, 8192)),
}
PROBE_SIZES = {  # (square GEMM n, copy elements)
    "cpu": (1024, 16 * 2**20),
    "cuda": (8192, 256 * 2**20),
}
GEMM_M = {  # rows M of the small-M GEMM curve when none are given
    "cpu": (1, 2, 4, 8, 16, 32, 64),
    "cuda": (1, 2, 4, 8, 16, 32, 64, 128, 256),
}
# A measurement whose spread (p90 - p10) / median exceeds this [%] is too noisy to score: its
# runs disagree by more than half their median, so the machine was not steady (other work on
# it, clock changes) and an error of that size would be the machine's, not the model's.
# Judged only over MIN_SPREAD_REPEATS runs or more: the p10 and p90 of fewer are their extremes.
MAX_SPREAD_PCT = 50.0
MIN_SPREAD_REPEATS = 5


class MeasurementError(KvcalcError):
    """The measurement could not run (no CUDA device, a failed probe)."""


@dataclass
class Measurement:
    """What measuring one kernel produced."""

    kernel: kernels.Kernel
    status: str  # ok | rejected | error
    message: str = ""
    rel_error: float = float("nan")
    tolerance: float = float("nan")
    backend: str = ""
    timing: Timing | None = None
    n_buffers: int = 0
    peak_memory_bytes: float | None = None
    memory_source: str = ""


def default_device(torch) -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def _free(torch, env) -> None:
    if env.is_cuda:
        torch.cuda.empty_cache()


def measure_kernel(
    env: kernels.Env,
    kernel: kernels.Kernel,
    warmup: int,
    repeats: int,
    tolerance: float | None = None,
) -> Measurement:
    """Check ``kernel`` against its float64 reference on one input set, record the memory
    one set and one run take, then time it over rotated input sets (warm-up excluded).

    A kernel whose relative error exceeds the dtype's tolerance is timed but marked
    ``rejected``; one that raises (out of memory, unsupported shape) is marked ``error``.
    """
    torch = env.torch
    tol = TOLERANCE[env.dtype_name] if tolerance is None else tolerance
    m = Measurement(kernel, "error", tolerance=tol)
    try:
        if env.is_cuda:
            torch.cuda.synchronize(env.device)
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(env.device)
            base = torch.cuda.memory_allocated(env.device)
        first = kernel.make_inputs()
        out = kernel.run(first)
        if env.is_cuda:
            torch.cuda.synchronize(env.device)
            m.peak_memory_bytes = float(torch.cuda.max_memory_allocated(env.device) - base)
            m.memory_source = "torch.cuda.max_memory_allocated"
        else:
            m.peak_memory_bytes = float(kernels.nbytes(*first.values(), out))
            m.memory_source = "tensor bytes (cpu)"
        m.backend = kernel.backend(first)
        ref = kernel.reference(first)
        m.rel_error = relative_error(torch, out, ref)
        del ref, out
        set_bytes = kernels.nbytes(*first.values())
        m.n_buffers = n_buffers(set_bytes)
        sets = [first] + [kernel.make_inputs() for _ in range(m.n_buffers - 1)]
        m.timing = time_runs(
            torch, kernel.run, sets, env.device, warmup, repeats, queued=kernel.queued
        )
        if kernel.n_kernels > 1:  # per kernel of the chain
            m.timing = m.timing.per(kernel.n_kernels)
        del sets, first
    except Exception as exc:  # a kernel that cannot run at this shape is a row, not a crash
        m.status, m.message = "error", f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        _free(torch, env)
        return m
    _free(torch, env)
    if m.rel_error <= tol:
        m.status = "ok"
    else:
        m.status = "rejected"
        m.message = f"output differs from float64 reference: {m.rel_error:.3g} > {tol:g}"
    return m


def too_noisy(timing: Timing | None, max_spread_pct: float = MAX_SPREAD_PCT) -> bool:
    """Whether ``timing`` is too spread to score: (p90 - p10) / median above
    ``max_spread_pct`` [%] over at least MIN_SPREAD_REPEATS runs."""
    if timing is None or len(timing.samples_s) < MIN_SPREAD_REPEATS:
        return False
    return (timing.p90_s - timing.p10_s) / timing.median_s * 100 > max_spread_pct


def row(
    m: Measurement,
    hw: HardwareProfile,
    dtype: str,
    scale: int,
    max_spread_pct: float = MAX_SPREAD_PCT,
) -> dict:
    """One report row: shape, prediction, measurement and their comparison (base units).

    A row too noisy to score (``too_noisy``) keeps its times but has no error_pct."""
    k = m.kernel
    peak = hw.peak_flops_per_s[dtype]
    bw = hw.hbm_bandwidth_bytes_per_s
    eff_flops = peak * hw.efficiency.matmul.expected
    eff_bw = bw * hw.efficiency.memory.expected
    predicted = op_time_s(k.flops, k.bytes_moved, eff_flops, eff_bw)
    if k.kernel == "kernel_overhead":  # one tiny kernel: the profile's fixed cost (None: 0)
        predicted += hw.kernel_overhead_s or 0.0
    bound = "compute" if is_compute_bound(k.flops, k.bytes_moved, eff_flops, eff_bw) else "memory"
    r = {
        "kernel": k.kernel,
        "variant": k.variant,
        "backend": m.backend,
        "shape": k.shape,
        "batch": k.batch,
        "ctx": k.ctx,
        "dtype": dtype,
        "scale": scale,
        "status": m.status,
        "message": m.message,
        "flops": k.flops,
        "moved_bytes": k.bytes_moved,
        "intensity": k.flops / k.bytes_moved,
        "bound": bound,
        "predicted_s": predicted,
        "measured_median_s": None,
        "measured_p10_s": None,
        "measured_p90_s": None,
        "spread_pct": None,
        "too_noisy": too_noisy(m.timing, max_spread_pct),
        "achieved_flops_per_s": None,
        "achieved_bytes_per_s": None,
        "flops_fraction": None,
        "bandwidth_fraction": None,
        "fraction_of_peak": None,
        "error_pct": None,
        "rel_error": m.rel_error,
        "tolerance": m.tolerance,
        "predicted_kv_bytes": k.kv_bytes,
        "predicted_activation_bytes": k.activation_bytes,
        "predicted_weight_bytes": k.weight_bytes,
        "predicted_memory_bytes": k.kv_bytes + k.activation_bytes + k.weight_bytes,
        "peak_memory_bytes": m.peak_memory_bytes,
        "memory_source": m.memory_source,
        "n_buffers": m.n_buffers,
        "repeats": len(m.timing.samples_s) if m.timing else 0,
        "clock": m.timing.clock if m.timing else "",
    }
    if m.timing is not None:
        t = m.timing
        med = t.median_s
        flops_s, bytes_s = k.flops / med, k.bytes_moved / med
        r.update(
            measured_median_s=med,
            measured_p10_s=t.p10_s,
            measured_p90_s=t.p90_s,
            spread_pct=(t.p90_s - t.p10_s) / med * 100,
            achieved_flops_per_s=flops_s,
            achieved_bytes_per_s=bytes_s,
            flops_fraction=flops_s / peak,
            bandwidth_fraction=bytes_s / bw,
            fraction_of_peak=flops_s / peak if bound == "compute" else bytes_s / bw,
            error_pct=None if r["too_noisy"] else (predicted - med) / med * 100,
        )
    return r


@dataclass
class SuiteReport:
    """Everything one `kvcalc measure` run produced."""

    model: str
    device: str
    device_name: str
    dtype: str
    scale: int
    hardware: HardwareProfile
    probed: bool
    rows: list[dict] = field(default_factory=list)
    torch_version: str = ""
    max_spread_pct: float = MAX_SPREAD_PCT

    def calibration(self) -> Calibration:
        """What these rows calibrate (see calc.measure.calibrate), recording the model and
        dtype measured (calc.deploy.calibration_match warns where a command's differ)."""
        hw = self.hardware
        cal = build_calibration(
            self.rows,
            hardware=hw.name,
            device=self.device_name,
            fallback_matmul=hw.efficiency.matmul,
            fallback_memory=hw.efficiency.memory,
        )
        return cal.model_copy(update={"model": self.model, "dtype": self.dtype})

    def fields(self) -> dict:
        hw = self.hardware
        cal = self.calibration()
        overhead = {
            v: next((r["measured_median_s"] for r in self.rows
                     if r["kernel"] == "kernel_overhead" and r["variant"] == v), None)
            for v in ("eager", "cuda_graph")
        }  # fmt: skip
        return {
            "model": self.model,
            "hardware": hw.name,
            "device": self.device,
            "device_name": self.device_name,
            "torch_version": self.torch_version,
            "dtype": self.dtype,
            "scale": self.scale,
            "peak_flops_per_s": hw.peak_flops_per_s[self.dtype],
            "peak_bytes_per_s": hw.hbm_bandwidth_bytes_per_s,
            "matmul_efficiency": hw.efficiency.matmul.expected,
            "memory_efficiency": hw.efficiency.memory.expected,
            "profile_probed": self.probed,
            "n_rejected": sum(r["status"] == "rejected" for r in self.rows),
            "n_errors": sum(r["status"] == "error" for r in self.rows),
            "max_spread_pct": self.max_spread_pct,
            "n_too_noisy": sum(bool(r["too_noisy"]) for r in self.rows),
            **error_statistics(self.rows, self.probed),
            "kernel_overhead_eager_s": overhead["eager"],
            "kernel_overhead_graph_s": overhead["cuda_graph"],
            "calibration_kernel_overhead_s": cal.kernel_overhead_s,
            "calibration_gemm_m_curve": [
                {"m": p.m, "slowdown": p.slowdown} for p in cal.gemm_m_curve or []
            ],
            "rows": self.rows,
        }


def error_statistics(rows: Sequence[dict], probed: bool) -> dict:
    """Median signed and absolute error_pct [%] over the scored rows: status ok, not too
    noisy, not a kernel_overhead row (it times the fixed cost itself), and not a probe when
    the profile was probed from it (its error is 0 by construction). None without any."""
    skip = {"kernel_overhead"} | ({"probe_gemm", "probe_copy"} if probed else set())
    errors = [
        r["error_pct"]
        for r in rows
        if r["status"] == "ok" and r["error_pct"] is not None and r["kernel"] not in skip
    ]
    return {
        "n_scored": len(errors),
        "median_error_pct": quantile(errors, 0.5) if errors else None,
        "median_abs_error_pct": quantile([abs(e) for e in errors], 0.5) if errors else None,
    }


def plan(
    env: kernels.Env,
    cfg: ModelConfig,
    batches: Sequence[int],
    ctxs: Sequence[int],
    probe_sizes: tuple[int, int],
    gemm_ms: Sequence[int] = (),
) -> list[kernels.Kernel]:
    """The kernels of one (already scaled) layer of ``cfg``: the probes first, then the fixed
    cost of one kernel (eager; also a CUDA-graph replay on CUDA), attention, the decode GEMMs
    and last the small-M GEMM curve (every GEMM shape at each M of ``gemm_ms``)."""
    gemm_n, copy_n = probe_sizes
    ks = [kernels.probe_gemm(env, gemm_n), kernels.probe_copy(env, copy_n)]
    ks.append(kernels.kernel_chain(env))
    if env.is_cuda:
        ks.append(kernels.kernel_chain(env, graph=True))
    if cfg.mla is not None:
        m = cfg.mla
        prefill_heads = (
            cfg.n_heads,
            cfg.n_heads,
            m.qk_nope_head_dim + m.qk_rope_head_dim,
            m.v_head_dim,
        )  # the decompressed (non-absorbed) prefill form
    else:
        prefill_heads = (cfg.n_heads, cfg.n_kv_heads, cfg.k_head_dim, cfg.v_head_dim)
    for ctx in ctxs:
        ks.append(kernels.prefill_attention(env, 1, ctx, *prefill_heads))
    extras = kernels.optional_packages() if env.is_cuda and env.dtype_name != "fp32" else []
    for kind in shapes.decode_variants(cfg):
        layout = shapes.layout_for(cfg, kind)
        for batch in batches:
            for ctx in ctxs:
                if kind == "mla":
                    m = cfg.mla
                    ks.append(
                        kernels.mla_decode(
                            env, layout, batch, ctx, m.qk_nope_head_dim, m.v_head_dim
                        )
                    )
                    continue
                ks.append(kernels.decode_attention(env, layout, batch, ctx))
                if kind == cfg.attention:
                    ks.append(kernels.paged_decode(env, layout, batch, ctx))
                    if "flash_attn" in extras:
                        ks.append(kernels.flash_attn_decode(env, layout, batch, ctx))
                    if "flashinfer" in extras and batch == 1:
                        ks.append(kernels.flashinfer_decode(env, layout, ctx))
    for batch in batches:
        for name, k, n in shapes.gemm_shapes(cfg):
            ks.append(kernels.gemm(env, name, batch, k, n))
    for m_rows in gemm_ms:
        for name, k, n in shapes.gemm_shapes(cfg):
            ks.append(kernels.gemm(env, name, m_rows, k, n, kernel="gemm_m"))
    return ks


def check_sizes(
    batches: Sequence[int],
    ctxs: Sequence[int],
    repeats: int,
    warmup: int,
    gemm_ms: Sequence[int] = (),
    max_spread_pct: float = MAX_SPREAD_PCT,
) -> None:
    for flag, values, upper in (
        ("--batch", batches, 4096),
        ("--ctx", ctxs, 1_048_576),
        ("--gemm-m", gemm_ms, 4096),
    ):
        for v in values:
            if not 0 < v <= upper:
                raise InvalidInputError(f"{flag} {v} must be in 1..{upper:,}")
    if not 1 <= repeats <= 10_000:
        raise InvalidInputError(f"--repeats {repeats} must be in 1..10,000")
    if not 0 <= warmup <= 10_000:
        raise InvalidInputError(f"--warmup {warmup} must be in 0..10,000")
    if not 0 < max_spread_pct <= 10_000:  # also false for NaN
        raise InvalidInputError(f"--max-spread {max_spread_pct:g} must be in (0, 10,000] %")


def _check_device(torch, device: str, dtype: str | None, hardware) -> str:
    """The dtype to measure in (bf16 on CUDA, fp32 on the CPU unless given), after checking
    the device, its availability and the profile's peak for it."""
    if device not in DEVICES:
        raise InvalidInputError(not_one_of("--device", device, DEVICES))
    if device == "cuda" and hardware is None:
        raise InvalidInputError(
            "--device cuda needs --hardware (the profile to predict with), e.g. --hardware h100"
        )
    if device == "cuda" and not torch.cuda.is_available():
        raise MeasurementError(
            "--device cuda: torch sees no CUDA device (torch "
            f"{torch.__version__}); use --device cpu or a CUDA build of torch"
        )
    dtype = dtype or ("bf16" if device == "cuda" else "fp32")
    if dtype not in DTYPES:
        raise InvalidInputError(not_one_of("--dtype", dtype, DTYPES))
    if hardware is not None and dtype not in hardware.peak_flops_per_s:
        raise InvalidInputError(f"hardware {hardware.name} has no {dtype} peak; pick --dtype")
    return dtype


def _probed_profile(torch, measured: list, dtype: str) -> HardwareProfile:
    """The CPU's 'cpu-probe' profile from the two probe rows (a GEMM and a copy)."""
    gemm_m, copy_m = measured[0], measured[1]
    for pm in (gemm_m, copy_m):
        if pm.status != "ok" or pm.timing is None:
            raise MeasurementError(f"probe {pm.kernel.kernel} failed: {pm.message}")
    return cpu_profile(
        gemm_m.kernel.flops / gemm_m.timing.median_s,
        copy_m.kernel.bytes_moved / copy_m.timing.median_s,
        dtype,
        torch.get_num_threads(),
    )


def run_suite(
    cfg: ModelConfig,
    *,
    hardware: HardwareProfile | None,
    device: str | None = None,
    dtype: str | None = None,
    batches: Sequence[int] = (),
    ctxs: Sequence[int] = (),
    repeats: int = 20,
    warmup: int = 3,
    quick: bool = False,
    probe_sizes: tuple[int, int] | None = None,
    progress: Callable[[str], None] | None = None,
    seed: int = 0,
    gemm_ms: Sequence[int] = (),
    max_spread_pct: float = MAX_SPREAD_PCT,
) -> SuiteReport:
    """Measure one layer of ``cfg`` and score it against ``hardware`` (on the CPU path
    against a 'cpu-probe' profile built from the probe rows, whatever ``hardware`` is)."""
    torch = import_torch()
    device = device or default_device(torch)
    dtype = _check_device(torch, device, dtype, hardware)
    default_b, default_c = DEFAULTS[device]
    batches, ctxs = list(batches or default_b), list(ctxs or default_c)
    gemm_ms = sorted(set(gemm_ms or GEMM_M[device]))
    check_sizes(batches, ctxs, repeats, warmup, gemm_ms, max_spread_pct)
    probe_hw = device == "cpu"
    scale = QUICK_SCALE if (quick or device == "cpu") else 1
    env = kernels.Env(torch, device, dtype, seed)
    if device == "cpu":
        device_name = f"cpu ({torch.get_num_threads()} threads)"
    else:
        device_name = torch.cuda.get_device_name(env.device)
    layer = shapes.scaled_model(cfg, scale)
    ks = plan(env, layer, batches, ctxs, probe_sizes or PROBE_SIZES[device], gemm_ms)
    measured = []
    for i, k in enumerate(ks, 1):
        if progress is not None:
            progress(f"[{i}/{len(ks)}] {k.kernel} {k.variant} {k.shape}")
        measured.append(measure_kernel(env, k, warmup, repeats))
    hw = _probed_profile(torch, measured, dtype) if probe_hw else hardware
    report = SuiteReport(
        cfg.name,
        device,
        device_name,
        dtype,
        scale,
        hw,
        probe_hw,
        torch_version=str(torch.__version__),
        max_spread_pct=max_spread_pct,
    )
    report.rows = [row(m, hw, dtype, scale, max_spread_pct) for m in measured]
    return report


def stderr_progress(message: str) -> None:
    sys.stderr.write(f"kvcalc: measuring {message}\n")
    sys.stderr.flush()
