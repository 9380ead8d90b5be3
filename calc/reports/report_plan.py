"""The HTML report of ``kvcalc plan`` [a ``calc.output.html_report.Document``]: the cheapest
deployment in one line, the ranked and rejected tables, p99 TTFT and TPOT against the request
rate of the leading deployments (evaluated as the plan evaluated them), their tokens/s per GPU
against tokens/s per user with the planned operating points, provenance and confidence, the
launch command and the derivation."""

from __future__ import annotations

import dataclasses

from calc.output.html_report import Document, Facts, Table
from calc.reports.report_views import (
    frontier_chart,
    latency_charts,
    provenance_blocks,
    scalars,
    tail_blocks,
)

CURVES = 3  # deployments drawn in the charts: the leading aggregated ones
RATE_STEPS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)  # × the planned rate
RANKED = (
    "rank", "model", "hardware", "dtypes", "layout", "mode", "replicas", "gpus",
    "usd_per_hour_per_deployment", "usd_per_million_input_tokens_at_load",
    "usd_per_million_output_tokens_at_load", "ttft_p99_s", "tpot_p99_s", "ttft_factor",
    "tpot_factor", "ttft_p99_headroom", "tpot_p99_headroom", "confidence_class",
    "weakest_provenance", "engine", "engine_version", "method",
)  # fmt: skip
REJECTED = ("model", "hardware", "dtypes", "layout", "mode", "engine", "reason", "detail")
HEADERS = {  # as the terminal table heads them (each key in the heading's tooltip)
    "usd_per_hour_per_deployment": "USD/h",
    "usd_per_million_input_tokens_at_load": "USD/Mtok in",
    "usd_per_million_output_tokens_at_load": "USD/Mtok out",
    "ttft_p99_s": "p99 TTFT",
    "tpot_p99_s": "p99 TPOT",
    "ttft_factor": "TTFT margin ×",
    "tpot_factor": "TPOT margin ×",
    "ttft_p99_headroom": "TTFT headroom (pessimistic)",
    "tpot_p99_headroom": "TPOT headroom (pessimistic)",
    "confidence_class": "class",
    "weakest_provenance": "weakest provenance",
}


def display(row: dict) -> dict:
    """A plan row with its dtypes, layout and mode written as the terminal table writes them."""
    out = dict(row)
    if row.get("calibrated"):  # its profile carries the --calibration file's figures
        out["hardware"] = f"{row['hardware']} (calibrated)"
    if row.get("confidence_basis") == "calibration":  # margined on the calibration's residual
        out["confidence_class"] = f"{row['confidence_class']} (calibration band)"
    if row.get("engine_version_asked"):  # a release modelled as another: both said
        from calc.reports.plan import release_label

        out["engine_version"] = release_label(row)
    out["dtypes"] = f"{row['weight_dtype']}/{row['kv_dtype']}"
    out["layout"] = f"tp{row['tp']} pp{row['pp']} ep{row['ep']}"
    if row.get("mode") == "disaggregated":
        out["mode"] = f"{row['prefill_replicas']}P{row['decode_replicas']}D"
    else:
        out["mode"] = "agg"
    for key in ("ttft_p99_headroom", "tpot_p99_headroom"):
        if isinstance(row.get(key), float):
            out[key] = f"{row[key]:.0%}"
    return out


def _label(rank: int, c) -> str:
    d = c.screened.dep
    return f"#{rank} {d.hardware.name} × {c.gpus} ({d.weight_dtype}, tp{d.tp})"


def answer(report) -> tuple[str, str]:
    """The one-line answer and its verdict (pass: something meets the targets)."""
    f = report.fields
    return f["answer"], "pass" if f["rows"] else "fail"


def _leading(report) -> list[tuple[int, object]]:
    """(rank, choice) of the leading aggregated choices, one per deployment shape."""
    seen, out = set(), []
    for rank, c in enumerate(report.choices, 1):
        if c.mode != "aggregated" or rank > len(report.fields["rows"]):
            continue
        key = id(c.screened)
        if key not in seen:
            seen.add(key)
            out.append((rank, c))
        if len(out) == CURVES:
            break
    return out


def charts(report, query, *, seed: int = 0) -> list:
    """p99 TTFT/TPOT against the rate and the frontier of the leading deployments."""
    from calc.reports.frontier import deployment_curve
    from calc.reports.plan_eval import evaluator

    load = query.load
    method = report.fields.get("method")
    evaluate = evaluator(
        method if method in ("simulation", "analytic") else "auto",
        seed=seed,
        efficiency=query.efficiency,
    )
    lead = _leading(report)
    curves = []
    for rank, c in lead:
        pts = []
        if load.rate_per_s is None or load.closed:
            break  # a closed loop has no rate to vary
        for step in RATE_STEPS:
            rate = load.rate_per_s * step
            ev = evaluate(c.screened.dep, dataclasses.replace(load, rate_per_s=rate), c.replicas)
            pts.append((rate, _finite(ev.ttft_p99_s), _finite(ev.tpot_p99_s)))
        curves.append((_label(rank, c), pts))
    out = []
    if curves:
        out += latency_charts(
            curves,
            ttft_slo_s=query.slo.ttft_p99_s,
            tpot_slo_s=query.slo.tpot_p99_s,
            rate_per_s=load.rate_per_s,
            note=f"the leading aggregated deployments at their planned replicas, evaluated by "
            f"{method} (seed {seed}); a saturated point is left out; disaggregated rows are "
            "not drawn",
        )
    fronts = [
        (_label(rank, c), deployment_curve(c.screened.dep, prompt=load.prompt, gen=load.gen,
                                           label=_label(rank, c), efficiency=query.efficiency))
        for rank, c in lead
    ]  # fmt: skip
    marks = []
    for rank, c in lead:
        ev = c.evaluation
        e2e = ev.ttft_s["p50"] + (load.gen - 1) * ev.tpot_s["p50"]
        rate = ev.requests_per_s or load.rate_per_s  # a closed loop's achieved rate
        if e2e > 0 and rate:
            point = (load.gen / e2e, rate * load.gen / c.gpus)
            marks.append((f"#{rank} at the planned load (p50)", [point]))
    if any(pts for _, pts in fronts):
        out.append(
            frontier_chart(
                [(label, pts) for label, pts in fronts if pts],
                f"Tokens/s per GPU against tokens/s per user, requests of {load.prompt:,} + "
                f"{load.gen:,} tokens",
                marks=marks,
            )
        )
    return out


def _finite(v):
    import math

    return v if v is not None and math.isfinite(v) else None


def plan_document(report, query, *, seed: int = 0, command: str = "") -> Document:
    """The plan's report (module docstring)."""
    f = report.fields
    text, verdict = answer(report)
    head = [(k, v) for k, v in scalars(f) if not k.startswith("launch")]
    blocks: list = [Facts("The load and the search", head)]
    blocks.append(
        Table(
            f"Ranked deployments on {f['price_basis']} prices (cheapest first; margin: the "
            "class's pessimistic factor; headroom: the share of the target left at that end)",
            [display(r) for r in f["rows"]],
            list(RANKED),
            headers=HEADERS,
        )
    )
    blocks.append(Table("Rejected families", [display(r) for r in f["rejected"]], list(REJECTED)))
    blocks += charts(report, query, seed=seed)
    deps = [c.screened.dep for c in report.choices] + [r.dep for r in report.rejections]
    blocks += provenance_blocks(
        hardware=[d.hardware for d in deps if d is not None],
        models=[d.model for d in deps if d is not None],
        fields=f,
        rows=f["rows"],
    )
    if report.launch:
        from calc.reports.report_runs import commands_block

        blocks.append(commands_block("Launch the winner", report.launch))
    blocks += tail_blocks(report.figures, report.warnings)
    return Document("kvcalc plan", text, blocks, verdict, command)
