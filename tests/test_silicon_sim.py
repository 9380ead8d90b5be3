"""The silicon sample replayed through the serving simulation (issue 20, silsim round;
bench/silicon_sim.py): each harness's requests, the TensorRT-LLM scripts' token budgets, and the
cache's rows. Nothing is fitted there, so no golden error."""

from __future__ import annotations

import csv
import math
from dataclasses import replace

import pytest

from tests.scripts import load_script


@pytest.fixture(scope="module")
def sim():
    return load_script("bench/silicon_sim.py")


@pytest.fixture(scope="module")
def rows(sim):
    return {r.id: r for r in sim.vs.rows()}


def _one(rows, part: str):
    return next(r for i, r in sorted(rows.items()) if part in i)


def test_harness_by_campaign(sim, rows):
    # the gap-analysis campaign's rows carry _epnone_ (AIPerf); the others are InferenceX's
    assert sim.harness(_one(rows, "_epnone_")) == "aiperf"
    assert sim.harness(_one(rows, "2026_04_06_deepseek_r1")) == "inferencex"


def test_script_budgets(sim, rows):
    ds = _one(rows, "2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_agg_8192x1024_c4_")
    # (4 + 8,192 + 64 + 63) // 64 × 64 = 8,323 // 64 × 64 = 130 × 64 = 8,320 (above 8,192)
    assert sim.script_budget(ds) == 8320
    # (256 + 1,024 + 127) // 64 × 64 = 21 × 64 = 1,344, below the scripts' floor: 8,192
    assert sim.script_budget(replace(ds, isl=1024, concurrency=256)) == 8192
    assert sim.script_budget(replace(ds, model="gpt-oss-120b")) == 20000
    assert sim.script_budget(replace(ds, model="qwen3-32b")) is None  # no InferenceX script
    assert sim.script_budget(replace(ds, model="llama3.1-70b")) == 16384
    assert sim.script_budget(replace(ds, backend="vllm")) is None
    assert sim.script_budget(replace(ds, id=ds.id + "_epnone_")) is None  # not published


def test_inferencex_requests(sim, rows):
    row = _one(rows, "2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_agg_8192x1024_c4_")
    rep, skip = sim.requests(row, sim.vs._deployment(row))
    # 10 × c = 40 prompts, every one counted, at most 4 open
    assert (len(rep.prompt), skip, rep.max_in_flight) == (40, 0, 4)
    # lengths over [int(0.8 × 8,192), 8,192] = [6,553, 8,192] and [819, 1,024]
    assert (rep.prompt.min(), rep.prompt.max()) == (6553, 8192)
    assert (rep.gen.min(), rep.gen.max()) == (819, 1024)
    fixed, _ = sim.requests(row, sim.vs._deployment(row), fixed=True)
    assert set(fixed.prompt.tolist()) == {8192} and set(fixed.gen.tolist()) == {1024}


def test_aiperf_requests(sim, rows):
    row = next(r for i, r in sorted(rows.items()) if "_epnone_" in i and r.backend == "trtllm")
    rep, skip = sim.requests(row, sim.vs._deployment(row))
    c = row.concurrency
    # 2 × c warm-up then 20 × c timed, fixed lengths, no prefix reuse (TensorRT-LLM)
    assert (len(rep.prompt), skip) == (22 * c, 2 * c)
    assert set(rep.prompt.tolist()) == {row.isl} and rep.cached_fraction == 0.0


def test_one_row_simulates(sim, rows):
    row = _one(rows, "2026_03_25_gpt_oss_120b_b200_sxm_vllm_fp4_agg_1024x1024_c4_")
    ttft, tpot, n = sim.simulate(row)
    assert n == 40  # 10 × c
    # a TTFT above the front end alone and a TPOT of milliseconds: finite and positive
    assert 0 < ttft < 1.0 and 0 < tpot < 0.1 and math.isfinite(ttft + tpot)


def test_cache_rows_are_validation_rows(sim, rows):
    with sim.CACHE.open() as f:
        ids = [r["id"] for r in csv.DictReader(f)]
    assert len(ids) == len(set(ids)) > 1800
    assert set(ids) <= set(rows)
    assert not any(rows[i].mtp for i in ids)  # MTP runs are not simulated
