"""The front-end's intake (calc/serve/front_end.py): Lindley's recursion by hand, an output
waiting for the intake of the requests sent before it, a burst against a steady rate, and the
intake time against the record it comes from."""

import json
from pathlib import Path

import numpy as np
import pytest

from calc.deploy.host_costs import NONE
from calc.serve.front_end import (
    INTAKE_S,
    delivered_s,
    entry_times_s,
    first_tokens_delivered_s,
    intake_s_of,
)
from calc.serve.scheduler import Limits
from calc.serve.simulate import simulate_requests
from calc.serve.steptime import AffineStepTime

DATA = Path(__file__).parent / "data" / "bench_results"


def test_entry_times_by_hand():
    # three requests sent at 0 with 5 ms of latency each, 1 ms of intake:
    # entry_0 = 5; entry_1 = max(5, 5 + 1) = 6; entry_2 = max(5, 6 + 1) = 7 [ms]
    e = entry_times_s([0.0, 0.0, 0.0], 0.005, 0.001)
    assert e == pytest.approx([0.005, 0.006, 0.007])
    # sent 10 ms apart, the intake never binds: entry = arrival + 5 ms
    e = entry_times_s([0.0, 0.010, 0.020], 0.005, 0.001)
    assert e == pytest.approx([0.005, 0.015, 0.025])
    # no intake: entry times never decrease (a later request with less latency waits)
    e = entry_times_s([0.0, 0.001], np.array([0.005, 0.001]), 0.0)
    assert e == pytest.approx([0.005, 0.005])


def test_output_waits_for_the_intake_of_requests_sent_before_it():
    arrival = np.array([0.0, 0.0, 0.0])
    done = entry_times_s(arrival, 0.0, 0.001)  # 0, 1, 2 ms
    assert done == pytest.approx([0.0, 0.001, 0.002])
    # a token produced at 0.5 ms waits for the third request's intake (2 ms); one at 3 ms not
    assert delivered_s([0.0005, 0.003], arrival, done) == pytest.approx([0.002, 0.003])
    # requests 100 ms apart: the intake is done long before any output
    arrival = np.array([0.0, 0.1, 0.2])
    done = entry_times_s(arrival, 0.0, 0.001)
    assert delivered_s([0.05, 0.15], arrival, done) == pytest.approx([0.05, 0.15])


def _limits():
    return Limits(pool_blocks=10_000, block_size=16, max_batched_tokens=4096, max_num_seqs=256)


def test_a_burst_reaches_the_client_after_its_intake():
    n, s = 50, 0.001
    step = AffineStepTime(1e-4)
    args = ([0.0] * n, [4] * n, [2] * n)
    fast = simulate_requests(*args, limits=_limits(), step=step)
    slow = simulate_requests(*args, limits=_limits(), step=step, intake_s=s)
    # without an intake every request is in the first 0.1 ms step: TTFT 0.1 ms
    assert fast.ttft_s["p50"] == pytest.approx(1e-4)
    # with it, the last request reaches the engine at 49 × 1 ms and every first token waits
    # for that intake (49 ms; the last one's own step ends by 49.2 ms), then the front-end
    # hands them out one per 1 ms: the j-th at 49 + (j + 1) ms, 50 … 99 ms. Percentiles of the
    # 50 values 50, 51, …, 99 ms (linear): p50 = 74.5 ms, p99 = 50 + 0.99 × 49 = 98.51 ms
    assert float(np.min(slow.ttft_each_s)) >= 0.050 - 1e-9
    assert slow.ttft_s["p50"] == pytest.approx(0.0745, abs=2e-4)
    assert slow.ttft_s["p99"] == pytest.approx(0.09851, abs=2e-4)
    # each request reaches the engine alone (1 ms apart, 0.1 ms steps): its second token one
    # step after its first; the hand-out holds both, so the TPOT stays one step, 0.1 ms (held
    # the first token alone, the second came before it: TPOT 0)
    assert fast.tpot_each_s == pytest.approx(np.full(n, 1e-4))
    assert slow.tpot_each_s == pytest.approx(np.full(n, 1e-4))


def test_a_closed_loop_request_waits_its_own_latency_from_its_send():
    # a client of concurrency 1 sends 20 requests (all queued at 0), each reaching the engine
    # 5 ms after its send, through a 1 ms intake; 0.1 ms iterations, 4 + 2 tokens. Request 0:
    # sent 0, at the engine 5 ms, first token 5.1, finished 5.2 (TTFT 5.1 ms). Request j > 0
    # is sent when the one before finishes, alone: at the engine 5 ms after that send, its
    # first token 0.1 ms later: TTFT 5.1 ms each, sent every 5.2 ms. (Counting its place in an
    # intake queue of requests the client had not sent yet would add 1 ms per place, to 24.1)
    n = 20
    res = simulate_requests([0.0] * n, [4] * n, [2] * n, limits=_limits(),
                            step=AffineStepTime(1e-4), front_s=0.005, max_in_flight=1,
                            intake_s=0.001)  # fmt: skip
    assert res.ttft_each_s == pytest.approx(np.full(n, 0.0051))
    assert res.arrival_each_s == pytest.approx(0.0052 * np.arange(n))


def test_first_tokens_handed_out_one_at_a_time_by_hand():
    # three requests sent at 0, 1 ms of intake each: intake done at 0, 1, 2 ms. First tokens
    # produced at 0.5, 0.2 and 5 ms: ready at max(t, 2 ms) = 2, 2 and 5 ms; handed out in
    # ready order (ties in request order), 1 ms each: 2 + 1 = 3, max(2, 3) + 1 = 4,
    # max(5, 4) + 1 = 6 ms
    arrival = np.zeros(3)
    done = entry_times_s(arrival, 0.0, 0.001)
    d = first_tokens_delivered_s(np.array([0.0005, 0.0002, 0.005]), arrival, done, 0.001)
    assert d == pytest.approx([0.003, 0.004, 0.006])
    # 100 ms apart: each first token 1 ms after it is produced
    arrival = np.array([0.0, 0.1])
    done = entry_times_s(arrival, 0.0, 0.001)
    d = first_tokens_delivered_s(np.array([0.05, 0.15]), arrival, done, 0.001)
    assert d == pytest.approx([0.051, 0.151])


def test_a_steady_rate_only_hands_each_first_token_out():
    # requests 100 ms apart, 1 ms steps: no intake waits; each first token reaches the client
    # one hand-out (1.18 ms) after it is produced: TTFT 1 ms -> 2.18 ms; the second token
    # (produced at 2 ms) comes no sooner than the first: E2E 2 ms -> 2.18 ms
    n = 20
    step = AffineStepTime(1e-3)
    args = (list(np.arange(n) * 0.1), [4] * n, [2] * n)
    a = simulate_requests(*args, limits=_limits(), step=step)
    b = simulate_requests(*args, limits=_limits(), step=step, intake_s=INTAKE_S)
    assert a.ttft_s["p50"] == pytest.approx(1e-3) and a.e2e_s["p50"] == pytest.approx(2e-3)
    assert b.ttft_each_s == pytest.approx(a.ttft_each_s + INTAKE_S)
    # the hold delays the whole stream: E2E 2 ms -> 2 + 1.18 = 3.18 ms, TPOT still 1 ms
    assert b.e2e_each_s == pytest.approx(a.e2e_each_s + INTAKE_S)
    assert b.e2e_s["p50"] == pytest.approx(2e-3 + INTAKE_S)
    assert b.tpot_each_s == pytest.approx(a.tpot_each_s)


def test_intake_behind_the_api_front_end_only():
    class Table:  # a step table's host costs: the api front-end states a per-request time
        def __init__(self, host):
            self.host = host

    from calc.deploy.host_costs import HostCosts

    api = HostCosts(0.0, 0.0, 5.7e-3, 1.25e-6, "api")
    assert intake_s_of(Table(api)) == INTAKE_S
    assert intake_s_of(Table(NONE)) == 0.0
    assert intake_s_of(AffineStepTime(1.0)) == 0.0


def test_intake_is_the_slope_of_the_recorded_burst():
    # the source: vLLM 0.8.3's run of 200 ShareGPT requests sent at once (surajssd/llm-k8s,
    # TP 8): its per-request TTFTs in send order, least-squares slope 1.18 ms per request
    f = DATA / "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-inf.json"
    ttft = np.asarray(json.loads(f.read_text())["ttfts"])
    slope = np.polyfit(np.arange(ttft.size), ttft, 1)[0]
    assert slope == pytest.approx(INTAKE_S, rel=0.005)
