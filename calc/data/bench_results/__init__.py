"""Benchmark result files read into ``BenchRun``s (``calc.data.bench_results.run``), one module
per tool: ``vllm bench serve --save-result`` JSON (``vllm_serve``), SGLang ``bench_serving``
JSON Lines (``sglang_serving``), GuideLLM ``benchmarks.json`` (``guidellm``), AIPerf and
GenAI-Perf ``profile_export*.json`` (``aiperf``) and ``trtllm-bench --report_json``
(``trtllm_bench``) and its per-request ``--request_json`` (``trtllm_bench_requests``), and the
reports two of them print, pasted into a text file: trtllm-bench's (``trtllm_bench_text``) and
GenAI-Perf's "LLM Metrics" table or its CSV export (``genai_perf_text``). GuideLLM's
``benchmarks.yaml`` is its JSON written as YAML and read the same way. The format is detected
from each record's keys; a file may hold several records (JSON Lines, or one object per line as
``--append-result`` writes, or a JSON list of them as ``vllm bench sweep`` writes its
``summary.json``); AIPerf's per-request ``profile_export.jsonl`` holds one request a line
(``aiperf_records``). A file the same tools write beside the one kvcalc reads (AIPerf's time
slices, perf_analyzer's ``profile_export.json``, trtllm-bench's ``--output_json``, GuideLLM's
CSV and 0.1 report) is named as such with the file to give instead (``other_files``).
Anything else, a truncated file or a value of the wrong kind is one ``ConfigError`` naming the
file, the record and the key. A file that contradicts itself where it records both sides
(per-request lists against totals and counts, percentiles out of order, a mean outside min..max,
a throughput that is not its total over the duration: ``consistency``) is scored as read, the
contradiction in one line among its runs' notes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from calc.data.bench_results import (
    aiperf,
    aiperf_records,
    consistency,
    genai_perf_text,
    guidellm,
    other_files,
    sglang_serving,
    trtllm_bench,
    trtllm_bench_requests,
    trtllm_bench_text,
    vllm_serve,
)
from calc.data.bench_results.run import BenchRun, Lengths
from calc.errors import ConfigError

__all__ = ["FORMATS", "BenchRun", "Lengths", "parse_results", "read_results"]

MAX_RESULT_BYTES = 1 << 30  # a detailed run of 10^6 requests is a few hundred MB
# (what wrote it, reader): the order they are tried in (GuideLLM and trtllm-bench first: their
# keys are the most specific)
_READERS = (
    ("GuideLLM benchmarks.json or .yaml", guidellm),
    ("trtllm-bench --report_json", trtllm_bench),
    ("AIPerf / GenAI-Perf profile_export*.json", aiperf),
    ("SGLang bench_serving JSON Lines", sglang_serving),
    ("vllm bench serve --save-result JSON", vllm_serve),
)
# printed reports (text, not JSON): tried before the JSON readers
_TEXT_READERS = (
    ("trtllm-bench printed report", trtllm_bench_text),
    ("GenAI-Perf printed table or profile_export_genai_perf.csv", genai_perf_text),
)
# a top-level JSON list of records (not of runs)
_LIST_READERS = (
    ("trtllm-bench --request_json", trtllm_bench_requests),
    ("AIPerf profile_export.jsonl records", aiperf_records),
)
FORMATS = tuple(name for name, _ in (*_READERS, *_LIST_READERS, *_TEXT_READERS))
_YAML_KEY = re.compile(r"^(benchmarks|metadata|args|config):\s*$", re.M)


def read_results(path: Path | str) -> list[BenchRun]:
    """Every run a result file holds (see the module docstring)."""
    from calc.output.safe_io import read_input

    if str(path) == "-":
        return parse_results(_stdin_bytes(), "stdin")
    raw = read_input(path, what="a benchmark result file", max_bytes=MAX_RESULT_BYTES)
    return parse_results(raw, str(path))


def _stdin_bytes() -> bytes:
    """A result file piped to ``-``: at most MAX_RESULT_BYTES of it; one clear error for a
    closed stdin, a terminal or too much."""
    from calc.output.safe_io import piped_stdin

    stream = piped_stdin("a result file", "kvcalc score - < result.json")
    try:
        raw = stream.read(MAX_RESULT_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"stdin: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_RESULT_BYTES:
        raise ConfigError(f"stdin: more than {MAX_RESULT_BYTES:,} bytes is too large for a "
                          "benchmark result file")  # fmt: skip
    return raw


def parse_results(raw: bytes, name: str) -> list[BenchRun]:
    """The runs of a result file's bytes (``name`` for messages). A file that contradicts
    itself (``consistency``) is read again as it is, the contradiction among its runs' notes."""
    from dataclasses import replace

    try:
        return _parse_results(raw, name)
    except consistency.Contradiction as exc:
        said = f"the file contradicts itself, scored as read: {exc}"
    token = consistency.LENIENT.set(True)
    try:
        runs = _parse_results(raw, name)
    finally:
        consistency.LENIENT.reset(token)
    return [replace(run, notes=(*run.notes, said)) for run in runs]


def _parse_results(raw: bytes, name: str) -> list[BenchRun]:
    if b"\x00" in raw[:4096]:
        raise ConfigError(f"{name}: binary file, expected a benchmark result (JSON)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    for _, module in _TEXT_READERS:  # their marks are whole lines no JSON document has
        if module.looks_like(text):
            return _checked(_call(module, text, name))
    other_files.refuse_text(text, name)
    stripped = text.lstrip()
    if stripped and stripped[0] not in "{[" and _YAML_KEY.search(text):
        return _read(_yaml(text, name), name)
    records = _records(text, name)
    if len(records) == 1 and isinstance(records[0], list):
        return _read_list(records[0], name)
    if aiperf_records.looks_like(records):  # one request a line, not one run a line
        return _checked(_call(aiperf_records, records, name))
    runs: list[BenchRun] = []
    for i, obj in enumerate(records):
        where = name if len(records) == 1 else f"{name}#{i + 1}"
        runs += _read(obj, where)
    return runs


def _records(text: str, name: str) -> list:
    if not text.strip():
        raise ConfigError(f"{name}: empty file, expected a benchmark result (JSON)")
    if text.lstrip()[0] not in "{[":
        start = text.lstrip().splitlines()[0][:30]
        raise ConfigError(
            f"{name}: neither JSON nor a printed report kvcalc reads (it starts {start!r}); it "
            "reads " + "; ".join(FORMATS)
        )
    lean = _without_gaps(text)
    if lean is not None:
        try:
            return [json.loads(lean)]
        except (json.JSONDecodeError, RecursionError, ValueError):
            pass  # read whole below: its own error message, positions and all
    try:
        return [json.loads(text)]
    except json.JSONDecodeError as exc:
        first = exc
    except (RecursionError, ValueError) as exc:
        raise ConfigError(f"{name}: not a readable JSON document ({_short(exc)})") from None
    if first.msg != "Extra data":
        raise ConfigError(
            f"{name}: not valid JSON at line {first.lineno}, column {first.colno}: {first.msg}"
            " (a truncated or damaged file?)"
        ) from None
    out = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{name}: line {line_no}: not valid JSON (column {exc.colno}: {exc.msg}); "
                "a JSON Lines file holds one object per line"
            ) from None
        except (RecursionError, ValueError) as exc:
            raise ConfigError(
                f"{name}: line {line_no}: not readable JSON ({_short(exc)})"
            ) from None
    return out


# a detailed vLLM file's per-request inter-token gaps: a list of flat lists of numbers, the bulk
# of a large file (10,000 requests of 256 tokens: 25 of its 25.5 MB) and read by no reader (the
# figures come from the file's own ITL statistics): matched whole, numbers and brackets only
_WS, _NUMS = r"[ \t\n\r]*", r"\[[0-9 \t\n\r.,eE+\-]*\]"  # JSON's whitespace; a flat list
_GAPS = re.compile(rf'"itls"{_WS}:{_WS}(\[{_WS}(?:{_NUMS}{_WS},{_WS})*{_NUMS}{_WS}\])')
_GAPS_FROM_BYTES = 1 << 20  # smaller files are parsed whole


def _without_gaps(text: str) -> str | None:
    """``text`` with its one ``"itls"`` value (a list of lists of numbers) replaced by null, or
    None where it has none, more than one or another shape, or is small: parsing 2.5 million
    floats no reader uses is most of the time a large file takes to read (5× the scan that
    finds them). The key stays (null: no gaps recorded, which the vLLM reader accepts)."""
    if len(text) < _GAPS_FROM_BYTES:
        return None
    at = text.find('"itls"')
    if at < 0 or text.find('"itls"', at + 1) >= 0:
        return None
    m = _GAPS.match(text, at)
    if m is None:
        return None
    return text[: m.start(1)] + "null" + text[m.end(1) :]


def _yaml(text: str, name: str):
    """A YAML document (GuideLLM's benchmarks.yaml), safely loaded."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        doc = yaml.load(text, Loader=loader)  # a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise ConfigError(
            f"{name}: not valid YAML{at}: {problem} (a truncated or damaged file?)"
        ) from None
    except (RecursionError, ValueError) as exc:
        raise ConfigError(f"{name}: not a readable YAML document ({_short(exc)})") from None
    if not isinstance(doc, dict):
        raise ConfigError(
            f"{name}: expected a YAML mapping (GuideLLM's benchmarks.yaml), got "
            f"{type(doc).__name__}"
        )
    return doc


def _read_list(items: list, where: str) -> list[BenchRun]:
    """A top-level JSON list: per-request records one of the tools writes, or a list of runs
    (``vllm bench sweep``'s summary.json: one ``vllm bench serve`` result per run)."""
    for _, module in _LIST_READERS:
        if module.looks_like(items):
            return _checked(_call(module, items, where))
    if items and all(isinstance(x, dict) for x in items) and any(
        module.looks_like(items[0]) for _, module in _READERS
    ):
        runs: list[BenchRun] = []
        for i, obj in enumerate(items):
            runs += _read(obj, f"{where}#{i + 1}")
        return runs
    raise ConfigError(
        f"{where}: expected a JSON object (a benchmark result), got a list; it reads "
        + "; ".join(FORMATS)
    )


def _read(obj, where: str) -> list[BenchRun]:
    if not isinstance(obj, dict):
        raise ConfigError(
            f"{where}: expected a JSON object (a benchmark result), got {type(obj).__name__}"
        )
    for _, module in _READERS:
        if module.looks_like(obj):
            return _checked(_call(module, obj, where))
    other_files.refuse_object(obj, where)
    keys = ", ".join(sorted(str(k) for k in obj)[:8])
    shown = f"its keys: {keys}" if keys else "an empty object"
    raise ConfigError(
        f"{where}: not a benchmark result kvcalc knows ({shown}); it reads "
        + "; ".join(FORMATS)
    )


def _call(module, content, where: str):
    try:
        return module.read(content, where)
    except ConfigError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError,
            OverflowError, RecursionError) as exc:  # fmt: skip
        raise ConfigError(f"{where}: unexpected content ({_short(exc)})") from None


def _checked(got) -> list[BenchRun]:
    got = got if isinstance(got, list) else [got]
    for run in got:
        if not run.measured:
            raise ConfigError(
                f"{run.source}: no figure kvcalc compares (TTFT, TPOT, ITL, E2E or a "
                "throughput) in this run"
            )
    return got


def _short(exc: BaseException) -> str:
    s = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return s if len(s) <= 120 else s[:117] + "..."
