"""Reads the JSON that ``vllm bench serve --save-result`` writes (and ``benchmarks/
benchmark_serving.py`` before it) into a ``BenchRun`` [s, tokens].

Reference: the writer, ``vllm/benchmarks/serve.py`` of vllm 0.33.0 (PyPI wheel): ``main``
puts the settings (``model_id``, ``num_prompts``, ``request_rate``: a number or ``"inf"``,
``burstiness``, ``max_concurrency``, any ``--metadata KEY=VALUE``) before ``benchmark``'s
result: ``duration`` [s], ``completed``, ``failed``, token totals, throughputs, and for each
metric of ``--percentile-metrics`` (ttft, tpot, itl; e2el) ``mean_*_ms``, ``median_*_ms``,
``std_*_ms`` and ``p{N}_*_ms`` for each of ``--metric-percentiles``. With ``--save-detailed``
the per-request lists stay: ``input_lens``, ``output_lens``, ``ttfts`` [s], ``itls`` [s each],
``start_times`` [s], ``latencies`` [s], ``errors`` (empty for a success); without it they are
removed. ``--append-result`` appends one object per run to the file. Older files (vllm 0.8's
``benchmark_serving.py``) have the same keys, fewer of them (no ``start_times``,
``latencies``, ``failed``); the first ones (vLLM 0.3–0.4, spring 2024) name the request
throughput ``request_inthroughput``. With ``--ramp-up-strategy`` (linear or exponential, from
``ramp_up_start_rps`` to ``ramp_up_end_rps``) the rate rises over the run and ``request_rate``
is not used. ``vllm bench sweep serve`` writes each run as such a result (``run=N.json``, with
``run_number`` and the swept server arguments, e.g. ``max_num_seqs``, merged in) and a
``summary.json`` that lists them. A pooling run (an embedding or scoring model, vllm 0.33's
``BenchmarkMetrics`` for pooling: ``total_input_sequences``, ``input_sequence_throughput``, E2EL
only, no output tokens) is refused: nothing is generated to replay. vllm 0.33 keeps
``latencies`` and ``queue_times`` (the client's wait for a ``--max-concurrency`` slot) in a file
without ``--save-detailed``, and adds ``client_queue_time`` and
``e2el_including_client_queue`` statistics (``*_ms``); neither is compared (its TTFT and E2EL
start at the send, after that wait).

The vLLM definitions: TTFT = first token − request sent; TPOT = (latency − TTFT) /
(output tokens − 1) per request of more than one token; ITL = every gap between streamed
chunks, pooled; E2EL = latency; throughputs = totals / duration. The per-request ``itls`` lists
are not read: the pooled ITL figures the file states are compared, and a detailed file of many
requests holds millions of gaps.
"""

from __future__ import annotations

import math
import re

from calc.data.bench_results import consistency, stream_chunks
from calc.data.bench_results.run import (
    MAX_REQUESTS,
    MAX_TOKENS,
    BenchRun,
    ClientDraw,
    Reader,
    ms,
    read_rates,
)

# vllm-project/vllm PR #21108 (merged 2025-07-17, first in 0.10.0): the client precomputes its
# gaps and rescales them to the stated rate; before it, benchmark_serving.py (and vllm 0.8.3's
# vllm/benchmarks/serve.py get_request) slept np.random.gamma(burstiness, 1 / (rate ×
# burstiness)) after each send, unscaled, from numpy's global generator seeded with --seed
# (default 0; random.seed and np.random.seed in main)
RESCALED_FROM = "20250717"
SEED = 0

TOOL = "vllm bench serve"
# "latency": E2E as the benchmark_serving.py copy of LambdaLabsML/vllm-benchmark (its vLLM 0.5.4
# and 0.6.0 runs, August-September 2024) names it
_METRIC = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2e", "latency": "e2e"}
_PCT = re.compile(r"^p(\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el|latency)_ms$")
# settings the tool or a user's --metadata may record, as kvcalc's deployment options
_DEPLOYMENT_KEYS = {
    "tensor_parallel_size": "tp", "tp": "tp", "pipeline_parallel_size": "pp", "pp": "pp",
    "gpu": "gpu", "gpu_type": "gpu", "hardware": "gpu", "dtype": "dtype",
    "kv_cache_dtype": "kv_dtype", "quantization": "quantization", "engine_version": "version",
    "vllm_version": "version", "max_num_seqs": "max_num_seqs",
    "max_num_batched_tokens": "max_batched_tokens", "date": "date",
}  # fmt: skip


def looks_like(obj) -> bool:
    """A vLLM result object: its settings and at least one of its metrics."""
    return (
        isinstance(obj, dict)
        and ("model_id" in obj or "num_prompts" in obj)
        and "completed" in obj
        and any(
            k in obj
            for k in ("mean_ttft_ms", "median_ttft_ms", "mean_e2el_ms", "request_throughput")
        )
    )


def _ramp(r: Reader, obj: dict, rate):
    """(the rate to replay at [1/s], a note) for a ramp-up run: its time-averaged rate, the
    mean of a linear ramp from a to b, (b − a) / ln(b / a) for an exponential one."""
    kind = obj.get("ramp_up_strategy")
    if kind is None:
        return rate, None
    a = r.num(obj, "ramp_up_start_rps", hi=1e9, required=True)
    b = r.num(obj, "ramp_up_end_rps", hi=1e9, required=True)
    if kind == "linear" or a == b or a <= 0:
        mean = (a + b) / 2
    elif kind == "exponential":
        mean = (b - a) / math.log(b / a)
    else:
        raise r.fail("ramp_up_strategy", f"{str(kind)[:40]!r}: expected linear or exponential")
    note = (f"a {kind} ramp from {a:g} to {b:g} requests/s: without send times, replayed as "
            f"Poisson at its mean rate, {mean:.4g}/s")  # fmt: skip
    return mean, note


def _measured(r: Reader, obj: dict) -> dict:
    """The figures the file states [s, 1/s]: mean, median and p50/p90/p99 of each metric, the
    throughputs."""
    measured: dict = {}
    for key, value in obj.items():
        if not isinstance(key, str) or not key.endswith("_ms"):
            continue
        m = _PCT.match(key)
        if m:
            q, metric = float(m.group(1)), _METRIC[m.group(2)]
            if q in (50.0, 90.0, 99.0):
                measured[f"{metric}_p{int(q)}_s"] = ms(r.value(value, key))
            continue
        for stat, name in (("mean", "avg"), ("median", "p50")):
            for src, metric in _METRIC.items():
                if key == f"{stat}_{src}_ms":
                    measured[f"{metric}_{name}_s"] = ms(r.value(value, key))
    measured.update(read_rates(r, obj))
    if "requests_per_s" not in measured:  # vLLM 0.3-0.4's misspelt key
        measured.update(read_rates(r, obj, (("request_inthroughput", "requests_per_s"),)))
    return measured


def _per_request(r: Reader, obj: dict, completed: int, failed: int, duration, tin,
                 tout) -> tuple[dict, list]:  # fmt: skip
    """The per-request lists a detailed file keeps, the failed and empty requests left out
    (their names: prompt, output, ttfts, starts, latencies), and the notes; the file's
    figures checked against each other first (``consistency``)."""
    n = len(obj["input_lens"]) if isinstance(obj.get("input_lens"), list) else None
    each = {
        "prompt": r.nums(obj, "input_lens", hi=MAX_TOKENS, whole=True),
        "output": r.nums(obj, "output_lens", hi=MAX_TOKENS, whole=True, n=n),
        "ttfts": r.nums(obj, "ttfts", hi=1e9, n=n),
        "starts": r.nums(obj, "start_times", hi=1e12, n=n),
        "latencies": r.nums(obj, "latencies", hi=1e9, n=n),
    }
    if obj.get("itls") is not None and not isinstance(obj["itls"], list):
        raise r.fail("itls", "expected one list of gaps per request")
    rates = {k: r.num(obj, k, hi=1e12)
             for k in ("request_throughput", "output_throughput", "input_throughput",
                       "total_token_throughput")}  # fmt: skip
    consistency.serving(r.where, obj, completed=completed, failed=failed, duration=duration,
                        tin=tin, tout=tout, prompt=each["prompt"], output=each["output"],
                        ttfts=each["ttfts"], rates=rates)  # fmt: skip
    consistency.writer_percentiles(r.where, obj)
    errors, output = obj.get("errors"), each["output"]
    ok = None
    notes = []
    if isinstance(errors, list) and n is not None and len(errors) == n:
        ok = [not e for e in errors]
        empty = sum(1 for good, o in zip(ok, output or (), strict=False) if good and o == 0)
        if empty:  # a success whose text was empty (vLLM 0.5): it ended at its first token
            each["output"] = tuple(max(o, 1) for o in output)
            notes.append(f"{empty} successful requests returned no text (an end at the first "
                         "token): replayed as one-token requests")  # fmt: skip
    elif output is not None:
        ok = [o > 0 for o in output]
    if ok is not None and not all(ok):
        keep = [i for i, good in enumerate(ok) if good]
        each = {k: None if x is None else tuple(x[i] for i in keep) for k, x in each.items()}
        notes.append(f"{len(ok) - len(keep)} failed requests left out of the replay")
    if each["starts"]:
        t0 = min(each["starts"])
        each["starts"] = tuple(s - t0 for s in each["starts"])
    return each, notes


def client_draw(obj: dict, rate, burstiness, starts) -> ClientDraw | None:
    """The client's own send gaps (``ClientDraw``) of a run at a rate whose file is dated
    before the rescaling (``RESCALED_FROM``) and records no send times: the gamma draws of
    numpy's legacy generator seeded with the default seed, sent unscaled. Its ShareGPT sampling
    shuffles with Python's own generator, so numpy's draws start with the gaps (a random
    dataset draws its lengths first: such a run is replayed as sent only where its lengths
    were drawn by the same stream, which the file cannot say: said in the replay)."""
    date = obj.get("date")
    if starts is not None or rate is None or not isinstance(date, str) or len(date) < 8:
        return None
    if not date[:8].isdigit() or date[:8] >= RESCALED_FROM:
        return None
    return ClientDraw(SEED, burstiness or 1.0, why=(
        f"benchmark_serving.py's own gaps (dated {date[:8]}, before vLLM's rescaled gaps of "
        "2025-07-17: seed 0, its default, unscaled)"))  # fmt: skip


def read(obj: dict, where: str) -> BenchRun:
    r = Reader(where)
    if "total_output_tokens" not in obj and "input_sequence_throughput" in obj:
        raise r.fail("total_output_tokens", "missing: a pooling run (an embedding or scoring "
                     "model: input_sequence_throughput, no generated tokens); kvcalc score "
                     "replays text generation")  # fmt: skip
    completed = r.num(obj, "completed", hi=MAX_REQUESTS, whole=True, required=True)
    failed = r.num(obj, "failed", hi=MAX_REQUESTS, whole=True) or 0
    rate = r.num(obj, "request_rate", hi=1e9, inf_ok=True)
    burstiness = r.num(obj, "burstiness", lo=1e-6, hi=1e6)
    measured = _measured(r, obj)
    duration = r.num(obj, "duration", hi=1e9)
    tin = r.num(obj, "total_input_tokens", hi=MAX_TOKENS * 1e3, whole=True)
    tout = r.num(obj, "total_output_tokens", hi=MAX_TOKENS * 1e3, whole=True)
    if "input_tokens_per_s" not in measured and tin is not None and duration:
        measured["input_tokens_per_s"] = tin / duration  # the writer's own: totals / duration
    each, notes = _per_request(r, obj, completed, failed, duration, tin, tout)
    chunked = stream_chunks.chunk_note(obj, completed, each["output"])
    if chunked:
        notes.append(chunked)
    rate, ramp_note = _ramp(r, obj, rate)
    if ramp_note and each["starts"] is None:
        notes.insert(0, ramp_note)
    deployment = {}
    for key, name in _DEPLOYMENT_KEYS.items():
        if key in obj and obj[key] is not None:
            deployment[name] = r.text(obj, key)
    return BenchRun(
        source=where,
        tool=TOOL,
        tool_version=r.text(obj, "vllm_version"),
        model=r.text(obj, "model_id") or r.text(obj, "tokenizer_id"),
        backend=r.text(obj, "backend") or r.text(obj, "endpoint_type"),
        rate_per_s=None if rate is None or math.isinf(rate) else rate,
        arrival="poisson" if burstiness in (None, 1.0) else "gamma",
        burstiness=burstiness,
        max_concurrency=r.num(obj, "max_concurrency", lo=1, hi=MAX_REQUESTS, whole=True),
        completed=completed,
        failed=failed,
        duration_s=duration,
        total_input_tokens=tin,
        total_output_tokens=tout,
        prompt_tokens=each["prompt"],
        output_tokens=each["output"],
        start_s=each["starts"],
        ttft_each_s=each["ttfts"],
        e2e_each_s=each["latencies"],
        measured=measured,
        deployment=deployment,
        notes=tuple(notes),
        client_draw=client_draw(obj, None if rate is None or math.isinf(rate) else rate,
                                burstiness, each["starts"]),
    )
