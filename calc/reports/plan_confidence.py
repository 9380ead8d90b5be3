"""How far a planned deployment's figures can be trusted: the measured error band of its class
(vendor × weight dtype × dense/MoE) as multipliers of its predicted p99 TTFT and TPOT [×], and the
weakest provenance behind its speed and price.

**Bands** come from ``calc/data/error_bands.json``, written by ``bench/validation_doc.py`` from
the validation the project generates (docs/validation.md, "Confidence bands by class"): per class
and time, the 25th-75th percentile of kvcalc's signed error on measured serving runs, and the
pessimistic factor 1 / (1 + p25) (the real time where the model runs fast). A class or time with
no band takes the widest band measured anywhere, said so. ``--margin m`` replaces every band by
a uniform factor 1 + m. A row whose profile carries a step calibration fitted by ``kvcalc score``
with a residual band (the calibration file's ``fit.band``) takes that band instead, TTFT and TPOT
alike (calc/reports/calibration_band.py: the fit's residual over its runs, widened by the stated
rule when fitted on one run); the row's confidence names the file and the rule.

**Provenance**: every figure that moves the row's speed or price has a kind (the profile's
``provenance``, its kernel curves' or efficiency bands', its price's kind), ranked from strongest
to weakest: measured, published, list, median, stated < fitted, estimate < derived, approximate
< copied < assumed, placeholder. The row names the weakest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

BANDS_FILE = Path(__file__).resolve().parents[1] / "data" / "error_bands.json"
RANK = {
    "measured": 0, "published": 0, "list": 0, "median": 0, "stated": 0, "tco": 0,
    "fitted": 1, "estimate": 1,
    "derived": 2, "approximate": 2,
    "copied": 3,
    "assumed": 4, "placeholder": 4,
}  # fmt: skip


@cache
def bands() -> dict:
    """The band data (module docstring)."""
    return json.loads(BANDS_FILE.read_text())


def dtype_class(weight_dtype: str) -> str:
    """The dtype part of a class (bench/validation_confidence.py classes its records by it too):
    fp8 (per-tensor or block), fp4 (NVFP4), mxfp4, bf16 (any 16/32-bit), else the format's own
    name."""
    w = weight_dtype.lower()
    if w.startswith("fp8") or w == "mxfp8":
        return "fp8"
    if w in ("nvfp4", "fp4") or w.startswith("fp4"):
        return "fp4"
    if w == "mxfp4":
        return "mxfp4"
    if w in ("bf16", "fp16", "fp32"):
        return "bf16"
    return w.split("-")[0]


def class_of(dep) -> str:
    """'NVIDIA fp8 dense': the class a deployment's error band is read for."""
    vendor = dep.hardware.vendor.upper()
    return f"{vendor} {dtype_class(dep.weight_dtype)} {'MoE' if dep.model.moe else 'dense'}"


@dataclass(frozen=True)
class Confidence:
    """The margins of one deployment: its class, the factors its predicted p99 TTFT and TPOT
    are multiplied by at the pessimistic end [×], and what they rest on."""

    cls: str
    ttft_factor: float
    tpot_factor: float
    # "band" (the class's), "widest" (part of it unvalidated), "margin" (--margin),
    # "calibration" (a --calibration file's own residual band)
    basis: str
    text: str  # one line: the band(s) and their records

    @property
    def validated(self) -> bool:
        return self.basis != "widest"


def _band_text(metric: str, b: dict) -> str:
    return f"{metric.upper()} {b['p25']:+.0%}…{b['p75']:+.0%} ({b['n']:,} runs)"


def confidence_of(dep, margin: float | None = None) -> Confidence:
    """The confidence of ``dep`` (module docstring)."""
    cls = class_of(dep)
    if margin is not None:
        f = 1 + margin
        return Confidence(cls, f, f, "margin", f"--margin {margin:.0%} on TTFT and TPOT")
    cal = dep.hardware.step_calibration
    if cal is not None and cal.band and "ttft" in cal.band and "tpot" in cal.band:
        return _calibrated(cls, cal)
    data = bands()
    mine = data["classes"].get(cls, {})
    factors, parts, widest = {}, [], False
    for metric in ("ttft", "tpot"):
        if metric in mine:
            factors[metric] = mine[metric]["factor"]
            parts.append(_band_text(metric, mine[metric]))
        else:
            w = data["widest"][metric]
            widest = True
            factors[metric] = w["factor"]
            parts.append(f"{metric.upper()} unvalidated: the widest band measured, "
                         f"{w['class']}'s {w['p25']:+.0%}…{w['p75']:+.0%}")  # fmt: skip
    note = ""
    if cal is not None:  # a calibration without a residual band (an older file)
        note = f" (calibrated by {cal.source}, which stores no residual band: the class's kept)"
    return Confidence(cls, factors["ttft"], factors["tpot"], "widest" if widest else "band",
                      f"{cls}: " + "; ".join(parts) + note)  # fmt: skip


def _calibrated(cls: str, cal) -> Confidence:
    """A calibrated row's confidence: the calibration's own residual band (calc/reports/
    calibration_band.py) in place of its class's."""
    from calc.reports.calibration_band import band_text, pessimistic_factor

    return Confidence(cls, pessimistic_factor(cal.band["ttft"].low),
                      pessimistic_factor(cal.band["tpot"].low), "calibration",
                      f"{cal.source}: {band_text(cal.band)}")  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Provenance


@dataclass(frozen=True, order=True)
class Item:
    """One figure behind a row and what it is."""

    rank: int
    kind: str
    what: str
    copied_from: str | None = None

    def describe(self) -> str:
        src = f" from {self.copied_from}" if self.copied_from else ""
        return f"{self.kind}: {self.what}{src}"


def provenance_items(dep, price, *, multi_node: bool = False) -> list[Item]:
    """The figures behind ``dep``'s speed and its price (``calc.deploy.pricing.PriceChoice``)
    with their kinds."""
    hw = dep.hardware
    out = [Item(RANK.get(price.kind, 4), price.kind, f"price ({price.basis})")]
    prov = hw.provenance
    figures = ["peak_flops_per_s", "hbm_bandwidth_bytes_per_s", "usable_memory_bytes"]
    if dep.gpus > 1 or dep.sharding.gpus > 1:
        figures.append("interconnect")
    if multi_node:
        figures.append("scale_out")
    if hw.kernels is None:
        figures.append("kernel_overhead_s")
    for key in figures:
        f = prov.get(key)
        if f is not None:
            out.append(Item(RANK.get(f.kind, 4), f.kind, key, f.copied_from))
    if hw.kernels is not None:
        k = hw.kernels
        out.append(Item(RANK.get(k.provenance, 4), k.provenance, "kernel curves", k.copied_from))
    else:
        e = hw.efficiency
        f = prov.get("efficiency")
        kind = e.provenance or (f.kind if f else "assumed")
        out.append(Item(RANK.get(kind, 4), kind, "efficiency bands",
                        f.copied_from if f else None))  # fmt: skip
    return out


def profile_items(hw) -> list[Item]:
    """Every figure of a profile that moves a speed or a price, with its kind: its provenance
    entries, its kernel curves or efficiency bands, its reference price and its board power."""
    out = []
    p = hw.prices[0]
    out.append(Item(RANK.get(p.kind, 4), p.kind, f"price ({p.basis})"))
    for key, f in hw.provenance.items():
        out.append(Item(RANK.get(f.kind, 4), f.kind, key, f.copied_from))
    if hw.kernels is not None:
        k = hw.kernels
        out.append(Item(RANK.get(k.provenance, 4), k.provenance, "kernel curves", k.copied_from))
    if hw.efficiency.provenance is not None:
        kind = hw.efficiency.provenance
        out.append(Item(RANK.get(kind, 4), kind, "efficiency bands"))
    if hw.board_power is not None:
        b = hw.board_power
        out.append(Item(RANK.get(b.kind, 4), b.kind, "board_power_w"))
    return out


def weakest(items: list[Item]) -> Item:
    """The weakest of the items (the first of equals, the price first)."""
    worst = max(i.rank for i in items)
    return next(i for i in items if i.rank == worst)
