"""`kvcalc check SPEC.yaml`: CI sizing checks; exit 0 all pass, 1 any fails, 2 spec invalid."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from calc.cli import options as o


def check(
    spec: Annotated[Path, typer.Argument(help="YAML spec: deployments and their requirements.")],
    junit: Annotated[
        Path | None, typer.Option("--junit", help="Also write JUnit XML here (atomically).")
    ] = None,
    calibration: o.Calibration = None,
    fmt: o.Format = "table",
    output: o.Output = None,
) -> None:
    """Evaluate each deployment's requirements (fit, concurrency, TPOT, TTFT, USD per
    million tokens) and print a pass/fail table with the computed figure and the limit.
    Exit status: 0 all pass, 1 any fails, 2 the spec is invalid.

    Example: kvcalc check examples/check-spec.yaml --junit kvcalc-junit.xml
    """
    from calc.check_spec import junit_xml, load_spec, run_checks
    from calc.cli.common import check_choice, warn
    from calc.render import FORMATS, emit, rows_table, write_atomic
    from calc.safe_io import check_outputs
    from calc.safe_text import xml_safe

    check_choice("--format", fmt, FORMATS)
    outputs = (("--junit", junit), ("--output", output))
    check_outputs(*outputs)  # before any work
    notes: list[str] = []
    results = run_checks(load_spec(spec), calibration, spec, notes)
    warn(dict.fromkeys(notes))  # one note per distinct message
    rows = [r.row() for r in results]
    failed = sum(not r.passed for r in results)
    check_outputs(*outputs)  # again, now that every input has been read: none is overwritten
    if junit is not None:
        write_atomic(junit, xml_safe(junit_xml(results)), "--junit")
    emit(
        {"passed": failed == 0, "failed": failed, "results": rows},
        fmt,
        output,
        rows=rows,
        table=lambda: rows_table(
            [{**r, "passed": "PASS" if r["passed"] else "FAIL"} for r in rows],
            f"kvcalc check: {len(rows) - failed} passed, {failed} failed",
        ),
    )
    if failed:
        raise typer.Exit(1)
