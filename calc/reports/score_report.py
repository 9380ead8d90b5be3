"""`kvcalc score`'s report: every run of the files given, scored (``calc.reports.score``), and
with a calibration asked for, the fit (``calc.reports.score_fit``) and its residuals; as
fields (JSON), rows (CSV: one per run and figure), the derivation and warnings."""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass, field, replace

from calc.errors import InvalidInputError
from calc.output.result import Report


@dataclass(frozen=True)
class ScoreReport(Report):
    """``kvcalc score``'s result: each run's predicted vs measured figures (``rows``: one per
    run and figure, with the signed error) and, when asked, the calibration fit."""

    scores: list = field(default_factory=list)  # calc.reports.score's, one per run
    fit: object | None = None  # calc.reports.score_fit's fit, when one was asked for

    command = "score"


def _length(text, flag):
    from calc.serve.workload import LengthDist

    return None if text is None else LengthDist.parse(text, flag)


def score_files(
    files,
    given: dict,
    *,
    build,
    log=None,
    prompt=None,
    gen=None,
    seed: int = 0,
    efficiency: str = "expected",
    fit: str | None = None,
    save_calibration=None,
    prefix_cached: float = 0.0,
    concurrency: int | None = None,
    pool_from_file: bool = False,
) -> ScoreReport:
    """Score every run of ``files`` (``build``: options -> Deployment, the command's way of
    building one; ``given``: the command's deployment options, None where not given;
    ``pool_from_file``: replay the KV pool and limits the file records the server ran with,
    ``calc.reports.score_pool``)."""
    from calc.data.bench_results import read_results
    from calc.reports.score import log_settings, score_run
    from calc.reports.score_fit import parse_parameters
    from calc.reports.score_pool import check_rows
    from calc.reports.score_workload import replay
    from calc.serve.simulate import check_prefix_hits
    from calc.serve.steptime import step_table

    params = parse_parameters(fit) if save_calibration is not None or fit else None
    p_dist, g_dist = _length(prompt, "--prompt"), _length(gen, "--gen")
    logged = log_settings(log) if log is not None else None
    runs = [run for f in files for run in read_results(f)]
    warnings: list[str] = []
    plan = _plan(runs, given, logged, build, pool_from_file)
    for i, (run, dep, own, notes, pool) in enumerate(plan):
        check_prefix_hits(dep, prefix_cached, "--prefix-cached")
        rep = replay(run, seed=seed, prompt=p_dist, gen=g_dist, cached_fraction=prefix_cached,
                     concurrency=concurrency)  # fmt: skip
        plan[i] = (run, dep, own, rep, notes, pool)
    # one iteration-time table per deployment, long enough for all its runs
    longest: dict = {}
    for _run, dep, _own, rep, _, _pool in plan:
        longest[id(dep)] = max(longest.get(id(dep), 0), int((rep.prompt + rep.gen).max()) + 1)
    tables: dict = {}
    scores, pools = [], []
    said: dict[str, list[str]] = {}  # one deployment note, the runs it is said of
    for run, dep, own, rep, notes, pool in plan:
        if id(dep) not in tables:
            tables[id(dep)] = step_table(dep, efficiency, max_ctx=longest[id(dep)])
        s = score_run(run, dep, rep, efficiency=efficiency, step=tables[id(dep)], pool_blocks=pool)
        if run.server_limits:
            s.rows.extend(check_rows(run, dep, own, float((rep.prompt + rep.gen).mean())))
        scores.append(s)
        pools.append(pool)
        if notes:
            said.setdefault(", ".join(notes), []).append(run.source)
        warnings += [f"{run.source}: {n}" for n in s.notes]
    warnings[:0] = [f"{_runs(sources)}: deployment: {text}" for text, sources in said.items()]
    calibrated = given.get("calibration") is not None
    fitted = None
    if params is not None:
        fitted = _fit(scores, params, efficiency, pools, save_calibration, seed)
        if (note := _fit_warning(scores, fitted)) is not None:
            warnings.append(note)
    return _report(scores, calibrated, fitted, warnings, pool_from_file)


def _built(build, options: dict, run, notes: list[str]):
    """The Deployment of ``options``; one the file or the log made impossible (trtllm-bench's
    --ep 4 with a dense --model) refused naming the run and what was taken from it."""
    try:
        return build(options)
    except InvalidInputError as exc:
        taken = []
        for origin in ("the result file", "the start-up log"):
            said = [n.removesuffix(f" from {origin}") for n in notes if n.endswith(origin)]
            if said:
                taken.append(f"{origin} gave {', '.join(said)}")
        if not taken:
            raise
        raise InvalidInputError(f"{run.source}: {exc} ({'; '.join(taken)})") from exc


def _plan(runs, given: dict, logged, build, pool_from_file: bool) -> list:
    """(run, deployment, kvcalc's own deployment for the check or None, notes, KV pool in
    blocks to replay or None) of each run; one Deployment per distinct set of options."""
    from calc.reports.score import deployment_options
    from calc.reports.score_pool import own_options, replayed_options

    deps: dict = {}
    eager = bool((logged or {}).get("eager"))

    def deployment(options, run, notes):
        key = tuple(sorted((k, str(v)) for k, v in options.items()))
        if key not in deps:
            deps[key] = _built(build, options, run, notes)
            if eager:  # the log's server ran without CUDA graphs
                deps[key] = replace(deps[key], engine=replace(deps[key].engine, cuda_graphs=False))
        return deps[key]

    plan = []
    for run in runs:
        options, notes = deployment_options(run, given, logged)
        own = None
        if run.server_limits:  # kvcalc's own limits, for the check only (never refused for it)
            try:
                own = deployment(own_options(run, options, given), run, notes)
            except InvalidInputError:
                pass
        if pool_from_file:
            options, taken = replayed_options(run, options, given)
            notes = [*notes, *taken]
        dep = deployment(options, run, notes)
        if eager:
            notes = [*notes, "every pass eager (the start-up log's --enforce-eager)"]
        pool = (logged or {}).get("printed_blocks")
        if pool_from_file:
            pool, note = _recorded_pool(run, dep, pool)
            notes = [*notes, note]
        plan.append((run, dep, own, notes, pool))
    return plan


def _recorded_pool(run, dep, pool):
    """The KV pool (blocks) --pool-from-file replays for ``run``: the one its file records,
    else ``pool`` (a start-up log's, or None: kvcalc's), with a note of which."""
    from calc.reports.score_pool import recorded_pool_blocks

    blocks = recorded_pool_blocks(run, dep)
    if blocks is None:
        whose = "the start-up log's" if pool else "kvcalc's"
        return pool, f"the file records no KV pool: {whose} replayed (--pool-from-file)"
    tokens = run.server_limits["kv_cache_tokens"]
    return blocks, f"KV pool {tokens:,} tokens as the server ran (--pool-from-file)"


def _runs(sources: list[str]) -> str:
    """The runs a note is said of: one by name, more by the first and their count (a file
    of seven runs says its one deployment note once, not seven times)."""
    if len(sources) == 1:
        return sources[0]
    return f"{sources[0]} and {len(sources) - 1} more run{'s' * (len(sources) > 2)}"


def _fit_warning(scores, result) -> str | None:
    """A fit that moves most figures further from their runs (|ln(predicted / measured)|
    grows) while its rms falls is pulled by a run the model does not describe (a burst its
    limits queue): said, with the run of the largest residual before the fit; None else."""
    pairs = [(scores[i].run.source, k, b, after[k])
             for i, (before, after) in enumerate(zip(result.before, result.after, strict=True))
             for k, b in before.items() if k in after]  # fmt: skip
    worse = sum(abs(a) > abs(b) + 1e-9 for _, _, b, a in pairs)
    if not pairs or 2 * worse <= len(pairs):
        return None
    src, (metric, stat), b, _ = max(pairs, key=lambda t: abs(t[2]))
    rms = [math.sqrt(sum(t[i] ** 2 for t in pairs) / len(pairs)) for i in (2, 3)]
    figure = f"{metric} {stat}".strip()
    return (
        f"the fit moves {worse} of {len(pairs)} figures further from the runs (rms of "
        f"ln(predicted / measured) {rms[0]:.2f} → {rms[1]:.2f}), pulled by {src}: its {figure} "
        f"{100 * (math.exp(b) - 1):+.0f}% before the fit; score that run alone, leave it out, "
        "or fit fewer parameters"
    )


def _fit(scores, params, efficiency, pools, path, seed):
    from calc.data.calibration import Calibration, FitRecord, FittedBand, FittedRun, OpMultipliers
    from calc.data.calibration import save_calibration as save
    from calc.reports.calibration_band import band_of, rule
    from calc.reports.score_fit import fit

    hws = {s.dep.hardware.name for s in scores}
    if len(hws) > 1:
        raise InvalidInputError(
            f"--save-calibration fits one hardware profile; these runs are on {', '.join(hws)}"
        )
    if any(s.dep.hardware.step_calibration is not None for s in scores):
        raise InvalidInputError(
            "--save-calibration fits from the uncalibrated model: leave out --calibration"
        )
    result = fit([(s.run, s.dep, s.replay, pool) for s, pool in zip(scores, pools, strict=True)],
                 params, efficiency=efficiency)  # fmt: skip
    if path is not None:
        deps = sorted({f"{s.dep.model.name} {s.dep.describe()} {s.dep.engine_config.engine}"
                       for s in scores})  # fmt: skip
        m = {k: result.multipliers.get(k, 1.0)
             for k in ("gemm", "attention", "moe", "communication")}  # fmt: skip
        cal = Calibration(
            kind="kvcalc-calibration",
            **_fitted_to(scores),
            hardware=scores[0].dep.hardware.name,
            device=f"benchmark runs ({', '.join(sorted({s.run.tool for s in scores}))})",
            created=_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            op_multipliers=OpMultipliers(**m),
            host_step_s=result.host_step_s,
            host_per_seq_s=result.host_per_seq_s,
            request_s=result.request_s,
            fit=FitRecord(
                parameters=list(result.parameters),
                deployment="; ".join(deps),
                runs=[
                    FittedRun(
                        source=s.run.source,
                        tool=s.run.tool,
                        residual_pct={_key(k): 100 * (_exp(v) - 1) for k, v in res.items()},
                    )
                    for s, res in zip(scores, result.after, strict=True)
                ],
                rms_residual_pct=100 * result.rms_after,
                # to 4 decimals of a percent, outwards (the band holds every residual)
                band={k: FittedBand(low_pct=math.floor(1e6 * lo) / 1e4,
                                    high_pct=math.ceil(1e6 * hi) / 1e4, runs=len(scores),
                                    rule=rule(len(scores)))
                      for k, (lo, hi) in band_of(result.after).items()},
            ),
        )
        save(path, cal)
    return result


def _fitted_to(scores) -> dict[str, str]:
    """What the runs share beside their hardware, recorded in the calibration: their engine,
    its release, the model and its linear layers' format, each left out where the runs differ
    (calc.deploy.calibration_match warns where a command's differs)."""
    from calc.deploy.calibration_match import recorded

    each = [recorded(s.dep) for s in scores]
    return {k: v for k, v in each[0].items() if all(r[k] == v for r in each)}


def kept_as_modelled(parameters, deps) -> str:
    """The host times not fitted and what they stay at: a fitted host time adds to the engine's
    modelled one (``calc.deploy.host_costs``), so one left out keeps the modelled value, per
    deployment, rather than the fit moving its share into another parameter."""
    out = []
    seen = {}
    for d in deps:
        host = d.engine_model.host_costs(d.engine_config.host_release, "api", d.pp)
        seen.setdefault(d.describe(), host)
    for name in ("host", "host_seq"):
        if name in parameters:
            continue
        field, unit, k = (("per_step_s", "ms", 1e3) if name == "host"
                          else ("per_sequence_s", "µs", 1e6))  # fmt: skip
        values = "; ".join(f"{getattr(h, field) * k:,.4g} {unit} ({where})"
                           for where, h in seen.items())  # fmt: skip
        out.append(f"{name} as modelled: {values}")
    if "request" not in parameters:
        out.append("request 0 (the front-end's modelled intake only)")
    return ", ".join(out) or "none"


def fit_band_text(fitted, runs: int) -> str:
    """The residual band the fit stores (calc/reports/calibration_band.py), in words."""
    from calc.data.hardware_schema import ResidualBand
    from calc.reports.calibration_band import band_of, band_text, rule

    return band_text({k: ResidualBand(low=lo, high=hi, runs=runs, rule=rule(runs))
                      for k, (lo, hi) in band_of(fitted.after).items()})  # fmt: skip


def _key(k) -> str:
    metric, stat = k
    return f"{metric}_{stat}" if stat else metric


def _exp(x: float) -> float:
    import math

    return math.exp(x)


def _report(scores, calibrated: bool, fitted, warnings, pool_from_file: bool) -> ScoreReport:
    from calc.reports.score import explain_figures, run_fields

    runs = [{**run_fields(s, calibrated), "pool_from_file": pool_from_file} for s in scores]
    rows = [row for s in scores for row in s.rows]
    fields: dict = {"runs": runs, "metrics": rows}
    if fitted is not None:
        fields["fit"] = {
            "parameters": ",".join(fitted.parameters),
            **{f"{k}_multiplier": fitted.multipliers.get(k) for k in
               ("gemm", "attention", "moe", "communication") if k in fitted.multipliers},
            "host_step_s": fitted.host_step_s if "host" in fitted.parameters else None,
            "host_per_seq_s": fitted.host_per_seq_s if "host_seq" in fitted.parameters else None,
            "request_s": fitted.request_s if "request" in fitted.parameters else None,
            "kept": kept_as_modelled(fitted.parameters, [s.dep for s in scores]),
            "rms_residual": fitted.rms_after,
            "band": fit_band_text(fitted, len(scores)),
            "iterations": fitted.iterations,
            "runs": [
                {"source": s.run.source, "figure": _key(k), "before": _exp(b[k]) - 1,
                 "after": _exp(a[k]) - 1}
                for s, b, a in zip(scores, fitted.before, fitted.after, strict=True)
                for k in a
            ],
        }  # fmt: skip
    return ScoreReport(fields, explain_figures(scores), warnings, rows, scores=scores,
                       fit=fitted)  # fmt: skip
