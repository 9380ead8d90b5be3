"""Renders results as a rich table, JSON or CSV (same keys, unrounded base units) and writes
files atomically. Tables round for display only and label GB (10^9) and GiB (2^30) apart."""

from __future__ import annotations

import io
import math
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from calc.errors import InvalidInputError
from calc.output.safe_text import printable

FORMATS = ("table", "json", "csv")
ROW_FORMATS = (*FORMATS, "jsonl")  # commands whose output is rows: one JSON object a line
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def check_output_path(path: Path, flag: str = "--output") -> Path:
    """Refuse an --output that cannot be written before any work (calc.output.safe_io.check_output:
    a folder, a missing folder, a block device or socket, a name too long, an input)."""
    from calc.output.safe_io import check_output

    check_output(path, flag)
    return Path(path)


def write_atomic(
    path: Path, content: str | bytes | Callable[[BinaryIO], None], flag: str = "--output"
) -> None:
    """Write ``content`` (text, bytes, or a function that writes to a binary file) to
    ``path`` through calc.output.safe_io.write_output: a regular file via a temp file in the same
    folder + rename (all or nothing, an existing file untouched when anything fails); a
    character device or FIFO (-o /dev/null, -o /dev/stdout) directly."""
    from calc.output.safe_io import write_output

    write_output(path, content, flag)


def to_json(obj: Any) -> str:
    import json

    from calc.output.jsonl import json_clean, json_default

    return json.dumps(json_clean(obj), indent=2, default=json_default, allow_nan=False) + "\n"


def safe_cell(value: Any) -> Any:
    """Neutralise strings a spreadsheet would run as a formula (leading = + - @ tab CR)."""
    if isinstance(value, str):  # control sequences cannot reach a terminal (calc.output.safe_text)
        value = printable(value)
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if hasattr(value, "item"):
        return value.item()
    return value


def to_csv(rows: Sequence[dict], columns: Sequence[str] | None = None) -> str:
    """Header + rows; column order is ``columns`` or the first row's key order (stable)."""
    if columns is None:
        columns = list(rows[0]) if rows else []
    import csv

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([safe_cell(c) for c in columns])
    for row in rows:
        writer.writerow([safe_cell(row.get(c)) for c in columns])
    return buf.getvalue()


def scalar_fields(obj: dict) -> dict:
    """The flat (non-list, non-dict) part of a result, for a one-row CSV."""
    return {k: v for k, v in obj.items() if not isinstance(v, dict | list | tuple)}


# ----------------------------------------------------------------------------------------
# Human display (tables only): units come from the key's suffix.


def human(key: str, value: Any, compact: bool = False) -> str:
    """Display string for a table cell, chosen by the unit suffix of ``key``.

    ``compact`` (many-column tables) uses fewer digits; bytes always show GB and GiB.
    """
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if key.endswith("flops_per_s"):
        return f"{value / 1e12:,.1f} TFLOP/s"
    if key.endswith("bytes_per_s"):
        return f"{value / 1e9:,.1f} GB/s"
    if key.endswith("_per_s") or "_per_s_" in key:  # tokens_per_s_per_gpu is a rate too
        return f"{value:,.1f}/s"
    if key.endswith("_bytes") or "_bytes_" in key or key == "bytes":
        # whole bytes where GB would keep fewer than two significant digits (3 decimals,
        # 2 when compact): a 1,310,720-byte KV block, not "0.001 GB"
        if abs(value) < (1e8 if compact else 1e7):
            return f"{value:,.6g} B" if abs(value) < 1e6 else f"{value:,.0f} B"
        if compact:
            return f"{value / 1e9:,.2f} GB ({value / 2**30:,.2f} GiB)"
        return f"{value / 1e9:,.3f} GB  ({value / 2**30:,.3f} GiB)"
    if key.endswith("_s"):
        return f"{value:,.3f} s" if abs(value) >= 1 else f"{value * 1e3:,.3f} ms"
    if "flops" in key:  # never in e-notation: GFLOP, MFLOP, then whole FLOP
        if abs(value) >= 1e9:
            return f"{value / 1e9:,.2f} GFLOP"
        if abs(value) >= 1e6:
            return f"{value / 1e6:,.2f} MFLOP"
        return f"{value:,.0f} FLOP" if abs(value) >= 1 else f"{value:,.4g} FLOP"
    if key.startswith("usd") or key.endswith("usd"):
        # cents from $1,000 up (a training run's $17,989,225.01, not .0081); four decimals
        # below, where a price per million tokens lives
        return f"${value:,.2f}" if abs(value) >= 1000 else f"${value:,.4f}"
    if key.startswith("params"):
        if compact:
            return f"{value / 1e9:,.2f} B"
        return f"{value:,} ({value / 1e9:,.2f} B)" if isinstance(value, int) else f"{value:,}"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.4g}"


def signed_percent(fraction: float, decimals: int = 1) -> str:
    """A signed error for a table, ``+1.8%``; one that rounds to zero shows as ``+0.0%``,
    never ``-0.0%`` (a -2.6e-7 error is no error below the table's precision)."""
    return f"{round(fraction, decimals + 2) + 0.0:+.{decimals}%}"


def modelled_as(asked, release: str) -> str:
    """An engine release as a reader should see it: ``release``, or where the one asked for is
    modelled as another, "0.5.4 (modelled as 0.10.0)"."""
    return release if asked is None else f"{asked} (modelled as {release})"


def kv_cells(obj: dict) -> list[tuple[str, str]]:
    """(field, shown value) of each scalar field: the rows of a result's table. A release
    asked for that is modelled as another (``KEY_asked`` beside ``KEY`` or ``KEY_modelled``)
    shows in that cell as "0.5.4 (modelled as 0.10.0)", not on a row of its own."""
    fields = scalar_fields(obj)
    out = []
    for key, value in fields.items():
        base = key.removesuffix("_asked")
        if base != key and (base in fields or f"{base}_modelled" in fields):
            continue
        asked = fields.get(f"{key.removesuffix('_modelled')}_asked")
        shown = human(key, value)
        out.append((key, modelled_as(asked, shown)))
    return out


def kv_table(obj: dict, title: str):
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_header=True, header_style="bold")
    table.add_column("field")
    table.add_column("value", justify="right")
    for key, value in kv_cells(obj):
        table.add_row(key, value)
    return table


def kv_text(obj: dict, title: str, width: int | None = None) -> str:
    """``kv_table(obj, title)`` as text within ``width`` columns (default: the terminal's),
    drawn without rich where ``calc.output.plain_table`` can (the same text, sooner)."""
    from calc.output.plain_table import kv_text as plain

    width = _terminal_width() if width is None else width
    text = plain(kv_cells(obj), title, width)
    if text is None:
        return print_table(kv_table(obj, title), width)
    return printable(text, lines=True)


def rows_table(
    rows: Sequence[dict], title: str, columns: Iterable[str] | None = None, keys: int | None = None
):
    """A table of ``rows``; its first ``keys`` columns name a row (default: the leading text
    columns) and are repeated when a narrow terminal folds it (``calc.output.table_layout``)."""
    from calc.output.table_layout import FoldingTable

    cols = list(columns) if columns is not None else (list(rows[0]) if rows else [])
    lefts = [c in ("name", "model", "hardware", "op", "requirement", "deployment") for c in cols]
    if keys is None:
        keys = next((i for i, left in enumerate(lefts) if not left), len(cols))
    table = FoldingTable(title=title, title_justify="left", header_style="bold", key_columns=keys)
    for c, left in zip(cols, lefts, strict=True):
        table.add_column(c, justify="left" if left else "right", no_wrap=left, overflow="fold")
    for row in rows:
        table.add_row(*(human(c, row.get(c), compact=True) for c in cols))
    return table


def print_table(renderable, width: int | None = None) -> str:
    """Render a rich object to text (no colour codes) within ``width`` columns (default: the
    terminal's); tables wider than that are folded, never a number cut
    (calc.output.table_layout)."""
    from rich.console import Console

    from calc.output.table_layout import layout

    width = _terminal_width() if width is None else width
    # Cells are data, not markup: "[1,8,128]" or a model name in brackets must print as is
    # (and markup/emoji parsing would only cost start-up time).
    # Plain text whatever the environment says: FORCE_COLOR, TTY_COMPATIBLE or a terminal
    # would make rich write colour codes, which printable() below would show as literal
    # "\x1b[1m" (and a file or a pipe gets the same text as a terminal).
    console = Console(
        file=_TextBuffer(),
        width=width,
        markup=False,
        emoji=False,
        highlight=False,
        color_system=None,
        force_terminal=False,
        force_jupyter=False,
        force_interactive=False,
    )
    for part in layout(renderable, width):
        console.print(part)
    # text from files (model names, paths) cannot drive the terminal (calc.output.safe_text)
    return printable(console.file.getvalue(), lines=True)  # type: ignore[attr-defined]


class _TextBuffer(io.StringIO):
    """A StringIO that reports stdout's encoding, so rich draws ASCII borders where stdout
    cannot encode box-drawing characters (PYTHONIOENCODING=ascii, old LANG=C systems)."""

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(sys.stdout, "encoding", None) or "utf-8"


def _terminal_width() -> int:
    """$COLUMNS when set, else the terminal's width, else (a pipe, a file) 220."""
    cols = os.environ.get("COLUMNS", "")
    if cols.isdigit() and 0 < int(cols) < 10_000:
        return int(cols)
    try:
        return os.get_terminal_size().columns
    except OSError:  # not a terminal (a pipe, a file)
        return 220


# what a file name promises that a text table is not: the option that writes it
_NOT_A_TABLE = {
    ".json": "give -f json", ".csv": "give -f csv", ".jsonl": "give -f jsonl",
    ".ndjson": "give -f jsonl", ".parquet": "give -f parquet (sweep)",
    ".png": "charts: kvcalc plot, or simulate --sweep-rate", ".svg": "charts: kvcalc plot, "
    "or simulate --sweep-rate", ".html": "a page: --report FILE.html",
}


# the format a data file's name promises (a name not here promises none: any format is written)
_SUFFIX_FORMAT = {".json": "json", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
                  ".parquet": "parquet"}  # fmt: skip
_FORMAT_WORDS = {"json": "JSON", "csv": "CSV", "jsonl": "JSON Lines", "parquet": "Parquet"}


def check_format_output(path: Path | str | None, fmt: str) -> None:
    """Refuse to write ``fmt`` into a file whose name promises another format (``-f csv -o
    out.json`` wrote CSV that a JSON reader then refuses), a picture or a page; a text table
    into any data name (``check_table_output``)."""
    if path is None or str(path) == "-":
        return
    path = Path(path)
    if fmt == "table":
        check_table_output(path)
        return
    suffix = path.suffix.lower()
    promised = _SUFFIX_FORMAT.get(suffix)
    if (promised is not None and promised != fmt) or (promised is None and suffix in _NOT_A_TABLE):
        fix = f"give -f {promised} (or name the file .{fmt})" if promised is not None \
            else f"name the file .{fmt}"  # fmt: skip
        raise InvalidInputError(
            f"--output {path}: a {suffix} name, but --format {fmt} writes "
            f"{_FORMAT_WORDS.get(fmt, fmt)}; {fix}"
        )


def check_table_output(path: Path) -> None:
    """Refuse to write a text table into a file whose name says JSON, CSV, Parquet, a picture
    or a page (``-o out.json`` without ``-f json`` wrote box-drawing text into out.json)."""
    hint = _NOT_A_TABLE.get(path.suffix.lower())
    if hint is not None:
        raise InvalidInputError(
            f"--output {path}: a {path.suffix} name, but --format table writes text; {hint} "
            "(or name the file .txt)"
        )


def _refuse_suffix(path: Path | str | None, flag: str, refused: tuple[str, ...], writes: str,
                   rename: str) -> None:  # fmt: skip
    """Refuse a ``flag`` file whose suffix is in ``refused``: ``flag`` writes ``writes``, so the
    name must say so (``rename``)."""
    if path is None or str(path) == "-":
        return
    suffix = Path(path).suffix.lower()
    if suffix in refused:
        raise InvalidInputError(
            f"{flag} {path}: a {suffix} name, but {flag} writes {writes}; name the file {rename}"
        )


def check_yaml_output(path: Path | str | None, flag: str) -> None:
    """Refuse to write YAML under a name kvcalc would read back as something else: a .json
    file is read by the JSON rules (``import-hf -o m.json`` wrote YAML that ``--model m.json``
    then refused as malformed JSON), and CSV, Parquet, pictures and pages are not YAML."""
    _refuse_suffix(path, flag, (".json", ".jsonl", ".csv", ".tsv", ".parquet", ".png", ".svg",
                                ".html"), "YAML (kvcalc reads a .json file as JSON)", ".yaml")


def check_jsonl_output(path: Path | None, flag: str) -> None:
    """Refuse to write JSON Lines under a name that promises CSV, Parquet, a picture or a page
    (``simulate --per-request pr.csv`` wrote JSON Lines into pr.csv)."""
    _refuse_suffix(path, flag, (".csv", ".tsv", ".parquet", ".png", ".svg", ".html", ".xlsx"),
                   "JSON Lines (one JSON object a line)", ".jsonl")


def emit(
    obj: dict,
    fmt: str,
    output: Path | None = None,
    *,
    title: str = "",
    rows: Sequence[dict] | None = None,
    table: Callable[[], Any] | None = None,
    explain: Sequence[Any] = (),
    trailer: Sequence[str] = (),
) -> None:
    """Print or write ``obj`` in ``fmt``. CSV and JSON Lines use ``rows`` (default: the scalar
    fields). A table ends with the ``trailer`` lines as they are, never wrapped (commands a user
    pastes)."""
    if output is not None:
        check_format_output(output, fmt)
    if fmt == "json":
        text = to_json({**obj, "derivation": [f.line() for f in explain]} if explain else obj)
    elif fmt == "csv":
        text = to_csv(rows if rows is not None else [scalar_fields(obj)])
    elif fmt == "jsonl":
        from calc.output.jsonl import to_jsonl

        text = to_jsonl(rows if rows is not None else [scalar_fields(obj)])
    elif fmt == "table":
        text = print_table(table()) if table is not None else kv_text(obj, title)
        if explain:
            text += "\nDerivation:\n" + "".join(f"  {f.line()}\n" for f in explain)
            text = printable(text, lines=True)  # names in the derivation, too
        if trailer:
            text += printable("".join(f"{line}\n" for line in trailer), lines=True)
    else:
        raise InvalidInputError(f"unknown --format {fmt!r}; valid: {', '.join(FORMATS)}")
    if fmt in ("csv", "jsonl") and explain:
        sys.stderr.write(printable("".join(f"{f.line()}\n" for f in explain), lines=True))
    if output is not None:
        write_atomic(Path(output), text)
    else:
        sys.stdout.write(text)
