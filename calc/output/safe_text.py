"""Makes text taken from files (names, display names, paths, values) safe to show: terminal
control sequences become visible escapes before a terminal sees them, and characters XML 1.0
forbids are replaced before an SVG or JUnit file is written."""

from __future__ import annotations

import re
from functools import cache

# C0 controls (ESC starts every terminal sequence), DEL, C1 controls (0x9b is a one-byte
# CSI), and the Unicode bidirectional overrides that reorder what a reader sees.
_OTHER = "\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"


@cache
def _pattern(kind: str) -> re.Pattern[str]:
    """The patterns, compiled on first use: these character classes cost 1-9 ms each to
    compile, which every command would pay at start-up for text that rarely needs them."""
    return re.compile({
        "control": f"[\x00-\x0a{_OTHER}]",
        "control_keep_lines": f"[\x00-\x08{_OTHER}]",
        "xml_invalid": "[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]",
    }[kind])  # fmt: skip


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character (and newline, unless ``lines``) written as a
    visible escape such as ``\\x1b``, so it cannot move the cursor, recolour, retitle or
    clear a terminal, nor split one error line into two."""
    # every character of these patterns is Unicode "other" (Cc, Cf): text whose lines are all
    # printable holds none of them (the common case, answered without a pattern)
    if text.isprintable() or (lines and all(ln.isprintable() for ln in text.split("\n"))):
        return text
    return _pattern("control_keep_lines" if lines else "control").sub(_escape, text)


def xml_safe(text: str) -> str:
    """``text`` with the characters XML 1.0 forbids (most C0 controls, lone surrogates,
    U+FFFE/U+FFFF) replaced by U+FFFD, so a parser accepts the file."""
    return _pattern("xml_invalid").sub("\ufffd", text)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")
_WORD = re.compile(r"[A-Za-z0-9_.:+\-/ ]{0,64}")


def is_name(text: object) -> bool:
    """Whether ``text`` looks like a field name (a letter or _, then letters, digits, _ . -,
    at most 64 characters): what an error may quote of a file's keys."""
    return isinstance(text, str) and _NAME.fullmatch(text) is not None


def quoted(value: object) -> str:
    """``value`` as an error message may show it: a number, a boolean, None or a short word
    (letters, digits, ``_ . : + - /``, spaces) as its repr; anything else only described
    (``a string of 43 characters``), so an error never echoes a file's content (a spec
    pointed at /etc/shadow must not print its first line)."""
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    if isinstance(value, str):
        if _WORD.fullmatch(value) and "$" not in value:
            return repr(value)
        return f"a string of {len(value):,} characters"
    return f"a {type(value).__name__}"


_LONG_WORD = re.compile(r"\S{241,}")


def elide(text: str) -> str:
    """``text`` with every run of more than 240 non-space characters (a pasted blob, a name of
    100,000 characters) cut to its first 160 and its length, so an error stays a line a
    person reads; paths and names of ordinary length are untouched."""
    return _LONG_WORD.sub(lambda m: f"{m.group()[:160]}…({len(m.group()):,} characters)", text)
