"""The CDNA profiles' bf16 GEMM band derived from the fp8 one by the measured gfx942 rate of bf16
against 8-bit GEMMs (issue 20 deliver 4, amdband round; bench/amd_bf16_gemm.py), and every copied
efficiency band at least as wide as the band it is copied from."""

from __future__ import annotations

import pytest

from calc.data.hardware_schema import Band
from calc.data.registry import hardware_names, load_hardware
from tests.scripts import load_script


@pytest.fixture(scope="module")
def rule():
    return load_script("bench/amd_bf16_gemm.py")


def test_ratio_by_hand(rule):
    # (16, 8,192, 1,280, 8,192): 2 × 16 × 8,192 × 1,280 × 8,192 = 2,748,779,069,440 FLOP;
    # bf16 5,488.8801 us = 500.8 TFLOP/s (the tuner's column: 500.79), a8w8 2,894.8037 us =
    # 949.6 (949.56): r = 5,488.8801 / 2,894.8037 = 1.8961
    shape = (16, 8192, 1280, 8192)
    assert rule.tflops(shape, 5488.8801) == pytest.approx(500.79, abs=0.01)
    assert rule.tflops(shape, 2894.8037) == pytest.approx(949.56, abs=0.01)
    r = rule.ratios()
    assert len(r) == 10  # M 1,024-16,384 at two (N, K)
    # sorted: 1.340 1.369 1.377 1.379 1.393 | 1.661 1.692 1.789 1.896 1.975
    # median (1.3930 + 1.6610) / 2 = 1.527
    assert min(r) == pytest.approx(8164.1629 / 6094.2926, rel=1e-12)  # 1.3397
    assert max(r) == pytest.approx(11248.3376 / 5696.639, rel=1e-12)  # 1.9746
    assert sorted(r)[4] + sorted(r)[5] == pytest.approx(2 * 1.527, abs=2e-3)


def test_siblings_inside_the_measured_range(rule):
    # MAMF fp8 / bf16 on NVIDIA: H100 1,402.6 / 794.5 = 1.765, H200 1,453.4 / 794.5 = 1.829,
    # B200 3,432.5 / 1,745.0 = 1.967: each inside gfx942's 1.340-1.975
    r = rule.ratios()
    for name, x in rule.SIBLINGS.items():
        assert min(r) <= x <= max(r), name


def test_mi300x_bf16_band_from_its_fitted_fp8_band(rule):
    e = load_hardware("mi300x").efficiency
    assert (e.matmul_fp8.low, e.matmul_fp8.expected, e.matmul_fp8.high) == (0.15, 0.18, 0.24)
    # low 0.15 × 2.0001 / 1.9746 = 0.1519 -> 0.15; expected 0.18 × 2.0001 / 1.527 = 0.2358 ->
    # 0.24; high 0.24 × 2.0001 / 1.3397 = 0.3583 -> 0.36 (under the MAMF best shape 0.598)
    assert rule.bf16_band(0.15, 0.18, 0.24, rule.MAMF["mi300x"]) == (0.15, 0.24, 0.36)
    assert (e.matmul.low, e.matmul.expected, e.matmul.high) == (0.15, 0.24, 0.36)
    prov = load_hardware("mi300x").provenance
    assert prov["efficiency.matmul"].kind == "derived"
    assert prov["efficiency.matmul_fp8"].kind == "fitted"


def test_mi325x_and_mi355x_bf16_bands_by_the_same_rule(rule):
    # mi325x fp8 0.08 / 0.18 / 0.45: low 0.08 × 2.0001 / 1.9746 = 0.0810 -> 0.08, expected 0.24,
    # high 0.45 × 2.0001 / 1.3397 = 0.672 held at its MAMF best shape 784.9 / 1,307.4 = 0.60
    assert rule.bf16_band(0.08, 0.18, 0.45, rule.MAMF["mi325x"]) == (0.08, 0.24, 0.60)
    # mi355x fp8 0.04 / 0.20 / 0.45: 0.0405 -> 0.04, 0.20 × 2.0001 / 1.527 = 0.262 -> 0.26,
    # 0.672 held at the assumed CDNA ceiling 0.60
    assert rule.bf16_band(0.04, 0.20, 0.45, rule.ASSUMED_CEILING["mi355x"]) == (0.04, 0.26, 0.60)
    for name, want in (("mi325x", (0.08, 0.24, 0.60)), ("mi355x", (0.04, 0.26, 0.60))):
        m = load_hardware(name).efficiency.matmul
        assert (m.low, m.expected, m.high) == want, name
    assert load_hardware("mi325x").provenance["efficiency.matmul"].copied_from == "mi300x"
    assert load_hardware("mi355x").provenance["efficiency.matmul"].kind == "assumed"


def test_no_amd_bf16_band_is_its_fp8_band():
    # the fault this round fixed: the bf16 band a copy of the fp8 one in the same profile
    for name in ("mi300x", "mi325x", "mi355x"):
        e = load_hardware(name).efficiency
        assert e.matmul != e.matmul_fp8, name


def test_copied_bands_at_least_as_wide_as_their_source():
    """A band marked copied holds its source profile's band (low no higher, high no lower),
    so an unmeasured GPU never claims a narrower band than the measured one it leans on."""
    checked = 0
    for name in hardware_names():
        hw = load_hardware(name)
        for key, f in hw.provenance.items():
            if not key.startswith("efficiency.") or f.kind != "copied":
                continue
            band = getattr(hw.efficiency, key.split(".", 1)[1])
            if not isinstance(band, Band):
                continue  # weight_only: two fractions, not a band
            src = getattr(load_hardware(f.copied_from).efficiency, key.split(".", 1)[1])
            assert band.low <= src.low and src.high <= band.high, (name, key)
            checked += 1
    assert checked >= 3  # mi325x's matmul, matmul_fp8 and memory (copied from mi300x)


def test_explain_names_the_derived_bf16_band(cli):
    # a bf16 GEMM on mi300x names its band's own entry (derived), not the block's "fitted"
    d = cli("latency", "-m", "llama3.1-8b", "-H", "mi300x", "--prompt", "1024", "--gen", "64",
            "--explain", "-f", "json").json()  # fmt: skip
    q = next(x for x in d["derivation"] if x.startswith("source.decode.qkv_proj"))
    assert "(efficiency.matmul), expected (derived)" in q
