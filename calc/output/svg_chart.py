"""Draws a chart as inline SVG text [a string of SVG 1.1 markup] for the HTML report: lines and
markers on linear or log axes, labelled ticks, horizontal and vertical reference lines, with no
script, font or image from outside the markup (the page's own sans-serif font draws the text).
Computes no quantity: it places the points it is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from calc.output.html_text import esc

WIDTH, HEIGHT = 760, 380  # viewBox [px]
LEFT, RIGHT, TOP, BOTTOM = 78, 18, 14, 52  # plot-area margins [px]
PALETTE = (
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22",
)  # fmt: skip
DASHES = {"solid": "", "dashed": "6 4", "dotted": "2 3"}


@dataclass(frozen=True)
class Series:
    """One curve: (x, y) points, drawn as a line with markers (``markers`` False: line only;
    ``line`` False: markers only)."""

    label: str
    points: list[tuple[float, float]]
    colour: str = ""  # "" : the palette's next colour
    dash: str = "solid"  # solid | dashed | dotted
    width: float = 1.8
    line: bool = True
    markers: bool = True
    opacity: float = 1.0


@dataclass(frozen=True)
class Rule:
    """A horizontal (``axis`` "y") or vertical ("x") reference line at ``value``."""

    label: str
    value: float
    axis: str = "y"
    colour: str = "#000000"


@dataclass(frozen=True)
class Chart:
    title: str
    x_label: str
    y_label: str
    series: list[Series]
    x_log: bool = False
    y_log: bool = False
    rules: list[Rule] = field(default_factory=list)
    note: str = ""  # a sentence under the chart
    x_fmt: object = None  # value -> tick text (default: ``number``)
    y_fmt: object = None


def number(v: float) -> str:
    """A tick value as people write it: 0.05, 2, 1,000, 25,000."""
    if v == 0:
        return "0"
    if abs(v) >= 1:
        return f"{v:,.0f}" if v == round(v) else f"{v:,.3g}"
    return f"{v:.3g}"


def seconds(v: float) -> str:
    """A time [s] as people read it: 850 ms, 1.2 s."""
    return f"{v * 1e3:.3g} ms" if v < 1 else f"{v:.3g} s"


def linear_ticks(lo: float, hi: float, most: int = 7) -> list[float]:
    """Round tick values (1, 2 or 5 × 10^k apart) from ``lo`` to ``hi``, at most ``most``."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, most - 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step - 1e-9) * step
    out, v = [], start
    while v <= hi + step * 1e-9:
        out.append(round(v, 12))
        v += step
    return out


def log_ticks(lo: float, hi: float) -> list[float]:
    """Powers of ten from ``lo`` to ``hi``, or 1-2-5 steps where fewer than three fall in."""
    if lo <= 0 or hi <= lo:
        return []
    decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
    inside = [10.0**e for e in decades if lo <= 10.0**e <= hi]
    if len(inside) >= 3:
        return inside
    out = [m * 10.0**e for e in decades for m in (1, 2, 5)]
    return [v for v in out if lo <= v * (1 + 1e-9) and v <= hi * (1 + 1e-9)]


def _range(values: list[float], log: bool) -> tuple[float, float]:
    vals = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
    if not vals:
        return (1.0, 10.0) if log else (0.0, 1.0)
    lo, hi = min(vals), max(vals)
    if log:
        if hi / lo < 1.5:
            return lo / 1.5, hi * 1.5
        return lo / 1.15, hi * 1.15
    if lo == hi:
        return (lo - 1, hi + 1) if lo else (0.0, 1.0)
    pad = (hi - lo) * 0.06
    return (0.0 if lo >= 0 and lo - pad < 0 else lo - pad), hi + pad


@dataclass(frozen=True)
class _Frame:
    """The plot area's axes: value ranges to SVG coordinates (log or linear)."""

    chart: Chart
    x0: float
    x1: float
    y0: float
    y1: float
    pw: float = WIDTH - LEFT - RIGHT
    ph: float = HEIGHT - TOP - BOTTOM

    def fx(self, x: float) -> float:
        if self.chart.x_log:
            t = (math.log10(x) - math.log10(self.x0)) / (math.log10(self.x1) - math.log10(self.x0))
        else:
            t = (x - self.x0) / (self.x1 - self.x0)
        return LEFT + t * self.pw

    def fy(self, y: float) -> float:
        if self.chart.y_log:
            t = (math.log10(y) - math.log10(self.y0)) / (math.log10(self.y1) - math.log10(self.y0))
        else:
            t = (y - self.y0) / (self.y1 - self.y0)
        return TOP + self.ph - t * self.ph


def render(chart: Chart, *, idx: int = 0) -> str:
    """The chart as one ``<figure>``: the SVG, its legend (as text beside colour swatches) and
    the note. ``idx`` makes the element ids unique within a page."""
    xs = [x for s in chart.series for x, _ in s.points]
    ys = [y for s in chart.series for _, y in s.points]
    xs += [r.value for r in chart.rules if r.axis == "x"]
    ys += [r.value for r in chart.rules if r.axis == "y"]
    f = _Frame(chart, *_range(xs, chart.x_log), *_range(ys, chart.y_log))
    out = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="chart{idx}-title" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="chart{idx}-title">{esc(chart.title)}</title>',
        f'<rect x="{LEFT}" y="{TOP}" width="{f.pw}" height="{f.ph}" class="frame"/>',
        *_axes(f),
    ]
    legend: list[str] = []
    out += _rules(f, legend)
    out += _series(f, legend)
    out.append("</svg>")
    caption = "".join(f"<li>{item}</li>" for item in legend)
    note = f'<p class="note">{esc(chart.note)}</p>' if chart.note else ""
    return (
        f'<figure class="chart"><figcaption>{esc(chart.title)}</figcaption>{"".join(out)}'
        f'<ul class="legend">{caption}</ul>{note}</figure>'
    )


def _axes(f: _Frame) -> list[str]:
    """The grid lines, the tick labels (an x label that would touch the one before left
    out) and the axis titles."""
    chart, pw, ph = f.chart, f.pw, f.ph
    x_fmt = chart.x_fmt or number
    y_fmt = chart.y_fmt or number
    out = []
    x_ticks = log_ticks(f.x0, f.x1) if chart.x_log else linear_ticks(f.x0, f.x1)
    y_ticks = log_ticks(f.y0, f.y1) if chart.y_log else linear_ticks(f.y0, f.y1)
    last_end = -1e9
    for v in x_ticks:
        x = f.fx(v)
        text = esc(x_fmt(v))
        half = 3.6 * len(text)
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + ph}" class="grid"/>')
        if x - half > last_end + 6:  # a label that would touch the one before is left out
            out.append(f'<text x="{x:.1f}" y="{TOP + ph + 16}" class="tick" '
                       f'text-anchor="middle">{text}</text>')  # fmt: skip
            last_end = x + half
    for v in y_ticks:
        y = f.fy(v)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + pw}" y2="{y:.1f}" class="grid"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" class="tick" '
                   f'text-anchor="end">{esc(y_fmt(v))}</text>')  # fmt: skip
    out.append(f'<text x="{LEFT + pw / 2:.1f}" y="{HEIGHT - 10}" class="axis" '
               f'text-anchor="middle">{esc(chart.x_label)}</text>')  # fmt: skip
    out.append(f'<text transform="translate(16 {TOP + ph / 2:.1f}) rotate(-90)" class="axis" '
               f'text-anchor="middle">{esc(chart.y_label)}</text>')  # fmt: skip
    return out


def _rules(f: _Frame, legend: list[str]) -> list[str]:
    """The dotted limit lines (an SLO, a budget), each named in ``legend``."""
    out = []
    for r in f.chart.rules:
        if r.axis == "y":
            y = f.fy(r.value)
            line = f'x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + f.pw}" y2="{y:.1f}"'
        else:
            x = f.fx(r.value)
            line = f'x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + f.ph}"'
        out.append(f'<line {line} stroke="{r.colour}" stroke-dasharray="2 3" '
                   'stroke-width="1.4"/>')  # fmt: skip
        legend.append(_swatch(r.colour, "dotted", 1.4) + esc(r.label))
    return out


def _series(f: _Frame, legend: list[str]) -> list[str]:
    """Each series as a polyline and/or markers, in the palette's colours unless its own,
    each named in ``legend``."""
    out = []
    n = 0
    for s in f.chart.series:
        colour = s.colour or PALETTE[n % len(PALETTE)]
        n += 0 if s.colour else 1
        pts = [(f.fx(x), f.fy(y)) for x, y in s.points if _drawable(x, y, f.chart)]
        attrs = f'stroke="{colour}" stroke-width="{s.width}" opacity="{s.opacity}"'
        if DASHES.get(s.dash):
            attrs += f' stroke-dasharray="{DASHES[s.dash]}"'
        if s.line and len(pts) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            out.append(f'<polyline points="{path}" fill="none" {attrs}/>')
        if s.markers:
            r = 2.8 if s.line else 4.5  # points alone: larger, with a white ring
            ring = "" if s.line else ' stroke="#000000" stroke-width="1.2"'
            out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{colour}"{ring}/>'
                    for x, y in pts]  # fmt: skip
        legend.append(_swatch(colour, s.dash, s.width) + esc(s.label))
    return out


def _drawable(x, y, chart: Chart) -> bool:
    if x is None or y is None or not (math.isfinite(x) and math.isfinite(y)):
        return False
    return (x > 0 or not chart.x_log) and (y > 0 or not chart.y_log)


def _swatch(colour: str, dash: str, width: float) -> str:
    dashes = f' stroke-dasharray="{DASHES[dash]}"' if DASHES.get(dash) else ""
    return (
        '<svg class="swatch" viewBox="0 0 24 8" xmlns="http://www.w3.org/2000/svg">'
        f'<line x1="0" y1="4" x2="24" y2="4" stroke="{colour}" stroke-width="{width + 0.6}"'
        f"{dashes}/></svg>"
    )
