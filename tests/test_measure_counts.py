"""Kernel FLOP/byte counts, scaled shapes, timing statistics and calibration bands of the
measurement mode: pure Python, no torch needed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from calc.data.calibration import Calibration
from calc.data.hardware_schema import Band
from calc.data.registry import load_model
from calc.measure import calibrate, counts, shapes
from calc.measure.timing import n_buffers, quantile

ROOT = Path(__file__).resolve().parents[1]


def test_decode_attention_counts_llama3_8b():
    # 2 × B1 × H32 × ctx8192 × (128 + 128) = 134,217,728 = 4 × 1 × 32 × 8192 × 128
    assert counts.decode_attention_flops(1, 32, 8192, 128, 128) == 134_217_728
    # KV/token/layer = 2 × 8 kv heads × 128 × 2 B = 4,096; 8192 × 4,096 = 33,554,432
    # plus Q and O: 32 heads × (128 + 128) × 2 B = 16,384 -> 33,570,816
    assert counts.decode_attention_bytes(1, 32, 8192, 4096, 128, 128, 2) == 33_570_816


def test_decode_flops_same_for_mha_gqa_mqa_bytes_not():
    flops = {hkv: counts.decode_attention_flops(4, 32, 1024, 128, 128) for hkv in (32, 8, 1)}
    assert len(set(flops.values())) == 1
    b = {hkv: counts.decode_attention_bytes(4, 32, 1024, 2 * hkv * 128 * 2, 128, 128, 2)
         for hkv in (32, 8, 1)}  # fmt: skip
    assert b[1] < b[8] < b[32]


def test_mla_decode_counts_deepseek_v3():
    # absorb 2×128×128×512 = 16,777,216; scores 2×128×4096×576 = 603,979,776;
    # PV 2×128×4096×512 = 536,870,912; up 2×128×512×128 = 16,777,216 -> 1,174,405,120
    assert counts.mla_decode_flops(1, 128, 4096, 512, 64, 128, 128) == 1_174_405_120
    # cache 4096 × (512 + 64) × 2 = 4,718,592; W_UK+W_UV 128 × 512 × (128 + 128) × 2 =
    # 33,554,432; q and o 128 × (128 + 64 + 128) × 2 = 81,920 -> 38,354,944
    assert counts.mla_decode_bytes(1, 128, 4096, 1152, 512, 64, 128, 128, 2) == 38_354_944


def test_prefill_counts():
    assert counts.causal_pairs(4) == 10  # 4 + 3 + 2 + 1
    assert counts.prefill_attention_flops(1, 2, 4, 8, 8) == 640  # 2 × 2 heads × 10 × 16
    # per token: Q 2×8 + K,V 1×(8+8) + O 2×8 = 48 elements; × 4 tokens × 2 B = 384
    assert counts.prefill_attention_bytes(1, 4, 2, 1, 8, 8, 2) == 384


def test_gemm_and_table_counts():
    assert counts.gemm_flops(16, 4096, 6144) == 805_306_368  # 2 × 16 × 4096 × 6144
    # (16×4096 + 4096×6144 + 16×6144) × 2 = (65,536 + 25,165,824 + 98,304) × 2
    assert counts.gemm_bytes(16, 4096, 6144, 2) == 50_659_328
    assert counts.block_table_bytes(2, 33) == 48  # 2 seqs × ceil(33/16)=3 blocks × 8 B
    assert counts.copy_bytes(1000, 4) == 8000  # read + write 1000 × 4 B


def test_scaled_heads_keep_group():
    assert shapes.scaled_heads(32, 8, 8) == (8, 2)  # llama3-8b: group 4 kept
    assert shapes.scaled_heads(64, 8, 8) == (16, 2)  # llama3-70b: group 8 kept
    assert shapes.scaled_heads(32, 32, 8) == (4, 4)  # MHA stays MHA
    assert shapes.scaled_heads(8, 1, 8) == (1, 1)  # MQA stays MQA


def test_scaled_model_keeps_kernel_defining_widths():
    ds = shapes.scaled_model(load_model("deepseek-v3"), 8)
    assert (ds.n_layers, ds.n_heads, ds.d_model) == (1, 16, 896)  # 128/8, 7168/8
    assert (ds.mla.kv_lora_rank, ds.mla.qk_rope_head_dim, ds.mla.qk_nope_head_dim) == (512, 64, 128)
    full = shapes.scaled_model(load_model("llama3-70b"), 1)
    assert (full.n_layers, full.n_heads, full.n_kv_heads) == (1, 64, 8)


def test_gemm_shapes():
    assert shapes.gemm_shapes(load_model("llama3-8b")) == [
        ("qkv", 4096, 6144),  # 32×128 + 8×(128+128)
        ("o", 4096, 4096),
        ("ffn_up", 4096, 28672),  # gate and up fused: 2 × 14336
        ("ffn_down", 14336, 4096),
    ]
    assert shapes.gemm_shapes(load_model("deepseek-v3")) == [
        ("q_down", 7168, 1536),
        ("q_up", 1536, 24576),  # 128 heads × (128 + 64)
        ("kv_down", 7168, 576),  # 512 + 64
        ("o", 16384, 7168),  # 128 × 128
        ("ffn_up", 7168, 36864),
        ("ffn_down", 18432, 7168),
    ]


def test_decode_variants():
    assert shapes.decode_variants(load_model("llama3-8b")) == ["gqa", "mha", "mqa"]
    assert shapes.decode_variants(load_model("deepseek-v3")) == ["mla"]


def test_quantile_and_buffers():
    assert quantile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert quantile([0.0, 10.0], 0.1) == pytest.approx(1.0)
    assert n_buffers(1) == 8  # tiny sets: the most buffers
    assert n_buffers(2**30) == 2  # a set larger than the target: still two
    assert n_buffers(100 * 2**20) == 3  # ceil(256 MiB / 100 MiB)


def _row(kernel, bound, frac, status="ok", batch=1, ctx=1024, med=1.0, p10=0.9, p90=1.2):
    return {
        "kernel": kernel, "bound": bound, "fraction_of_peak": frac, "status": status,
        "batch": batch, "ctx": ctx, "measured_median_s": med, "measured_p10_s": p10,
        "measured_p90_s": p90,
    }  # fmt: skip


FALLBACK = Band(low=0.5, expected=0.6, high=0.7)


def test_calibration_bands_and_rejected_rows_excluded():
    rows = [
        _row("probe_gemm", "compute", 0.8),
        _row("gemm", "compute", 0.6, batch=64),
        _row("probe_copy", "memory", 0.9),
        _row("decode_attention", "memory", 0.5),
        _row("decode_attention", "memory", 0.01, status="rejected"),  # wrong: ignored
    ]
    cal = calibrate.build_calibration(
        rows, hardware="h100", device="x", fallback_matmul=FALLBACK, fallback_memory=FALLBACK
    )
    assert isinstance(cal, Calibration)
    # matmul: medians 0.8, 0.6 -> expected 0.7; low = 0.6 × 1.0/1.2 = 0.5; high = 0.8/0.9
    assert cal.matmul.expected == pytest.approx(0.7)
    assert cal.matmul.low == pytest.approx(0.5)
    assert cal.matmul.high == pytest.approx(0.8 / 0.9)
    # memory: 0.9 and 0.5 only (the rejected 0.01 never counts)
    assert cal.memory.expected == pytest.approx(0.7)
    assert cal.memory.low == pytest.approx(0.5 / 1.2)
    dec = [k for k in cal.kernels if k.kernel == "decode_attention"]
    assert len(dec) == 1 and dec[0].samples == 1 and dec[0].achieved_fraction == 0.5
    assert {k.kernel for k in cal.kernels} == {"probe_gemm", "gemm", "probe_copy",
                                              "decode_attention"}  # fmt: skip


def test_calibration_clamps_and_falls_back():
    rows = [_row("probe_copy", "memory", 1.3, p10=0.5)]  # cache effects: above "peak"
    cal = calibrate.build_calibration(
        rows, hardware="cpu-probe", device="x", fallback_matmul=FALLBACK, fallback_memory=FALLBACK
    )
    assert cal.memory.expected == 1.0 and cal.memory.high == 1.0
    assert cal.matmul == FALLBACK  # no compute rows, no GEMM probe: the profile's band
    assert calibrate.batch_bucket(9) == (9, 64)


def test_no_torch_outside_measure():
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "calc").rglob("*.py")
        if "measure" not in p.relative_to(ROOT / "calc").parts[0]
        and ("import torch" in p.read_text() or "from torch" in p.read_text())
    ]
    assert offenders == []
    code = (
        "import sys; from calc.cli import main\n"
        "try:\n    main(['memory', '--model', 'llama3-8b', '--ctx', '8192'])\n"
        "except SystemExit:\n    pass\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True)


def test_missing_torch_is_one_line(cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    r = cli("measure", "--model", "llama3-8b", "--device", "cpu")
    assert r.code == 2
    assert r.err == "kvcalc: error: torch is not installed; install it with: " \
        "pip install 'kvcalc[measure]'\n"  # fmt: skip
