"""Parameter counts of the modern shipped models against their model cards.

Each exact integer is derived by hand from the config (arithmetic beside it); the card's
rounded figure is checked too, so a slip shows either way.
"""

from __future__ import annotations

import pytest

from calc.data.registry import load_model, model_names
from calc.formulas.params import model_params


def test_mistral_7b():
    # emb 32000·4096 = 131,072,000 × 2 (untied) = 262,144,000
    # attn 32 × (2·4096² + 2·4096·1024 = 41,943,040) = 1,342,177,280
    # ffn 32 × 3·4096·14336 = 5,637,144,576; norms 65 × 4096 = 266,240
    p = model_params(load_model("mistral-7b"))
    assert p.total == 7_241_732_096  # card: 7.24B


def test_mixtral_8x22b():
    # Instruct v0.1 (vocab 32768; the base v0.1 has 32000, see test_hf_import)
    # emb 2 × 32768·6144 = 402,653,184; attn 56 × (2·6144² + 2·6144·1024) = 4,932,501,504
    # experts 56 × 8 × 3·6144·16384 = 135,291,469,824; router 56 × 6144·8 = 2,752,512
    # norms 113 × 6144 = 694,272
    p = model_params(load_model("mixtral-8x22b"))
    assert p.total == 140_630_071_296  # card: 141B
    assert p.active == 39_161_468_928  # total − 56 × 6 × 301,989,888; card: 39B


def test_qwen25_7b_qkv_bias():
    # emb 2 × 152064·3584 = 1,089,994,752
    # attn 28 × (3584² + 2·3584·512 + 3584² + bias 3584 + 2·512 = 29,364,736) = 822,212,608
    # ffn 28 × 3·3584·18944 = 5,703,204,864; norms 57 × 3584 = 204,288
    p = model_params(load_model("qwen2.5-7b"))
    assert p.total == 7_615_616_512  # card: 7.61B
    assert p.total - p.embedding - p.lm_head == 6_525_621_760  # card: 6.53B non-embedding


def test_qwen25_72b():
    # emb 2 × 152064·8192 = 2,491,416,576; attn 80 × (2·8192² + 2·8192·1024 + 8192 + 2048)
    # = 80 × 151,005,184 = 12,080,414,720; ffn 80 × 3·8192·29568 = 58,133,987,328
    # norms 161 × 8192 = 1,318,912
    p = model_params(load_model("qwen2.5-72b"))
    assert p.total == 72_706_203_648  # card: 72.7B


def test_qwen3_30b_a3b():
    cfg = load_model("qwen3-30b-a3b")
    assert cfg.head_dim == 128 != cfg.d_model // cfg.n_heads
    # emb 2 × 151936·2048 = 622,329,856
    # attn 48 × (2048·4096 + 2·2048·512 + 4096·2048 + q/k norms 2·128 = 18,874,624)
    #   = 905,981,952
    # experts 48 × 128 × 3·2048·768 = 28,991,029,248; router 48 × 2048·128 = 12,582,912
    # norms 97 × 2048 = 198,656
    p = model_params(cfg)
    assert p.total == 30_532_122_624  # card: 30.5B
    assert p.active == 3_353_032_704  # card: 3.3B activated
    assert p.total - p.embedding - p.lm_head == 29_909_792_768  # card: 29.9B non-embedding


def test_deepseek_v2():
    # MLA per layer: q 5120·1536 + 1536 + 1536·128·192 = 45,614,592;
    #   kv 5120·(512 + 64) + 512 + 512·128·(128 + 128) = 19,726,848; o 128·128·5120 = 83,886,080
    #   → 60 × 149,227,520 = 8,953,651,200
    # dense layer 3·5120·12288 = 188,743,680; expert 3·5120·1536 = 23,592,960
    # routed 59 × 160 × 23,592,960 = 222,717,542,400; shared 59 × 2 × 23,592,960 = 2,783,969,280
    # router 59 × 5120·160 = 48,332,800; norms 121 × 5120 = 619,520
    # emb 2 × 102400·5120 = 1,048,576,000
    p = model_params(load_model("deepseek-v2"))
    assert p.total == 235_741_434_880  # card: 236B total
    assert p.active == 21_375_800_320  # card: 21B activated


def test_gemma2():
    # 9B: emb 256000·3584 = 917,504,000 (tied); attn 42 × (3584·4096·2 + 2·3584·2048)
    # = 42 × 44,040,192 = 1,849,688,064; ffn 42 × 3·3584·14336 = 6,473,908,224;
    # norms (42·4 + 1) × 3584 = 605,696 → 9,241,705,984
    assert model_params(load_model("gemma-2-9b")).total == 9_241_705_984  # card: 9B (9.24B)
    assert model_params(load_model("gemma-2-27b")).total == 27_227_128_320  # card: 27.2B


def test_gemma3_27b_text_and_vision():
    # the text model:
    # emb 262208·5376 = 1,409,630,208 (tied)
    # attn 62 × (5376·4096 + 2·5376·2048 + 4096·5376 + q/k norms 2·128 = 66,060,544)
    #   = 4,095,753,728; ffn 62 × 3·5376·21504 = 21,502,623,744; norms 249 × 5376 = 1,338,624
    # keras-hub gemma3_27b_text: 27,009,002,240 at vocab 262144; + 64·5376 = 27,009,346,304
    p = model_params(load_model("gemma-3-27b"))
    assert p.text == 27_009_346_304
    # + the SigLIP tower 416,866,032 (as Gemma 3 12B's, test_hf_import_released) and the
    # projector 1152 × 5376 + 1152 = 6,194,304 -> vision 423,060,336
    assert p.vision == 423_060_336
    assert p.total == 27_432_406_640  # card: 27B (the checkpoint: 27.4B)


def test_gpt_oss_120b():
    # emb 2 × 201088·2880 = 1,158,266,880
    # attn 36 × (2880·4096 + 2·2880·512 + 4096·2880 + bias 4096 + 1024 + 2880 + sinks 64)
    #   = 36 × 26,550,144 = 955,805,184
    # expert 3·2880·2880 + biases 2·2880 + 2880 = 24,891,840; 36 × 128 × that = 114,701,598,720
    # router 36 × (2880·128 + 128) = 13,275,648; norms 73 × 2880 = 210,240
    p = model_params(load_model("gpt-oss-120b"))
    assert p.total == 116_829_156_672  # paper: 116.83B; card: 117B
    # the paper's 5.13B active excludes the 579,133,440-param embedding table
    assert p.active - p.embedding == 5_132_849_472


def test_jamba():
    p = model_params(load_model("jamba-v0.1"))
    assert p.ssm == 28 * 105_308_448
    assert p.total == 51_570_323_328  # card: 52B
    assert p.active == 12_110_311_296  # card: 12B active


def test_nemotron_h_56b():
    p = model_params(load_model("nemotron-h-56b"))
    # Mamba-2: d_inner 256·64 = 16384, conv_dim 16384 + 2·8·256 = 20480;
    #   in_proj 8192 × (2·16384 + 2·8·256 + 256 = 37120) = 304,087,040; conv 20480·4 + 20480
    #   = 102,400; dt_bias/A_log/D 3·256 = 768; gated norm 16384; out_proj 16384·8192
    #   = 134,217,728 → 438,424,320 per layer
    # 54 Mamba-2 × 438,424,320 = 23,674,913,280
    assert p.ssm == 23_674_913_280
    # 54 MLP layers × 2·8192·32768 = 28,991,029,248
    assert p.dense_ffn == 28_991_029_248
    # 10 attention × (2·8192² + 2·8192·1024) = 1,509,949,440; emb 2 × 131072·8192
    # = 2,147,483,648 (untied); norms 119 × 8192 = 974,848
    assert p.attention == 1_509_949_440
    assert p.total == 56_324_350_464  # paper/card: 56B


@pytest.mark.parametrize(
    "name, billions",
    [
        ("mistral-7b", 7.24),
        ("mixtral-8x22b", 141),
        ("qwen2.5-7b", 7.61),
        ("qwen2.5-72b", 72.7),
        ("qwen3-30b-a3b", 30.5),
        ("deepseek-v2", 236),
        ("gemma-2-9b", 9.24),
        ("gemma-2-27b", 27.2),
        ("gemma-3-27b", 27),
        ("gpt-oss-120b", 117),
        ("jamba-v0.1", 52),
        ("nemotron-h-56b", 56),
    ],
)
def test_rounds_to_card_figure(name, billions):
    total = model_params(load_model(name)).total / 1e9
    digits = len(str(billions).split(".")[1]) if "." in str(billions) else 0
    # cards round or truncate (Qwen: 7.6156B is "7.61B"): within one unit of the last digit
    assert abs(total - billions) < 10**-digits


def test_every_model_has_source_url():
    for n in model_names():
        assert load_model(n).source.startswith("https://huggingface.co/")
