"""DeepSeek-R1's prefill on gfx942 against AITER's measured kernels (issue 20, amdprefill round):
the measured rates by hand, the MI325X fp8 band holding them, and the 8k pass at those rates no
slower than kvcalc's (the kernel rates do not explain the held-out MI325X TTFT)."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware
from tests.scripts import load_script

FP8_PEAK = 2_614.9e12  # MI300X / MI325X dense fp8 [FLOP/s], the profiles' peak


@pytest.fixture(scope="module")
def parts():
    load_script("bench/validation_newruns.py")  # imported by name inside ``parts``
    return load_script("bench/amd_prefill_parts.py")


def test_moe_rate_by_hand(parts):
    # 2 × 8,192 tokens × top-8 × 3 (gate, up, down) × 6,144 × 256 = 618,475,290,624 FLOP in
    # 1,412.0369 µs = 4.3800e14 FLOP/s (the tuner's own "tflops" column: 438.0) = 0.1675 of fp8
    assert parts.moe_rate(8192) == pytest.approx(618_475_290_624 / 1412.0369e-6, rel=1e-12)
    assert parts.moe_rate(8192) / FP8_PEAK == pytest.approx(0.1675, abs=5e-4)
    # 2,048 tokens: 154,618,822,656 FLOP / 703.1913 µs = 2.1988e14 (its column: 219.88) = 0.0841
    assert parts.moe_rate(2048) / FP8_PEAK == pytest.approx(0.0841, abs=5e-4)


def test_gemm_rates_by_hand(parts):
    # fused q_a + kv_a: 2 × 8,192 × 2,112 × 7,168 = 248,034,361,344 FLOP / 291.6331 µs =
    # 8.5050e14 (column: 850.5) = 0.3253 of fp8
    assert parts.gemm_rate("q_kv_down") / FP8_PEAK == pytest.approx(0.3253, abs=5e-4)
    # kv_b: 2 × 8,192 × 4,096 × 512 = 34,359,738,368 / 66.7474 µs = 5.1477e14 = 0.1969
    assert parts.gemm_rate("kv_up") / FP8_PEAK == pytest.approx(0.1969, abs=5e-4)
    # dense down: 2 × 8,192 × 7,168 × 2,304 = 270,582,939,648 / 270.2519 µs = 1.0012e15 = 0.3829
    assert parts.gemm_rate("ffn_down") / FP8_PEAK == pytest.approx(0.3829, abs=5e-4)
    # a pair is its FLOPs over its time: ffn_up + ffn_down = (541,165,879,296 + 270,582,939,648)
    # FLOP / (566.1328 + 270.2519) µs = 811,748,818,944 / 836.3847e-6 = 9.7054e14
    assert parts.op_rate("ffn") == pytest.approx(9.7054e14, rel=1e-4)
    assert parts.op_rate("attn_scores") is None  # the MHA prefill: not measured on gfx942


def test_mi325x_fp8_band_holds_the_measured_kernels(parts):
    band = load_hardware("mi325x").efficiency.matmul_fp8
    rates = [parts.moe_rate(t) for t in parts.MOE] + [parts.gemm_rate(g) for g in parts.GEMM]
    fracs = [r / FP8_PEAK for r in rates]
    # measured 0.0841 (MoE, 2,048 tokens) to 0.3829 (dense down): inside [0.08, 0.45]
    assert band.low <= min(fracs) and max(fracs) <= band.high
    assert band.low == 0.08 and band.expected == 0.18  # floor(0.0841 × 100) / 100; kept
    prov = load_hardware("mi325x").provenance["efficiency.matmul_fp8"]
    # copied (amdband round): its expected is MI300X's fitted 0.18, its band widened
    assert prov.kind == "copied" and prov.copied_from == "mi300x" and "84493f0e5b" in prov.source
    assert load_hardware("mi300x").provenance["efficiency.matmul_fp8"].kind == "fitted"


def test_pass_at_measured_rates_is_not_slower(parts):
    # kvcalc's 8k pass (7,372 tokens, TP 8) against the same pass with every measured op at
    # AITER's rate: the measured kernels are as fast or faster (the MoE 0.1675 against kvcalc's
    # 0.168; the block GEMMs 0.197-0.383 against 0.166-0.178), so the held-out TTFT's missing
    # ~600 ms is not in these kernels
    rows, tot = parts.parts("mi325x")
    assert tot["prompt"] == 7372  # the mean of 0.8-1.0 × 8,192
    assert tot["at_measured_ms"] < tot["pass_ms"]
    routed = next(r for r in rows if r["op"] == "routed_experts")
    assert routed["meas_ms"] == pytest.approx(routed["ms"], rel=0.05)
