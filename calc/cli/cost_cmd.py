"""`kvcalc cost`: tokens/s per GPU and USD per million output and input tokens."""

from __future__ import annotations

from calc.cli import deploy_options as d
from calc.cli import options as o
from calc.cli.option_groups import DEPLOYMENT, ENGINE, Options, with_options
from calc.cli.price_options import PRICE


@with_options(DEPLOYMENT, ENGINE, PRICE)
def cost(
    model: o.Model,
    hardware: o.HardwareRequired,
    ctx: o.Ctx,
    batch: o.Batch = 1,
    prompt: d.Prompt = None,
    max_tpot_ms: d.MaxTpotMs = None,
    max_ttft_ms: d.MaxTtftMs = None,
    efficiency: d.Efficiency = "expected",
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
    *,
    options: Options,
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
    from calc.cli.common import emit_report, on_gpus, run_job

    report = run_job(
        "cost", fmt, model, hardware, ctx, batch, prompt=prompt, max_tpot_ms=max_tpot_ms,
        max_ttft_ms=max_ttft_ms, efficiency=efficiency, **options.prices,
        **options.deployment,
    )  # fmt: skip
    what = ": throughput per GPU and cost (roofline)"
    emit_report(report, fmt, output, title=on_gpus(report.deployment, what), explain=explain)
