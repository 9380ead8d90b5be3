"""The continuous-batching simulation (calc/serve/simulate.py): a hand-worked schedule with a
toy iteration time, preemption, the analytic limits on a real deployment, determinism."""

from dataclasses import replace

import numpy as np
import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment
from calc.deploy.engines import host_costs
from calc.deploy.steps import step_of
from calc.serve.front_end import INTAKE_S
from calc.serve.simulate import Limits, simulate, simulate_requests
from calc.serve.steptime import AffineStepTime
from calc.serve.workload import LengthDist, LoadSpec, load_trace_csv


def test_hand_worked_schedule():
    # Pool 100 blocks of 4 tokens, 8 tokens per iteration, 2 sequences; an iteration takes
    # 1 s + 0.1 s per token in the pass. Requests (arrival, prompt, gen):
    # r0 (0.0, 6, 2), r1 (0.5, 4, 3), r2 (0.6, 2, 1).
    # it 1 @0.0: r0 prefills 6 → 1 + 0.6 = 1.6 s, ends 1.6: r0's first token (TTFT 1.6).
    # it 2 @1.6: r1, r2 have arrived; r0 decodes 1, r1 prefills 4 (budget 7), r2 waits (2
    #   sequences run) → 1 + 0.5 = 1.5 s, ends 3.1: r0 finishes (2 tokens), r1 first token.
    # it 3 @3.1: r1 decodes 1, r2 admitted and prefills 2 → 1 + 0.3 = 1.3 s, ends 4.4: r2's
    #   first (and only) token; r2 finishes.
    # it 4 @4.4: r1 decodes 1 → 1.1 s, ends 5.5: r1's third token, finishes.
    lim = Limits(pool_blocks=100, block_size=4, max_batched_tokens=8, max_num_seqs=2)
    step = AffineStepTime(fixed_s=1.0, per_token_s=0.1)
    r = simulate_requests([0.0, 0.5, 0.6], [6, 4, 2], [2, 3, 1], limits=lim, step=step)
    assert r.wait_each_s == pytest.approx([0.0, 1.6 - 0.5, 3.1 - 0.6])  # admitted 0, 1.6, 3.1
    assert r.ttft_each_s == pytest.approx([1.6, 3.1 - 0.5, 4.4 - 0.6])
    assert r.e2e_each_s == pytest.approx([3.1, 5.5 - 0.5, 4.4 - 0.6])
    # TPOT = (finish − first token) / (gen − 1): r0 (3.1 − 1.6) / 1, r1 (5.5 − 3.1) / 2
    assert r.tpot_each_s[:2] == pytest.approx([1.5, 1.2])
    assert np.isnan(r.tpot_each_s[2])  # one output token: no TPOT
    assert r.iterations == 4
    assert r.preemptions == 0
    assert r.queue_len_max == 2  # r1 and r2 both waiting from 0.6 to 1.6
    # time-average of the waiting requests = their waits / makespan = (1.1 + 2.5) / 5.5
    assert r.queue_len_mean == pytest.approx(3.6 / 5.5)
    assert r.makespan_s == pytest.approx(5.5)
    assert r.output_tokens_per_s == pytest.approx(6 / 5.5)  # 2 + 3 + 1 tokens
    assert r.input_tokens_per_s == pytest.approx(12 / 5.5)
    assert r.requests_per_s == pytest.approx(3 / 5.5)
    # goodput: TTFT ≤ 2 s holds for r0 only (TTFTs 1.6, 2.6, 3.8)
    assert r.goodput_requests_per_s(2.0, None) == pytest.approx(1 / 5.5)
    assert r.goodput_requests_per_s(None, None) == pytest.approx(3 / 5.5)
    assert r.slo_attainment(3.0, 1.4) == pytest.approx(1 / 3)  # r1 (TPOT 1.2, TTFT 2.6)


def test_chunked_prefill_and_a_decode_stretch():
    # One request, prompt 10, gen 5; 4 tokens per iteration; 1 s per iteration + 0.1 s per
    # token. Chunks 4, 4, 2 → 1.4 + 1.4 + 1.2 = 4.0 s to the first token; then 4 decode
    # iterations of 1.1 s (run as one stretch) → finish 8.4 s; TPOT = 4.4 / 4 = 1.1 s.
    lim = Limits(pool_blocks=100, block_size=4, max_batched_tokens=4, max_num_seqs=8)
    step = AffineStepTime(fixed_s=1.0, per_token_s=0.1)
    r = simulate_requests([0.0], [10], [5], limits=lim, step=step)
    assert r.ttft_each_s == pytest.approx([4.0])
    assert r.e2e_each_s == pytest.approx([8.4])
    assert r.tpot_each_s == pytest.approx([1.1])
    assert r.iterations == 3 + 4


def test_decode_stretch_matches_attended_keys():
    # 1 s + 0.001 s per attended key: a request of prompt 100, gen 4 decodes at contexts
    # 101, 102, 103 after a 1 s prefill (no keys charged to a chunk): 1 + 3 + 0.306 s.
    lim = Limits(pool_blocks=100, block_size=16, max_batched_tokens=512, max_num_seqs=8)
    step = AffineStepTime(fixed_s=1.0, per_ctx_s=0.001)
    r = simulate_requests([0.0], [100], [4], limits=lim, step=step)
    assert r.e2e_each_s == pytest.approx([1.0 + 3.0 + 0.001 * (101 + 102 + 103)])


def test_preemption_when_the_pool_is_tiny():
    # 3 blocks of 4 tokens; two requests of prompt 4 + gen 5 (3 blocks each at the end).
    # Both prefill at once (1 block each); the next step needs a second block for each: the
    # pool has one, so the later request is preempted and recomputed after the first ends.
    lim = Limits(pool_blocks=3, block_size=4, max_batched_tokens=100, max_num_seqs=10)
    step = AffineStepTime(fixed_s=1.0)
    r = simulate_requests([0.0, 0.0], [4, 4], [5, 5], limits=lim, step=step)
    assert r.preemptions >= 1
    assert r.n_requests == 2
    assert r.e2e_each_s[0] < r.e2e_each_s[1]
    assert r.ttft_each_s == pytest.approx([1.0, 1.0])  # both got a first token at once
    # r0: 1 prefill + 4 decodes = 5 s; r1 then recomputes its 4 + 1 tokens (1 s) and decodes
    # its last 3 tokens (3 s): finish 9 s
    assert r.e2e_each_s == pytest.approx([5.0, 9.0])
    assert r.kv_pool_occupancy_mean > 0.5


def test_request_longer_than_the_pool_is_refused():
    lim = Limits(pool_blocks=2, block_size=4, max_batched_tokens=100, max_num_seqs=10)
    r = simulate_requests([0.0, 1.0], [4, 20], [2, 2], limits=lim, step=AffineStepTime(1.0))
    assert r.rejected == 1 and r.n_requests == 1


def test_prefix_sharing_skips_the_shared_prefill():
    # prompt 16, half shared in whole blocks of 4 → 8 tokens computed: 1 + 0.1 × 8 = 1.8 s
    lim = Limits(pool_blocks=100, block_size=4, max_batched_tokens=64, max_num_seqs=4)
    step = AffineStepTime(fixed_s=1.0, per_token_s=0.1)
    r = simulate_requests([0.0], [16], [1], limits=lim, step=step, prefix_shared_fraction=0.5)
    assert r.ttft_each_s == pytest.approx([1.8])


@pytest.fixture(scope="module")
def dep8b():
    return Deployment.build(load_model("llama3-8b"), load_hardware("h100"))


def test_low_load_ttft_is_one_prefill(dep8b):
    # One request every 100 s, each done in well under a second: each is alone, so its TTFT is
    # its front-end time (HTTP, tokenisation: calc.deploy.host_costs), the prefill of its
    # prompt with the engine's host time of one step (the table interpolates prefill
    # attention: 0.5% tolerance) and the front-end's hand-out of its first token
    # (calc.serve.front_end.INTAKE_S, 1.18 ms).
    load = LoadSpec(
        rate_per_s=0.01, arrival="constant", prompt=LengthDist.fixed(1024),
        gen=LengthDist.fixed(16), n_requests=20,
    )  # fmt: skip
    r = simulate(dep8b, load)
    host = host_costs("vllm")
    prefill = step_of(dep8b, batch=1, prompt=1024).time_s + host.step_host_s(1)
    ttft = prefill + host.request_host_s(1024) + INTAKE_S
    assert r.ttft_s["p50"] == pytest.approx(ttft, rel=5e-3)
    assert r.ttft_s["p99"] == pytest.approx(ttft, rel=5e-3)
    # and TPOT the decode step at the mean context 1024 + 8 (affine in ctx: exact mean), with
    # the engine's host time of a one-sequence step: the hand-out holds the whole stream, so
    # every token comes 1.18 ms late and the 15 gaps keep their length
    tpot = np.mean(step_of(dep8b, batch=1, ctx=np.arange(1025, 1040.0)).time_s)
    tpot += host.step_host_s(1)
    assert r.tpot_s["p50"] == pytest.approx(tpot, rel=5e-3)
    assert not r.saturated
    assert r.queue_len_max == 0


def test_low_poisson_load_ttft_within_one_decode_step(dep8b):
    # Poisson arrivals at 0.5/s: a request may land while another decodes, waits for that
    # iteration to end and shares its own prefill step with one decode token; the newest vLLM
    # schedules a step ahead (async scheduling, tests/test_ttft_closed_loop.py), so it waits
    # for the next one too: TTFT ≤ prefill + 3 decode steps (the two waited and the shared
    # pass); the median request is alone.
    load = LoadSpec(rate_per_s=0.5, prompt=LengthDist.fixed(1024), gen=LengthDist.fixed(16),
                    n_requests=200)  # fmt: skip
    r = simulate(dep8b, load, seed=3)
    host = host_costs("vllm")
    front = host.request_host_s(1024)  # each request's front-end time (calc.deploy.host_costs)
    prefill = step_of(dep8b, batch=1, prompt=1024).time_s + host.step_host_s(1) + front
    tpot = step_of(dep8b, batch=1, ctx=1040).time_s + host.step_host_s(2)
    assert prefill * 0.995 <= r.ttft_s["p50"] <= prefill + tpot
    assert r.ttft_s["p99"] <= prefill + 3 * tpot + 1e-3


def test_above_saturation_the_queue_grows(dep8b):
    low = LoadSpec(rate_per_s=1.0, prompt=LengthDist.fixed(2048), gen=LengthDist.fixed(256),
                   n_requests=400)  # fmt: skip
    r_low = simulate(dep8b, low)
    assert not r_low.saturated and r_low.saturation_reason == ""
    high = low.with_rate(400.0)
    r = simulate(dep8b, high)
    assert r.saturated
    assert "exceed" in r.saturation_reason
    assert r.queue_len_max > 100
    assert r.requests_per_s < 0.5 * r.offered_requests_per_s
    assert r.ttft_s["p99"] > 10 * r_low.ttft_s["p99"]


def test_deterministic_with_a_seed(dep8b):
    load = LoadSpec(rate_per_s=20.0, prompt=LengthDist.lognormal(1000, 0.5),
                    gen=LengthDist.uniform(10, 200), n_requests=300)  # fmt: skip
    a = simulate(dep8b, load, seed=7)
    b = simulate(dep8b, load, seed=7)
    c = simulate(dep8b, load, seed=8)
    assert np.array_equal(a.e2e_each_s, b.e2e_each_s)
    assert a.ttft_s == b.ttft_s and a.preemptions == b.preemptions
    assert not np.array_equal(a.e2e_each_s, c.e2e_each_s)


def test_trace_input(tmp_path, dep8b):
    f = tmp_path / "t.csv"
    f.write_text("arrival_s,prompt_tokens,output_tokens\n0,512,8\n0.25,256,4\n100,128,2\n")
    load = LoadSpec(arrival=load_trace_csv(f))
    r = simulate(dep8b, load)
    assert r.n_requests == 3
    # the third arrives alone, 100 s later: TTFT = its front-end time, its prefill step and
    # the hand-out of its first token (1.18 ms)
    host = host_costs("vllm")
    alone = step_of(dep8b, batch=1, prompt=128).time_s + host.step_host_s(1) + INTAKE_S
    assert r.ttft_each_s[2] == pytest.approx(alone + host.request_host_s(128), 5e-3)
    # scaled to 1 request/s: its mean rate was 2 / 100 s
    scaled = LoadSpec(arrival=load_trace_csv(f), rate_per_s=1.0)
    assert simulate(dep8b, scaled).offered_requests_per_s == pytest.approx(1.0)


def test_replicas_share_arrivals_round_robin():
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    one = Deployment.build(cfg, hw)
    two = Deployment.build(cfg, hw, dp=2)
    load = LoadSpec(rate_per_s=4.0, arrival="constant", prompt=LengthDist.fixed(512),
                    gen=LengthDist.fixed(64), n_requests=50)  # fmt: skip
    r1 = simulate(one, load)
    r2 = simulate(two, replace(load, rate_per_s=8.0, n_requests=100))
    # each replica of two at 8/s sees exactly what one sees at 4/s (requests 0, 2, 4, … at
    # 0, 0.25, 0.5 s; requests 1, 3, … the same 0.125 s later)
    assert r2.groups == 2
    assert r2.tpot_s["p50"] == pytest.approx(r1.tpot_s["p50"])
    assert r2.ttft_s["p50"] == pytest.approx(r1.ttft_s["p50"])


@pytest.mark.parametrize("seed", range(40))
def test_fast_scheduler_matches_the_one_by_one_rules(seed):
    # random small scenarios (tiny pools: preemptions; small budgets: chunking; max_num_seqs
    # caps; prefix sharing; whole-request reservation): the aggregate loop gives the
    # reference loop's exact schedule
    from calc.serve.scheduler import run_group
    from tests.serve_reference import (
        assert_same_schedule,
        random_scenario,
        simulate_group_reference,
    )

    arrival, prompt, gen, shared, lim, _ = random_scenario(seed)
    step = AffineStepTime(fixed_s=0.01, per_token_s=0.001, per_ctx_s=1e-5)
    a = run_group(arrival, prompt, gen, shared, lim, step)
    b = simulate_group_reference(arrival, prompt, gen, shared, lim, step)
    assert_same_schedule(a, b)


def test_request_longer_than_max_model_len_is_refused():
    lim = Limits(pool_blocks=100, block_size=4, max_batched_tokens=100, max_num_seqs=10,
                 max_model_len=20)  # fmt: skip
    r = simulate_requests([0.0, 1.0], [10, 15], [10, 6], limits=lim, step=AffineStepTime(1.0))
    assert r.rejected == 1 and r.n_requests == 1  # 10 + 10 fits, 15 + 6 = 21 does not


@pytest.mark.parametrize("pp", [1, 2])
def test_saturated_throughput_near_the_steady_state_model(pp):
    # Far above saturation the deployment serves at its capacity: the output tokens/s of the
    # simulation are the steady-state model's (calc/reports/throughput.py: whole-request KV
    # reservation, prefill and decode adding) within 10%; the simulation is lower by the ramp
    # and drain of a finite run and the recompute of preempted requests (vLLM allocates
    # blocks on demand and preempts when the pool runs out).
    # Under PP both keep pp micro-batches in flight (the simulation: pp schedulers, each with
    # pool / pp).
    from calc.reports.throughput import serving_throughput

    dep8b = Deployment.build(load_model("llama3-8b"), load_hardware("h100"), pp=pp)
    steady = serving_throughput(dep8b, prompt=1024, gen=256)
    load = LoadSpec(rate_per_s=1000.0, prompt=LengthDist.fixed(1024), gen=LengthDist.fixed(256),
                    n_requests=1500)  # fmt: skip
    r = simulate(dep8b, load)
    assert r.saturated
    want = steady.output_tokens_per_s_per_gpu * dep8b.gpus
    assert r.output_tokens_per_s == pytest.approx(want, rel=0.10)
    assert r.kv_pool_occupancy_mean > 0.7  # the pool is mostly in use (pp 1: 0.91, pp 2: 0.76)


def test_whole_request_reservation_never_preempts():
    # the tiny pool of test_preemption_when_the_pool_is_tiny under TensorRT-LLM's admission:
    # r0 reserves its 3 blocks (4 + 5 tokens) at once, r1 waits for them: 1 + 4 = 5 s, then
    # r1 runs 5 s alone: it finishes at 10 s, nothing preempted
    lim = Limits(pool_blocks=3, block_size=4, max_batched_tokens=100, max_num_seqs=10,
                 reserve_whole_request=True)  # fmt: skip
    r = simulate_requests([0.0, 0.0], [4, 4], [5, 5], limits=lim, step=AffineStepTime(1.0))
    assert r.preemptions == 0
    assert r.e2e_each_s == pytest.approx([5.0, 10.0])
    assert r.wait_each_s == pytest.approx([0.0, 5.0])


def test_trtllm_engine_reserves_whole_requests():
    from calc.deploy.deployment import EngineSettings
    from calc.serve.simulate import deployment_limits

    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    assert deployment_limits(Deployment.build(cfg, hw, engine=EngineSettings(name="trtllm")),
                             1000).reserve_whole_request  # fmt: skip
    assert not deployment_limits(Deployment.build(cfg, hw), 1000).reserve_whole_request


def test_prefill_first_batches():
    # 100 blocks of 4, 8 tokens per iteration; 1 s + 0.1 s per token. r0 (0 s, prompt 4, gen
    # 3), r1 (1 s, prompt 4, gen 1).
    # vLLM (mixed): @0 r0 prefills (1.4 s); @1.4 r0 decodes + r1 prefills (1.5 s, ends 2.9:
    #   r1 done, TTFT 1.9); @2.9 r0 decodes (1.1 s): r0 done at 4.0.
    # SGLang (prefill first): @0 r0 prefills (1.4); @1.4 a prefill batch of r1 alone (1.4 s,
    #   ends 2.8: TTFT 1.8), r0 waits; @2.8, @3.9 r0 decodes: done at 5.0.
    step = AffineStepTime(fixed_s=1.0, per_token_s=0.1)
    args = ([0.0, 1.0], [4, 4], [3, 1])
    mixed = Limits(pool_blocks=100, block_size=4, max_batched_tokens=8, max_num_seqs=4)
    first = Limits(pool_blocks=100, block_size=4, max_batched_tokens=8, max_num_seqs=4,
                   prefill_first=True)  # fmt: skip
    a = simulate_requests(*args, limits=mixed, step=step)
    b = simulate_requests(*args, limits=first, step=step)
    assert a.ttft_each_s == pytest.approx([1.4, 1.9])
    assert a.e2e_each_s == pytest.approx([4.0, 1.9])
    assert b.ttft_each_s == pytest.approx([1.4, 1.8])
    assert b.e2e_each_s == pytest.approx([5.0, 1.8])


def test_sglang_engine_prefills_first():
    from calc.deploy.deployment import EngineSettings
    from calc.serve.simulate import deployment_limits

    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    lim = deployment_limits(Deployment.build(cfg, hw, engine=EngineSettings(name="sglang")), 1000)
    assert lim.prefill_first and not lim.reserve_whole_request


def test_sglang_admits_with_room_for_the_running_requests_future_tokens():
    # SGLang (PrefillAdder): a prompt is admitted only if its tokens + its outputs stay under
    # the free pool less the running requests' remaining outputs × new_token_ratio (0.7 at
    # first). Pool 100 tokens (block 1), 1 s per iteration; r0 at 0 s (prompt 10, gen 50),
    # r1 at 0.5 s (prompt 30, gen 30); no page reserve (SGLang before 0.5.11).
    # @0 r0: 10 + 50 = 60 < 100: prefilled 0 → 1 s (first token, 49 outputs left).
    # @1 r1: 30 + 30 = 60 ≥ 100 − 10 − 0.7 × 49 = 55.7: refused, the batch marked full; r0
    #   decodes to its last token at 1 + 49 = 50 s; r1 is prefilled 50 → 51 (TTFT 50.5 s) and
    #   decodes 29 more: done at 80 s (E2E 79.5 s).
    # vLLM admits r1's first chunk at 1 s (its blocks fit): prefilled beside r0's decode 1 → 2
    #   (TTFT 1.5 s), done at 2 + 29 = 31 s; the pool holds both (41 + 2 × 29 = 99 ≤ 100).
    from calc.deploy.engines.base import FutureTokens

    step = AffineStepTime(1.0)
    args = ([0.0, 0.5], [10, 30], [50, 30])
    sglang = Limits(pool_blocks=100, block_size=1, max_batched_tokens=64, max_num_seqs=10,
                    prefill_first=True, future_tokens=FutureTokens(page_reserve=False))
    vllm = Limits(pool_blocks=100, block_size=1, max_batched_tokens=64, max_num_seqs=10)
    a = simulate_requests(*args, limits=sglang, step=step)
    b = simulate_requests(*args, limits=vllm, step=step)
    assert a.ttft_each_s == pytest.approx([1.0, 50.5])
    assert a.e2e_each_s == pytest.approx([50.0, 79.5])
    assert b.ttft_each_s == pytest.approx([1.0, 1.5])
    assert b.e2e_each_s == pytest.approx([50.0, 30.5])
    assert a.preemptions == b.preemptions == 0


def test_sglang_retracts_the_request_with_the_fewest_outputs():
    # SGLang's ratio under-reserves: pool 71 tokens, r0 at 0 s and r1 at 0.5 s, prompt 10 and
    # gen 30 each, 1 s per iteration, no page reserve.
    # @0 r0 prefilled (0 → 1). @1 r1: 10 + 30 = 40 < 71 − 10 − 0.7 × 29 = 40.7: prefilled
    #   1 → 2, r0 waiting. From 2 s both decode, 2 tokens of KV per step: the pool holds
    #   20 + 2 j; at j = 25 (27 s) 1 block is free for 2: retract_decode orders by (outputs,
    #   −prompt) = (26, −10) for both, keeps the first and retracts r1 (to the queue's end),
    #   the ratio re-estimated as min(1, (26 + 20) / 31) = 1.
    # r0 decodes on: its outputs 27 … 30 at 28 … 31 s (E2E 31 s). @28 r1 (36 tokens to
    #   recompute, 4 outputs left): 40 ≥ 71 − 37 − 1.0 × 3 = 31: refused until r0 leaves;
    #   @31 recomputed (→ 32 s, its 27th output), done at 35 s (E2E 34.5 s).
    from calc.deploy.engines.base import FutureTokens

    lim = Limits(pool_blocks=71, block_size=1, max_batched_tokens=64, max_num_seqs=10,
                 prefill_first=True, future_tokens=FutureTokens(page_reserve=False))
    r = simulate_requests([0.0, 0.5], [10, 10], [30, 30], limits=lim, step=AffineStepTime(1.0))
    assert r.preemptions == 1 and list(r.preempted_each) == [0, 1]
    assert r.ttft_each_s == pytest.approx([1.0, 1.5])
    assert r.e2e_each_s == pytest.approx([31.0, 34.5])


def test_trtllm_without_chunked_prefill_runs_whole_prompts():
    # trtllm-serve's default: no chunked prefill (microBatchScheduler.cpp: a context request
    # takes its whole prompt, charged at its length, or waits). max_num_tokens 16; 1 s +
    # 0.1 s per token; r0 and r1 at 0 s, prompt 10, gen 3 each.
    # Whole prompts: @0 r0 alone (10; r1's 10 > 16 − 10): 1 + 1.0 = 2.0 s; @2.0 r0's decode
    #   + r1's prompt: 1 + 1.1 = 2.1 s → r1's first token at 4.1 s.
    # Chunked: @0 r0 (10) + r1's first 6: 1 + 1.6 = 2.6 s; @2.6 r0's decode + r1's last 4:
    #   1.5 s → 4.1 s. A prompt over max_num_tokens is refused without chunking.
    step = AffineStepTime(fixed_s=1.0, per_token_s=0.1)
    whole = Limits(pool_blocks=100, block_size=4, max_batched_tokens=16, max_num_seqs=8,
                   reserve_whole_request=True, chunked_prefill=False)
    chunked = Limits(pool_blocks=100, block_size=4, max_batched_tokens=16, max_num_seqs=8,
                     reserve_whole_request=True)
    a = simulate_requests([0.0, 0.0], [10, 10], [3, 3], limits=whole, step=step)
    b = simulate_requests([0.0, 0.0], [10, 10], [3, 3], limits=chunked, step=step)
    assert a.ttft_each_s == pytest.approx([2.0, 4.1])
    assert b.ttft_each_s == pytest.approx([2.6, 4.1])
    c = simulate_requests([0.0, 0.0], [10, 17], [3, 3], limits=whole, step=step)
    d = simulate_requests([0.0, 0.0], [10, 17], [3, 3], limits=chunked, step=step)
    assert (c.rejected, d.rejected) == (1, 0)


def test_engines_schedule_with_their_defaults():
    # the wing's policy per engine: vLLM mixed and chunked, SGLang prefill-first with its
    # future-token room (a page reserved from 0.5.11), trtllm-serve whole requests and whole
    # prompts unless chunked prefill is asked for
    from calc.deploy.deployment import EngineSettings
    from calc.serve.simulate import deployment_limits

    cfg, hw = load_model("llama3-8b"), load_hardware("h100")

    def lim(**kw):
        return deployment_limits(Deployment.build(cfg, hw, engine=EngineSettings(**kw)), 1000)

    v, s, t = lim(name="vllm"), lim(name="sglang"), lim(name="trtllm")
    assert (v.prefill_first, v.reserve_whole_request, v.chunked_prefill) == (False, False, True)
    assert (s.prefill_first, s.chunked_prefill, s.future_tokens.page_reserve) == (True, True, True)
    assert not lim(name="sglang", version="0.5.10").future_tokens.page_reserve
    assert (t.reserve_whole_request, t.chunked_prefill) == (True, False)
    assert lim(name="trtllm", chunked_prefill=True).chunked_prefill


def test_trtllm_refusal_names_the_prompt_over_the_batch():
    # trtllm-serve without chunked prefill cannot run a 12,000-token prompt in an 8,192-token
    # batch: every request is refused, and the error says why and what to raise
    from calc.deploy.deployment import EngineSettings
    from calc.errors import InvalidInputError

    dep = Deployment.build(load_model("llama3.1-8b"), load_hardware("h100"),
                           engine=EngineSettings(name="trtllm"))  # fmt: skip
    load = LoadSpec(rate_per_s=1.0, prompt=LengthDist.fixed(12_000), gen=LengthDist.fixed(10),
                    n_requests=5)  # fmt: skip
    with pytest.raises(InvalidInputError, match=r"exceed max_batched_tokens \(8,192\) with "
                       r"chunked prefill off \(raise --max-batched-tokens\)"):  # fmt: skip
        simulate(dep, load)
    on = EngineSettings(name="trtllm", chunked_prefill=True)
    chunked = Deployment.build(load_model("llama3.1-8b"), load_hardware("h100"), engine=on)
    assert simulate(chunked, load).rejected == 0


def test_sglang_running_limit_from_the_pool():
    # SGLang 0.4.0 (model_runner.py init_memory_pool, tp_worker.py): without
    # --max-running-requests, max_running = min(pool // 2, clamp(int(pool / context × 512),
    # 2048, 4096)) [requests; pool and context in tokens]
    from calc.deploy.engines import engine

    policy = engine("sglang").scheduler("0.4.0")
    # 1,000,000 / 131,072 × 512 = 3,906.25 → 3,906 (inside 2,048 … 4,096; 500,000 above it)
    assert policy.running_limit(1_000_000, 131_072) == 3906
    # 200,000 / 131,072 × 512 = 781.25 → the floor 2,048 (100,000 above it)
    assert policy.running_limit(200_000, 131_072) == 2048
    # 10,000,000 / 8,192 × 512 = 625,000 → the ceiling 4,096
    assert policy.running_limit(10_000_000, 8_192) == 4096
    # a small pool: 3,000 / 8,192 × 512 = 187 → 2,048, but 3,000 // 2 = 1,500 binds
    assert policy.running_limit(3_000, 8_192) == 1500
    # vLLM and TensorRT-LLM take their configured max_num_seqs
    assert engine("vllm").scheduler("0.10.0").running_limit(1_000_000, 8_192) is None


def test_sglang_simulation_runs_as_many_requests_as_its_pool_allows():
    # Llama-3.3-70B on 4 × H200, SGLang 0.4.0: the simulation's running limit is the engine's
    # own from the pool (context 131,072 tokens: 1,048,576 / 131,072 × 512 = 4,096, the
    # ceiling, from a pool of 1,048,576 tokens), not the 1,024 that stands in where no pool is
    # known; a stated --max-num-seqs wins. The pool: 70.6 B weights × 2 B / 4 = 35 GB a GPU of
    # 141 GB; ~90 GB of KV at 80 layers × 8 KV heads / 4 × 128 × 2 (K, V) × 2 B = 81,920 B a
    # token is ~1.1 M tokens
    from calc.deploy.deployment import EngineSettings
    from calc.serve.simulate import deployment_limits

    cfg, hw = load_model("llama3.3-70b"), load_hardware("h200")

    def limits(**kw):
        dep = Deployment.build(cfg, hw, tp=4, engine=EngineSettings(name="sglang",
                                                                    version="0.4.0", **kw))
        return deployment_limits(dep, 1000)

    lim = limits()
    tokens = lim.pool_blocks * lim.block_size
    assert lim.max_model_len == 131_072
    assert 1_048_576 <= tokens <= 1_200_000
    assert lim.max_num_seqs == 4096
    assert limits(max_num_seqs=1024).max_num_seqs == 1024


def test_sglang_overlap_scheduler_forms_a_batch_ahead():
    # SGLang's overlap scheduler (0.4.0 event_loop_overlap): batch k + 1 is formed when batch
    # k starts, so a request arriving during batch k joins batch k + 2. 1 s per iteration;
    # r0 at 0 s (prompt 10, gen 5), r1 at 1.5 s (prompt 10, gen 2); a large pool.
    # @0 r0 prefilled 0 → 1 (first token at 1). r1 arrives during the decode batch 1 → 2.
    # Formed as it comes: r1 prefilled 2 → 3 (TTFT 1.5); both decode 3 → 4 (r1's last token:
    #   E2E 2.5), r0 4 → 5, 5 → 6 (r0 done at 6).
    # Ahead: the batch 2 → 3 was formed at 1 without r1 (r0 decodes); r1 prefilled 3 → 4
    #   (TTFT 2.5); both decode 4 → 5 (r1 done: E2E 3.5); r0 5 → 6 (its 5th token: E2E 6).
    from calc.deploy.engines.base import FutureTokens

    kw = dict(pool_blocks=1000, block_size=1, max_batched_tokens=64, max_num_seqs=10,
              prefill_first=True, future_tokens=FutureTokens(page_reserve=False))
    args = ([0.0, 1.5], [10, 10], [5, 2])
    now = simulate_requests(*args, limits=Limits(**kw), step=AffineStepTime(1.0))
    ahead = simulate_requests(*args, limits=Limits(**kw, schedule_ahead=True),
                              step=AffineStepTime(1.0))
    assert now.ttft_each_s == pytest.approx([1.0, 1.5])
    assert now.e2e_each_s == pytest.approx([6.0, 2.5])
    assert ahead.ttft_each_s == pytest.approx([1.0, 2.5])
    assert ahead.e2e_each_s == pytest.approx([6.0, 3.5])


def test_sglang_engine_schedules_ahead_and_vllm_does_not():
    from calc.deploy.deployment import EngineSettings
    from calc.serve.simulate import deployment_limits

    cfg, hw = load_model("llama3-8b"), load_hardware("h100")

    def limits(name, version=None):
        engine = EngineSettings(name=name, version=version)
        return deployment_limits(Deployment.build(cfg, hw, engine=engine), 1000)

    # vLLM before its async scheduling default (0.14.0: tests/test_ttft_closed_loop.py)
    assert limits("sglang").schedule_ahead and not limits("vllm", "0.13.0").schedule_ahead


def test_sglang_admits_fixed_length_requests_only_if_all_can_finish():
    # SGLang with its radix cache off, every request running to its max_new_tokens
    # (bench_serving's ignore_eos): PrefillAdder.add_one_req_ignore_eos. The running requests
    # and the candidate, sorted by tokens left L with tokens held H, must satisfy for each i:
    # free − prompt + Σ_{j<i} H_j − horizon_i × (n − i) > reserve × (n − i); 0.4.0's horizon is
    # the next one's L (the last its own), no reserve. The retraction case above (pool 71,
    # r0 and r1 prompt 10, gen 30, 1 s per iteration, no page reserve):
    # @1 r0 decodes (L 29, H 10 + 1 = 11), r1 (L 30, H 10): sorted (29, 11), (30, 10);
    #   cur = 71 − 10 − 10 = 51; i = 0: 51 + 0 − 30 × 2 = −9 ≤ 0: refused (the ratio admitted
    #   it: 40 < 40.7, and retracted it at 27 s).
    # r0 alone: output 30 at 30 s (E2E 30 s); r1 prefilled 30 → 31 (TTFT 30.5 s), 29 more
    #   outputs: done at 60 s (E2E 59.5 s); nothing retracted.
    from calc.deploy.engines.base import FutureTokens

    f = FutureTokens(page_reserve=False, own_steps=False, exact_reserve=0, input_gate=False)
    lim = Limits(pool_blocks=71, block_size=1, max_batched_tokens=64, max_num_seqs=10,
                 prefill_first=True, future_tokens=f, fixed_lengths=True)
    r = simulate_requests([0.0, 0.5], [10, 10], [30, 30], limits=lim, step=AffineStepTime(1.0))
    assert r.preemptions == 0
    assert r.ttft_each_s == pytest.approx([1.0, 30.5])
    assert r.e2e_each_s == pytest.approx([30.0, 59.5])


def test_sglang_fixed_length_admission_per_release():
    # The same pool of 71, r0 (prompt 10, gen 30) at 0 s, r1 (prompt 10, gen 20) at 0.5 s.
    # @1 sorted (L, H): r1 (20, 10), r0 (29, 11); cur = 71 − 10 − 10 = 51.
    # 0.4.0 (horizons 29, 29): i = 0: 51 − 29 × 2 = −7 ≤ 0: refused; r1 runs after r0's
    #   30th output at 30 s: TTFT 30.5 s, done 31 + 19 = 50 s (E2E 49.5 s).
    # 0.5.23 (own horizons 20, 29; 1 token kept a request; the prompt gated by the room
    #   71 − 10 − 0.7 × 29 = 40.7 ≥ 10): i = 0: 51 − 20 × 2 = 11 > 2; i = 1: 51 + 10 − 29 =
    #   32 > 1: admitted, prefilled 1 → 2 (TTFT 1.5 s), 19 more outputs: done at 21 s (E2E
    #   20.5 s); r0 waits out the prefill: output 30 at 31 s. The pool holds both to the end
    #   (39 + 29 = 68 ≤ 71).
    from calc.deploy.engines.base import FutureTokens

    def run(**kw):
        f = FutureTokens(page_reserve=False, **kw)
        lim = Limits(pool_blocks=71, block_size=1, max_batched_tokens=64, max_num_seqs=10,
                     prefill_first=True, future_tokens=f, fixed_lengths=True)
        return simulate_requests([0.0, 0.5], [10, 10], [30, 20], limits=lim,
                                 step=AffineStepTime(1.0))

    old = run(own_steps=False, exact_reserve=0, input_gate=False)
    new = run(own_steps=True, exact_reserve=1, input_gate=True)
    assert old.ttft_each_s == pytest.approx([1.0, 30.5])
    assert old.e2e_each_s == pytest.approx([30.0, 49.5])
    assert new.ttft_each_s == pytest.approx([1.0, 1.5])
    assert new.e2e_each_s == pytest.approx([31.0, 20.5])
    assert old.preemptions == new.preemptions == 0


def test_sglang_without_its_radix_cache_admits_fixed_length_requests():
    # deployment_limits: --disable-radix-cache (prefix_cache False) selects
    # add_one_req_ignore_eos for SGLang only; 0.4.0's rule until 0.5.23's (schedule_policy.py)
    from calc.deploy.deployment import EngineSettings
    from calc.serve.simulate import deployment_limits

    cfg, hw = load_model("llama3-8b"), load_hardware("h100")

    def lim(**kw):
        return deployment_limits(Deployment.build(cfg, hw, engine=EngineSettings(**kw)), 1000)

    assert not lim(name="sglang").fixed_lengths
    assert lim(name="sglang", prefix_cache=False).fixed_lengths
    assert not lim(name="vllm", prefix_cache=False).fixed_lengths
    old = lim(name="sglang", version="0.4.0").future_tokens
    new = lim(name="sglang", version="0.5.23").future_tokens
    assert (old.own_steps, old.exact_reserve, old.input_gate) == (False, 0, False)
    assert (new.own_steps, new.exact_reserve, new.input_gate) == (True, 1, True)
    assert old.retract_headroom and not new.retract_headroom


def test_sglang_0_4_retracts_until_twenty_free_tokens_a_request():
    # retract_decode: 0.4.0 goes on until retract_decode_steps (20) free tokens are left for
    # each remaining request, 0.5.23 until the step's new tokens fit (check_decode_mem). Pool
    # 101 tokens, prompt 10, gen 30 each, r0, r1, r2 at 0, 0.5, 1.5 s, 1 s an iteration:
    # @1 r1: 40 < 101 − 10 − 0.7 × 29 = 70.7; @2 r2: 40 < 101 − 20 − 0.7 × 58 = 40.4: both
    #   admitted (TTFT 1.0, 1.5, 1.5 s); from 3 s all three decode, 3 tokens a step: after 23
    #   steps (26 s) 2 are free for 3. Outputs 24 each, prompts equal: r2 retracted first
    #   (frees 33: 35 free).
    # 0.5.23: 35 ≥ 2 new tokens: r0, r1 decode 6 more (E2E 32, 31.5 s); r2 (34 to recompute +
    #   6 = 40 ≥ 33 − 10 = 23) waits until they leave: 32 → 33, 5 more: 38 s (E2E 36.5 s).
    # 0.4.0: 35 < 20 × 2: r1 retracted too (68 free ≥ 20); queue r2, r1; @27 r2: 40 < 67 − 5:
    #   in (room 22), r1 refused; r0 waits out r2's prefill, done at 33 s; r2 at 33 s (E2E
    #   31.5 s); r1 after them: 33 → 34, 5 more: 39 s (E2E 38.5 s).
    from calc.deploy.engines.base import FutureTokens

    def run(headroom):
        f = FutureTokens(page_reserve=False, retract_headroom=headroom)
        lim = Limits(pool_blocks=101, block_size=1, max_batched_tokens=64, max_num_seqs=10,
                     prefill_first=True, future_tokens=f)
        return simulate_requests([0.0, 0.5, 1.5], [10, 10, 10], [30, 30, 30], limits=lim,
                                 step=AffineStepTime(1.0))

    old, new = run(True), run(False)
    assert list(old.preempted_each) == [0, 1, 1] and list(new.preempted_each) == [0, 0, 1]
    assert old.ttft_each_s == pytest.approx([1.0, 1.5, 1.5]) == new.ttft_each_s
    assert old.e2e_each_s == pytest.approx([33.0, 38.5, 31.5])
    assert new.e2e_each_s == pytest.approx([32.0, 31.5, 36.5])
