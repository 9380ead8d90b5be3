"""Calibration from measurement (issue 12, item 4): the fixed cost of one kernel, the small-M
GEMM curve, measurements too noisy to score, and the calibration file that carries them to
every command's ``--calibration FILE``.

Rows and timings are injected, so the arithmetic is exact and nothing depends on how busy the
machine is; the tests that run torch use tiny shapes on the CPU path. No timed assertions.
"""

from __future__ import annotations

import pytest
import yaml

from calc.data.calibration import Calibration, apply_calibration, load_calibration
from calc.data.hardware_schema import Band, GemmPoint
from calc.data.registry import load_hardware
from calc.measure import calibrate, suite
from calc.measure.kernels import Kernel
from calc.measure.timing import Timing

MS = 1e-3
US = 1e-6
STEADY = (1 * MS,) * 5  # spread 0
WIDE = (1 * MS,) * 5 + (2 * MS,) * 5  # p10 1 ms, median 1.5 ms, p90 2 ms: spread 66.7 %


def _row(kernel="gemm", variant="o", batch=1, median=10 * US, **kw) -> dict:
    """A report row with what calibrate reads; fractions of peak are given directly."""
    r = {"kernel": kernel, "variant": variant, "batch": batch, "ctx": 0, "status": "ok",
         "bound": "memory", "measured_median_s": median, "measured_p10_s": median,
         "measured_p90_s": median, "fraction_of_peak": 0.5, "flops_fraction": 0.01,
         "bandwidth_fraction": 0.5, "too_noisy": False, "error_pct": 0.0}  # fmt: skip
    r.update(kw)
    return r


def _kernel(kind="gemm_m", flops=2 * 4 * 4096 * 4096, moved=2 * 4096 * 4096) -> Kernel:
    """A kernel with counts only (never run): a [4, 4096] @ [4096, 4096] GEMM by default."""
    return Kernel(kind, "o", "[4,4096]@[4096,4096]", 4, 0, flops, moved, 0, 0, 0,
                  None, None, None, None)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Too noisy to score


def test_spread_rule_threshold_and_minimum_runs():
    wide = Timing(WIDE, "perf_counter")
    # sorted 5 × 1 ms, 5 × 2 ms: p10 at position 0.9 -> 1 ms; median at 4.5 -> 1.5 ms;
    # p90 at 8.1 -> 2 ms; (2 - 1) / 1.5 = 66.7 % > 50 %
    assert wide.p10_s == pytest.approx(1 * MS) and wide.p90_s == pytest.approx(2 * MS)
    assert suite.too_noisy(wide) and not suite.too_noisy(wide, max_spread_pct=70)
    # 9 × 1 ms and one 3 ms: p90 at 8.1 -> 1 + 0.1 × 2 = 1.2 ms; spread 20 %: scored
    assert not suite.too_noisy(Timing((1 * MS,) * 9 + (3 * MS,), "perf_counter"))
    # fewer than 5 runs: their p10 and p90 are the extremes, never judged
    assert not suite.too_noisy(Timing((1 * MS, 1 * MS, 5 * MS, 5 * MS), "perf_counter"))
    assert not suite.too_noisy(None)


def test_noisy_row_keeps_its_times_but_has_no_error():
    hw = load_hardware("h100")
    noisy = suite.row(suite.Measurement(_kernel(), "ok", timing=Timing(WIDE, "cuda events")),
                      hw, "bf16", 1)  # fmt: skip
    steady = suite.row(suite.Measurement(_kernel(), "ok", timing=Timing(STEADY, "cuda events")),
                       hw, "bf16", 1)  # fmt: skip
    assert noisy["too_noisy"] and noisy["error_pct"] is None
    assert noisy["measured_median_s"] == pytest.approx(1.5 * MS)
    assert noisy["spread_pct"] == pytest.approx(100 / 1.5)  # (2 - 1) / 1.5 × 100
    assert not steady["too_noisy"] and steady["error_pct"] is not None


def test_noisy_rows_calibrate_nothing_and_are_not_scored():
    rows = [
        _row("probe_copy", "copy", fraction_of_peak=0.9),
        _row("gemm", "o", fraction_of_peak=0.1, too_noisy=True, error_pct=None),
        _row("decode_attention", "gqa", error_pct=-10.0),
        _row("decode_attention", "mha", error_pct=20.0),
        _row("paged_decode", "gqa", error_pct=-30.0),
        _row("kernel_overhead", "eager", error_pct=-100.0),
        _row("probe_gemm", "square", bound="compute", fraction_of_peak=1.0),
    ]
    rows[2]["fraction_of_peak"] = rows[3]["fraction_of_peak"] = rows[4]["fraction_of_peak"] = 0.9
    hw = load_hardware("h100")
    cal = calibrate.build_calibration(rows, hardware="h100", device="test",
                                      fallback_matmul=hw.efficiency.matmul,
                                      fallback_memory=hw.efficiency.memory)  # fmt: skip
    assert cal.memory.expected == pytest.approx(0.9)  # the noisy 0.1 left out
    assert "gemm" not in {k.kernel for k in cal.kernels}
    assert "kernel_overhead" not in {k.kernel for k in cal.kernels}  # no work: no fraction
    # scored: -10, +20, -30 (the noisy row, the kernel cost and the probes left out when the
    # profile was probed from them): median -10, median |error| of 10, 20, 30 = 20
    stats = suite.error_statistics(rows, probed=True)
    assert stats == {"n_scored": 3, "median_error_pct": -10.0, "median_abs_error_pct": 20.0}
    assert suite.error_statistics(rows, probed=False)["n_scored"] == 5  # + the two probes


# ---------------------------------------------------------------------------------------------
# Fixed cost of one kernel and the small-M curve


def test_kernel_overhead_prefers_the_graph_figure():
    rows = [_row("kernel_overhead", "eager", median=5 * US),
            _row("kernel_overhead", "cuda_graph", median=2 * US),
            _row("kernel_overhead", "cuda_graph", median=9 * US, too_noisy=True)]  # fmt: skip
    assert calibrate.kernel_overhead(rows) == (2 * US, "cuda_graph")
    assert calibrate.kernel_overhead(rows[:1]) == (5 * US, "eager")  # CPU: eager only
    assert calibrate.kernel_overhead(rows[2:]) is None  # only a noisy one


def test_roofline_at_bands_from_the_row_is_the_profile_roofline():
    """The row-only form median × max(flops_fraction / matmul, bandwidth_fraction / memory)
    equals op_time_s at the profile's peaks, so rows of different probes combine."""
    hw = load_hardware("h100")
    for flops in (2 * 4 * 4096 * 4096, 2 * 512 * 4096 * 4096):  # memory- and compute-bound
        k = _kernel(flops=flops)
        r = suite.row(suite.Measurement(k, "ok", timing=Timing(STEADY, "cuda events")),
                      hw, "bf16", 1)  # fmt: skip
        at_bands = calibrate.roofline_at_bands_s(r, hw.efficiency.matmul, hw.efficiency.memory)
        assert at_bands == pytest.approx(r["predicted_s"], rel=1e-12)


def test_gemm_m_curve_hand_arithmetic():
    matmul = Band(low=0.4, expected=0.5, high=0.6)
    memory = Band(low=0.7, expected=0.8, high=0.9)
    rows = [
        # roofline = median × max(flops_fraction / 0.5, bandwidth_fraction / 0.8)
        # 10 µs × max(0.02, 0.5) = 5 µs; (10 - 2) / 5 = 1.6
        _row("gemm_m", "qkv", 1, 10 * US, flops_fraction=0.01, bandwidth_fraction=0.4),
        # 20 µs × max(0.04, 0.75) = 15 µs; (20 - 2) / 15 = 1.2  -> median at M=1: 1.4
        _row("gemm_m", "o", 1, 20 * US, flops_fraction=0.02, bandwidth_fraction=0.6),
        # 3 µs × max(0.02, 1.125) = 3.375 µs; (3 - 2) / 3.375 = 0.296 -> clamped to 0.5
        _row("gemm_m", "o", 4, 3 * US, flops_fraction=0.01, bandwidth_fraction=0.9),
        # 10 µs × max(0.8, 0.25) = 8 µs; (10 - 2) / 8 = 1.0
        _row("gemm_m", "o", 64, 10 * US, flops_fraction=0.4, bandwidth_fraction=0.2),
        _row("gemm_m", "qkv", 64, 90 * US, too_noisy=True),  # left out
        _row("gemm", "o", 2, 90 * US),  # a decode GEMM, not a curve point
    ]
    curve = calibrate.gemm_m_curve(rows, matmul, memory, kernel_overhead_s=2 * US)
    assert [(p.m, p.slowdown) for p in curve] == [
        (1, pytest.approx(1.4)), (4, 0.5), (64, pytest.approx(1.0))]  # fmt: skip
    assert calibrate.gemm_m_curve(rows[5:], matmul, memory) is None


def test_bands_are_fitted_without_the_curve_and_kernel_cost_rows():
    rows = [_row("probe_copy", "copy", fraction_of_peak=0.8),
            _row("gemm_m", "o", 1, 10 * US, fraction_of_peak=0.05, bandwidth_fraction=0.4),
            _row("kernel_overhead", "eager", 1, 3 * US, fraction_of_peak=1e-6)]  # fmt: skip
    fallback = Band(low=0.5, expected=0.5, high=0.5)
    cal = calibrate.build_calibration(rows, hardware="h", device="d", fallback_matmul=fallback,
                                      fallback_memory=fallback)  # fmt: skip
    assert cal.memory == Band(low=0.8, expected=0.8, high=0.8)  # the copy alone
    assert cal.matmul == fallback
    assert cal.kernel_overhead_s == 3 * US and cal.kernel_overhead_variant == "eager"
    # 10 µs × max(0.01 / 0.5, 0.4 / 0.8) = 5 µs; (10 - 3) / 5 = 1.4
    assert cal.gemm_m_curve == [GemmPoint(m=1, slowdown=pytest.approx(1.4))]


# ---------------------------------------------------------------------------------------------
# The calibration file


def _write(path, **fields):
    base = {"kind": "kvcalc-calibration", "hardware": "h100", "device": "test",
            "created": "2026-11-30T00:00:00Z",
            "matmul": {"low": 0.6, "expected": 0.7, "high": 0.8},
            "memory": {"low": 0.7, "expected": 0.8, "high": 0.9}}  # fmt: skip
    path.write_text(yaml.safe_dump({**base, **fields}, sort_keys=False))
    return path


def test_old_calibration_file_loads_and_keeps_the_profile_kernel_cost(tmp_path):
    path = _write(tmp_path / "old.yaml")  # written before kernel_overhead_s existed
    cal = load_calibration(path)
    assert cal.kernel_overhead_s is None and cal.gemm_m_curve is None
    a100 = load_hardware("a100-80g")
    applied = apply_calibration(a100, cal, path)
    assert applied.kernel_overhead_s == a100.kernel_overhead_s == pytest.approx(5.6 * US)
    assert applied.kernel_overhead_source == a100.kernel_overhead_source
    assert applied.gemm_m_curve is None and applied.efficiency.memory.expected == 0.8


def test_calibration_sets_kernel_cost_and_curve_on_the_profile(tmp_path):
    curve = [{"m": 16, "slowdown": 1.3}, {"m": 1, "slowdown": 1.1}]
    path = _write(tmp_path / "new.yaml", kernel_overhead_s=2.5e-6,
                  kernel_overhead_variant="cuda_graph", gemm_m_curve=curve)  # fmt: skip
    applied = apply_calibration(load_hardware("h100"), load_calibration(path), path)
    assert applied.kernel_overhead_s == 2.5e-6
    assert applied.kernel_overhead_source == f"calibration {path} (cuda_graph)"
    assert applied.gemm_m_curve == [GemmPoint(m=1, slowdown=1.1), GemmPoint(m=16, slowdown=1.3)]


def test_calibration_yaml_round_trip(tmp_path):
    curve = [GemmPoint(m=1, slowdown=1.05), GemmPoint(m=64, slowdown=1.6)]
    cal = Calibration(kind="kvcalc-calibration", hardware="h200", device="NVIDIA H200",
                      created="2026-11-30T00:00:00Z", matmul=Band(low=0.6, expected=0.7, high=0.8),
                      memory=Band(low=0.7, expected=0.8, high=0.9), kernel_overhead_s=1.9e-6,
                      kernel_overhead_variant="cuda_graph", gemm_m_curve=curve)  # fmt: skip
    path = tmp_path / "cal.yaml"
    path.write_text(calibrate.calibration_yaml(cal))
    assert load_calibration(path) == cal


@pytest.mark.parametrize(
    ("fields", "key"),
    [
        ({"kernel_overhead_s": 0.5}, "kernel_overhead_s"),  # 0.5 s: above the 1 ms bound
        ({"kernel_overhead_variant": "lazy"}, "kernel_overhead_variant"),
        ({"gemm_m_curve": [{"m": 1, "slowdown": 0.1}]}, "slowdown"),  # below 0.5
        ({"gemm_m_curve": [{"m": 0, "slowdown": 1.0}]}, "m"),
        ({"gemm_m_curve": []}, "gemm_m_curve"),
    ],
)
def test_bad_calibration_values_are_one_line_errors(cli, tmp_path, fields, key):
    path = _write(tmp_path / "bad.yaml", **fields)
    r = cli("latency", "--model", "llama3-8b", "--hardware", "h100", "--calibration", path)
    assert r.code == 2 and "bad.yaml" in r.err and key in r.err and r.err.count("\n") == 1


def test_latency_pays_the_calibrated_kernel_cost_per_kernel(cli, tmp_path):
    """TPOT is linear in the calibrated kernel cost: cost 2c adds twice what cost c adds, and
    what c adds is a whole number of kernels × c."""
    tpot = {}
    for cost in (0.0, 1e-5, 2e-5):
        path = _write(tmp_path / f"c{cost}.yaml", kernel_overhead_s=cost)
        r = cli("latency", "--model", "llama3-8b", "--hardware", "h100", "--calibration", path,
                "--format", "json")  # fmt: skip
        assert r.code == 0, r.err
        tpot[cost] = r.json()["tpot_s"]
    one, two = tpot[1e-5] - tpot[0.0], tpot[2e-5] - tpot[0.0]
    assert one > 0 and two == pytest.approx(2 * one, rel=1e-9)
    kernels = one / 1e-5
    assert kernels == pytest.approx(round(kernels), abs=1e-6)


# ---------------------------------------------------------------------------------------------
# With torch: the new kernels on the CPU path


def _torch():
    return pytest.importorskip("torch")


TINY_MODEL = """\
name: tiny-gqa
display_name: a tiny GQA model for tests
source: tests/test_measure_calibration.py
n_layers: 2
d_model: 1024
n_heads: 16
n_kv_heads: 4
head_dim: 64
d_ffn: 2048
ffn_kind: gated
vocab_size: 1000
tie_embeddings: false
max_ctx: 4096
norm: rmsnorm
dtype: bf16
"""


@pytest.fixture
def small(monkeypatch, tmp_path):
    """Small probes, and a tiny model (÷8 on the CPU: d_model 128, 8 heads / 2 KV heads of
    64, d_ffn 256) whose GEMMs take a moment: the path of its YAML."""
    monkeypatch.setitem(suite.PROBE_SIZES, "cpu", (128, 2**16))
    path = tmp_path / "tiny-gqa.yaml"
    path.write_text(TINY_MODEL)
    return path


def test_kernel_chain_matches_reference_and_times_per_kernel(monkeypatch):
    torch = _torch()
    from calc.measure import kernels

    env = kernels.Env(torch, "cpu", "fp32", seed=3)
    k = kernels.kernel_chain(env)
    assert k.n_kernels == kernels.KERNEL_CHAIN == 200 and k.shape == "200 × add_ [1]"
    real = suite.measure_kernel(env, k, warmup=1, repeats=2)
    assert real.status == "ok" and real.rel_error == 0  # small integers: exact in fp32
    for dtype in ("bf16", "fp16"):  # exact there too
        low = kernels.Env(torch, "cpu", dtype)
        m = suite.measure_kernel(low, kernels.kernel_chain(low), 0, 1)
        assert m.status == "ok" and m.rel_error == 0
    # a run of 200 kernels timed at 2 ms is 10 µs per kernel
    monkeypatch.setattr(suite, "time_runs", lambda *a, **k: Timing((2 * MS,) * 5, "perf_counter"))
    m = suite.measure_kernel(env, k, warmup=0, repeats=5)
    assert m.timing.median_s == pytest.approx(10 * US)
    with pytest.raises(ValueError, match="CUDA graph needs --device cuda"):
        kernels.kernel_chain(env, graph=True)


def test_cli_measures_kernel_cost_and_curve_and_saves_them(cli, tmp_path, small):
    _torch()
    path = tmp_path / "cal.yaml"
    r = cli("measure", "--model", small, "--device", "cpu", "--batch", "1", "--ctx", "32",
            "--gemm-m", "4,1", "--repeats", "2", "--warmup", "1", "--format", "json",
            "--save-calibration", path)  # fmt: skip
    assert r.code == 0, r.err
    data = r.json()
    rows = data["rows"]
    chain = [row for row in rows if row["kernel"] == "kernel_overhead"]
    assert [row["variant"] for row in chain] == ["eager"]  # no CUDA graph on the CPU
    curve_rows = [row for row in rows if row["kernel"] == "gemm_m"]
    # 4 GEMM shapes of a llama layer (qkv, o, ffn_up, ffn_down) at M = 1 and 4
    assert sorted((row["batch"], row["variant"]) for row in curve_rows) == sorted(
        (m, v) for m in (1, 4) for v in ("qkv", "o", "ffn_up", "ffn_down"))  # fmt: skip
    assert data["kernel_overhead_graph_s"] is None
    assert data["kernel_overhead_eager_s"] == chain[0]["measured_median_s"]
    assert data["calibration_kernel_overhead_s"] == data["kernel_overhead_eager_s"]
    assert data["n_too_noisy"] == 0  # 2 runs: spread never judged
    cal = load_calibration(path)
    assert cal.kernel_overhead_s == pytest.approx(data["kernel_overhead_eager_s"], rel=1e-12)
    assert cal.kernel_overhead_variant == "eager"
    assert [p.m for p in cal.gemm_m_curve] == [1, 4]
    assert [p.m for p in cal.gemm_m_curve] == [p["m"] for p in data["calibration_gemm_m_curve"]]
    applied = apply_calibration(load_hardware("h100"), cal, path)
    assert applied.kernel_overhead_s == cal.kernel_overhead_s
    assert applied.gemm_m_curve == cal.gemm_m_curve


def test_cli_busy_machine_rows_are_flagged_not_scored(cli, tmp_path, small, monkeypatch):
    """Injected timings: every GEMM (decode and curve) is timed wide (spread 66.7 %), the rest
    steady at 1 ms per run."""
    _torch()
    from calc.measure import report

    def fake(torch, fn, input_sets, device, warmup, repeats, queued=False):
        gemm = set(input_sets[0]) == {"x", "w"}
        return Timing(WIDE if gemm else STEADY, "perf_counter")

    monkeypatch.setattr(suite, "time_runs", fake)
    path = tmp_path / "cal.yaml"
    args = ("measure", "--model", small, "--device", "cpu", "--batch", "1", "--ctx", "32",
            "--gemm-m", "1,4", "--repeats", "10", "--warmup", "0")  # fmt: skip
    r = cli(*args, "--format", "json", "--save-calibration", path)
    assert r.code == 0, r.err
    data = r.json()
    for row in data["rows"]:
        gemm = row["kernel"] in ("gemm", "gemm_m")
        assert row["too_noisy"] is gemm and (row["error_pct"] is None) is gemm, row
    # 4 decode GEMMs at batch 1 + 4 shapes × M 1, 4
    assert data["n_too_noisy"] == 12
    assert r.err.count("too noisy to score") == 1 and r.err.count("\n") == 1
    assert "above 50%" in r.err
    # scored: prefill, gqa/mha/mqa decode, paged decode (not probes, kernel cost, GEMMs)
    assert data["n_scored"] == 5
    cal = load_calibration(path)
    assert cal.gemm_m_curve is None and not {"gemm", "gemm_m"} & {k.kernel for k in cal.kernels}
    assert cal.kernel_overhead_s == pytest.approx(1 * MS / 200)  # 1 ms per run of 200
    text = report.markdown(data)  # the table's cells and caption, unwrapped
    assert "| too noisy |" in text and "% noisy |" in text and "left out of the error" in text
    r = cli(*args, "--max-spread", "70", "--format", "json")  # 66.7 % now passes
    assert r.code == 0 and r.json()["n_too_noisy"] == 0 and "too noisy" not in r.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--gemm-m", "0"), "--gemm-m 0 must be in 1..4,096"),
        (("--gemm-m", "a"), "--gemm-m 'a' is not an integer"),
        (("--max-spread", "0"), "--max-spread 0 must be in (0, 10,000] %"),
        (("--max-spread", "nan"), "--max-spread nan must be in (0, 10,000] %"),
    ],
)
def test_cli_bad_new_options(cli, args, message):
    _torch()
    r = cli("measure", "--model", "llama3-8b", "--device", "cpu", *args)
    assert r.code == 2 and message in r.err and r.err.count("\n") == 1


def test_report_folder_has_markdown_and_one_calibration(cli, tmp_path, small):
    _torch()
    from calc.measure import report

    srcs = []
    for name in ("a", "b"):
        src = tmp_path / f"{name}.json"
        r = cli("measure", "--model", small, "--device", "cpu", "--batch", "1", "--ctx", "32",
                "--gemm-m", "1,2", "--repeats", "2", "--warmup", "0", "--format", "json",
                "--output", src)  # fmt: skip
        assert r.code == 0, r.err
        srcs.append(str(src))
    assert report.main([*srcs, str(tmp_path)]) == 0
    md = (tmp_path / "a.md").read_text()
    assert md.startswith("### tiny-gqa: one layer") and "| kernel_overhead | eager |" in md
    assert "fixed cost of one kernel: eager" in md and "small-M GEMM slowdown" in md
    cal = load_calibration(tmp_path / "calibration.yaml")
    assert cal.hardware == "cpu-probe" and [p.m for p in cal.gemm_m_curve] == [1, 2]
    # both reports' curve rows: 2 runs × 2 M × 4 GEMM shapes (qkv, o, ffn_up, ffn_down)
    assert sum(k.samples for k in cal.kernels if k.kernel == "gemm_m") == 2 * 2 * 4


def test_cuda_graph_kernel_cost():
    torch = _torch()
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    from calc.measure import kernels

    env = kernels.Env(torch, "cuda", "bf16")
    for graph in (False, True):
        m = suite.measure_kernel(env, kernels.kernel_chain(env, graph=graph), 2, 5)
        assert m.status == "ok" and m.rel_error == 0 and m.timing.median_s > 0
    m = suite.measure_kernel(env, kernels.gemm(env, "o", 4, 512, 512, kernel="gemm_m"), 2, 5)
    assert m.status == "ok" and m.timing.clock == "cuda events, queued"


def test_curve_gemms_are_queued_decode_gemms_not():
    torch = _torch()
    from calc.measure import kernels

    env = kernels.Env(torch, "cpu", "fp32")
    assert kernels.gemm(env, "o", 4, 64, 64, kernel="gemm_m").queued
    assert not kernels.gemm(env, "o", 4, 64, 64).queued
    m = suite.measure_kernel(env, kernels.gemm(env, "o", 4, 64, 64, kernel="gemm_m"), 0, 2)
    assert m.timing.clock == "perf_counter"  # the CPU has nothing to queue
