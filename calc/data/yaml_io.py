"""Safe reading of small YAML/JSON data files into dicts, and strict validation into schemas."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from calc.errors import ConfigError
from calc.output.safe_text import is_name, quoted

if TYPE_CHECKING:
    from pydantic import TypeAdapter, ValidationError

MAX_FILE_BYTES = 1_000_000  # a config is a few KB; refuse anything absurd before parsing
MAX_DEPTH = 32

T = TypeVar("T")

# pydantic's error types for a key the schema does not have (models; dataclasses)
_UNKNOWN_FIELD = ("extra_forbidden", "unexpected_keyword_argument")


def read_text(
    path: Path, *, what: str = "a config file", max_bytes: int = MAX_FILE_BYTES
) -> str:
    """The file's UTF-8 text, or a ConfigError that says what is wrong with the path (read
    through calc.output.safe_io: a regular file, opened without blocking, at most
    ``max_bytes``)."""
    from calc.output.safe_io import read_input

    raw = read_input(path, what=what, max_bytes=max_bytes)
    if b"\x00" in raw:
        kind = "JSON" if Path(path).suffix.lower() == ".json" else "YAML"
        raise ConfigError(f"{path}: binary file, expected {kind} text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from exc


MAX_INT_DIGITS = 30  # far above any count or size kvcalc reads; int() of more costs time
_ALIAS = "YAML aliases (*name) are not allowed in kvcalc files"


def _refuse(node: Any, problem: str) -> Exception:
    import yaml

    return yaml.constructor.ConstructorError(None, None, problem, node.start_mark)


def _construct_map(loader: Any, node: Any) -> Any:
    """A mapping whose keys are unique: a repeated key is an error, never last-one-wins."""
    data: dict = {}
    yield data
    first: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        try:
            line = first.get(key)
        except TypeError:  # an unhashable key: construct_mapping says so
            continue
        if line is not None:
            raise _refuse(key_node, f"duplicate key {quoted(key)} (first on line {line + 1})")
        first[key] = key_node.start_mark.line
    data.update(loader.construct_mapping(node))


def _construct_int(loader: Any, node: Any) -> int:
    """Decimal (or 0x hex) integers only: YAML 1.1's octal (010 = 8) and base-60 (1:30 = 90)
    forms are refused rather than silently reinterpreted, and so is an absurd digit count."""
    import yaml

    text = str(loader.construct_scalar(node)).replace("_", "").lstrip("+-")
    if ":" in text:
        raise _refuse(
            node, f"{quoted(node.value)} is a YAML 1.1 base-60 number; write it in decimal"
        )
    if text.startswith("0b"):
        raise _refuse(
            node, f"{quoted(node.value)} is a YAML 1.1 binary number; write it in decimal"
        )
    if len(text) > 1 and text[0] == "0" and not text.startswith("0x"):
        raise _refuse(
            node,
            f"{quoted(node.value)} is a YAML 1.1 octal number (= {int(text, 8)}); write it in "
            "decimal without the leading 0, or quote it for a string",
        )
    if len(text) > MAX_INT_DIGITS:
        raise _refuse(node, f"an integer of {len(text):,} digits is out of range")
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


def _construct_float(loader: Any, node: Any) -> float | int:
    """A float; a whole number written with an exponent (``1e1``, ``8e10``, ``3.2e1``) is the
    exact integer it names, so an integer field (a byte or layer count) accepts it too."""
    import yaml

    text = str(node.value).replace("_", "")
    if ":" in text:
        raise _refuse(
            node, f"{quoted(node.value)} is a YAML 1.1 base-60 number; write it in decimal"
        )
    if _EXPONENT.match(text):
        from decimal import Decimal

        exact = Decimal(text)
        if exact == exact.to_integral_value() and exact.adjusted() < MAX_INT_DIGITS:
            return int(exact)
    return yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)


_EXPONENT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$")


@cache
def _loader(fast: bool) -> type:
    """A safe loader (libyaml's C parser when ``fast``) that refuses aliases (no alias
    bombs), duplicate keys and YAML 1.1 octal/base-60 numbers; python/* tags stay refused."""
    import yaml

    base = yaml.CSafeLoader if fast else yaml.SafeLoader

    class StrictLoader(base):  # type: ignore[misc, valid-type]
        def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
            if not fast and self.check_event(yaml.AliasEvent):
                raise _refuse(self.peek_event(), _ALIAS)
            return super().compose_node(parent, index)

    # YAML 1.2's floats without a dot (1e1, 2e-3, 5E+9) are strings in YAML 1.1: read them
    # as the numbers they are, so a numeric field accepts them (1.5e9 always was a float)
    StrictLoader.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT, list("-+0123456789."))
    StrictLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
    StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    StrictLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)
    return StrictLoader


def _parse(text: str) -> Any:
    """yaml.safe_load made strict (see _loader): libyaml's C parser when PyYAML has it, a
    plain document built straight from its events (``calc.data.yaml_events``: the loader's own
    resolver and constructors, no node tree); any other first a pass over the events to refuse
    any alias, where the text has a ``*``, the indicator every alias starts with; else the
    pure-Python loader."""
    import yaml

    fast = getattr(yaml, "CSafeLoader", None) is not None
    if fast:
        from calc.data.yaml_events import NOT_PLAIN, build

        data = build(text, _loader(True))
        if data is not NOT_PLAIN:
            return data
    if fast and "*" in text:
        for event in yaml.parse(text, Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.AliasEvent):
                raise _refuse(event, _ALIAS)
    return yaml.load(text, Loader=_loader(fast))


def parse_json(text: str, path: Path | str, *, nonfinite: bool = False) -> Any:
    """``json.loads`` that refuses duplicate keys, NaN/Infinity and absurd digit counts,
    each as a ConfigError naming the file. ``nonfinite``: NaN/Infinity read as floats (real
    Hugging Face configs carry them in keys kvcalc never reads, e.g. Nemotron-H's
    ``time_step_limit: [0.0, Infinity]``; the importer checks every key it uses)."""
    import json

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise ConfigError(f"{path}: duplicate key {quoted(k)} in a JSON object")
            out[k] = v
        return out

    def integer(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_INT_DIGITS:
            raise ConfigError(f"{path}: an integer of {len(digits):,} digits is out of range")
        return int(digits)

    def constant(name: str) -> Any:
        if nonfinite:
            return float(name)
        raise ConfigError(f"{path}: {name} is not a JSON number")

    if not text.strip():  # json's own words ("Expecting value") read as a damaged file
        raise ConfigError(f"{path}: empty file, expected JSON")
    try:
        return json.loads(text, object_pairs_hook=pairs, parse_int=integer, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: malformed JSON: {exc.msg} (line {exc.lineno})") from exc
    except RecursionError as exc:
        raise ConfigError(f"{path}: nesting too deep") from exc


def _depth(obj: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(obj, dict):
        return max([_depth(v, level + 1) for v in obj.values()], default=level)
    if isinstance(obj, list):
        return max([_depth(v, level + 1) for v in obj], default=level)
    return level


def load_mapping(path: Path) -> dict[str, Any]:
    """Parse a YAML file (or a .json file, by the JSON rules: tab indentation is legal
    there and duplicate keys are refused the same way) whose top level must be a mapping."""
    import yaml

    text = read_text(path)
    if not text.strip():  # an empty .json reads as malformed JSON otherwise
        raise ConfigError(f"{path}: empty file, expected a mapping of fields")
    try:
        data = parse_json(text, path) if Path(path).suffix.lower() == ".json" else _parse(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f": line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}{where}: malformed YAML: {problem}") from exc
    except RecursionError as exc:
        raise ConfigError(f"{path}: nesting too deep") from exc
    if data is None:
        what = "no fields (comments only, or null)"
        raise ConfigError(f"{path}: {what}, expected a mapping of fields")
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
    loc = ".".join(str(p) for p in first["loc"])
    msg = first["msg"]
    if first["type"] in ("value_error", "assertion_error"):  # pydantic's own prefix, not ours
        msg = msg.split(", ", 1)[-1]
    if first["type"] == "dataclass_type":  # worded as for a pydantic model, as it always was
        msg = f"Input should be a valid dictionary or instance of {first['ctx']['class_name']}"
    if first["type"] in _UNKNOWN_FIELD:
        msg = "unknown field (check spelling; see the shipped YAMLs for the schema)"
    else:
        got = first.get("input")
        if not isinstance(got, dict | list):
            msg += f" (got {quoted(got)})"
    # a key that is no field name (a line of a file that is not a kvcalc file) is not quoted
    shown = all(isinstance(p, int) or is_name(p) or _pydantic_part(p) for p in first["loc"])
    where = f"field {loc!r}" if shown else "a key that is not a field name (not a kvcalc file?)"
    line = f"{path}: {where}: {msg}" if loc else f"{path}: {msg}"  # a rule across fields
    if len(bad) > 1:
        line += f" (+{len(bad) - 1} more invalid field{'s' * (len(bad) > 2)})"
    if missing:
        line += f"; also missing: {', '.join(missing)}"
    return line


def _pydantic_part(part: object) -> bool:
    """A part of an error's location that pydantic names itself (``[key]``,
    ``function-after[...]``), not a key of the file."""
    return isinstance(part, str) and part.endswith("]") and "[" in part


@cache
def _adapter(schema: type[T]) -> TypeAdapter[T]:
    from pydantic import TypeAdapter

    return TypeAdapter(schema)


def validate(schema: type[T], data: dict[str, Any], path: Path | str) -> T:
    """Validate ``data`` strictly against ``schema`` (a pydantic model or a calc.data.schema_base
    dataclass), raising ConfigError that names file and field. Imports pydantic."""
    from pydantic import ValidationError

    try:
        return _adapter(schema).validate_python(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(path, exc)) from exc
