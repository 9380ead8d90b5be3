"""The admission holds replayed event by event in a group's schedule (SGLang's receive interval,
TensorRT-LLM's batch wait: calc.serve.simulate's docstring), worked by hand on tiny schedules,
and the fast loop against the one-by-one reference with the holds on."""

from __future__ import annotations

from dataclasses import replace

import pytest

from calc.deploy.engines.base import AdmissionHold
from calc.serve.iteration import after_decodes, recv_fires
from calc.serve.scheduler import Limits, run_group
from calc.serve.steptime import AffineStepTime
from tests.serve_reference import assert_same_schedule, random_scenario, simulate_group_reference

STEP = AffineStepTime(fixed_s=1.0)  # every iteration 1 s, whatever it holds

# r0 at 0 s (4-token prompt, 10 outputs), r1 at 2.5 s (4-token prompt, 2 outputs)
ARRIVAL, PROMPT, GEN, SHARED = [0.0, 2.5], [4, 4], [10, 2], [0, 0]


def _both(lim: Limits):
    fast = run_group(ARRIVAL, PROMPT, GEN, SHARED, lim, STEP)
    ref = simulate_group_reference(ARRIVAL, PROMPT, GEN, SHARED, lim, STEP)
    for a, b in ((fast.admitted, ref.admitted), (fast.first_token, ref.first_token),
                 (fast.finish, ref.finish)):  # fmt: skip
        assert a == pytest.approx(b)
    assert fast.iterations == ref.iterations
    return fast


def _sglang(interval: int) -> Limits:
    return Limits(pool_blocks=100, block_size=4, max_batched_tokens=100, max_num_seqs=8,
                  prefill_first=True, admission=AdmissionHold(recv_interval=interval))  # fmt: skip


def test_receive_interval_three_by_hand():
    # Interval 1: r0 is read at once (idle), prefilled 0–1 s (first token 1 s), decodes 1–2,
    # 2–3; r1 (2.5 s) is read at the 3 s boundary, prefilled 3–4 s: admitted 3, first token 4.
    one = _both(_sglang(1))
    assert one.admitted == [0.0, 3.0] and one.first_token == [1.0, 4.0]
    # Interval 3: the prefill fires the next read (weight 1000 ≥ 3) at 1 s, the count restarts;
    # decodes end at 2 (count 1), 3 (count 2), 4 (count 3 = N): r1 is read at 4 s, prefilled
    # 4–5 s: admitted 4, first token 5 (TTFT 5 − 2.5 = 2.5 s, 1 s more than at interval 1).
    three = _both(_sglang(3))
    assert three.admitted == [0.0, 4.0] and three.first_token == [1.0, 5.0]
    # r0's 10 tokens: 1, 2, 3, 4, then (r1's prefill 4–5 holds it) 6 … 11: finish 11 s; r1's
    # second token with it at 6 s
    assert three.finish == [11.0, 6.0]


def test_receive_count_arithmetic():
    # count 1 of interval 3: an arrival landing in iteration 1 is read at the end of iteration 2
    # (1 + 2 = 3); in iteration 3, at the end of iteration 5 (1 + 5 = 6)
    assert recv_fires(1, 3, 1) == 2 and recv_fires(1, 3, 3) == 5
    assert recv_fires(0, 3, 3) == 3  # 0 + 3 = 3: that iteration's own end
    # after 5 decodes from count 1: reads at the ends of iterations 2 (count 3 → 0); then 3
    # more: 3, the next loop reads; after 1 decode from 0: 1
    assert after_decodes(1, 3, 5) == 3 and after_decodes(0, 3, 1) == 1
    assert after_decodes(0, 3, 4) == 1  # read after iteration 3 (count 3 → 0), then 1


def _trtllm(iters: int, tokens: float) -> Limits:
    return Limits(pool_blocks=100, block_size=4, max_batched_tokens=100, max_num_seqs=8,
                  reserve_whole_request=True, chunked_prefill=False,
                  admission=AdmissionHold(batch_wait_iters=iters,
                                          batch_wait_tokens=tokens))  # fmt: skip


def test_batch_wait_two_iterations_by_hand():
    # Off: r0 prefilled 0–1 s alone (nothing running: no wait checked), decodes 1–2, 2–3; r1
    # (2.5 s) joins at 3 s beside r0's decode: first token 4 s.
    off = _both(_trtllm(0, 0.0))
    assert off.admitted == [0.0, 3.0] and off.first_token == [1.0, 4.0]
    # T = 2, threshold 5.5 tokens: at 3 s r1's 4 tokens + r0's 1 = 5 < 5.5 and the count 0 < 2:
    # held (count 1), r0 decodes 3–4; at 4 s count 1 < 2: held (count 2), 4–5; at 5 s the
    # count reached 2: r1 goes (count 0), prefilled beside r0's decode 5–6: first token 6 s
    held = _both(_trtllm(2, 5.5))
    assert held.admitted == [0.0, 5.0] and held.first_token == [1.0, 6.0]
    # r0 decodes every iteration throughout: its 10 tokens at 1 … 10 s; r1's second at 7 s
    assert held.finish == [10.0, 7.0]
    # threshold 5: 5 tokens reach it, nothing is held
    at = _both(_trtllm(2, 5.0))
    assert at.admitted == [0.0, 3.0] and at.first_token == [1.0, 4.0]


@pytest.mark.parametrize("seed", range(48))
def test_fast_loop_matches_the_reference_with_holds(seed):
    # random small scenarios (calc's equivalence test's), with a receive interval of 2–5 under
    # SGLang's rules and vLLM's, and a batch wait of 1–6 iterations under TensorRT-LLM's
    # whole-request reservation (a threshold from 1 to 300 tokens); every third under a
    # client's concurrency of 1–5
    arrival, prompt, gen, shared, lim, rng = random_scenario(seed)
    if lim.reserve_whole_request:
        hold = AdmissionHold(batch_wait_iters=int(rng.integers(1, 7)),
                             batch_wait_tokens=float(rng.integers(1, 300)))  # fmt: skip
    else:
        hold = AdmissionHold(recv_interval=int(rng.integers(2, 6)))
    lim = replace(lim, admission=hold)
    cap = int(rng.integers(1, 6)) if seed % 3 == 1 else None  # a client's concurrency, some
    step = AffineStepTime(fixed_s=0.01, per_token_s=0.001, per_ctx_s=1e-5)
    a = run_group(arrival, prompt, gen, shared, lim, step, cap)
    b = simulate_group_reference(arrival, prompt, gen, shared, lim, step, cap)
    assert_same_schedule(a, b)


@pytest.mark.parametrize("seed", [0, 2, 5, 9])
def test_holds_only_delay(seed):
    # a receive interval of 4 holds requests back: over SGLang-rule scenarios the summed wait
    # from arrival to admission is at least that at interval 1 (fails if the reads were
    # skipped, or a read came before its count reached 4)
    arrival, prompt, gen, shared, lim, _ = random_scenario(seed * 4 + 2)  # SGLang's rules
    step = AffineStepTime(fixed_s=0.01, per_token_s=0.001, per_ctx_s=1e-5)
    base = run_group(arrival, prompt, gen, shared, lim, step)
    held = run_group(arrival, prompt, gen, shared,
                     replace(lim, admission=AdmissionHold(recv_interval=4)), step)  # fmt: skip
    wait0 = sum(t - a for t, a in zip(base.admitted, arrival, strict=True))
    wait4 = sum(t - a for t, a in zip(held.admitted, arrival, strict=True))
    assert wait4 >= wait0 - 1e-9
