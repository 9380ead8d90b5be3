"""Reads the keys of one parsed Hugging Face ``config.json`` [elements, layers, tokens]: a
missing needed key is a ConfigError naming it and the file, never a guess; where the importer
must assume, the assumption is recorded and shown to the user as a warning."""

from __future__ import annotations

from typing import Any

from calc.errors import ConfigError
from calc.output.safe_text import is_name


class HfConfig:
    """One config dict (the text model's, for a multimodal wrapper), the file it came from,
    and the assumptions made while reading it."""

    def __init__(self, data: dict[str, Any], where: str) -> None:
        self.data, self.where = data, where
        self.assumed: list[str] = []

    @property
    def model_type(self) -> str | None:
        v = self.data.get("model_type")
        return v if isinstance(v, str) else None

    def get(self, key: str, default: Any = None) -> Any:
        """The key's value, or ``default`` when absent or null."""
        v = self.data.get(key)
        return default if v is None else v

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def first(self, *keys: str, default: Any = None) -> Any:
        """The value of the first of ``keys`` present (the names families use for one thing,
        e.g. num_experts / num_local_experts / n_routed_experts)."""
        for k in keys:
            v = self.data.get(k)
            if v is not None:
                return v
        return default

    def need(self, key: str, what: str = "") -> Any:
        v = self.data.get(key)
        if v is None:
            raise self.missing(key, what)
        return v

    def need_one(self, *keys: str, what: str = "") -> Any:
        """The first of ``keys`` present, or a ConfigError naming them all."""
        v = self.first(*keys)
        if v is None:
            raise self.missing(" / ".join(keys), what)
        return v

    def missing(self, key: str, what: str = "") -> ConfigError:
        why = f" (needed for {what})" if what else ""
        kind = self.model_type  # None when the file names no model_type
        kind = f"{kind} " if is_name(kind) else ""  # never echo a value that is not a name
        return ConfigError(
            f"{self.where}: {kind}config.json has no {key!r}{why}; "
            "add it to the file or write the model YAML by hand"
        )

    def assume(self, text: str) -> None:
        """Record an assumption (shown as a warning, and kept in the model's ``assumed``)."""
        if text not in self.assumed:
            self.assumed.append(text)
