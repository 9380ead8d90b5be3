"""`kvcalc simulate`'s job from its options: the load parsed and validated (rate or trace,
length distributions, durations [s], SLOs [s]), one simulation or the latency-vs-rate curve
run on the deployment, and its report (``calc.serve.report``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from calc.errors import InvalidInputError


def simulate_job(
    build: Callable,
    *,
    rate: float | None = None,
    prompt: str | int | None = None,
    gen: str | int | None = None,
    trace: str | Path | None = None,
    arrival: str = "poisson",
    requests: int | None = None,
    duration: str | None = None,
    seed: int = 0,
    ttft_slo: str | None = None,
    tpot_slo: str | None = None,
    prefix_shared: float = 0.0,
    sweep_rate: str | None = None,
    efficiency: str = "expected",
    per_request: str | Path | None = None,
    notes: list[str] | None = None,
):
    """The SimReport of serving the load these options describe on the Deployment ``build()``
    returns (built after the load's own options are checked, so their errors come first);
    ``notes``: warnings said while building it, put first. ``per_request``: each request's
    record also written to that file, a JSON line each."""
    from dataclasses import replace

    from calc.data.limits import check_choice
    from calc.serve.workload import LengthDist, LoadSpec, load_trace_csv, parse_duration_s

    check_choice("--efficiency", efficiency, ("expected", "low", "high", "peak"))
    if duration is not None and requests is not None:
        raise InvalidInputError("give --requests or --duration, not both")
    if per_request is not None:
        if sweep_rate is not None:
            raise InvalidInputError("--per-request writes one simulation's requests: not with "
                                    "--sweep-rate")  # fmt: skip
        from calc.output.render import check_output_path

        check_output_path(Path(per_request), "--per-request")
    duration_s = None if duration is None else parse_duration_s(duration, "--duration")
    slo = {
        "ttft_slo_s": None if ttft_slo is None else parse_duration_s(ttft_slo, "--ttft-slo"),
        "tpot_slo_s": None if tpot_slo is None else parse_duration_s(tpot_slo, "--tpot-slo"),
    }
    rates = None
    if sweep_rate is not None:
        from calc.serve.curve import parse_rates

        rates = parse_rates(sweep_rate)
    tr = load_trace_csv(Path(trace)) if trace is not None else None
    if tr is None and rate is None and rates is None:
        raise InvalidInputError("simulate needs --rate (requests/s), --trace or --sweep-rate")
    p = LengthDist.parse(str(prompt), "--prompt") if prompt is not None else None
    g = LengthDist.parse(str(gen), "--gen") if gen is not None else None
    if tr is None:
        p = p or LengthDist.fixed(1024)
        g = g or LengthDist.fixed(256)
    dep = build()
    load = LoadSpec(
        rate_per_s=rate if rates is None else rates[0],
        arrival=tr if tr is not None else arrival,
        prompt=p,
        gen=g,
        prefix_shared_fraction=prefix_shared,
        n_requests=requests,
        duration_s=duration_s,
    )
    if rates is None:
        report = _one(dep, load, seed, efficiency, slo, per_request)
    else:
        from calc.serve.curve import latency_vs_rate
        from calc.serve.report import curve_report

        curve = latency_vs_rate(dep, load, rates, seed, efficiency=efficiency)
        report = curve_report(dep, curve, seed=seed, efficiency=efficiency, **slo)
    said = (*(notes or ()), *report.warnings)
    return replace(report, warnings=said, deployment=dep, load=load)


def _one(dep, load, seed: int, efficiency: str, slo: dict, per_request):
    """One simulation's report (and its requests written to ``per_request``)."""
    from calc.serve.report import simulate_report
    from calc.serve.simulate import simulate

    r = simulate(dep, load, seed=seed, efficiency=efficiency)
    if per_request is not None:
        from calc.serve.per_request import write_per_request

        write_per_request(Path(per_request), r)
    return simulate_report(dep, load, r, seed=seed, efficiency=efficiency, **slo)
