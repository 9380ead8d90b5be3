"""The Mamba-2 chunked SSD prefill's measured time (calc.formulas.ssd_time) and how the step
model applies it (calc.deploy.ops ``Op.floor_s`` on the ``mamba2_scan`` op, --explain)."""

from __future__ import annotations

import numpy as np
import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.ops import MAMBA2_PREFILL_SCAN_KERNELS
from calc.deploy.steps import decode_step, prefill
from calc.formulas.ssd_time import chunked_ssd_s


def _ops(step):
    return {op.name: op for op in step.raw}


def _times(step):
    return {t.name: t.time_s for t in step.ops}


def test_one_granite_shaped_layer_over_8192_tokens():
    # 6.67e-10 × 8,192 tokens × 128 heads = 6.67e-10 × 1,048,576 = 6.9940019e-4 s
    # (measured 0.649 ms on H100: vLLM PR #27299, bench/ssd_prefill_fit.py)
    assert chunked_ssd_s(8192, 128, 64, 128) == pytest.approx(6.9940019e-4, rel=1e-7)


def test_the_state_size_scales_the_work_and_arrays_broadcast():
    # 64 × 64 states: half the measured 64 × 128; 1,000 tokens × 8 heads:
    # 6.67e-10 × 8,000 × 0.5 = 2.668e-6 s
    assert chunked_ssd_s(1000, 8, 64, 64) == pytest.approx(2.668e-6, rel=1e-9)
    t = np.array([1000.0, 8192.0])
    got = chunked_ssd_s(t, 128, 64, 128)
    assert got[1] == pytest.approx(chunked_ssd_s(8192, 128, 64, 128), rel=1e-12)


def test_the_prefill_scan_takes_its_measured_time_not_its_roofline():
    cfg, hw = load_model("nemotron-3-nano-30b-a3b"), load_hardware("h200")
    step = prefill(cfg, hw, batch=1, prompt=2048)
    scan = _ops(step)["mamba2_scan"]
    # 23 Mamba-2 layers, each 6.67e-10 × 2,048 tokens × 64 heads (of 64 × 128)
    # = 6.67e-10 × 131,072 = 8.7425024e-5 s: 2.01077555e-3 s
    assert scan.floor_s == pytest.approx(23 * 8.7425024e-5, rel=1e-7)
    assert scan.kernels == MAMBA2_PREFILL_SCAN_KERNELS * 23 == 161
    r = step.rates
    # the floor (2.0 ms) is far above the roofline (≈ 15 µs a layer at the matmul band), so the
    # op takes the floor plus its 161 kernels' fixed cost
    assert _times(step)["mamba2_scan"] == pytest.approx(scan.floor_s + 161 * r.kernel_s, rel=1e-9)
    # two prompts of 1,024 tokens: the same tokens, the same floor
    two = _ops(prefill(cfg, hw, batch=2, prompt=1024))["mamba2_scan"]
    assert two.floor_s == pytest.approx(scan.floor_s, rel=1e-12)
    # the speed of light keeps the roofline
    sol = prefill(cfg, hw, batch=1, prompt=2048, efficiency="peak")
    assert _times(sol)["mamba2_scan"] < scan.floor_s / 5


def test_decode_keeps_the_roofline():
    cfg, hw = load_model("nemotron-3-nano-30b-a3b"), load_hardware("h200")
    scan = _ops(decode_step(cfg, hw, batch=8, ctx=2048))["mamba2_scan"]
    assert scan.floor_s is None


def test_explain_names_the_floor_source():
    from calc.reports.flops_figures import op_figures

    cfg, hw = load_model("nemotron-3-nano-30b-a3b"), load_hardware("h200")
    step = prefill(cfg, hw, batch=1, prompt=4096)
    figs = {f.key: f for f in op_figures("prefill", step, hw)}
    f = figs["prefill.mamba2_scan.time_s"]
    assert "floor_s s)" in f.formula and f.value == pytest.approx(_times(step)["mamba2_scan"])
    assert "ssd_time.py" in figs["source.prefill.mamba2_scan"].formula
