"""The listing of the fused-MoE tables' layer shapes per version behind each engine MoE curve
(tools/moe_table_shapes.py) and ``--per-shape``'s rule for replacing a shipped line
(tools/fit_kernels.py ``per_shape_better``): issue 20, pershape round."""

from __future__ import annotations

import pytest

from tests.scripts import load_script


def test_per_shape_refit_replaces_a_line_only_when_better_by_the_nested_fits_margin():
    fk = load_script("tools/fit_kernels.py")
    assert fk.PER_SHAPE_GAIN == 1e-3  # fit_moe_nested's margin for keeping a constant
    # 0.150 < 0.160 − 0.001 = 0.159: replaced
    assert fk.per_shape_better(0.150, 0.160)
    # 0.1595 is not below 0.159: the shipped line stays
    assert not fk.per_shape_better(0.1595, 0.160)
    # worse (0.170 > 0.160): stays
    assert not fk.per_shape_better(0.170, 0.160)
    # no shipped line: written
    assert fk.per_shape_better(0.5, None)


def test_listing_marks_an_older_tables_shape_hidden(monkeypatch):
    pd = pytest.importorskip("pandas")
    S = load_script("tools/moe_table_shapes.py")
    fk = S.fk
    row = dict(moe_dtype="bfloat16", inter_size=2048, num_experts=256, topk=8,
               distribution="balanced", kernel_source="moe_torch_flow", fw="trtllm")  # fmt: skip
    # the older table measured two shapes (hidden 7,168: 3 rows; 3,072: 2 rows), the newer one
    # the 3,072 shape alone (1 row)
    old = pd.DataFrame([{**row, "hidden_size": 7168}] * 3 + [{**row, "hidden_size": 3072}] * 2)
    new = pd.DataFrame([{**row, "hidden_size": 3072}])
    frames = {"1.3.0rc10": old, "1.3.0rc20": new}
    monkeypatch.setattr(fk.Tables, "__init__", lambda self: None)
    monkeypatch.setattr(fk.Tables, "versions", lambda self, *a: ["1.3.0rc10", "1.3.0rc20"])
    monkeypatch.setattr(fk.Tables, "read", lambda self, g, op, fw, v, t: frames[v].copy())
    monkeypatch.setattr(S, "curve_format", lambda *a: "bfloat16")
    monkeypatch.setattr(S, "shipped_per_shape", lambda *a: False)
    lines = S.shape_lines(fk.Tables(), "h200_sxm", "trtllm", None, "bf16")
    assert lines[0].startswith("h200 trtllm.bf16 (bfloat16 rows of trtllm; shipped fit: newest")
    # newest version first, then the older one's two shapes: 3,072 read by the fit, 7,168 not
    assert lines[1:] == [
        "  1.3.0rc20 hidden 3072 width 2048 experts 256 top-8: 1 rows, fit",
        "  1.3.0rc10 hidden 3072 width 2048 experts 256 top-8: 2 rows, fit",
        "  1.3.0rc10 hidden 7168 width 2048 experts 256 top-8: 3 rows, hidden",
    ]
    # a line fitted per shape reads the older table's 7,168 rows too
    monkeypatch.setattr(S, "shipped_per_shape", lambda *a: True)
    lines = S.shape_lines(fk.Tables(), "h200_sxm", "trtllm", None, "bf16")
    assert lines[-1].endswith("3 rows, fit") and "format and shape" in lines[0]
