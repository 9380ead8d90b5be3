"""The share of a benchmark's requests served from a prefix cache when its prompts repeat
(calc/serve/prompt_reuse.py), and how bench/validation_serving.py uses it and its roofline floor
on aiconfigurator's silicon sample (issue 20, the vLLM silicon round)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calc.serve.prompt_reuse import cached_tokens, first_draw_share, hit_share
from tests.scripts import load_script


def test_first_draws_with_no_warmup():
    # D = 100 prompts, no warm-up, 100 timed requests: 100 × 1 × (1 − 0.99^100) / 100
    # = 1 − 0.366032 = 0.633968 (the expected distinct prompts of 100 draws, over 100)
    assert first_draw_share(100, 0, 100) == pytest.approx(0.633968, abs=1e-6)


def test_first_draws_after_a_warmup():
    # concurrency 64 under aiconfigurator's script: W = 2 × 64 = 128, M = 20 × 64 = 1,280;
    # 0.99^128 = e^(128 × ln 0.99) = e^(−1.286443) = 0.276252; 0.99^1,280 = 2.59e-6;
    # 100 × 0.276252 × (1 − 2.59e-6) / 1,280 = 0.021582
    assert first_draw_share(100, 128, 1280) == pytest.approx(0.021582, abs=1e-6)


def test_a_single_prompt_misses_once():
    # D = 1: the first timed draw misses (no warm-up), the other 9 hit: 1 × 1 × (1 − 0) / 10
    assert first_draw_share(1, 0, 10) == pytest.approx(0.1)
    # with one warm-up request it is cached before the timed ones: 1 × 0^1 × … = 0
    assert first_draw_share(1, 1, 10) == 0.0


def test_hit_share_is_capped_by_what_the_pool_holds():
    # 1,000,000 timed draws of 100 prompts: first draws 100 × (1 − 0.99^1e6) / 1e6 = 1e-4;
    # the pool holds 50 of the 100: (1 − 1e-4) × 50 / 100 = 0.49995
    assert hit_share(100, 0, 1_000_000, 50) == pytest.approx(0.49995, abs=1e-9)
    # holding more than every prompt does not help beyond 1
    assert hit_share(100, 0, 1_000_000, 500) == pytest.approx(0.9999, abs=1e-9)
    # a pool full of running requests holds none
    assert hit_share(100, 0, 1_000_000, -3.0) == 0.0


def test_cached_tokens_are_whole_blocks_short_of_the_last_token():
    # 4,000 tokens in 16-token blocks: (4,000 − 1) // 16 = 249 blocks = 3,984 tokens; 16 computed
    assert cached_tokens(4000, 16) == 3984
    # 4,001: (4,001 − 1) // 16 = 250 blocks = 4,000 cached, the last token computed
    assert cached_tokens(4001, 16) == 4000
    # a prompt of one block: (16 − 1) // 16 = 0, the whole block is computed
    assert cached_tokens(16, 16) == 0


@pytest.mark.parametrize("args", [(0, 0, 10), (100, -1, 10), (100, 0, 0)])
def test_bad_counts_are_refused(args):
    with pytest.raises(ValueError, match="at least"):
        first_draw_share(*args)


def test_bad_lengths_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        cached_tokens(0, 16)


@given(st.integers(1, 500), st.integers(0, 5000), st.integers(1, 20000))
def test_first_draws_are_a_share_and_fall_with_the_warmup(d, w, m):
    s = first_draw_share(d, w, m)
    assert 0.0 <= s <= 1.0
    assert first_draw_share(d, w + 1, m) <= s + 1e-15


@pytest.fixture(scope="module")
def vs():
    return load_script("bench/validation_serving.py")


def _row(vs, suffix):
    return next(r for r in vs.rows() if r.id.endswith(suffix))


def test_the_campaigns_vllm_rows_repeat_their_prompts(vs):
    # Llama-3.1-8B-FP8, vLLM 0.12.0, 4000 × 100, c 64, TP 4: the pool holds at least the 100
    # prompts beside the running outputs, so the hit share is 1 − the first draws at W = 128,
    # M = 1,280 (test_first_draws_after_a_warmup): 1 − 0.021582 = 0.978418
    row = _row(vs, "_vllm_agg_4000x100_c64_tp4_epnone_7")
    dep = vs._deployment(row)
    held = (dep.per_gpu.kv_cache_tokens - 64 * row.osl) / row.isl
    assert held >= 100
    assert vs.hit_share(row, dep) == pytest.approx(0.978418, abs=1e-6)


def test_other_rows_do_not(vs):
    # the same campaign's SGLang and TensorRT-LLM servers, and InferenceX-style rows: no reuse
    sglang = _row(vs, "_sglang_agg_4000x100_c80_tp4_epnone_33")
    trtllm = next(r for r in vs.rows() if r.backend == "trtllm" and "_epnone_" in r.id)
    other = next(r for r in vs.rows() if r.backend == "vllm" and "_epnone_" not in r.id)
    for row in (sglang, trtllm, other):
        assert vs.hit_share(row, vs._deployment(row)) == 0.0


def test_a_repeated_prompt_shortens_the_cycle(vs):
    # the same row with its prompts all missed (hit share 0) predicts a longer TPOT: each
    # request then prefills 4,000 tokens instead of 16
    row = _row(vs, "_vllm_agg_4000x100_c64_tp4_epnone_7")
    with_hits = vs.predict(row)
    keep = vs.hit_share
    try:
        vs.hit_share = lambda r, d: 0.0
        without = vs.predict(row)
    finally:
        vs.hit_share = keep
    assert with_hits.tpot_s < without.tpot_s
    assert with_hits.ttft_s < without.ttft_s


def test_a_row_faster_than_its_roofline_floor_is_set_aside(vs):
    # gpt-oss-120b, H100, TP 8, 8192 × 1024, c 512 (measured 4.45 ms): kvcalc's batch is 512.
    # Its full-attention KV alone, 18 layers × 1 KV head a GPU × 64 × 2 (K, V) × 2 B = 4,608 B
    # a token, × 512 × 8,192 tokens = 19.33 GB, takes 19.33e9 / 3.35e12 = 5.77 ms at the H100's
    # 3.35 TB/s: the floor is at least that, above the measured TPOT
    row = _row(vs, "_h100_sxm_vllm_fp4_agg_8192x1024_c512_tp8_ep1_1136")
    res = vs.predict(row)
    assert res.floor_s >= 512 * 8192 * 4608 / 3.35e12
    assert res.aside
    assert row.id in {r.row.id for r in vs.results(aside=True)}
    assert row.id not in {r.row.id for r in vs.results()}


def test_aside_compares_the_measured_tpot_with_the_floor(vs):
    row = _row(vs, "_vllm_agg_4000x100_c64_tp4_epnone_7")  # measured 7.52 ms
    assert vs.Result(row, 0.010, 0.1, floor_s=0.008).aside
    assert not vs.Result(row, 0.010, 0.1, floor_s=0.007).aside
    assert not math.isnan(vs.predict(row).floor_s)
