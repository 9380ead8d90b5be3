"""MXFP4 experts on gfx942 (MI300X, MI325X): weight-only, their streaming fraction a band of its
own (``efficiency.weight_only_fp4``: unmeasured at serving shapes, bracketed by ROCm/triton
issue #970's measured kernel at one and two workgroups a CU, expected the middle), and every
other GPU's 4-bit float weights still at int4's figure. Every value from the profile's
numbers, arithmetic beside it."""

from __future__ import annotations

import math

import pytest

from calc.data.registry import hardware_names, load_hardware, load_model
from calc.deploy.deployment import Deployment
from calc.deploy.rates import gemm_terms, weight_only_family, weight_only_fractions
from calc.deploy.steps import step_of

# ROCm/triton issue #970: triton_kernels matmul_ogs, mxfp4 weights, gpt-oss w13 at M = 1 on
# MI300X (triton 3.6.0): E 32, K 3,072, N 6,144, top-4, 82.28 us, tiles 32x256x128
K, N, TOPK, US = 3072, 6144, 4, 82.28e-6
WEIGHT_B = TOPK * K * N // 2 + TOPK * K * N // 32  # 37,748,736 B fp4 + 2,359,296 B e8m0 scales
WORKGROUPS = TOPK * N // 256  # one 32-row tile an expert × 6,144 / 256 column tiles = 96


def test_4bit_float_formats_form_their_own_family():
    assert [weight_only_family(f) for f in ("mxfp4", "nvfp4", "fp4")] == ["fp4"] * 3
    assert weight_only_family("int4-g128") == "int4" and weight_only_family("int8") == "int8"


def test_the_kernel_floor_arithmetic():
    assert WEIGHT_B == 40_108_032 and WORKGROUPS == 96
    # 40,108,032 B / 82.28 us = 487.5 GB/s = 0.0920 of MI300X's 5.3 TB/s (on 96 workgroups)
    assert WEIGHT_B / US / 5.3e12 == pytest.approx(0.0920, abs=5e-4)
    per_wg = WEIGHT_B / WORKGROUPS / US  # 417,792 B / 82.28 us = 5.078 GB/s a workgroup
    assert per_wg == pytest.approx(5.078e9, rel=1e-3)
    # one workgroup on each of the 304 CUs: 1.5436 TB/s; / 5.3 TB/s = 0.2912; / 0.49 = 0.594
    mi300x = load_hardware("mi300x")
    floor = 304 * per_wg / mi300x.hbm_bandwidth_bytes_per_s / mi300x.efficiency.memory.expected
    assert floor == pytest.approx(0.594, abs=1e-3)
    assert mi300x.efficiency.weight_only_fp4.low == math.floor(floor * 100) / 100  # 0.59 (down)
    # MI325X: the same 1.5436 TB/s / 6.0 TB/s = 0.2573; / 0.49 = 0.525
    mi325x = load_hardware("mi325x")
    floor325 = 304 * per_wg / mi325x.hbm_bandwidth_bytes_per_s / mi325x.efficiency.memory.expected
    assert floor325 == pytest.approx(0.525, abs=1e-3)
    assert mi325x.efficiency.weight_only_fp4.low == math.floor(floor325 * 100) / 100  # 0.52
    # two workgroups a CU (64 KB of LDS over 25,600 B a workgroup: 2.56): twice the floor,
    # 1.189 (MI300X) and 1.050 (MI325X) of the band: both held at 1
    assert 65536 // 25600 == 2 and 2 * floor > 1 and 2 * floor325 > 1
    for hw in (mi300x, mi325x):
        band = hw.efficiency.weight_only_fp4
        assert band.high == 1.0
        # expected: the middle of the bracket, (0.59 + 1) / 2 = 0.795, (0.52 + 1) / 2 = 0.76
        assert band.expected == pytest.approx((band.low + band.high) / 2)


@pytest.mark.parametrize("name,low,mid", [("mi300x", 0.59, 0.795), ("mi325x", 0.52, 0.76)])
def test_gfx942_mxfp4_band_by_efficiency(name, low, mid):
    hw = load_hardware(name)
    got = {e: weight_only_fractions(hw, e)["fp4"] for e in ("low", "expected", "high")}
    # low: one workgroup a CU; expected: the middle; high: two a CU, held at the memory band
    assert got == {"low": low, "expected": mid, "high": 1.0}
    assert weight_only_fractions(hw, "expected")["int4"] == 0.617  # int4 itself unchanged
    e = hw.efficiency
    assert e.weight_only_fp4_source and "UNMEASURED" in e.weight_only_fp4_source
    assert hw.provenance["efficiency.weight_only_fp4"].kind == "assumed"


def test_other_gpus_keep_int4s_figure_for_fp4():
    for name in hardware_names():
        hw = load_hardware(name)
        if hw.efficiency.weight_only_fp4 is not None:
            continue
        for eff in ("low", "expected", "high"):
            fr = weight_only_fractions(hw, eff)
            assert fr.get("fp4") == fr.get("int4"), (name, eff)


def _experts(hw, efficiency):
    dep = Deployment.build(load_model("gpt-oss-120b"), hw)
    step = step_of(dep, efficiency, batch=64, ctx=1536)
    op = next(o for o in step.raw if o.name == "routed_experts")
    return op, gemm_terms(op, step.rates)


def test_mi300x_experts_stream_at_the_band():
    mi300x = load_hardware("mi300x")
    for eff, wo in (("low", 0.59), ("expected", 0.795), ("high", 1.0)):
        op, g = _experts(mi300x, eff)
        # weights at wo of the memory band: bytes = activations + weights / wo
        assert g.bytes == pytest.approx(op.bytes - op.weight_bytes + op.weight_bytes / wo)
    # the speed of light streams the exact bytes
    op, g = _experts(mi300x, "peak")
    assert g.bytes == op.bytes
