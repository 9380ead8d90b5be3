"""Every shipped YAML validates; invalid files fail with file, field and problem named."""

from __future__ import annotations

import pytest

from calc.data.model_schema import ModelConfig
from calc.data.registry import data_dir, hardware_names, load_hardware, load_model, model_names
from calc.data.yaml_io import load_mapping
from calc.errors import ConfigError

MODELS = model_names()
HARDWARE = hardware_names()


def test_required_data_ships():
    for name in (
        "llama3-8b",
        "llama3-70b",
        "llama3.1-405b",
        "mixtral-8x7b",
        "deepseek-v3",
        "llama2-7b",
        "falcon-7b",
    ):
        assert name in MODELS
    for name in ("h100", "h200", "b200", "a100-80g"):
        assert name in HARDWARE


@pytest.mark.parametrize("name", MODELS)
def test_model_yaml_validates(name):
    cfg = load_model(name)
    assert cfg.name == name  # file stem and name agree
    assert cfg.source.startswith("https://")


@pytest.mark.parametrize("name", HARDWARE)
def test_hardware_yaml_validates(name):
    hw = load_hardware(name)
    assert hw.name == name
    assert hw.source.startswith("https://")
    assert "dense" in hw.peak_note


@pytest.mark.parametrize(
    ("folder", "name"),
    [("model_configs", n) for n in MODELS] + [("hardware_profiles", n) for n in HARDWARE],
)
def test_shipped_yaml_built_directly_equals_strictly_validated(folder, name):
    # By name, load_model/load_hardware build a shipped file without pydantic (start-up
    # time); by path, they validate it strictly. Both must give the same object, types
    # included (repr tells 3 from 3.0: pydantic makes YAML ints in float fields floats).
    load = load_model if folder == "model_configs" else load_hardware
    direct = load(name)
    strict = load(str(data_dir(folder) / f"{name}.yaml"))
    assert direct == strict
    assert repr(direct) == repr(strict)


def _write(tmp_path, text, name="m.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


BASE = (data_dir("model_configs") / "llama3-8b.yaml").read_text()


def test_unknown_field_names_file_and_field(tmp_path):
    p = _write(tmp_path, BASE + "n_experts: 8\n")
    with pytest.raises(ConfigError, match=r"m\.yaml: field 'n_experts': unknown field"):
        load_model(str(p))


def test_bad_value_names_field_and_value(tmp_path):
    p = _write(tmp_path, BASE.replace("n_kv_heads: 8 ", "n_kv_heads: -8 "))
    with pytest.raises(ConfigError, match=r"field 'n_kv_heads': .*greater than 0.*-8"):
        load_model(str(p))


def test_heads_not_divisible(tmp_path):
    p = _write(tmp_path, BASE.replace("n_kv_heads: 8 ", "n_kv_heads: 5 "))
    with pytest.raises(ConfigError, match="not divisible by n_kv_heads"):
        load_model(str(p))


def test_strings_are_not_numbers(tmp_path):
    p = _write(tmp_path, BASE.replace("n_layers: 32 ", "n_layers: '32' "))
    with pytest.raises(ConfigError, match="n_layers"):
        load_model(str(p))


def test_head_dim_required_for_non_mla(tmp_path):
    text = "\n".join(ln for ln in BASE.splitlines() if not ln.startswith("head_dim"))
    p = _write(tmp_path, text)
    with pytest.raises(ConfigError, match="head_dim is required"):
        load_model(str(p))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty file"),
        ("- 1\n- 2\n", "expected a mapping"),
        ("a: [1, 2\n", "malformed YAML"),
        ("a: !!python/object/apply:os.system ['echo hi']\n", "malformed YAML"),
        ("a: &x [1, 2]\nb: *x\n", "aliases"),
        ("a: " + "[" * 50 + "]" * 50 + "\n", "nesting"),
    ],
)
def test_hostile_yaml(tmp_path, text, problem):
    p = _write(tmp_path, text)
    with pytest.raises(ConfigError, match=problem):
        load_mapping(p)


def test_binary_non_utf8_and_directory(tmp_path):
    with pytest.raises(ConfigError, match="binary"):
        load_mapping(_write_bytes(tmp_path, b"\x00\x01\x02"))
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_mapping(_write_bytes(tmp_path, b"name: caf\xe9\n"))
    with pytest.raises(ConfigError, match="is a directory"):
        load_mapping(tmp_path)
    with pytest.raises(ConfigError, match="no such file"):
        load_mapping(tmp_path / "missing.yaml")


def _write_bytes(tmp_path, data):
    p = tmp_path / "b.yaml"
    p.write_bytes(data)
    return p


def test_schema_is_strict_and_frozen():
    cfg = load_model("llama3-8b")
    with pytest.raises(Exception, match="frozen"):
        cfg.n_layers = 1  # type: ignore[misc]
    assert ModelConfig.__pydantic_config__["extra"] == "forbid"


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "pure-python"])
def test_both_yaml_parsers_refuse_aliases_and_tags(tmp_path, monkeypatch, fast):
    import yaml

    if not fast:
        monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    elif not hasattr(yaml, "CSafeLoader"):
        pytest.skip("PyYAML built without libyaml")
    with pytest.raises(ConfigError, match="aliases"):
        load_mapping(_write(tmp_path, "a: &x 1\nb: *x\n"))
    with pytest.raises(ConfigError, match="malformed YAML"):
        load_mapping(_write(tmp_path, "a: !!python/name:os.system\n"))
    assert load_mapping(_write(tmp_path, "a: 1\nb: [2, 3]\n")) == {"a": 1, "b": [2, 3]}


def test_damaged_shipped_file_is_one_line_error(cli, tmp_path, monkeypatch):
    """Shipped configs are built without pydantic; should an installed copy be edited into
    an invalid state, strict validation still explains it in one line (no traceback)."""
    import shutil

    from calc.data import registry

    folder = tmp_path / "model_configs"
    shutil.copytree(data_dir("model_configs"), folder)
    good = (folder / "llama3-8b.yaml").read_text()
    (folder / "llama3-8b.yaml").write_text(good + "rope_scaling_factor: 8\n")
    monkeypatch.setattr(registry, "data_dir", lambda name: folder if name == "model_configs"
                        else data_dir(name))  # fmt: skip
    registry._shipped_model.cache_clear()
    try:
        r = cli("memory", "--model", "llama3-8b", "--ctx", "8")
    finally:
        registry._shipped_model.cache_clear()
    assert r.code == 2 and r.err.count("\n") == 1 and "Traceback" not in r.err
    assert "field 'rope_scaling_factor': unknown field" in r.err
