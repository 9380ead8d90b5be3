"""Latency and FLOP reports of a deployment: TTFT, TPOT, end-to-end time and tokens/s at the
speed of light, expected and as a band (``latency_report``), and FLOPs per op
(``flops_report``), composed from ``calc.deploy.steps`` with their ``--explain`` figures."""

from __future__ import annotations

from dataclasses import dataclass, replace

from calc.deploy.deployment import Deployment, Workload
from calc.deploy.rates import (
    EFFICIENCIES,
    NATIVE_COMPUTE,
    efficiencies,
    ridge_points,
    with_efficiency,
)
from calc.deploy.steps import OpSetup, Step, generation_flops, generation_time_of, op_setup, step_of
from calc.errors import InvalidInputError
from calc.formulas.roofline import arithmetic_intensity
from calc.output.derivation import Figure, figure, whole
from calc.output.result import Report
from calc.reports.calibration_mark import is_calibrated
from calc.reports.flops_figures import flops_figures, op_figures, ridge_figure
from calc.reports.throughput import serving_fields


@dataclass(frozen=True)
class LatencyReport(Report):
    """``kvcalc latency``'s result: TTFT, TPOT, end-to-end time and tokens/s (speed of light,
    expected, low-high band), the ops of a decode step and a prefill, memory per GPU."""

    command = "latency"


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
    from calc.formulas.elementwise import cdiv

    cfg, hw = dep.model, dep.hardware
    prompt, gen, batch, ctx = work.prompt, work.gen or 1, work.batch, work.ctx
    if prompt is None:
        raise InvalidInputError("flops needs --prompt")
    st = op_setup(dep)
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
    figs = flops_figures(cfg, prompt, ctx)
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
        figs.append(ridge_figure(hw, st.dtype))
    return LatencyReport(fields, figs, _warnings(cfg, prompt, ctx, st, hw))


def _warnings(cfg, prompt, ctx, st: OpSetup, hw) -> list[str]:
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
    ``output_tokens_low_per_s`` and ``output_tokens_high_per_s``; a profile calibrated by
    ``kvcalc score`` with a residual band takes that band instead, ``band_basis`` says which).
    TPOT is one decode step at
    ``work.ctx`` (the CLI's default is prompt + gen, the last and slowest step);
    ``tpot_mean_s`` is the mean over the generation, (E2E − TTFT) / (gen − 1), which is what
    serving benchmarks report as TPOT. ``output_tokens_per_s`` is the deployment's decode
    throughput batch / TPOT (``..._per_gpu`` divides by its GPUs); ``e2e_tokens_per_s`` the
    generated tokens of the whole request over its E2E time. ``serving_*`` is the steady-state
    throughput under load (``calc.reports.throughput``: the engine's own concurrency, prefill
    charged), as ``cost`` and ``sweep`` report it. With dp replicas each serves
    ceil(batch / dp) of the sequences. ``ops`` are the decode step's ops per GPU.
    """
    cfg = dep.model
    prompt, gen, batch, ctx = work.prompt, work.gen, work.batch, work.ctx
    if prompt is None or gen is None:
        raise InvalidInputError("latency needs --prompt and --gen")
    hw = with_efficiency(dep.hardware, matmul_eff, mem_eff)
    dep = replace(dep, hardware=hw)
    st = op_setup(dep)
    times, steps = _times(dep, work)
    fields = _latency_fields(dep, work, st, times, steps)
    figs = [*_rate_figures(dep, work, st, steps),
            *_time_figures(dep, work, st, times, steps, fields)]  # fmt: skip
    warnings = _warnings(cfg, prompt, ctx, st, hw)
    from calc.reports.capacity import does_not_fit, max_model_len_warning, whole_prompt_warning

    for note in (max_model_len_warning(dep, max(ctx, prompt + gen)),
                 whole_prompt_warning(dep, prompt)):  # fmt: skip
        if note:
            warnings.append(note)
    if not fields["fits"]:

        g = dep.per_gpu
        work_all = Workload(ctx=max(ctx, prompt + gen), batch=batch)
        message = does_not_fit(dep, work_all, g.max_ctx(batch, max(cfg.max_ctx, work_all.ctx)))
        warnings.append(f"{message} (times are still shown)")
    return LatencyReport(fields, figs, warnings)


def _times(dep: Deployment, work: Workload) -> tuple[dict, dict]:
    """({efficiency: {ttft_s, tpot_s, e2e_s, output_tokens_per_s, tpot_mean_s}},
    {efficiency: (decode step, prefill)}) at every efficiency of the band."""
    from calc.formulas.elementwise import cdiv
    from calc.serve.admission_hold import steady_wait_s

    prompt, gen, batch, ctx = work.prompt, work.gen, work.batch, work.ctx
    assert prompt is not None and gen is not None
    local = cdiv(batch, dep.replicas)  # sequences of one replica
    times: dict[str, dict] = {}
    steps: dict[str, tuple[Step, Step]] = {}
    for eff in EFFICIENCIES:
        dec = step_of(dep, eff, batch=local, ctx=ctx)
        pre = step_of(dep, eff, batch=local, prompt=prompt)
        gen_time = generation_time_of(dep, prompt=prompt, gen=gen, batch=local, efficiency=eff)
        # a stated receive interval or batch wait holds the prompt back beside the others'
        # decode steps (calc.serve.admission_hold; 0 when nothing is stated)
        wait = steady_wait_s(dep, dec.time_s, local, prompt, gen)
        times[eff] = {
            "ttft_s": pre.time_s + wait,
            "tpot_s": dec.time_s,
            "e2e_s": pre.time_s + wait + gen_time,
            "admission_wait_s": wait,
            "output_tokens_per_s": batch / dec.time_s,
            "tpot_mean_s": gen_time / (gen - 1) if gen > 1 else dec.time_s,
        }
        steps[eff] = (dec, pre)
    return times, steps


def _latency_fields(dep: Deployment, work: Workload, st: OpSetup, times: dict,
                    steps: dict) -> dict:  # fmt: skip
    """The report's keys in output order (docs/names.md)."""
    cfg, hw = dep.model, dep.hardware
    assert hw is not None
    prompt, gen, batch, ctx = work.prompt, work.gen, work.batch, work.ctx
    assert prompt is not None and gen is not None
    per_token, prefill_flops = _model_flops(dep, batch=batch, ctx=ctx, prompt=prompt)
    exp, sol, lo, hi = times["expected"], times["peak"], times["high"], times["low"]
    dec, pre = steps["expected"]
    ledger = dep.per_gpu.at(max(ctx, prompt + gen), batch).fields()
    m_eff, b_eff = efficiencies(hw, "expected", st.dtype)  # the GEMMs' band (fp8's own)
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
        "calibrated": is_calibrated(hw),
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
    fields["band_basis"] = _calibrated_band(hw, fields)
    fields["output_tokens_per_s_per_gpu"] = exp["output_tokens_per_s"] / dep.gpus
    fields["tokens_per_sequence_per_s"] = 1 / exp["tpot_s"]
    fields["e2e_tokens_per_s"] = batch * gen / exp["e2e_s"]
    # steady-state throughput under load at this prompt and gen (calc.reports.throughput):
    # the same figures as cost and sweep at the same operating point
    fields.update(serving_fields(dep, prompt=prompt, gen=gen))
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
    return fields


def _calibrated_band(hw, fields: dict) -> str:
    """Where the ``_low``/``_high`` band comes from, and for a profile whose step calibration
    stores a residual band (calc/reports/calibration_band.py) the band set from it: a measured
    time lies at predicted / (1 + error), the error in the band's low…high (TTFT: its TTFT band;
    TPOT, its mean and the decode tokens/s: its TPOT band; E2E: the TTFT's and the
    generation's, each by its own)."""
    cal = hw.step_calibration
    if cal is None or not cal.band or "ttft" not in cal.band or "tpot" not in cal.band:
        return "efficiency bands"
    from calc.reports.calibration_band import band_text

    t, p = cal.band["ttft"], cal.band["tpot"]
    for key, b in (("ttft", t), ("tpot", p), ("tpot_mean", p)):
        fields[f"{key}_low_s"] = fields[f"{key}_s"] / (1 + b.high)
        fields[f"{key}_high_s"] = fields[f"{key}_s"] / (1 + b.low)
    gen_s = fields["e2e_s"] - fields["ttft_s"]
    fields["e2e_low_s"] = fields["ttft_low_s"] + gen_s / (1 + p.high)
    fields["e2e_high_s"] = fields["ttft_high_s"] + gen_s / (1 + p.low)
    fields["output_tokens_low_per_s"] = fields["output_tokens_per_s"] * (1 + p.low)
    fields["output_tokens_high_per_s"] = fields["output_tokens_per_s"] * (1 + p.high)
    return f"{cal.source}: {band_text(cal.band)}"


def _rate_figures(dep: Deployment, work: Workload, st: OpSetup, steps: dict) -> list[Figure]:
    """The FLOPs, the ridge point and the achievable rates the times are taken at."""
    hw = dep.hardware
    assert hw is not None and work.prompt is not None
    m_eff, b_eff = efficiencies(hw, "expected", st.dtype)
    dec = steps["expected"][0]
    return [
        *flops_figures(dep.model, work.prompt, work.ctx),
        ridge_figure(hw, st.dtype),
        figure(
            "achievable_flops_per_s",
            dec.rates.flops_per_s,
            "FLOP/s",
            "{peak} × {eff} (matmul efficiency, expected)",
            peak=hw.peak_flops_per_s[st.dtype],
            eff=m_eff,
        ),
        figure(
            "achievable_bytes_per_s",
            dec.rates.bytes_per_s,
            "B/s",
            "{bw} × {eff} (memory efficiency, expected)",
            bw=hw.hbm_bandwidth_bytes_per_s,
            eff=b_eff,
        ),
    ]


def _time_figures(dep: Deployment, work: Workload, st: OpSetup, times: dict, steps: dict,
                  fields: dict) -> list[Figure]:  # fmt: skip
    """The derivations of TPOT, TTFT, E2E, tokens/s and the memory per GPU."""
    hw = dep.hardware
    assert hw is not None
    exp, sol = times["expected"], times["peak"]
    dec, pre = steps["expected"]
    sol_dec = steps["peak"][0]
    dtype = st.dtype
    return [
        *op_figures("decode", dec, hw),
        Figure("tpot_s", exp["tpot_s"], "s", "Σ decode op times (above)"),
        figure(
            "tpot_speed_of_light_s",
            sol["tpot_s"],
            "s",
            "Σ over ops of max(op FLOP / {peak_flops_per_s}, op bytes / {bandwidth_bytes_per_s}) "
            "(step totals: {step_flops} FLOP, {step_bytes} bytes)",
            step_flops=sol_dec.flops,
            peak_flops_per_s=hw.peak_flops_per_s[dtype],
            bandwidth_bytes_per_s=hw.hbm_bandwidth_bytes_per_s,
            step_bytes=sol_dec.bytes,
        ),
        *op_figures("prefill", pre, hw),
        Figure("ttft_s", exp["ttft_s"], "s", "Σ prefill op times (above)") if not
        exp["admission_wait_s"] else figure(
            "ttft_s", exp["ttft_s"], "s",
            "Σ prefill op times (above) + {admission_wait_s} (the mean time the stated scheduler "
            "settings hold the prompt back: calc.serve.admission)",
            admission_wait_s=exp["admission_wait_s"],
        ),
        figure(
            "e2e_s",
            exp["e2e_s"],
            "s",
            "ttft + Σ_(j=1..{g}) tpot(ctx = {prompt} + j) = {ttft} + {rest}",
            g=work.gen - 1,  # type: ignore[operator]
            prompt=work.prompt,
            ttft=exp["ttft_s"],
            rest=exp["e2e_s"] - exp["ttft_s"],
        ),
        figure(
            "output_tokens_per_s",
            exp["output_tokens_per_s"],
            "tokens/s",
            "{batch} / {tpot}",
            batch=work.batch,
            tpot=exp["tpot_s"],
        ),
        figure(
            "memory_per_gpu_bytes",
            fields["memory_per_gpu_bytes"],
            "bytes",
            "{weights} + {kv} + {state}",
            weights=fields["weights_bytes_per_gpu"],
            kv=fields["kv_cache_bytes_per_gpu"],
            state=fields["ssm_state_bytes_per_gpu"],
        ),
    ]
