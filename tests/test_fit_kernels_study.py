"""The per-expert MoE study of tools/fit_kernels.py (issue 20 round 9): its token-range
statistics and the docs section that ``--write`` keeps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent


def _fit_kernels():
    pytest.importorskip("pandas")
    return load_script("tools/fit_kernels.py")


def test_token_ranges_split_rows_and_sign():
    fk = _fit_kernels()
    tokens = np.array([1.0, 32.0, 64.0, 1024.0, 2048.0, 4096.0])
    # measured / fitted: 1.1 and 0.9 below 64 tokens; 1.2, 1.4, 1.3 in 64-2,048; 0.5 above
    ratio = np.array([1.1, 0.9, 1.2, 1.4, 1.3, 0.5])
    out = fk._token_ranges(ratio, tokens)
    # 1-63: errors +0.1, -0.1 -> signed median 0.0, |error| median 0.1
    n, signed, abs_ = out["1-63"]
    assert n == 2 and signed == pytest.approx(0.0) and abs_ == pytest.approx(0.1)
    # 64-2048: errors +0.2, +0.4, +0.3 -> median +0.3 (the curve fast), |error| 0.3
    n, signed, abs_ = out["64-2048"]
    assert n == 3 and signed == pytest.approx(0.3) and abs_ == pytest.approx(0.3)
    # 2049+: error -0.5 (the curve slow)
    n, signed, abs_ = out[f"2049-{1 << 30}"]
    assert n == 1 and signed == pytest.approx(-0.5) and abs_ == pytest.approx(0.5)


def test_kernel_fits_page_holds_the_study():
    fk = _fit_kernels()
    text = (ROOT / "docs" / "kernel-fits.md").read_text()
    kept = fk._kept_study()
    assert kept.startswith(fk.STUDY_BEGIN) and kept.endswith(fk.STUDY_END)
    assert kept in text
    # a rewrite of the page by --write keeps it
    assert kept in fk.report([])


def test_shipped_moe_curve_at_a_table_row():
    # the fp4 backend study's curve evaluation (no pandas: a mapping of columns to arrays)
    fk = load_script("tools/fit_kernels.py")
    row = {"num_tokens": [1], "hidden_size": [1000], "inter_size": [2000], "topk": [1],
           "num_experts": [1], "moe_tp_size": [2], "moe_ep_size": [1]}  # fmt: skip
    curve = {"compute": 1.0, "memory": 1.0, "fixed_s": 10e-6, "per_route_element_s": 1e-12,
             "tile_m": 1, "sharpness": 2.0, "per_expert_s": 1e-7}  # fmt: skip
    # one route, one touched expert, expert width 2000 / TP 2 = 1000:
    # FLOPs 6 x 1 x 1000 x 1000 = 6e6 at 6e12 -> 1 us; bytes 1 x 3 x 1000 x 1000 x 0.5
    # + 1 x 1000 x 4 = 1.504e6 at 1.504e12 -> 1 us; soft max at 2: sqrt(2) us;
    # + 10 us fixed + 1e-12 x 1000 route elements (1 ns) + 0.1 us for the one expert
    t = fk._shipped_moe_s(curve, row, {"fp4": 6e12}, 1.504e12, 0.5)
    assert float(t[0]) == pytest.approx(10e-6 + 1e-9 + 1e-7 + 2**0.5 * 1e-6, rel=1e-9)


def test_table_routing_touches_one_expert_per_route_until_all_are_touched():
    # aiconfigurator's balanced_logits (collector/helper.py) gives token t's i-th route expert
    # (t + i x ceil(E / k)) mod E: gpt-oss-120b's 128 experts, top-4: 1 token -> 4 experts,
    # 16 -> 64, 32 -> 128 (all), 64 -> still 128; random routing reaches fewer at 32 tokens:
    # 128 x (1 - (1 - 4/128)^32) = 81.66
    fk = load_script("tools/fit_kernels.py")
    got = fk.table_active_experts(128, 4, np.array([1.0, 16.0, 32.0, 64.0]))
    assert got.tolist() == [4.0, 64.0, 128.0, 128.0]
    assert 128 * (1 - (1 - 4 / 128) ** 32) == pytest.approx(81.66, abs=0.005)


def test_range_weights_give_every_token_range_the_same_weight():
    # 1 row at 4 tokens, 4 rows at 64, 9 rows at 512 (three of the four ranges): each row's
    # weight 1 / sqrt(rows of its range) x sqrt(14 / 3), so each range's squared weights sum
    # to 14 / 3 (its rows x 1 / rows x 14 / 3) whatever its row count
    fk = load_script("tools/fit_kernels.py")
    tokens = np.array([4.0] + [64.0] * 4 + [512.0] * 9)
    w, ranges = fk._range_weights(tokens)
    assert len(ranges) == 3
    for m in ranges:
        assert float(np.sum(w[m] ** 2)) == pytest.approx(14 / 3, rel=1e-12)


def _gemm_frame(curve: dict, peak: float, bandwidth: float, sms: int):
    """A GEMM table of one engine whose times are ``curve``'s exactly (fp8: weights and
    inputs 1 byte an element, the quantisation 3): m of 1 to 8,192 rows in all four ranges."""
    pd = pytest.importorskip("pandas")
    from calc.formulas import kernel_curves as K

    rows = [(m, n, k) for m in (1, 2, 4, 8, 16, 64, 128, 512, 1024, 2048, 8192)
            for n in (1024, 4096, 8192, 28672) for k in (1024, 4096, 8192, 16384)]  # fmt: skip
    m, n, k = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    t = K.gemm_time_s(m, n, k, flops_per_s=peak, bytes_per_s=bandwidth,
                      weight_bytes_per_element=1.0, act_bytes_per_element=1.0,
                      quantize_bytes_per_element=3.0, sms=sms, **curve)  # fmt: skip
    return pd.DataFrame({"gemm_dtype": "fp8", "m": m, "n": n, "k": k, "latency": t * 1e3,
                         "fw": "trtllm", "source": "synthetic"})  # fmt: skip


def test_low_precision_gemm_streams_at_the_given_fraction():
    # issue 20, fp8small: a low-precision GEMM curve takes the bf16 curve's memory fraction
    # (passed in) and fits the rest with each row range weighted alike; on a table made by a
    # curve with that fraction it gives the fraction back exactly and finds the rest
    fk = _fit_kernels()
    curve = {"compute": 0.6, "memory": 0.8, "fixed_s": 5e-6, "k_half": 200.0, "tile_m": 64,
             "tile_n": 64, "sharpness": 4.0}  # fmt: skip
    # H200: 1,979 TFLOP/s fp8 dense, 4.8 TB/s, 132 SMs; 11 m x 4 n x 4 k = 176 rows, below
    # the fit's 200-row floor, so the table is doubled (a second engine's identical rows)
    pd = pytest.importorskip("pandas")
    pytest.importorskip("scipy")  # the fitting script's least squares, not a kvcalc dependency
    one = _gemm_frame(curve, 1979e12, 4.8e12, 132)
    frame = pd.concat([one, one.assign(fw="sglang")], ignore_index=True)
    key, got, stats = fk.fit_gemm(frame, 1979e12, 4.8e12, 132, "fp8", memory=0.8)
    assert key == "fp8" and got["memory"] == 0.8  # given, not fitted
    assert (got["tile_m"], got["tile_n"], got["sharpness"]) == (64, 64, 4.0)
    assert got["compute"] == pytest.approx(0.6, rel=1e-3)
    assert got["fixed_s"] == pytest.approx(5e-6, rel=1e-3)
    assert stats["median_abs_error"] < 1e-3
    # without a given fraction the fit is free and unweighted: the same table, the same curve
    _, free, _ = fk.fit_gemm(frame, 1979e12, 4.8e12, 132, "fp8")
    assert free["memory"] == pytest.approx(0.8, rel=1e-3)
