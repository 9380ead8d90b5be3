"""A release kvcalc does not model is shown as asked and as modelled (the freshuser2 audit,
session 17): vLLM 0.5.4 is sized by 0.10.0's rules but keeps its own host costs, so every
output that names the release says "0.5.4 (modelled as 0.10.0)" in a table and carries
engine_version (modelled) beside engine_version_asked (named) in JSON."""

from __future__ import annotations

import json

import pytest

from calc.output.render import kv_cells

DEP = ("--model", "llama3-8b", "--hardware", "h100", "--ctx", "2048", "--engine", "vllm")


@pytest.mark.parametrize("command", ["memory", "capacity", "cost"])
def test_an_unmodelled_release_is_shown_as_asked_and_as_modelled(cli, command):
    r = cli(command, *DEP, "--engine-version", "0.5.4", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    # 0.5.4 is older than the oldest modelled vLLM release (0.10.0): the nearest is used
    assert out["engine_version"] == "0.10.0" and out["engine_version_asked"] == "0.5.4"
    table = cli(command, *DEP, "--engine-version", "0.5.4")
    assert "0.5.4 (modelled as 0.10.0)" in table.out
    assert "engine_version_asked" not in table.out  # one row, not two


def test_a_modelled_release_or_a_prefix_of_one_is_not_asked(cli):
    r = cli("capacity", *DEP, "--engine-version", "0.19", "--format", "json")
    out = json.loads(r.out)
    # "0.19" names the newest 0.19 release modelled: nothing to say
    assert out["engine_version_asked"] is None and out["engine_version"].startswith("0.19.")
    out = json.loads(cli("capacity", *DEP, "--format", "json").out)
    assert out["engine_version_asked"] is None


def test_simulate_and_plan_name_the_release_asked(cli):
    r = cli("simulate", "--model", "llama3-8b", "--hardware", "h100", "--rate", "2", "-n", "20",
            "--engine-version", "0.5.4", "--format", "json")  # fmt: skip
    out = json.loads(r.out)
    assert (out["engine_version"], out["engine_version_asked"]) == ("0.10.0", "0.5.4")
    r = cli("plan", "--model", "llama3-8b", "--hardware", "h100", "--rate", "2", "--prompt",
            "1000", "--gen", "200", "--ttft-p99", "2s", "--tpot-p99", "50ms", "--top", "1",
            "--engine", "vllm", "--engine-version", "0.5.4")  # fmt: skip
    assert r.code == 0, r.err
    assert "on vllm 0.5.4 (modelled as 0.10.0)," in r.out


def test_the_table_folds_an_asked_value_into_its_key():
    cells = dict(kv_cells({"engine_version": "0.10.0", "engine_version_asked": "0.5.4"}))
    assert cells == {"engine_version": "0.5.4 (modelled as 0.10.0)"}
    cells = dict(kv_cells({"engine_version": "0.33.0", "engine_version_asked": None}))
    assert cells == {"engine_version": "0.33.0"}


def test_score_names_the_release_asked(cli):
    from pathlib import Path

    run = (Path(__file__).parent / "data" / "bench_results"
           / "vllm-0.5.4_llama-3.1-8b-fp8_tp1_h100-sxm_sharegpt_10-prompts.json")  # fmt: skip
    r = cli("score", run, "-H", "h100", "--engine-version", "0.5.4", "-f", "json")
    assert r.code == 0, r.err
    (got,) = r.json()["runs"]
    assert (got["engine_version"], got["engine_version_asked"]) == ("0.10.0", "0.5.4")
    r = cli("score", run, "-H", "h100", "--engine-version", "0.5.4")
    assert "0.5.4 (modelled as 0.10.0)" in r.out


def test_log_names_the_release_asked_beside_the_modelled_one(cli):
    from pathlib import Path

    log = Path(__file__).parent / "data" / "engine_logs" / "vllm-h100-llama31-8b-tp1.log"
    r = cli("log", log, "-m", "llama3.1-8b", "--engine-version", "0.5.4", "-f", "json")
    out = r.json()
    # the log prints no version: the one asked is 0.5.4, sized by 0.10.0's rules
    assert out["engine_version_printed"] is None
    assert (out["engine_version_modelled"], out["engine_version_asked"]) == ("0.10.0", "0.5.4")
    r = cli("log", log, "-m", "llama3.1-8b", "--engine-version", "0.5.4")
    assert "0.5.4 (modelled as 0.10.0)" in r.out and "engine_version_asked" not in r.out


def test_the_table_folds_an_asked_value_into_the_modelled_key():
    cells = dict(kv_cells({"engine_version_modelled": "0.10.0", "engine_version_asked": "0.5.4"}))
    assert cells == {"engine_version_modelled": "0.5.4 (modelled as 0.10.0)"}


def test_the_plan_page_names_the_release_asked():
    from calc.reports.report_plan import display

    row = {"weight_dtype": "fp8", "kv_dtype": "fp8", "tp": 1, "pp": 1, "ep": 1,
           "mode": "aggregated", "engine_version": "0.10.0",
           "engine_version_asked": "0.5.4"}  # fmt: skip
    assert display(row)["engine_version"] == "0.5.4 (modelled as 0.10.0)"
    assert display({**row, "engine_version_asked": None})["engine_version"] == "0.10.0"


def test_the_rate_sweep_title_names_the_release_asked(cli):
    r = cli("simulate", "--model", "llama3-8b", "--hardware", "h100", "--sweep-rate", "1,2",
            "-n", "10", "--engine-version", "0.5.4")  # fmt: skip
    assert r.code == 0, r.err
    assert "(tp 1, vllm 0.5.4 (modelled as" in " ".join(r.out.split())
