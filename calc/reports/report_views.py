"""The HTML report of each command (``--report FILE.html``) as a ``calc.output.html_report``
document: the one-line answer, the command's tables, charts of latency against the request
rate and of tokens/s per GPU against tokens/s per user, the provenance of the hardware and
model figures used, the launch commands and the derivation. Built from the figures the command
computed (a few more points of the same models for the charts); no new quantity.

``generic_document`` renders any report's fields (scalars as facts, lists of records as
tables, figures as the derivation) so that a new command adds a report with one call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from calc.output.html_report import Document, Facts, Lines, Table
from calc.output.svg_chart import Chart, Rule, Series, number, seconds

# a field whose name holds one of these says where a figure comes from or how sure it is
PROVENANCE_WORDS = ("source", "provenance", "basis", "_date", "measured", "fitted", "assumed")
CONFIDENCE_WORDS = ("confidence", "margin", "method", "_low", "_high", "error")


def scalars(fields: dict) -> list[tuple[str, object]]:
    """The flat fields of a report (no lists, no nested records), in order."""
    return [(k, v) for k, v in fields.items() if not isinstance(v, list | dict | tuple)]


def _is_records(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(x, dict) for x in value)


def generic_document(
    title: str,
    fields: dict,
    *,
    answer: str | None = None,
    figures: Iterable = (),
    warnings: Iterable[str] = (),
    command: str = "",
    verdict: str = "",
) -> Document:
    """Any report: its scalar fields, a table per list of records (``rows``, ``results``,
    ...), whatever provenance and confidence fields it holds, the derivation and the
    warnings. The answer defaults to the title."""
    blocks: list = [Facts("Figures", scalars(fields))]
    for key, value in fields.items():
        if _is_records(value):
            blocks.append(Table(key, value))
    blocks += provenance_blocks(fields=fields)
    blocks += tail_blocks(figures, warnings)
    return Document(title, answer or title, blocks, verdict, command)


def tail_blocks(figures: Iterable = (), warnings: Iterable[str] = ()) -> list:
    """The derivation (``--explain``'s lines) and the warnings, where there are any."""
    out: list = []
    lines = [f.line() for f in figures]
    if lines:
        out.append(Lines("Derivation (--explain)", lines))
    warned = list(dict.fromkeys(warnings))
    if warned:
        out.append(Lines("Warnings", warned, kind="warnings"))
    return out


# ---------------------------------------------------------------------------------------------
# Provenance and confidence


def _walk(obj, prefix: str = "") -> Iterable[tuple[str, object]]:
    """(dotted name, value) of every field of a dataclass tree (dicts of values included)."""
    if dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            yield from _walk(getattr(obj, f.name), f"{prefix}{f.name}.")
    elif isinstance(obj, dict) and obj and all(isinstance(k, str) for k in obj):
        for k, v in obj.items():
            yield from _walk(v, f"{prefix}{k}.")
    elif obj is not None:
        yield prefix[:-1], obj


def _wanted(name: str, words) -> bool:
    leaf = name.rsplit(".", 1)[-1]
    return any(w in leaf for w in words)


def profile_provenance(profile) -> list[dict]:
    """Where a hardware profile's or model config's figures come from: every field whose
    name says so (``source``, ``price_date``, ``usable_memory_source``, a ``provenance`` of
    any shape), as rows of (what, field, value)."""
    name = getattr(profile, "name", "?")
    return [
        {"of": name, "field": key, "value": value}
        for key, value in _walk(profile)
        if _wanted(key, PROVENANCE_WORDS)
    ]


def _prices(hardware: Iterable) -> list[dict]:
    return [
        {
            "hardware": hw.name,
            "usd_per_hour": hw.usd_per_hour,
            "price_date": hw.price_date,
            "price_source": hw.price_source,
        }
        for hw in hardware
    ]


def provenance_blocks(
    *, hardware: Iterable = (), models: Iterable = (), fields: dict | None = None,
    rows: Iterable[dict] = (),
) -> list:  # fmt: skip
    """The provenance of the profiles and configs used, the prices with their date and
    source, and whatever confidence fields the report's rows carry (method, margins,
    low/high bands, confidence: shown as they are, whichever are present)."""
    hardware = list({h.name: h for h in hardware if h is not None}.values())
    models = list({m.name: m for m in models if m is not None}.values())
    out: list = []
    where = [r for p in (*hardware, *models) for r in profile_provenance(p)]
    if fields:
        where += [
            {"of": "report", "field": k, "value": v}
            for k, v in scalars(fields)
            if _wanted(k, PROVENANCE_WORDS)
        ]
    if hardware:
        out.append(
            Table(
                "Prices (per GPU-hour, as dated)",
                _prices(hardware),
                note="a price is a dated list price; --usd-per-hour or the owned-hardware "
                "options replace it",
            )
        )
    if where:
        out.append(Table("Provenance: where the figures come from", where))
    conf = []
    for row in rows:
        keep = {k: v for k, v in row.items() if _wanted(k, CONFIDENCE_WORDS)}
        if keep:
            label = {k: row[k] for k in ("rank", "model", "hardware", "deployment") if k in row}
            conf.append({**label, **keep})
    if fields:
        conf_fields = [(k, v) for k, v in scalars(fields) if _wanted(k, CONFIDENCE_WORDS)]
        if conf_fields:
            conf.append({"of": "report", **dict(conf_fields)})
    if conf:
        out.append(
            Table(
                "Confidence",
                conf,
                note="how each figure was evaluated and how far to trust it, as the "
                "report gives it (see docs/validation.md for the measured errors)",
            )
        )
    return out


# ---------------------------------------------------------------------------------------------
# Frontier and latency charts


FRONTIER_NOTE = (
    "each point one load: 1, 2, 4, ... sequences per replica up to the engine's own, in steady "
    "state with prefill charged; tokens/s per user = output tokens / serving cycle (a "
    "request's rate over its life, below 1 / TPOT)"
)


def frontier_chart(
    curves: list[tuple[str, list]], title: str, *, marks: list[tuple[str, list]] = (),
    note: str = FRONTIER_NOTE,
) -> Chart:  # fmt: skip
    """Tokens/s per GPU against tokens/s per user: a line per deployment (``curves``:
    (label, [FrontierPoint])), the Pareto frontier over all of them, and ``marks``
    ((label, [(x, y)])) as points alone."""
    from calc.reports.frontier import pareto

    series = [
        Series(label, [(p.serving_output_tokens_per_s_per_user,
                        p.serving_output_tokens_per_s_per_gpu) for p in pts])
        for label, pts in curves
    ]  # fmt: skip
    front = pareto([p for _, pts in curves for p in pts])
    if len(curves) > 1 and front:
        series.append(
            Series(
                "Pareto frontier",
                [
                    (p.serving_output_tokens_per_s_per_user, p.serving_output_tokens_per_s_per_gpu)
                    for p in front
                ],
                colour="#000000",
                width=5,
                opacity=0.25,
                markers=False,
            )
        )
    from calc.output.svg_chart import PALETTE

    for i, (label, pts) in enumerate(marks):  # each in its curve's colour, markers alone
        series.append(Series(label, pts, colour=PALETTE[i % len(PALETTE)], line=False,
                             width=3.5))  # fmt: skip
    return Chart(
        title,
        "output tokens/s per user",
        "output tokens/s per GPU",
        series,
        x_log=True,
        y_log=True,
        note=note,
    )


def latency_charts(
    curves: list[tuple[str, list[tuple[float, float, float]]]],
    *,
    ttft_slo_s=None,
    tpot_slo_s=None,
    rate_per_s=None,
    pct: str = "p99",
    note: str = "",
) -> list[Chart]:
    """TTFT and TPOT (``pct``) against the request rate: ``curves`` are (label, [(rate,
    ttft_s, tpot_s)]), the SLOs and the planned rate as reference lines."""
    out = []
    for i, (metric, slo) in enumerate((("TTFT", ttft_slo_s), ("TPOT", tpot_slo_s))):
        series = [
            Series(label, [(r, v[i]) for r, *v in pts if v[i] is not None and v[i] > 0])
            for label, pts in curves
        ]
        rules = []
        if slo:
            rules.append(Rule(f"{metric} {pct} target {seconds(slo)}", slo))
        if rate_per_s:
            rules.append(Rule(f"planned rate {number(rate_per_s)}/s", rate_per_s, "x", "#777777"))
        out.append(
            Chart(
                f"{metric} {pct} against the request rate",
                "request rate [requests/s]",
                f"{metric} {pct} [log scale]",
                series,
                y_log=True,
                rules=rules,
                y_fmt=seconds,
                note=note,
            )
        )
    return out
