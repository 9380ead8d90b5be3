"""An engine's releases and the rules that changed between them: which modelled release a
version string names (its own, or the nearest, with a warning), and the rules in force at a
release (every change up to it, folded in release order).

A version is a tuple of ints (``0.11.2`` -> (0, 11, 2)); suffixes (``rc1``, ``.post1``,
``.dev19+g1234``) name builds of the release they start with. A version string may stop early:
``0.19`` means the newest 0.19 release modelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from typing import Generic, TypeVar

from calc.errors import InvalidInputError

_VERSION = re.compile(r"v?(\d{1,4})(?:\.(\d{1,4}))?(?:\.(\d{1,4}))?(?:\.(\d{1,4}))?", re.ASCII)
# what may follow the numbers: a build or local tag that starts with a letter (rc1, .post1,
# .dev19+g1234, +cu128), never more digits, dots or control characters
_SUFFIX = re.compile(r"(?:[.+_-]?[A-Za-z][A-Za-z0-9.+_-]{0,60})?\Z", re.ASCII)

R = TypeVar("R")


def parse_version(text: str) -> tuple[int, ...] | None:
    """(major, minor, patch...) of a version string, or None when it is not one: ASCII digits,
    at most four parts, then at most a build tag that starts with a letter ("0.19.0rc1",
    "0.5.4.post1", "v0.11.1.dev0+gabc"); "0..19", "99999", "0.19\\x01" and full-width digits
    are not versions."""
    text = text.strip() if isinstance(text, str) and len(text) <= 100 else None
    m = _VERSION.match(text) if text else None
    if m is None or _SUFFIX.match(text, m.end()) is None:
        return None
    return tuple(int(g) for g in m.groups() if g is not None)


def version_text(v: tuple[int, ...]) -> str:
    return ".".join(str(x) for x in v)


@dataclass(frozen=True)
class Change(Generic[R]):
    """What changed at one release: new values of some rule fields, and where the source says
    so (``file @ version``)."""

    since: str
    values: dict
    source: str
    note: str = ""


@dataclass(frozen=True)
class Resolved:
    """A version string resolved to a modelled release: ``release`` (e.g. "0.19.1"), the
    string asked for, and the warning when the release is not the one asked for."""

    release: str
    asked: str | None
    warning: str | None = None


@dataclass
class VersionTable(Generic[R]):
    """An engine's modelled releases (``releases``, oldest first, as published) and the changes
    of its rules (``changes``, each at the first release it holds for) over ``base`` rules."""

    engine: str
    releases: tuple[str, ...]
    base: R
    changes: tuple[Change, ...]
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        parsed = [parse_version(r) for r in self.releases]
        if None in parsed or parsed != sorted(parsed):  # a typo in a table is a bug
            raise ValueError(f"{self.engine} releases must be versions, oldest first")
        names = {f.name for f in fields(self.base)}  # type: ignore[arg-type]
        for c in self.changes:
            if c.since not in self.releases or set(c.values) - names:
                raise ValueError(f"{self.engine} change at {c.since}: {set(c.values) - names}")

    @property
    def newest(self) -> str:
        return self.releases[-1]

    def resolve(self, asked: str | None) -> Resolved:
        """The modelled release ``asked`` names: None -> the newest; a release -> itself; a
        prefix ("0.19") -> the newest release it names; a build of a release (rc, post, dev)
        -> that release; anything else -> the nearest release, with a warning: the oldest or
        the newest outside the range, else the newest release before it (whose rules were
        in force when it was built)."""
        if asked is None:
            return Resolved(self.newest, None)
        text = str(asked).strip()
        if text in self.releases:
            return Resolved(text, text)
        v = parse_version(text)
        if v is None:
            raise InvalidInputError(
                f"{self.engine} version {text[:40]!r} is not a version number (e.g. {self.newest})"
            )
        named = [r for r in self.releases if parse_version(r)[: len(v)] == v]
        if named:
            return Resolved(named[-1], text)
        nearest = _nearest(self.releases, v)
        inside = parse_version(self.releases[0]) < v < parse_version(self.newest)
        # inside the range the release before it, which need not be the nearest by number
        # (SGLang 0.5.2 -> 0.4.10, not 0.5.3): said so
        which = (f"{nearest}, the newest modelled release before it" if inside
                 else f"the nearest modelled release {nearest}")  # fmt: skip
        return Resolved(
            nearest,
            text,
            f"{self.engine} {text} is not modelled: using {which} "
            f"(modelled: {self.releases[0]} to {self.newest})",
        )

    def rules(self, release: str) -> R:
        """The rules in force at ``release`` (a modelled release)."""
        if release not in self._cache:
            at = parse_version(release)
            out = self.base
            for c in self.changes:
                if parse_version(c.since) <= at:
                    out = replace(out, **c.values)  # type: ignore[type-var]
            self._cache[release] = out
        return self._cache[release]

    def changed_at(self, release: str) -> list[Change]:
        return [c for c in self.changes if c.since == release]


def _nearest(releases: tuple[str, ...], v: tuple[int, ...]) -> str:
    parsed = [parse_version(r) for r in releases]
    if v < parsed[0]:
        return releases[0]
    return [r for r, p in zip(releases, parsed, strict=True) if p <= v][-1]
