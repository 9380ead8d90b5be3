"""Options shared by several commands, defined once (name, help, default)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from calc.cli.option_groups import annotated, specs

HW_HELP = "Shipped accelerator (see `kvcalc hardware`) or a YAML path."
FORMAT_HELP = "Output format: table (rounded, for people), json or csv (unrounded base units)."

Model = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        help="Shipped model name (see `kvcalc models`), a YAML path, a Hugging Face "
        "config.json path, or hf:org/name (needs the `hf` extra).",
    ),
]
Hardware = Annotated[
    str | None,
    typer.Option("--hardware", "-H", help=HW_HELP),
]
HardwareRequired = Annotated[
    str,
    typer.Option("--hardware", "-H", help=HW_HELP),
]
Ctx = Annotated[int, typer.Option("--ctx", help="Tokens per sequence (prompt + generated).")]
Batch = Annotated[int, typer.Option("--batch", "-b", help="Concurrent sequences.")]
Format = Annotated[str, typer.Option("--format", "-f", help=FORMAT_HELP)]
ROW_FORMAT_HELP = (
    "Output format: table (rounded, for people), json, csv or jsonl (JSON Lines: one row a "
    "line; unrounded base units)."
)
RowFormat = Annotated[str, typer.Option("--format", "-f", help=ROW_FORMAT_HELP)]


def checked_output(value: Path | None) -> Path | None:
    """An --output path is checked as it is parsed, before any work (calc.output.safe_io)."""
    if value is not None:
        from calc.output.safe_io import check_output

        check_output(value)
    return value


def checked_report(value: Path | None) -> Path | None:
    """A --report path is checked as it is parsed: FILE.html, writable, not an input."""
    if value is not None:
        from calc.output.html_report import check_report_path

        check_report_path(value)
    return value


Report = Annotated[
    Path | None,
    typer.Option(
        "--report",
        help="Also write a report as one self-contained HTML file (inline CSS and SVG, no "
        "script, nothing fetched; prints on paper): the answer, tables, charts, provenance, "
        "launch commands. Written atomically.",
        callback=checked_report,
    ),
]

Output = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Write to this file (atomically) instead of stdout.",
        callback=checked_output,
    ),
]
Explain = Annotated[
    bool, typer.Option("--explain", help="Show each figure's formula with the numbers substituted.")
]
Prompt = Annotated[int, typer.Option("--prompt", help="Prompt tokens per sequence.")]
Gen = Annotated[int, typer.Option("--gen", help="Generated tokens per sequence.")]
DecodeCtx = Annotated[
    int | None,
    typer.Option(
        "--ctx",
        help="Context of the reported decode step (default: prompt + gen, the last step).",
    ),
]

# the deployment options the commands outside the groups declare themselves (calc.cli.option_groups)
Gpus, WeightDtype, Calibration = map(annotated, specs("gpus", "weight_dtype", "calibration"))
