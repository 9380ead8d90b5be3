"""The parsed index of the shipped model configs (calc.data.model_index): current, equal to
parsing each YAML, and never used for a file that changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.data import model_index
from calc.data.registry import data_dir, model_names
from calc.data.yaml_io import load_mapping

ROOT = Path(__file__).resolve().parents[1]


def test_the_index_is_current():
    assert model_index.INDEX.read_text() == model_index.build(), (
        "calc/data/model_index.json is stale: run "
        "`python -m calc.data.model_index > calc/data/model_index.json`"
    )


@pytest.mark.parametrize("name", model_names())
def test_an_indexed_model_is_its_yaml(name):
    path = data_dir("model_configs") / f"{name}.yaml"
    raw = path.read_bytes()
    got = model_index.indexed(name, raw)
    assert got is not None, f"{name} is not indexed"
    assert got == load_mapping(path)
    assert model_index.indexed(name, raw) is not got  # a fresh object: callers may edit it


def test_a_changed_file_is_parsed_again():
    raw = (data_dir("model_configs") / "llama3-8b.yaml").read_bytes()
    assert model_index.indexed("llama3-8b", raw + b"\n") is None  # another size
    edited = raw.replace(b"n_layers: 32", b"n_layers: 33")
    assert edited != raw and len(edited) == len(raw)
    assert model_index.indexed("llama3-8b", edited) is None  # same size, another CRC-32
    assert model_index.indexed("no-such-model", raw) is None


def test_an_edited_shipped_yaml_wins_over_the_index(tmp_path, monkeypatch):
    """load_model of a shipped name reads the file as it is now."""
    from calc.data import registry

    folder = tmp_path / "model_configs"
    folder.mkdir()
    text = (data_dir("model_configs") / "llama3-8b.yaml").read_text()
    (folder / "llama3-8b.yaml").write_text(text.replace("n_layers: 32", "n_layers: 16"))
    monkeypatch.setattr(registry, "data_dir", lambda name: tmp_path / name)
    registry._shipped_model.cache_clear()
    try:
        assert registry._shipped_model("llama3-8b").n_layers == 16
    finally:
        registry._shipped_model.cache_clear()


def test_a_missing_or_damaged_index_parses_the_yamls(tmp_path, monkeypatch):
    raw = (data_dir("model_configs") / "llama3-8b.yaml").read_bytes()
    for content in (None, "{not json", '{"files": 3}'):
        path = tmp_path / "index.json"
        if content is not None:
            path.write_text(content)
        monkeypatch.setattr(model_index, "INDEX", path)
        model_index._index.cache_clear()
        try:
            assert model_index.indexed("llama3-8b", raw) is None
        finally:
            model_index._index.cache_clear()
