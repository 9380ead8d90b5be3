"""Reads the report ``trtllm-bench throughput`` prints to the terminal (and users paste into
issues and docs) into a ``BenchRun`` [s, tokens], through the ``--report_json`` reader
(``trtllm_bench``): each printed line is put back under the key it was printed from.

Reference: the writer, ``ReportUtility.report_statistics`` in
``tensorrt_llm/bench/dataclasses/reporting.py`` (NVIDIA/TensorRT-LLM at commit
0249976575050d2c624a5f285683c66de311a3b7): sections headed ``= PYTORCH BACKEND`` or
``= ENGINE DETAILS`` (Model, TensorRT-LLM Version, Dtype, KV Cache Dtype, Quantization),
``= REQUEST DETAILS`` (Number of requests, Average Input/Output Length), ``= WORLD + RUNTIME
INFORMATION`` (TP/PP/EP Size, Max Runtime Batch Size, Max Runtime Tokens, KV Memory Percentage
as a percentage, Issue Rate), ``= PERFORMANCE OVERVIEW`` (throughputs, Total Latency (ms),
Average request latency, with ``--streaming`` the average TTFT and TPOT and the ``[TPOT]`` and
``[TTFT]`` breakdowns) and ``[Latency] P50 : …`` lines. Releases before 0.17 printed
``= STATISTICS`` with ``Token Throughput (tokens/sec)`` (output tokens over the run) and
``Total Latency (seconds)``. Later releases print ``= MACHINE DETAILS``: the first GPU's name,
memory and clock on one line (``NVIDIA H100 80GB HBM3, memory 79.11 GB, 2.62 GHz``) or ``No GPU
info available``; older ones print no GPU. No release prints the client's ``--concurrency``.
"""

from __future__ import annotations

import dataclasses
import re

from calc.data.bench_results import trtllm_bench
from calc.data.bench_results.run import BenchRun
from calc.errors import ConfigError

_HEADER = re.compile(r"^\s*=\s+([A-Z][A-Z +()]*?)\s*$")
_OVERVIEW = ("PERFORMANCE OVERVIEW", "STATISTICS")
_MACHINE = "MACHINE DETAILS"
_SECTIONS = ("PYTORCH BACKEND", "ENGINE DETAILS", "REQUEST DETAILS", "WORLD + RUNTIME INFORMATION",
             _MACHINE, *_OVERVIEW)  # fmt: skip
_BREAKDOWN = re.compile(r"^\s*\[(Latency|TPOT|TTFT|ITL)\]\s*([A-Za-z0-9]+)\s*:\s*(.*?)\s*$")
_LINE = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(.*?)\s*$")
# printed label (lower case, single spaces) -> (block, key, kind); kind: text, num, pct, s
_LABELS = {
    "model": ("engine", "model", "text"),
    "tensorrt-llm version": ("engine", "version", "text"),
    "tensorrt llm version": ("engine", "version", "text"),
    "dtype": ("engine", "dtype", "text"),
    "kv cache dtype": ("engine", "kv_cache_dtype", "text"),
    "quantization": ("engine", "quantization", "text"),
    "number of requests": ("request_info", "num_requests", "num"),
    "number of concurrent requests": ("request_info", "avg_num_concurrent_requests", "num"),
    "average input length (tokens)": ("request_info", "avg_input_length", "num"),
    "average output length (tokens)": ("request_info", "avg_output_length", "num"),
    "tp size": ("world_info", "tp_size", "num"),
    "pp size": ("world_info", "pp_size", "num"),
    "ep size": ("world_info", "ep_size", "num"),
    "max runtime batch size": ("world_info", "max_batch_size", "num"),
    "max runtime tokens": ("world_info", "max_num_tokens", "num"),
    "scheduling policy": ("world_info", "scheduling_policy", "text"),
    "kv memory percentage": ("world_info", "kv_cache_percentage", "pct"),
    "issue rate (req/sec)": ("world_info", "issue_rate", "num"),
    "request throughput (req/sec)": ("performance", "request_throughput_req_s", "num"),
    "total output throughput (tokens/sec)": ("performance", "system_output_throughput_tok_s",
                                             "num"),
    "token throughput (tokens/sec)": ("performance", "system_output_throughput_tok_s", "num"),
    "total latency (ms)": ("performance", "total_latency_ms", "num"),
    "total latency (seconds)": ("performance", "total_latency_ms", "s"),
    "average request latency (ms)": ("performance", "avg_request_latency_ms", "num"),
    "average time-to-first-token [ttft] (ms)": ("streaming_metrics", "avg_ttft_ms", "num"),
    "average time-per-output-token [tpot] (ms)": ("streaming_metrics", "avg_tpot_ms", "num"),
}  # fmt: skip
_PCT_BLOCK = {"Latency": ("performance", "request_latency_percentiles_ms"),
              "TPOT": ("streaming_metrics", "tpot_percentiles"),
              "TTFT": ("streaming_metrics", "ttft_percentiles"),
              "ITL": ("streaming_metrics", "itl_percentiles")}  # fmt: skip


def looks_like(text: str) -> bool:
    """A trtllm-bench printed report: one of its section headers on a line of its own (a copy
    cut short is then told so, not that it is bad JSON)."""
    heads = {m.group(1) for m in map(_HEADER.match, text.splitlines()) if m}
    return bool(heads & set(_SECTIONS))


def read(text: str, where: str) -> BenchRun:
    doc: dict = {k: {} for k in ("engine", "machine", "world_info", "request_info",
                                 "performance", "streaming_metrics")}  # fmt: skip
    section = None
    overviews = 0
    for n, line in enumerate(text.splitlines(), start=1):
        head = _HEADER.match(line)
        if head:
            section = head.group(1) if head.group(1) in _SECTIONS else None
            overviews += section in _OVERVIEW
            if overviews > 1:
                raise ConfigError(
                    f"{where}: line {n}: a second trtllm-bench report; keep one report a file"
                )
            continue
        if section is None:
            continue  # before the report (a pasted log) or a section kvcalc does not use
        if section == _MACHINE:
            gpu = line.split(", memory", 1)[0].strip()
            if gpu and not gpu.startswith(("No GPU", "=")) and "name" not in doc["machine"]:
                doc["machine"]["name"] = gpu[:200]
            continue
        m = _BREAKDOWN.match(line)
        if m:
            what, stat, value = m.groups()
            block, key = _PCT_BLOCK[what]
            label = f"[{what}] {stat}"
            doc[block].setdefault(key, {})[stat.lower()] = _number(value, where, n, label)
            continue
        m = _LINE.match(line)
        if not m:
            continue
        label = " ".join(m.group(1).split()).lower()
        if label not in _LABELS:
            continue
        block, key, kind = _LABELS[label]
        value = m.group(2)
        if kind == "text":
            if value and value != "None":
                doc[block][key] = value
        elif value == "None" and kind == "num" and block == "world_info":
            continue  # EP Size: None
        elif kind == "pct":
            if value != "None":
                doc[block][key] = _number(value.rstrip("%"), where, n, m.group(1)) / 100.0
        elif kind == "s":
            doc[block][key] = _number(value, where, n, m.group(1)) * 1000.0
        else:
            doc[block][key] = _number(value, where, n, m.group(1))
    perf = doc["performance"]
    if "request_throughput_req_s" not in perf:
        raise ConfigError(
            f"{where}: a trtllm-bench report without its 'Request Throughput (req/sec)' line "
            "(a truncated copy?)"
        )
    avg = perf.pop("avg_request_latency_ms", None)
    if avg is not None:
        perf.setdefault("request_latency_percentiles_ms", {}).setdefault("average", avg)
    if "num_requests" in doc["request_info"]:
        n_req = doc["request_info"]["num_requests"]
        if n_req != int(n_req):
            raise ConfigError(f"{where}: Number of requests: {n_req:g} is not a whole number")
        doc["request_info"]["num_requests"] = int(n_req)
    for key in ("tp_size", "pp_size", "ep_size", "max_batch_size", "max_num_tokens"):
        v = doc["world_info"].get(key)
        if v is not None and v == int(v):
            doc["world_info"][key] = int(v)
    if not doc["streaming_metrics"]:
        del doc["streaming_metrics"]
    run = trtllm_bench.read(doc, where, printed=True)
    conc = doc["request_info"].get("avg_num_concurrent_requests")
    note = ("a printed report: it states no client --concurrency" if "name" in doc["machine"]
            else "a printed report: it states no GPU and no client --concurrency")  # fmt: skip
    if conc is not None:
        note += f" (on average {conc:.4g} requests were in flight)"
    note += "; give kvcalc score --concurrency N, the run's own, else all are sent at once"
    return dataclasses.replace(run, notes=(*run.notes, note))


def _number(value: str, where: str, line: int, label: str) -> float:
    text = value.replace(",", "").strip()
    if not text:
        raise ConfigError(f"{where}: line {line}: {label.strip()}: no value (a truncated copy?)")
    try:
        v = float(text)
    except ValueError:
        raise ConfigError(
            f"{where}: line {line}: {label.strip()}: {text[:40]!r} is not a number"
        ) from None
    if v != v or v in (float("inf"), float("-inf")) or v < 0:
        raise ConfigError(f"{where}: line {line}: {label.strip()}: {text[:40]!r} is out of range")
    return v
