"""TensorRT-LLM's fused-MoE curves with the per-active-expert cost fitted alone on the shipped
curve (issue 20 round 13; tools/moe_per_expert_hold.py, docs/step-time.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.rates import curve_of, curve_time
from calc.deploy.steps import step_of
from tests.scripts import load_script


def test_the_blackwell_nvfp4_curves_carry_the_held_fit():
    # tools/moe_per_expert_hold.py on aiconfigurator-core 0.12.0's TensorRT-LLM 1.3.0rc20 MoE
    # table: 0.350 us per active expert on B200, 0.275 us on GB200 (NVFP4: lines a refit keeps,
    # tools/fit_kernels.py MOE_KEEP_SHIPPED); Hopper's per-tensor fp8 curve carries the term
    # fitted with its other constants (fit_moe_nested, issue 20 Deliver 1): 0.1241 us
    assert load_hardware("b200").kernels.moe_engine["trtllm"]["fp4"].per_expert_s == 3.5e-7
    assert load_hardware("gb200").kernels.moe_engine["trtllm"]["fp4"].per_expert_s == 2.75e-7
    assert load_hardware("h200").kernels.moe_engine["trtllm"]["fp8"].per_expert_s == 1.241e-7


def test_qwen3_30b_a3b_on_b200_pays_the_term_for_each_active_expert():
    # Qwen3-30B-A3B (48 MoE layers, 128 experts, top-8; its config.json), one B200, NVFP4,
    # TensorRT-LLM: at batch 1 each layer touches 128 × (1 − (1 − 8/128)^1) = 8 experts,
    # 48 × 8 = 384 a step; 384 × 0.35 us = 134.4 us more than the curve without the term
    dep = Deployment.build(load_model("qwen3-30b-a3b"), load_hardware("b200"),
                           weight_dtype="nvfp4", kv_dtype="fp8",
                           engine=EngineSettings(name="trtllm"))  # fmt: skip
    step = step_of(dep, batch=1, ctx=1024)
    op = next(o for o in step.raw if o.name == "routed_experts")
    assert float(op.active_experts) == pytest.approx(384.0, rel=1e-12)
    r = step.rates
    name, curve = curve_of(op, r)
    assert name == "moe@trtllm.fp4"
    eng = r.curves.moe_engine
    zero = replace(curve, per_expert_s=0.0)
    base = replace(r.curves, moe_engine={**eng, "trtllm": {**eng["trtllm"], "fp4": zero}})
    t1 = float(curve_time(op, r))
    t0 = float(curve_time(op, replace(r, curves=base)))
    assert 384 * 0.35e-6 == pytest.approx(134.4e-6)
    assert t1 - t0 == pytest.approx(134.4e-6, rel=1e-9)


def _tool():
    pytest.importorskip("pandas")
    return load_script("tools/moe_per_expert_hold.py")


def _frame(curve, per_expert_s: float):
    """A balanced table of two shapes over 1-8,192 tokens whose times are ``curve`` plus
    ``per_expert_s`` × the active local experts."""
    import pandas as pd

    tool = _tool()
    rows = []
    for h, inter, E, k in ((2048, 768, 128, 8), (4096, 1536, 128, 8)):
        for T in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3072, 4096, 8192) * 4:
            rows.append(dict(moe_dtype="nvfp4", distribution="balanced", num_tokens=T,
                             hidden_size=h, inter_size=inter, topk=k, num_experts=E,
                             moe_tp_size=1, moe_ep_size=1, latency=1.0))  # fmt: skip
    f = pd.DataFrame(rows)
    peaks = {"fp4": 9e15}
    base, touched, _, _ = tool._errors(f, curve, peaks, 8e12, "nvfp4")
    f["latency"] = (base + per_expert_s * touched) * 1e3  # the table's milliseconds
    return tool, f, peaks


CURVE = {"compute": 0.3, "memory": 0.8, "fixed_s": 4e-5, "per_route_element_s": 2e-12,
         "tile_m": 128, "sharpness": 2.0}  # fmt: skip


def test_the_held_fit_recovers_a_per_expert_cost_on_its_grid():
    # times built with 0.5 us per active expert: the grid (0.025 us steps) holds 0.5 us, where
    # every error is 0, better than the shipped curve in every token range
    tool, f, peaks = _frame(CURVE, 0.5e-6)
    pe, before, after = tool.fit_held(f, CURVE, peaks, 8e12, "nvfp4")
    assert pe == pytest.approx(0.5e-6, rel=1e-9)
    assert after[0] == pytest.approx(0.0, abs=1e-12) and before[0] > 0
    assert all(a < b for a, b in zip(after[1], before[1], strict=True))


def test_the_held_fit_keeps_zero_where_the_curve_is_the_table():
    tool, f, peaks = _frame(CURVE, 0.0)
    pe, before, after = tool.fit_held(f, CURVE, peaks, 8e12, "nvfp4")
    assert pe == 0.0 and after == before


def test_write_sets_and_clears_the_key(tmp_path, monkeypatch):
    tool = _tool()
    prof = tmp_path / "hardware_profiles"
    prof.mkdir()
    line = ("      fp4: {compute: 0.226, memory: 0.8303, fixed_s: 4.269e-05, "
            "per_route_element_s: 2.078e-12, tile_m: 128, sharpness: 2, band: [0.834, 1.258], "
            'source: "moe/trtllm/1.3.0rc20/moe_perf.parquet (13,986 rows)"}')
    (prof / "x.yaml").write_text("kernels:\n  moe_engine:\n    trtllm:\n" + line + "\n")
    monkeypatch.setattr(tool.F, "ROOT", tmp_path)
    tool.write("x", "fp4", 3.5e-7)
    text = (prof / "x.yaml").read_text()
    assert "sharpness: 2, per_expert_s: 3.5e-07, band:" in text
    assert '(13,986 rows); per_expert_s held fit: tools/moe_per_expert_hold.py"}' in text
    tool.write("x", "fp4", 0.0)
    assert (prof / "x.yaml").read_text() == "kernels:\n  moe_engine:\n    trtllm:\n" + line + "\n"
