"""A benchmark run held against kvcalc's serving simulation [s, 1/s]: the measured workload
replayed (``calc.reports.score_workload``) on the run's deployment, and each figure the file
measured (TTFT, TPOT, ITL, E2E: mean, median, p90, p99; request, output and input token
throughput; goodput where the file states its SLOs) beside the simulation's, with the signed
error (predicted − measured) / measured.

The deployment: each option the command gives, else what a start-up log beside the run states
(``--log``), else what the result file records (SGLang's ``server_info``, trtllm-bench's
``world_info`` and GPU name, a vLLM ``--metadata``), else the engine's defaults. Every metric is
defined as vLLM's benchmark defines it (``calc.serve.simulate``); each reader maps its tool's
names onto those (``calc.data.bench_results``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# the one GPU-name table (kvcalc log reads the same); imported here for score's callers
from calc.data.gpu_names import hardware_for_gpu
from calc.errors import InvalidInputError

# (metric, stat): the rows a score can hold, in display order
LATENCIES = tuple(
    (m, s) for m in ("ttft", "tpot", "itl", "e2e") for s in ("avg", "p50", "p90", "p99")
)
RATES = ("requests_per_s", "output_tokens_per_s", "input_tokens_per_s", "goodput_requests_per_s")
# the figures the calibration fit and its check use (docs/validation.md)
FIT_METRICS = (("ttft", "p50"), ("tpot", "avg"), ("output_tokens_per_s", ""))

# model ids the start-up log reader does not map (calc.deploy.engines.fromlog.shipped_model_for)
_MORE_MODELS = {
    "deepseek-v2.5": "deepseek-v2",
    "deepseek-v2.5-1210": "deepseek-v2",
    "qwen3-8b": "qwen3-8b",
    "qwen3-14b": "qwen3-14b",
    "qwen3-32b": "qwen3-32b",
    "phi-4": "phi-4",
    "gpt-oss-20b": "gpt-oss-20b",
    "llama-3.1-8b-instruct": "llama3.1-8b",
    "llama-3.1-70b-instruct": "llama3.1-70b",
    "llama-3.3-70b-instruct": "llama3.3-70b",
}


def model_for(model_id: str | None) -> str | None:
    """The shipped model a recorded model id (a Hugging Face id or path) is (None: unknown)."""
    from calc.deploy.engines.fromlog import shipped_model_for

    if not model_id:
        return None
    short = model_id.rstrip("/").rsplit("/", 1)[-1].lower()
    return _MORE_MODELS.get(short) or shipped_model_for(model_id)


def engine_for(run) -> str | None:
    """The serving engine a run measured, where its tool or client backend says."""
    if run.tool == "trtllm-bench":
        return "trtllm"
    backend = (run.backend or "").lower()
    if run.tool == "sglang bench_serving" and backend.startswith("sglang"):
        return "sglang"
    if backend.startswith("vllm") or run.tool == "vllm bench serve":
        return "vllm"
    return None


def log_settings(path) -> dict:
    """The deployment options a start-up log states (its model, engine and version, tp, pp and
    the engine's memory and batch settings), read by the engine wing's log reader
    (``calc.deploy.engines.fromlog.read_log``); ``printed_blocks``: the KV pool it printed, in
    blocks."""
    from calc.deploy.engines.fromlog import kv_dtype_of, read_log_file, weight_dtype_of

    facts = read_log_file(path)
    s = facts.settings
    out = {
        "model": model_for(s.get("model")),
        "engine": facts.engine,
        "engine_version": facts.version,
        "tp": s.get("tp"),
        "pp": s.get("pp"),
        "mem_util": s.get("memory_fraction"),
        "max_model_len": s.get("max_model_len"),
        "max_batched_tokens": s.get("max_batched_tokens"),
        "max_num_seqs": s.get("max_num_seqs"),
        "block_size": s.get("block_size"),
        "weight_dtype": weight_dtype_of(s),
        "kv_dtype": kv_dtype_of(s.get("kv_cache_dtype")),
        "printed_blocks": facts.printed.get("blocks"),
        # vLLM --enforce-eager, SGLang --disable-cuda-graph: every pass eager
        "eager": True if s.get("enforce_eager") else None,
    }
    return {k: v for k, v in out.items() if v is not None}


def _file_options(run) -> dict:
    """The deployment options the result file records (its engine's release only where it is a
    version number: the release it names, resolved as ``--engine-version`` is)."""
    from calc.deploy.engines.versions import parse_version

    d = run.deployment
    out: dict = {"model": model_for(run.model), "engine": engine_for(run),
                 "hardware": hardware_for_gpu(d.get("gpu"))}  # fmt: skip
    for key in ("tp", "pp", "dp", "ep", "max_num_seqs", "max_batched_tokens", "block_size"):
        v = d.get(key)
        if v is not None and str(v).isdigit() and int(v) > 0:
            out[key] = int(v)
    if d.get("mem_util") is not None:
        try:
            f = float(d["mem_util"])
        except ValueError:
            f = 0.0
        if 0 < f <= 1:
            out["mem_util"] = f
    kv = str(d.get("kv_dtype") or "").lower()
    if "fp8" in kv:
        out["kv_dtype"] = "fp8"
    version = d.get("version")  # SGLang's server_info, trtllm-bench's engine, a vLLM --metadata
    if version is not None and out["engine"] is not None and parse_version(str(version)):
        out["engine_version"] = str(version)
    quant = str(d.get("quantization") or "").lower()
    if quant and quant not in ("none", "null"):
        from calc.deploy.engines.fromlog import weight_dtype_of

        out["weight_dtype"] = weight_dtype_of({"quantization": quant})
    return {k: v for k, v in out.items() if v is not None}


def deployment_options(run, given: dict, log: dict | None = None) -> tuple[dict, list[str]]:
    """The options of the run's Deployment (module docstring: the command's, the log's, the
    file's), and a note of each taken from the log or the file."""
    options = dict(given)
    notes = []
    recorded = _file_options(run)
    for origin, found in (("the start-up log", log or {}), ("the result file", recorded)):
        for key, value in found.items():
            if key in ("printed_blocks", "eager"):  # not options: the pool, CUDA graphs off
                continue
            if key == "engine_version" and origin == "the result file" \
                    and options.get("engine") != found.get("engine"):  # fmt: skip
                continue  # the file's release is another engine's
            if options.get(key) is None:
                options[key] = value
                notes.append(f"{key} {value} from {origin}")
            elif origin == "the result file" and given.get(key) is None and value is not None \
                    and str(value) != str(options[key]):  # fmt: skip
                notes.append(f"the start-up log's {key} {options[key]} is used, though the "
                             f"result file records {value} (--{key} to choose)")  # fmt: skip
    if options.get("engine") is None:
        notes.append("engine vllm, the default: the file names none (--engine to choose)")
    if options.get("engine_version") is None:
        notes.append(_release_note(run, options.get("engine") or "vllm"))
    if options.get("model") is None:
        said = f" ({run.model!r} is not a shipped model)" if run.model else ""
        raise InvalidInputError(
            f"{run.source}: which model was served?{said} give --model (a shipped name, a "
            "YAML or a config.json path)"
        )
    if options.get("hardware") is None:
        gpu = run.deployment.get("gpu")
        said = f" (it records {gpu!r}, not a shipped profile)" if gpu else ""
        raise InvalidInputError(
            f"{run.source}: the file names no GPU kvcalc knows{said}; give --hardware"
        )
    return options, notes


def _release_note(run, engine_name: str) -> str:
    """The note of a run replayed at the engine's newest modelled release because neither the
    command, the log nor the file names one (a file dated before it was likely another)."""
    from calc.deploy.engines import engine

    newest = engine(engine_name).versions.newest
    date = str(run.deployment.get("date") or "")[:8]
    dated = f" (the file is dated {date[:4]}-{date[4:6]}-{date[6:]})" if date.isdigit() \
        and len(date) == 8 else ""  # fmt: skip
    return (f"engine_version {newest}, the newest modelled: the file records no release{dated}; "
            "--engine-version to choose")


# ---------------------------------------------------------------------------------------------
# Predicted vs measured


@dataclass(frozen=True, eq=False)
class RunScore:
    """One run scored: the replay, the simulation and the metric rows (module docstring)."""

    run: object  # calc.data.bench_results.BenchRun
    dep: object  # Deployment
    replay: object  # calc.reports.score_workload.Replay
    sim: object  # calc.serve.simulate.SimResult
    rows: list = field(default_factory=list)
    notes: tuple = ()


def predicted(sim, metric: str, stat: str):
    """The simulation's figure of (metric, stat) [s or 1/s] (None: it has none)."""
    if metric in ("ttft", "tpot", "itl", "e2e"):
        return getattr(sim, f"{metric}_s").get("mean" if stat == "avg" else stat)
    return {
        "requests_per_s": sim.requests_per_s,
        "output_tokens_per_s": sim.output_tokens_per_s,
        "input_tokens_per_s": sim.input_tokens_per_s,
    }.get(metric)


def metric_rows(run, sim) -> list[dict]:
    """(metric, stat, unit, predicted, measured, error) of every figure the run measured."""
    rows = []
    for metric, stat in LATENCIES:
        meas = run.measured.get(f"{metric}_{stat}_s")
        if meas is not None:
            rows.append(_row(run, metric, stat, "s", predicted(sim, metric, stat), meas))
    for metric in RATES:
        meas = run.measured.get(metric)
        if meas is None:
            continue
        if metric == "goodput_requests_per_s":
            if not run.slo_s:
                continue
            slo = run.slo_s
            pred = sim.goodput_requests_per_s_e2e(slo.get("ttft"), slo.get("tpot"), slo.get("e2e"))
        else:
            pred = predicted(sim, metric, "")
        rows.append(_row(run, metric, "", "1/s", pred, meas))
    return rows


def _row(run, metric, stat, unit, pred, meas) -> dict:
    error = (pred - meas) / meas if pred is not None and meas else None
    return {"source": run.source, "metric": metric, "stat": stat, "unit": unit,
            "predicted": pred, "measured": meas, "error": error}  # fmt: skip


def simulate_run(dep, replay, *, efficiency: str = "expected", step=None, pool_blocks=None):
    """The simulation of a replayed run on ``dep`` (``step``: an iteration-time table to reuse;
    ``pool_blocks``: the KV pool a start-up log printed, in place of the ledger's)."""
    from dataclasses import replace

    from calc.serve.simulate import (
        deployment_limits,
        front_end_s,
        groups_of,
        request_latency_s,
        simulate_requests,
    )
    from calc.serve.steptime import step_table

    if dep.hardware is None:
        raise InvalidInputError("scoring a run needs --hardware (iteration times, the KV pool)")
    p, g = replay.prompt, replay.gen
    lim = deployment_limits(dep, float((p + g).mean()))
    if pool_blocks:
        lim = replace(lim, pool_blocks=int(pool_blocks) // max(dep.pp, 1))
    if lim.pool_blocks <= 0:
        raise InvalidInputError(
            f"{dep.model.display_name} on {dep.describe()} leaves no KV pool: nothing can be "
            "served; check --tp, --weight-dtype and --mem-util"
        )
    if lim.max_model_len is not None and int((p + g).max()) > lim.max_model_len:
        lim = replace(lim, max_model_len=int((p + g).max()))  # the run served them
    if not lim.chunked_prefill and int(p.max()) > lim.max_batched_tokens:
        # whole prompts (TensorRT-LLM without chunked prefill refuses a prompt over its
        # max_num_tokens): the run served its longest, so its server's budget held it
        lim = replace(lim, max_batched_tokens=int(p.max()))
    if step is None:
        step = step_table(dep, efficiency, max_ctx=int((p + g).max()) + 1)
    sim = simulate_requests(
        replay.arrival_s, p, g, limits=lim, step=step, groups=groups_of(dep),
        prefix_shared_fraction=replay.cached_fraction, max_in_flight=replay.max_in_flight,
        front_s=front_end_s(step, p), request_s=request_latency_s(dep),
    )  # fmt: skip
    if sim.n_requests == 0:
        raise InvalidInputError(
            f"every request of the run needs more KV blocks than the pool of "
            f"{lim.pool_blocks:,} holds on {dep.describe()}: check the deployment options"
        )
    return sim


def score_run(run, dep, replay, *, efficiency="expected", step=None, pool_blocks=None):
    """``run`` (a BenchRun) scored on ``dep`` with its ``replay``."""
    sim = simulate_run(dep, replay, efficiency=efficiency, step=step, pool_blocks=pool_blocks)
    notes = list(run.notes)
    if sim.rejected:
        notes.append(f"{sim.rejected} requests did not fit the KV pool and were refused")
    return RunScore(run, dep, replay, sim, metric_rows(run, sim), tuple(notes))


# ---------------------------------------------------------------------------------------------
# The report


def run_fields(s: RunScore, calibrated: bool) -> dict:
    """The run's description: what was measured, on what, how it was replayed."""
    from calc.serve.simulate import deployment_limits

    r, dep, rep = s.run, s.dep, s.replay
    ec = dep.engine_config
    # the running-request limit simulated (SGLang's from its pool where none is set)
    max_seqs = deployment_limits(dep, float((rep.prompt + rep.gen).mean())).max_num_seqs
    return {
        "source": r.source,
        "tool": r.tool,
        "model": dep.model.name,
        "hardware": dep.hardware.name,
        "engine": ec.engine,
        "engine_version": ec.version,
        "engine_version_asked": ec.version_unmodelled,
        "weight_dtype": dep.weight_dtype,
        "kv_dtype": dep.kv_dtype,
        "tp": dep.tp,
        "pp": dep.pp,
        "dp": dep.dp,
        "max_num_seqs": max_seqs,
        "max_batched_tokens": ec.max_batched_tokens,
        "requests": int(s.sim.n_requests),
        "rate_per_s": r.rate_per_s,
        "max_concurrency": r.max_concurrency,
        "arrivals": rep.arrivals,
        "lengths": rep.lengths,
        "calibrated": calibrated,
        "notes": "; ".join(s.notes),
    }


def explain_figures(scores: list[RunScore]) -> list:
    """Each error's arithmetic, and how each run was replayed."""
    from calc.output.derivation import Figure, figure

    out = []
    for s in scores:
        tag = s.run.source.rsplit("/", 1)[-1]
        rep = s.replay
        out.append(Figure(f"{tag}: requests replayed", int(rep.prompt.size), "requests",
                          rep.arrivals))  # fmt: skip
        # the replay's lengths (recorded, stated or drawn: rep.lengths says which) in the key,
        # the mean's arithmetic as its formula
        out.append(figure(f"{tag}: mean prompt ({rep.lengths})", float(rep.prompt.mean()),
                          "tokens", "{prompt_tokens} / {requests}",
                          prompt_tokens=int(rep.prompt.sum()),
                          requests=int(rep.prompt.size)))  # fmt: skip
        for row in s.rows:
            if row["error"] is None:
                continue
            name = f"{tag}: {row['metric']}{'_' + row['stat'] if row['stat'] else ''} error"
            # the deployment's rows (calc.reports.score_pool): kvcalc's against the recorded
            pred, meas = ("predicted", "measured") if row["unit"] in ("s", "1/s") \
                else ("kvcalc", "recorded")  # fmt: skip
            out.append(figure(name, row["error"], "", f"({{{pred}}} − {{{meas}}}) / {{{meas}}}",
                              **{pred: row["predicted"], meas: row["measured"]}))  # fmt: skip
    return out
