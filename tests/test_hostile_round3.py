"""Issue 26 (hardening, round three): one regression test per failure class, through the CLI
as a user (or an attacker) meets it."""

from __future__ import annotations

import pytest


def one_line_error(r, code: int = 2) -> str:
    """The single ``kvcalc: error:`` line of a failed command (no traceback, one line)."""
    assert r.code == code, (r.code, r.out, r.err)
    assert "Traceback" not in r.err + r.out
    assert r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1, r.err
    return r.err


# --- plan: a rejected disaggregated family in the default table ------------------------------


def test_plan_table_shows_a_rejected_disaggregated_family(cli):
    # the ask: at 20 req/s of 4096 + 256 tokens no xPyD split of llama3-70b on H100
    # meets a 300 ms p99 TTFT, so the disaggregated families are rejected (never split into
    # P and D replicas); the table said KeyError 'prefill_replicas'
    args = ("plan", "-m", "llama3-70b", "--rate", "20", "--prompt", "4096", "--gen", "256",
            "--ttft-p99", "300ms", "--tpot-p99", "30ms", "-H", "h100",
            "--method", "analytic")  # fmt: skip
    data = cli(*args, "-f", "json").json()
    rejected = [r for r in data["rejected"] if r["mode"] == "disaggregated"]
    assert rejected and all("prefill_replicas" not in r for r in rejected)
    r = cli(*args)
    assert r.code == 0, r.err
    rows = [line for line in r.out.splitlines() if " disagg " in line]
    assert len(rows) == len(rejected)


# --- FORCE_COLOR: tables (and JSON/CSV) stay plain text --------------------------------------


@pytest.mark.parametrize("env", ["FORCE_COLOR", "TTY_COMPATIBLE", "CLICOLOR_FORCE"])
@pytest.mark.parametrize(
    "args",
    [
        ("memory", "-m", "llama3-8b", "--ctx", "128"),
        ("memory", "-m", "llama3-8b", "--ctx", "128", "-f", "json"),
        ("memory", "-m", "llama3-8b", "--ctx", "128", "-f", "csv"),
        ("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "128"),
        ("train", "-m", "llama3-8b", "-H", "h100", "--ctx", "128", "--explain"),
    ],
)
def test_forced_colour_writes_no_escape_codes(cli, monkeypatch, env, args):
    monkeypatch.setenv(env, "1")
    r = cli(*args)
    assert r.code == 0, r.err
    assert "\x1b" not in r.out and "\\x1b" not in r.out, r.out[:200]


# --- YAML: 1e1 is a number (YAML 1.1 made it a string) --------------------------------------


def test_yaml_exponent_numbers_are_numbers():
    from calc.data.yaml_io import _parse

    data = _parse("a: 1e1\nb: 2e-3\nc: 5E+9\nd: 3.2e1\ne: 1.25e1\nf: '1e1'\ng: 1e\nh: 1e23\n")
    # whole numbers with an exponent are exact ints (1e23 = 10^23, not the float 9.99...e22)
    assert data == {"a": 10, "b": 0.002, "c": 5_000_000_000, "d": 32, "e": 12.5, "f": "1e1",
                    "g": "1e", "h": 10**23}  # fmt: skip
    assert type(data["a"]) is int and type(data["b"]) is float


def test_yaml_exponent_numbers_in_model_hardware_and_spec_files(cli, tmp_path):
    from calc.data.registry import data_dir

    model = (data_dir("model_configs") / "llama3-8b.yaml").read_text()
    hw = (data_dir("hardware_profiles") / "h100.yaml").read_text()
    m = tmp_path / "m.yaml"
    m.write_text(model.replace("n_layers: 32 ", "n_layers: 3.2e1 "))  # an int field
    h = tmp_path / "h.yaml"
    h.write_text(hw.replace("usd_per_hour: 6.155", "usd_per_hour: 1e1"))  # a float field
    ref = cli("cost", "-m", "llama3-8b", "-H", "h100", "--ctx", "128", "--usd-per-hour", "10",
              "-f", "json").json()  # fmt: skip
    got = cli("cost", "-m", m, "-H", h, "--ctx", "128", "-f", "json").json()
    assert got["usd_per_hour"] == 10  # 1e1 = 10 USD per GPU-hour
    assert got["usd_per_million_output_tokens"] == ref["usd_per_million_output_tokens"]
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "deployments:\n  - name: d1\n    model: llama3-8b\n    hardware: h100\n"
        "    workload: {ctx: 1e3, batch: 1e0}\n    requirements: {must_fit: true}\n"
    )
    r = cli("check", spec, "-f", "json")
    assert r.code == 0, r.err
