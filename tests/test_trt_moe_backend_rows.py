"""tools/silicon_moe_backend_rows.py: the MoE backend InferenceX's DeepSeek-R1 scripts set, by
GPU, format, attention DP and InferenceX#594's date, for InferenceX's own runs alone, on a
synthetic sample (the real one is not shipped)."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "silicon_moe_backend_rows", ROOT / "tools" / "silicon_moe_backend_rows.py")
S = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(S)


def test_the_scripts_rule():
    assert S.backend_of("b200_sxm", "nvfp4", False, "2025-11-02")[0] == "TRTLLM"
    assert S.backend_of("b200_sxm", "nvfp4", True, "2026-02-06")[0] == "CUTLASS"
    assert S.backend_of("b200_sxm", "fp8", False, "2026-01-14")[0] == "DEEPGEMM"  # before #594
    assert S.backend_of("b200_sxm", "fp8", False, "2026-01-29")[0] == "TRTLLM"  # #594's sweep
    assert S.backend_of("b200_sxm", "fp8", True, "2026-02-05")[0] == "DEEPGEMM"
    assert S.backend_of("h200_sxm", "fp8", True, "2026-01-14")[0] == "CUTLASS"
    assert S.backend_of("gb200", "nvfp4", False, "2025-11-17") is None  # no script read


def test_only_inferencex_exports_on_tensorrt_llm_images():
    export = "source_file=2026-03-25.csv; model=DeepSeek-R1; measured=2026-02-06T17:21:58Z"
    assert S.is_inferencex(export + "; image=nvcr.io#nvidia/tensorrt-llm/release:1.2.0rc6.post3")
    assert S.is_inferencex("source_file=2026-04-06.csv; measured=2025-11-02T00:00:00.000Z")
    assert S.is_inferencex(export + "; image=nvcr.io/nvidia/tensorrt-llm/release:1.1.0rc2")
    dynamo = "; image=nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1"
    assert not S.is_inferencex(export + dynamo)
    assert not S.is_inferencex("source_file=/Users/x/data/b200_sxm/trtllm/1.3.0rc1/r1.csv; "
                               "measured=2026-03-17")  # fmt: skip


# the upstream sample's columns the mapping scripts read
SAMPLE_HEAD = ("id", "backend", "model_path", "system", "gemm_quant_mode", "attention_dp_size",
               "silicon_data_source")  # fmt: skip


def synthetic_sample(tmp_path, monkeypatch, kept: str, runs) -> Path:
    """An upstream sample of ``runs`` (``SAMPLE_HEAD``'s columns) written under ``tmp_path``,
    with kvcalc's kept rows the ids in ``kept`` (one letter each), the shared reader
    (tools/silicon_rows.py ``KVCALC_ROWS``) pointed at them."""
    rows = tmp_path / "agg.csv"
    rows.write_text("id\n" + "".join(f"{i}\n" for i in kept))
    monkeypatch.setattr(sys.modules["silicon_rows"], "KVCALC_ROWS", rows)
    sample = tmp_path / "sample.csv"
    with sample.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(SAMPLE_HEAD)
        w.writerows(runs)
    return sample


def test_the_rows_of_a_synthetic_sample(tmp_path, monkeypatch):
    src = "source_file=2026-03-25.csv; measured=2026-02-06T00:00:00Z"
    runs = [
        ("a", "trtllm", "deepseek-ai/DeepSeek-R1", "b200_sxm", "nvfp4", "1", src),
        ("b", "trtllm", "deepseek-ai/DeepSeek-R1", "b200_sxm", "nvfp4", "8", src),
        # another harness's image: no backend stated
        ("c", "trtllm", "deepseek-ai/DeepSeek-R1", "b200_sxm", "nvfp4", "1",
         src + "; image=nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1"),
        ("d", "vllm", "deepseek-ai/DeepSeek-R1", "b200_sxm", "nvfp4", "1", src),  # not TRT
        ("e", "trtllm", "deepseek-ai/DeepSeek-R1", "b200_sxm", "nvfp4", "1", src),  # not kept
    ]
    sample = synthetic_sample(tmp_path, monkeypatch, "abcd", runs)
    got = S.backend_rows(sample)
    assert [(r[0], r[1]) for r in got] == [("a", "TRTLLM"), ("b", "CUTLASS")]
    assert all(r[2] == "2026-02-06" for r in got)
