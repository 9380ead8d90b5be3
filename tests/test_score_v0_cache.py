"""The vLLM 0.8.3 pipeline-parallel runs ran its V0 engine (their server logs: "Pipeline
Parallelism without Ray distributed executor is not supported by the V1 Engine. Falling back to
V0."), whose virtual engines each keep their own prefix cache: a later run of the same prompts
finds only part of them cached (bench/validation_score.py v0_cached)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _score():
    path = ROOT / "bench" / "validation_score.py"
    spec = importlib.util.spec_from_file_location("validation_score", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["validation_score"] = module
    spec.loader.exec_module(module)
    return module


def test_v0_cached_fraction_by_run():
    score = _score()
    # pp 2: each earlier run put a prompt on the same virtual engine with probability 1/2,
    # so the k-th later run finds 1 - (1/2)^k cached: 0, 1/2, 3/4, 7/8
    assert [score.v0_cached(k, 2) for k in range(4)] == [0.0, 0.5, 0.75, 0.875]
    # one engine (V1, or V0 without PP): every later run cached, the first not
    assert [score.v0_cached(k, 1) for k in range(4)] == [0.0, 1.0, 1.0, 1.0]
    # pp 4: 1 - (3/4)^3 = 1 - 27/64 = 37/64
    assert score.v0_cached(3, 4) == pytest.approx(37 / 64)


def test_v0_cached_fraction_meets_the_server_logs():
    # the two logs' per-run hit rates (k H_k - (k-1) H_{k-1} of the printed cumulative rate;
    # e.g. 03_tp4_pp2_IB run 3: 3 x 46.65 - 2 x 27.97 = 84.0%) bracket or sit within 4 points
    # of the rule: mean of the logs 53.4, 78.8, 88.1% against 50, 75, 87.5%
    score = _score()
    logs = score.V0_HIT_RATES
    assert set(logs) == {"03_tp4_pp2_IB", "04_tp4_pp2_IB"}
    for k in range(1, 4):
        mean = sum(rates[k] for rates in logs.values()) / len(logs)
        assert abs(score.v0_cached(k, 2) - mean) < 0.04
    # the cumulative figures they come from, at the end of runs 1-4 (H_1 … H_4), run r's own
    # rate r H_r - (r-1) H_(r-1)
    h = {1: 0.0, 2: 0.2797, 3: 0.4665, 4: 0.5850}
    assert [round(r * h[r] - (r - 1) * h[r - 1], 3) for r in (2, 3, 4)] == [0.559, 0.840, 0.940]


def test_pp_sets_replay_the_v0_cache_and_tp8_the_v1_one():
    score = _score()
    by = {s.name: s for s in score.SETS}
    for name, s in by.items():
        if "TP 4 × PP 2" in name:
            assert [c for _f, _i, c in s.runs] == [0.0, 0.5, 0.75, 0.875]
            # V0's own limits: 256 sequences a virtual engine, 2,048 tokens a step (logged)
            assert dict(s.settings) == {"max_num_seqs": 256, "max_batched_tokens": 2048}
        elif "TP 8, 8 × A100" in name:
            assert [c for _f, _i, c in s.runs] == [0.0, 1.0, 1.0, 1.0]


def test_held_out_server_is_scored_and_never_fitted():
    import yaml

    score = _score()
    (held, trained), = score.HELD_OUT
    # the second InfiniBand server: the same deployment and replay as the trained one
    # (V0's cache per virtual engine: 0, 1/2, 3/4, 7/8 cached; V0's limits), its own files
    by = {s.name: s for s in score.SETS}
    twin = by[trained[0]]
    assert (held.model, held.tp, held.pp, held.settings) == (
        twin.model, twin.tp, twin.pp, twin.settings)  # fmt: skip
    assert [c for _f, _i, c in held.runs] == [0.0, 0.5, 0.75, 0.875]
    assert all("IB_trial-2" in f for f, _i, _c in held.runs)
    assert held.name not in by and set(trained) <= set(by)
    # nothing fitted to it: the stored fits name only the trained sets
    fits = yaml.safe_load(score.FITS.read_text())["fits"]
    assert held.name not in fits
    ((s, plain, carried),) = score.evaluate_held_out()
    assert s is held and [score._label(p.run) for p in plain] == ["1/s", "4/s", "16/s", "inf"]
    # every stored fit of the two trained sets that was not refused is carried: 3 steady runs
    # each (1, 4, 16/s), none refused -> 6 calibrations × 4 held-out runs
    expected = sum(1 for n in trained for got in fits[n].values() if "refused" not in got)
    assert len(carried) == expected == 6
    assert all(len(scores) == 4 for _n, _l, _g, scores in carried)
    # a carried calibration changes the prediction (gemm × 1.2-1.3 on the 1/s fits)
    _n, _l, got, scores = carried[0]
    assert got["gemm"] != 1.0
    assert scores[0].rows != plain[0].rows


def test_error_summary_takes_medians_of_signed_and_absolute_errors():
    score = _score()

    class Sc:
        def __init__(self, e):
            self.rows = [{"metric": "ttft", "stat": "p50", "error": e}]

    # errors -0.3, +0.1, -0.2: median signed -0.2, median |error| 0.2
    got = score.error_summary([Sc(-0.3), Sc(0.1), Sc(-0.2)])
    assert got["TTFT p50"] == (pytest.approx(-0.2), pytest.approx(0.2), 3)
    assert "TPOT mean" not in got
