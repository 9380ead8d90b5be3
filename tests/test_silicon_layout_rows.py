"""The parallel layout InferenceX's scripts ran where the silicon sample's record states another
(tools/silicon_layout_rows.py, read by bench/validation_serving.py as LAYOUT_ROWS), and the
per-shape choice of MoE tables in tools/fit_kernels.py (``Tables.newest`` by
``MOE_TABLE_SHAPE``): issue 20, trtbigmoe and layoutrows rounds."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "silicon_layout_rows", ROOT / "tools" / "silicon_layout_rows.py")
S = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(S)
LAYOUT_CSV = ROOT / "docs" / "validation" / "aiconfigurator_silicon_layout.csv"


def test_the_scripts_rule():
    # TP 4, 1k/1k: EP above 32 requests, attention DP and CUTLASS from 256
    assert S.layout_of(4, 1024, 1024, 32) is None
    assert S.layout_of(4, 1024, 1024, 64) == (4, False, "TRTLLM")
    assert S.layout_of(4, 1024, 1024, 256) == (4, True, "CUTLASS")
    # TP 8: EP above 8 (1k/1k) and 16 (1k/8k); 8k/1k: EP, DP and CUTLASS together above 32
    assert S.layout_of(8, 1024, 1024, 16) == (8, False, "TRTLLM")
    assert S.layout_of(8, 1024, 8192, 16) is None
    assert S.layout_of(8, 8192, 1024, 32) is None
    assert S.layout_of(8, 8192, 1024, 64) == (8, True, "CUTLASS")
    assert S.layout_of(2, 1024, 1024, 256) is None  # no TP 2 in the script


def test_the_scripts_that_set_ep_to_tp():
    b200_fp8 = ("trtllm", "b200_sxm", "fp8", "DeepSeek")
    h200_fp8 = ("trtllm", "h200_sxm", "fp8", "DeepSeek")
    # B200 fp8 DeepSeek-R1: EP = TP 8 at any concurrency, DEEPGEMM; attention DP above 32
    # requests at 1k/1k (33 > 32), not at 32
    assert S.script_layout(b200_fp8, 8, 1024, 1024, 16) == (8, False, "DEEPGEMM")
    assert S.script_layout(b200_fp8, 8, 1024, 1024, 32) == (8, False, "DEEPGEMM")
    assert S.script_layout(b200_fp8, 8, 1024, 1024, 64) == (8, True, "DEEPGEMM")
    # ... and above 64 at 8k/1k: 64 is not above 64
    assert S.script_layout(b200_fp8, 8, 8192, 1024, 64) == (8, False, "DEEPGEMM")
    # H200 fp8 DeepSeek-R1: CUTLASS; attention DP above 32 at 8k/1k (64 > 32), above 64 at 1k/1k
    assert S.script_layout(h200_fp8, 8, 8192, 1024, 64) == (8, True, "CUTLASS")
    assert S.script_layout(h200_fp8, 8, 1024, 1024, 64) == (8, False, "CUTLASS")
    # H200 gpt-oss: EP = TP (4), never attention DP, its TRITON MoE not listed (kvcalc does not
    # time it); TP 1 is the stated EP 1
    gpt_oss = ("trtllm", "h200_sxm", "nvfp4", "gpt-oss")
    assert S.script_layout(gpt_oss, 4, 1024, 1024, 64) == (4, False, "")
    assert S.script_layout(gpt_oss, 1, 1024, 1024, 64) is None
    # SGLang B200 NVFP4 DeepSeek-R1: --enable-ep-moe sets EP = TP (8); the engine picks the MoE
    assert S.script_layout(("sglang", "b200_sxm", "nvfp4", "DeepSeek"), 8, 8192, 1024, 32) == (
        8, False, "")
    # B200 gpt-oss TensorRT-LLM (EP 1 below 256) and vLLM (no expert parallel): no rule
    assert S.script_layout(("trtllm", "b200_sxm", "nvfp4", "gpt-oss"), 8, 1024, 1024, 64) is None
    assert S.script_layout(("vllm", "h200_sxm", "nvfp4", "gpt-oss"), 8, 1024, 1024, 64) is None


SAMPLE_HEAD = ("id", "backend", "model_path", "system", "gemm_quant_mode", "attention_dp_size",
               "moe_ep_size", "tp_size", "isl", "osl", "batch_size", "silicon_data_source")


def test_the_rows_of_a_synthetic_sample(tmp_path, monkeypatch):
    rows = tmp_path / "agg.csv"
    rows.write_text("id\n" + "".join(f"{i}\n" for i in "abcdefhi"))
    monkeypatch.setattr(S, "KVCALC_ROWS", rows)
    export = "source_file=2026-04-06.csv; silicon_concurrency=256; measured=2025-11-02T00:00:00Z"
    db = "db-dump/2026-04-27; config_id=91; silicon_concurrency=128; measured=2025-11-02T00:00Z"
    r1, v3 = "deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-V3"
    runs = [
        ("a", "trtllm", r1, "b200_sxm", "nvfp4", "1", "1", "8", "1024", "1024", "256", export),
        ("b", "trtllm", v3, "b200_sxm", "nvfp4", "1", "1", "4", "1024", "1024", "128", db),
        # a run stating EP already, another GPU's script (d), another day, a concurrency the
        # script ran EP 1
        ("c", "trtllm", r1, "b200_sxm", "nvfp4", "1", "8", "8", "1024", "1024", "256", export),
        ("d", "trtllm", r1, "h200_sxm", "fp8", "1", "1", "8", "1024", "1024", "256", export),
        ("e", "trtllm", r1, "b200_sxm", "nvfp4", "1", "1", "8", "1024", "1024", "256",
         export.replace("2025-11-02", "2026-02-03")),
        ("f", "trtllm", r1, "b200_sxm", "nvfp4", "1", "1", "4", "1024", "1024", "32",
         export.replace("=256", "=32")),
        ("g", "trtllm", r1, "b200_sxm", "nvfp4", "1", "1", "8", "1024", "1024", "256", export),
        # h: H200 fp8 DeepSeek-R1 at TP 8, 8k/1k, 256 requests -> EP 8, attention DP (256 > 32)
        ("h", "trtllm", r1, "h200_sxm", "fp8", "1", "1", "8", "8192", "1024", "256", export),
        # i: gpt-oss on vLLM, no rule
        ("i", "vllm", "openai/gpt-oss-120b", "h200_sxm", "nvfp4", "1", "1", "8", "1024", "1024",
         "64", export),
    ]  # g: not in kvcalc's rows
    sample = tmp_path / "sample.csv"
    with sample.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(SAMPLE_HEAD)
        w.writerows(runs)
    got = S.layout_rows(sample)
    # a: TP 8 at 256 requests -> EP 8 with attention DP, CUTLASS; b: TP 4 at 128 -> EP 4, TRTLLM;
    # d: the H200 fp8 script at TP 8, 1k/1k, 256 requests -> EP 8, attention DP (256 > 64)
    assert [r[:4] for r in got] == [("a", 8, 1, "CUTLASS"), ("b", 4, 0, "TRTLLM"),
                                    ("d", 8, 1, "CUTLASS"), ("h", 8, 1, "CUTLASS")]


@pytest.fixture(scope="module")
def vs():
    return load_script("bench/validation_serving.py")


def test_validation_reads_the_listed_layout(vs):
    with LAYOUT_CSV.open() as f:
        listed = {r["id"]: r for r in csv.DictReader(f)}
    rows = {r.id: r for r in vs.rows() if r.id in listed}
    # every listed run is one of kvcalc's rows: 39 B200 NVFP4 TensorRT-LLM DeepSeek (trtbigmoe
    # round) + 34 fp8 TensorRT-LLM DeepSeek (B200 4, H200 30) + 45 H200 gpt-oss + 6 SGLang = 124
    assert len(rows) == len(listed) == 39 + 4 + 30 + 45 + 6
    # stated TP 8, EP 1 at 256 requests, 1k/1k: the script's EP 8 with attention DP -> kvcalc's
    # tp 1 (one attention GPU a rank), ep 8, the CUTLASS MoE, the benchmark's 256 requests
    dp = rows["2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_agg_1024x1024_c256_tp8_ep1_209"]
    assert (dp.tp, dp.ep, dp.moe_backend, dp.concurrency) == (1, 8, "CUTLASS", 256)
    # stated TP 4, EP 1 at 128 requests: EP 4 beside attention TP 4, trtllm-gen
    tp = rows["2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_agg_1024x1024_c128_tp4_ep1_60"]
    assert (tp.tp, tp.ep, tp.moe_backend, tp.concurrency) == (4, 4, "TRTLLM", 128)
    # stated TP 4, EP 1 on H200 gpt-oss: the script's --ep_size=$TP, EP 4; no backend listed,
    # so the MoE-backend mapping's (none for these runs) stands
    oss = rows["2026_04_06_gpt_oss_120b_h200_sxm_trtllm_fp4_agg_1024x8192_c32_tp4_ep1_144"]
    assert (oss.tp, oss.ep, oss.moe_backend, oss.concurrency) == (4, 4, None, 32)
    # H200 fp8 DeepSeek-R1 8k/1k at 64 requests: EP 8 with attention DP (64 > 32) -> one attention
    # GPU a rank, CUTLASS
    h200 = rows["dsr1_h200_trtllm_fp8_agg_8192x1024_c64_cfg83"]
    assert (h200.tp, h200.ep, h200.moe_backend, h200.concurrency) == (1, 8, "CUTLASS", 64)


def test_newest_table_per_shape_keeps_an_older_tables_shapes(monkeypatch):
    pd = pytest.importorskip("pandas")
    fk = load_script("tools/fit_kernels.py")
    shape = dict(moe_dtype="w4a8", inter_size=2048, num_experts=128, topk=4)
    old = pd.DataFrame([{**shape, "hidden_size": 2880, "latency": 1.0},
                        {**shape, "hidden_size": 4096, "latency": 2.0}])  # fmt: skip
    new = pd.DataFrame([{**shape, "hidden_size": 4096, "latency": 3.0}])
    frames = {"1.3.0rc20": old, "1.3.0rc23": new}
    monkeypatch.setattr(fk.Tables, "__init__", lambda self: None)
    monkeypatch.setattr(fk.Tables, "versions", lambda self, *a: ["1.3.0rc20", "1.3.0rc23"])
    monkeypatch.setattr(fk.Tables, "read", lambda self, g, op, fw, v, t: frames[v].copy())
    t = fk.Tables()
    # by format: the newer table alone (its one 4,096 row, 3.0); the 2,880 shape is hidden
    by_dtype = t.newest("b200_sxm", "moe", "moe_perf", frameworks=("trtllm",), by="moe_dtype")
    assert sorted(by_dtype.latency) == [3.0]
    # by format and shape: the 4,096 shape from the newer table (3.0), the 2,880 from the older
    per_shape = t.newest("b200_sxm", "moe", "moe_perf", frameworks=("trtllm",),
                         by=fk.MOE_TABLE_SHAPE)
    assert sorted(per_shape.latency) == [1.0, 3.0]
