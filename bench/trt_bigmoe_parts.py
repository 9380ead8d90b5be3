"""TensorRT-LLM's low-precision MoE rows above 64 concurrent requests, taken apart (issue 20,
trtbigmoe round; docs/step-time.md): for every NVFP4 / MXFP4 MoE TensorRT-LLM row of the silicon
sample's TRAINING half at concurrency > 64 (bench/validation_serving.py), its layout, the MoE
backend and MTP drafts the row mapping states, kvcalc's decode step split into parts (routed
experts with the tokens each touched expert computes and the curve that times them; attention;
all-reduce and EP gather / scatter; the rest; the host's share of the step) and the TPOT error,
then the error by tokens per expert and by sequences per attention rank.

A diagnostic, fitted to nothing. ``--held-out`` runs the other half (for the write-up's check
only), ``--all`` both.

    python bench/trt_bigmoe_parts.py [--held-out | --all]
"""

from __future__ import annotations

import math
import statistics
import sys
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

ATTENTION = ("attn_scores", "attn_values", "q_absorb", "v_absorb")
COMM_KINDS = ("allreduce", "all_to_all")


def selected(half: str) -> list:
    """The rows: TensorRT-LLM, MoE, fp4 or mxfp4 weights, concurrency > 64, of ``half``."""
    import validation_serving as vs

    keep = []
    for r in vs.rows():
        if r.backend != "trtllm" or not r.moe or r.label not in ("fp4", "mxfp4"):
            continue
        if r.concurrency <= 64 or (half != "all" and (half == "training") != r.training):
            continue
        keep.append(r)
    return keep


def parts(row) -> dict | None:
    """One row's decode step as kvcalc times it, in parts [s], with its TPOT error."""
    import validation_serving as vs

    from calc.deploy.engines import host_costs
    from calc.deploy.rates import curve_of
    from calc.deploy.steps import step_of

    res = vs.predict(row)
    if res is None or res.aside:
        return None
    dep = vs._deployment(row)
    pool = int(dep.per_gpu.max_sequences_per_gpu(row.isl + row.osl))
    n = max(1, min(math.ceil(row.concurrency / dep.sequence_groups), pool,
                   dep.engine_config.max_num_seqs))  # fmt: skip
    dpa = dep.sharding.dp_attn
    step = step_of(dep, batch=n * dpa, ctx=row.isl + row.osl / 2)
    gpu = float(step.time_s)
    host = host_costs(row.backend).for_host_cpu(dep.hardware.host_cpu)
    out = {"row": row, "n": n, "dpa": dpa, "gpu": gpu, "err": res.tpot_error,
           "host": float(host.step_s(gpu, n)) - gpu, "moe": 0.0, "attn": 0.0, "comm": 0.0,
           "rest": 0.0, "rows_per_expert": math.nan, "curve": "", "tokens": n * dpa}
    for raw, t in zip(step.raw, step.ops, strict=True):
        s = float(t.time_s)
        if raw.name == "routed_experts":
            out["moe"] += s
            out["rows_per_expert"] = float(raw.gemm_m)
            out["curve"] = curve_of(raw, step.rates)[0] or "roofline"
        elif raw.name in ATTENTION:
            out["attn"] += s
        elif t.kind in COMM_KINDS or raw.kind in COMM_KINDS:
            out["comm"] += s
        else:
            out["rest"] += s
    # the prompts' share of the predicted TPOT: the cycle's prefill chunks spread over its
    # osl - 1 decode steps (``validation_serving.predict``), less the request's own prefill
    out["tpot"], out["meas"] = res.tpot_s, row.tpot_s
    out["decode"] = float(host.step_s(gpu, n)) if not row.mtp else math.nan
    out["prefill"] = res.tpot_s - out["decode"] if not row.mtp else math.nan
    layers = dep.model.n_moe_layers
    # the MoE time a layer the measured TPOT leaves, every other op as kvcalc times it
    out["left"] = (out["moe"] - (res.tpot_s - row.tpot_s) * (out["gpu"] / max(res.tpot_s, 1e-9))
                   ) / layers  # fmt: skip
    out["moe_layer"] = out["moe"] / layers
    return out


def _bins(items: list[dict], key: str, edges: tuple) -> list[str]:
    lines = []
    for lo, hi in pairwise(edges):
        sub = [p["err"] for p in items if lo < p[key] <= hi]
        if sub:
            lines.append(f"  {key} {lo:g}-{hi:g}: {len(sub)} rows, signed median "
                         f"{statistics.median(sub):+.1%}, range {min(sub):+.1%} .. {max(sub):+.1%}")
    return lines


def main(argv: list[str]) -> int:
    half = "held-out" if "--held-out" in argv else "all" if "--all" in argv else "training"
    items = [p for p in (parts(r) for r in selected(half)) if p is not None]
    print(f"{half} half: {len(items)} TensorRT-LLM fp4 / mxfp4 MoE rows at concurrency > 64")
    print("id | model gpu release | tp ep dpa | backend mtp | n/rank tokens rows/expert curve | "
          "step ms: moe attn comm rest host | TPOT ms: prefill part, decode part, measured | "
          "moe µs/layer, left by TPOT | TPOT error")
    for p in sorted(items, key=lambda p: (p["row"].model, p["row"].hardware, p["row"].id)):
        r = p["row"]
        print(f"{r.id} | {r.model} {r.hardware} {r.release or '-'} | {r.tp} {r.ep} {p['dpa']} | "
              f"{r.moe_backend or 'default'} {r.mtp} | {p['n']} {p['tokens']} "
              f"{p['rows_per_expert']:.1f} {p['curve']} | {p['moe'] * 1e3:.2f} "
              f"{p['attn'] * 1e3:.2f} {p['comm'] * 1e3:.2f} {p['rest'] * 1e3:.2f} "
              f"{p['host'] * 1e3:.2f} | {p['prefill'] * 1e3:.2f} {p['decode'] * 1e3:.2f} "
              f"{p['meas'] * 1e3:.2f} | {p['moe_layer'] * 1e6:.0f} {p['left'] * 1e6:.0f} | "
              f"{p['err']:+.1%}")
    for label in ("fp4", "mxfp4"):
        sub = [p for p in items if p["row"].label == label]
        if not sub:
            continue
        share = statistics.median(p["moe"] / p["gpu"] for p in sub)
        signed = statistics.median(p["err"] for p in sub)
        print(f"\n{label}: {len(sub)} rows, signed median {signed:+.1%}; routed experts' median "
              f"share of the step {share:.0%}")
        print("\n".join(_bins(sub, "rows_per_expert", (0, 4, 8, 16, 32, 64, 128, 1e9))))
        print("\n".join(_bins(sub, "n", (0, 16, 32, 64, 128, 256, 1e9))))
        print("\n".join(_bins(sub, "dpa", (0, 1, 4, 8, 1e9))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
