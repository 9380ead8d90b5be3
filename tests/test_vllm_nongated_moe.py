"""vLLM 0.16.0 runs non-gated per-tensor fp8 experts (Nemotron-H's relu2) on FlashInfer's CUTLASS
MoE, which trtllm-gen cannot replace (gated SiLU only): timed by the engine's own curve of those
rows, ``moe@vllm.fp8_cutlass``, where the profile has it (issue 20, nemoload round; the rule now
in calc/deploy/engines/vllm/moe_backend.py, vllmmoerule round)."""

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import engine
from calc.deploy.moe_pipeline import CUTLASS_MOE, VLLM_FUSED_MOE
from calc.deploy.rates import curve_of
from calc.deploy.steps import step_of


def _dep(model, hardware, version, engine_name="vllm", weight_dtype="fp8-tensor"):
    cfg, hw = load_model(model), load_hardware(hardware)
    return Deployment.build(cfg, hw, tp=2, weight_dtype=weight_dtype,
                            engine=EngineSettings(name=engine_name, version=version))  # fmt: skip


def _routed(dep, **counts):
    step = step_of(dep, **counts)
    i = next(i for i, op in enumerate(step.raw) if op.name == "routed_experts")
    name, _ = curve_of(step.raw[i], step.rates)
    return name, float(step.ops[i].time_s)


def test_backend_curve_by_gate_format_and_release():
    # the engine's rule (calc/deploy/engines/vllm/moe_backend.py): non-gated per-tensor fp8
    # experts at 0.16.0 on SM 10.x run FlashInfer CUTLASS, timed by its own curve
    r = engine("vllm").moe_runner(_dep("nemotron-3-nano-30b-a3b", "b200", "0.16.0"))
    assert (r.name, r.curve, r.stand_in) == ("flashinfer_cutlass", "fp8_cutlass", False)
    # 0.17.0 on: trtllm-gen takes ReLU² (experts/trtllm_fp8_moe.py RELU2_NO_MUL): the format's
    r = engine("vllm").moe_runner(_dep("nemotron-3-nano-30b-a3b", "b200", "0.17.0"))
    assert (r.name, r.curve) == ("flashinfer_trtllm", None)
    # gated experts run trtllm-gen: the format's own curve
    gated = engine("vllm").moe_runner(_dep("qwen3-30b-a3b", "b200", "0.16.0"))
    assert (gated.name, gated.curve) == ("flashinfer_trtllm", None)
    # releases before the one read: no rule, the format's curve as before
    assert engine("vllm").moe_runner(_dep("nemotron-3-nano-30b-a3b", "b200", "0.15.1")) is None
    # the other engines' pipelines state no such curve
    assert engine("trtllm").moe_runner(_dep("nemotron-3-nano-30b-a3b", "b200", None,
                                            "trtllm")) is None  # fmt: skip
    assert CUTLASS_MOE.backends and VLLM_FUSED_MOE.backends


def test_nemotron_routed_experts_on_the_cutlass_curve_at_batch_1():
    name, t = _routed(_dep("nemotron-3-nano-30b-a3b", "b200", "0.16.0"), batch=1, ctx=2560)
    assert name == "moe@vllm.fp8_cutlass"
    # 23 MoE layers, one token, top-6 of 128 experts of 2,688 × 1,856 (928 a GPU at TP 2), two
    # matrices (up, down), fp8; b200.yaml's fp8_cutlass curve:
    #   fixed       23 × 0.665 × 36.25 µs                                   = 554.4 µs
    #   routes      23 × 6 × 2,688 × 1.968e-12 s                            =   0.7 µs
    #   experts     23 × 6 × 0.2655 µs                                      =  36.6 µs
    #   compute     23 × 2·2·6·2,688·928 FLOP × 16 (rows padded) / (4.5e15 × 0.2816) = 17.4 µs
    #   memory      23 × 6 × 2·2,688·928 B (+ routed activations) / (7.7e12 × 0.8303) = 107.9 µs
    #   soft max    (17.4² + 107.9²)^½ = 109.3 µs;  total 554.4 + 0.7 + 36.6 + 109.3 = 701.0 µs
    assert t == pytest.approx(701.0e-6, rel=0.005)


def test_cutlass_curve_is_slower_than_the_pooled_one_and_others_keep_theirs():
    new_name, new = _routed(_dep("nemotron-3-nano-30b-a3b", "b200", "0.16.0"), batch=64,
                            ctx=2304)  # fmt: skip
    old_name, old = _routed(_dep("nemotron-3-nano-30b-a3b", "b200", "0.15.1"), batch=64,
                            ctx=2304)  # fmt: skip
    assert (new_name, old_name) == ("moe@vllm.fp8_cutlass", "moe@vllm.fp8")
    # at 64 tokens 3.58 ms against the pooled curve's 2.59 ms (1.38 ×, bench/nemotron_step_parts.py)
    assert new / old == pytest.approx(1.384, rel=0.01)
    # a gated per-tensor fp8 MoE under the same release keeps the format's curve
    gated, _ = _routed(_dep("qwen3-30b-a3b", "b200", "0.16.0"), batch=64, ctx=2304)
    assert gated == "moe@vllm.fp8"
    # a GPU whose profile has no CUTLASS curve falls back to the format's
    h100, _ = _routed(_dep("nemotron-3-nano-30b-a3b", "h100", "0.16.0"), batch=64, ctx=2304)
    assert h100 == "moe@vllm.fp8"
    # the other Blackwell profiles carry their own CUTLASS curve
    gb200, _ = _routed(_dep("nemotron-3-nano-30b-a3b", "gb200", "0.16.0"), batch=64, ctx=2304)
    assert gb200 == "moe@vllm.fp8_cutlass"
    # SGLang's Nemotron keeps its own
    sg, _ = _routed(_dep("nemotron-3-nano-30b-a3b", "b200", None, "sglang"), batch=64, ctx=2304)
    assert not sg.endswith("fp8_cutlass")
