"""The small-batch MoE section of docs/validation.md (written by bench/validation_doc.py): kvcalc's
decode speed against the measured vLLM and SGLang serving runs of MoE models at concurrency 1-64
(issue 20, round 19), each group's signed error, training and held-out halves.

Run: python bench/validation_moe_small.py   (prints the section)

The records: the vLLM and SGLang rows of aiconfigurator's silicon sample
(``docs/validation/aiconfigurator_silicon_agg.csv``, bench/validation_serving.py) for the MoE
models at a concurrency of at most 64: gpt-oss-120b (MXFP4 experts) on H100, H200 and B200 under
vLLM 0.15.1 and 0.18.0, Qwen3-235B-A22B-FP8 on H200 under vLLM 0.12.0 and SGLang 0.5.6,
DeepSeek-V3 / R1 under SGLang. The training and held-out halves are validation_serving's (a hash
of the run id); nothing here is fitted. Beside them, held out: LMSYS's published batch-1 decode
speeds of gpt-oss-120b under SGLang (``PUBLISHED_BATCH1``).

The error is the decode speed's, 1 / TPOT: measured TPOT / predicted TPOT − 1 (+ = kvcalc too
fast), each prediction validation_serving's closed loop at the run's concurrency.

Round 19 charges, beside vLLM's own fused-MoE curves (measured at 0.24.0, routing inside), the
routing kernels an older release runs beyond 0.24.0's (calc/deploy/moe_pipeline.py): 3 more per
MoE layer at 0.10-0.11, none from 0.12. These runs are vLLM 0.12 or later (predicted at the newest
release, as the serving runs' host times were fitted) or SGLang, so none moves
(``routing_as_measured`` gives the step without that charge; tests/test_moe_small.py).
"""

from __future__ import annotations

import statistics
import sys
from contextlib import contextmanager
from dataclasses import replace

import validation_serving as vs

ENGINES = ("vllm", "sglang")
MAX_CONCURRENCY = 64  # small batch: the regimes "batch 1-4" and "batch 5-64" of the serving runs
REGIMES = ("batch 1-4", "batch 5-64")


def rows() -> list:
    """The vLLM and SGLang MoE serving runs at concurrency <= 64."""
    return [r for r in vs.rows()
            if r.backend in ENGINES and r.moe and r.concurrency <= MAX_CONCURRENCY]  # fmt: skip


@contextmanager
def routing_as_measured():
    """vLLM's pipeline as before round 19: nothing charged beside its own fused-MoE curve."""
    from calc.deploy.engines.vllm import VLLM

    kept = VLLM.moe
    VLLM.moe = replace(kept, curve_release=None)
    try:
        yield
    finally:
        VLLM.moe = kept


def speed_errors() -> dict[str, float]:
    """{run id: signed decode-speed error} of ``rows()``; runs kvcalc cannot lay out are left
    out."""
    out = {}
    for r in rows():
        res = vs.predict(r)
        if res is not None:
            out[r.id] = r.tpot_s / res.tpot_s - 1
    return out


# Published batch-1 decode speeds (held out: looked at once, after this round's change, nothing
# fitted to them): LMSYS's "SGLang for gpt-oss" post (lm-sys/lm-sys.github.io
# blog/2025-08-27-gpt-oss.md, "Low-Latency Performance (Batch Size = 1)" table), reproduced by
# sgl-project/sglang benchmark/gpt_oss/README.md: SGLang v0.5.1.post3,
# bench_one_batch_server --batch-size 1 --input-len 1024 --output-len 512; H100 at TP 8 with
# --attention-backend triton, B200 at TP 4; openai/gpt-oss-120b (MXFP4 experts) and
# lmsys/gpt-oss-120b-bf16. (hardware, tp, weight format (None: as released), tokens/s)
PUBLISHED_BATCH1 = (
    ("h100", 8, None, 318.53), ("b200", 4, None, 416.02),
    ("h100", 8, "bf16", 293.12), ("b200", 4, "bf16", 315.63),
)  # fmt: skip
PUBLISHED_SOURCE = ("lm-sys/lm-sys.github.io blog/2025-08-27-gpt-oss.md; sgl-project/sglang "
                    "benchmark/gpt_oss/README.md")  # fmt: skip
PROMPT, GEN = 1024, 512  # bench_one_batch_server's --input-len and --output-len


def published_predict(hw: str, tp: int, fmt: str | None) -> float:
    """kvcalc's batch-1 decode speed [tokens/s] for one published record: SGLang's release as
    stated (v0.5.1), each of the GEN − 1 decode steps after the PROMPT-token prompt on the
    profile (its mean), plus SGLang's host time per step (calc.deploy.host_costs)."""
    import numpy as np

    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.engines import host_costs
    from calc.deploy.steps import step_of

    dep = Deployment.build(load_model("gpt-oss-120b"), load_hardware(hw), tp=tp,
                           weight_dtype=fmt,
                           engine=EngineSettings(name="sglang", version="0.5.1"))  # fmt: skip
    ctx = np.arange(PROMPT + 1, PROMPT + GEN, dtype=np.float64)
    gpu = float(np.mean(step_of(dep, batch=1, ctx=ctx).time_s))
    return 1.0 / (gpu + host_costs("sglang").step_host_s(1))


def published_errors() -> list[tuple]:
    """(hardware, tp, format, predicted, published, signed error) of PUBLISHED_BATCH1."""
    out = []
    for hw, tp, fmt, tps in PUBLISHED_BATCH1:
        pred = published_predict(hw, tp, fmt)
        out.append((hw, tp, fmt or "mxfp4", pred, tps, pred / tps - 1))
    return out


def _group(r) -> tuple:
    return (r.backend, r.model, r.hardware, f"TP {r.tp}" + (f" EP {r.ep}" if r.ep > 1 else ""))


def _stats(errs: list[float]) -> tuple[float, float]:
    return statistics.median(errs), statistics.median(abs(e) for e in errs)


def summary(errors: dict, half: str | None = None, engine: str | None = None,
            regime: str | None = None):  # fmt: skip
    """(rows, signed median, median |error|) over the runs of ``half`` ("training",
    "held-out" or None: both), ``engine`` (None: both) and ``regime`` ("batch 1-4",
    "batch 5-64" or None: both)."""
    keep = [errors[r.id] for r in rows() if r.id in errors
            and (half is None or (half == "training") == r.training)
            and (engine is None or r.backend == engine)
            and (regime is None or r.regime == regime)]  # fmt: skip
    if not keep:
        return 0, 0.0, 0.0
    return (len(keep), *_stats(keep))


def _pct(x: float) -> str:
    return f"{100 * x:+.1f}%"


def _abs(x: float) -> str:
    return f"{100 * x:.1f}%"


def render() -> str:
    errors = speed_errors()
    lines = [
        "## Small-batch MoE decode under vLLM and SGLang (issue 20, round 19)",
        "",
        "<!-- generated by bench/validation_moe_small.py -->",
        "",
        "Decode speed (1 / TPOT) against the measured vLLM and SGLang runs of MoE models at",
        f"concurrency 1-{MAX_CONCURRENCY} (aiconfigurator's silicon sample, the serving runs'",
        "training and held-out halves). Signed error: measured TPOT / predicted TPOT − 1, + =",
        "kvcalc too fast. vLLM's and SGLang's own fused-MoE curves hold the routing (their",
        "collectors time the layer with its top-k); round 19 charges beside vLLM's curve only the",
        "routing kernels a release before 0.12 runs beyond the curve's 0.24.0 (3 a layer), so",
        "none of these runs moves (vLLM 0.12 and later, predicted at the newest release).",
        "",
        "| engine | model | GPU | layout | half | rows | signed | median abs |",
        "|---|---|---|---|---|---:|---:|---:|",
    ]
    groups: dict[tuple, list] = {}
    for r in rows():
        if r.id in errors:
            groups.setdefault((*_group(r), "training" if r.training else "held-out"), []).append(r)
    for key in sorted(groups):
        signed, med = _stats([errors[r.id] for r in groups[key]])
        lines.append(f"| {' | '.join(key)} | {len(groups[key])} | {_pct(signed)} | {_abs(med)} |")
    lines += ["", "| runs | rows | signed | median abs |", "|---|---:|---:|---:|"]
    for engine in (*ENGINES, None):
        for regime in (*REGIMES, None):
            for half in ("training", "held-out"):
                n, signed, med = summary(errors, half, engine, regime)
                if n:
                    what = ", ".join(x for x in (engine or "both engines", regime, half) if x)
                    lines.append(f"| {what} | {n} | {_pct(signed)} | {_abs(med)} |")
    lines += [
        "",
        "Held out, published batch-1 decode of gpt-oss-120b under SGLang v0.5.1.post3",
        f"({PUBLISHED_SOURCE}; bench_one_batch_server, {PROMPT}-token prompt, {GEN} tokens;",
        "H100 with Triton attention): kvcalc's decode steps at the release plus SGLang's host",
        "time per step, against the published tokens/s (+ = kvcalc too fast).",
        "",
        "| GPU | TP | experts | predicted tokens/s | published tokens/s | signed error |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for hw, tp, fmt, pred, tps, err in published_errors():
        lines.append(f"| {hw} | {tp} | {fmt} | {pred:.1f} | {tps:.2f} | {_pct(err)} |")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(render())
