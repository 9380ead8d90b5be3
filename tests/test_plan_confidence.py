"""Issue 22, deliver 3: the confidence bands a plan margins on (calc/data/error_bands.json, the
data form of docs/validation.md's confidence section), the factors each class gets, rows ranked
only at the pessimistic end, and the weakest provenance behind a row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment
from calc.reports.plan import PlanQuery, Slo, plan
from calc.reports.plan_confidence import (
    BANDS_FILE,
    Item,
    bands,
    class_of,
    confidence_of,
    provenance_items,
    weakest,
)
from calc.reports.plan_eval import Load, LoadEval
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "validation.md").read_text()


def _bench():
    return load_script("bench/validation_confidence.py")


def test_the_data_file_is_the_page_table():
    # docs/validation.md is tested current (tests/test_validation_doc.py); every number of the
    # data file is on that page, so the file is current too
    data = json.loads(BANDS_FILE.read_text())
    vb = _bench()
    assert data["percentiles"] == [25, 75] and data["min_records"] == vb.MIN_RECORDS
    for cls, metrics in data["classes"].items():
        for metric, b in metrics.items():
            assert vb.band_line(cls, metric, b) in DOC, (cls, metric)
    for metric, w in data["widest"].items():
        assert f"- {metric.upper()}: {w['class']}, ×{w['factor']:.3f}" in DOC


def test_factor_is_the_pessimistic_end_of_the_band():
    data = bands()
    for metrics in data["classes"].values():
        for b in metrics.values():
            # predicted time × factor = the real time where the model runs fast by p25
            want = 1 / (1 + b["p25"]) if b["p25"] < 0 else 1.0
            assert b["factor"] == pytest.approx(want, abs=1e-4)
            assert b["p25"] <= b["median"] <= b["p75"] and b["n"] >= data["min_records"]
    for metric, w in data["widest"].items():  # the largest factor of any validated class
        top = max(m[metric]["factor"] for m in data["classes"].values() if metric in m)
        assert w["factor"] == top


def _dep(model, hw, **kw):
    return Deployment.build(load_model(model), load_hardware(hw), **kw)


def test_a_validated_class_takes_its_own_band():
    dep = _dep("llama3.3-70b", "b200", weight_dtype="nvfp4", kv_dtype="fp8")
    assert class_of(dep) == "NVIDIA fp4 dense"
    c = confidence_of(dep)
    band = bands()["classes"]["NVIDIA fp4 dense"]
    assert (c.ttft_factor, c.tpot_factor) == (band["ttft"]["factor"], band["tpot"]["factor"])
    assert c.basis == "band" and c.validated and "TPOT" in c.text


def test_an_unvalidated_class_takes_the_widest_band_measured_and_says_so():
    # bf16 serving and AMD GPUs have no held-out measured run in docs/validation.md
    amd = _dep("llama3-70b", "mi300x", tp=2, weight_dtype="fp8")
    for dep in (_dep("llama3-8b", "h100"), amd):
        c = confidence_of(dep)
        w = bands()["widest"]
        assert (c.ttft_factor, c.tpot_factor) == (w["ttft"]["factor"], w["tpot"]["factor"])
        assert c.basis == "widest" and not c.validated
        assert "unvalidated: the widest band measured" in c.text


def test_margin_replaces_the_bands():
    c = confidence_of(_dep("llama3-8b", "h100"), margin=0.2)
    assert (c.ttft_factor, c.tpot_factor, c.basis) == (1.2, 1.2, "margin")
    c = confidence_of(_dep("llama3-8b", "h100"), margin=0.0)
    assert (c.ttft_factor, c.tpot_factor) == (1.0, 1.0)


def _fake(ttft, tpot):
    def evaluate(dep, load, replicas):
        return LoadEval(dict.fromkeys(("p50", "p90", "p99"), ttft),
                        dict.fromkeys(("p50", "p90", "p99"), tpot), False, None,
                        "fake")  # fmt: skip

    return evaluate


def test_rows_are_ranked_only_at_the_pessimistic_end():
    # llama3-8b bf16 on one H100: an unvalidated class, TPOT factor × w = the widest band's.
    # A predicted p99 TPOT 10% under the SLO passes with no margin and misses at the band's
    # pessimistic end (w > 1.1): rejected, the factor in the reason
    w = bands()["widest"]["tpot"]["factor"]
    assert w > 1.1
    slo = Slo(ttft_p99_s=10.0, tpot_p99_s=0.050)
    base = dict(models=("llama3-8b",), load=Load(1, 512, 64), slo=slo, hardware=("h100",),
                weight_dtypes=("released",), kv_dtypes=("released",),
                disaggregation=False)  # fmt: skip
    plain = plan(PlanQuery(**base, margin=0.0), _fake(0.1, 0.045))
    assert plain.fields["rows"]
    banded = plan(PlanQuery(**base), _fake(0.1, 0.045))
    assert not banded.fields["rows"]
    assert any(f"× {w:.2f}" in r["detail"] and "unvalidated" in r["detail"]
               for r in banded.fields["rejected"])  # fmt: skip
    # a prediction of 0.95 × SLO / w passes at the pessimistic end: ranked, with its margin,
    # its pessimistic p99 (0.95 × 50 ms) and the 5% of the SLO left there
    ok = plan(PlanQuery(**base), _fake(0.1, 0.95 * 0.050 / w))
    row = ok.fields["rows"][0]
    assert row["tpot_factor"] == w and row["confidence_basis"] == "widest"
    assert row["tpot_p99_pessimistic_s"] == pytest.approx(0.95 * 0.050, rel=1e-12)
    assert row["tpot_p99_headroom"] == pytest.approx(0.05, rel=1e-9)


def test_weakest_provenance_ranks_kinds():
    items = [Item(0, "published", "peak_flops_per_s"), Item(3, "copied", "kernel curves", "h100"),
             Item(1, "fitted", "efficiency bands"),
             Item(3, "copied", "kernel_overhead_s")]  # fmt: skip
    w = weakest(items)
    assert w.describe() == "copied: kernel curves from h100"  # the first of the weakest


def test_a_row_names_the_weakest_figure_behind_its_speed_and_price():
    from calc.deploy.pricing import Pricing

    # H20: its only price is a placeholder (Lambda's H100): with --derived-prices it is used,
    # flagged, and it is the weakest figure of the row (placeholder ranks with assumed)
    dep = _dep("llama3-8b", "h20")
    price = Pricing(derived=True).price_of(load_hardware("h20"))
    assert price.kind == "placeholder" and price.flagged
    items = provenance_items(dep, price)
    assert weakest(items).describe() == "placeholder: price (neocloud_on_demand)"
    # an H100 row on a listed price: its kernel curves (fitted) are its weakest
    dep = _dep("llama3-8b", "h100")
    price = Pricing().price_of(load_hardware("h100"))
    assert weakest(provenance_items(dep, price)).describe() == "fitted: kernel curves"
    # no scale-out figure unless the deployment leaves the node
    assert "scale_out" not in {i.what for i in provenance_items(dep, price)}
    assert "scale_out" in {i.what for i in provenance_items(dep, price, multi_node=True)}


def test_a_calibrations_measured_figures_are_called_measured(tmp_path):
    # qa4: a plan row on a profile calibrated by `kvcalc measure --save-calibration` (its own
    # efficiency bands and kernel cost) said "weakest provenance assumed: efficiency bands":
    # the file's bands replaced the profile's but kept the profile's provenance (h100:
    # assumed), and its kernel cost kept "copied from a100-80g"
    from calc.data.calibration import apply_calibration, load_calibration
    from calc.deploy.pricing import PriceChoice
    from calc.reports.plan_confidence import provenance_items

    cal = tmp_path / "cal.yaml"
    cal.write_text(
        "kind: kvcalc-calibration\nhardware: h100\ndevice: NVIDIA H100\n"
        "created: '2026-11-29'\nmatmul: {low: 0.5, expected: 0.6, high: 0.7}\n"
        "memory: {low: 0.7, expected: 0.8, high: 0.9}\nkernel_overhead_s: 4.0e-06\n"
    )
    hw = load_hardware("h100")
    before = {i.what: i.kind for i in provenance_items(
        Deployment.build(load_model("llama3-8b"), hw), PriceChoice(1.0, "stated", "stated", ""))}
    assert "kernel curves" in before  # measured bands set the fitted curves aside
    hw = apply_calibration(hw, load_calibration(cal), cal)
    items = {i.what: i.kind for i in provenance_items(
        Deployment.build(load_model("llama3-8b"), hw), PriceChoice(1.0, "stated", "stated", ""))}
    assert items["efficiency bands"] == "measured"
    assert items["kernel_overhead_s"] == "measured"
