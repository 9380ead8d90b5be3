"""RoPE's cos/sin table as the engines size it: the rotary width (partial rotary, MLA, none),
the rows (scaling, vLLM's multimodal 4 ×, longrope's two caches) and the distinct tables."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from calc.data.model_schema import RopeScaling
from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.sglang import pool as sglang_pool
from calc.deploy.engines.sglang.rules import VERSIONS
from calc.deploy.engines.vllm import pool as vllm_pool
from calc.errors import ConfigError


def _vllm(cfg) -> float:
    return vllm_pool.rope_table_bytes(SimpleNamespace(model=cfg))


@pytest.mark.parametrize(
    ("model", "width", "expected"),
    [
        # partial_rotary_factor 0.25 of head_dim 256 = 64: 262,144 × 64 × 2 B
        ("qwen3-next-80b-a3b", 64, 33_554_432),
        # 64 wide, multimodal RoPE: 4 × 262,144 = 1,048,576 rows × 64 × 2 B (mrope.py)
        ("qwen3.5-27b", 64, 134_217_728),
        # config.json rotary_dim 64 of head_dim 128: 196,608 × 64 × 2 B
        ("minimax-m2.5", 64, 25_165_824),
        # partial_rotary_factor 0.5 of 128: 202,752 × 64 × 2 B
        ("glm-4.6", 64, 25_952_256),
        # partial_rotary_factor 0.4 of 80 = 32: 2,048 × 32 × 2 B
        ("phi-2", 32, 131_072),
        # the whole head: 131,072 × 128 × 2 B (llama3 scaling keeps max_position_embeddings)
        ("llama3.1-8b", 128, 33_554_432),
        # no RoPE in the attention layers
        ("jamba-v0.1", 0, 0),
        ("nemotron-h-56b", 0, 0),
        ("nemotron-3-nano-30b-a3b", 0, 0),
        # MLA's 64-wide key part; DeepSeek-V3.2's indexer adds a NeoX-style table:
        # 2 × 163,840 (YaRN 4,096 × 40) × 64 × 2 B
        ("deepseek-v3.2", 64, 41_943_040),
        # GLM-5's indexer rotates interleaved like its MLA: one table, 202,752 × 64 × 2 B
        ("glm-5", 64, 25_952_256),
        # Gemma 3 12B: the global table, linear × 8: 1,048,576 × 256 × 2 B = 536,870,912, and
        # the sliding layers' own unscaled one, 131,072 × 256 × 2 B = 67,108,864
        ("gemma-3-12b", 256, 603_979_776),
        # Gemma 2 rotates every layer alike: one table, 8,192 × 256 × 2 B
        ("gemma-2-9b", 256, 4_194_304),
    ],
)
def test_vllm_table_width_rows_and_tables(model, width, expected):
    cfg = load_model(model)
    assert cfg.rotary_width == width
    assert _vllm(cfg) == expected


def test_sglang_table_partial_rotary_fp32_without_the_mrope_rows():
    # Qwen3.5-27B under SGLang 0.5.16 on an H100: MRotaryEmbedding keeps max_position, FP32 on
    # CUDA: 262,144 × 64 × 4 B = 67,108,864 B = 64 MiB (256 MiB with the whole head)
    dep = Deployment.build(load_model("qwen3.5-27b"), load_hardware("h100"),
                           engine=EngineSettings(name="sglang", version="0.5.16"))  # fmt: skip
    assert dep.per_gpu.prediction.rope_table_bytes == 67_108_864
    # 0.4.1 builds it with vLLM's get_rope, cast to bf16: 262,144 × 64 × 2 B
    assert sglang_pool.rope_table_bytes(dep, VERSIONS.rules("0.4.1")) == 262_144 * 64 * 2
    # DeepSeek-V3.2: two FP32 tables of 163,840 × 64: 2 × 41,943,040 = 83,886,080 B
    ds = SimpleNamespace(model=load_model("deepseek-v3.2"), weight_override=None,
                         hardware=load_hardware("h200"))  # fmt: skip
    assert sglang_pool.rope_table_bytes(ds, VERSIONS.rules("0.5.16")) == 83_886_080


def test_longrope_keeps_the_short_and_long_caches():
    # a Phi-3-128k-style longrope: 131,072 positions over an original 4,096, head_dim 96
    cfg = dataclasses.replace(
        load_model("phi-3-mini"), max_ctx=131_072,
        rope_scaling=RopeScaling(type="longrope", original_max_ctx=4096),
    )  # fmt: skip
    # vLLM: short and long caches concatenated, (4,096 + 131,072) × 96 × 2 B = 25,952,256
    assert vllm_pool.rope_cache_positions(cfg) == 135_168
    assert _vllm(cfg) == 25_952_256
    # SGLang keeps short, long and their concatenation in the model dtype: × 2 = 51,904,512
    dep = SimpleNamespace(model=cfg, weight_override=None, hardware=load_hardware("h100"))
    assert sglang_pool.rope_table_bytes(dep, VERSIONS.rules("0.5.16")) == 51_904_512


def test_mrope_multiplies_the_scaled_rows():
    # YaRN with an mrope_section: MRotaryEmbedding(original) × 4, then × factor:
    # 4 × 32,768 × 4 = 524,288 rows
    cfg = dataclasses.replace(
        load_model("qwen3-8b"),
        rope_scaling=RopeScaling(type="yarn", factor=4.0, original_max_ctx=32_768, mrope=True),
    )  # fmt: skip
    assert vllm_pool.rope_scaled_positions(cfg) == 131_072
    assert vllm_pool.rope_cache_positions(cfg) == 524_288


@pytest.mark.parametrize(
    ("extra", "msg"),
    [
        ("rotary_dim: 256\n", "rotary_dim \\(256\\) exceeds head_dim \\(128\\)"),
        ("rotary_dim: -1\n", "rotary_dim"),
    ],
)
def test_schema_rejects_a_rotary_width_past_the_head(tmp_path, cli, extra, msg):
    p = tmp_path / "m.yaml"
    p.write_text(
        "name: m\ndisplay_name: m\nsource: x\nn_layers: 2\nd_model: 256\nn_heads: 2\n"
        "n_kv_heads: 1\nhead_dim: 128\nd_ffn: 8\nffn_kind: gated\nvocab_size: 10\n"
        "tie_embeddings: true\nmax_ctx: 10\n" + extra
    )
    with pytest.raises(ConfigError, match=msg):
        load_model(str(p))
    r = cli("memory", "--model", str(p), "--ctx", "8")
    assert r.code == 2 and "rotary_dim" in r.err and "Traceback" not in r.err


def test_import_reads_partial_rotary_and_mrope(tmp_path):
    import json

    from calc.data.hf_import import load_hf_config

    base = {"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "hidden_size": 1024,
            "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
            "head_dim": 128, "intermediate_size": 3072, "vocab_size": 1000,
            "max_position_embeddings": 4096}  # fmt: skip
    cases = [
        ({"partial_rotary_factor": 0.5}, 64, False),  # 128 × 0.5
        ({"rotary_pct": 0.25}, 32, False),  # GPT-NeoX's name: 128 × 0.25
        ({"rotary_dim": 48}, 48, False),
        ({"partial_rotary_factor": 1.0}, 128, False),  # the whole head
        (
            {"rope_parameters": {"rope_type": "default", "mrope_section": [16, 24, 24],
                                 "partial_rotary_factor": 0.75}},
            96,  # 128 × 0.75, the factor inside rope_parameters (Qwen3.5's place for it)
            True,
        ),
    ]
    for i, (extra, width, mrope) in enumerate(cases):
        d = tmp_path / str(i)
        d.mkdir()
        (d / "config.json").write_text(json.dumps({**base, **extra}))
        cfg = load_hf_config(d)
        assert cfg.rotary_width == width, extra
        assert (cfg.rope_scaling is not None and cfg.rope_scaling.mrope) == mrope


def test_sglang_gemma3_tables_by_release():
    # to 0.5.9 SGLang's Gemma 3 rotates with inv_freq modules (no table); from 0.5.10 each layer
    # builds get_rope unscaled: 2 × 131,072 × 256 × 4 B = 268,435,456 B (FP32 on CUDA)
    dep = SimpleNamespace(model=load_model("gemma-3-12b"), weight_override=None,
                          hardware=load_hardware("h100"))  # fmt: skip
    assert sglang_pool.rope_table_bytes(dep, VERSIONS.rules("0.5.9")) == 0
    assert sglang_pool.rope_table_bytes(dep, VERSIONS.rules("0.5.10")) == 268_435_456
