"""The plan's analytic load estimate (calc.reports.plan_eval.analytic_eval: a Kingman prefill
queue and a Little's-law decode batch) against the serving simulation, on every ranked
aggregated row of three plans: the signed error of its p99 TTFT and p99 TPOT per row, and
their medians. The analytic estimate only guides where the replica search starts (and stands
in where the simulation is not installed); this shows how far it is from what decides.

Usage: python bench/plan_analytic_vs_sim.py
"""

from __future__ import annotations

import statistics

from calc.reports.plan import PlanQuery, Slo, plan
from calc.reports.plan_eval import Load, analytic_evaluator

CASES = [
    ("llama3-70b", Load(10, 2048, 256), Slo(ttft_p99_s=2, tpot_p99_s=0.05)),
    ("llama3-8b", Load(20, 1000, 200), Slo(ttft_p99_s=1, tpot_p99_s=0.03)),
    ("qwen3-30b-a3b", Load(20, 1000, 200), Slo(ttft_p99_s=1, tpot_p99_s=0.03)),
]


def main() -> None:
    analytic = analytic_evaluator()
    errs_ttft, errs_tpot = [], []
    for model, load, slo in CASES:
        report = plan(PlanQuery(models=(model,), load=load, slo=slo, disaggregation=False))
        for c in report.choices:
            a, s = analytic(c.screened.dep, load, c.replicas), c.evaluation
            e1 = (a.ttft_p99_s - s.ttft_p99_s) / s.ttft_p99_s * 100
            e2 = (a.tpot_p99_s - s.tpot_p99_s) / s.tpot_p99_s * 100
            errs_ttft.append(e1)
            errs_tpot.append(e2)
            f = c.screened.family
            print(
                f"{model:14s} {f.hardware.name:12s} {f.dtypes.label:11s} tp{f.tp} ep{f.ep} "
                f"×{c.replicas}: p99 TTFT sim {s.ttft_p99_s * 1e3:7.1f} ms, analytic "
                f"{a.ttft_p99_s * 1e3:7.1f} ({e1:+.0f}%); p99 TPOT sim {s.tpot_p99_s * 1e3:6.2f} "
                f"ms, analytic {a.tpot_p99_s * 1e3:6.2f} ({e2:+.0f}%)"
            )
    print(
        f"median signed error: p99 TTFT {statistics.median(errs_ttft):+.0f}%, p99 TPOT "
        f"{statistics.median(errs_tpot):+.0f}% over {len(errs_ttft)} rows"
    )


if __name__ == "__main__":
    main()
