"""The shipped low-precision GEMM curves at a decode GEMM (issue 20, fp8small round): they stream
the weights at the bf16 curve's memory fraction, so a few-row fp8 GEMM over a large weight is
timed near what aiconfigurator's tables measured, not a third slower."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware
from calc.formulas.kernel_curves import gemm_time_s


def _fp8_time_s(hw, m, n, k):
    c = hw.kernels.gemm["fp8"]
    return gemm_time_s(
        m, n, k, flops_per_s=hw.peak_flops_per_s["fp8"],
        bytes_per_s=hw.hbm_bandwidth_bytes_per_s, weight_bytes_per_element=1.0,
        act_bytes_per_element=1.0, quantize_bytes_per_element=3.0, compute=c.compute,
        memory=c.memory, fixed_s=c.fixed_s, tile_m=c.tile_m, tile_n=c.tile_n,
        k_half=c.k_half, sharpness=c.sharpness, sms=hw.kernels.sms,
    )  # fmt: skip


@pytest.mark.parametrize("name", ["h100", "h200", "b200", "b300", "gb200", "rtx-pro-6000"])
def test_low_precision_gemms_stream_at_the_bf16_fraction(name):
    k = load_hardware(name).kernels
    for key in ("fp8", "fp8_block", "fp4"):
        if key in k.gemm:
            assert k.gemm[key].memory == k.gemm["bf16"].memory


def test_h200_fp8_decode_gemm_against_the_table():
    hw = load_hardware("h200")
    c = hw.kernels.gemm["fp8"]
    # m = 4 rows, n = 65,536, k = 8,192 (537 MB of fp8 weights). Bytes: 65,536 x 8,192 x 1
    # + 4 x 8,192 x 1 + 2 x 4 x 65,536 = 536,870,912 + 32,768 + 524,288 = 537,427,968;
    # at 4.8e12 B/s x 0.8002 (the bf16 curve's fraction): 139.92 us.
    mem_s = 537_427_968 / (4.8e12 * 0.8002)
    assert mem_s == pytest.approx(139.92e-6, rel=1e-4)
    # compute: tiles ceil(4 / 64) x ceil(65,536 / 64) = 1,024 -> ceil(1,024 / 132) = 8 waves;
    # wave factor 8 x 132 x 64 x 64 / (4 x 65,536) = 16.5; FLOPs 2 x 4 x 65,536 x 8,192 x 16.5
    # x (1 + 458.8 / 8,192) = 7.484e10 at 1.9789e15 x 0.6264: 60.4 us; soft max at s = 8:
    # 139.92 x (1 + (60.4 / 139.92)^8)^(1/8) = 139.94 us; + 8.346 us fixed + the quantisation
    # 4 x 8,192 x 3 / (4.8e12 x 0.8002) = 0.026 us -> 148.3 us
    assert (c.memory, c.compute, c.fixed_s, c.k_half) == (0.8002, 0.6264, 8.346e-06, 458.8)
    assert (c.tile_m, c.tile_n, c.sharpness) == (64, 64, 8)
    t = _fp8_time_s(hw, 4, 65536, 8192)
    assert t == pytest.approx(148.3e-6, rel=2e-3)
    # measured (aiconfigurator-core 0.12.0, h200_sxm gemm tables, m = 4): SGLang 141.95 us,
    # TensorRT-LLM 143.85, vLLM 131.04; the curve before this round gave 191.6 (memory 0.6059)
    for measured in (141.95e-6, 143.85e-6, 131.04e-6):
        assert abs(t / measured - 1) < 0.14
