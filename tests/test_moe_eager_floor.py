"""The published eager-MoE-prefill figures (docs/validation/moe_eager_prefill.yaml, issue 20,
moefloor round) and the bounds bench/moe_eager_floor.py reads from them: the same-host vLLM /
SGLang pair of tenstorrent/tt-inference-server issue #356 gives the Hopper layer kvcalc ships."""

from __future__ import annotations

import pytest

from calc.deploy.host_costs import EAGER_MLA_MOE_LAYER_S, EAGER_MLA_MOE_LAYER_SM90_S
from tests.scripts import load_script


@pytest.fixture(scope="module")
def floor():
    return load_script("bench/moe_eager_floor.py")


def test_every_record_names_its_source(floor):
    recs = floor.records()
    assert len(recs) == 10
    for rid, rec in recs.items():
        assert rec["source"] and rec["note"], rid


def test_the_same_host_pair_bounds_the_eager_layer(floor):
    rec = floor.records()["ttis356-report-16xh100"]
    low, high = floor.pair_bounds_ms(rec)
    # (179.7 - 55.6) / 61 = 124.1 / 61 = 2.0344 ms; 179.7 / 61 = 2.9459 ms
    assert low == pytest.approx(2.0344, rel=1e-4)
    assert high == pytest.approx(2.9459, rel=1e-4)
    assert rec["bound_ms_per_layer"] == [round(low, 2), round(high, 2)]  # [2.03, 2.95]
    # the shipped Hopper layer is the lower bound, in seconds
    assert EAGER_MLA_MOE_LAYER_SM90_S == pytest.approx(low * 1e-3)


def test_the_eager_floor_is_flat_in_the_prompt(floor):
    # SGLang on 16 H100 at 128 / 2,048 / 3,072 / 4,096 tokens: 179.7 / 190.5 / 200.4 / 199.7 ms
    # (the 1,024 row, 391.7 ms from four requests, left out): 200.4 / 179.7 = 1.1152
    rec = floor.records()["ttis356-sglang-16xh100"]
    assert floor.floor_spread(rec) == pytest.approx(1.1152, rel=1e-4)


def test_the_older_measured_layer_is_the_extend_pass(floor):
    # sgl-project/sglang PR #12160: 82.64 ms / 61 layers = 1.3548 ms (the file rounds to 1.355)
    rec = floor.records()["sglang-pr12160-dsv3-extend"]
    assert rec["eager_pass_ms"] / rec["layers"] == pytest.approx(rec["per_layer_ms"], abs=5e-4)
    assert EAGER_MLA_MOE_LAYER_S == pytest.approx(rec["eager_pass_ms"] / rec["layers"] * 1e-3)
