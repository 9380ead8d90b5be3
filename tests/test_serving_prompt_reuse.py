"""The share of a benchmark's requests served from a prefix cache when its prompts repeat
(calc/serve/prompt_reuse.py), and how bench/validation_serving.py uses it and its roofline floor
on aiconfigurator's silicon sample (issue 20, the vLLM silicon round)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calc.serve.prompt_reuse import cached_tokens, first_draw_share, hit_share, kept_share
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


def test_shuffled_first_draws_are_the_first_pass():
    # D = 100, W = 8, M = 80 (c 4): requests 0-87 all fall in the first pass, so the 80 timed
    # ones all draw new prompts: (min(88, 100) − 8) / 80 = 1
    assert first_draw_share(100, 8, 80, "shuffle") == 1.0
    # c 8: W = 16, M = 160: (min(176, 100) − 16) / 160 = 84 / 160 = 0.525
    assert first_draw_share(100, 16, 160, "shuffle") == pytest.approx(0.525)
    # c 16: (100 − 32) / 320 = 0.2125; drawn at random the same counts give 0.217469
    assert first_draw_share(100, 32, 320, "shuffle") == pytest.approx(0.2125)
    # c 64: the 128 warm-up requests draw every prompt: 0
    assert first_draw_share(100, 128, 1280, "shuffle") == 0.0


def test_shuffled_prompts_come_back_a_pass_later():
    # D = 2: positions p, q ∈ {0, 1}; between = a + b − a b with a = 1 − p, b = q:
    # (p, q) = (0, 0): 1; (0, 1): 1 + 1 − 1 = 1; (1, 0): 0; (1, 1): 1. Held 1: only (1, 0)
    # has fewer than 1 in between: 1 / 4
    assert kept_share(2, 1, "shuffle") == pytest.approx(0.25)
    # held 2 (every other prompt fits): 4 / 4
    assert kept_share(2, 2, "shuffle") == 1.0
    # D = 100, held 100: the most in between is 99 + 99 − 99 × 99 / 99 = 99 < 100: always kept
    assert kept_share(100, 100, "shuffle") == 1.0
    # nothing held: never kept; drawn at random, held / D
    assert kept_share(100, 0, "shuffle") == 0.0
    assert kept_share(100, 25, "random") == pytest.approx(0.25)


def test_an_unknown_sampling_is_refused():
    with pytest.raises(ValueError, match="sampling must be one of random, shuffle"):
        first_draw_share(100, 0, 10, "sequential")


@given(st.integers(1, 300), st.integers(0, 3000), st.integers(1, 6000))
def test_shuffled_first_draws_are_a_share_and_fall_with_the_warmup(d, w, m):
    s = first_draw_share(d, w, m, "shuffle")
    assert 0.0 <= s <= 1.0
    assert first_draw_share(d, w + 1, m, "shuffle") <= s


@given(st.integers(1, 200), st.floats(0, 400))
def test_shuffled_prompts_are_kept_more_the_more_is_held(d, held):
    k = kept_share(d, held, "shuffle")
    assert 0.0 <= k <= 1.0
    assert kept_share(d, held + 1, "shuffle") >= k


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
    # Llama-3.1-8B-FP8, vLLM 0.12.0, 4000 × 100, c 64, TP 4, AIPerf 0.3.0's shuffle: the 128
    # warm-up requests draw all 100 prompts (max(0, min(1,408, 100) − 128) / 1,280 = 0 first
    # draws among the timed ones) and the pool holds at least the 100 prompts beside the running
    # outputs (kept 1): hit share (1 − 0) × 1 = 1
    row = _row(vs, "_vllm_agg_4000x100_c64_tp4_epnone_7")
    dep = vs._deployment(row)
    held = (dep.per_gpu.kv_cache_tokens - 64 * row.osl) / row.isl
    assert held >= 100
    assert vs.PROMPT_SAMPLING == "shuffle"
    assert vs.hit_share(row, dep) == 1.0


def test_the_campaigns_small_concurrency_rows_draw_fresh_prompts(vs):
    # Qwen3-235B-A22B-FP8, vLLM, 8000 × 100, c 4, TP 2: W = 8 warm-up and M = 80 timed requests
    # are all within the first pass of 100 shuffled prompts: min(88, 100) − 8 = 80 first draws
    # of 80, hit share 0 (drawn at random it would be 1 − 0.637 = 0.363 before eviction)
    row = _row(vs, "_vllm_agg_8000x100_c4_tp2_epnone_35")
    assert vs.hit_share(row, vs._deployment(row)) == 0.0


def test_rows_whose_tp_is_below_the_moe_width_are_not_scored(vs):
    # ..._1000x100_c8_tp1_epnone_2 states tp 1, moe_tp 2, moe_ep 1 and no attention DP:
    # 1 < 2 × 1, attention DP over 2 GPUs beside a TP-2 MoE (aiconfigurator's tp × dp =
    # moe_tp × moe_ep); ..._8000x100_c4_tp2_epnone_36 states tp 2 beside moe_tp 4: 2 < 4 × 1
    ids = {r.id for r in vs.rows()}
    assert not any(i.endswith("_vllm_agg_1000x100_c8_tp1_epnone_2") for i in ids)
    assert not any(i.endswith("_vllm_agg_8000x100_c4_tp2_epnone_36") for i in ids)
    # tp 2 beside moe_tp 2 (2 = 2 × 1) and tp 2 beside moe_ep 2 (2 = 1 × 2) stay
    assert any(i.endswith("_vllm_agg_8000x100_c4_tp2_epnone_35") for i in ids)
    assert any(i.endswith("_vllm_agg_8000x100_c4_tp2_epnone_37") for i in ids)


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
