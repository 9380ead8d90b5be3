"""Splits a shell command line into the units a reader keeps together [strings]: the program
and its words, and each ``--flag value`` pair, so a command is shown one unit per line with
backslash continuations (a terminal) or in spans that never break (HTML); either way it pastes
back into a shell as the same command."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"""(?:[^\s'"]+|'[^']*'|"[^"]*")+""")


def units(command: str) -> list[str]:
    """``vllm serve m --tp 4 --flag`` -> ["vllm", "serve", "m", "--tp 4", "--flag"]."""
    out: list[str] = []
    for tok in _TOKEN.findall(command):
        if out and out[-1].startswith("-") and " " not in out[-1] and not tok.startswith("-"):
            out[-1] += " " + tok  # --flag value
        else:
            out.append(tok)
    return out


def continued(command: str, indent: str = "  ", width: int = 78) -> str:
    """The command over several lines, each ending in `` \\`` but the last, broken only
    between units and only where a line would pass ``width`` characters."""
    lines: list[str] = []
    line = ""
    for u in units(command):
        if line and len(line) + 1 + len(u) + 2 > width:
            lines.append(line)
            line = indent * 2 + u
        else:
            line = f"{line} {u}" if line else indent + u
    lines.append(line)
    return " \\\n".join(lines)
