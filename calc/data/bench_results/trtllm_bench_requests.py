"""Reads the per-request records ``trtllm-bench throughput --request_json FILE`` writes into a
``BenchRun`` [s, tokens]: every request's send, first-token and end time, its lengths, and the
run's figures computed from them the way trtllm-bench computes its own report.

Reference: the writer, ``ReportUtility.get_request_info`` in
``tensorrt_llm/bench/dataclasses/reporting.py`` (NVIDIA/TensorRT-LLM at commit
0249976575050d2c624a5f285683c66de311a3b7): a JSON list, one ``RequestRecord.model_dump()`` per
request (``tensorrt_llm/bench/dataclasses/statistics.py``: ``id``, ``num_input_tokens``,
``error_tokens``, ``start_timestamp``, ``first_token_timestamp``, ``end_timestamp`` [ns, one
clock], ``decode_iteration`` and the computed ``time_to_first_token``,
``intertoken_latency`` …) with the token list replaced by ``output`` (its text) and
``output_tokens`` (its length). trtllm-bench's report takes, per request, TTFT = first token
− start, TPOT = (end − first token) / (output tokens − 1), latency = end − start; the run's
length is the last end − the first start; its percentiles are nearest-rank, sorted[⌊n q⌋]
(``PercentileStats.from_iterable``). The records state no model, GPU or engine settings.
"""

from __future__ import annotations

from calc.data.bench_results.run import MAX_REQUESTS, MAX_TOKENS, BenchRun, Reader, run_of_requests

TOOL = "trtllm-bench"
_NEEDED = ("start_timestamp", "end_timestamp", "num_input_tokens")


def looks_like(items) -> bool:
    return (
        isinstance(items, list)
        and bool(items)
        and all(isinstance(x, dict) and all(k in x for k in _NEEDED) for x in items[:10])
    )


def read(items: list, where: str) -> BenchRun:
    if len(items) > MAX_REQUESTS:
        raise Reader(where).fail("requests", f"{len(items):,} records; at most {MAX_REQUESTS:,}")
    rows = []
    failed = 0
    for i, rec in enumerate(items):
        r = Reader(f"{where}: request {i + 1}")
        if not isinstance(rec, dict):
            raise r.fail("record", "expected an object")
        start = r.num(rec, "start_timestamp", lo=-1, hi=1e22, required=True)
        end = r.num(rec, "end_timestamp", lo=-1, hi=1e22, required=True)
        first = r.num(rec, "first_token_timestamp", lo=-1, hi=1e22)
        n_in = r.num(rec, "num_input_tokens", lo=-1, hi=MAX_TOKENS, whole=True, required=True)
        n_out = r.num(rec, "output_tokens", hi=MAX_TOKENS, whole=True)
        if n_out is None:
            n_out = r.num(rec, "num_output_tokens", hi=MAX_TOKENS, whole=True)
        if n_out is None:
            raise r.fail("output_tokens", "missing (and no num_output_tokens)")
        errors = r.num(rec, "error_tokens", hi=MAX_TOKENS, whole=True) or 0
        if errors or start < 0 or end < start or n_in < 0 or n_out < 1:
            failed += 1
            continue
        if first is not None and not start <= first <= end:
            first = None  # -1: no first token recorded (trtllm-bench's TTFT is then 0)
        rows.append((start, first, end, n_in, n_out))
    if not rows:
        raise Reader(where).fail("requests", "no request completed without an error")
    rows.sort(key=lambda x: x[0])
    t0 = rows[0][0]
    ns = 1e-9
    ttft = [(f - s) * ns for s, f, _, _, _ in rows if f is not None]
    tpot = [(e - f) * ns / (o - 1) for _, f, e, _, o in rows if f is not None and o > 1]
    e2e = [(e - s) * ns for s, _, e, _, _ in rows]
    duration = (max(x[2] for x in rows) - t0) * ns
    measured = {}
    for metric, values in (("ttft", ttft), ("tpot", tpot), ("e2e", e2e)):
        measured.update(_stats(metric, values))
    notes = ["per-request records: the figures are computed here from them, as trtllm-bench's "
             "report computes its own (nearest-rank percentiles)"]  # fmt: skip
    if failed:
        notes.append(f"{failed} requests with an error or no end left out")
    return run_of_requests(
        where, TOOL, backend="trtllm", start_s=[(x[0] - t0) * ns for x in rows],
        prompt=[x[3] for x in rows], output=[x[4] for x in rows],
        ttft=ttft if len(ttft) == len(rows) else None, e2e=e2e, duration_s=duration,
        measured=measured, notes=notes, failed=failed,
    )  # fmt: skip


def _stats(metric: str, values: list) -> dict:
    """avg, p50, p90, p99 of ``values`` [s], nearest-rank as trtllm-bench's statistics.py."""
    if not values:
        return {}
    ordered = sorted(values)
    n = len(ordered)
    out = {f"{metric}_avg_s": sum(ordered) / n}
    for q in (50, 90, 99):
        out[f"{metric}_p{q}_s"] = ordered[min(int(n * (q / 100)), n - 1)]
    return out
