"""Reads GenAI-Perf's printed "LLM Metrics" table (users paste it into issues and docs) and its
``profile_export_genai_perf.csv`` into a ``BenchRun`` [s, tokens], through the
``profile_export*.json`` reader (``aiperf``): each row is put back under the metric it came from.

References: the writers, ``genai_perf/export_data/console_exporter.py`` (a rich table: one row
per metric, named "Time To First Token (ms)" and so on (lower case after the first word
before 0.0.10), columns avg, min, max, p99, p90, p75; throughputs and the request count
have avg alone, N/A elsewhere; before 0.0.8 the throughputs were printed as "Output token
throughput (per sec): x" lines under the table) and ``genai_perf/export_data/csv_exporter.py``
(``Metric,avg,min,max,p99,p95,p90,p75,p50,p25`` rows, a blank line, then ``Metric,Value``
rows for the throughputs). AIPerf's ``profile_export_aiperf.csv``
(``aiperf/exporters/metrics_csv_exporter.py``, aiperf 0.10–0.13) has the same two blocks, its
columns ``Metric,avg,min,max,sum,p1,p5,…,p99,std``, the ``Metric,Value`` rows with
``Benchmark Duration (sec)`` and the token totals, then a GPU-telemetry block (not read); it
is read as AIPerf's. Neither states the model, the concurrency or request rate, nor the GPU:
give them as options.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re

from calc.data.bench_results import aiperf
from calc.data.bench_results.run import BenchRun
from calc.errors import ConfigError

# row name (lower case, unit dropped) -> the profile_export JSON metric
_NAMES = {
    "time to first token": "time_to_first_token",
    "inter token latency": "inter_token_latency",
    "request latency": "request_latency",
    "output sequence length": "output_sequence_length",
    "input sequence length": "input_sequence_length",
    "output token throughput": "output_token_throughput",
    "request throughput": "request_throughput",
    "request goodput": "goodput",
    "request count": "request_count",
    "inter chunk latency": "inter_chunk_latency",  # AIPerf's CSV
    "benchmark duration": "benchmark_duration",
    "total input sequence length": "total_isl",
    "total output sequence length": "total_osl",
}
_TIMES = ("time_to_first_token", "inter_token_latency", "request_latency", "inter_chunk_latency",
          "benchmark_duration")  # fmt: skip
_STATS = ("avg", "min", "max", "p99", "p95", "p90", "p75", "p50", "p25", "std")
_UNIT = re.compile(r"\(([^)]*)\)\s*$")
_TABLE_HEAD = re.compile(r"^\s*┃\s*Statistic\s*┃")
_LOOSE = re.compile(
    r"^\s*((?:Output token|Request) (?:throughput|goodput) \(per sec\))\s*:\s*(.*?)\s*$", re.I
)
_CSV_HEAD = "Metric,avg,"


def looks_like(text: str) -> bool:
    """GenAI-Perf's printed table or its CSV export."""
    first = text.lstrip("\ufeff").lstrip().split("\n", 1)[0]
    return first.startswith(_CSV_HEAD) or any(map(_TABLE_HEAD.match, text.splitlines()))


def read(text: str, where: str) -> BenchRun:
    rows = _csv_rows(text, where) if text.lstrip().startswith(_CSV_HEAD) else _table(text, where)
    doc: dict = {}
    for name, stats in rows:
        label = " ".join(name.split())
        unit_m = _UNIT.search(label)
        base = _UNIT.sub("", label).strip().lower()
        key = _NAMES.get(base)
        if key is None:
            continue  # Time To Second Token, per-user throughput, ...: not compared
        if key in doc:
            raise ConfigError(f"{where}: {label}: two rows (two tables in one file? keep one)")
        entry = {k: v for k, v in stats.items() if v is not None}
        unit = unit_m.group(1).strip().lower() if unit_m else ""
        if key in _TIMES:
            entry["unit"] = unit or ("sec" if key == "benchmark_duration" else "ms")
        doc[key] = entry
    if not any(k in doc for k in ("time_to_first_token", "request_latency")):
        raise ConfigError(
            f"{where}: a GenAI-Perf table without its Time To First Token or Request Latency row "
            "(a truncated copy?)"
        )
    if "request_count" in doc and "avg" in doc["request_count"]:
        doc["request_count"] = {"avg": doc["request_count"]["avg"]}
    run = aiperf.read(doc, where, printed=True)
    note = "a printed table or CSV: it states no model, GPU, concurrency or request rate"
    return dataclasses.replace(run, notes=(*run.notes, note))


def _number(cell: str, where: str, what: str):
    text = cell.replace(",", "").strip()
    if text in ("", "N/A"):
        return None
    try:
        v = float(text)
    except ValueError:
        raise ConfigError(f"{where}: {what}: {text[:40]!r} is not a number") from None
    return v


def _table(text: str, where: str) -> list:
    """(name, {stat: value}) of the rich table's rows, and the loose throughput lines."""
    columns: list[str] | None = None
    rows: list = []
    closed = False
    for n, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if _TABLE_HEAD.match(line):
            columns = [c.strip().lower() for c in s.strip("┃").split("┃")][1:]
            closed = False
            continue
        loose = _LOOSE.match(line)
        if loose:
            rows.append((loose.group(1), {"avg": _number(loose.group(2), where, f"line {n}")}))
            continue
        if columns is None or not s.startswith("│"):
            closed = closed or (columns is not None and s.startswith("└"))
            continue
        cells = [c.strip() for c in s.strip("│").split("│")]
        if len(cells) != len(columns) + 1:
            raise ConfigError(
                f"{where}: line {n}: {len(cells) - 1} values, expected {len(columns)} "
                "(a damaged or truncated table?)"
            )
        name, values = cells[0], cells[1:]
        if not any(values) and rows:  # a long name wrapped onto the next row
            rows[-1] = (rows[-1][0] + " " + name, rows[-1][1])
            continue
        stats = {col: _number(v, where, f"line {n}: {name} {col}")
                 for col, v in zip(columns, values, strict=True) if col in _STATS}  # fmt: skip
        rows.append((name, stats))
    if columns is None:
        raise ConfigError(f"{where}: no GenAI-Perf table header ('┃ Statistic ┃ avg ┃ …')")
    if not closed:
        raise ConfigError(f"{where}: the GenAI-Perf table has no closing line (a truncated copy?)")
    return rows


def _csv_rows(text: str, where: str) -> list:
    rows: list = []
    header: list[str] | None = None
    for n, rec in enumerate(csv.reader(io.StringIO(text.lstrip("\ufeff"))), start=1):
        if not rec or not any(c.strip() for c in rec):
            continue
        if rec[0].strip() == "Metric":
            header = [c.strip().lower() for c in rec[1:]]
            continue
        if header is None:
            break  # the input-settings block some versions append
        if len(rec) - 1 != len(header):
            if header == ["value"]:
                break  # past the metrics: argument rows
            raise ConfigError(
                f"{where}: line {n}: {len(rec) - 1} values, expected {len(header)} "
                "(a damaged or truncated CSV?)"
            )
        stats = {col: _number(v, where, f"line {n}: {rec[0]} {col}")
                 for col, v in zip(header, rec[1:], strict=True)
                 if col in _STATS or col == "value"}  # fmt: skip
        if "value" in stats:
            stats = {"avg": stats["value"]}
        rows.append((rec[0], stats))
    return rows
