"""Where a group's gap to TensorRT-LLM's throughput page sits (bench/validation_heldout.py
``gap_split``, issue 20 trtmoe round): the prefill and decode factors come out of the normal
equations exactly as the hand arithmetic below gives them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from validation_heldout import gap_split  # noqa: E402
from validation_throughput import Result, Row  # noqa: E402


def _result(group: str, lengths: str, published: float, predicted: float, share: float):
    row = Row(f"{group} {lengths}", "qwen3-235b-a22b", "h200", 1, "fp8-tensor", "fp8",
              1000, 1000, published, ep=8)  # fmt: skip
    return Result(row, predicted, predicted, 1, share, {})


def test_one_prefill_row_and_one_decode_row_give_each_factor_alone():
    # row A all prefill, 1.5 x fast: r = 100 / 150, x = r * 1 = 2/3, z = 0
    # row B all decode, 1.2 x fast: r = 100 / 120, x = 0, z = 5/6
    # Sx2 = 4/9, Sz2 = 25/36, Sxz = 0: p = Sx / Sx2 = (2/3) / (4/9) = 1.5,
    # d = Sz / Sz2 = (5/6) / (25/36) = 1.2
    res = [_result("g", "2048/128", 100.0, 150.0, 1.0), _result("g", "128/2048", 100.0, 120.0, 0.0)]
    n, lo, hi, p, d = gap_split(res)["g"]
    assert (n, lo, hi) == (2, 0.0, 1.0)
    assert p == pytest.approx(1.5, rel=1e-12)
    assert d == pytest.approx(1.2, rel=1e-12)


def test_mixed_rows_recover_the_factors_that_made_them():
    # published = predicted / (p s + d (1 - s)) with p = 1.6, d = 1.25 makes every row exact:
    # s = 0.8: 1.6 * 0.8 + 1.25 * 0.2 = 1.53; s = 0.1: 0.16 + 1.125 = 1.285;
    # s = 0.5: 0.8 + 0.625 = 1.425, so the residuals are 0 and the fit returns (1.6, 1.25)
    rows = [(0.8, 1.53), (0.1, 1.285), (0.5, 1.425)]
    res = [_result("g", f"{i}/1", 1000.0 / k, 1000.0, s) for i, (s, k) in enumerate(rows)]
    _, lo, hi, p, d = gap_split(res)["g"]
    assert (lo, hi) == (0.1, 0.8)
    assert p == pytest.approx(1.6, rel=1e-9)
    assert d == pytest.approx(1.25, rel=1e-9)


def test_groups_apart_and_one_share_not_separated():
    # two groups fitted apart; a group whose rows all have the same share (0.3) cannot tell
    # its prefill from its decode (det = Sx2 Sz2 - Sxz^2 = 0): None
    res = [
        _result("a", "1/1", 100.0, 150.0, 1.0),
        _result("a", "2/2", 100.0, 120.0, 0.0),
        _result("b", "1/1", 100.0, 130.0, 0.3),
        _result("b", "2/2", 100.0, 110.0, 0.3),
    ]
    split = gap_split(res)
    assert split["a"][3:] == pytest.approx((1.5, 1.2), rel=1e-12)
    assert split["b"] is None


def _tool():
    import importlib.util

    path = ROOT / "tools" / "trtllm_ep_gap.py"
    spec = importlib.util.spec_from_file_location("trtllm_ep_gap", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_one_term_scaled_in_both_steps():
    # prefill half the cycle; the term 20% of the prefill chunk and 10% of the decode step, twice
    # as long: the cycle 0.5 * (1 + 0.2) + 0.5 * (1 + 0.1) = 1.15 of kvcalc's, so a row predicted
    # at 115 tokens/s against 100 published moves from +15% to 115 / 1.15 / 100 - 1 = 0
    tool = _tool()
    res = _result("g", "1000/1000", 100.0, 115.0, 0.5)
    assert tool.scaled_error(res, 0.2, 0.1, 1.0) == pytest.approx(0.15, rel=1e-12)
    assert tool.scaled_error(res, 0.2, 0.1, 2.0) == pytest.approx(0.0, abs=1e-12)
