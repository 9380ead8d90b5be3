"""Draws the data of ``calc.reports.plot_data``: a plain-text chart for the terminal (no
dependency) or
a PNG/SVG file through matplotlib (the optional ``plot`` extra, imported only here, lazily,
with the non-interactive Agg backend). No quantity is computed here.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

from calc.errors import InvalidInputError, MissingDependencyError
from calc.output.render import check_output_path, write_atomic
from calc.output.svg_chart import log_ticks

FILE_FORMATS = {".png": "png", ".svg": "svg"}
WIDTH = 100  # columns of a terminal chart, at most
PLOT_HEIGHT = 20  # rows of its plotting area
Y_LABEL = 10  # columns of its y-axis labels
GB = 1e9


# ---------------------------------------------------------------------------------------
# Number formats


def si(x: float, unit: str = "") -> str:
    """3 significant digits with an SI prefix: 2.68e9 -> '2.68 G'."""
    if x == 0:
        return f"0 {unit}".rstrip()
    for div, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g} {prefix}{unit}".rstrip()
    return f"{x:.3g} {unit}".rstrip()


def tokens(x: float) -> str:
    """Context lengths as people write them: 512, 8K, 128K, 1M (2^10 = K)."""
    x = int(x)
    if x >= 1 << 20 and x % (1 << 20) == 0:
        return f"{x >> 20}M"
    if x >= 1 << 10 and x % (1 << 10) == 0:
        return f"{x >> 10}K"
    return f"{x:,}"


# ---------------------------------------------------------------------------------------
# Terminal chart


@dataclass(frozen=True)
class Layer:
    """What the text chart draws: a polyline (``line``) or markers, with one character."""

    label: str
    char: str
    points: list[tuple[float, float]]
    line: bool = True


def _log(v: float) -> float:
    return math.log10(v)


class _Canvas:
    """A character grid ``width`` × ``height`` over log-log axes: ``col(x)``, ``row(y)``
    (0 the top row) and ``put`` (outside the grid: dropped)."""

    def __init__(self, x_range, y_range, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.lx0, self.lx1 = _log(x_range[0]), _log(x_range[1])
        self.ly0, self.ly1 = _log(y_range[0]), _log(y_range[1])
        self.grid = [[" "] * width for _ in range(height)]

    def col(self, x: float) -> int:
        return round((_log(x) - self.lx0) / (self.lx1 - self.lx0) * (self.width - 1))

    def row(self, y: float) -> int:
        return self.height - 1 - round((_log(y) - self.ly0) / (self.ly1 - self.ly0)
                                       * (self.height - 1))  # fmt: skip

    def put(self, r: int, c: int, ch: str) -> None:
        if 0 <= r < self.height and 0 <= c < self.width:
            self.grid[r][c] = ch


def text_chart(
    title: str,
    layers: list[Layer],
    *,
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    x_label: str,
    y_label: str,
    x_ticks: list[float],
    x_fmt=si,
    y_fmt=si,
    width: int = WIDTH,
    height: int = PLOT_HEIGHT,
) -> str:
    """A log-log chart drawn with characters, at most ``width`` columns: lines are sampled
    column by column (log interpolation, vertical gaps filled); markers are drawn last and
    may be labelled (``Layer.char`` of more than one character is written left to right)."""
    pw = width - Y_LABEL - 2
    canvas = _Canvas(x_range, y_range, pw, height)
    for layer in (lay for lay in layers if lay.line):
        _draw_line(canvas, layer)
    _draw_markers(canvas, [lay for lay in layers if not lay.line])
    # y labels at powers of ten (the nearest row), at most one per row
    labels: dict[int, str] = {}
    for e in range(math.ceil(canvas.ly0), math.floor(canvas.ly1) + 1):
        labels.setdefault(canvas.row(10.0**e), y_fmt(10.0**e))
    lines = [title, ""] if title else []
    lines.append(f"{y_label}")
    for r in range(height):
        lab = labels.get(r, "")
        lines.append(f"{lab:>{Y_LABEL}} |{''.join(canvas.grid[r])}".rstrip())
    lines.append(" " * Y_LABEL + " +" + "-" * pw)
    lines.append((" " * (Y_LABEL + 2) + _x_axis(canvas, x_ticks, x_fmt)).rstrip())
    lines.append(f"{x_label:>{min(width, Y_LABEL + 2 + pw)}}")
    legend = [f"  {lay.char * (3 if lay.line else 1)}  {lay.label}" for lay in layers if lay.label]
    return fit("\n".join([*lines, "", *legend]), width)


def _draw_line(canvas: _Canvas, layer: Layer) -> None:
    """A line through the layer's points, sampled column by column; a steep step fills
    the column between."""
    pts = [(x, y) for x, y in layer.points if x > 0 and y > 0]
    prev = None
    for (xa, ya), (xb, yb) in itertools.pairwise(pts):
        ca, cb = canvas.col(xa), canvas.col(xb)
        for c in range(ca, cb + 1):
            t = 0.0 if cb == ca else (c - ca) / (cb - ca)
            r = canvas.row(10 ** (_log(ya) + t * (_log(yb) - _log(ya))))
            if prev is not None and abs(r - prev) > 1:  # steep: fill the column
                step = 1 if r > prev else -1
                for rr in range(prev + step, r, step):
                    canvas.put(rr, c, layer.char)
            canvas.put(r, c, layer.char)
            prev = r


def _draw_markers(canvas: _Canvas, layers: list[Layer]) -> None:
    """The markers: one at a cell already holding a marker marks that one '+' (shared spot);
    one whose text would overlap another's moves right past it."""
    starts: dict[tuple[int, int], list[int]] = {}  # (row, col) -> [end col, shared]
    taken_cells: dict[tuple[int, int], tuple[int, int]] = {}
    for layer in layers:
        for x, y in layer.points:
            if x <= 0 or y <= 0:
                continue
            r, c = canvas.row(y), canvas.col(x)
            if (r, c) in starts:
                end, shared = starts[(r, c)]
                if not shared:
                    canvas.put(r, end, "+")
                    starts[(r, c)] = [end, 1]
                continue
            while any((r, c + i) in taken_cells for i in range(len(layer.char) + 1)):
                c += 1
            starts[(r, c)] = [c + len(layer.char), 0]
            for i, ch in enumerate(layer.char):
                canvas.put(r, c + i, ch)
                taken_cells[(r, c + i)] = (r, c)
            taken_cells[(r, c + len(layer.char))] = (r, c)  # room for a '+'


def _x_axis(canvas: _Canvas, x_ticks: list[float], x_fmt) -> str:
    """The x tick labels, centred on their columns, none overlapping the one before."""
    pw = canvas.width
    axis = [" "] * pw
    taken = -1
    for x in x_ticks:
        c = canvas.col(x)
        text = x_fmt(x)
        start = min(max(0, c - len(text) // 2), pw - len(text))
        if start <= taken:
            continue
        axis[start : start + len(text)] = list(text)
        taken = start + len(text)
    return "".join(axis)


def fit(text: str, width: int = WIDTH) -> str:
    """``text`` with every line longer than ``width`` wrapped (indented continuation)."""
    import textwrap

    out = []
    for line in text.splitlines():
        if len(line) <= width:
            out.append(line)
        else:
            out += textwrap.wrap(line, width, subsequent_indent="    ", break_on_hyphens=False)
    return "\n".join(out) + "\n"


def _decades(lo: float, hi: float) -> list[float]:
    return [10.0**e for e in range(math.ceil(_log(lo)), math.floor(_log(hi)) + 1)]


# ---------------------------------------------------------------------------------------
# Roofline


def roofline_text(d) -> str:
    """Terminal roofline: peak roofs (=), expected roofs (-), each op a key (d1 decode, p1
    prefill), then a table of the ops."""
    layers = []
    for i, c in enumerate(d.ceilings):
        peak_ch, exp_ch = ("=", "-") if i == 0 else ("#", ".")
        layers.append(
            Layer(
                f"{c.dtype} peak roofline: {si(c.peak_flops_per_s, 'FLOP/s')}, ridge "
                f"{c.ridge_point:,.0f} FLOP/B",
                peak_ch,
                d.roof(c),
            )
        )
        layers.append(
            Layer(
                f"{c.dtype} expected-efficiency roofline: {si(c.expected_flops_per_s, 'FLOP/s')},"
                f" {si(d.expected_bytes_per_s, 'B/s')}",
                exp_ch,
                d.roof(c, expected=True),
            )
        )
    # ops at the same place share one marker: the first key, with '+' for the others
    for p in d.points:
        layers.append(Layer("", p.key, [(p.arithmetic_intensity, p.flops_per_s)], line=False))
    title = (
        f"Roofline: {d.model} on {d.hardware} (compute {d.compute_dtype}); decode batch "
        f"{d.batch} at ctx {d.ctx:,} (d#), prefill {d.batch} × {d.prompt:,} tokens (p#)"
    )
    chart = text_chart(
        title,
        layers,
        x_range=d.x_range,
        y_range=d.y_range,
        x_label="arithmetic intensity [FLOP/byte], log scale",
        y_label="attained [FLOP/s], log",
        x_ticks=_decades(*d.x_range),
        x_fmt=lambda x: f"{x:g}",
    )
    kw = max(4, *(len(p.key) for p in d.points)) if d.points else 4
    rows = [f"{'key':<{kw}} {'op':<16} {'FLOP/byte':>10} {'attained':>14} {'time':>10}  bound"]
    for p in d.points:
        rows.append(
            f"{p.key:<{kw}} {p.phase[:3] + ' ' + p.name:<16.16} {p.arithmetic_intensity:>10,.1f} "
            f"{si(p.flops_per_s, 'FLOP/s'):>14} {p.time_s * 1e3:>8.3f}ms  {p.bound}"
        )
    tail = []
    if d.omitted:
        tail.append(f"not placed (no FLOPs or a collective): {', '.join(d.omitted)}")
    note = "d1+: several ops at one spot; a key may sit a few columns right of its op"
    models = list(dict.fromkeys((p.key.split(".")[0], p.model) for p in d.points if "." in p.key))
    if models:
        note += "\n  models: " + ", ".join(f"{k}.* = {m}" for k, m in models)
    return chart + f"  {note}\n\n" + fit("\n".join(rows + tail))


def _spot(p) -> tuple[int, int]:
    """Ops within 1/40 of a decade of each other in both axes share one label."""
    return round(_log(p.arithmetic_intensity) * 40), round(_log(p.flops_per_s) * 40)


def roofline_figure(d):
    """The roofline with the ops placed on it, the key table and the legend beside it."""
    plt = _pyplot()
    fig = plt.figure(figsize=(12.5, 6.8), dpi=110)
    grid = fig.add_gridspec(1, 2, width_ratios=(2.5, 1), wspace=0.02)
    ax, side = fig.add_subplot(grid[0]), fig.add_subplot(grid[1])
    _roofs(ax, d)
    keys: list[str] = []
    labels: list = []  # annotations to place once the layout is final
    kw = max([4] + [len(p.key) + 1 for p in d.points])  # A.d1 keys of several models: 5
    for phase, marker, colour in (("decode", "o", "tab:orange"), ("prefill", "s", "tab:green")):
        pts = [p for p in d.points if p.phase == phase]
        if pts:
            labels += _ops(ax, d, phase, pts, marker, colour)
            keys += [
                f"{p.key:<{kw}}{p.name:<15.15}{p.arithmetic_intensity:>8,.1f}"
                f"{si(p.flops_per_s):>8}  {p.bound}"
                for p in pts
            ]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*d.x_range)
    ax.set_ylim(*d.y_range)
    number_ticks(ax.xaxis, *d.x_range, _number)
    number_ticks(ax.yaxis, *d.y_range, lambda v: si(v))
    ax.set_xlabel("arithmetic intensity [FLOP/byte]")
    ax.set_ylabel("attained performance [FLOP/s] (at the expected efficiency)")
    ax.set_title(plain(f"Roofline: {d.model} on {d.hardware} (compute {d.compute_dtype}), per GPU"))
    ax.grid(True, which="major", alpha=0.3)
    side.axis("off")
    head = f"{'key':<{kw}}{'op':<15}{'FLOP/B':>8}{'FLOP/s':>8}  bound"
    table = side.text(
        0.02,
        0.98,
        plain("\n".join([head, *keys])),
        family="monospace",
        fontsize=7.2 if len(keys) > 20 else 8,
        va="top",
        transform=side.transAxes,
    )
    handles, names = ax.get_legend_handles_labels()
    legend = side.legend(handles, names, fontsize=7.5, loc="lower left", frameon=False)
    fig.subplots_adjust(left=0.08, right=0.99, top=0.93, bottom=0.09)
    _shrink_to_fit(fig, [table, legend], side)
    place_labels(fig, ax, labels)
    return fig


def _roofs(ax, d) -> None:
    """Each compute dtype's roof at peak (solid) and at the expected efficiency (dashed)."""
    colours = ("tab:blue", "tab:purple")
    for c, colour in zip(d.ceilings, colours, strict=False):
        xs, ys = zip(*d.roof(c), strict=True)
        label = (
            f"{c.dtype} peak: {si(c.peak_flops_per_s)}FLOP/s, {si(d.bytes_per_s)}B/s "
            f"(ridge {c.ridge_point:,.0f} FLOP/B)"
        )
        ax.plot(xs, ys, color=colour, lw=2.2, label=plain(label))
        xs, ys = zip(*d.roof(c, expected=True), strict=True)
        label = (
            f"{c.dtype} expected efficiency: {si(c.expected_flops_per_s)}FLOP/s, "
            f"{si(d.expected_bytes_per_s)}B/s"
        )
        ax.plot(xs, ys, color=colour, lw=1.5, ls="--", label=plain(label))


def _ops(ax, d, phase: str, pts: list, marker: str, colour: str) -> list:
    """One phase's ops on the roofline, with a key label per spot (ops sharing a spot share
    it); the labels, for ``place_labels``."""
    where = f"batch {d.batch}, ctx {d.ctx:,}" if phase == "decode" else (
        f"batch {d.batch} × {d.prompt:,} tokens"
    )  # fmt: skip
    ax.scatter(
        [p.arithmetic_intensity for p in pts],
        [p.flops_per_s for p in pts],
        marker=marker,
        s=46 if phase == "decode" else 80,  # decode on top where both share a spot
        color=colour,
        edgecolor="black",
        zorder=4 if phase == "decode" else 3,
        label=f"{phase} ops ({where})",
    )
    spots: dict[tuple[int, int], list] = {}
    for p in pts:
        spots.setdefault(_spot(p), []).append(p)
    labels = []
    for group in sorted(spots.values(), key=lambda g: g[0].arithmetic_intensity):
        p = group[0]
        ann = ax.annotate(
            plain("+".join(q.key for q in group)),
            (p.arithmetic_intensity, p.flops_per_s),
            textcoords="offset points",
            xytext=(7, -11) if phase == "decode" else (0, 8),
            ha="center",
            va="center",
            fontsize=8,
            color=colour,
            fontweight="bold",
            zorder=6,
        )
        ann.set_in_layout(False)
        labels.append(ann)
    return labels


def _number(v: float) -> str:
    """A tick value as people write it: 0.1, 1, 10, 1,000."""
    return f"{v:,.0f}" if v >= 1 else f"{v:g}"


def number_ticks(axis, lo: float, hi: float, fmt) -> None:
    """Label a log axis with plain numbers (``fmt``) at ``log_ticks``; no minor labels."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

    ticks = log_ticks(lo, hi)
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: plain(fmt(v))))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def _renderer(fig):
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _shrink_to_fit(fig, artists, ax) -> None:
    """Make ``artists`` (text, a legend) fit inside ``ax``'s box: smaller type, down to 5 pt."""
    for _ in range(8):
        r = _renderer(fig)
        box = ax.get_window_extent(r)
        out = [a for a in artists if not _inside(a.get_window_extent(r), box)]
        if not out:
            return
        for a in out:
            texts = a.get_texts() if hasattr(a, "get_texts") else [a]
            for t in texts:
                t.set_fontsize(max(5.0, t.get_fontsize() * 0.9))


def _inside(inner, outer, slack: float = 0.5) -> bool:
    return (
        inner.x0 >= outer.x0 - slack
        and inner.x1 <= outer.x1 + slack
        and inner.y0 >= outer.y0 - slack
        and inner.y1 <= outer.y1 + slack
    )


# where a point's label goes, tried in turn: (dx, dy) [points] from the point, and the side
# of the label that touches it: right, left, above, below, the diagonals, then farther out
LABEL_SPOTS = [
    (dx * k, dy * k, ha, va)
    for k in (1, 2, 3, 4)
    for dx, dy, ha, va in (
        (6, 0, "left", "center"),
        (-6, 0, "right", "center"),
        (0, 6, "center", "bottom"),
        (0, -6, "center", "top"),
        (5, 5, "left", "bottom"),
        (-5, -5, "right", "top"),
        (-5, 5, "right", "bottom"),
        (5, -5, "left", "top"),
    )
]


def place_labels(fig, ax, labels, marker_pt: float = 5.0) -> None:
    """Move each point label (an annotation in offset points) to the first spot at which it
    overlaps no marker, no label placed before, no tick label and no legend, and stays inside
    the axes; a label that finds no such spot keeps the least-overlapping one."""
    if not labels:
        return
    from matplotlib.transforms import Bbox

    r = _renderer(fig)
    box = ax.get_window_extent(r)
    fixed = [t.get_window_extent(r) for t in ax.get_xticklabels() + ax.get_yticklabels()
             if t.get_text()]  # fmt: skip
    legend = ax.get_legend()
    if legend is not None:
        fixed.append(legend.get_window_extent(r))
    px = marker_pt * fig.dpi / 72
    for ann in labels:  # the markers: a box around each labelled point
        x, y = ax.transData.transform(ann.xy)
        fixed.append(Bbox.from_extents(x - px, y - px, x + px, y + px))
    placed = []
    for ann in labels:
        best, best_cost = None, math.inf
        for dx, dy, ha, va in LABEL_SPOTS:
            ann.xyann = (dx, dy)
            ann.set_horizontalalignment(ha)
            ann.set_verticalalignment(va)
            bb = ann.get_window_extent(r)
            cost = sum(_overlap(bb, o) for o in fixed + placed)
            if not _inside(bb, box):
                cost += 1e6
            if cost < best_cost:
                best, best_cost = (dx, dy, ha, va), cost
            if cost == 0:
                break
        dx, dy, ha, va = best
        ann.xyann = (dx, dy)
        ann.set_horizontalalignment(ha)
        ann.set_verticalalignment(va)
        placed.append(ann.get_window_extent(r))


def _overlap(a, b) -> float:
    """Area [px²] two boxes share (0: apart)."""
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def _wrap_to_width(fig, text, width_px: float) -> None:
    """Wrap a text artist at spaces until it is at most ``width_px`` wide."""
    import textwrap

    paragraphs = text.get_text().split("\n")
    r = _renderer(fig)
    n = max(len(p) for p in paragraphs)
    while text.get_window_extent(r).width > width_px and n > 20:
        n = int(n * 0.9)
        lines = [x for p in paragraphs for x in textwrap.wrap(p, n, break_on_hyphens=False)]
        text.set_text("\n".join(lines))


def thin_tick_labels(fig, ax) -> None:
    """Blank the tick labels that would touch the one before them (the last label is kept
    and its neighbour blanked instead): 128K and 160K side by side on a context axis."""
    r = _renderer(fig)
    for axis in (ax.xaxis, ax.yaxis):
        ticks = [t for t in axis.get_major_ticks() if t.label1.get_visible()]
        labels = [t.label1 for t in ticks if t.label1.get_text()]
        if len(labels) < 2:
            continue
        boxes = [x.get_window_extent(r).expanded(1.15, 1.15) for x in labels]
        key = (lambda b: b.x0) if axis is ax.xaxis else (lambda b: b.y0)
        order = sorted(range(len(labels)), key=lambda i: key(boxes[i]))
        kept = [order[0]]
        for i in order[1:]:
            if _overlap(boxes[kept[-1]], boxes[i]) > 0:
                if i == order[-1] and len(kept) > 1:  # keep the last; drop the one before
                    labels[kept.pop()].set_visible(False)
                else:
                    labels[i].set_visible(False)
                    continue
            kept.append(i)


def finish(fig, *, footnote: str = "", title=None) -> None:
    """Lay ``fig`` out so nothing is cut: the title (``title``, a text artist) and the
    footnote wrapped to the figure's width, the axes shrunk to leave the footnote its room,
    tick labels that would touch thinned out."""
    width = fig.get_figwidth() * fig.dpi * 0.97
    if title is not None:
        _wrap_to_width(fig, title, width)
    note_top = 0.0
    if footnote:
        note = fig.text(0.01, 0.01, plain(footnote), fontsize=7.5, va="bottom", ha="left")
        _wrap_to_width(fig, note, width)
        r = _renderer(fig)
        note_top = note.get_window_extent(r).y1 / (fig.get_figheight() * fig.dpi) + 0.01
    fig.tight_layout(rect=(0, note_top, 1, 1))
    for ax in fig.axes:
        thin_tick_labels(fig, ax)


# ---------------------------------------------------------------------------------------
# Memory


MARKS = "MGQLOABCDE"


def _series_char(s, i: int) -> str:
    if s.mark:  # one series per model: A, B, C, ...
        return s.mark
    return {"mha": "H", "gqa": "G", "mqa": "Q", "mla": "L"}.get(s.kind, MARKS[i % len(MARKS)])


def memory_text(d) -> str:
    """Terminal chart of KV bytes (GB) vs ctx per attention kind, budget line '~', then the
    numbers at a few contexts."""
    layers = _series_layers(d.series)
    ys = [y for s in d.series for _, y in s.points]
    if d.kv_budget_bytes is not None and d.kv_budget_bytes > 0:
        layers.insert(
            0,
            Layer(
                f"{d.gpus} × {d.hardware} memory − weights = {d.kv_budget_bytes / GB:,.1f} GB "
                f"(weights {d.weights_bytes / GB:,.1f} GB)",
                "~",
                [(d.ctxs[0], d.kv_budget_bytes), (d.ctxs[-1], d.kv_budget_bytes)],
            ),
        )
        ys.append(d.kv_budget_bytes)
    y_range = (10 ** math.floor(_log(min(ys))), 10 ** math.ceil(_log(max(ys))))
    title = f"KV cache vs context: {d.model}, batch {d.batch}, KV dtype {d.kv_dtype}"
    chart = _ctx_chart(
        title, layers, d.ctxs, y_range, "KV cache [GB = 10^9 B], log", lambda y: f"{y / GB:g}"
    )
    if d.kv_budget_bytes is not None and d.kv_budget_bytes <= 0:
        chart += (
            f"  (no budget line: weights {d.weights_bytes / GB:,.1f} GB exceed {d.gpus} × "
            f"{d.hardware} memory {d.memory_capacity_bytes / GB:,.1f} GB)\n"
        )
    chart += f"  {_what_if_note(d.series)}\n"
    return chart + "\n" + _table(d.series, d.ctxs, "KV cache [GB]", lambda y: f"{y / GB:,.3f}")


def _what_if_note(series) -> str:
    if any(s.mark for s in series):
        return "one line per model, each its own attention layout (what-ifs: plot one model)"
    return "what-ifs keep the model's layers, head widths and windows; * = the model's own"


def _series_layers(series) -> list[Layer]:
    """One chart layer per attention kind; the model's own line (*) drawn last, on top."""
    layers = [
        Layer(s.label, "*" if s.own else _series_char(s, i), s.points) for i, s in enumerate(series)
    ]
    layers.sort(key=lambda lay: lay.char == "*")
    return layers


def _ctx_chart(title: str, layers, ctxs, y_range, y_label: str, y_fmt) -> str:
    """A text chart against context on a log axis from ctxs[0] to ctxs[-1] [tokens]."""
    return text_chart(
        title,
        layers,
        x_range=(ctxs[0], ctxs[-1]),
        y_range=y_range,
        x_label="context [tokens], log scale",
        y_label=y_label,
        x_ticks=ctxs,
        x_fmt=tokens,
        y_fmt=y_fmt,
    )


def _table(series, ctxs, what: str, fmt) -> str:
    picks = _pick(ctxs, 6)
    names = [s.label.split(" (")[0] for s in series]
    w = min(40, max([28] + [len(n) + 3 for n in names]))  # a model name: up to 40 columns
    head = f"{what:<{w}.{w}}" + "".join(f"{tokens(c):>12}" for c in picks)
    rows = [head]
    for i, (s, name) in enumerate(zip(series, names, strict=True)):
        values = dict(s.points)
        mark = "*" if s.own else _series_char(s, i)
        cells = "".join(f"{fmt(values[c]) if c in values else '-':>12}" for c in picks)
        rows.append(f"{mark + ' ' + name:<{w}.{w}}{cells}")
    return "\n".join(rows) + "\n"


def _pick(ctxs: list[int], n: int) -> list[int]:
    if len(ctxs) <= n:
        return list(ctxs)
    step = math.ceil((len(ctxs) - 1) / (n - 1))
    picks = ctxs[::step]
    return picks if picks[-1] == ctxs[-1] else [*picks, ctxs[-1]]


def _xy_figure(d, series, *, ylabel: str, yscale: float, title: str, budget=None, zero_note=""):
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, 6.2), dpi=110)
    styles = {"mha": "tab:red", "gqa": "tab:blue", "mqa": "tab:green", "mla": "tab:purple"}
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", [None])
    for i, s in enumerate(series):
        pts = [(x, y) for x, y in s.points if y > 0]
        if not pts:
            continue
        xs, ys = zip(*pts, strict=True)
        ax.plot(
            xs,
            [y / yscale for y in ys],
            marker="o",
            ms=3.5,
            lw=2.6 if s.own or s.mark else 1.6,
            color=cycle[i % len(cycle)] if s.mark else styles.get(s.kind),
            ls="-" if s.own or s.mark else (0, (4, 1.5)),
            label=plain(s.label),
        )
    if budget is not None:
        value, label = budget
        ax.axhline(value / yscale, color="black", lw=1.4, ls=":", label=plain(label))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(d.ctxs[0] / 1.15, d.ctxs[-1] * 1.15)
    ticks = _pick(d.ctxs, 9)
    ax.set_xticks(ticks)
    ax.set_xticklabels([tokens(t) for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("context [tokens per sequence]")
    ax.set_ylabel(ylabel)
    heading = ax.set_title(plain(title), fontsize=11)
    ax.grid(True, which="major", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    ys = [y / yscale for s in series for _, y in s.points if y > 0]
    if budget is not None:
        ys.append(budget[0] / yscale)
    lo, hi = (min(ys) / 1.6, max(ys) * 1.6) if ys else (0.7, 10)  # nothing positive: 0.7..10
    ax.set_ylim(lo, hi)
    number_ticks(ax.yaxis, lo, hi, _number)
    finish(fig, footnote=zero_note, title=heading)
    return fig


def memory_figure(d):
    budget = None
    if d.kv_budget_bytes is not None and d.kv_budget_bytes > 0:
        budget = (
            d.kv_budget_bytes,
            f"{d.gpus} × {d.hardware} memory − weights ({d.kv_budget_bytes / GB:,.1f} GB)",
        )
    return _xy_figure(
        d,
        d.series,
        ylabel="KV cache [GB = 10^9 bytes]",
        yscale=GB,
        title=f"KV cache vs context: {d.model}, batch {d.batch}, KV {d.kv_dtype}",
        budget=budget,
    )


# ---------------------------------------------------------------------------------------
# Capacity


def _capacity_title(d) -> str:
    gpus = f"tp {d.tp} × {d.hardware}" if d.tp > 1 else d.hardware
    return f"Max concurrency vs context: {d.model} on {gpus}, {d.engine}, mem-util {d.mem_util:g}"


def _capacity_note(d) -> str:
    if d.per_model:
        each = "; ".join(
            f"{m} {budget / GB:,.2f} GB after weights {weights / GB:,.2f} GB"
            for m, weights, budget in d.per_model
        )
        return (
            f"per GPU KV budget: {each} (GB = 10^9 B); engine reserve taken; KV {d.kv_dtype}, "
            "16-token pages"
        )
    return (
        f"per GPU: KV budget {d.kv_budget_bytes / GB:,.2f} GB after weights "
        f"{d.weights_bytes_per_gpu / GB:,.2f} GB and the engine's reserve (GB = 10^9 B); "
        f"KV {d.kv_dtype}, 16-token pages"
    )


def _zero_note(series) -> str:
    """Where a series falls to 0 (not one sequence fits): a log axis cannot show it."""
    notes = []
    for s in series:
        zero = [x for x, y in s.points if y <= 0]
        if zero:
            notes.append(f"{s.label.split(' (')[0]}: 0 from ctx {tokens(zero[0])}")
    return ("not one sequence fits: " + "; ".join(notes)) if notes else ""


def capacity_text(d) -> str:
    """Terminal chart of max concurrent sequences vs ctx per attention kind, then the numbers."""
    layers = _series_layers(d.series)
    ys = [y for s in d.series for _, y in s.points if y > 0]
    parts = [_capacity_title(d)]
    if ys:
        y_range = (10 ** math.floor(_log(min(ys))), 10 ** math.ceil(_log(max(ys) * 1.01)))
        parts.append(
            _ctx_chart(
                "", layers, d.ctxs, y_range, "max concurrent sequences, log", lambda y: f"{y:,.0f}"
            ).rstrip("\n")
        )
    for note in (_capacity_note(d), _zero_note(d.series)):
        if note:
            parts.append(f"  {note}")
    parts.append(f"  {_what_if_note(d.series)}")
    table = _table(d.series, d.ctxs, "sequences", lambda y: f"{y:,}")
    return fit("\n".join(parts)) + "\n" + table


def capacity_figure(d):
    return _xy_figure(
        d,
        d.series,
        ylabel="max concurrent sequences (paged KV)",
        yscale=1,
        title=_capacity_title(d),
        zero_note="\n".join(n for n in (_capacity_note(d), _zero_note(d.series)) if n),
    )


# ---------------------------------------------------------------------------------------
# Files


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:
        raise MissingDependencyError("matplotlib", "plot") from exc
    matplotlib.use("Agg", force=True)
    # Reproducible and inert: matplotlib's own defaults, not a matplotlibrc found in the
    # working directory (or the user's), and no external program (LaTeX, dvipng, Ghostscript).
    # Mathtext stays on (matplotlib's log tick formatter writes its labels in it); text taken
    # from files goes through ``plain`` instead, so a name cannot turn into mathtext.
    matplotlib.rcdefaults()
    matplotlib.rcParams.update(
        {"text.usetex": False, "ps.usedistiller": None, "svg.hashsalt": "kvcalc"}
    )
    import matplotlib.pyplot as plt

    return plt


def plain(text: str) -> str:
    """``text`` shown as written by matplotlib: every ``$`` escaped, so that a name or label
    from a file (``a$b$``) is never parsed as mathtext (the only character that starts it)."""
    return str(text).replace("$", r"\$")


def file_format(path: Path) -> str:
    """'png' or 'svg' from the extension of ``path``; anything else is refused."""
    fmt = FILE_FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise InvalidInputError(
            f"--output {path}: unsupported extension {Path(path).suffix or '(none)'!r}; "
            "use .png or .svg (or leave --output out for a terminal chart)"
        )
    return fmt


def check_output(path: Path) -> str:
    """Refuse what cannot be written before drawing: the format and the folder."""
    fmt = file_format(path)
    check_output_path(path)
    return fmt


def save_atomic(fig, path: Path) -> None:
    """Write ``fig`` to ``path`` atomically (render.write_atomic): the file is whole or
    absent, and an existing file is untouched on error."""
    plt = _pyplot()
    fmt = check_output(path)
    try:
        if fmt == "svg":  # names from files may hold characters XML forbids
            import io

            from calc.output.safe_text import xml_safe

            buf = io.StringIO()
            fig.savefig(buf, format=fmt, metadata=_metadata(fmt))
            write_atomic(path, xml_safe(buf.getvalue()))
        else:
            write_atomic(path, lambda fh: fig.savefig(fh, format=fmt, metadata=_metadata(fmt)))
    finally:
        plt.close(fig)


def _metadata(fmt: str) -> dict:
    # reproducible files: no creation date, the tool named
    if fmt == "svg":
        return {"Date": None, "Creator": "kvcalc"}
    return {"Software": "kvcalc"}


# ---------------------------------------------------------------------------------------
# Latency vs request rate (kvcalc simulate --sweep-rate)


@dataclass(frozen=True)
class RateSeries:
    """One latency percentile against the request rate: (rate [requests/s], latency [s])."""

    metric: str  # TTFT or TPOT
    pct: str  # p50, p90, p99
    points: list[tuple[float, float]]


RATE_MARKS = {"p50": "o", "p90": "+", "p99": "#"}


def latency_rate_text(title: str, series: list[RateSeries], rows: list[dict], slos: dict) -> str:
    """Two terminal charts (TTFT, TPOT) of the percentiles vs rate (log-log), then the rows
    (with the ITL p99 beside TPOT: a prefill stalling the decodes shows there)."""
    parts = [title, ""]
    rates = sorted({x for s in series for x, _ in s.points})
    for metric in ("TTFT", "TPOT"):
        mine = [s for s in series if s.metric == metric]
        ys = [y for s in mine for _, y in s.points if y and y > 0]
        if not ys or len(rates) < 2:
            continue
        layers = [Layer(f"{metric} {s.pct}", RATE_MARKS.get(s.pct, "*"), s.points) for s in mine]
        slo = slos.get(metric)
        if slo:
            layers.insert(
                0, Layer(f"{metric} SLO {slo:g} s", "~", [(rates[0], slo), (rates[-1], slo)])
            )
            ys.append(slo)
        lo, hi = min(ys), max(ys)
        y_range = (10 ** math.floor(_log(lo)), 10 ** math.ceil(_log(hi * 1.001)))
        parts.append(
            text_chart(
                "",
                layers,
                x_range=(rates[0], rates[-1]),
                y_range=y_range,
                x_label="request rate [requests/s], log scale",
                y_label=f"{metric} [s], log",
                x_ticks=_pick(rates, 8),
                x_fmt=lambda x: f"{x:g}",
                y_fmt=lambda y: f"{y:g}",
                height=12,
            ).rstrip("\n")
        )
        parts.append("")
    head = (
        f"{'rate/s':>8}"
        + "".join(
            f"{h:>10}"
            for h in ("TTFT p50", "p90", "p99", "TPOT p50", "p90", "p99", "ITL p99", "served/s")
        )
        + "  saturated"
    )
    lines = [head]
    for r in rows:
        cells = [r.get(k) for k in ("ttft_p50_s", "ttft_p90_s", "ttft_p99_s", "tpot_p50_s",
                                    "tpot_p90_s", "tpot_p99_s", "itl_p99_s")]  # fmt: skip
        text = "".join(f"{_sec(c):>10}" for c in cells)
        lines.append(
            f"{r['rate_per_s']:>8g}{text}{r['served_requests_per_s']:>10.3g}  "
            f"{'yes' if r['saturated'] else 'no'}"
        )
    return fit("\n".join(parts)) + "\n".join(lines) + "\n"


def _sec(v) -> str:
    if v is None:
        return "-"
    if v < 1:
        return f"{v * 1e3:.3g} ms"
    return f"{v:.3g} s"


def latency_rate_figure(title: str, series: list[RateSeries], slos: dict, saturated: list[float]):
    """TTFT and TPOT percentiles vs request rate, side by side (log latency axis)."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.2), dpi=110)
    colors = {"p50": "tab:blue", "p90": "tab:orange", "p99": "tab:red"}
    for ax, metric in zip(axes, ("TTFT", "TPOT"), strict=True):
        ys = []
        for s in (s for s in series if s.metric == metric):
            pts = [(x, y) for x, y in s.points if y is not None and y > 0]
            if not pts:
                continue
            xs, y = zip(*pts, strict=True)
            ys += y
            ax.plot(xs, y, marker="o", ms=3.5, lw=1.8, color=colors.get(s.pct), label=s.pct)
        slo = slos.get(metric)
        if slo:
            ax.axhline(slo, color="black", lw=1.2, ls=":", label=f"SLO {_sec(slo)}")
            ys.append(slo)
        if saturated:
            ax.axvspan(saturated[0], max(saturated), color="tab:red", alpha=0.08,
                       label="saturated")  # fmt: skip
        ax.set_yscale("log")
        if ys:
            lo, hi = min(ys) / 1.4, max(ys) * 1.4
            ax.set_ylim(lo, hi)
            number_ticks(ax.yaxis, lo, hi, _sec)
        ax.set_xlabel("request rate [requests/s]")
        ax.set_ylabel(f"{metric} [log scale]")
        ax.set_title(metric, fontsize=11)
        ax.grid(True, which="major", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    heading = fig.suptitle(plain(title), fontsize=11)
    finish(fig, title=heading)
    return fig


# ---------------------------------------------------------------------------------------
# Throughput per GPU against tokens/s per user (kvcalc plot frontier)


def _frontier_title(d) -> str:
    return (
        f"Throughput vs interactivity: {d.model} on {d.hardware}, {d.weight_dtype}/{d.kv_dtype}, "
        f"{d.engine}, requests of {d.prompt:,} + {d.gen:,} tokens"
    )


FRONTIER_NOTE = (
    "each point one concurrency (sequences per replica: 1, 2, 4, ... up to the engine's own); "
    "steady state, prefill charged; tokens/s per user = gen / cycle (a request's output rate "
    "over its life)"
)


def frontier_text(d) -> str:
    """Terminal chart of output tokens/s per GPU vs per user, a line per layout, the Pareto
    frontier marked, then its points."""
    marks = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def xy(points):
        return [
            (p.serving_output_tokens_per_s_per_user, p.serving_output_tokens_per_s_per_gpu)
            for p in points
        ]

    layers = [Layer("Pareto frontier (no layout beats it on both axes)", ".", xy(d.frontier))]
    layers += [
        Layer(label, marks[i % len(marks)], xy(pts), line=False)
        for i, (_, label, pts) in enumerate(d.curves)
    ]
    parts = [_frontier_title(d)]
    xs = [x for lay in layers for x, _ in lay.points]
    ys = [y for lay in layers for _, y in lay.points]
    if xs:
        x_range = (min(xs) / 1.2, max(xs) * 1.2)
        y_range = (10 ** math.floor(_log(min(ys))), 10 ** math.ceil(_log(max(ys) * 1.001)))
        parts.append(
            text_chart(
                "",
                layers,
                x_range=x_range,
                y_range=y_range,
                x_label="output tokens/s per user, log scale",
                y_label="output tokens/s per GPU, log",
                x_ticks=log_ticks(*x_range),
                x_fmt=_number,
                y_fmt=_number,
            ).rstrip("\n")
        )
    parts.append(f"  {FRONTIER_NOTE}")
    parts += [f"  left out: {x}" for x in d.skipped]
    rows = [f"{'frontier point':<28}{'concurrency':>12}{'tok/s/user':>12}{'tok/s/GPU':>12}"]
    for p in d.frontier:
        rows.append(
            f"{p.series:<28.28}{p.concurrency:>12,}{p.serving_output_tokens_per_s_per_user:>12,.1f}"
            f"{p.serving_output_tokens_per_s_per_gpu:>12,.1f}"
        )
    return fit("\n".join(parts)) + "\n" + "\n".join(rows) + "\n"


def frontier_figure(d):
    """Output tokens/s per GPU vs per user on log axes, a line per layout, the frontier bold."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, 6.2), dpi=110)
    xs, ys = [], []
    for _, label, pts in d.curves:
        x = [p.serving_output_tokens_per_s_per_user for p in pts]
        y = [p.serving_output_tokens_per_s_per_gpu for p in pts]
        xs += x
        ys += y
        ax.plot(x, y, marker="o", ms=3.5, lw=1.4, label=plain(label))
    if d.frontier:
        ax.plot(
            [p.serving_output_tokens_per_s_per_user for p in d.frontier],
            [p.serving_output_tokens_per_s_per_gpu for p in d.frontier],
            color="black", lw=2.6, alpha=0.35, zorder=1, label="Pareto frontier",
        )  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    if xs:
        x_lo, x_hi = min(xs) / 1.3, max(xs) * 1.3
        y_lo, y_hi = min(ys) / 1.5, max(ys) * 1.5
        ax.set_xlim(x_lo, x_hi)
        ax.set_ylim(y_lo, y_hi)
        number_ticks(ax.xaxis, x_lo, x_hi, _number)
        number_ticks(ax.yaxis, y_lo, y_hi, _number)
    ax.set_xlabel("output tokens/s per user (interactivity)")
    ax.set_ylabel("output tokens/s per GPU (throughput)")
    heading = ax.set_title(plain(_frontier_title(d)), fontsize=11)
    ax.grid(True, which="major", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    note = FRONTIER_NOTE + "".join(f"; left out: {x}" for x in d.skipped)
    finish(fig, footnote=note, title=heading)
    return fig
