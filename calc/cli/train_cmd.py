"""`kvcalc train`: memory per GPU, FLOPs, step time and cost of a training or fine-tuning run."""

from __future__ import annotations

from calc.cli import options as o
from calc.cli.option_groups import Options, with_options
from calc.cli.price_options import PRICE
from calc.cli.train_options import TRAIN


@with_options(TRAIN, PRICE)
def train(
    model: o.Model,
    hardware: o.HardwareRequired,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
    *,
    options: Options,
) -> None:
    """Memory per GPU (weights, gradients, optimizer states, activations) and the fit, FLOPs
    per token (6N + attention, recomputation), step time with pipeline bubble and
    communication, and with --tokens the run's time, GPU-hours and dollars.

    Example: kvcalc train --model llama3-70b --hardware h100 --tp 8 --pp 4 --gpus 1024
    --zero 1 --recompute selective --tokens 15e12 --mfu 0.4
    """
    from calc.cli.common import emit_report, run_job
    from calc.output.render import FORMATS

    report = run_job("train", fmt, model, hardware, formats=FORMATS, **options)
    emit_report(
        report,
        fmt,
        output,
        title=f"{report.fields['model']} training on {report.fields['gpus']:,} × "
        f"{report.fields['hardware']} (GB = 10^9 B, GiB = 2^30 B)",
        explain=explain,
    )
