"""Expert-parallel traffic as each engine runs it (calc/deploy/moe_pipeline.py ep_comm_of,
calc/deploy/ops.py): the gather by default, an all-to-all where the engine runs one."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.moe_pipeline import CUTLASS_MOE, TRITON_FUSED_MOE, ep_comm_of
from calc.deploy.steps import step_of
from calc.errors import InvalidInputError


def test_each_engines_default_traffic_under_attention_data_parallel():
    # vLLM (all2all_backend allgather_reducescatter) and SGLang (the DP-attention gather)
    # gather on any GPU; TensorRT-LLM gathers on an HGX board (8 GPUs) and runs its NVLink
    # all-to-all over a multi-node NVLink domain (NVL72)
    assert ep_comm_of(TRITON_FUSED_MOE, 8) == ep_comm_of(TRITON_FUSED_MOE, 72) == "gather"
    assert ep_comm_of(CUTLASS_MOE, 8) == "gather"
    assert ep_comm_of(CUTLASS_MOE, 72) == "mnnvl"
    assert ep_comm_of(CUTLASS_MOE, None) == "gather"
    # what the user states wins
    assert ep_comm_of(TRITON_FUSED_MOE, 8, "deepep") == "deepep"
    assert ep_comm_of(CUTLASS_MOE, 72, "gather") == "gather"


def _ops(engine, hw="h200", **kw):
    dep = Deployment.build(load_model("qwen3-235b-a22b"), load_hardware(hw), ep=8,
                           engine=EngineSettings(name=engine, **kw))  # fmt: skip
    return {o.name: o for o in step_of(dep, batch=64, ctx=1024).raw}


def test_the_op_follows_the_traffic():
    assert "ep_gather_scatter" in _ops("sglang") and "ep_all_to_all" not in _ops("sglang")
    told = _ops("sglang", moe_a2a="deepep")
    assert "ep_all_to_all" in told and told["ep_all_to_all"].comm == "deepep"
    assert _ops("trtllm", "gb200")["ep_all_to_all"].comm == "mnnvl"
    # tp = ep (no attention data parallel): no gather, no all-to-all; the experts' partial
    # outputs join the layer's all-reduce
    dep = Deployment.build(load_model("qwen3-235b-a22b"), load_hardware("h200"), tp=8, ep=8)
    names = {o.name for o in step_of(dep, batch=64, ctx=1024).raw}
    assert "tp_allreduce" in names
    assert not names & {"ep_gather_scatter", "ep_all_to_all"}


def test_a_stated_traffic_kvcalc_does_not_know_is_one_clear_error():
    with pytest.raises(InvalidInputError, match=r"--moe-a2a 'nccl' is not one of: gather, deepep"):
        EngineSettings(moe_a2a="nccl")
