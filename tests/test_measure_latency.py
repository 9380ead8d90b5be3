"""A calibration file written by `kvcalc measure --save-calibration` drives `kvcalc latency
--calibration FILE`: the latency prediction uses the measured efficiencies."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from calc.data.calibration import load_calibration  # noqa: E402
from calc.measure import suite  # noqa: E402


def test_latency_uses_saved_calibration(cli, tmp_path, monkeypatch):
    monkeypatch.setitem(suite.PROBE_SIZES, "cpu", (128, 2**16))
    monkeypatch.setitem(suite.GEMM_M, "cpu", ())  # the curve: tests/test_measure_calibration.py
    path = tmp_path / "cal.yaml"
    r = cli("measure", "--model", "llama3-8b", "--device", "cpu", "--batch", "1",
            "--ctx", "32", "--repeats", "2", "--warmup", "1", "--format", "csv",
            "--save-calibration", path)  # fmt: skip
    assert r.code == 0, r.err
    cal = load_calibration(path)
    base = cli("latency", "--model", "llama3-8b", "--hardware", "h100", "--format", "json")
    calibrated = cli("latency", "--model", "llama3-8b", "--hardware", "h100",
                     "--calibration", path, "--format", "json")  # fmt: skip
    assert base.code == 0 and calibrated.code == 0, calibrated.err
    b, c = base.json(), calibrated.json()
    from calc.data.registry import load_hardware

    # without a calibration: h100.yaml's expected memory band
    assert b["memory_efficiency"] == load_hardware("h100").efficiency.memory.expected
    assert c["matmul_efficiency"] == pytest.approx(cal.matmul.expected)
    assert c["memory_efficiency"] == pytest.approx(cal.memory.expected)
    # decode at batch 1 is bandwidth-bound: its time scales with 1 / memory efficiency
    assert c["tpot_s"] != b["tpot_s"]
    if c["memory_efficiency"] < b["memory_efficiency"]:
        assert c["tpot_s"] > b["tpot_s"]


def test_latency_rejects_bad_calibration_file(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: kvcalc-calibration\nhardware: h100\n")
    r = cli("latency", "--model", "llama3-8b", "--hardware", "h100", "--calibration", bad)
    assert r.code == 2 and "bad.yaml" in r.err and r.err.count("\n") == 1
