"""The KV-cache dtype InferenceX's SGLang DeepSeek-R1 scripts set on B200 and B300
(--kv-cache-dtype fp8_e4m3), mapped to the silicon-sample rows by tools/silicon_kv_rows.py
(docs/validation/aiconfigurator_silicon_kv.csv) and read by bench/validation_serving.py (issue
20/21, sgdsbw round)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
VALIDATION = ROOT / "docs" / "validation"


@pytest.fixture(scope="module")
def serving():
    return load_script("bench/validation_serving.py")


@pytest.fixture(scope="module")
def mapped():
    with (VALIDATION / "aiconfigurator_silicon_kv.csv").open() as f:
        return {r["id"]: r for r in csv.DictReader(f)}


def test_kv_rows_are_sglang_deepseek_on_b200_b300(mapped):
    with (VALIDATION / "aiconfigurator_silicon_agg.csv").open() as f:
        agg = {r["id"]: r for r in csv.DictReader(f)}
    assert mapped
    for i, r in mapped.items():
        run = agg[i]
        assert r["kv_cache_dtype"] == "fp8_e4m3"
        assert run["backend"] == "sglang" and run["hardware"] in ("b200", "b300")
        assert run["model"] in ("deepseek-r1", "deepseek-v3")
    # the H200 scripts never set it: no H200 row is mapped
    h200 = [i for i, run in agg.items() if run["backend"] == "sglang" and run["hardware"] == "h200"]
    assert h200 and not set(h200) & set(mapped)


def test_rows_read_the_kv_mapping(serving, mapped):
    by_id = {r.id: r for r in serving.rows()}
    hit = [i for i in mapped if i in by_id]
    assert hit
    assert all(by_id[i].kv == "fp8" for i in hit)
    # the other SGLang rows keep the model's 16-bit cache (kv None)
    others = [r for r in by_id.values() if r.backend == "sglang" and r.id not in mapped]
    assert others and all(r.kv is None for r in others)


def test_b200_pool_holds_the_batch_the_run_decoded(serving):
    # 2026_03_25 ... 8192x1024 c512 TP 8 on B200: measured TTFT 119.04 s, TPOT 119.80 ms; Little's
    # law: 512 x 1023 x 0.1198 / (119.04 + 1023 x 0.1198) = 512 x 122.56 / 241.60 = 260 decoding.
    # kvcalc's SGLang pool at fp8: 2,127,506 tokens // 9,216 = 230 whole sequences (35,136 B a
    # token: 576 x 61 layers); at the 16-bit default it held 1,063,753 // 9,216 = 115
    rid = "2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_agg_8192x1024_c512_tp8_0_ep1_0_266"
    row = next(r for r in serving.rows() if r.id == rid)
    pool = serving._deployment(row).per_gpu.max_sequences_per_gpu(row.isl + row.osl)
    assert int(pool) == 230
    life = row.ttft_s + (row.osl - 1) * row.tpot_s
    decoding = row.concurrency * (row.osl - 1) * row.tpot_s / life
    assert decoding == pytest.approx(260, abs=1)
