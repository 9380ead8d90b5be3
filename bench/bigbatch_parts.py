"""The silicon sample's large-batch rows taken apart [ms per output token]: kvcalc's predicted
TPOT split into the decode step's parts and the other requests' prompt passes, beside the
measured TPOT, and what the gap (measured − predicted) follows (issue 20, bigbatch round;
docs/step-time.md).

Run: python bench/bigbatch_parts.py [--half training|held-out|all] [--moe] [--rows] [--no-loop]

``--no-loop``: every engine's host costs without the overlapped loop per sequence the round
added for SGLang (TensorRT-LLM's measured one kept): the figures before the bigbatch round.

The rows: ``bench/validation_serving.py``'s (aiconfigurator's silicon sample), the chosen half
(default: training), regime "batch > 64" (concurrency above 64), dense unless ``--moe``. Per
row, as ``validation_serving.predict`` times it (the running batch n of a sequence group at
the mean context isl + osl / 2):

- ``gemm``: the decode step's GEMMs over weights (qkv or MLA's projections, o, ffn or the
  router and experts, lm_head);
- ``attn``: its decode attention (scores and values: the KV cache read);
- ``other``: its other token ops (embedding, norms) and ``comm``: its all-reduces / all-to-all;
- ``host``: the host time the step adds (``HostCosts.step_s`` − the GPU's time);
- ``prompts``: the rest of the predicted TPOT: the n prompt passes of a cycle spread over its
  osl − 1 tokens (less the request's own);
- ``gap``: measured − predicted TPOT.

Then least-squares lines through the origin of the gap against each candidate's own measure
(the running batch n, per sequence; the KV bytes a decode step reads; the decode step's tokens
through the GEMMs; the predicted prompt time per token), each with the share of the gap's sum
of squares it explains (R² through the origin) and the median |gap − line| left: the
candidate a mechanism should scale with is the one that explains the gap across rows of
different lengths, TP and GPUs. Nothing here is fitted into kvcalc; the figures are for the
write-up.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

GEMMS = ("qkv_proj", "o_proj", "ffn", "lm_head", "q_", "kv_", "v_absorb", "router", "routed",
         "shared", "moe")  # name prefixes of the ops over weights (the experts among them)


def _kind(name: str) -> str:
    """The part of a decode step an op of ``name`` belongs to (communication apart: by kind)."""
    if name.startswith("attn"):
        return "attn"
    return "gemm" if name.startswith(GEMMS) else "other"


def _host(engine: str, loop: bool):
    """``engine``'s shipped host costs, or (``loop`` False) SGLang's without its loop."""
    from dataclasses import replace

    from calc.deploy.engines import host_costs

    costs = host_costs(engine)
    return costs if loop or engine != "sglang" else replace(costs, loop_sequence_s=0.0)


def parts(row, loop: bool = True) -> dict | None:
    """kvcalc's predicted TPOT of ``row`` in parts, and the measured one [ms per token];
    ``loop`` False: SGLang without its overlapped loop (``_host``)."""
    import validation_serving as vs

    from calc.deploy.steps import step_of
    from calc.errors import KvcalcError

    res = vs.predict(row, _host(row.backend, loop))
    if res is None or res.aside:
        return None
    try:
        dep = vs._deployment(row)
        pool = int(dep.per_gpu.max_sequences_per_gpu(row.isl + row.osl))
    except KvcalcError:
        return None
    n = max(1, min(-(-row.concurrency // dep.sequence_groups), pool,
                   dep.engine_config.max_num_seqs))
    dpa = dep.sharding.dp_attn
    step = step_of(dep, "expected", batch=n * dpa, ctx=row.isl + row.osl / 2)
    out = dict.fromkeys(("gemm", "attn", "other", "comm"), 0.0)
    kv_bytes = 0.0
    for op in step.ops:
        k = "comm" if op.kind != "compute" else _kind(op.name)
        out[k] += float(op.time_s) * 1e3
        if k == "attn":
            kv_bytes += float(op.bytes)
    gpu = float(step.time_s)
    host = _host(row.backend, loop).for_host_cpu(dep.hardware.host_cpu)
    out["host"] = (float(host.step_s(gpu, n)) - gpu) * 1e3
    decode = sum(out.values())
    out["prompts"] = res.tpot_s * 1e3 - decode
    out.update(pred=res.tpot_s * 1e3, meas=row.tpot_s * 1e3,
               gap=(row.tpot_s - res.tpot_s) * 1e3, n=n, tp=row.tp, ctx=row.isl + row.osl / 2,
               kv_gb=kv_bytes / 1e9, tokens=n * dpa, err=res.tpot_error)
    return out


def line(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Slope of y = a x through the origin, its R² (through the origin) and the median |y − a x|."""
    sxx = sum(x * x for x in xs)
    a = sum(x * y for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    res = [y - a * x for x, y in zip(xs, ys, strict=True)]
    syy = sum(y * y for y in ys)
    r2 = 1 - sum(e * e for e in res) / syy if syy else 0.0
    return a, r2, statistics.median(abs(e) for e in res)


def plane(xs: list[float], zs: list[float], ys: list[float]):
    """y = a x + b z through the origin: (a, b), R² (through the origin), median |y − a x − b z|."""
    import numpy as np

    m = np.column_stack([xs, zs])
    y = np.array(ys)
    coef, *_ = np.linalg.lstsq(m, y, rcond=None)
    res = y - m @ coef
    syy = float(y @ y)
    r2 = 1 - float(res @ res) / syy if syy else 0.0
    return (float(coef[0]), float(coef[1])), r2, float(np.median(np.abs(res)))


CANDIDATES = {
    "batch n (ms per sequence)": lambda p: p["n"],
    "KV read (ms per GB)": lambda p: p["kv_gb"],
    "attn predicted (x)": lambda p: p["attn"],
    "gemm predicted (x)": lambda p: p["gemm"],
    "prompts predicted (x)": lambda p: p["prompts"],
    "decode step predicted (x)": lambda p: p["gemm"] + p["attn"] + p["other"] + p["comm"]
    + p["host"],
}


def main(argv: list[str]) -> None:
    import validation_serving as vs

    half = argv[argv.index("--half") + 1] if "--half" in argv else "training"
    moe = "--moe" in argv
    got = []
    for r in vs.rows():
        if r.regime != "batch > 64" or r.moe != moe:
            continue
        if (half == "training" and not r.training) or (half == "held-out" and r.training):
            continue
        p = parts(r, loop="--no-loop" not in argv)
        if p is not None:
            got.append((r, p))
    cols = ("gemm", "attn", "other", "comm", "host", "prompts", "pred", "meas", "gap")
    if "--rows" in argv:
        print("| row | engine | GPU | n | TP | ctx | KV GB | " + " | ".join(cols) + " | err |")
        print("|---|---|---|---:|---:|---:|---:|" + "---:|" * (len(cols) + 1))
        for r, p in sorted(got, key=lambda t: (t[0].backend, t[0].hardware, t[1]["n"])):
            print(f"| {r.id[-60:]} | {r.backend} | {r.hardware} | {p['n']} | {p['tp']} | "
                  f"{p['ctx']:.0f} | {p['kv_gb']:.2f} | "
                  + " | ".join(f"{p[c]:.2f}" for c in cols) + f" | {p['err']:+.1%} |")
    print(f"\n{len(got)} rows ({half}, {'MoE' if moe else 'dense'}, batch > 64)")
    for eng in ("all", "vllm", "sglang", "trtllm"):
        sel = [p for r, p in got if eng in ("all", r.backend)]
        if len(sel) < 3:
            continue
        med = {c: statistics.median(p[c] for p in sel) for c in cols}
        share = statistics.median(p["gap"] / p["meas"] for p in sel)
        print(f"\n{eng}: {len(sel)} rows; medians (ms/token) "
              + ", ".join(f"{c} {med[c]:.2f}" for c in cols) + f"; gap / measured {share:+.1%}")
        gaps = [p["gap"] for p in sel]
        for name, f in CANDIDATES.items():
            a, r2, left = line([f(p) for p in sel], gaps)
            print(f"  gap ~ {name}: slope {a:.4g}, R² {r2:.2f}, median |left| {left:.2f} ms")
        (a, b), r2, left = plane([p["prompts"] for p in sel], [p["n"] for p in sel], gaps)
        print(f"  gap ~ a × prompts + b × n: a {a:.3f}, b {b * 1e3:.1f} µs per sequence, "
              f"R² {r2:.2f}, median |left| {left:.2f} ms")
        by_tp = {}
        for p in sel:
            by_tp.setdefault(p["tp"], []).append(p["gap"] / p["meas"])
        print("  gap / measured by TP: " + ", ".join(
            f"TP {t} {statistics.median(v):+.1%} ({len(v)})" for t, v in sorted(by_tp.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
