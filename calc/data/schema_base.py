"""Frozen dataclass schemas of the YAML data files, validated by pydantic only when one is read.

The schema classes (ModelConfig, HardwareProfile and their parts) are plain frozen,
keyword-only dataclasses, so importing them and building a shipped config from its YAML
costs no pydantic at start-up. Their constraints ride in ``Annotated[..., Bounds(...)]`` and
their config in ``__pydantic_config__``, so ``pydantic.TypeAdapter(cls)`` validates a user's
file strictly (``calc.data.yaml_io.validate`` imports pydantic only then). Cross-field checks live
in ``__post_init__`` and run on every construction, validated or direct.

A schema module must not use ``from __future__ import annotations``: ``from_trusted`` reads
the field types as objects.
"""

import dataclasses
import types
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from typing import Annotated, Any, Self, TypeVar, Union, get_args, get_origin

C = TypeVar("C", bound=type)

STRICT_CONFIG = {"extra": "forbid", "frozen": True, "strict": True, "allow_inf_nan": False}


class Bounds:
    """Constraints of one field for pydantic: gt, ge, le, min_length, max_length, pattern.

    An annotated-types ``GroupedMetadata`` by protocol: pydantic expands it into the
    annotated-types constraints it stands for, imported only then (annotated_types alone
    costs ~6 ms of start-up).
    """

    __slots__ = ("constraints",)
    __is_annotated_types_grouped_metadata__ = True

    def __init__(self, **constraints: Any) -> None:
        self.constraints = constraints

    def __iter__(self) -> Iterator[object]:
        import annotated_types as at
        from pydantic import StringConstraints

        kinds = {
            "gt": at.Gt,
            "ge": at.Ge,
            "le": at.Le,
            "min_length": at.MinLen,
            "max_length": at.MaxLen,
        }
        for key, value in self.constraints.items():
            yield StringConstraints(pattern=value) if key == "pattern" else kinds[key](value)

    def __repr__(self) -> str:
        return f"Bounds({', '.join(f'{k}={v!r}' for k, v in self.constraints.items())})"


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise dataclasses.FrozenInstanceError(
        f"{type(self).__name__} is frozen: cannot assign to field {name!r}"
    )


def _frozen_delattr(self: object, name: str) -> None:
    raise dataclasses.FrozenInstanceError(
        f"{type(self).__name__} is frozen: cannot delete field {name!r}"
    )


def schema(cls: C) -> C:
    """Class decorator: a frozen, keyword-only dataclass whose refusal to assign says so."""
    cls = dataclasses.dataclass(frozen=True, kw_only=True)(cls)
    cls.__setattr__ = _frozen_setattr  # type: ignore[assignment]
    cls.__delattr__ = _frozen_delattr  # type: ignore[assignment]
    return cls


class Schema:
    """Base of the schema dataclasses: strict pydantic config, direct construction."""

    __pydantic_config__ = STRICT_CONFIG

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """pydantic's schema of the dataclass, taking a mapping as input: in strict mode a
        dataclass accepts only an instance (dataclass_exact_type); its fields stay strict."""
        core = handler(source)
        core["strict"] = False
        return core

    @classmethod
    def from_trusted(cls, data: Mapping[str, Any]) -> Self:
        """An instance built from a mapping known to be valid (the shipped YAMLs, which the
        tests validate strictly) without pydantic: nested mappings become their schemas and
        ints in float fields floats, as pydantic does; bounds are not checked here, the
        cross-field checks run."""
        kw = dict(data)
        for name, convert in _converters(cls):
            if kw.get(name) is not None:
                kw[name] = convert(kw[name])
        return cls(**kw)

    def to_dict(self, *, exclude_defaults: bool = False) -> dict[str, Any]:
        """The fields as plain data in schema order (nested schemas as dicts); without the
        fields equal to their default when ``exclude_defaults`` (as pydantic's model_dump)."""
        out = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if exclude_defaults and f.default is not dataclasses.MISSING and value == f.default:
                continue
            out[f.name] = _plain(value, exclude_defaults)
        return out


def _plain(value: Any, exclude_defaults: bool) -> Any:
    if isinstance(value, Schema):
        return value.to_dict(exclude_defaults=exclude_defaults)
    if isinstance(value, list):
        return [_plain(v, exclude_defaults) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v, exclude_defaults) for k, v in value.items()}
    return value


@cache
def _converters(cls: type) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """(field name, conversion) for each field of ``cls`` whose YAML value needs one."""
    out = []
    for f in dataclasses.fields(cls):
        if isinstance(f.type, str):
            raise TypeError(f"{cls.__name__}.{f.name}: a string annotation (see module doc)")
        if (conv := _converter(f.type)) is not None:
            out.append((f.name, conv))
    return tuple(out)


def _converter(tp: Any) -> Callable[[Any], Any] | None:
    """What turns a YAML value into the field's type: float(), a schema's from_trusted, the
    same inside a list or a dict's values; None when the value is used as it is."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        return _converter(args[0]) if len(args) == 1 else None
    if origin is Annotated:
        return _converter(get_args(tp)[0])
    if tp is float:
        return float
    if isinstance(tp, type) and issubclass(tp, Schema):
        return tp.from_trusted
    if origin is list and (item := _converter(get_args(tp)[0])) is not None:
        return lambda xs: [item(x) for x in xs]
    if origin is dict and (value := _converter(get_args(tp)[1])) is not None:
        return lambda d: {k: value(v) for k, v in d.items()}
    return None
