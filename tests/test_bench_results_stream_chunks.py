"""The chunked-stream note of vLLM benchmark files (calc/data/bench_results/stream_chunks.py):
an ITL mean above every request's TPOT means gaps of several tokens (issue 23, itl054 round)."""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.data.bench_results import read_results
from calc.data.bench_results.stream_chunks import chunk_note, tpot_bound_ms

DATA = Path(__file__).parent / "data" / "bench_results"
LAMBDA = DATA / "vllm-0.5.4_llama-3.1-8b-fp8_tp1_h100-sxm_sharegpt_10-prompts.json"


def test_bound_is_samuelsons():
    # 5 values of mean 6 and population std 2: the largest is at most 6 + 2 × √4 = 10, reached
    # by (10, 5, 5, 5, 5): mean 30 / 5 = 6, variance (16 + 4 × 1) / 5 = 4, std 2
    assert tpot_bound_ms(6.0, 2.0, 5) == pytest.approx(10.0)
    # one value: the mean itself whatever the std
    assert tpot_bound_ms(6.0, 2.0, 1) == pytest.approx(6.0)


def test_note_at_and_past_the_bound():
    obj = {"mean_tpot_ms": 6.0, "std_tpot_ms": 2.0}
    # outputs 1, 0 do not count (vLLM's TPOT takes n > 1 only): m = 5, bound 10 ms (above)
    outputs = (120, 1, 194, 0, 40, 6, 80)
    assert chunk_note({**obj, "mean_itl_ms": 10.0}, 7, outputs) is None  # at the bound
    note = chunk_note({**obj, "mean_itl_ms": 10.5}, 7, outputs)
    # 10.5 / 6 = 1.75 tokens a chunk, printed to 2 digits: 1.8
    assert note is not None and "6 + 2 × √4 = 10 ms" in note and "about 1.8 tokens" in note
    # no lengths listed: all 7 completed requests bound it, 6 + 2 × √6 = 10.9 ms > 10.5
    assert chunk_note({**obj, "mean_itl_ms": 10.5}, 7, None) is None
    # a file without the std cannot be checked
    assert chunk_note({"mean_tpot_ms": 6.0, "mean_itl_ms": 50.0}, 7, outputs) is None


def test_lambda_file_is_chunked():
    (r,) = read_results(LAMBDA)
    (note,) = [n for n in r.notes if "chunks" in n]
    # TPOT over the 5 requests of more than one token (120, 194, 40, 6, 80): mean 6.0185 ms,
    # std 1.7068 ms: at most 6.0185 + 1.7068 × √4 = 9.432 ms, under the ITL mean 50.32 ms;
    # 50.32 / 6.0185 = 8.36 tokens a gap (the publisher's untrimmed itls: 435 gaps' worth of
    # tokens in 12 + 20 + 4 + 1 + 8 = 45 chunks, 9.7 each)
    assert "9.43 ms" in note and "about 8.4 tokens" in note
    assert "compare the TPOT" in note


@pytest.mark.parametrize("name", [
    "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-inf.json",
    "vllm-0.8.3_llama-3.3-70b_tp4_pp2_IB_a100-40g_sharegpt_qps-16.json",
    "vllm-0.25.1_opt-125m_bench-serve_conc2.json",
])  # fmt: skip
def test_token_streams_get_no_note(name):
    # their ITL means (34.2, 65.4, 11.3 ms) are at or under their TPOT means (39.1, 68.4,
    # 11.3 ms): one token a chunk (issue 23's third score round counted the 0.8.3 gaps)
    for r in read_results(DATA / name):
        assert not any("chunks" in n for n in r.notes)
