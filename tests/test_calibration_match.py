"""A calibration fitted to one engine, release, model or dtype, applied to another's
predictions, is said in one warning line by every command that takes --calibration; a file
that records none of them (written before the fields) loads and says nothing."""

from __future__ import annotations

from pathlib import Path

import yaml

from calc.data.calibration import load_calibration
from calc.deploy.calibration_match import grid_mismatch, mismatch

OPS = {"gemm": 1.1, "attention": 1.0, "moe": 1.0, "communication": 1.0}


def _cal(tmp_path: Path, **recorded) -> Path:
    doc = {"kind": "kvcalc-calibration", "hardware": "h100", "device": "benchmark runs (test)",
           "created": "2026-12-01", "op_multipliers": OPS, "host_step_s": 0.001,
           **recorded}  # fmt: skip
    p = tmp_path / "cal.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


VLLM_8B = {"engine": "vllm", "engine_version": "0.19.1", "model": "llama3-8b", "dtype": "bf16"}
LATENCY = ("latency", "-m", "llama3-8b", "-H", "h100", "--ctx", "2048", "-f", "json")


def _warnings(r) -> list[str]:
    assert r.code == 0, r.err
    return [w for w in r.err.splitlines() if "calibration" in w]


def test_another_engine_is_said_once(cli, tmp_path):
    p = _cal(tmp_path, **VLLM_8B)
    r = cli(*LATENCY, "--engine", "sglang", "--engine-version", "0.5.23", "--calibration", p)
    assert _warnings(r) == [
        f"kvcalc: warning: calibration {p} was fitted to vLLM 0.19.1, not this command's "
        "SGLang 0.5.23: it is applied as it is"
    ]
    # the same engine, release, model and dtype: nothing to say
    assert _warnings(cli(*LATENCY, "--engine-version", "0.19.1", "--calibration", p)) == []
    # another release of the same engine
    r = cli(*LATENCY, "--engine-version", "0.20.0", "--calibration", p)
    assert _warnings(r) == [f"kvcalc: warning: calibration {p} was fitted to vLLM 0.19.1, not "
                            "this command's vLLM 0.20.0: it is applied as it is"]  # fmt: skip


def test_another_model_or_dtype(cli, tmp_path):
    p = _cal(tmp_path, **VLLM_8B)
    r = cli("cost", "-m", "llama3-70b", "-H", "h100", "--tp", "4", "--ctx", "2048",
            "--weight-dtype", "fp8", "--engine-version", "0.19.1", "--calibration", p)
    assert _warnings(r) == [f"kvcalc: warning: calibration {p} was fitted to llama3-8b, bf16, "
                            "not this command's llama3-70b, fp8: it is applied as it is"]


def test_a_file_without_the_fields_still_loads_and_says_nothing(cli, tmp_path):
    p = _cal(tmp_path)
    assert load_calibration(p).engine is None
    assert _warnings(cli(*LATENCY, "--engine", "sglang", "--calibration", p)) == []


def test_sweep_plot_and_check_say_it(cli, tmp_path):
    p = _cal(tmp_path, **VLLM_8B)
    r = cli("sweep", "-m", "llama3-8b,llama3-70b", "-H", "h100", "--ctx", "2048", "--tp", "4",
            "--engine-version", "0.19.1", "--calibration", p, "-f", "json")
    # llama3-8b agrees; llama3-70b is another model: one line for the grid
    assert _warnings(r) == [f"kvcalc: warning: calibration {p} was fitted to llama3-8b, not "
                            "this command's llama3-70b: it is applied as it is"]  # fmt: skip
    svg = tmp_path / "r.svg"
    r = cli("plot", "roofline", "-m", "llama3-8b", "-H", "h100", "--engine", "trtllm",
            "--engine-version", "1.2.1", "--calibration", p, "-o", svg)
    assert _warnings(r) == [f"kvcalc: warning: calibration {p} was fitted to vLLM 0.19.1, not "
                            "this command's TensorRT-LLM 1.2.1: it is applied as it is"]


def test_grid_mismatch_counts_the_rest(tmp_path):
    cal = load_calibration(_cal(tmp_path, engine="vllm", model="llama3-8b"))
    same = {"engine": "vllm", "engine_version": "0.33.0", "model": "llama3-8b", "dtype": "fp8"}
    assert mismatch(cal, "c.yaml", same) is None  # no release nor dtype recorded: not compared
    grid = [same, {**same, "model": "llama3-70b"}, {**same, "engine": "sglang"}]
    assert grid_mismatch(cal, "c.yaml", grid) == (
        "calibration c.yaml was fitted to llama3-8b, not this command's llama3-70b (and 1 "
        "more): it is applied as it is"
    )
