"""Fuzz targets, one per benchmark result reader (issue 23): each real file of
tests/data/bench_results (and the GenAI-Perf and trtllm-bench layouts of
tests/test_bench_results.py) mutated three ways with a fixed seed: cut at a random byte, random
bytes overwritten, one value of the parsed document replaced by a hostile one (wrong type,
NaN, ±inf, 10^400, a deep list, a huge string). The reader must return runs whose figures are
finite, or raise one single-line ConfigError: no other exception, no traceback. A few seconds
in all (``KVCALC_FUZZ_EXAMPLES`` per target and strategy, default 25)."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from calc.data.bench_results import parse_results
from calc.errors import ConfigError
from tests.test_bench_results import AIPERF, GUIDELLM, SGLANG, VLLM_QPS4

EXAMPLES = int(os.environ.get("KVCALC_FUZZ_EXAMPLES", "25"))
GENAI = {
    "request_throughput": {"unit": "requests/sec", "avg": 2.5},
    "time_to_first_token": {"unit": "ms", "avg": 40.0, "p50": 38.0, "p99": 90.0},
    "inter_token_latency": {"unit": "ms", "avg": 12.5, "p50": 12.0},
    "input_config": {"perf_analyzer": {"stimulus": {"concurrency": 8}}},
}
TRTLLM = {
    "engine": {"model": "m", "version": "1.0"},
    "machine": {"name": "NVIDIA H100 80GB HBM3"},
    "world_info": {"tp_size": 1, "issue_rate": 1e14},
    "request_info": {"num_requests": 10, "avg_input_length": 128.0, "avg_output_length": 64.0},
    "performance": {"total_latency_ms": 1000.0, "request_throughput_req_s": 10.0},
    "streaming_metrics": {"avg_ttft_ms": 30.0, "ttft_percentiles": {"p50": 25.0}},
}
TARGETS = {
    "vllm": VLLM_QPS4.read_bytes(),
    "sglang": SGLANG.read_bytes(),
    "guidellm": GUIDELLM.read_bytes(),
    "aiperf": AIPERF.read_bytes(),
    "genai-perf": json.dumps(GENAI).encode(),
    "trtllm-bench": json.dumps(TRTLLM).encode(),
}
HOSTILE = [None, -1, 0, 1e308, -1e308, "x" * 10_000, [], {}, True, [[[[1]]]], "inf", "NaN",
           float("nan"), float("inf"), 10**400, {"unit": "parsec", "avg": 1}]  # fmt: skip


def _check(raw: bytes) -> None:
    try:
        runs = parse_results(raw, "fuzz.json")
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("fuzz.json"), str(exc)
        return
    for run in runs:
        for key, value in run.measured.items():
            assert math.isfinite(value), (key, value)
        for seq in (run.prompt_tokens, run.output_tokens, run.start_s, run.ttft_each_s):
            assert seq is None or all(math.isfinite(x) for x in seq)


def _paths(obj, prefix=()):
    """Every (container, key) of a JSON document (objects and lists)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield obj, k
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:20]):
            yield obj, i
            yield from _paths(v, (*prefix, i))


def _documents(raw: bytes) -> list:
    text = raw.decode()
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_cut_anywhere(target):
    raw = TARGETS[target]
    rng = np.random.default_rng(1)
    for cut in rng.integers(0, len(raw), size=EXAMPLES):
        _check(raw[: int(cut)])


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_random_bytes(target):
    raw = bytearray(TARGETS[target])
    rng = np.random.default_rng(2)
    for _ in range(EXAMPLES):
        b = bytearray(raw)
        for pos in rng.integers(0, len(b), size=int(rng.integers(1, 8))):
            b[int(pos)] = int(rng.integers(0, 256))
        _check(bytes(b))


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_hostile_values(target):
    rng = np.random.default_rng(3)
    docs = _documents(TARGETS[target])
    for _ in range(EXAMPLES):
        mutated = json.loads(json.dumps(docs))
        paths = list(_paths(mutated))
        container, key = paths[int(rng.integers(0, len(paths)))]
        container[key] = HOSTILE[int(rng.integers(0, len(HOSTILE)))]
        text = "\n".join(json.dumps(d) for d in mutated)  # Infinity / NaN / 10^400 as Python writes
        _check(text.encode())


def test_targets_are_real_and_read():
    # the targets themselves read (the fuzz starts from valid files)
    for raw in TARGETS.values():
        assert parse_results(raw, "seed.json")


@pytest.mark.parametrize("seed", range(3))
def test_score_cli_on_mutated_files(cli, tmp_path, seed):
    # through the command: a result or one line with exit 2, never a traceback
    rng = np.random.default_rng(10 + seed)
    raw = bytearray(TARGETS["vllm"])
    for pos in rng.integers(0, len(raw), size=3):
        raw[int(pos)] = int(rng.integers(32, 127))
    f = tmp_path / "run.json"
    f.write_bytes(bytes(raw))
    r = cli("score", f, "-H", "h100", "--tp", "8", "-f", "json")
    assert r.code in (0, 2), r.err
    if r.code == 2:
        assert r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1
    assert "Traceback" not in r.err
