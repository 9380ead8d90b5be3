"""`kvcalc check`: exit codes (0 pass, 1 fail, 2 invalid spec), the table, JSON, CSV and JUnit."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from calc.reports.check_spec import load_spec

# Llama 3 8B on one H100 (85,029,027,840 B as torch reports it), vLLM 0.19, --activation 1GiB
# --overhead 0.5GiB: KV budget 0.9 × 85,029,027,840 − 16,060,522,496 − 1,073,741,824
# − 536,870,912 − the RoPE table (8,192 × 128 × 2 = 2,097,152) = 58,852,892,672 B; one
# 8192-token sequence = 8192 × 131,072
# = 1,073,741,824 B -> 54 sequences fit (54.8).
HEAD = """
deployments:
  - name: small
    model: llama3-8b
    hardware: h100
    activation: 1GiB
    overhead: 0.5GiB
    engine_version: "0.19"
"""


def spec(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "spec.yaml"
    p.write_text(body)
    return p


def fit_spec(tmp_path, batch: int, min_conc: int) -> Path:
    return spec(
        tmp_path,
        HEAD
        + f"""    workload: {{ctx: 8192, batch: {batch}}}
    requirements: {{must_fit: true, min_concurrency: {min_conc}}}
""",
    )


def test_all_pass_exit_0_with_figures(cli, tmp_path):
    r = cli("check", fit_spec(tmp_path, 54, 54), "-f", "json")
    assert r.code == 0, r.err
    out = r.json()
    assert out["passed"] is True and out["failed"] == 0
    fit, conc = out["results"]
    # 54 × 1,073,741,824 = 57,982,058,496 B needed ≤ 58,852,892,672 B budget
    assert fit == {
        "deployment": "small",
        "requirement": "must_fit",
        "figure": 57_982_058_496,
        "limit": 58_852_892_672,
        "unit": "bytes",
        "passed": True,
    }
    assert conc["figure"] == 54 and conc["limit"] == 54 and conc["passed"] is True


def test_one_more_fails_exit_1(cli, tmp_path):
    r = cli("check", fit_spec(tmp_path, 55, 55))
    assert r.code == 1
    assert "FAIL" in r.out and "0 passed, 2 failed" in r.out
    r = cli("check", fit_spec(tmp_path, 55, 55), "-f", "json")
    res = r.json()["results"]
    # 55 × 1,073,741,824 = 59,055,800,320 > 58,852,892,672
    assert res[0]["figure"] == 59_055_800_320 and res[0]["passed"] is False
    assert res[1]["figure"] == 54 and res[1]["passed"] is False


def test_junit_xml(cli, tmp_path):
    junit = tmp_path / "out" / "junit.xml"
    junit.parent.mkdir()
    r = cli("check", fit_spec(tmp_path, 54, 55), "--junit", junit)
    assert r.code == 1
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    assert root.get("tests") == "2" and root.get("failures") == "1"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "small" and suite.get("failures") == "1"
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == {"must_fit", "min_concurrency"}
    assert cases["must_fit"].find("failure") is None
    failure = cases["min_concurrency"].find("failure")
    assert failure is not None
    assert failure.get("message") == (
        "small min_concurrency: 54 sequences, limit ≥ 55 sequences: FAIL"
    )
    assert cases["min_concurrency"].get("classname") == "kvcalc.small"


def test_latency_and_cost_requirements(cli, tmp_path):
    p = spec(
        tmp_path,
        HEAD
        + """    workload: {ctx: 4096, prompt: 1024, batch: 16}
    requirements:
      max_tpot_ms: 1000
      max_ttft_ms: 0.001
      max_usd_per_million_output_tokens: 100
      max_usd_per_million_input_tokens: 100
""",
    )
    r = cli("check", p, "-f", "json")
    assert r.code == 1
    by = {x["requirement"]: x for x in r.json()["results"]}
    assert by["max_tpot_ms"]["passed"] and by["max_tpot_ms"]["unit"] == "ms"
    assert not by["max_ttft_ms"]["passed"]  # no prefill takes a microsecond
    assert by["max_usd_per_million_output_tokens"]["passed"]
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.steps import tpot_s

    t = tpot_s(load_model("llama3-8b"), load_hardware("h100"), batch=16, ctx=4096)
    assert by["max_tpot_ms"]["figure"] == pytest.approx(t * 1e3, rel=1e-12)


def test_csv_rows(cli, tmp_path):
    r = cli("check", fit_spec(tmp_path, 54, 54), "-f", "csv")
    lines = r.out.splitlines()
    assert lines[0] == "deployment,requirement,figure,limit,unit,passed"
    assert lines[1] == "small,must_fit,57982058496,58852892672,bytes,true"


@pytest.mark.parametrize("written, shown", [("0.19", "0.19"), ("0.10", "0.1"), ("1", "1")])
def test_an_unquoted_engine_version_says_to_quote_it(cli, tmp_path, written, shown):
    # qa (issue 21): `engine_version: 0.19` (unquoted, as a person writes it) was refused as
    # "Input should be a valid string (got 0.19)", and 0.10 shown as 0.1: YAML reads it as
    # a number, which cannot say which release was meant (0.10 and 0.1 are one float)
    body = HEAD.replace('engine_version: "0.19"', f"engine_version: {written}")
    r = cli("check", spec(tmp_path, body + "    workload: {ctx: 8192}\n"
                                          "    requirements: {must_fit: true}\n"))  # fmt: skip
    assert r.code == 2 and r.err.count("\n") == 1, r.err
    assert f"engine_version {shown} is a number in YAML" in r.err
    assert 'quote it, e.g. engine_version: "0.19"' in r.err


@pytest.mark.parametrize(
    "body, message",
    [
        (HEAD + "    workload: {ctx: 8192}\n", "missing required field: deployments.0.requ"),
        (
            HEAD + "    workload: {ctx: 8192}\n    requirements: {}\n",
            "give at least one requirement",
        ),
        (
            HEAD + "    workload: {ctx: 8192}\n    requirements: {must_fit: true}\n    gpu: 4\n",
            "unknown field",
        ),
        (
            HEAD + "    workload: {ctx: 8192}\n    requirements: {min_concurrency: lots}\n",
            "min_concurrency",
        ),
        ("deployments: []\n", "field 'deployments'"),
        ("deployments: [\n", "malformed YAML"),
        (
            HEAD.replace("llama3-8b", "llama9") + "    workload: {ctx: 8192}\n"
            "    requirements: {must_fit: true}\n",
            "deployments[0] (small): unknown model 'llama9'",
        ),
        (
            HEAD + "    tp: 2\n    pp: 99\n    workload: {ctx: 8192}\n"
            "    requirements: {must_fit: true}\n",
            "deployments[0] (small): --pp 99 exceeds",
        ),
        (
            HEAD
            + "    workload: {ctx: 8192}\n    requirements: {must_fit: true}\n"
            + HEAD.split("deployments:\n")[1]
            + "    workload: {ctx: 8192}\n    requirements: {must_fit: true}\n",
            "repeated: small",
        ),
    ],
)
def test_invalid_spec_exit_2(cli, tmp_path, body, message):
    r = cli("check", spec(tmp_path, body))
    assert r.code == 2, (r.out, r.err)
    assert message in r.err
    assert "Traceback" not in r.err


def test_missing_spec_file(cli, tmp_path):
    r = cli("check", tmp_path / "nope.yaml")
    assert r.code == 2 and "no such file" in r.err


def test_example_spec_validates_and_runs(cli):
    path = Path(__file__).resolve().parent.parent / "examples" / "check-spec.yaml"
    assert len(load_spec(path).deployments) >= 2
    r = cli("check", path, "-f", "json")
    assert r.code in (0, 1)  # a verdict, not an error
    assert r.json()["results"]
