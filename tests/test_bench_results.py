"""Benchmark result readers (issue 23): the real files of tests/data/bench_results (their sources
in its README) read field by field, the two formats no public file was found for read from
inputs laid out as their writers write them, and malformed, truncated and hostile files
refused with one clear line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calc.data.bench_results import parse_results, read_results
from calc.errors import ConfigError

DATA = Path(__file__).parent / "data" / "bench_results"
VLLM_QPS4 = DATA / "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json"
VLLM_INF = DATA / "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-inf.json"
SGLANG = DATA / "sglang-2024-12_llama-3.3-70b_tp4_h200_online.jsonl"
GUIDELLM = DATA / "guidellm-0.5_qwen3-30b-a3b_tp4_intel-xpu_synchronous.json"
AIPERF = DATA / "aiperf-0.8_glm-5.1-mxfp4_tp2_mi355x_sglang_conc16.json"


def test_vllm_bench_serve_file():
    (r,) = read_results(VLLM_QPS4)
    assert r.tool == "vllm bench serve"
    assert r.model == "meta-llama/Llama-3.3-70B-Instruct"
    assert r.rate_per_s == 4.0 and r.arrival == "poisson" and r.max_concurrency is None
    assert r.completed == 200 and r.duration_s == pytest.approx(62.98832992400003)
    # the file's ms figures in s: median_ttft_ms 49.50005649993727 -> 0.0495000565 s
    assert r.measured["ttft_p50_s"] == pytest.approx(0.04950005649993727)
    assert r.measured["tpot_avg_s"] == pytest.approx(0.027083319078977674)  # mean_tpot_ms
    assert r.measured["itl_p99_s"] == pytest.approx(0.029629998059913305)  # p99_itl_ms
    assert r.measured["output_tokens_per_s"] == pytest.approx(673.9184869835061)
    # no input_throughput in vLLM 0.8's file: the writer's totals / duration,
    # 42,659 / 62.98833 = 677.25 tokens/s
    assert r.measured["input_tokens_per_s"] == pytest.approx(42659 / 62.98832992400003)
    assert "ttft_p90_s" not in r.measured  # not among its --metric-percentiles (99)
    # per request: 200 prompts summing to the file's total_input_tokens
    assert len(r.prompt_tokens) == 200 and sum(r.prompt_tokens) == 42659
    assert sum(r.output_tokens) == 42449
    assert r.prompt_tokens[:5] == (13, 25, 27, 10, 329)
    assert r.ttft_each_s[0] == pytest.approx(0.03028566500006491)
    assert r.start_s is None  # vLLM 0.8 does not save start_times


def test_vllm_rate_inf_is_all_at_once():
    (r,) = read_results(VLLM_INF)
    assert r.rate_per_s is None  # "inf"


def test_sglang_jsonl_one_run_per_line():
    runs = read_results(SGLANG)
    assert [r.rate_per_s for r in runs] == [1.0, 2.0, 4.0, 8.0, 16.0, 4.0, 8.0]
    r = runs[0]
    assert r.tool == "sglang bench_serving" and r.backend == "sglang"
    assert r.source.endswith("#1") and runs[6].source.endswith("#7")
    # random 1024/1024 at range ratio 0: uniform max(int(1024 × 0), 1) … 1024
    assert (r.prompt_lengths.kind, r.prompt_lengths.a, r.prompt_lengths.b) == ("uniform", 1, 1024)
    assert r.output_lengths.b == 1024
    assert r.measured["ttft_p50_s"] == pytest.approx(0.08574514742940664)
    assert r.measured["itl_p50_s"] == pytest.approx(0.013638956006616354)
    assert r.measured["e2e_avg_s"] == pytest.approx(7.840616212638561)
    # the 2024 file has no request_throughput: completed / duration = 300 / 298.368 s
    assert r.measured["requests_per_s"] == pytest.approx(300 / 298.3675805060193)
    assert runs[5].prompt_lengths is None  # ShareGPT: lengths from the totals only
    assert runs[5].mean_prompt_tokens == pytest.approx(269081 / 1200)


def test_guidellm_benchmarks_json():
    (r,) = read_results(GUIDELLM)
    assert r.tool == "guidellm" and r.tool_version == "0.5.0.dev0"
    assert r.model == "Qwen/Qwen3-30B-A3B"
    assert r.max_concurrency == 1 and r.rate_per_s is None  # synchronous: one at a time
    # its inter_token_latency_ms (per request) is vLLM's TPOT: mean 38.651 ms
    assert r.measured["tpot_avg_s"] == pytest.approx(0.03865124784686373)
    assert r.measured["ttft_p90_s"] == pytest.approx(0.07149863243103027)  # percentiles.p90
    assert "itl_p50_s" not in r.measured  # GuideLLM has no per-token gaps pooled
    # the 23 successful requests, in start order from 0 s
    assert len(r.start_s) == 23 and r.start_s[0] == 0 and list(r.start_s) == sorted(r.start_s)
    assert set(r.output_tokens) == {1024}


def test_aiperf_profile_export():
    (r,) = read_results(AIPERF)
    assert r.tool == "aiperf" and r.tool_version == "0.8.0"
    assert r.model == "amd/GLM-5.1-MXFP4"
    assert r.max_concurrency == 16 and r.rate_per_s is None  # loadgen.concurrency
    # its inter_token_latency is per request (vLLM's TPOT), inter_chunk_latency the pooled gaps
    assert r.measured["tpot_avg_s"] == pytest.approx(0.17608979211596716)
    assert r.measured["ttft_p50_s"] == pytest.approx(196.42033505599998)  # 196,420 ms
    assert r.duration_s == pytest.approx(1818.697814784)  # unit "sec"
    assert r.completed == 87
    assert r.total_input_tokens == 7744528
    assert r.prompt_lengths.kind == "normal" and r.prompt_lengths.a == pytest.approx(89017.56, 1e-6)


def test_genai_perf_layout():
    # laid out as genai_perf/export_data/json_exporter.py writes it (genai-perf 0.0.16): the
    # stats, then input_config with perf_analyzer.stimulus (built here; no public file found)
    doc = {
        "request_throughput": {"unit": "requests/sec", "avg": 2.5},
        "time_to_first_token": {"unit": "ms", "avg": 40.0, "p50": 38.0, "p99": 90.0},
        "inter_token_latency": {"unit": "ms", "avg": 12.5, "p50": 12.0},
        "output_token_throughput": {"unit": "tokens/sec", "avg": 640.0},
        "output_sequence_length": {"unit": "tokens", "avg": 256.0, "std": 0.0},
        "input_sequence_length": {"unit": "tokens", "avg": 1024.0, "std": 10.0},
        "input_config": {"model_names": ["meta-llama/Llama-3.1-8B-Instruct"],
                         "perf_analyzer": {"stimulus": {"concurrency": 8}}},
    }  # fmt: skip
    (r,) = parse_results(json.dumps(doc).encode(), "profile_export_genai_perf.json")
    assert r.tool == "genai-perf" and r.max_concurrency == 8
    assert r.measured["tpot_avg_s"] == pytest.approx(0.0125)
    assert r.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert r.output_lengths.kind == "fixed" and r.prompt_lengths.b == 10.0


def test_trtllm_bench_report_layout():
    # laid out as ReportUtility.get_statistics_dict writes it (NVIDIA/TensorRT-LLM@0249976:
    # tensorrt_llm/bench/dataclasses/reporting.py; built here, no public report found)
    doc = {
        "engine": {"model": "meta-llama/Llama-3.1-8B", "version": "1.0.0", "backend": "Pytorch",
                   "dtype": "bfloat16", "kv_cache_dtype": "FP8", "quantization": "FP8"},
        "machine": {"name": "NVIDIA H100 80GB HBM3", "memory.total": 79.1},
        "world_info": {"tp_size": 1, "pp_size": 1, "ep_size": None, "max_batch_size": 512,
                       "max_num_tokens": 2048, "kv_cache_percentage": 0.9,
                       "issue_rate": 2.5e14},
        "request_info": {"num_requests": 1000, "avg_input_length": 128.0,
                         "avg_output_length": 128.0},
        "performance": {"total_latency_ms": 20000.0, "request_throughput_req_s": 50.0,
                        "system_output_throughput_tok_s": 6400.0,
                        "request_latency_percentiles_ms": {"p50": 4000.0, "average": 4100.0}},
        "streaming_metrics": {"avg_ttft_ms": 300.0, "avg_tpot_ms": 30.0,
                              "ttft_percentiles": {"p50": 250.0, "p99": 900.0},
                              "tpot_percentiles": {"p50": 29.0}},
    }  # fmt: skip
    (r,) = parse_results(json.dumps(doc).encode(), "report.json")
    assert r.tool == "trtllm-bench" and r.backend == "trtllm"
    assert r.rate_per_s is None  # an issue rate of 2.5e14/s: every request at once
    assert r.duration_s == pytest.approx(20.0)  # 20,000 ms
    assert r.deployment["gpu"] == "NVIDIA H100 80GB HBM3" and r.deployment["tp"] == "1"
    assert r.measured["ttft_p50_s"] == pytest.approx(0.25)
    assert r.measured["tpot_avg_s"] == pytest.approx(0.030)
    assert r.measured["e2e_avg_s"] == pytest.approx(4.1)
    assert r.total_output_tokens == 128 * 1000


# ---------------------------------------------------------------------------------------------
# Malformed input: one clear line each


def _err(raw: bytes, name: str = "f.json") -> str:
    with pytest.raises(ConfigError) as e:
        parse_results(raw, name)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(name)
    return msg


def test_truncated_file():
    text = VLLM_QPS4.read_text()
    msg = _err(text[: len(text) // 2].encode())
    assert "not valid JSON" in msg and "truncated" in msg


def test_unknown_json_names_the_formats():
    msg = _err(b'{"hello": 1}')
    assert "not a benchmark result kvcalc knows" in msg and "GuideLLM" in msg


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"", "empty file"),
        (b"\x00\x01binary", "binary"),
        (b"\xff\xfe{}", "UTF-8"),
        (b"[1, 2]", "expected a JSON object"),
        (b'{"model_id": "m", "completed": -3, "mean_ttft_ms": 1}', "completed"),
        (b'{"model_id": "m", "completed": 5, "mean_ttft_ms": "fast"}', "mean_ttft_ms"),
        (b'{"model_id": "m", "completed": 5, "mean_ttft_ms": NaN}', "not a finite number"),
        (
            b'{"model_id": "m", "completed": 5, "mean_ttft_ms": 1, "input_lens": [1, 2],'
            b' "output_lens": [3]}',
            "one per request",
        ),
        (b'{"backend": "sglang", "dataset_name": "random", "completed": 1}\n{oops', "line 2"),
        (b"[" * 100_000, "JSON"),
        (b'{"benchmarks": [{"metrics": {}}], "args": {}}', "no figure kvcalc compares"),
        (b'{"benchmarks": [], "args": {}}', "no benchmark"),
    ],
)
def test_bad_content(raw, words):
    assert words in _err(raw)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        read_results(tmp_path / "nope.json")
    with pytest.raises(ConfigError, match="directory"):
        read_results(tmp_path)


def test_cli_bad_file_one_line(cli, tmp_path):
    f = tmp_path / "bad.json"
    f.write_text('{"model_id": "m", "completed": 5')
    r = cli("score", f, "-H", "h100")
    assert r.code == 2 and r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1
