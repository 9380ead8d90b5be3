"""`kvcalc check SPEC.yaml`: CI sizing checks; exit 0 all pass, 1 any fails, 2 spec invalid."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from calc.cli import options as o


def check(
    spec: Annotated[
        Path | None,
        typer.Argument(help="YAML spec: deployments and their requirements (see --schema)."),
    ] = None,
    junit: Annotated[
        Path | None,
        typer.Option(
            "--junit",
            help="Also write JUnit XML here (atomically); an invalid spec gives one errored case.",
        ),
    ] = None,
    schema: Annotated[
        bool, typer.Option("--schema", help="Print the spec's JSON Schema and exit.")
    ] = False,
    example: Annotated[
        bool, typer.Option("--example", help="Print the example spec (shipped) and exit.")
    ] = False,
    calibration: o.Calibration = None,
    fmt: o.RowFormat = "table",
    output: o.Output = None,
    report_file: o.Report = None,
) -> None:
    """Evaluate each deployment's requirements (fit, concurrency, TPOT, TTFT, USD per
    million tokens) and print a pass/fail table with the computed figure and the limit.
    Exit status: 0 all pass, 1 any fails, 2 the spec is invalid. --report FILE.html also
    writes the results as one page with each deployment's charts and launch command. Every
    key is documented in docs/check-spec.md; start from the example: kvcalc check --example >
    spec.yaml

    Example: kvcalc check spec.yaml --junit kvcalc-junit.xml
    """
    from calc.api import check as run
    from calc.cli.common import check_choice, command_line, warn, write_report
    from calc.errors import InvalidInputError, KvcalcError
    from calc.output.render import ROW_FORMATS, write_atomic
    from calc.output.safe_io import check_outputs
    from calc.output.safe_text import xml_safe
    from calc.reports.check_spec import junit_error_xml, junit_xml

    if schema or example:
        _reference(schema, example, output)
        return
    if spec is None:
        raise InvalidInputError(
            "give a spec file (kvcalc check SPEC.yaml); start from kvcalc check --example"
        )
    check_choice("--format", fmt, ROW_FORMATS)
    outputs = (("--junit", junit), ("--output", output), ("--report", report_file))
    check_outputs(*outputs)  # before any work

    try:
        report = run(spec, calibration=calibration)
    except KvcalcError as exc:
        if junit is not None:  # the CI step that publishes JUnit finds why, not nothing
            write_atomic(junit, junit_error_xml(str(exc), spec))
        raise
    warn(report.warnings)
    check_outputs(*outputs)  # again, now that every input has been read: none is overwritten
    if junit is not None:
        write_atomic(junit, xml_safe(junit_xml(report.results)), "--junit")
    _emit(report, fmt, output)
    from calc.reports.report_runs import check_document

    write_report(
        report_file,
        lambda: check_document(
            report.spec, report.results, report.warnings, calibration=calibration,
            command=command_line(),
        ),
    )  # fmt: skip
    if report.fields["failed"]:
        raise typer.Exit(1)


def _reference(schema: bool, example: bool, output) -> None:
    """--schema (the spec's JSON Schema) or --example (the shipped example spec)."""
    from calc.errors import InvalidInputError
    from calc.output.render import write_atomic
    from calc.reports.check_reference import example_text, spec_json_schema_text

    if schema and example:
        raise InvalidInputError("give --schema or --example, not both")
    text = spec_json_schema_text() if schema else example_text()
    if output is not None:
        write_atomic(output, text)
    else:
        sys.stdout.write(text)


def _emit(report, fmt: str, output) -> None:
    """The results as rows (json, csv, jsonl) or a pass/fail table."""
    from calc.output.render import emit, rows_table

    results, failed = report.results, report.fields["failed"]
    emit(
        report.fields,
        fmt,
        output,
        rows=report.rows,
        table=lambda: rows_table(
            [r.display_row() for r in results],
            f"kvcalc check: {len(results) - failed} passed, {failed} failed "
            "(GB = 10^9 B, GiB = 2^30 B)",
        ),
    )
