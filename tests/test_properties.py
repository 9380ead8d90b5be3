"""Property tests over generated model configs and scenarios (hypothesis).

Invariants: every result is finite and non-negative; KV of MQA ≤ GQA ≤ MHA; KV is linear in
batch and in ctx; concurrency never rises with ctx; TPOT is never below its speed-of-light
floor; sweep rows equal the single-scenario results.
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from calc.data.model_schema import ModelConfig
from calc.data.registry import load_hardware
from calc.deploy.steps import decode_step, prefill
from calc.formulas.attention_layout import attention_layout
from calc.reports.cost import operating_point
from calc.reports.sweep import sweep
from tests import reports as R

MODEL = TypeAdapter(ModelConfig)
HARDWARE = ["h100", "a100-80g", "b200", "mi300x", "l40s"]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def model_configs(draw) -> dict:
    """A small but complete model config: dense or MoE, GQA-family or MLA, tied or not."""
    n_kv = draw(st.sampled_from([1, 2, 4, 8]))
    group = draw(st.sampled_from([1, 2, 4]))
    head_dim = draw(st.sampled_from([32, 64, 128]))
    n_heads = n_kv * group
    d_model = n_heads * head_dim * draw(st.sampled_from([1, 2]))
    cfg = {
        "name": "generated",
        "display_name": "generated",
        "source": "https://example.invalid/config.json",
        "n_layers": draw(st.integers(1, 12)),
        "d_model": d_model,
        "n_heads": n_heads,
        "n_kv_heads": n_kv,
        "head_dim": head_dim,
        "d_ffn": draw(st.sampled_from([2, 3, 4])) * d_model,
        "ffn_kind": draw(st.sampled_from(["gated", "mlp"])),
        "vocab_size": draw(st.sampled_from([1000, 32000, 128256])),
        "tie_embeddings": draw(st.booleans()),
        "max_ctx": 131072,
        "norm": draw(st.sampled_from(["rmsnorm", "layernorm"])),
        "qkv_bias": draw(st.booleans()),
    }
    if draw(st.booleans()):
        experts = draw(st.sampled_from([4, 8, 16]))
        cfg["moe"] = {
            "n_routed_experts": experts,
            "experts_per_token": draw(st.integers(1, min(4, experts))),
            "n_shared_experts": draw(st.integers(0, 1)),
            "d_expert_ffn": draw(st.sampled_from([1, 2])) * d_model // 2,
            "n_dense_layers": draw(st.integers(0, min(1, cfg["n_layers"] - 1))),
        }
    if draw(st.integers(0, 3)) == 0:
        cfg.pop("head_dim")
        cfg["mla"] = {
            "kv_lora_rank": draw(st.sampled_from([64, 128, 512])),
            "q_lora_rank": draw(st.sampled_from([None, 256])),
            "qk_rope_head_dim": 32,
            "qk_nope_head_dim": 64,
            "v_head_dim": 64,
        }
    return cfg


# Signed by contract (docs/names.md): headroom is short by that much, and the KV budget is
# negative when the weights alone do not fit (the memory report then warns "does not fit").
SIGNED_FIELDS = ("headroom_bytes_per_gpu", "kv_budget_bytes")


def _finite_non_negative(fields: dict, allow_negative=SIGNED_FIELDS) -> None:
    for key, value in fields.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        assert math.isfinite(value), key
        if key not in allow_negative:
            assert value >= 0, key


@SETTINGS
@given(model_configs(), st.integers(1, 65536), st.integers(1, 64), st.sampled_from(HARDWARE))
def test_memory_results_finite_and_non_negative(raw, ctx, batch, hw_name):
    cfg = MODEL.validate_python(raw)
    r = R.memory(cfg, ctx=ctx, batch=batch, hardware=load_hardware(hw_name))
    _finite_non_negative(r.fields)
    assert r.fields["total_bytes"] >= r.fields["weights_bytes"] > 0
    if "kv_budget_bytes" in r.fields and r.fields["kv_budget_bytes"] < 0:
        # a negative budget is only ever the weights not fitting, and then nothing is held
        assert r.fields["fits"] is False
        assert r.fields["max_concurrency"] == 0


@SETTINGS
@given(model_configs(), st.integers(1, 65536), st.sampled_from([0.5, 1, 2]))
def test_kv_mqa_le_gqa_le_mha(raw, ctx, bpe):
    cfg = MODEL.validate_python(raw)
    if cfg.mla is not None:
        cfg = replace(cfg, mla=None, head_dim=cfg.k_head_dim)
    mqa = attention_layout(cfg, "mqa").kv_bytes_per_sequence(ctx, bpe)
    mha = attention_layout(cfg, "mha").kv_bytes_per_sequence(ctx, bpe)
    own = attention_layout(cfg).kv_bytes_per_sequence(ctx, bpe)
    assert 0 < mqa <= own <= mha


@SETTINGS
@given(model_configs(), st.integers(1, 32768), st.integers(1, 64), st.integers(2, 4))
def test_kv_linear_in_batch_and_ctx(raw, ctx, batch, k):
    cfg = MODEL.validate_python(raw)
    one = R.memory(cfg, ctx=ctx, batch=1).fields["kv_cache_bytes"]
    assert R.memory(cfg, ctx=ctx, batch=batch).fields["kv_cache_bytes"] == batch * one
    assert R.memory(cfg, ctx=k * ctx, batch=1).fields["kv_cache_bytes"] == k * one


@SETTINGS
@given(model_configs(), st.sampled_from(HARDWARE), st.integers(1, 16384), st.integers(1, 16384))
def test_concurrency_never_rises_with_ctx(raw, hw_name, c1, c2):
    cfg, hw = MODEL.validate_python(raw), load_hardware(hw_name)
    short, long_ = sorted((c1, c2))
    a = R.capacity(cfg, hw, ctx=short).fields["max_concurrency"]
    b = R.capacity(cfg, hw, ctx=long_).fields["max_concurrency"]
    assert b <= a


@SETTINGS
@given(
    model_configs(),
    st.sampled_from(HARDWARE),
    st.integers(1, 32768),
    st.integers(1, 256),
    st.sampled_from(["low", "expected", "high"]),
)
def test_tpot_and_ttft_never_below_speed_of_light(raw, hw_name, ctx, batch, eff):
    cfg, hw = MODEL.validate_python(raw), load_hardware(hw_name)
    floor = decode_step(cfg, hw, batch=batch, ctx=ctx, efficiency="peak")
    step = decode_step(cfg, hw, batch=batch, ctx=ctx, efficiency=eff)
    assert math.isfinite(step.time_s) and step.time_s >= floor.time_s > 0
    assert step.flops >= 0 and step.bytes > 0
    pre_floor = prefill(cfg, hw, prompt=ctx, batch=1, efficiency="peak")
    assert prefill(cfg, hw, prompt=ctx, batch=1, efficiency=eff).time_s >= pre_floor.time_s


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model_configs(),
    st.sampled_from(HARDWARE),
    st.lists(st.integers(1, 65536), min_size=1, max_size=3, unique=True),
    st.lists(st.integers(1, 128), min_size=1, max_size=3, unique=True),
)
def test_sweep_rows_equal_single_scenarios(raw, hw_name, ctxs, batches):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "generated.yaml"
        path.write_text(yaml.safe_dump(raw))
        cfg, hw = MODEL.validate_python(raw), load_hardware(hw_name)
        rows = sweep([str(path)], [hw_name], ctx=sorted(ctxs), batch=sorted(batches)).rows()
    assert len(rows) == len(ctxs) * len(batches)
    for row in rows:
        cap = R.capacity(cfg, hw, ctx=row["ctx"], batch=row["batch"]).fields
        for key in ("kv_budget_bytes", "kv_cache_tokens", "max_concurrency", "fits"):
            assert row[key] == cap[key], key
        point = operating_point(
            R.deployment(cfg, hw), batch=row["batch"], ctx=row["ctx"], prompt=row["ctx"]
        )
        assert row["tpot_s"] == pytest.approx(point["tpot_s"], rel=1e-9)
        key = "output_tokens_per_s_per_gpu"
        assert row[key] == pytest.approx(point[key], rel=1e-9)
