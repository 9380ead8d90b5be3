"""The models people deploy now (issue 24): each family imported from its real config.json
(tests/data/hf_configs/, sources in its README) and shipped in model_configs/, against the
model card's parameter count and hand-computed KV / state bytes per token and per sequence.

Every exact integer is derived by hand from the config (the arithmetic beside it); the card's
rounded figure is checked too, so a slip shows either way.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.data.hf_import import load_hf_config
from calc.data.registry import load_model
from calc.formulas.attention_layout import attention_layout
from calc.formulas.params import model_params, mtp_params
from calc.formulas.ssm import ssm_state_bytes_per_sequence

CONFIGS = Path(__file__).resolve().parent / "data" / "hf_configs"
K8, K128 = 8192, 131072


def _imported(name):
    return load_hf_config(CONFIGS / name)


def _card(total, billions, rel=0.01):
    assert total / 1e9 == pytest.approx(billions, rel=rel)


# each shipped config equals the import of the config.json it was written from
@pytest.mark.parametrize(
    ("folder", "shipped"),
    [
        ("qwen3-next-80b-a3b-thinking", "qwen3-next-80b-a3b"),
        ("qwen3.5-397b-a17b", "qwen3.5-397b-a17b"),
        ("qwen3.5-27b", "qwen3.5-27b"),
        ("deepseek-v3.2", "deepseek-v3.2"),
        ("glm-5", "glm-5"),
        ("minimax-m2.5", "minimax-m2.5"),
        ("kimi-k2-instruct", "kimi-k2"),
        ("nemotron-3-nano-30b-a3b-bf16", "nemotron-3-nano-30b-a3b"),
        ("gemma-7b", "gemma-7b"),
        ("granite-3.3-8b-instruct", "granite-3.3-8b"),
        ("phi-2", "phi-2"),
    ],
)
def test_shipped_equals_import(folder, shipped):
    from calc.deploy.checkpoint import model_weight_bytes
    from calc.deploy.engines.vllm.pool import rope_cache_positions

    imported, ship = _imported(folder), load_model(shipped)
    assert model_params(imported) == model_params(ship)
    assert mtp_params(imported) == mtp_params(ship)
    assert imported.layers == ship.layers and imported.context_limit == ship.context_limit
    for ctx in (1, K8, K128):
        assert attention_layout(imported).kv_bytes_per_sequence(ctx, 2) == attention_layout(
            ship
        ).kv_bytes_per_sequence(ctx, 2)
    assert ssm_state_bytes_per_sequence(imported, 2) == ssm_state_bytes_per_sequence(ship, 2)
    assert model_weight_bytes(imported) == model_weight_bytes(ship)
    # the RoPE table's width, rows and count (partial rotary, mrope, DSA's indexer)
    assert (imported.rotary_width, imported.rope_tables) == (ship.rotary_width, ship.rope_tables)
    assert rope_cache_positions(imported) == rope_cache_positions(ship)
    assert not imported.assumed  # every key of a known family is read, nothing assumed
    if ship.moe is not None:  # group-limited routing (n_group, topk_group)
        grouping = (imported.moe.n_expert_groups, imported.moe.expert_groups_per_token)
        assert grouping == (ship.moe.n_expert_groups, ship.moe.expert_groups_per_token)


# --- hybrid linear attention: Qwen3-Next, Qwen3.5 ------------------------------------------


def test_qwen3_next_80b_a3b():
    cfg = load_model("qwen3-next-80b-a3b")
    assert cfg.n_layers_of("linear_attention") == 36 and cfg.n_attention_layers == 12
    p = model_params(cfg)
    # emb 2 × 151936·2048 = 622,329,856
    # attention 12 × (q and gate 2048·16·256·2 = 16,777,216 + k, v 2·2048·2·256 = 2,097,152
    #   + o 16·256·2048 = 8,388,608 + q/k norms 2·256 = 512 → 27,263,488) = 327,161,856
    assert p.attention == 327_161_856
    # gated DeltaNet 36 × (in_proj_qkvz 2048·(2·2048 + 2·4096) = 25,165,824 + in_proj_ba
    #   2048·64 = 131,072 + conv1d 8,192·4 = 32,768 + dt_bias, A_log 64 + norm 128 + out_proj
    #   4096·2048 = 8,388,608 → 33,718,464) = 1,213,864,704
    assert p.ssm == 1_213_864_704
    # experts 48 × 512 × 3·2048·512 (3,145,728) = 77,309,411,328; shared 48 × 3,145,728
    # = 150,994,944; router and shared gate 48 × (2048·512 + 2048) = 50,429,952;
    # norms (48·2 + 1)·2048 = 198,656 → 79,674,391,296
    assert p.moe_routed == 77_309_411_328 and p.router == 50_429_952
    assert p.total == 79_674_391_296
    _card(p.total, 80)  # card: 80B total
    # active: 10 of 512 experts: 79,674,391,296 − 48 × 502 × 3,145,728 = 3,874,929,408;
    # without the embeddings 3.25B (card: 3B activated)
    assert p.active == 3_874_929_408
    layout = attention_layout(cfg)
    # KV only in the 12 attention layers: 12 × 2 × 2 × 256 × 2 B = 24,576 B per token
    assert layout.kv_bytes_per_token(2) == 24_576
    assert layout.kv_bytes_per_sequence(K8, 2) == 24_576 * 8192 == 201_326_592
    assert layout.kv_bytes_per_sequence(K128, 2) == 24_576 * 131072 == 3_221_225_472
    # state, whatever the context: 36 × (conv 3 × (2·16·128 + 32·128 = 8,192) = 24,576 +
    # delta rule 32 × 128 × 128 = 524,288 elements) × 2 B (bf16: no mamba_ssm_dtype) = 39,518,208
    assert ssm_state_bytes_per_sequence(cfg, 2) == 39_518_208


def test_qwen35_397b_a17b():
    cfg = load_model("qwen3.5-397b-a17b")
    p = model_params(cfg)
    # vision: 27 × (4·1152² + 4·1152 + 2·1152·4304 + 4304 + 1152 + 2·2·1152 = 15,239,504)
    # = 411,466,608; patches 6·16·16·1152 + 1152 = 1,770,624; positions 2304·1152
    # = 2,654,208; merger LayerNorm 2,304 + 4608² + 4608 + 4608·4096 + 4096 = 40,116,736
    # → 456,010,480
    assert p.vision == 456_010_480
    # attention 15 × (4096·32·256·2 + 2·4096·2·256 + 32·256·4096 + 512 = 104,858,112)
    # = 1,572,871,680; DeltaNet 45 × (4096·(2·2048 + 2·8192) + 4096·128 + 12,288·4 + 128 + 128
    # + 8192·4096 = 118,014,208) = 5,310,639,360
    assert p.attention == 1_572_871_680 and p.ssm == 5_310_639_360
    assert p.total == 396_802_360_816
    _card(p.total, 397)  # card: 397B total
    _card(p.active, 17.35, rel=0.002)  # card: 17B activated
    layout = attention_layout(cfg)
    # 15 × 2 × 2 × 256 × 2 B = 30,720 B per token
    assert layout.kv_bytes_per_sequence(K8, 2) == 30_720 * 8192 == 251_658_240
    assert layout.kv_bytes_per_sequence(K128, 2) == 30_720 * 131072 == 4_026_531_840
    # state: 45 × (conv 3 × (2·2048 + 8192 = 12,288) × 2 B = 73,728 + delta rule
    # 64 × 128 × 128 × 4 B (fp32: mamba_ssm_dtype) = 4,194,304) = 192,061,440 B
    assert ssm_state_bytes_per_sequence(cfg, 2) == 192_061_440


def test_qwen35_27b_dense_hybrid():
    cfg = load_model("qwen3.5-27b")
    p = model_params(cfg)
    assert p.text == 26_895_998_464 and p.total == 27_356_728_560
    _card(p.text, 27, rel=0.01)  # card: 27B
    # 16 attention layers × 2 × 4 × 256 × 2 B = 65,536 B per token
    assert attention_layout(cfg).kv_bytes_per_token(2) == 65_536
    # 48 × (3 × 10,240 × 2 + 48 × 128 × 128 × 4 = 3,207,168) = 153,944,064 B
    assert ssm_state_bytes_per_sequence(cfg, 2) == 153_944_064


# --- sparse attention: DeepSeek-V3.2, GLM-5 ------------------------------------------------


def test_deepseek_v32():
    cfg, v3 = load_model("deepseek-v3.2"), load_model("deepseek-v3")
    p = model_params(cfg)
    # DeepSeek-V3 + one indexer per layer: 61 × (wq_b 1536·64·128 = 12,582,912 + wk 7168·128
    # = 917,504 + weights_proj 7168·64 = 458,752 + k_norm 2·128 = 256 → 13,959,424)
    # = 851,524,864
    assert p.total - model_params(v3).total == 851_524_864
    assert p.total == 671_877_944_064
    # card: 685B = this + the MTP layer + its own embedding and lm_head copies
    # (2 × 129280 × 7168 = 1,853,358,080)
    assert mtp_params(cfg) == 11_624_027_648
    _card(p.total + mtp_params(cfg) + 1_853_358_080, 685, rel=0.001)
    layout = attention_layout(cfg)
    # bf16: latent (512 + 64) × 2 = 1,152 + index key 128 + 4 (fp32 scale) = 132 → 1,284 B
    # per token per layer; × 61 = 78,324 B per token
    assert layout.kv_bytes_per_token(2) == 78_324
    assert layout.kv_bytes_per_sequence(K8, 2) == 78_324 * 8192 == 641_630_208
    assert layout.kv_bytes_per_sequence(K128, 2) == 78_324 * 131072 == 10_266_083_328
    # fp8 (fp8_ds_mla): 512 + 4 × 4 scales + 64 × 2 (bf16 RoPE) = 656, + 132 → 788 × 61
    assert layout.kv_bytes_per_token(1) == 788 * 61 == 48_068


def test_glm5():
    cfg = load_model("glm-5")
    p = model_params(cfg)
    # attention per layer: q_a 6144·2048 + 2048 + q_b 2048·64·256 + kv_a 6144·576 + 512
    # + kv_b 512·64·448 + o 64·256·6144 = 165,022,208; indexer 2048·32·128 + 6144·128
    # + 6144·32 + 256 = 9,371,904 → 174,394,112 × 78 = 13,602,740,736
    assert p.attention == 13_602_740_736
    assert p.total == 743_911_218_432
    _card(p.total, 744, rel=0.001)  # card: 744B total
    # 78 × (576 × 2 + 132) = 100,152 B per token (bf16)
    layout = attention_layout(cfg)
    assert layout.kv_bytes_per_sequence(K8, 2) == 100_152 * 8192 == 820_445_184
    assert layout.kv_bytes_per_sequence(K128, 2) == 100_152 * 131072 == 13_127_122_944


# --- MoE families: GLM-4.6, MiniMax-M2.5, Kimi-K2 -------------------------------------------


def test_glm46():
    cfg = load_model("glm-4.6")
    p = model_params(cfg)
    # attention 92 × (5120·12288 + 2·5120·1024 + 12288·5120 + bias 12288 + 2·1024
    # = 136,329,216) = 12,542,287,872; dense 3 × 3·5120·12288 = 566,231,040; experts 89 × 160 ×
    # 3·5120·1536 = 335,963,750,400; shared 89 × 23,592,960 = 2,099,773,440; router 89 ×
    # (5120·160 + 160) = 72,923,040; emb 2 × 151552·5120 = 1,551,892,480; norms 185 × 5120
    assert p.total == 352_797_805_472
    _card(p.total, 355, rel=0.01)  # card: 355B total
    # 92 × 2 × 8 × 128 × 2 B = 376,832 B per token
    assert attention_layout(cfg).kv_bytes_per_sequence(K8, 2) == 376_832 * 8192


def test_minimax_m25():
    cfg = load_model("minimax-m2.5")
    p = model_params(cfg)
    # attention 62 × (3072·6144 + 2·3072·1024 + 6144·3072 + per-layer q/k norms
    # (48 + 8)·128 = 7,168 → 44,047,360) = 2,730,936,320
    assert p.attention == 2_730_936_320
    # experts 62 × 256 × 3·3072·1536 = 224,680,476,672; router 62 × (3072·256 + 256)
    # = 48,774,656; emb 2 × 200064·3072 = 1,229,193,216; norms 125 × 3072 = 384,000
    assert p.total == 228_689_764_864
    _card(p.total, 230, rel=0.01)  # card: 230B total
    # activated without the embeddings: 11,030,553,088 − 1,229,193,216 (card: 10B)
    _card(p.active - 1_229_193_216, 10, rel=0.02)
    assert mtp_params(cfg) > 0 and cfg.mtp_layers == 3
    # 62 × 2 × 8 × 128 × 2 B = 253,952 B per token
    assert attention_layout(cfg).kv_bytes_per_sequence(K128, 2) == 253_952 * 131072


def test_kimi_k2_is_deepseek_v3_shaped():
    cfg = load_model("kimi-k2")
    p = model_params(cfg)
    assert p.total == 1_026_408_232_448
    _card(p.total, 1000, rel=0.03)  # card: 1T total
    _card(p.active, 32.86, rel=0.001)  # card: 32B activated
    # MLA: 61 × (512 + 64) × 2 B = 70,272 B per token
    assert attention_layout(cfg).kv_bytes_per_sequence(K8, 2) == 70_272 * 8192


# --- hybrid Mamba-2 / MoE: Nemotron-3-Nano --------------------------------------------------


def test_nemotron3_nano():
    cfg = load_model("nemotron-3-nano-30b-a3b")
    assert (cfg.n_layers_of("mamba2"), cfg.n_layers_of("moe"), cfg.n_attention_layers) == (
        23,
        23,
        6,
    )
    p = model_params(cfg)
    # relu2 experts: 23 × 128 × 2·2688·1856 = 29,374,808,064; shared 23 × 2·2688·3712
    # = 458,981,376; router 23 × (2688·128 + 128) = 7,916,416
    assert (p.moe_routed, p.moe_shared, p.router) == (29_374_808_064, 458_981_376, 7_916_416)
    assert p.total == 31_577_940_288
    _card(p.total, 31.6, rel=0.002)  # card: 31.6B total
    _card(p.active, 3.6, rel=0.01)  # card: 3.6B active with the embeddings
    # KV: 6 × 2 × 2 × 128 × 2 B = 6,144 B per token
    layout = attention_layout(cfg)
    assert layout.kv_bytes_per_sequence(K8, 2) == 6_144 * 8192 == 50_331_648
    assert layout.kv_bytes_per_sequence(K128, 2) == 6_144 * 131072 == 805_306_368
    # state: 23 × (conv 3 × (4096 + 2·8·128 = 6,144) × 2 B = 36,864 + SSM 64·64·128 × 4 B
    # (fp32: mamba_ssm_cache_dtype) = 2,097,152) = 49,082,368 B
    assert ssm_state_bytes_per_sequence(cfg, 2) == 49_082_368


# --- older families still served: Gemma 1, Granite 3.x, Phi-2 -------------------------------


def test_gemma_7b():
    cfg = load_model("gemma-7b")
    p = model_params(cfg)
    # emb 256000·3072 = 786,432,000 (tied); attention 28 × 4·3072·4096 = 1,409,286,144;
    # GeGLU 28 × 3·3072·24576 = 6,341,787,648; norms 57 × 3072 = 175,104
    assert p.total == 8_537_680_896
    _card(p.total, 8.54, rel=0.001)  # card: 8.54B
    # MHA: 28 × 2 × 16 × 256 × 2 B = 458,752 B per token
    assert attention_layout(cfg).kv_bytes_per_sequence(K8, 2) == 458_752 * 8192


def test_granite_33_8b():
    cfg = load_model("granite-3.3-8b")
    p = model_params(cfg)
    # emb 49159·4096 = 201,355,264 (tied); attention 40 × (2·4096² + 2·4096·1024)
    # = 1,677,721,600; FFN 40 × 3·4096·12800 = 6,291,456,000; norms 81 × 4096 = 331,776
    assert p.total == 8_170_864_640
    _card(p.total, 8.17, rel=0.001)
    # 40 × 2 × 8 × 128 × 2 B = 163,840 B per token
    assert attention_layout(cfg).kv_bytes_per_sequence(K128, 2) == 163_840 * 131072


def test_phi2():
    cfg = load_model("phi-2")
    p = model_params(cfg)
    # emb 51200·2560 = 131,072,000; lm_head the same + bias 51,200; attention 32 ×
    # (3·2560² + 3·2560 + 2560² + 2560 = 26,224,640) = 839,188,480; MLP 32 × (2·2560·10240
    # + 10240 + 2560 = 52,441,600) = 1,678,131,200; LayerNorms 33 × 2·2560 = 168,960
    assert p.lm_head == 131_123_200
    assert p.total == 2_779_683_840
    _card(p.total, 2.78, rel=0.001)  # card: 2.7B (2.78B)
    # 32 × 2 × 32 × 80 × 2 B = 327,680 B per token
    assert attention_layout(cfg).kv_bytes_per_sequence(2048, 2) == 327_680 * 2048


# --- every command on the new state kinds ----------------------------------------------------


@pytest.mark.parametrize(
    ("model", "pp"),
    [("qwen3-next-80b-a3b", 1), ("deepseek-v3.2", 1), ("nemotron-3-nano-30b-a3b", 1),
     ("glm-5", 2)],  # GLM-5 in bf16 (1.49 TB) needs two B200 nodes
)  # fmt: skip
def test_memory_and_capacity_report_state_and_index_keys(cli, model, pp):
    r = cli("memory", "-m", model, "--ctx", "8192", "-b", "2", "-f", "json")
    assert r.code == 0, r.err
    d = r.json()
    cfg = load_model(model)
    kv = attention_layout(cfg).kv_bytes_per_sequence(8192, 2)
    assert d["kv_cache_bytes"] == 2 * kv
    assert d["ssm_state_bytes"] == 2 * ssm_state_bytes_per_sequence(cfg, 2)
    r = cli("capacity", "-m", model, "-H", "b200", "--tp", "8", "--pp", str(pp), "--ctx", "8192",
            "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    assert r.json()["max_concurrency"] > 0


def test_sparse_decode_attends_top_k_and_the_indexer_reads_every_key():
    from calc.deploy.steps import decode_step

    cfg = load_model("deepseek-v3.2")
    ops = {o.name: o for o in decode_step(cfg, None, batch=1, ctx=100_000).raw}
    # 61 layers × 2,048 keys × 128 heads × (512 + 64) × 2 FLOP (absorbed MLA scores)
    assert ops["attn_scores"].flops == 61 * 2048 * 128 * 576 * 2
    # the indexer scores all 100,000 keys: 61 × 100,000 × 64 heads × 128 × 2 FLOP, and reads
    # their keys: 61 × 100,000 × 132 B
    assert ops["indexer_scores"].flops == 61 * 100_000 * 64 * 128 * 2
    assert ops["indexer_scores"].kv_bytes == 61 * 100_000 * 132


def test_deltanet_decode_reads_and_writes_its_state():
    from calc.deploy.steps import decode_step

    cfg = load_model("qwen3.5-27b")
    for ctx in (1_000, 100_000):  # the state does not grow with the context
        ops = {o.name: o for o in decode_step(cfg, None, batch=4, ctx=ctx).raw}
        # conv: 48 layers × 4 sequences × 3 × 10,240 × 2 B, read and written
        conv = 48 * 4 * 3 * 10_240 * 2 * 2
        weights = ops["gdn_conv1d"].weight_bytes
        act = 48 * 4 * 2 * 10_240 * 2  # the conv's input and output activations
        assert ops["gdn_conv1d"].bytes == weights + conv + act
        # delta rule: 48 × 4 × 48 heads × 128 × 128 × 4 B (fp32), read and written
        rule = ops["gdn_delta_rule"]
        state = 48 * 4 * 48 * 128 * 128 * 4 * 2
        assert rule.bytes - rule.weight_bytes >= state


# --- import behaviour -----------------------------------------------------------------------


def test_unknown_model_type_with_known_layers_is_estimated_with_a_warning(cli, tmp_path):
    import json

    data = json.loads((CONFIGS / "qwen3-next-80b-a3b-thinking" / "config.json").read_text())
    data["model_type"] = "qwen9_next"  # released yesterday, same layer kinds
    folder = tmp_path / "qwen9"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(data))
    cfg = load_hf_config(folder)
    assert cfg.assumed and "qwen9_next" in cfg.assumed[0]
    assert cfg.n_layers_of("linear_attention") == 36 and cfg.linear_attention is not None
    r = cli("memory", "-m", str(folder), "--ctx", "8192", "-f", "json")
    assert r.code == 0 and "kvcalc: warning:" in r.err and "qwen9_next" in r.err
    assert r.json()["ssm_state_bytes"] == 39_518_208  # as Qwen3-Next (bf16 state)


def test_text_config_without_model_type_is_not_gemma3(tmp_path):
    import json

    # a wrapper kvcalc does not know, its text_config with no model_type: read from the keys
    text = json.loads((CONFIGS / "granite-3.3-8b-instruct" / "config.json").read_text())
    text.pop("model_type")
    (tmp_path / "config.json").write_text(
        json.dumps({"model_type": "acme_vl", "text_config": text})
    )
    cfg = load_hf_config(tmp_path / "config.json")
    assert cfg.assumed and "text_config has no model_type" in cfg.assumed[0]
    assert cfg.layers == ("full",) * 40 and not cfg.qk_norm and cfg.norms_per_layer == 2
    assert cfg.vocab_size == 49159 and cfg.head_dim == 128  # its own keys, not Gemma 3's
    # a known wrapper names its text family: qwen3_5's text_config is qwen3_5_text
    data = json.loads((CONFIGS / "qwen3.5-27b" / "config.json").read_text())
    data["text_config"].pop("model_type")
    (tmp_path / "config.json").write_text(json.dumps(data))
    assert load_hf_config(tmp_path / "config.json").attn_output_gate


def test_nemotron_h_config_with_infinity_imports():
    text = (CONFIGS / "nemotron-h-56b-base-8k" / "config.json").read_text()
    assert "Infinity" in text  # time_step_limit: [0.0, Infinity]
    cfg = _imported("nemotron-h-56b-base-8k")
    assert model_params(cfg) == model_params(load_model("nemotron-h-56b"))


def test_nan_in_a_used_key_is_still_refused(cli, tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama", "hidden_size": NaN}')
    r = cli("import-hf", path)
    assert r.code == 2 and "'hidden_size'" in r.err and "NaN" in r.err


def test_encoder_and_unreadable_configs_are_refused(cli, tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "t5", "d_model": 512}')
    r = cli("memory", "-m", path, "--ctx", "8")
    assert r.code == 2 and "decoder-only" in r.err and r.err.count("\n") == 1
    path.write_text('{"model_type": "brand_new", "hidden_size": 512}')
    r = cli("memory", "-m", path, "--ctx", "8")
    assert r.code == 2 and "num_hidden_layers" in r.err and r.err.count("\n") == 1


def test_kimi_k25_moonvit_tower_and_int4_experts():
    from calc.deploy.checkpoint import released_dtypes

    cfg = _imported("kimi-k2.5")
    p = model_params(cfg)
    # MoonViT: 27 × (4·1152² + 4·1152 + 2·1152·4304 + 4304 + 1152 + 2·2·1152 = 15,239,504)
    # = 411,466,608; patches 3·14·14·1152 + 1152 = 678,528; positions 64·64·1152 = 4,718,592;
    # final LayerNorm 2,304; projector LayerNorm 2,304 + 4608² + 4608 + 4608·7168 + 7168
    # = 54,277,888 → 471,143,920 (card: a 400M MoonViT encoder)
    assert p.vision == 471_143_920
    assert p.text == model_params(load_model("kimi-k2")).total  # Kimi-K2's text model
    d = released_dtypes(cfg)
    # compressed-tensors int4 (group 32, symmetric); its ignore list keeps attention, shared
    # experts, the dense MLP and lm_head in bf16
    assert d["routed_experts"] == "int4-g32-sym"
    assert d["attention"] == d["shared_experts"] == d["dense_ffn"] == d["lm_head"] == "bf16"
