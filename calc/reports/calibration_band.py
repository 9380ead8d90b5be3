"""The residual band of a step calibration [fraction of the measured figure]: where the measured
TTFT, TPOT and output throughput lie against the calibrated prediction, set at fit time from the
runs the calibration was fitted on (``band_of``: stored in the calibration file's ``fit.band``),
and what a calibrated row of ``plan`` and ``latency`` carries instead of its class's band
(``pessimistic_factor``, ``band_text``).

Each figure's band is the signed error predicted / measured − 1 (the fit's residual after the
fit), lowest to highest over the runs fitted on, by the stated rule:

- **fitted on several runs**: the runs' own residuals, lowest to highest, widened to at least
  ±2% (``NOISE``: how well one measured figure is known, run-to-run repeats; the fit's own
  noise, calc/reports/score_fit.py);
- **fitted on one run**: its residual is about 0 by construction (as many figures as
  parameters, nearly), which says nothing of another load. The band is widened to the spread
  one-run fits leave on the other steady runs of their own deployment (``ONE_RUN``: the 25th
  and 75th percentile of those signed errors, the quantiles the class bands use; measured in
  docs/validation.md, "Scoring published benchmark runs", on 38 (fit run, other steady run)
  pairs of five deployments, and recomputed there by bench/validation_score.py
  ``one_run_spread``, which a test holds these numbers to).

The TPOT band is the TPOT mean's (or the figure standing in for it: calc/reports/score_fit.py
``TPOT_STAND_INS``), the TTFT band the median's (or mean's): ``plan`` applies them to its p99s as
it applies a class's band to them.
"""

from __future__ import annotations

import math

FIGURES = ("ttft", "tpot", "output_tokens_per_s")
LABELS = {"ttft": "TTFT", "tpot": "TPOT", "output_tokens_per_s": "output tok/s"}
NOISE = 0.02  # calc/reports/score_fit.py NOISE: a measured figure known to 2%
# p25, p75 of the signed errors one-run fits leave on the other steady runs of their deployment
# (bench/validation_score.py one_run_spread; docs/validation.md)
ONE_RUN = {"ttft": (-0.095, 0.026), "tpot": (-0.042, 0.038),
           "output_tokens_per_s": (-0.009, 0.009)}  # fmt: skip


def figure_of(metric: str) -> str | None:
    """The band a fitted figure's metric counts to (None: the TPOT tail, which only
    constrains a per-sequence host time)."""
    if metric == "ttft":
        return "ttft"
    if metric in ("tpot", "itl", "e2e"):
        return "tpot"
    return "output_tokens_per_s" if metric == "output_tokens_per_s" else None


def rule(runs: int) -> str:
    """The stated rule of a band fitted on ``runs`` runs (module docstring)."""
    if runs == 1:
        return ("fitted on 1 run: its residual widened to the spread one-run fits leave on the "
                "other steady runs of their deployment (p25…p75, docs/validation.md)")  # fmt: skip
    return (f"fitted on {runs} runs: their residuals, lowest to highest, widened to at least "
            f"±{NOISE:.0%}")  # fmt: skip


def band_of(after: list[dict]) -> dict[str, tuple[float, float]]:
    """{figure: (low, high)} [fraction] from a fit's residuals after the fit (``after``: per run,
    {(metric, stat): ln(predicted / measured)}), by the rule of the module docstring."""
    errors: dict[str, list[float]] = {}
    for res in after:
        for (metric, stat), r in res.items():
            fig = figure_of(metric)
            if fig is not None and not (metric == "tpot" and stat == "p99"):
                errors.setdefault(fig, []).append(math.expm1(r))
    out = {}
    for fig, errs in errors.items():
        lo, hi = (-NOISE, NOISE) if len(after) > 1 else ONE_RUN[fig]
        out[fig] = (min(min(errs), lo), max(max(errs), hi))
    return out


def pessimistic_factor(low: float) -> float:
    """The factor a predicted time is multiplied by at the band's pessimistic end: the real time
    where the model runs fast, 1 / (1 + low) for a low end below 0, else 1 (the class bands'
    rule, bench/validation_confidence.py)."""
    return 1.0 / (1.0 + low) if low < 0 else 1.0


def band_text(band: dict) -> str:
    """'TTFT -9.5%…+2.5%; TPOT -1.9%…+3.8% (fitted on 1 run: …)' of a profile's
    ``StepCalibration.band`` ({figure: ResidualBand})."""
    parts = [f"{LABELS[f]} {band[f].low:+.1%}…{band[f].high:+.1%}" for f in FIGURES if f in band]
    rules = {b.rule for b in band.values()}
    return "; ".join(parts) + (f" ({'; '.join(sorted(rules))})" if rules else "")
