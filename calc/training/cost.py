"""Cost of a training run [USD] and its throughput [tokens/s per GPU].

The price per GPU-hour comes from ``calc.deploy.pricing`` (a profile's price on a basis, a
stated price, or owned hardware by the one TCO formula, ``calc.formulas.tco``).
"""

from __future__ import annotations


def gpu_hours(gpus, seconds):
    """GPU-hours of ``gpus`` GPUs for ``seconds``: gpus · s / 3,600."""
    return gpus * seconds / 3600


def run_usd(gpu_hours_, usd_per_gpu_hour):
    """Dollars of a run: GPU-hours × USD per GPU-hour."""
    return gpu_hours_ * usd_per_gpu_hour


def tokens_per_s_per_gpu(tokens, seconds, gpus):
    """Training throughput per GPU: tokens / (s · gpus)."""
    return tokens / (seconds * gpus)
