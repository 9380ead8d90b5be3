"""Roofline latency (calc.reports.latency): ridge points, TPOT/TTFT/E2E, bands, vectorised paths."""

from __future__ import annotations

import numpy as np
import pytest

from calc.data.registry import all_hardware, load_hardware, load_model
from calc.deploy.rates import compute_dtype, ridge_points, with_efficiency
from calc.deploy.steps import decode_step, prefill, tpot_s, ttft_s
from calc.errors import InvalidInputError
from calc.formulas.params import model_params
from tests import reports as R
from tests.bands import bands


@pytest.mark.parametrize("hw", all_hardware(), ids=lambda h: h.name)
def test_ridge_point_of_each_shipped_profile(hw):
    # ridge = dense peak FLOP/s of the dtype / HBM bytes/s, from the profile's own values:
    # a100-80g bf16: 312e12 / 2.039e12 = 153.0 FLOP/B; h100 bf16: 989.4e12 / 3.35e12 = 295.3;
    # h200 bf16: 989.4e12 / 4.8e12 = 206.1; b200 bf16: 2.25e15 / 7.7e12 = 292.2 (as shipped).
    points = ridge_points(hw)
    assert set(points) == set(hw.peak_flops_per_s)
    for dtype, peak in hw.peak_flops_per_s.items():
        assert points[dtype] == pytest.approx(peak / hw.hbm_bandwidth_bytes_per_s, rel=1e-15)
    assert 1 < points["bf16"] < 2000


def test_h100_ridge_point_pinned():
    # h100.yaml: bf16 989,400,000,000,000 FLOP/s / 3,350,000,000,000 B/s = 295.3433 FLOP/B
    #            fp8 1,978,900,000,000,000 / 3.35e12 = 590.7164 FLOP/B
    points = ridge_points(load_hardware("h100"))
    assert points["bf16"] == pytest.approx(295.343283582, rel=1e-9)
    assert points["fp8"] == pytest.approx(590.716417910, rel=1e-9)


def test_llama3_70b_bf16_batch1_h100_speed_of_light_tpot():
    cfg, hw = load_model("llama3-70b"), load_hardware("h100")
    assert hw.hbm_bandwidth_bytes_per_s == 3.35e12
    p = model_params(cfg)
    # weights read per step: every weight but the 128,256 × 8192 embedding table (one row is
    # gathered): (70,553,706,496 − 1,050,673,152) × 2 B = 139,006,066,688 B
    weights = (p.total - p.embedding) * 2
    assert weights == 139_006_066_688
    # KV read at ctx 8192: 80 × 2 × 8 × 128 × 2 B = 327,680 B/token × 8,192 = 2,684,354,560 B
    kv = 327_680 * 8192
    sol = decode_step(cfg, hw, batch=1, ctx=8192, efficiency="peak")
    # every op is memory-bound at batch 1 (intensity ≈ 1 FLOP/B for the GEMMs, ≈ 8 for GQA
    # attention, ridge 295), so the speed of light is the bytes over 3.35 TB/s
    assert all(o.bound == "memory" for o in sol.ops)
    assert sol.time_s == pytest.approx(sol.bytes / 3.35e12, rel=1e-12)
    weight_part = sum(o.weight_bytes for o in sol.raw)
    kv_part = sum(o.kv_bytes for o in sol.raw)
    assert weight_part == 139_006_066_688 + 8192 * 2  # + the one embedding row
    assert kv_part == pytest.approx(kv + 327_680)  # + the new token's K/V written
    # activations (inputs/outputs of each op) are < 0.02% of the traffic
    assert (sol.bytes - weight_part - kv_part) / sol.bytes < 2e-4
    # (139,006,066,688 + 2,684,354,560) B = 141,690,421,248 B / 3.35e12 B/s = 42.2956 ms
    assert (weights + kv) / 3.35e12 == pytest.approx(0.0422956481, rel=1e-9)
    assert sol.time_s == pytest.approx((weights + kv) / 3.35e12, rel=2e-4)


def test_llama3_70b_expected_tpot_within_band():
    cfg, hw = load_model("llama3-70b"), bands("h100")
    f = R.latency(cfg, hw, prompt=1024, gen=128, batch=1, ctx=8192).fields
    assert f["tpot_speed_of_light_s"] == pytest.approx(0.04230, rel=1e-3)
    assert f["tpot_speed_of_light_s"] < f["tpot_low_s"] <= f["tpot_s"] <= f["tpot_high_s"]
    # memory-bound: expected = speed of light / memory efficiency (0.84 in h100.yaml) + the
    # fixed kernel cost: 80 layers × 9 kernels (2 norms, qkv, rope/KV write + attention, o_proj,
    # 3 FFN) + embedding, final norm, lm_head, sampler = 724 kernels × 5.6 us = 4.0544 ms
    eff = hw.efficiency.memory
    fixed = 724 * 5.6e-6
    assert f["tpot_s"] == pytest.approx(f["tpot_speed_of_light_s"] / eff.expected + fixed, rel=1e-9)
    assert f["tpot_low_s"] == pytest.approx(f["tpot_speed_of_light_s"] / eff.high + fixed, rel=1e-9)
    assert f["tpot_high_s"] == pytest.approx(f["tpot_speed_of_light_s"] / eff.low + fixed, rel=1e-9)
    assert f["output_tokens_per_s"] == pytest.approx(1 / f["tpot_s"])
    assert f["output_tokens_low_per_s"] <= f["output_tokens_per_s"] <= f["output_tokens_high_per_s"]


def test_prefill_is_compute_bound_and_ttft_follows_flops():
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    sol = prefill(cfg, hw, prompt=4096, batch=1, efficiency="peak")
    big = {o.name: o for o in sol.ops}
    assert big["ffn"].bound == "compute" and big["attn_scores"].bound == "compute"
    # the matmuls and attention dominate: TTFT ≥ FLOPs / 989.4 TFLOP/s
    assert sol.time_s >= sol.flops / 989.4e12


def test_decode_turns_compute_bound_at_large_batch():
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    ffn = lambda b: next(  # noqa: E731
        o for o in decode_step(cfg, hw, batch=b, ctx=512).ops if o.name == "ffn"
    )
    # intensity of a bf16 GEMM ≈ batch FLOP/B; expected ridge = 295.3 × 0.75 / 0.88 = 251.7
    assert ffn(64).bound == "memory"
    assert ffn(1024).bound == "compute"


def test_e2e_is_the_exact_sum_of_growing_decode_steps():
    cfg, hw = load_model("llama3-8b"), load_hardware("a100-80g")
    f = R.latency(cfg, hw, prompt=100, gen=6, batch=2).fields
    steps = [decode_step(cfg, hw, batch=2, ctx=100 + j).time_s for j in range(1, 6)]
    ttft = prefill(cfg, hw, prompt=100, batch=2).time_s
    assert f["ttft_s"] == pytest.approx(ttft, rel=1e-12)
    assert f["e2e_s"] == pytest.approx(ttft + sum(steps), rel=1e-12)
    assert f["tpot_mean_s"] == pytest.approx(sum(steps) / 5, rel=1e-12)
    assert f["ctx"] == 106  # default: the last step's context
    assert f["e2e_tokens_per_s"] == pytest.approx(2 * 6 / f["e2e_s"])


@pytest.mark.parametrize(
    ("model", "kw"),
    [
        ("llama3-70b", {"tp": 4}),
        ("mixtral-8x7b", {}),
        ("deepseek-v3", {"tp": 8, "ep": 8}),
        ("falcon-7b", {}),
    ],
)
def test_vectorised_tpot_and_ttft_equal_the_scalar_paths(model, kw):
    cfg, hw = load_model(model), load_hardware("h200")
    batch = np.array([1, 3, 64])
    ctx = np.array([[17], [4096]])
    got = tpot_s(cfg, hw, batch=batch, ctx=ctx, **kw)
    assert got.shape == (2, 3)
    for i, c in enumerate(ctx[:, 0]):
        for j, b in enumerate(batch):
            want = decode_step(cfg, hw, batch=int(b), ctx=int(c), **kw).time_s
            assert got[i, j] == pytest.approx(want, rel=1e-12)
    prompts = np.array([[1], [128], [2000]])
    got = ttft_s(cfg, hw, prompt=prompts, batch=batch, efficiency="low", **kw)
    for i, s in enumerate(prompts[:, 0]):
        for j, b in enumerate(batch):
            want = prefill(cfg, hw, prompt=int(s), batch=int(b), efficiency="low", **kw).time_s
            assert got[i, j] == pytest.approx(want, rel=1e-12)


def test_vectorised_inputs_are_checked():
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    with pytest.raises(InvalidInputError, match="--ctx values must be in"):
        tpot_s(cfg, hw, batch=1, ctx=np.array([0, 5]))
    with pytest.raises(InvalidInputError, match="--batch must hold whole numbers"):
        tpot_s(cfg, hw, batch=np.array([1.5]), ctx=5)


def test_compute_dtype_rules():
    h100 = load_hardware("h100").peak_flops_per_s
    a100 = load_hardware("a100-80g").peak_flops_per_s
    assert compute_dtype("bf16", h100) == "bf16"
    assert compute_dtype("fp8", h100) == "fp8"  # W8A8 on Hopper
    assert compute_dtype("fp8", a100) == "bf16"  # weight-only on Ampere
    assert compute_dtype("int4", h100) == "bf16"  # weight-only quantisation
    assert compute_dtype("int8", h100, "int8") == "int8"
    with pytest.raises(InvalidInputError, match="has no fp8 peak"):
        compute_dtype("bf16", a100, "fp8")


def test_int4_weights_halve_the_memory_bound_step_vs_int8():
    cfg, hw = load_model("llama3-70b"), load_hardware("h100")
    w8 = decode_step(cfg, hw, batch=1, ctx=16, weight_dtype="int8", efficiency="peak")
    w4 = decode_step(cfg, hw, batch=1, ctx=16, weight_dtype="int4", efficiency="peak")
    ops8 = {o.name: o for o in w8.ops}
    ops4 = {o.name: o for o in w4.ops}
    # --weight-dtype re-quantises the linear layers (calc.deploy.checkpoint): their steps halve,
    # lm_head stays bf16 and takes the same time
    for name in ("qkv_proj", "o_proj", "ffn"):
        assert ops4[name].time_s / ops8[name].time_s == pytest.approx(0.5, rel=2e-3)
    assert ops4["lm_head"].time_s == ops8["lm_head"].time_s


def test_efficiency_overrides_and_checks():
    hw = load_hardware("h100")
    over = with_efficiency(hw, matmul=0.5)
    assert (over.efficiency.matmul.low, over.efficiency.matmul.high) == (0.5, 0.5)
    assert over.efficiency.memory == hw.efficiency.memory
    with pytest.raises(InvalidInputError, match="--mem-eff must be a fraction"):
        with_efficiency(hw, memory=1.5)
    cfg = load_model("llama3-8b")
    f = R.latency(cfg, hw, prompt=64, gen=2, batch=1, mem_eff=0.5).fields
    # memory-bound at half the bandwidth, plus 32 × 9 + 4 = 292 kernels × 5.6 us = 1.6352 ms
    assert f["tpot_s"] == pytest.approx(2 * f["tpot_speed_of_light_s"] + 292 * 5.6e-6, rel=1e-9)
    assert f["tpot_low_s"] == f["tpot_s"] == f["tpot_high_s"]
    with pytest.raises(InvalidInputError, match="efficiency 'best'"):
        decode_step(cfg, hw, batch=1, ctx=1, efficiency="best")


def test_memory_per_gpu_and_fit_warning():
    cfg, hw = load_model("llama3-70b"), load_hardware("h100")
    one = R.latency(cfg, hw, prompt=1024, gen=1024, batch=1)
    # 70,553,706,496 × 2 B = 141,107,412,992 B of weights on one GPU > 80 GiB
    assert one.fields["weights_bytes_per_gpu"] == 141_107_412_992
    assert one.fields["fits"] is False
    assert any("does not fit" in w and "--tp" in w for w in one.warnings)
    four = R.latency(cfg, hw, prompt=1024, gen=1024, batch=1, tp=4).fields
    assert four["fits"] is True and four["gpus"] == 4
    # KV per GPU: 2 of 8 KV heads: 327,680 / 4 = 81,920 B/token × 2,048 tokens = 167,772,160
    assert four["kv_cache_bytes_per_gpu"] == 167_772_160


def test_attention_runs_at_the_16_bit_peak_even_with_fp8_weights():
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    step = prefill(cfg, hw, prompt=8192, batch=1, weight_dtype="fp8", efficiency="peak")
    ops = {o.name: o for o in step.ops}
    assert step.compute_dtype == "fp8"
    # attention: compute-bound at bf16 989.4 TFLOP/s; the FFN GEMMs at fp8 1,978.9 TFLOP/s
    assert ops["attn_scores"].time_s == pytest.approx(ops["attn_scores"].flops / 989.4e12)
    assert ops["ffn"].time_s == pytest.approx(ops["ffn"].flops / 1978.9e12)


def test_bad_efficiency_name_rejected_even_without_hardware():
    from calc.data.registry import load_model
    from calc.deploy.steps import decode_step
    from calc.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="best"):
        decode_step(load_model("llama3-8b"), None, batch=1, ctx=1, efficiency="best")
