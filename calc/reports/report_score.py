"""The HTML page of ``kvcalc score`` [a Document]: the runs scored, every figure predicted against
measured (a chart of the latencies, predicted over measured, beside the line where they agree),
the fit where one was made, the derivation and the warnings."""

from __future__ import annotations

import statistics

from calc.output.html_report import Document
from calc.output.svg_chart import Chart, Series
from calc.reports.report_views import generic_document

LATENCIES = ("ttft", "tpot", "itl", "e2e")


def score_document(report, command: str = "") -> Document:
    """``report`` (calc.reports.score_report's) as one page."""
    metrics = report.fields["metrics"]
    errors = [abs(m["error"]) for m in metrics
              if m.get("error") is not None and m["unit"] in ("s", "1/s")]  # fmt: skip
    runs = len(report.fields["runs"])
    answer = f"{runs} run{'s' if runs != 1 else ''} scored"
    if errors:
        answer += f": median |error| {statistics.median(errors):.1%} over {len(errors)} figures"
    doc = generic_document("kvcalc score", report.fields, answer=answer,
                           figures=report.figures, warnings=report.warnings,
                           command=command)  # fmt: skip
    chart = latency_chart(metrics)
    if chart is not None:
        doc.blocks.insert(1, chart)
    return doc


def latency_chart(metrics: list[dict]) -> Chart | None:
    """Predicted against measured latency [ms], a marker per figure (one series per metric),
    and the line where prediction equals measurement; None without a latency measured."""
    series = []
    every = []
    for name in LATENCIES:
        pts = [(m["measured"] * 1e3, m["predicted"] * 1e3) for m in metrics
               if m["metric"] == name and m.get("predicted") and m.get("measured")]  # fmt: skip
        if pts:
            series.append(Series(name.upper(), pts, line=False))
            every += [v for p in pts for v in p]
    if not series:
        return None
    lo, hi = min(every), max(every)
    series.append(Series("predicted = measured", [(lo, lo), (hi, hi)], colour="#000000",
                         dash="dashed", markers=False))  # fmt: skip
    return Chart(
        "Predicted against measured latency",
        "measured (ms)",
        "predicted (ms)",
        series,
        x_log=True,
        y_log=True,
        note="each marker one figure (mean, median or a percentile) of one run; above the "
        "dashed line kvcalc is slower than the run, below it faster",
    )
