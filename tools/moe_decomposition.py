"""One decode step of TensorRT-LLM v1.0 throughput-table rows op by op [ms]: kvcalc's step beside
aiconfigurator's per-op estimate (issue 20, round 12; docs/step-time.md), and both throughputs
at kvcalc's steady-state concurrency beside the published figure [tokens/s].

A dev script. aiconfigurator-core (Apache-2.0; pandas, pyarrow and its own Rust engine) is an
instrument here, never a kvcalc dependency: install it in a venv of its own and name its python.

    python3 -m venv /tmp/aic-venv
    /tmp/aic-venv/bin/pip install aiconfigurator_core-0.12.0-cp311-abi3-manylinux_2_28_x86_64.whl
    .venv/bin/python tools/moe_decomposition.py --aic-python /tmp/aic-venv/bin/python

aiconfigurator's side: ``run_static`` in ``static_gen`` mode (one generation step, isl = the
context, osl = 2) gives each op's latency from its measured TensorRT-LLM 1.3.0rc20 tables, at
``balanced`` and at its default ``power_law`` routing; ``run_agg`` its continuous-batching
throughput at the same per-rank batch, ctx_tokens 8,192 (max_num_tokens).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

CTX = 1500  # tokens of context of the step compared (1000/1000: the middle of the output)
# (held-out row id, aiconfigurator's HF model, system, GEMM and MoE quant modes)
ROWS = (
    ("qwen3-235b-a22b h200 TP1 EP8 fp8-tensor 1000/1000", "Qwen/Qwen3-235B-A22B-FP8",
     "h200_sxm", "fp8", "fp8"),
    ("qwen3-30b-a3b b200 TP1 nvfp4 1000/1000", "Qwen/Qwen3-30B-A3B", "b200_sxm", "nvfp4",
     "nvfp4"),
    ("llama4-scout h100 TP1 EP4 fp8-tensor 1000/1000",
     "meta-llama/Llama-4-Scout-17B-16E-Instruct", "h100_sxm", "fp8", "fp8"),
    ("llama4-maverick b200 TP1 EP8 nvfp4 1000/1000",
     "meta-llama/Llama-4-Maverick-17B-128E-Instruct", "b200_sxm", "nvfp4", "nvfp4"),
    ("llama3.3-70b h200 TP1 fp8-tensor 1000/1000", "meta-llama/Meta-Llama-3.1-70B", "h200_sxm",
     "fp8", None),
)  # fmt: skip

# kvcalc's ops by the class they are compared in (aiconfigurator's: ``_aic_class``)
CLASSES = (
    ("attention", ("attn_scores", "attn_values")),
    ("dense GEMMs", ("qkv_proj", "o_proj", "router", "ffn")),
    ("fused MoE", ("routed_experts", "shared_experts")),
    ("EP traffic", ("ep_gather_scatter", "ep_all_to_all")),
    ("norms, embedding, lm_head", ("norms", "embedding", "lm_head")),
)


def _aic_class(op: str) -> str | None:
    """The class of one of aiconfigurator's generation ops ("generation_global_moe", ...)."""
    short = op.removeprefix("generation_")
    if "dispatch" in short:
        return "EP traffic"
    if "norm" in short or "embedding" in short or "logits" in short:
        return "norms, embedding, lm_head"
    if short == "attention":
        return "attention"
    if short == "moe" or short.endswith("_moe"):
        return "fused MoE"
    if "gemm" in short or "act" in short:
        return "dense GEMMs"
    return None  # p2p, embedding all-reduce: 0 on these layouts


AIC = r"""
import json, sys
from aiconfigurator_core.sdk import common
from aiconfigurator_core.sdk.backends.factory import get_backend
from aiconfigurator_core.sdk.config import ModelConfig, RuntimeConfig
from aiconfigurator_core.sdk.models import get_model
from aiconfigurator_core.sdk.perf_database import get_database

a = json.loads(sys.argv[1])
out = {}
for dist in ("balanced", "power_law"):
    mc = ModelConfig(tp_size=1, attention_dp_size=a["dp"], moe_tp_size=1, moe_ep_size=a["ep"],
                     gemm_quant_mode=getattr(common.GEMMQuantMode, a["gemm"]),
                     moe_quant_mode=getattr(common.MoEQuantMode, a["moe"]) if a["moe"] else None,
                     kvcache_quant_mode=common.KVCacheQuantMode.fp8, workload_distribution=dist)
    model = get_model(a["model"], mc, "trtllm")
    db = get_database(a["system"], "trtllm", "1.3.0rc20")
    be = get_backend("trtllm")
    s = be.run_static(model, db, RuntimeConfig(batch_size=a["batch"], isl=a["ctx"], osl=2),
                      mode="static_gen", stride=2)
    out[dist] = s.get_generation_latency_dict()
    if dist == "power_law":
        agg = be.run_agg(model, db, RuntimeConfig(batch_size=a["batch"], isl=1000, osl=1000),
                         ctx_tokens=8192).get_summary_df()
        out["agg_tokens_per_s"] = float(agg["tokens/s"].iloc[0])
print(json.dumps(out))
"""


def step_by_class(step) -> dict:
    """A kvcalc step's op times summed by CLASSES [ms] (ops of no class left out)."""
    from calc.deploy.rates import op_time

    by = {name: 0.0 for name, _ in CLASSES}
    for op in step.raw:
        cls = next((n for n, ours in CLASSES if op.name in ours), None)
        if cls is not None:
            by[cls] += float(op_time(op, step.rates)) * 1e3
    return by


def kvcalc_side(row_id: str) -> dict:
    """kvcalc's step by class [ms], its concurrency, throughput and the published figure."""
    from validation_heldout import rows
    from validation_throughput import deployment, predict

    from calc.deploy.steps import step_of

    row = next(r for r in rows() if r.id == row_id)
    res = predict(row)
    step = step_of(deployment(row), "expected", batch=res.concurrency, ctx=CTX)
    return {"classes": step_by_class(step), "step": float(step.time_s) * 1e3,
            "concurrency": res.concurrency, "predicted": res.predicted,
            "published": row.published_output_tokens_per_s, "ep": max(row.ep, 1)}  # fmt: skip


def aic_side(python: str, model: str, system: str, gemm: str, moe, batch: int, ep: int) -> dict:
    args = {"model": model, "system": system, "gemm": gemm, "moe": moe, "batch": batch,
            "ep": ep, "dp": ep, "ctx": CTX}  # fmt: skip
    run = subprocess.run([python, "-c", AIC, json.dumps(args)], capture_output=True, text=True,
                         check=True)  # fmt: skip
    out = json.loads(run.stdout.strip().splitlines()[-1])
    for dist in ("balanced", "power_law"):
        ops = out[dist]
        by = {name: 0.0 for name, _ in CLASSES}
        for op, ms in ops.items():
            cls = _aic_class(op)
            if cls is not None:
                by[cls] += ms
        out[dist] = {"classes": by, "step": sum(ops.values())}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--aic-python", required=True, help="python of a venv with aiconfigurator")
    a = ap.parse_args()
    for row_id, model, system, gemm, moe in ROWS:
        k = kvcalc_side(row_id)
        per_rank = k["concurrency"] // k["ep"]
        c = aic_side(a.aic_python, model, system, gemm, moe, per_rank, k["ep"])
        print(f"{row_id} ({per_rank:,} sequences a rank, context {CTX:,}): kvcalc / aic balanced "
              f"/ aic power-law [ms]")  # fmt: skip
        for name, _ in CLASSES:
            print(f"  {name:26s} {k['classes'][name]:7.2f} / {c['balanced']['classes'][name]:7.2f}"
                  f" / {c['power_law']['classes'][name]:7.2f}")  # fmt: skip
        print(f"  {'step':26s} {k['step']:7.2f} / {c['balanced']['step']:7.2f} / "
              f"{c['power_law']['step']:7.2f}")  # fmt: skip
        agg = c["agg_tokens_per_s"]
        print(f"  tokens/s: kvcalc {k['predicted']:,.0f}, aic run_agg {agg:,.0f}, "
              f"published {k['published']:,.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
