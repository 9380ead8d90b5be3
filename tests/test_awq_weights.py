"""AWQ checkpoints' weights as vLLM loads them: the checkpoint's tensors (qweight, qzeros,
scales) byte for byte, and Machete's 16-bit zero points on Hopper from vLLM 0.19."""

from __future__ import annotations

import pytest

import calc.deploy.engines.vllm.memory as vm
from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.vllm import pool
from calc.formulas.quant import matrix_bytes


def _dep(hw: str, version: str, weight_dtype: str = "int4-g128") -> Deployment:
    return Deployment.build(
        load_model("qwen2.5-7b"), load_hardware(hw), weight_dtype=weight_dtype,
        engine=EngineSettings(name="vllm", version=version),
    )  # fmt: skip


def test_awq_matrix_is_qweight_qzeros_and_scales():
    # Qwen2.5-7B's merged gate_up (in 3,584, out 2 × 18,944 = 37,888), group 128 (28 groups):
    # qweight [3,584, 37,888 / 8] int32 = 3,584 × 4,736 × 4 = 67,895,296 B
    # qzeros  [28, 37,888 / 8] int32     = 28 × 4,736 × 4    =    530,432 B
    # scales  [28, 37,888] fp16          = 28 × 37,888 × 2   =  2,121,728 B
    assert matrix_bytes(37_888, 3_584, "int4-g128") == 67_895_296 + 530_432 + 2_121_728


def test_machete_zero_points_of_one_matrix():
    # the same matrix on Hopper: 28 × 37,888 zero points go from 0.5 B to 2 B:
    # 1,060,864 × 1.5 = 1,591,296 B
    assert vm.machete_zero_point_bytes(3_584 * 37_888, 128, 0.5) == 1_591_296


def test_qwen25_7b_awq_loaded_weights_marlin_and_machete():
    # linear layers per layer: q/k/v 3,584 × (3,584 + 2 × 512) + bias 4,608 + o 3,584² +
    # gate/up/down 3 × 3,584 × 18,944 = 16,515,072 + 4,608 + 12,845,056 + 203,685,888
    # = 233,050,624; × 28 layers = 6,525,417,472 at 0.5 + 2.5 / 128 B = 3,390,158,296 B;
    # embedding + lm_head (untied) 2 × 152,064 × 3,584 × 2 B = 2,179,989,504 B;
    # norms (2 × 28 + 1) × 3,584 × 2 B = 408,576 B: 5,570,556,376 B (5.19 GiB)
    marlin = 3_390_158_296 + 2_179_989_504 + 408_576
    assert marlin == 5_570_556_376
    l4 = _dep("l4", "0.30.0")
    assert l4.per_gpu.prediction.weights_bytes == marlin  # AWQ-Marlin keeps the bytes
    # Hopper, 0.30.0: Machete, + 6,525,417,472 / 128 × 1.5 = 76,469,736 B
    h200 = _dep("h200", "0.30.0")
    assert pool.machete_zero_point_bytes(h200) == 76_469_736
    assert h200.per_gpu.prediction.weights_bytes == marlin + 76_469_736
    # 0.18.0 repacked AWQ for Marlin on every GPU (awq_marlin_repack): no change
    assert _dep("h200", "0.18.0").per_gpu.prediction.weights_bytes == marlin


@pytest.mark.parametrize("fmt", ["int4-g128-sym", "int4-g32", "fp8-tensor"])
def test_machete_adds_nothing_without_zero_points_or_its_group(fmt):
    # GPTQ-sym has no zero points; Machete takes groups 64 and 128 only (16-bit activations),
    # so int4-g32 stays on Marlin; fp8 is not an MPLinear format
    assert pool.machete_zero_point_bytes(_dep("h200", "0.30.0", fmt)) == 0.0
