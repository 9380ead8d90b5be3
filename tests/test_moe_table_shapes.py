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


def test_an_older_table_stands_for_the_newest_only_within_the_lines_own_error():
    fk = load_script("tools/fit_kernels.py")
    # line error 0.352 (SGLang int4 on H200): 1 / 1.352 = 0.740 to 1.352; 0.5.10 / 0.5.14 = 1.21
    assert fk.releases_agree(1.21, 0.352)
    # line error 0.167 (vLLM int4 on H200): up to 1.167; 0.19.0 / 0.24.0 = 2.42 is another kernel
    assert not fk.releases_agree(2.42, 0.167)
    # below: 1 / 1.25 = 0.8, so 0.79 is out and 0.81 in
    assert not fk.releases_agree(0.79, 0.25)
    assert fk.releases_agree(0.81, 0.25)
    # no rows in common: nothing says otherwise
    assert fk.releases_agree(None, 0.1)


def test_release_ratio_is_the_older_tables_median_over_the_newests(monkeypatch):
    pd = pytest.importorskip("pandas")
    fk = load_script("tools/fit_kernels.py")
    row = dict(moe_dtype="int4_wo", hidden_size=7168, inter_size=2048, topk=8, num_experts=384,
               moe_tp_size=1, moe_ep_size=1, distribution="balanced", kernel_source="marlin")
    # three token counts in both tables: old 2, 3, 8 ms against new 1, 1, 2 ms: ratios 2, 3, 4,
    # median 3; a fourth count only the old table measured does not count
    old = pd.DataFrame([{**row, "num_tokens": n, "latency": x}
                        for n, x in ((1, 2.0), (8, 3.0), (64, 8.0), (512, 50.0))])
    new = pd.DataFrame([{**row, "num_tokens": n, "latency": x}
                        for n, x in ((1, 1.0), (8, 1.0), (64, 2.0))])  # fmt: skip
    frames = {"0.19.0": old, "0.24.0": new}
    monkeypatch.setattr(fk.Tables, "__init__", lambda self: None)
    monkeypatch.setattr(fk.Tables, "versions", lambda self, *a: ["0.19.0", "0.24.0"])
    monkeypatch.setattr(fk.Tables, "read", lambda self, g, op, fw, v, t: frames[v].copy())
    assert fk.release_ratio(fk.Tables(), "h200_sxm", "vllm", "int4", "int4_wo") == 3.0
