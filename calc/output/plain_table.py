"""Draws a two-column field/value table as rich draws it [text, one character a terminal cell],
without importing rich: the common case (every command's plain result table that fits the
terminal) at a fraction of the start-up time. Anything else (a wide table, a character whose
width is not one cell, a cell with outer spaces, an encoding without box-drawing characters)
returns None, and the caller draws it with rich; tests/test_plain_table.py holds the two to
the same output.

The table is rich's default ``Table``: a HEAVY_HEAD box, one space of padding each side of a
cell, the header left and right like its column, the title above it word-wrapped to the
table's width, each of its lines padded to that width.
"""

from __future__ import annotations

import string
import sys

# characters one terminal cell wide whatever the terminal (rich's cell_len agrees: the
# symbols are East Asian "ambiguous", which rich counts as narrow)
NARROW = frozenset(string.ascii_letters + string.digits + string.punctuation + " ×—–−≤≥…→·µ°±≈")


def _narrow(text: str) -> bool:
    return all(c in NARROW for c in text)


def _title_lines(title: str, width: int) -> list[str] | None:
    """rich's word wrap of a title (``rich._wrap.divide_line``: a word goes to the next line
    when it does not fit the rest of this one), each line padded to ``width``; None where
    rich would do more (a word wider than the table, runs of spaces)."""
    words = title.split(" ")
    if any(not w or len(w) > width for w in words):
        return None
    lines = [words[0]]
    for w in words[1:]:
        if len(lines[-1]) + 1 + len(w) <= width:
            lines[-1] += " " + w
        else:
            lines.append(w)
    return [line.ljust(width) for line in lines]


def kv_text(cells: list[tuple[str, str]], title: str, width: int) -> str | None:
    """The text rich prints for a table of ``title`` with the columns field (left) and value
    (right) holding ``cells``, on a console ``width`` columns wide; None where only rich can
    say (see the module docstring)."""
    encoding = (getattr(sys.stdout, "encoding", None) or "utf-8").lower()
    if not encoding.startswith("utf") or sys.platform == "win32":
        return None
    texts = [*(k for k, _ in cells), *(v for _, v in cells)]
    if not all(_narrow(t) and t == t.strip() for t in texts) or not _narrow(title):
        return None  # rich strips a cell's outer spaces in ways not worth copying
    w1 = max([len("field")] + [len(k) for k, _ in cells])
    w2 = max([len("value")] + [len(v) for _, v in cells])
    table_width = w1 + w2 + 7  # │ k │ v │: three borders, four spaces of padding
    if table_width > width or width < 20:  # rich (and calc.output.table_layout) would fold
        return None
    lines: list[str] = []
    if title:
        wrapped = _title_lines(title, table_width)
        if wrapped is None:
            return None
        lines += wrapped
    lines += [
        f"┏{'━' * (w1 + 2)}┳{'━' * (w2 + 2)}┓",
        f"┃ {'field'.ljust(w1)} ┃ {'value'.rjust(w2)} ┃",
        f"┡{'━' * (w1 + 2)}╇{'━' * (w2 + 2)}┩",
        *(f"│ {k.ljust(w1)} │ {v.rjust(w2)} │" for k, v in cells),
        f"└{'─' * (w1 + 2)}┴{'─' * (w2 + 2)}┘",
    ]
    return "".join(line + "\n" for line in lines)
