"""Reads GuideLLM's ``benchmarks.json`` (``guidellm benchmark run --outputs json``) into one
``BenchRun`` per benchmark (one per rate or concurrency of a sweep) [s, tokens].

Reference: the writer's schema, guidellm 0.8.1 (PyPI wheel): ``GenerativeBenchmarksReport``
(``guidellm/benchmark/schemas/report.py``: ``metadata``, ``args``, ``benchmarks``), each
``GenerativeBenchmark`` (``schemas/benchmark.py``) with ``config.strategy`` (``type_``
synchronous, concurrent with ``streams``, throughput, constant or poisson with ``rate``,
``max_concurrency``), ``config.backend.model``, ``metrics`` (``GenerativeMetrics``,
``schemas/metrics.py``: per metric a ``StatusDistributionSummary`` whose ``successful`` part has
``mean``, ``median``, ``percentiles.p90``/``p99`` …) and ``requests.successful`` (per request
``request_start_time`` [s since the epoch], ``prompt_tokens``, ``output_tokens``,
``time_to_first_token_ms``, ``request_latency`` [s], ``inter_token_latency_ms``). The metrics
are over the measurement window (GuideLLM's warm-up and cool-down excluded), the request list
over the whole run. Older files (0.2–0.3: ``guidellm/benchmark/benchmark.py`` of guidellm
0.2.1) keep the strategy under ``args.strategy``, the model under ``worker.backend_model``, the
request counts beside the metrics (``request_totals``) and each request's ``start_time`` [s since
the epoch]; 0.8 adds goodput: ``config.slo`` (``ttft_ms``, ``tpot_ms``, ``e2el_ms``) and
``metrics.request_goodput``. A run saved with ``--sample-requests N`` keeps N requests of each
status, not all: its per-request lists are then not replayed (the strategy and the length
distributions of the metrics are). ``benchmarks.yaml`` is the same document as YAML. GuideLLM
0.1's report (a different layout) is not read (``other_files``).

GuideLLM's names differ from vLLM's: its ``inter_token_latency_ms`` is per request (latency −
TTFT) / (output tokens − 1), vLLM's TPOT; its ``time_per_output_token_ms`` is latency / output
tokens (TTFT included) and is not read.
"""

from __future__ import annotations

from calc.data.bench_results import consistency
from calc.data.bench_results.run import (
    MAX_REQUESTS,
    MAX_TOKENS,
    BenchRun,
    Lengths,
    Reader,
    ms,
)

TOOL = "guidellm"
_METRICS = {
    "time_to_first_token_ms": ("ttft", True),
    "inter_token_latency_ms": ("tpot", True),
    "request_latency": ("e2e", False),
}
_RATES = {
    "requests_per_second": "requests_per_s",
    "output_tokens_per_second": "output_tokens_per_s",
    "prompt_tokens_per_second": "input_tokens_per_s",
}


def looks_like(obj) -> bool:
    b = obj.get("benchmarks") if isinstance(obj, dict) else None
    return isinstance(b, list) and (
        "metadata" in obj
        or "args" in obj
        or any(isinstance(x, dict) and x.get("type_") == "generative_benchmark" for x in b)
    )


def read(obj: dict, where: str) -> list[BenchRun]:
    r = Reader(where)
    meta = r.obj(obj, "metadata") or {}
    args = r.obj(obj, "args") or {}
    runs = []
    for i, bench in enumerate(obj["benchmarks"]):
        if not isinstance(bench, dict):
            raise r.fail(f"benchmarks[{i}]", "expected an object")
        runs.append(_bench(bench, f"{where}#{i + 1}", meta, args))
    if not runs:
        raise r.fail("benchmarks", "no benchmark in the file")
    return runs


def _bench(bench: dict, where: str, meta: dict, args: dict) -> BenchRun:
    r = Reader(where)
    config = r.obj(bench, "config") or {}
    kind, rate, conc = _strategy(r, bench, config)
    metrics = r.obj(bench, "metrics", required=True)
    measured = _measured(r, metrics)
    done, (starts, prompt, output, ttft, e2e) = _requests(r, bench, where)
    totals = r.obj(metrics, "request_totals") or r.obj(bench, "request_totals") or {}
    completed = r.num(totals, "successful", hi=MAX_REQUESTS, whole=True)
    if completed is None:
        completed = len(done)
    # not checked against len(requests.successful): the totals count the measurement window,
    # the list the whole run (GuideLLM 0.5's real file: 19 beside 23 requests)
    _check(where, metrics)
    notes = []
    per_request = bool(starts)
    if per_request and len(starts) < completed:
        notes.append(
            f"the file keeps a sample of {len(starts)} of the {completed} successful requests "
            "(--sample-requests): replayed from the strategy and the lengths' distributions"
        )
        per_request = False
    elif per_request:
        notes.append(
            "the metrics are GuideLLM's measurement window (warm-up and cool-down left out); "
            "every successful request of the run is replayed"
        )
    if kind == "trace":
        notes.append(
            "arrivals followed a trace: replayed at the recorded send times"
            if per_request
            else "arrivals followed a trace the file does not list: replayed all at once"
        )
    backend = r.obj(config, "backend") or {}
    worker = r.obj(bench, "worker") or {}
    lengths = {} if per_request else _lengths(r, metrics)
    return BenchRun(
        source=where,
        tool=TOOL,
        tool_version=r.text(meta, "guidellm_version"),
        model=r.text(backend, "model") or r.text(worker, "backend_model") or r.text(args, "model"),
        backend=r.text(args, "backend") or r.text(worker, "backend_type"),
        rate_per_s=rate,
        burstiness=1.0 if kind in ("poisson", "async_poisson") else None,
        max_concurrency=conc,
        completed=completed,
        duration_s=_duration(r, bench),
        total_input_tokens=sum(prompt) if per_request else None,
        total_output_tokens=sum(output) if per_request else None,
        prompt_tokens=tuple(prompt) if per_request else None,
        output_tokens=tuple(output) if per_request else None,
        start_s=tuple(starts) if per_request else None,
        ttft_each_s=tuple(ttft) if per_request and None not in ttft else None,
        e2e_each_s=tuple(e2e) if per_request and None not in e2e else None,
        prompt_lengths=lengths.get("prompt"),
        output_lengths=lengths.get("output"),
        measured=measured,
        slo_s=_slo(r, config),
        notes=tuple(notes),
        arrival="constant" if kind in ("constant", "async_constant") else "poisson",
    )


def _duration(r: Reader, bench: dict) -> float | None:
    """The benchmark's measured duration [s]: its own ``duration``, else the scheduler's
    measurement window."""
    d = r.num(bench, "duration", hi=1e9)
    if d is not None:
        return d
    sched = r.obj(bench, "scheduler_metrics") or {}
    t0 = r.num(sched, "measure_start_time", hi=1e13)
    t1 = r.num(sched, "measure_end_time", hi=1e13)
    return t1 - t0 if t0 is not None and t1 is not None and t1 > t0 else None


def _lengths(r: Reader, metrics: dict) -> dict:
    """Prompt and output lengths as the metrics state them: normal (mean, sd) [tokens]."""
    out = {}
    for key, which in (("prompt_token_count", "prompt"), ("output_token_count", "output")):
        s = _successful(r, metrics, key)
        mean = r.num(s, "mean", hi=MAX_TOKENS) if s is not None else None
        if mean:
            sd = r.num(s, "std_dev", hi=MAX_TOKENS) or 0.0
            # integer lengths: a spread under half a token is a fixed length (0.2 writes
            # 2.3e-13 for 513 every time)
            out[which] = Lengths("normal", mean, sd) if sd >= 0.5 else Lengths("fixed", mean)
    return out


def _slo(r: Reader, config: dict) -> dict:
    """The goodput objectives the run set (GuideLLM 0.8 ``config.slo``) [s]."""
    slo = r.obj(config, "slo") or {}
    out = {}
    for key, name in (("ttft_ms", "ttft"), ("tpot_ms", "tpot"), ("e2el_ms", "e2e")):
        v = r.num(slo, key, hi=1e12)
        if v is not None:
            out[name] = ms(v)
    return out


def _strategy(r: Reader, bench: dict, config: dict) -> tuple[str, float | None, int | None]:
    """(the load strategy's kind, its rate [requests/s], its concurrency)."""
    strategy = r.obj(config, "strategy") or r.obj(r.obj(bench, "args") or {}, "strategy") or {}
    kind = r.text(strategy, "type_") or "?"
    rate = conc = None
    if kind == "synchronous":
        conc = 1
    elif kind == "concurrent":
        conc = r.num(strategy, "streams", lo=1, hi=MAX_REQUESTS, whole=True)
    elif kind in ("constant", "poisson", "async_constant", "async_poisson"):
        rate = r.num(strategy, "rate", hi=1e9)
    if conc is None and kind != "concurrent":
        conc = r.num(strategy, "max_concurrency", lo=1, hi=MAX_REQUESTS, whole=True)
    return kind, rate, conc


def _measured(r: Reader, metrics: dict) -> dict:
    """The run's latency statistics [s] and rates by the registered names."""
    measured: dict = {}
    for key, (metric, in_ms) in _METRICS.items():
        s = _successful(r, metrics, key)
        if s is None:
            continue
        conv = ms if in_ms else (lambda v: v)
        for stat, get in (("avg", "mean"), ("p50", "median")):
            v = r.num(s, get, hi=1e12)
            if v is not None:
                measured[f"{metric}_{stat}_s"] = conv(v)
        pct = r.obj(s, "percentiles") or {}
        for stat in ("p90", "p99"):
            v = r.num(pct, stat, hi=1e12)
            if v is not None:
                measured[f"{metric}_{stat}_s"] = conv(v)
    for key, name in (*_RATES.items(), ("request_goodput", "goodput_requests_per_s")):
        s = _successful(r, metrics, key)
        v = r.num(s, "mean", hi=1e12) if s is not None else None
        if v is not None:
            measured[name] = v
    return measured


def _requests(r: Reader, bench: dict, where: str) -> tuple[list, tuple[list, ...]]:
    """(the successful requests, (start times from the first [s], prompt tokens, output
    tokens, TTFTs [s], E2Es [s]) in start order; all empty when a request lacks one)."""
    requests = r.obj(bench, "requests") or {}
    done = requests.get("successful") or []
    if not isinstance(done, list):
        raise r.fail("requests.successful", "expected a list of requests")
    starts, prompt, output, ttft, e2e = [], [], [], [], []
    for j, q in enumerate(done):
        if not isinstance(q, dict):
            raise r.fail(f"requests.successful[{j}]", "expected an object")
        rq = Reader(f"{where}: requests.successful[{j}]")
        start = rq.num(q, "request_start_time", hi=1e13)
        if start is None:
            start = rq.num(q, "start_time", hi=1e13)
        p = rq.num(q, "prompt_tokens", hi=MAX_TOKENS, whole=True)
        o = rq.num(q, "output_tokens", hi=MAX_TOKENS, whole=True)
        if start is None or p is None or o is None or o < 1:
            starts = []
            break
        starts.append(start)
        prompt.append(p)
        output.append(o)
        ttft.append(ms(rq.num(q, "time_to_first_token_ms", hi=1e12)))
        e2e.append(rq.num(q, "request_latency", hi=1e9))
        consistency.ordered(rq.where, (("time_to_first_token_ms / 1000", ttft[-1]),
                                       ("request_latency", e2e[-1])),
                            "the first token comes within the request")  # fmt: skip
    if not starts:
        return done, ([], [], [], [], [])
    order = sorted(range(len(starts)), key=starts.__getitem__)
    t0 = starts[order[0]]
    columns = ([starts[k] - t0 for k in order], *([c[k] for k in order]
               for c in (prompt, output, ttft, e2e)))  # fmt: skip
    return done, columns  # type: ignore[return-value]


def _successful(r: Reader, metrics: dict, key: str):
    m = r.obj(metrics, key)
    return r.obj(m, "successful") if m is not None else None


def _check(where: str, metrics: dict) -> None:
    """Each metric's ``successful`` summary (``consistency``): min ≤ median, percentiles
    (p001 … p999, rising) ≤ max, min ≤ mean ≤ max (``DistributionSummary`` in the schema)."""
    for key, m in metrics.items():
        s = m.get("successful") if isinstance(m, dict) else None
        if isinstance(s, dict):
            pct = s.get("percentiles") if isinstance(s.get("percentiles"), dict) else {}
            consistency.stats_block(where, f"metrics.{key}.successful", s, pcts=pct,
                                    mean="mean", median="median")  # fmt: skip
