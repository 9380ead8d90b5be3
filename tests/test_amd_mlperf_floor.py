"""The MLPerf v5.1 MI325X / MI355X Offline runs held out in docs/validation.md (issue 20, round
7): the GEMM-rate floor each run's output tokens need, by hand, against the profiles' bands."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware
from tests.scripts import load_script


@pytest.fixture(scope="module")
def amd():
    return load_script("bench/validation_amd.py")


def test_gemm_flops_per_token_by_hand(amd):
    # Llama-2-70B config.json: 80 layers × (attention 8192 × (8192 + 2 × 1024 + 8192) + gated
    # FFN 3 × 8192 × 28672 + 2 norms of 8192) + embedding and lm_head 2 × 32000 × 8192 + final
    # norm 8192 = 68,976,648,192 parameters; less the embedding 262,144,000 = 68,714,504,192;
    # × 2 FLOPs = 137,429,008,384
    assert amd.gemm_flops_per_token() == 137_429_008_384


def test_floors_by_hand(amd):
    mi325x, mi355x = amd.MLPERF_RUNS
    # 34,555 tokens/s / 8 GPUs = 4,319.375 × 137,429,008,384 FLOP = 5.9361e14 FLOP/s over the
    # MI325X fp8 peak 2,614.9e12 = 0.22701; 34,555 / 114.852 samples/s = 300.86 tokens a sample
    per_sample, floor = amd.mlperf_floor(mi325x)
    assert per_sample == pytest.approx(300.86, abs=0.01)
    assert floor == pytest.approx(4319.375 * 137_429_008_384 / 2614.9e12, rel=1e-12)
    assert floor == pytest.approx(0.22701, abs=1e-5)
    # 93,045.8 / 8 = 11,630.725 × 137,429,008,384 = 1.59841e15 over the MI355X fp4 peak
    # 10,066.4e12 = 0.15879; over its fp8 peak 5,033.2e12 = 0.31757
    _, fp4 = amd.mlperf_floor(mi355x)
    _, fp8 = amd.mlperf_floor(mi355x, "fp8")
    assert fp4 == pytest.approx(0.15879, abs=1e-5)
    assert fp8 == pytest.approx(0.31757, abs=1e-5)


def test_bands_hold_the_floors(amd):
    """Each unmeasured band's high holds the floor a published run needs (issue 20's honest
    bands)."""
    for run in amd.MLPERF_RUNS:
        band = getattr(load_hardware(run.hardware).efficiency, run.band)
        _, floor = amd.mlperf_floor(run)
        assert floor < band.high, run.id
