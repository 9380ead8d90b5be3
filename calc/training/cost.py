"""Cost of a training run [USD] and its throughput [tokens/s per GPU].

Rental: GPU-hours × the price per GPU-hour (the hardware profile's, or --usd-per-hour).
Owned (total cost of ownership per GPU-hour): the purchase price spread over the hours of
its service life actually used, plus the electricity at the facility's PUE:
capex / (years · 8,766 h · utilisation) + power_kW · PUE · USD/kWh.
"""

from __future__ import annotations

HOURS_PER_YEAR = 8766  # 365.25 days × 24 h


def gpu_hours(gpus, seconds):
    """GPU-hours of ``gpus`` GPUs for ``seconds``: gpus · s / 3,600."""
    return gpus * seconds / 3600


def run_usd(gpu_hours_, usd_per_gpu_hour):
    """Dollars of a run: GPU-hours × USD per GPU-hour."""
    return gpu_hours_ * usd_per_gpu_hour


def owned_usd_per_gpu_hour(capex_usd, years, power_w, usd_per_kwh, pue=1.3, utilization=1.0):
    """Owned cost per GPU-hour [USD]: capex / (years · 8,766 · utilisation)
    + power_W / 1,000 · PUE · USD/kWh."""
    return capex_usd / (years * HOURS_PER_YEAR * utilization) + power_w / 1000 * pue * usd_per_kwh


def tokens_per_s_per_gpu(tokens, seconds, gpus):
    """Training throughput per GPU: tokens / (s · gpus)."""
    return tokens / (seconds * gpus)
