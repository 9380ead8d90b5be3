"""FLOPs per op (calc.formulas.flops) and their composition into a step (calc.deploy.ops,
calc.deploy.steps)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from calc.data.registry import load_model
from calc.deploy.steps import decode_step, prefill
from calc.formulas import flops as F


def _op(step, name):
    return next(o for o in step.ops if o.name == name)


def test_llama3_70b_linear_flops_per_decode_token_per_layer():
    # 2 × (8192·8192 [Q] + 2·8192·1024 [K,V] + 8192·8192 [O] + 3·8192·28672 [gate, up, down])
    # = 2 × (67,108,864 + 16,777,216 + 67,108,864 + 704,643,072) = 2 × 855,638,016
    # = 1,711,276,032
    per_layer = (
        F.qkv_proj_flops(1, 8192, 64, 8, 128, 128)
        + F.o_proj_flops(1, 64, 128, 8192)
        + F.ffn_flops(1, 8192, 28672, gated=True)
    )
    assert per_layer == 1_711_276_032


def test_llama3_70b_linear_flops_80_layers_from_the_decode_ops():
    step = decode_step(load_model("llama3-70b"), None, batch=1, ctx=1)
    linear = sum(_op(step, n).flops for n in ("qkv_proj", "o_proj", "ffn"))
    # 80 × 1,711,276,032 = 136,902,082,560
    assert linear == 136_902_082_560
    # + lm_head 2 × 8192 × 128,256 = 2,101,346,304
    # + attention at ctx 1: 80 layers × (2 + 2) × 1 pair × 64 heads × 128 = 2,621,440
    # = 139,006,050,304 FLOP per token
    assert step.flops == 136_902_082_560 + 2_101_346_304 + 2_621_440 == 139_006_050_304


def test_decode_flops_grow_with_ctx_by_the_attention_term():
    cfg = load_model("llama3-70b")
    a = decode_step(cfg, None, batch=1, ctx=1000).flops
    b = decode_step(cfg, None, batch=1, ctx=2000).flops
    # 1,000 more keys × 80 layers × 4 × 64 heads × 128 = 2,621,440,000
    assert b - a == 2_621_440_000


def test_causal_pairs_are_a_triangle_not_a_square():
    assert F.causal_pairs(1) == 1
    assert F.causal_pairs(4) == 10  # 1 + 2 + 3 + 4
    assert F.causal_pairs(2048) == 2_098_176  # 2048 · 2049 / 2
    assert F.causal_pairs(np.array([1, 4])).tolist() == [1, 10]


def test_causal_attention_flops_of_a_prompt_llama3_8b():
    # Llama 3 8B: 32 layers, 32 heads, head_dim 128; a 2,048-token prompt.
    # pairs = 2048 · 2049 / 2 = 2,098,176
    # scores = values = 2 × 2,098,176 × 32 × 128 = 17,188,257,792 per layer
    # both, 32 layers: 2 × 17,188,257,792 × 32 = 1,100,048,498,688
    assert F.attn_score_flops(2_098_176, 32, 128) == 17_188_257_792
    assert F.attn_value_flops(2_098_176, 32, 128) == 17_188_257_792
    step = prefill(load_model("llama3-8b"), None, prompt=2048, batch=1)
    attn = _op(step, "attn_scores").flops + _op(step, "attn_values").flops
    assert attn == 1_100_048_498_688
    # against the S² count (2048² pairs) it would be 4,096 / 4,097... ≈ 2× too high
    assert attn < 4 * 2048 * 2048 * 32 * 128 * 32


def test_mixtral_active_ffn_flops():
    # Mixtral 8x7B: 2 of 8 experts, each gated 3 × 4096 × 14336 = 176,160,768 weights
    # per token per layer: 2 × 2 × 176,160,768 = 704,643,072 FLOP; router 2 × 4096 × 8 = 65,536
    assert F.routed_expert_flops(1, 2, 4096, 14336, gated=True) == 704_643_072
    assert F.router_flops(1, 4096, 8) == 65_536
    step = decode_step(load_model("mixtral-8x7b"), None, batch=1, ctx=1)
    # 32 layers × 704,643,072 = 22,548,578,304 ; router 32 × 65,536 = 2,097,152
    assert _op(step, "routed_experts").flops == 22_548_578_304
    assert _op(step, "router").flops == 2_097_152
    assert not any(o.name == "ffn" for o in step.ops)  # every Mixtral layer is MoE


def test_moe_reads_the_experts_a_batch_touches():
    assert F.expected_active_experts(8, 2, 1) == pytest.approx(2)  # one token: its top-2
    # two tokens: 8 × (1 − (6/8)²) = 8 × 0.4375 = 3.5
    assert F.expected_active_experts(8, 2, 2) == pytest.approx(3.5)
    assert F.expected_active_experts(256, 8, 10_000) == pytest.approx(256)
    cfg = load_model("mixtral-8x7b")
    one = _op(decode_step(cfg, None, batch=1, ctx=64), "routed_experts")
    # weights read at batch 1: 32 layers × 2 experts × 176,160,768 × 2 B = 22,548,578,304 B
    assert one.bytes == pytest.approx(22_548_578_304 + 32 * 2 * 2 * 4096 * 2)  # + activations


def test_the_busiest_expert_parallel_gpu_touches_more_experts_than_the_mean():
    # E 8, k 2, 1 token, ep 2: n = 4 experts a GPU, p = 1 − 6/8 = 1/4; Binomial(4, 1/4)
    # pmf 81, 108, 54, 12, 1 (/256), CDF F(0..3) = 81, 189, 243, 255 (/256);
    # E[max of 2] = Σ (1 − F²) = 4 − (81² + 189² + 243² + 255²) / 256² = 4 − 166,356 / 65,536
    assert F.busiest_active_experts(8, 2, 1, 2) == pytest.approx(4 - 166_356 / 65_536)
    # ep 1: the whole batch's distinct experts, 256 × (1 − (248/256)⁴)
    assert F.busiest_active_experts(256, 8, 4, 1) == pytest.approx(256 * (1 - (248 / 256) ** 4))
    assert F.busiest_active_experts(256, 8, 0, 4) == 0  # no token, no expert
    assert F.busiest_active_experts(256, 8, 100_000, 8) == pytest.approx(32)  # all 256 / 8
    tokens = np.array([1, 4, 16, 64])
    many = F.busiest_active_experts(256, 8, tokens, 8)
    assert many == pytest.approx([F.busiest_active_experts(256, 8, t, 8) for t in tokens])
    mean = F.expected_active_experts(256, 8, tokens) / 8
    assert np.all(many > mean) and np.all(many <= 32)
    # one token at ep 8: 8 / 8 = 1 expert a GPU on average, 2.54 on the busiest (the expected
    # maximum of 8 Binomial(32, 1/32) counts; a 3,000-draw simulation of the routing: 2.55)
    assert 2.4 < F.busiest_active_experts(256, 8, 1, 8) < 2.7


def test_an_expert_parallel_decode_step_streams_the_busiest_gpus_experts():
    cfg = load_model("minimax-m2.5")  # 62 MoE layers, 256 experts, top-8
    for ep in (4, 8):
        step = decode_step(cfg, None, batch=4, ctx=1024, tp=ep, ep=ep)
        op = next(o for o in step.raw if o.name == "routed_experts")
        # every layer waits for the GPU that touches the most of its E / ep experts
        assert op.active_experts == pytest.approx(62 * F.busiest_active_experts(256, 8, 4, ep))
        assert op.active_experts > 62 * F.expected_active_experts(256, 8, 4) / ep


def test_deepseek_v3_mla_absorbed_decode_flops():
    # per token per layer, 128 heads, nope 128, rope 64, kv_lora 512, v 128:
    # q_absorb 2·128·128·512 = 16,777,216; v_absorb 2·128·512·128 = 16,777,216
    # per key: scores 2·128·(512+64) = 147,456; values 2·128·512 = 131,072
    assert F.mla_q_absorb_flops(1, 128, 128, 512) == 16_777_216
    assert F.mla_v_absorb_flops(1, 128, 512, 128) == 16_777_216
    assert F.mla_absorbed_score_flops(1, 128, 512, 64) == 147_456
    assert F.mla_absorbed_value_flops(1, 128, 512) == 131_072
    step = decode_step(load_model("deepseek-v3"), None, batch=1, ctx=4096)
    # 61 layers × 4,096 keys × (147,456 + 131,072) = 61 × 1,140,850,688 = 69,591,891,968
    assert _op(step, "attn_scores").flops + _op(step, "attn_values").flops == 69_591_891_968
    names = [o.name for o in step.ops]
    assert "kv_up" not in names and "q_absorb" in names  # absorbed form at decode
    pre = prefill(load_model("deepseek-v3"), None, prompt=16, batch=1)
    # explicit form at prefill: kv_up = 61 × 2 × 16 × 512 × 128·(128 + 128) = 32,749,125,632
    assert _op(pre, "kv_up").flops == 32_749_125_632


def test_lm_head_only_for_the_last_prompt_token():
    cfg = load_model("llama3-8b")
    # 2 × 4096 × 128,256 per sequence, regardless of the prompt length
    for prompt in (1, 512):
        assert _op(prefill(cfg, None, prompt=prompt, batch=3), "lm_head").flops == (
            3 * 2 * 4096 * 128_256
        )


@given(batch=st.integers(1, 512), ctx=st.integers(1, 100_000))
def test_decode_flops_linear_in_batch(batch, ctx):
    cfg = load_model("llama3-8b")
    one = decode_step(cfg, None, batch=1, ctx=ctx).flops
    assert decode_step(cfg, None, batch=batch, ctx=ctx).flops == batch * one


@given(s=st.integers(1, 50_000))
def test_prefill_attention_is_causal_sum_of_decode_steps(s):
    # the prompt's pairs are the decode pairs of positions 1..S: Σ i = S(S+1)/2
    assert F.causal_pairs(s) == s * (s + 1) // 2
    assert F.causal_pairs(s) - F.causal_pairs(s - 1) == F.decode_pairs(s)
