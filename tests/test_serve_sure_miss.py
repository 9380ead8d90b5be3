"""A run stopped at a sure p99 miss (calc.serve.sure_miss): the count that settles a p99, and
that a stopped run's p99 would have missed while a run that completes is unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from calc.serve.simulate import Limits, simulate_requests
from calc.serve.steptime import AffineStepTime
from calc.serve.sure_miss import MissCount, past_p99


def test_past_p99_counts():
    # n = 1,000: f = ⌊0.99 × 999⌋ = ⌊989.01⌋ = 989; 1,000 − 989 + 1 = 12
    assert past_p99(1000) == 12
    # n = 100: f = ⌊0.99 × 99⌋ = ⌊98.01⌋ = 98; 100 − 98 + 1 = 3
    assert past_p99(100) == 3
    # n = 1: f = 0; 1 − 0 + 1 = 2 > n: one value never settles it
    assert past_p99(1) == 2


@pytest.mark.parametrize("n", [50, 100, 999, 1000, 1001])
def test_that_many_values_above_the_limit_put_the_p99_above_it(n):
    # the past_p99(n) largest values just above 1.0, the rest far below: p99 > 1.0; two fewer
    # leave it at or below 1.0 (the count keeps one to spare for the rounding of 0.99 (n − 1))
    k = past_p99(n)
    x = np.concatenate([np.zeros(n - k), np.full(k, 1.0 + 1e-6)])
    assert np.percentile(x, 99) > 1.0
    y = np.concatenate([np.zeros(n - k + 2), np.full(k - 2, 1.0 + 1e-6)])
    assert np.percentile(y, 99) <= 1.0


def test_miss_count_adds_groups_until_sure():
    # 1,000 requests of 3 output tokens, TTFT limit 1 s: 12 needed; 5 then 7 late ones
    gen = np.full(1000, 3)
    m = MissCount(1.0, 10.0, gen)
    first, sent = np.full(5, 2.0), np.zeros(5)
    assert not m.sure(first, first + 1.0, sent, gen[:5])  # 5 < 12
    first, sent = np.full(7, 2.0), np.zeros(7)
    assert m.sure(first, first + 1.0, sent, gen[:7])  # 12 >= 12


def _workload(seed: int, n: int = 400):
    rng = np.random.default_rng(seed)
    arrival = np.cumsum(rng.exponential(0.05, n))
    return arrival, rng.integers(50, 400, n), rng.integers(2, 60, n)


@pytest.mark.parametrize("seed", range(6))
def test_a_stopped_run_missed_and_a_complete_one_is_the_same(seed):
    # 4 groups of a small pool; limits around the run's own p99s, so some runs stop
    arrival, prompt, gen = _workload(seed)
    lim = Limits(pool_blocks=200, block_size=16, max_batched_tokens=512, max_num_seqs=16)
    step = AffineStepTime(fixed_s=0.01, per_token_s=1e-4, per_ctx_s=1e-6)
    kw = dict(limits=lim, step=step, groups=4, tokens=False)
    full = simulate_requests(arrival, prompt, gen, **kw)
    stopped = 0
    for scale in (0.5, 0.9, 1.0, 1.1, 2.0):
        ttft, tpot = full.ttft_s["p99"] * scale, full.tpot_s["p99"] * 1.5
        cut = simulate_requests(arrival, prompt, gen, miss_limits=(ttft, tpot), **kw)
        if cut is None:
            stopped += 1
            assert full.ttft_s["p99"] > ttft or full.tpot_s["p99"] > tpot
        else:
            assert repr(cut) == repr(full)
            assert cut.ttft_s == full.ttft_s and cut.tpot_s == full.tpot_s
    assert stopped >= 1  # half the run's own p99 TTFT: sure to miss before the last group
