"""What a planned deployment costs and draws: USD per hour and per million tokens at the offered
load [USD], energy per million tokens [kWh]. The price of one GPU-hour comes from
``calc.deploy.pricing`` (a basis, a stated price, or owned hardware by the one TCO formula,
``calc.formulas.tco``), shared with ``cost`` and ``train``.

    USD per million tokens of one kind at load = USD/h × share / 3,600 / (tokens/s) × 10^6
    kWh per million tokens of one kind at load = GPUs × kW × PUE × share / 3,600 / (tokens/s) × 10^6

``share``: the part of the deployment's time spent on that kind of token (prompt tokens: the
prefill share of the serving cycle, or the prefill pool's GPUs under disaggregation). Power per
GPU: the stated owned-hardware figure, else the profile's board power (its rated maximum: an upper
bound of what it draws while serving).
"""

from __future__ import annotations

from calc.deploy.pricing import (
    DEFAULT_BASIS,
    DEFAULT_PUE,
    DEFAULT_USD_PER_KWH,
    DEFAULT_YEARS,
    Owned,
    PriceChoice,
    Pricing,
)
from calc.formulas.tco import (
    HOURS_PER_YEAR,
    SECONDS_PER_HOUR,
    capex_usd_per_hour,
    kwh_per_million_tokens,
    owned_usd_per_gpu_hour,
    power_usd_per_hour,
)

__all__ = [
    "DEFAULT_BASIS",
    "DEFAULT_PUE",
    "DEFAULT_USD_PER_KWH",
    "DEFAULT_YEARS",
    "HOURS_PER_YEAR",
    "Owned",
    "PriceChoice",
    "Pricing",
    "capex_usd_per_hour",
    "kwh_per_million_tokens",
    "kwh_per_million_tokens_at_load",
    "owned_usd_per_gpu_hour",
    "power_usd_per_hour",
    "usd_per_million_tokens_at_load",
]


def usd_per_million_tokens_at_load(usd_per_hour, share, tokens_per_s):
    """USD per million tokens of one kind at the offered load: USD/h × share / 3,600 /
    (tokens/s) × 10^6."""
    return usd_per_hour * share / SECONDS_PER_HOUR / tokens_per_s * 1e6


def kwh_per_million_tokens_at_load(gpus, power_kw, pue, share, tokens_per_s):
    """kWh per million tokens of one kind at the offered load: the share of the deployment's
    energy (GPUs × kW × PUE) those tokens take, per million of them."""
    return kwh_per_million_tokens(gpus, power_kw, pue, tokens_per_s) * share
