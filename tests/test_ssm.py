"""Mamba / Mamba-2 parameters and per-sequence state; hybrid models in `kvcalc memory`."""

from __future__ import annotations

from calc.data.registry import load_model
from calc.formulas.attention_layout import attention_layout
from calc.formulas.ssm import (
    mamba1_params,
    mamba1_state_elements,
    mamba2_params,
    mamba2_state_elements,
    ssm_state_bytes_per_sequence,
)


def test_mamba1_params_jamba_layer():
    # d 4096, d_inner 8192, N 16, K 4, R 256, conv bias, no proj bias, inner norms:
    # in_proj 4096·16384 = 67,108,864; conv 8192·4 + 8192 = 40,960;
    # x_proj 8192·(256 + 32) = 2,359,296; dt_proj 256·8192 + 8192 = 2,105,344;
    # A_log + D 8192·16 + 8192 = 139,264; out_proj 8192·4096 = 33,554,432; norms 256 + 32
    # = 288; total 105,308,448
    assert mamba1_params(4096, 8192, 16, 4, 256, True, False, True) == 105_308_448


def test_mamba2_params_nemotron_h_56b_layer():
    # d 8192, 256 heads × 64 = d_inner 16,384, N 256, 8 groups, K 4:
    # in_proj 8192 × (2·16384 + 2·8·256 + 256 = 37,120) = 304,087,040;
    # conv (16384 + 4096 = 20,480) × 4 + 20,480 = 102,400; dt_bias/A_log/D 3 × 256 = 768;
    # gated norm 16,384; out_proj 16384 × 8192 = 134,217,728; total 438,424,320
    assert mamba2_params(8192, 256, 64, 256, 4, 8, True, False) == 438_424_320


def test_state_elements():
    # Mamba-1: conv (4−1) × 8192 = 24,576 + SSM 8192 × 16 = 131,072 → 155,648
    assert mamba1_state_elements(8192, 16, 4) == 155_648
    # Mamba-2: conv 3 × 20,480 = 61,440 + SSM 256 × 64 × 256 = 4,194,304 → 4,255,744
    assert mamba2_state_elements(256, 64, 256, 4, 8) == 4_255_744


def test_jamba_layers_and_state():
    cfg = load_model("jamba-v0.1")
    assert cfg.n_attention_layers == 4 and cfg.n_layers_of("mamba") == 28
    assert [i for i, t in enumerate(cfg.layers) if t == "full"] == [4, 12, 20, 28]
    assert cfg.n_moe_layers == 16 and cfg.n_dense_ffn_layers == 16  # odd layers MoE
    # 28 × 155,648 elements × 2 B = 8,716,288 B, whatever the context
    assert ssm_state_bytes_per_sequence(cfg, 2) == 8_716_288
    # KV only in 4 layers: 4 × 8,192 × (2 × 8 × 128 × 2 = 4,096) = 134,217,728 B
    assert attention_layout(cfg).kv_bytes_per_sequence(8192, 2) == 134_217_728


def test_nemotron_h_state():
    cfg = load_model("nemotron-h-56b")
    assert (cfg.n_layers_of("mamba2"), cfg.n_attention_layers, cfg.n_layers_of("mlp")) == (
        54,
        10,
        54,
    )
    # 54 × 4,255,744 × 2 B = 459,620,352 B
    assert ssm_state_bytes_per_sequence(cfg, 2) == 459_620_352


def test_memory_reports_ssm_state(cli):
    r = cli("memory", "--model", "jamba-v0.1", "--ctx", "8192", "--batch", "2", "-f", "json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["ssm_state_bytes_per_sequence"] == 8_716_288
    assert d["ssm_state_bytes"] == 2 * 8_716_288
    assert d["kv_cache_bytes"] == 2 * 134_217_728
    assert d["total_bytes"] == d["weights_bytes"] + d["kv_cache_bytes"] + d["ssm_state_bytes"]


def test_memory_explain_shows_state(cli):
    r = cli("memory", "--model", "nemotron-h-56b", "--ctx", "4096", "--explain")
    assert r.code == 0, r.err
    assert "ssm_state_bytes" in r.out


def test_transformer_has_no_state(cli):
    d = cli("memory", "--model", "llama3-8b", "--ctx", "1024", "-f", "json").json()
    assert d["ssm_state_bytes"] == 0
