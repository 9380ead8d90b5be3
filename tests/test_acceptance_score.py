"""Acceptance checks of `kvcalc score` as a new user runs it (issue 23): every real result file of
tests/data/bench_results scored end to end through the CLI, its source named as the file."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parent / "data" / "bench_results"
AIPERF = DATA / "aiperf-0.8_glm-5.1-mxfp4_tp2_mi355x_sglang_conc16.json"


def test_aiperf_file_is_scored_and_named_by_its_path(cli):
    # the file's own deployment (README of tests/data/bench_results): GLM-5.1 MXFP4 on SGLang,
    # TP 2 on MI355X; its model id is not shipped, so --model names it
    r = cli("score", AIPERF, "--model", "glm-5", "--hardware", "mi355x", "--tp", "2",
            "--weight-dtype", "mxfp4", "--engine", "sglang", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    runs = doc["runs"] if "runs" in doc else [doc]
    assert all(str(AIPERF) in json.dumps(run) for run in runs)
    assert "{'model_names'" not in r.out + r.err  # the reader's config is not the source


def test_aiperf_file_without_model_names_the_file(cli):
    r = cli("score", AIPERF)
    assert r.code == 2
    line = r.err.strip().splitlines()[-1]
    assert line.startswith(f"kvcalc: error: {AIPERF}: which model was served?"), line
    assert "amd/GLM-5.1-MXFP4" in line
