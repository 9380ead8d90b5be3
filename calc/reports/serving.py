"""`kvcalc simulate`'s job from its options: the load parsed and validated (rate or trace,
length distributions, durations [s], SLOs [s]), one simulation or the latency-vs-rate curve
run on the deployment, and its report (``calc.serve.report``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from calc.errors import InvalidInputError


def simulate_job(build: Callable, notes: list[str], **options):
    """The SimReport of serving the load ``options`` describe (``calc.api.simulate``'s: rate,
    prompt, gen, trace, arrival, requests, duration, seed, ttft_slo, tpot_slo, prefix_shared,
    sweep_rate, efficiency, per_request) on the Deployment ``build()`` returns, built after
    the load's own options are checked, so their errors come first; ``notes``: the warnings
    said while building it, put first. ``per_request``: each request's record also written
    to that file, a JSON line each."""
    from dataclasses import replace

    from calc.data.limits import check_choice

    o = SimpleNamespace(**options)
    check_choice("--efficiency", o.efficiency, ("expected", "low", "high", "peak"))
    if o.duration is not None and o.requests is not None:
        raise InvalidInputError("give --requests or --duration, not both")
    if o.per_request is not None:
        if o.sweep_rate is not None:
            raise InvalidInputError("--per-request writes one simulation's requests: not with "
                                    "--sweep-rate")  # fmt: skip
        from calc.output.render import check_output_path

        check_output_path(Path(o.per_request), "--per-request")
    load_of, rates, slo = _load(o)
    dep = build()
    load = load_of()  # its own checks after the deployment's, as the command always made them
    if rates is None:
        report = _one(dep, load, o.seed, o.efficiency, slo, o.per_request)
    else:
        from calc.serve.curve import latency_vs_rate
        from calc.serve.report import curve_report

        curve = latency_vs_rate(dep, load, rates, o.seed, efficiency=o.efficiency)
        report = curve_report(dep, curve, seed=o.seed, efficiency=o.efficiency, **slo)
    from calc.reports.calibration_mark import is_calibrated

    fields = {**report.fields, "calibrated": is_calibrated(dep.hardware)}
    return replace(report, fields=fields, warnings=(*notes, *report.warnings), deployment=dep,
                   load=load)  # fmt: skip


def _load(o: SimpleNamespace):
    """(a function that builds the LoadSpec, the rates of a sweep or None, the SLOs [s]) of
    the options, each parsed and checked."""
    from calc.serve.workload import LengthDist, LoadSpec, load_trace_csv, parse_duration_s

    duration_s = None if o.duration is None else parse_duration_s(o.duration, "--duration")
    slo = {
        "ttft_slo_s": None if o.ttft_slo is None else parse_duration_s(o.ttft_slo, "--ttft-slo"),
        "tpot_slo_s": None if o.tpot_slo is None else parse_duration_s(o.tpot_slo, "--tpot-slo"),
    }
    rates = None
    if o.sweep_rate is not None:
        from calc.serve.curve import parse_rates

        rates = parse_rates(o.sweep_rate)
    tr = load_trace_csv(Path(o.trace)) if o.trace is not None else None
    if tr is None and o.rate is None and rates is None:
        raise InvalidInputError("simulate needs --rate (requests/s), --trace or --sweep-rate")
    p = LengthDist.parse(str(o.prompt), "--prompt") if o.prompt is not None else None
    g = LengthDist.parse(str(o.gen), "--gen") if o.gen is not None else None
    if tr is None:
        p = p or LengthDist.fixed(1024)
        g = g or LengthDist.fixed(256)
    return lambda: LoadSpec(
        rate_per_s=o.rate if rates is None else rates[0],
        arrival=tr if tr is not None else o.arrival,
        prompt=p,
        gen=g,
        prefix_shared_fraction=o.prefix_shared,
        n_requests=o.requests,
        duration_s=duration_s,
    ), rates, slo


def _one(dep, load, seed: int, efficiency: str, slo: dict, per_request):
    """One simulation's report (and its requests written to ``per_request``)."""
    from calc.serve.report import simulate_report
    from calc.serve.simulate import simulate

    r = simulate(dep, load, seed=seed, efficiency=efficiency)
    if per_request is not None:
        from calc.serve.per_request import write_per_request

        write_per_request(Path(per_request), r)
    return simulate_report(dep, load, r, seed=seed, efficiency=efficiency, **slo)
