"""GEMMs timed by their own weight format (calc.deploy.rates.gemm_terms): the 16-bit lm_head of
an fp8 checkpoint, rows padded to whole tensor-core tiles, a measured small-M curve, weight-only
streaming fractions and the grouped-GEMM factor. Every figure from the profile's numbers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from calc.data.hardware_schema import GemmPoint
from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment
from calc.deploy.rates import gemm_terms, is_gemm, weight_only_family
from calc.deploy.steps import step_of
from tests.bands import bands


def _step(model, hw, efficiency="expected", weight_dtype=None, **counts):
    dep = Deployment.build(load_model(model), hw, weight_dtype=weight_dtype)
    step = step_of(dep, efficiency, **counts)
    return step, {op.name: op for op in step.raw}


def test_fp8_checkpoint_runs_its_16bit_lm_head_at_the_bf16_rate():
    h100 = bands("h100")
    step, ops = _step("llama3.1-8b", h100, weight_dtype="fp8-tensor", batch=2048, ctx=256)
    r = step.rates
    # the decoder's linear layers: fp8 at 0.567 × 1,978.9e12 = 1,122.0e12 FLOP/s
    assert gemm_terms(ops["qkv_proj"], r).flops_per_s == pytest.approx(0.567 * 1978.9e12)
    # the lm_head stays bf16 in the checkpoint: bf16 at 0.75 × 989.4e12 = 742.05e12 FLOP/s
    lm = gemm_terms(ops["lm_head"], r)
    assert lm.flops_per_s == pytest.approx(742.05e12)
    # compute bound: 2 × 2,048 × 4,096 × 128,256 = 2.1518e12 FLOP (2,048 rows: whole 64-row
    # tiles) / 742.05e12 = 2.900 ms, + 2 kernels (lm_head, sampler) × 5.6 us
    flops = 2 * 2048 * 4096 * 128_256
    assert lm.flops == pytest.approx(flops)
    t = next(o.time_s for o in step.ops if o.name == "lm_head")
    assert t == pytest.approx(flops / 742.05e12 + 2 * 5.6e-6, rel=1e-9)


def test_rows_pad_to_whole_tiles_and_the_speed_of_light_does_not():
    h100 = bands("h100")  # gemm_tile_m 64
    step, ops = _step("llama3-8b", h100, batch=100, ctx=512)
    qkv = ops["qkv_proj"]
    # 100 rows compute as ceil(100 / 64) × 64 = 128: FLOPs × 1.28
    assert gemm_terms(qkv, step.rates).flops == pytest.approx(qkv.flops * 1.28, rel=1e-12)
    peak, pops = _step("llama3-8b", h100, "peak", batch=100, ctx=512)
    assert gemm_terms(pops["qkv_proj"], peak.rates).flops == pops["qkv_proj"].flops
    # at batch 1 the 64-fold padded GEMM is still memory bound (64 rows × 2 FLOP per bf16
    # weight of 2 B = 64 FLOP/B < the 742.05 / 2.814 = 263.7 FLOP/B expected ridge)
    one, ops1 = _step("llama3-8b", h100, batch=1, ctx=512)
    q = ops1["qkv_proj"]
    t = next(o.time_s for o in one.ops if o.name == "qkv_proj")
    assert t == pytest.approx(q.bytes / 2.814e12 + 32 * 5.6e-6, rel=1e-9)


def test_a_measured_small_m_curve_replaces_the_padding():
    hw = replace(
        load_hardware("h100"),
        gemm_m_curve=[GemmPoint(m=1, slowdown=2.0), GemmPoint(m=16, slowdown=1.0)],
    )
    step, ops = _step("llama3-8b", hw, batch=4, ctx=512)
    g = gemm_terms(ops["o_proj"], step.rates)
    # M = 4 lies halfway between 1 and 16 in log M: slowdown 2 − (ln 4 / ln 16) × 1 = 1.5
    assert g.slowdown == pytest.approx(1.5)
    assert g.flops == ops["o_proj"].flops  # no padding with a curve
    # beyond the last point the curve holds its end value
    step64, ops64 = _step("llama3-8b", hw, batch=64, ctx=512)
    assert gemm_terms(ops64["o_proj"], step64.rates).slowdown == pytest.approx(1.0)


def test_weight_only_formats_stream_at_their_fraction():
    a100 = load_hardware("a100-80g")  # weight_only int8 0.765, int4 0.617
    assert (weight_only_family("int8-channel"), weight_only_family("int4-g128")) == ("int8", "int4")
    assert weight_only_family("fp8-tensor") is None and weight_only_family("bf16") is None
    step, ops = _step("llama2-7b", a100, weight_dtype="int8-channel", batch=1, ctx=200)
    ffn = ops["ffn"]
    g = gemm_terms(ffn, step.rates)
    # weights at 0.765 of the memory band: bytes = activations + weights / 0.765
    assert g.bytes == pytest.approx(ffn.bytes - ffn.weight_bytes + ffn.weight_bytes / 0.765)
    assert g.bytes_per_s == pytest.approx(0.82 * 2039e9)
    # fp8 on H100 is a tensor-core format, not weight-only: its bytes are as moved
    h, hops = _step("llama3-8b", load_hardware("h100"), weight_dtype="fp8", batch=1, ctx=200)
    assert gemm_terms(hops["ffn"], h.rates).bytes == hops["ffn"].bytes


def test_grouped_gemm_factor_slows_the_routed_experts_only():
    hw = load_hardware("h100")
    half = replace(hw, efficiency=replace(hw.efficiency, grouped_gemm=0.5))
    step, ops = _step("mixtral-8x7b", half, batch=8, ctx=512)
    base, bops = _step("mixtral-8x7b", hw, batch=8, ctx=512)
    routed, plain = (
        gemm_terms(ops["routed_experts"], step.rates),
        gemm_terms(bops["routed_experts"], base.rates),
    )
    assert routed.bytes_per_s == pytest.approx(plain.bytes_per_s / 2)
    assert routed.flops_per_s == pytest.approx(plain.flops_per_s / 2)
    assert gemm_terms(ops["qkv_proj"], step.rates) == gemm_terms(bops["qkv_proj"], base.rates)
    # routed experts' rows per GEMM: 8 tokens × top-2 over the experts they touch
    assert ops["routed_experts"].grouped and ops["routed_experts"].gemm_m < 8
    assert all(is_gemm(o) for o in (ops["qkv_proj"], ops["lm_head"], ops["routed_experts"]))
    assert not is_gemm(ops["attn_scores"]) and not is_gemm(ops["norms"])
