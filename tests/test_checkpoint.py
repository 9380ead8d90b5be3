"""calc.deploy.checkpoint: the format of each weight component as released, what --weight-dtype
changes, and the per-component parameters per GPU (calc.deploy.parallel)."""

from __future__ import annotations

import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calc.data.model_schema import WeightDtypes, WeightFormat
from calc.data.registry import load_model, model_names
from calc.deploy.checkpoint import (
    COMPONENTS,
    REQUANTISED,
    linear_dtype,
    model_weight_bytes,
    params_by_component,
    released_dtypes,
    resolved_dtypes,
    weight_bytes_per_gpu_by_component,
    weight_bytes_per_param,
)
from calc.deploy.parallel import params_per_gpu, params_per_gpu_by_component, shard
from calc.formulas.params import model_params
from calc.formulas.quant import WEIGHT_FORMATS


def test_schema_formats_are_the_quant_formats():
    from calc.data.dtypes import DTYPES

    assert set(typing.get_args(WeightFormat)) == set(DTYPES) | set(WEIGHT_FORMATS)
    assert {f for f in WeightDtypes.__dataclass_fields__} == set(COMPONENTS)


@pytest.mark.parametrize("name", model_names())
def test_components_sum_to_the_model(name):
    cfg = load_model(name)
    parts = params_by_component(cfg)
    assert sum(parts.values()) == model_params(cfg).total
    # one GPU holds every component whole
    assert params_per_gpu_by_component(cfg, shard(cfg)) == parts


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(["llama3.1-70b", "deepseek-v3", "gpt-oss-120b", "llama4-scout"]),
    tp=st.sampled_from([1, 2, 4, 8]),
    pp=st.sampled_from([1, 2, 4]),
)
def test_per_gpu_components_sum_to_params_per_gpu(name, tp, pp):
    cfg = load_model(name)
    s = shard(cfg, tp=tp, pp=pp)
    by = params_per_gpu_by_component(cfg, s)
    assert sum(by.values()) == params_per_gpu(cfg, s)
    whole = params_by_component(cfg)
    # no component holds more on one GPU than in the whole model (the busiest stage may
    # hold none of a component: DeepSeek-V3's 3 dense layers are not on its MoE stage)
    for c, n in by.items():
        assert 0 <= n <= whole[c]


def test_vision_tower_splits_over_tp():
    cfg = load_model("gemma-3-12b")
    # 421,290,864 / 4 = 105,322,716 per GPU
    assert params_per_gpu_by_component(cfg, shard(cfg, tp=4))["vision"] == 105_322_716


def test_weight_dtype_requantises_only_the_linear_layers():
    cfg = load_model("llama3.1-8b")
    d = resolved_dtypes(cfg, "int4-g128")
    assert {d[c] for c in REQUANTISED} == {"int4-g128"}
    assert d["embedding"] == d["lm_head"] == d["norms"] == d["router"] == "bf16"
    assert resolved_dtypes(cfg) == released_dtypes(cfg) == dict.fromkeys(COMPONENTS, "bf16")


def test_the_checkpoints_own_format_means_as_released():
    gpt = load_model("gpt-oss-120b")
    assert linear_dtype(gpt) == "mxfp4"
    # --weight-dtype mxfp4 on gpt-oss keeps its bf16 attention: the release as it is
    assert resolved_dtypes(gpt, "mxfp4") == released_dtypes(gpt)
    # --weight-dtype bf16 turns the experts to bf16: 116,829,156,672 × 2 B
    assert sum(model_weight_bytes(gpt, "bf16").values()) == 233_658_313_344
    assert linear_dtype(load_model("deepseek-v3")) == "fp8-block128"
    assert linear_dtype(load_model("llama3.1-8b")) == "bf16"


def test_bytes_per_gpu_match_the_per_param_rate():
    cfg = load_model("deepseek-v3")
    s = shard(cfg, tp=8)
    by = weight_bytes_per_gpu_by_component(cfg, s)
    rate = weight_bytes_per_param(cfg, None, s)
    assert sum(by.values()) == pytest.approx(rate * params_per_gpu(cfg, s), rel=1e-12)
    # DeepSeek-V3 at tp 8: the replicated bf16 router 58 × (7168·256 + 256) = 106,445,312
    # params = 212,890,624 B on every GPU
    assert by["router"] == 212_890_624


def test_memory_capacity_latency_agree_on_mixed_formats(cli):
    m = cli("memory", "-m", "gpt-oss-120b", "--ctx", "1024", "-f", "json").json()
    c = cli("capacity", "-m", "gpt-oss-120b", "-H", "h200", "--ctx", "1024", "-f", "json").json()
    lat = cli("latency", "-m", "gpt-oss-120b", "-H", "h200", "-f", "json").json()
    # the checkpoint: 60,935,224,320 B of mxfp4 experts + 4,255,115,904 B of bf16
    # (test_ops_modern); as vLLM 0.33 loads it on a Hopper GPU (the Triton MXFP4 backend) the
    # expert biases turn fp32: 36 layers × 128 experts × (2 × 2,880 + 2,880) = 39,813,120
    # biases × (4 − 0.53125 B) = 138,101,760 B more
    assert m["weights_bytes"] == 65_190_340_224
    assert c["weights_bytes_per_gpu"] == lat["weights_bytes_per_gpu"] == 65_328_441_984
    assert m["weight_dtype"] == c["weight_dtype"] == "mxfp4"
