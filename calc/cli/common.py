"""Helpers the commands share: resolve names to configs, validate choices, apply a
calibration, print warnings and render a report."""

from __future__ import annotations

import sys

from calc.data.limits import check_choice
from calc.deploy.options import what_if_layout


def load_inputs(model, hardware=None, *, attention=None, fmt="table", **sizes):
    """(ModelConfig, HardwareProfile | None, AttentionLayout) from the command's options."""
    from calc.data.registry import load_hardware, load_model
    from calc.output.render import FORMATS

    check_choice("--format", fmt, FORMATS)
    layout = what_if_layout(attention, **sizes)
    cfg = load_model(model)
    warn_model(cfg)
    hw = load_hardware(hardware) if hardware else None
    return cfg, hw, layout(cfg)


def check_lengths(prompt: int, gen: int) -> None:
    """--prompt and --gen before the decode context made of them (prompt + gen): an error
    names the flag given, with the value given."""
    from calc.data.limits import MAX_CTX, check_positive_int

    check_positive_int("prompt", prompt, MAX_CTX)
    check_positive_int("gen", gen, MAX_CTX)


def warn_model(cfg) -> None:
    """Print what the model's import assumed (calc.deploy.checkpoint.model_warnings)."""
    from calc.deploy.checkpoint import model_warnings

    warn(model_warnings(cfg))


def warn(messages) -> None:
    from calc.output.safe_text import printable

    for m in messages:  # text from files cannot drive the terminal nor split the line
        sys.stderr.write(f"kvcalc: warning: {printable(str(m))}\n")


def calibrated_hardware(hw, calibration):
    """``hw`` with the --calibration file applied (if any), its notes printed as warnings."""
    if calibration is None:  # calc.data.calibration (pydantic) only when a file is given
        return hw
    from calc.data.calibration import calibrated

    notes: list[str] = []
    hw = calibrated(hw, calibration, notes)
    warn(notes)
    return hw


def run_job(job: str, fmt: str, *args, formats=None, **kwargs):
    """The report of ``calc.api``'s function ``job`` on ``args`` and ``kwargs``, --format
    checked first (against ``formats``, default the row formats): how a command with an API
    function runs it."""
    import calc.api
    from calc.output.render import ROW_FORMATS

    check_choice("--format", fmt, ROW_FORMATS if formats is None else formats)
    return getattr(calc.api, job)(*args, **kwargs)


def on_gpus(dep, what: str) -> str:
    """A title: ``dep``'s model on its GPUs (``Llama 3 70B on 4 × H100 SXM``), then ``what``."""
    return f"{dep.model.display_name} on {dep.gpus} × {dep.hardware.display_name}{what}"


def emit_report(report, fmt: str, output, *, title: str = "", explain: bool = False,
                table=None, trailer=(), perf: bool = False):  # fmt: skip
    """Print ``report.warnings``, then render ``report.fields`` (its ``rows`` in CSV and JSON
    Lines; with ``report.figures`` when --explain is given). ``perf``: the table is the
    scalar fields, then the decode and prefill ops (``perf_table``)."""
    from calc.output.render import emit

    if perf:
        table = lambda: perf_table(report.fields, title)  # noqa: E731
    warn(report.warnings)
    emit(
        report.fields,
        fmt,
        output,
        title=title,
        rows=report.rows,
        table=table,
        explain=report.figures if explain else (),
        trailer=trailer,
    )


def perf_table(fields: dict, title: str):
    """Scalar fields, then the decode ops and the prefill ops, as rich tables."""
    from rich.console import Group

    from calc.output.render import kv_table, rows_table

    parts = [kv_table(fields, title)]
    for key, label in (("ops", "Decode step ops (per GPU)"), ("prefill_ops", "Prefill ops")):
        rows = fields.get(key)
        if rows:
            parts.append(rows_table(rows, label))
    return Group(*parts)


def command_line() -> str:
    """The command being run, as typed (shell-quoted): ``kvcalc plan --model ...``."""
    import shlex

    from calc.cli import COMMAND_LINE

    return shlex.join(["kvcalc", *COMMAND_LINE])


def check_report(path, *others) -> None:
    """Before any work: no two outputs of the command name the same file, --report (``path``,
    None without it) included (``others``: (flag, path) pairs, e.g. ("--output", output))."""
    if path is not None or sum(p is not None for _, p in others) > 1:
        from calc.output.safe_io import check_outputs

        check_outputs(*others, ("--report", path))


def write_report(path, build) -> None:
    """--report FILE.html: write the document ``build()`` returns (a
    ``calc.output.html_report.Document``, built only when a path is given) atomically. One
    call per command, after its own output."""
    if path is None:
        return
    from calc.output.html_report import write_report as write

    write(path, build())
