"""The small helpers the duplicate clean-up (issue 27) made shared: declared figure rows,
the nested-schema walk, a layer's linear components and the step keywords."""

from __future__ import annotations

from dataclasses import dataclass

from calc.data.registry import load_hardware, load_model
from calc.deploy.steps import decode_step, prefill
from calc.output.derivation import figure, figures
from calc.output.schema_tree import nested_classes


def test_figures_builds_one_figure_per_row_as_figure_does():
    rows = (
        ("step_s", 6.0, "s", "{a} × {b}", {"a": 2, "b": 3}),
        ("bubble_fraction", 0.25, "", "({pp} − 1) / {n}", {"pp": 2, "n": 4}),
    )
    got = figures(*rows)
    assert got == [figure(k, v, u, f, **t) for k, v, u, f, t in rows]
    # 2 × 3 = 6; (2 − 1) / 4 = 0.25
    assert got[0].line() == "step_s = a × b = 2 × 3 = 6 s"
    assert got[1].line() == "bubble_fraction = (pp − 1) / n = (2 − 1) / 4 = 0.25"
    assert got[0].numbers == {"a": 2, "b": 3}


@dataclass
class _C:
    x: int


@dataclass
class _B:
    c: _C


@dataclass
class _A:
    b: _B
    c: _C


def test_nested_classes_each_once_in_first_use_order():
    inner = {_A: [_B, _C], _B: [_C], _C: []}
    assert nested_classes(_A, inner.__getitem__) == [_A, _B, _C]
    assert nested_classes(_C, inner.__getitem__) == [_C]


def test_layer_has_its_linear_components():
    # DeepSeek-V3 (config.json): first_k_dense_replace 3 (layers 0-2 dense FFN), then MoE
    # layers with n_shared_experts 1
    ds = load_model("deepseek-v3")
    assert ds.layer_has("attention", 0)
    assert ds.layer_has("dense_ffn", 2) and not ds.layer_has("dense_ffn", 3)
    assert ds.layer_has("routed_experts", 3) and not ds.layer_has("routed_experts", 2)
    assert ds.layer_has("shared_experts", 3) and not ds.layer_has("shared_experts", 2)
    assert not ds.layer_has("ssm", 0)
    # Mixtral-8x7B (config.json): every layer MoE, 8 local experts, no shared expert
    mx = load_model("mixtral-8x7b")
    assert mx.layer_has("routed_experts", 0)
    assert not mx.layer_has("shared_experts", 0) and not mx.layer_has("dense_ffn", 0)


def test_step_keywords_default_and_compute_override():
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    plain = decode_step(cfg, hw, batch=4, ctx=1024)
    explicit = decode_step(cfg, hw, batch=4, ctx=1024, tp=1, pp=1, ep=1, weight_dtype=None,
                           kv_dtype=None, compute=None)  # fmt: skip
    assert plain.time_s == explicit.time_s and plain.flops == explicit.flops
    # fp8 weights run fp8 GEMMs on Hopper (steps module docstring); compute="bf16" overrides
    assert decode_step(cfg, hw, batch=4, ctx=1024, weight_dtype="fp8").compute_dtype == "fp8"
    assert prefill(cfg, hw, prompt=512, batch=1, weight_dtype="fp8",
                   compute="bf16").compute_dtype == "bf16"  # fmt: skip
