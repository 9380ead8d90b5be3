"""vLLM's host time per sequence under pipeline parallelism (calc.deploy.host_costs
``with_pipeline``): what a step and a fit's kept parameters carry."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import engine
from calc.deploy.host_costs import HostCosts, with_pipeline


def test_vllm_pays_its_per_sequence_cost_once_per_stage():
    vllm = engine("vllm")
    # vLLM 0.8.3 under Ray PP: 0.375 ms per sequence per stage -> 0.375 × 2 = 0.75 ms at PP 2,
    # 0.375 × 4 = 1.5 ms at PP 4; without PP, nothing (the API server is a process apart)
    assert vllm.host_costs(None).per_sequence_s == 0
    assert vllm.host_costs(None, pp=2).per_sequence_s == pytest.approx(0.75e-3)
    assert vllm.host_costs(None, pp=4).per_sequence_s == pytest.approx(1.5e-3)
    # offline too: the scheduler output travels stage to stage whatever the front-end
    assert vllm.host_costs(None, "offline", pp=2).per_sequence_s == pytest.approx(0.75e-3)
    # the step time and request time unchanged: 60 µs a step, 5.7 ms a request
    assert vllm.host_costs(None, pp=2).per_step_s == pytest.approx(0.06e-3)
    assert vllm.host_costs(None, pp=2).per_request_s == pytest.approx(5.7e-3)
    # a step of 100 sequences at PP 2: 60 µs + 100 × 0.75 ms = 75.06 ms of host time
    assert vllm.host_costs(None, pp=2).step_host_s(100) == pytest.approx(75.06e-3)
    # the other engines model none: SGLang 0.4.0's 0.10 ms per sequence stays
    assert engine("sglang").host_costs("0.4.0", pp=2).per_sequence_s == pytest.approx(0.10e-3)
    assert engine("trtllm").host_costs(None, pp=2).per_sequence_s == 0


def test_with_pipeline_adds_per_stage_and_says_so():
    base = HostCosts(1e-3, 2e-4, 0.0, 0.0, "x")
    assert with_pipeline(base, 1, 1e-3, "E") is base
    assert with_pipeline(base, 3, 0.0, "E") is base
    got = with_pipeline(base, 3, 1e-4, "E")
    assert got.per_sequence_s == pytest.approx(2e-4 + 3e-4)  # 0.2 ms + 3 × 0.1 ms
    assert "pipeline parallelism" in got.source and got.per_step_s == 1e-3


def test_the_simulation_step_carries_it_under_pp():
    from calc.serve.steptime import step_table

    llama = load_model("llama3-8b")
    h100 = load_hardware("h100")
    pp2 = Deployment.build(llama, h100, pp=2, engine=EngineSettings(name="vllm"))
    pp1 = Deployment.build(llama, h100, engine=EngineSettings(name="vllm"))
    a, b = step_table(pp2, max_ctx=1024), step_table(pp1, max_ctx=1024)
    assert a.host.per_sequence_s == pytest.approx(0.75e-3) and b.host.per_sequence_s == 0
    # a decode step of 10 sequences: 10 × 0.75 ms = 7.5 ms more host time at PP 2
    assert a.decode_s(10) - a.decode_s(9) > b.decode_s(10) - b.decode_s(9) + 0.7e-3


def test_a_fit_says_what_it_kept():
    from calc.reports.score_report import kept_as_modelled

    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"), pp=2,
                           engine=EngineSettings(name="vllm"))  # fmt: skip
    kept = kept_as_modelled(("gemm", "request"), [dep])
    # host_seq left out: the engine's 750 µs a sequence at PP 2, host its 0.06 ms a step
    assert "host_seq as modelled: 750 µs" in kept and "host as modelled: 0.06 ms" in kept
    assert "request" not in kept
    assert kept_as_modelled(("gemm", "host", "host_seq", "request"), [dep]) == "none"
    assert "request 0" in kept_as_modelled(("gemm", "host", "host_seq"), [dep])
