"""vLLM's MoE routing kernels by release, and what is charged beside its measured fused-MoE
curves (calc/deploy/moe_pipeline.py VLLM_FUSED_MOE; issue 20, round 19), and the small-batch
MoE section (bench/validation_moe_small.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import moe_kernels
from calc.deploy.moe_pipeline import TRITON_FUSED_MOE, VLLM_FUSED_MOE
from calc.deploy.rates import curve_of, op_time
from calc.deploy.steps import step_of
from tests.formula_eval import evaluate

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("fmt", "release", "kernels"),
    [
        # 0.10-0.11: fp32 cast, topk_softmax, sum, division (4) + align, GEMM, activation,
        # GEMM, moe_sum (5) = 9; quantised activations: + 2 quantisations = 11
        ("bf16", "0.10.0", 9), ("bf16", "0.11.0", 9), ("fp8-block128", "0.11.0", 11),
        # from 0.12: one topk_softmax that renormalises: 1 + 5 = 6, 1 + 7 = 8
        ("bf16", "0.12.0", 6), ("fp8-block128", "0.12.0", 8), ("bf16", "0.33.0", 6),
        ("bf16", None, 6), ("fp8-block128", None, 8),
    ],
)  # fmt: skip
def test_vllm_moe_kernels_by_release(fmt, release, kernels):
    assert moe_kernels("vllm", fmt, release) == kernels


def test_sglang_and_trtllm_do_not_move_with_the_vllm_routing():
    assert moe_kernels("sglang", "bf16", "0.4.0") == moe_kernels("sglang", "bf16") == 6
    assert moe_kernels("trtllm", "fp8-tensor", "1.0.0") == 6


@pytest.mark.parametrize(
    ("fmt", "release", "outside"),
    [
        # beside the 0.24.0 curve (1 routing kernel inside it): 4 - 1 = 3 at 0.10-0.11
        ("bf16", "0.10.1", 3), ("fp8-block128", "0.11.0", 3),
        # 1 - 1 = 0 from 0.12, and for every release when no release is stated (the newest)
        ("bf16", "0.12.0", 0), ("fp8-block128", "0.33.0", 0), ("bf16", None, 0),
        # gpt-oss's MXFP4 layer routes in its own kernels, not fused_topk
        ("mxfp4", "0.10.1", 0),
    ],
)  # fmt: skip
def test_routing_beside_vllm_curve(fmt, release, outside):
    assert VLLM_FUSED_MOE.outside_curve(fmt, release) == outside


def test_sglang_curve_holds_its_routing():
    # its collector times select_experts inside run_op: nothing beside the curve
    assert TRITON_FUSED_MOE.outside_curve("bf16", "0.4.0") == 0


def _step(version: str | None, hw: str = "h200"):
    dep = Deployment.build(load_model("qwen3-235b-a22b"), load_hardware(hw), tp=4,
                           weight_dtype="fp8-block128",
                           engine=EngineSettings(name="vllm", version=version))  # fmt: skip
    return step_of(dep, batch=8, ctx=2000)


def test_old_release_pays_three_kernels_a_layer_beside_the_curve():
    old, new = _step("0.11.0"), _step("0.12.0")
    moe_old = next(op for op in old.raw if op.name == "routed_experts")
    moe_new = next(op for op in new.raw if op.name == "routed_experts")
    assert curve_of(moe_old, old.rates)[0] == "moe@vllm.fp8_block"
    # Qwen3-235B-A22B: 94 MoE layers × 3 kernels = 282 beside the curve at 0.11, none at 0.12
    assert moe_old.curve_kernels == 282 and moe_new.curve_kernels == 0
    t_old = float(op_time(moe_old, old.rates))
    t_new = float(op_time(moe_new, new.rates))
    assert t_old - t_new == pytest.approx(282 * old.rates.kernel_s, rel=1e-9)
    assert old.rates.kernel_s > 0


def test_explain_carries_the_routing_kernels():
    from calc.reports.flops_figures import op_figures

    figs = {f.key: f for f in op_figures("decode", _step("0.11.0"))}
    t = figs["decode.routed_experts.time_s"]
    assert t.numbers["routing"] == 282 and "{routing}" in t.template
    assert evaluate(t.template, t.numbers) == pytest.approx(t.value, rel=1e-9)
    new = {f.key: f for f in op_figures("decode", _step("0.12.0"))}
    assert "routing" not in new["decode.routed_experts.time_s"].numbers


def _bench(name: str):
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_small_batch_section_covers_both_engines_and_the_release_charge_moves_none():
    bench = _bench("validation_moe_small")
    after = bench.speed_errors()
    with bench.routing_as_measured():
        before = bench.speed_errors()
    engines = {r.backend for r in bench.rows() if r.id in after}
    assert engines == {"vllm", "sglang"}
    assert all(r.concurrency <= 64 and r.moe for r in bench.rows())
    # every vLLM run is 0.12 or later, predicted at the newest release: nothing beside the curve
    assert before == pytest.approx(after, rel=1e-12)
    assert "Small-batch MoE decode" in bench.render()


def test_published_batch1_records_are_held_out_and_scored():
    bench = _bench("validation_moe_small")
    rows = bench.published_errors()
    # LMSYS's table: MXFP4 B200 416.02, H100 318.53; BF16 B200 315.63, H100 293.12 tokens/s
    assert sorted(r[4] for r in rows) == [293.12, 315.63, 318.53, 416.02]
    for *_, pred, published, err in rows:
        assert err == pytest.approx(pred / published - 1, rel=1e-12)
        assert 0 < pred < 10_000
    sources = _bench("validation_sources")
    listed = " ".join(src for src, *_ in (*sources.FITTED, *sources.LOOKED_AT))
    assert "blog/2025-08-27-gpt-oss.md" in listed and "benchmark/gpt_oss/README.md" in listed
