"""`kvcalc latency` (alias `roofline`): TTFT, TPOT, end-to-end time and tokens/s."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import options as o

CtxOpt = Annotated[
    int | None,
    typer.Option(
        "--ctx",
        help="Context of the reported decode step (default: prompt + gen, the last step).",
    ),
]
Prompt = Annotated[int, typer.Option("--prompt", help="Prompt tokens per sequence.")]
Gen = Annotated[int, typer.Option("--gen", help="Generated tokens per sequence.")]
ComputeDtype = Annotated[
    str | None,
    typer.Option(
        "--compute-dtype",
        help="Tensor-core dtype of the matmuls (default: bf16 for weight-only int8/int4/fp4, "
        "fp8 for fp8 weights on fp8 hardware, else the weight dtype).",
    ),
]
MatmulEff = Annotated[
    float | None,
    typer.Option("--matmul-eff", help="Achievable fraction of peak FLOP/s (overrides the band)."),
]
MemEff = Annotated[
    float | None,
    typer.Option("--mem-eff", help="Achievable fraction of HBM bandwidth (overrides the band)."),
]


def perf_table(fields: dict, title: str):
    """Scalar fields, then the decode ops and the prefill ops, as rich tables."""
    from rich.console import Group

    from calc.render import kv_table, rows_table

    parts = [kv_table(fields, title)]
    for key, label in (("ops", "Decode step ops (per GPU)"), ("prefill_ops", "Prefill ops")):
        rows = fields.get(key)
        if rows:
            parts.append(rows_table(rows, label))
    return Group(*parts)


def latency(
    model: o.Model,
    hardware: o.HardwareRequired,
    prompt: Prompt = 1024,
    gen: Gen = 256,
    batch: o.Batch = 1,
    ctx: CtxOpt = None,
    weight_dtype: o.WeightDtype = None,
    kv_dtype: o.KvDtype = None,
    tp: o.Tp = 1,
    pp: o.Pp = 1,
    ep: o.Ep = 1,
    compute_dtype: ComputeDtype = None,
    matmul_eff: MatmulEff = None,
    mem_eff: MemEff = None,
    calibration: o.Calibration = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
) -> None:
    """Roofline TTFT, TPOT, end-to-end time and tokens/s: speed of light (100% of peak), expected
    (the profile's efficiencies) and a low-high band; per-op bound and time; memory per GPU.

    Example: kvcalc latency --model llama3-70b --hardware h100 --tp 4 --prompt 1024 --gen 256
    """
    from calc.calibration import calibrated
    from calc.cli.common import load_inputs, warn
    from calc.latency import latency_report
    from calc.render import emit

    cfg, hw, _ = load_inputs(model, hardware, fmt=fmt)
    notes: list[str] = []
    hw = calibrated(hw, calibration, notes)
    warn(notes)
    report = latency_report(
        cfg,
        hw,
        prompt=prompt,
        gen=gen,
        batch=batch,
        ctx=ctx,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        tp=tp,
        pp=pp,
        ep=ep,
        matmul_eff=matmul_eff,
        mem_eff=mem_eff,
        compute=compute_dtype,
    )
    warn(report.warnings)
    title = (
        f"{cfg.display_name} on {report.fields['gpus']} × {hw.display_name}: roofline latency "
        "(low/high: band from the efficiency range; GB = 10^9 B)"
    )
    emit(
        report.fields,
        fmt,
        output,
        title=title,
        table=lambda: perf_table(report.fields, title),
        explain=report.figures if explain else (),
    )
