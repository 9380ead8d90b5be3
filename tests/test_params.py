"""Parameter counts against the published model cards, exact integers derived from config.json."""

from __future__ import annotations

import pytest

from calc.data.registry import load_model
from calc.formulas.params import (
    attention_params,
    ffn_params,
    mla_attention_params,
    model_params,
    norm_params,
    router_params,
)


def test_llama3_8b_total():
    p = model_params(load_model("llama3-8b"))
    # embed 128,256 × 4,096 = 525,336,576; untied lm_head doubles it: 1,050,673,152
    # per layer: attn 4,096·4,096·2 (Q,O) + 4,096·1,024·2 (K,V) = 41,943,040
    #            ffn 3 × 4,096 × 14,336 = 176,160,768; norms 2 × 4,096 = 8,192
    #            = 218,112,000; × 32 layers = 6,979,584,000
    # total = 6,979,584,000 + 1,050,673,152 + 4,096 (final norm) = 8,030,261,248 (card: 8.03B)
    assert p.total == 8_030_261_248
    assert p.active == p.total
    assert round(p.total / 1e9, 2) == 8.03


def test_llama3_70b_total():
    p = model_params(load_model("llama3-70b"))
    # embed + lm_head: 2 × 128,256 × 8,192 = 2,101,346,304
    # per layer: attn 8,192·8,192·2 + 8,192·1,024·2 = 150,994,944
    #            ffn 3 × 8,192 × 28,672 = 704,643,072; norms 2 × 8,192 = 16,384
    #            = 855,654,400; × 80 = 68,452,352,000
    # total = 68,452,352,000 + 2,101,346,304 + 8,192 = 70,553,706,496 (card: 70.6B)
    assert p.total == 70_553_706_496
    assert round(p.total / 1e9, 1) == 70.6


def test_llama31_405b_total():
    p = model_params(load_model("llama3.1-405b"))
    # embed + lm_head: 2 × 128,256 × 16,384 = 4,202,692,608
    # per layer: attn 16,384·16,384·2 + 16,384·1,024·2 = 570,425,344
    #            ffn 3 × 16,384 × 53,248 = 2,617,245,696; norms 32,768
    #            = 3,187,703,808; × 126 = 401,650,679,808
    # total = 401,650,679,808 + 4,202,692,608 + 16,384 = 405,853,388,800 (card: 405B)
    assert p.total == 405_853_388_800
    assert round(p.total / 1e9) == 406 and int(p.total / 1e9) == 405


def test_mixtral_8x7b_total_and_active():
    p = model_params(load_model("mixtral-8x7b"))
    # embed + lm_head: 2 × 32,000 × 4,096 = 262,144,000
    # per layer: attn 4,096·4,096·2 + 4,096·1,024·2 = 41,943,040
    #            one expert 3 × 4,096 × 14,336 = 176,160,768; 8 experts = 1,409,286,144
    #            router 4,096 × 8 = 32,768; norms 8,192
    #            = 1,451,270,144; × 32 = 46,440,644,608
    # total = 46,440,644,608 + 262,144,000 + 4,096 = 46,702,792,704 (card: 46.7B)
    assert p.total == 46_702_792_704
    # active: 6 of 8 experts skipped per layer: 32 × 6 × 176,160,768 = 33,822,867,456 fewer
    # 46,702,792,704 − 33,822,867,456 = 12,879,925,248 (card: 12.9B)
    assert p.active == 12_879_925_248
    assert round(p.total / 1e9, 1) == 46.7 and round(p.active / 1e9, 1) == 12.9


def test_deepseek_v3_total_and_active():
    p = model_params(load_model("deepseek-v3"))
    # MLA per layer (d 7,168, 128 heads, q_lora 1,536, kv_lora 512, rope 64, nope 128, v 128):
    #   q_a 7,168·1,536 = 11,010,048 + q_norm 1,536 + q_b 1,536·128·192 = 37,748,736
    #   kv_a 7,168·(512+64) = 4,128,768 + kv_norm 512 + kv_b 512·128·(128+128) = 16,777,216
    #   o 128·128·7,168 = 117,440,512            → 187,107,328 per layer
    assert p.attention == 61 * 187_107_328
    # 3 dense layers: ffn 3·7,168·18,432 = 396,361,728 + norms 14,336 + attn → 583,483,392
    # 58 MoE layers: 256 experts × 3·7,168·2,048 (44,040,192) = 11,274,289,152
    #   + 1 shared 44,040,192 + router 7,168·256 = 1,835,008 + bias 256 + norms 14,336
    #   + attn 187,107,328 → 11,507,286,272 per layer; × 58 = 667,422,603,776
    # embed + lm_head 2 × 129,280 × 7,168 = 1,853,358,080; final norm 7,168
    # total = 3 × 583,483,392 + 667,422,603,776 + 1,853,358,080 + 7,168 = 671,026,419,200
    assert p.total == 671_026_419_200  # card: 671B (main model, MTP module excluded)
    # active: 8 of 256 routed experts per MoE layer:
    # 671,026,419,200 − 58 × 248 × 44,040,192 (633,474,121,728) = 37,552,297,472 (card: 37B)
    assert p.active == 37_552_297_472
    assert round(p.total / 1e9) == 671 and int(p.active / 1e9) == 37


def test_llama2_7b_mha():
    p = model_params(load_model("llama2-7b"))
    # embed + lm_head 2 × 32,000 × 4,096 = 262,144,000
    # per layer: attn 4 × 4,096² = 67,108,864; ffn 3 × 4,096 × 11,008 = 135,266,304;
    #            norms 8,192 → 202,383,360; × 32 = 6,476,267,520
    # total = 6,476,267,520 + 262,144,000 + 4,096 = 6,738,415,616 (card: 7B, 6.74B)
    assert p.total == 6_738_415_616


def test_falcon_7b_mqa_tied_layernorm():
    p = model_params(load_model("falcon-7b"))
    # embed 65,024 × 4,544 = 295,469,056 (lm_head tied: counted once)
    # per layer: QKV 4,544 × (71 + 2)·64 = 21,229,568; O 4,544² = 20,647,936
    #            MLP 2 × 4,544 × 18,176 = 165,183,488; one LayerNorm (scale+bias) 9,088
    #            → 207,070,080; × 32 = 6,626,242,560
    # total = 6,626,242,560 + 295,469,056 + 9,088 (final LayerNorm) = 6,921,720,704
    assert p.total == 6_921_720_704
    assert p.lm_head == 0


def test_part_formulas_small():
    # attention: 8·(4·2) [Q] + 2·8·(1·2) [K,V] + (4·2)·8 [O] = 64 + 32 + 64 = 160
    assert attention_params(8, 4, 1, 2) == 160
    # + QKV bias (4 + 2·1)·2 = 12, + O bias 8 → 180
    assert attention_params(8, 4, 1, 2, qkv_bias=True, o_bias=True) == 180
    # gated 3·8·16 = 384; plain 2·8·16 = 256; plain with bias 256 + 16 + 8 = 280
    assert ffn_params(8, 16, True) == 384
    assert ffn_params(8, 16, False) == 256
    assert ffn_params(8, 16, False, bias=True) == 280
    assert router_params(8, 4) == 32 and router_params(8, 4, True) == 36
    assert norm_params(8, False) == 8 and norm_params(8, True) == 16
    # MLA without q_lora: Q 8·2·(3+1) = 64; KV 8·(5+1) + 5 + 5·2·(3+2) = 48 + 5 + 50 = 103;
    # O 2·2·8 = 32 → 199
    assert mla_attention_params(8, 2, 5, 0, 1, 3, 2) == 199


@pytest.mark.parametrize("name", ["llama3-8b", "mixtral-8x7b", "deepseek-v3"])
def test_params_broadcast_over_arrays(name):
    import numpy as np

    d = np.array([8, 16])
    assert list(ffn_params(d, 32, True)) == [3 * 8 * 32, 3 * 16 * 32]
    assert model_params(load_model(name)).total > 0
