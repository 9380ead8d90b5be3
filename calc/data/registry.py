"""Finds shipped and user-supplied model configs and hardware profiles by name or path."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from calc.data.folders import data_dir
from calc.data.model_schema import ModelConfig
from calc.data.yaml_io import load_mapping, validate
from calc.errors import ConfigError, UnknownNameError

if TYPE_CHECKING:  # imported where a profile is loaded: `memory` without -H never needs it
    from calc.data.hardware_schema import HardwareProfile



def _is_path(name: str) -> bool:
    """Whether ``name`` is written as a path: a folder separator or a data file's extension,
    in any case (``MINE.YAML`` is a file, not a model name)."""
    return name.lower().endswith((".yaml", ".yml", ".json")) or "/" in name or "\\" in name


def _is_dir(name: str) -> bool:
    """Whether ``name`` names an existing folder (False for names the OS refuses)."""
    try:
        return Path(name).is_dir()
    except (OSError, ValueError):
        return False


def _exists(name: str) -> bool:
    """Whether ``name`` names something on disk (False for an empty name, which Path reads
    as the working folder, and for names the OS refuses)."""
    try:
        return bool(name.strip()) and Path(name).exists()
    except (OSError, ValueError):
        return False


def relative_to(name: str, folder: Path | str, kind: str = "model") -> str:
    """``name`` (a ``kind``: model or hardware) as written in a file kept in ``folder``: a
    relative path there is relative to that folder, not to the working directory (a spec's
    ``model: ./mine.yaml`` names the file beside the spec); shipped names, ``hf:`` names and
    absolute paths are returned as they are."""
    shipped = model_names() if kind == "model" else hardware_names()
    if name.startswith("hf:") or not name.strip() or Path(name).is_absolute():
        return name
    if name in shipped and not _is_path(name):
        return name
    beside = str(Path(folder) / name)
    return beside if _is_path(name) or _exists(beside) else name


def _is_hf_config(path: Path) -> bool:
    """A Hugging Face config.json (has model_type / architectures), not a kvcalc JSON file."""
    data = load_mapping(path)
    return "model_type" in data or "architectures" in data or "text_config" in data


def _names(folder: str) -> list[str]:
    return sorted(p.stem for p in data_dir(folder).glob("*.yaml"))


def model_names() -> list[str]:
    return _names("model_configs")


def hardware_names() -> list[str]:
    return _names("hardware_profiles")


def _trusted(schema, data: dict, path: Path):
    """``schema.from_trusted(data)``; should a shipped file have been damaged (an installed
    copy edited by hand), strict validation then reports it in one line, never a traceback."""
    try:
        return schema.from_trusted(data)
    except Exception:
        return validate(schema, data, path)


def _model_data(path: Path, shipped: bool = False) -> dict:
    data = _indexed(path) if shipped else None
    if data is None:
        data = load_mapping(path)
    data.setdefault("name", path.stem)
    data.setdefault("display_name", data.get("name", path.stem))
    return data


def _load_model_file(path: Path) -> ModelConfig:
    return validate(ModelConfig, _model_data(path), path)


def _indexed(path: Path) -> dict | None:
    """A shipped model's mapping from calc.data.model_index when its file is unchanged (read
    as every input is read, through calc.output.safe_io), else None."""
    from calc.data.model_index import indexed
    from calc.data.yaml_io import MAX_FILE_BYTES
    from calc.output.safe_io import read_input

    return indexed(path.stem, read_input(path, what="a config file", max_bytes=MAX_FILE_BYTES))


@cache
def _shipped_model(name: str) -> ModelConfig:
    """Built without pydantic (start-up time) and, while the file is unchanged, without the
    YAML parser (calc.data.model_index); tests/test_data_files.py checks that this equals
    the strictly validated config for every shipped file."""
    path = data_dir("model_configs") / f"{name}.yaml"
    return _trusted(ModelConfig, _model_data(path, shipped=True), path)


def load_model(name: str) -> ModelConfig:
    """A shipped model by exact name (e.g. ``llama3-70b``), a YAML file path, a Hugging Face
    ``config.json`` path, or ``hf:org/name`` (fetched with the optional huggingface_hub)."""
    if name.startswith("hf:"):
        from calc.data.hf_import import load_hf_model

        return load_hf_model(name)
    if _is_path(name) or (name not in model_names() and _exists(name)):
        path = Path(name)
        if _is_dir(name):  # a Hugging Face snapshot folder: its config.json
            from calc.data.hf_import import load_hf_config

            return load_hf_config(path)
        if path.suffix.lower() == ".json" and _is_hf_config(path):
            from calc.data.hf_import import load_hf_config

            return load_hf_config(path)
        return _load_model_file(path)
    if name not in model_names():
        raise UnknownNameError(
            "model", name, model_names(), "Or pass a path to a YAML file.",
            listing="kvcalc models",
        )
    return _shipped_model(name)


def _hardware_data(path: Path) -> dict:
    data = load_mapping(path)
    data.setdefault("name", path.stem)
    if "usd_per_hour" in data and "prices" not in data:  # a profile of before issue 22
        raise ConfigError(
            f"{path}: usd_per_hour, price_date and price_source are now 'prices:', a list of "
            "{basis, usd_per_gpu_hour, kind, source, date}, with a 'provenance:' of the figures "
            "(see a shipped profile, docs/hardware.md)"
        )
    return data


def _load_hardware_file(path: Path) -> HardwareProfile:
    from calc.data.hardware_schema import HardwareProfile

    return validate(HardwareProfile, _hardware_data(path), path)


@cache
def _shipped_hardware(name: str) -> HardwareProfile:
    """Built without pydantic, like _shipped_model (and checked the same way)."""
    path = data_dir("hardware_profiles") / f"{name}.yaml"
    from calc.data.hardware_schema import HardwareProfile

    return _trusted(HardwareProfile, _hardware_data(path), path)


def load_hardware(name: str) -> HardwareProfile:
    """A shipped hardware profile by exact name (e.g. ``h100``) or a YAML file path."""
    if _is_path(name) or (name not in hardware_names() and _exists(name)):
        return _load_hardware_file(Path(name))
    if name not in hardware_names():
        raise UnknownNameError(
            "hardware", name, hardware_names(), "Or pass a path to a YAML file.",
            listing="kvcalc hardware",
        )
    return _shipped_hardware(name)


def all_models() -> list[ModelConfig]:
    return [load_model(n) for n in model_names()]


def all_hardware() -> list[HardwareProfile]:
    return [load_hardware(n) for n in hardware_names()]


__all__ = [
    "ConfigError",
    "all_hardware",
    "all_models",
    "data_dir",
    "hardware_names",
    "load_hardware",
    "load_model",
    "model_names",
    "relative_to",
]
