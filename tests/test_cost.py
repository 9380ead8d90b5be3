"""Throughput and cost: hand-derived formula values, composition with the roofline latency,
the --usd-per-hour override and the cheapest operating point under a TPOT target."""

from __future__ import annotations

import numpy as np
import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.steps import tpot_s, ttft_s
from calc.reports.cost import (
    input_tokens_per_s_per_gpu,
    output_tokens_per_s_per_gpu,
    usd_per_million_tokens,
)

ARGS = ["cost", "-m", "llama3-70b", "-H", "h100", "--tp", "4", "--ctx", "4096"]


def test_formulas():
    assert output_tokens_per_s_per_gpu(32, 0.02, 4) == pytest.approx(400)  # 32 / 0.02 / 4
    assert input_tokens_per_s_per_gpu(1024, 1, 0.064, 4) == pytest.approx(4000)  # 1024/.064/4
    # $3.60 per GPU-hour = $0.001 per GPU-second; 1000 tokens/s -> 1e-6 $/token -> $1 per 1M
    assert usd_per_million_tokens(3.6, 1000) == pytest.approx(1.0)
    # H100 at $2.99/h producing 400 tokens/s: 2.99 / 3600 / 400 × 1e6 = 2.0763888…
    assert usd_per_million_tokens(2.99, 400) == pytest.approx(2.0763888889)
    got = usd_per_million_tokens(2.0, np.array([100.0, 1000.0]))
    assert got.tolist() == pytest.approx([5.5555555556, 0.5555555556])  # 2/3600/x × 1e6


def test_report_composes_latency_and_price(cli):
    f = cli(*ARGS, "--batch", "32", "--prompt", "1024", "-f", "json").json()
    cfg, hw = load_model("llama3-70b"), load_hardware("h100")
    tpot = tpot_s(cfg, hw, batch=32, ctx=4096, tp=4)
    ttft = ttft_s(cfg, hw, prompt=1024, batch=1, tp=4)
    assert f["tpot_s"] == pytest.approx(tpot, rel=1e-12)
    assert f["ttft_one_prompt_s"] == pytest.approx(ttft, rel=1e-12)
    assert f["output_tokens_per_s_per_gpu"] == pytest.approx(32 / tpot / 4, rel=1e-12)
    assert f["input_tokens_per_s_per_gpu"] == pytest.approx(1024 / ttft / 4, rel=1e-12)
    price = hw.usd_per_hour  # the profile's reference price: its neocloud on-demand median
    assert f["usd_per_gpu_hour"] == price == 3.945  # (3.90 + 3.99) / 2 (prices.yaml)
    assert f["usd_per_hour_per_deployment"] == price * 4  # tp 4
    assert (f["price_basis"], f["price_kind"]) == ("neocloud_on_demand", "median")
    # USD per 1e6 tokens = price / 3600 s / (tokens/s per GPU) × 1e6
    assert f["usd_per_million_output_tokens"] == pytest.approx(price / 3600 / (32 / tpot / 4) * 1e6)
    assert f["usd_per_million_input_tokens"] == pytest.approx(
        price / 3600 / (1024 / ttft / 4) * 1e6
    )
    for key in ("kv_budget_bytes", "kv_cache_tokens", "max_concurrency"):
        assert key in f


def test_usd_per_hour_override_scales_cost(cli):
    base = cli(*ARGS, "--batch", "8", "--usd-per-hour", "2.99", "-f", "json").json()
    cheap = cli(*ARGS, "--batch", "8", "--usd-per-hour", "1.495", "-f", "json").json()
    assert base["usd_per_gpu_hour"] == 2.99 and cheap["usd_per_gpu_hour"] == 1.495
    # half the price (1.495 = 2.99 / 2) -> half the cost per token
    assert cheap["usd_per_million_output_tokens"] == pytest.approx(
        base["usd_per_million_output_tokens"] / 2
    )
    r = cli(*ARGS, "--usd-per-hour", "-1")
    assert r.code == 2 and "--usd-per-gpu-hour must be in (0, 10000]" in r.err


def test_max_batch_point_is_the_max_concurrency(cli):
    f = cli(*ARGS, "-f", "json").json()
    n = f["max_concurrency"]
    assert n > 1
    t = tpot_s(load_model("llama3-70b"), load_hardware("h100"), batch=n, ctx=4096, tp=4)
    assert f["max_batch_tpot_s"] == pytest.approx(t, rel=1e-12)
    assert f["max_batch_output_tokens_per_s_per_gpu"] == pytest.approx(n / t / 4, rel=1e-12)
    assert f["usd_per_million_output_tokens_max_batch"] < f["usd_per_million_output_tokens"]


def test_cheapest_point_under_tpot_target_boundary(cli):
    cfg, hw = load_model("llama3-70b"), load_hardware("h100")
    # choose a target between TPOT(batch 40) and TPOT(batch 41)
    t40, t41 = (tpot_s(cfg, hw, batch=b, ctx=4096, tp=4) for b in (40, 41))
    assert t40 < t41
    target_ms = (t40 + t41) / 2 * 1e3
    f = cli(*ARGS, "--max-tpot-ms", repr(target_ms), "-f", "json").json()
    assert f["target_batch"] == 40  # 40 meets the target, 41 does not
    assert f["target_tpot_s"] == pytest.approx(t40, rel=1e-12)
    assert f["target_output_tokens_per_s_per_gpu"] == pytest.approx(40 / t40 / 4, rel=1e-12)
    assert f["usd_per_million_output_tokens_target"] == pytest.approx(
        hw.usd_per_hour / 3600 / (40 / t40 / 4) * 1e6
    )


def test_unreachable_target_warns(cli):
    r = cli(*ARGS, "--max-tpot-ms", "0.5", "-f", "json")
    assert r.code == 0
    assert r.json()["target_batch"] == 0 and r.json()["target_tpot_s"] is None
    # the same keys as when a batch meets the target, with null values (a JSON contract)
    met = cli(*ARGS, "--max-tpot-ms", "1000", "-f", "json").json()
    missed = r.json()
    for key in (
        "target_tpot_s",
        "target_output_tokens_per_s_per_gpu",
        "usd_per_million_output_tokens_target",
    ):
        assert key in met and key in missed and missed[key] is None
    assert "no operating point meets the latency target: TPOT at batch 1 is" in r.err
    r = cli(*ARGS, "--max-ttft-ms", "0.001", "-f", "json")
    assert r.json()["target_batch"] == 0
    assert "TTFT of one 4,096-token prompt" in r.err


def test_bad_inputs(cli):
    r = cli(*ARGS, "--prompt", "5000")
    assert r.code == 2 and "--prompt 5,000 exceeds --ctx 4,096" in r.err
    r = cli(*ARGS, "--efficiency", "great")
    assert r.code == 2 and "--efficiency 'great' is not one of: peak, low, expected, high" in r.err


def test_csv(cli):
    r = cli(*ARGS, "-f", "csv")
    header = r.out.splitlines()[0].split(",")
    for key in (
        "kv_budget_bytes",
        "kv_cache_tokens",
        "max_concurrency",
        "output_tokens_per_s_per_gpu",
        "usd_per_million_output_tokens",
        "usd_per_million_input_tokens",
    ):
        assert key in header
