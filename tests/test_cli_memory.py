"""`kvcalc memory`, `models`, `hardware` through the CLI: keys, formats, errors, help."""

from __future__ import annotations

import csv
import io

import pytest

from calc.cli.app import app


def test_memory_json_keys_and_values(cli):
    r = cli("memory", "--model", "llama3-70b", "--ctx", "8192", "--batch", "2", "-f", "json")
    assert r.code == 0, r.err
    d = r.json()
    for key in (
        "params_total",
        "params_active",
        "weights_bytes",
        "kv_bytes_per_token",
        "kv_cache_bytes",
        "total_bytes",
    ):
        assert key in d
    # 327,680 B/token × 8,192 × 2 = 5,368,709,120
    assert d["kv_cache_bytes"] == 5_368_709_120
    assert d["total_bytes"] == d["weights_bytes"] + d["kv_cache_bytes"]
    assert "memory_capacity_bytes" not in d


def test_memory_with_hardware_fit_fields(cli):
    r = cli(
        "memory", "-m", "llama3-70b", "--ctx", "8192", "-H", "h100", "--gpus", "2", "-f", "json"
    )
    d = r.json()
    # 2 × 85,899,345,920 = 171,798,691,840
    assert d["memory_capacity_bytes"] == 171_798_691_840
    assert d["fits"] is True
    # the per-GPU ledger: tp 2 halves the 8 KV heads, 1 sequence of 8,192 tokens (whole
    # 16-token blocks) = 8,192 × 80 layers × 2 × 4 heads × 128 × 2 B = 1,342,177,280 B per GPU
    assert d["kv_cache_bytes_per_gpu"] == 1_342_177_280
    assert d["headroom_bytes_per_gpu"] == d["kv_budget_bytes"] - 1_342_177_280


def test_memory_does_not_fit_says_what_to_change(cli):
    r = cli("memory", "-m", "llama3-70b", "--ctx", "8192", "-H", "h100", "-f", "json")
    assert r.code == 0
    assert r.json()["fits"] is False
    assert "does not fit" in r.err and "--gpus" in r.err and "needs" in r.err


def test_memory_csv_same_keys_unrounded(cli):
    r = cli("memory", "-m", "llama3-8b", "--ctx", "4096", "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(r.out)))
    assert len(rows) == 1
    j = cli("memory", "-m", "llama3-8b", "--ctx", "4096", "-f", "json").json()
    assert list(rows[0]) == list(j)
    assert int(rows[0]["kv_cache_bytes"]) == j["kv_cache_bytes"]


def test_memory_table_labels_gb_and_gib(cli):
    r = cli("memory", "-m", "llama3-8b", "--ctx", "8192")
    assert r.code == 0
    assert "GB" in r.out and "GiB" in r.out
    # 16,060,522,496 B / 1e9 = 16.061 GB; / 2^30 (1,073,741,824) = 14.958 GiB
    assert "16.061 GB" in r.out and "14.958 GiB" in r.out


def test_explain_shows_substituted_formula(cli):
    r = cli("memory", "-m", "llama3-70b", "--ctx", "8192", "--explain")
    assert (
        "kv_bytes_per_token_per_layer = 2 × n_kv_heads × head_dim × bytes = "
        "2 × 8 × 128 × 2 = 4,096 bytes" in r.out
    )
    j = cli("memory", "-m", "llama3-70b", "--ctx", "8192", "--explain", "-f", "json").json()
    assert any(line.startswith("kv_cache_bytes = ") for line in j["derivation"])


def test_attention_what_if_flag(cli):
    base = ["memory", "-m", "llama3-70b", "--ctx", "1", "-f", "json"]
    # 2 × 64 × 128 × 2 × 80 = 2,621,440
    assert cli(*base, "--attention", "mha").json()["kv_bytes_per_token"] == 2_621_440
    assert cli(*base, "--attention", "mqa").json()["kv_bytes_per_token"] == 40_960
    r = cli(*base, "--attention", "mla")
    assert r.code == 2 and "--kv-lora-rank" in r.err
    r = cli(*base, "--attention", "xyz")
    assert r.code == 2 and "mha, gqa, mqa, mla" in r.err


def test_output_file_written_atomically(cli, tmp_path):
    out = tmp_path / "m.json"
    r = cli("memory", "-m", "llama3-8b", "--ctx", "128", "-f", "json", "-o", out)
    assert r.code == 0 and r.out == ""
    assert out.read_text().startswith("{")
    assert list(tmp_path.iterdir()) == [out]  # no temp file left behind


def test_failed_command_leaves_existing_output_untouched(cli, tmp_path):
    out = tmp_path / "keep.csv"
    out.write_text("precious\n")
    r = cli("memory", "-m", "nope", "--ctx", "128", "-f", "csv", "-o", out)
    assert r.code == 2
    assert out.read_text() == "precious\n"


def test_unwritable_output(cli, tmp_path):
    r = cli("memory", "-m", "llama3-8b", "--ctx", "1", "-o", tmp_path / "no" / "x.json")
    assert r.code == 2 and "does not exist" in r.err
    r = cli("memory", "-m", "llama3-8b", "--ctx", "1", "-o", tmp_path)
    assert r.code == 2 and "is a directory" in r.err


def test_unknown_model_suggests_closest(cli):
    r = cli("memory", "-m", "llama3-7b", "--ctx", "8")
    assert r.code == 2
    assert r.err.count("\n") == 1 and "Traceback" not in r.err
    assert "unknown model 'llama3-7b'" in r.err and "did you mean 'llama3-70b'" in r.err


def test_unknown_hardware_suggests_closest(cli):
    r = cli("memory", "-m", "llama3-8b", "--ctx", "8", "-H", "h10")
    assert r.code == 2 and "unknown hardware 'h10'" in r.err and "'h100'" in r.err


def test_unknown_dtype(cli):
    r = cli("memory", "-m", "llama3-8b", "--ctx", "8", "--kv-dtype", "fp9")
    assert r.code == 2 and "unknown KV-cache dtype 'fp9'" in r.err and "'fp8'" in r.err


def test_malformed_and_invalid_yaml_through_cli(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("n_layers: [1,\n")
    r = cli("memory", "-m", bad, "--ctx", "8")
    assert r.code == 2 and str(bad) in r.err and "malformed YAML" in r.err
    assert r.err.count("\n") == 1
    invalid = tmp_path / "invalid.yaml"
    invalid.write_text("name: x\nn_layers: 0\n")
    r = cli("memory", "-m", invalid, "--ctx", "8")
    assert r.code == 2 and "invalid.yaml: field 'n_layers'" in r.err


@pytest.mark.parametrize(
    "args",
    [
        ("--ctx", "0"),
        ("--ctx", "-5"),
        ("--ctx", str(10**12)),
        ("--ctx", "nan"),
        ("--ctx", "8", "--batch", "0"),
        ("--ctx", "8", "--gpus", "-1"),
        ("--ctx", "8", "-f", "xml"),
    ],
)
def test_bad_numbers_exit_2_one_line(cli, args):
    r = cli("memory", "-m", "llama3-8b", *args)
    assert r.code == 2
    assert r.err.startswith("kvcalc: error:") and r.err.count("\n") == 1


def test_models_and_hardware_lists(cli):
    r = cli("models", "-f", "json")
    names = [m["name"] for m in r.json()["models"]]
    assert "deepseek-v3" in names
    assert cli("hardware", "-f", "csv").out.splitlines()[0].startswith("name,")


def test_version_and_bare_invocation(cli):
    from calc import __version__

    assert cli("--version").out.strip() == f"kvcalc {__version__}"
    r = cli()
    assert r.code == 0 and "memory" in r.out


def _commands():
    import typer.main

    group = typer.main.get_command(app)
    return group, sorted(group.commands)


def test_every_command_has_help_with_example(cli):
    _, names = _commands()
    assert {"memory", "models", "hardware"} <= set(names)
    for name in names:
        r = cli(name, "--help")
        assert r.code == 0, name
        assert "Example: kvcalc" in r.out, f"{name} help lacks an example"
