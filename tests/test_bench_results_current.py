"""Benchmark result files of the current writers (issue 23, scorefmt round): real files of vLLM
0.15 (`vllm bench serve --save-detailed`) and SGLang 0.5.9 (`sglang.bench_serving
--output-details`) read and scored end to end (sources in tests/data/bench_results/README.md),
their truncated and damaged copies refused in one line, and what vLLM 0.33's writer adds (a
pooling run, `latencies` and `queue_times` without --save-detailed, `vllm bench sweep`'s
failure records and summary.csv) and trtllm-bench's --report_json leaves out (the client's
concurrency) handled as its writer lays it out."""

from __future__ import annotations

import dataclasses
import json

import pytest

from calc.data.bench_results import parse_results, read_results
from tests.test_bench_results import DATA, _err

VLLM_015 = DATA / "vllm-0.15.0_qwen3-8b_tp8_h100-sxm_random-1024-128_conc10.json"
SGLANG_059 = DATA / "sglang-0.5.9_qwen3-8b_tp8_h100-sxm_random-1024-128_conc100.jsonl"


# ---------------------------------------------------------------------------------------------
# vLLM 0.15 `vllm bench serve --save-detailed` (llm-benchmaq, Qwen3-8B, TP 8 on H100 SXM)


def test_vllm_015_real_file():
    (r,) = read_results(VLLM_015)
    assert r.tool == "vllm bench serve" and r.model == "/root/models/Qwen3-8B"
    assert r.rate_per_s is None and r.max_concurrency == 10  # request_rate "inf", 10 open
    assert r.completed == 1000 and r.failed == 0
    # random 1024/128, range ratio 0: every request 1,024 in, 128 out (1,024,000 / 1,000)
    assert set(r.prompt_tokens) == {1024} and set(r.output_tokens) == {128}
    assert len(r.start_s) == 1000 and min(r.start_s) == 0.0  # sends from the first
    # the file's ms in s: mean_ttft_ms 88.65118967625313, mean_e2el_ms 551.1227136864327
    assert r.measured["ttft_avg_s"] == pytest.approx(0.08865118967625313)
    assert r.measured["e2e_avg_s"] == pytest.approx(0.5511227136864327)
    assert r.measured["requests_per_s"] == pytest.approx(18.12114767067794)
    assert not any("contradicts" in n for n in r.notes)


def test_cli_score_vllm_015(cli):
    # the file records no TP (the harness's folder name does: TP8_DP1) and no release (the
    # harness pins vllm==0.15.0): both given; the model comes from its path, Qwen3-8B
    r = cli("score", VLLM_015, "-H", "h100", "--tp", "8", "--engine-version", "0.15.0",
            "--format", "json")  # fmt: skip
    assert r.code == 0, r.err
    assert "model qwen3-8b from the result file" in r.err
    doc = json.loads(r.out)
    (run,) = doc["runs"]
    assert run["model"] == "qwen3-8b" and run["tp"] == 8 and run["requests"] == 1000
    assert run["arrivals"].startswith("as recorded per request")
    assert run["lengths"] == "prompts and outputs as recorded per request"
    measured = {(m["metric"], m["stat"]): m["measured"] for m in doc["metrics"]}
    assert measured[("tpot", "avg")] == pytest.approx(0.00364150806307228)  # 3.6415... ms


# ---------------------------------------------------------------------------------------------
# SGLang 0.5.9 `sglang.bench_serving --output-details` (the same harness and GPU)


def test_sglang_059_real_file():
    (r,) = read_results(SGLANG_059)
    assert r.tool == "sglang bench_serving" and r.tool_version == "0.5.9"  # server_info
    assert r.model == "/workspace/qwen-3-8b"  # server_info.model_path, a local folder
    assert r.rate_per_s is None and r.max_concurrency == 100  # Infinity, 100 open
    d = r.deployment
    assert (d["tp"], d["mem_util"], d["max_batched_tokens"], d["block_size"]) == (
        "8", "0.9", "8192", "1")  # fmt: skip
    assert "max_num_seqs" not in d  # max_running_requests null: the server's own
    assert r.completed == 100 and len(r.prompt_tokens) == 100
    assert sum(r.prompt_tokens) == 50561 and sum(r.output_tokens) == 6108  # the totals
    # mean_e2e_latency_ms 1253.022339376621, p99_itl_ms 460.8212916646153
    assert r.measured["e2e_avg_s"] == pytest.approx(1.253022339376621)
    assert r.measured["itl_p99_s"] == pytest.approx(0.4608212916646153)


def test_cli_score_sglang_059(cli):
    r = cli("score", SGLANG_059, "-H", "h100")
    assert r.code == 2 and r.err.count("\n") == 1
    assert "'/workspace/qwen-3-8b'" in r.err and "give --model" in r.err
    r = cli("score", SGLANG_059, "-H", "h100", "-m", "qwen3-8b", "--format", "json")
    assert r.code == 0, r.err
    (run,) = json.loads(r.out)["runs"]
    # server_info's version, tp_size, chunked_prefill_size, mem_fraction_static taken
    assert run["engine"] == "sglang" and run["engine_version"] == "0.5.9"
    assert run["tp"] == 8 and run["max_batched_tokens"] == 8192
    assert "engine_version 0.5.9 from the result file" in r.err
    assert run["arrivals"] == "all at once, at most 100 open (client concurrency)"


def test_cli_score_file_release_yields_to_the_command(cli):
    r = cli("score", SGLANG_059, "-H", "h100", "-m", "qwen3-8b", "--engine-version", "0.5.23",
            "--format", "json")  # fmt: skip
    assert r.code == 0, r.err
    (run,) = json.loads(r.out)["runs"]
    assert run["engine_version"] == "0.5.23" and "engine_version 0.5.9" not in r.err


def test_file_release_is_its_engines_only():
    from calc.reports.score import deployment_options

    (run,) = read_results(SGLANG_059)
    given = {"model": "qwen3-8b", "hardware": "h100"}
    options, notes = deployment_options(run, given)
    assert options["engine"] == "sglang" and options["engine_version"] == "0.5.9"
    # told it was another engine, SGLang's release number is not taken for it
    options, notes = deployment_options(run, {**given, "engine": "vllm"})
    assert "engine_version" not in options and not any("0.5.9" in n for n in notes)
    # a release that is no version number is not taken (it would be refused as one)
    run = dataclasses.replace(run, deployment={**run.deployment, "version": "main"})
    options, _ = deployment_options(run, given)
    assert "engine_version" not in options


# ---------------------------------------------------------------------------------------------
# Truncated and damaged copies: one line each


@pytest.mark.parametrize("path", [VLLM_015, SGLANG_059])
def test_truncated_copies(path):
    text = path.read_text()
    msg = _err(text[: len(text) // 3].encode(), path.name)
    assert "truncated" in msg or "not valid JSON" in msg


def test_damaged_values():
    doc = json.loads(VLLM_015.read_text())
    doc["ttfts"] = doc["ttfts"][:-1]  # one request's TTFT lost
    assert "999 values, expected 1000" in _err(json.dumps(doc).encode())
    line = json.loads(SGLANG_059.read_text())
    line["server_info"] = "0.5.9"
    assert "server_info: expected an object" in _err(json.dumps(line).encode(), "f.jsonl")


def test_cli_truncated_sglang_one_line(cli, tmp_path):
    f = tmp_path / "cut.jsonl"
    f.write_text(SGLANG_059.read_text()[:5000])
    r = cli("score", f, "-H", "h100", "-m", "qwen3-8b")
    assert r.code == 2 and r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1


# ---------------------------------------------------------------------------------------------
# vLLM 0.33's writer (vllm/benchmarks/serve.py, vllm/benchmarks/sweep/serve.py of the wheel)


def _vllm_033(**more) -> dict:
    """A --save-result object as vllm 0.33 writes it without --save-detailed (the settings, the
    result, then the statistics): `latencies` and `queue_times` stay, two requests."""
    doc = {"date": "20261201-120000", "endpoint_type": "vllm", "backend": "vllm",
           "label": None, "model_id": "Qwen/Qwen3-8B", "tokenizer_id": "Qwen/Qwen3-8B",
           "num_prompts": 2, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 1,
           "duration": 1.0, "completed": 2, "failed": 0, "total_input_tokens": 200,
           "total_output_tokens": 20, "request_throughput": 2.0, "request_goodput": None,
           "output_throughput": 20.0, "total_token_throughput": 220.0,
           "latencies": [0.4, 0.5], "queue_times": [0.0, 0.4],
           "max_output_tokens_per_s": 30.0, "max_concurrent_requests": 1, "rtfx": 0.0,
           "mean_ttft_ms": 50.0, "median_ttft_ms": 50.0, "std_ttft_ms": 0.0,
           "p99_ttft_ms": 50.0, "mean_e2el_ms": 450.0, "median_e2el_ms": 450.0,
           "std_e2el_ms": 50.0, "p99_e2el_ms": 499.0,
           "mean_client_queue_time_ms": 200.0, "median_client_queue_time_ms": 200.0,
           "std_client_queue_time_ms": 200.0, "p99_client_queue_time_ms": 396.0}  # fmt: skip
    doc.update(more)
    return doc


def test_vllm_033_latencies_kept_queue_not_compared():
    (r,) = parse_results(json.dumps(_vllm_033()).encode(), "f.json")
    assert r.e2e_each_s == (0.4, 0.5)  # latencies, kept without --save-detailed
    assert r.prompt_tokens is None and r.start_s is None  # these are removed
    assert r.measured["e2e_avg_s"] == pytest.approx(0.45)  # mean_e2el_ms 450
    # the client's queue is not a figure kvcalc compares (it is no serving latency)
    assert not any("queue" in k for k in r.measured)
    assert set(r.measured) >= {"ttft_avg_s", "ttft_p50_s", "ttft_p99_s", "e2e_p99_s"}


def test_vllm_033_pooling_run_refused():
    # a pooling model's result: no output tokens, sequences per second, E2EL only
    doc = _vllm_033(total_input_sequences=2, input_sequence_throughput=2.0)
    for key in ("failed", "total_output_tokens", "output_throughput", "request_goodput",
                "max_output_tokens_per_s", "max_concurrent_requests", "rtfx", "mean_ttft_ms",
                "median_ttft_ms", "std_ttft_ms", "p99_ttft_ms"):  # fmt: skip
        doc.pop(key)
    msg = _err(json.dumps(doc).encode())
    assert "total_output_tokens: missing: a pooling run" in msg


def test_vllm_sweep_failure_record_named():
    doc = {"run_number": 0, "error_type": "TimeoutError", "error": "server did not answer",
           "serve_overrides": {"max_num_seqs": 4}, "bench_overrides": {"max_concurrency": 2}}
    msg = _err(json.dumps(doc).encode(), "run=0.failure.json")
    assert "vllm bench sweep failure record" in msg and "TimeoutError" in msg
    assert "run=N.json or summary.json" in msg


def test_vllm_sweep_summary_csv_named():
    # pandas' DataFrame.to_csv of the sweep's records: the unnamed index, then the keys
    csv = (",max_num_seqs,max_concurrency,run_number,date,backend,model_id,duration,completed,"
           "failed,request_throughput,mean_ttft_ms\n"
           "0,4,2,0,20261201-120000,vllm,Qwen/Qwen3-8B,1.0,8,0,8.0,20.0\n")  # fmt: skip
    msg = _err(csv.encode(), "summary.csv")
    assert "vllm bench sweep's summary.csv" in msg and "summary.json" in msg


# ---------------------------------------------------------------------------------------------
# trtllm-bench --report_json: no client concurrency recorded


def test_trtllm_report_json_says_it_records_no_concurrency():
    # get_statistics_dict's keys (NVIDIA/TensorRT-LLM@2787769 reporting.py), values made up
    doc = {
        "engine": {"model": "Qwen/Qwen3-8B", "version": "1.2.0", "backend": "Pytorch"},
        "machine": None,  # no CUDA device seen by the writer: it writes null
        "world_info": {"tp_size": 1, "pp_size": 1, "ep_size": 1, "world_size": 1,
                       "max_batch_size": 256, "max_num_tokens": 8192, "issue_rate": 3e14},
        "request_info": {"num_requests": 64, "avg_num_concurrent_requests": 31.5,
                         "avg_input_length": 1024.0, "avg_output_length": 128.0},
        "performance": {"total_latency_ms": 8000.0, "request_throughput_req_s": 8.0,
                        "system_output_throughput_tok_s": 1024.0},
    }  # fmt: skip
    (r,) = parse_results(json.dumps(doc).encode(), "report.json")
    # 64 requests / 8 s = 8/s; 64 x 128 tokens / 8 s = 1,024/s: no contradiction
    (note,) = r.notes
    assert "states no client --concurrency" in note and "31.5 requests" in note
