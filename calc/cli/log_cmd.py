"""`kvcalc log`: an engine's start-up log beside kvcalc's prediction of the same start-up."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from calc.cli import options as o


def _read_log(path: Path) -> str:
    """The log's text (undecodable bytes replaced), or one clear error: a regular file only,
    opened without blocking and read up to the cap (calc.output.safe_io)."""
    from calc.errors import InvalidInputError
    from calc.output.safe_io import read_input
    from calc.reports.engine_log import MAX_LOG_CHARS

    raw = read_input(path, what="a start-up log (cut it to the start-up lines)",
                     max_bytes=MAX_LOG_CHARS)  # fmt: skip
    if b"\x00" in raw:
        raise InvalidInputError(f"{path}: binary file, expected a text log")
    return raw.decode("utf-8", errors="replace")


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
    file: Annotated[Path, typer.Argument(help="Start-up log of vLLM, SGLang or TensorRT-LLM.")],
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="kvcalc model of the log (name, YAML or config.json path); default: the "
            "shipped model the log's model id names.",
        ),
    ] = None,
    hardware: o.HardwareRequired = "h100",
    tp: Annotated[int | None, typer.Option("--tp", help="TP size if the log does not say.")] = None,
    pp: Annotated[int | None, typer.Option("--pp", help="PP size if the log does not say.")] = None,
    engine: Annotated[
        str | None, typer.Option("--engine", help="vllm, sglang or trtllm (default: detected).")
    ] = None,
    engine_version: Annotated[
        str | None, typer.Option("--engine-version", help="Engine memory model version.")
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

    Each term (usable memory, weights, activation peak, non-torch memory, KV cache, blocks,
    tokens, max concurrency) is predicted from the log's settings only, never from its
    printed figures, and shown with the error (predicted − printed) / printed.

    Example: kvcalc log vllm-startup.log --hardware h100
    """
    from calc.cli.common import check_choice, warn
    from calc.data.registry import load_hardware, load_model
    from calc.errors import InvalidInputError
    from calc.output.render import FORMATS, check_output_path, emit
    from calc.reports.engine_log import log_report, parse_log, shipped_model_for

    check_choice("--format", fmt, FORMATS)
    check_choice("--engine", engine, ("vllm", "sglang", "trtllm"))
    for flag, value in (("--tp", tp), ("--pp", pp)):
        if value is not None and not 0 < value <= 4096:
            raise InvalidInputError(f"{flag} must be in 1..4096, got {value}")
    if save_calibration is not None:
        check_output_path(save_calibration)
    reading = parse_log(_read_log(file), engine)
    name = model or shipped_model_for(reading.settings.get("model"))
    if name is None:
        said = reading.settings.get("model")
        raise InvalidInputError(
            f"{file}: "
            + (f"model {said!r} is not a shipped model" if said else "the log names no model")
            + "; pass --model (a shipped name, a YAML or a config.json path)"
        )
    cfg = load_model(name)
    hw = load_hardware(hardware)
    act = non_torch = None
    if calibration is not None:
        from calc.data.calibration import load_engine_overheads

        cal = load_engine_overheads(calibration)
        if cal.engine != reading.engine:
            raise InvalidInputError(
                f"--calibration {calibration} was measured on {cal.engine}, this log is "
                f"{reading.engine}"
            )
        act, non_torch = cal.activation_bytes, cal.non_torch_bytes
        tp_now = tp or reading.settings.get("tp", 1)
        if (cal.hardware, cal.tp) != (hardware, tp_now):
            warn([
                f"--calibration {calibration} was measured on {cal.hardware} at TP {cal.tp}, "
                f"not {hardware} at TP {tp_now}: its overheads may not apply"
            ])  # fmt: skip
    report = log_report(
        reading,
        cfg,
        hw,
        tp=tp,
        pp=pp,
        version=engine_version,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        activation_bytes=act,
        non_torch_bytes=non_torch,
    )
    warn(report.warnings)
    if save_calibration is not None:
        _save(save_calibration, report, file)
    title = f"{reading.engine} start-up log {file.name}: {cfg.display_name} on {hw.name}"
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

    printed = report.reading.printed
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
            engine_version=report.reading.version or f["engine_version_modelled"],
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
