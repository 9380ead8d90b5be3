"""The kernel curves (calc/formulas/kernel_curves.py) and how the step model uses them
(calc/deploy/rates.py curve_time): each formula's golden value by hand, the speed-of-light floor,
the bands, the engine's attention scale, and the schema's checks of a profile's curves."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from calc.data.hardware_schema import GemmCurve
from calc.data.registry import all_hardware, load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.rates import SERVING_FIXED_SHARE, curve_of, curve_time
from calc.deploy.steps import step_of
from calc.formulas import kernel_curves as K
from calc.formulas.roofline import op_time_s


def test_soft_max_is_the_max_for_large_sharpness_and_the_sum_at_one():
    # (3^2 + 4^2)^(1/2) = 5
    assert K.soft_max(3.0, 4.0, 2.0) == pytest.approx(5.0)
    assert K.soft_max(3.0, 4.0, 1.0) == pytest.approx(7.0)
    assert K.soft_max(3.0, 4.0, 64.0) == pytest.approx(4.0, rel=1e-3)
    assert K.soft_max(0.0, 0.0, 4.0) == 0.0
    a = K.soft_max(np.array([3.0, 0.0]), np.array([4.0, 0.0]), 2.0)
    assert a.tolist() == pytest.approx([5.0, 0.0])
    # homogeneous of degree one: L × soft(a, b) = soft(L a, L b)
    assert K.soft_max(30.0, 40.0, 4.0) == pytest.approx(10 * K.soft_max(3.0, 4.0, 4.0))


def test_wave_factor_pads_rows_columns_and_waves():
    # m = 100, n = 1,000 on 64 × 64 tiles: ceil(100/64) = 2, ceil(1000/64) = 16 -> 32 tiles on
    # 132 SMs: one wave of 132 tiles × 4,096 = 540,672 computed over 100,000 useful = 5.40672
    assert K.wave_factor(100, 1000, 64, 64, 132) == pytest.approx(540_672 / 100_000)
    # 264 tiles exactly fill two waves: m = 128, n = 8,448: 2 × 132 tiles, factor 1
    assert K.wave_factor(128, 8448, 64, 64, 132) == pytest.approx(1.0)


def test_gemm_time_by_hand():
    # m 1, n = k = 4,096, bf16 (2 B), P 1e15, W 1e12, compute 0.5, memory 0.8, fixed 2 us,
    # 64 × 64 tiles, 132 SMs, k_half 0, sharpness 64 (≈ the max):
    # compute: 2 × 1 × 4096 × 4096 × wave (ceil(1/64) × ceil(4096/64) = 64 tiles, one wave
    # of 132: 132 × 4,096 / 4,096 = 132) / (1e15 × 0.5) = 4,429,185,024 / 5e14 = 8.858 us
    # memory: (4096 × 4096 × 2 + 1 × 4096 × 2 + 2 × 1 × 4096) / (1e12 × 0.8)
    #       = 33,570,816 / 8e11 = 41.964 us
    t = K.gemm_time_s(
        1, 4096, 4096, flops_per_s=1e15, bytes_per_s=1e12, weight_bytes_per_element=2,
        act_bytes_per_element=2, quantize_bytes_per_element=0, compute=0.5, memory=0.8,
        fixed_s=2e-6, tile_m=64, tile_n=64, k_half=0, sharpness=64, sms=132,
    )  # fmt: skip
    tc, tm = 2 * 4096 * 4096 * 132 / 5e14, 33_570_816 / 8e11
    assert t == pytest.approx(2e-6 + (tc**64 + tm**64) ** (1 / 64), rel=1e-12)
    assert t == pytest.approx(2e-6 + 41.964e-6, rel=1e-3)
    # the activation quantisation of an fp8 GEMM: m k (2 + 1) bytes at the memory rate
    q = K.gemm_time_s(
        1, 4096, 4096, flops_per_s=2e15, bytes_per_s=1e12, weight_bytes_per_element=1,
        act_bytes_per_element=1, quantize_bytes_per_element=3, compute=0.5, memory=0.8,
        fixed_s=0, tile_m=64, tile_n=64, k_half=0, sharpness=64, sms=132,
    )  # fmt: skip
    bare = K.gemm_time_s(
        1, 4096, 4096, flops_per_s=2e15, bytes_per_s=1e12, weight_bytes_per_element=1,
        act_bytes_per_element=1, quantize_bytes_per_element=0, compute=0.5, memory=0.8,
        fixed_s=0, tile_m=64, tile_n=64, k_half=0, sharpness=64, sms=132,
    )  # fmt: skip
    assert q - bare == pytest.approx(4096 * 3 / 8e11, rel=1e-9)  # 15.36 ns


def test_moe_time_pads_each_experts_rows_and_adds_the_route_work():
    # 4 rows per expert on 16-row tiles: FLOPs × 4; fixed 30 us + 1e-12 s × 1e6 route elements
    t = K.moe_time_s(
        1e9, 1e6, 4.0, 1e6, flops_per_s=1e15, bytes_per_s=1e12, compute=0.5, memory=1.0,
        fixed_s=30e-6, per_route_element_s=1e-12, tile_m=16, sharpness=2,
    )  # fmt: skip
    tc, tm = 1e9 * 4 / 5e14, 1e6 / 1e12  # 8 us, 1 us
    assert t == pytest.approx(30e-6 + 1e-6 + math.hypot(tc, tm), rel=1e-12)


def test_moe_time_adds_a_fixed_cost_per_active_expert_elementwise():
    # the same layer as above, 0.3 us per active expert: 100 experts add 30 us, 0 add nothing
    kw = dict(flops_per_s=1e15, bytes_per_s=1e12, compute=0.5, memory=1.0, fixed_s=30e-6,
              per_route_element_s=1e-12, tile_m=16, sharpness=2)  # fmt: skip
    bare = K.moe_time_s(1e9, 1e6, 4.0, 1e6, **kw)
    t = K.moe_time_s(1e9, 1e6, 4.0, 1e6, np.array([0.0, 100.0]), per_expert_s=0.3e-6, **kw)
    assert t.tolist() == pytest.approx([bare, bare + 30e-6], rel=1e-12)
    # the default (per_expert_s 0) is the curve without the term
    assert K.moe_time_s(1e9, 1e6, 4.0, 1e6, 100.0, **kw) == bare


def test_the_moe_op_carries_its_expected_active_local_experts():
    # gpt-oss-20b (config.json: 24 layers, 32 local experts, 4 per token), one GPU:
    # 1 token touches 32 × (1 − (1 − 4/32)^1) = 4 experts a layer, × 24 layers = 96;
    # 8 tokens: 32 × (1 − 0.875^8) = 32 × (1 − 0.343609) = 21.0045 a layer, × 24 = 504.11
    for batch, active in ((1, 96.0), (8, 24 * 32 * (1 - 0.875**8))):
        step = step_of(_dep("gpt-oss-20b"), batch=batch, ctx=1024)
        op = next(o for o in step.raw if o.name == "routed_experts")
        assert float(op.active_experts) == pytest.approx(active, rel=1e-12)
    assert 24 * 32 * (1 - 0.875**8) == pytest.approx(504.11, abs=0.01)


def test_the_curve_charges_its_per_expert_cost_for_each_active_expert():
    # gpt-oss-20b on H100, batch 1: 96 active experts (above) × 2 us = 192 us more, at the
    # expected efficiency (scale 1) and with the curve above its speed-of-light floor
    step = step_of(_dep("gpt-oss-20b"), batch=1, ctx=1024)
    op = next(o for o in step.raw if o.name == "routed_experts")
    r = step.rates
    name, curve = curve_of(op, r)
    k = r.curves
    eng = k.moe_engine or {}
    with_cost = replace(curve, per_expert_s=2e-6)
    if name.startswith("moe@"):
        fw, key = name[4:].split(".")
        curves = replace(k, moe_engine={**eng, fw: {**eng[fw], key: with_cost}})
    else:
        curves = replace(k, moe={**k.moe, name.split(".")[1]: with_cost})
    zero = replace(curve, per_expert_s=0.0)
    if name.startswith("moe@"):
        base = replace(k, moe_engine={**eng, fw: {**eng[fw], key: zero}})
    else:
        base = replace(k, moe={**k.moe, name.split(".")[1]: zero})
    t1 = float(curve_time(op, replace(r, curves=curves)))
    t0 = float(curve_time(op, replace(r, curves=base)))
    assert t1 - t0 == pytest.approx(96 * 2e-6, rel=1e-9)


def test_a_per_expert_cost_beyond_10_us_is_refused():
    from calc.data.hardware_schema import MoeCurve
    from calc.data.yaml_io import validate
    from calc.errors import ConfigError

    base = next(iter(load_hardware("h100").kernels.moe.values())).to_dict()
    assert validate(MoeCurve, {**base, "per_expert_s": 1e-5}, "x.yaml").per_expert_s == 1e-5
    with pytest.raises(ConfigError, match="per_expert_s"):
        validate(MoeCurve, {**base, "per_expert_s": 2e-5}, "x.yaml")


def test_prefill_attention_reaches_half_its_fraction_at_prompt_half():
    t = K.prefill_attention_time_s(
        1e12, 1.0, 500, flops_per_s=1e15, bytes_per_s=1e12, compute=0.6, memory=0.8,
        fixed_s=0, prompt_half=500, sharpness=64,
    )  # fmt: skip
    assert t == pytest.approx(1e12 / (1e15 * 0.3), rel=1e-6)  # 3.33 ms


def test_allreduce_segment():
    # 8 GPUs, 1 MiB: 10 us + 2 × 7/8 × 1,048,576 B / 4e11 B/s = 10 us + 4.588 us
    t = K.allreduce_segment_time_s(2**20, 8, 10e-6, 4e11)
    assert t == pytest.approx(10e-6 + 1.75 * 2**20 / 4e11, rel=1e-12)


def _dep(model="llama3-8b", hw="h100", **kw):
    return Deployment.build(load_model(model), load_hardware(hw), **kw)


def test_measured_profiles_time_gemms_attention_and_moe_by_their_curves():
    step = step_of(_dep("gpt-oss-20b"), batch=8, ctx=1024)
    r = step.rates
    names = {op.name: curve_of(op, r)[0] for op in step.raw}
    assert names["qkv_proj"] == "gemm.bf16"
    assert names["attn_scores"] == names["attn_values"] == "decode_attention.bf16"
    # vLLM (the default engine) times its experts by its own fused-MoE kernels' curve
    assert names["routed_experts"] == "moe@vllm.mxfp4"
    assert names["norms"] is None and names["embedding"] is None  # the bands time them
    # every op's time is its curve time where it has one
    for op, t in zip(step.raw, step.ops, strict=True):
        if names[op.name]:
            assert t.time_s == pytest.approx(float(curve_time(op, r)), rel=1e-12)


def test_no_curve_time_is_below_the_speed_of_light():
    for hw in ("h100", "b200", "l40s"):
        dep = _dep("llama3.1-8b", hw)
        for counts in (dict(batch=1, ctx=128), dict(batch=512, ctx=4096),
                       dict(batch=4, prompt=8192)):  # fmt: skip
            for eff in ("high", "expected", "low"):
                step, sol = step_of(dep, eff, **counts), step_of(dep, "peak", **counts)
                assert step.time_s >= sol.time_s
                for op, t in zip(step.raw, step.ops, strict=True):
                    if curve_of(op, step.rates)[1] is not None and op.kind == "compute":
                        peak = step.rates.peaks[step.compute_dtype]
                        floor = op_time_s(op.flops, op.bytes, peak, step.rates.hbm_bytes_per_s)
                        assert t.time_s >= floor * (1 - 1e-12)


def test_low_and_high_scale_a_curves_time_by_its_band():
    dep = _dep()
    exp = step_of(dep, batch=64, ctx=2048)
    op = next(o for o in exp.raw if o.name == "ffn")
    r = exp.rates
    _, curve = curve_of(op, r)
    t = float(curve_time(op, r))
    other = (op.kernels - op.layers * len(op.gemm_shapes)) * r.kernel_s
    lo = float(curve_time(op, replace(r, efficiency="low")))
    hi = float(curve_time(op, replace(r, efficiency="high")))
    assert lo - other == pytest.approx((t - other) * curve.band[1], rel=1e-9)
    assert hi - other == pytest.approx(max((t - other) * curve.band[0], 0), rel=1e-9)


def test_the_engines_attention_scale():
    h100 = load_hardware("h100")
    scale = h100.kernels.engine_scale["trtllm"]["decode_attention.fp8"]
    times = {}
    for engine in ("vllm", "trtllm"):
        dep = _dep("llama3.1-8b", kv_dtype="fp8", engine=EngineSettings(name=engine))
        step = step_of(dep, batch=64, ctx=4096)
        times[engine] = next(o.time_s for o in step.ops if o.name == "attn_values")
    vllm = h100.kernels.engine_scale["vllm"]["decode_attention.fp8"]
    # the values op carries no fixed cost: its time is the soft roofline × the engine's scale
    assert times["trtllm"] / times["vllm"] == pytest.approx(scale / vllm, rel=1e-9)


def test_serving_pays_a_share_of_the_measured_fixed_cost():
    # at batch 1 the qkv GEMM of Llama-3.1-8B on H100: its curve time with the fixed cost at
    # SERVING_FIXED_SHARE of the curve's; without it the time drops by 32 layers × share × fixed
    dep = _dep("llama3.1-8b")
    step = step_of(dep, batch=1, ctx=256)
    op = next(o for o in step.raw if o.name == "qkv_proj")
    r = step.rates
    _, curve = curve_of(op, r)
    no_fixed = replace(r.curves, gemm={"bf16": replace(curve, fixed_s=0.0)})
    t0 = float(curve_time(op, replace(r, curves=no_fixed)))
    t = float(curve_time(op, r))
    assert SERVING_FIXED_SHARE == 0.665
    assert t - t0 == pytest.approx(32 * 0.665 * curve.fixed_s, rel=1e-9)


def test_curves_are_vectorised():
    dep = _dep()
    b = np.array([1.0, 8.0, 64.0, 256.0])
    arr = step_of(dep, batch=b, ctx=np.array([512.0, 1024.0, 2048.0, 4096.0])).time_s
    each = [step_of(dep, batch=int(x), ctx=c).time_s for x, c in zip(b, (512, 1024, 2048, 4096),
                                                                      strict=True)]  # fmt: skip
    assert arr == pytest.approx(each, rel=1e-12)


def test_every_curve_of_every_profile_is_sourced():
    for hw in all_hardware():
        k = hw.kernels
        if k is None:
            continue
        assert k.provenance in ("fitted", "copied") and k.source
        assert (k.copied_from is not None) == (k.provenance == "copied"), hw.name
        own = [c for per in (k.moe_engine or {}).values() for c in per.values()]
        for section in (k.gemm, k.decode_attention, k.prefill_attention, k.moe,
                        k.mla_decode_attention, k.mla_prefill_attention, dict(enumerate(own))):
            for c in (section or {}).values():
                assert c.provenance == k.provenance and c.source
                assert c.band[0] <= 1 <= c.band[1]
                assert 0 < c.compute <= 1 and 0 < c.memory <= 1


def test_mla_attention_is_timed_by_its_own_curves():
    # DeepSeek-V3 on H200: decode in the absorbed form by the MLA decode curve of its KV dtype,
    # prefill by the MLA prefill curve, never by the GQA curves
    dep = _dep("deepseek-v3", "h200", tp=8)
    dec = step_of(dep, batch=16, ctx=2048)
    pre = step_of(dep, batch=1, prompt=2048)
    name = {op.name: curve_of(op, dec.rates)[0] for op in dec.raw}
    assert name["attn_scores"] == name["attn_values"] == "mla_decode_attention.bf16"
    assert curve_of(next(o for o in pre.raw if o.name == "attn_scores"), pre.rates)[0] == (
        "mla_prefill_attention.bf16"
    )
    # the values op carries no fixed cost: soft(FLOPs / (P c), bytes / (W m)) × the engine's
    # scale (vLLM has none for MLA: 1), at least its speed of light
    op = next(o for o in dec.raw if o.name == "attn_values")
    r = dec.rates
    c = load_hardware("h200").kernels.mla_decode_attention["bf16"]
    P, W = r.peaks["bf16"], r.hbm_bytes_per_s
    soft = K.soft_max(op.flops / (P * c.compute), op.bytes / (W * c.memory), c.sharpness)
    want = max(soft, op_time_s(op.flops, op.bytes, P, W))
    assert float(curve_time(op, r)) == pytest.approx(want, rel=1e-12)


def test_each_engine_times_moe_by_its_own_kernels():
    # DeepSeek-V3's fp8 block experts on H200: SGLang's Triton fused MoE and TensorRT-LLM's
    # CUTLASS MoE are fitted apart (their tables differ up to 4x on one shape), each engine's
    # layer timed by its own curve (a decode step of 64: at an 8,192-token prefill the two
    # curves come within 4% once TensorRT-LLM's carries its per-expert cost, round 13)
    times, names = {}, {}
    for engine in ("sglang", "trtllm"):
        dep = _dep("deepseek-v3", "h200", tp=8, engine=EngineSettings(name=engine))
        step = step_of(dep, batch=64, ctx=2048)
        op = next(o for o in step.raw if o.name == "routed_experts")
        names[engine], curve = curve_of(op, step.rates)
        times[engine] = float(curve_time(op, step.rates))
        own = load_hardware("h200").kernels.moe_engine[engine]["fp8_block"]
        assert curve is own
    assert names == {"sglang": "moe@sglang.fp8_block", "trtllm": "moe@trtllm.fp8_block"}
    assert abs(times["sglang"] / times["trtllm"] - 1) > 0.05
    # an engine without a curve of its own for the format takes the pooled one
    dep = _dep("deepseek-v3", "h200", tp=8, engine=EngineSettings(name="sglang"))
    step = step_of(dep, batch=256, ctx=2048)
    k = step.rates.curves
    pooled_only = replace(step.rates, curves=replace(k, moe_engine={}))
    op = next(o for o in step.raw if o.name == "routed_experts")
    assert curve_of(op, pooled_only)[0] == "moe.fp8_block"


def test_a_moe_curve_of_another_peak_times_by_that_peak():
    # TensorRT-LLM's MXFP4 experts on B200 run W4A8 (MXFP8 activations): its curve's compute
    # fraction is of the fp8 peak (``peak: fp8``), not the bf16 one of weight-only MXFP4
    hw = load_hardware("b200")
    curve = hw.kernels.moe_engine["trtllm"]["mxfp4"]
    assert curve.peak == "fp8"
    dep = _dep("gpt-oss-120b", "b200", engine=EngineSettings(name="trtllm"))
    step = step_of(dep, batch=512, ctx=1024)
    op = next(o for o in step.raw if o.name == "routed_experts")
    r = step.rates
    P, W, L = r.peaks["fp8"], r.hbm_bytes_per_s, op.layers
    t = K.moe_time_s(op.flops, op.bytes, op.gemm_m, op.route_elements, op.active_experts,
                     flops_per_s=P, bytes_per_s=W, compute=curve.compute, memory=curve.memory,
                     fixed_s=L * SERVING_FIXED_SHARE * curve.fixed_s,
                     per_route_element_s=curve.per_route_element_s, tile_m=curve.tile_m,
                     sharpness=curve.sharpness, per_expert_s=curve.per_expert_s)  # fmt: skip
    assert float(curve_time(op, r)) == pytest.approx(max(t, op_time_s(op.flops, op.bytes, P, W)),
                                                     rel=1e-12)  # fmt: skip


def test_a_band_without_one_inside_is_refused():
    base = load_hardware("h100").kernels.gemm["bf16"]
    with pytest.raises(ValueError, match="band"):
        GemmCurve(**{**base.to_dict(), "band": [1.1, 1.2]})


def test_a_stated_efficiency_or_a_calibration_sets_the_curves_aside():
    from calc.deploy.rates import with_efficiency

    hw = with_efficiency(load_hardware("h100"), memory=0.5)
    assert hw.kernels is None


def test_expert_parallel_all_to_all_by_the_engines_measured_kernels():
    # Qwen3-235B-A22B (94 MoE layers, d_model 4,096, 128 experts, top-8) on 8 H200 with
    # attention data parallel (tp 1, ep 8), TensorRT-LLM told to run DeepEP: a decode step's
    # dispatch and combine take TensorRT-LLM's DeepEP low-latency curve (aiconfigurator's
    # moe_a2a table)
    hw = load_hardware("h200")

    def deepep(engine, ep=8):
        return _dep("qwen3-235b-a22b", "h200", tp=1, ep=ep,
                    engine=EngineSettings(name=engine, moe_a2a="deepep"))  # fmt: skip

    step = step_of(deepep("trtllm"), batch=64, ctx=1024)
    op = next(o for o in step.raw if o.name == "ep_all_to_all")
    name, curve = curve_of(op, step.rates)
    assert name == "all_to_all@trtllm.low_latency"
    assert curve is hw.kernels.all_to_all["trtllm"]["low_latency"]
    # the busiest GPU holds 64 / 8 × 1.18 (the default imbalance) = 9.44 tokens; the
    # low-latency kernels send each to its 8 experts: 9.44 × 8 × 4,096 = 309,329.92 elements,
    # out in fp8 with a scale per 128 (× 1.03125 = 318,996.48 B), back in bf16 (618,659.84 B)
    (fd, bd), (fc, bc) = curve.dispatch, curve.combine
    want = 94 * (fd + 318_996.48 / bd + fc + 618_659.84 / bc)
    assert float(curve_time(op, step.rates)) == pytest.approx(want, rel=1e-9)
    # the measured kernels cost more than the bare pairwise exchange over NVLink did
    # (7 hops of the link's latency and its full bandwidth): 30-70 us a call at no size
    assert fd > 7 * hw.interconnect_latency_s
    # a prefill takes the normal kernels, which send a token once per GPU holding one of its
    # experts
    pre = step_of(deepep("trtllm"), batch=1, prompt=2048)
    op = next(o for o in pre.raw if o.name == "ep_all_to_all")
    assert curve_of(op, pre.rates)[0] == "all_to_all@trtllm.normal"
    # each engine its own kernels: SGLang's DeepEP benchmark is 2-4x faster at small sizes
    times = {}
    for engine in ("sglang", "vllm", "trtllm"):
        s = step_of(deepep(engine), batch=64, ctx=1024)
        op = next(o for o in s.raw if o.name == "ep_all_to_all")
        assert curve_of(op, s.rates)[0] == f"all_to_all@{engine}.low_latency"
        times[engine] = float(curve_time(op, s.rates))
    assert times["sglang"] < times["trtllm"] / 2
    # beyond the scale-up domain (16 GPUs over two HGX boards) no single-node table holds:
    # the pairwise exchange over the scale-out network times it
    s16 = step_of(deepep("trtllm", ep=16), batch=64, ctx=1024)
    op = next(o for o in s16.raw if o.name == "ep_all_to_all")
    assert curve_of(op, s16.rates) == (None, None)


def test_tensorrt_llm_on_nvl72_times_its_nvlink_all_to_all():
    # TensorRT-LLM on GB200 NVL72 (a multi-node NVLink domain) runs its NVLink all-to-all by
    # default: the op sends DeepEP-style (once per GPU holding one of a token's experts) and is
    # timed by the curve fitted to TensorRT-LLM's trtllm_alltoall table (prepare + dispatch,
    # combine)
    dep = _dep("deepseek-v3", "gb200", tp=1, ep=8, engine=EngineSettings(name="trtllm"))
    step = step_of(dep, batch=64, ctx=1024)
    op = next(o for o in step.raw if o.name == "ep_all_to_all")
    assert op.comm == "mnnvl"
    name, curve = curve_of(op, step.rates)
    assert name == "all_to_all@trtllm.mnnvl"
    # 58 MoE layers; 64 / 8 × 1.18 = 9.44 tokens × 5.294652 GPUs (test_parallel) × 7,168
    from calc.deploy.ops import dispatch_ranks_per_token

    sent = 9.44 * dispatch_ranks_per_token(256, 8, 8) * 7168
    (fd, bd), (fc, bc) = curve.dispatch, curve.combine
    want = 58 * (fd + sent * (1 + 4 / 128) / bd + fc + sent * 2 / bc)
    assert float(curve_time(op, step.rates)) == pytest.approx(want, rel=1e-9)


def test_the_engines_default_gather_is_timed_by_nccls_measured_collectives():
    # vLLM's default (allgather_reducescatter) on 8 H200: per MoE layer one all-gather of the
    # 64 tokens' bf16 hidden states (64 × 4,096 × 2 = 524,288 B) and one reduce-scatter of the
    # outputs (the same), each by NCCL's fitted segments: latency + 7/8 × M / bus bandwidth,
    # the least of the segments
    hw = load_hardware("h200")
    dep = _dep("qwen3-235b-a22b", "h200", tp=1, ep=8)
    step = step_of(dep, batch=64, ctx=1024)
    op = next(o for o in step.raw if o.name == "ep_gather_scatter")
    assert curve_of(op, step.rates) == ("gather.nccl", hw.kernels.gather["all_gather"])
    assert op.phase_bytes == (524_288, 524_288)
    want = 0.0
    for c in (hw.kernels.gather["all_gather"], hw.kernels.gather["reduce_scatter"]):
        want += min(lat + 7 / 8 * 524_288 / bw for lat, bw in c.segments[8])
    assert float(curve_time(op, step.rates)) == pytest.approx(94 * want, rel=1e-12)
    # the same traffic by the formula where no curve holds (the ring's (n − 1)/n × M / B and
    # (n − 1) hops per call, over the link at face value)
    bare = replace(step.rates, curves=replace(step.rates.curves, gather=None))
    assert curve_of(op, bare) == (None, None)


def test_all_to_all_call_time():
    # fixed 60 us + 1 MB at 250 GB/s (4 us) = 64 us
    assert K.all_to_all_call_time_s(1e6, 60e-6, 2.5e11) == pytest.approx(64e-6, rel=1e-12)


def test_every_all_to_all_curve_is_sourced():
    seen = 0
    for hw in all_hardware():
        for per in ((hw.kernels.all_to_all if hw.kernels else None) or {}).values():
            for c in per.values():
                seen += 1
                assert c.provenance == "fitted"
                assert any(t in c.source for t in ("moe_a2a", "deepep", "trtllm_alltoall"))
                assert c.band[0] <= 1 <= c.band[1] and c.error < 0.5
    assert seen >= 6 * 3 * 2  # H100 … GB300: three engines, two kernel families


def _moe_route_term(op, r, routes: str, per_route: float) -> float:
    """``op``'s curve time with its curve's per-route term at ``per_route`` and ``routes``."""
    name, curve = curve_of(op, r)
    fw, key = name[4:].split(".")
    eng = r.curves.moe_engine
    c = replace(curve, per_route_element_s=per_route, routes=routes)
    return float(curve_time(op, replace(r, curves=replace(
        r.curves, moe_engine={**eng, fw: {**eng[fw], key: c}}))))  # fmt: skip


def test_a_batch_route_curve_counts_every_route_the_gpu_holds():
    # DeepSeek-V3 (61 layers, 3 dense: 58 MoE layers; d_model 7,168; 8 of 256 experts) on
    # 8 × H200 under SGLang at TP 8 / EP 8: no dispatch, every GPU holds the batch's 64 tokens
    # and sorts, zeroes and sums all 64 × 8 = 512 routes a layer, its experts' or not:
    # 58 × 512 × 7,168 = 212,860,928 route elements (its own experts' share: 1/8 of them,
    # × the EP imbalance)
    dep = _dep("deepseek-v3", "h200", tp=8, ep=8, engine=EngineSettings(name="sglang"))
    step = step_of(dep, batch=64, ctx=2048)
    op = next(o for o in step.raw if o.name == "routed_experts")
    assert float(op.batch_route_elements) == 212_860_928
    assert float(op.route_elements) < float(op.batch_route_elements) / 4
    r = step.rates
    base = _moe_route_term(op, r, "batch", 0.0)
    # 1e-12 s an element: 212.86 µs more with routes: batch, the local share with routes: local
    assert _moe_route_term(op, r, "batch", 1e-12) - base == pytest.approx(212.860928e-6)
    local = _moe_route_term(op, r, "local", 1e-12) - _moe_route_term(op, r, "local", 0.0)
    assert local == pytest.approx(float(op.route_elements) * 1e-12)
    # without expert parallelism every route is this GPU's: the two counts agree
    # (58 × 64 × 8 × 7,168 again)
    op1 = next(o for o in step_of(_dep("deepseek-v3", "h200", tp=8,
                                       engine=EngineSettings(name="sglang")),
                                  batch=64, ctx=2048).raw if o.name == "routed_experts")
    assert float(op1.batch_route_elements) == float(op1.route_elements) == 212_860_928


def test_the_block_fp8_engine_curves_count_every_route():
    # the moefit round's refit (tools/fit_kernels.py --refit-engine-moe fp8_block): each
    # engine's own block-fp8 MoE curve on the measured Hopper and Blackwell GPUs counts every
    # route of the batch; the other formats keep the local count but SGLang's NVFP4 curve on
    # B200 (the sgb200moe round's refit: its rows are all FlashInfer trtllm-gen)
    batch_beyond = {("b200", "sglang", "fp4")}
    for hw in ("h100", "h200", "b200", "h100-pcie", "h20"):
        k = load_hardware(hw).kernels
        for fw, curves in k.moe_engine.items():
            assert curves["fp8_block"].routes == "batch", (hw, fw)
            for key, c in curves.items():
                if key != "fp8_block":
                    want = "batch" if (hw, fw, key) in batch_beyond else "local"
                    assert c.routes == want, (hw, fw, key)
        assert all(c.routes == "local" for c in k.moe.values())


def test_vllm_block_fp8_linears_take_vllms_own_gemm_curve():
    # issue 20, vfp8 round: vLLM's block-fp8 linears by its own graph-timed rows
    # (kernels.gemm_engine.vllm.fp8_block); SGLang's by its own (the sggemm round)
    names, times, curves = {}, {}, {}
    for engine in ("vllm", "sglang"):
        dep = _dep("qwen3-235b-a22b", "h200", tp=2, weight_dtype="fp8-block128",
                   engine=EngineSettings(name=engine))  # fmt: skip
        step = step_of(dep, batch=16, ctx=2500)
        op = next(o for o in step.raw if o.name == "o_proj")
        names[engine], curves[engine] = curve_of(op, step.rates)
        times[engine] = float(curve_time(op, step.rates))
    assert names == {"vllm": "gemm@vllm.fp8_block", "sglang": "gemm@sglang.fp8_block"}
    own = load_hardware("h200").kernels.gemm_engine["vllm"]["fp8_block"]
    assert curves["vllm"] == own
    # o_proj at TP 2: 94 layers of one 16 × 4,096 × 4,096 GEMM; each at least the curve's
    # serving fixed cost: 94 × 0.665 × 26.04 us = 1.628 ms, above the pooled curve's whole
    # time (94 × 9.05 us = 0.85 ms, the explain of `kvcalc latency`)
    assert own.fixed_s == pytest.approx(26.04e-6, rel=1e-3)
    assert times["vllm"] > 94 * SERVING_FIXED_SHARE * own.fixed_s > times["sglang"]
    # a 16-bit GEMM (the lm_head) keeps the pooled bf16 curve under vLLM too
    dep = _dep("qwen3-235b-a22b", "h200", tp=2, weight_dtype="fp8-block128")
    step = step_of(dep, batch=16, ctx=2500)
    lm = next(o for o in step.raw if o.name == "lm_head")
    assert curve_of(lm, step.rates)[0] == "gemm.bf16"


def test_sglang_gemms_take_sglangs_own_curves_where_it_runs_the_timed_kernel():
    # issue 20, sggemm round: SGLang's GEMMs by its own rows of aiconfigurator-core 0.12.0
    # (gemm/sglang/0.5.14), each dtype whose table times the kernel SGLang 0.5.16 runs
    def names(hw, weight_dtype, engine="sglang"):
        dep = _dep("llama3-8b", hw, weight_dtype=weight_dtype,
                   engine=EngineSettings(name=engine))  # fmt: skip
        step = step_of(dep, batch=8, ctx=1024)
        return {o.name: curve_of(o, step.rates)[0] for o in step.raw if o.name in
                ("qkv_proj", "lm_head")}  # fmt: skip

    assert names("h200", "bf16") == {"qkv_proj": "gemm@sglang.bf16",
                                     "lm_head": "gemm@sglang.bf16"}  # fmt: skip
    # fp8 per tensor: CUTLASS fp8_scaled_mm on Hopper, the table's kernel
    assert names("h100", "fp8")["qkv_proj"] == "gemm@sglang.fp8"
    # on B200 ModelOpt's FP8 linear runs FlashInfer's bmm_fp8, not the table's: pooled
    assert names("b200", "fp8")["qkv_proj"] == "gemm.fp8"
    assert names("b200", "nvfp4")["qkv_proj"] == "gemm@sglang.fp4"
    # B200's bf16 curve fitted alone misses SGLang's rows more than the pooled one (median
    # |error| 8.9% against 8.5%, tools/fit_engine_gemm.py pooled_error): not shipped
    assert names("b200", "bf16")["qkv_proj"] == "gemm.bf16"
    # other engines keep the pooled curves
    assert names("h200", "bf16", "trtllm")["qkv_proj"] == "gemm.bf16"
    # the curves stream weights at the GPU's pooled bf16 fraction (H200: 0.8002)
    k = load_hardware("h200").kernels
    assert {c.memory for c in k.gemm_engine["sglang"].values()} == {k.gemm["bf16"].memory}
