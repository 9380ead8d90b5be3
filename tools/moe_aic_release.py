"""aiconfigurator's own throughput estimate of TensorRT-LLM v1.0's Qwen3-235B-A22B rows at that
release's measured tables [output tokens/s], beside kvcalc's and the published figure (issue 20,
round 16; docs/step-time.md).

aiconfigurator 0.7.0 (PyPI ``aiconfigurator``, Apache-2.0) carries the collector's TensorRT-LLM
1.0.0rc3 (H100, H200) and 1.0.0rc6 (B200) tables, the page's release; its MoE tables there hold
``power_law_1.01`` routing only (no balanced rows), so its estimate is at its default
``power_law`` routing. Only Qwen3-235B-A22B's layer is in those tables (no Llama 4 or
Qwen3-30B-A3B shape). An instrument, never a kvcalc dependency; its SDK runs from the unpacked
wheel in the venv of tools/moe_decomposition.py (pandas, numpy, scipy):

    mkdir -p /tmp/aic07 && cd /tmp/aic07 && unzip -q aiconfigurator-0.7.0-py3-none-any.whl
    .venv/bin/python tools/moe_aic_release.py --aic-python /tmp/aic-venv/bin/python \\
        --aic-path /tmp/aic07

Per row: ``run_agg`` at kvcalc's steady-state per-rank batch (attention DP 8, MoE EP 8,
ctx_tokens 8,192, the row's lengths) and ``run_static`` one decode step op by op at the middle
of the output.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

# kvcalc hardware -> (aiconfigurator system, TensorRT-LLM 1.0 table, GEMM / MoE quant, HF model)
SYSTEMS = {
    "h200": ("h200_sxm", "1.0.0rc3", "fp8", "Qwen/Qwen3-235B-A22B-FP8"),
    "h100": ("h100_sxm", "1.0.0rc3", "fp8", "Qwen/Qwen3-235B-A22B-FP8"),
    "b200": ("b200_sxm", "1.0.0rc6", "nvfp4", "Qwen/Qwen3-235B-A22B"),
}

AIC = r"""
import json, sys
from aiconfigurator.sdk import common
from aiconfigurator.sdk.backends.factory import get_backend
from aiconfigurator.sdk.config import ModelConfig, RuntimeConfig
from aiconfigurator.sdk.models import get_model
from aiconfigurator.sdk.perf_database import get_database

a = json.loads(sys.argv[1])
q = getattr(common.GEMMQuantMode, a["quant"])
mc = ModelConfig(tp_size=1, attention_dp_size=8, moe_tp_size=1, moe_ep_size=8, gemm_quant_mode=q,
                 moe_quant_mode=getattr(common.MoEQuantMode, a["quant"]),
                 kvcache_quant_mode=common.KVCacheQuantMode.fp8, workload_distribution="power_law")
model = get_model(a["model"], mc, "trtllm")
db = get_database(a["system"], "trtllm", a["version"])
be = get_backend("trtllm")
step = be.run_static(model, db, RuntimeConfig(batch_size=a["batch"], isl=a["ctx"], osl=2),
                     mode="static_gen", stride=2).get_generation_latency_dict()
agg = be.run_agg(model, db, RuntimeConfig(batch_size=a["batch"], isl=a["isl"], osl=a["osl"]),
                 ctx_tokens=8192).get_summary_df()
print(json.dumps({"step": step, "tokens_per_s": float(agg["tokens/s"].iloc[0])}))
"""


def aic(python: str, path: str, row, per_rank: int) -> dict:
    system, version, quant, model = SYSTEMS[row.hardware]
    args = {"model": model, "system": system, "version": version, "quant": quant,
            "batch": per_rank, "ctx": row.prompt + row.gen // 2, "isl": row.prompt,
            "osl": row.gen}  # fmt: skip
    run = subprocess.run([python, "-c", AIC, json.dumps(args)], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": path, "PATH": "/usr/bin:/bin"})  # fmt: skip
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> None:
    from validation_heldout import rows
    from validation_throughput import predict

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--aic-python", required=True, help="python of a venv with pandas, scipy")
    ap.add_argument("--aic-path", required=True, help="the unpacked aiconfigurator 0.7.0 wheel")
    a = ap.parse_args()
    groups: dict[str, list[tuple[float, float]]] = {}
    print("| row | per rank | kvcalc | aiconfigurator 0.7.0 at 1.0 | published | aic MoE / step "
          "[ms] |\n|---|---:|---:|---:|---:|---|")  # fmt: skip
    for row in rows():
        if row.model != "qwen3-235b-a22b":
            continue
        res = predict(row)
        per_rank = res.concurrency // row.ep
        got = aic(a.aic_python, a.aic_path, row, per_rank)
        pub = row.published_output_tokens_per_s
        err = got["tokens_per_s"] / pub - 1
        groups.setdefault(row.id.rsplit(" ", 1)[0], []).append((res.error, err))
        moe = got["step"]["generation_moe"]
        print(f"| {row.id} | {per_rank:,} | {res.predicted:,.0f} ({res.error:+.1%}) | "
              f"{got['tokens_per_s']:,.0f} ({err:+.1%}) | {pub:,.0f} | {moe:.1f} / "
              f"{sum(got['step'].values()):.1f} |", flush=True)  # fmt: skip
    for name, pairs in groups.items():
        k = statistics.median(p[0] for p in pairs)
        c = statistics.median(p[1] for p in pairs)
        print(f"{name}: kvcalc {k:+.1%}, aiconfigurator 0.7.0 at 1.0 {c:+.1%} (signed medians)")


if __name__ == "__main__":
    main()
