"""Shards, collectives and memory per GPU (calc.deploy.parallel)."""

from __future__ import annotations

import pytest

from calc.data.registry import all_models, load_hardware, load_model
from calc.deploy.parallel import (
    all_to_all_time_s,
    p2p_time_s,
    params_per_gpu,
    ring_allreduce_time_s,
    shard,
)
from calc.deploy.steps import decode_step
from calc.errors import InvalidInputError
from calc.formulas.attention_layout import attention_layout
from calc.formulas.params import model_params
from tests import reports as R
from tests.bands import bands


@pytest.mark.parametrize("cfg", all_models(), ids=lambda c: c.name)
def test_one_gpu_holds_every_parameter(cfg):
    assert params_per_gpu(cfg, shard(cfg)) == model_params(cfg).total


def test_tp2_splits_everything_but_the_norms():
    cfg = load_model("llama3-70b")
    p = model_params(cfg)
    # Q/K/V/O, FFN and the 128,256-row vocabulary tables all halve exactly; norms replicate
    assert 2 * params_per_gpu(cfg, shard(cfg, tp=2)) == p.total + p.norms


def test_kv_heads_replicate_when_fewer_than_tp():
    cfg = load_model("llama3-70b")  # 64 heads, 8 KV heads
    assert (shard(cfg, tp=4).n_heads, shard(cfg, tp=4).n_kv_heads) == (16, 2)
    assert (shard(cfg, tp=16).n_heads, shard(cfg, tp=16).n_kv_heads) == (4, 1)
    layout = attention_layout(cfg)
    h100 = load_hardware("h100")
    assert layout.n_kv_heads == 8
    kv = [R.deployment(cfg, h100, tp=tp).per_gpu.kv_cache_bytes(8192, 1) for tp in (1, 8, 16)]
    # tp 1: 80 × 2 × 8 × 128 × 2 B × 8192 = 2,684,354,560; tp 8 and 16: one KV head each
    assert kv == [2_684_354_560, 335_544_320, 335_544_320]


def test_mla_latent_is_not_split():
    cfg = load_model("deepseek-v3")
    layout = attention_layout(cfg)
    assert layout.kind == "mla"
    dep = R.deployment(cfg, load_hardware("h200"), tp=8, kv_dtype="bf16")
    kv = dep.per_gpu.kv_cache_bytes(1000, 1)
    # 61 layers × (512 + 64) × 2 B × 1,000 = 70,272,000 on every GPU
    assert kv == 70_272_000


def test_ring_allreduce_time():
    # 2·(4−1)/4 × 16,384 B / 450e9 B/s + 2·(4−1) × 5 µs = 5.4613e-8 + 3e-5 s
    t = ring_allreduce_time_s(16_384, 4, 450e9, 5e-6)
    assert t == pytest.approx(1.5 * 16_384 / 450e9 + 6 * 5e-6, rel=1e-12)
    assert t == pytest.approx(3.0054613e-5, rel=1e-6)
    assert ring_allreduce_time_s(16_384, 1, 450e9, 5e-6) == 0


def test_all_to_all_and_p2p_times():
    # (8−1)/8 × 1e6 B / 450e9 + 7 × 5 µs = 1.9444e-6 + 3.5e-5
    assert all_to_all_time_s(1e6, 8, 450e9, 5e-6) == pytest.approx(7 / 8 * 1e6 / 450e9 + 35e-6)
    assert p2p_time_s(1e6, 450e9, 5e-6) == pytest.approx(1e6 / 450e9 + 5e-6)


def _nccl_step(cfg, hw, **kw):
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.steps import step_of

    batch, ctx = kw.pop("batch"), kw.pop("ctx")
    dep = Deployment.build(cfg, hw, engine=EngineSettings(allreduce="nccl"), **kw)
    return step_of(dep, batch=batch, ctx=ctx)


def test_tp_adds_two_allreduces_per_layer():
    cfg, hw = load_model("llama3-70b"), bands("h100")
    step = _nccl_step(cfg, hw, batch=1, ctx=1024, tp=4)
    ar = next(o for o in step.ops if o.name == "tp_allreduce")
    # 160 all-reduces of 8192 × 2 B = 16,384 B
    msg = 16_384
    assert ar.bytes == 160 * msg
    # NCCL's cost model picks LL for 16 KiB: base 3.6 us + 2·(4−1) = 6 hops × 0.47 us (the
    # profile's LL128 hop 1.9 us × 0.47/1.9) + 2·3/4 × 16,384 B / (450e9 B/s × 1/4)
    # = 3.6 + 2.82 + 0.218453 = 6.638453 us, plus one kernel's fixed cost 5.6 us = 12.238453 us;
    # × 160 = 1.9581525 ms
    one = 3.6e-6 + 6 * 0.47e-6 + 1.5 * msg / 112.5e9 + 5.6e-6
    assert ar.time_s == pytest.approx(160 * one, rel=1e-9)
    assert ar.time_s == pytest.approx(1.9581525e-3, rel=1e-7)
    assert ar.bound == "network"
    # the engine's own kernels (vLLM 0.33's default): 16 KiB at 4 Hopper GPUs is within
    # FlashInfer's fused all-reduce (up to 2 MiB at TP 4, allreduce_rms_fusion.py), one of the
    # engine's one-shot / two-shot kernels, not symmetric memory's NVLS: one-shot 2 barriers
    # × 0.47 us + 3 × 16,384 B / 450e9 B/s = 0.94 + 0.109227 = 1.049227 us (two-shot 1.41 +
    # 0.054613 = 1.464613 us), + 5.6 us kernel = 6.649227 us; × 160 = 1.063876 ms
    eng = next(o for o in decode_step(cfg, hw, batch=1, ctx=1024, tp=4).ops
               if o.name == "tp_allreduce")  # fmt: skip
    one_shot = 2 * 0.47e-6 + 3 * msg / 450e9 + 5.6e-6
    assert eng.time_s == pytest.approx(160 * one_shot, rel=1e-9)
    assert eng.time_s == pytest.approx(1.063876e-3, rel=1e-6)


def test_engine_allreduce_algorithms_by_size():
    from calc.deploy.parallel import CUSTOM_MAX_BYTES, Link, allreduce_cost

    # H100 NVLink: 450e9 B/s per direction, LL128 hop 1.9 us (a barrier: 0.47 us), domain 8
    plain = Link(450e9, 1.9e-6, 8, 50e9, 4e-6, custom=True)
    # 16 KiB over 8: one-shot 0.94 + 7 × 16,384 / 450e9 = 0.94 + 0.2549 = 1.1949 us; two-shot
    # 1.41 + 14/8 × 0.036409 = 1.4737 us; NCCL LL 3.6 + 14 × 0.47 + ... > 10 us
    c = allreduce_cost(16_384, 8, plain)
    assert c.protocol == "one-shot"
    assert c.time_s(16_384) == pytest.approx(0.94e-6 + 7 * 16_384 / 450e9, rel=1e-9)
    # 4 MiB: two-shot 1.41 us + 1.75 × 4,194,304 / 450e9 = 1.41 + 16.31 = 17.72 us beats
    # one-shot (0.94 + 65.24 us) and NCCL Simple (8.4 + 14 × 3.4 × 0.47... + 1.75 × M / B)
    c = allreduce_cost(4 * 2**20, 8, plain)
    assert c.protocol == "two-shot"
    # past vLLM's 8 MiB buffer the custom kernels are not used: NCCL again
    assert allreduce_cost(CUSTOM_MAX_BYTES + 1, 8, plain).protocol in ("LL", "LL128", "Simple")
    # and at exactly 8 MiB: should_custom_ar is inp_size < max_size (vllm 0.8.3, SGLang 0.4.0)
    assert allreduce_cost(CUSTOM_MAX_BYTES, 8, plain).protocol in ("LL", "LL128", "Simple")
    assert allreduce_cost(CUSTOM_MAX_BYTES - 16, 8, plain).protocol == "two-shot"
    # NVLS where the switch multicasts: 2 barriers + 2·7/8 × M / B at any size (the ring's
    # bytes at the full link rate, two barriers instead of NCCL Simple's 8.4 us + 14 hops)
    nvls = Link(450e9, 1.9e-6, 8, 50e9, 4e-6, custom=True, multicast=True)
    big = allreduce_cost(64 * 2**20, 8, nvls)
    assert big.protocol == "NVLS"
    assert big.time_s(64 * 2**20) == pytest.approx(0.94e-6 + 2 * 7 / 8 * 64 * 2**20 / 450e9)
    # outside the NVLink domain (16 GPUs on HGX 8) only NCCL runs
    assert allreduce_cost(16_384, 16, nvls).protocol in ("LL", "LL128", "Simple")
    # an engine setting of "nccl" turns the custom kernels off
    from calc.deploy.deployment import EngineSettings

    with pytest.raises(InvalidInputError, match="--allreduce 'mpi'"):
        EngineSettings(allreduce="mpi")


def test_pp_adds_stage_sends_and_does_not_shorten_the_step():
    cfg, hw = load_model("llama3-70b"), bands("h100")
    one = decode_step(cfg, hw, batch=2, ctx=1024).time_s
    two = decode_step(cfg, hw, batch=2, ctx=1024, pp=2).time_s
    # one send of 2 × 8192 × 2 B = 32,768 B between the two stages
    bw, lat = hw.interconnect_bandwidth_bytes_per_s, hw.interconnect_latency_s
    # M / B + α + one kernel's fixed cost (5.6 us) = 0.0728 + 1.9 + 5.6 = 7.5728 us
    assert two - one == pytest.approx(32_768 / bw + lat + 5.6e-6, rel=1e-9)
    assert shard(cfg, pp=3).layers_per_stage == 27  # ceil(80 / 3)


def test_ep_spreads_experts_and_adds_all_to_all():
    cfg = load_model("deepseek-v3")
    s = shard(cfg, tp=8, ep=8)
    assert (s.n_experts, s.d_expert_ffn, s.gpus, s.dp_attn) == (32, 2048, 8, 1)
    s = shard(cfg, tp=1, ep=8)
    assert (s.gpus, s.dp_attn) == (8, 8)  # data-parallel attention
    # TP = EP (no data-parallel attention): every GPU holds all tokens, the experts' partial
    # outputs join the layer's all-reduce (vLLM uses all-to-all only with dp > 1)
    step = decode_step(cfg, load_hardware("h200"), batch=64, ctx=1024, tp=8, ep=8)
    names = {o.name for o in step.ops}
    assert "tp_allreduce" in names and "ep_all_to_all" not in names
    # EP 8 over data-parallel attention, as the engines run it by default on an HGX board:
    # every GPU all-gathers the stage's tokens before each MoE layer and reduce-scatters the
    # experts' outputs after it (vLLM's allgather_reducescatter; calc.deploy.moe_pipeline)
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.steps import step_of

    step = decode_step(cfg, load_hardware("h200"), batch=64, ctx=1024, tp=1, ep=8)
    names = {o.name for o in step.ops}
    assert "ep_gather_scatter" in names and "ep_all_to_all" not in names
    g = next(o for o in step.raw if o.name == "ep_gather_scatter")
    # 58 MoE layers × (64 tokens × 7,168 in bf16 gathered + the same reduce-scattered):
    # 58 × (917,504 + 917,504) B = 106,430,464 B; no imbalance (every token to every GPU)
    assert g.phase_bytes == (917_504, 917_504) and g.count == 2 * 58
    assert g.bytes == pytest.approx(106_430_464, rel=1e-12)
    # TensorRT-LLM's CUTLASS MoE quantises DeepSeek-V3's fp8-block128 activations inside the
    # fused op, so it gathers the bf16 hidden states, and beside each token its 8 routes
    # (int32 expert id + fp32 weight, fused_moe_cutlass.py forward_chunk):
    # 64 × 7,168 × 2 + 64 × 8 × 8 = 917,504 + 4,096 = 921,600 B; the output reduce-scattered
    # in bf16, 917,504 B
    trt = Deployment.build(cfg, load_hardware("h200"), ep=8, engine=EngineSettings(name="trtllm"))
    g = next(o for o in step_of(trt, batch=64, ctx=1024).raw if o.name == "ep_gather_scatter")
    assert g.phase_bytes == pytest.approx((921_600, 917_504), rel=1e-12)
    # on a multi-node NVLink domain (GB200 NVL72) TensorRT-LLM runs its all-to-all instead:
    # dispatch and combine to the GPUs that hold a token's experts
    dep = Deployment.build(cfg, load_hardware("gb200"), ep=8, engine=EngineSettings(name="trtllm"))
    step = step_of(dep, batch=64, ctx=1024)
    a2a = next(o for o in step.raw if o.name == "ep_all_to_all")
    # 2 × 58 MoE layers, DeepEP-style: a token goes once to each GPU holding one of its 8
    # experts: 8 × (1 − Π_{i<8} (224 − i) / (256 − i)) = 8 × (1 − 0.338168) = 5.294652 GPUs;
    # each GPU sends 64 / 8 tokens × 5.294652 × 7,168 = 303,616.5 elements in fp8 + scales
    # (1 + 4/128 B) and gets them back in bf16 (2 B): 920,337.6 B per layer, × 58 layers,
    # × the default expert imbalance under EP, 1.18 (LMSYS EP32: 59,337 / 50,302 tokens/s
    # per node with a perfect EPLB and with the default distribution, calc.deploy.moe_pipeline)
    from calc.deploy.ops import dispatch_ranks_per_token

    ranks = dispatch_ranks_per_token(256, 8, 8)
    assert ranks == pytest.approx(5.294652, rel=1e-6)
    assert a2a.bytes == pytest.approx(
        58 * 8 * ranks * 7168 * (1 + 4 / 128 + 2) * 1.18, rel=1e-12
    )
    assert a2a.bytes == pytest.approx(53_379_580.18 * 1.18, rel=1e-9)
    assert "tp_allreduce" not in {o.name for o in step.ops}
    # one GPU per expert group holds every expert of a token: one destination
    assert dispatch_ranks_per_token(256, 8, 1) == 1
    # a stated load imbalance scales the busiest GPU's routed work and its all-to-all
    skew_dep = Deployment.build(cfg, load_hardware("gb200"), ep=8, moe_imbalance=1.5,
                                engine=EngineSettings(name="trtllm"))  # fmt: skip
    skew = {o.name: o for o in step_of(skew_dep, batch=64, ctx=1024).raw}
    base = {o.name: o for o in step.raw}
    # (against the default 1.18 of the step above)
    assert skew["ep_all_to_all"].bytes == pytest.approx(1.5 / 1.18 * a2a.bytes)
    assert skew["routed_experts"].flops == pytest.approx(
        1.5 / 1.18 * base["routed_experts"].flops
    )
    with pytest.raises(InvalidInputError, match=r"--moe-imbalance must be in 1\.\.ep"):
        Deployment.build(cfg, load_hardware("h200"), ep=8, moe_imbalance=9)


@pytest.mark.parametrize(
    ("model", "kw", "message"),
    [
        ("llama3-70b", {"tp": 3}, "--tp 3 does not divide the 64 attention heads"),
        ("llama3-70b", {"ep": 2}, "needs a mixture-of-experts model"),
        ("mixtral-8x7b", {"ep": 3}, "must divide the 8 routed experts"),
        ("llama3-70b", {"pp": 81}, "exceeds the 80 layers"),
        ("llama3-70b", {"tp": 0}, "--tp must be an integer"),
    ],
)
def test_bad_parallelism_is_a_clear_error(model, kw, message):
    with pytest.raises(InvalidInputError, match=message):
        shard(load_model(model), **kw)


def test_nccl_allreduce_picks_the_protocol_by_size():
    from calc.deploy.parallel import Link, allreduce_cost, allreduce_time_s

    nvlink = Link(450e9, 1.9e-6, 8, 50e9, 4e-6)
    # 16 KiB over 8 GPUs: LL = 3.6 + 14 × 0.47 us + 14/8 × 16,384 B / (450e9 / 4)
    #                       = 3.6 + 6.58 + 0.254862 = 10.434862 us
    small = allreduce_cost(16_384, 8, nvlink)
    assert small.protocol == "LL"
    assert small.time_s(16_384) == pytest.approx(10.434862e-6, rel=1e-6)
    # 256 MiB: Simple = 8.4 + 14 × 3.4 us + 14/8 × 268,435,456 B / 450e9 B/s
    #                 = 8.4 + 47.6 + 1043.916 = 1099.916 us
    big = allreduce_cost(2**28, 8, nvlink)
    assert big.protocol == "Simple"
    assert allreduce_time_s(2**28, 8, nvlink) == pytest.approx(1099.916e-6, rel=1e-6)
    assert allreduce_time_s(16_384, 1, nvlink) == 0


def test_allreduce_past_the_scale_up_domain_crosses_the_network():
    from calc.deploy.parallel import Link, allreduce_cost

    link = Link(450e9, 1.9e-6, 8, 50e9, 4e-6)
    # TP 16 on two HGX nodes, 16 KiB, LL: 30 hops, 2 of them between nodes (2.7 us each, the
    # NET LL128 hop 4.0 × 2.7/4.0), 28 NVLink hops at 0.47 × 1.8 (NCCL's multi-node LL factor):
    # 3.6 + 28 × 0.846 + 2 × 2.7 = 32.688 us; bytes 30/16 × 16,384 / (50e9 / 4) = 2.4576 us
    c = allreduce_cost(16_384, 16, link)
    assert c.protocol == "LL"
    assert c.time_s(16_384) == pytest.approx(32.688e-6 + 2.4576e-6, rel=1e-6)
    cfg, hw = load_model("llama3-70b"), bands("h100")
    t16 = next(o for o in decode_step(cfg, hw, batch=1, ctx=1024, tp=16).ops
               if o.name == "tp_allreduce")  # fmt: skip
    t8 = next(o for o in decode_step(cfg, hw, batch=1, ctx=1024, tp=8).ops
              if o.name == "tp_allreduce")  # fmt: skip
    assert t16.time_s > 2 * t8.time_s  # the network's hops, not NVLink's


def test_kernel_fixed_cost_from_the_profile():
    cfg = load_model("llama2-7b")
    a100, h100 = bands("a100-80g"), bands("h100")
    assert h100.kernel_overhead_s == a100.kernel_overhead_s == 5.6e-6  # assumed equal to the fit
    step = decode_step(cfg, a100, batch=1, ctx=100)
    # 32 layers × 9 kernels (2 norms, qkv, rope/KV write + attention, o_proj, 3 FFN)
    # + embedding, final norm, lm_head, sampler = 292 kernels
    kernels = sum(o.kernels for o in step.raw)
    assert kernels == 292
    bare = decode_step(cfg, a100, batch=1, ctx=100, efficiency="expected")
    from dataclasses import replace

    from calc.deploy.rates import op_time

    no_fixed = sum(op_time(o, replace(bare.rates, kernel_s=0.0)) for o in bare.raw)
    # 292 × 5.6 us = 1.6352 ms
    assert step.time_s - no_fixed == pytest.approx(292 * 5.6e-6, rel=1e-9)
    # the speed of light pays none
    peak = decode_step(cfg, a100, batch=1, ctx=100, efficiency="peak")
    assert peak.rates.kernel_s == 0


def test_measured_allreduce_curve_leaves_custom_kernels_at_8_mib():
    """Llama-3.1-405B at TP 8 on H200 (SGLang 0.4.0): a decode pass of 256 tokens all-reduces
    256 × 16,384 × 2 B = 8,388,608 B = 8 MiB a rank, which should_custom_ar (inp_size <
    max_size, 8 MiB) hands to NCCL; 255 tokens (8,355,840 B) stay on the custom kernels."""
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.steps import step_of

    hw = load_hardware("h200")
    dep = Deployment.build(load_model("llama3.1-405b"), hw, tp=8,
                           engine=EngineSettings(name="sglang", version="0.4.0"))  # fmt: skip
    curves = hw.kernels.allreduce
    nccl, custom = curves["nccl"].segments[8], curves["custom"].segments[8]

    def least(segments, msg):
        # the fitted segments' least time: latency + 2 × 7/8 × M / bus bandwidth
        return min(lat + 2 * 7 / 8 * msg / bw for lat, bw in segments)

    # 126 layers × 2 all-reduces (after attention, after the MLP) = 252 a pass
    def allreduce_s(batch):
        step = step_of(dep, batch=batch, ctx=1000)
        return sum(o.time_s for o in step.ops if o.name == "tp_allreduce")

    # 8 MiB: H200's NCCL segments (16.8 us, 77.89 GB/s) and (43.11 us, 441 GB/s):
    # 43.11 + 1.75 × 8,388,608 / 441e9 × 1e6 = 43.11 + 33.29 = 76.40 us; 252 × = 19.25 ms
    assert allreduce_s(256) == pytest.approx(252 * least(nccl, 8_388_608), rel=1e-9)
    assert allreduce_s(256) == pytest.approx(19.25e-3, rel=2e-3)
    # 255 tokens: the custom segment (12.33 us, 417.8 GB/s): 12.33 + 1.75 × 8,355,840 /
    # 417.8e9 × 1e6 = 12.33 + 35.00 = 47.33 us, below NCCL's 76.2 us; 252 × = 11.93 ms
    assert allreduce_s(255) == pytest.approx(252 * least(custom, 8_355_840), rel=1e-9)
    assert allreduce_s(255) == pytest.approx(11.93e-3, rel=2e-3)


MIB, KIB = 2**20, 2**10


def test_vllm_allreduce_choice_by_release():
    """vLLM's all-reduce choice by message size, per release and compute capability, as its
    source declares it (calc/deploy/engines/vllm/rules.py; docs/step-time.md)."""
    from calc.deploy.engines.vllm.rules import VERSIONS
    from calc.deploy.parallel import ArStage, engine_route, stage_windows

    # 0.10.x: no tables (VLLM_ALLREDUCE_USE_SYMM_MEM off): the custom all-reduce below its
    # 8 MiB buffer at the world sizes it supports (2, 4, 6, 8), NCCL at any other
    default = (ArStage("own", 8 * MIB), ArStage("nccl"))
    plain = ((2, default), (4, default), (6, default), (8, default), (0, (ArStage("nccl"),)))
    assert engine_route(VERSIONS.rules("0.10.2"), (9, 0)) == plain
    # 0.11.0 on Hopper at TP 8: custom all-reduce below 256 KiB (all_reduce_utils.py
    # CUSTOM_ALL_REDUCE_MAX_SIZES["9.0"][8]), symmetric memory below 64 MiB with multimem
    # (symm_mem.py _WORLD_SIZES_MULTIMEM["9.0"] = [4, 6, 8]), NCCL beyond
    r11 = dict(engine_route(VERSIONS.rules("0.11.0"), (9, 0)))
    assert r11[8] == (
        ArStage("own", 256 * KIB),
        ArStage("symm", 64 * MIB, False, True),
        ArStage("nccl"),
    )
    assert r11[2][1] == ArStage("symm", 64 * MIB, False, False)  # TP 2: two-shot, no multimem
    # 0.33.0: FlashInfer's fused all-reduce up to 0.5 MiB (inclusive) goes first, so the
    # custom all-reduce's 256 KiB takes nothing; symmetric memory up to 64 MiB inclusive (0.22+)
    w = stage_windows(dict(engine_route(VERSIONS.rules("0.33.0"), (9, 0)))[8])
    assert [(st.algorithm, st.max_bytes, lo, strict) for st, lo, strict in w] == [
        ("own", 0.5 * MIB, None, False),
        ("symm", 64 * MIB, 0.5 * MIB, True),
        ("nccl", None, 64 * MIB, True),
    ]
    # B300 (10.3) has its tables from 0.19.0 (0.18.1: none, the default order)
    assert engine_route(VERSIONS.rules("0.18.1"), (10, 3)) == plain
    assert dict(engine_route(VERSIONS.rules("0.19.0"), (10, 3)))[8][2] == ArStage(
        "symm", 64 * MIB, False, True
    )
    # Ampere and ROCm (no capability listed): no tables at any release
    # (0.27+: the custom all-reduce at 16 GPUs too)
    sixteen = (*plain[:4], (16, default), plain[4])
    assert engine_route(VERSIONS.rules("0.26.0"), (8, 0)) == plain
    assert engine_route(VERSIONS.rules("0.33.0"), (8, 0)) == sixteen
    assert engine_route(VERSIONS.rules("0.33.0"), None) == sixteen


def test_declared_allreduce_choice_timed_by_its_algorithm():
    from calc.deploy.engines.vllm.rules import VERSIONS
    from calc.deploy.parallel import Link, allreduce_cost, allreduce_time_s, engine_route

    # H100 board: 450e9 B/s, LL128 hop 1.9 us (a barrier 0.47 us), 8 GPUs, NVLS
    def link(release):
        route = engine_route(VERSIONS.rules(release), (9, 0))
        return Link(450e9, 1.9e-6, 8, 50e9, 4e-6, custom=True, multicast=True, route=route)

    new, old = link("0.33.0"), link("0.10.0")
    # 1 MiB (Llama-3.1-70B decode at batch 64: 64 × 8,192 × 2 B) at TP 8. 0.33: symmetric
    # memory's multimem: 2 barriers 0.94 us + 2·7/8 × 1,048,576 / 450e9 = 0.94 + 4.0777 =
    # 5.0177 us; 0.10: the custom all-reduce's two-shot, 3 barriers 1.41 + 4.0777 = 5.4877 us
    m = 1 * MIB
    assert allreduce_cost(m, 8, new).protocol == "NVLS"
    assert allreduce_time_s(m, 8, new) == pytest.approx(0.94e-6 + 1.75 * m / 450e9, rel=1e-9)
    assert allreduce_time_s(m, 8, new) == pytest.approx(5.0177e-6, rel=1e-4)
    assert allreduce_cost(m, 8, old).protocol == "two-shot"
    assert allreduce_time_s(m, 8, old) == pytest.approx(5.4877e-6, rel=1e-4)
    # 16 MiB (a 1,024-token prefill): 0.33 still multimem, 0.94 + 65.2447 = 66.1847 us;
    # 0.10 past the 8 MiB buffer: NCCL, LL128 least: 10 + 14 × 1.9 = 36.6 us + 1.75 ×
    # 16,777,216 / (450e9 × 0.92) = 70.918 us -> 107.518 us
    m = 16 * MIB
    assert allreduce_time_s(m, 8, new) == pytest.approx(66.1847e-6, rel=1e-5)
    assert allreduce_cost(m, 8, old).protocol == "LL128"
    assert allreduce_time_s(m, 8, old) == pytest.approx(107.518e-6, rel=1e-5)
    # beyond symmetric memory's 64 MiB NCCL runs on 0.33 too; 16 KiB at 0.33 is FlashInfer's
    assert allreduce_cost(64 * MIB + 2, 8, new).protocol in ("LL", "LL128", "Simple")
    assert allreduce_cost(64 * MIB, 8, new).protocol == "NVLS"  # inclusive from 0.22
    assert allreduce_cost(16 * KIB, 8, new).protocol == "one-shot"
    # arrays: element-wise, each message its own stage
    import numpy as np

    t = allreduce_time_s(np.array([1.0, 16.0]) * MIB, 8, old)
    assert t[0] == pytest.approx(5.4877e-6, rel=1e-4) and t[1] == pytest.approx(107.518e-6, 1e-5)


def test_measured_tables_follow_the_release_choice():
    """Llama-3.1-70B at TP 8 on H100 (the measured all-reduce tables of aiconfigurator-core
    0.12.0: vLLM 0.24.0's all-reduce, NCCL 2.29.2): a 1,024-token prefill passes 16 MiB a
    rank. vLLM 0.33 sends it to symmetric memory (up to 64 MiB), timed by vLLM's own table's
    large-message segment, 14.0 us + 1.75 × 16,777,216 B / 402.8e9 B/s = 14.0 + 72.891 =
    86.891 us (the table measured 92.4 us there); vLLM 0.10 sends it to NCCL (past its 8 MiB
    buffer), NCCL's segment 41.97 us + 1.75 × 16,777,216 / 427.3e9 = 41.97 + 68.711 =
    110.681 us (NCCL's table: 121.9 us). 160 all-reduces: 13.90 ms against 17.71 ms. At 1 MiB
    (decode at batch 64) both take vLLM's table: 14.0 + 4.556 = 18.556 us."""
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.steps import step_of

    cfg, hw = load_model("llama3-70b"), load_hardware("h100")
    segs = hw.kernels.allreduce

    def ar(version, **counts):
        dep = Deployment.build(cfg, hw, engine=EngineSettings(version=version), tp=8)
        return next(o for o in step_of(dep, **counts).ops if o.name == "tp_allreduce").time_s

    lat, bw = segs["custom"].segments[8][1]
    nlat, nbw = segs["nccl"].segments[8][1]
    m = 16 * MIB
    assert ar("0.33.0", batch=1, prompt=1024) == pytest.approx(160 * (lat + 1.75 * m / bw))
    assert ar("0.10.0", batch=1, prompt=1024) == pytest.approx(160 * (nlat + 1.75 * m / nbw))
    assert ar("0.33.0", batch=1, prompt=1024) == pytest.approx(13.90e-3, rel=2e-3)
    assert ar("0.10.0", batch=1, prompt=1024) == pytest.approx(17.71e-3, rel=2e-3)
    dec = 160 * (lat + 1.75 * MIB / bw)
    assert ar("0.33.0", batch=64, ctx=2048) == pytest.approx(dec)
    assert ar("0.10.0", batch=64, ctx=2048) == pytest.approx(dec)
    assert dec == pytest.approx(160 * 18.556e-6, rel=2e-3)


def test_explain_names_the_declared_allreduce():
    """--explain's source line of an all-reduce says which algorithm the release runs."""
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.rates import allreduce_note
    from calc.deploy.steps import step_of

    cfg, hw = load_model("llama3-70b"), load_hardware("h100")

    def note(version, **counts):
        dep = Deployment.build(cfg, hw, engine=EngineSettings(version=version), tp=8)
        step = step_of(dep, **counts)
        op = next(o for o in step.raw if o.name == "tp_allreduce")
        return allreduce_note(op, step.rates)

    # decode at batch 64: 1,048,576 B a rank
    assert "symmetric memory (multimem) up to 64 MiB for 1,048,576 B" in note("0.33.0", batch=64,
                                                                             ctx=2048)  # fmt: skip
    assert "own one-shot/two-shot kernels up to 8 MiB exclusive" in note("0.10.0", batch=64,
                                                                        ctx=2048)  # fmt: skip
    # a 1,024-token prefill (16 MiB) on 0.10: NCCL, timed by NCCL's measured table
    assert "runs NCCL, timed by curve allreduce.nccl" in note("0.10.0", batch=1, prompt=1024)
    # and --explain's source line names that curve, not the custom one the op is looked up by
    from calc.deploy.rates import curve_explain

    dep = Deployment.build(cfg, hw, engine=EngineSettings(version="0.10.0"), tp=8)
    step = step_of(dep, batch=1, prompt=1024)
    op = next(o for o in step.raw if o.name == "tp_allreduce")
    assert curve_explain(op, step.rates)[2] == "allreduce.nccl"
    step = step_of(dep, batch=64, ctx=2048)  # 1 MiB: the custom kernels' curve
    op = next(o for o in step.raw if o.name == "tp_allreduce")
    assert curve_explain(op, step.rates)[2] == "allreduce.custom"
    # NCCL alone (--allreduce nccl) declares nothing
    dep = Deployment.build(cfg, hw, engine=EngineSettings(allreduce="nccl"), tp=8)
    step = step_of(dep, batch=64, ctx=2048)
    op = next(o for o in step.raw if o.name == "tp_allreduce")
    assert allreduce_note(op, step.rates) == ""


def _nvl72(route):
    # an NVL72-like domain: 900e9 B/s a direction, LL128 hop 1.9 us (a barrier 0.47 us)
    from calc.deploy.parallel import Link

    return Link(900e9, 1.9e-6, 72, 50e9, 4e-6, custom=True, multicast=True, route=route)


def test_vllm_custom_allreduce_world_sizes():
    """vLLM's custom all-reduce runs at 2, 4, 6, 8 GPUs (16 from 0.27.0, FlashInfer's fusion
    at 16 on Blackwell from 0.25.0): a 16-GPU group inside an NVL72 domain takes NCCL before."""
    from calc.deploy.engines.vllm.rules import VERSIONS
    from calc.deploy.parallel import allreduce_cost, allreduce_time_s, engine_route

    m = 1 * MIB
    old = _nvl72(engine_route(VERSIONS.rules("0.24.0"), (10, 0)))
    # NCCL, LL least: 3.6 + 30 × 0.47 = 17.7 us + 2·15/16 × 1,048,576 / (900e9 / 4) =
    # 8.7381 us -> 26.4381 us (LL128: 10 + 57 = 67 us + 2.37 us; Simple: 110.4 us + ...)
    assert allreduce_cost(m, 16, old).protocol == "LL"
    assert allreduce_time_s(m, 16, old) == pytest.approx(26.4381e-6, rel=1e-5)
    # 0.25.0 on Blackwell: FlashInfer up to 64 MiB at 16; its two-shot least: 3 barriers
    # 1.41 us + 1.875 × 1,048,576 / 900e9 = 2.1845 us -> 3.5945 us (one-shot: 0.94 + 15 ×
    # 1,048,576 / 900e9 = 18.42 us)
    new = _nvl72(engine_route(VERSIONS.rules("0.25.0"), (10, 0)))
    assert allreduce_cost(m, 16, new).protocol == "two-shot"
    assert allreduce_time_s(m, 16, new) == pytest.approx(3.5945e-6, rel=1e-4)
    # Hopper has no 16-GPU entry at any release before 0.27: NCCL; 0.27.0's custom all-reduce
    # at 16 takes it below its 8 MiB buffer (exclusive), NCCL from it
    assert allreduce_cost(m, 16, _nvl72(engine_route(VERSIONS.rules("0.26.0"), (9, 0)))
                          ).protocol == "LL"  # fmt: skip
    r27 = _nvl72(engine_route(VERSIONS.rules("0.27.0"), (9, 0)))
    assert allreduce_cost(m, 16, r27).protocol == "two-shot"
    assert allreduce_cost(8 * MIB, 16, r27).protocol in ("LL", "LL128", "Simple")
    # 12 GPUs: no engine kernel at any release
    assert allreduce_cost(m, 12, r27).protocol in ("LL", "LL128", "Simple")


def test_sglang_custom_allreduce_by_release_and_vendor():
    """SGLang's custom all-reduce: 2, 4, 6, 8 GPUs; its buffer 8 MiB (16 MiB under ROCm from
    0.4.4); below it to 0.5.8, up to it from 0.5.9 (custom_all_reduce.py should_custom_ar)."""
    from calc.deploy.engines.sglang.rules import VERSIONS
    from calc.deploy.parallel import ArStage, Link, allreduce_cost, allreduce_time_s, engine_route

    assert dict(engine_route(VERSIONS.rules("0.4.3"), None, rocm=True))[8][0] == ArStage(
        "own", 8 * MIB)  # fmt: skip
    assert dict(engine_route(VERSIONS.rules("0.4.4"), None, rocm=True))[8][0] == ArStage(
        "own", 16 * MIB)  # fmt: skip
    assert dict(engine_route(VERSIONS.rules("0.5.23"), (9, 0)))[4][0] == ArStage(
        "own", 8 * MIB, True)  # fmt: skip

    def h100(release, rocm=False):  # an 8-GPU board, 450e9 B/s, LL128 hop 1.9 us
        route = engine_route(VERSIONS.rules(release), (9, 0), rocm)
        return Link(450e9, 1.9e-6, 8, 50e9, 4e-6, custom=True, route=route)

    m = 8 * MIB  # Llama-3.1-405B's 256 tokens × 16,384 × 2 B
    # 0.5.8: NCCL, LL128 least: 10 + 14 × 1.9 = 36.6 us + 1.75 × 8,388,608 / 414e9 =
    # 35.4594 us -> 72.0594 us; 0.5.9: two-shot, 1.41 + 1.75 × 8,388,608 / 450e9 = 32.6223
    # -> 34.0323 us
    assert allreduce_cost(m, 8, h100("0.5.8")).protocol == "LL128"
    assert allreduce_time_s(m, 8, h100("0.5.8")) == pytest.approx(72.0594e-6, rel=1e-5)
    assert allreduce_time_s(m, 8, h100("0.5.9")) == pytest.approx(34.0323e-6, rel=1e-5)
    # under ROCm the 16 MiB buffer takes 12 MiB on its kernels; CUDA's goes to NCCL
    assert allreduce_cost(12 * MIB, 8, h100("0.5.3", rocm=True)).protocol == "two-shot"
    assert allreduce_cost(12 * MIB, 8, h100("0.5.3")).protocol == "LL128"
    # 16 GPUs inside an NVL72 domain: NCCL (LL at 1 MiB, as for vLLM 0.24 above)
    r = _nvl72(engine_route(VERSIONS.rules("0.5.23"), (10, 0)))
    assert allreduce_time_s(MIB, 16, r) == pytest.approx(26.4381e-6, rel=1e-5)


def test_trtllm_auto_allreduce_workspace():
    """TensorRT-LLM's AUTO all-reduce: its kernels up to 16,000,000 B at TP 2 and 8,000,000 B
    above (allreduceOp.cpp ifFallbackToNCCL: message_size_bytes > workspace), NCCL beyond."""
    from calc.deploy.engines.trtllm.rules import VERSIONS
    from calc.deploy.parallel import Link, allreduce_cost, allreduce_time_s, engine_route

    for release in ("1.0.0", "1.2.0"):
        route = engine_route(VERSIONS.rules(release), (9, 0))
        link = Link(450e9, 1.9e-6, 8, 50e9, 4e-6, custom=True, route=route)
        # 8,000,000 B at TP 8 stays on its two-shot: 1.41 + 1.75 × 8e6 / 450e9 = 31.1111 ->
        # 32.5211 us; 8 MiB (8,388,608 B > 8e6) goes to NCCL: 72.0594 us (LL128, as above)
        assert allreduce_cost(8_000_000, 8, link).protocol == "two-shot"
        assert allreduce_time_s(8_000_000, 8, link) == pytest.approx(32.5211e-6, rel=1e-5)
        assert allreduce_time_s(8 * MIB, 8, link) == pytest.approx(72.0594e-6, rel=1e-5)
        # TP 2: up to 16,000,000 B; 16 MiB to NCCL
        assert allreduce_cost(16_000_000, 2, link).protocol in ("one-shot", "two-shot")
        assert allreduce_cost(16 * MIB, 2, link).protocol in ("LL", "LL128", "Simple")


def test_trtllm_undeclared_sizes_keep_least_time():
    """TensorRT-LLM above TP 8 (MNNVL, NCCL's symmetric kernels: not declared) keeps the least
    time over NCCL and the engine's kernels, NVLS included on a multicast domain."""
    from calc.deploy.engines.trtllm.rules import VERSIONS
    from calc.deploy.parallel import allreduce_cost, allreduce_time_s, engine_route

    link = _nvl72(engine_route(VERSIONS.rules("1.2.0"), (10, 0)))
    assert link.stages(16) is None and link.stages(8) is not None
    # 1 MiB at 16: NVLS, 2 barriers 0.94 us + 1.875 × 1,048,576 / 900e9 = 2.1845 -> 3.1245 us
    assert allreduce_cost(MIB, 16, link).protocol == "NVLS"
    assert allreduce_time_s(MIB, 16, link) == pytest.approx(3.1245e-6, rel=1e-4)


def test_trtllm_explain_names_its_workspace(cli):
    """--explain names TensorRT-LLM's AUTO limit in bytes (8,000,000 B is not a whole MiB)."""
    r = cli("latency", "--model", "llama3-70b", "-H", "h100", "--tp", "8", "--engine", "trtllm",
            "--batch", "256", "--prompt", "1024", "--explain")  # fmt: skip
    assert r.code == 0, r.err
    # decode at batch 256: 256 × 8,192 × 2 = 4,194,304 B, below the 8,000,000 B workspace
    text = " ".join(r.out.split())
    assert "own one-shot/two-shot kernels up to 8,000,000 B" in text
    # timed by TensorRT-LLM's own measured curve (trtallreduce round), then the message
    src = "comm/trtllm/1.3.0rc20/custom_allreduce_perf.parquet"
    assert f"allreduce@trtllm ({src}) for 4,194,304 B at 8 GPUs" in text
    # the curve's name and its table, each said (tests/test_engine_allreduce_curve.py's CLI
    # check, folded in here: the same command at batch 128)
    assert "timed by its own curve allreduce@trtllm" in text and src in text
