"""A request's first token under vLLM's async scheduling: the step it joins (issue 20, ttftgap
round; docs/step-time.md)."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.serve.simulate import Limits, deployment_limits, simulate_requests
from calc.serve.steptime import AffineStepTime


def _limits(version: str) -> Limits:
    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"),
                           engine=EngineSettings(name="vllm", version=version))
    return deployment_limits(dep, 1000)


@pytest.mark.parametrize(("version", "ahead"), [
    ("0.13.0", False),  # config/scheduler.py: async_scheduling: bool = False
    ("0.14.0", True),  # async_scheduling None → True in VllmConfig.__post_init__
    ("0.16.0", True),
])  # fmt: skip
def test_vllm_schedules_ahead_from_its_async_default(version, ahead):
    assert _limits(version).schedule_ahead is ahead


def test_vllm_async_scheduling_joins_a_mixed_step_one_later():
    # vLLM's mixed batches, 1 s an iteration, a large pool; r0 at 0 s (prompt 10, gen 5), r1
    # at 1.5 s (prompt 10, gen 2), both prompts within the token budget.
    # Synchronous: r0 prefilled 0 → 1 (first token at 1), decodes 1 → 2; r1 arrives during
    #   it and is scheduled at 2: its prompt beside r0's decode 2 → 3 (TTFT 3 − 1.5 = 1.5),
    #   its 2nd token 3 → 4 (E2E 2.5); r0's tokens at 1 … 5 (E2E 5).
    # Async (a batch queue of 2: step k + 1 is scheduled when step k is launched): the step
    #   2 → 3 was scheduled at 1, without r1; r1's prompt runs 3 → 4 (TTFT 2.5), its 2nd token
    #   4 → 5 (E2E 3.5); r0 decodes every step: E2E 5 either way.
    kw = dict(pool_blocks=1000, block_size=1, max_batched_tokens=64, max_num_seqs=10)
    args = ([0.0, 1.5], [10, 10], [5, 2])
    sync = simulate_requests(*args, limits=Limits(**kw), step=AffineStepTime(1.0))
    ahead = simulate_requests(*args, limits=Limits(**kw, schedule_ahead=True),
                              step=AffineStepTime(1.0))
    assert sync.ttft_each_s == pytest.approx([1.0, 1.5])
    assert sync.e2e_each_s == pytest.approx([5.0, 2.5])
    assert ahead.ttft_each_s == pytest.approx([1.0, 2.5])
    assert ahead.e2e_each_s == pytest.approx([5.0, 3.5])
