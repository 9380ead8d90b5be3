"""The one shape every report returns: its outputs by JSON key [unrounded base units: bytes, s,
FLOP, USD], the derivation of its figures, its warnings and its rows; ``to_dict()`` is the JSON
``-f json`` prints, ``to_pandas()`` the table ``-f csv`` writes.

Each output is also an attribute (``report.tpot_s``): its unit, scope and meaning are the
registry's, ``calc.output.names`` (docs/names.md), so a key is documented once whichever
command or API function returns it (pvlib's ``ModelChainResult``: one field per output).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class Report:
    """A command's result: what ``kvcalc COMMAND -f json`` prints, as Python values."""

    fields: dict  # JSON key -> value (unrounded base units), in output order
    figures: tuple = ()  # calc.output.derivation.Figure each: the derivation --explain prints
    warnings: tuple = ()  # what the command prints as `kvcalc: warning: ...`, in order
    rows: tuple | None = None  # the records -f csv and -f jsonl write (None: the scalar fields)
    deployment: Any = field(default=None, repr=False, compare=False)  # the Deployment (if one)

    command: ClassVar[str] = ""  # the command whose keys it holds (calc.output.names)

    def __post_init__(self) -> None:
        object.__setattr__(self, "figures", tuple(self.figures))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        if self.rows is not None:
            object.__setattr__(self, "rows", tuple(self.rows))

    def __getattr__(self, name: str) -> Any:
        """An output by its JSON key: ``report.tpot_s`` is ``report.fields["tpot_s"]``."""
        fields = self.__dict__.get("fields")
        if fields is not None and name in fields:
            return fields[name]
        raise AttributeError(
            f"{type(self).__name__} has no output {name!r}"
            + (f"; its outputs: {', '.join(fields)}" if fields else "")
        )

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self.fields})

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def __contains__(self, key: object) -> bool:
        return key in self.fields

    def to_dict(self, explain: bool = False) -> dict:
        """The JSON ``-f json`` prints, as Python values (NaN and infinities null, numpy
        scalars plain numbers, tuples lists); ``explain``: with the ``derivation`` lines of
        ``--explain``."""
        import json

        from calc.output.render import to_json

        obj = self.fields
        if explain and self.figures:
            obj = {**obj, "derivation": [f.line() for f in self.figures]}
        return json.loads(to_json(obj))

    def records(self) -> list[dict]:
        """The rows ``-f csv`` writes: the report's records, else its scalar fields as one."""
        if self.rows is not None:
            return [dict(r) for r in self.rows]
        return [{k: v for k, v in self.fields.items() if not isinstance(v, dict | list | tuple)}]

    def to_pandas(self):
        """``records()`` as a pandas DataFrame, one column per key (needs pandas:
        ``pip install 'kvcalc[pandas]'``)."""
        return data_frame(self.records())

    def derivation(self) -> list[str]:
        """The lines ``--explain`` prints: each figure's formula with its numbers."""
        return [f.line() for f in self.figures]


def data_frame(records: list[dict], columns=None):
    """A pandas DataFrame of ``records`` (or of ``columns``, name -> array), or the typed
    error naming the extra to install."""
    try:
        import pandas as pd
    except ImportError as exc:
        from calc.errors import MissingDependencyError

        raise MissingDependencyError("pandas", "pandas") from exc
    if columns is not None:
        return pd.DataFrame(columns)
    return pd.DataFrame.from_records(records)
