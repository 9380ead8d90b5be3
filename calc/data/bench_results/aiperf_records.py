"""Reads AIPerf's per-request records, ``profile_export.jsonl`` (one record a line), into a
``BenchRun`` [s, tokens]: every profiled request's send time, lengths, TTFT and latency, and
the run's figures computed from them as AIPerf computes its own summary.

Reference: the writer, ``RecordExportResultsProcessor`` in
``aiperf/post_processors/record_export_results_processor.py`` of aiperf 0.8.0 (PyPI wheel): one
``MetricRecordInfo`` a line (``aiperf/common/models/record_models.py``): ``metadata``
(``request_start_ns``, ``request_end_ns`` [ns since the epoch], ``benchmark_phase``: warmup or
profiling, ``was_cancelled``), ``metrics`` in display units, each ``{"value", "unit"}``
(``time_to_first_token``, ``request_latency``, ``inter_token_latency`` [ms]: per request
(latency − TTFT) / (output tokens − 1), vLLM's TPOT; ``input_sequence_length``,
``output_sequence_length`` [tokens]), and ``error`` for a failed request. AIPerf's summary
takes the profiling phase only, its percentiles by linear interpolation (``np.percentile``,
``aiperf/metrics/metric_dicts.py``), its duration from the first request sent to the last one
done. The records state no model, GPU or client settings: give them as options (the client's
concurrency with ``--concurrency``; the send times already waited for its slots).
"""

from __future__ import annotations

from calc.data.bench_results import consistency
from calc.data.bench_results.run import MAX_REQUESTS, MAX_TOKENS, BenchRun, Reader, run_of_requests

TOOL = "aiperf"
_UNIT_S = {"ms": 1e-3, "s": 1.0, "sec": 1.0, "us": 1e-6, "ns": 1e-9}
_TIMES = {"time_to_first_token": "ttft", "inter_token_latency": "tpot",
          "request_latency": "e2e"}  # fmt: skip


def looks_like(records) -> bool:
    """AIPerf records: objects with ``metadata.request_start_ns`` and ``metrics`` of
    ``{"value", "unit"}``."""
    if not isinstance(records, list) or not records:
        return False
    for rec in records[:10]:
        meta = rec.get("metadata") if isinstance(rec, dict) else None
        metrics = rec.get("metrics") if isinstance(rec, dict) else None
        if not (isinstance(meta, dict) and "request_start_ns" in meta
                and isinstance(metrics, dict)):  # fmt: skip
            return False
    return True


def read(records: list, where: str) -> BenchRun:
    if len(records) > MAX_REQUESTS:
        raise Reader(where).fail("records", f"{len(records):,}; at most {MAX_REQUESTS:,}")
    rows, failed, warmup = [], 0, 0
    for i, rec in enumerate(records):
        r = Reader(f"{where}: record {i + 1}")
        meta, metrics = rec["metadata"], rec["metrics"]
        if str(meta.get("benchmark_phase", "profiling")).lower() != "profiling":
            warmup += 1
            continue
        if rec.get("error") or meta.get("was_cancelled"):
            failed += 1
            continue
        start = r.num(meta, "request_start_ns", hi=1e22, required=True)
        end = r.num(meta, "request_end_ns", hi=1e22)
        isl = _value(r, metrics, "input_sequence_length", whole=True)
        osl = _value(r, metrics, "output_sequence_length", whole=True)
        if isl is None or osl is None or osl < 1:
            failed += 1
            continue
        times = {name: _value(r, metrics, key) for key, name in _TIMES.items()}
        # each record's own: its first token within the request (``consistency``)
        consistency.ordered(r.where, (("time_to_first_token", times["ttft"]),
                                      ("request_latency", times["e2e"])),
                            "the first token comes within the request")  # fmt: skip
        rows.append((start, end, isl, osl, times))
    if not rows:
        raise Reader(where).fail("records", "no profiled request completed without an error")
    rows.sort(key=lambda x: x[0])
    t0 = rows[0][0]
    ends = [e if e is not None else s + t["e2e"] * 1e9 for s, e, _, _, t in rows
            if e is not None or t["e2e"] is not None]  # fmt: skip
    duration = (max(ends) - t0) * 1e-9 if ends else None
    measured = {}
    for name in _TIMES.values():
        measured.update(_stats(name, [t[name] for *_, t in rows if t[name] is not None]))
    notes = ["per-request records: the figures are computed here from the profiling phase's "
             "requests, as AIPerf computes its summary (linear percentiles); the records state "
             "no model, GPU or client concurrency"]  # fmt: skip
    if failed or warmup:
        notes.append(f"{failed} failed and {warmup} warm-up requests left out")
    e2e = [t["e2e"] for *_, t in rows]
    ttft = [t["ttft"] for *_, t in rows]
    return run_of_requests(
        where, TOOL, start_s=[(x[0] - t0) * 1e-9 for x in rows], prompt=[x[2] for x in rows],
        output=[x[3] for x in rows], ttft=ttft if None not in ttft else None,
        e2e=e2e if None not in e2e else None, duration_s=duration, measured=measured,
        notes=notes, failed=failed,
    )  # fmt: skip


def _value(r: Reader, metrics: dict, key: str, whole: bool = False):
    """A metric's value, times in seconds (None when the record lacks it)."""
    m = r.obj(metrics, key)
    if m is None:
        return None
    if whole:
        return r.num(m, "value", hi=MAX_TOKENS, whole=True, required=True)
    unit = str(m.get("unit", "ms")).strip().lower()
    if unit not in _UNIT_S:
        raise r.fail(f"{key}.unit", f"{unit!r} is not a time unit kvcalc knows (ms, s, us, ns)")
    return r.num(m, "value", hi=1e15, required=True) * _UNIT_S[unit]


def _stats(metric: str, values: list) -> dict:
    """avg, p50, p90, p99 of ``values`` [s], linearly interpolated (numpy's default)."""
    import numpy as np

    if not values:
        return {}
    p50, p90, p99 = np.percentile(np.asarray(values, dtype=np.float64), [50, 90, 99])
    return {f"{metric}_avg_s": sum(values) / len(values), f"{metric}_p50_s": float(p50),
            f"{metric}_p90_s": float(p90), f"{metric}_p99_s": float(p99)}  # fmt: skip
