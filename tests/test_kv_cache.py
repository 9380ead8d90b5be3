"""KV-cache bytes for every attention kind, exact, with the arithmetic beside each value."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from calc.data.registry import load_model
from calc.errors import InvalidInputError
from calc.formulas.attention_layout import attention_layout
from calc.formulas.kv_cache import (
    kv_bytes_per_token,
    kv_bytes_per_token_per_layer,
    kv_cache_bytes,
    mla_kv_bytes_per_token_per_layer,
)
from tests import reports as R


def test_gqa_llama3_70b_bf16():
    cfg = load_model("llama3-70b")
    layout = attention_layout(cfg)
    assert layout.kind == "gqa"
    # 2 × 8 kv heads × 128 × 2 bytes = 4,096 per layer; × 80 layers = 327,680 per token
    assert layout.kv_bytes_per_token_per_layer(2) == 4_096
    assert layout.kv_bytes_per_token(2) == 327_680
    # one 8,192-token sequence: 327,680 × 8,192 = 2,684,354,560 (2.5 GiB exactly)
    assert layout.kv_bytes_per_sequence(8192, 2) == 2_684_354_560 == 5 * 2**29


def test_mha_llama2_7b_fp16():
    layout = attention_layout(load_model("llama2-7b"))
    assert layout.kind == "mha"
    # 2 × 32 heads × 128 × 2 bytes = 16,384 per layer; × 32 = 524,288 per token (0.5 MiB)
    assert layout.kv_bytes_per_token(2) == 524_288


def test_mqa_falcon_7b():
    layout = attention_layout(load_model("falcon-7b"))
    assert layout.kind == "mqa"
    # 2 × 1 kv head × 64 × 2 bytes = 256 per layer; × 32 = 8,192 per token
    assert layout.kv_bytes_per_token(2) == 8_192


def test_mla_deepseek_v3():
    layout = attention_layout(load_model("deepseek-v3"))
    assert layout.kind == "mla"
    # (512 latent + 64 rope key) × 2 bytes = 1,152 per layer (no factor 2, no heads)
    assert layout.kv_bytes_per_token_per_layer(2) == 1_152
    # × 61 layers = 70,272 per token
    assert layout.kv_bytes_per_token(2) == 70_272


def test_mixtral_gqa_fp8_and_int4():
    layout = attention_layout(load_model("mixtral-8x7b"))
    # fp8: 2 × 8 × 128 × 1 = 2,048 per layer; × 32 = 65,536 per token
    assert layout.kv_bytes_per_token(1) == 65_536
    # int4 is half a byte, never 0: 2 × 8 × 128 × 0.5 × 32 = 32,768
    assert layout.kv_bytes_per_token(0.5) == 32_768


def test_pure_formulas():
    # 2 × 8 × 128 × 2 = 4,096 (k and v widths equal)
    assert kv_bytes_per_token_per_layer(8, 128, 128, 2) == 4_096
    # unequal widths: 128 heads × (192 + 128) × 2 = 81,920
    assert kv_bytes_per_token_per_layer(128, 192, 128, 2) == 81_920
    assert mla_kv_bytes_per_token_per_layer(512, 64, 1) == 576
    assert kv_bytes_per_token(4_096, 80) == 327_680
    # 327,680 × 1,000 × 3 = 983,040,000
    assert kv_cache_bytes(327_680, 1_000, 3) == 983_040_000


def test_what_if_variants_on_llama3_70b():
    cfg = load_model("llama3-70b")
    # MHA: 2 × 64 × 128 × 2 × 80 = 2,621,440 per token
    assert attention_layout(cfg, "mha").kv_bytes_per_token(2) == 2_621_440
    # MQA: 2 × 1 × 128 × 2 × 80 = 40,960
    assert attention_layout(cfg, "mqa").kv_bytes_per_token(2) == 40_960
    # GQA with 16 kv heads: 2 × 16 × 128 × 2 × 80 = 655,360
    assert attention_layout(cfg, "gqa", kv_heads=16).kv_bytes_per_token(2) == 655_360
    # MLA with DeepSeek sizes: (512 + 64) × 2 × 80 = 92,160
    mla = attention_layout(cfg, "mla", kv_lora_rank=512, qk_rope_head_dim=64)
    assert mla.kv_bytes_per_token(2) == 92_160


def test_what_if_mha_on_mla_model_uses_mla_head_widths():
    cfg = load_model("deepseek-v3")
    # MHA of DeepSeek-V3: 128 heads × (K 128+64 = 192 + V 128) × 2 bytes = 81,920 per layer
    assert attention_layout(cfg, "mha").kv_bytes_per_token_per_layer(2) == 81_920


def test_what_if_needs_sizes():
    cfg = load_model("llama2-7b")
    with pytest.raises(InvalidInputError, match="--kv-lora-rank"):
        attention_layout(cfg, "mla")
    with pytest.raises(InvalidInputError, match="--kv-heads"):
        attention_layout(cfg, "gqa")
    with pytest.raises(InvalidInputError, match="must divide"):
        attention_layout(cfg, "gqa", kv_heads=5)


def test_memory_report_totals():
    cfg = load_model("llama3-8b")
    r = R.memory(cfg, ctx=8192, batch=4)
    f = r.fields
    # weights 8,030,261,248 × 2 = 16,060,522,496
    assert f["weights_bytes"] == 16_060_522_496
    # KV/token 2 × 8 × 128 × 2 × 32 = 131,072; × 8,192 × 4 = 4,294,967,296 (4 GiB)
    assert f["kv_bytes_per_token"] == 131_072
    assert f["kv_cache_bytes"] == 4_294_967_296
    assert f["total_bytes"] == 16_060_522_496 + 4_294_967_296


def test_int4_weights_are_half_a_byte():
    r = R.memory(load_model("llama3-8b"), ctx=1, weight_dtype="int4")
    # --weight-dtype re-quantises the linear layers only (calc.deploy.checkpoint): embedding and
    # lm_head 2 × 128256·4096 = 1,050,673,152 and norms 65 × 4096 = 266,240 stay bf16:
    # (8,030,261,248 − 1,050,939,392) × 0.5 + 1,050,939,392 × 2
    # = 3,489,660,928 + 2,101,878,784 = 5,591,539,712
    assert r.fields["weights_bytes"] == 5_591_539_712


def test_fit_boundary_on_h100():
    from calc.data.registry import load_hardware

    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    r = R.memory(cfg, ctx=8192, hardware=hw, version="0.19")
    # the per-GPU ledger (vLLM 0.19 defaults): 0.9 × 85,029,027,840 (torch's H100 total)
    # = 76,526,125,056 − weights 16,060,522,496 − non-torch 268,435,456 (0.25 GiB at TP 1)
    # − activation 2,038,562,816 (tests/test_capacity.py) − the RoPE table vLLM builds with the
    # model (8,192 positions × 128 × 2 B = 2,097,152) = 58,156,507,136 B of KV budget
    assert r.fields["kv_budget_bytes"] == 58_156_507_136
    # per sequence 131,072 × 8,192 = 1,073,741,824 → floor(54.16) = 54 sequences
    assert r.fields["max_batch_that_fits"] == 54
    fits = R.memory(cfg, ctx=8192, batch=54, hardware=hw, version="0.19").fields
    miss = R.memory(cfg, ctx=8192, batch=55, hardware=hw, version="0.19").fields
    assert fits["fits"] and not miss["fits"]
    assert miss["headroom_bytes_per_gpu"] < 0 <= fits["headroom_bytes_per_gpu"]
    # max ctx at batch 1 is capped at the model's context limit (max_position_embeddings 8,192)
    assert r.fields["max_ctx_that_fits"] == 8192
    # the same shape with Llama 3.1's 128K limit: its RoPE table is 131,072 × 128 × 2 =
    # 33,554,432 B, so the budget is 58,158,604,288 − 33,554,432 = 58,125,049,856 B; it holds
    # floor(58,125,049,856 / 2,097,152) = 27,716 blocks = 443,456 tokens, capped at 131,072
    long = R.memory(load_model("llama3.1-8b"), ctx=8192, hardware=hw, version="0.19").fields
    assert long["kv_budget_bytes"] == 58_125_049_856
    assert long["max_ctx_that_fits"] == 131_072


# Property tests: invariants over generated shapes.
heads = st.sampled_from([(h, kv) for h in (8, 16, 32, 64) for kv in (1, 2, 4, 8) if h % kv == 0])


@given(heads, st.integers(1, 256), st.sampled_from([0.5, 1, 2, 4]))
def test_mqa_le_gqa_le_mha(hk, head_dim, b):
    h, kv = hk
    mqa = kv_bytes_per_token_per_layer(1, head_dim, head_dim, b)
    gqa = kv_bytes_per_token_per_layer(kv, head_dim, head_dim, b)
    mha = kv_bytes_per_token_per_layer(h, head_dim, head_dim, b)
    assert 0 < mqa <= gqa <= mha


@given(st.integers(1, 10**6), st.integers(1, 4096), st.integers(1, 4096))
def test_kv_linear_in_batch_and_ctx(per_token, ctx, batch):
    one = kv_cache_bytes(per_token, ctx, 1)
    assert kv_cache_bytes(per_token, ctx, batch) == batch * one
    assert kv_cache_bytes(per_token, 2 * ctx, batch) == 2 * kv_cache_bytes(per_token, ctx, batch)
