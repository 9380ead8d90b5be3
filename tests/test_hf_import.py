"""Hugging Face config.json import: real upstream files match the shipped YAMLs exactly."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from calc.data.hf_import import load_hf_config
from calc.data.registry import load_model
from calc.errors import ConfigError, MissingDependencyError
from calc.formulas.attention_layout import attention_layout
from calc.formulas.params import model_params
from calc.formulas.ssm import ssm_state_bytes_per_sequence

DATA = Path(__file__).parent / "data" / "hf"

# (config.json under tests/data/hf, shipped YAML with the same architecture): 7 families
PAIRS = [
    ("mistral-7b-v0.1.json", "mistral-7b"),  # mistral, sliding in every layer
    ("gemma-2-9b.json", "gemma-2-9b"),  # gemma2, alternating, tie default True
    ("qwen2.5-72b.json", "qwen2.5-72b"),  # qwen2, QKV bias
    ("jamba-v0.1.json", "jamba-v0.1"),  # jamba, Mamba + attention, MoE every other layer
    ("mixtral-8x22b-instruct-v0.1.json", "mixtral-8x22b"),  # mixtral
    ("gpt-oss-120b.json", "gpt-oss-120b"),  # gpt_oss, layer_types, sinks, biases
    ("deepseek-v2.json", "deepseek-v2"),  # deepseek_v2, MLA + shared experts
]


@pytest.mark.parametrize("json_name, yaml_name", PAIRS)
def test_import_matches_shipped_yaml(json_name, yaml_name):
    imported = load_hf_config(DATA / json_name)
    shipped = load_model(yaml_name)
    pi, ps = model_params(imported), model_params(shipped)
    assert (pi.total, pi.active) == (ps.total, ps.active)
    li, ls = attention_layout(imported), attention_layout(shipped)
    for ctx in (1, 4096, 32768, 131072):
        assert li.kv_bytes_per_sequence(ctx, 2) == ls.kv_bytes_per_sequence(ctx, 2)
    assert ssm_state_bytes_per_sequence(imported, 2) == ssm_state_bytes_per_sequence(shipped, 2)
    assert imported.layers == shipped.layers


def test_explicit_values():
    cfg = load_hf_config(DATA / "gemma-2-9b.json")
    assert cfg.head_dim == 256  # explicit head_dim, not 3584 / 16 = 224
    assert cfg.tie_embeddings and cfg.layer_pattern == ["sliding", "full"]
    gpt = load_hf_config(DATA / "gpt-oss-120b.json")
    assert gpt.attention_sinks and gpt.sliding_window == 128
    assert "mxfp4" in gpt.notes


def test_model_flag_reads_config_json(cli):
    r = cli("memory", "--model", DATA / "mistral-7b-v0.1.json", "--ctx", "32768", "-f", "json")
    assert r.code == 0, r.err
    # 32 layers × 4,096 tokens × 4,096 B = 536,870,912
    assert r.json()["kv_bytes_per_sequence"] == 536_870_912
    assert r.json()["params_total"] == 7_241_732_096


def test_mixtral_8x22b_base_differs_from_instruct_only_in_vocab():
    # the shipped YAML is the Instruct v0.1 checkpoint (vocab 32768); the base v0.1 config.json
    # has vocab 32000: (32768 − 32000) × 6144 × 2 (untied) = 9,437,184 fewer parameters
    shipped = load_model("mixtral-8x22b")
    assert "Instruct" in shipped.display_name and "Instruct" in shipped.source
    base = load_hf_config(DATA / "mixtral-8x22b-v0.1.json")
    assert base.vocab_size == 32000
    pb, ps = model_params(base), model_params(shipped)
    assert ps.total - pb.total == 9_437_184
    assert pb.total == 140_620_634_112  # card: 141B (base and Instruct alike)
    assert ps.active - pb.active == 9_437_184  # embeddings are active for every token
    lb, ls = attention_layout(base), attention_layout(shipped)
    assert lb.kv_bytes_per_sequence(65536, 2) == ls.kv_bytes_per_sequence(65536, 2)


def test_import_hf_writes_yaml_that_loads(cli, tmp_path):
    out = tmp_path / "j.yaml"
    r = cli("import-hf", DATA / "jamba-v0.1.json", "-o", out, "--name", "jamba-imported")
    assert r.code == 0, r.err
    cfg = load_model(str(out))
    assert cfg.name == "jamba-imported"
    assert model_params(cfg).total == 51_570_323_328


def test_import_hf_stdout(cli):
    r = cli("import-hf", DATA / "qwen2.5-72b.json")
    assert r.code == 0 and "qkv_bias: true" in r.out


def _write(tmp_path, data, name="config.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return p


def test_missing_field_is_named(cli, tmp_path):
    data = json.loads((DATA / "mistral-7b-v0.1.json").read_text())
    del data["intermediate_size"]
    p = _write(tmp_path, data)
    out = tmp_path / "out.yaml"
    out.write_text("keep me")
    r = cli("import-hf", p, "-o", out)
    assert r.code == 2
    assert "'intermediate_size'" in r.err and r.err.count("\n") == 1
    assert out.read_text() == "keep me"  # never overwritten on error


def test_mla_missing_field(tmp_path):
    data = json.loads((DATA / "deepseek-v2.json").read_text())
    del data["v_head_dim"]
    with pytest.raises(ConfigError, match=r"'v_head_dim'.*MLA"):
        load_hf_config(_write(tmp_path, data))


def test_unknown_family(cli, tmp_path):
    p = _write(tmp_path, {"model_type": "bert", "hidden_size": 8})
    r = cli("memory", "--model", p, "--ctx", "8")
    assert r.code == 2 and "model_type 'bert' is not supported" in r.err


def test_malformed_json(cli, tmp_path):
    p = tmp_path / "config.json"
    p.write_text('{"model_type": "llama",')
    r = cli("import-hf", p)
    assert r.code == 2 and "kvcalc: error:" in r.err


def test_nemotron_pattern_and_qwen3(tmp_path):
    pattern = "M-M*-M"
    data = {
        "model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": len(pattern),
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
        "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 512,
        "hybrid_override_pattern": pattern, "ssm_state_size": 8, "conv_kernel": 4,
        "mamba_num_heads": 8, "mamba_head_dim": 16, "n_groups": 2,
    }  # fmt: skip
    cfg = load_hf_config(_write(tmp_path, data))
    assert cfg.layers == ("mamba2", "mlp", "mamba2", "full", "mlp", "mamba2")
    assert not cfg.ffn_per_layer and cfg.n_dense_ffn_layers == 2
    q = {
        "model_type": "qwen3_moe", "hidden_size": 2048, "num_hidden_layers": 48,
        "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
        "intermediate_size": 6144, "vocab_size": 151936, "max_position_embeddings": 40960,
        "num_experts": 128, "num_experts_per_tok": 8, "moe_intermediate_size": 768,
        "decoder_sparse_step": 1, "mlp_only_layers": [], "tie_word_embeddings": False,
    }  # fmt: skip
    qcfg = load_hf_config(_write(tmp_path, q, "q.json"))
    assert model_params(qcfg).total == model_params(load_model("qwen3-30b-a3b")).total


def test_hf_prefix_without_package(cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'kvcalc\[hf\]'"):
        load_model("hf:mistralai/Mistral-7B-v0.1")
    r = cli("memory", "--model", "hf:mistralai/Mistral-7B-v0.1", "--ctx", "8")
    assert r.code == 2 and "huggingface_hub is not installed" in r.err


def test_hf_prefix_fetch_and_offline(cli, monkeypatch):
    import calc.data.hf_fetch

    fake = types.ModuleType("huggingface_hub")
    fake.hf_hub_download = lambda repo, fn: str(DATA / "mistral-7b-v0.1.json")
    monkeypatch.setitem(sys.modules, "huggingface_hub", fake)
    monkeypatch.setattr(calc.data.hf_fetch, "remote_size", lambda url, token=None: 430)
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    cfg = load_model("hf:mistralai/Mistral-7B-v0.1")
    assert cfg.name == "mistral-7b-v0.1"
    assert cfg.source == "https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json"

    def offline(repo, fn):
        raise OSError("We couldn't connect to 'https://huggingface.co'")

    fake.hf_hub_download = offline
    r = cli("memory", "--model", "hf:mistralai/Mistral-7B-v0.1", "--ctx", "8")
    assert r.code == 2 and r.err.count("\n") == 1 and "cannot fetch config.json" in r.err
    r = cli("memory", "--model", "hf:nonsense", "--ctx", "8")
    assert r.code == 2 and "expected hf:org/name" in r.err
