"""Files the benchmark tools write beside the one kvcalc reads, recognised so that giving one
says which file to give instead (one ``ConfigError`` line), not that the format is unknown.

References (the writers): AIPerf's ``profile_export_aiperf_timeslices.json``; perf_analyzer's
``profile_export.json`` that GenAI-Perf reads (``experiments[].requests[]`` of timestamps and
response texts, no token counts); ``trtllm-bench --output_json`` (``{request id: generated text}``,
``ReportUtility.get_output_tokens`` in ``tensorrt_llm/bench/dataclasses/reporting.py``);
GuideLLM's ``benchmarks.csv`` (``GenerativeBenchmarksReport.save_csv``, guidellm 0.2.1: one
row per benchmark under ``Type,Run Id,Id,Name,…``; 0.4+: header rows of groups, names and
units), ``vllm bench sweep serve``'s ``summary.csv`` (vllm 0.33 ``vllm/benchmarks/sweep/
serve.py``: every run's result keys as columns, pandas' unnamed index first) and its failure
records (``run=N.failure.json``, ``SERVE-…-failure.json``: ``error_type``, ``error``,
``serve_overrides``) and GuideLLM 0.1's report (``{"benchmarks": [{"benchmarks": [{"mode", "rate",
"results"}], "args"}]}``, ``guidellm/core/report.py``, guidellm 0.1.0).
"""

from __future__ import annotations

from calc.errors import ConfigError

_GUIDELLM_CSV_HEADS = ("Type,Run Id,Id,Name,", "Run Info,")


def refuse_text(text: str, name: str) -> None:
    """Text (not JSON) another writer's file: GuideLLM's CSV, ``vllm bench sweep``'s CSV."""
    first = text.lstrip("\ufeff").lstrip().split("\n", 1)[0]
    if first.startswith(_GUIDELLM_CSV_HEADS):
        raise ConfigError(
            f"{name}: GuideLLM's benchmarks.csv (summary columns only: no request list, "
            "no strategy kvcalc can read); give the benchmarks.json or benchmarks.yaml of the "
            "same run (guidellm --outputs json)"
        )
    columns = {c.strip().strip('"') for c in first.split(",")}
    if {"completed", "request_throughput", "duration"} <= columns:
        raise ConfigError(
            f"{name}: vllm bench sweep's summary.csv (every run's figures in columns, one "
            "table for the sweep); give the summary.json of each combination's folder, or its "
            "run=N.json"
        )


def refuse_object(obj: dict, where: str) -> None:
    """A JSON object another writer's file."""
    if "error_type" in obj and "serve_overrides" in obj:
        said = f"{str(obj.get('error_type'))[:40]}: {str(obj.get('error'))[:80]}"
        raise ConfigError(
            f"{where}: a vllm bench sweep failure record (*failure.json: {said}); that run "
            "wrote no result: give a run=N.json or summary.json that succeeded"
        )
    if isinstance(obj.get("timeslices"), list) or "timeslice_index" in obj:
        raise ConfigError(
            f"{where}: AIPerf's time-slice export (profile_export_aiperf_timeslices.json); give "
            "profile_export_aiperf.json from the same artifacts folder"
        )
    if isinstance(obj.get("experiments"), list) and ("service_kind" in obj or "version" in obj):
        raise ConfigError(
            f"{where}: perf_analyzer's raw profile_export.json (timestamps and response texts, "
            "no token counts); give profile_export_genai_perf.json or "
            "profile_export_genai_perf.csv from the same artifacts folder"
        )
    if obj and all(isinstance(k, str) and k.isdigit() for k in obj) and all(
        isinstance(v, str) for v in obj.values()
    ):
        raise ConfigError(
            f"{where}: trtllm-bench --output_json (the generated texts, no timings); give the "
            "same run's --report_json or --request_json"
        )
    benches = obj.get("benchmarks")
    if isinstance(benches, list) and benches and isinstance(benches[0], dict) and (
        "benchmarks" in benches[0] and "args" in benches[0]
    ):
        raise ConfigError(
            f"{where}: a GuideLLM 0.1 report (before 0.2's benchmarks.json); kvcalc reads "
            "GuideLLM 0.2 and later: rerun with guidellm >= 0.2"
        )

