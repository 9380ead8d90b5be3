"""The admission wait of SGLang's ``--scheduler-recv-interval`` and TensorRT-LLM's batch waiting
(calc/serve/admission.py), and how bench/validation_serving.py charges it to the InferenceX runs
whose scripts set them (docs/validation/aiconfigurator_silicon_admission.csv)."""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import pytest

from calc.serve.admission import batch_wait_s, recv_interval_wait_s
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
VALIDATION = ROOT / "docs" / "validation"


def test_recv_interval_wait_golden():
    # interval 10, 8 ms decode steps: (10 - 1) / 2 x 8 ms = 36 ms
    assert recv_interval_wait_s(10, 0.008) == pytest.approx(0.036, rel=1e-12)
    # interval 30, 10 ms: (30 - 1) / 2 x 10 ms = 145 ms
    assert recv_interval_wait_s(30, 0.010) == pytest.approx(0.145, rel=1e-12)
    # the default, a read every step: no wait beyond the step in flight
    assert recv_interval_wait_s(1, 0.010) == 0.0


def test_batch_wait_alone_golden():
    # a 1,024-token prompt alone, 20 iterations of 10 ms: 20 x 10 ms = 200 ms
    assert batch_wait_s(20, 0.010, 0.0, 1024, 0.9 * 16384) == pytest.approx(0.2, rel=1e-12)


def test_batch_wait_with_arrivals_golden():
    # a = 0.05 a step, T = 20: a T = 1 prompt joins on average; the threshold (14,745.6 tokens)
    # needs ceil(14745.6 / 1024) = 15 prompts, (15 - 1) / 0.05 = 280 steps > 20: not reached;
    # T (1 + a T / 2) / (1 + a T) = 20 x 1.5 / 2 = 15 steps x 10 ms = 150 ms
    assert batch_wait_s(20, 0.010, 0.05, 1024, 0.9 * 16384) == pytest.approx(0.15, rel=1e-12)


def test_batch_wait_threshold_closes_it_early():
    # threshold 3,000 tokens, 1,024-token prompts: m = ceil(3000 / 1024) = 3 prompts fill it,
    # reached after (3 - 1) / 0.5 = 4 steps < 20; a t = 2: 4 x (1 + 1) / (1 + 2) = 8/3 steps
    got = batch_wait_s(20, 0.010, 0.5, 1024, 3000)
    assert got == pytest.approx(8 / 3 * 0.010, rel=1e-12)


def test_batch_wait_off_or_prompt_over_threshold():
    assert batch_wait_s(0, 0.010, 0.0, 1024, 0.9 * 16384) == 0.0  # the default: off
    assert batch_wait_s(20, 0.010, 0.0, 16384, 0.9 * 16384) == 0.0  # one prompt fills it


def test_batch_wait_falls_with_arrivals():
    # more prompts joining a wait shorten the mean wait, never below half the timeout
    waits = [batch_wait_s(20, 0.01, a, 1024, 1e9) for a in (0.0, 0.01, 0.1, 1.0, 10.0)]
    assert all(x > y for x, y in itertools.pairwise(waits))
    assert waits[-1] > 0.5 * 20 * 0.01


@pytest.fixture(scope="module")
def serving():
    return load_script("bench/validation_serving.py")


def _row(serving, **kw):
    base = dict(id="x", backend="sglang", model="deepseek-r1", hardware="b200", fmt=None,
                kv=None, isl=1024, osl=1024, concurrency=4, tp=8, ep=8, ttft_s=0.2,
                tpot_s=0.008)  # fmt: skip
    base.update(kw)
    return serving.Row(**base)


def test_admission_charges_the_recv_interval(serving):
    # the row's interval is stated on its Deployment (EngineSettings.recv_interval) and read
    # back through the engine wing (admission_hold)
    row = _row(serving, recv_interval=10)
    dep = serving._deployment(row)
    assert dep.engine.recv_interval == 10
    # (10 - 1) / 2 x 8 ms = 36 ms
    assert serving.admission_s(row, dep, 4, 0.008) == pytest.approx(0.036, rel=1e-12)


def test_admission_batch_wait_needs_running_decodes_and_no_attention_dp(serving):
    row = _row(serving, backend="trtllm", batch_wait_iters=20)
    one = serving._deployment(row)  # tp 8, ep 8: attention TP 8, no attention DP
    assert (one.engine.batch_wait_iters, one.engine.batch_wait_ratio) == (20, 0.9)
    dp_row = _row(serving, backend="trtllm", batch_wait_iters=20, tp=1)
    dp = serving._deployment(dp_row)  # tp 1, ep 8: attention DP 8
    assert dp.sharding.dp_attn == 8
    # n = 4, osl 1,024: a = 4 / 1024 a step, a T = 0.078125; the threshold at the scripts'
    # 0.9 x 16,384 = 14,745.6 tokens is not reached (15 prompts after 3,584 steps):
    # 20 x (1 + 0.0390625) / 1.078125 = 19.2754 steps x 10 ms
    want = 20 * (1 + 0.078125 / 2) / 1.078125 * 0.010
    assert serving.admission_s(row, one, 4, 0.010) == pytest.approx(want, rel=1e-12)
    assert serving.admission_s(row, one, 1, 0.010) == 0.0  # no generation request: no wait
    assert serving.admission_s(dp_row, dp, 4, 0.010) == 0.0  # not under attention DP


def test_admission_rows_are_kvcalc_rows_with_their_rules():
    with (VALIDATION / "aiconfigurator_silicon_agg.csv").open() as f:
        agg = {r["id"]: r for r in csv.DictReader(f)}
    with (VALIDATION / "aiconfigurator_silicon_admission.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert rows
    for r in rows:
        run = agg[r["id"]]
        if int(r["recv_interval"]) > 1:  # SGLang DeepSeek-R1 on B200/B300: 10 below c 16
            assert run["backend"] == "sglang" and run["hardware"] in ("b200", "b300")
            assert int(r["recv_interval"]) == (10 if int(run["concurrency"]) < 16 else 30)
            assert r["batch_wait_iters"] == "0"
        else:  # TensorRT-LLM Llama-3.1-70B, 1k/1k below TP 8
            assert run["backend"] == "trtllm" and run["model"] == "llama3.1-70b"
            assert (run["isl"], run["osl"], r["batch_wait_iters"]) == ("1024", "1024", "20")
            assert int(run["tp"]) < 8


def test_rows_read_the_admission_mapping(serving):
    by_id = {r.id: r for r in serving.rows()}
    with (VALIDATION / "aiconfigurator_silicon_admission.csv").open() as f:
        mapped = {r["id"]: (int(r["recv_interval"]), int(r["batch_wait_iters"]))
                  for r in csv.DictReader(f)}  # fmt: skip
    hit = [i for i in mapped if i in by_id]
    assert hit
    for i in hit:
        assert (by_id[i].recv_interval, by_id[i].batch_wait_iters) == mapped[i]
    others = [r for r in by_id.values() if r.id not in mapped]
    assert all(r.recv_interval == 1 and r.batch_wait_iters == 0 for r in others)
