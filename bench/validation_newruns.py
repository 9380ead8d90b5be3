"""The held-out section of docs/validation.md on published runs of current engines (issue 20,
newruns and newruns2 rounds; written by bench/validation_doc.py): kvcalc's serving simulation
against published vLLM and SGLang serving runs whose sources are in no list of
bench/validation_sources.py before their round, TPOT, TTFT and output tokens/s [s, tokens/s],
every row's signed error and each group's (vendor × dtype × dense/MoE(-hybrid) × engine) signed
median, also without the rows whose harness has other runs in the fitted data (``overlaps_fit``).

Run: python bench/validation_newruns.py          (prints the section)

The records: docs/validation/published_runs_2026.yaml (each row's source, settings and the
assumptions its source leaves open). Nothing is fitted to them.

Prediction: kvcalc's own public path for a benchmark run, the one `kvcalc score` takes
(``calc.reports.score.simulate_run``): the run's deployment (model, GPU, TP / EP, the
checkpoint's format, the engine and release, the server's memory fraction and max model
length), its requests replayed as the client sent them (``Replay``: every prompt of the run at
t = 0, --request-rate inf, at most the client's --max-concurrency open, fixed lengths: SGLang's
--random-range-ratio 1.0, vLLM's random dataset at its default range ratio 0; InferenceX's client
at its ratio 0.8 spreads them over [0.8 len, len], ``lengths``), each iteration timed by the
step-time model. Compared: the mean TTFT and TPOT (where a source does not say mean or median:
the mean, as both clients print it first) and the output tokens/s over the run; a TTFT the
source leaves out is left blank.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "validation" / "published_runs_2026.yaml"
# the client's prompt count where the source gives none: 2 × concurrency (the SGLang cookbook's
# numPromptsByConc in its other configs: 16: 32, 64: 128, 128: 256, 256: 512)
PROMPTS_PER_CLIENT = 2


@dataclass(frozen=True)
class Run:
    id: str
    source: str
    engine: str
    release: str
    model: str
    hardware: str
    tp: int
    ep: int
    weight_dtype: str | None  # kvcalc format; None: the checkpoint's own (bf16)
    mem_util: float
    isl: int
    osl: int
    concurrency: int
    measured: dict
    prompts: int | None = None
    max_model_len: int | None = None
    # the server's flags where the source states them (None: the engine's default)
    kv_dtype: str | None = None
    max_num_seqs: int | None = None  # SGLang --max-running-requests, vLLM --max-num-seqs
    max_batched_tokens: int | None = None  # SGLang --chunked-prefill-size
    prefix_cache: bool | None = None  # False: SGLang --disable-radix-cache
    # the client's --random-range-ratio where its lengths vary: InferenceX's benchmark_serving
    # draws each prompt and output length uniformly from [int(len × ratio), len] (None: fixed)
    range_ratio: float | None = None
    # SGLang --mamba-ssm-dtype (kvcalc's name, bf16) where the cell states it (None: the default)
    mamba_ssm_dtype: str | None = None
    # SGLang --max-prefill-tokens where the server states it (None: the default, 16,384)
    max_prefill_tokens: int | None = None
    # the fused-MoE backend the server's script states (EngineSettings.moe_backend; vLLM's
    # marlin for VLLM_MXFP4_USE_MARLIN=1); None: the engine's default
    moe_backend: str | None = None

    @property
    def gpus(self) -> int:
        return self.tp * max(1, self.ep // self.tp)

    @property
    def n_prompts(self) -> int:
        return self.prompts or PROMPTS_PER_CLIENT * self.concurrency

    @property
    def output_tokens_per_s(self) -> float:
        """Measured output tokens/s of the deployment: as stated, or from the SGLang cookbook's
        tokens_per_sec_per_gpu (output tok/s / GPUs × (isl + osl) / osl, its stated formula)."""
        m = self.measured
        if "output_tokens_per_s" in m:
            return float(m["output_tokens_per_s"])
        if "output_tokens_per_s_per_gpu" in m:  # InferenceX's "Output tput/GPU"
            return float(m["output_tokens_per_s_per_gpu"]) * self.gpus
        return float(m["tokens_per_s_per_gpu"]) * self.gpus * self.osl / (self.isl + self.osl)

    @property
    def weight_format(self) -> str:
        """The run's weight format (kvcalc's name): the run's, else the checkpoint's own (its
        routed experts', else its attention's, else the model's dtype)."""
        f = self.weight_dtype
        if f is None:
            from calc.data.registry import load_model

            m = load_model(self.model)
            w = m.weight_dtypes
            f = (w and (w.routed_experts or w.attention)) or m.dtype
        return f

    @property
    def dtype(self) -> str:
        """The group's weight format (``weight_format``, fp8 and fp4 kinds pooled)."""
        f = self.weight_format
        return {"fp8-block128": "fp8", "fp8-tensor": "fp8", "nvfp4": "fp4",
                "mxfp4": "fp4"}.get(f, f)  # fmt: skip

    @property
    def group(self) -> str:
        """vendor × dtype × dense/MoE × engine: the vendor from the hardware profile, MoE where
        the model config has a moe: block."""
        from calc.data.registry import load_hardware, load_model

        m = load_model(self.model)
        kind = "dense" if m.moe is None else "MoE"
        if m.n_layers_of("mamba", "mamba2", "linear_attention"):
            kind += "-hybrid"  # recurrent (Mamba / gated-DeltaNet) layers beside attention
        return f"{load_hardware(self.hardware).vendor} {self.dtype} {kind} {self.engine}"

    @property
    def overlaps_fit(self) -> bool:
        """Whether the run's source is a new document from a harness whose other runs are in
        kvcalc's fitted data (the source's ``overlaps_fit`` note): held out, but not
        independent."""
        return bool(sources()[self.source].get("overlaps_fit"))


def runs() -> list[Run]:
    import yaml

    data = yaml.safe_load(DATA.read_text())
    return [Run(**r) for r in data["runs"]]


def sources() -> dict:
    import yaml

    return yaml.safe_load(DATA.read_text())["sources"]


def deployment(run: Run, max_num_seqs: int | None = None):
    """The run's deployment; ``max_num_seqs``: a running-request cap (``capped``)."""
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings

    engine = EngineSettings(name=run.engine, version=run.release, mem_util=run.mem_util,
                            max_model_len=run.max_model_len,
                            max_num_seqs=max_num_seqs or run.max_num_seqs,
                            max_batched_tokens=run.max_batched_tokens,
                            prefix_cache=run.prefix_cache,
                            mamba_ssm_dtype=run.mamba_ssm_dtype,
                            max_prefill_tokens=run.max_prefill_tokens,
                            moe_backend=run.moe_backend)  # fmt: skip
    return Deployment.build(load_model(run.model), load_hardware(run.hardware), tp=run.tp,
                            ep=run.ep, weight_dtype=run.weight_dtype, kv_dtype=run.kv_dtype,
                            engine=engine)  # fmt: skip


def lengths(length: int, n: int, ratio: float | None):
    """The ``n`` lengths [tokens] a client sends for a stated ``length``: all ``length`` where
    they are fixed (``ratio`` None); else spread evenly over [int(length × ratio), length], the
    range InferenceX's benchmark_serving draws uniformly from (``np.random.randint(int(len *
    range_ratio), len + 1)``): the draw's quantiles, not its seed (the seed is not published)."""
    import numpy as np

    if ratio is None:
        return np.full(n, length, dtype=np.int64)
    return np.rint(np.linspace(int(length * ratio), length, n)).astype(np.int64)


def replay(run: Run):
    """The run's requests as its client sent them (module docstring)."""
    import numpy as np

    from calc.reports.score_workload import Replay

    n = run.n_prompts
    how = "fixed" if run.range_ratio is None else f"uniform over [{run.range_ratio:g}, 1] × len"
    return Replay(np.zeros(n), lengths(run.isl, n, run.range_ratio),
                  lengths(run.osl, n, run.range_ratio), run.concurrency,
                  "every request at 0 s (--request-rate inf)", how)  # fmt: skip


@dataclass(frozen=True)
class Result:
    run: Run
    tpot_s: float
    ttft_s: float
    output_tokens_per_s: float
    # diagnostics (the SGLang hybrid table): the median TPOT [s] and the retractions (SGLang)
    # or preemptions (vLLM) of the simulation
    tpot_p50_s: float | None = None
    retractions: int = 0

    def error(self, figure: str) -> float | None:
        """(predicted − measured) / measured; None where the source states no such figure (a
        TTFT some sources leave out)."""
        m = self.run.measured
        if figure == "ttft" and "ttft_s" not in m:
            return None
        meas = {"tpot": m.get("tpot_s"), "ttft": m.get("ttft_s"),
                "tokens": self.run.output_tokens_per_s}[figure]  # fmt: skip
        pred = {"tpot": self.tpot_s, "ttft": self.ttft_s,
                "tokens": self.output_tokens_per_s}[figure]  # fmt: skip
        return pred / meas - 1


def predict(run: Run, efficiency: str = "expected") -> Result:
    """The run through ``kvcalc score``'s simulation (module docstring)."""
    from calc.reports.score import predicted, simulate_run

    sim = simulate_run(deployment(run), replay(run), efficiency=efficiency)
    return Result(run, predicted(sim, "tpot", "avg"), predicted(sim, "ttft", "avg"),
                  predicted(sim, "output_tokens_per_s", ""), predicted(sim, "tpot", "p50"),
                  sim.preemptions)  # fmt: skip


@cache
def results() -> tuple[Result, ...]:
    """Every run predicted (simulated once a process)."""
    return tuple(predict(r) for r in runs())


def decoding_batch(tokens_per_s: float, tpot_s: float) -> float:
    """The requests decoding at once in a run [requests], by Little's law: each request spends
    (osl − 1) × TPOT decoding and they finish at tokens_per_s / osl a second, so on average
    tokens_per_s × (osl − 1) / osl × TPOT ≈ tokens_per_s × TPOT decode together (the osl / (osl
    − 1) left out: under 0.2% at these lengths)."""
    return tokens_per_s * tpot_s


def kv_sequences(pool_tokens: int, sequence_tokens: int) -> float:
    """Whole sequences of ``sequence_tokens`` (prompt + output) a KV pool of ``pool_tokens``
    holds [sequences]: the most requests that can finish together without a retraction."""
    return pool_tokens / sequence_tokens


def sglang_pool_limits(run: Run) -> tuple[int, float] | None:
    """kvcalc's two limits on the run's running requests [requests] where SGLang serves a model
    with recurrent (Mamba / gated-DeltaNet) layers, else None: the cap its state pool sets
    (``max_running_requests`` = state slots // slots a running request holds,
    ``calc.deploy.engines.sglang.hybrid``, applied by the simulation since the sghybrid round)
    and the sequences of the run's length (isl + osl) its KV pool holds whole
    (``kv_sequences``). Admission fills the KV pool past the second (it reserves the running
    requests' outputs × new_token_ratio only), so where it is the smaller one the requests
    admitted together outgrow the pool before they finish and some are retracted."""
    if run.engine != "sglang":
        return None
    g = deployment(run).per_gpu
    cap = getattr(g.prediction, "max_running_requests", None)
    if cap is None:
        return None
    return int(cap), kv_sequences(int(g.kv_cache_blocks) * int(g.block_size), run.isl + run.osl)


def capped(run: Run, batch: int) -> Result:
    """The run predicted with its running requests capped at ``batch`` (SGLang
    --max-running-requests): a diagnostic of the step time at the batch the run held, not a
    prediction (``batch`` comes from the measurement)."""
    from calc.reports.score import predicted, simulate_run

    sim = simulate_run(deployment(run, batch), replay(run))
    return Result(run, predicted(sim, "tpot", "avg"), predicted(sim, "ttft", "avg"),
                  predicted(sim, "output_tokens_per_s", ""))  # fmt: skip


FIGURES = (("tpot", "TPOT"), ("ttft", "TTFT"), ("tokens", "output tokens/s"))


def _stats(res, figure: str) -> tuple[float, float] | None:
    """(signed median, median |error|) of the rows that state ``figure``; None where none."""
    errs = [e for e in (r.error(figure) for r in res) if e is not None]
    if not errs:
        return None
    return statistics.median(errs), statistics.median(abs(e) for e in errs)


def _cells(res) -> list[str]:
    cells = []
    for fig, _ in FIGURES:
        st = _stats(res, fig)
        cells += [f"**{st[0]:+.1%}**", f"{st[1]:.1%}"] if st else ["–", "–"]
    return cells


def _pct(e: float | None) -> str:
    return "–" if e is None else f"{e:+.1%}"


def groups(res) -> dict[str, list[Result]]:
    out: dict[str, list[Result]] = {}
    for r in res:
        out.setdefault(r.run.group, []).append(r)
    return out


def _group_table(res) -> list[str]:
    """The signed and absolute medians of ``res`` by group, and of all of them (table lines)."""
    lines = [
        "| group | rows | TPOT signed median | TPOT median abs | TTFT signed median "
        "| TTFT median abs | tokens/s signed median | tokens/s median abs |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, sub in sorted(groups(res).items()):
        lines.append(f"| {name} | {len(sub)} | " + " | ".join(_cells(sub)) + " |")
    lines.append(f"| all | {len(res)} | " + " | ".join(_cells(res)) + " |")
    return lines


def render() -> str:
    res = results()
    src = sources()
    lines = [
        "## Held out: published runs of current engines (issue 20, newruns round)",
        "",
        "<!-- generated by bench/validation_newruns.py -->",
        "",
        f"{len(res)} published serving runs (docs/validation/published_runs_2026.yaml) from "
        "sources listed nowhere before their round (newruns, newruns2), each replayed through "
        "`kvcalc score`'s",
        "simulation at its own settings (module docstring of `bench/validation_newruns.py`).",
        "Nothing is fitted to them. Error = (predicted − measured) / measured.",
        "",
        "Sources: " + "; ".join(f"[{k}]({v['url']})" for k, v in src.items()) + ".",
        "",
        *_group_table(res),
    ]
    apart = [r for r in res if not r.run.overlaps_fit]
    if len(apart) < len(res):
        lines += [
            "",
            "The same without the rows whose source is a new document from a harness whose other "
            "runs kvcalc is fitted to (InferenceX: its dashboard runs are in aiconfigurator's "
            "silicon sample; the sources' `overlaps_fit` notes):",
            "",
            *_group_table(apart),
        ]
    lines += [
        "",
        "Every row (predicted / measured; TPOT and TTFT in ms, output tokens/s of the deployment):",
        "",
        "| run | engine | c | prompts | TPOT pred | meas | error | TTFT pred | meas | error "
        "| tokens/s pred | meas | error |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res:
        run = r.run
        ttft = run.measured.get("ttft_s")
        lines.append(
            f"| {run.id} | {run.engine} {run.release} | {run.concurrency} | {run.n_prompts} | "
            f"{r.tpot_s * 1e3:.2f} | {run.measured['tpot_s'] * 1e3:.2f} | "
            f"{r.error('tpot'):+.1%} | {r.ttft_s * 1e3:,.0f} | "
            f"{'–' if ttft is None else f'{ttft * 1e3:,.0f}'} | {_pct(r.error('ttft'))} | "
            f"{r.output_tokens_per_s:,.0f} | {run.output_tokens_per_s:,.0f} | "
            f"{r.error('tokens'):+.1%} |"
        )
    return "\n".join(lines + _batch_lines(res)) + "\n"


def _batch_lines(res) -> list[str]:
    """The SGLang hybrid rows' decoding batch, measured (Little's law) against kvcalc's, with
    kvcalc's limits, retractions and the TPOT at the measured batch (``capped``)."""
    text = (
        "Diagnostic of the SGLang hybrid (gated-DeltaNet) rows (issue 20/21, sgadmit round): "
        "the requests decoding at once (`decoding_batch`: tokens/s × TPOT), measured and "
        "kvcalc's with its mean TPOT and with its median (the source does not say which it "
        "prints; SGLang appends a retracted request to the end of its waiting queue, so that "
        "request's TPOT holds a pass through the whole queue: the mean carries it, the median "
        "does not); kvcalc's two limits (`sglang_pool_limits`: the running-request cap of "
        "SGLang's state pool, applied, and the sequences of the run's length its KV pool "
        "holds); the retractions in kvcalc's simulation; and kvcalc's TPOT and tokens/s "
        "error with the running requests capped at the measured batch (`capped`: uses the "
        "measurement, so not a prediction)."
    )
    out = ["", text, "",
           "| run | batch meas | batch kvcalc (mean TPOT) | batch kvcalc (median TPOT) "
           "| running cap | KV pool sequences | retractions | capped TPOT error "
           "| capped tokens/s error |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in res:
        run = r.run
        limits = sglang_pool_limits(run)
        if limits is None:
            continue
        meas = decoding_batch(run.output_tokens_per_s, run.measured["tpot_s"])
        c = capped(run, max(1, round(meas)))
        out.append(
            f"| {run.id} | {meas:.0f} | "
            f"{decoding_batch(r.output_tokens_per_s, r.tpot_s):.0f} | "
            f"{decoding_batch(r.output_tokens_per_s, r.tpot_p50_s):.0f} | {limits[0]} | "
            f"{limits[1]:.1f} | {r.retractions} | "
            f"{c.error('tpot'):+.1%} | {c.error('tokens'):+.1%} |"
        )
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.stdout.write(render())
