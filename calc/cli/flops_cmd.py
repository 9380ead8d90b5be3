"""`kvcalc flops`: FLOPs per op of a prefill and of one decode step."""

from __future__ import annotations

from calc.cli import options as o


def flops(
    model: o.Model,
    prompt: o.Prompt = 1024,
    gen: o.Gen = 1,
    ctx: o.DecodeCtx = None,
    batch: o.Batch = 1,
    hardware: o.Hardware = None,
    weight_dtype: o.WeightDtype = None,
    kv_dtype: o.KvDtype = None,
    tp: o.Tp = 1,
    pp: o.Pp = 1,
    ep: o.Ep = 1,
    compute_dtype: o.ComputeDtype = None,
    calibration: o.Calibration = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
) -> None:
    """FLOPs per op for the prefill of BATCH prompts and one decode step at CTX (default
    prompt + gen, the last step), with bytes and arithmetic intensity, and the end-to-end
    FLOPs of prompt + GEN tokens; with --hardware, the bound and time of each op.

    Example: kvcalc flops --model llama3-70b --prompt 2048 --hardware h100
    """
    from calc.cli.common import calibrated_hardware, emit_report, load_inputs, perf_table
    from calc.latency import flops_report

    cfg, hw, _ = load_inputs(model, hardware, fmt=fmt)
    if hw is not None:
        hw = calibrated_hardware(hw, calibration)
    report = flops_report(
        cfg,
        hw,
        prompt=prompt,
        gen=gen,
        ctx=ctx,
        batch=batch,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        tp=tp,
        pp=pp,
        ep=ep,
        compute=compute_dtype,
    )
    title = f"{cfg.display_name}: FLOPs (model totals; ops per GPU)"
    emit_report(
        report,
        fmt,
        output,
        title=title,
        table=lambda: perf_table(report.fields, title),
        explain=explain,
    )
