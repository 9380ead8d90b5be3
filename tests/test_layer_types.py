"""Per-layer attention types: exact KV bytes of sliding-window and chunked-local layers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from calc.data.model_schema import ModelConfig
from calc.data.registry import load_model
from calc.errors import ConfigError
from calc.formulas.attention_layout import attention_layout
from calc.formulas.layer_pattern import cached_token_layers, windowed_groups


def test_sliding_and_chunked_token_caps():
    def one(kind, ctx, **kw):  # tokens one layer of ``kind`` caches at ``ctx``
        return cached_token_layers(ctx, 0, windowed_groups([kind], **kw))

    assert one("sliding", 100, sliding_window=4096) == 100
    assert one("sliding", 10_000, sliding_window=4096) == 4096
    assert one("sliding", 10_000, sliding_window=4096, sink_tokens=4) == 4100  # W + sinks
    assert one("chunked", 10_000, chunk_size=8192) == 8192
    assert one("chunked", 5, chunk_size=8192) == 5


def test_cached_token_layers_arrays():
    ctx = np.array([1, 4096, 32768])
    got = cached_token_layers(ctx, 21, ((4096, 21),))
    # 21 × ctx + 21 × min(ctx, 4096)
    assert got.tolist() == [42, 21 * 8192, 21 * 32768 + 21 * 4096]


def test_windowed_groups():
    types = ["sliding", "full", "chunked", "chunked"]
    assert windowed_groups(types, 128, 8192) == ((128, 1), (8192, 2))
    assert windowed_groups(["full"] * 3) == ()


def test_mistral_every_layer_swa():
    layout = attention_layout(load_model("mistral-7b"))
    # 2 × 8 kv heads × 128 × 2 B = 4,096 B per token per layer
    assert layout.kv_bytes_per_token_per_layer(2) == 4096
    # below the window: 32 layers × 1,000 tokens × 4,096 B = 131,072,000
    assert layout.kv_bytes_per_sequence(1000, 2) == 131_072_000
    # at 32k every layer holds only 4,096 tokens: 32 × 4,096 × 4,096 = 536,870,912
    assert layout.kv_bytes_per_sequence(32768, 2) == 536_870_912
    assert layout.kv_bytes_per_sequence(4096, 2) == layout.kv_bytes_per_sequence(10**6, 2)


def test_gemma2_9b_alternating_at_32k():
    cfg = load_model("gemma-2-9b")
    assert cfg.head_dim == 256 and cfg.d_model // cfg.n_heads == 224  # head_dim ≠ d / h
    assert cfg.layers[:2] == ("sliding", "full")
    layout = attention_layout(cfg)
    # 2 × 8 × 256 × 2 B = 8,192 B per token per layer
    assert layout.kv_bytes_per_token_per_layer(2) == 8192
    # 21 global × 32,768 + 21 local × 4,096 = 774,144 token-layers × 8,192 = 6,341,787,648
    assert layout.kv_bytes_per_sequence(32768, 2) == 6_341_787_648


def test_gemma3_27b_five_local_one_global():
    cfg = load_model("gemma-3-27b")
    assert cfg.n_layers_of("full") == 10 and cfg.n_layers_of("sliding") == 52  # 62 layers
    assert cfg.layers[5] == "full" and cfg.layers[59] == "full" and cfg.layers[61] == "sliding"
    # 2 × 16 × 128 × 2 = 8,192 B; 10 × 131,072 + 52 × 1,024 = 1,363,968 token-layers
    # × 8,192 = 11,173,625,856 B
    assert attention_layout(cfg).kv_bytes_per_sequence(131072, 2) == 11_173_625_856


def test_gpt_oss_128_token_window():
    cfg = load_model("gpt-oss-120b")
    layout = attention_layout(cfg)
    # 2 × 8 × 64 × 2 = 2,048 B; 18 × 131,072 + 18 × 128 = 2,361,600 token-layers
    # × 2,048 = 4,836,556,800 B
    assert layout.kv_bytes_per_sequence(131072, 2) == 4_836_556_800


def _cfg(**kw):
    base = dict(
        name="t", display_name="t", source="x", n_layers=4, d_model=512, n_heads=8,
        n_kv_heads=2, head_dim=64, d_ffn=1024, ffn_kind="gated", vocab_size=1000,
        tie_embeddings=True, max_ctx=100_000,
    )  # fmt: skip
    base.update(kw)
    return TypeAdapter(ModelConfig).validate_python(base)


def test_chunked_local_llama4_style():
    cfg = _cfg(layer_pattern=["chunked", "chunked", "chunked", "full"], attention_chunk_size=8192)
    layout = attention_layout(cfg)
    # 2 × 2 × 64 × 2 = 512 B; 3 × 8,192 + 1 × 20,000 = 44,576 token-layers × 512 = 22,822,912
    assert layout.kv_bytes_per_sequence(20_000, 2) == 22_822_912


def test_sink_tokens_extend_window():
    cfg = _cfg(layer_pattern=["sliding"], sliding_window=1000, sink_tokens=4)
    # 4 layers × (1,000 + 4) × 512 B = 2,056,192
    assert attention_layout(cfg).kv_bytes_per_sequence(50_000, 2) == 2_056_192


def test_whatif_keeps_windows():
    # MQA what-if on Gemma 2 keeps the local/global split: 1 × 256 × 2 × 2 = 1,024 B/layer
    layout = attention_layout(load_model("gemma-2-9b"), "mqa")
    assert layout.kv_bytes_per_sequence(32768, 2) == 774_144 * 1024


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(layer_pattern=["sliding"]), "sliding_window"),
        (dict(layer_pattern=["chunked"]), "attention_chunk_size"),
        (dict(layer_types=["full"]), "layer_types has 1 entries"),
        (dict(layer_types=["full"] * 4, layer_pattern=["full"]), "not both"),
        (dict(layer_pattern=["mamba"]), "ssm"),
    ],
)
def test_schema_rejects(kw, msg):
    with pytest.raises(ValueError, match=msg):
        _cfg(**kw)


def test_existing_yaml_unchanged_layout():
    cfg = load_model("llama3-70b")
    assert cfg.layers == ("full",) * 80
    # 2 × 8 × 128 × 2 = 4,096 B × 80 layers × 8,192 = 2,684,354,560
    assert attention_layout(cfg).kv_bytes_per_sequence(8192, 2) == 2_684_354_560


@given(st.integers(1, 10**6), st.integers(1, 10**6))
def test_windowed_never_exceeds_full_and_monotone(a, b):
    swa = attention_layout(load_model("gemma-2-9b"))
    full = _cfg()  # unused shape; compare against the same layout with no windows
    del full
    lo, hi = sorted((a, b))
    assert swa.kv_bytes_per_sequence(lo, 2) <= swa.kv_bytes_per_sequence(hi, 2)
    assert swa.kv_bytes_per_sequence(hi, 2) <= swa.kv_bytes_per_token(2) * hi


def test_memory_cli_gemma2_32k(cli):
    r = cli("memory", "--model", "gemma-2-9b", "--ctx", "32768", "--format", "json")
    assert r.code == 0, r.err
    assert r.json()["kv_bytes_per_sequence"] == 6_341_787_648


def test_bad_yaml_names_field(tmp_path, cli):
    p = tmp_path / "m.yaml"
    p.write_text(
        "name: m\ndisplay_name: m\nsource: x\nn_layers: 2\nd_model: 8\nn_heads: 2\n"
        "n_kv_heads: 1\nhead_dim: 4\nd_ffn: 8\nffn_kind: gated\nvocab_size: 10\n"
        "tie_embeddings: true\nmax_ctx: 10\nlayer_pattern: [sliding]\n"
    )
    r = cli("memory", "--model", str(p), "--ctx", "8")
    assert r.code == 2 and "sliding_window" in r.err
    with pytest.raises(ConfigError):
        load_model(str(p))


@pytest.mark.parametrize(
    "model, expected",
    [
        ("gemma-2-9b", 6_341_787_648),  # as test_gemma2_9b_alternating_at_32k
        ("jamba-v0.1", 536_870_912),  # 4 attention layers × 32,768 × 4,096 B
        ("mistral-7b", 536_870_912),  # 32 × 4,096 × 4,096 B
    ],
)
def test_latency_kv_per_gpu_respects_layer_types(cli, model, expected):
    r = cli("latency", "--model", model, "--hardware", "h200", "--ctx", "32768", "-f", "json")
    assert r.code == 0, r.err
    assert r.json()["kv_cache_bytes_per_gpu"] == expected


def test_sharded_layout_per_layer_average():
    from calc.deploy.parallel import shard, sharded_layout

    cfg = load_model("gemma-2-9b")
    one = sharded_layout(attention_layout(cfg), shard(cfg), 1)
    # one layer is the average: 42 × it = the model's 6,341,787,648 B at 32k
    assert 42 * one.kv_bytes_per_sequence(32768, 2) == pytest.approx(6_341_787_648)
