"""The models people deploy today (issue 15): parameter counts against their model cards,
KV bytes per token, context limits and the released checkpoint formats.

Each exact integer is derived by hand from the upstream config.json (arithmetic beside it);
the card's rounded figure is checked too, so a slip shows either way.
"""

from __future__ import annotations

import pytest

from calc.data.registry import load_model
from calc.deploy.checkpoint import linear_dtype, model_weight_bytes, released_dtypes
from calc.formulas.attention_layout import attention_layout
from calc.formulas.params import model_params


def _card(total, billions, rel=0.01):
    assert total / 1e9 == pytest.approx(billions, rel=rel)


# --- Llama 3.1 / 3.3 ----------------------------------------------------------------------


def test_llama31_8b():
    cfg = load_model("llama3.1-8b")
    # emb 2 × 128256·4096 = 1,050,673,152
    # attn 32 × (2·4096² + 2·4096·1024 = 41,943,040) = 1,342,177,280
    # ffn 32 × 3·4096·14336 = 5,637,144,576; norms 65 × 4096 = 266,240
    p = model_params(cfg)
    assert p.total == 8_030_261_248
    _card(p.total, 8.03)
    # KV bf16: 32 layers × 2 × 8 heads × 128 × 2 B = 131,072 B per token
    assert attention_layout(cfg).kv_bytes_per_token(2) == 131_072
    # llama3 RoPE scaling (factor 8 over 8,192): max_position_embeddings already states
    # the context the model was extended to
    assert cfg.context_limit == cfg.max_ctx == 131_072


@pytest.mark.parametrize("name", ["llama3.1-70b", "llama3.3-70b"])
def test_llama_70b_128k(name):
    cfg = load_model(name)
    # emb 2 × 128256·8192 = 2,101,346,304
    # attn 80 × (2·8192² + 2·8192·1024 = 150,994,944) = 12,079,595,520
    # ffn 80 × 3·8192·28672 = 56,371,445,760; norms 161 × 8192 = 1,318,912
    p = model_params(cfg)
    assert p.total == 70_553_706_496
    _card(p.total, 70.6)
    # 80 layers × 2 × 8 × 128 × 2 B = 327,680 B per token
    assert attention_layout(cfg).kv_bytes_per_token(2) == 327_680
    assert cfg.context_limit == 131_072


def test_llama31_405b():
    cfg = load_model("llama3.1-405b")
    # emb 2 × 128256·16384 = 4,202,692,608
    # attn 126 × (2·16384² + 2·16384·1024 = 570,425,344) = 71,873,593,344
    # ffn 126 × 3·16384·53248 = 329,775,022,080; norms 253 × 16384 = 4,145,152
    p = model_params(cfg)
    assert p.total == 405_853_388_800
    _card(p.total, 405, rel=0.005)
    # 126 layers × 2 × 8 × 128 × 2 B = 516,096 B per token
    assert attention_layout(cfg).kv_bytes_per_token(2) == 516_096
    assert cfg.context_limit == 131_072


# --- Qwen3 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "total", "card", "kv_token"),
    [
        # emb 2 × 151936·4096 = 1,244,659,712; attn 36 × (4096·4096 + 2·4096·1024 +
        # 4096·4096 + q/k norms 256 = 41,943,296) = 1,509,958,656; ffn 36 × 3·4096·12288
        # = 5,435,817,984; norms 73 × 4096 = 299,008. KV 36 × 2 × 8 × 128 × 2 = 147,456
        ("qwen3-8b", 8_190_735_360, 8.2, 147_456),
        # emb 2 × 151936·5120 = 1,555,824,640; attn 40 × (5120·5120 + 2·5120·1024 +
        # 5120·5120 + 256 = 62,914,816) = 2,516,592,640; ffn 40 × 3·5120·17408
        # = 10,695,475,200; norms 81 × 5120 = 414,720. KV 40 × 4,096 = 163,840
        ("qwen3-14b", 14_768_307_200, 14.8, 163_840),
        # emb 1,555,824,640; attn 64 × (5120·8192 + 2·5120·1024 + 8192·5120 + 256
        # = 94,372,096) = 6,039,814,144; ffn 64 × 3·5120·25600 = 25,165,824,000;
        # norms 129 × 5120 = 660,480. KV 64 × 4,096 = 262,144
        ("qwen3-32b", 32_762_123_264, 32.8, 262_144),
    ],
)
def test_qwen3_dense(name, total, card, kv_token):
    cfg = load_model(name)
    p = model_params(cfg)
    assert p.total == total
    _card(p.total, card)
    assert attention_layout(cfg).kv_bytes_per_token(2) == kv_token
    assert cfg.context_limit == 40_960


def test_qwen3_235b_a22b():
    cfg = load_model("qwen3-235b-a22b")
    # emb 2 × 151936·4096 = 1,244,659,712
    # attn 94 × (4096·8192 + 2·4096·512 + 8192·4096 + 256 = 71,303,424) = 6,702,521,856
    # experts 94 × 128 × 3·4096·1536 = 94 × 2,415,919,104 = 227,096,395,776
    # router 94 × 4096·128 = 49,283,072; norms 189 × 4096 = 774,144
    p = model_params(cfg)
    assert p.total == 235_093_634_560
    _card(p.total, 235)
    # active: total − 94 × 120 × 18,874,368 = 235,093,634,560 − 212,902,871,040
    assert p.active == 22_190_763_520
    _card(p.active, 22, rel=0.01)
    # KV: 94 layers × 2 × 4 × 128 × 2 B = 192,512 B per token
    assert attention_layout(cfg).kv_bytes_per_token(2) == 192_512


# --- Phi ----------------------------------------------------------------------------------


def test_phi4():
    cfg = load_model("phi-4")
    # emb 2 × 100352·5120 = 1,027,604,480
    # attn 40 × (2·5120² + 2·5120·1280 = 65,536,000) = 2,621,440,000
    # ffn 40 × 3·5120·17920 = 11,010,048,000; norms 81 × 5120 = 414,720
    p = model_params(cfg)
    assert p.total == 14_659_507_200
    _card(p.total, 14.7)
    # KV: 40 × 2 × 10 × 128 × 2 B = 204,800 B per token; 16K context
    assert attention_layout(cfg).kv_bytes_per_token(2) == 204_800
    assert cfg.context_limit == 16_384


def test_phi3_mini():
    cfg = load_model("phi-3-mini")
    # emb 2 × 32064·3072 = 197,001,216; attn 32 × 4·3072² = 1,207,959,552
    # ffn 32 × 3·3072·8192 = 2,415,919,104; norms 65 × 3072 = 199,680
    p = model_params(cfg)
    assert p.total == 3_821_079_552  # card: 3.8B (keras-hub phi3_mini_4k: 3,821,079,552)
    # KV: 32 × 2 × 32 × 96 × 2 B = 393,216 B per token; the 2,047-token window caps a
    # 4,096-token sequence at 32 × 2,047 × 12,288 = 804,913,152 B
    layout = attention_layout(cfg)
    assert layout.kv_bytes_per_token(2) == 393_216
    assert layout.kv_bytes_per_sequence(4096, 2) == 804_913_152


# --- gpt-oss and DeepSeek: checkpoints as released ----------------------------------------


def test_gpt_oss_20b():
    cfg = load_model("gpt-oss-20b")
    # emb 2 × 201088·2880 = 1,158,266,880
    # attn 24 × (2880·4096 + 2·2880·512 + 4096·2880 + biases 4096 + 1024 + 2880
    #   + sinks 64 = 26,550,144) = 637,203,456
    # experts 24 × 32 × (3·2880·2880 + bias 2·2880 + 2880 = 24,891,840) = 19,116,933,120
    # router 24 × (2880·32 + 32) = 2,212,608; norms 49 × 2880 = 141,120
    p = model_params(cfg)
    assert p.total == 20_914_757_184
    _card(p.total, 20.9)
    # active: 24 × 4 experts = 2,389,616,640 instead of all 32: 4,187,440,704; the card's
    # 3.6B excludes the embedding: 4,187,440,704 − 579,133,440 = 3,608,307,264
    assert p.active == 4_187_440_704
    _card(p.active - p.embedding, 3.61)
    # KV: 24 layers × 2 × 8 × 64 × 2 B = 49,152 B per token; at 4,096 tokens 12 full
    # layers hold 4,096 and 12 sliding layers 128: 50,688 token-layers × 2,048 B
    layout = attention_layout(cfg)
    assert layout.kv_bytes_per_token(2) == 49_152
    assert layout.kv_bytes_per_sequence(4096, 2) == 103_809_024
    # YaRN factor 32 over 4,096 original positions
    assert cfg.context_limit == 131_072


def test_gpt_oss_weights_as_released():
    cfg = load_model("gpt-oss-20b")
    d = released_dtypes(cfg)
    assert d["routed_experts"] == "mxfp4" and d["attention"] == d["lm_head"] == "bf16"
    assert linear_dtype(cfg) == "mxfp4"  # the experts hold 91% of the parameters
    w = model_weight_bytes(cfg)
    # experts 19,116,933,120 × (0.5 + 1/32) = 10,155,870,720 B
    assert w["routed_experts"] == 10_155_870_720
    # the rest in bf16: 2 × (1,158,266,880 + 637,203,456 + 2,212,608 + 141,120)
    assert sum(w.values()) - w["routed_experts"] == 3_595_648_128
    # gpt-oss-120b: 62.0 GB of experts + 4.3 GB bf16 = 65.2 GB, not 234 GB of bf16
    w120 = model_weight_bytes(load_model("gpt-oss-120b"))
    assert sum(w120.values()) == 65_190_340_224


def test_deepseek_r1_v3_shape_fp8_block_weights():
    r1, v3 = load_model("deepseek-r1"), load_model("deepseek-v3")
    assert model_params(r1) == model_params(v3)
    p = model_params(r1)
    assert p.total == 671_026_419_200  # card: 671B (685B with the 14B MTP module)
    assert p.active == 37_552_297_472  # card: 37B activated
    # MLA cache: (512 + 64) × 61 layers × 2 B = 70,272 B per token
    assert attention_layout(r1).kv_bytes_per_token(2) == 70_272
    assert r1.context_limit == 163_840 == 40 * 4096  # YaRN factor 40
    d = released_dtypes(r1)
    assert {d[c] for c in ("attention", "dense_ffn", "routed_experts", "shared_experts")} == {
        "fp8-block128"
    }
    assert d["embedding"] == d["lm_head"] == d["router"] == d["norms"] == "bf16"
    w = model_weight_bytes(r1)
    # embedding + lm_head in bf16: 2 × 2 × 129280·7168 = 3,706,716,160 B
    assert w["embedding"] + w["lm_head"] == 3_706_716_160
    # experts: 653,908,770,816 × (1 + 4/16384) = 653,908,770,816 + 159,645,696
    assert w["routed_experts"] == 654_068_416_512


@pytest.mark.parametrize(
    ("name", "kv_token", "kv_32k"),
    [
        # 48 layers × 2 × 8 × 256 × 2 B = 393,216; at 32,768 tokens 8 global layers hold
        # 32,768 and 40 local ones 1,024: (262,144 + 40,960) × 8,192 B = 2,483,027,968
        ("gemma-3-12b", 393_216, 2_483_027_968),
        # 40 layers × 2 × 8 × 128 × 2 B = 163,840; no window: × 32,768 = 5,368,709,120
        ("mistral-small-3.1-24b", 163_840, 5_368_709_120),
        # 48 × 4,096 = 196,608; 12 global layers × 32,768 + 36 chunked × 8,192 = 688,128
        # token-layers × 4,096 B = 2,818,572,288
        ("llama4-maverick", 196_608, 2_818_572_288),
        # 62 layers × 2 × 16 × 128 × 2 B = 507,904; 10 global × 32,768 + 52 local × 1,024
        # = 380,928 token-layers × 8,192 B = 3,120,562,176
        ("gemma-3-27b", 507_904, 3_120_562_176),
    ],
)
def test_multimodal_kv_bytes(name, kv_token, kv_32k):
    layout = attention_layout(load_model(name))
    assert layout.kv_bytes_per_token(2) == kv_token
    assert layout.kv_bytes_per_sequence(32768, 2) == kv_32k
