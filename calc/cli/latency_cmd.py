"""`kvcalc latency` (alias `roofline`): TTFT, TPOT, end-to-end time and tokens/s."""

from __future__ import annotations

from typing import Annotated

import typer

from calc.cli import deploy_options as d
from calc.cli import options as o

MatmulEff = Annotated[
    float | None,
    typer.Option("--matmul-eff", help="Achievable fraction of peak FLOP/s (overrides the band)."),
]
MemEff = Annotated[
    float | None,
    typer.Option("--mem-eff", help="Achievable fraction of HBM bandwidth (overrides the band)."),
]


def latency(
    model: o.Model,
    hardware: o.HardwareRequired,
    prompt: o.Prompt = 1024,
    gen: o.Gen = 256,
    batch: o.Batch = 1,
    ctx: o.DecodeCtx = None,
    weight_dtype: o.WeightDtype = None,
    kv_dtype: o.KvDtype = None,
    tp: o.Tp = 1,
    pp: o.Pp = 1,
    ep: o.Ep = 1,
    dp: o.Dp = None,
    gpus: o.Gpus = None,
    compute_dtype: o.ComputeDtype = None,
    engine: d.Engine = "vllm",
    engine_version: d.EngineVersion = None,
    mem_util: d.MemUtil = None,
    block_size: d.BlockSize = None,
    max_batched_tokens: d.MaxBatchedTokens = None,
    max_num_seqs: d.MaxNumSeqs = None,
    allreduce: d.AllReduce = None,
    moe_imbalance: d.MoeImbalance = None,
    activation: d.Activation = None,
    overhead: d.Overhead = None,
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
    from calc.api import latency as run
    from calc.cli.common import check_choice, emit_report, job_options, perf_table
    from calc.output.render import ROW_FORMATS

    check_choice("--format", fmt, ROW_FORMATS)
    report = run(**job_options(latency, locals()))
    dep = report.deployment
    title = (
        f"{dep.model.display_name} on {dep.gpus} × {dep.hardware.display_name}: roofline "
        "latency (low/high: band from the efficiency range; GB = 10^9 B)"
    )
    emit_report(
        report,
        fmt,
        output,
        title=title,
        table=lambda: perf_table(report.fields, title),
        explain=explain,
    )
