"""Renders a report as one self-contained HTML file [UTF-8 text]: inline CSS and inline SVG, no
script, and nothing fetched from anywhere (a Content-Security-Policy in the page says so to the
browser), readable on a screen and on paper. Every text from the data is escaped
(``calc.output.html_text.esc``); numbers are shown as the tables show them
(``calc.output.render.human``: GB and GiB apart, ms, USD).

A document is a title, a one-line answer and a list of blocks (``Facts``, ``Table``,
``svg_chart.Chart``, ``Commands``, ``Lines``), written in that order; the views of each command
(``calc.reports.report_views``) build it from the figures the command already computed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from calc.output.html_text import esc
from calc.output.svg_chart import Chart
from calc.output.svg_chart import render as render_chart

# nothing may be fetched or run: styles only from the page itself
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'"
)
MAX_TABLE_ROWS = 500  # rows of one table; the rest are counted, not shown


@dataclass(frozen=True)
class Facts:
    """Key-value pairs (a report's scalar fields), shown as the terminal table shows them."""

    title: str
    items: list[tuple[str, object]]
    note: str = ""


@dataclass(frozen=True)
class Table:
    """Rows of records; ``columns`` picks and orders the keys (default: the first row's)."""

    title: str
    rows: list[dict]
    columns: list[str] | None = None
    note: str = ""
    status: str = ""  # a column whose true/false colours the row (check's "passed")
    headers: dict[str, str] | None = None  # column -> heading shown (default: the key)


@dataclass(frozen=True)
class Commands:
    """Shell commands to copy: each flag stays on one line with its value."""

    title: str
    commands: list[str]
    notes: list[str] = field(default_factory=list)
    files: list[tuple[str, str]] = field(default_factory=list)  # (name, content) to save
    labels: list[str] = field(default_factory=list)  # what each command launches (optional)


@dataclass(frozen=True)
class Lines:
    """Plain lines: a derivation, warnings."""

    title: str
    lines: list[str]
    kind: str = "derivation"  # derivation | warnings


@dataclass(frozen=True)
class Document:
    title: str
    answer: str  # the one-line answer
    blocks: list = field(default_factory=list)
    verdict: str = ""  # pass | fail | "" (colours the answer)
    command: str = ""  # the command line that made it


CSS = """
:root{color-scheme:light}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,
 sans-serif;color:#111;background:#fff;max-width:1180px;margin:20px auto;padding:0 16px}
h1{font-size:1.45em;margin:.2em 0 .5em}
h2{font-size:1.12em;margin:1.6em 0 .4em;border-bottom:1px solid #ccc;padding-bottom:2px}
.answer{font-size:1.18em;padding:10px 14px;border:1px solid #9ab;border-left:7px solid #1f77b4;
 margin:0 0 10px}
.answer.pass{border-left-color:#2ca02c}.answer.fail{border-left-color:#d62728}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0}
th,td{border:1px solid #c8c8c8;padding:2px 7px;vertical-align:top}
th{background:#f2f2f2;text-align:left}
td{white-space:nowrap}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.wrap{white-space:normal;overflow-wrap:anywhere;min-width:18em}
tr.fail td{color:#a00}tr.pass td:last-child{color:#070}
figure.chart{margin:10px 0 18px;break-inside:avoid}
figure.chart figcaption{font-weight:600;margin-bottom:4px}
svg.chart{width:100%;max-width:760px;height:auto;display:block}
svg.chart .frame{fill:none;stroke:#444}svg.chart .grid{stroke:#e2e2e2}
svg.chart text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
svg.chart .tick{font-size:11px;fill:#333}svg.chart .axis{font-size:12.5px;fill:#111}
ul.legend{list-style:none;padding:0;margin:4px 0;columns:2;font-size:12.5px}
ul.legend li{break-inside:avoid}
svg.swatch{width:24px;height:8px;margin-right:6px;vertical-align:middle}
p.note,.small{font-size:12px;color:#444}
code.cmd{display:block;font:12.5px/1.6 ui-monospace,SFMono-Regular,Menlo,Consolas,
 "DejaVu Sans Mono",monospace;background:#f6f6f6;border:1px solid #ddd;padding:6px 9px;
 margin:4px 0;user-select:all;white-space:normal;overflow-wrap:normal;word-break:normal}
code.cmd .arg{white-space:nowrap}
pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;
 background:#f8f8f8;border:1px solid #e2e2e2;padding:6px 9px;white-space:pre-wrap;
 overflow-wrap:anywhere}
pre.warnings{background:#fff8e6;border-color:#e8c77a}
footer{margin-top:2em;font-size:11.5px;color:#555;border-top:1px solid #ccc;padding-top:6px}
@media print{
 body{max-width:none;margin:0;padding:0;font-size:11px}
 .scroll{overflow:visible}
 table{font-size:9px}th,td{padding:1px 3px;white-space:normal}
 h2{break-after:avoid}section{break-inside:auto}tr,figure,pre,code.cmd{break-inside:avoid}
 svg.chart{max-width:640px}
}
"""


def _cell(key: str, value) -> tuple[str, bool]:
    """A table cell's text (as the terminal tables show it) and whether it is a number."""
    from calc.output.render import human

    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value), False
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items()), False
    number = isinstance(value, int | float) and not isinstance(value, bool)
    text = human(key, value, compact=True)
    if number and "e+" in text and abs(value) < 1e15:  # 1.312e+04 reads as 13,117
        text = f"{value:,.0f}"
    return text, number


def _facts(b: Facts) -> str:
    rows = []
    for key, value in b.items:
        text, number = _cell(key, value)
        cls = ' class="num"' if number else ""
        rows.append(f"<tr><th>{esc(key)}</th><td{cls}>{esc(text)}</td></tr>")
    note = f'<p class="note">{esc(b.note)}</p>' if b.note else ""
    return f'<div class="scroll"><table>{"".join(rows)}</table></div>{note}'


def _table(b: Table) -> str:
    rows = b.rows[:MAX_TABLE_ROWS]
    cols = list(b.columns) if b.columns is not None else (list(rows[0]) if rows else [])
    names = b.headers or {}
    head = "".join(f'<th title="{esc(c)}">{esc(names.get(c, c))}</th>' for c in cols)
    body = []
    for row in rows:
        cls = ""
        if b.status:
            ok = row.get(b.status) in (True, "PASS", "pass", "yes")
            cls = ' class="pass"' if ok else ' class="fail"'
        cells = []
        for c in cols:
            text, number = _cell(c, row.get(c))
            kind = " class=num" if number else (" class=wrap" if len(text) > 40 else "")
            cells.append(f"<td{kind}>{esc(text)}</td>")
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    more = len(b.rows) - len(rows)
    notes = [b.note] if b.note else []
    if more > 0:
        notes.append(f"{more:,} more rows not shown (the command's CSV/JSON output has them all)")
    note = "".join(f'<p class="note">{esc(n)}</p>' for n in notes)
    if not rows:
        return f'<p class="small">(none)</p>{note}'
    return (
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>{note}"
    )


def command_html(command: str) -> str:
    """A shell command as ``<code class="cmd">``: each flag with its value in a span that is
    never broken across lines; breaks fall between flags only."""
    from calc.output.shell import units

    spans = " ".join(f'<span class="arg">{esc(u)}</span>' for u in units(command))
    return f'<code class="cmd">{spans}</code>'


def _commands(b: Commands) -> str:
    parts = []
    for i, c in enumerate(b.commands):
        if i < len(b.labels):
            parts.append(f'<p class="small">{esc(b.labels[i])}:</p>')
        parts.append(command_html(c))
    parts += [f'<p class="note">{esc(n)}</p>' for n in b.notes]
    for name, content in b.files:
        parts.append(f'<p class="small">{esc(name)}:</p><pre>{esc(content)}</pre>')
    return "".join(parts)


def _lines(b: Lines) -> str:
    cls = ' class="warnings"' if b.kind == "warnings" else ""
    return f"<pre{cls}>{esc(chr(10).join(b.lines))}</pre>"


def render_html(doc: Document) -> str:
    """The whole page."""
    from calc import __version__

    body = [f"<h1>{esc(doc.title)}</h1>"]
    verdict = f" {doc.verdict}" if doc.verdict in ("pass", "fail") else ""
    body.append(f'<p class="answer{verdict}">{esc(doc.answer)}</p>')
    charts = 0
    for block in doc.blocks:
        if isinstance(block, Chart):
            inner = render_chart(block, idx=charts)
            charts += 1
            body.append(f"<section>{inner}</section>")
            continue
        render = {Facts: _facts, Table: _table, Commands: _commands, Lines: _lines}[type(block)]
        body.append(f"<section><h2>{esc(block.title)}</h2>{render(block)}</section>")
    made = f"Made by kvcalc {__version__}"
    if doc.command:
        made += f": {doc.command}"
    body.append(
        f"<footer>{esc(made)}. Every figure is derived analytically from the model config and "
        "the hardware profile named above; the command's --format json|csv output carries "
        "the same figures unrounded, in base units.</footer>"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="kvcalc {esc(__version__)}">'
        f"<title>{esc(doc.title)}</title><style>{CSS}</style></head>\n"
        f"<body>{''.join(body)}</body></html>\n"
    )


def check_report_path(path: Path, flag: str = "--report") -> Path:
    """Refuse a report path that cannot be written, or is not .html/.htm, before any work."""
    from calc.errors import InvalidInputError
    from calc.output.render import check_output_path

    if Path(path).suffix.lower() not in (".html", ".htm"):
        raise InvalidInputError(f"{flag} {path}: a report is one HTML file; name it FILE.html")
    return check_output_path(path, flag)


def write_report(path: Path, doc: Document, flag: str = "--report") -> None:
    """Write ``doc`` to ``path`` atomically (whole or not at all; an existing file is
    untouched when anything fails)."""
    from calc.output.render import write_atomic

    write_atomic(Path(path), lambda fh: fh.write(render_html(doc).encode()), flag)
