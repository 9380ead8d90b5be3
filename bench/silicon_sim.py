"""aiconfigurator's silicon sample replayed through kvcalc's serving simulation (issue 20, silsim
round): each row's requests as its harness sent them, through ``calc.serve.simulate`` (the
path `kvcalc simulate`, `score` and `plan` take), beside the closed form of
bench/validation_serving.py (its cycle and its three fitted wave shares). Nothing is fitted here.

Run: python bench/silicon_sim.py                 (the tables, from the cached simulations)
     python bench/silicon_sim.py --write         (simulate every row, write the cache)
     python bench/silicon_sim.py --every 20      (every 20th row, simulated now, not cached)
     options: --workers N (processes; default 1), --rows-out (every row's figures)

The harnesses (what each row's client did):

- **InferenceX** (every row whose id does not carry ``_epnone_``: the sample's ``2026_*`` export
  rows and its ``dsr1_*`` db-dump rows, SemiAnalysisAI/InferenceX's sweeps): vLLM's
  ``benchmark_serving.py`` with ``--request-rate inf``, ``--max-concurrency c``, ``--num-prompts
  10 × c``, ``--random-range-ratio 0.8`` (prompt and output lengths drawn uniformly from
  [int(0.8 × len), len]: ``validation_newruns.lengths``' quantiles) and no warm-up: every request
  counted (docs/step-time.md, MoE TTFT round).
- **AIPerf** (the ``_epnone_`` rows, aiconfigurator's gap-analysis campaign): aiconfigurator's
  ``bench_run.sh.j2`` at commit 095f58a51: ``aiperf profile --concurrency c --num-requests
  20 × c --warmup-request-count 2 × c --isl L --isl-stddev 0 --osl L --osl-stddev 0`` (the
  generator's deployment_config.yaml: both stddevs default 0, fixed lengths); the 2 × c warm-up
  requests are simulated and left out of the means. Where the server reused prefixes (vLLM:
  ``validation_serving.REUSE``), each timed prompt computes on average only the share of its
  tokens the cache misses: the simulation takes ``hit_share`` × the cached blocks of every
  prompt as a shared prefix (its one prefix fraction for all requests, an average in place of
  the per-request draw; the closed form's ``hit_share`` as it stands).

Each row's deployment is the closed form's (``validation_serving._deployment``: layout, formats,
KV dtype, MoE backend, admission settings), with the closed form's three row-level readings
carried over to the iteration table: TensorRT-LLM decode steps replay a graph of their own batch
and passes with a prompt are eager (``validation_serving``'s CUDA-graph comment); SGLang rows
whose stated release issued its prompt passes eagerly (``prefill_eager``) run them eagerly; the
batch wait's threshold at the scripts' 0.9 × 16,384 tokens. Not simulated: MTP speculative
decoding (``MTP_ROWS``; the simulation has no draft step): those rows are left out of both
columns. Rows the closed form sets aside (below their roofline floor) or cannot build are left
out too.

InferenceX's TensorRT-LLM scripts set the token budget (``script_budget``): without chunked
prefill a prompt that with the running decodes exceeds it waits for them to drain, so the
simulation (not the closed form, which keeps the release's default) takes the scripts' budget.

Means: the mean TTFT and TPOT over the counted requests, as both clients report them. Each
InferenceX row is simulated a second time with every request at the stated lengths: the waves
of the first c requests then stay in step for the whole run, the other bound of the wave
(``position``: where the measured TTFT lies between the two; docs/step-time.md, silsim round).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import validation_serving as vs  # noqa: E402

CACHE = ROOT / "docs" / "validation" / "aiconfigurator_silicon_sim.csv"
INFERENCEX_PROMPTS_PER_CLIENT = 10  # benchmark_serving --num-prompts 10 × c (InferenceX)
INFERENCEX_RANGE_RATIO = 0.8  # benchmark_serving --random-range-ratio (InferenceX)
GRAPH_ANY_BATCH = 1 << 30  # a decode graph of every batch (TensorRT-LLM rows, docstring)
GPTOSS_MAX_NUM_TOKENS = 20000  # InferenceX gptoss_fp4_*_trt.sh --max_num_tokens


def harness(row) -> str:
    """Which client measured ``row``: "aiperf" (the gap-analysis campaign) or "inferencex"."""
    return "aiperf" if "_epnone_" in row.id else "inferencex"


def requests(row, dep, fixed: bool = False):
    """(Replay, counted-from index) of ``row``'s client (module docstring); ``fixed``: every
    request at the stated lengths (the diagnostic of the wave: ``--write``'s second pass)."""
    import numpy as np
    from validation_newruns import lengths

    from calc.reports.score_workload import Replay
    from calc.serve.prompt_reuse import cached_tokens

    c = row.concurrency
    if harness(row) == "inferencex":
        n = INFERENCEX_PROMPTS_PER_CLIENT * c
        r = None if fixed else INFERENCEX_RANGE_RATIO
        return Replay(np.zeros(n), lengths(row.isl, n, r), lengths(row.osl, n, r), c,
                      "every request at 0 s", "uniform over [0.8, 1] × len"), 0  # fmt: skip
    warm = vs.WARMUP_PER_CLIENT * c
    n = warm + vs.TIMED_PER_CLIENT * c
    hit = vs.hit_share(row, dep)
    cached = hit * cached_tokens(row.isl, dep.per_gpu.block_size) / row.isl if hit else 0.0
    return Replay(np.zeros(n), np.full(n, row.isl), np.full(n, row.osl), c,
                  "every request at 0 s", "fixed", cached), warm  # fmt: skip


def script_budget(row) -> int | None:
    """The tokens a TensorRT-LLM iteration may hold (``--max_num_tokens``) as the row's script
    set it, None where the row is not an InferenceX TensorRT-LLM run (the AIPerf campaign's
    server settings are not published: the release's default stands): InferenceX's DeepSeek-R1
    scripts max(8,192, the concurrency + the prompt + 64, up to a multiple of 64), its gpt-oss
    scripts 20,000, its Llama-3.1-70B scripts 16,384."""
    if row.backend != "trtllm" or harness(row) != "inferencex":
        return None
    c = row.concurrency
    if row.model == "gpt-oss-120b":
        return GPTOSS_MAX_NUM_TOKENS
    if row.model == "llama3.1-70b":
        return vs.SCRIPT_MAX_NUM_TOKENS
    if row.model.startswith("deepseek"):
        return max(8192, (c + row.isl + 64 + 63) // 64 * 64)
    return None


def table(row, dep, max_ctx: int, max_tokens: int):
    """The iteration table of ``row``'s run (the closed form's row-level readings: docstring)."""
    from calc.serve.graphs import decode_only
    from calc.serve.steptime import step_table

    step = step_table(dep, "expected", max_ctx=max_ctx, max_tokens=max_tokens)
    if dep.engine_model.cuda_graph_batch_sizes(dep) is not None and decode_only(dep):
        step = replace(step, graph_tokens=GRAPH_ANY_BATCH, graph_sizes=None)
    elif vs.prefill_eager(row):
        step = replace(step, graph_decode_only=True)
    return step


def simulate(row, fixed: bool = False) -> tuple[float, float, int]:
    """(mean TTFT [s], mean TPOT [s], requests counted) of ``row`` through the simulation
    (``fixed``: at the stated lengths, ``requests``)."""
    from calc.serve.simulate import (
        deployment_limits,
        front_end_s,
        groups_of,
        request_latency_s,
        simulate_requests,
    )

    dep = vs._deployment(row)
    rep, skip = requests(row, dep, fixed)
    p, g = rep.prompt, rep.gen
    lim = deployment_limits(dep, float((p + g).mean()))
    if script_budget(row):
        lim = replace(lim, max_batched_tokens=script_budget(row))
    if lim.max_model_len is not None and int((p + g).max()) > lim.max_model_len:
        lim = replace(lim, max_model_len=int((p + g).max()))
    if not lim.chunked_prefill and int(p.max()) > lim.max_batched_tokens:
        lim = replace(lim, max_batched_tokens=int(p.max()))
    if lim.admission.batch_wait_iters:
        lim = replace(
            lim,
            admission=lim.admission._replace(
                batch_wait_tokens=dep.engine_config.batch_wait_ratio * vs.SCRIPT_MAX_NUM_TOKENS
            ),
        )
    step = table(row, dep, int((p + g).max()) + 1, lim.max_batched_tokens)
    sim = simulate_requests(rep.arrival_s, p, g, limits=lim, step=step, groups=groups_of(dep),
                            prefix_shared_fraction=rep.cached_fraction,
                            max_in_flight=rep.max_in_flight, front_s=front_end_s(step, p),
                            request_s=request_latency_s(dep), tokens=False)  # fmt: skip
    ttft, tpot = sim.ttft_each_s[skip:], sim.tpot_each_s[skip:]
    import numpy as np

    return float(ttft.mean()), float(np.nanmean(tpot)), len(ttft)


@dataclass(frozen=True)
class Pair:
    """A row's closed-form result (``validation_serving.Result``) and its simulated means."""

    closed: object
    sim_ttft_s: float
    sim_tpot_s: float
    # the same at the stated lengths (the AIPerf rows' own; the InferenceX rows' diagnostic)
    fixed_ttft_s: float = float("nan")
    fixed_tpot_s: float = float("nan")

    @property
    def row(self):
        return self.closed.row

    def error(self, which: str, figure: str) -> float:
        meas = getattr(self.row, f"{figure}_s")
        src = self.closed if which == "closed" else self
        pred = getattr(src, f"{figure}_s" if which == "closed" else f"{which}_{figure}_s")
        return pred / meas - 1


def scored():
    """The closed form's scored rows that the simulation can replay (no MTP)."""
    return [r for r in vs.results() if not r.row.mtp]


def _one(res) -> tuple:
    """(id, TTFT, TPOT, the same at fixed lengths, requests counted, CPU seconds) of a row."""
    t0 = time.process_time()
    ttft, tpot, n = simulate(res.row)
    fixed = simulate(res.row, fixed=True) if harness(res.row) == "inferencex" else (ttft, tpot)
    return res.row.id, ttft, tpot, fixed[0], fixed[1], n, time.process_time() - t0


def run_all(res, workers: int) -> list[tuple]:
    """``_one`` of every result, in ``workers`` processes."""
    if workers <= 1:
        return [_one(r) for r in res]
    from multiprocessing import get_context

    with get_context("fork").Pool(workers) as pool:
        return pool.map(_one, res, chunksize=8)


def write_cache(out: list[tuple]) -> None:
    with CACHE.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(("id", "sim_ttft_ms", "sim_tpot_ms", "fixed_ttft_ms", "fixed_tpot_ms",
                    "requests", "cpu_s"))  # fmt: skip
        for rid, ttft, tpot, fttft, ftpot, n, cpu in sorted(out):
            w.writerow((rid, f"{ttft * 1e3:.4f}", f"{tpot * 1e3:.5f}", f"{fttft * 1e3:.4f}",
                        f"{ftpot * 1e3:.5f}", n, f"{cpu:.2f}"))  # fmt: skip


def read_cache() -> dict:
    with CACHE.open() as f:
        keys = ("sim_ttft_ms", "sim_tpot_ms", "fixed_ttft_ms", "fixed_tpot_ms")
        return {r["id"]: tuple(float(r[k]) / 1e3 for k in keys) for r in csv.DictReader(f)}


def pairs(sims: dict) -> list[Pair]:
    return [Pair(r, *sims[r.row.id]) for r in scored() if r.row.id in sims]


def _stat(sub, which, figure) -> str:
    e = [p.error(which, figure) for p in sub]
    return f"**{statistics.median(e):+.1%}** / {statistics.median(abs(x) for x in e):.1%}"


def _line(name: str, sub) -> str:
    cells = [_stat(sub, w, f) for f in ("ttft", "tpot") for w in ("closed", "sim")]
    return f"| {name} | {len(sub)} | " + " | ".join(cells) + " |"


HEAD = ["| {} | rows | TTFT closed form | TTFT simulation | TPOT closed form | TPOT simulation |",
        "|---|---:|---:|---:|---:|---:|"]  # fmt: skip


def group_of(row) -> str:
    """The existing table's group (validation_serving.render)."""
    return (f"{row.vendor} {row.dtype} {'MoE' if row.moe else 'dense'} {row.backend} "
            f"{row.regime}")  # fmt: skip


def _half_regime(row) -> str:
    return f"{'training' if row.training else 'held-out'}, {row.regime}"


def render(ps: list[Pair]) -> str:
    lines = ["Signed median / median |error| of (predicted − measured) / measured.", "",
             HEAD[0].format("half"), HEAD[1]]  # fmt: skip
    for half in ("training", "held-out"):
        lines.append(_line(half, [p for p in ps if p.row.training == (half == "training")]))
    lines.append(_line("all", ps))
    keys = (
        ("regime", lambda r: r.regime),
        ("half, regime", _half_regime),
        ("engine", lambda r: r.backend),
        ("harness", harness),
        ("group", group_of),
    )
    for title, key in keys:
        by: dict = {}
        for p in ps:
            by.setdefault(key(p.row), []).append(p)
        lines += ["", HEAD[0].format(title), HEAD[1]]
        lines += [_line(k, v) for k, v in sorted(by.items())]
    return "\n".join(lines + _fixed_lines(ps)) + "\n"


def _fixed_lines(ps: list[Pair]) -> list[str]:
    """The InferenceX rows by engine and regime: the closed form, the simulation at the client's
    spread lengths, and the simulation at the stated lengths (every request alike, so the waves
    of the first c requests stay in step: the wave's two bounds), and where the measured TTFT
    lies between them (``position``)."""
    out = ["", "InferenceX rows: the simulation at the client's lengths (uniform over [0.8, 1] ×"
           " the stated) and at the stated lengths alike (the diagnostic of the wave).", "",
           "| engine, regime | rows | TTFT closed form | TTFT simulation | TTFT simulation, fixed "
           "lengths | TPOT simulation | TPOT simulation, fixed lengths | measured between (median,"
           " quartiles) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    by: dict = {}
    for p in ps:
        if harness(p.row) == "inferencex":
            by.setdefault(f"{p.row.backend} {p.row.regime}", []).append(p)
    by["all"] = [p for v in list(by.values()) for p in v]
    for k, sub in sorted(by.items()):
        cells = [_stat(sub, w, f) for w, f in (("closed", "ttft"), ("sim", "ttft"),
                                               ("fixed", "ttft"), ("sim", "tpot"),
                                               ("fixed", "tpot"))]  # fmt: skip
        pos = sorted(x for x in (position(p) for p in sub) if x is not None)
        cells.append(f"{statistics.median(pos):.2f} ({pos[len(pos) // 4]:.2f} – "
                     f"{pos[3 * len(pos) // 4]:.2f})" if pos else "–")  # fmt: skip
        out.append(f"| {k} | {len(sub)} | " + " | ".join(cells) + " |")
    return out


def position(p: Pair) -> float | None:
    """Where the measured TTFT lies between the simulation at the client's spread lengths (0)
    and at the stated lengths alike (1); None where the two agree."""
    lo, hi = p.sim_ttft_s, p.fixed_ttft_s
    if not hi - lo > 1e-9:
        return None
    return (p.row.ttft_s - lo) / (hi - lo)


def row_lines(ps: list[Pair]) -> str:
    out = ["id c isl osl meas_ttft_ms closed_ttft_ms sim_ttft_ms fixed_ttft_ms meas_tpot_ms "
           "closed_tpot_ms sim_tpot_ms fixed_tpot_ms"]  # fmt: skip
    for p in sorted(ps, key=lambda p: p.row.id):
        r = p.row
        out.append(f"{r.id} {r.concurrency} {r.isl} {r.osl} {r.ttft_s * 1e3:.1f} "
                   f"{p.closed.ttft_s * 1e3:.1f} {p.sim_ttft_s * 1e3:.1f} "
                   f"{p.fixed_ttft_s * 1e3:.1f} {r.tpot_s * 1e3:.2f} {p.closed.tpot_s * 1e3:.2f} "
                   f"{p.sim_tpot_s * 1e3:.2f} {p.fixed_tpot_s * 1e3:.2f}")  # fmt: skip
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="simulate every row, write the cache")
    ap.add_argument("--every", type=int, default=0, help="simulate every Nth row now")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--rows-out", action="store_true", help="print every row's figures")
    args = ap.parse_args(argv)
    if args.write or args.every:
        res = scored()[:: max(1, args.every or 1)]
        t0 = time.time()
        out = run_all(res, args.workers)
        wall = time.time() - t0
        cpu = sum(o[6] for o in out)
        print(
            f"{len(out)} rows simulated: {wall:.0f} s wall, {cpu:.0f} s CPU "
            f"({args.workers} worker(s)); slowest {max(o[6] for o in out):.1f} s CPU"
        )
        if args.write:
            write_cache(out)
        sims = {o[0]: o[1:5] for o in out}
    else:
        sims = read_cache()
    ps = pairs(sims)
    sys.stdout.write(render(ps))
    if args.rows_out:
        sys.stdout.write(row_lines(ps))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
