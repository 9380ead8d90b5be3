"""kvcalc beside aiconfigurator on every MoE row of TensorRT-LLM v1.0's throughput page: each
one's throughput [tokens/s] against the published figure, and one decode step op by op [ms]
at the row's per-rank concurrency (issue 20, aicdiff round; docs/step-time.md).

A dev script, not imported by kvcalc or its tests. aiconfigurator (Apache-2.0; PyPI
``aiconfigurator`` 0.12.0, which brings ``aiconfigurator-core`` with its measured TensorRT-LLM
tables and its Rust step engine) is an instrument here, never a kvcalc dependency: install it
in a venv of its own and name its python.

    python3 -m venv /tmp/aicvenv && /tmp/aicvenv/bin/pip install aiconfigurator==0.12.0
    .venv/bin/python tools/aic_compare.py --aic-python /tmp/aicvenv/bin/python
    .venv/bin/python tools/aic_compare.py --aic-python ... --steps     # also the per-op steps
    .venv/bin/python tools/aic_compare.py --aic-python ... --sweep     # its own batch choice
    .venv/bin/python tools/aic_compare.py --silicon     # the measured check, no aiconfigurator

aiconfigurator's side, at kvcalc's steady-state concurrency per attention-DP rank (the page
states no concurrency: trtllm-bench admits up to max_batch_size, 2,048, as the KV pool
allows): ``run_agg`` (its continuous-batching model: mixed prefill/decode steps of
ctx_tokens = max_num_tokens 8,192, its pipeline-drain correction) for the throughput; with
``--steps``, ``run_static`` in ``static_gen`` mode (one generation step, isl = the context,
osl = 2) for each op's latency, at its default ``power_law`` routing and at ``balanced``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tools"))

# kvcalc model -> aiconfigurator's HF id; kvcalc GPU -> its system; kvcalc format -> quant mode
AIC_MODEL = {
    "qwen3-235b-a22b": "Qwen/Qwen3-235B-A22B",
    "qwen3-30b-a3b": "Qwen/Qwen3-30B-A3B",
    "llama4-scout": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
    "llama4-maverick": "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
}
AIC_SYSTEM = {"h100": "h100_sxm", "h200": "h200_sxm", "b200": "b200_sxm", "gb200": "gb200"}
AIC_QUANT = {"fp8-tensor": "fp8", "nvfp4": "nvfp4"}
AIC_VERSION = "1.3.0rc20"  # the tables kvcalc's curves are fitted to (kvcalc adds 1.0's x1.19)

AIC = r"""
import json, sys
from aiconfigurator_core.sdk import common
from aiconfigurator_core.sdk.backends.factory import get_backend
from aiconfigurator_core.sdk.config import ModelConfig, RuntimeConfig
from aiconfigurator_core.sdk.models import get_model
from aiconfigurator_core.sdk.perf_database import get_database

out = []
for a in json.loads(sys.stdin.read()):
    be = get_backend("trtllm")  # a fresh one: its run_agg cache key leaves out the model
    db = get_database(a["system"], "trtllm", a["version"])
    res = {}
    for dist in ("power_law", "balanced"):
        mc = ModelConfig(tp_size=1, attention_dp_size=a["ep"], moe_tp_size=1, moe_ep_size=a["ep"],
                         gemm_quant_mode=getattr(common.GEMMQuantMode, a["quant"]),
                         moe_quant_mode=getattr(common.MoEQuantMode, a["quant"]),
                         kvcache_quant_mode=common.KVCacheQuantMode.fp8,
                         workload_distribution=dist)
        model = get_model(a["model"], mc, "trtllm")
        if a["agg"] and dist == "power_law":
            try:
                df = be.run_agg(model, db, RuntimeConfig(batch_size=a["batch"], isl=a["isl"],
                                osl=a["osl"]), ctx_tokens=8192).get_summary_df()
                res["agg"] = {k: float(df[k].iloc[0]) for k in ("tokens/s", "tpot", "ttft")}
            except Exception as e:  # an OOM verdict or a shape outside its tables
                res["agg"] = {"error": f"{type(e).__name__}: {e}"[:200]}
        if a["steps"]:
            s = be.run_static(model, db, RuntimeConfig(batch_size=a["batch"], isl=a["ctx"], osl=2),
                              mode="static_gen", stride=2)
            res[dist] = s.get_generation_latency_dict()
    out.append(res)
print(json.dumps(out))
"""


SWEEP = r"""
import json, sys
from aiconfigurator_core.sdk import common
from aiconfigurator_core.sdk.backends.factory import get_backend
from aiconfigurator_core.sdk.config import ModelConfig, RuntimeConfig
from aiconfigurator_core.sdk.models import get_model
from aiconfigurator_core.sdk.perf_database import get_database

out = []
for a in json.loads(sys.stdin.read()):
    mc = ModelConfig(tp_size=1, attention_dp_size=a["ep"], moe_tp_size=1, moe_ep_size=a["ep"],
                     gemm_quant_mode=getattr(common.GEMMQuantMode, a["quant"]),
                     moe_quant_mode=getattr(common.MoEQuantMode, a["quant"]),
                     kvcache_quant_mode=common.KVCacheQuantMode.fp8)
    s = get_backend("trtllm").find_best_agg_result_under_constraints(
        get_model(a["model"], mc, "trtllm"), get_database(a["system"], "trtllm", a["version"]),
        RuntimeConfig(batch_size=1, isl=a["isl"], osl=a["osl"], ttft=1e9, tpot=1e9),
        max_batch_size=2048, ctx_stride=2048)
    r = s.get_summary_df().sort_values("tokens/s", ascending=False).iloc[0]
    out.append({k: float(r[k]) for k in ("bs", "ctx_tokens", "tokens/s")})
print(json.dumps(out))
"""
# the rows of the sweep (its own batch and prefill budget for the most tokens/s, SLA limits off)
SWEEP_ROWS = (
    "qwen3-30b-a3b b200 TP1 nvfp4 1000/1000", "qwen3-235b-a22b h200 TP1 EP8 fp8-tensor 1000/1000",
    "qwen3-235b-a22b h200 TP1 EP8 fp8-tensor 1000/2000",
    "llama4-maverick h200 TP1 EP8 fp8-tensor 1000/1000",
    "llama4-scout h100 TP1 EP4 fp8-tensor 1000/1000",
)  # fmt: skip


def sweep(python: str) -> None:
    """aiconfigurator's own choice of batch and prefill budget on ``SWEEP_ROWS`` [tokens/s]."""
    from validation_heldout import rows

    picked = [r for r in rows() if r.id in SWEEP_ROWS]
    jobs = [{"model": AIC_MODEL[r.model], "system": AIC_SYSTEM[r.hardware],
             "quant": AIC_QUANT[r.weight_dtype], "version": AIC_VERSION, "ep": max(r.ep, 1),
             "isl": r.prompt, "osl": r.gen} for r in picked]  # fmt: skip
    run = subprocess.run([python, "-c", SWEEP], input=json.dumps(jobs), capture_output=True,
                         text=True, check=True)  # fmt: skip
    for r, c in zip(picked, json.loads(run.stdout.strip().splitlines()[-1]), strict=True):
        pub = r.published_output_tokens_per_s
        print(f"{r.id}: batch {c['bs']:,.0f} a rank, ctx_tokens {c['ctx_tokens']:,.0f}, "
              f"{c['tokens/s']:,.0f} tokens/s against {pub:,.0f} ({c['tokens/s'] / pub - 1:+.1%})")


def kvcalc_rows(steps: bool) -> list[dict]:
    """Every MoE row of the held-out page: kvcalc's prediction, concurrency and (``steps``) its
    decode step by class [ms] at the per-rank concurrency and mid-output context."""
    from moe_decomposition import step_by_class
    from validation_heldout import rows
    from validation_throughput import deployment, predict

    from calc.deploy.steps import step_of

    out = []
    for row in rows():
        if row.model not in AIC_MODEL:
            continue
        res = predict(row)
        ep = max(row.ep, 1)
        ctx = row.prompt + row.gen // 2
        k = {"row": row, "predicted": res.predicted, "concurrency": res.concurrency, "ep": ep,
             "ctx": ctx, "share": res.prefill_share}  # fmt: skip
        if steps:
            step = step_of(deployment(row), "expected", batch=res.concurrency, ctx=ctx)
            k["classes"], k["step"] = step_by_class(step), float(step.time_s) * 1e3
        out.append(k)
    return out


def aic_rows(python: str, ks: list[dict], steps: bool) -> list[dict]:
    jobs = [{"model": AIC_MODEL[k["row"].model], "system": AIC_SYSTEM[k["row"].hardware],
             "quant": AIC_QUANT[k["row"].weight_dtype], "version": AIC_VERSION, "ep": k["ep"],
             "batch": max(1, k["concurrency"] // k["ep"]), "isl": k["row"].prompt,
             "osl": k["row"].gen, "ctx": k["ctx"], "agg": True, "steps": steps}
            for k in ks]  # fmt: skip
    run = subprocess.run([python, "-c", AIC], input=json.dumps(jobs), capture_output=True,
                         text=True, check=True)  # fmt: skip
    return json.loads(run.stdout.strip().splitlines()[-1])


def by_class(ops: dict) -> tuple[dict, float]:
    from moe_decomposition import CLASSES, _aic_class

    by = {name: 0.0 for name, _ in CLASSES}
    for op, ms in ops.items():
        cls = _aic_class(op)
        if cls is not None:
            by[cls] += ms
    return by, sum(ops.values())


def silicon_large_batch() -> None:
    """The check on measured runs: kvcalc's TPOT error [signed] on the silicon sample's
    TensorRT-LLM MoE records above 64 concurrent requests (bench/validation_serving.py), the
    largest batches of TensorRT-LLM MoE decode measured; + is kvcalc's step the longer."""
    import validation_serving as vs

    errs: dict[str, list[float]] = {}
    for r in vs.rows():
        if r.backend != "trtllm" or not r.moe or r.concurrency <= 64:
            continue
        res = vs.predict(r)
        if res is None or res.aside:
            continue
        rank = r.concurrency // (r.ep if r.ep > r.tp else 1)
        print(f"{r.model} {r.hardware} {r.label} TP{r.tp} EP{r.ep} {r.concurrency} a group, "
              f"{rank} a rank, {r.release} MTP {r.mtp}: measured {r.tpot_s * 1e3:.1f} ms, "
              f"kvcalc {res.tpot_s * 1e3:.1f} ms, {res.tpot_error:+.1%}")  # fmt: skip
        if r.mtp == 0:
            errs.setdefault(r.label, []).append(res.tpot_error)
    for label, e in errs.items():
        print(f"{label}, no MTP: {len(e)} records, signed median {statistics.median(e):+.1%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--aic-python", help="python of a venv with aiconfigurator")
    ap.add_argument("--steps", action="store_true", help="also print each row's decode step")
    ap.add_argument("--sweep", action="store_true", help="aiconfigurator's own batch choice")
    ap.add_argument("--silicon", action="store_true",
                    help="only the silicon sample's TensorRT-LLM MoE runs above 64 requests")
    a = ap.parse_args()
    if a.silicon:
        silicon_large_batch()
        return
    if not a.aic_python:
        ap.error("--aic-python is required (or --silicon)")
    if a.sweep:
        sweep(a.aic_python)
        return
    ks = kvcalc_rows(a.steps)
    cs = aic_rows(a.aic_python, ks, a.steps)
    cols: dict[str, list[tuple[float, float | None]]] = {}
    sums: dict[str, dict[str, list[float]]] = {}  # column -> class -> [kvcalc, aic balanced]
    steps: dict[str, list[float]] = {}  # column -> kvcalc step / aic balanced step, per row
    print("row | rank batch | published | kvcalc (signed) | aic run_agg (signed)")
    for k, c in zip(ks, cs, strict=True):
        row = k["row"]
        pub = row.published_output_tokens_per_s
        ke = k["predicted"] / pub - 1
        agg = c["agg"].get("tokens/s")
        ae = agg / pub - 1 if agg else None
        cols.setdefault(row.id.rsplit(" ", 1)[0], []).append((ke, ae))
        aic_txt = f"{agg:,.0f} ({ae:+.1%})" if agg else c["agg"]["error"]
        print(f"{row.id} | {k['concurrency'] // k['ep']:,} | {pub:,.0f} | "
              f"{k['predicted']:,.0f} ({ke:+.1%}) | {aic_txt}")  # fmt: skip
        if a.steps:
            print(f"  decode step at context {k['ctx']:,} [ms]: kvcalc / aic power-law / "
                  f"aic balanced")  # fmt: skip
            pl, pl_step = by_class(c["power_law"])
            ba, ba_step = by_class(c["balanced"])
            for name in k["classes"]:
                print(f"    {name:26s} {k['classes'][name]:7.2f} / {pl[name]:7.2f} / "
                      f"{ba[name]:7.2f}")  # fmt: skip
            print(f"    {'step':26s} {k['step']:7.2f} / {pl_step:7.2f} / {ba_step:7.2f}")
            col = sums.setdefault(row.id.rsplit(" ", 1)[0], {})
            for name in k["classes"]:
                pair = col.setdefault(name, [0.0, 0.0])
                pair[0] += k["classes"][name]
                pair[1] += ba[name]
            steps.setdefault(row.id.rsplit(" ", 1)[0], []).append(k["step"] / ba_step)
    print("\ncolumn | rows | kvcalc signed median | aic signed median (rows it ran)")
    for name, pairs in cols.items():
        ke = statistics.median(e for e, _ in pairs)
        ae = [e for _, e in pairs if e is not None]
        aic_txt = f"{statistics.median(ae):+.1%} ({len(ae)})" if ae else "-"
        print(f"{name} | {len(pairs)} | {ke:+.1%} | {aic_txt}")
    if a.steps:
        print("\ncolumn | decode step kvcalc / aic balanced: median (range) | by class, summed "
              "over the column's rows")  # fmt: skip
        for name, ratios in steps.items():
            by = ", ".join(f"{c} {k / b:.2f}" for c, (k, b) in sums[name].items() if b > 0)
            print(f"{name} | {statistics.median(ratios):.2f} ({min(ratios):.2f}-"
                  f"{max(ratios):.2f}) | {by}")  # fmt: skip


if __name__ == "__main__":
    main()
