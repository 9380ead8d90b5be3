"""`kvcalc simulate`: serve a request rate on a deployment (continuous batching) and report TTFT,
TPOT and end-to-end percentiles, queue, KV-pool occupancy, throughput, goodput; or, with
--sweep-rate, the latency-vs-rate curve as a chart (text, PNG or SVG) and its rows."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from calc.cli import options as o
from calc.cli.option_groups import DEPLOYMENT, ENGINE, Options, with_options
from calc.output.render import ROW_FORMATS, modelled_as

Rate = Annotated[
    float | None,
    typer.Option("--rate", help="Mean arrival rate [requests/s] (with --trace: rescales it)."),
]
PromptDist = Annotated[
    str | None,
    typer.Option(
        "--prompt",
        help="Prompt tokens per request: a number (2048), uniform:LO:HI or lognormal:MEAN:CV "
        "(CV = standard deviation / mean). Default 1024, or the trace's.",
    ),
]
GenDist = Annotated[
    str | None,
    typer.Option(
        "--gen",
        help="Output tokens per request, as --prompt. Default 256, or the trace's.",
    ),
]
TraceFile = Annotated[
    Path | None,
    typer.Option(
        "--trace",
        help="CSV of requests with the columns arrival_s, prompt_tokens, output_tokens (rows "
        "out of order are sorted, with a warning).",
    ),
]
Arrival = Annotated[
    str,
    typer.Option("--arrival", help="Arrival process: poisson or constant (evenly spaced)."),
]
Requests = Annotated[
    int | None,
    typer.Option("--requests", "-n", help="Requests to simulate (default 1,000; a trace: all)."),
]
Duration = Annotated[
    str | None,
    typer.Option(
        "--duration",
        help="Simulate the requests that arrive in this time (60s, 10min) instead of --requests.",
    ),
]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the arrivals and lengths.")]
TtftSlo = Annotated[
    str | None,
    typer.Option("--ttft-slo", help="TTFT target for goodput (2s, 500ms)."),
]
TpotSlo = Annotated[
    str | None,
    typer.Option("--tpot-slo", help="TPOT target for goodput (50ms)."),
]
PrefixShared = Annotated[
    float,
    typer.Option(
        "--prefix-shared",
        help="Fraction of each prompt that is a prefix all requests share (served from the "
        "prefix cache, held once), 0 to <1.",
    ),
]
Efficiency = Annotated[
    str,
    typer.Option(
        "--efficiency", help="Efficiency band of the step times: expected, low, high, peak."
    ),
]
SweepRate = Annotated[
    str | None,
    typer.Option(
        "--sweep-rate",
        help="Simulate at each rate LO:HI:STEP (1:20:1) or in a list (1,2,5,10) [requests/s] "
        "and chart TTFT/TPOT p50/p90/p99 against it: a text chart, or --output FILE.png|svg.",
    ),
]
SimOutput = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Write to this file (atomically) instead of stdout; with --sweep-rate and the "
        "table format a .png or .svg chart (needs matplotlib: pip install 'kvcalc[plot]').",
    ),
]
PerRequest = Annotated[
    Path | None,
    typer.Option(
        "--per-request",
        help="Also write one JSON line per request (sent, admitted, first token, finish, "
        "lengths, TTFT, TPOT, E2E, longest inter-token gap, preemptions) to this file.",
    ),
]


@with_options(DEPLOYMENT, ENGINE)
def simulate(
    model: o.Model,
    hardware: o.HardwareRequired,
    rate: Rate = None,
    prompt: PromptDist = None,
    gen: GenDist = None,
    trace: TraceFile = None,
    arrival: Arrival = "poisson",
    requests: Requests = None,
    duration: Duration = None,
    seed: Seed = 0,
    ttft_slo: TtftSlo = None,
    tpot_slo: TpotSlo = None,
    prefix_shared: PrefixShared = 0.0,
    sweep_rate: SweepRate = None,
    efficiency: Efficiency = "expected",
    fmt: o.RowFormat = "table",
    output: SimOutput = None,
    report_file: o.Report = None,
    per_request: PerRequest = None,
    *,
    options: Options,
) -> None:
    """Serve requests arriving at --rate on the deployment, as vLLM/SGLang schedule them
    (continuous batching: decode first, chunked prefill within --max-batched-tokens, at most
    --max-num-seqs running, admission and preemption by the KV pool's blocks), each
    iteration timed by the step-time model; report TTFT, TPOT, inter-token latency (ITL, over
    all tokens) and end-to-end latency (p50/p90/p99, mean; vLLM's benchmark definitions),
    queue length, KV-pool occupancy, throughput, goodput under
    --ttft-slo/--tpot-slo and preemptions, and say when the rate saturates the deployment (the
    queue grows without bound). Replicas (--dp) take arrivals round-robin.

    With --sweep-rate the same requests are served at each rate: a chart of TTFT and TPOT
    percentiles against the rate and one row per rate. --report FILE.html also writes the
    figures, latency against the rate and tokens/s per GPU against per user as one page.

    Example: kvcalc simulate --model llama3-70b --hardware h100 --tp 4 --rate 5 --prompt
    lognormal:2048:0.5 --gen 256 --ttft-slo 2s --tpot-slo 50ms
    """
    from calc.api import simulate as run
    from calc.cli.common import check_choice, check_report, on_gpus
    from calc.output.render import check_jsonl_output

    check_choice("--format", fmt, ROW_FORMATS)
    check_report(report_file, ("--output", output), ("--per-request", per_request))
    check_jsonl_output(per_request, "--per-request")
    if sweep_rate is not None and output is not None and fmt == "table":
        from calc.output.plot import check_output

        check_output(output)
    report = run(
        model, hardware, rate, prompt, gen, trace=trace, arrival=arrival, requests=requests,
        duration=duration, seed=seed, ttft_slo=ttft_slo, tpot_slo=tpot_slo,
        prefix_shared=prefix_shared, sweep_rate=sweep_rate, efficiency=efficiency,
        per_request=per_request, **options.deployment,
    )  # fmt: skip
    dep, load, curve = report.deployment, report.load, sweep_rate is not None
    ec = dep.engine_config
    asked = ec.version_unmodelled
    release = "" if asked is None else f" {modelled_as(asked, ec.version)}"
    what = f" ({dep.describe()}, {ec.engine}{release}): {load.describe(not curve)}"
    title = on_gpus(dep, what)
    if curve:
        _curve(report, fmt, output, title)
    else:
        _one(report, fmt, output, title)
    from calc.cli.common import command_line, write_report
    from calc.reports.report_runs import simulate_document

    write_report(
        report_file,
        lambda: simulate_document(
            dep, load, report, seed=seed, efficiency=efficiency,
            curve_rows=report.rows if curve else None, command=command_line(),
        ),
    )  # fmt: skip


def _one(report, fmt, output, title) -> None:
    from calc.cli.common import warn
    from calc.output.render import emit

    warn(report.warnings)
    emit(report.fields, fmt, output, title=f"{title} (latencies in s; per sequence group: queue)")


def _curve(report, fmt, output, title) -> None:
    """The curve's rows, or as a table its chart (text, or a PNG/SVG --output)."""
    import sys

    from calc.cli.common import warn
    from calc.output import plot as draw
    from calc.output.render import emit

    warn(report.warnings)
    if fmt != "table":
        emit(report.fields, fmt, output, rows=report.rows)
        return
    series = [
        draw.RateSeries(
            metric.upper(), pct, [(r["rate_per_s"], r[f"{metric}_{pct}_s"]) for r in report.rows]
        )
        for metric in ("ttft", "tpot")
        for pct in ("p50", "p90", "p99")
    ]
    f = report.fields
    slos = {"TTFT": f["ttft_slo_s"], "TPOT": f["tpot_slo_s"]}
    head = f"Latency vs request rate: {title}"
    if output is not None:
        saturated = [r["rate_per_s"] for r in report.rows if r["saturated"]]
        draw.save_atomic(draw.latency_rate_figure(head, series, slos, saturated), output)
        return
    text = draw.latency_rate_text(head, series, report.rows, slos)
    best = f["max_rate_meeting_slo_per_s"]
    if f["ttft_slo_s"] is not None or f["tpot_slo_s"] is not None:
        text += (
            f"\nhighest rate meeting the SLOs at p99 (not saturated): "
            f"{'none of these' if best is None else f'{best:g} requests/s'}\n"
        )
    from calc.output.safe_text import printable

    sys.stdout.write(printable(text, lines=True))
