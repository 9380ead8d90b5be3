"""The vattn round's study of each engine's attention tables (tools/study_engine_attention.py,
docs/step-time.md): it finds the tables in every wheel layout, the newest wheel's copy wins, and
a row's measured / curve ratio uses fit_kernels' FLOPs and bytes and the engine's scale."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.scripts import load_script

pd = pytest.importorskip("pandas")


def _wheel(path, members: dict) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)


def test_table_index_reads_both_layouts_and_the_newest_wheel_wins(tmp_path):
    tool = load_script("tools/study_engine_attention.py")
    old = tmp_path / "aiconfigurator-0.7.0-py3-none-any.whl"
    new = tmp_path / "aiconfigurator-0.10.0-cp310-abi3-manylinux_2_28_x86_64.whl"
    core = tmp_path / "aiconfigurator_core-0.12.0-cp311-abi3-manylinux_2_28_x86_64.whl"
    legacy = "aiconfigurator/systems/data/h100_sxm/vllm/0.14.0/"
    _wheel(old, {legacy + "generation_attention_perf.txt": "x",
                 legacy + "gemm_perf.txt": "x"})  # fmt: skip
    _wheel(new, {legacy + "generation_attention_perf.parquet": "x"})
    _wheel(core, {"aiconfigurator_core/systems/data/h200_sxm/attention/trtllm/1.3.0rc20/"
                  "context_attention_perf.parquet": "x"})  # fmt: skip
    index = tool.table_index([core, old, new])  # any order: sorted by the wheel's version
    # two tables: the GEMM table is no attention table; 0.10.0's copy of 0.14.0 replaces 0.7.0's
    assert set(index) == {("h100_sxm", "vllm", "0.14.0", "generation"),
                          ("h200_sxm", "trtllm", "1.3.0rc20", "context")}  # fmt: skip
    wheel, name = index[("h100_sxm", "vllm", "0.14.0", "generation")]
    assert wheel == new and name.endswith(".parquet")


def test_decode_ratio_uses_fit_kernels_bytes_and_the_engine_scale():
    tool = load_script("tools/study_engine_attention.py")
    K = tool.K
    prof = tool.FK.load_profile("h200")
    c = prof["kernels"]["decode_attention"]["bf16"]
    scale = prof["kernels"]["engine_scale"]["vllm"]["decode_attention.bf16"]
    # Qwen3-235B at TP 2: 32 q / 2 kv heads of 128, batch 16, 2,048 tokens, 16-bit KV
    flops = 4 * 16 * 2048 * 32 * 128  # 536,870,912 FLOP
    moved = 16 * 2049 * 2 * 128 * 2 * 2 + 16 * 32 * 128 * 2 * 2  # 33,570,816 + 262,144 B
    assert (flops, moved) == (536_870_912, 33_832_960)
    curve_s = K.decode_attention_time_s(
        flops, moved, 16, flops_per_s=float(prof["peak_flops_per_s"]["bf16"]),
        bytes_per_s=float(prof["hbm_bandwidth_bytes_per_s"]), compute=c["compute"],
        memory=c["memory"], fixed_s=c["fixed_s"], per_sequence_s=c["per_sequence_s"],
        sharpness=c["sharpness"],
    )  # fmt: skip
    measured_ms = 28.5e-3  # vLLM 0.12.0's row at this shape (2,047 tokens there)
    row = {"batch_size": 16, "step": 2048, "num_heads": 32, "num_key_value_heads": 2,
           "head_dim": 128, "kv_cache_dtype": "float16", "latency": measured_ms}  # fmt: skip
    fp8_row = dict(row, kv_cache_dtype="fp8")  # left out of the 16-bit ratio
    ratio, b, ctx = tool.decode_ratio(pd.DataFrame([row, fp8_row]), prof, "vllm", "bf16")
    assert len(ratio) == 1 and b[0] == 16 and ctx[0] == 2048
    assert ratio[0] == pytest.approx(28.5e-6 / (scale * curve_s), rel=1e-12)
    # the same row under an engine without a scale is measured / curve alone
    ratio_none, _, _ = tool.decode_ratio(pd.DataFrame([row]), prof, "none", "bf16")
    assert ratio_none[0] == pytest.approx(28.5e-6 / curve_s, rel=1e-12)


def test_read_table_keeps_full_attention_rows_only(tmp_path):
    tool = load_script("tools/study_engine_attention.py")
    frame = pd.DataFrame({"window_size": [0, 128, 0], "latency": [1.0, 2.0, 3.0]})
    buf = io.BytesIO()
    frame.to_parquet(buf)
    path = "aiconfigurator/systems/data/h100_sxm/vllm/0.19.0/generation_attention_perf.parquet"
    wheel = tmp_path / "w.whl"
    _wheel(wheel, {path: buf.getvalue()})
    got = tool.read_table(wheel, path)
    # the sliding-window row (window 128) is dropped: latencies 1.0 and 3.0 remain
    assert list(got.latency) == [1.0, 3.0]
