"""Host time of the engines (calc/deploy/host_costs.py) and the fused-MoE pipeline and default
imbalance (calc/deploy/moe_pipeline.py): sourced data, looked up by engine, version and
front-end."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import host_costs, moe_kernels
from calc.deploy.host_costs import NONE, VersionRange
from calc.deploy.moe_pipeline import DEFAULT_EP_IMBALANCE, default_moe_imbalance
from calc.deploy.steps import step_of
from calc.errors import InvalidInputError


def test_front_end_time_of_a_request():
    # andyluo7's vLLM 0.19.0 single-request HTTP overhead: 7 / 15 / 47 / 131 ms at 1K / 8K /
    # 32K / 100K tokens; the line through them: 5.7 ms + 1.25 us per token
    api = host_costs("vllm", frontend="api")
    assert api.request_host_s(1000) == pytest.approx(5.7e-3 + 1000 * 1.25e-6)  # 6.95 ms
    assert api.request_host_s(100_000) == pytest.approx(5.7e-3 + 0.125)  # 130.7 ms
    assert host_costs("vllm", frontend="offline").request_host_s(100_000) == 0


def test_step_host_time_per_engine_and_front_end():
    for engine in ("vllm", "sglang", "trtllm"):
        api, off = host_costs(engine), host_costs(engine, frontend="offline")
        assert api.per_step_s == off.per_step_s  # the engine's own step
        assert off.per_sequence_s == 0  # nothing streamed offline
        # per_step + per_sequence × n
        assert api.step_host_s(10) == pytest.approx(api.per_step_s + 10 * api.per_sequence_s)
    # vLLM's API server is a process apart: no per-sequence streaming in the engine's step
    assert host_costs("vllm").per_sequence_s == 0
    assert NONE.step_host_s(100) == 0 and NONE.request_host_s(1000) == 0


def test_unknown_front_end_is_one_clear_error():
    with pytest.raises(InvalidInputError, match="front-end 'grpc' is not one of: api, offline"):
        host_costs("vllm", frontend="grpc")


def test_version_ranges_compare_numerically():
    r = VersionRange("0.8", "0.11")
    assert r.holds("0.10.2") and r.holds("0.8.0") and not r.holds("0.11") and not r.holds("0.7")
    assert not r.holds(None)  # None: the latest release, held by an open-ended range only
    assert VersionRange("0.11").holds(None) and VersionRange("1.0.0rc1").holds("1.2.0")


def test_moe_pipeline_kernels_per_engine():
    # vLLM's fused_experts_impl: top-k, align, gemm1, activation, gemm2, moe_sum = 6; + 2
    # activation quantisations for fp8 / fp4 activations = 8; TensorRT-LLM fuses them: 6
    assert moe_kernels("vllm", "bf16") == 6 and moe_kernels("vllm", "fp8-block128") == 8
    assert moe_kernels("sglang", "nvfp4") == 8
    assert moe_kernels("trtllm", "fp8-tensor") == moe_kernels("trtllm", "bf16") == 6


def test_moe_op_counts_the_pipeline_where_no_curve_times_it():
    # mi300x has no kernel curves: mixtral's MoE layer pays 6 kernels per layer under vLLM
    dep = Deployment.build(load_model("mixtral-8x7b"), load_hardware("mi300x"), tp=2)
    op = next(o for o in step_of(dep, batch=4, ctx=512).raw if o.name == "routed_experts")
    assert op.kernels == 6 * 32  # 32 MoE layers


def test_default_imbalance_under_expert_parallelism():
    # LMSYS EP32: 59,337 / 50,302 = 1.18 (perfect EPLB over the default distribution)
    assert DEFAULT_EP_IMBALANCE == pytest.approx(59_337 / 50_302, abs=0.005)
    assert default_moe_imbalance(1) == 1.0
    assert default_moe_imbalance(8) == pytest.approx(1.18)
    cfg = load_model("deepseek-v3")
    assert Deployment.build(cfg, load_hardware("h200"), ep=8).moe_imbalance == pytest.approx(1.18)
    assert Deployment.build(cfg, load_hardware("h200"), tp=8).moe_imbalance == 1.0
    stated = Deployment.build(cfg, load_hardware("h200"), ep=8, moe_imbalance=1.0)
    assert stated.moe_imbalance == 1.0


def test_engine_settings_pick_the_host_costs_of_the_simulation():
    from calc.serve.steptime import step_table

    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"),
                           engine=EngineSettings(name="sglang"))  # fmt: skip
    tab = step_table(dep, max_ctx=1024)
    assert tab.host == host_costs("sglang", dep.engine_config.version)  # the release it runs
