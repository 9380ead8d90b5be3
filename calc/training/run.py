"""A training run of ``--tokens`` tokens: its model FLOPs [FLOP], time [s] (from the step time,
or at an assumed MFU), GPU-hours [GPU-h] and cost [USD] at a rented or owned GPU-hour price;
each with its derivation."""

from __future__ import annotations

from calc.data.hardware_schema import HardwareProfile
from calc.output.derivation import figure, whole
from calc.training import cost as tc
from calc.training import time as tt
from calc.training.setup import TrainSetup


def run_fields(hw: HardwareProfile, s: TrainSetup, model_tok: float,
               step) -> tuple[dict, list, list[str]]:  # fmt: skip
    """(the run's fields, their figures, warnings) for ``s.tokens`` tokens; ``model_tok`` the
    model FLOPs per token, ``step`` the optimizer step (calc.training.step.Step)."""
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
    choice, price_figs, notes = gpu_hour_price(hw, s)
    price = choice.usd_per_gpu_hour
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
        price_basis=choice.basis,
        price_kind=choice.kind,
        run_usd=usd,
    )
    return fields, figs, notes


def gpu_hour_price(hw: HardwareProfile, s: TrainSetup):
    """(the GPU-hour's ``calc.deploy.pricing.PriceChoice``, its derivation when owned, the
    warning when it is charged off the asked basis): ``s.pricing``, else ``s.usd_per_hour``,
    else the profile's price on the default basis (its reference price where it has none)."""
    from dataclasses import replace

    from calc.deploy.pricing import Pricing
    from calc.errors import InvalidInputError

    pricing = s.pricing or Pricing(usd_per_gpu_hour=s.usd_per_hour)
    pricing = replace(pricing, fallback=True)
    choice = pricing.price_of(hw)
    if choice is None:
        raise InvalidInputError(pricing.missing(hw))
    note = pricing.fallback_note(hw, choice)
    notes = [] if note is None else [note]
    o = pricing.owned
    if o is None:
        return choice, [], notes
    return choice, [
        figure(
            "usd_per_gpu_hour",
            choice.usd_per_gpu_hour,
            "USD",
            "{capex} / ({years} × 8,766 × {utilization}) + {power_kw} × {pue} × {usd_per_kwh}",
            capex=o.capex_of(hw),
            years=o.years,
            utilization=o.utilisation,
            power_kw=o.power_kw_of(hw),
            pue=o.pue,
            usd_per_kwh=o.usd_per_kwh,
        )
    ], notes
