"""`kvcalc sweep`: a grid of deployments evaluated at once (vectorised), as CSV, JSON or a table."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import deploy_options as d
from calc.cli import options as o

TABLE_ROWS = 50
LIST_HELP = "list or range: 1,2,4 | a..b | a..b:+step | a..b:xfactor"


def sweep(
    model: Annotated[str, typer.Option("--model", "-m", help="Model names, comma-separated.")],
    hardware: Annotated[
        str, typer.Option("--hardware", "-H", help="Hardware names, comma-separated.")
    ],
    ctx: Annotated[str, typer.Option("--ctx", help=f"Tokens per sequence: {LIST_HELP}.")],
    batch: Annotated[str, typer.Option("--batch", "-b", help=f"Sequences: {LIST_HELP}.")] = "1",
    tp: Annotated[str, typer.Option("--tp", help=f"Tensor-parallel GPUs: {LIST_HELP}.")] = "1",
    weight_dtype: Annotated[
        str | None,
        typer.Option("--weight-dtype", help="Weight dtypes, comma-separated (default: model's)."),
    ] = None,
    kv_dtype: Annotated[
        str | None,
        typer.Option("--kv-dtype", help="KV-cache dtypes, comma-separated (default: model's)."),
    ] = None,
    engine: d.Engine = "vllm",
    mem_util: d.MemUtil = 0.9,
    block_size: d.BlockSize = 16,
    max_batched_tokens: d.MaxBatchedTokens = 8192,
    activation: d.Activation = None,
    overhead: d.Overhead = "0.5GiB",
    usd_per_hour: d.UsdPerHour = None,
    efficiency: d.Efficiency = "expected",
    latency: Annotated[
        bool,
        typer.Option("--latency/--no-latency", help="Add TPOT, TTFT, tokens/s and cost columns."),
    ] = True,
    calibration: o.Calibration = None,
    fmt: o.Format = "table",
    output: o.Output = None,
) -> None:
    """Evaluate every combination of models, hardware, dtypes, tp, ctx and batch: memory,
    KV budget and pool, max concurrency, fit, TPOT, TTFT, tokens/s per GPU and USD per
    million tokens. Columns are stable and in base units; a table shows the first rows.

    Example: kvcalc sweep -m llama3-8b -H h100,h200 --tp 1,2 --ctx 1024..131072:x2 -f csv
    """
    from calc.cli.common import check_choice, warn
    from calc.cli.deploy_common import engine_options
    from calc.render import FORMATS, emit, rows_table, write_atomic
    from calc.sweep import GRID_KEYS, parse_names, parse_values, to_csv_columns
    from calc.sweep import sweep as run

    check_choice("--format", fmt, FORMATS)
    engine_kw = engine_options(
        engine, mem_util, block_size, max_batched_tokens, activation, overhead
    )
    result = run(
        parse_names(model, "--model"),  # type: ignore[arg-type]
        parse_names(hardware, "--hardware"),  # type: ignore[arg-type]
        ctx=parse_values(ctx, "--ctx"),
        batch=parse_values(batch, "--batch"),
        tp=parse_values(tp, "--tp"),
        weight_dtypes=parse_names(weight_dtype, "--weight-dtype"),
        kv_dtypes=parse_names(kv_dtype, "--kv-dtype"),
        usd_per_hour=usd_per_hour,
        latency=latency,
        efficiency=efficiency,
        calibration=calibration,
        **engine_kw,
    )
    warn(result.warnings)
    if fmt == "csv":
        text = to_csv_columns(result)
        if output is not None:
            write_atomic(output, text)
        else:
            import sys

            sys.stdout.write(text)
        return
    if fmt == "table" and result.n_rows > TABLE_ROWS:
        warn([f"showing the first {TABLE_ROWS} of {result.n_rows:,} rows; use --format csv"])
    rows = result.rows(TABLE_ROWS if fmt == "table" else None)
    emit(
        {"n_rows": result.n_rows, "rows": rows},
        fmt,
        output,
        table=lambda: rows_table(
            rows, f"kvcalc sweep: {result.n_rows:,} rows (GB = 10^9 B)", keys=len(GRID_KEYS)
        ),
    )
