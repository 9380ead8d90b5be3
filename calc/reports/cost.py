"""Throughput [tokens/s per GPU] and cost [USD per million tokens] of a deployment, from the
roofline TPOT/TTFT of ``calc.reports.latency``, and the cheapest operating point under latency
targets.

Definitions:

- output tokens/s per GPU at ``batch``: each decode step emits one token per sequence, so
  ``batch / TPOT(batch, ctx) / gpus``, with TPOT at the full context ``ctx`` (the slowest step);
- input tokens/s per GPU: one prompt of ``prompt`` tokens prefilled alone,
  ``prompt / TTFT(prompt) / gpus`` (``ttft_one_prompt_s`` is that prefill: no queueing, a
  lower bound);
- USD per million tokens: ``usd_per_hour per GPU / 3600 / (tokens/s per GPU) × 10^6``; none
  (null) when the batch does not fit (the ledger's ``fits``), as in ``sweep``;
- steady-state serving throughput with prefill charged (``serving_*`` keys,
  ``calc.reports.throughput``): requests of ``prompt`` input and ``gen`` output tokens (``gen``:
  the workload's, else ctx − prompt, at least 1) at the concurrency the engine reaches
  (min(max_num_seqs, KV pool)), prefill and decode sharing the GPU; its prices
  ``usd_per_million_output_tokens_serving`` (all GPU time charged to output tokens) and
  ``usd_per_million_tokens_serving`` (to prompt + output tokens). ``latency`` and ``sweep``
  report the same figures at the same operating point. The keys above (``batch / TPOT``,
  decode only) are kept: they are an upper bound that leaves prefill out;
- the cheapest operating point under ``max_tpot_s`` / ``max_ttft_s``: TPOT grows with batch,
  output tokens/s too, so the cheapest point is the largest batch (up to the max concurrency
  that fits) whose TPOT meets the target, found by bisection.

The formula functions take plain numbers or numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from calc.deploy.deployment import Deployment, Workload
from calc.errors import InvalidInputError, not_one_of
from calc.output.derivation import Figure, figure
from calc.output.result import Report
from calc.reports.calibration_mark import is_calibrated

SECONDS_PER_HOUR = 3600
TARGET_KEYS = (
    "target_tpot_s",
    "target_output_tokens_per_s_per_gpu",
    "usd_per_million_output_tokens_target",
)
MAX_BATCH_KEYS = (
    "max_batch_tpot_s",
    "max_batch_output_tokens_per_s_per_gpu",
    "usd_per_million_output_tokens_max_batch",
)


def output_tokens_per_s_per_gpu(batch, tpot_s, gpus):
    """Decode throughput per GPU [tokens/s]: batch / TPOT / gpus."""
    return batch / tpot_s / gpus


def input_tokens_per_s_per_gpu(prompt, batch, ttft_s, gpus):
    """Prefill throughput per GPU [tokens/s]: prompt × batch / TTFT / gpus."""
    return prompt * batch / ttft_s / gpus


def usd_per_million_tokens(usd_per_hour_per_gpu, tokens_per_s_per_gpu):
    """Price of a million tokens [USD]: usd_per_hour / 3600 / (tokens/s) × 10^6."""
    return usd_per_hour_per_gpu / SECONDS_PER_HOUR / tokens_per_s_per_gpu * 1e6


def _price(hw, usd_per_hour):
    if usd_per_hour is not None and not 0 < usd_per_hour <= 10_000:
        raise InvalidInputError(f"--usd-per-hour must be in (0, 10000], got {usd_per_hour!r}")
    return hw.usd_per_hour if usd_per_hour is None else usd_per_hour


def _pricing(pricing, usd_per_hour):
    """The pricing of a one-deployment report: the given one, else the profile's price on the
    default basis (its reference price where it has none there), or ``usd_per_hour``."""
    from dataclasses import replace

    from calc.deploy.pricing import Pricing

    if pricing is None:
        return Pricing(usd_per_gpu_hour=usd_per_hour, fallback=True)
    return replace(pricing, fallback=True)


def tpot_at(dep: Deployment, batch, ctx, efficiency: str = "expected"):
    """TPOT [s] of ``dep`` serving ``batch`` sequences (ceil(batch / replicas) per replica)."""
    from calc.deploy.steps import step_of
    from calc.formulas.elementwise import cdiv

    return step_of(dep, efficiency, batch=cdiv(batch, dep.replicas), ctx=ctx).time_s


def operating_point(
    dep: Deployment,
    *,
    batch: int,
    ctx: int,
    prompt: int,
    usd_per_hour: float | None = None,
    efficiency: str = "expected",
) -> dict:
    """TPOT, TTFT of one prompt, tokens/s per GPU and USD per million output/input tokens at
    one point."""
    from calc.deploy.steps import step_of

    price = _price(dep.hardware, usd_per_hour)
    tpot = float(tpot_at(dep, batch, ctx, efficiency))
    ttft = float(step_of(dep, efficiency, batch=1, prompt=prompt).time_s)
    out_tps = output_tokens_per_s_per_gpu(batch, tpot, dep.gpus)
    in_tps = input_tokens_per_s_per_gpu(prompt, 1, ttft, dep.gpus)
    return {
        "tpot_s": tpot,
        "ttft_one_prompt_s": ttft,
        "output_tokens_per_s_per_gpu": out_tps,
        "input_tokens_per_s_per_gpu": in_tps,
        "usd_per_gpu_hour": price,
        "usd_per_million_output_tokens": usd_per_million_tokens(price, out_tps),
        "usd_per_million_input_tokens": usd_per_million_tokens(price, in_tps),
    }


def largest_batch_meeting(
    dep: Deployment, *, max_batch: int, ctx: int, max_tpot_s=None, efficiency="expected"
) -> int:
    """Largest batch ≤ max_batch whose TPOT ≤ max_tpot_s, or 0. TPOT never falls as the batch
    grows, so bisection finds it in log2(max_batch) evaluations."""
    if max_batch < 1:
        return 0
    if max_tpot_s is None:
        return max_batch

    def ok(b: int) -> bool:
        return float(tpot_at(dep, b, ctx, efficiency)) <= max_tpot_s

    if not ok(1):
        return 0
    lo, hi = 1, max_batch
    if ok(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


def _at_batch(dep: Deployment, batch: int, ctx: int, efficiency: str, price: float) -> tuple:
    """(TPOT [s], output tokens/s per GPU, USD per million output tokens) at ``batch``."""
    t = float(tpot_at(dep, batch, ctx, efficiency))
    tps = output_tokens_per_s_per_gpu(batch, t, dep.gpus)
    return t, tps, usd_per_million_tokens(price, tps)


def _usd_figure(key: str, usd: float, price: float, tokens_per_s: float) -> Figure:
    return figure(
        key,
        usd,
        "USD",
        "{usd_per_gpu_hour} / 3600 / {tokens_per_s} × 10^6",
        usd_per_gpu_hour=price,
        tokens_per_s=tokens_per_s,
    )


@dataclass(frozen=True)
class CostReport(Report):
    """``kvcalc cost``'s result: tokens/s per GPU and USD per million tokens at the batch, the
    largest batch that fits and the cheapest meeting the targets; steady-state serving."""

    command = "cost"


def cost_report(
    dep: Deployment,
    work: Workload,
    *,
    usd_per_hour: float | None = None,
    max_tpot_ms: float | None = None,
    max_ttft_ms: float | None = None,
    efficiency: str = "expected",
    pricing=None,
) -> CostReport:
    """Throughput and cost at ``work.batch``, at the largest batch that fits, and at the
    cheapest batch that meets ``max_tpot_ms`` / ``max_ttft_ms``; the GPU-hour priced by
    ``pricing`` (``calc.deploy.pricing.Pricing``; default: the profile's price on the default
    basis, its reference price where it has none there) or at ``usd_per_hour``."""
    from calc.reports.capacity import capacity_report, engine_release_fields, head_fields

    _check_options(efficiency, max_tpot_ms, max_ttft_ms)
    ctx, batch = work.ctx, work.batch
    prompt = work.prompt or ctx
    if prompt > ctx:
        raise InvalidInputError(f"--prompt {prompt:,} exceeds --ctx {ctx:,}")
    from calc.reports.throughput import serving_fields, serving_gen

    # its warnings (does not fit, TP split, a prompt over the step budget: the prompt is
    # --ctx where --prompt is not given)
    cap = capacity_report(dep, replace(work, prompt=prompt))
    at_work = dep.per_gpu.at(ctx, batch)
    hw = dep.hardware
    pricing = _pricing(pricing, usd_per_hour)
    choice = pricing.price_of(hw)
    if choice is None:
        raise InvalidInputError(pricing.missing(hw))
    at = operating_point(
        dep, batch=batch, ctx=ctx, prompt=prompt, usd_per_hour=choice.usd_per_gpu_hour,
        efficiency=efficiency,
    )  # fmt: skip
    gpus = dep.gpus
    price = at["usd_per_gpu_hour"]
    fields: dict = {
        **head_fields(dep),
        **engine_release_fields(dep),
        "ctx": ctx,
        "prompt": prompt,
        "batch": batch,
        "efficiency": efficiency,
        "calibrated": is_calibrated(hw),
        "usd_per_gpu_hour": price,
        "usd_per_hour_per_deployment": price * gpus,
        "price_basis": choice.basis,
        "price_kind": choice.kind,
        "price_source": choice.source,
        **at_work.fields(),  # the whole ledger: its terms sum to kv_budget_bytes
        **at,
    }
    if not at_work.fits:  # a deployment that does not fit has no price (as in sweep)
        fields.update(usd_per_million_output_tokens=None, usd_per_million_input_tokens=None)
    gen = serving_gen(prompt, ctx, work.gen)
    serving = serving_fields(dep, prompt=prompt, gen=gen, efficiency=efficiency, usd_per_hour=price)
    fields.update(gen=int(gen), **serving)
    fields["kwh_per_million_output_tokens_serving"] = _kwh_serving(pricing, hw, serving)
    figs = _cost_figures(dep, batch, prompt, at, serving, int(gen))
    warnings = list(cap.warnings)
    if (note := pricing.fallback_note(hw, choice)) is not None:
        warnings.append(note)
    max_b = at_work.max_concurrency
    if max_b >= 1:
        fields.update(
            zip(MAX_BATCH_KEYS, _at_batch(dep, max_b, ctx, efficiency, price), strict=True)
        )
    else:
        fields.update(dict.fromkeys(MAX_BATCH_KEYS))
    if max_tpot_ms is not None or max_ttft_ms is not None:
        target = _Target(max_tpot_ms, max_ttft_ms, max_b, efficiency, price)
        _meet_target(dep, work, prompt, at, target, (fields, figs, warnings))
    return CostReport(fields, figs, warnings)


def _check_options(efficiency: str, max_tpot_ms, max_ttft_ms) -> None:
    """--efficiency one of the band's names; the TPOT and TTFT targets positive [ms]."""
    from calc.deploy.rates import EFFICIENCIES

    if efficiency not in EFFICIENCIES:
        raise InvalidInputError(
            not_one_of("--efficiency", efficiency, EFFICIENCIES)
        )
    for name, value in (("max-tpot-ms", max_tpot_ms), ("max-ttft-ms", max_ttft_ms)):
        if value is not None and not 0 < value <= 1e9:
            raise InvalidInputError(f"--{name} must be positive, got {value!r}")


def _kwh_serving(pricing, hw, serving: dict) -> float | None:
    """kWh per million output tokens in steady-state serving (board power or the owned figure,
    × PUE); None without a power figure or a throughput."""
    from calc.formulas.tco import kwh_per_million_tokens

    power = pricing.power_kw(hw)
    tps = serving["serving_output_tokens_per_s_per_gpu"]
    return None if power is None or not tps else kwh_per_million_tokens(1, power, pricing.pue, tps)


def _cost_figures(dep: Deployment, batch: int, prompt: int, at: dict, serving: dict,
                  gen: int) -> list[Figure]:  # fmt: skip
    """Tokens/s per GPU and USD per million tokens at the batch, and in steady-state serving."""
    price, gpus = at["usd_per_gpu_hour"], dep.gpus
    figs = []
    # tokens/s per GPU and USD per million tokens of each kind: a decode step of the batch,
    # the prefill of one prompt
    for kind, formula, terms in (
        ("output", "{batch} / {tpot_s} / {gpus}", {"batch": batch, "tpot_s": at["tpot_s"]}),
        ("input", "{prompt} / {ttft_s} / {gpus}",
         {"prompt": prompt, "ttft_s": at["ttft_one_prompt_s"]}),
    ):  # fmt: skip
        tokens_per_s = at[f"{kind}_tokens_per_s_per_gpu"]
        usd_key = f"usd_per_million_{kind}_tokens"
        figs += [
            figure(f"{kind}_tokens_per_s_per_gpu", tokens_per_s, "tokens/s", formula, **terms,
                   gpus=gpus),
            _usd_figure(usd_key, at[usd_key], price, tokens_per_s),
        ]  # fmt: skip
    if serving["serving_output_tokens_per_s_per_gpu"] is not None:
        figs.append(
            figure(
                "serving_output_tokens_per_s_per_gpu",
                serving["serving_output_tokens_per_s_per_gpu"],
                "tokens/s",
                "{concurrency} × {gen} / {cycle_s} / {gpus}",
                concurrency=serving["serving_concurrency"],
                gen=gen,
                cycle_s=serving["serving_cycle_s"],
                gpus=gpus,
            )
        )
        figs.append(
            _usd_figure(
                "usd_per_million_output_tokens_serving",
                serving["usd_per_million_output_tokens_serving"],
                price,
                serving["serving_output_tokens_per_s_per_gpu"],
            )
        )
    return figs


@dataclass(frozen=True)
class _Target:
    """A latency target: --max-tpot-ms and --max-ttft-ms, within batches of at most max_b."""

    max_tpot_ms: float | None
    max_ttft_ms: float | None
    max_b: int  # the largest batch that fits
    efficiency: str
    price: float  # USD per GPU-hour


def _meet_target(dep: Deployment, work: Workload, prompt: int, at: dict, t: _Target,
                 out: tuple[dict, list, list]) -> None:  # fmt: skip
    """The largest batch meeting the target: its keys into the fields, its figure, or the
    warning of why none does."""
    fields, figs, warnings = out
    ctx = work.ctx
    best = largest_batch_meeting(
        dep,
        max_batch=t.max_b,
        ctx=ctx,
        max_tpot_s=None if t.max_tpot_ms is None else t.max_tpot_ms / 1e3,
        efficiency=t.efficiency,
    )
    ttft_ok = t.max_ttft_ms is None or at["ttft_one_prompt_s"] * 1e3 <= t.max_ttft_ms
    if not ttft_ok:
        best = 0
    fields.update(max_tpot_ms=t.max_tpot_ms, max_ttft_ms=t.max_ttft_ms, target_batch=best)
    if best >= 1:
        fields.update(
            zip(TARGET_KEYS, _at_batch(dep, best, ctx, t.efficiency, t.price), strict=True)
        )
        figs.append(
            Figure(
                "target_batch",
                best,
                "sequences",
                f"largest batch ≤ {t.max_b:,} with TPOT ≤ "
                f"{t.max_tpot_ms if t.max_tpot_ms is not None else float('inf'):g} ms",
            )
        )
        return
    fields.update(dict.fromkeys(TARGET_KEYS))
    if not ttft_ok:
        why = (
            f"TTFT of one {prompt:,}-token prompt is "
            f"{at['ttft_one_prompt_s'] * 1e3:,.1f} ms > --max-ttft-ms {t.max_ttft_ms:g}"
        )
    elif t.max_b < 1:
        why = "no sequence fits in the KV budget"
    else:
        t1 = float(tpot_at(dep, 1, ctx, t.efficiency))
        why = f"TPOT at batch 1 is {t1 * 1e3:,.2f} ms > --max-tpot-ms {t.max_tpot_ms:g}"
    warnings.append(
        "no operating point meets the latency target: "
        + why
        + " (raise --tp, lower --weight-dtype, or relax the target)"
    )
