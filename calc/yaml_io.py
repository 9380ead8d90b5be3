"""Safe reading of small YAML/JSON data files into dicts, and strict validation into schemas."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from calc.errors import ConfigError

if TYPE_CHECKING:
    from pydantic import TypeAdapter, ValidationError

MAX_FILE_BYTES = 1_000_000  # a config is a few KB; refuse anything absurd before parsing
MAX_DEPTH = 32

T = TypeVar("T")

# pydantic's error types for a key the schema does not have (models; dataclasses)
_UNKNOWN_FIELD = ("extra_forbidden", "unexpected_keyword_argument")


def read_text(path: Path) -> str:
    """The file's UTF-8 text, or a ConfigError that says what is wrong with the path."""
    if not path.exists():
        raise ConfigError(f"{path}: no such file")
    if path.is_dir():
        raise ConfigError(f"{path}: is a directory, expected a file")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ConfigError(f"{path}: {size:,} bytes is too large for a config file")
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from exc
    if b"\x00" in raw:
        raise ConfigError(f"{path}: binary file, expected YAML text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from exc


def _loader() -> type:
    import yaml

    class NoAliasSafeLoader(yaml.SafeLoader):
        """SafeLoader that refuses aliases (no alias bombs) and python/* tags (safe already)."""

        def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    "YAML aliases (*name) are not allowed in kvcalc files",
                    event.start_mark,
                )
            return super().compose_node(parent, index)

    return NoAliasSafeLoader


def _parse(text: str) -> Any:
    """yaml.safe_load without aliases: libyaml's C parser when PyYAML has it (first a pass
    over the events to refuse any alias), else the pure-Python loader that refuses them."""
    import yaml

    fast = getattr(yaml, "CSafeLoader", None)
    if fast is None:
        return yaml.load(text, Loader=_loader())
    for event in yaml.parse(text, Loader=fast):
        if isinstance(event, yaml.AliasEvent):
            raise yaml.constructor.ConstructorError(
                None,
                None,
                "YAML aliases (*name) are not allowed in kvcalc files",
                event.start_mark,
            )
    return yaml.load(text, Loader=fast)  # CSafeLoader: the safe constructor, in C


def _depth(obj: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(obj, dict):
        return max([_depth(v, level + 1) for v in obj.values()], default=level)
    if isinstance(obj, list):
        return max([_depth(v, level + 1) for v in obj], default=level)
    return level


def load_mapping(path: Path) -> dict[str, Any]:
    """Parse a YAML (or JSON, a YAML subset) file whose top level must be a mapping."""
    import yaml

    text = read_text(path)
    try:
        data = _parse(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}:{where}: malformed YAML: {problem}") from exc
    except RecursionError as exc:
        raise ConfigError(f"{path}: nesting too deep") from exc
    if data is None:
        raise ConfigError(f"{path}: empty file, expected a mapping of fields")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of fields, got {type(data).__name__}")
    if _depth(data) > MAX_DEPTH:
        raise ConfigError(f"{path}: nesting deeper than {MAX_DEPTH} levels")
    return data


def format_validation_error(path: Path | str, exc: ValidationError) -> str:
    """One line: file, the first bad field and its problem, then any missing fields."""
    errors = exc.errors()
    missing = [".".join(str(p) for p in e["loc"]) for e in errors if e["type"] == "missing"]
    bad = [e for e in errors if e["type"] != "missing"]
    if not bad:
        return f"{path}: missing required field{'s' * (len(missing) > 1)}: {', '.join(missing)}"
    first = bad[0]
    loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
    msg = first["msg"]
    if first["type"] == "dataclass_type":  # worded as for a pydantic model, as it always was
        msg = f"Input should be a valid dictionary or instance of {first['ctx']['class_name']}"
    if first["type"] in _UNKNOWN_FIELD:
        msg = "unknown field (check spelling; see the shipped YAMLs for the schema)"
    else:
        got = first.get("input")
        if not isinstance(got, dict | list):
            msg += f" (got {got!r})"
    line = f"{path}: field {loc!r}: {msg}"
    if len(bad) > 1:
        line += f" (+{len(bad) - 1} more invalid field{'s' * (len(bad) > 2)})"
    if missing:
        line += f"; also missing: {', '.join(missing)}"
    return line


@cache
def _adapter(schema: type[T]) -> TypeAdapter[T]:
    from pydantic import TypeAdapter

    return TypeAdapter(schema)


def validate(schema: type[T], data: dict[str, Any], path: Path | str) -> T:
    """Validate ``data`` strictly against ``schema`` (a pydantic model or a calc.schema_base
    dataclass), raising ConfigError that names file and field. Imports pydantic."""
    from pydantic import ValidationError

    try:
        return _adapter(schema).validate_python(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(path, exc)) from exc
