"""`kvcalc score`: benchmark result files held against the serving simulation, each measured
figure beside the prediction with its signed error; with --save-calibration, a step
calibration fitted to the runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from calc.cli import deploy_options as d
from calc.cli import options as o
from calc.cli.option_groups import DEPLOYMENT, ENGINE, Options, with_options, without

Files = Annotated[
    list[Path],
    typer.Argument(
        help="Result files: vllm bench serve --save-result JSON (and vllm bench sweep's "
        "summary.json), SGLang bench_serving JSONL, GuideLLM benchmarks.json or .yaml, AIPerf "
        "/ GenAI-Perf profile_export*.json, profile_export_aiperf.csv or the per-request "
        "profile_export.jsonl, trtllm-bench --report_json or --request_json; trtllm-bench's "
        "printed report or GenAI-Perf's printed table pasted into a text file, or "
        "profile_export_genai_perf.csv; - reads one from standard input.",
        show_default=False,
    ),
]
ModelOpt = Annotated[
    str | None,
    typer.Option("--model", "-m", help="The model served (default: the one the file names)."),
]
EngineOpt = Annotated[
    str | None,
    typer.Option(
        "--engine",
        help="The engine that served the runs: vllm, sglang or trtllm (default: the one the "
        "file's tool or backend names, else vllm).",
    ),
]
Log = Annotated[
    Path | None,
    typer.Option(
        "--log",
        help="The engine's start-up log of the run: its settings (TP, batch limits, memory "
        "fraction) and its printed KV pool are used where no option gives them.",
    ),
]
LengthOpt = Annotated[
    str | None,
    typer.Option(
        "--prompt",
        help="Replace the recorded prompt lengths: a number, uniform:LO:HI or lognormal:MEAN:CV.",
    ),
]
GenOpt = Annotated[
    str | None,
    typer.Option("--gen", help="Replace the recorded output lengths (as --prompt)."),
]
Seed = Annotated[
    int, typer.Option("--seed", help="Seed of the arrivals and lengths drawn (where not recorded).")
]
PrefixCached = Annotated[
    float,
    typer.Option(
        "--prefix-cached",
        help="Fraction (0-1) of each prompt the engine found in its prefix cache: 1 for a "
        "rerun of the same prompts (same seed) on a server with prefix caching (vLLM V1's "
        "default). Whole KV blocks of it; at least one token is computed.",
    ),
]
Concurrency = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        help="The client's limit on open requests (trtllm-bench --concurrency, GenAI-Perf "
        "--concurrency, vllm bench serve --max-concurrency), for files that do not record it "
        "(trtllm-bench's report, GenAI-Perf's printed table) or to replace the recorded one; "
        "without it such a file's requests are replayed all at once or at its rate.",
        show_default=False,
    ),
]
PoolFromFile = Annotated[
    bool,
    typer.Option(
        "--pool-from-file",
        help="Replay with the KV pool, running-request cap and chunk size the result file "
        "records the server ran with (SGLang bench_serving's server_info; trtllm-bench's "
        "runtime batch size and tokens) in place of kvcalc's own, to tell a pool error from a "
        "speed error. Either way the report compares them (kv_cache_tokens, max_num_seqs, "
        "max_batched_tokens rows).",
    ),
]
SaveCal = Annotated[
    Path | None,
    typer.Option(
        "--save-calibration",
        help="Fit a step calibration to the runs (see --fit) and write it here (YAML), for "
        "--calibration FILE in every command.",
    ),
]
FitOpt = Annotated[
    str | None,
    typer.Option(
        "--fit",
        help="Parameters --save-calibration fits, comma-separated: gemm, attention, moe, "
        "communication (multipliers on those op times), host (a host time per forward pass), "
        "host_seq (per sequence in a forward pass), request (each request's latency outside "
        "the engine). Default gemm,host_seq,request.",
    ),
]


# --tp/--pp/--ep/--engine default to the files' own (None here), declared below; every other
# deployment and engine option is the table's, over what a file or --log states
@with_options(without(DEPLOYMENT, "tp", "pp", "ep"), without(ENGINE, "engine"))
def score(
    files: Files,
    model: ModelOpt = None,
    hardware: o.Hardware = None,
    log: Log = None,
    prompt: LengthOpt = None,
    gen: GenOpt = None,
    seed: Seed = 0,
    prefix_cached: PrefixCached = 0.0,
    concurrency: Concurrency = None,
    pool_from_file: PoolFromFile = False,
    efficiency: d.Efficiency = "expected",
    tp: Annotated[int | None, typer.Option("--tp", help="Tensor-parallel GPUs.")] = None,
    pp: Annotated[int | None, typer.Option("--pp", help="Pipeline-parallel stages.")] = None,
    ep: Annotated[int | None, typer.Option("--ep", help="Expert-parallel GPUs.")] = None,
    engine: EngineOpt = None,
    save_calibration: SaveCal = None,
    fit: FitOpt = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
    report_file: o.Report = None,
    *,
    options: Options,
) -> None:
    """Hold benchmark result files against kvcalc: read each run's settings (model, rate or
    client concurrency, lengths, the deployment where recorded), replay its workload through
    the serving simulation on the deployment (from the file, --log or the options), and show
    predicted vs measured TTFT, TPOT, ITL and E2E (mean, median, p90, p99), request and token
    throughput and goodput (where the file states SLOs), each with its signed error
    (predicted − measured) / measured.

    With --save-calibration the multipliers and host time of --fit are fitted to all the
    runs (one hardware profile), each run's residual shown; --calibration FILE then applies
    them in latency, cost, simulate, plan, check and sweep. --report FILE.html also writes the
    runs and every figure predicted against measured as one page.

    Example: kvcalc score vllm-4.0qps-Llama-3.3-70B.json -H h100 --tp 4
    """
    from calc.api import score as run
    from calc.cli.common import (
        check_choice,
        check_report,
        command_line,
        emit_report,
        write_report,
    )
    from calc.output.render import FORMATS, check_format_output

    check_choice("--format", fmt, FORMATS)
    if fmt != "table":  # before the replays (a table's name is checked where it is written)
        check_format_output(output, fmt)
    if (piped := sum(str(f) == "-" for f in files)) > 1:
        from calc.errors import InvalidInputError

        raise InvalidInputError(f"- (standard input) is named {piped} times: it holds one "
                                "result file; name the others by path")  # fmt: skip
    check_report(report_file, ("--output", output), ("--save-calibration", save_calibration))
    report = run(
        files, model=model, hardware=hardware, log=log, prompt=prompt, gen=gen, seed=seed,
        prefix_cached=prefix_cached, concurrency=concurrency, efficiency=efficiency,
        save_calibration=save_calibration, pool_from_file=pool_from_file,
        fit=fit, tp=tp, pp=pp, ep=ep, engine=engine, **options,
    )  # fmt: skip
    emit_report(report, fmt, output, table=lambda: _table(report), explain=explain)
    from calc.reports.report_score import score_document

    write_report(report_file, lambda: score_document(report, command_line()))


def _table(report):
    from rich.console import Group

    from calc.output.render import kv_table, rows_table, signed_percent

    parts = []
    for run in report.fields["runs"]:
        head = {k: v for k, v in run.items() if k != "source"}
        parts.append(kv_table(head, f"{run['source']}"))
        rows = [
            {
                "metric": r["metric"] + (f" {r['stat']}" if r["stat"] else ""),
                "predicted": _show(r["predicted"], r["unit"]),
                "measured": _show(r["measured"], r["unit"]),
                "error": "n/a" if r["error"] is None else signed_percent(r["error"], 1),
            }
            for r in report.rows
            if r["source"] == run["source"] and r["unit"] in ("s", "1/s")
        ]
        parts.append(rows_table(rows, "predicted vs measured (latencies in ms, rates per s)"))
        checks = [
            {"figure": f"{r['metric']} ({r['unit']})", "recorded": f"{r['measured']:,}",
             "kvcalc": f"{r['predicted']:,}", "error": signed_percent(r["error"], 2)}
            for r in report.rows
            if r["source"] == run["source"] and r["unit"] not in ("s", "1/s")
        ]
        if checks:
            parts.append(rows_table(checks, "deployment as recorded vs modelled"))
    fit = report.fields.get("fit")
    if fit:
        parts.append(kv_table({k: v for k, v in fit.items() if k != "runs"}, "calibration fit"))
        parts.append(rows_table(fit["runs"], "residuals after the fit"))
    return Group(*parts)


def _show(value, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit == "s":
        return f"{value * 1e3:,.2f}"
    return f"{value:,.2f}"
