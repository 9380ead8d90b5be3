"""`kvcalc sweep`: a grid of deployments evaluated at once (vectorised), as CSV, JSON, JSON Lines,
Parquet or a table."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import deploy_options as d
from calc.cli import options as o
from calc.cli.option_groups import DEPLOYMENT, ENGINE, Options, with_options, without
from calc.deploy.options import Option

TABLE_ROWS = 50
LIST_HELP = "list or range: 1,2,4 | a..b | a..b:+step | a..b:xfactor"
SweepFormat = Annotated[
    str,
    typer.Option(
        "--format",
        "-f",
        help="table | json | jsonl (JSON Lines: a row a line) | csv | parquet (parquet "
        "needs pyarrow: pip install 'kvcalc[parquet]', and --output).",
    ),
]
Jobs = Annotated[
    int,
    typer.Option(
        "--jobs",
        "-j",
        help="Processes that compute and format chunks of CSV/JSON rows in parallel "
        "(default 0: one per CPU, at most 4; 1: none).",
    ),
]


# the grid (lists: "1,2,4", "1024..131072:x2") and what each row is priced and timed by
SWEEP = (
    Option("batch", str, "1", f"Sequences: {LIST_HELP}.", ("-b",)),
    Option("tp", str, "1", f"Tensor-parallel GPUs: {LIST_HELP}."),
    Option("pp", str, "1", f"Pipeline-parallel stages: {LIST_HELP}."),
    Option(
        "prompt", str | None, None,
        f"Prompt tokens of the prefill (TTFT, input cost): {LIST_HELP}; at most the smallest "
        "--ctx (default: each row's ctx).",
    ),
    Option("weight_dtype", str | None, None,
           "Weight dtypes, comma-separated (default: model's)."),
    Option("kv_dtype", str | None, None, "KV-cache dtypes, comma-separated (default: model's)."),
    d.USD_PER_HOUR,
    d.EFFICIENCY,
    Option("latency", bool, True, "Add TPOT, TTFT, tokens/s and cost columns.",
           ("--latency/--no-latency",)),
)  # fmt: skip


# the grid's lists (tp, pp, dtypes) are SWEEP's; every other deployment and engine option is
# the table's, one value for every row
@with_options(SWEEP, without(DEPLOYMENT, "tp", "pp", "weight_dtype", "kv_dtype"), ENGINE)
def sweep(
    model: Annotated[str, typer.Option("--model", "-m", help="Model names, comma-separated.")],
    hardware: Annotated[
        str, typer.Option("--hardware", "-H", help="Hardware names, comma-separated.")
    ],
    ctx: Annotated[str, typer.Option("--ctx", help=f"Tokens per sequence: {LIST_HELP}.")],
    fmt: SweepFormat = "table",
    output: o.Output = None,
    jobs: Jobs = 0,
    report_file: o.Report = None,
    *,
    options: Options,
) -> None:
    """Evaluate every combination of models, hardware, dtypes, tp, pp, prompt, ctx and batch:
    memory, KV budget and pool, max concurrency, fit, TPOT, TTFT, tokens/s per GPU and USD per
    million tokens. Columns are stable and in base units; gpus = tp × pp (× dp replicas, max(tp,
    ep) under --ep), usd_per_gpu_hour is per GPU. A row that does not fit (fits false) has empty
    cost columns (null in JSON), counted in one warning. CSV, JSON, JSON Lines and Parquet are
    streamed a chunk of rows at a time (memory does not grow with the grid); a table shows the
    first rows. --report FILE.html also writes a page with the first rows and the decode
    tokens/s per GPU against per user frontier of the whole grid.

    Example: kvcalc sweep -m llama3-8b -H h100,h200 --tp 1,2 --ctx 1024..131072:x2 -f csv
    """
    from calc.cli.common import command_line, warn, write_report
    from calc.reports.sweep import grid_of

    jobs = _checked(fmt, output, jobs, report_file)
    grid = grid_of(model, hardware, ctx, **options)
    warn(grid.warnings)
    if fmt == "table":
        _table(grid, output)
    else:
        _stream(grid, fmt, output, jobs)
    _report(report_file, grid, command_line, write_report)


def _checked(fmt: str, output, jobs: int, report_file) -> int:
    """The format, --report, --jobs (0: one per CPU, at most 4) and Parquet's needs, checked
    before any work; the worker count."""
    from calc.cli.common import check_choice, check_report
    from calc.errors import InvalidInputError
    from calc.output.render import check_format_output
    from calc.reports.sweep_io import FORMATS

    check_choice("--format", fmt, FORMATS)
    check_report(report_file, ("--output", output))
    if fmt != "table":  # a table's name is checked where it is written (emit)
        check_format_output(output, fmt)
    if not 0 <= jobs <= 64:
        raise InvalidInputError(f"--jobs must be in 0..64, got {jobs}")
    if jobs == 0:
        import os

        jobs = max(1, min(os.cpu_count() or 1, 4))
    if fmt == "parquet":
        if output is None:
            raise InvalidInputError("--format parquet needs --output FILE (it is binary)")
        try:
            import pyarrow  # noqa: F401
        except ImportError as exc:
            from calc.errors import MissingDependencyError

            raise MissingDependencyError("pyarrow", "parquet") from exc
    return jobs


def _stream(grid, fmt: str, output, jobs: int) -> None:
    """Every row, written a chunk at a time to --output (atomically) or stdout; the count of
    rows that do not fit said once they are all written."""
    import sys

    from calc.cli.common import warn
    from calc.output.render import write_atomic
    from calc.reports.sweep_io import WRITERS

    writer = WRITERS[fmt]
    n_before = len(grid.warnings)
    if output is not None:
        write_atomic(output, lambda fh: writer(grid, fh, jobs))
    else:
        sys.stdout.flush()
        writer(grid, sys.stdout.buffer, jobs)
        sys.stdout.buffer.flush()
    warn(grid.warnings[n_before:])


def _table(grid, output) -> None:
    """The first TABLE_ROWS rows as a table."""
    from calc.cli.common import warn
    from calc.output.render import emit, rows_table
    from calc.reports.sweep import GRID_KEYS
    from calc.reports.sweep_io import first_rows

    if grid.n_rows > TABLE_ROWS:
        warn([f"showing the first {TABLE_ROWS} of {grid.n_rows:,} rows; use --format csv"])
    rows = first_rows(grid, TABLE_ROWS)
    order = [k for k in GRID_KEYS if k in grid.columns]
    order += [k for k in grid.columns if k not in order]
    emit(
        {"n_rows": grid.n_rows, "rows": rows},
        "table",
        output,
        table=lambda: rows_table(
            rows, f"kvcalc sweep: {grid.n_rows:,} rows (GB = 10^9 B)", order, keys=len(GRID_KEYS)
        ),
    )


def _report(path, grid, command_line, write_report) -> None:
    from calc.reports.report_runs import sweep_document

    write_report(path, lambda: sweep_document(grid, command=command_line()))
