"""Benchmark result files across the writers' releases (issue 23): each layout a release writes,
read from a real copy where one was found (tests/data/bench_results, sources in its README) and
otherwise from an input laid out as that release's writer lays it out (named in each test);
the files the same tools write beside the read ones refused with the file to give instead."""

from __future__ import annotations

import json
import math

import pytest

from calc.data.bench_results import parse_results, read_results
from tests.test_bench_results import DATA, _err

GUIDELLM_YAML = DATA / "guidellm-0.5_qwen3-0.6b_llm-d-pd_synchronous.yaml"
QWEN3_06B = DATA / "qwen3-0.6b.yaml"
GUIDELLM_02 = DATA / "guidellm-0.2_llama-3.2-3b_maas_synchronous.yaml"
VLLM_025 = DATA / "vllm-0.25.1_opt-125m_bench-serve_conc2.json"
VLLM_SWEEP = DATA / "vllm-0.25.1_opt-125m_bench-sweep_max-num-seqs-4_conc2_summary.json"
VLLM_LAMBDA = DATA / "vllm-0.5.4_llama-3.1-8b-fp8_tp1_h100-sxm_sharegpt_10-prompts.json"
GENAI_JSON = DATA / (
    "genai-perf-2024-12_ensemble-trtllm_conc100_streaming_profile_export_genai_perf.json"
)
AIPERF_010 = DATA / "aiperf-0.10_qwen3.6-35b-a3b-nvfp4_rtx-5090_vllm_agent_conc2.json"
AIPERF_010_CSV = AIPERF_010.with_name(AIPERF_010.stem + "_profile_export_aiperf.csv")


def _one(doc, name: str = "f.json"):
    (run,) = parse_results(json.dumps(doc).encode(), name)
    return run


# ---------------------------------------------------------------------------------------------
# GuideLLM: 0.2-0.3 (args.strategy, worker), 0.4-0.5 (config.strategy), 0.8 (goodput), YAML


def test_guidellm_yaml_real_file():
    (r,) = read_results(GUIDELLM_YAML)
    assert r.tool == "guidellm" and r.tool_version == "0.5.0"  # metadata.guidellm_version
    assert r.model == "Qwen/Qwen3-0.6B"  # benchmarks[0].config.backend.model
    assert r.max_concurrency == 1 and r.rate_per_s is None  # config.strategy synchronous
    assert r.completed == 22  # metrics.request_totals.successful
    # no duration key in 0.5: the scheduler's measurement window,
    # measure_end_time 1771372931.395729 - measure_start_time 1771372871.395729 = 60.0 s
    assert r.duration_s == pytest.approx(60.0)
    # time_to_first_token_ms.successful.median 64.1632080078125 ms -> s
    assert r.measured["ttft_p50_s"] == pytest.approx(0.0641632080078125)
    assert r.measured["ttft_p90_s"] == pytest.approx(0.6292414665222168)  # percentiles.p90
    # inter_token_latency_ms (per request, vLLM's TPOT) mean 20.9616 ms, not the
    # time_per_output_token_ms (22.145 ms, first token included)
    assert r.measured["tpot_avg_s"] == pytest.approx(0.02096164815325181)
    assert r.measured["e2e_p99_s"] == pytest.approx(3.3968560695648193)  # request_latency, s
    assert r.measured["requests_per_s"] == pytest.approx(0.35)
    # no request list: the lengths from prompt_token_count / output_token_count (sd 0: fixed)
    assert (r.prompt_lengths.kind, r.prompt_lengths.a) == ("fixed", 264.0)
    assert (r.output_lengths.kind, r.output_lengths.a) == ("fixed", 128.0)


def test_guidellm_yaml_truncated_and_damaged():
    text = GUIDELLM_YAML.read_text()
    cut = text[: text.index("time_to_first_token_ms")] + "time_to_first_token_ms: {succ"
    assert "not valid YAML" in _err(cut.encode(), "b.yaml")
    msg = _err(b"benchmarks:\n  - [1, 2\n", "c.yaml")
    assert "not valid YAML at line" in msg and "truncated" in msg


def test_guidellm_02_real_file():
    (r,) = read_results(GUIDELLM_02)
    assert r.tool == "guidellm" and r.tool_version is None  # 0.2 writes no metadata
    assert r.model == "llama-3-2-3b" and r.backend == "openai_http"  # worker.backend_*
    assert r.max_concurrency == 1  # args.strategy.type_ synchronous
    assert r.completed == 14  # request_totals.successful, beside the metrics in 0.2
    assert r.duration_s == pytest.approx(57.26882600784302)  # the benchmark's duration
    assert r.measured["ttft_p50_s"] == pytest.approx(0.4104878902435303)  # median 410.49 ms
    assert r.measured["tpot_p90_s"] == pytest.approx(0.027795891123493824)  # percentiles.p90
    assert r.measured["e2e_avg_s"] == pytest.approx(3.9127264874322076)
    # prompt_token_count mean 512.9999999999998, std_dev 2.3e-13: fixed at 513 tokens
    assert (r.prompt_lengths.kind, round(r.prompt_lengths.a)) == ("fixed", 513)
    # 14 requests x 3.9127 s each, one at a time: 54.78 s of the 57.27 s window
    assert 14 * r.measured["e2e_avg_s"] == pytest.approx(54.7781708240509)


def _summary(mean, median=None, p90=None, p99=None, sd=0.0):
    pct = {"p50": median if median is not None else mean, "p90": p90 or mean, "p99": p99 or mean}
    return {"successful": {"mean": mean, "median": pct["p50"], "std_dev": sd,
                           "percentiles": pct}}  # fmt: skip


def _guidellm_02(successful: list, totals: int) -> dict:
    """Laid out as guidellm 0.2.1 writes benchmarks.json (guidellm/benchmark/benchmark.py:
    GenerativeBenchmark with args, worker, request_totals and requests beside the metrics;
    GenerativeTextResponseStats per request); the report is {"benchmarks": [...]} alone."""
    return {
        "benchmarks": [{
            "type_": "generative_benchmark",
            "args": {"strategy": {"type_": "concurrent", "streams": 4}, "max_duration": 30.0},
            "worker": {"type_": "generative_requests_worker", "backend_type": "openai_http",
                       "backend_target": "http://localhost:8000",
                       "backend_model": "meta-llama/Llama-3.1-8B-Instruct"},
            "start_time": 1000.0, "end_time": 1030.0, "duration": 30.0,
            "metrics": {"time_to_first_token_ms": _summary(50.0, 48.0, 70.0, 90.0),
                        "inter_token_latency_ms": _summary(12.0),
                        "request_latency": _summary(1.5),
                        "requests_per_second": _summary(2.0),
                        "prompt_token_count": _summary(512.0, sd=10.0),
                        "output_token_count": _summary(128.0)},
            "request_totals": {"successful": totals, "incomplete": 0, "errored": 0,
                               "total": totals},
            "requests": {"successful": successful, "incomplete": [], "errored": []},
        }]
    }  # fmt: skip


def _req_02(start: float, prompt: int, output: int) -> dict:
    # GenerativeTextResponseStats: start_time, end_time, first_token_time [s since the epoch]
    # and the computed request_latency [s], time_to_first_token_ms
    return {"type_": "generative_text_response", "prompt_tokens": prompt, "output_tokens": output,
            "start_time": start, "end_time": start + 1.5, "first_token_time": start + 0.05,
            "request_latency": 1.5, "time_to_first_token_ms": 50.0}  # fmt: skip


def test_guidellm_02_layout():
    reqs = [_req_02(1000.0 + i, 500 + i, 128) for i in (2, 0, 1)]
    r = _one(_guidellm_02(reqs, totals=3))
    assert r.model == "meta-llama/Llama-3.1-8B-Instruct"  # worker.backend_model
    assert r.backend == "openai_http"  # worker.backend_type
    assert r.max_concurrency == 4 and r.rate_per_s is None  # args.strategy concurrent, streams
    assert r.completed == 3 and r.duration_s == pytest.approx(30.0)
    assert r.measured["ttft_p90_s"] == pytest.approx(0.070)  # 70 ms
    # start_time 1002, 1000, 1001 -> sorted, from the first: 0, 1, 2 s; prompts follow
    assert r.start_s == (0.0, 1.0, 2.0) and r.prompt_tokens == (500, 501, 502)


def test_guidellm_sampled_requests_are_not_replayed():
    # --sample-requests 2 of 3 successful: the list is a sample, not the run
    r = _one(_guidellm_02([_req_02(1000.0, 500, 128), _req_02(1001.0, 501, 128)], totals=3))
    assert r.completed == 3 and r.start_s is None and r.prompt_tokens is None
    assert any("sample of 2 of the 3" in n for n in r.notes)
    # the lengths from the metrics: prompt_token_count mean 512, sd 10 -> normal
    assert (r.prompt_lengths.kind, r.prompt_lengths.a, r.prompt_lengths.b) == ("normal", 512, 10)
    assert (r.output_lengths.kind, r.output_lengths.a) == ("fixed", 128.0)


def test_guidellm_08_goodput_and_trace():
    # laid out as guidellm 0.8.1 writes it: config.slo (GoodputSLO, ms),
    # metrics.request_goodput (requests/s), a trace strategy (scheduler/strategies.py)
    doc = {
        "metadata": {"version": 2, "guidellm_version": "0.8.1"},
        "config": {},
        "benchmarks": [{
            "type_": "generative_benchmark",
            "config": {"strategy": {"type_": "trace"}, "backend": {"model": "Qwen/Qwen3-8B"},
                       "slo": {"ttft_ms": 2000.0, "tpot_ms": 100.0, "e2el_ms": None}},
            "scheduler_metrics": {"measure_start_time": 10.0, "measure_end_time": 70.0},
            "duration": 60.0,
            "metrics": {"time_to_first_token_ms": _summary(150.0),
                        "request_goodput": _summary(3.5),
                        "prompt_token_count": _summary(100.0),
                        "output_token_count": _summary(50.0),
                        "request_totals": {"successful": 240}},
        }],
    }  # fmt: skip
    r = _one(doc)
    assert r.slo_s == {"ttft": 2.0, "tpot": 0.1}  # 2,000 ms, 100 ms; e2el unset
    assert r.measured["goodput_requests_per_s"] == pytest.approx(3.5)
    assert r.rate_per_s is None and r.max_concurrency is None
    assert any("trace the file does not list" in n for n in r.notes)


def test_guidellm_01_report_is_named():
    # guidellm 0.1.0's report (guidellm/core/report.py): benchmarks of benchmarks, args
    doc = {"benchmarks": [{"benchmarks": [{"mode": "synchronous", "rate": None,
                                           "results": []}], "args": {}}]}  # fmt: skip
    assert "GuideLLM 0.1 report" in _err(json.dumps(doc).encode())


@pytest.mark.parametrize(
    "head",
    [
        # guidellm 0.2.1 save_csv: one header row, the description columns first
        "Type,Run Id,Id,Name,Start Time,End Time,Duration,Successful Requests\n",
        # guidellm 0.5.0 outputs/csv.py: the first of three header rows, the groups
        "Run Info,Run Info,Run Info,Benchmark,Benchmark\n",
    ],
)
def test_guidellm_csv_names_the_json(head):
    msg = _err((head + "generative_benchmark,a,b,c,d\n").encode(), "benchmarks.csv")
    assert "GuideLLM's benchmarks.csv" in msg and "benchmarks.json" in msg


# ---------------------------------------------------------------------------------------------
# AIPerf 0.1 (records), GenAI-Perf 0.0.10 (flat arguments); the files beside them


def test_aiperf_01_records_layout():
    # laid out as aiperf 0.1.1's JsonExporter writes it (aiperf/exporters/json_exporter.py):
    # JsonExportData(records={tag: MetricResult}, input_config, was_cancelled, ...)
    doc = {
        "records": {
            "time_to_first_token": {"tag": "time_to_first_token", "unit": "ms",
                                    "header": "Time to First Token", "avg": 120.0,
                                    "p50": 110.0, "p99": 300.0, "count": 100},
            "inter_token_latency": {"tag": "inter_token_latency", "unit": "ms",
                                    "header": "Inter Token Latency", "avg": 15.0},
            "request_throughput": {"tag": "request_throughput", "unit": "requests/sec",
                                   "header": "Request Throughput", "avg": 4.0},
            "benchmark_duration": {"tag": "benchmark_duration", "unit": "sec",
                                   "header": "Benchmark Duration", "avg": 25.0},
            "request_count": {"tag": "request_count", "unit": "requests",
                              "header": "Request Count", "avg": 100},
        },
        "input_config": {"endpoint": {"model_names": ["Qwen/Qwen3-8B"]},
                         "loadgen": {"concurrency": 10}},
        "was_cancelled": False,
    }  # fmt: skip
    r = _one(doc, "profile_export_aiperf.json")
    assert r.tool == "aiperf" and r.model == "Qwen/Qwen3-8B" and r.max_concurrency == 10
    assert r.measured["ttft_p99_s"] == pytest.approx(0.300)  # 300 ms
    assert r.measured["tpot_avg_s"] == pytest.approx(0.015)
    assert r.duration_s == pytest.approx(25.0) and r.completed == 100


def test_aiperf_010_real_file():
    (r,) = read_results(AIPERF_010)
    assert r.tool == "aiperf" and r.tool_version == "0.10.0"
    assert r.model == "qwen3.6-nvfp4"  # input_config.models.items[0].name, the served name
    # input_config.phases: the "profiling" phase, type concurrency, concurrency 2
    assert r.max_concurrency == 2 and r.rate_per_s is None
    assert r.completed == 96  # request_count.avg
    assert r.duration_s == pytest.approx(128.677665177)  # benchmark_duration, unit "sec"
    assert r.measured["ttft_p50_s"] == pytest.approx(0.1364860965)  # 136.4860965 ms
    assert r.measured["tpot_avg_s"] == pytest.approx(0.005670039629867334)  # inter_token_latency
    assert r.measured["itl_p99_s"] == pytest.approx(0.006777299076703385)  # inter_chunk_latency
    assert r.total_input_tokens == 274077 and r.total_output_tokens == 41732  # total_isl, osl
    # input_sequence_length avg 2,854.97, std 2,303.58 -> normal
    assert (r.prompt_lengths.kind, r.prompt_lengths.a) == ("normal", pytest.approx(2854.96875))
    # the totals agree with the means: 96 x 2,854.96875 = 274,077
    assert 96 * r.prompt_lengths.a == pytest.approx(274077)


def test_aiperf_csv_real_file_agrees_with_its_json():
    (csv_run,) = read_results(AIPERF_010_CSV)
    (json_run,) = read_results(AIPERF_010)
    assert csv_run.tool == "aiperf"  # the Metric,Value block's Benchmark Duration (sec)
    assert csv_run.completed == 96 and csv_run.duration_s == pytest.approx(128.68)
    # the CSV rounds to 0.01 (ms, tokens/s, requests/s): each figure within half of that of the
    # JSON's (0.005 ms = 5e-6 s; "0.75" requests/s against 0.74605)
    for key, value in json_run.measured.items():
        tol = 0.005 if key.endswith("_per_s") else 5e-6
        assert csv_run.measured[key] == pytest.approx(value, abs=tol), key
    assert csv_run.prompt_lengths.b == pytest.approx(2303.58)  # the std column
    assert csv_run.total_input_tokens == 274077


def test_genai_perf_json_real_file():
    (r,) = read_results(GENAI_JSON)
    assert r.tool == "genai-perf" and r.model == "ensemble"  # input_config.model[0]
    assert r.max_concurrency == 100 and r.rate_per_s is None  # input_config.concurrency
    # its tokenizer is a path string (no object): read, not refused
    assert r.measured["ttft_p50_s"] == pytest.approx(0.1728093975)  # 172.8093975 ms
    assert r.measured["tpot_avg_s"] == pytest.approx(0.0021767344516666665)
    assert r.measured["output_tokens_per_s"] == pytest.approx(44190.56002502682)
    # no request_count and no counts in the lengths: ten waves of the 100-request limit
    assert r.completed == 10 * 100
    assert any("records no request count" in n for n in r.notes)
    assert (r.prompt_lengths.kind, r.prompt_lengths.a) == ("normal", pytest.approx(200.85))
    # the figures agree with each other: 17.2225 requests/s x 2,565.855 tokens = 44,190.6/s
    assert r.measured["requests_per_s"] * r.output_lengths.a == pytest.approx(
        r.measured["output_tokens_per_s"], rel=1e-6)


def test_genai_perf_0010_flat_arguments():
    # laid out as genai-perf 0.0.10's JsonExporter writes it (export_data/json_exporter.py):
    # the stats, then input_config = vars(args): model a list, concurrency flat
    doc = {
        "request_latency": {"unit": "ms", "avg": 900.0, "p50": 880.0, "p99": 1200.0},
        "time_to_first_token": {"unit": "ms", "avg": 60.0, "p50": 55.0},
        "request_throughput": {"unit": "requests/sec", "avg": 8.0},
        "input_config": {"model": ["mistralai/Mistral-7B-Instruct-v0.3"],
                         "formatted_model_name": "mistralai/Mistral-7B-Instruct-v0.3",
                         "concurrency": 8, "request_rate": None},
    }  # fmt: skip
    r = _one(doc, "profile_export_genai_perf.json")
    assert r.tool == "genai-perf" and r.model == "mistralai/Mistral-7B-Instruct-v0.3"
    assert r.max_concurrency == 8 and r.rate_per_s is None


def _aiperf_record(start_s, ttft_ms, lat_ms, isl, osl, phase="profiling", error=None):
    # one line of profile_export.jsonl as aiperf 0.8.0 writes it (MetricRecordInfo,
    # aiperf/common/models/record_models.py): metadata [ns], metrics in display units
    ns = 1_000_000_000
    rec = {"metadata": {"session_num": 0, "request_start_ns": int(start_s * ns),
                        "request_end_ns": int(start_s * ns + lat_ms * 1e6),
                        "benchmark_phase": phase, "was_cancelled": False},
           "metrics": {"time_to_first_token": {"value": ttft_ms, "unit": "ms"},
                       "request_latency": {"value": lat_ms, "unit": "ms"},
                       "inter_token_latency": {"value": (lat_ms - ttft_ms) / (osl - 1),
                                               "unit": "ms"},
                       "input_sequence_length": {"value": isl, "unit": "tokens"},
                       "output_sequence_length": {"value": osl, "unit": "tokens"}}}  # fmt: skip
    if error:
        rec["error"] = {"code": 500, "type": "HTTPError", "message": error}
    return rec


def test_aiperf_per_request_records():
    lines = [
        _aiperf_record(1000.0, 50.0, 500.0, 100, 11, phase="warmup"),
        _aiperf_record(1001.0, 100.0, 1100.0, 200, 11),
        _aiperf_record(1002.0, 300.0, 2300.0, 400, 21),
        _aiperf_record(1002.5, 80.0, 80.0, 10, 2, error="unavailable"),
        _aiperf_record(1001.5, 200.0, 1200.0, 300, 11),
    ]
    raw = "".join(json.dumps(x) + "\n" for x in lines).encode()
    (r,) = parse_results(raw, "profile_export.jsonl")
    assert r.tool == "aiperf" and r.completed == 3 and r.failed == 1
    assert r.start_s == pytest.approx((0.0, 0.5, 1.0))  # sorted by send time, from the first
    assert r.prompt_tokens == (200, 300, 400) and r.output_tokens == (11, 11, 21)
    # TTFTs 0.1, 0.2, 0.3 s: mean 0.2; linear percentiles: p50 0.2, p90 0.1 + 1.8 x 0.1 = 0.28
    assert r.measured["ttft_avg_s"] == pytest.approx(0.2)
    assert r.measured["ttft_p50_s"] == pytest.approx(0.2)
    assert r.measured["ttft_p90_s"] == pytest.approx(0.28)
    # per-request TPOT (1,100 - 100) / 10 = 100 ms, (1,200 - 200) / 10 = 100, 2,000 / 20 = 100
    assert r.measured["tpot_avg_s"] == pytest.approx(0.100)
    # from the first send (1,001 s) to the last end (1,002 + 2.3 = 1,004.3 s): 3.3 s
    assert r.duration_s == pytest.approx(3.3)
    assert r.measured["output_tokens_per_s"] == pytest.approx(43 / 3.3)  # 11 + 11 + 21
    assert any("1 failed and 1 warm-up requests left out" in n for n in r.notes)


def test_aiperf_records_all_failed():
    line = _aiperf_record(1.0, 1.0, 2.0, 5, 2, error="boom")
    msg = _err((json.dumps(line) + "\n").encode(), "profile_export.jsonl")
    assert "no profiled request completed without an error" in msg


def test_perf_analyzer_export_is_named():
    doc = {"experiments": [{"experiment": {"mode": "concurrency", "value": 4}, "requests": [],
                            "window_boundaries": [1, 2]}],
           "version": "2.45.0", "service_kind": "openai", "endpoint": "v1/chat/completions"}
    msg = _err(json.dumps(doc).encode(), "profile_export.json")
    assert "perf_analyzer's raw profile_export.json" in msg
    assert "profile_export_genai_perf.json" in msg


def test_aiperf_timeslices_are_named():
    doc = {"timeslices": [{"timeslice_index": 0}], "aiperf_version": "0.8.0"}
    assert "time-slice export" in _err(json.dumps(doc).encode())


# ---------------------------------------------------------------------------------------------
# vLLM: the first --save-result files (0.3-0.4) and ramp-up runs


def test_vllm_025_real_file():
    (r,) = read_results(VLLM_025)
    assert r.model == "facebook/opt-125m" and r.backend == "vllm"
    assert r.max_concurrency == 2 and r.rate_per_s is None  # request_rate "inf"
    assert r.completed == 8 and r.failed == 0
    assert r.measured["ttft_p50_s"] == pytest.approx(0.05568139649994919)  # median_ttft_ms
    assert r.measured["itl_p99_s"] == pytest.approx(0.029815922519960626)  # p99_itl_ms
    assert "goodput_requests_per_s" not in r.measured  # request_goodput null: no SLO given
    # no input_throughput: total_input_tokens / duration = 256 / 1.54416 s = 165.79 tokens/s
    assert r.measured["input_tokens_per_s"] == pytest.approx(256 / 1.5441598830002476)


def test_vllm_sweep_summary_is_one_run_per_entry():
    # vllm bench sweep serve's summary.json: a list of bench serve results, the swept server
    # argument (max_num_seqs) and run_number merged into each
    runs = read_results(VLLM_SWEEP)
    assert [r.source.rsplit("#", 1)[1] for r in runs] == ["1", "2"]
    assert all(r.deployment["max_num_seqs"] == "4" for r in runs)
    # the two runs of one setting: duration 1.365 s then 0.642 s (the first one warm-up slow)
    assert runs[0].duration_s == pytest.approx(1.3653671270003542)
    assert runs[1].measured["e2e_p99_s"] == pytest.approx(0.16963662419613684)  # p99_e2el_ms
    assert runs[1].measured["requests_per_s"] == pytest.approx(12.460566958863927)


def test_vllm_05_latency_keys_and_empty_successes():
    (r,) = read_results(VLLM_LAMBDA)
    # E2E under mean_/median_/p99_latency_ms: 290.353, 87.637, 1,030.515 ms
    assert r.measured["e2e_avg_s"] == pytest.approx(0.29035341650014743)
    assert r.measured["e2e_p50_s"] == pytest.approx(0.08763665999867953)
    assert r.measured["e2e_p99_s"] == pytest.approx(1.0305146967872863)
    # errors all "" but output_lens 0 (and ttft 0.0) for requests 5, 7, 8: successes whose
    # text was empty, replayed as one-token requests; all 10 kept, as the file counts them
    assert r.completed == 10 and len(r.prompt_tokens) == 10
    assert r.output_tokens == (120, 1, 1, 194, 1, 40, 1, 1, 6, 80)
    # 120 + 1 + 1 + 194 + 40 + 6 + 80 = 442 = total_output_tokens, + 3 one-token requests
    assert sum(r.output_tokens) == r.total_output_tokens + 3
    assert any("3 successful requests returned no text" in n for n in r.notes)


def test_vllm_04_request_inthroughput():
    # laid out as benchmarks/benchmark_serving.py of vLLM 0.3-0.4 saves it: the request rate
    # under the misspelt "request_inthroughput", p99 only
    doc = {"backend": "vllm", "model_id": "meta-llama/Llama-2-7b-hf", "num_prompts": 1000,
           "request_rate": "inf", "duration": 100.0, "completed": 1000,
           "total_input_tokens": 200000, "total_output_tokens": 150000,
           "request_inthroughput": 10.0, "input_throughput": 2000.0, "output_throughput": 1500.0,
           "mean_ttft_ms": 800.0, "median_ttft_ms": 700.0, "p99_ttft_ms": 2000.0,
           "mean_tpot_ms": 40.0, "median_tpot_ms": 38.0, "p99_tpot_ms": 90.0}  # fmt: skip
    r = _one(doc)
    assert r.measured["requests_per_s"] == pytest.approx(10.0)
    assert r.measured["ttft_p99_s"] == pytest.approx(2.0) and r.rate_per_s is None


@pytest.mark.parametrize(
    ("kind", "a", "b", "mean"),
    [
        ("linear", 1.0, 9.0, 5.0),  # (1 + 9) / 2 = 5 requests/s
        # (e^2 - 1) / ln(e^2) = 6.389 / 2 = 3.1945 requests/s
        ("exponential", 1.0, math.exp(2.0), (math.exp(2.0) - 1.0) / 2.0),
    ],
)
def test_vllm_ramp_up_replays_the_mean_rate(kind, a, b, mean):
    # vllm/benchmarks/serve.py main(): ramp_up_strategy, ramp_up_start_rps, ramp_up_end_rps
    # beside request_rate (inf: unused while ramping)
    doc = {"model_id": "m", "completed": 100, "mean_ttft_ms": 50.0, "request_rate": "inf",
           "burstiness": 1.0, "max_concurrency": None, "ramp_up_strategy": kind,
           "ramp_up_start_rps": a, "ramp_up_end_rps": b}  # fmt: skip
    r = _one(doc)
    assert r.rate_per_s == pytest.approx(mean)
    assert any(f"a {kind} ramp" in n for n in r.notes)


def test_vllm_ramp_up_unknown_kind():
    doc = {"model_id": "m", "completed": 1, "mean_ttft_ms": 1.0, "ramp_up_strategy": "step",
           "ramp_up_start_rps": 1, "ramp_up_end_rps": 2}  # fmt: skip
    assert "ramp_up_strategy: 'step': expected linear or exponential" in _err(
        json.dumps(doc).encode()
    )


# ---------------------------------------------------------------------------------------------
# trtllm-bench --request_json and --output_json


def _records() -> list:
    """Laid out as ReportUtility.get_request_info writes --request_json (NVIDIA/TensorRT-LLM@
    0249976, tensorrt_llm/bench/dataclasses/reporting.py): RequestRecord.model_dump() [ns], the
    token list replaced by output and output_tokens."""

    def rec(i, start, first, end, n_in, n_out, errors=0):
        return {"id": i, "num_input_tokens": n_in, "error_tokens": errors,
                "start_timestamp": start, "first_token_timestamp": first,
                "end_timestamp": end, "decode_iteration": n_out - 1,
                "time_to_first_token": first - start, "end_to_end_latency": end - start,
                "output": "...", "output_tokens": n_out}  # fmt: skip

    s = 1_000_000_000  # 1 s in ns
    return [
        rec(1, 1.5 * s, 1.7 * s, 3.7 * s, 200, 21),
        rec(0, 1.0 * s, 1.1 * s, 2.1 * s, 100, 11),
        rec(2, 2.0 * s, 2.4 * s, 4.4 * s, 300, 5),
        rec(3, 2.5 * s, 2.6 * s, 2.7 * s, 400, 3, errors=1),
    ]


def test_trtllm_request_json():
    r = _one(_records(), "requests.json")
    assert r.tool == "trtllm-bench" and r.completed == 3 and r.failed == 1
    assert r.start_s == pytest.approx((0.0, 0.5, 1.0))  # sorted by start, from the first
    assert r.prompt_tokens == (100, 200, 300) and r.output_tokens == (11, 21, 5)
    # TTFTs 0.1, 0.2, 0.4 s: mean 0.7 / 3; nearest rank sorted[int(3 x 0.5)] = sorted[1] = 0.2,
    # sorted[int(3 x 0.9)] = sorted[2] = 0.4
    assert r.measured["ttft_avg_s"] == pytest.approx(0.7 / 3)
    assert r.measured["ttft_p50_s"] == pytest.approx(0.2)
    assert r.measured["ttft_p90_s"] == pytest.approx(0.4)
    # TPOT (end - first) / (out - 1): 1.0 / 10 = 0.1, 2.0 / 20 = 0.1, 2.0 / 4 = 0.5 s
    assert r.measured["tpot_avg_s"] == pytest.approx(0.7 / 3)
    # the run: last end 4.4 s - first start 1.0 s = 3.4 s; 3 requests, 37 output tokens
    assert r.duration_s == pytest.approx(3.4)
    assert r.measured["requests_per_s"] == pytest.approx(3 / 3.4)
    assert r.measured["output_tokens_per_s"] == pytest.approx(37 / 3.4)
    assert r.e2e_each_s == pytest.approx((1.1, 2.2, 2.4))


def test_trtllm_request_json_bad_records():
    recs = _records()
    recs[1]["end_timestamp"] = "late"
    assert "request 2: end_timestamp: expected a number" in _err(json.dumps(recs).encode())
    bad = [dict(x, error_tokens=1) for x in _records()]
    assert "no request completed without an error" in _err(json.dumps(bad).encode())


def test_trtllm_output_json_is_named():
    msg = _err(json.dumps({"0": "Paris is", "1": "The answer"}).encode(), "output.json")
    assert "trtllm-bench --output_json" in msg and "--request_json" in msg


# ---------------------------------------------------------------------------------------------
# kvcalc score, end to end


def test_cli_score_guidellm_yaml_asks_for_what_it_lacks(cli):
    r = cli("score", GUIDELLM_YAML)
    assert r.code == 2 and r.err.count("\n") == 1 and "give --model" in r.err
    r = cli("score", GUIDELLM_YAML, "-m", QWEN3_06B)
    assert r.code == 2 and r.err.count("\n") == 1 and "give --hardware" in r.err


def test_cli_score_lambda_h100_run(cli):
    # the deployment its harness states (LambdaLabsML/vllm-benchmark benchmark.py, .sh): one
    # H100 SXM, the FP8 checkpoint, --max-model-len 2048, --max-num-seqs 256, memory 0.95
    r = cli("score", VLLM_LAMBDA, "-m", "llama3.1-8b", "-H", "h100", "--weight-dtype", "fp8",
            "--max-model-len", "2048", "--max-num-seqs", "256", "--mem-util", "0.95",
            "--format", "json")  # fmt: skip
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    (run,) = doc["runs"]
    assert run["arrivals"] == "all at once"  # request_rate "inf", no --max-concurrency
    assert "3 successful requests returned no text" in r.err
    e2e = next(m for m in doc["metrics"] if (m["metric"], m["stat"]) == ("e2e", "avg"))
    assert e2e["measured"] == pytest.approx(0.29035341650014743)  # mean_latency_ms


def test_cli_score_vllm_sweep_asks_for_the_model(cli):
    r = cli("score", VLLM_SWEEP, "-H", "h100")
    assert r.code == 2 and r.err.count("\n") == 1
    assert "facebook/opt-125m" in r.err and "give --model" in r.err


def test_cli_score_genai_perf_asks_for_the_model(cli):
    # "ensemble" is Triton's pipeline name, not a model kvcalc can know
    r = cli("score", GENAI_JSON, "-H", "h100")
    assert r.code == 2 and r.err.count("\n") == 1
    assert "'ensemble'" in r.err and "give --model" in r.err


def test_cli_score_aiperf_asks_for_the_model(cli):
    # the served name "qwen3.6-nvfp4" is no shipped model, and the file names no GPU
    r = cli("score", AIPERF_010, "-H", "rtx-5090")
    assert r.code == 2 and r.err.count("\n") == 1
    assert "qwen3.6-nvfp4" in r.err and "give --model" in r.err


def test_cli_score_guidellm_02(cli):
    from tests.test_bench_results_text import LLAMA32_3B

    r = cli("score", GUIDELLM_02, "-m", LLAMA32_3B, "-H", "h100", "--format", "json")
    assert r.code == 0, r.err
    (run,) = json.loads(r.out)["runs"]
    assert "at most 1 open" in run["arrivals"]


def test_cli_score_guidellm_yaml(cli):
    r = cli("score", GUIDELLM_YAML, "-m", QWEN3_06B, "-H", "l4", "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    (run,) = doc["runs"]
    assert "at most 1 open" in run["arrivals"]  # synchronous: one request at a time
    measured = {m["metric"]: m["measured"] for m in doc["metrics"]}
    assert measured["requests_per_s"] == pytest.approx(0.35)


def test_cli_score_trtllm_request_json(cli, tmp_path):
    from tests.test_bench_results_text import LLAMA32_3B

    f = tmp_path / "requests.json"
    f.write_text(json.dumps(_records()))
    r = cli("score", f, "-m", LLAMA32_3B, "-H", "h100", "--format", "json")
    assert r.code == 0, r.err
    (run,) = json.loads(r.out)["runs"]
    assert run["arrivals"].startswith("as recorded per request")


# ---------------------------------------------------------------------------------------------
# SGLang 0.2: the short record without a request count


def _sglang_02(dataset: str) -> dict:
    # laid out as sglang 0.2.7's bench_serving.py appends it to --output-file
    return {"backend": "sglang", "dataset_name": dataset, "request_rate": 4.0,
            "total_input": 153_900, "total_output": 61_650, "total_output_retokenized": 61_500,
            "mean_e2e_latency": 5200.0, "median_e2e_latency": 5000.0, "median_ttft": 80.0,
            "median_itl": 12.0, "output_token_throughput": 900.0, "sharegpt_output_len": None,
            "random_input_len": 1024, "random_output_len": 256, "random_range_ratio": 0.5,
            "benchmark_duration": 68.5}  # fmt: skip


def test_sglang_02_short_record():
    (r,) = parse_results((json.dumps(_sglang_02("random")) + "\n").encode(), "s.jsonl")
    assert r.rate_per_s == 4.0 and r.duration_s == pytest.approx(68.5)
    assert r.measured["ttft_p50_s"] == pytest.approx(0.080)  # median_ttft 80 ms
    assert r.measured["e2e_avg_s"] == pytest.approx(5.2)  # mean_e2e_latency 5,200 ms
    assert r.measured["itl_p50_s"] == pytest.approx(0.012)
    assert r.measured["output_tokens_per_s"] == pytest.approx(900.0)
    # uniform 512..1024 prompts (mean 768) and 128..256 outputs (mean 192):
    # 153,900 / 768 = 200.4 and 61,650 / 192 = 321.1 -> (200.4 + 321.1) / 2 = 260.7 -> 261
    assert r.completed == 261
    assert any("estimated from the token totals" in n for n in r.notes)


def test_sglang_02_sharegpt_cannot_be_counted():
    msg = _err((json.dumps(_sglang_02("sharegpt")) + "\n").encode(), "s.jsonl")
    assert "completed: missing: sglang bench_serving before 0.3 records no request count" in msg


# ---------------------------------------------------------------------------------------------
# trtllm-bench's printed report with its MACHINE DETAILS section (the writer ends section
# headers with a space: \x20)


_REPORT = """\
===========================================================
= PYTORCH BACKEND
===========================================================
Model:\t\t\tmeta-llama/Llama-3.1-8B-Instruct
Model Path:\t\tNone
TensorRT LLM Version:\t1.2.0
Dtype:\t\t\tbfloat16
KV Cache Dtype:\t\tNone
Quantization:\t\tNone

===========================================================
= MACHINE DETAILS\x20
===========================================================
{machine}

===========================================================
= REQUEST DETAILS\x20
===========================================================
Number of requests:             512
Number of concurrent requests:  100.0000
Average Input Length (tokens):  128.0000
Average Output Length (tokens): 128.0000
===========================================================
= WORLD + RUNTIME INFORMATION\x20
===========================================================
TP Size:                1
PP Size:                1
EP Size:                None
Max Runtime Batch Size: 2048
Max Runtime Tokens:     8192
Scheduling Policy:      GUARANTEED_NO_EVICT
KV Memory Percentage:   90.00%
Issue Rate (req/sec):   1.0000E+18

===========================================================
= PERFORMANCE OVERVIEW\x20
===========================================================
Request Throughput (req/sec):                     40.0000
Total Output Throughput (tokens/sec):             5120.0000
Total Token Throughput (tokens/sec):              10240.0000
Total Latency (ms):                               12800.0000
Average request latency (ms):                     2500.0000
Per User Output Throughput [w/ ctx] (tps/user):   51.2000
Per GPU Output Throughput (tps/gpu):              5120.0000

-- Request Latency Breakdown (ms) -----------------------

[Latency] P50    : 2400.0000
[Latency] AVERAGE: 2500.0000
"""


def test_trtllm_report_machine_details():
    # laid out as ReportUtility.report_statistics prints it (NVIDIA/TensorRT-LLM@0249976):
    # "= MACHINE DETAILS" then "{name}, memory {GB} GB, {clock} GHz"
    text = _REPORT.replace("{machine}", "NVIDIA H100 80GB HBM3, memory 79.11 GB, 2.62 GHz")
    (r,) = parse_results(text.encode(), "report.txt")
    assert r.deployment["gpu"] == "NVIDIA H100 80GB HBM3"
    assert any(n.startswith("a printed report: it states no client --concurrency") for n in r.notes)
    # 512 requests / 12.8 s = 40 requests/s, as printed
    assert r.completed / r.duration_s == pytest.approx(r.measured["requests_per_s"])
    (none,) = parse_results(_REPORT.replace("{machine}", "No GPU info available").encode(), "r")
    assert "gpu" not in none.deployment
    assert any("no GPU" in n for n in none.notes)


def test_cli_score_aiperf_records(cli, tmp_path):
    from tests.test_bench_results_text import LLAMA32_3B

    f = tmp_path / "profile_export.jsonl"
    f.write_text("".join(json.dumps(_aiperf_record(10.0 + i, 40.0, 400.0, 128, 33)) + "\n"
                         for i in range(4)))  # fmt: skip
    r = cli("score", f, "-m", LLAMA32_3B, "-H", "h100", "--format", "json")
    assert r.code == 0, r.err
    (run,) = json.loads(r.out)["runs"]
    assert run["arrivals"].startswith("as recorded per request")  # sent 1 s apart


@pytest.mark.parametrize(
    ("path", "named"),
    [
        (AIPERF_010_CSV, None),  # the CSV names no model at all
        (VLLM_025, "facebook/opt-125m"),
        (GUIDELLM_02, "llama-3-2-3b"),
    ],
)
def test_cli_score_new_files_say_which_option(cli, path, named):
    r = cli("score", path, "-H", "h100")
    assert r.code == 2 and r.err.count("\n") == 1 and "give --model" in r.err
    if named:
        assert repr(named) in r.err
