"""The cost of owning a GPU for an hour [USD/h] and the energy a served token takes [kWh]: the
one total-cost-of-ownership formula ``plan``, ``cost`` and ``train`` share.

    USD per GPU-hour = capex / (years × 8,766 h × utilisation) + power [kW] × PUE × USD per kWh

(8,766 = 365.25 days × 24 h, a year with its leap day). ``utilisation`` is the share of its
service life the GPU is busy (1: every hour of it is paid by the work priced). Staff, network and
floor space are not in it: add them to the capex or to the power price where they matter.

    kWh per million tokens = GPUs × power [kW] × PUE / 3,600 / (tokens/s) × 10^6

at the stated power per GPU (a board's rated power is the most it draws: an upper bound).
"""

from __future__ import annotations

HOURS_PER_YEAR = 8766  # 365.25 × 24
SECONDS_PER_HOUR = 3600


def capex_usd_per_hour(capex_usd, years, utilisation=1.0):
    """Purchase spread over the busy hours of its service life [USD/h]:
    capex / (years × 8,766 × utilisation)."""
    return capex_usd / (years * HOURS_PER_YEAR * utilisation)


def power_usd_per_hour(power_kw, pue, usd_per_kwh):
    """Electricity of one GPU, facility overhead included [USD/h]: kW × PUE × USD/kWh."""
    return power_kw * pue * usd_per_kwh


def owned_usd_per_gpu_hour(capex_usd, years, power_kw, pue, usd_per_kwh, utilisation=1.0):
    """Total cost of owning one GPU for an hour [USD/h]: capex part + power part."""
    return capex_usd_per_hour(capex_usd, years, utilisation) + power_usd_per_hour(
        power_kw, pue, usd_per_kwh
    )


def kwh_per_million_tokens(gpus, power_kw, pue, tokens_per_s):
    """Energy of a million tokens at ``tokens_per_s`` on ``gpus`` GPUs drawing ``power_kw``
    each [kWh]: gpus × kW × PUE / 3,600 / (tokens/s) × 10^6."""
    return gpus * power_kw * pue / SECONDS_PER_HOUR / tokens_per_s * 1e6
