"""A request's cycle in kvcalc's serving simulation on the held-out SGLang hybrid rows, taken apart
[s] (issue 20, sg27cycle round; docs/step-time.md): where the GPU's time goes per request served
(prefill passes, decode iterations, idle), against `kvcalc latency`'s prefill pass P and decode
step D at the simulation's own decode batch; then what the measured tokens/s and TPOT imply for P
and D under the schedule the simulation runs (diagnostic: it reads the measurement, it predicts
nothing, and nothing here is fitted or shipped).

Run: python bench/sglang_cycle.py                 (the 27B rows)
     python bench/sglang_cycle.py --all           (every SGLang Qwen3.5 row)
     python bench/sglang_cycle.py --wheel W       (also SGLang's measured GEMMs at the 27B's
                                                   shapes against the fitted curve; W: the
                                                   aiconfigurator-core 0.12.0 wheel)

The schedule (SGLang 0.5.16 ``get_next_batch_to_run``: a prefill batch runs whenever one forms,
the decoders waiting; every request of these runs has one prompt length and, under
``--random-range-ratio 1`` and bench_serving's ignore_eos, one output length): the running requests
are replaced in cohorts. A cohort of b requests fills in b / g prefill passes of g prompts each
(g: the prompts a pass holds, 1 at the H200's 8,192-token chunk, 2 at the B200's 16,384), then
decodes its osl − 1 tokens together and leaves at one step. With P the prefill time per prompt
and D the decode step of b:

- the cycle per request (GPU time per request served), c = P + (osl − 1) D / b;
- TPOT = ((b − g) / 2 × P + (osl − 1) D) / (osl − 1): a request's own decode steps and the passes
  of the prompts after its own in its cohort, (b / g − 1) / 2 of them on average;

so P = 2 (b c − (osl − 1) TPOT) / (b + g) and D = b (c − P) / (osl − 1) (``cohort_prefill_s``,
``cohort_decode_s``). Put to kvcalc's own tokens/s and TPOT these recover its P and D (the
self-check column); put to the measured ones they give the P and D the run's figures imply if it
decoded at kvcalc's running cap b.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cohort_rates(batch: float, per_pass: float, prefill_s: float, decode_s: float, osl: int):
    """(cycle per request [s], TPOT [s]) of the cohort schedule (module docstring): ``batch``
    requests a cohort, ``per_pass`` prompts a prefill pass, ``prefill_s`` per prompt,
    ``decode_s`` a decode step of the cohort."""
    steps = osl - 1
    cycle = prefill_s + steps * decode_s / batch
    tpot = ((batch - per_pass) / 2 * prefill_s + steps * decode_s) / steps
    return cycle, tpot


def cohort_prefill_s(batch: float, per_pass: float, cycle_s: float, tpot_s: float,
                     osl: int) -> float:  # fmt: skip
    """The prefill time per prompt [s] a cycle and TPOT imply under the cohort schedule:
    2 (b c − (osl − 1) TPOT) / (b + g) (``cohort_rates`` inverted)."""
    return 2 * (batch * cycle_s - (osl - 1) * tpot_s) / (batch + per_pass)


def cohort_decode_s(batch: float, cycle_s: float, prefill_s: float, osl: int) -> float:
    """The decode step [s] of ``batch`` a cycle implies beside a prefill time per prompt:
    b (c − P) / (osl − 1)."""
    return batch * (cycle_s - prefill_s) / (osl - 1)


@dataclass
class Busy:
    """The simulation's GPU time by kind of iteration [s] and its decode tokens."""

    prefill_s: float = 0.0
    prefill_passes: int = 0
    decode_s: float = 0.0
    decode_steps: int = 0
    decode_tokens: int = 0


@contextmanager
def timed_iterations(busy: Busy):
    """Counts the time of every iteration SGLang's policy runs (``calc.serve.policies``'
    ``chunk_iteration``: a prefill pass, no decoder in it; ``decode_stretch``: k decode steps)
    into ``busy``, the policy's functions restored after."""
    import calc.serve.policies as pol

    chunk, stretch = pol.chunk_iteration, pol.decode_stretch

    def chunk_timed(s, step, b, ctx_sum, chunks, sched):
        t0 = s.t
        chunk(s, step, b, ctx_sum, chunks, sched)
        busy.prefill_s += s.t - t0
        busy.prefill_passes += 1

    def stretch_timed(s, step, b, ctx_sum, preempted, held=0):
        t0 = s.t
        k = stretch(s, step, b, ctx_sum, preempted, held)
        busy.decode_s += s.t - t0
        busy.decode_steps += k
        busy.decode_tokens += k * b
        return k

    pol.chunk_iteration, pol.decode_stretch = chunk_timed, stretch_timed
    try:
        yield busy
    finally:
        pol.chunk_iteration, pol.decode_stretch = chunk, stretch


@dataclass(frozen=True)
class Cycle:
    """One row's simulation taken apart, and its measurement (``cycle_of``)."""

    run_id: str
    osl: int
    requests: int
    cap: int  # kvcalc's running-request cap (SGLang's state pool)
    busy: Busy
    makespan_s: float
    tokens_per_s: float
    tpot_s: float
    prefill_one_s: float  # the step table's prefill pass of one prompt [s]
    decode_at_s: float  # its decode step at the mean decode batch, mid-output context [s]
    measured_tokens_per_s: float
    measured_tpot_s: float

    @property
    def decode_batch(self) -> float:
        """The requests in a decode step, mean over the steps."""
        return self.busy.decode_tokens / self.busy.decode_steps

    @property
    def per_pass(self) -> float:
        """Prompts a prefill pass, mean."""
        return self.requests / self.busy.prefill_passes

    def per_request(self, seconds: float) -> float:
        return seconds / self.requests

    @property
    def cycle_s(self) -> float:
        """The simulation's GPU time per request served [s] (osl / tokens/s)."""
        return self.osl / self.tokens_per_s

    @property
    def measured_cycle_s(self) -> float:
        return self.osl / self.measured_tokens_per_s


def newruns():
    """bench/validation_newruns.py as a module (the held-out rows, their deployments)."""
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    import validation_newruns

    return validation_newruns


def cycle_of(run) -> Cycle:
    """``run`` (a ``validation_newruns.Run``) simulated as the held-out table simulates it, its
    iterations timed by kind."""
    from calc.reports.score import predicted, simulate_run
    from calc.serve.simulate import deployment_limits
    from calc.serve.steptime import step_table

    vn = newruns()
    dep = vn.deployment(run)
    step = step_table(dep, max_ctx=run.isl + run.osl + 1)
    with timed_iterations(Busy()) as busy:
        sim = simulate_run(dep, vn.replay(run), step=step)
    cap = deployment_limits(dep, float(run.isl + run.osl)).max_num_seqs
    b = round(busy.decode_tokens / busy.decode_steps)
    ctx = run.isl + run.osl / 2  # a decoder's mean context over its output
    return Cycle(
        run.id, run.osl, run.n_prompts, int(cap), busy, sim.makespan_s,
        predicted(sim, "output_tokens_per_s", ""), predicted(sim, "tpot", "avg"),
        step.iteration_s(0, 0, [(0, run.isl)], 1),
        step.decode_s(b) + step.ctx_slope(b) * b * ctx,
        run.output_tokens_per_s, run.measured["tpot_s"],
    )  # fmt: skip


def _ms(x: float) -> str:
    return f"{x * 1e3:,.0f}"


def simulation_lines(cycles) -> list[str]:
    """Table 1: the simulation's GPU time per request served."""
    out = [
        "| run | decode batch (mean a step) | Little batch (tok/s × TPOT) | prefill ms | "
        "decode ms | idle ms | cycle ms | P (one prompt) ms | D(b) ms | P + (osl − 1) D / b ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in cycles:
        idle = c.makespan_s - c.busy.prefill_s - c.busy.decode_s
        b = c.decode_batch
        check = c.prefill_one_s + (c.osl - 1) * c.decode_at_s / round(b)
        out.append(
            f"| {c.run_id} | {b:.1f} | {c.tokens_per_s * c.tpot_s:.1f} | "
            f"{_ms(c.per_request(c.busy.prefill_s))} | {_ms(c.per_request(c.busy.decode_s))} | "
            f"{_ms(c.per_request(idle))} | {_ms(c.cycle_s)} | {_ms(c.prefill_one_s)} | "
            f"{c.decode_at_s * 1e3:.2f} | {_ms(check)} |"
        )
    return out


def implied_lines(cycles) -> list[str]:
    """Table 2: P and D the figures imply under the cohort schedule, kvcalc's own (the check)
    and the measured, at kvcalc's cap and at 0.9 × it."""
    out = [
        "| run | b (cap) | g | kvcalc P / D ms | from kvcalc's figures (the check) | from the "
        "measured | from the measured, b = 0.9 × cap |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in cycles:
        g = c.per_pass
        p_k = c.per_request(c.busy.prefill_s)
        d_k = c.busy.decode_s / c.busy.decode_steps

        def pd(b, cycle, tpot, c=c, g=g):
            p = cohort_prefill_s(b, g, cycle, tpot, c.osl)
            return p, cohort_decode_s(b, cycle, p, c.osl)

        own = pd(c.cap, c.cycle_s, c.tpot_s)
        head = (f"| {c.run_id} | {c.cap} | {g:.2f} | {_ms(p_k)} / {d_k * 1e3:.1f} | "
                f"{_ms(own[0])} / {own[1] * 1e3:.1f} | ")  # fmt: skip
        if not recovers(own, (p_k, d_k)):
            out.append(head + "– (not cohorts at the cap) | – |")
            continue
        meas = pd(c.cap, c.measured_cycle_s, c.measured_tpot_s)
        low = pd(0.9 * c.cap, c.measured_cycle_s, c.measured_tpot_s)
        out.append(
            head + f"{_ms(meas[0])} ({meas[0] / p_k - 1:+.0%}) / "
            f"{meas[1] * 1e3:.1f} ({meas[1] / d_k - 1:+.0%}) | {_ms(low[0])} "
            f"({low[0] / p_k - 1:+.0%}) / {low[1] * 1e3:.1f} ({low[1] / d_k - 1:+.0%}) |"
        )
    return out


# how close the cohort inversion of kvcalc's own figures must come to its own P and D for the
# row to count as run in cohorts at the cap (the KV-pool-bound rows, which retract, miss by far)
SELF_CHECK = 0.10


def recovers(implied, actual, tol: float = SELF_CHECK) -> bool:
    """Whether each implied (P, D) is within ``tol`` of the simulation's own."""
    return all(abs(i / a - 1) <= tol for i, a in zip(implied, actual, strict=True))


# the 27B's GEMMs per layer at TP 1, (n, k, layers): FFN gate+up and down, the gated attention's
# QKV (q and its gate, 24 × 256 each; K, V 4 × 256 each) and output, the DeltaNet's in_proj_qkvz
# and out_proj (model_configs/qwen3.5-27b.yaml)
GEMMS_27B = (("ffn gate_up", 34816, 5120, 64), ("ffn down", 5120, 17408, 64),
             ("attn qkv", 14336, 5120, 16), ("attn o", 5120, 6144, 16),
             ("gdn qkvz", 16384, 5120, 48), ("gdn out", 5120, 6144, 48))  # fmt: skip
# table dtype -> (the curve's key, its peak's key, bytes per element of the weights, of the
# activations, of the activation-quantisation pass: tools/fit_kernels.py GEMM_DTYPES)
TABLE_DTYPES = {"bfloat16": ("bf16", "bf16", 2.0, 2.0, 0.0),
                "fp8_block": ("fp8_block", "fp8", 1.0 + 4 / 128**2, 1.0 + 4 / 128,
                              3.0 + 4 / 128)}  # fmt: skip


def curve_s(profile: dict, dtype: str, m, n, k, engine: str | None = None):
    """The profile's fitted GEMM curve for the table's ``dtype`` [s] (``profile``: the hardware
    YAML as loaded); ``engine``: that engine's own curve (``gemm_engine``) where it has one."""
    from calc.formulas import kernel_curves as K

    key, peak, w, a, q = TABLE_DTYPES[dtype]
    kern = profile["kernels"]
    own = (kern.get("gemm_engine") or {}).get(engine or "", {})
    c = own.get(key) or kern["gemm"][key]
    return K.gemm_time_s(
        m, n, k, flops_per_s=float(profile["peak_flops_per_s"][peak]),
        bytes_per_s=float(profile["hbm_bandwidth_bytes_per_s"]), weight_bytes_per_element=w,
        act_bytes_per_element=a, quantize_bytes_per_element=q, compute=c["compute"],
        memory=c["memory"], fixed_s=c["fixed_s"], tile_m=c["tile_m"], tile_n=c["tile_n"],
        k_half=c["k_half"], sharpness=c["sharpness"], sms=kern["sms"],
    )  # fmt: skip


def gemm_lines(wheel: str) -> list[str]:
    """SGLang's measured GEMMs (aiconfigurator-core 0.12.0, ``gemm/sglang/0.5.14``) against the
    profile's pooled curve and SGLang's own (``gemm_engine.sglang``, the sggemm round), median
    measured / curve by rows m over n, k >= 4,096, and the 27B's shapes where the table has
    them at m 8,192."""
    import io
    import zipfile

    import pandas as pd
    import yaml

    z = zipfile.ZipFile(wheel)
    out = ["| GPU | dtype, curve | m 1-64 | 65-512 | 513-2048 | 2049-4096 | 4097-8192 | "
           "8193-16384 | 27B shapes at m 8,192 |", "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for gpu, prof in (("h200_sxm", "h200"), ("b200_sxm", "b200")):
        profile = yaml.safe_load((ROOT / "hardware_profiles" / f"{prof}.yaml").read_text())
        path = f"aiconfigurator_core/systems/data/{gpu}/gemm/sglang/0.5.14/gemm_perf.parquet"
        df = pd.read_parquet(io.BytesIO(z.read(path)))
        for dtype, (key, *_rest) in TABLE_DTYPES.items():
            f = df[(df.gemm_dtype == dtype) & (df.m <= 16384)]
            m, n, k = (f[c].to_numpy(dtype=float) for c in ("m", "n", "k"))
            t = f.latency.to_numpy() * 1e-3
            for engine in (None, "sglang"):
                r = t / curve_s(profile, dtype, m, n, k, engine)
                out.append(_ratio_line(prof, f"{key}, {engine or 'pooled'}", r, m, n, k))
    return out


def _ratio_line(prof: str, label: str, r, m, n, k) -> str:
    """One row of ``gemm_lines``: medians of measured / curve ``r`` by rows m, n, k >= 4,096,
    and at the 27B's shapes at m 8,192."""
    import numpy as np

    big = (n >= 4096) & (k >= 4096)
    cells = []
    for lo, hi in ((1, 64), (65, 512), (513, 2048), (2049, 4096), (4097, 8192),
                   (8193, 16384)):  # fmt: skip
        sel = big & (m >= lo) & (m <= hi)
        cells.append(f"{np.median(r[sel]):.2f}" if sel.any() else "–")
    shapes = []
    for name, nn, kk, _ in GEMMS_27B:
        sel = (m == 8192) & (n == nn) & (k == kk)
        if sel.any():
            shapes.append(f"{name} {r[sel][0]:.2f}")
    return (f"| {prof} | {label} | " + " | ".join(cells) + " | "
            + (", ".join(shapes) or "–") + " |")  # fmt: skip


def main(argv=None) -> None:
    sys.path.insert(0, str(ROOT))
    vn = newruns()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--all", action="store_true", help="every SGLang Qwen3.5 row, not the 27B's")
    ap.add_argument("--wheel", help="the aiconfigurator-core 0.12.0 wheel (SGLang's GEMMs)")
    args = ap.parse_args(argv)
    want = "sgl-qwen3.5-" if args.all else "sgl-qwen3.5-27b-"
    cycles = [cycle_of(r) for r in vn.runs() if r.id.startswith(want)]
    lines = ["The simulation per request served (GPU time by iteration kind; P and D: its step "
             "table's prefill pass of one prompt and decode step at its mean decode batch b, "
             "mid-output context):", "", *simulation_lines(cycles), "",
             "P (per prompt) / D (a decode step) under the cohort schedule at kvcalc's running "
             "cap b, g prompts a pass (diagnostic: the measured columns read the measurement):",
             "", *implied_lines(cycles)]  # fmt: skip
    if args.wheel:
        lines += ["", "SGLang's measured GEMMs over the fitted curve (median measured / curve):",
                  "", *gemm_lines(args.wheel)]  # fmt: skip
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
