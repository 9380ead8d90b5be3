"""`kvcalc log`: an engine's start-up log beside kvcalc's prediction of the same start-up."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from calc.cli import options as o


def _facts(path: Path, engine: str | None):
    """The log's facts, streamed from ``path`` (a regular file) or from stdin for ``-``: one
    clear error, naming the file, for anything else."""
    from calc.deploy.engines.fromlog import read_log, read_log_file
    from calc.errors import InvalidInputError

    if str(path) == "-":
        try:
            return read_log(sys.stdin.buffer, engine)
        except InvalidInputError as exc:
            raise InvalidInputError(f"stdin: {exc}") from None
    return read_log_file(path, engine)


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except (OSError, ValueError):
        return str(a) == str(b)


def _table(report, title: str):
    from rich.console import Group

    from calc.output.render import kv_table, rows_table

    def cell(unit: str, value):
        if value is None:
            return ""
        if unit == "bytes":
            return f"{value / 2**30:,.2f} GiB"
        if unit == "requests":
            return f"{value:,.2f}"
        return f"{value:,.0f}"

    rows = [
        {
            "term": r["term"],
            "predicted": cell(r["unit"], r["predicted"]),
            "printed": cell(r["unit"], r["printed"]),
            "error": "" if r["error"] is None else f"{r['error']:+.2%}",
        }
        for r in report.rows
    ]
    head = {k: v for k, v in report.fields.items() if k != "terms"}
    return Group(kv_table(head, title), rows_table(rows, "Predicted vs printed (GiB = 2^30 B)"))


def log(
    file: Annotated[
        Path, typer.Argument(help="Start-up log of vLLM, SGLang or TensorRT-LLM ('-': stdin).")
    ],
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="kvcalc model of the log (name, YAML or config.json path); default: the "
            "shipped model whose source repository the log's model id names.",
        ),
    ] = None,
    hardware: Annotated[
        str | None,
        typer.Option(
            "--hardware",
            "-H",
            help="GPU profile; default: the profile whose memory the log prints, else h100.",
        ),
    ] = None,
    tp: Annotated[int | None, typer.Option("--tp", help="TP size if the log does not say.")] = None,
    pp: Annotated[int | None, typer.Option("--pp", help="PP size if the log does not say.")] = None,
    engine: Annotated[
        str | None, typer.Option("--engine", help="vllm, sglang or trtllm (default: detected).")
    ] = None,
    engine_version: Annotated[
        str | None,
        typer.Option(
            "--engine-version",
            help="Engine release whose rules apply (default: the one the log prints, else the "
            "newest modelled).",
        ),
    ] = None,
    weight_dtype: o.WeightDtype = None,
    kv_dtype: Annotated[
        str | None,
        typer.Option("--kv-dtype", help="KV cache dtype if the log does not say (auto, fp8)."),
    ] = None,
    calibration: Annotated[
        Path | None,
        typer.Option(
            "--calibration",
            help="Engine overheads saved by `kvcalc log --save-calibration` to predict with.",
        ),
    ] = None,
    save_calibration: Annotated[
        Path | None,
        typer.Option(
            "--save-calibration",
            help="Write the log's activation and non-torch memory to this YAML for later "
            "predictions on the same engine, GPU and TP.",
        ),
    ] = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
) -> None:
    """Read an engine start-up log; show its memory figures beside kvcalc's prediction.

    The log's Deployment is built through the engine wing, as every command builds one: its
    settings over the engine release's defaults (a warning names each default taken). Each
    term (usable memory, weights, activation peak, non-torch memory, CUDA graphs, KV cache,
    blocks, tokens, max concurrency) is predicted from the settings only, never from the
    printed figures, and shown with the error (predicted − printed) / printed.

    Example: kvcalc log vllm-startup.log --hardware h100
    """
    from calc.cli.common import check_choice, warn
    from calc.deploy.engines import NAMES
    from calc.deploy.engines.fromlog import deployment_from_log
    from calc.errors import InvalidInputError
    from calc.output.render import FORMATS, check_output_path, emit
    from calc.reports.engine_log import log_report

    check_choice("--format", fmt, FORMATS)
    check_choice("--engine", engine, NAMES)
    for flag, value in (("--tp", tp), ("--pp", pp)):
        if value is not None and not 0 < value <= 4096:
            raise InvalidInputError(f"{flag} must be in 1..4096, got {value}")
    if save_calibration is not None:
        check_output_path(save_calibration, "--save-calibration")
        if output is not None and _same_file(save_calibration, output):
            raise InvalidInputError(
                f"--save-calibration and --output are the same file ({save_calibration}): the "
                "report would overwrite the calibration; give them different paths"
            )
        if calibration is not None and _same_file(save_calibration, calibration):
            raise InvalidInputError(
                f"--save-calibration {save_calibration} is the --calibration file it reads; "
                "give it another path"
            )
    facts = _facts(file, engine)
    act = non_torch = None
    cal = None
    if calibration is not None:
        from calc.data.calibration import load_engine_overheads

        cal = load_engine_overheads(calibration)
        if cal.engine != facts.engine:
            raise InvalidInputError(
                f"--calibration {calibration} was measured on {cal.engine}, this log is "
                f"{facts.engine}"
            )
        act, non_torch = cal.activation_bytes, cal.non_torch_bytes
    built = deployment_from_log(
        facts,
        model=model,
        hardware=hardware,
        version=engine_version,
        tp=tp,
        pp=pp,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        activation_bytes=act,
        overhead_bytes=non_torch,
    )
    dep = built.deployment
    if cal is not None and (cal.hardware, cal.tp) != (dep.hardware.name, dep.tp):
        warn([
            f"--calibration {calibration} was measured on {cal.hardware} at TP {cal.tp}, "
            f"not {dep.hardware.name} at TP {dep.tp}: its overheads may not apply"
        ])  # fmt: skip
    report = log_report(built)
    warn(report.warnings)
    if save_calibration is not None:
        _save(save_calibration, report, file)
    name = "stdin" if str(file) == "-" else file.name
    title = f"{facts.engine} start-up log {name}: {dep.model.display_name} on {dep.hardware.name}"
    emit(
        report.fields,
        fmt,
        output,
        title=title,
        rows=report.rows,
        table=lambda: _table(report, title),
        explain=report.prediction.figures if explain else (),
    )


def _save(path: Path, report, file: Path) -> None:
    from calc.data.calibration import EngineOverheads, save_engine_overheads
    from calc.errors import InvalidInputError

    printed = report.facts.printed
    act, non_torch = printed.get("activation_bytes"), printed.get("non_torch_bytes")
    if act is None and non_torch is None:
        raise InvalidInputError(
            f"--save-calibration: {file} prints no activation or non-torch memory to save "
            "(vLLM prints both in its 'Memory profiling takes' line)"
        )
    f = report.fields
    save_engine_overheads(
        path,
        EngineOverheads(
            kind="kvcalc-engine-calibration",
            engine=f["engine"],
            engine_version=report.facts.version or f["engine_version_modelled"],
            hardware=f["hardware"],
            tp=f["tp"],
            pp=f["pp"],
            model=f["model"],
            activation_bytes=None if act is None else round(act),
            non_torch_bytes=None if non_torch is None else round(non_torch),
            source=str(file),
            created=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        ),
    )
