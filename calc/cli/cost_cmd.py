"""`kvcalc cost`: tokens/s per GPU and USD per million output and input tokens."""

from __future__ import annotations

from calc.cli import deploy_options as d
from calc.cli import options as o
from calc.cli import price_options as po


def cost(
    model: o.Model,
    hardware: o.HardwareRequired,
    ctx: o.Ctx,
    batch: o.Batch = 1,
    prompt: d.Prompt = None,
    tp: o.Tp = 1,
    pp: o.Pp = 1,
    ep: o.Ep = 1,
    dp: o.Dp = None,
    gpus: o.Gpus = None,
    weight_dtype: o.WeightDtype = None,
    kv_dtype: o.KvDtype = None,
    usd_per_gpu_hour: po.UsdPerGpuHour = None,
    price_basis: po.PriceBasis = "neocloud_on_demand",
    price: po.Price = None,
    derived_prices: po.DerivedPrices = False,
    capex_usd_per_gpu: po.CapexUsdPerGpu = None,
    years: po.Years = None,
    power_kw_per_gpu: po.PowerKwPerGpu = None,
    pue: po.Pue = None,
    usd_per_kwh: po.UsdPerKwh = None,
    max_tpot_ms: d.MaxTpotMs = None,
    max_ttft_ms: d.MaxTtftMs = None,
    efficiency: d.Efficiency = "expected",
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
    calibration: o.Calibration = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
) -> None:
    """Throughput (tokens/s per GPU, roofline) and USD per million output and input tokens at
    BATCH, at the largest batch that fits, and at the cheapest batch meeting --max-tpot-ms /
    --max-ttft-ms; and the steady-state serving throughput with prefill charged (serving_*:
    requests of --prompt + (ctx − prompt) tokens at the engine's own concurrency). A GPU-hour is
    priced on --price-basis (default neocloud on-demand; the profile's reference price, said
    so, where it has none there), at --usd-per-gpu-hour, or as owned hardware (TCO:
    --capex-usd-per-gpu, --years, --power-kw-per-gpu, --pue, --usd-per-kwh).

    Example: kvcalc cost --model llama3-70b --hardware h100 --tp 4 --ctx 4096 --max-tpot-ms 50
    """
    from calc.api import cost as run
    from calc.cli.common import check_choice, emit_report, job_options
    from calc.output.render import ROW_FORMATS

    check_choice("--format", fmt, ROW_FORMATS)
    report = run(**job_options(cost, locals()))
    dep = report.deployment
    emit_report(
        report,
        fmt,
        output,
        title=f"{dep.model.display_name} on {dep.gpus} × {dep.hardware.display_name}: "
        "throughput per GPU and cost (roofline)",
        explain=explain,
    )
