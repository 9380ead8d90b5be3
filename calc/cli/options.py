"""Options shared by several commands, defined once (name, help, default)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
Gpus = Annotated[
    int | None,
    typer.Option(
        "--gpus",
        help="GPUs of --hardware in all. Alone: shorthand for --tp N (one tensor-parallel "
        "group); with --tp/--pp: the rest are data-parallel replicas.",
    ),
]
WeightDtype = Annotated[
    str | None,
    typer.Option(
        "--weight-dtype",
        help="fp32|bf16|fp16|fp8|int8|int4|fp4, or with scales: fp8-tensor|fp8-block128|"
        "int8-channel|int4-g128|int4-g128-sym|fp4-g128|mxfp4|nvfp4 (default: the model's).",
    ),
]
KvDtype = Annotated[
    str | None,
    typer.Option(
        "--kv-dtype",
        help="KV-cache dtype: fp32|bf16|fp16|fp8|int8|int4|fp4, or with per-token-head "
        "scales: fp8-token-head|int8-token-head|int4-token-head (default: model's).",
    ),
]
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
Tp = Annotated[int, typer.Option("--tp", help="Tensor-parallel GPUs (split heads and FFN).")]
Pp = Annotated[int, typer.Option("--pp", help="Pipeline-parallel stages (split layers).")]
Ep = Annotated[int, typer.Option("--ep", help="Expert-parallel GPUs (spread MoE experts).")]
Dp = Annotated[
    int | None,
    typer.Option(
        "--dp",
        help="Data-parallel replicas (each serves batch / dp); with --ep > --tp it is the "
        "attention-DP size ep / tp (the default).",
    ),
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
ComputeDtype = Annotated[
    str | None,
    typer.Option(
        "--compute-dtype",
        help="Tensor-core dtype of the matmuls (default: bf16 for weight-only int8/int4/fp4, "
        "fp8 for fp8 weights on fp8 hardware, else the weight dtype).",
    ),
]
Calibration = Annotated[
    Path | None,
    typer.Option(
        "--calibration",
        help="A calibration to apply: YAML from `kvcalc measure --save-calibration` "
        "(measured efficiencies) or `kvcalc score --save-calibration` (fitted to benchmark runs).",
    ),
]
