"""Self-contradictory result files (issue 23): each consistency check
(``calc.data.bench_results.consistency``) refused in one line, on a minimal edit of a real file
of tests/data/bench_results (one value changed), and every real file still read as it is."""

from __future__ import annotations

import json

import pytest

from calc.data.bench_results import parse_results, read_results
from calc.errors import ConfigError
from tests.test_bench_results import AIPERF, DATA, GUIDELLM, SGLANG, VLLM_QPS4
from tests.test_bench_results_formats import _aiperf_record

TRTLLM = DATA / "trtllm-bench-1.1.0rc2_llama-3.2-3b_tp1_rtx-pro-6000_conc8.txt"
GENAI_TABLE = DATA / "genai-perf_vicuna-7b_trtllm_rtx-5880_conc1.txt"
GENAI_CSV = DATA / "genai-perf_llama-3.1-405b-fp8_dynamo_profile_export_genai_perf.csv"
_NOT_RESULTS = ("README.md", "llama-3.2-3b.yaml", "qwen3-0.6b.yaml")


SAID = "the file contradicts itself, scored as read: "


def _err(raw: bytes, name: str) -> str:
    """The one line a contradicted file's runs carry among their notes (it is scored as read)."""
    runs = parse_results(raw, name)
    said = {n.removeprefix(SAID) for r in runs for n in r.notes if n.startswith(SAID)}
    assert len(said) == 1, said
    (msg,) = said
    assert "\n" not in msg
    return msg


def _refused(raw: bytes, name: str) -> str:
    """The one error line of a file kvcalc cannot score (requests completed in no time)."""
    with pytest.raises(ConfigError) as e:
        parse_results(raw, name)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def _vllm(**changes) -> bytes:
    """The vLLM 0.8.3 qps-4 file (200 requests, detailed) with ``changes``; None drops a key."""
    doc = {**json.loads(VLLM_QPS4.read_text()), **changes}
    return json.dumps({k: v for k, v in doc.items() if v is not None}).encode()


@pytest.mark.parametrize("path", sorted(p for p in DATA.iterdir() if p.name not in _NOT_RESULTS),
                         ids=lambda p: p.name[:60])  # fmt: skip
def test_every_real_file_passes(path):
    runs = read_results(path)  # their values are tested in the other test_bench_results files
    assert runs and not any(n.startswith(SAID) for r in runs for n in r.notes)


# vLLM's writer (benchmark_serving.py / vllm/benchmarks/serve.py, calculate_metrics):
# total_output_tokens = sum(output_lens); the lists hold every request sent; completed the
# successes; the throughputs are the totals over the duration
VLLM_CASES = {
    "output_lens all 0": (
        {"output_lens": [0] * 200},
        "run.json: total_output_tokens says 42,449 but output_lens says 0 in all (the writer "
        "sums them)",
    ),
    "completed 0 beside 200 successes": (
        {"completed": 0},
        "run.json: completed says 0 but errors says 200 requests without an error (completed "
        "counts the successes)",
    ),
    "completed 0 beside 200 outputs": (
        {"completed": 0, "errors": None},
        "run.json: completed says 0 but output_lens says 200 requests with output (a failed "
        "request has no output)",
    ),
    "completed 0 beside 200 ttfts": (
        {"completed": 0, "errors": None, "output_lens": None},
        "run.json: completed says 0 but ttfts says 200 requests with a first token (a failed "
        "request has no first token)",
    ),
    "more completed than listed": (
        {"completed": 250},
        "run.json: completed says 250 but input_lens says 200 requests (the lists hold every "
        "request)",
    ),
    "failed not in the lists": (
        {"failed": 3},
        "run.json: input_lens says 200 requests but completed + failed says 200 + 3 (the lists "
        "hold every request)",
    ),
    "input total": (
        {"total_input_tokens": 42660},
        "run.json: total_input_tokens says 42,660 but input_lens says 42,659 over the "
        "completed requests (the writer sums them)",
    ),
    "request throughput": (
        {"request_throughput": 4.0},
        "run.json: request_throughput says 4 but completed / duration says 200 / 62.9883 = "
        "3.17519 (the writer divides them)",
    ),
    "output throughput": (
        {"output_throughput": 700.0},
        "run.json: output_throughput says 700 but total_output_tokens / duration says 42,449 / "
        "62.9883 = 673.918 (the writer divides them)",
    ),
    "total token throughput": (
        {"total_token_throughput": 1400.0},
        "run.json: total_token_throughput says 1400 but (total_input_tokens + "
        "total_output_tokens) / duration says 85,108 / 62.9883 = 1351.17 (the writer divides them)",
    ),
    "percentiles out of order": (
        {"p99_ttft_ms": 10.0},
        "run.json: median_ttft_ms says 49.5001 but p99_ttft_ms says 10 (percentiles rise with "
        "q, within min..max)",
    ),
}


@pytest.mark.parametrize("case", VLLM_CASES)
def test_vllm_contradictions(case):
    changes, message = VLLM_CASES[case]
    assert _err(_vllm(**changes), "run.json") == message


def test_vllm_requests_in_no_time_refused():
    assert _refused(_vllm(duration=0), "run.json") == (
        "run.json: duration says 0 but completed says 200 (requests completed in no time)"
    )


def test_vllm_first_token_after_the_end():
    # the per-request latencies later releases keep with --save-detailed, added to the qps-4
    # file: each at least its TTFT
    ttfts = json.loads(VLLM_QPS4.read_text())["ttfts"]
    latencies = [t + 1.0 for t in ttfts]
    parse_results(_vllm(latencies=latencies), "run.json")
    latencies[3] = ttfts[3] / 2
    assert _err(_vllm(latencies=latencies), "run.json") == (
        f"run.json: ttfts[3] says {ttfts[3]:.6g} but latencies[3] says {ttfts[3] / 2:.6g} (the "
        "first token comes within the request)"
    )


def _sglang_first(**changes) -> bytes:
    doc = {**json.loads(SGLANG.read_text().splitlines()[0]), **changes}
    return json.dumps(doc).encode()


def test_sglang_contradictions():
    doc = json.loads(SGLANG.read_text().splitlines()[0])
    raw = _sglang_first(output_throughput=doc["output_throughput"] * 1.1)
    assert _err(raw, "sg.jsonl") == (
        "sg.jsonl: output_throughput says 591.156 but total_output_tokens / duration says "
        "160,347 / 298.368 = 537.414 (the writer divides them)"
    )
    # the 2024 line states only the median ITL: a p90 above it is no contradiction, below is
    parse_results(_sglang_first(p90_itl_ms=1e6), "sg.jsonl")
    assert _err(_sglang_first(p90_itl_ms=1.0), "sg.jsonl") == (
        "sg.jsonl: median_itl_ms says 13.639 but p90_itl_ms says 1 (percentiles rise with q, "
        "within min..max)"
    )


def _guidellm(stat: str, value: float, pct: bool = False) -> bytes:
    doc = json.loads(GUIDELLM.read_text())
    s = doc["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"]
    (s["percentiles"] if pct else s)[stat] = value
    return json.dumps(doc).encode()


def test_guidellm_contradictions():
    key = "metrics.time_to_first_token_ms.successful"
    assert _err(_guidellm("mean", 80.0), "benchmarks.json") == (
        f"benchmarks.json#1: {key}.mean says 80 but {key}.max says 72.7978 (a mean lies within "
        "min..max)"
    )
    assert _err(_guidellm("p90", 50.0, pct=True), "benchmarks.json") == (
        f"benchmarks.json#1: {key}.min says 53.6938 but {key}.percentiles.p90 says 50 "
        "(percentiles rise with q, within min..max)"
    )
    # p001 is the 0.1th percentile, p999 the 99.9th: p999 below p95 is out of order
    assert _err(_guidellm("p999", 72.0, pct=True), "benchmarks.json") == (
        f"benchmarks.json#1: {key}.percentiles.p95 says 72.7978 but {key}.percentiles.p999 says "
        "72 (percentiles rise with q, within min..max)"
    )


def test_guidellm_request_first_token_after_its_end():
    doc = json.loads(GUIDELLM.read_text())
    q = doc["benchmarks"][0]["requests"]["successful"][2]
    q["time_to_first_token_ms"] = q["request_latency"] * 1000 + 1.0
    msg = _err(json.dumps(doc).encode(), "benchmarks.json")
    assert msg == (
        "benchmarks.json#1: requests.successful[2]: time_to_first_token_ms / 1000 says "
        f"{q['time_to_first_token_ms'] / 1000:.6g} but request_latency says "
        f"{q['request_latency']:.6g} (the first token comes within the request)"
    )


def _aiperf(**changes) -> bytes:
    doc = json.loads(AIPERF.read_text())
    for key, (stat, value) in changes.items():
        doc[key] = {**doc[key], stat: value}
    return json.dumps(doc).encode()


def test_aiperf_contradictions():
    assert _err(_aiperf(request_count=("avg", 200.0)), "pe.json") == (
        "pe.json: request_throughput.avg says 0.0478364 but request_count.avg / "
        "benchmark_duration.avg says 200 / 1818.7 = 0.109969 (the writer divides them)"
    )
    assert _err(_aiperf(total_osl=("avg", 71000.0)), "pe.json") == (
        "pe.json: total_osl.avg says 71,000 but output_sequence_length.sum says 71,376 (the "
        "total is the lengths' sum)"
    )
    assert _err(_aiperf(time_to_first_token=("avg", 300000.0)), "pe.json") == (
        "pe.json: time_to_first_token.avg says 300000 but time_to_first_token.max says 264830 "
        "(a mean lies within min..max)"
    )
    assert _err(_aiperf(request_latency=("p50", 1.0)), "pe.json") == (
        "pe.json: request_latency.min says 98488.6 but request_latency.p50 says 1 (percentiles "
        "rise with q, within min..max)"
    )


def test_no_time_for_the_requests():
    assert _refused(_aiperf(benchmark_duration=("avg", 0.0)), "pe.json") == (
        "pe.json: benchmark_duration.avg says 0 but request_count.avg says 87 (requests "
        "completed in no time)"
    )
    raw = TRTLLM.read_text().replace("3368.3769", "0.0000").encode()
    assert _refused(raw, "report.txt") == (
        "report.txt: performance.total_latency_ms says 0 but request_info.num_requests says 16 "
        "(requests completed in no time)"
    )


def test_aiperf_record_first_token_after_its_end():
    lines = [_aiperf_record(1.0, 100.0, 1100.0, 200, 11), _aiperf_record(2.0, 100.0, 500.0, 9, 3)]
    lines[1]["metrics"]["time_to_first_token"]["value"] = 900.0  # after the request's end
    raw = "".join(json.dumps(x) + "\n" for x in lines).encode()
    assert _err(raw, "profile_export.jsonl") == (
        "profile_export.jsonl: record 2: time_to_first_token says 0.9 but request_latency says "
        "0.5 (the first token comes within the request)"
    )


def test_trtllm_report_contradictions():
    text = TRTLLM.read_text()
    pct = "performance.request_latency_percentiles_ms"
    assert _err(text.replace("4.7501", "5.7501").encode(), "report.txt") == (
        "report.txt: performance.request_throughput_req_s says 5.7501 but "
        "request_info.num_requests / performance.total_latency_ms [s] says 16 / 3.36838 = "
        "4.75006 (the writer divides them)"
    )
    assert _err(text.replace("1216.0159", "2216.0159", 1).encode(), "report.txt") == (
        "report.txt: performance.system_output_throughput_tok_s says 2216.02 but "
        "request_info.num_requests × avg_output_length / performance.total_latency_ms [s] says "
        "4096 / 3.36838 = 1216.02 (the writer divides them)"
    )
    raw = text.replace("[Latency] P90    : 1683.8753", "[Latency] P90    : 1693.8753").encode()
    assert _err(raw, "report.txt") == (
        f"report.txt: {pct}.p90 says 1693.88 but {pct}.p95 says 1683.96 (percentiles rise with "
        "q, within min..max)"
    )
    # the printed figures' rounding (4 decimals) is no contradiction
    parse_results(text.replace("4.7501", "4.7502").encode(), "report.txt")


def test_genai_perf_printed_contradictions():
    table = GENAI_TABLE.read_text().replace("2,663.13", "5,663.13")
    assert _err(table.encode(), "table.txt") == (
        "table.txt: request_latency.avg says 5663.13 but request_latency.max says 4197.72 (a "
        "mean lies within min..max)"
    )
    csv = GENAI_CSV.read_text().replace('"3,457.97"', '"3,557.97"')
    assert _err(csv.encode(), "pe.csv") == (
        "pe.csv: time_to_first_token.p99 says 3557.97 but time_to_first_token.max says 3485.23 "
        "(percentiles rise with q, within min..max)"
    )


def test_cli_score_contradiction_said_and_scored(cli, tmp_path):
    # a file whose totals disagree with its per-request lists: scored as read (a fork or later
    # release of a writer may loosen a relation), the contradiction in the run's notes
    f = tmp_path / "run.json"
    f.write_bytes(_vllm(total_output_tokens=52449))
    r = cli("score", f, "-H", "h100", "--tp", "4", "-f", "json")
    assert r.code == 0, r.err
    (run,) = r.json()["runs"]
    said = (f"{f}: total_output_tokens says 52,449 but output_lens says 42,449 in all (the "
            "writer sums them)")  # fmt: skip
    assert said in run["notes"]
    assert r.err.count(said) == 1  # and on stderr, once (score warns each run's notes)
