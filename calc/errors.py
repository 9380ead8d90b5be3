"""Typed errors the library raises; the CLI turns each into one line and an exit code."""

from __future__ import annotations

from collections.abc import Iterable


class KvcalcError(Exception):
    """Base class of every error a user can cause. ``exit_code`` is what the CLI returns."""

    exit_code = 2


class UnknownNameError(KvcalcError):
    """A model, hardware profile, dtype or other name that is not known."""

    def __init__(self, kind: str, name: str, valid: Iterable[str], hint: str = "") -> None:
        import difflib

        valid = sorted(valid)
        close = difflib.get_close_matches(name[:200], valid, n=3, cutoff=0.5)
        shown = repr(name) if len(name) <= 120 else f"{name[:80]!r}… ({len(name):,} characters)"
        msg = f"unknown {kind} {shown}"
        if close:
            msg += f"; did you mean {', '.join(repr(c) for c in close)}?"
        msg += f" Valid: {', '.join(valid)}."
        if hint:
            msg += f" {hint}"
        super().__init__(msg)
        self.kind, self.name, self.valid, self.close = kind, name, valid, close


class ConfigError(KvcalcError):
    """A YAML/JSON file that cannot be read or does not validate: names file, field, problem."""


class InvalidInputError(KvcalcError):
    """A command-line value or combination of values that makes no sense."""


class MissingDependencyError(KvcalcError):
    """An optional extra (torch, matplotlib, huggingface_hub) that is not installed."""

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"{package} is not installed; install it with: pip install 'kvcalc[{extra}]'"
        )
