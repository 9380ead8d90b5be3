"""Measurement mode with torch: kernels against their float64 references, a wrong kernel
rejected, the CPU path end to end through the CLI, and the calibration round trip.
Tiny shapes; no timed assertions."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from calc.data.calibration import apply_calibration, load_calibration  # noqa: E402
from calc.data.registry import load_hardware, load_model  # noqa: E402
from calc.measure import kernels, shapes, suite  # noqa: E402
from calc.measure.calibrate import build_calibration  # noqa: E402

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
TINY = ("--batch", "1,2", "--ctx", "40", "--repeats", "2", "--warmup", "1")


@pytest.fixture(autouse=True)
def small_probes(monkeypatch):
    """Probe with a 128² GEMM and a 64 Ki-element copy, and leave out the small-M GEMM curve
    (tests/test_measure_calibration.py runs it), so the CPU path takes a moment."""
    monkeypatch.setitem(suite.PROBE_SIZES, "cpu", (128, 2**16))
    monkeypatch.setitem(suite.GEMM_M, "cpu", ())


@pytest.fixture
def env():
    return kernels.Env(torch, "cpu", "fp32", seed=1)


def _layer(name):
    return shapes.scaled_model(load_model(name), 8)


def _all_kernels(env):
    cfg, ds = _layer("llama3-8b"), _layer("deepseek-v3")
    ks = [kernels.probe_gemm(env, 32), kernels.probe_copy(env, 1000),
          kernels.prefill_attention(env, 2, 24, 8, 2, 64, 64),
          kernels.prefill_attention(env, 1, 24, 4, 4, 96, 64)]  # fmt: skip
    for kind in ("gqa", "mha", "mqa"):
        layout = shapes.layout_for(cfg, kind)
        ks += [kernels.decode_attention(env, layout, 2, 37),
               kernels.paged_decode(env, layout, 2, 37)]  # fmt: skip
    ks.append(kernels.mla_decode(env, shapes.layout_for(ds, "mla"), 2, 37, 128, 128))
    ks += [kernels.gemm(env, n, 3, k, m) for n, k, m in shapes.gemm_shapes(cfg)]
    return ks


def test_every_kernel_matches_its_float64_reference(env):
    for k in _all_kernels(env):
        m = suite.measure_kernel(env, k, warmup=1, repeats=2)
        assert m.status == "ok", (k.kernel, k.variant, m.message)
        assert m.rel_error < 1e-5, (k.kernel, k.variant)  # fp32 vs float64: rounding only
        assert m.timing is not None and len(m.timing.samples_s) == 2
        assert m.backend


def test_inputs_are_random_and_differ_between_sets(env):
    k = kernels.decode_attention(env, shapes.layout_for(_layer("llama3-8b"), "gqa"), 1, 16)
    a, b = k.make_inputs(), k.make_inputs()
    assert bool((a["k"] != 0).all()) and not torch.equal(a["k"], b["k"])


def test_wrong_kernels_are_rejected(env):
    """A fast wrong kernel must not pass: no causal mask, KV heads mapped wrongly, MLA
    without the RoPE part. Each is rejected and never reaches the calibration."""
    sdpa = torch.nn.functional.scaled_dot_product_attention
    pre = kernels.prefill_attention(env, 1, 32, 4, 4, 64, 64)
    pre.run = lambda x: sdpa(x["q"], x["k"], x["v"], is_causal=False)  # mask forgotten
    layout = shapes.layout_for(_layer("llama3-8b"), "gqa")  # 8 query heads, 2 KV heads
    dec = kernels.decode_attention(env, layout, 2, 40)
    # repeat() instead of repeat_interleave(): query head h reads KV head h % 2, not h // 4
    dec.run = lambda x: sdpa(x["q"], x["k"].repeat(1, 4, 1, 1), x["v"].repeat(1, 4, 1, 1))
    ds = _layer("deepseek-v3")
    mla = kernels.mla_decode(env, shapes.layout_for(ds, "mla"), 1, 40, 128, 128)
    right = mla.run
    mla.run = lambda x: right({**x, "q_rope": torch.zeros_like(x["q_rope"])})  # RoPE lost
    hw = load_hardware("h100")
    rows = []
    for k in (pre, dec, mla):
        m = suite.measure_kernel(env, k, warmup=0, repeats=2)
        assert m.status == "rejected", (k.kernel, m.rel_error)
        assert m.rel_error > 0.05 and "float64 reference" in m.message
        rows.append(suite.row(m, load_hardware("h100"), "fp32", 8))
    good = suite.measure_kernel(env, kernels.probe_copy(env, 4096), 0, 2)
    rows.append(suite.row(good, hw, "fp32", 8))
    cal = build_calibration(rows, hardware="h100", device="cpu",
                            fallback_matmul=hw.efficiency.matmul,
                            fallback_memory=hw.efficiency.memory)  # fmt: skip
    assert [k.kernel for k in cal.kernels] == ["probe_copy"]


def test_kernel_that_raises_is_an_error_row(env):
    k = kernels.gemm(env, "qkv", 2, 8, 8)
    k.run = lambda x: torch.matmul(x["x"], x["x"])  # shape mismatch -> RuntimeError
    m = suite.measure_kernel(env, k, 0, 2)
    assert m.status == "error" and m.message.startswith("RuntimeError")
    r = suite.row(m, load_hardware("h100"), "fp32", 1)
    assert r["measured_median_s"] is None and r["predicted_s"] > 0


def test_row_prediction_is_the_roofline(env):
    hw = load_hardware("h100")
    k = kernels.gemm(env, "o", 1, 4096, 4096)
    k.make_inputs = lambda: {}  # not run: the prediction needs only the counts
    r = suite.row(suite.Measurement(k, "error"), hw, "bf16", 1)
    # 1 × 4096 @ 4096² in bf16 moves (4096 + 16,777,216 + 4096) × 4 B (fp32 env) ...
    bw = hw.hbm_bandwidth_bytes_per_s * hw.efficiency.memory.expected
    assert r["bound"] == "memory"
    assert r["predicted_s"] == pytest.approx(k.bytes_moved / bw)


def test_cli_cpu_end_to_end_json(cli):
    r = cli("measure", "--model", "llama3-8b", "--device", "cpu", *TINY, "--format", "json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["hardware"] == "cpu-probe" and data["profile_probed"] is True
    assert data["device"] == "cpu" and data["dtype"] == "fp32" and data["scale"] == 8
    kinds = {(row["kernel"], row["variant"]) for row in data["rows"]}
    assert {("decode_attention", v) for v in ("gqa", "mha", "mqa")} <= kinds
    assert {("paged_decode", "gqa"), ("prefill_attention", "H8/Hkv2"), ("gemm", "qkv"),
            ("probe_gemm", "square"), ("probe_copy", "copy")} <= kinds  # fmt: skip
    for row in data["rows"]:
        assert row["status"] == "ok", row
        assert row["measured_p10_s"] <= row["measured_median_s"] <= row["measured_p90_s"]
        assert row["predicted_s"] > 0 and math.isfinite(row["error_pct"])
        assert row["clock"] == "perf_counter" and row["repeats"] == 2
    prefill = next(row for row in data["rows"] if row["kernel"] == "prefill_attention")
    assert prefill["backend"].endswith("(cpu)") or prefill["backend"] == "math/cpu"
    dec = next(row for row in data["rows"]
               if row["kernel"] == "decode_attention" and row["batch"] == 1)  # fmt: skip
    # scaled llama3-8b layer: 8 heads, 2 KV heads, head_dim 128, fp32 (4 B), ctx 40:
    # KV 40 tokens × 2 KV heads × (128 + 128) × 4 B = 81,920; Q and O 8 × (128 + 128) × 4
    # = 8,192; together 90,112
    assert dec["predicted_kv_bytes"] == 81_920
    assert dec["predicted_memory_bytes"] == 90_112
    assert dec["peak_memory_bytes"] == 90_112  # tensor bytes on cpu: q + k + v + out
    # the probe defines peak on cpu: its own prediction is its median time (error 0) unless
    # the probed copy rate makes this tiny GEMM memory-bound (then the roofline is slower)
    probe = data["rows"][0]
    assert probe["kernel"] == "probe_gemm" and probe["error_pct"] > -1e-9
    if probe["bound"] == "compute":
        assert abs(probe["error_pct"]) < 1e-9


def test_cli_mla_csv_and_table(cli, tmp_path):
    out = tmp_path / "m.csv"
    r = cli("measure", "--model", "deepseek-v3", *TINY, "--format", "csv", "--output", out)
    assert r.code == 0, r.err
    lines = out.read_text().splitlines()
    assert lines[0].startswith("kernel,variant,backend,shape,batch,ctx,dtype")
    assert any(line.startswith("mla_decode,mla,") for line in lines)
    r = cli("measure", "--model", "deepseek-v3", "--device", "cpu", *TINY)
    assert r.code == 0 and "mla_decode" in r.out and "predicted with cpu-probe" in r.out


def test_cli_wrong_kernel_rejected_exit_1(cli, monkeypatch):
    real = kernels.paged_decode

    def broken(env, layout, batch, ctx):
        k = real(env, layout, batch, ctx)
        right = k.run
        k.run = lambda x: right({**x, "table": x["table"].flip(1)})  # blocks in wrong order
        return k

    monkeypatch.setattr(kernels, "paged_decode", broken)
    r = cli("measure", "--model", "llama3-8b", "--device", "cpu", *TINY, "--format", "json")
    assert r.code == 1
    rows = r.json()["rows"]
    assert {row["status"] for row in rows if row["kernel"] == "paged_decode"} == {"rejected"}
    assert "paged_decode gqa" in r.err and "rejected: output differs from float64" in r.err


def test_calibration_round_trip(cli, tmp_path):
    path = tmp_path / "cal.yaml"
    r = cli("measure", "--model", "llama3-8b", "--device", "cpu", *TINY,
            "--format", "json", "--save-calibration", path)  # fmt: skip
    assert r.code == 0, r.err
    cal = load_calibration(path)
    assert cal.hardware == "cpu-probe" and cal.kind == "kvcalc-calibration"
    # the model and dtype measured are recorded (fp32: --device cpu's default); no engine ran
    assert (cal.model, cal.dtype, cal.engine) == ("llama3-8b", "fp32", None)
    assert {k.kernel for k in cal.kernels} >= {"gemm", "decode_attention", "paged_decode"}
    hw = load_hardware("h100")
    applied = apply_calibration(hw, cal, path)
    assert applied.efficiency.matmul == cal.matmul and applied.efficiency.memory == cal.memory
    assert applied.efficiency.memory != hw.efficiency.memory
    assert str(path) in applied.efficiency.source


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--device", "gpu"), "--device 'gpu' is not one of: cpu, cuda"),
        (("--dtype", "int8"), "--dtype 'int8' is not one of: bf16, fp16, fp32"),
        (("--batch", "x"), "--batch 'x' is not an integer"),
        (("--ctx", "0"), "--ctx 0 must be in 1..1,048,576"),
        (("--repeats", "0"), "--repeats 0 must be in 1..10,000"),
        (("--format", "xml"), "--format 'xml' is not one of: table, json, csv"),
    ],
)
def test_cli_bad_input(cli, args, message):
    r = cli("measure", "--model", "llama3-8b", "--device", "cpu", *args)
    assert r.code == 2 and message in r.err and r.err.count("\n") == 1


def test_cli_cpu_ignores_hardware_with_warning(cli):
    r = cli("measure", "--model", "llama3-8b", "--device", "cpu", "--hardware", "h100", *TINY,
            "--format", "json")  # fmt: skip
    assert r.code == 0 and r.json()["hardware"] == "cpu-probe"
    assert "--hardware h100 is not used on --device cpu" in r.err


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_requested_without_cuda(cli):
    r = cli("measure", "--model", "llama3-8b", "--device", "cuda", "--hardware", "h100")
    assert r.code == 2 and "torch sees no CUDA device" in r.err


def test_cuda_needs_hardware(cli):
    r = cli("measure", "--model", "llama3-8b", "--device", "cuda")
    assert r.code == 2 and "--device cuda needs --hardware" in r.err


@needs_cuda
def test_cuda_suite_tiny():
    rep = suite.run_suite(load_model("llama3-8b"), hardware=load_hardware("h100"),
                          device="cuda", batches=[1], ctxs=[64], repeats=3, warmup=1,
                          quick=True, probe_sizes=(256, 2**20))  # fmt: skip
    assert all(r["status"] == "ok" for r in rep.rows), rep.rows
    assert {r["clock"] for r in rep.rows} == {"cuda events"}
    assert all(r["memory_source"] == "torch.cuda.max_memory_allocated" for r in rep.rows)


def test_report_folder_has_json_csv_table_and_all_csv(cli, tmp_path):
    from calc.measure import report

    src = tmp_path / "llama3-8b.json"
    r = cli("measure", "--model", "llama3-8b", "--device", "cpu", *TINY, "--format", "json",
            "--output", src)  # fmt: skip
    assert r.code == 0, r.err
    assert report.main([str(src), str(tmp_path)]) == 0
    table = (tmp_path / "llama3-8b.txt").read_text()
    assert "decode_attention" in table and "p10–p90" in table
    assert (tmp_path / "llama3-8b.csv").read_text().startswith("kernel,")
    assert (tmp_path / "all.csv").read_text().startswith("model,hardware,kernel,")


def test_gpu_check_script_parses():
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "bench" / "gpu_check.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)
    assert "pip install" not in script.read_text().replace("e.g. pip install 'torch==", "")
