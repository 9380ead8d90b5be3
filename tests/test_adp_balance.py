"""TensorRT-LLM's attention-DP balance (calc/serve/admission.py ``adp_balance_wait_s``,
``adp_balance_rounds_wait_s``), the runs whose scripts set it (tools/silicon_adp_rows.py ->
docs/validation/aiconfigurator_silicon_adp.csv) and how bench/validation_serving.py charges it
(issue 20, adpbalance round)."""

from __future__ import annotations

import csv
import importlib.util
import math
from dataclasses import replace
from pathlib import Path

import pytest

from calc.serve.admission import adp_balance_rounds_wait_s, adp_balance_wait_s
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
VALIDATION = ROOT / "docs" / "validation"
_spec = importlib.util.spec_from_file_location(
    "silicon_adp_rows", ROOT / "tools" / "silicon_adp_rows.py"
)
S = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(S)


def test_window_capped_by_the_timeout():
    # 8 ranks: covering them takes 8 x H_8 = 8 x 2.717857 = 21.74 arrivals, at 0.25 an
    # iteration 86.97 iterations > T 60: the window is 60, a wait of 60 / 2 = 30 x 20 ms
    assert adp_balance_wait_s(8, 60, 0, 0.020, 0.25) == pytest.approx(0.6, rel=1e-12)


def test_window_closed_by_covering_the_ranks_then_the_batching_wait():
    # 2 ranks: 2 x H_2 = 2 x 1.5 = 3 arrivals, at 0.25 an iteration 12 < T 50; + B 10 = 22,
    # a wait of 22 / 2 = 11 x 10 ms
    assert adp_balance_wait_s(2, 50, 10, 0.010, 0.25) == pytest.approx(0.11, rel=1e-12)
    # one iteration short of the timeout still covers: 4 x H_4 = 8.3333 arrivals at 8.3333 / 49
    # an iteration take 49 < 50 iterations: (49 + 0) / 2 = 24.5 steps of 1 s
    a = 4 * (1 + 1 / 2 + 1 / 3 + 1 / 4) / 49
    assert adp_balance_wait_s(4, 50, 0, 1.0, a) == pytest.approx(24.5, rel=1e-12)


def test_window_edges():
    assert adp_balance_wait_s(1, 60, 0, 0.02, 0.25) == 0.0  # one rank: no attention DP
    assert adp_balance_wait_s(8, 0, 0, 0.02, 0.25) == 0.0  # T 0: every iteration releases
    # no other arrival: the counter's window of T alone, 60 / 2 = 30 x 20 ms
    assert adp_balance_wait_s(8, 60, 0, 0.02, 0.0) == pytest.approx(0.6, rel=1e-12)
    # all at once: every rank covered at once, the batching wait alone, 10 / 2 = 5 x 10 ms
    assert adp_balance_wait_s(4, 50, 10, 0.010, math.inf) == pytest.approx(0.05, rel=1e-12)


def test_rounds_by_hand():
    # 2 ranks, T 50, B 0, 4 clients of 3 prompts, outputs spread over 16 iterations, cycle 100:
    # round 1 over min(16, 100) = 16 iterations: 4 / 16 = 0.25 an iteration, 3 / 0.25 = 12
    # iterations to cover, a wait of 6; round 2 over 16 sqrt 2 = 22.63: 3 x 22.63 / 4 =
    # 12 sqrt 2 = 16.97, a wait of 6 sqrt 2 = 8.485; the first round waits nothing:
    # (0 + 6 + 6 sqrt 2) / 3 = 2 + 2 sqrt 2 = 4.828 iterations of 1 ms
    got = adp_balance_rounds_wait_s(2, 50, 0, 0.001, 4, 3, 16.0, 100.0)
    assert got == pytest.approx((2 + 2 * math.sqrt(2)) * 0.001, rel=1e-12)


def test_rounds_capped_by_the_cycle_and_one_round_waits_nothing():
    # spread 100 > cycle 50: round 1 over 50 iterations, 4 / 50 = 0.08 an iteration, 3 / 0.08
    # = 37.5 < 50 iterations, a wait of 18.75; over 2 rounds: 18.75 / 2 = 9.375
    got = adp_balance_rounds_wait_s(2, 50, 0, 1.0, 4, 2, 100.0, 50.0)
    assert got == pytest.approx(9.375, rel=1e-12)
    # one prompt a client: every client's first prompt comes at once, nothing is held
    assert adp_balance_rounds_wait_s(8, 60, 0, 0.02, 256, 1, 204.8, 1024) == 0.0
    # fixed lengths (no spread): each round all at once, every rank covered, B 10 / 2 = 5
    # iterations in rounds 2 of 2: 5 / 2 = 2.5 x 10 ms
    got = adp_balance_rounds_wait_s(2, 50, 10, 0.010, 4, 2, 0.0, 100.0)
    assert got == pytest.approx(0.025, rel=1e-12)


SAMPLE_HEAD = (
    "id",
    "backend",
    "model_path",
    "system",
    "attention_dp_size",
    "mode",
    "silicon_data_source",
)


def test_the_scripts_rules():
    export = "source_file=2026-04-06.csv; silicon_concurrency=256; measured=2026-02-06T00:00Z"
    r1, oss = "deepseek-ai/DeepSeek-R1", "openai/gpt-oss-120b"

    def run(i, model=r1, system="b200_sxm", dp="8", source=export, backend="trtllm"):
        return dict(zip(SAMPLE_HEAD, (i, backend, model, system, dp, "agg", source), strict=True))

    listed = {"b"}
    # DeepSeek-R1 on B200 or H200 under attention DP: T 60, B 0
    assert S.rule_of(run("a"), listed)[:2] == (60, 0)
    assert S.rule_of(run("a", system="h200_sxm"), listed)[:2] == (60, 0)
    # stated without attention DP, but listed with it by the layout mapping
    assert S.rule_of(run("b", dp="1"), listed)[:2] == (60, 0)
    assert S.rule_of(run("c", dp="1"), listed) is None  # no attention DP: no balance
    # gpt-oss on B200: enable_balance alone, the release's defaults T 50, B 10; not on H200
    assert S.rule_of(run("d", model=oss), listed)[:2] == (50, 10)
    assert S.rule_of(run("e", model=oss, system="h200_sxm"), listed) is None
    # before the first script that set it (2025-09-18), another engine, another campaign
    early = export.replace("2026-02-06", "2025-09-17")
    assert S.rule_of(run("f", source=early), listed) is None
    assert S.rule_of(run("g", backend="sglang"), listed) is None
    assert S.rule_of(run("h", source="source_file=aic-auto-gap-analysis/x; measured=2026-02-06"),
                     listed) is None  # fmt: skip


def test_mapping_rows_are_kvcalc_attention_dp_trtllm_rows():
    with (VALIDATION / "aiconfigurator_silicon_agg.csv").open() as f:
        agg = {r["id"]: r for r in csv.DictReader(f)}
    with (VALIDATION / "aiconfigurator_silicon_layout.csv").open() as f:
        layout_dp = {r["id"] for r in csv.DictReader(f) if r["attention_dp"] == "1"}
    with (VALIDATION / "aiconfigurator_silicon_adp.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert rows
    for r in rows:
        run = agg[r["id"]]
        assert run["backend"] == "trtllm"
        assert int(run["attention_dp"]) > 1 or r["id"] in layout_dp
        want = ("50", "10") if run["model"] == "gpt-oss-120b" else ("60", "0")
        assert (r["timeout_iters"], r["batching_wait_iters"]) == want


@pytest.fixture(scope="module")
def serving():
    return load_script("bench/validation_serving.py")


def test_rows_read_the_mapping(serving):
    by_id = {r.id: r for r in serving.rows()}
    with (VALIDATION / "aiconfigurator_silicon_adp.csv").open() as f:
        mapped = {r["id"]: (int(r["timeout_iters"]), int(r["batching_wait_iters"]))
                  for r in csv.DictReader(f)}  # fmt: skip
    assert mapped.keys() <= by_id.keys()
    for i, got in mapped.items():
        assert (by_id[i].adp_timeout_iters, by_id[i].adp_batching_iters) == got
    assert all(r.adp_timeout_iters == 0 for r in by_id.values() if r.id not in mapped)


def _row(serving, **kw):
    base = dict(id="x", backend="trtllm", model="deepseek-r1", hardware="b200", fmt="nvfp4",
                kv="fp8", isl=1024, osl=1024, concurrency=256, tp=1, ep=8, ttft_s=1.0,
                tpot_s=0.02, adp_timeout_iters=60)  # fmt: skip
    base.update(kw)
    return serving.Row(**base)


def test_adp_balance_s_wires_the_benchmark(serving):
    # a budget of 40,000 tokens takes (40,000 - 32) // 1,023 = 39 >= 32 prompts a rank an
    # iteration: no rank ever holds more, the round model alone (the trickle factor 1)
    row = _row(serving, max_num_tokens=40000)
    dep = serving._deployment(row)
    assert dep.sharding.dp_attn == 8
    # 32 requests a rank x 8 ranks = 256 clients of 10 prompts; outputs over (1 - 0.8) x 1,024
    # = 204.8 tokens, one iteration each; a cycle of 20.48 s at 20 ms steps = 1,024 iterations
    want = adp_balance_rounds_wait_s(8, 60, 0, 0.02, 256, 10, 204.8, 1024.0)
    got = serving.adp_balance_s(row, dep, 32, 0.02, 20.48, 0.02)
    assert got == pytest.approx(want, rel=1e-12)
    # round 1 alone: 256 / 204.8 = 1.25 an iteration, 21.74 / 1.25 = 17.39 iterations, a wait
    # of 8.70; the mean over the rounds lies between it and the timeout's 30 iterations
    assert 8.69 * 0.02 < got < 30 * 0.02
    # under MTP (half an iteration a token) the outputs spread over half the iterations
    mtp = serving.adp_balance_s(row, dep, 32, 0.02, 20.48, 0.01)
    assert mtp == pytest.approx(
        adp_balance_rounds_wait_s(8, 60, 0, 0.02, 256, 10, 102.4, 1024.0), rel=1e-12
    )
    assert serving.adp_balance_s(row, dep, 1, 0.02, 20.48, 0.02) == 0.0  # no other request
    off = replace(row, adp_timeout_iters=0)
    assert serving.adp_balance_s(off, dep, 32, 0.02, 20.48, 0.02) == 0.0  # script set none


def test_the_scripts_token_budget():
    def run(conc, isl, model="deepseek-ai/DeepSeek-R1"):
        return {"id": f"x_{isl}x1024_c{conc}_tp8_0_ep8_0_1", "isl": str(isl), "model_path": model}

    # DeepSeek-R1 at 1k prompts, 64 requests: (64 + 1,024 + 64 + 63) // 64 x 64 = 1,152
    assert S.budget_of(run(64, 1024), "2025-11-02", 0, 8) == 1152
    # 256 requests: 256 + 1,024 + 64 = 1,344, a multiple of 64 already
    assert S.budget_of(run(256, 1024), "2025-11-02", 0, 8) == 1344
    # from 64af5a771 (2026-01-21 23:05) at least 8,192; 8k prompts: 64 + 8,192 + 64 = 8,320
    assert S.budget_of(run(64, 1024), "2026-02-03", 0, 8) == 8192
    assert S.budget_of(run(64, 8192), "2026-02-03", 0, 8) == 8320
    # MTP 1 under attention DP 8 at 256 requests: (1 + 1) x 256 / 8 + 1,024 + 64 = 1,152, no
    # floor at any revision of the MTP scripts
    assert S.budget_of(run(256, 1024), "2026-02-06", 1, 8) == 1152
    # 1,216 at DP 4 and 256 requests: 2 x 64 + 1,024 + 64 = 1,216
    assert S.budget_of(run(256, 1024), "2026-02-06", 1, 4) == 1216
    assert S.budget_of(run(64, 1024, "openai/gpt-oss-120b"), "2026-01-07", 0, 2) == 20000


def test_mapping_budgets_match_the_rule():
    with (VALIDATION / "aiconfigurator_silicon_adp.csv").open() as f:
        rows = list(csv.DictReader(f))
    tight = [r for r in rows if int(r["max_num_tokens"]) < 8192]
    # the 1k-prompt DeepSeek runs before the floor or under MTP: 1,152-1,344 tokens
    assert tight and {r["max_num_tokens"] for r in tight} <= {"1152", "1216", "1344"}
    assert all("_1024x" in r["id"] for r in tight)


def test_prompts_a_rank_takes_an_iteration(serving):
    # B200 fp8 1k/1k at 64 requests, DP 8: n = 8 a rank under 1,152 tokens: k x 1,024 +
    # (8 - k) <= 1,152, k = (1,152 - 8) // 1,023 = 1
    row = _row(serving, fmt="fp8-block128", concurrency=64, max_num_tokens=1152)
    dep = serving._deployment(row)
    assert serving.adp_prompts_per_iteration(row, dep, 8) == 1
    # the 8,192 floor: (8,192 - 8) // 1,023 = 8, every request a rank holds
    assert serving.adp_prompts_per_iteration(replace(row, max_num_tokens=8192), dep, 8) == 8
    # MTP 1 at 32 a rank: each decode 1 + 1 tokens, so M - 32 = 1,120: (1,120 - 32) // 1,023 = 1
    mtp = replace(row, mtp=1, max_num_tokens=1152)
    assert serving.adp_prompts_per_iteration(mtp, dep, 32) == 1
    # an 8k prompt under 8,320: (8,320 - 8) // 8,191 = 1
    assert serving.adp_prompts_per_iteration(replace(row, isl=8192, max_num_tokens=8320), dep,
                                             8) == 1  # fmt: skip


def test_replay_holds_the_prompts_a_release_leaves_to_the_next_one():
    replay = load_script("bench/adp_balance_replay.py")
    # 3 clients of one prompt on 2 ranks arrive together: ranks hold 2 and 1. Uncapped, the
    # cover at iteration 0 lets all 3 go (waits 0)
    assert replay.replay(3, 2, 40, 6, 0, rounds=1) == [0, 0, 0]
    # one prompt a rank an iteration: iteration 0 lets one go on each rank; from iteration 1
    # the second rank holds none, so the first rank's second prompt waits for the counter:
    # +1 at iterations 1 ... 6, reaching T 6 at iteration 6 (both running requests, 32-40
    # iterations long, still decoding): a wait of 6 - 0 = 6 iterations
    assert sorted(replay.replay(3, 2, 40, 6, 0, rounds=1, cap=1)) == [0, 0, 6]
    # two a rank an iteration: the same as uncapped
    assert replay.replay(3, 2, 40, 6, 0, rounds=1, cap=2) == [0, 0, 0]


def test_trickle_factor(serving):
    # a cap at or above the requests a rank holds (256 / 8 = 32) changes nothing, no replay
    assert serving._trickle_factor(256, 8, 1024, 60, 0, 32) == 1.0
    # one a rank an iteration at 64 clients on 8 ranks, 1k outputs: the replay's capped mean
    # wait over its uncapped one, longer
    got = serving._trickle_factor(64, 8, 1024, 60, 0, 1)
    replay = load_script("bench/adp_balance_replay.py")
    held, free = replay.replay(64, 8, 1024, 60, 0, cap=1), replay.replay(64, 8, 1024, 60, 0)
    assert got == pytest.approx((sum(held) / len(held)) / (sum(free) / len(free)), rel=1e-12)
    assert got > 1.5


def test_predict_adds_the_wait_to_ttft_alone(serving):
    row = _row(serving)
    on, off = serving.predict(row), serving.predict(replace(row, adp_timeout_iters=0))
    assert on.tpot_s == off.tpot_s
    assert on.ttft_s > off.ttft_s


def test_replay_holds_nothing_when_every_client_arrives_at_once():
    replay = load_script("bench/adp_balance_replay.py")
    # one prompt a client, 4 clients on 2 ranks: the first iteration gives every rank a
    # context and none runs a generation request yet: all go in at once
    assert replay.replay(4, 2, 20, 60, 0, rounds=1) == [0, 0, 0, 0]
    # with more rounds no prompt waits the timeout or more (B 0: released at the T-th)
    waits = replay.replay(8, 4, 40, 6, 0, rounds=4, seed=3)
    assert len(waits) == 32 and max(waits) <= 6
