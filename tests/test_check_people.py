"""`kvcalc check` for people: --schema, the generated reference, the shipped example, closest-key
suggestions, JUnit for an invalid spec, human units in the table (issue 15 item 4)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from calc.reports.check_reference import (
    example_spec_path,
    example_text,
    spec_json_schema,
    spec_reference,
)
from calc.reports.check_spec import (
    CheckSpec,
    Deployment,
    Requirements,
    Workload,
    load_spec,
    unknown_key_message,
)

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "check-spec.md"

GOOD = """
deployments:
  - name: small
    model: llama3-8b
    hardware: h100
    activation: 1GiB
    overhead: 0.5GiB
    engine_version: "0.19"
    workload: {ctx: 8192, batch: 54}
    requirements: {must_fit: true, min_concurrency: 54, max_tpot_ms: 1000}
"""


def write(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "spec.yaml"
    p.write_text(body)
    return p


# --- --schema and the reference ----------------------------------------------------------------


def test_schema_is_json_schema_of_every_key(cli):
    r = cli("check", "--schema")
    assert r.code == 0, r.err
    schema = json.loads(r.out)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["required"] == ["deployments"]
    defs = schema["$defs"]
    for model in (Deployment, Workload, Requirements):
        node = defs[model.__name__]
        assert node["additionalProperties"] is False  # unknown keys are refused
        assert set(node["properties"]) == set(model.model_fields)
        for key, prop in node["properties"].items():
            assert prop.get("description"), f"{model.__name__}.{key} has no description"
    assert set(defs["Deployment"]["required"]) == {
        "name",
        "model",
        "hardware",
        "workload",
        "requirements",
    }


def test_schema_to_a_file(cli, tmp_path):
    out = tmp_path / "schema.json"
    r = cli("check", "--schema", "-o", out)
    assert r.code == 0 and r.out == ""
    assert json.loads(out.read_text()) == spec_json_schema()


def test_reference_doc_is_current():
    assert DOC.read_text() == spec_reference(), (
        "docs/check-spec.md is stale: run `python -m calc.reports.check_reference > "
        "docs/check-spec.md`"
    )


def test_reference_documents_every_key_and_the_example():
    doc = spec_reference()
    for model in (CheckSpec, Deployment, Workload, Requirements):
        for key in model.model_fields:
            assert f"| `{key}` |" in doc, key
    assert example_text() in doc


# --- the shipped example ----------------------------------------------------------------------


def test_example_prints_the_shipped_spec_which_validates(cli, tmp_path):
    r = cli("check", "--example")
    assert r.code == 0, r.err
    assert r.out == (ROOT / "examples" / "check-spec.yaml").read_text()
    spec = write(tmp_path, r.out)
    assert len(load_spec(spec).deployments) >= 2
    r = cli("check", spec, "-f", "json")
    assert r.code == 1  # its second deployment fails on purpose
    assert r.json()["failed"] == 1


def test_example_path_is_inside_the_package_when_installed():
    # a source checkout reads examples/ beside calc/; the wheel force-includes the same file as
    # calc/examples/check-spec.yaml (pyproject.toml), which example_spec_path() prefers
    assert example_spec_path().is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"examples/check-spec.yaml" = "calc/examples/check-spec.yaml"' in pyproject


def test_schema_and_example_together_or_nothing_is_an_error(cli):
    r = cli("check", "--schema", "--example")
    assert r.code == 2 and "not both" in r.err
    r = cli("check")
    assert r.code == 2
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "kvcalc check --example" in lines[0]


# --- closest-key suggestions -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            GOOD.replace("deployments:", "deployment:"),
            "unknown field 'deployment' in the top level; did you mean 'deployments'?",
        ),
        (
            GOOD.replace("requirements:", "requirments:"),
            "unknown field 'requirments' in deployments[0]; did you mean 'requirements'?",
        ),
        (
            GOOD.replace("workload:", "wokload:"),
            "unknown field 'wokload' in deployments[0]; did you mean 'workload'?",
        ),
        (
            GOOD.replace("max_tpot_ms:", "max_tpot_msec:"),
            "unknown field 'max_tpot_msec' in deployments[0].requirements; did you mean "
            "'max_tpot_ms'",
        ),
        (
            GOOD.replace("{ctx: 8192, batch: 54}", "{context: 8192, batch: 54}"),
            "unknown field 'context' in deployments[0].workload",
        ),
        (GOOD.replace("hardware: h100", "hardware: h100\n    gpus: 4"), "Valid: name, model,"),
    ],
)
def test_misspelt_key_gets_the_closest_suggestion(cli, tmp_path, body, expected):
    r = cli("check", write(tmp_path, body))
    assert r.code == 2, (r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err  # one line, no traceback
    assert expected in lines[0], lines[0]
    assert "spec.yaml" in lines[0]


def test_all_known_keys_give_no_message():
    import yaml

    assert unknown_key_message(yaml.safe_load(GOOD)) is None
    assert unknown_key_message(yaml.safe_load(example_text())) is None


# --- JUnit written even when the spec is invalid -----------------------------------------------


def _junit_error(path: Path) -> tuple[ET.Element, str]:
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    assert root.get("tests") == "1" and root.get("errors") == "1" and root.get("failures") == "0"
    (suite,) = root.findall("testsuite")
    (case,) = suite.findall("testcase")
    error = case.find("error")
    assert error is not None and error.get("type") == "InvalidSpec"
    assert error.text == error.get("message")
    return case, error.get("message") or ""


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("deployments: []\n", "field 'deployments'"),  # schema: no deployment
        ("deployments: [\n", "malformed YAML"),  # not YAML
        (GOOD.replace("requirements:", "requirments:"), "did you mean 'requirements'"),
        (GOOD.replace("llama3-8b", "llama9"), "deployments[0] (small): unknown model 'llama9'"),
    ],
)
def test_junit_written_with_one_errored_case_when_spec_invalid(cli, tmp_path, body, problem):
    junit = tmp_path / "junit.xml"
    r = cli("check", write(tmp_path, body), "--junit", junit)
    assert r.code == 2, (r.out, r.err)
    case, message = _junit_error(junit)
    assert problem in message
    assert message in r.err  # the same problem as the one line on stderr
    assert case.get("classname") == "kvcalc.spec" and case.get("name") == "spec is valid"


def test_junit_written_when_the_spec_file_is_missing(cli, tmp_path):
    junit = tmp_path / "junit.xml"
    r = cli("check", tmp_path / "nope.yaml", "--junit", junit)
    assert r.code == 2
    _, message = _junit_error(junit)
    assert "no such file" in message


def test_junit_of_a_valid_spec_is_unchanged(cli, tmp_path):
    junit = tmp_path / "junit.xml"
    r = cli("check", write(tmp_path, GOOD), "--junit", junit)
    assert r.code == 0, r.err
    root = ET.parse(junit).getroot()
    assert root.get("tests") == "3" and root.get("errors") == "0"


# --- human units in the table; JSON and CSV keep base units ------------------------------------


def test_table_shows_human_units(cli, tmp_path):
    r = cli("check", write(tmp_path, GOOD))
    assert r.code == 0, r.err
    # Llama 3 8B, one H100, 54 × 8192-token sequences × 131,072 B = 57,982,058,496 B needed
    # = 57.98 GB = 54.00 GiB; budget (vLLM 0.19) 0.9 × 85,029,027,840 − 16,060,522,496 − 2^30 − 2^29
    # = 58,854,989,824 B = 58.85 GB (54.81 GiB)
    assert "57.98 GB (54.00 GiB)" in r.out
    assert "58.85 GB (54.81 GiB)" in r.out
    assert "54 sequences" in r.out
    assert " ms " in r.out or " ms│" in r.out
    assert "57,982,058,496" not in r.out  # no raw byte counts in the table


def test_json_keeps_base_units(cli, tmp_path):
    r = cli("check", write(tmp_path, GOOD), "-f", "json")
    fit = r.json()["results"][0]
    assert fit["figure"] == 57_982_058_496 and fit["unit"] == "bytes"  # 54 × 1,073,741,824
