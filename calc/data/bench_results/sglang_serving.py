"""Reads the JSON Lines that SGLang's ``python -m sglang.bench_serving`` appends to its
``--output-file`` (one object per run) into ``BenchRun``s [s, tokens].

Reference: the writer, ``sglang/benchmark/serving.py`` of sglang 0.5.23 (PyPI wheel,
``benchmark``: the ``result`` dict, then ``file.write(json.dumps(result_for_dump) + "\\n")``):
the settings (``backend``, ``dataset_name``, ``request_rate``: a number, Infinity or
``"trace"``, ``max_concurrency``, ``random_input_len``, ``random_output_len``,
``random_range_ratio``), ``server_info`` (the server's ``/server_info``: its arguments such as
``tp_size``, ``chunked_prefill_size``, ``max_running_requests``), ``duration`` [s],
``completed``, totals, throughputs, ``mean_/median_/std_/p90_/p95_/p99_`` of ``ttft``,
``tpot``, ``itl`` and ``e2e_latency`` in ms, goodput (``goodput_slos_ms``,
``request_goodput``) when asked, and with ``--output-details`` the per-request ``input_lens``,
``output_lens``, ``ttfts``, ``itls``. Older files (2024) hold fewer keys (no ``server_info``,
no means of TTFT). The first ones (sglang 0.2, summer 2024: ``sglang/bench_serving.py`` of
sglang 0.2.7) write a short record without the request count: ``total_input``,
``total_output``, ``mean_e2e_latency``, ``median_e2e_latency``, ``median_ttft``,
``median_itl`` [ms], ``output_token_throughput``, ``benchmark_duration`` [s]; for a random
dataset the count is estimated from the totals over the stated lengths' means (said in a note),
otherwise such a record cannot be replayed (one error line). The metrics are defined as vLLM's
benchmark defines them.

The ``random`` datasets draw each length uniformly from max(⌊L × ratio⌋, 1) … L
(``sglang/benchmark/datasets/common.py``, ``compute_random_lens``).
"""

from __future__ import annotations

import math

from calc.data.bench_results import consistency
from calc.data.bench_results.run import (
    MAX_REQUESTS,
    MAX_TOKENS,
    BenchRun,
    ClientDraw,
    Lengths,
    Reader,
    ms,
    read_rates,
)

# bench_serving's --seed default (sglang 0.4.0 bench_serving.py: default=1; run_benchmark calls
# random.seed and np.random.seed with it)
SEED = 1

TOOL = "sglang bench_serving"
_METRIC = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2e_latency": "e2e"}
_STAT = {"mean": "avg", "median": "p50", "p90": "p90", "p99": "p99"}
_SERVER = {
    "tp_size": "tp", "pp_size": "pp", "dp_size": "dp", "ep_size": "ep", "dtype": "dtype",
    "kv_cache_dtype": "kv_dtype", "quantization": "quantization",
    "mem_fraction_static": "mem_util", "chunked_prefill_size": "max_batched_tokens",
    "max_running_requests": "max_num_seqs", "page_size": "block_size", "version": "version",
    "model_path": "model",
}  # fmt: skip


# sglang 0.2's short record -> the later keys (values in the same units)
_LEGACY = {
    "total_input": "total_input_tokens", "total_output": "total_output_tokens",
    "mean_e2e_latency": "mean_e2e_latency_ms", "median_e2e_latency": "median_e2e_latency_ms",
    "median_ttft": "median_ttft_ms", "median_itl": "median_itl_ms",
    "output_token_throughput": "output_throughput", "benchmark_duration": "duration",
}  # fmt: skip


def looks_like(obj) -> bool:
    return (
        isinstance(obj, dict)
        and "backend" in obj
        and ("dataset_name" in obj or "random_input_len" in obj)
        and ("completed" in obj or "benchmark_duration" in obj)
    )


def _legacy(r: Reader, obj: dict) -> tuple[dict, str | None]:
    """sglang 0.2's record in the later keys, its request count estimated (a note) from the
    totals over the random dataset's mean lengths, (L·ratio + L) / 2 each."""
    obj = {**obj, **{new: obj[old] for old, new in _LEGACY.items() if old in obj}}
    prompt_len, output_len = _random_lengths(r, obj)
    estimates = []
    for total_key, lengths in (("total_input_tokens", prompt_len),
                               ("total_output_tokens", output_len)):  # fmt: skip
        total = r.num(obj, total_key, hi=MAX_TOKENS * 1e3, whole=True)
        if total is not None and lengths is not None:
            estimates.append(total / ((lengths.a + lengths.b) / 2))
    if not estimates:
        raise r.fail(
            "completed",
            "missing: sglang bench_serving before 0.3 records no request count, and a "
            f"{str(obj.get('dataset_name', '?'))[:40]} run states no lengths to estimate it "
            "from; kvcalc cannot rebuild its requests (sglang >= 0.3 writes completed)",
        )
    n = max(round(sum(estimates) / len(estimates)), 1)
    obj["completed"] = n
    note = (f"sglang 0.2's record has no request count: {n} estimated from the token totals "
            "over the random dataset's mean lengths")  # fmt: skip
    return obj, note


def _random_lengths(r: Reader, obj: dict) -> tuple[Lengths | None, Lengths | None]:
    """(prompt, output) lengths of the random dataset: uniform from ratio × len to len."""
    prompt_len = output_len = None
    if str(obj.get("dataset_name", "")).startswith("random"):
        ratio = r.num(obj, "random_range_ratio", hi=1.0) or 0.0
        for key, which in (("random_input_len", "in"), ("random_output_len", "out")):
            full = r.num(obj, key, lo=1, hi=MAX_TOKENS, whole=True)
            if full is not None:
                lengths = Lengths("uniform", max(int(full * ratio), 1), full)
                if which == "in":
                    prompt_len = lengths
                else:
                    output_len = lengths
    return prompt_len, output_len


def client_draw(obj: dict, n: int | None, tin, tout, rate) -> ClientDraw | None:
    """The client's own draw of a random-dataset run that records no per-request lengths,
    where it reproduces the file's totals exactly (``ClientDraw``). sglang 0.4.0
    ``bench_serving.py``: ``np.random.seed(args.seed)`` (default 1), then
    ``sample_random_requests`` draws ``input_lens = np.random.randint(max(int(L × ratio), 1),
    L + 1, size=n)`` and ``output_lens = np.random.randint(int(L × ratio), L + 1, size=n)``
    (ShareGPT text cut to them, shuffled by Python's own generator), and ``get_request`` sleeps
    ``np.random.exponential(1 / rate)`` after each send. Used only where both drawn sums equal
    the file's total input and output tokens (a release that draws otherwise, another seed, a
    failed request: no match, no draw); the published SGLang 0.4 runs of
    datacrunch-research/h200-benchmarks match at every rate (seed 1)."""
    import numpy as np

    if obj.get("dataset_name") != "random" or n is None or not 0 < n <= MAX_REQUESTS:
        return None
    if tin is None or tout is None or rate is None or obj.get("burstiness") not in (None, 1, 1.0):
        return None
    ratio = obj.get("random_range_ratio") or 0.0
    lin, lout = obj.get("random_input_len"), obj.get("random_output_len")
    if not all(isinstance(x, int) and x > 0 for x in (lin, lout)):
        return None
    pb = (max(int(lin * ratio), 1), lin)
    ob = (int(lout * ratio), lout)
    rs = np.random.RandomState(SEED)
    p = rs.randint(pb[0], pb[1] + 1, size=n)
    o = rs.randint(ob[0], ob[1] + 1, size=n)
    if int(p.sum()) != tin or int(o.sum()) != tout:
        return None
    return ClientDraw(SEED, 1.0, pb, ob, "sglang bench_serving's own draw (seed 1, its "
                      "default), its lengths' sums equal to the file's totals")  # fmt: skip


def _slos(r: Reader, obj: dict) -> dict:
    """The goodput SLOs the run stated [s]."""
    slo = {}
    slos = r.obj(obj, "goodput_slos_ms")
    if slos:
        for key, name in (("ttft", "ttft"), ("tpot", "tpot"), ("e2el", "e2e")):
            v = r.num(slos, key, hi=1e12)
            if v is not None:
                slo[name] = ms(v)
    return slo


def _server(r: Reader, obj: dict) -> dict:
    """The deployment the server reported (server_info), by kvcalc's option names."""
    deployment = {}
    server = r.obj(obj, "server_info")
    if server:
        for key, name in _SERVER.items():
            if server.get(key) is not None:
                deployment[name] = r.text(server, key)
    return deployment


def _server_limits(r: Reader, obj: dict) -> dict:
    """What the server ran with (BenchRun.server_limits): ``server_info``'s
    ``max_total_num_tokens`` (the scheduler's KV pool of one GPU, the figure its start-up log
    prints) and ``chunked_prefill_size``, and the running-request cap the scheduler derived,
    ``internal_states[0].effective_max_running_requests_per_dp`` (sglang 0.5.x
    ``Scheduler.get_internal_state``; per data-parallel rank), else the ``max_running_requests``
    it was given."""
    server = r.obj(obj, "server_info") or {}
    states = server.get("internal_states")
    state = states[0] if isinstance(states, list) and states and isinstance(states[0], dict) \
        else {}  # fmt: skip
    where = {"kv_cache_tokens": (server, "max_total_num_tokens"),
             "max_num_seqs": (state, "effective_max_running_requests_per_dp"),
             "max_batched_tokens": (server, "chunked_prefill_size")}  # fmt: skip
    if state.get("effective_max_running_requests_per_dp") is None:
        where["max_num_seqs"] = (server, "max_running_requests")
    out = {}
    for name, (d, key) in where.items():
        v = d.get(key)
        if isinstance(v, int | float) and not isinstance(v, bool) and v <= 0:
            continue  # chunked_prefill_size -1: chunking off
        v = r.num(d, key, lo=1, hi=MAX_TOKENS, whole=True)
        if v is not None:
            out[name] = v
    return out


def read(obj: dict, where: str) -> BenchRun:
    r = Reader(where)
    legacy_note = None
    if "completed" not in obj:
        obj, legacy_note = _legacy(r, obj)
    measured: dict = {}
    for src, metric in _METRIC.items():
        for stat, name in _STAT.items():
            v = r.num(obj, f"{stat}_{src}_ms", hi=1e12)
            if v is not None:
                measured[f"{metric}_{name}_s"] = ms(v)
    measured.update(read_rates(r, obj))
    completed = r.num(obj, "completed", hi=MAX_REQUESTS, whole=True, required=True)
    duration = r.num(obj, "duration", hi=1e9)
    tin = r.num(obj, "total_input_tokens", hi=MAX_TOKENS * 1e3, whole=True)
    tout = r.num(obj, "total_output_tokens", hi=MAX_TOKENS * 1e3, whole=True)
    if "requests_per_s" not in measured and duration:
        measured["requests_per_s"] = completed / duration  # the writer's own definition
    if "input_tokens_per_s" not in measured and duration and tin is not None:
        measured["input_tokens_per_s"] = tin / duration
    rate = obj.get("request_rate")
    notes = [legacy_note] if legacy_note else []
    if rate == "trace":
        rate = None
        notes.append("arrivals followed a trace the file does not hold: replayed all at once")
    else:
        rate = r.num(obj, "request_rate", hi=1e9, inf_ok=True)
        rate = None if rate is None or math.isinf(rate) else rate
    prompt_len, output_len = _random_lengths(r, obj)
    n = len(obj["input_lens"]) if isinstance(obj.get("input_lens"), list) else None
    prompt = r.nums(obj, "input_lens", hi=MAX_TOKENS, whole=True)
    output = r.nums(obj, "output_lens", hi=MAX_TOKENS, whole=True, n=n)
    ttfts = r.nums(obj, "ttfts", hi=1e9, n=n)
    rates = {k: r.num(obj, k, hi=1e12)
             for k in ("request_throughput", "output_throughput", "input_throughput")}
    consistency.serving(where, obj, completed=completed, failed=None, duration=duration,
                        tin=tin, tout=tout, prompt=prompt, output=output, ttfts=ttfts,
                        rates=rates)  # fmt: skip
    consistency.writer_percentiles(where, obj)
    if output is not None and not all(output):
        keep = [i for i, o in enumerate(output) if o > 0]
        dropped = len(output) - len(keep)
        prompt, output, ttfts = (None if x is None else tuple(x[i] for i in keep)
                                 for x in (prompt, output, ttfts))  # fmt: skip
        notes.append(f"{dropped} failed requests (no output) left out of the replay")
    slo, deployment = _slos(r, obj), _server(r, obj)
    draw = None if prompt is not None else client_draw(obj, completed, tin, tout, rate)
    return BenchRun(
        source=where,
        tool=TOOL,
        tool_version=deployment.get("version"),
        model=deployment.pop("model", None) or r.text(obj, "model_id") or r.text(obj, "model"),
        backend=r.text(obj, "backend"),
        rate_per_s=rate,
        max_concurrency=r.num(obj, "max_concurrency", lo=1, hi=MAX_REQUESTS, whole=True),
        completed=completed,
        duration_s=duration,
        total_input_tokens=tin,
        total_output_tokens=tout,
        prompt_tokens=prompt,
        output_tokens=output,
        ttft_each_s=ttfts,
        prompt_lengths=prompt_len,
        output_lengths=output_len,
        measured=measured,
        slo_s=slo,
        deployment=deployment,
        server_limits=_server_limits(r, obj),
        notes=tuple(notes),
        client_draw=draw,
    )
