"""`check` under load (issue 13 item 4): a workload rate and length distributions, the
max_ttft_p*/max_tpot_p* requirements judged by the serving simulation, exit 1 when missed; the
MLPerf Llama-2-70B server constraints as one check spec (examples/check-load.yaml) and as one
plan whose winner the check confirms with the same figures."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "check-load.yaml"


def spec(tmp_path: Path, workload: str, requirements: str, extra: str = "") -> Path:
    p = tmp_path / "load.yaml"
    p.write_text(
        "deployments:\n  - name: d\n    model: llama3-8b\n    hardware: h100\n"
        f"{extra}    workload: {{{workload}}}\n    requirements: {{{requirements}}}\n"
    )
    return p


def test_example_passes_then_fails_when_overloaded(cli):
    r = cli("check", EXAMPLE, "-f", "json")
    assert r.code == 1, r.err  # the overloaded deployment fails on purpose
    res = {(x["deployment"], x["requirement"]): x for x in r.json()["results"]}
    ok = "llama3-70b-fp8-h100x2-server"
    assert res[(ok, "max_ttft_p99_s")]["passed"] and res[(ok, "max_tpot_p99_s")]["passed"]
    assert res[(ok, "max_ttft_p99_s")]["limit"] == 2.0  # MLPerf Llama-2-70B server TTFT p99
    assert res[(ok, "max_tpot_p99_s")]["limit"] == 0.2  # and TPOT p99
    bad = "llama3-70b-fp8-h100x2-overloaded"
    assert not res[(bad, "max_ttft_p99_s")]["passed"]
    assert not res[(bad, "max_tpot_p99_s")]["passed"]  # saturated: fails every load limit
    assert "saturates" in r.err and r.err.startswith("kvcalc: warning:")


def test_figures_are_the_simulation_and_percentiles_order(cli, tmp_path):
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment
    from calc.serve.simulate import simulate
    from calc.serve.workload import LengthDist, LoadSpec

    p = spec(tmp_path, "ctx: 2048, rate: 4, prompt: 'uniform:500:1500', gen: 128, requests: 300",
             "max_ttft_p50_s: 10, max_ttft_p90_s: 10, max_ttft_p99_s: 10, max_tpot_p50_s: 1, "
             "max_tpot_p90_s: 1, max_tpot_p99_s: 1")  # fmt: skip
    r = cli("check", p, "-f", "json")
    assert r.code == 0, r.err
    got = {x["requirement"]: x["figure"] for x in r.json()["results"]}
    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"))
    load = LoadSpec(rate_per_s=4, prompt=LengthDist.uniform(500, 1500),
                    gen=LengthDist.fixed(128), n_requests=300)  # fmt: skip
    sim = simulate(dep, load, seed=0)
    for q in ("p50", "p90", "p99"):
        assert got[f"max_ttft_{q}_s"] == sim.ttft_s[q]
        assert got[f"max_tpot_{q}_s"] == sim.tpot_s[q]
    assert got["max_ttft_p50_s"] <= got["max_ttft_p90_s"] <= got["max_ttft_p99_s"]
    assert got["max_tpot_p50_s"] <= got["max_tpot_p90_s"] <= got["max_tpot_p99_s"]
    # a limit below the figure fails with exit status 1
    tight = got["max_ttft_p99_s"] * 0.5
    p = spec(tmp_path, "ctx: 2048, rate: 4, prompt: 'uniform:500:1500', gen: 128, requests: 300",
             f"max_ttft_p99_s: {tight}")  # fmt: skip
    r = cli("check", p, "-f", "json")
    assert r.code == 1 and not r.json()["passed"]


@pytest.mark.parametrize(
    "workload, requirements, message",
    [
        ("ctx: 2048", "max_ttft_p99_s: 2", "give the workload a rate"),
        ("ctx: 2048, rate: 1, prompt: 'lognormal:x:1'", "max_ttft_p99_s: 2", "prompt"),
        ("ctx: 2048, rate: 1, gen: 'zipf:3'", "max_ttft_p99_s: 2", "gen"),
        ("ctx: 2048, rate: 0", "max_ttft_p99_s: 2", "rate"),
        ("ctx: 2048, rate: 1", "max_tpot_p99_s: -1", "max_tpot_p99_s"),
        ("ctx: 2048, rate: 1, prompt: 4096", "max_ttft_p99_s: 2", "exceeds ctx"),
        ("ctx: 2048, rate: 1, requests: 0", "max_ttft_p99_s: 2", "requests"),
        ("ctx: 2048, rate: 1", "max_ttft_p99: 2", "max_ttft_p99_s"),  # misspelt: suggested
    ],
)
def test_bad_load_specs_exit_2(cli, tmp_path, workload, requirements, message):
    r = cli("check", spec(tmp_path, workload, requirements))
    assert r.code == 2, r.err
    assert r.err.startswith("kvcalc: error:") and r.err.count("\n") == 1, r.err
    assert message in r.err


def test_mlperf_server_as_plan_and_as_check(cli, tmp_path):
    """The MLPerf Llama-2-70B server constraints (TTFT p99 ≤ 2 s, TPOT p99 ≤ 200 ms) as one plan;
    its winner written as a check spec passes, with the plan's own p99 figures."""
    r = cli("plan", "-m", "llama3-70b", "-H", "h100", "--rate", 8, "--prompt", 1024, "--gen",
            256, "--ttft-p99", "2s", "--tpot-p99", "200ms", "--method", "simulation",
            "--no-disaggregation", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    top = r.json()["rows"][0]
    assert top["method"] == "simulation" and top["mode"] == "aggregated"
    extra = (
        f"    tp: {top['tp']}\n    pp: {top['pp']}\n    ep: {top['ep']}\n"
        f"    dp: {top['replicas']}\n    weight_dtype: {top['weight_dtype']}\n"
        f"    kv_dtype: {top['kv_dtype']}\n    max_model_len: 1280\n"
    )
    p = spec(tmp_path, "ctx: 1280, rate: 8, prompt: 1024, gen: 256, requests: 1000",
             "max_ttft_p99_s: 2.0, max_tpot_p99_s: 0.2", extra)  # fmt: skip
    p.write_text(p.read_text().replace("llama3-8b", "llama3-70b"))
    c = cli("check", p, "-f", "json")
    assert c.code == 0, c.err
    res = {x["requirement"]: x for x in c.json()["results"]}
    assert res["max_ttft_p99_s"]["figure"] == pytest.approx(top["ttft_p99_s"], rel=1e-12)
    assert res["max_tpot_p99_s"]["figure"] == pytest.approx(top["tpot_p99_s"], rel=1e-12)


def test_no_request_served_is_refused(cli, tmp_path):
    """Requests longer than the model's context limit (Llama 2 7B: 4,096) are all refused: the
    simulation cannot judge the load, and says so in one line (exit 2)."""
    p = tmp_path / "refused.yaml"
    p.write_text(
        "deployments:\n  - name: d\n    model: llama2-7b\n    hardware: h100\n"
        "    workload: {ctx: 4096, rate: 1, prompt: 3000, gen: 2000, requests: 50}\n"
        "    requirements: {max_ttft_p99_s: 2}\n"
    )
    r = cli("check", p, "-f", "json")
    assert r.code == 2
    assert r.err.startswith("kvcalc: error:") and r.err.count("\n") == 1
    assert "max model length" in r.err


def test_one_output_token_passes_tpot(cli, tmp_path):
    r = cli("check", spec(tmp_path, "ctx: 2048, rate: 1, prompt: 1000, gen: 1, requests: 50",
                          "max_tpot_p99_s: 0.01, max_ttft_p99_s: 5"), "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    res = {x["requirement"]: x for x in r.json()["results"]}
    assert res["max_tpot_p99_s"]["figure"] == 0.0 and res["max_tpot_p99_s"]["passed"]
