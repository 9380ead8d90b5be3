"""aiconfigurator's own TTFT estimate [ms] for a few rows of its silicon sample, with the per-op
split of the step it times, beside the measured TTFT (issue 20, MoE TTFT round).

A dev script, not part of kvcalc and never imported by it: run it in a separate virtual
environment that holds aiconfigurator (Apache-2.0), e.g.

    python3 -m venv /tmp/aicmvenv && /tmp/aicmvenv/bin/pip install aiconfigurator==0.12.0
    /tmp/aicmvenv/bin/python tools/aic_ttft.py /path/to/silicon_sample.csv ROW_ID [ROW_ID ...]

For each row it calls ``aiconfigurator.cli.api.cli_estimate`` with the row's own settings (the
same arguments aiconfigurator's tools/accuracy_regression_testing/predict_silicon_sample.py
passes) and prints the predicted TTFT, the measured one, and the ops of the step TTFT is built
from (``per_ops_data['mix_step']``, ms).
"""

from __future__ import annotations

import csv
import sys
from contextlib import redirect_stdout
from pathlib import Path

FIELDS = ("batch_size", "tp_size", "pp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size")


def estimate(row: dict):
    """aiconfigurator's estimate of one agg row of the silicon sample (its EstimateResult)."""
    from aiconfigurator.cli.api import cli_estimate

    args = dict(model_path=row["model_path"], system_name=row["system"], mode="agg",
                backend_name=row["backend"], backend_version=row["backend_version"] or None,
                isl=int(row["isl"]), osl=int(row["osl"]),
                gemm_quant_mode=row["gemm_quant_mode"] or None,
                moe_quant_mode=row["moe_quant_mode"] or None,
                **{k: int(row[k]) for k in FIELDS if row.get(k)})  # fmt: skip
    with redirect_stdout(sys.stderr):
        try:
            return cli_estimate(**args)
        except ValueError as e:  # a release without a database: its default one
            if "Failed to load perf database" not in str(e):
                raise
            args["backend_version"] = None
            return cli_estimate(**args)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: tools/aic_ttft.py SILICON_SAMPLE_CSV ROW_ID [ROW_ID ...]", file=sys.stderr)
        return 2
    with Path(argv[0]).open() as f:
        by_id = {r["id"]: r for r in csv.DictReader(f)}
    for rid in argv[1:]:
        row = by_id.get(rid)
        if row is None:
            print(f"{rid}: not in the sample", file=sys.stderr)
            continue
        try:
            res = estimate(row)
        except Exception as e:  # report and go on: a dev comparison, not a check
            print(f"{rid}: {type(e).__name__}: {e}")
            continue
        print(f"{rid}: aiconfigurator {res.backend_version} TTFT {res.ttft:.1f} ms (measured "
              f"{float(row['silicon_ttft_ms']):.1f}), TPOT {res.tpot:.2f} ms (measured "
              f"{float(row['silicon_tpot_ms']):.2f}), ctx_tokens {res.ctx_tokens}")
        for step, ops in (res.per_ops_data or {}).items():
            total = sum(float(v) for v in ops.values())
            top = sorted(ops.items(), key=lambda kv: -float(kv[1]))[:8]
            print(f"  {step}: {total:.2f} ms; " + ", ".join(f"{k} {float(v):.2f}" for k, v in top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
