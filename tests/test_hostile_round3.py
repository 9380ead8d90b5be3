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
