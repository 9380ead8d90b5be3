"""Reads the report that ``trtllm-bench throughput --report_json FILE`` writes into a
``BenchRun`` [s, tokens].

Reference: the writer, ``tensorrt_llm/bench/dataclasses/reporting.py`` (NVIDIA/TensorRT-LLM at
commit 0249976575050d2c624a5f285683c66de311a3b7, ``ReportUtility.get_statistics_dict``):
``engine`` (model, version, backend, dtype, kv_cache_dtype, quantization), ``machine`` (the
first GPU's name and memory), ``world_info`` (tp_size, pp_size, ep_size, max_batch_size,
max_num_tokens, scheduling_policy, kv_cache_percentage, issue_rate [1/s]),
``request_info`` (num_requests, avg_num_concurrent_requests, avg_input_length,
avg_output_length), ``performance``
(total_latency_ms: first request's start to the last one's end, throughputs per second,
request_latency_percentiles_ms) and with ``--streaming`` ``streaming_metrics`` (avg_ttft_ms,
avg_tpot_ms, ttft_percentiles and tpot_percentiles, in ms: p50, p90, p95, p99, minimum,
maximum, average; ``itl_percentiles`` in older versions). Its percentiles are nearest-rank
(sorted[int(n q)], ``tensorrt_llm/bench/dataclasses/statistics.py``), its TPOT per request
(end − first token) / (output tokens − 1): vLLM's definition. The other stored copy, at
commit 2787769cae353023784dce105d648bcd4d04f4d4, writes the same keys (with
``decoding_stats`` under speculative decoding and ``dataset``, the dataset's length statistics,
neither read). Neither records the client's ``--concurrency``: said in a note.
"""

from __future__ import annotations

from calc.data.bench_results import consistency
from calc.data.bench_results.run import MAX_REQUESTS, MAX_TOKENS, BenchRun, Lengths, Reader, ms

TOOL = "trtllm-bench"
_STAT = {"average": "avg", "p50": "p50", "p90": "p90", "p99": "p99"}


def looks_like(obj) -> bool:
    return isinstance(obj, dict) and "world_info" in obj and "performance" in obj


def read(obj: dict, where: str, printed: bool = False) -> BenchRun:
    """``printed``: the report as printed (``trtllm_bench_text``), rounded to 4 decimals."""
    r = Reader(where)
    engine = r.obj(obj, "engine") or {}
    machine = r.obj(obj, "machine") or {}
    world = r.obj(obj, "world_info") or {}
    info = r.obj(obj, "request_info") or {}
    perf = r.obj(obj, "performance", required=True)
    stream = r.obj(obj, "streaming_metrics") or {}
    measured: dict = {}
    for key, name in (
        ("request_throughput_req_s", "requests_per_s"),
        ("system_output_throughput_tok_s", "output_tokens_per_s"),
    ):
        v = r.num(perf, key, hi=1e12)
        if v is not None:
            measured[name] = v
    for block, key, metric in (
        (perf, "request_latency_percentiles_ms", "e2e"),
        (stream, "ttft_percentiles", "ttft"),
        (stream, "tpot_percentiles", "tpot"),
        (stream, "itl_percentiles", "tpot"),
    ):
        pct = r.obj(block, key)
        if pct is None:
            continue
        for src, stat in _STAT.items():
            v = r.num(pct, src, hi=1e12)
            if v is not None:
                measured.setdefault(f"{metric}_{stat}_s", ms(v))
    for key, metric in (("avg_ttft_ms", "ttft"), ("avg_tpot_ms", "tpot")):
        v = r.num(stream, key, hi=1e12)
        if v is not None:
            measured[f"{metric}_avg_s"] = ms(v)
    n = r.num(info, "num_requests", hi=MAX_REQUESTS, whole=True) or 0
    isl = r.num(info, "avg_input_length", hi=MAX_TOKENS)
    osl = r.num(info, "avg_output_length", hi=MAX_TOKENS)
    issue = r.num(world, "issue_rate", hi=1e30)
    deployment = {}
    for key, name in (("tp_size", "tp"), ("pp_size", "pp"), ("ep_size", "ep"),
                      ("max_batch_size", "max_num_seqs"),
                      ("max_num_tokens", "max_batched_tokens"),
                      ("kv_cache_percentage", "mem_util")):  # fmt: skip
        if world.get(key) is not None:
            deployment[name] = r.text(world, key)
    for key, name in (("dtype", "dtype"), ("kv_cache_dtype", "kv_dtype"),
                      ("quantization", "quantization"), ("version", "version")):  # fmt: skip
        if engine.get(key) is not None:
            deployment[name] = r.text(engine, key)
    if machine.get("name"):
        deployment["gpu"] = r.text(machine, "name")
    total_ms = r.num(perf, "total_latency_ms", hi=1e15)
    _check(where, perf, stream, n, osl, total_ms, printed)
    notes = [] if printed else [_concurrency_note(r, info)]
    if issue is not None and issue > 1e6:
        issue = None  # trtllm-bench's default: every request issued at once
    return BenchRun(
        source=where,
        tool=TOOL,
        tool_version=deployment.get("version"),
        model=r.text(engine, "model"),
        backend="trtllm",
        rate_per_s=issue,
        completed=n,
        duration_s=ms(total_ms),
        total_input_tokens=round(isl * n) if isl is not None else None,
        total_output_tokens=round(osl * n) if osl is not None else None,
        prompt_lengths=Lengths("fixed", isl) if isl else None,
        output_lengths=Lengths("fixed", osl) if osl else None,
        measured=measured,
        deployment=deployment,
        # the batch size and token budget the runtime ran with (trtllm-bench's own choice where
        # none was given), both as resolved
        server_limits=_limits(world),
        notes=tuple(notes),
    )


def _limits(world: dict) -> dict:
    """The runtime batch size and token budget (BenchRun.server_limits) a report records."""
    keys = (("max_batch_size", "max_num_seqs"), ("max_num_tokens", "max_batched_tokens"))
    return {name: world[key] for key, name in keys
            if type(world.get(key)) is int and world[key] > 0}  # fmt: skip


def _concurrency_note(r: Reader, info: dict) -> str:
    """What --report_json leaves out: the client's --concurrency (``world_info`` records the
    engine's batch limits, ``request_info`` only the mean number in flight)."""
    conc = r.num(info, "avg_num_concurrent_requests", hi=MAX_REQUESTS)
    said = "" if conc is None else f" (on average {conc:.4g} requests were in flight)"
    return (f"the report states no client --concurrency{said}; give kvcalc score --concurrency "
            "N, the run's own, else all are sent at once")  # fmt: skip


def _check(where: str, perf: dict, stream: dict, n: int, osl, total_ms, printed: bool) -> None:
    """The writer's own relations (``consistency``; ``reporting.py``, ``statistics.py`` at the
    commit above): each percentile block's minimum ≤ p50 ≤ … ≤ maximum, average within; the
    request throughput = requests / total latency, the output throughput = requests × average
    output length / total latency (both real printed reports agree to 1e-5)."""
    blocks = (("performance", perf, "request_latency_percentiles_ms"),
              ("streaming_metrics", stream, "ttft_percentiles"),
              ("streaming_metrics", stream, "tpot_percentiles"),
              ("streaming_metrics", stream, "itl_percentiles"))  # fmt: skip
    for name, block, key in blocks:
        if isinstance(block.get(key), dict):
            consistency.stats_block(where, f"{name}.{key}", block[key], lo="minimum",
                                    hi="maximum", mean="average")  # fmt: skip
    consistency.positive_duration(where, ("performance.total_latency_ms", total_ms),
                                  ("request_info.num_requests", n))
    if not n or not total_ms:
        return
    duration = ("performance.total_latency_ms [s]", total_ms / 1000.0)
    consistency.rate(where, ("performance.request_throughput_req_s",
                             perf.get("request_throughput_req_s")),
                     ("request_info.num_requests", n), duration, printed)  # fmt: skip
    if osl is not None:
        consistency.rate(where, ("performance.system_output_throughput_tok_s",
                                 perf.get("system_output_throughput_tok_s")),
                         ("request_info.num_requests × avg_output_length", n * osl), duration,
                         printed)  # fmt: skip
