"""Reads NVIDIA AIPerf's ``profile_export_aiperf.json`` and GenAI-Perf's
``profile_export_genai_perf.json`` (its predecessor, the same layout) into a ``BenchRun``
[s, tokens].

References: the writers, ``aiperf/exporters/metrics_json_exporter.py`` of aiperf 0.13.0 and
``genai_perf/export_data/json_exporter.py`` of genai-perf 0.0.16 (PyPI wheels): one object
per metric, ``{"unit": "ms", "avg": …, "p50": …, "p90": …, "p99": …}`` (``time_to_first_token``,
``inter_token_latency``, ``request_latency``, ``inter_chunk_latency`` in AIPerf), throughputs
(``request_throughput``, ``output_token_throughput``: ``avg`` only), the length distributions
(``input_sequence_length``, ``output_sequence_length``), ``benchmark_duration`` [s] in AIPerf,
and ``input_config``: the command's settings (AIPerf 0.10: ``phases[]`` with ``type``
concurrency or request_rate; older AIPerf ``loadgen``; GenAI-Perf
``perf_analyzer.stimulus`` or its flat arguments).

AIPerf 0.1 (``aiperf/exporters/json_exporter.py`` of aiperf 0.1.1) nests the metrics under
``records`` (each a ``MetricResult`` with its ``tag``); 0.3 and later write them at the top.
GenAI-Perf 0.0.10–0.0.15 record the command's arguments flat in ``input_config`` (``model``: a
list of names, ``tokenizer``: a name or path, ``concurrency``, ``request_rate``) and, before
``request_count``, no request count: a concurrency run is then replayed as ten waves of its
client limit (a note says so).

Their names differ from vLLM's: ``inter_token_latency`` is per request (latency − TTFT) /
(output tokens − 1), vLLM's TPOT (``aiperf/metrics/types/inter_token_latency_metric.py``);
AIPerf's ``inter_chunk_latency`` is every gap between streamed chunks, pooled: vLLM's ITL.
"""

from __future__ import annotations

from calc.data.bench_results import consistency
from calc.data.bench_results.run import MAX_REQUESTS, MAX_TOKENS, BenchRun, Lengths, Reader

_LATENCY = {
    "time_to_first_token": "ttft",
    "inter_token_latency": "tpot",
    "inter_chunk_latency": "itl",
    "request_latency": "e2e",
}
_RATES = {
    "request_throughput": "requests_per_s",
    "output_token_throughput": "output_tokens_per_s",
    "goodput": "goodput_requests_per_s",
}
_UNIT_S = {"ms": 1e-3, "s": 1.0, "sec": 1.0, "us": 1e-6, "ns": 1e-9}
# keys only AIPerf writes (0.1: was_cancelled, error_summary; later: versions, the duration)
_AIPERF_KEYS = ("aiperf_version", "schema_version", "was_cancelled", "error_summary",
                "benchmark_duration")  # fmt: skip
# requests replayed per client slot when a concurrency run records no count: enough waves
# that the ramp-up and drain (about one wave each) are a small part of the run
_STEADY_WAVES = 10
_SLO_KEYS = {"time_to_first_token": "ttft", "inter_token_latency": "tpot",
             "request_latency": "e2e"}  # fmt: skip


def looks_like(obj) -> bool:
    if not isinstance(obj, dict):
        return False
    obj = _flat(obj)
    m = obj.get("time_to_first_token") or obj.get("request_latency")
    return isinstance(m, dict) and "unit" in m and ("avg" in m or "p50" in m)


def _flat(obj: dict) -> dict:
    """AIPerf 0.1's ``records`` lifted to the top, as later releases write them."""
    records = obj.get("records")
    if isinstance(records, dict) and not any(k in obj for k in _LATENCY):
        return {**{k: v for k, v in obj.items() if k != "records"}, **records}
    return obj


def read(obj: dict, where: str, printed: bool = False) -> BenchRun:
    """``printed``: a table or CSV (``genai_perf_text``), its figures rounded to 2 decimals:
    the throughputs are not checked against the totals over the duration there."""
    r = Reader(where)
    obj = _flat(obj)
    tool = "aiperf" if any(k in obj for k in _AIPERF_KEYS) else "genai-perf"
    measured: dict = {}
    for key, metric in _LATENCY.items():
        m = r.obj(obj, key)
        if m is None:
            continue
        scale = _unit(r, m, key)
        for stat in ("avg", "p50", "p90", "p99"):
            v = r.num(m, stat, hi=1e15)
            if v is not None:
                measured[f"{metric}_{stat}_s"] = v * scale
    for key, name in _RATES.items():
        m = r.obj(obj, key)
        v = r.num(m, "avg", hi=1e12) if m is not None else None
        if v is not None:
            measured[name] = v
    cfg = r.obj(obj, "input_config") or {}
    rate, conc = _load(r, cfg)
    count = r.obj(obj, "request_count")
    completed = r.num(count, "avg", hi=MAX_REQUESTS, whole=True) if count else None
    lengths = {}
    for key in ("input_sequence_length", "output_sequence_length"):
        m = r.obj(obj, key)
        if m is None:
            continue
        mean = r.num(m, "avg", hi=MAX_TOKENS)
        std = r.num(m, "std", hi=MAX_TOKENS) or 0.0
        if completed is None:
            completed = r.num(m, "count", hi=MAX_REQUESTS, whole=True)
        if mean:
            lengths[key] = Lengths("normal", mean, std) if std else Lengths("fixed", mean)
    duration = r.obj(obj, "benchmark_duration")
    duration_s = r.num(duration, "avg", hi=1e9) if duration else None
    if duration_s is not None:
        duration_s *= _unit(r, duration, "benchmark_duration") if "unit" in duration else 1.0
    total = {}
    for key in ("total_isl", "total_osl"):
        m = r.obj(obj, key)
        total[key] = r.num(m, "avg", hi=MAX_TOKENS * 1e3, whole=True) if m else None
    _check(where, obj, completed, duration_s, total, printed)
    model = _model(r, cfg)
    slo = _slo(r, cfg)
    gpu = _gpu_name(obj.get("telemetry_data"))
    notes = []
    if not completed and conc:
        # GenAI-Perf before request_count (0.0.10-0.0.11): perf_analyzer's stable windows hold
        # no count kvcalc reads; the steady state at the client limit is what the figures are
        completed = _STEADY_WAVES * conc
        notes.append(f"the file records no request count: {completed} requests replayed "
                     f"({_STEADY_WAVES} x the client's concurrency, {conc}), to its steady "
                     "state")  # fmt: skip
    return BenchRun(
        source=where,
        tool=tool,
        tool_version=r.text(obj, "aiperf_version"),
        model=model,
        rate_per_s=rate,
        max_concurrency=conc,
        completed=completed or 0,
        duration_s=duration_s,
        total_input_tokens=total.get("total_isl"),
        total_output_tokens=total.get("total_osl"),
        prompt_lengths=lengths.get("input_sequence_length"),
        output_lengths=lengths.get("output_sequence_length"),
        measured=measured,
        slo_s=slo,
        deployment={"gpu": gpu} if gpu else {},
        notes=tuple(notes),
    )


def _model(r: Reader, cfg: dict) -> str | None:
    """The model the command named: AIPerf's models.items, GenAI-Perf's model_names or model
    list, AIPerf's endpoint; else the tokenizer's name."""
    model = None
    models = r.obj(cfg, "models")
    if models and isinstance(models.get("items"), list) and models["items"]:
        model = r.text(models["items"][0], "name") if isinstance(models["items"][0], dict) else None
    for args in (cfg, cfg.get("endpoint")):  # GenAI-Perf's arguments; AIPerf's endpoint
        for key in ("model_names", "model", "formatted_model_name"):
            names = args.get(key) if isinstance(args, dict) else None
            if isinstance(names, str) and names:
                names = [names]
            if model is None and isinstance(names, list) and names:
                model = str(names[0])[:200]
    tok = cfg.get("tokenizer")  # AIPerf: {"name": ...}; GenAI-Perf 0.0.x: a name or a path
    tok = {"name": tok} if isinstance(tok, str) else r.obj(cfg, "tokenizer")
    return model or (r.text(tok, "name") if tok else None)


def _slo(r: Reader, cfg: dict) -> dict:
    """The goodput SLOs the command set [s] (its --goodput, in ms)."""
    slo = {}
    good = r.obj(cfg, "goodput")
    if good:
        for key, name in _SLO_KEYS.items():
            v = r.num(good, key, hi=1e12)
            if v is not None:
                slo[name] = v / 1000.0
    return slo


def _gpu_name(telemetry) -> str | None:
    """The first GPU name AIPerf's telemetry recorded (``endpoints.*.gpus.*.gpu_name``)."""
    endpoints = telemetry.get("endpoints") if isinstance(telemetry, dict) else None
    for ep in (endpoints or {}).values() if isinstance(endpoints, dict) else ():
        gpus = ep.get("gpus") if isinstance(ep, dict) else None
        for g in (gpus or {}).values() if isinstance(gpus, dict) else ():
            if isinstance(g, dict) and isinstance(g.get("gpu_name"), str):
                return g["gpu_name"][:200]
    return None


def _unit(r: Reader, m: dict, key: str) -> float:
    unit = str(m.get("unit", "ms")).strip().lower()
    if unit not in _UNIT_S:
        raise r.fail(f"{key}.unit", f"{unit!r} is not a time unit kvcalc knows (ms, s, us, ns)")
    return _UNIT_S[unit]


def _load(r: Reader, cfg: dict) -> tuple[float | None, int | None]:
    """(request rate [1/s], client concurrency) of the profiling phase, where recorded."""
    places = []
    phases = cfg.get("phases")
    if isinstance(phases, list):
        prof = [p for p in phases if isinstance(p, dict) and p.get("name") == "profiling"]
        places += prof or [p for p in phases if isinstance(p, dict)][-1:]
    for path in (("loadgen",), ("perf_analyzer", "stimulus"), ()):
        d = cfg
        for k in path:
            d = d.get(k) if isinstance(d, dict) else None
        if isinstance(d, dict):
            places.append(d)
    for d in places:
        rate = r.num(d, "request_rate", hi=1e9) or r.num(d, "rate", hi=1e9)
        conc = r.num(d, "concurrency", lo=1, hi=MAX_REQUESTS, whole=True)
        if rate is not None or conc is not None:
            return rate, conc
    return None, None


def _check(where: str, obj: dict, count, duration_s, total: dict, printed: bool) -> None:
    """The writer's own relations (``consistency``): each metric's min ≤ percentiles ≤ max and
    avg within; AIPerf's ``total_osl``/``total_isl`` = the lengths' ``sum``;
    ``request_throughput`` = ``request_count`` / ``benchmark_duration`` and
    ``output_token_throughput`` = ``total_osl`` / ``benchmark_duration``
    (``aiperf/metrics/types/request_throughput_metric.py``,
    ``output_token_throughput_metric.py``; both real AIPerf files agree to 1e-15)."""
    consistency.positive_duration(where, ("benchmark_duration.avg", duration_s),
                                  ("request_count.avg", count))
    for key in (*_LATENCY, "input_sequence_length", "output_sequence_length"):
        if isinstance(obj.get(key), dict):
            consistency.stats_block(where, key, obj[key])
    for total_key, key in (("total_osl", "output_sequence_length"),
                           ("total_isl", "input_sequence_length")):  # fmt: skip
        s = obj[key].get("sum") if isinstance(obj.get(key), dict) else None
        if isinstance(s, int | float) and not isinstance(s, bool):
            consistency.equal(where, (f"{total_key}.avg", total.get(total_key)),
                              (f"{key}.sum", s), "the total is the lengths' sum")
    if printed:
        return
    for key, count_kv in (("request_throughput", ("request_count.avg", count)),
                          ("output_token_throughput", ("total_osl.avg", total.get("total_osl")))):
        m = obj.get(key)
        v = m.get("avg") if isinstance(m, dict) else None
        if isinstance(v, int | float) and not isinstance(v, bool) and count_kv[1] is not None:
            consistency.rate(where, (f"{key}.avg", v), count_kv,
                             ("benchmark_duration.avg", duration_s))
