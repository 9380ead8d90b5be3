"""vLLM's host time per sequence under pipeline parallelism (calc.deploy.host_costs
``with_pipeline``), for the releases whose PP ran the V0 engine: what a step and a fit's kept
parameters carry."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import engine
from calc.deploy.host_costs import HostCosts, with_pipeline


def test_vllm_pays_its_per_sequence_cost_once_per_stage():
    vllm = engine("vllm")
    # under PP on V0 (0.8.3 … 0.9.0 fall back to V0 when no executor backend is given):
    # 0.38 ms per sequence per stage, 2 × 0.38 = 0.76 ms at PP 2 (the TP 4 × PP 2 runs' fits
    # beside the step's 2.6 ms, 715 µs over InfiniBand and 803 over Ethernet, their mean
    # 759 µs; issue 20 host round);
    # 4 × 0.38 = 1.52 ms at PP 4
    assert vllm.host_costs("0.8.3", pp=2).per_sequence_s == pytest.approx(0.76e-3)
    assert vllm.host_costs("0.9.0", pp=2).per_sequence_s == pytest.approx(0.76e-3)
    assert vllm.host_costs("0.8.3", pp=4).per_sequence_s == pytest.approx(1.52e-3)
    # offline too: every stage's driver rebuilds its inputs whatever the front-end
    assert vllm.host_costs("0.8.3", "offline", pp=2).per_sequence_s == pytest.approx(0.76e-3)
    # 0.9.1 runs PP on V1 (its arg_utils accepts the default backend): nothing per sequence;
    # from 0.10.0 nothing, with or without PP
    assert vllm.host_costs("0.9.1", pp=2).per_sequence_s == 0
    assert vllm.host_costs("0.10.0", pp=2).per_sequence_s == 0
    assert vllm.host_costs(None).per_sequence_s == 0
    assert vllm.host_costs(None, pp=2).per_sequence_s == 0
    assert vllm.host_costs(None, "offline", pp=4).per_sequence_s == 0
    # the step time that release's own (2.6 ms before 0.10.0), the request time 5.7 ms
    assert vllm.host_costs("0.8.3", pp=2).per_step_s == pytest.approx(2.6e-3)
    assert vllm.host_costs("0.8.3", pp=2).per_request_s == pytest.approx(5.7e-3)
    # a step of 100 sequences at PP 2 under 0.8.3: 2.6 ms + 100 × 0.76 ms = 78.6 ms of host time
    assert vllm.host_costs("0.8.3", pp=2).step_host_s(100) == pytest.approx(78.6e-3)
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

    def dep(pp, version):
        return Deployment.build(llama, h100, pp=pp,
                                engine=EngineSettings(name="vllm", version=version))  # fmt: skip

    v0, v0_pp1, v1 = dep(2, "0.8.3"), dep(1, "0.8.3"), dep(2, "0.10.0")
    a, b, c = (step_table(d, max_ctx=1024) for d in (v0, v0_pp1, v1))
    # 0.8.3: 2 × 0.38 = 0.76 ms a sequence at PP 2, none without; 0.10.0 (V1) at PP 2: none
    assert a.host.per_sequence_s == pytest.approx(0.76e-3)
    assert b.host.per_sequence_s == 0 and c.host.per_sequence_s == 0
    # one more sequence in a decode step: 0.76 ms more host time at PP 2 under V0
    assert a.decode_s(10) - a.decode_s(9) > b.decode_s(10) - b.decode_s(9) + 0.7e-3


def test_a_fit_says_what_it_kept():
    from calc.reports.score_report import kept_as_modelled

    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"), pp=2,
                           engine=EngineSettings(name="vllm", version="0.8.3"))  # fmt: skip
    kept = kept_as_modelled(("gemm", "request"), [dep])
    # host_seq left out: vLLM 0.8.3's 2 × 380 = 760 µs a sequence at PP 2 (its own release's,
    # not the 0.10.0 its memory rules map to), host its 2.6 ms a step
    assert "host_seq as modelled: 760 µs" in kept and "host as modelled: 2.6 ms" in kept
    assert "request" not in kept
    assert kept_as_modelled(("gemm", "host", "host_seq", "request"), [dep]) == "none"
    assert "request 0" in kept_as_modelled(("gemm", "host", "host_seq"), [dep])


def test_vllm_before_0_10_pays_its_host_time_per_step():
    vllm = engine("vllm")
    # vLLM 0.8.3: 2.6 ms a step (the TP 8 runs at 1, 4, 16 requests/s fitted with the
    # A100's measured kernel curves, the step's host time alone free: 2.57 ms, rounded) and
    # nothing per running sequence, behind every front-end: the engine core's, not the API
    # server's
    for frontend in ("api", "offline"):
        for release in ("0.8.3", "0.9.2"):
            assert vllm.host_costs(release, frontend).per_step_s == pytest.approx(2.6e-3)
            assert vllm.host_costs(release, frontend).per_sequence_s == 0
        # 0.10.0 and later: the silicon sample's fit, 60 µs a step
        assert vllm.host_costs("0.10.0", frontend).per_step_s == pytest.approx(0.06e-3)
    # a decode step of 43 sequences (the 16/s run's mean in flight) under 0.8.3: 2.6 ms of
    # host time whatever the batch, where 0.10.0 has 60 µs
    assert vllm.host_costs("0.8.3").step_host_s(43) == pytest.approx(2.6e-3)
    assert vllm.host_costs("0.10.0").step_host_s(43) == pytest.approx(0.06e-3)
    # the source says where each figure comes from
    assert "01_tp8_pp1" in vllm.host_costs("0.8.3").source
    assert "f287d8b" in vllm.host_costs("0.10.0").source


def test_a_run_keeps_the_host_time_of_the_release_it_names():
    from calc.serve.steptime import step_table

    llama = load_model("llama3-8b")
    h100 = load_hardware("h100")
    old = Deployment.build(llama, h100, engine=EngineSettings(name="vllm", version="0.8.3"))
    new = Deployment.build(llama, h100, engine=EngineSettings(name="vllm", version="0.10.0"))
    # 0.8.3 is not modelled: its memory rules are 0.10.0's, its host time its own
    assert old.engine_config.version == "0.10.0" and old.engine_config.host_release == "0.8.3"
    assert new.engine_config.host_release == "0.10.0"
    # a modelled release asked by prefix keeps the modelled one: "0.10" names 0.10.x
    pre = Deployment.build(llama, h100, engine=EngineSettings(name="vllm", version="0.10"))
    assert pre.engine_config.host_release == pre.engine_config.version
    a, b = step_table(old, max_ctx=1024), step_table(new, max_ctx=1024)
    assert a.host.per_step_s == pytest.approx(2.6e-3) and b.host.per_step_s == pytest.approx(6e-5)
    # every decode step 2.6 − 0.06 = 2.54 ms longer under 0.8.3, whatever the batch
    for n in (1, 9, 10):
        assert a.decode_s(n) - b.decode_s(n) == pytest.approx(2.54e-3)


def test_with_core_adds_its_rows_value_and_says_so():
    from calc.deploy.host_costs import VersionRange, core_sequence_s, with_core

    rows = ((VersionRange(high="0.10.0"), 1e-4),)
    # the first row whose range holds the release; none: 0 (the newest release, None, too)
    assert core_sequence_s(rows, "0.8.3") == 1e-4
    assert core_sequence_s(rows, "0.10.0") == 0.0 and core_sequence_s(rows, None) == 0.0
    base = HostCosts(1e-3, 2e-4, 0.0, 0.0, "x")
    assert with_core(base, 0.0, "E", "1.0") is base
    got = with_core(base, 1e-4, "E", "0.8.3")
    assert got.per_sequence_s == pytest.approx(3e-4)  # 0.2 ms + 0.1 ms
    assert got.per_step_s == 1e-3 and "E 0.8.3 engine core: 100 µs" in got.source
