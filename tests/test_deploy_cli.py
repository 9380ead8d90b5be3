"""The deployment commands share options: help with an example, CSV everywhere, calibration."""

from __future__ import annotations

import csv
import io

import pytest

from calc.cli.app import app

MINE = ("capacity", "cost", "check", "sweep")
RUN = {
    "capacity": ["capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "4096"],
    "cost": ["cost", "-m", "llama3-8b", "-H", "h100", "--ctx", "4096", "--batch", "8"],
    "sweep": ["sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024,4096"],
    "memory": ["memory", "-m", "llama3-8b", "--ctx", "4096"],
    "models": ["models"],
    "hardware": ["hardware"],
}


@pytest.mark.parametrize("name", MINE)
def test_help_has_an_example(cli, name):
    r = cli(name, "--help")
    assert r.code == 0
    assert "Example: kvcalc " + name in " ".join(r.out.split())


def test_every_command_offers_csv(cli):
    names = [c.name for c in app.registered_commands]
    assert set(MINE) <= set(names)
    for name in names:
        if name == "import-hf":  # converts a config to a YAML file: no report to format
            continue
        assert "--format" in cli(name, "--help").out, name


@pytest.mark.parametrize("name", sorted(RUN))
def test_csv_has_a_header_and_base_unit_columns(cli, name):
    r = cli(*RUN[name], "--format", "csv")
    assert r.code == 0, r.err
    rows = list(csv.reader(io.StringIO(r.out)))
    assert len(rows) >= 2
    header = rows[0]
    assert all(len(row) == len(header) for row in rows)
    assert not any(h.endswith(("_gb", "_gib", "_ms")) for h in header)


def test_capacity_and_cost_json_contract(cli):
    cap = cli(*RUN["capacity"], "-f", "json").json()
    for key in ("kv_budget_bytes", "kv_cache_tokens", "max_concurrency"):
        assert isinstance(cap[key], int)
    cost = cli(*RUN["cost"], "-f", "json").json()
    for key in (
        "kv_budget_bytes",
        "kv_cache_tokens",
        "max_concurrency",
        "output_tokens_per_s_per_gpu",
        "usd_per_million_output_tokens",
        "usd_per_million_input_tokens",
    ):
        assert key in cost


CALIBRATION = """
kind: kvcalc-calibration
hardware: h100
device: NVIDIA H100 80GB HBM3
created: "2026-01-01"
matmul: {low: 0.3, expected: 0.4, high: 0.5}
memory: {low: 0.4, expected: 0.44, high: 0.5}
"""


def test_calibration_applies_to_cost_and_check(cli, tmp_path):
    cal = tmp_path / "cal.yaml"
    cal.write_text(CALIBRATION)
    base = cli(*RUN["cost"], "-f", "json").json()
    slow = cli(*RUN["cost"], "--calibration", cal, "-f", "json").json()
    # the H100 profile expects 0.88 of HBM bandwidth; the calibration measured 0.44, so the
    # memory-bound decode step takes about twice as long
    assert slow["tpot_s"] > 1.5 * base["tpot_s"]
    assert slow["kv_budget_bytes"] == base["kv_budget_bytes"]  # memory is not an efficiency
    r = cli(*RUN["capacity"], "--calibration", cal, "-f", "json")
    assert r.code == 0
    r = cli(*RUN["capacity"], "--calibration", tmp_path / "none.yaml")
    assert r.code == 2 and "no such file" in r.err
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "deployments:\n  - {name: a, model: llama3-8b, hardware: h100,\n"
        "     workload: {ctx: 4096, batch: 8}, requirements: {max_tpot_ms: 1000}}\n"
    )
    fast = cli("check", spec, "-f", "json").json()["results"][0]["figure"]
    slow_fig = cli("check", spec, "--calibration", cal, "-f", "json").json()["results"][0]
    assert slow_fig["figure"] > 1.5 * fast


@pytest.mark.parametrize(
    "args",
    [
        ("latency", "-m", "llama3-8b", "-H", "h100", "--prompt", "100", "--gen", "8"),
        RUN["cost"],
        ("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "1", "-n", "5", "--prompt",
         "100", "--gen", "8"),
        ("simulate", "-m", "llama3-8b", "-H", "h100", "--sweep-rate", "1,2", "-n", "5",
         "--prompt", "100", "--gen", "8"),
    ],
)  # fmt: skip
def test_latency_cost_simulate_say_whether_a_calibration_moved_them(cli, tmp_path, monkeypatch,
                                                                   args):  # fmt: skip
    # qa (issue 23): --calibration moved their figures with nothing in the output saying so
    # (plan marks such rows, sweep has a column); `calibrated` says it in the table and JSON
    cal = tmp_path / "cal.yaml"
    cal.write_text(CALIBRATION)
    plain = cli(*args, "-f", "json")
    calibrated = cli(*args, "--calibration", cal, "-f", "json")
    assert plain.code == 0 and calibrated.code == 0, plain.err + calibrated.err
    assert plain.json()["calibrated"] is False
    assert calibrated.json()["calibrated"] is True
    if "--sweep-rate" not in args:  # its table is the chart and a row per rate
        monkeypatch.setenv("COLUMNS", "200")  # field and value on one line (no fold)
        table = cli(*args, "--calibration", cal).out.splitlines()
        assert any("calibrated" in line and "yes" in line for line in table)


def test_check_applies_a_calibration_to_its_own_gpu_among_several(cli, tmp_path):
    # qa4: a spec over h100 and h200 with an h200 calibration slowed the h100 deployment too
    # (a warning said so); as plan and sweep, it applies to the profile it was made on alone
    cal = tmp_path / "cal.yaml"
    cal.write_text(CALIBRATION.replace("hardware: h100", "hardware: h200"))
    assert "hardware: h200" in cal.read_text()
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "deployments:\n  - {name: a, model: llama3-8b, hardware: h100,\n"
        "     workload: {ctx: 4096, batch: 8}, requirements: {max_tpot_ms: 1000}}\n"
        "  - {name: b, model: llama3-8b, hardware: h200,\n"
        "     workload: {ctx: 4096, batch: 8}, requirements: {max_tpot_ms: 1000}}\n"
    )
    plain = [x["figure"] for x in cli("check", spec, "-f", "json").json()["results"]]
    r = cli("check", spec, "--calibration", cal, "-f", "json")
    got = [x["figure"] for x in r.json()["results"]]
    assert got[0] == plain[0] and got[1] > 1.5 * plain[1], (plain, got)
    assert "measured on 'h200'" not in r.err
