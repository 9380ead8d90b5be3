"""`kvcalc train` and the `check` requirement training_fit, end to end."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def run(cli):
    return lambda *args: cli("train", "--model", "llama3-8b", "--hardware", "h100", *args)


def test_json_fields_and_units(run):
    r = run("--ctx", "4096", "--gpus", "8", "--zero", "3", "--format", "json")
    assert r.code == 0, r.err
    d = json.loads(r.out)
    assert d["dp"] == 8 and d["gpus"] == 8
    # ZeRO-3 over 8: 8,030,261,248 × 2 B / 8
    assert d["weights_bytes_per_gpu"] == 2_007_565_312
    assert d["fits"] is True


def test_csv_and_explain(run):
    r = run("--format", "csv", "--tokens", "1e9", "--mfu", "0.4")
    assert r.code == 0, r.err
    header, _ = r.out.strip().splitlines()
    assert "total_bytes_per_gpu" in header.split(",") and "run_usd" in header.split(",")
    r = run("--explain", "--tokens", "1e9")
    assert r.code == 0, r.err
    assert "model_flops_per_token = 6 × matmul_params" in r.out
    assert "bubble_fraction = (pp − 1) / (v × m + pp − 1)" in r.out


def test_owned_pricing(run):
    r = run("--tokens", "1e9", "--gpu-price-usd", "30000", "--power-w", "1000", "-f", "json")
    d = json.loads(r.out)
    assert d["price_basis"] == "owned"
    assert abs(d["usd_per_gpu_hour"] - (30_000 / 35_064 + 0.13)) < 1e-12


def test_does_not_fit_warns_with_the_alternative(run):
    r = run("--ctx", "4096")
    assert r.code == 0
    assert "does not fit" in r.err and "--zero" in r.err


def test_bad_input_is_one_line_exit_2(run):
    for args, msg in (
        (("--gpus", "12", "--tp", "8"), "--gpus 12 is not a multiple of --tp 8 × --pp 1 × --cp 1"),
        (("--gpu-price-usd", "30000", "-H", "a10g", "--tokens", "1e9"), "no board power"),
        (("--recipe", "bf15"), "unknown recipe"),
        (("--network-bandwidth", "fast"), "--network-bandwidth"),
        (("--zero", "5"), "--zero"),
        (("--tp", "3"), "--tp 3 does not divide"),
    ):
        r = run(*args)
        assert r.code == 2, (args, r.err)
        assert r.err.startswith("kvcalc: error: ") and msg in r.err, r.err
        assert "Traceback" not in r.err + r.out


def test_check_training_fit(cli, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "deployments:\n"
        "  - {name: qlora, model: llama3-70b, hardware: h100, workload: {ctx: 4096},\n"
        "     requirements: {training_fit: {ctx: 4096, finetune: qlora, recompute: full}}}\n"
        "  - {name: full, model: llama3-70b, hardware: h100, tp: 8, workload: {ctx: 4096},\n"
        "     requirements: {training_fit: {ctx: 4096, recompute: full}}}\n"
    )
    r = cli("check", spec, "--format", "json")
    assert r.code == 1, r.err
    rows = {row["deployment"]: row for row in json.loads(r.out)["results"]}
    assert rows["qlora"]["passed"] and not rows["full"]["passed"]
    assert rows["full"]["requirement"] == "training_fit"
    assert rows["full"]["limit"] == 85_029_027_840  # one H100 as torch reports it: 81,090 MiB
    # 70.55B params / 8 GPUs (TP) × 16 B of model state alone exceed it
    assert rows["full"]["figure"] > 70_553_706_496 / 8 * 16


def test_check_training_fit_rejects_unknown_keys(cli, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "deployments:\n"
        "  - {name: x, model: llama3-8b, hardware: h100, workload: {ctx: 4096},\n"
        "     requirements: {training_fit: {ctx: 4096, zero_stage: 3}}}\n"
    )
    r = cli("check", spec)
    assert r.code == 2
    assert "zero_stage" in r.err


def _one_line_error(r):
    assert r.code == 2, (r.code, r.out, r.err)
    assert "Traceback" not in r.err + r.out
    assert r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1, r.err


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--ctx", "0"),
        ("--ctx", str(10**12)),
        ("--micro-batch", "0"),
        ("--global-batch", "-8"),
        ("--dp", "0"),
        ("--cp", "0"),
        ("--virtual-stages", "0"),
        ("--lora-rank", "0"),
        ("--mfu", "nan"),
        ("--mfu", "inf"),
        ("--tokens", "nan"),
        ("--tokens", "-1"),
        ("--usd-per-hour", "inf"),
        ("--overhead", "-1GiB"),
        ("--network-bandwidth", "0"),
        ("--recompute", "some"),
        ("--adapter-dtype", "int4"),
        ("--efficiency", "great"),
        ("--format", "xml"),
    ],
)
def test_hostile_numbers(run, flag, value):
    _one_line_error(run(flag, value))


@pytest.mark.parametrize(
    "owned",
    [
        ("--gpu-price-usd", "nan", "--power-w", "700"),
        ("--gpu-price-usd", "30000", "--power-w", "-1"),
        ("--gpu-price-usd", "30000", "--power-w", "700", "--pue", "0.5"),
        ("--gpu-price-usd", "30000", "--power-w", "700", "--years", "0"),
    ],
)
def test_hostile_owned_pricing(run, owned):
    _one_line_error(run("--tokens", "1e9", *owned))


@pytest.mark.parametrize("content", [b"", b"\x00\xff\xfe", b"n_layers: .nan\n", b"- [a, b]\n"])
def test_hostile_model_file_keeps_the_output(cli, tmp_path, content):
    path = tmp_path / "model.yaml"
    path.write_bytes(content)
    out = tmp_path / "out.csv"
    out.write_text("existing\n")
    r = cli("train", "--model", path, "--hardware", "h100", "-f", "csv", "-o", out)
    _one_line_error(r)
    assert out.read_text() == "existing\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.yaml", "out.csv"]


def test_shipped_training_check_example(cli):
    from pathlib import Path

    spec = Path(__file__).resolve().parent.parent / "examples" / "check-train.yaml"
    r = cli("check", spec, "--format", "json")
    assert r.code == 1  # the second deployment fails on purpose
    rows = json.loads(r.out)["results"]
    assert [row["passed"] for row in rows] == [True, False]


def test_fp8_recipe_needs_an_fp8_peak(cli):
    r = cli("train", "-m", "llama3-8b", "-H", "a100-80g", "--recipe", "fp8")
    _one_line_error(r)
    assert "no fp8 tensor-core peak" in r.err


@pytest.mark.parametrize(
    "args, message",
    [
        # the Deployment's own limit (calc.data.limits.MAX_PARALLEL), not train's old 10^6
        (("--tp", "5000"), "--tp must be an integer in 1..4,096, got 5000"),
        (("--pp", "5000"), "--pp must be an integer in 1..4,096, got 5000"),
        (("--ep", "5000"), "--ep must be an integer in 1..4,096, got 5000"),
        (("--dp", "5000"), "--dp must be an integer in 1..4,096, got 5000"),
        (("--cp", "5000"), "--cp must be an integer in 1..4,096, got 5000"),
        (("--tp", "2000000", "--gpus", "8"), "--tp must be an integer in 1..4,096, got 2000000"),
    ],
)
def test_layout_limits_are_the_deployments(run, cli, args, message):
    r = run(*args)
    assert r.code == 2 and r.err == f"kvcalc: error: {message}\n", r.err
    if args[0] in ("--tp", "--pp", "--ep", "--dp") and len(args) == 2:  # a serving command
        served = cli("memory", "-m", "llama3-8b", "--ctx", "1024", *args)
        assert served.code == 2 and served.err == r.err


def test_gpus_means_the_gpus_in_all_as_in_memory(cli):
    """--gpus 8 beside --tp 2 is 8 GPUs in all, 4 data-parallel replicas, in train as in the
    serving commands (one function, calc.deploy.options.gpus_replicas); the same error for a
    count --tp does not divide."""
    served = cli("memory", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "--tp", "2",
                 "--gpus", "8", "-f", "json").json()  # fmt: skip
    trained = cli("train", "-m", "llama3-8b", "-H", "h100", "--tp", "2", "--gpus", "8",
                  "-f", "json").json()  # fmt: skip
    assert served["gpus"] == trained["gpus"] == 8
    assert served["dp"] == trained["dp"] == 4  # 8 / tp 2
    bad_serve = cli("memory", "-m", "llama3-8b", "--ctx", "1024", "--tp", "8", "--gpus", "12")
    bad_train = cli("train", "-m", "llama3-8b", "-H", "h100", "--tp", "8", "--gpus", "12")
    assert bad_serve.err.startswith("kvcalc: error: --gpus 12 is not a multiple of --tp 8 × --pp 1")
    assert bad_train.err.startswith("kvcalc: error: --gpus 12 is not a multiple of --tp 8 × --pp 1")
