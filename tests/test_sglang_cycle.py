"""The serving simulation's cycle on SGLang's hybrid rows taken apart (issue 20, sg27cycle round;
bench/sglang_cycle.py): the cohort schedule's cycle and TPOT and their inversion, by hand; the
decomposition of a held-out 27B row adds up and the inversion recovers the simulation's own
prefill pass and decode step. A diagnostic: nothing here is fitted."""

from __future__ import annotations

import pytest

from tests.scripts import load_script


@pytest.fixture(scope="module")
def cyc():
    return load_script("bench/sglang_cycle.py")


def test_cohort_rates_by_hand(cyc):
    # b 4 requests, 1 prompt a pass, P 0.5 s, D 0.02 s, osl 11 (10 decode steps):
    # cycle = 0.5 + 10 × 0.02 / 4 = 0.55 s; TPOT = ((4 − 1) / 2 × 0.5 + 10 × 0.02) / 10
    # = (0.75 + 0.2) / 10 = 0.095 s
    cycle, tpot = cyc.cohort_rates(4, 1, 0.5, 0.02, 11)
    assert cycle == pytest.approx(0.55, rel=1e-12)
    assert tpot == pytest.approx(0.095, rel=1e-12)
    # 2 prompts a pass: the passes after a request's own in its cohort halve:
    # TPOT = ((4 − 2) / 2 × 0.5 + 0.2) / 10 = 0.07 s; the cycle is the same 0.55 s
    cycle2, tpot2 = cyc.cohort_rates(4, 2, 0.5, 0.02, 11)
    assert cycle2 == pytest.approx(0.55, rel=1e-12)
    assert tpot2 == pytest.approx(0.07, rel=1e-12)


def test_cohort_inversion_by_hand(cyc):
    # P = 2 (b c − (osl − 1) TPOT) / (b + g) = 2 (4 × 0.55 − 10 × 0.095) / 5 = 2 × 1.25 / 5 = 0.5 s
    assert cyc.cohort_prefill_s(4, 1, 0.55, 0.095, 11) == pytest.approx(0.5, rel=1e-12)
    # g 2: 2 (2.2 − 10 × 0.07) / 6 = 2 × 1.5 / 6 = 0.5 s
    assert cyc.cohort_prefill_s(4, 2, 0.55, 0.07, 11) == pytest.approx(0.5, rel=1e-12)
    # D = b (c − P) / (osl − 1) = 4 × 0.05 / 10 = 0.02 s
    assert cyc.cohort_decode_s(4, 0.55, 0.5, 11) == pytest.approx(0.02, rel=1e-12)


def test_recovers_within_the_self_check(cyc):
    # 0.95 / 1 and 1.08 / 1: within 10%; 1.11 / 1: not
    assert cyc.recovers((0.95, 1.08), (1.0, 1.0))
    assert not cyc.recovers((0.95, 1.11), (1.0, 1.0))


def test_timed_iterations_restores_the_policy(cyc):
    import calc.serve.policies as pol

    chunk, stretch = pol.chunk_iteration, pol.decode_stretch
    with cyc.timed_iterations(cyc.Busy()):
        assert pol.chunk_iteration is not chunk
    assert pol.chunk_iteration is chunk and pol.decode_stretch is stretch


def test_h200_bf16_row_adds_up_and_inverts(cyc):
    run = next(r for r in cyc.newruns().runs()
               if r.id == "sgl-qwen3.5-27b-bf16-h200-tp1-c1024")  # fmt: skip
    c = cyc.cycle_of(run)
    # every output token but each request's first is a decode token: 2,048 × 1,023
    assert c.busy.decode_tokens == 2048 * 1023
    # every prompt of 8,192 takes one pass at the H200's 8,192-token chunk
    assert c.busy.prefill_passes == 2048
    # the closed-loop run idles only before its first pass: the first request's front-end time
    # (calc.deploy.host_costs API_REQUEST_S + API_PROMPT_TOKEN_S × prompt: 5.7 ms + 1.25 µs ×
    # 8,192 = 5.7 + 10.24 = 15.94 ms)
    idle = c.makespan_s - c.busy.prefill_s - c.busy.decode_s
    assert idle == pytest.approx(0.01594, abs=1e-5)
    # the cycle is the GPU time per request: makespan / 2,048 = osl / tokens/s (the run's
    # makespan from its first arrival at 0 s)
    assert c.cycle_s == pytest.approx(c.makespan_s / 2048, rel=1e-3)
    # the cohort inversion of kvcalc's own figures recovers its own P and D at its cap
    p = cyc.cohort_prefill_s(c.cap, c.per_pass, c.cycle_s, c.tpot_s, c.osl)
    d = cyc.cohort_decode_s(c.cap, c.cycle_s, p, c.osl)
    own = (c.busy.prefill_s / c.requests, c.busy.decode_s / c.busy.decode_steps)
    assert cyc.recovers((p, d), own)
