"""A training run of ``--tokens`` tokens: its model FLOPs [FLOP], time [s] (from the step time,
or at an assumed MFU), GPU-hours [GPU-h] and cost [USD] at a rented or owned GPU-hour price;
each with its derivation."""

from __future__ import annotations

from calc.data.hardware_schema import HardwareProfile
from calc.output.derivation import Figure, figure, whole
from calc.training import cost as tc
from calc.training import time as tt
from calc.training.setup import TrainSetup


def run_fields(hw: HardwareProfile, s: TrainSetup, model_tok: float, step) -> tuple[dict, list]:
    """(the run's fields, their figures) for ``s.tokens`` tokens; ``model_tok`` the model
    FLOPs per token, ``step`` the optimizer step (calc.training.step.Step)."""
    d_tok = s.tokens
    assert d_tok is not None
    gpus, peak = s.gpus, step.peak_flops_per_s
    model_flops = model_tok * d_tok
    figs = [
        figure(
            "run_model_flops",
            model_flops,
            "FLOP",
            "{model_flops_per_token} × {tokens}",
            model_flops_per_token=model_tok,
            tokens=d_tok,
        )
    ]
    if s.mfu is not None:
        run_s = tt.time_at_mfu_s(model_flops, gpus, peak, s.mfu)
        figs.append(
            figure(
                "run_s",
                run_s,
                "s",
                "{run_model_flops} / ({gpus} × {peak} × {mfu})",
                run_model_flops=model_flops,
                gpus=gpus,
                peak=peak,
                mfu=s.mfu,
            )
        )
    else:
        run_s = d_tok / step.tokens * step.step_s
        figs.append(
            figure(
                "run_s",
                run_s,
                "s",
                "{tokens} / {tokens_per_step} × {step_s}",
                tokens=d_tok,
                tokens_per_step=step.tokens,
                step_s=step.step_s,
            )
        )
    hours = tc.gpu_hours(gpus, run_s)
    price, price_figs = gpu_hour_price(hw, s)
    usd = tc.run_usd(hours, price)
    figs += [
        *price_figs,
        figure("gpu_hours", hours, "GPU-h", "{gpus} × {run_s} / 3,600", gpus=gpus, run_s=run_s),
        figure(
            "run_usd",
            usd,
            "USD",
            "{gpu_hours} × {usd_per_gpu_hour}",
            gpu_hours=hours,
            usd_per_gpu_hour=price,
        ),
    ]
    fields = dict(
        tokens=whole(d_tok),
        steps=d_tok / step.tokens,
        run_model_flops=model_flops,
        mfu_assumed=s.mfu,
        run_s=run_s,
        gpu_hours=hours,
        usd_per_gpu_hour=price,
        price_basis="owned" if s.owned is not None else "rental",
        run_usd=usd,
    )
    return fields, figs


def gpu_hour_price(hw: HardwareProfile, s: TrainSetup) -> tuple[float, list[Figure]]:
    """(USD per GPU-hour, its derivation when owned): owned GPUs by their cost of ownership,
    else --usd-per-hour, else the profile's list price."""
    if s.owned is None:
        return (hw.usd_per_hour if s.usd_per_hour is None else s.usd_per_hour), []
    o = s.owned
    price = tc.owned_usd_per_gpu_hour(
        o.capex_usd, o.years, o.power_w, o.usd_per_kwh, o.pue, o.utilization
    )
    return price, [
        figure(
            "usd_per_gpu_hour",
            price,
            "USD",
            "{capex} / ({years} × 8,766 × {utilization}) + {power_w} / 1,000 × {pue} "
            "× {usd_per_kwh}",
            capex=o.capex_usd,
            years=o.years,
            utilization=o.utilization,
            power_w=o.power_w,
            pue=o.pue,
            usd_per_kwh=o.usd_per_kwh,
        )
    ]
