"""The kernels of a MoE layer that vLLM launches beyond kvcalc's FFN count (its shared experts
run eagerly inside ``moe_forward_shared``, calc/deploy/moe_pipeline.py) and the all-reduce of a
layer-wide q/k norm under TP (calc/deploy/ops.py): issue 20, vmoe round."""

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import engine
from calc.deploy.moe_pipeline import CUTLASS_MOE, VLLM_FUSED_MOE
from calc.deploy.steps import step_of


def _ops(dep, **counts):
    return {op.name: op for op in step_of(dep, **counts).raw}


def _nano(version, engine_name="vllm", weight_dtype="fp8-tensor"):
    # Nemotron 3 Nano 30B-A3B FP8 on 2 × B200 (the Vultr runs): 23 MoE layers, one shared expert
    cfg, hw = load_model("nemotron-3-nano-30b-a3b"), load_hardware("b200")
    return Deployment.build(cfg, hw, tp=2, weight_dtype=weight_dtype,
                            engine=EngineSettings(name=engine_name, version=version))  # fmt: skip


def _minimax(tp, engine_name="vllm", model="minimax-m2.5"):
    cfg, hw = load_model(model), load_hardware("h100")
    return Deployment.build(cfg, hw, tp=tp, ep=tp,
                            engine=EngineSettings(name=engine_name, version=None))  # fmt: skip


def test_shared_expert_extra_kernels_by_format_and_release():
    # fp8 with a static per-tensor scale: relu + square (1 beyond the FFN's activation) and
    # QuantFP8.forward_native's 5 kernels before each of the 2 GEMMs: 1 + 2 × 5 = 11
    assert VLLM_FUSED_MOE.shared_extra_kernels("fp8-tensor", "0.16.0") == 11
    assert VLLM_FUSED_MOE.shared_extra_kernels("fp8-tensor", None) == 11  # newest release
    # block-scaled fp8 and nvfp4 quantise in one CUDA kernel: the activation's second only
    assert VLLM_FUSED_MOE.shared_extra_kernels("fp8-block128", "0.18.0") == 1
    assert VLLM_FUSED_MOE.shared_extra_kernels("nvfp4", "0.16.0") == 1
    # 16-bit shared experts run on the aux stream beside the routed ones: nothing charged
    assert VLLM_FUSED_MOE.shared_extra_kernels("bf16", "0.16.0") == 0
    # releases before the one read (0.16.0) are charged as before
    assert VLLM_FUSED_MOE.shared_extra_kernels("fp8-tensor", "0.15.1") == 0
    # TensorRT-LLM's pipeline states none (its own MoE op, not vLLM's custom op)
    assert CUTLASS_MOE.shared_extra_kernels("fp8-tensor", "1.0.0") == 0
    assert engine("sglang").moe.shared_extra_kernels("fp8-tensor", "0.5.16") == 0


def test_nemotron_shared_experts_kernels_in_the_step():
    new = _ops(_nano("0.16.0"), batch=1, ctx=2560)
    old = _ops(_nano("0.15.1"), batch=1, ctx=2560)
    # 23 MoE layers × (3 + 11) = 322 kernels at 0.16.0; 23 × 3 = 69 before
    assert new["shared_experts"].kernels == 322
    assert old["shared_experts"].kernels == 69
    # the routed experts, the router and the rest do not move
    for name in ("routed_experts", "router", "norms", "mamba2_scan"):
        assert new[name].kernels == old[name].kernels
    # SGLang runs the same layer with its own kernels: 23 × 3; vLLM's bf16 checkpoint too
    assert _ops(_nano(None, "sglang"), batch=1, ctx=2560)["shared_experts"].kernels == 69
    assert (
        _ops(_nano("0.16.0", weight_dtype=None), batch=1, ctx=2560)["shared_experts"].kernels == 69
    )


def test_nemotron_shared_experts_time_is_the_fixed_cost_of_the_extra_kernels():
    new, old = step_of(_nano("0.16.0"), batch=1, ctx=2560), step_of(_nano("0.15.1"), batch=1,
                                                                    ctx=2560)  # fmt: skip
    t_new = next(t.time_s for t in new.ops if t.name == "shared_experts")
    t_old = next(t.time_s for t in old.ops if t.name == "shared_experts")
    # 253 = 23 × 11 kernels at the profile's fixed cost per kernel (B200: 1.526 µs): 0.386 ms,
    # and the bytes those kernels move at the memory rate (one token: 23 × (24 × 2,688 + 32 ×
    # 1,856) = 2,849,792 B, 0.44 µs at 0.84 × 7.7 TB/s; the nemoload round)
    eager = 23 * (24 * 2688 + 32 * 1856)
    assert eager == 2_849_792
    expected = 253 * new.rates.kernel_s + eager / new.rates.bytes_per_s
    assert t_new - t_old == pytest.approx(expected, rel=1e-9)
    assert 253 * new.rates.kernel_s == pytest.approx(0.386e-3, rel=0.01)


def test_shared_expert_eager_bytes_by_format_gate_and_release():
    # per-tensor fp8: each eager quantisation moves 27 B an element (2 + 4, 4 + 4, 4 + 4, 4 + 1)
    # where the GEMM curve charges 3: 24 more on the input; on the intermediate 24 and the
    # activation's passes, relu + square 2 × (2 + 2) = 8, silu + mul (2 + 2) + (2 + 2 + 2) = 10
    assert VLLM_FUSED_MOE.shared_extra_bytes("fp8-tensor", False, "0.16.0") == (24.0, 32.0)
    assert VLLM_FUSED_MOE.shared_extra_bytes("fp8", True, None) == (24.0, 34.0)
    # block-fp8 and nvfp4 quantise in one CUDA kernel: the activation's passes only
    assert VLLM_FUSED_MOE.shared_extra_bytes("fp8-block128", True, "0.16.0") == (0.0, 10.0)
    assert VLLM_FUSED_MOE.shared_extra_bytes("nvfp4", False, "0.16.0") == (0.0, 8.0)
    # 16-bit shared experts, releases before 0.16.0, other engines: nothing
    assert VLLM_FUSED_MOE.shared_extra_bytes("bf16", False, "0.16.0") == (0.0, 0.0)
    assert VLLM_FUSED_MOE.shared_extra_bytes("fp8-tensor", False, "0.15.1") == (0.0, 0.0)
    assert CUTLASS_MOE.shared_extra_bytes("fp8-tensor", False, "1.0.0") == (0.0, 0.0)


def test_nemotron_shared_expert_eager_bytes_grow_with_the_tokens():
    ops = _ops(_nano("0.16.0"), batch=290, ctx=2304)
    # 23 layers × 290 tokens × (24 × 2,688 + 32 × 1,856 a GPU at TP 2) = 826,439,680 B
    assert ops["shared_experts"].eager_bytes == 23 * 290 * 123_904 == 826_439_680
    assert _ops(_nano("0.15.1"), batch=290, ctx=2304)["shared_experts"].eager_bytes == 0


def test_layer_qk_norm_all_reduces_its_variances_under_tp():
    # MiniMax-M2.5 at TP 4 / EP 4, 4 sequences: 62 attention layers, each all-reducing 2 fp32
    # variances a token: 62 × 4 × 8 B = 1,984 B in 62 messages of 32 B
    ops = _ops(_minimax(4), batch=4, ctx=2048)
    ar = ops["qk_norm_allreduce"]
    assert (ar.count, ar.bytes, ar.group) == (62, 1_984, 4)
    # the variances' kernel before the collective: 62 × 2 norms + the final one = 125, + 62
    assert ops["norms"].kernels == 187
    # prefill: every prompt token's variances (one prompt of 1,024: 62 × 1,024 × 8 B)
    pre = _ops(_minimax(4), batch=1, prompt=1024)["qk_norm_allreduce"]
    assert pre.bytes == 62 * 1_024 * 8 == 507_904
    # without TP there is nothing to reduce and no split
    one = _ops(_minimax(1), batch=4, ctx=2048)
    assert "qk_norm_allreduce" not in one and one["norms"].kernels == 125
    # SGLang's MiniMax-M2 reduces the same variances (the model's norm, not the engine's)
    assert _ops(_minimax(4, "sglang"), batch=4, ctx=2048)["qk_norm_allreduce"].count == 62


def test_per_head_qk_norm_needs_no_all_reduce():
    # Qwen3's q/k norms are per head (head_dim wide): a head never spans GPUs
    cfg, hw = load_model("qwen3-32b"), load_hardware("h100")
    ops = _ops(Deployment.build(cfg, hw, tp=4), batch=4, ctx=2048)
    assert "qk_norm_allreduce" not in ops
    assert ops["norms"].kernels == 64 * 2 + 1  # 64 layers × 2 norms + the final norm


def test_qk_norm_all_reduce_is_timed_by_the_all_reduce_curve():
    step = step_of(_minimax(4), batch=4, ctx=2048)
    t = {o.name: o.time_s for o in step.ops}
    # 62 tiny messages: each at least the curve's latency, all together well under the 124
    # layer all-reduces of 24,576 B (0.600 ms)
    assert 0 < t["qk_norm_allreduce"] < t["tp_allreduce"]
    assert t["qk_norm_allreduce"] / 62 == pytest.approx(4.6e-6, rel=0.05)
