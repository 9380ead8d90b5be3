"""Inter-token latencies, per-request records and client concurrency of the serving simulation
(issue 23): the aggregate scheduler's token gaps against the one-by-one reference's token times,
hand-worked schedules, the weighted percentiles against numpy's, and the --per-request file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calc.serve.scheduler import Limits, run_group
from calc.serve.simulate import simulate_requests
from calc.serve.steptime import AffineStepTime
from calc.serve.token_gaps import gap_summary, gap_values, weighted_percentile
from tests.serve_reference import random_scenario, simulate_group_reference


def _expanded(out) -> np.ndarray:
    v, c = gap_values(out.itl_gaps, out.itl_counts, out.itl_runs)
    return np.sort(np.repeat(v, c))


@pytest.mark.parametrize("seed", range(60))
def test_token_gaps_match_the_one_by_one_token_times(seed):
    # random small scenarios in every mode (preemptions, chunking, SGLang's prefill batches,
    # whole-request reservation, prefix sharing, a client concurrency on every third seed):
    # the gaps the aggregate loop records are, as a multiset, the differences of the
    # reference's token times; each request's longest gap and its preemptions agree
    arrival, prompt, gen, shared, lim, rng = random_scenario(1000 + seed, shared_every=4)
    n = len(arrival)
    step = AffineStepTime(fixed_s=0.01, per_token_s=0.001, per_ctx_s=3e-4)
    cap = int(rng.integers(1, 8)) if seed % 3 == 0 else None
    a = run_group(list(arrival), prompt, gen, shared, lim, step, cap)
    b = simulate_group_reference(list(arrival), prompt, gen, shared, lim, step, cap)
    assert a.first_token == pytest.approx(b.first_token)
    assert a.finish == pytest.approx(b.finish)
    # one gap per output token after the first
    assert _expanded(a).size == sum(g - 1 for g in gen)
    assert _expanded(a) == pytest.approx(np.sort(b.itl_gaps), abs=1e-9)
    assert a.itl_max == pytest.approx(b.itl_max, abs=1e-9)
    assert a.preempted == b.preempted and sum(a.preempted) == a.preemptions
    assert (a.sent is None) == (cap is None or cap >= n)
    if a.sent is not None:
        assert a.sent == pytest.approx(b.sent)
    # without the token bookkeeping (a plan's, a check's simulations): the same schedule
    c = run_group(list(arrival), prompt, gen, shared, lim, step, cap, tokens=False)
    assert c.first_token == a.first_token and c.finish == a.finish
    assert c.iterations == a.iterations and not c.itl_gaps and not c.itl_runs


def test_a_prefill_batch_stalls_the_decoders():
    # test_serve_simulate.test_prefill_first_batches' schedule (1 s + 0.1 s per token; r0 at
    # 0 s, prompt 4, gen 3; r1 at 1 s, prompt 4, gen 1):
    # vLLM (mixed): r0's tokens at 1.4, 2.9 (its decode shares r1's prefill, 1.5 s) and 4.0:
    #   gaps 1.5 and 1.1 s; TPOT (4.0 − 1.4) / 2 = 1.3 s
    # SGLang (prefill first): r0's tokens at 1.4, 3.9, 5.0 (it waits through r1's prefill
    #   batch 1.4 → 2.8, then decodes 2.8 → 3.9): gaps 2.5 and 1.1 s; TPOT 1.8 s
    step = AffineStepTime(fixed_s=1.0, per_token_s=0.1)
    args = ([0.0, 1.0], [4, 4], [3, 1])
    mixed = Limits(pool_blocks=100, block_size=4, max_batched_tokens=8, max_num_seqs=4)
    first = Limits(pool_blocks=100, block_size=4, max_batched_tokens=8, max_num_seqs=4,
                   prefill_first=True)  # fmt: skip
    a = simulate_requests(*args, limits=mixed, step=step)
    b = simulate_requests(*args, limits=first, step=step)
    assert a.itl_max_each_s[0] == pytest.approx(1.5)
    assert b.itl_max_each_s[0] == pytest.approx(2.5)
    assert a.tpot_s["mean"] == pytest.approx(1.3) and b.tpot_s["mean"] == pytest.approx(1.8)
    # pooled gaps {1.1, 2.5}: mean 1.8, median 1.8, p99 = 1.1 + 0.99 × 1.4 = 2.486
    assert b.itl_s["mean"] == pytest.approx(1.8)
    assert b.itl_s["p50"] == pytest.approx(1.8)
    assert b.itl_s["p99"] == pytest.approx(2.486)
    assert a.itl_s["p99"] == pytest.approx(1.1 + 0.99 * 0.4)  # gaps {1.1, 1.5}


def test_client_concurrency_sends_the_next_request_at_a_finish():
    # three requests all ready at 0 s, one open at a time, 1 s per iteration: prompt 4, gen 2
    # each: r0 prefills 0 → 1 (first token), decodes 1 → 2; r1 is sent at 2 s, done at 4 s;
    # r2 sent at 4 s, done at 6 s. Each: TTFT 1 s, E2E 2 s (from when it was sent)
    lim = Limits(pool_blocks=100, block_size=4, max_batched_tokens=64, max_num_seqs=8)
    r = simulate_requests([0.0, 0.0, 0.0], [4, 4, 4], [2, 2, 2], limits=lim,
                          step=AffineStepTime(1.0), max_in_flight=1)  # fmt: skip
    assert r.arrival_each_s == pytest.approx([0.0, 2.0, 4.0])
    assert r.ttft_each_s == pytest.approx([1.0, 1.0, 1.0])
    assert r.e2e_each_s == pytest.approx([2.0, 2.0, 2.0])
    assert r.makespan_s == pytest.approx(6.0)
    # two open at once: r0 and r1 prefill together (0 → 1) and decode (1 → 2); r2 sent at 2
    r2 = simulate_requests([0.0, 0.0, 0.0], [4, 4, 4], [2, 2, 2], limits=lim,
                           step=AffineStepTime(1.0), max_in_flight=2)  # fmt: skip
    assert r2.arrival_each_s == pytest.approx([0.0, 0.0, 2.0])
    assert r2.makespan_s == pytest.approx(4.0)


@pytest.mark.parametrize("seed", range(5))
def test_weighted_percentiles_are_numpys_on_the_expanded_list(seed):
    rng = np.random.default_rng(seed)
    v = rng.exponential(0.02, 50)
    c = rng.integers(0, 7, 50)
    c[0] = max(c[0], 1)
    full = np.repeat(v, c)
    s = gap_summary(v, c)
    assert s["mean"] == pytest.approx(full.mean())
    for k, q in (("p50", 50), ("p90", 90), ("p99", 99)):
        assert s[k] == pytest.approx(np.percentile(full, q))
    assert weighted_percentile(v, c, 0) == pytest.approx(full.min())
    assert weighted_percentile(v, c, 100) == pytest.approx(full.max())


def test_stretch_gaps_in_closed_form():
    # a stretch (d = 10 ms, γ = 1 µs/key, C = 1,000 keys, b = 4, k = 3): steps 1 and 2 give
    # 0.010 + 1e-6 × (1000 + 4 j) = 0.011004 and 0.011008 s, 4 tokens each
    v, c = gap_values([0.5], [2], [(0.010, 1e-6, 1000.0, 4, 3)])
    assert v.tolist() == pytest.approx([0.5, 0.011004, 0.011008])
    assert c.tolist() == [2, 4, 4]
    assert gap_summary([], [])["p50"] is None


def test_per_request_file(tmp_path, cli):
    from calc.output.names import lookup

    out = tmp_path / "req.jsonl"
    res = cli("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "4", "-n", "25",
              "--per-request", out, "-f", "json")  # fmt: skip
    assert res.code == 0, res.err
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 25
    summary = res.json()
    ttfts = np.array([x["ttft_s"] for x in lines])
    assert float(np.percentile(ttfts, 50)) == pytest.approx(summary["ttft_p50_s"])
    for x in lines:
        assert x["e2e_s"] == pytest.approx(x["finish_s"] - x["arrival_s"])
        assert x["ttft_s"] == pytest.approx(x["first_token_s"] - x["arrival_s"])
        assert x["itl_max_s"] >= x["tpot_s"] * (1 - 1e-9)  # the longest gap ≥ the mean gap
        for k in x:
            assert lookup(f"per_request[].{k}") is not None, k
    # with --sweep-rate: one clear line, nothing written
    bad = tmp_path / "no.jsonl"
    res = cli("simulate", "-m", "llama3-8b", "-H", "h100", "--sweep-rate", "1,2", "-n", "5",
              "--per-request", bad)  # fmt: skip
    assert res.code == 2 and not bad.exists()
    assert res.err.startswith("kvcalc: error: --per-request") and res.err.count("\n") == 1
