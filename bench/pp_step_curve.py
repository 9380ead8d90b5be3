"""A burst's decode step time [ms] against the sequences each virtual engine decodes, measured from
a detailed vLLM benchmark file's per-request gaps and set beside kvcalc's modelled step.

Usage: python bench/pp_step_curve.py FILE [--set N] [--pp P] [--window S]

FILE is a `benchmark_serving.py --save-result` JSON of a run that sent every request at once
(request rate inf) with its per-request ``ttfts`` and ``itls`` (the publisher's untrimmed files,
e.g. surajssd/llm-k8s@58b61c5 results_serving_meta-llama-Llama-3.3-70B-Instruct/03_tp4_pp2_IB/
serving_meta-llama-Llama-3.3-70B-Instruct_tp4_pp2_sharegpt_qps_inf.json; tests/data keeps them
trimmed). With every request sent at 0 s, each token's time is its request's TTFT plus the
cumulative gaps before it, so at every moment the requests decoding are known. Per window of S
seconds (default 2): the mean requests decoding over P (the virtual engines: pipeline stages of
vLLM's V0 engine), the median gap that ended in the window, and kvcalc's decode step at that
batch (``calc.serve.steptime.step_table`` of bench/validation_score.py's set N, default 1: the TP
4 × PP 2 InfiniBand server; host time and GPU time apart; the keys attended taken as the
window's mean context, each request's prompt plus the tokens it had produced). Nothing is
fitted; docs/step-time.md (score round 4) gives the table for the three TP 4 × PP 2 servers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def windows(path: Path, pp: int, width_s: float) -> list[tuple]:
    """(start s, requests decoding per virtual engine, mean context per request [tokens], median
    gap [s]) of each window with at least 40 gaps."""
    import numpy as np

    d = json.loads(path.read_text())
    first, last, gap_t, gap_v, ctx_t, ctx_v = [], [], [], [], [], []
    for t0, itl, prompt in zip(d["ttfts"], d["itls"], d["input_lens"], strict=True):
        ts = t0 + np.concatenate([[0.0], np.cumsum(itl)])
        first.append(ts[0])
        last.append(ts[-1])
        gap_t.append(ts[1:])
        gap_v.append(np.asarray(itl, dtype=float))
        ctx_t.append(ts)
        ctx_v.append(prompt + np.arange(ts.size))
    first, last = np.array(first), np.array(last)
    gap_t, gap_v = np.concatenate(gap_t), np.concatenate(gap_v)
    ctx_t, ctx_v = np.concatenate(ctx_t), np.concatenate(ctx_v)
    out = []
    for a in np.arange(width_s, float(last.max()), width_s):  # the first window is the intake
        m = (gap_t >= a) & (gap_t < a + width_s)
        if m.sum() < 40:
            continue
        probe = np.linspace(a, a + width_s, 40)
        decoding = np.mean([((first <= x) & (last >= x)).sum() for x in probe])
        c = (ctx_t >= a) & (ctx_t < a + width_s)
        gap = float(np.median(gap_v[m]))
        out.append((float(a), float(decoding) / pp, float(ctx_v[c].mean()), gap))
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--set", type=int, default=1, help="bench/validation_score.py SETS index")
    ap.add_argument("--pp", type=int, default=2, help="virtual engines (pipeline stages)")
    ap.add_argument("--window", type=float, default=2.0, help="window width [s]")
    args = ap.parse_args(argv)
    sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
    import validation_score as vs

    from calc.serve.steptime import step_table

    s = vs.SETS[args.set]
    st = step_table(vs._deployment(s), max_ctx=16384)
    print(f"{args.file.name}: {s.name}")
    print("| from | per VE | measured gap p50 | modelled step (GPU + host) | error |")
    print("|---|---|---|---|---|")
    for a, n, ctx, gap in windows(args.file, args.pp, args.window):
        b = max(1, round(n))
        host = st.host.step_host_s(b)
        step = st.decode_s(b) + st.ctx_slope(b) * ctx * b
        print(f"| {a:.0f} s | {n:.1f} | {gap * 1e3:.1f} ms | {step * 1e3:.1f} ms "
              f"({(step - host) * 1e3:.1f} + {host * 1e3:.1f}) | {step / gap - 1:+.1%} |")


if __name__ == "__main__":
    main(sys.argv[1:])
