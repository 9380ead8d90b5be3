"""Throughput [tokens/s per GPU] and cost [USD per million tokens] of a deployment, from the
roofline TPOT/TTFT of ``calc.latency``, and the cheapest operating point under latency targets.

Definitions:

- output tokens/s per GPU at ``batch``: each decode step emits one token per sequence, so
  ``batch / TPOT(batch, ctx) / gpus``, with TPOT at the full context ``ctx`` (the slowest step);
- input tokens/s per GPU: one prompt of ``prompt`` tokens prefilled alone,
  ``prompt / TTFT(prompt) / gpus`` (TTFT is that prefill: no queueing, a lower bound);
- USD per million tokens: ``usd_per_hour per GPU / 3600 / (tokens/s per GPU) × 10^6``;
- the cheapest operating point under ``max_tpot_s`` / ``max_ttft_s``: TPOT grows with batch,
  output tokens/s too, so the cheapest point is the largest batch (up to the max concurrency
  that fits) whose TPOT meets the target, evaluated over all batches at once.

The formula functions take plain numbers or numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from calc.derivation import Figure, figure
from calc.errors import InvalidInputError

SECONDS_PER_HOUR = 3600
EFFICIENCIES = ("peak", "low", "expected", "high")
TARGET_KEYS = ("target_tpot_s", "target_tokens_per_s", "usd_per_million_output_tokens_target")
MAX_BATCH_KEYS = (
    "max_batch_tpot_s",
    "max_batch_tokens_per_s",
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


def check_efficiency(efficiency: str) -> None:
    """Raise unless --efficiency names a band: peak, low, expected or high."""
    if efficiency not in EFFICIENCIES:
        raise InvalidInputError(
            f"--efficiency {efficiency!r} is not one of: {', '.join(EFFICIENCIES)}"
        )


def _latency_kw(weight_dtype, kv_dtype, tp, pp, efficiency):
    check_efficiency(efficiency)
    return dict(weight_dtype=weight_dtype, kv_dtype=kv_dtype, tp=tp, pp=pp, efficiency=efficiency)


def _price(hw, usd_per_hour):
    if usd_per_hour is not None and not 0 < usd_per_hour <= 10_000:
        raise InvalidInputError(f"--usd-per-hour must be in (0, 10000], got {usd_per_hour!r}")
    return hw.usd_per_hour if usd_per_hour is None else usd_per_hour


def operating_point(
    cfg,
    hw,
    *,
    batch: int,
    ctx: int,
    prompt: int,
    usd_per_hour: float | None = None,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    tp: int = 1,
    pp: int = 1,
    efficiency: str = "expected",
) -> dict:
    """TPOT, TTFT, tokens/s per GPU and USD per million output/input tokens at one point."""
    from calc.latency import tpot_s, ttft_s

    kw = _latency_kw(weight_dtype, kv_dtype, tp, pp, efficiency)
    price = _price(hw, usd_per_hour)
    gpus = tp * pp
    tpot = float(tpot_s(cfg, hw, batch=batch, ctx=ctx, **kw))
    ttft = float(ttft_s(cfg, hw, prompt=prompt, batch=1, **kw))
    out_tps = output_tokens_per_s_per_gpu(batch, tpot, gpus)
    in_tps = input_tokens_per_s_per_gpu(prompt, 1, ttft, gpus)
    return {
        "tpot_s": tpot,
        "ttft_s": ttft,
        "tokens_per_s": out_tps,
        "input_tokens_per_s": in_tps,
        "usd_per_hour": price,
        "usd_per_million_output_tokens": usd_per_million_tokens(price, out_tps),
        "usd_per_million_input_tokens": usd_per_million_tokens(price, in_tps),
    }


def largest_batch_meeting(cfg, hw, *, max_batch: int, ctx: int, max_tpot_s=None, **kw):
    """(largest batch ≤ max_batch with TPOT ≤ max_tpot_s, or 0; TPOT of every batch 1..max)."""
    import numpy as np

    from calc.latency import tpot_s

    if max_batch < 1:
        return 0, np.zeros(0)
    batches = np.arange(1, max_batch + 1)
    tpots = np.asarray(tpot_s(cfg, hw, batch=batches, ctx=ctx, **kw), dtype=float)
    ok = np.ones(max_batch, dtype=bool) if max_tpot_s is None else tpots <= max_tpot_s
    return (int(batches[ok].max()) if ok.any() else 0), tpots


def _at_batch(batch: int, tpots, gpus: int, price: float) -> tuple[float, float, float]:
    """(TPOT [s], output tokens/s per GPU, USD per million output tokens) at ``batch``, from
    ``tpots``, the TPOT of every batch 1..max."""
    t = float(tpots[batch - 1])
    tps = output_tokens_per_s_per_gpu(batch, t, gpus)
    return t, tps, usd_per_million_tokens(price, tps)


def _usd_figure(key: str, usd: float, price: float, tokens_per_s: float) -> Figure:
    return figure(
        key,
        usd,
        "USD",
        "{usd_per_hour} / 3600 / {tokens_per_s} × 10^6",
        usd_per_hour=price,
        tokens_per_s=tokens_per_s,
    )


@dataclass(frozen=True)
class CostReport:
    fields: dict
    figures: list[Figure]
    warnings: list[str] = field(default_factory=list)


def cost_report(
    cfg,
    hw,
    *,
    ctx: int,
    batch: int = 1,
    prompt: int | None = None,
    tp: int = 1,
    pp: int = 1,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    usd_per_hour: float | None = None,
    max_tpot_ms: float | None = None,
    max_ttft_ms: float | None = None,
    efficiency: str = "expected",
    **capacity_kw,
) -> CostReport:
    """Throughput and cost at ``batch``, at the largest batch that fits, and at the cheapest
    batch that meets ``max_tpot_ms`` / ``max_ttft_ms``."""
    from calc.capacity import capacity_report

    prompt = prompt or ctx
    if prompt > ctx:
        raise InvalidInputError(f"--prompt {prompt:,} exceeds --ctx {ctx:,}")
    for name, value in (("max-tpot-ms", max_tpot_ms), ("max-ttft-ms", max_ttft_ms)):
        if value is not None and not 0 < value <= 1e9:
            raise InvalidInputError(f"--{name} must be positive, got {value!r}")
    cap = capacity_report(
        cfg,
        hw,
        ctx=ctx,
        batch=batch,
        tp=tp,
        pp=pp,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        **capacity_kw,
    )
    c = cap.fields
    wd, kd = c["weight_dtype"], c["kv_dtype"]
    lat = dict(weight_dtype=wd, kv_dtype=kd, tp=tp, pp=pp, efficiency=efficiency)
    at = operating_point(
        cfg, hw, batch=batch, ctx=ctx, prompt=prompt, usd_per_hour=usd_per_hour, **lat
    )
    gpus = tp * pp
    price = at["usd_per_hour"]
    fields: dict = {
        "model": cfg.name,
        "hardware": hw.name,
        "engine": c["engine"],
        "tp": tp,
        "pp": pp,
        "gpus": gpus,
        "weight_dtype": wd,
        "kv_dtype": kd,
        "ctx": ctx,
        "prompt": prompt,
        "batch": batch,
        "efficiency": efficiency,
        "usd_per_hour": price,
        "kv_budget_bytes": c["kv_budget_bytes"],
        "kv_cache_tokens": c["kv_cache_tokens"],
        "max_concurrency": c["max_concurrency"],
        "fits": c["fits"],
        **at,
    }
    figs = [
        figure(
            "tokens_per_s",
            at["tokens_per_s"],
            "tokens/s per GPU",
            "{batch} / {tpot_s} s / {gpus}",
            batch=batch,
            tpot_s=at["tpot_s"],
            gpus=gpus,
        ),
        _usd_figure(
            "usd_per_million_output_tokens",
            at["usd_per_million_output_tokens"],
            price,
            at["tokens_per_s"],
        ),
        figure(
            "input_tokens_per_s",
            at["input_tokens_per_s"],
            "tokens/s per GPU",
            "{prompt} / {ttft_s} s / {gpus}",
            prompt=prompt,
            ttft_s=at["ttft_s"],
            gpus=gpus,
        ),
        _usd_figure(
            "usd_per_million_input_tokens",
            at["usd_per_million_input_tokens"],
            price,
            at["input_tokens_per_s"],
        ),
    ]
    warnings = list(cap.warnings)
    max_b = c["max_concurrency"]
    best, tpots = largest_batch_meeting(
        cfg,
        hw,
        max_batch=max_b,
        ctx=ctx,
        max_tpot_s=None if max_tpot_ms is None else max_tpot_ms / 1e3,
        **lat,
    )
    if max_b >= 1:
        fields.update(zip(MAX_BATCH_KEYS, _at_batch(max_b, tpots, gpus, price), strict=True))
    else:
        fields.update(dict.fromkeys(MAX_BATCH_KEYS))
    if max_tpot_ms is not None or max_ttft_ms is not None:
        ttft_ok = max_ttft_ms is None or at["ttft_s"] * 1e3 <= max_ttft_ms
        if not ttft_ok:
            best = 0
        fields.update(max_tpot_ms=max_tpot_ms, max_ttft_ms=max_ttft_ms, target_batch=best)
        if best >= 1:
            fields.update(zip(TARGET_KEYS, _at_batch(best, tpots, gpus, price), strict=True))
            figs.append(
                figure(
                    "target_batch",
                    best,
                    "sequences",
                    "largest batch ≤ {max_concurrency} with TPOT ≤ {max_tpot_ms} ms",
                    max_concurrency=max_b,
                    max_tpot_ms=max_tpot_ms if max_tpot_ms is not None else float("inf"),
                )
            )
        else:
            fields.update(
                target_tpot_s=None,
                target_tokens_per_s=None,
                usd_per_million_output_tokens_target=None,
            )
            why = []
            if not ttft_ok:
                why.append(
                    f"TTFT of one {prompt:,}-token prompt is {at['ttft_s'] * 1e3:,.1f} ms > "
                    f"--max-ttft-ms {max_ttft_ms:g}"
                )
            elif max_b < 1:
                why.append("no sequence fits in the KV budget")
            else:
                why.append(
                    f"TPOT at batch 1 is {float(tpots[0]) * 1e3:,.2f} ms > --max-tpot-ms "
                    f"{max_tpot_ms:g}"
                )
            warnings.append(
                "no operating point meets the latency target: "
                + "; ".join(why)
                + " (raise --tp, lower --weight-dtype, or relax the target)"
            )
    return CostReport(fields, figs, warnings)
