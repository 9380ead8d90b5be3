"""Renders a measurement report (the dict of SuiteReport.fields) as a table, Markdown, JSON or
CSV, and writes them into a folder with the calibration all the reports make together
(`python -m calc.measure.report REPORT.json [...] FOLDER`)."""

from __future__ import annotations

import sys
from pathlib import Path

from calc.output.render import human, print_table, to_csv, to_json, write_atomic

# (key in the row, header shown): tables abbreviate; JSON and CSV carry every field in full.
TABLE_COLUMNS = (
    ("kernel", "kernel"), ("variant", "variant"), ("backend", "backend"), ("shape", "shape"),
    ("status", "status"), ("bound", "bound"), ("predicted_s", "predicted"),
    ("measured_median_s", "median"), ("p10-p90", "p10–p90"), ("spread_pct", "spread"),
    ("achieved_flops_per_s", "GFLOP/s"), ("achieved_bytes_per_s", "GB/s"),
    ("fraction_of_peak", "of peak"), ("error_pct", "error"),
    ("predicted_memory_bytes", "mem pred MB"), ("peak_memory_bytes", "mem peak MB"),
)  # fmt: skip
_LEFT = ("kernel", "variant", "backend", "shape", "status", "bound")


def _sig4(x: float) -> str:
    """Four significant digits, never in e-notation (a 12-byte peak is 0.00001200 MB, not
    1.2e-05): ``:,.4g`` from 10^-4 up, fixed decimals below."""
    import math

    if x == 0 or not math.isfinite(x) or abs(x) >= 1e-4:
        return f"{x:,.4g}"
    return f"{x:,.{3 - math.floor(math.log10(abs(x)))}f}"


def _us(seconds) -> str:
    if seconds is None:
        return "—"
    return f"{_sig4(seconds * 1e6)} µs" if seconds < 1e-3 else f"{seconds * 1e3:,.4g} ms"


def _cell(r: dict, c: str) -> str:
    if c == "p10-p90":
        lo, hi = r.get("measured_p10_s"), r.get("measured_p90_s")
        return "—" if lo is None else f"{_us(lo)}–{_us(hi)}"
    v = r.get(c)
    if v is None:
        return "—"
    if c.endswith("_s") and not c.endswith("per_s"):
        return _us(v)
    if c.endswith("_per_s") or c.endswith("memory_bytes"):
        return _sig4(v / 1e9) if c.endswith("per_s") else _sig4(v / 1e6)
    if c == "fraction_of_peak":
        return f"{v:.1%}"
    if c == "spread_pct":
        return f"{v:.0f}%" + (" noisy" if r.get("too_noisy") else "")
    if c == "error_pct":
        return f"{v:+.0f}%"
    return human(c, v, compact=True)


def _error_cell(r: dict) -> str:
    """The error column: 'too noisy' in place of an error the machine, not the model, made."""
    return "too noisy" if r.get("too_noisy") else _cell(r, "error_pct")


def cells(r: dict) -> list[str]:
    return [_error_cell(r) if key == "error_pct" else _cell(r, key) for key, _ in TABLE_COLUMNS]


def noisy_note(fields: dict) -> str:
    """One line on the rows too noisy to score (empty when none)."""
    n = fields.get("n_too_noisy") or 0
    if not n:
        return ""
    return (
        f"{n} kernel(s) too noisy to score: (p90 - p10) / median above "
        f"{fields['max_spread_pct']:g}% (a busy machine?); left out of the error statistics "
        "and the calibration"
    )


def summary(fields: dict) -> str:
    """Error statistics, the fixed kernel cost and the small-M GEMM curve, in a few lines."""
    lines = []
    if fields.get("n_scored"):
        lines.append(
            f"error over {fields['n_scored']} scored kernels: median "
            f"{fields['median_error_pct']:+.0f}%, median |error| "
            f"{fields['median_abs_error_pct']:.0f}%."
        )
    eager, graph = fields.get("kernel_overhead_eager_s"), fields.get("kernel_overhead_graph_s")
    if eager is not None or graph is not None:
        parts = [f"{name} {_us(v)}" for name, v in (("CUDA graph", graph), ("eager", eager))
                 if v is not None]  # fmt: skip
        lines.append(
            f"fixed cost of one kernel: {', '.join(parts)}; calibration saves "
            f"{_us(fields.get('calibration_kernel_overhead_s'))}."
        )
    curve = fields.get("calibration_gemm_m_curve") or []
    if curve:
        pts = ", ".join(f"{p['m']}: {p['slowdown']:.2f}" for p in curve)
        lines.append(f"small-M GEMM slowdown vs roofline at the calibrated bands (M: ×): {pts}.")
    if noisy_note(fields):
        lines.append(noisy_note(fields) + ".")
    return " ".join(lines)


def table(fields: dict):
    """A rich table of the rows, with the profile's peaks in the caption."""
    from rich.table import Table

    t = Table(title=title(fields), title_justify="left", header_style="bold")
    for key, header in TABLE_COLUMNS:
        t.add_column(header, justify="left" if key in _LEFT else "right", overflow="fold")
    for r in fields["rows"]:
        t.add_row(*cells(r))
    t.caption = caption(fields)
    t.caption_justify = "left"
    return t


def title(fields: dict) -> str:
    probed = " (probed on this machine)" if fields["profile_probed"] else ""
    return (
        f"{fields['model']}: one layer, {fields['dtype']}, widths/heads ÷{fields['scale']}, on "
        f"{fields['device_name']}; predicted with {fields['hardware']}{probed}"
    )


def caption(fields: dict) -> str:
    text = (
        f"peaks: {fields['peak_flops_per_s'] / 1e12:,.4g} TFLOP/s {fields['dtype']}, "
        f"{fields['peak_bytes_per_s'] / 1e9:,.4g} GB/s; efficiencies used: matmul "
        f"{fields['matmul_efficiency']:.2f}, memory {fields['memory_efficiency']:.2f}. "
        "error = (predicted - measured) / measured; spread = (p90 - p10) / median; "
        "kernel_overhead rows: per kernel of the chain. G = 10^9, MB = 10^6 B. torch "
        f"{fields['torch_version']}; times: median and p10–p90 of {_repeats(fields)} runs."
    )
    extra = summary(fields)
    return f"{text} {extra}" if extra else text


def markdown(fields: dict) -> str:
    """The table as GitHub Markdown: a heading, the rows, the caption below."""
    esc = lambda x: str(x).replace("|", "\\|")  # noqa: E731
    out = [f"### {esc(title(fields))}", ""]
    out.append("| " + " | ".join(h for _, h in TABLE_COLUMNS) + " |")
    out.append("|" + "|".join(":--" if k in _LEFT else "--:" for k, _ in TABLE_COLUMNS) + "|")
    out += ["| " + " | ".join(esc(c) for c in cells(r)) + " |" for r in fields["rows"]]
    return "\n".join([*out, "", caption(fields), ""])


def _repeats(fields: dict) -> str:
    reps = sorted({r["repeats"] for r in fields["rows"] if r["repeats"]})
    return "/".join(str(x) for x in reps) or "0"


def render(fields: dict, fmt: str) -> str:
    if fmt == "json":
        return to_json(fields)
    if fmt == "csv":
        return to_csv(fields["rows"])
    return print_table(table(fields))


def write_all(fields: dict, folder: Path, stem: str) -> list[Path]:
    """``stem``.json, .csv, .txt (the table) and .md (the table in Markdown) in ``folder``."""
    paths = []
    for fmt, ext in (("json", "json"), ("csv", "csv"), ("table", "txt")):
        path = Path(folder) / f"{stem}.{ext}"
        write_atomic(path, render(fields, fmt))
        paths.append(path)
    path = Path(folder) / f"{stem}.md"
    write_atomic(path, markdown(fields))
    return [*paths, path]


def combined_csv(reports: list[dict]) -> str:
    """Every row of several reports in one CSV, each row led by its model and hardware."""
    rows = [{"model": f["model"], "hardware": f["hardware"], **r} for f in reports
            for r in f["rows"]]  # fmt: skip
    return to_csv(rows)


def combined_calibration(reports: list[dict]):
    """One Calibration from every row of ``reports`` (calc.measure.calibrate: the bands, the
    fixed kernel cost, the small-M GEMM curve over all their GEMM shapes), or None when they
    were scored against different profiles. Where no row fits a band, the first report's
    expected efficiency stands in (low = expected = high)."""
    from calc.data.hardware_schema import Band
    from calc.measure.calibrate import build_calibration

    first = reports[0]
    if any(f["hardware"] != first["hardware"] for f in reports):
        return None
    mm, mem = first["matmul_efficiency"], first["memory_efficiency"]
    return build_calibration(
        [r for f in reports for r in f["rows"]],
        hardware=first["hardware"],
        device=first["device_name"],
        fallback_matmul=Band(low=mm, expected=mm, high=mm),
        fallback_memory=Band(low=mem, expected=mem, high=mem),
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m calc.measure.report A.json [B.json ...] FOLDER``: each report as
    .json/.csv/.txt/.md in FOLDER, all rows together in FOLDER/all.csv, and the calibration
    of all rows together in FOLDER/calibration.yaml (when all were scored against one
    profile)."""
    import json

    from calc.output.safe_io import forget_inputs, read_input

    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        sys.stderr.write("usage: python -m calc.measure.report REPORT.json [...] FOLDER\n")
        return 2
    folder = Path(args[-1])
    reports = []
    for src in map(Path, args[:-1]):
        raw = read_input(src, what="a measure report", max_bytes=64_000_000)
        fields = json.loads(raw.decode("utf-8"))
        forget_inputs()  # FOLDER may be the reports' own: SRC.json is rewritten as it was read
        reports.append(fields)
        for p in write_all(fields, folder, src.stem):
            sys.stdout.write(f"{p}\n")
    write_atomic(folder / "all.csv", combined_csv(reports))
    sys.stdout.write(f"{folder / 'all.csv'}\n")
    cal = combined_calibration(reports)
    if cal is None:
        sys.stderr.write("calc.measure.report: profiles differ: no calibration.yaml\n")
    else:
        from calc.measure.calibrate import calibration_yaml

        write_atomic(folder / "calibration.yaml", calibration_yaml(cal))
        sys.stdout.write(f"{folder / 'calibration.yaml'}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
