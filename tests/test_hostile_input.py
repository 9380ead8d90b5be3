"""A corpus of hostile inputs tried through the CLI: each exits 2 with one clear line, no
traceback, no partial output file, and an existing output file left untouched."""

from __future__ import annotations

import pytest

from calc.registry import data_dir

MODEL = (data_dir("model_configs") / "llama3-8b.yaml").read_text()
HW = (data_dir("hardware_profiles") / "h100.yaml").read_text()

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)

MODEL_FILES = {
    "empty": b"",
    "whitespace": b"   \n\n",
    "binary": bytes(range(256)),
    "python_tag": b"name: !!python/object/apply:os.system ['touch /tmp/pwned']\n",
    "python_name": b"name: !!python/name:os.system\n",
    "alias_bomb": BOMB.encode(),
    "deep_nesting": b"moe: " + b"{a: " * 200 + b"1" + b"}" * 200 + b"\n",
    "not_mapping": b"[1, 2, 3]\n",
    "scalar": b"42\n",
    "non_utf8": "name: caf\u00e9\n".encode("latin-1"),
    "huge_number": MODEL.replace("n_layers: 32 ", "n_layers: 99999999999999999999 ").encode(),
    "negative": MODEL.replace("d_model: 4096 ", "d_model: -4096 ").encode(),
    "zero_heads": MODEL.replace("n_heads: 32 ", "n_heads: 0 ").encode(),
    "indivisible_heads": MODEL.replace("n_kv_heads: 8 ", "n_kv_heads: 3 ").encode(),
    "kv_gt_heads": MODEL.replace("n_kv_heads: 8 ", "n_kv_heads: 64 ").encode(),
    "float_layers": MODEL.replace("n_layers: 32 ", "n_layers: 32.5 ").encode(),
    "nan_layers": MODEL.replace("n_layers: 32 ", "n_layers: .nan ").encode(),
    "bool_layers": MODEL.replace("n_layers: 32 ", "n_layers: true ").encode(),
    "unknown_key": (MODEL + "rope_theta: 500000\n").encode(),
    "duplicate_doc": (MODEL + "---\n" + MODEL).encode(),
}

HW_FILES = {
    "nan_bandwidth": HW.replace(
        "hbm_bandwidth_bytes_per_s: 3_350_000_000_000", "hbm_bandwidth_bytes_per_s: .nan"
    ).encode(),
    "inf_bandwidth": HW.replace(
        "hbm_bandwidth_bytes_per_s: 3_350_000_000_000", "hbm_bandwidth_bytes_per_s: .inf"
    ).encode(),
    "negative_memory": HW.replace(
        "memory_bytes: 85_899_345_920", "memory_bytes: -85_899_345_920"
    ).encode(),
    "efficiency_gt_1": HW.replace("matmul: {low: 0.60", "matmul: {low: 1.60").encode(),
}


def _check_one_line_error(r):
    assert r.code == 2, (r.code, r.out, r.err)
    assert "Traceback" not in r.err + r.out
    assert r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1, r.err


@pytest.mark.parametrize("case", sorted(MODEL_FILES))
def test_hostile_model_file(cli, tmp_path, case):
    path = tmp_path / f"{case}.yaml"
    path.write_bytes(MODEL_FILES[case])
    out = tmp_path / "out.json"
    out.write_text("existing\n")
    r = cli("memory", "--model", path, "--ctx", "128", "-f", "json", "-o", out)
    _check_one_line_error(r)
    assert str(path) in r.err  # the message names the file
    assert out.read_text() == "existing\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, "out.json"])


@pytest.mark.parametrize("case", sorted(HW_FILES))
def test_hostile_hardware_file(cli, tmp_path, case):
    path = tmp_path / f"{case}.yaml"
    path.write_bytes(HW_FILES[case])
    r = cli("memory", "--model", "llama3-8b", "--ctx", "128", "--hardware", path)
    _check_one_line_error(r)
    assert str(path) in r.err


@pytest.mark.parametrize(
    "args",
    [
        ("--ctx", "0"),
        ("--ctx", str(10**12)),
        ("--ctx", "inf"),
        ("--ctx", "1e3"),
        ("--ctx", "-1"),
        ("--ctx", "8", "--batch", "99999999999"),
        ("--ctx", "8", "--kv-heads", "0", "--attention", "gqa"),
        ("--ctx", "8", "--weight-dtype", ""),
        ("--ctx", "8", "--unknown-flag"),
    ],
)
def test_hostile_numbers(cli, args):
    _check_one_line_error(cli("memory", "--model", "llama3-8b", *args))


def test_directory_as_model(cli, tmp_path):
    d = tmp_path / "dir.yaml"
    d.mkdir()
    r = cli("memory", "--model", d, "--ctx", "8")
    _check_one_line_error(r)
    assert "is a directory" in r.err


def test_unwritable_output_keeps_nothing(cli, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        r = cli("memory", "--model", "llama3-8b", "--ctx", "8", "-o", ro / "x.json")
        import os

        if os.geteuid() == 0:  # root may write anywhere: then the write must succeed whole
            assert r.code == 0 and (ro / "x.json").read_text().strip()
        else:
            _check_one_line_error(r)
            assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o700)
