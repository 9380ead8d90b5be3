"""The held-out DeepSeek-R1 SGLang runs' TTFT taken apart [ms]: kvcalc's pieces of a request's
first token (front end, the prompt's own pass, the decode step it waits for) beside the measured
mean TTFT, and what the measurement leaves for the prompt's pass (issue 20, dsr1ttft round;
docs/step-time.md).

Run: python bench/dsr1_ttft_parts.py

The rows: the DeepSeek-R1 runs of docs/validation/published_runs_2026.yaml (InferenceX issue
#870, SGLang 0.5.7 on 8 x H200; InferenceX PR #3318, SGLang 0.5.19 on 8 x MI325X), replayed as
bench/validation_newruns.py replays them (``kvcalc score``'s simulation). Per row:

- ``sim``: the simulation's mean TTFT, and its median (a request that arrives alone, at a
  finish, while the others decode: the steady state; the mean also holds the first c requests,
  sent together at t = 0);
- ``front``: the front-end time of a prompt of the run's mean length (``StepTable.request_s``);
- ``pass``: one prompt of the mean length alone, its iteration (``StepTable.iteration_s``) and
  within it the GPU's time and the eager issue floor (``StepTable.eager_prefill_s``, charged
  where the release issues its prompt passes without CUDA graphs);
- ``step``: the running decode step of c − 1 sequences at the mean context, the step the
  prompt's pass waits behind;
- ``routed``, ``attn``, ``ar``: the prompt's routed experts, attention and all-reduces
  (``step_of`` at batch 1, the mean prompt);
- ``left``: measured − simulated mean, what kvcalc leaves out; ``pass'`` = pass + left, the
  prompt's pass the measurement implies if nothing else is missing, and that over the layers.

Nothing here is fitted; the figures are for the write-up.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PARTS = ("ttft meas", "sim mean", "sim median", "front", "pass", "gpu", "eager floor", "step",
         "routed", "attn", "ar", "left", "pass'", "pass'/layer")  # fmt: skip


def parts(run) -> dict:
    """The TTFT pieces of one run [s] (module docstring)."""
    import numpy as np
    import validation_newruns as v

    from calc.deploy.steps import step_of
    from calc.reports.score import simulate_run
    from calc.serve.steptime import step_table

    dep, rp = v.deployment(run), v.replay(run)
    st = step_table(dep, max_ctx=int((rp.prompt + rp.gen).max()) + 1)
    sim = simulate_run(dep, rp, step=st)
    each = np.asarray(sim.ttft_each_s, dtype=float)
    p = round(float(rp.prompt.mean()))
    # the pass's GPU time: its token ops, one logits row, the attention's fixed cost and the
    # prompt's attention (``iteration_s`` less the host time and the eager floor)
    gpu = float(st.tokens_s[p] + st.rows_s[1]) + st.attn_fixed_s + st.prefill_attn(p)
    b = max(1, run.concurrency - 1)
    ctx = float(rp.prompt.mean() + rp.gen.mean() / 2)
    ops = step_of(dep, "expected", batch=dep.sharding.dp_attn, prompt=float(p))
    by = {op.name: float(t.time_s) for t, op in zip(ops.ops, ops.raw, strict=True)}
    attn = sum(float(t.time_s) for t, op in zip(ops.ops, ops.raw, strict=True) if op.attention)
    out = {
        "ttft meas": run.measured["ttft_s"],
        "sim mean": float(np.nanmean(each)),
        "sim median": float(np.nanmedian(each)),
        "front": float(st.request_s(p)),
        "pass": st.iteration_s(0, 0.0, [(0, p)], 1),
        "gpu": gpu,
        "eager floor": st.eager_prefill_s if st.eager(p, True) else 0.0,
        "step": st.decode_s(b) + st.ctx_slope(b) * b * ctx,
        "routed": by.get("routed_experts", 0.0),
        "attn": attn,
        "ar": by.get("tp_allreduce", 0.0),
    }
    out["left"] = out["ttft meas"] - out["sim mean"]
    out["pass'"] = out["pass"] + out["left"]
    out["pass'/layer"] = out["pass'"] / dep.model.n_layers
    return out


def render() -> str:
    import validation_newruns as v

    rows = [r for r in v.runs() if r.model == "deepseek-r1" and "ttft_s" in r.measured]
    lines = ["| run | c | " + " | ".join(PARTS) + " |",
             "|---|---:|" + "---:|" * len(PARTS)]  # fmt: skip
    for run in rows:
        x = parts(run)
        cells = [f"{x[k] * 1e3:.1f}" if k != "pass'/layer" else f"{x[k] * 1e3:.2f}"
                 for k in PARTS]  # fmt: skip
        lines.append(f"| {run.id} | {run.concurrency} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    sys.stdout.write(render())
