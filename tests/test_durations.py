"""Issue 22, deliver 5: a duration carries its unit everywhere. A bare number given as text is an
error that names both readings (--tpot-p99 40: 40s or 40ms?), in plan, simulate and check specs;
check specs take times with units as options do, and keep their millisecond- and second-named keys
(a number there is in the key's unit: a contract)."""

from __future__ import annotations

import pytest

PLAN = ("plan", "-m", "llama3-8b", "-H", "h100", "--rate", "1", "--prompt", "512", "--gen", "64",
        "--method", "analytic")  # fmt: skip
SIM = ("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "1", "--prompt", "128", "--gen",
       "16", "--requests", "20")  # fmt: skip


@pytest.mark.parametrize(
    "argv, flag",
    [
        ((*PLAN, "--ttft-p99", "2s", "--tpot-p99", "40"), "--tpot-p99 40: a time needs its unit: "
         "40s or 40ms?"),
        ((*PLAN, "--ttft-p99", "2", "--tpot-p99", "40ms"), "--ttft-p99 2: a time needs its unit: "
         "2s or 2ms?"),
        ((*SIM[:-2], "--duration", "60"), "--duration 60: a time needs its unit: 60s or 60ms?"),
        ((*SIM, "--ttft-slo", "0.5"), "--ttft-slo 0.5: a time needs its unit"),
        ((*SIM, "--tpot-slo", "50"), "--tpot-slo 50: a time needs its unit: 50s or 50ms?"),
    ],
)  # fmt: skip
def test_a_bare_number_names_both_readings(cli, argv, flag):
    r = cli(*argv)
    assert r.code == 2 and r.err.count("\n") == 1, r.err
    assert r.err.startswith("kvcalc: error: ") and flag in r.err


def test_units_are_read(cli):
    a = cli(*PLAN, "--ttft-p99", "2s", "--tpot-p99", "40ms", "-f", "json").json()
    b = cli(*PLAN, "--ttft-p99", "2000ms", "--tpot-p99", "40000us", "-f", "json").json()
    assert a["ttft_p99_slo_s"] == b["ttft_p99_slo_s"] == 2.0
    assert a["tpot_p99_slo_s"] == pytest.approx(0.040)
    assert b["tpot_p99_slo_s"] == pytest.approx(0.040)


SPEC = """deployments:
  - name: d
    model: llama3-8b
    hardware: h100
    workload: {{ctx: 2048, prompt: 1024, batch: 8}}
    requirements: {{{req}}}
"""


def _check(cli, tmp_path, req):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.format(req=req))
    return cli("check", spec, "-f", "json")


def _limits(r) -> dict:
    return {x["requirement"]: (x["limit"], x["unit"]) for x in r.json()["results"]}


def test_check_specs_take_times_with_units(cli, tmp_path):
    # the millisecond-named key keeps its numbers (a contract) and takes a time with its unit
    plain = _limits(_check(cli, tmp_path, "max_tpot_ms: 40, max_ttft_ms: 1000"))
    unit = _limits(_check(cli, tmp_path, "max_tpot_ms: 40ms, max_ttft_ms: 1s"))
    alias = _limits(_check(cli, tmp_path, "max_tpot: 40ms, max_ttft: 1s"))
    assert plain == unit == alias == {"max_tpot_ms": (40.0, "ms"), "max_ttft_ms": (1000.0, "ms")}


def test_check_spec_unit_less_keys_need_a_unit(cli, tmp_path):
    r = _check(cli, tmp_path, "max_tpot: 40")
    assert r.code == 2 and "max_tpot: 40 needs its unit: 40s or 40ms?" in r.err
    r = _check(cli, tmp_path, "max_tpot: 40ms, max_tpot_ms: 40")
    assert r.code == 2 and "give max_tpot or max_tpot_ms, not both" in r.err
    r = _check(cli, tmp_path, "max_tpot_ms: fast")
    assert r.code == 2 and "max_tpot_ms" in r.err and r.err.count("\n") == 1


def test_check_spec_load_limits_take_units(tmp_path):
    from calc.reports.check_spec import Requirements

    a = Requirements.model_validate({"max_tpot_p99_s": 0.05, "max_ttft_p99_s": 2})
    b = Requirements.model_validate({"max_tpot_p99": "50ms", "max_ttft_p99": "2s"})
    c = Requirements.model_validate({"max_tpot_p99_s": "50ms", "max_ttft_p99_s": "2000ms"})
    for r in (b, c):
        assert r.max_tpot_p99_s == pytest.approx(a.max_tpot_p99_s)
        assert r.max_ttft_p99_s == pytest.approx(a.max_ttft_p99_s)
