"""The output fields of ``kvcalc simulate``: one simulation's figures, or the latency-vs-rate
curve's rows (the registered names of ``calc.output.names``). No new quantity is computed here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from calc.deploy.deployment import Deployment
from calc.output.result import Report
from calc.serve.curve import LatencyCurve
from calc.serve.simulate import SimResult
from calc.serve.workload import LoadSpec, Trace

METRICS = ("ttft", "tpot", "itl", "e2e")
STATS = ("p50", "p90", "p99", "mean")


@dataclass(frozen=True)
class SimReport(Report):
    """``kvcalc simulate``'s result: one simulation's figures, or with a rate sweep the
    curve's rows (one per rate) and the highest rate meeting the SLOs."""

    load: Any = field(default=None, repr=False, compare=False)  # the LoadSpec simulated

    command = "simulate"


def _deployment_fields(dep: Deployment) -> dict:
    ec = dep.engine_config
    return {
        "model": dep.model.name,
        "hardware": dep.hardware.name if dep.hardware is not None else None,
        "engine": ec.engine,
        "engine_version": ec.version,
        "engine_version_asked": ec.version_unmodelled,
        "weight_dtype": dep.weight_dtype,
        "kv_dtype": dep.kv_dtype,
        "tp": dep.tp,
        "pp": dep.pp,
        "ep": dep.ep,
        "dp": dep.dp,
        "gpus": dep.gpus,
        "max_num_seqs": ec.max_num_seqs,
        "max_batched_tokens": ec.max_batched_tokens,
    }


def _load_fields(load: LoadSpec, seed: int, efficiency: str, ttft_slo_s, tpot_slo_s) -> dict:
    trace = isinstance(load.arrival, Trace)
    return {
        "arrival": "trace" if trace else load.arrival,
        "prompt_dist": load.prompt.describe() if load.prompt else "trace",
        "gen_dist": load.gen.describe() if load.gen else "trace",
        "prefix_shared_fraction": load.prefix_shared_fraction,
        "seed": seed,
        "efficiency": efficiency,
        "ttft_slo_s": ttft_slo_s,
        "tpot_slo_s": tpot_slo_s,
    }


def result_fields(r: SimResult, rate_per_s, ttft_slo_s=None, tpot_slo_s=None) -> dict:
    """One simulation's figures under their registered names."""
    out = {
        "rate_per_s": rate_per_s,
        "offered_requests_per_s": r.offered_requests_per_s,
        "n_requests": r.n_requests,
        "rejected_requests": r.rejected,
    }
    for m in METRICS:
        d = getattr(r, f"{m}_s")
        for s in STATS:  # the mean is "avg" (latency's tpot_mean_s differs); ITL's: per token
            out[f"{m}_{'avg' if s == 'mean' else s}_s"] = d[s]
    slo = ttft_slo_s is not None or tpot_slo_s is not None
    out.update(
        {
            "served_requests_per_s": r.requests_per_s,
            "served_output_tokens_per_s": r.output_tokens_per_s,
            "served_input_tokens_per_s": r.input_tokens_per_s,
            "goodput_requests_per_s": (
                r.goodput_requests_per_s(ttft_slo_s, tpot_slo_s) if slo else None
            ),
            "slo_attainment": r.slo_attainment(ttft_slo_s, tpot_slo_s) if slo else None,
            "queue_len_mean": r.queue_len_mean,
            "queue_len_max": r.queue_len_max,
            "kv_pool_occupancy_mean": r.kv_pool_occupancy_mean,
            "preemptions": r.preemptions,
            "saturated": r.saturated,
            "saturation_reason": r.saturation_reason,
            "makespan_s": r.makespan_s,
            "iterations": r.iterations,
            "sequence_groups": r.groups,
            "kv_pool_blocks": r.pool_blocks,
        }
    )
    return out


def _warnings(dep: Deployment, load: LoadSpec, r: SimResult) -> list[str]:
    out = []
    if isinstance(load.arrival, Trace):
        out += list(load.arrival.notes)
    if dep.per_gpu.state_slots is not None:  # the engine's state pool and its cap (SGLang)
        out += list(dep.per_gpu.notes)
    if r.rejected:
        ec = dep.engine_config
        whole = "" if ec.chunked_prefill else (
            f", or have a prompt over max_batched_tokens ({ec.max_batched_tokens:,}) with "
            "chunked prefill off"
        )  # fmt: skip
        out.append(
            f"{r.rejected} requests need more KV blocks than the pool of {r.pool_blocks:,} "
            f"holds, or are longer than the max model length{whole}, and were refused (as an "
            "engine refuses them)"
        )
    if r.saturated:
        out.append(f"saturated: {r.saturation_reason}")
    return out


def simulate_report(dep: Deployment, load: LoadSpec, r: SimResult, *, seed: int,
                    efficiency: str, ttft_slo_s=None, tpot_slo_s=None) -> SimReport:  # fmt: skip
    fields = {
        **_deployment_fields(dep),
        **_load_fields(load, seed, efficiency, ttft_slo_s, tpot_slo_s),
        **result_fields(r, load.rate_per_s, ttft_slo_s, tpot_slo_s),
    }
    return SimReport(fields, warnings=_warnings(dep, load, r))


def curve_report(dep: Deployment, curve: LatencyCurve, *, seed: int, efficiency: str,
                 ttft_slo_s=None, tpot_slo_s=None) -> SimReport:  # fmt: skip
    """The curve: deployment and load fields, the highest rate meeting the SLOs (p99, not
    saturated), and one row per rate."""
    rows = [result_fields(p.result, p.rate_per_s, ttft_slo_s, tpot_slo_s) for p in curve.points]
    fields = {
        **_deployment_fields(dep),
        **_load_fields(curve.load, seed, efficiency, ttft_slo_s, tpot_slo_s),
        "max_rate_meeting_slo_per_s": curve.max_rate_meeting(ttft_slo_s, tpot_slo_s),
        "rows": rows,
    }
    warnings = []
    if isinstance(curve.load.arrival, Trace):
        warnings += list(curve.load.arrival.notes)
    sat = [p.rate_per_s for p in curve.points if p.result.saturated]
    if sat:
        warnings.append(f"saturated from {sat[0]:g} requests/s: the queue grows without bound")
    return SimReport(fields, warnings=warnings, rows=rows)
