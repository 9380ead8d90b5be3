"""`kvcalc score`'s deployment as recorded vs modelled (issues 23 and 21, scorepool round): the
KV pool, running-request cap and chunk a result file records the server ran with, beside
kvcalc's (SGLang 0.5.9's server_info of a real file, trtllm-bench's printed runtime limits),
and --pool-from-file replaying the recorded ones in place of kvcalc's."""

from __future__ import annotations

import json

import pytest

from calc import api
from calc.data.bench_results import read_results
from calc.reports.score_pool import own_options, recorded_pool_blocks, replayed_options
from tests.test_bench_results import DATA

SGLANG_059 = DATA / "sglang-0.5.9_qwen3-8b_tp8_h100-sxm_random-1024-128_conc100.jsonl"
TRT_GB200 = DATA / "trtllm-bench-1.1.0rc1_deepseek-r1-0528-nvfp4_tp4_ep4_gb200_1k1k.txt"


def _checks(report) -> dict:
    return {r["metric"]: r for r in report.rows if r["unit"] in ("tokens", "sequences")}


def test_sglang_059_server_limits_read():
    (r,) = read_results(SGLANG_059)
    # server_info.max_total_num_tokens 3944182 (the scheduler's pool of one GPU);
    # internal_states[0].effective_max_running_requests_per_dp 4096 (max_running_requests null:
    # the scheduler's min(max_total_num_tokens // 2, req_to_token_pool size)); chunked_prefill_size
    assert r.server_limits == {"kv_cache_tokens": 3944182, "max_num_seqs": 4096,
                               "max_batched_tokens": 8192}  # fmt: skip


def test_sglang_059_pool_recorded_vs_modelled():
    rep = api.score(SGLANG_059, model="qwen3-8b", hardware="h100")
    p = rep.scores[0].dep.per_gpu.prediction
    # SGLang 0.5.9's budget on an H100 (85,029,027,840 B as torch reports it), TP 8, 0.9:
    # (85,029,027,840 − non-torch 2,018,634,629) × 0.9 = 74,709,353,889.9, less the weights
    # 2,048,223,232, the allocator's tails 4,888,576 and the RoPE table 20,971,520 (40,960 ×
    # 128 × 4 B) = 72,635,270,561.9 B
    assert p.kv_budget_bytes == pytest.approx(72_635_270_561.9, abs=1)
    # one token of one GPU: 36 layers × 2 (K, V) × 1 KV head (8 / TP 8) × 128 × 2 B = 18,432 B
    assert p.kv_bytes_per_token == 18_432
    # 72,635,270,561 // 18,432 = 3,940,715 (3,940,715 × 18,432 = 72,635,258,880, 11,681 left)
    c = _checks(rep)
    assert (c["kv_cache_tokens"]["predicted"], c["kv_cache_tokens"]["measured"]) == (
        3_940_715, 3_944_182)  # fmt: skip
    # (3,940,715 − 3,944,182) / 3,944,182 = −3,467 / 3,944,182 = −0.000879
    assert c["kv_cache_tokens"]["error"] == pytest.approx(-3467 / 3944182, rel=1e-12)
    # kvcalc's own cap with the file's left out: SGLang's min(pool // 2, 4,096) = 4,096, and
    # its H100 chunk 8,192, both as the server ran: error 0
    assert (c["max_num_seqs"]["predicted"], c["max_num_seqs"]["error"]) == (4096, 0.0)
    assert (c["max_batched_tokens"]["predicted"], c["max_batched_tokens"]["error"]) == (8192, 0.0)
    assert rep.fields["runs"][0]["pool_from_file"] is False
    # the latency table's rows stay the run's figures: 16 of them (TTFT 3, TPOT 3, ITL 3,
    # E2E 4, three rates), then the 3 deployment rows
    assert len(rep.rows) == 16 + 3


def test_trtllm_limits_recorded_vs_kvcalc_defaults(cli):
    # the report's "Max Runtime Batch Size: 1024" and "Max Runtime Tokens: 2176"; kvcalc's own
    # TensorRT-LLM defaults with them left out: 2,048 sequences, 8,192 tokens
    r = cli("score", TRT_GB200, "-H", "gb200", "--concurrency", "1024", "--format", "json")
    assert r.code == 0, r.err
    rows = {m["metric"]: m for m in json.loads(r.out)["metrics"]
            if m["unit"] in ("tokens", "sequences")}  # fmt: skip
    assert set(rows) == {"max_num_seqs", "max_batched_tokens"}  # the report prints no pool
    assert rows["max_num_seqs"]["error"] == pytest.approx((2048 - 1024) / 1024)  # +100%
    assert rows["max_batched_tokens"]["error"] == pytest.approx((8192 - 2176) / 2176)  # +276.5%
    # the replay itself still runs at the report's limits (the file's settings, as before)
    run = json.loads(r.out)["runs"][0]
    assert (run["max_num_seqs"], run["max_batched_tokens"]) == (1024, 2176)


def test_options_replayed_and_own():
    (r,) = read_results(SGLANG_059)
    options = {"tp": 8, "max_batched_tokens": 8192}
    # --pool-from-file: the server's cap 4,096 joins; the chunk is the file's setting already
    out, notes = replayed_options(r, options, {})
    assert out == {"tp": 8, "max_batched_tokens": 8192, "max_num_seqs": 4096}
    assert notes == ["max_num_seqs 4096 as the server ran (--pool-from-file)"]
    # a command's own option is kept over the server's
    out, notes = replayed_options(r, options, {"max_num_seqs": 64})
    assert "max_num_seqs" not in out and notes == []
    # kvcalc's own: the file's chunk left out, unless the command gave it
    assert own_options(r, options, {}) == {"tp": 8}
    assert own_options(r, options, {"max_batched_tokens": 8192}) == options


def _small_pool(tmp_path, tokens: int):
    """The 0.5.9 file with its recorded pool set to ``tokens`` (the rest unchanged)."""
    doc = json.loads(SGLANG_059.read_text().splitlines()[0])
    doc["server_info"]["max_total_num_tokens"] = tokens
    path = tmp_path / "small-pool.jsonl"
    path.write_text(json.dumps(doc) + "\n")
    return path


def test_pool_from_file_replays_the_recorded_pool(tmp_path):
    path = _small_pool(tmp_path, 2000)
    (r,) = read_results(path)
    own = api.score(path, model="qwen3-8b", hardware="h100")
    rec = api.score(path, model="qwen3-8b", hardware="h100", pool_from_file=True)
    # page size 1: 2,000 tokens are 2,000 blocks
    assert recorded_pool_blocks(r, rec.scores[0].dep) == 2000
    assert rec.fields["runs"][0]["pool_from_file"] is True
    assert any("KV pool 2,000 tokens as the server ran (--pool-from-file)" in w
               for w in rec.warnings)  # fmt: skip
    # the check compares kvcalc's own pool either way: (3,940,715 − 2,000) / 2,000
    for rep in (own, rec):
        assert _checks(rep)["kv_cache_tokens"]["error"] == pytest.approx(3_938_715 / 2000)

    def ttft(rep):
        return next(m["predicted"] for m in rep.rows if (m["metric"], m["stat"]) == ("ttft", "avg"))

    # a 2,000-token pool holds one or two of the requests (up to 1,003 + 127 tokens each) at a
    # time where kvcalc's holds all 100: the queue moves TTFT up; the default is kvcalc's pool
    assert ttft(rec) > 2 * ttft(own)


def test_pool_from_file_without_a_recorded_pool(cli):
    # trtllm-bench's report records limits but no pool: kvcalc's pool, said so
    r = cli("score", TRT_GB200, "-H", "gb200", "--concurrency", "1024", "--pool-from-file",
            "--format", "json")  # fmt: skip
    assert r.code == 0, r.err
    assert "the file records no KV pool: kvcalc's replayed (--pool-from-file)" in r.err
