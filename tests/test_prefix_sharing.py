"""Prefix sharing: KV saved and concurrency bought, hand-derived on Llama 3 8B / H100."""

from __future__ import annotations

import pytest

from calc.reports.prefix_sharing import (
    kv_saved_bytes,
    kv_with_sharing_bytes,
    max_concurrency_shared,
    shared_tokens,
)

KV_TOKEN = 131_072  # Llama 3 8B bf16: 2 × 32 × 8 × 128 × 2
BUDGET = 58_854_989_824  # see tests/test_capacity.py


def test_formulas():
    assert shared_tokens(1000, 16) == 992  # floor(1000 / 16) = 62 whole blocks × 16
    assert shared_tokens(1000, 1) == 1000
    assert kv_saved_bytes(10, 5) == 45  # (10 − 1) × 5
    assert kv_with_sharing_bytes(10, 7, 3) == 43  # 3 + 10 × (7 − 3)
    assert max_concurrency_shared(100, 7, 3) == 24  # floor((100 − 3) / 4)


def test_through_the_cli(cli):
    r = cli(
        "capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "--activation", "1GiB",
        "--overhead", "0.5GiB", "--shared-prefix", "1000", "--users", "10",
        "--engine-version", "0.19", "-f", "json",
    )  # fmt: skip
    f = r.json()
    assert f["shared_prefix_tokens"] == 992
    assert f["shared_prefix_bytes"] == 130_023_424  # 992 × 131,072
    assert f["kv_saved_bytes"] == 1_170_210_816  # 9 × 130,023,424
    assert f["kv_without_sharing_bytes"] == 10_737_418_240  # 10 × 8192 × 131,072
    # 130,023,424 + 10 × (1,073,741,824 − 130,023,424 = 943,718,400) = 9,567,207,424
    assert f["kv_with_sharing_bytes"] == 9_567_207_424
    # floor((58,854,989,824 − 130,023,424) / 943,718,400) = floor(62.23) = 62
    assert f["max_concurrency_shared"] == 62
    assert 62 * 943_718_400 <= BUDGET - 130_023_424 < 63 * 943_718_400
    assert f["concurrency_gain"] == 8  # 62 − 54 without sharing
    assert f["users_fit_with_sharing"] is True


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--shared-prefix", "8192", "--users", "2"], "must be shorter than --ctx 8,192"),
        (["--users", "2"], "go together"),
        (["--shared-prefix", "10", "--users", "0"], "--users must be an integer"),
    ],
)
def test_errors(cli, extra, message):
    r = cli("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", *extra)
    assert r.code == 2 and message in r.err
