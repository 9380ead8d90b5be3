"""`kvcalc plan`: the cheapest deployments that serve a request rate within p99 TTFT/TPOT."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import deploy_options as d
from calc.cli import options as o

Names = Annotated[
    list[str],
    typer.Option(
        "--model",
        "-m",
        help="Model(s) to plan for: shipped names, YAML or config.json paths; repeat it or "
        "give a comma-separated list.",
    ),
]


def plan(
    model: Names,
    rate: Annotated[float, typer.Option("--rate", help="Requests per second (Poisson).")],
    prompt: Annotated[
        str,
        typer.Option(
            "--prompt",
            help="Prompt tokens per request: a number, uniform:LO:HI or lognormal:MEAN:CV "
            "(the screen uses the mean, the simulation samples it).",
        ),
    ],
    gen: Annotated[
        str,
        typer.Option("--gen", help="Output tokens per request: a number or a distribution."),
    ],
    ttft_p99: Annotated[
        str, typer.Option("--ttft-p99", help="p99 time-to-first-token target, e.g. 2s, 500ms.")
    ],
    tpot_p99: Annotated[
        str, typer.Option("--tpot-p99", help="p99 time-per-output-token target, e.g. 50ms.")
    ],
    hardware: Annotated[
        str | None,
        typer.Option(
            "--hardware",
            "-H",
            help="Accelerators to consider, comma-separated (default: every shipped profile).",
        ),
    ] = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine", help="Serving engines to consider, comma-separated: vllm, sglang, trtllm."
        ),
    ] = "vllm",
    max_gpus: Annotated[
        int | None, typer.Option("--max-gpus", help="Most GPUs the deployment may use.")
    ] = None,
    budget_usd_per_hour: Annotated[
        float | None,
        typer.Option("--budget-usd-per-hour", help="Most the deployment may cost per hour."),
    ] = None,
    top: Annotated[int, typer.Option("--top", help="Ranked rows to show.")] = 10,
    usd_per_hour: Annotated[
        float | None,
        typer.Option(
            "--usd-per-hour",
            help="Price per GPU-hour for every profile, overriding their list prices.",
        ),
    ] = None,
    capex_usd_per_gpu: Annotated[
        float | None,
        typer.Option(
            "--capex-usd-per-gpu",
            help="Owned hardware: purchase price per GPU "
            "(prices a GPU-hour by TCO; give one --hardware).",
        ),
    ] = None,
    amortise_years: Annotated[
        float | None,
        typer.Option(
            "--amortise-years", help="Owned hardware: service life [years] (default 4)."
        ),
    ] = None,
    power_kw_per_gpu: Annotated[
        float | None,
        typer.Option(
            "--power-kw-per-gpu",
            help="Owned hardware: power per GPU incl. its share "
            "of the server [kW] (required with --capex-usd-per-gpu).",
        ),
    ] = None,
    pue: Annotated[
        float | None,
        typer.Option(
            "--pue", help="Owned hardware: data-centre power usage effectiveness (default 1.3)."
        ),
    ] = None,
    usd_per_kwh: Annotated[
        float | None,
        typer.Option(
            "--usd-per-kwh", help="Owned hardware: electricity price [USD/kWh] (default 0.10)."
        ),
    ] = None,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="How loads are evaluated: auto (the serving simulation "
            "where installed), simulation, analytic.",
        ),
    ] = "auto",
    disaggregation: Annotated[
        bool,
        typer.Option(
            "--disaggregation/--no-disaggregation",
            help="Also size prefill/decode-disaggregated families (xPyD).",
        ),
    ] = True,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the simulated arrivals.")] = 0,
    efficiency: d.Efficiency = "expected",
    calibration: o.Calibration = None,
    fmt: o.RowFormat = "table",
    output: o.Output = None,
    explain: Annotated[
        bool,
        typer.Option("--explain", help="Why the winner fits and what dominates its TTFT/TPOT."),
    ] = False,
    report_file: o.Report = None,
) -> None:
    """The cheapest deployments (hardware × dtypes × tp/pp/ep × replicas × engine, and
    prefill/decode disaggregation) that serve --rate requests/s of --prompt + --gen tokens
    with p99 TTFT and TPOT within the targets: a ranked table (GPUs, USD per hour and per
    million tokens, p99s, headroom), every rejected family with its reason (does not fit,
    SLO ttft, SLO tpot, budget, saturated) and the winner's engine launch command.

    Example: kvcalc plan --model llama3-70b --rate 10 --prompt 2048 --gen 256 --ttft-p99 2s
    --tpot-p99 50ms
    """
    from calc.cli.common import check_choice, check_report, command_line, warn, write_report
    from calc.errors import InvalidInputError
    from calc.output.render import ROW_FORMATS, emit
    from calc.reports.plan import PlanQuery, Slo
    from calc.reports.plan import plan as run_plan
    from calc.reports.plan_eval import Load
    from calc.reports.sweep import parse_names
    from calc.reports.tco import Pricing
    from calc.serve.workload import parse_duration_s as parse_duration

    check_choice("--format", fmt, ROW_FORMATS)
    check_report(report_file, ("--output", output))
    if seed < 0 or seed >= 2**32:
        raise InvalidInputError(f"--seed must be in 0..{2**32 - 1}, got {seed}")
    models = tuple(dict.fromkeys(n for m in model for n in parse_names(m, "--model")))
    hws = tuple(parse_names(hardware, "--hardware")) if hardware else None
    engines = tuple(parse_names(engine, "--engine"))
    pricing = Pricing(
        usd_per_hour=usd_per_hour,
        capex_usd_per_gpu=capex_usd_per_gpu,
        amortise_years=amortise_years,
        power_kw_per_gpu=power_kw_per_gpu,
        pue=pue,
        usd_per_kwh=usd_per_kwh,
    )
    if pricing.owned and (hws is None or len(hws) != 1):
        raise InvalidInputError(
            "--capex-usd-per-gpu prices one kind of owned GPU: give one --hardware"
        )
    query = PlanQuery(
        models=models,
        load=Load.parse(rate, prompt, gen, seed=seed),
        slo=Slo(
            ttft_p99_s=parse_duration(ttft_p99, "--ttft-p99"),
            tpot_p99_s=parse_duration(tpot_p99, "--tpot-p99"),
        ),
        hardware=hws,
        engines=engines,
        max_gpus=max_gpus,
        budget_usd_per_hour=budget_usd_per_hour,
        pricing=pricing,
        top=top,
        disaggregation=disaggregation,
        efficiency=efficiency,
        calibration=calibration,
    )
    report = run_plan(query, method=method, seed=seed)
    warn(report.warnings)
    emit(
        report.fields,
        fmt,
        output,
        rows=report.fields["rows"],
        table=lambda: plan_table(report),
        explain=report.figures if explain else (),
        trailer=launch_lines(report),
    )
    from calc.reports.report_plan import plan_document

    write_report(
        report_file, lambda: plan_document(report, query, seed=seed, command=command_line())
    )


def launch_lines(report) -> list[str]:
    """The winner's commands after the tables, one per line, never wrapped."""
    if not report.launch:
        return []
    from calc.reports.launch_flags import command_lines

    return ["Launch the winner:", *command_lines(report.launch)]


RANKED = (
    "rank",
    "model",
    "hardware",
    "dtypes",
    "layout",
    "mode",
    "replicas",
    "gpus",
    "USD/h",
    "USD/Mtok in",
    "USD/Mtok out",
    "p99 TTFT",
    "p99 TPOT",
    "headroom",
    "engine",
    "method",
)
REJECTED = ("model", "hardware", "dtypes", "layout", "mode", "engine", "reason", "detail")


def _display(row: dict) -> dict:
    out = dict(row)
    if row.get("calibrated"):
        out["hardware"] = f"{row['hardware']} (calibrated)"
    out["dtypes"] = f"{row['weight_dtype']}/{row['kv_dtype']}"
    out["layout"] = f"tp{row['tp']} pp{row['pp']} ep{row['ep']}"
    if row["mode"] != "disaggregated":
        out["mode"] = "agg"
    elif row.get("prefill_replicas") is None:  # a rejected family: never split into replicas
        out["mode"] = "disagg"
    else:
        out["mode"] = f"{row['prefill_replicas']}P{row['decode_replicas']}D"
    if "ttft_p99_headroom" in row:
        from calc.output.render import human

        out["headroom"] = f"{row['ttft_p99_headroom']:.0%} / {row['tpot_p99_headroom']:.0%}"
        out["USD/h"] = f"${row['usd_per_hour_per_deployment']:,.2f}"
        out["USD/Mtok in"] = f"${row['usd_per_million_input_tokens_at_load']:,.4f}"
        out["USD/Mtok out"] = f"${row['usd_per_million_output_tokens_at_load']:,.4f}"
        out["p99 TTFT"] = human("ttft_p99_s", row["ttft_p99_s"])
        out["p99 TPOT"] = human("tpot_p99_s", row["tpot_p99_s"])
    return out


def plan_table(report):
    """The ranked table and the rejected families (the winner's commands follow the tables,
    ``launch_lines``)."""
    from rich.console import Group

    from calc.output.render import kv_table, rows_table

    f = report.fields
    head = {
        k: v
        for k, v in f.items()
        if not isinstance(v, list | dict) and v is not None and not k.startswith("launch")
    }
    parts = [kv_table(head, "kvcalc plan: the load and the search")]
    rows = [_display(r) for r in f["rows"]]
    if rows:
        parts.append(
            rows_table(
                rows,
                "Ranked (cheapest first; headroom: TTFT / TPOT p99 left of the SLO)",
                columns=RANKED,
                keys=1,
            )
        )
    rejected = [_display(r) for r in f["rejected"]]
    if rejected:
        parts.append(rows_table(rejected, "Rejected families", columns=REJECTED))
    return Group(*parts)
