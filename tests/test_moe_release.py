"""TensorRT-LLM's fused MoE at release 1.0 against the 1.3.0rc20 tables the curves are fitted to
(calc/deploy/moe_pipeline.py TRTLLM_MOE_RELEASE_SCALE, MoePipeline.scale_at; applied to the
engine's own MoE curve in calc/deploy/rates.py)."""

from __future__ import annotations

import statistics

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.moe_pipeline import CUTLASS_MOE, TRITON_FUSED_MOE, TRTLLM_MOE_RELEASE_SCALE
from calc.deploy.rates import curve_of, op_time
from calc.deploy.steps import step_of


def test_the_release_ratio_is_the_median_of_the_measured_gpu_format_medians():
    # tools/moe_release_ratio.py on aiconfigurator 0.7.0's TensorRT-LLM 1.0.0rc3 (H100, H200)
    # and 1.0.0rc6 (B200, GB200) MoE tables over aiconfigurator-core 0.12.0's 1.3.0rc20 ones,
    # same shapes and routing, >= 64 tokens: each GPU-format pair's median old / new
    pairs = {
        ("b200", "bf16"): 1.179, ("b200", "fp8"): 1.214, ("b200", "nvfp4"): 1.160,
        ("gb200", "bf16"): 1.208, ("gb200", "fp8"): 1.251, ("gb200", "nvfp4"): 1.244,
        ("h100", "bf16"): 1.142, ("h100", "fp8"): 1.203, ("h100", "fp8_block"): 1.079,
        ("h200", "bf16"): 1.167, ("h200", "fp8"): 1.230, ("h200", "fp8_block"): 1.115,
    }  # fmt: skip
    # sorted: 1.079 1.115 1.142 1.160 1.167 1.179 | 1.203 1.208 1.214 1.230 1.244 1.251
    # median of 12 = (1.179 + 1.203) / 2 = 1.191 -> 1.19
    assert statistics.median(pairs.values()) == pytest.approx(1.191)
    assert TRTLLM_MOE_RELEASE_SCALE[0] == ((1, 0), 1.19)


@pytest.mark.parametrize(
    ("release", "scale"),
    [("1.0.0", 1.19), ("1.0.0rc3", 1.19), ("1.0", 1.19), ("1.1.0", 1.0), ("1.2.1", 1.0),
     ("1.3.0rc20", 1.0), ("0.21.0", 1.0), (None, 1.0)],
)  # fmt: skip
def test_the_scale_by_release(release, scale):
    # 1.0.x is measured and applied; 1.1 on runs at the tables' speed (1.1 has no table, and
    # the serving runs of 1.1 and 1.2 already come out slow at it); before 1.0 nothing stated
    assert CUTLASS_MOE.scale_at(release) == scale
    assert TRITON_FUSED_MOE.scale_at(release) == 1.0  # vLLM and SGLang: no release scale


def _step(engine: str, version: str | None):
    dep = Deployment.build(load_model("qwen3-235b-a22b"), load_hardware("h200"), ep=8,
                           weight_dtype="fp8-tensor", kv_dtype="fp8",
                           engine=EngineSettings(name=engine, version=version))  # fmt: skip
    return step_of(dep, batch=512, ctx=1500)


def _times(step) -> dict[str, float]:
    return {op.name: float(op_time(op, step.rates)) for op in step.raw}


def test_trtllm_1_0_times_its_own_moe_curve_at_1_19_and_nothing_else():
    old, new = _step("trtllm", "1.0.0"), _step("trtllm", "1.2.1")
    moe = next(op for op in old.raw if op.name == "routed_experts")
    name, _ = curve_of(moe, old.rates)
    assert name == "moe@trtllm.fp8"  # TensorRT-LLM's own fused-MoE curve on the H200
    t_old, t_new = _times(old), _times(new)
    # the layer is above its speed of light here, so the whole curve time scales:
    # 1.19 × the 1.2.1 time
    assert t_old["routed_experts"] == pytest.approx(1.19 * t_new["routed_experts"], rel=1e-12)
    assert {k: v for k, v in t_old.items() if k != "routed_experts"} == pytest.approx(
        {k: v for k, v in t_new.items() if k != "routed_experts"}, rel=1e-12)  # fmt: skip


def test_other_engines_do_not_move_with_the_release():
    # no release scale for vLLM: its fused-MoE curve is the same at 0.10.0 and the newest;
    # only its routing kernels beside the curve differ (calc/deploy/moe_pipeline.py
    # VLLM_ROUTING: 4 up to 0.11, 1 from 0.12): (4 - 1) × 94 MoE layers × the fixed cost
    old, new = _step("vllm", "0.10.0"), _step("vllm", None)
    a, b = _times(old), _times(new)
    assert a["routed_experts"] - b["routed_experts"] == pytest.approx(
        3 * 94 * new.rates.kernel_s, rel=1e-9)  # fmt: skip
    assert {k: v for k, v in a.items() if k != "routed_experts"} == pytest.approx(
        {k: v for k, v in b.items() if k != "routed_experts"}, rel=1e-12)  # fmt: skip


def test_explain_shows_the_release_factor_and_its_source():
    from calc.reports.flops_figures import op_figures

    def lines(version):
        figs = op_figures("decode", _step("trtllm", version))
        return {f.key: f for f in figs if "routed_experts" in f.key}

    old, new = lines("1.0.0"), lines("1.2.1")
    t_old, t_new = old["decode.routed_experts.time_s"], new["decode.routed_experts.time_s"]
    assert t_old.numbers["release"] == 1.19 and "× release" in t_old.formula
    assert "release" not in t_new.numbers and "release" not in t_new.formula
    assert "TRTLLM_MOE_RELEASE_SCALE" in old["source.decode.routed_experts"].formula
    assert "TRTLLM_MOE_RELEASE_SCALE" not in new["source.decode.routed_experts"].formula
