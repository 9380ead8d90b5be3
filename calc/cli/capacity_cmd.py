"""`kvcalc capacity`: KV budget, pool, concurrency, max context, paging and prefix sharing."""

from __future__ import annotations

from calc.cli import deploy_options as d
from calc.cli import options as o


def capacity(
    model: o.Model,
    hardware: o.HardwareRequired,
    ctx: o.Ctx,
    batch: o.Batch = 1,
    tp: o.Tp = 1,
    pp: o.Pp = 1,
    ep: o.Ep = 1,
    dp: o.Dp = None,
    gpus: o.Gpus = None,
    weight_dtype: o.WeightDtype = None,
    kv_dtype: o.KvDtype = None,
    engine: d.Engine = "vllm",
    engine_version: d.EngineVersion = None,
    mem_util: d.MemUtil = None,
    block_size: d.BlockSize = None,
    max_batched_tokens: d.MaxBatchedTokens = None,
    max_num_seqs: d.MaxNumSeqs = None,
    activation: d.Activation = None,
    overhead: d.Overhead = None,
    max_model_len: d.MaxModelLen = None,
    shared_prefix: d.SharedPrefix = None,
    users: d.Users = None,
    calibration: o.Calibration = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
) -> None:
    """How many sequences fit: KV budget per GPU, KV pool in tokens, max concurrency at CTX,
    max context at BATCH, paged vs contiguous waste, and prefix-sharing savings.

    Example: kvcalc capacity --model llama3-70b --hardware h100 --tp 4 --ctx 8192 --engine vllm
    """
    from calc.api import capacity as run
    from calc.cli.common import check_choice, emit_report, job_options
    from calc.output.render import ROW_FORMATS

    check_choice("--format", fmt, ROW_FORMATS)
    report = run(**job_options(capacity, locals()))
    dep = report.deployment
    emit_report(
        report,
        fmt,
        output,
        title=f"{dep.model.display_name} on {dep.gpus} × {dep.hardware.display_name} "
        f"({engine}): KV capacity per GPU (GB = 10^9 B, GiB = 2^30 B)",
        explain=explain,
    )
