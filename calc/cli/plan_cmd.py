"""`kvcalc plan`: the cheapest deployments that serve a request rate within p99 TTFT/TPOT."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import deploy_options as d
from calc.cli import options as o
from calc.cli.option_groups import Options, specs, with_options
from calc.cli.price_options import PRICE
from calc.deploy.options import Option

Names = Annotated[
    list[str],
    typer.Option(
        "--model",
        "-m",
        help="Model(s) to plan for: shipped names, YAML or config.json paths; repeat it or "
        "give a comma-separated list.",
    ),
]


# the load, the targets and the search (its own --hardware/--engine/--weight-dtype/--kv-dtype
# are lists; it chooses tp/pp/ep), in --help's order
PLAN = (
    Option(
        "prompt", str | None, None,
        "Prompt tokens per request: a number, uniform:LO:HI or lognormal:MEAN:CV (the screen "
        "uses the mean, the simulation samples it; a --trace's own otherwise).",
    ),
    Option("gen", str | None, None, "Output tokens per request: a number or a distribution."),
    Option("ttft_p99", str, "", "p99 time-to-first-token target, e.g. 2s, 500ms."),
    Option("tpot_p99", str, "", "p99 time-per-output-token target, e.g. 50ms."),
    Option("rate", float | None, None, "Requests per second (Poisson)."),
    Option(
        "concurrency", int | None, None,
        "Plan for N users in a closed loop (each sends its next request when the last "
        "finishes) instead of --rate.",
    ),
    Option(
        "trace", str | None, None,
        "A CSV trace (arrival_s, prompt_tokens, output_tokens): its arrivals and lengths "
        "(--rate rescales its times; --prompt/--gen replace its lengths).",
    ),
    Option(
        "prefix_shared", float, 0.0,
        "Fraction of every prompt that is a prefix all requests share (a system prompt), "
        "served from the prefix cache (0-1).",
    ),
    Option(
        "hardware", str | None, None,
        "Accelerators to consider, comma-separated (default: every shipped profile).",
        ("-H",),
    ),
    Option(
        "engine", str, "vllm",
        "Serving engines to consider, comma-separated: vllm, sglang, trtllm.",
    ),
    Option(
        "weight_dtype", str | None, None,
        "Weight formats allowed, comma-separated: released, fp8, fp4 (NVFP4 on NVIDIA, MXFP4 "
        "on AMD) or a format (nvfp4, fp8-block128, int4-g128, ...). Default: as released plus"
        " the formats the GPU runs natively.",
    ),
    Option(
        "kv_dtype", str | None, None,
        "KV-cache formats allowed, comma-separated: released, fp8, ... Default: as released "
        "plus fp8 where the GPU runs it.",
    ),
    Option(
        "margin", str | None, None,
        "A uniform margin on both p99s (20% or 0.2) in place of each class's measured error "
        "band (docs/validation.md); 0 ranks on the predictions alone.",
    ),
    Option("max_gpus", int | None, None, "Most GPUs the deployment may use."),
    Option(
        "budget_usd_per_hour", float | None, None,
        "Most the whole deployment may cost per hour [USD].",
    ),
    Option("top", int, 10, "Ranked rows to show."),
    Option(
        "method", str, "auto",
        "How loads are evaluated: auto (the serving simulation where installed), simulation, "
        "analytic.",
    ),
    Option(
        "disaggregation", bool, True,
        "Also size prefill/decode-disaggregated families (xPyD, the two shapes chosen apart).",
        ("--disaggregation/--no-disaggregation",),
    ),
    Option("seed", int, 0, "Seed of the simulated arrivals."),
    d.EFFICIENCY,
)  # fmt: skip


@with_options(PLAN, specs("engine_version", "moe_imbalance", "calibration",
                          "scheduler_recv_interval", "batch_wait_iters", "batch_wait_ratio"),
              PRICE)  # fmt: skip
def plan(
    model: Names,
    fmt: o.RowFormat = "table",
    output: o.Output = None,
    explain: Annotated[
        bool,
        typer.Option("--explain", help="Why the winner fits and what dominates its TTFT/TPOT."),
    ] = False,
    report_file: o.Report = None,
    *,
    options: Options,
) -> None:
    """The cheapest deployments (hardware × dtypes × tp/pp/ep × replicas × engine, and
    prefill/decode disaggregation) that serve --rate requests/s (or --concurrency users, or a
    --trace) of --prompt + --gen tokens with p99 TTFT and TPOT within the targets at the
    pessimistic end of each class's measured error band (or --margin), every GPU priced on one
    --price-basis. First line: the answer in one sentence; then a ranked table (GPUs, USD per
    hour and per million tokens, p99s, margins, confidence, weakest provenance), every rejected
    family with its reason and the winner's engine launch command.

    Example: kvcalc plan --model llama3-70b --rate 10 --prompt 2048 --gen 256 --ttft-p99 2s
    --tpot-p99 50ms
    """
    from calc.api import plan as run
    from calc.cli.common import (
        check_choice,
        check_report,
        command_line,
        warn,
        write_report,
    )
    from calc.output.render import ROW_FORMATS, emit

    check_choice("--format", fmt, ROW_FORMATS)
    check_report(report_file, ("--output", output))
    report = run(model, **options)
    query = report.query
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
    seed = options["seed"]

    def document():  # the HTML modules imported only for a --report
        from calc.reports.report_plan import plan_document

        return plan_document(report, query, seed=seed, command=command_line())

    write_report(report_file, document)


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
    "gpus",
    "USD/h",
    "USD/Mtok out",
    "p99 TTFT",
    "p99 TPOT",
    "margin",
    "headroom",
    "confidence",
    "weakest",
    "engine",
)
REJECTED = ("model", "hardware", "dtypes", "layout", "mode", "engine", "reason", "detail")


def _layout(tp, pp, ep) -> str:
    return f"tp{tp} pp{pp} ep{ep}"


def _display(row: dict) -> dict:
    out = dict(row)
    if row.get("calibrated"):
        out["hardware"] = f"{row['hardware']} (calibrated)"
    out["dtypes"] = f"{row['weight_dtype']}/{row['kv_dtype']}" + (
        " *" if row.get("needs_checkpoint") else ""
    )
    out["layout"] = _layout(row["tp"], row["pp"], row["ep"])
    if row["mode"] != "disaggregated":
        out["mode"] = f"agg ×{row['replicas']}" if "replicas" in row else "agg"
    elif row.get("prefill_replicas") is None:  # a rejected family: never split into replicas
        out["mode"] = "disagg"
    else:
        out["mode"] = f"{row['prefill_replicas']}P{row['decode_replicas']}D"
        if (row["decode_tp"], row["decode_pp"], row["decode_ep"]) != (row["tp"], row["pp"],
                                                                       row["ep"]):  # fmt: skip
            out["layout"] += " / " + _layout(row["decode_tp"], row["decode_pp"], row["decode_ep"])
    if "ttft_p99_headroom" in row:
        from calc.output.render import human

        out["headroom"] = f"{row['ttft_p99_headroom']:.0%} / {row['tpot_p99_headroom']:.0%}"
        out["margin"] = f"×{row['ttft_factor']:.2f} / ×{row['tpot_factor']:.2f}"
        flag = "!" if row.get("price_flagged") else ""
        out["USD/h"] = f"${row['usd_per_hour_per_deployment']:,.2f}{flag}"
        mtok = row["usd_per_million_output_tokens_at_load"]
        out["USD/Mtok out"] = "-" if mtok is None else f"${mtok:,.4f}"
        out["p99 TTFT"] = human("ttft_p99_s", row["ttft_p99_s"])
        out["p99 TPOT"] = human("tpot_p99_s", row["tpot_p99_s"])
        basis = {"band": "", "widest": " (unvalidated)", "margin": " (--margin)",
                 "calibration": " (calibration band)"}  # fmt: skip
        out["confidence"] = f"{row['confidence_class']}{basis.get(row['confidence_basis'], '')}"
        out["weakest"] = row["weakest_provenance"]
    return out


def plan_table(report):
    """The answer, the ranked table and the rejected families (the winner's commands follow
    the tables, ``launch_lines``)."""
    from rich.console import Group
    from rich.text import Text

    from calc.output.render import kv_table, rows_table

    f = report.fields
    head = {
        k: v
        for k, v in f.items()
        if not isinstance(v, list | dict)
        and v is not None
        and not k.startswith("launch")
        and k != "answer"
    }
    parts = [Text(f["answer"]), kv_table(head, "kvcalc plan: the load and the search")]
    rows = [_display(r) for r in f["rows"]]
    if rows:
        parts.append(
            rows_table(
                rows,
                f"Ranked on {f['price_basis']} prices (cheapest first; margin: the class's "
                "pessimistic factor on p99 TTFT / TPOT; headroom: the SLO left at that end; "
                "* needs a quantised checkpoint; ! a derived or placeholder price)",
                columns=RANKED,
                keys=1,
            )
        )
    rejected = [_display(r) for r in f["rejected"]]
    if rejected:
        parts.append(rows_table(rejected, "Rejected families", columns=REJECTED))
    return Group(*parts)
