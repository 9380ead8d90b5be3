"""`kvcalc measure`: run one layer's real kernels through PyTorch and score the predictions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from calc.cli import options as o

SizeList = list[str] | None


def _ints(flag: str, values: SizeList) -> list[int]:
    """``--batch 1,8 --batch 64`` -> [1, 8, 64]; a non-integer is an InvalidInputError."""
    from calc.errors import InvalidInputError

    out = []
    for item in values or []:
        for part in item.split(","):
            part = part.strip().replace("_", "")
            if not part:
                continue
            try:
                out.append(int(part))
            except ValueError:
                raise InvalidInputError(f"{flag} {part!r} is not an integer") from None
    return out


# long: its typer options are declared in its signature (issue 27 item 2 generates them)
def measure(
    model: o.Model,
    hardware: Annotated[
        str | None,
        typer.Option(
            "--hardware",
            "-H",
            help="Profile to predict with (needed for --device cuda). On --device cpu the "
            "prediction uses a profile probed on this machine instead.",
        ),
    ] = None,
    device: Annotated[
        str | None,
        typer.Option("--device", help="cpu|cuda (default: cuda when torch sees one, else cpu)."),
    ] = None,
    batch: Annotated[
        SizeList,
        typer.Option("--batch", "-b", metavar="N[,N...]", help="Decode batch sizes, e.g. 1,16,64."),
    ] = None,
    ctx: Annotated[
        SizeList,
        typer.Option(
            "--ctx", metavar="N[,N...]", help="Context lengths (cached tokens; prefill length)."
        ),
    ] = None,
    dtype: Annotated[
        str | None,
        typer.Option("--dtype", help="bf16|fp16|fp32 (default: bf16 on cuda, fp32 on cpu)."),
    ] = None,
    gemm_m: Annotated[
        SizeList,
        typer.Option(
            "--gemm-m",
            metavar="M[,M...]",
            help="Rows M of the small-M GEMM curve (default: 1,2,4,...,64 on cpu, to 256 on cuda).",
        ),
    ] = None,
    repeats: Annotated[int, typer.Option("--repeats", help="Timed runs per kernel.")] = 20,
    warmup: Annotated[int, typer.Option("--warmup", help="Untimed runs first.")] = 3,
    quick: Annotated[
        bool,
        typer.Option("--quick", help="Divide widths and head counts by 8 (always on cpu)."),
    ] = False,
    max_spread: Annotated[
        float,
        typer.Option(
            "--max-spread",
            metavar="PCT",
            help="A kernel whose (p90 - p10) / median over 5+ runs exceeds PCT % is too "
            "noisy to score: flagged, left out of the error statistics and the calibration.",
        ),
    ] = 50.0,
    fmt: o.Format = "table",
    output: o.Output = None,
    save_calibration: Annotated[
        Path | None,
        typer.Option(
            "--save-calibration",
            help="Write the achieved efficiencies to this YAML (for --calibration FILE).",
        ),
    ] = None,
) -> None:
    """Measure attention and GEMM kernels of one layer; compare with the roofline prediction.

    Also measures the fixed cost of one kernel (a chain of tiny kernels, eagerly and on
    CUDA replayed from a CUDA graph) and the small-M GEMM curve. Every output is checked
    against a float64 reference; a kernel that misses it is reported as rejected (exit 1)
    and never calibrates anything, nor does one too noisy to score (--max-spread).

    Example: kvcalc measure --model llama3-8b --device cpu --batch 1,4 --ctx 256,1024
    """
    import sys

    from calc.cli.common import warn
    from calc.data.registry import load_hardware, load_model
    from calc.measure.report import noisy_note
    from calc.measure.suite import run_suite, stderr_progress
    from calc.output.render import check_yaml_output

    outputs = (("--output", output), ("--save-calibration", save_calibration))
    check_yaml_output(save_calibration, "--save-calibration")
    batches, ctxs, gemm_ms = _checked(fmt, outputs, device, dtype, batch, ctx, gemm_m, repeats,
                                      warmup, max_spread, hardware)  # fmt: skip
    cfg = load_model(model)
    hw = load_hardware(hardware) if hardware else None
    report = run_suite(
        cfg,
        hardware=hw,
        device=device,
        dtype=dtype,
        batches=batches,
        ctxs=ctxs,
        repeats=repeats,
        warmup=warmup,
        quick=quick,
        progress=stderr_progress if sys.stderr.isatty() else None,
        gemm_ms=gemm_ms,
        max_spread_pct=max_spread,
    )
    if hw is not None and report.probed:
        warn(
            [
                f"--hardware {hw.name} is not used on --device cpu: predictions use the "
                "profile probed on this machine (cpu-probe)"
            ]
        )
    fields = report.fields()
    _write(report, fields, fmt, outputs)
    bad = [r for r in fields["rows"] if r["status"] != "ok"]
    warn(f"{r['kernel']} {r['variant']} {r['shape']}: {r['status']}: {r['message']}" for r in bad)
    if fields["n_too_noisy"]:
        warn([noisy_note(fields)])
    if any(r["status"] == "rejected" for r in bad):
        raise typer.Exit(1)


def _checked(fmt, outputs, device, dtype, batch, ctx, gemm_m, repeats, warmup, max_spread,
             hardware) -> tuple[list[int], list[int], list[int]]:  # fmt: skip
    """Every option checked before torch is imported (seconds) and before any kernel runs;
    the batches, contexts and GEMM sizes."""
    from calc.cli.common import check_choice
    from calc.errors import InvalidInputError
    from calc.measure.suite import DEVICES, DTYPES, check_sizes
    from calc.output.render import FORMATS, check_format_output
    from calc.output.safe_io import check_outputs

    check_choice("--format", fmt, FORMATS)
    check_outputs(*outputs)  # before any work
    check_format_output(outputs[0][1], fmt)
    check_choice("--device", device, DEVICES)
    check_choice("--dtype", dtype, DTYPES)
    batches, ctxs = _ints("--batch", batch), _ints("--ctx", ctx)
    gemm_ms = _ints("--gemm-m", gemm_m)
    check_sizes(batches, ctxs, repeats, warmup, gemm_ms, max_spread)
    if device == "cuda" and hardware is None:
        raise InvalidInputError(
            "--device cuda needs --hardware (the profile to predict with), e.g. --hardware h100"
        )
    return batches, ctxs, gemm_ms


def _write(report, fields: dict, fmt: str, outputs) -> None:
    """The report (--output or stdout) and the calibration (--save-calibration), each
    atomically, the outputs checked again now that every input has been read."""
    import sys

    from calc.measure.calibrate import calibration_yaml
    from calc.measure.report import render
    from calc.output.render import write_atomic
    from calc.output.safe_io import check_outputs

    (_, output), (_, save_calibration) = outputs
    text = render(fields, fmt)
    check_outputs(*outputs)
    if output is not None:
        write_atomic(output, text)
    else:
        sys.stdout.write(text)
    if save_calibration is not None:
        cal = report.calibration()
        write_atomic(save_calibration, calibration_yaml(cal), "--save-calibration")
