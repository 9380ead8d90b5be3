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


def _gather(engine, weight_dtype, hw="h200"):
    engine = EngineSettings(name=engine)
    dep = Deployment.build(load_model("qwen3-235b-a22b"), load_hardware(hw), ep=8,
                           weight_dtype=weight_dtype, engine=engine)  # fmt: skip
    return next(o for o in step_of(dep, batch=64, ctx=1024).raw if o.name == "ep_gather_scatter")


def test_what_tensorrt_llm_gathers_follows_the_experts_format():
    # Qwen3-235B-A22B (config.json: hidden_size 4,096, num_experts_per_tok 8), 64 tokens in
    # the step over 8 attention-DP ranks, every token gathered to every GPU. TensorRT-LLM 1.0's
    # CUTLASS MoE (fused_moe_cutlass.py forward_chunk) all-gathers, in one call, the
    # activations and beside each token its 8 routes (int32 expert id + fp32 weight: 8 B each,
    # 64 × 8 × 8 = 4,096 B), and reduce-scatters the bf16 output (64 × 4,096 × 2 = 524,288 B).
    routes, out = 64 * 8 * 8, 64 * 4096 * 2
    # per-tensor fp8: quantised before the gather, 1 B an element, no per-token scale:
    # 64 × 4,096 × 1 + 4,096 = 266,240 B
    assert _gather("trtllm", "fp8-tensor").phase_bytes == pytest.approx((266_240, out))
    assert 64 * 4096 + routes == 266_240
    # NVFP4: half a byte and one fp8 scale per 16 elements: 64 × 4,096 × 0.5625 + 4,096 =
    # 147,456 + 4,096 = 151,552 B
    assert _gather("trtllm", "nvfp4", "b200").phase_bytes == pytest.approx((151_552, out))
    # fp8 with 128-wide block scales is quantised inside the fused op: the bf16 hidden states,
    # 524,288 + 4,096 = 528,384 B
    assert _gather("trtllm", "fp8-block128").phase_bytes == pytest.approx((528_384, out))
    # MXFP4 experts on Blackwell (W4A8): MXFP8 before the gather, 1 B and an e8m0 scale per
    # 32: 64 × 4,096 × 1.03125 + 4,096 = 270,336 + 4,096 = 274,432 B
    assert _gather("trtllm", "mxfp4", "b200").phase_bytes == pytest.approx((274_432, out))
    # vLLM's allgather_reducescatter moves the bf16 hidden states both ways, nothing beside
    assert _gather("vllm", "fp8-tensor").phase_bytes == pytest.approx((out, out))
