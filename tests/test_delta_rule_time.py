"""The chunked gated-DeltaNet prefill's measured time (calc.formulas.delta_rule_time) and how the
step model applies it (calc.deploy.ops ``Op.floor_s``, calc.deploy.rates.op_time, --explain)."""

from __future__ import annotations

import numpy as np
import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.ops import GDN_SCAN_KERNELS
from calc.deploy.steps import decode_step, prefill
from calc.formulas.delta_rule_time import chunked_delta_rule_s


def _ops(step):
    return {op.name: op for op in step.raw}


def _times(step):
    return {t.name: t.time_s for t in step.ops}


def test_one_qwen35_27b_layer_over_8192_tokens():
    # 2.89e-5 + 1.38e-6 × 128 chunks + 1.78e-9 × 1 × 128 × 64 × 48 heads
    # = 2.89e-5 + 1.7664e-4 + 6.9992448e-4 = 9.0546448e-4 s (measured 0.76-1.09 ms: the fit's
    # report, bench/gdn_prefill_fit.py)
    assert chunked_delta_rule_s(1, 8192, 48, 128, 128) == pytest.approx(9.0546448e-4, rel=1e-9)


def test_a_last_chunk_is_padded_and_the_state_size_scales_the_work():
    # 65 tokens walk two chunks of 64, as 128 tokens do
    assert chunked_delta_rule_s(1, 65, 8, 128, 128) == chunked_delta_rule_s(1, 128, 8, 128, 128)
    # 64 × 64 states: a quarter of the token-head term; 1 chunk, 4 prompts, 8 heads:
    # 2.89e-5 + 1.38e-6 + 1.78e-9 × 4 × 64 × 8 / 4 = 3.028e-5 + 9.1136e-7 = 3.119136e-5 s
    assert chunked_delta_rule_s(4, 64, 8, 64, 64) == pytest.approx(3.119136e-5, rel=1e-9)
    # arrays broadcast, element by element as scalars
    p = np.array([64.0, 8192.0])
    got = chunked_delta_rule_s(1, p, 48, 128, 128)
    assert got[1] == pytest.approx(chunked_delta_rule_s(1, 8192, 48, 128, 128), rel=1e-12)


def test_the_prefill_delta_rule_takes_its_measured_time_not_its_roofline():
    cfg, hw = load_model("qwen3.5-27b"), load_hardware("h200")
    step = prefill(cfg, hw, batch=1, prompt=8192)
    rule = _ops(step)["gdn_delta_rule"]
    # 48 gated DeltaNet layers (64 layers, 3 of every 4), each 9.0546448e-4 s
    assert rule.floor_s == pytest.approx(48 * 9.0546448e-4, rel=1e-9)
    assert rule.kernels == GDN_SCAN_KERNELS * 48 == 144
    r = step.rates
    # the floor (43.5 ms) is far above the roofline (≈ 60 GFLOP a layer: about 4 ms at the
    # matmul band), so the op takes the floor plus its 144 kernels' fixed cost
    assert _times(step)["gdn_delta_rule"] == pytest.approx(
        rule.floor_s + 144 * r.kernel_s, rel=1e-9
    )
    # the speed of light keeps the roofline
    sol = prefill(cfg, hw, batch=1, prompt=8192, efficiency="peak")
    assert _times(sol)["gdn_delta_rule"] < rule.floor_s / 5


def test_decode_keeps_the_roofline_with_the_split_and_the_gated_norm_counted():
    cfg, hw = load_model("qwen3.5-27b"), load_hardware("h200")
    step = decode_step(cfg, hw, batch=8, ctx=2048)
    rule = _ops(step)["gdn_delta_rule"]
    assert rule.floor_s is None
    assert rule.kernels == 144  # 48 layers × (split, packed decode, gated norm)
    r = step.rates
    roof = max(rule.flops / r.vector_flops_per_s, rule.bytes / r.bytes_per_s)
    assert _times(step)["gdn_delta_rule"] == pytest.approx(roof + 144 * r.kernel_s, rel=1e-9)


def test_explain_shows_the_floor_with_its_source():
    from calc.reports.flops_figures import op_figures

    cfg, hw = load_model("qwen3.5-27b"), load_hardware("h200")
    step = prefill(cfg, hw, batch=1, prompt=4096)
    figs = {f.key: f for f in op_figures("prefill", step, hw)}
    f = figs["prefill.gdn_delta_rule.time_s"]
    assert "floor_s s)" in f.formula and f.value == pytest.approx(_times(step)["gdn_delta_rule"])
    assert "delta_rule_time.py" in figs["source.prefill.gdn_delta_rule"].formula
