"""Typed errors the library raises; the CLI turns each into one line and an exit code."""

from __future__ import annotations

from collections.abc import Iterable


class KvcalcError(Exception):
    """Base class of every error a user can cause. ``exit_code`` is what the CLI returns."""

    exit_code = 2


# a list of valid names longer than this is not printed where a command lists them all
LONG_LIST = 12


def closest(name: str, valid: Iterable[str], n: int = 3) -> list[str]:
    """The ``n`` valid names nearest ``name`` (difflib's ratio ≥ 0.5), nearest first."""
    import difflib

    return difflib.get_close_matches(str(name)[:200], list(valid), n=n, cutoff=0.5)


def name_hint(name: str, valid: Iterable[str], listing: str = "") -> str:
    """What follows "unknown NAME": the closest valid names, then every valid name, or where
    there are more than ``LONG_LIST`` and ``listing`` is a command that lists them, that
    command (one line however many names are shipped)."""
    valid = sorted(valid)
    close = closest(name, valid)
    out = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "."
    if listing and len(valid) > LONG_LIST:
        return out + f" List all {len(valid)} with `{listing}`."
    return out + f" Valid: {', '.join(valid)}."


def not_one_of(flag: str, value, choices: Iterable[str], after: str = "") -> str:
    """The one line refusing ``value`` of ``flag`` outside a closed set: the set, ``after``
    (more words), and the closest names."""
    choices = list(choices)
    text = str(value)
    shown = repr(value) if len(text) <= 60 else f"{text[:40]!r}…"
    close = closest(text, choices)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return f"{flag} {shown} is not one of: {', '.join(choices)}{after}{hint}"


class UnknownNameError(KvcalcError):
    """A model, hardware profile, dtype or other name that is not known. ``listing``: the
    command that lists every valid name (printed instead of a long list)."""

    def __init__(
        self, kind: str, name: str, valid: Iterable[str], hint: str = "", listing: str = ""
    ) -> None:
        valid = sorted(valid)
        shown = repr(name) if len(name) <= 120 else f"{name[:80]!r}… ({len(name):,} characters)"
        msg = f"unknown {kind} {shown}{name_hint(name, valid, listing)}"
        if hint:
            msg += f" {hint}"
        super().__init__(msg)
        self.kind, self.name, self.valid, self.close = kind, name, valid, closest(name, valid)


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
