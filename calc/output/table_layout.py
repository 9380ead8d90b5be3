"""Lays out rich tables for a terminal of a given width [columns] so that no figure is ever cut.

A table that fits is left as it is. A wider one is folded:

1. Key columns (``FoldingTable.key_columns``: model, hardware, ctx, ... — what names a row)
   whose value is the same on every row are said once, in the title.
2. The other columns are packed into as many tables as needed, each repeating the remaining
   key columns, so each row can still be read across ("wrapped by columns").
3. If not even the keys and one value column fit, the table is transposed: a first column of
   field names and one column per row, as many rows side by side as fit.

Within a column, a cell may break only at a space before ``(`` (``16.06 GB (14.96 GiB)`` onto
two lines) or after ``;`` (the clauses of a phrase: ``prompts as recorded; outputs as
recorded``), a link also after a slash, and a header only after an underscore (``usd_per_`` /
``million_``): a number is never split, because every column is given at least the width of
its longest unbreakable piece. Only display changes here; JSON and CSV never pass through this
module.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rich.console import Group
from rich.table import Column, Table
from rich.text import Text

MIN_WIDTH = 20  # narrower than this, nothing is readable; tables are laid out for 20
HEADER_MIN = 10  # a header is broken at underscores into pieces at least this wide
CELL_BREAK = re.compile(r" +(?=\()|(?<=;) +")  # where a cell may wrap: before "(14.96 GiB)",
# after a clause's ";"
BORDER = 1  # columns a box border takes at the left and between columns
PADDING = 2  # one space each side of a cell


class FoldingTable(Table):
    """A rich ``Table`` whose first ``key_columns`` columns name a row (repeated when folded)."""

    def __init__(self, *args, key_columns: int = 0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.key_columns = key_columns


def plain(cell) -> str:
    """The text of a cell (str, Text or other renderable) as it prints."""
    if isinstance(cell, Text):
        return cell.plain
    return str(cell)


URL_BREAK = re.compile(r"(?<=/)(?=[^/])")  # a link (no figure) may fold after a slash


def _pieces(text: str) -> list[str]:
    """Unbreakable pieces of a cell, line by line; a link's pieces end at its slashes (a
    price's source URL wider than the terminal folds there, not the whole table transposed)."""
    out: list[str] = []
    for line in text.splitlines() or [""]:
        for piece in CELL_BREAK.split(line):
            out += URL_BREAK.split(piece) if "://" in piece else [piece]
    return out


def _header_pieces(header: str) -> list[str]:
    """A header's pieces: broken after each underscore ('usd_', 'per_', 'million_', ...)."""
    return [p for p in re.split(r"(?<=_)", header) if p]


def header_lines(header: str, width: int) -> str:
    """``header`` broken after underscores into lines of at most ``width`` (a piece longer
    than ``width`` stays whole)."""
    if len(header) <= width or "\n" in header:
        return header
    lines, line = [], ""
    for piece in _header_pieces(header):
        if line and len(line) + len(piece) > width:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line)
    return "\n".join(lines)


def broken(cell: str, width: int) -> str:
    """``cell`` as it prints in a column ``width`` wide: whole if it fits, else broken onto
    lines at its break points only (before a parenthesis, after a semicolon), never inside a
    figure."""
    if _width(cell) <= width:
        return cell
    return "\n".join(CELL_BREAK.sub("\n", line) for line in cell.splitlines())


def _retitled(table: Table, title: str) -> Table:
    import copy

    out = copy.copy(table)
    out.title = title
    return out


def _width(text: str) -> int:
    from rich.cells import cell_len

    return max((cell_len(line) for line in text.splitlines()), default=0)


def column_min_width(header: str, cells: list[str]) -> int:
    """The narrowest the column may get: its longest unbreakable cell piece, and its header
    broken at underscores into pieces at least ``HEADER_MIN`` wide."""
    from rich.cells import cell_len

    cell_min = max((cell_len(p) for c in cells for p in _pieces(c)), default=0)
    head_piece = max((len(p) for p in _header_pieces(header)), default=0)
    head_min = min(len(header), max(head_piece, HEADER_MIN))
    return max(cell_min, head_min, 1)


def column_max_width(header: str, cells: list[str]) -> int:
    """The column's natural width: its widest cell or header, unbroken."""
    return max([_width(header)] + [_width(c) for c in cells] + [1])


def table_width(col_widths: list[int]) -> int:
    """Columns a boxed table of these column widths takes."""
    return sum(w + PADDING + BORDER for w in col_widths) + BORDER


def _columns(table: Table) -> list[tuple[Column, str, list[str]]]:
    return [(c, plain(c.header), [plain(x) for x in c.cells]) for c in table.columns]


def _new_table(like: Table, title) -> Table:
    return Table(
        title=title,
        title_justify=like.title_justify,
        header_style=like.header_style,
        show_header=like.show_header,
        box=like.box,
    )


def allot(mins: list[int], maxs: list[int], width: int, cells: list[int] | None = None):
    """Column widths within ``width``: each its minimum, then the spare columns given first
    to unbreak cells (up to ``cells``, the widest cell of each column), then headers (up to
    ``maxs``), smallest shortfall first."""
    widths = list(mins)
    spare = width - table_width(widths)
    goals = (
        [maxs] if cells is None else [[min(c, m) for c, m in zip(cells, maxs, strict=True)], maxs]
    )
    for goal in goals:
        for i in sorted(range(len(widths)), key=lambda j: goal[j] - widths[j]):
            if spare <= 0:
                return widths
            extra = max(0, min(spare, goal[i] - widths[i]))
            widths[i] += extra
            spare -= extra
    return widths


def fold(table: Table, width: int) -> list[Table]:
    """``table`` laid out within ``width`` columns (see the module docstring)."""
    width = max(width, MIN_WIDTH)
    cols = _columns(table)
    if not cols:
        return [table]
    mins = [column_min_width(h, cells) for _, h, cells in cols]
    maxs = [column_max_width(h, cells) for _, h, cells in cols]
    if table_width(maxs) <= width:
        return [table]
    if [h for _, h, _ in cols] == ["field", "value"] and table_width(mins) > width:
        return [_field_value(table, cols, maxs, width)]
    n_rows = table.row_count
    n_keys = min(getattr(table, "key_columns", 0), len(cols) - 1)
    constant = [i for i in range(n_keys) if n_rows > 1 and len(set(cols[i][2])) == 1]
    keys = [i for i in range(n_keys) if i not in constant]
    values = list(range(n_keys, len(cols)))
    same = ", ".join(f"{cols[i][1]} {cols[i][2][0]}" for i in constant)
    if same:  # said once, in the title of the first part
        table = _retitled(table, f"{table.title}\n{same}" if table.title else same)
    key_mins = [mins[i] for i in keys]
    if table_width([*key_mins, max(mins[i] for i in values)]) > width:
        return transpose(table, width)
    groups: list[list[int]] = [[]]
    for i in values:
        if groups[-1] and table_width(key_mins + [mins[j] for j in groups[-1] + [i]]) > width:
            groups.append([])
        groups[-1].append(i)
    out = []
    for g, group in enumerate(groups):
        title = table.title if g == 0 else None
        if len(groups) > 1:
            part = f"(part {g + 1} of {len(groups)}, folded to {width} columns)"
            title = f"{table.title} {part}" if g == 0 and table.title else part
        which = keys + group
        widths = allot([mins[i] for i in which], [maxs[i] for i in which], width,
                       [column_max_width("", cols[i][2]) for i in which])  # fmt: skip
        t = _new_table(table, title)
        for i, w in zip(which, widths, strict=True):
            col, header, _ = cols[i]
            t.add_column(header_lines(header, w), justify=col.justify, overflow="fold", width=w)
        for r in range(n_rows):
            t.add_row(*(broken(cols[i][2][r], w) for i, w in zip(which, widths, strict=True)))
        out.append(t)
    return out


def _field_value(table: Table, cols, maxs: list[int], width: int) -> Table:
    """A field/value table whose longest phrase is wider than the terminal keeps its two
    columns (folded, or transposed, it read as one-letter columns): the names take at most
    half the width, breaking at underscores, and the value column the rest, a phrase wrapping
    at its spaces; a figure is never that wide."""
    name_w = max(1, min(maxs[0], (width - table_width([0, 0])) // 2))
    value_w = max(1, min(maxs[1], width - table_width([name_w, 0])))
    t = _new_table(table, table.title)
    t.add_column("field", justify="left", overflow="fold", width=name_w)
    t.add_column("value", justify=cols[1][0].justify, overflow="fold", width=value_w)
    for name, value in zip(cols[0][2], cols[1][2], strict=True):
        t.add_row(header_lines(name, name_w), broken(value, value_w))
    return t


def transpose(table: Table, width: int) -> list[Table]:
    """One column of field names, then one column per row of ``table`` (headed "row 1",
    "row 2", ...), as many rows side by side as fit in ``width`` (at least one)."""
    cols = _columns(table)
    names = [h for _, h, _ in cols]
    rows = [[c[r] for _, _, c in cols] for r in range(table.row_count)]
    name_min = max(column_min_width(n, []) for n in names)  # names break at underscores
    name_max = column_max_width("", names)
    mins = [column_min_width(f"row {r + 1}", cells) for r, cells in enumerate(rows)]
    maxs = [column_max_width(f"row {r + 1}", cells) for r, cells in enumerate(rows)]
    chunks: list[list[int]] = [[]]
    for r in range(len(rows)):
        if chunks[-1] and table_width([name_min] + [mins[j] for j in chunks[-1] + [r]]) > width:
            chunks.append([])
        chunks[-1].append(r)
    out = []
    for k, chunk in enumerate(chunks):
        t = _new_table(table, table.title if k == 0 else None)
        widths = allot([name_min] + [mins[r] for r in chunk], [name_max] + [maxs[r] for r in chunk],
                       width)  # fmt: skip
        t.add_column("field", justify="left", overflow="fold", width=widths[0])
        for r, w in zip(chunk, widths[1:], strict=True):
            t.add_column(f"row {r + 1}", justify="right", overflow="fold", width=w)
        for i, name in enumerate(names):
            cells = (broken(rows[r][i], w) for r, w in zip(chunk, widths[1:], strict=True))
            t.add_row(header_lines(name, widths[0]), *cells)
        out.append(t)
    return out


def layout(renderable, width: int) -> Iterator:
    """``renderable`` (a table, a Group of tables, anything else) with every table folded."""
    if isinstance(renderable, Table):
        yield from fold(renderable, width)
    elif isinstance(renderable, Group):
        for part in renderable.renderables:
            yield from layout(part, width)
    else:
        yield renderable
