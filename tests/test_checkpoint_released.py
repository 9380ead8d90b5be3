"""Checkpoints as released (issue 24, deliverable 3): NVIDIA ModelOpt FP8 / NVFP4 / mixed
precision from a snapshot's hf_quant_config.json or config.json's quantization_config, the
layers and projections they leave in bf16, the fp8 KV cache they ask for, and a snapshot's
model.safetensors.index.json total compared with the analytic weights.

The snapshot folders are real releases (tests/data/hf_configs/, README there for sources).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from calc.data.hf_import import load_hf_config
from calc.deploy.checkpoint import (
    checkpoint_size_warning,
    model_weight_bytes,
    params_by_component,
    released_dtypes,
)
from calc.formulas.attention_layout import attention_layout

CONFIGS = Path(__file__).resolve().parent / "data" / "hf_configs"


def test_qwen3_235b_nvfp4_from_hf_quant_config():
    cfg = load_hf_config(CONFIGS / "qwen3-235b-a22b-nvfp4")
    d = released_dtypes(cfg)
    assert d["routed_experts"] == d["attention"] == "nvfp4"
    assert d["router"] == d["embedding"] == d["lm_head"] == "bf16"  # gates excluded, never conv.
    assert cfg.kv_dtype == "fp8"  # kv_cache_quant_algo FP8
    w = model_weight_bytes(cfg)
    # experts 227,096,395,776 × (0.5 + 1/16) = 127,741,722,624; attention (less its q/k norms)
    # 6,702,497,792 × 0.5625 = 3,770,155,008; router 49,283,072 × 2 = 98,566,144; embedding
    # and lm_head 2 × 622,329,856 × 2 = 2,489,319,424; norms 798,208 × 2 = 1,596,416
    # → 134,101,359,616 B (the "about 134 GB"), not 470,187,269,120 as bf16
    assert sum(w.values()) == 134_101_359_616
    # fp8 KV: 94 × 2 × 4 × 128 × 1 B = 96,256 B per token, half of bf16's 192,512
    assert attention_layout(cfg).kv_bytes_per_token(1) == 96_256


def test_qwen3_235b_nvfp4_fits_one_b200(cli):
    r = cli("capacity", "-m", str(CONFIGS / "qwen3-235b-a22b-nvfp4"), "-H", "b200", "--ctx",
            "8192", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    d = r.json()
    assert d["fits"] and d["kv_dtype"] == "fp8"
    assert d["weights_bytes_per_gpu"] == 134_101_359_616


def test_config_without_quant_info_under_a_quantised_name_warns(cli, tmp_path):
    folder = tmp_path / "Qwen3-235B-A22B-NVFP4"
    folder.mkdir()
    shutil.copy(CONFIGS / "qwen3-235b-a22b-nvfp4" / "config.json", folder)
    r = cli("memory", "-m", str(folder), "--ctx", "8", "-f", "json")
    assert r.code == 0
    assert "reads like a quantised release" in r.err and "hf_quant_config.json" in r.err


def test_deepseek_v32_nvfp4_keeps_mla_projections_and_indexer_in_bf16():
    cfg = load_hf_config(CONFIGS / "deepseek-v3.2-nvfp4")
    assert set(cfg.unquantised_parts) == {"q_a_proj", "q_b_proj", "kv_a_proj", "kv_b_proj",
                                          "indexer"}  # fmt: skip
    parts = params_by_component(cfg)
    # per layer, bf16: q_a 7168·1536 = 11,010,048 + q_b 1536·128·192 = 37,748,736 + kv_a
    # 7168·576 = 4,128,768 + kv_b 512·128·256 = 16,777,216 + indexer 13,959,168 (its norm is a
    # norm) = 83,623,936; nvfp4: o_proj 128·128·7168 = 117,440,512
    assert parts["attention"] == 61 * (83_623_936 + 117_440_512)
    # 61 × (83,623,936 × 2 + 117,440,512 × 0.5625) = 61 × 233,308,160 = 14,231,797,760 B
    assert model_weight_bytes(cfg)["attention"] == pytest.approx(14_231_797_760, rel=1e-12)
    assert cfg.kv_dtype == "fp8"
    # fp8 sparse MLA: (656 + 132) × 61 = 48,068 B per token
    assert attention_layout(cfg).kv_bytes_per_token(1) == 48_068


def test_nemotron3_nano_nvfp4_layers_left_in_bf16():
    cfg = load_hf_config(CONFIGS / "nemotron-3-nano-30b-a3b-nvfp4")
    d = released_dtypes(cfg)
    # every attention projection of all 6 attention layers is excluded: attention stays bf16;
    # Mamba in/out projections excluded in 6 of the 23 Mamba-2 layers
    assert d["attention"] == "bf16" and d["ssm"] == "nvfp4"
    assert cfg.unquantised_layers == {"ssm": [4, 11, 18, 25, 32, 41]}
    w = model_weight_bytes(cfg)
    # 23 Mamba-2 mixers × 38,742,208 = 891,070,784 params
    assert params_by_component(cfg)["ssm"] == 891_070_784
    # 6/23 of them in bf16, 17/23 in nvfp4: 891,070,784 × (6/23 × 2 + 17/23 × 0.5625)
    assert w["ssm"] == pytest.approx(891_070_784 * (6 / 23 * 2 + 17 / 23 * 0.5625), rel=1e-12)


def test_modelopt_mixed_precision_per_module():
    cfg = load_hf_config(CONFIGS / "qwen3.6-27b-nvfp4")
    d = released_dtypes(cfg)
    # quantized_layers: attention and DeltaNet projections FP8, MLPs and lm_head W4A16_NVFP4
    assert (d["attention"], d["ssm"], d["dense_ffn"], d["lm_head"]) == (
        "fp8-tensor",
        "fp8-tensor",
        "nvfp4",
        "nvfp4",
    )
    assert d["embedding"] == "bf16" and cfg.kv_dtype == "fp8"


def _snapshot(tmp_path, total: int) -> Path:
    folder = tmp_path / "snap"
    folder.mkdir(exist_ok=True)
    shutil.copy(CONFIGS / "granite-3.3-8b-instruct" / "config.json", folder)
    index = {"metadata": {"total_size": total}, "weight_map": {}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    return folder


def test_safetensors_total_that_agrees_is_quiet(tmp_path, cli):
    # 8,170,864,640 params × 2 B = 16,341,729,280 B
    cfg = load_hf_config(_snapshot(tmp_path, 16_341_729_280))
    assert cfg.checkpoint_bytes == 16_341_729_280 and checkpoint_size_warning(cfg) is None
    r = cli("memory", "-m", str(tmp_path / "snap"), "--ctx", "8")
    assert r.code == 0 and "safetensors" not in r.err


def test_safetensors_total_that_disagrees_warns(tmp_path, cli):
    cfg = load_hf_config(_snapshot(tmp_path, 32_683_458_560))  # fp32 tensors: twice as many
    warning = checkpoint_size_warning(cfg)
    assert warning and "32.68 GB" in warning and "16.34 GB" in warning and "+100.0%" in warning
    r = cli("memory", "-m", str(tmp_path / "snap"), "--ctx", "8")
    assert r.code == 0 and r.err.count("kvcalc: warning:") == 1 and "+100.0%" in r.err


def test_safetensors_total_allows_the_mtp_layer(tmp_path):
    # DeepSeek-V3.2's checkpoint stores its MTP layer (with its own embedding and lm_head):
    # about 1.4% more than the model's weights, which the check allows
    folder = tmp_path / "ds"
    folder.mkdir()
    shutil.copy(CONFIGS / "deepseek-v3.2" / "config.json", folder)
    cfg = load_hf_config(folder)
    weights = sum(model_weight_bytes(cfg).values())
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": int(weights * 1.02)}})
    )
    assert checkpoint_size_warning(load_hf_config(folder)) is None


def test_bad_safetensors_index_is_one_line(tmp_path, cli):
    folder = _snapshot(tmp_path, 1)
    (folder / "model.safetensors.index.json").write_text('{"metadata": {"total_size": "big"}}')
    r = cli("memory", "-m", str(folder), "--ctx", "8")
    assert r.code == 2 and r.err.count("\n") == 1 and "total_size" in r.err


def test_fp8_checkpoint_with_modelopt_modules_in_nvfp4():
    from calc.data.hf_quant import read_quantization

    # NVIDIA's DeepSeek-V4 NVFP4 layout: quant_method fp8 (128 × 128 blocks) with a ModelOpt
    # MIXED_PRECISION list putting the experts in NVFP4; attention left in bf16
    q = {
        "quant_method": "fp8",
        "quant_algo": "MIXED_PRECISION",
        "weight_block_size": [128, 128],
        "quantized_layers": {f"layers.{i}.ffn.experts": {"quant_algo": "NVFP4"} for i in (0, 1)},
        "ignore": ["*.attn.*", "head"],
    }
    qz = read_quantization(q, "config.json", n_layers=2)
    assert qz.formats["routed_experts"] == "nvfp4"
    assert qz.formats["dense_ffn"] == qz.formats["shared_experts"] == "fp8-block128"
    assert qz.excluded == {"attention": "*", "lm_head": "*"}


def test_hf_spec_fetches_the_modelopt_file_beside_config(monkeypatch, tmp_path):
    import sys
    import types

    from calc.data.registry import load_model

    snap = tmp_path / "snapshot"
    snap.mkdir()
    src = CONFIGS / "qwen3-235b-a22b-nvfp4"

    def download(repo, filename):  # the Hub's cache: every file of a repo in one folder
        if not (src / filename).exists():
            raise OSError(f"404: {filename}")
        shutil.copy(src / filename, snap / filename)
        return str(snap / filename)

    def size(url, token=None):  # the HEAD probe before each download (calc.data.hf_fetch)
        name = url.rsplit("/", 1)[-1]
        if not (src / name).exists():
            from calc.errors import ConfigError

            raise ConfigError("the Hub has no such model or file (HTTP 404); check the name")
        return (src / name).stat().st_size

    import calc.data.hf_fetch

    fake = types.ModuleType("huggingface_hub")
    fake.hf_hub_download = lambda repo, filename, **kw: download(repo, filename)
    monkeypatch.setitem(sys.modules, "huggingface_hub", fake)
    monkeypatch.setattr(calc.data.hf_fetch, "remote_size", size)
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    cfg = load_model("hf:nvidia/Qwen3-235B-A22B-NVFP4")
    assert released_dtypes(cfg)["routed_experts"] == "nvfp4" and cfg.kv_dtype == "fp8"
    assert sum(model_weight_bytes(cfg).values()) == 134_101_359_616
