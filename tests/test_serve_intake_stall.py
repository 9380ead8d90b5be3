"""An engine in the API front-end's own process (vLLM's V0 engine under PP) makes no progress
while the front-end takes a burst in: when that busy period ends, which releases run so, and
a hand-worked burst through the simulation (calc/serve/simulate.py, calc/serve/iteration.py)."""

import numpy as np
import pytest

from calc.deploy.engines.sglang import SGLang
from calc.deploy.engines.vllm import VLLM
from calc.serve.front_end import entry_times_s
from calc.serve.scheduler import Limits
from calc.serve.simulate import burst_intake_end_s, simulate_requests
from calc.serve.steptime import AffineStepTime


def test_burst_intake_end_by_hand():
    # three sent at once, 1 ms of intake each: taken in at 0, 1, 2 ms (the first at once:
    # entry_times_s with no latency), each sent by the time the one ahead was taken in: 2 ms
    a = np.zeros(3)
    assert burst_intake_end_s(a, entry_times_s(a, 0.0, 1e-3)) == pytest.approx(2e-3)
    # 1 s apart: the second was not sent when the first was taken in: the first's own, 0 s
    a = np.array([0.0, 1.0, 2.0])
    assert burst_intake_end_s(a, entry_times_s(a, 0.0, 1e-3)) == 0.0
    # two at once then one at 0.5 s: the busy period ends with the second, at 1 ms
    a = np.array([0.0, 0.0, 0.5])
    assert burst_intake_end_s(a, entry_times_s(a, 0.0, 1e-3)) == pytest.approx(1e-3)
    # no intake modelled: never paused
    assert burst_intake_end_s(a, None) == 0.0


def test_which_releases_run_the_engine_in_the_front_end():
    # vLLM's V0 fallback under PP (0.8.3 … 0.9.0: no MQLLMEngine at pp > 1); V1 from 0.9.1
    assert VLLM().front_end_in_engine("0.8.3", 2)
    assert VLLM().front_end_in_engine("0.9.0", 4)
    assert not VLLM().front_end_in_engine("0.8.3", 1)  # without PP: MQLLMEngine, a process apart
    assert not VLLM().front_end_in_engine("0.9.1", 2)
    assert not VLLM().front_end_in_engine(None, 2)  # the latest release
    assert not SGLang().front_end_in_engine("0.4.0", 2)


def _ttft(stalls: bool):
    # four requests sent at once (10-token prompts, 2 output tokens), 1 ms of intake each,
    # one group, 10 ms an iteration whatever it holds
    lim = Limits(pool_blocks=100, block_size=16, max_batched_tokens=64, max_num_seqs=8,
                 intake_stalls_engine=stalls)  # fmt: skip
    res = simulate_requests(np.zeros(4), np.full(4, 10), np.full(4, 2), limits=lim,
                            step=AffineStepTime(fixed_s=0.010), intake_s=1e-3)  # fmt: skip
    return res.ttft_each_s


def test_a_burst_held_by_its_intake():
    # taken in at 0, 1, 2, 3 ms; the first iteration starts at 0 with request 0 alone.
    # Apart (V1): it ends at 10 ms, request 0's first token handed out at 10 + 1 = 11 ms; the
    # other three (in by 3 ms) prefill in the next iteration, 10 … 20 ms, handed out one per
    # ms: 21, 22, 23 ms
    assert _ttft(False) == pytest.approx([0.011, 0.021, 0.022, 0.023])
    # in the front-end's process (V0 under PP): the first iteration's 10 ms start only when
    # the intake ends at 3 ms: 13 ms, handed out at 14; the next 13 … 23 ms: 24, 25, 26 ms
    assert _ttft(True) == pytest.approx([0.014, 0.024, 0.025, 0.026])
