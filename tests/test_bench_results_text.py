"""Printed benchmark reports (issue 23): trtllm-bench's terminal report and GenAI-Perf's "LLM
Metrics" table / CSV export, read from real copies in tests/data/bench_results (sources in its
README), from inputs laid out as their writers write them (marked as such), and malformed or
truncated copies refused with one clear line."""

from __future__ import annotations

import pytest

from calc.data.bench_results import parse_results, read_results
from calc.errors import ConfigError
from tests.test_bench_results import DATA

TRTLLM = DATA / "trtllm-bench-1.1.0rc2_llama-3.2-3b_tp1_rtx-pro-6000_conc8.txt"
GENAI = DATA / "genai-perf_vicuna-7b_trtllm_rtx-5880_conc1.txt"
LLAMA32_3B = DATA / "llama-3.2-3b.yaml"
GENAI_CSV = DATA / "genai-perf_llama-3.1-405b-fp8_dynamo_profile_export_genai_perf.csv"
DEEPSEEK = DATA / "trtllm-bench-1.1.0rc1_deepseek-r1-0528-nvfp4_tp4_ep4_gb200_1k1k.txt"


def test_trtllm_bench_printed_report():
    (r,) = read_results(TRTLLM)
    assert r.tool == "trtllm-bench" and r.backend == "trtllm"
    assert r.model == "meta-llama/Llama-3.2-3B-Instruct" and r.tool_version == "1.1.0rc2"
    assert r.completed == 16 and r.rate_per_s is None  # Issue Rate 1.0535E+17: all at once
    assert r.duration_s == pytest.approx(3.3683769)  # Total Latency (ms) 3368.3769
    # 16 requests x 256 output tokens = 4,096; 4,096 / 3.3683769 s = 1,216.02 tokens/s, the
    # printed Total Output Throughput: the lengths and the duration agree
    assert r.total_output_tokens == 4096
    assert r.total_output_tokens / r.duration_s == pytest.approx(
        r.measured["output_tokens_per_s"], rel=1e-5
    )
    assert r.measured["requests_per_s"] == pytest.approx(4.7501)
    assert r.measured["e2e_avg_s"] == pytest.approx(1.6829355)  # Average request latency
    assert r.measured["e2e_p99_s"] == pytest.approx(1.6839602)  # [Latency] P99
    assert "ttft_avg_s" not in r.measured  # run without --streaming
    assert r.prompt_lengths.a == 13.0 and r.output_lengths.a == 256.0
    d = r.deployment
    assert (d["tp"], d["pp"], d["max_num_seqs"], d["max_batched_tokens"]) == (
        "1", "1", "2816", "3072",
    )  # fmt: skip
    assert float(d["mem_util"]) == pytest.approx(0.90)  # KV Memory Percentage 90.00%
    assert "ep" not in d and "quantization" not in d  # EP Size: None, Quantization: None
    assert any("7.994" in n and "--concurrency" in n for n in r.notes)


def test_trtllm_bench_report_pasted_in_a_pull_request():
    (r,) = read_results(DEEPSEEK)
    assert r.model == "deepseek-ai/DeepSeek-R1" and r.completed == 6144
    d = r.deployment
    assert (d["tp"], d["ep"], d["max_num_seqs"]) == ("4", "4", "1024")
    assert (d["kv_dtype"], d["quantization"]) == ("FP8", "NVFP4")
    assert float(d["mem_util"]) == pytest.approx(0.70)
    # 6,144 requests / 836.9349168 s = 7.3411 requests/s, as printed; x 1,024 output tokens
    # = 7,517.26 tokens/s, as printed
    assert 6144 / r.duration_s == pytest.approx(r.measured["requests_per_s"], rel=1e-4)
    assert r.total_output_tokens / r.duration_s == pytest.approx(7517.2584, rel=1e-6)
    assert r.measured["e2e_avg_s"] == pytest.approx(138.7846399)
    # requests in flight on average = sum of latencies / run = 6,144 x 138.78 s / 836.93 s
    # = 1,018.8, the printed "Number of concurrent requests"
    assert 6144 * r.measured["e2e_avg_s"] / r.duration_s == pytest.approx(1018.8281, rel=1e-4)


def test_trtllm_bench_streaming_layout():
    # laid out as ReportUtility.report_statistics prints it with --streaming
    # (NVIDIA/TensorRT-LLM@0249976, tensorrt_llm/bench/dataclasses/reporting.py); built here
    text = """\
[12/01/2025-10:00:00] [TRT-LLM] [I] Model: ignored (before the report)
===========================================================
= PYTORCH BACKEND
===========================================================
Model:\t\t\tmeta-llama/Llama-3.1-8B-Instruct
TensorRT LLM Version:\t1.2.0
Dtype:                  bfloat16
KV Cache Dtype:         FP8
Quantization:           FP8

===========================================================
= REQUEST DETAILS
===========================================================
Number of requests:             100
Number of concurrent requests:  63.2000
Average Input Length (tokens):  1024.0000
Average Output Length (tokens): 128.0000
===========================================================
= WORLD + RUNTIME INFORMATION
===========================================================
TP Size:                2
PP Size:                1
EP Size:                None
Max Runtime Batch Size: 64
Max Runtime Tokens:     8192
Scheduling Policy:      GUARANTEED_NO_EVICT
KV Memory Percentage:   85.00%
Issue Rate (req/sec):   4.0000E+00

===========================================================
= PERFORMANCE OVERVIEW
===========================================================
Request Throughput (req/sec):                     3.9000
Total Output Throughput (tokens/sec):             499.2000
Total Token Throughput (tokens/sec):              4492.8000
Total Latency (ms):                               25641.0256
Average request latency (ms):                     1500.0000
Per User Output Throughput [w/ ctx] (tps/user):   85.3333
Per GPU Output Throughput (tps/gpu):              249.6000
Average time-to-first-token [TTFT] (ms):          120.5000
Average time-per-output-token [TPOT] (ms):        10.8661
Per User Output Speed (tps/user):                 92.0295

-- Per-Request Time-per-Output-Token [TPOT] Breakdown (ms)

[TPOT] MINIMUM: 9.0000
[TPOT] MAXIMUM: 14.0000
[TPOT] AVERAGE: 10.8661
[TPOT] P50    : 10.5000
[TPOT] P90    : 12.0000
[TPOT] P95    : 13.0000
[TPOT] P99    : 13.9000

-- Per-Request Time-to-First-Token [TTFT] Breakdown (ms)

[TTFT] MINIMUM: 60.0000
[TTFT] MAXIMUM: 400.0000
[TTFT] AVERAGE: 120.5000
[TTFT] P50    : 100.0000
[TTFT] P90    : 250.0000
[TTFT] P95    : 300.0000
[TTFT] P99    : 390.0000

-- Request Latency Breakdown (ms) -----------------------

[Latency] P50    : 1450.0000
[Latency] AVERAGE: 1500.0000

===========================================================
= DATASET DETAILS
===========================================================
Model: not the model either (after the report)
"""
    (r,) = parse_results(text.encode(), "report.txt")
    assert r.model == "meta-llama/Llama-3.1-8B-Instruct" and r.tool_version == "1.2.0"
    assert r.rate_per_s == pytest.approx(4.0)  # an issue rate of 4/s is a Poisson rate
    assert r.measured["ttft_avg_s"] == pytest.approx(0.1205)
    assert r.measured["ttft_p99_s"] == pytest.approx(0.390)
    assert r.measured["tpot_p50_s"] == pytest.approx(0.0105)
    assert r.measured["tpot_avg_s"] == pytest.approx(0.0108661)
    assert r.measured["e2e_p50_s"] == pytest.approx(1.450)
    assert r.deployment["tp"] == "2" and r.deployment["kv_dtype"] == "FP8"
    assert float(r.deployment["mem_util"]) == pytest.approx(0.85)
    assert r.total_input_tokens == 102_400  # 100 x 1,024


def test_trtllm_bench_old_statistics_layout():
    # the pre-0.17 layout (TensorRT-LLM docs' perf-benchmarking page): "= STATISTICS", output
    # tokens over the run as "Token Throughput", the run's length in seconds; built here
    text = """\
===========================================================
= WORLD + RUNTIME INFORMATION
===========================================================
TP Size:                1
PP Size:                1
Max Runtime Batch Size: 4096
Max Runtime Tokens:     8192
Scheduling Policy:      Guaranteed No Evict
KV Memory Percentage:   99.0%
Issue Rate (req/sec):   3.680275266452667e+18
===========================================================
= STATISTICS
===========================================================
Number of requests:             3000
Average Input Length (tokens):  128.0
Average Output Length (tokens): 128.0
Token Throughput (tokens/sec):  24000.0
Request Throughput (req/sec):   187.5
Total Latency (seconds):        16.0
===========================================================
"""
    (r,) = parse_results(text.encode(), "old.txt")
    assert r.duration_s == pytest.approx(16.0)
    # 3,000 x 128 = 384,000 output tokens / 16 s = 24,000 tokens/s, as printed
    assert r.measured["output_tokens_per_s"] == pytest.approx(24_000.0)
    assert r.completed == 3000 and r.rate_per_s is None
    assert float(r.deployment["mem_util"]) == pytest.approx(0.99)


def test_genai_perf_printed_table():
    (r,) = read_results(GENAI)
    assert r.tool == "genai-perf" and r.model is None
    assert r.completed == 12  # Request Count (count)
    assert r.measured["e2e_avg_s"] == pytest.approx(2.66313)  # 2,663.13 ms
    assert r.measured["e2e_p99_s"] == pytest.approx(4.18659)
    assert r.measured["e2e_p90_s"] == pytest.approx(4.09625)
    assert r.measured["output_tokens_per_s"] == pytest.approx(116.68)
    assert r.measured["requests_per_s"] == pytest.approx(0.38)
    # 12 requests x 310.75 output tokens = 3,729 tokens at 116.68/s: 31.96 s; 12 / 31.96 s =
    # 0.375 requests/s, printed 0.38: the table agrees with itself
    assert 12 * r.output_lengths.a / 116.68 == pytest.approx(31.96, abs=0.01)
    assert r.prompt_lengths.a == pytest.approx(145.67) and r.output_lengths.a == 310.75
    assert any("no model" in n for n in r.notes)


def test_genai_perf_csv_export_real():
    (r,) = read_results(GENAI_CSV)
    assert r.completed == 40  # Request Count (count), in the Metric,Value block
    assert r.measured["ttft_avg_s"] == pytest.approx(1.14631)  # "1,146.31", quoted
    assert r.measured["ttft_p50_s"] == pytest.approx(0.64007)
    assert r.measured["tpot_p99_s"] == pytest.approx(0.03523)  # Inter Token Latency p99
    assert r.measured["e2e_p90_s"] == pytest.approx(9.02816)
    assert "ttft_p95_s" not in r.measured  # p95, p75, p25: not statistics kvcalc compares
    # 1.50 requests/s x 174.45 output tokens = 261.7 tokens/s against 261.25 printed (the
    # request rate is rounded to two places)
    assert 1.50 * r.output_lengths.a == pytest.approx(r.measured["output_tokens_per_s"], rel=3e-3)
    assert r.prompt_lengths.a == pytest.approx(3000.05)


def test_genai_perf_streaming_table_wrapped_name():
    # laid out as genai_perf/export_data/console_exporter.py prints it (genai-perf 0.0.12+):
    # a long name wrapped onto a second row; built here
    rows = [
        ("Time To First Token (ms)", "40.00", "20.00", "50.00", "49.00", "45.00", "42.00"),
        ("Time To Second Token (ms)", "15.00", "13.00", "17.00", "17.00", "16.00", "15.00"),
        ("Request Latency (ms)", "1,800.00", "1,700.00", "1,900.00", "1,899.00", "1,850.00",
         "1,820.00"),
        ("Inter Token Latency (ms)", "18.00", "17.00", "19.00", "19.00", "18.50", "18.20"),
        ("Output Token Throughput Per User", "57.00", "54.00", "59.00", "59.00", "58.50", "58.20"),
        ("(tokens/sec/user)", "", "", "", "", "", ""),
        ("Output Sequence Length (tokens)", *["100.00"] * 6),
        ("Input Sequence Length (tokens)", *["128.00"] * 6),
        ("Output Token Throughput (tokens/sec)", "55.00", *["N/A"] * 5),
        ("Request Throughput (per sec)", "0.55", *["N/A"] * 5),
        ("Request Count (count)", "10.00", *["N/A"] * 5),
    ]  # fmt: skip
    w = (36, 8, 8, 8, 8, 8, 8)
    head = ("Statistic", "avg", "min", "max", "p99", "p90", "p75")
    text = "\n".join([
        "NVIDIA GenAI-Perf | LLM Metrics",
        "┏" + "┳".join("━" * (n + 2) for n in w) + "┓",
        "┃" + "┃".join(f" {c:>{n}} " for c, n in zip(head, w, strict=True)) + "┃",
        "┡" + "╇".join("━" * (n + 2) for n in w) + "┩",
        *("│" + "│".join(f" {c:>{n}} " for c, n in zip(row, w, strict=True)) + "│"
          for row in rows),
        "└" + "┴".join("─" * (n + 2) for n in w) + "┘",
    ])  # fmt: skip
    (r,) = parse_results(text.encode(), "console.txt")
    assert r.measured["ttft_avg_s"] == pytest.approx(0.040)
    assert r.measured["ttft_p90_s"] == pytest.approx(0.045)
    assert r.measured["tpot_avg_s"] == pytest.approx(0.018)  # inter token latency: vLLM's TPOT
    assert r.measured["e2e_avg_s"] == pytest.approx(1.8)  # 1,800.00 ms, thousands separator
    assert r.measured["output_tokens_per_s"] == pytest.approx(55.0)  # not the per-user row
    assert r.completed == 10


def test_genai_perf_old_table_with_loose_throughputs():
    # the genai-perf 0.0.4 layout (triton-inference-server/tutorials, Popular_Models_Guide/
    # Llama2/trtllm_guide.md): lower-case row names, throughputs printed under the table
    text = """\
                                                  LLM Metrics
┏━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┓
┃              Statistic ┃      avg ┃      min ┃      max ┃      p99 ┃      p90 ┃      p75 ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━┩
│   Request latency (ms) │ 1,630.23 │ 1,616.37 │ 1,644.65 │ 1,644.05 │ 1,638.70 │ 1,635.64 │
│ Output sequence length │   300.00 │   300.00 │   300.00 │   300.00 │   300.00 │   300.00 │
│  Input sequence length │   200.00 │   200.00 │   200.00 │   200.00 │   200.00 │   200.00 │
└────────────────────────┴──────────┴──────────┴──────────┴──────────┴──────────┴──────────┘
Output token throughput (per sec): 184.02
Request throughput (per sec): 0.61
"""
    (r,) = parse_results(text.encode(), "old.txt")
    assert r.measured["e2e_avg_s"] == pytest.approx(1.63023)
    assert r.measured["output_tokens_per_s"] == pytest.approx(184.02)
    assert r.measured["requests_per_s"] == pytest.approx(0.61)


def test_genai_perf_csv_export():
    # laid out as genai_perf/export_data/csv_exporter.py writes profile_export_genai_perf.csv
    # (genai-perf 0.0.16); built here
    text = (
        "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\r\n"
        "Time To First Token (ms),30.00,20.00,40.00,39.90,39.50,39.00,35.00,30.00,25.00\r\n"
        "Request Latency (ms),500.00,400.00,600.00,599.00,595.00,590.00,550.00,500.00,450.00\r\n"
        "Inter Token Latency (ms),4.70,4.00,5.00,5.00,5.00,4.90,4.80,4.70,4.60\r\n"
        "Output Sequence Length,100.00,100.00,100.00,100.00,100.00,100.00,100.00,100.00,100.00\r\n"
        "Input Sequence Length,200.00,200.00,200.00,200.00,200.00,200.00,200.00,200.00,200.00\r\n"
        "\r\n"
        "Metric,Value\r\n"
        'Output Token Throughput (per sec),"1,600.00"\r\n'
        "Request Throughput (per sec),16.00\r\n"
    )
    (r,) = parse_results(text.encode(), "profile_export_genai_perf.csv")
    assert r.measured["ttft_p50_s"] == pytest.approx(0.030)  # the CSV has p50; the table not
    assert r.measured["tpot_avg_s"] == pytest.approx(0.0047)
    assert r.measured["output_tokens_per_s"] == pytest.approx(1600.0)
    assert r.measured["requests_per_s"] == pytest.approx(16.0)


# ---------------------------------------------------------------------------------------------
# Malformed and truncated copies: one clear line each


def _err(raw: bytes, name: str = "f.txt") -> str:
    with pytest.raises(ConfigError) as e:
        parse_results(raw, name)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(name)
    return msg


def test_truncated_trtllm_report():
    text = TRTLLM.read_text()
    cut = text[: text.index("Request Throughput (req/sec)")] + "Request Throughput (req/sec): "
    assert "no value" in _err(cut.encode()) and "truncated" in _err(cut.encode())
    # cut at a breakdown line with its value missing, as a pasted copy can be
    lines = text.replace("[Latency] P99    : 1683.9602", "[Latency] P99    :")
    assert "[Latency] P99: no value" in _err(lines.encode())


def test_trtllm_report_cut_after_a_header():
    text = TRTLLM.read_text()
    cut = text[: text.index("Request Throughput (req/sec)")]  # the copy ends at the overview
    assert "without its 'Request Throughput (req/sec)' line" in _err(cut.encode())
    head = text[: text.index("Model:")]  # only "= PYTORCH BACKEND" and its rules
    assert "truncated" in _err(head.encode())


def test_trtllm_report_bad_values():
    text = TRTLLM.read_text()
    assert "'fast' is not a number" in _err(text.replace("4.7501", "fast").encode())
    assert "second trtllm-bench report" in _err((text + text).encode())


def test_truncated_genai_perf_table():
    text = GENAI.read_text()
    assert "no closing line" in _err(text[: text.index("└")].encode())
    half = text[: text.index("│ Output Token")] + "│ Output Token Throughput (per sec) │ 116.68 │\n"
    assert "1 values, expected 6" in _err(half.encode())
    assert "is not a number" in _err(text.replace("2,663.13", "2,66x.13").encode())


def test_genai_perf_table_without_latency_rows():
    text = "\n".join(
        line for line in GENAI.read_text().splitlines() if "Request Latency" not in line
    )
    assert "without its Time To First Token or Request Latency row" in _err(text.encode())


def test_other_text_names_the_formats():
    msg = _err(b"============ Serving Benchmark Result ============\nSuccessful requests: 8\n")
    assert "neither JSON nor a printed report" in msg and "trtllm-bench printed report" in msg


def test_damaged_genai_perf_csv():
    text = "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\nRequest Latency (ms),500.00,400.00\n"
    assert "2 values, expected 9" in _err(text.encode(), "p.csv")


def test_cli_scores_printed_report(cli):
    r = cli("score", TRTLLM, "-H", "rtx-pro-6000", "-m", LLAMA32_3B, "--format", "json")
    assert r.code == 0, r.err
    assert "no client --concurrency" in r.err  # the report's gap, said as a warning


def test_cli_concurrency_caps_the_replay(cli):
    """--concurrency gives a report's client limit (the report does not record it): 16
    requests at most 8 open is two waves, against one wave of 16 without it."""
    import json

    base = ("score", TRTLLM, "-H", "rtx-pro-6000", "-m", LLAMA32_3B, "--format", "json")
    capped = cli(*base, "--concurrency", "8")
    assert capped.code == 0, capped.err
    doc = json.loads(capped.out)
    assert "at most 8 open (client concurrency from --concurrency)" in doc["runs"][0]["arrivals"]
    burst = json.loads(cli(*base).out)
    assert "all at once" in burst["runs"][0]["arrivals"]
    assert "at most" not in burst["runs"][0]["arrivals"]

    def rate(d):
        return next(m["predicted"] for m in d["metrics"] if m["metric"] == "requests_per_s")

    # 8 open at a time: half the batch per decode step, so fewer requests a second than 16 at
    # once (each step's time barely grows from batch 8 to 16 on a 3B model)
    assert rate(doc) < rate(burst)
    for bad in ("0", "-2"):
        r = cli(*base, "--concurrency", bad)
        assert r.code == 2 and r.err.count("\n") == 1 and "--concurrency" in r.err


def test_cli_truncated_report_one_line(cli, tmp_path):
    f = tmp_path / "report.txt"
    text = TRTLLM.read_text()
    f.write_text(text[: text.index("[Latency] P99") + len("[Latency] P99    :")])
    r = cli("score", f, "-H", "rtx-pro-6000", "-m", LLAMA32_3B)
    assert r.code == 2 and r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1
    assert "no value" in r.err
