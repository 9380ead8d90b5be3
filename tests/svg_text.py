"""Reads the text of an SVG that matplotlib wrote with its text as glyph outlines (its default):
each text element's characters as drawn (decoded from the glyphs it uses, through the font's
own character map) and its extent on the page (from the glyph outlines and the transforms
around them). Test helper; needs matplotlib (for its fonts)."""

from __future__ import annotations

import functools
import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}href"
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_TRANSFORM = re.compile(r"(matrix|translate|scale|rotate)\s*\(([^)]*)\)")


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def overlap(self, other: Box) -> float:
        """Area both boxes cover [user units²]."""
        w = min(self.x1, other.x1) - max(self.x0, other.x0)
        h = min(self.y1, other.y1) - max(self.y0, other.y0)
        return w * h if w > 0 and h > 0 else 0.0

    def inside(self, other: Box, slack: float = 0.0) -> bool:
        return (
            self.x0 >= other.x0 - slack
            and self.y0 >= other.y0 - slack
            and self.x1 <= other.x1 + slack
            and self.y1 <= other.y1 + slack
        )


@dataclass(frozen=True)
class SvgText:
    gid: str  # the group's id (text_12)
    source: str  # the string matplotlib was given (its comment in the file)
    drawn: str  # the characters the glyphs draw, in order
    box: Box  # where the glyphs are on the page [SVG user units]
    parent: str  # the id of the nearest group above it with one (xtick_3, legend_1, ...)
    axes: str = ""  # the chart it belongs to (axes_1, ...); "" for figure text


def _matrix(text: str | None):
    """The affine matrix (a, b, c, d, e, f) of an SVG transform attribute."""
    m = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    for name, args in _TRANSFORM.findall(text or ""):
        v = [float(x) for x in _NUMBER.findall(args)]
        if name == "matrix":
            t = tuple(v)
        elif name == "translate":
            t = (1.0, 0.0, 0.0, 1.0, v[0], v[1] if len(v) > 1 else 0.0)
        elif name == "scale":
            t = (v[0], 0.0, 0.0, v[1] if len(v) > 1 else v[0], 0.0, 0.0)
        else:
            a = math.radians(v[0])
            t = (math.cos(a), math.sin(a), -math.sin(a), math.cos(a), 0.0, 0.0)
        m = _compose(m, t)
    return m


def _compose(m, t):
    """m then t applied inside it (SVG order: the outer transform first)."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = t
    return (
        a * a2 + c * b2,
        b * a2 + d * b2,
        a * c2 + c * d2,
        b * c2 + d * d2,
        a * e2 + c * f2 + e,
        b * e2 + d * f2 + f,
    )


def _apply(m, x, y):
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


@functools.cache
def _charmaps() -> dict[str, dict[int, str]]:
    """PostScript font name -> {glyph index: character} of matplotlib's bundled fonts."""
    import matplotlib
    from matplotlib.ft2font import FT2Font

    out = {}
    for path in (Path(matplotlib.get_data_path()) / "fonts" / "ttf").glob("*.ttf"):
        font = FT2Font(str(path))
        out[font.postscript_name] = {g: chr(c) for c, g in font.get_charmap().items()}
    return out


def _glyph_char(ref: str) -> str:
    """'DejaVuSans-2e' -> the character of glyph 0x2e in DejaVu Sans."""
    name, _, index = ref.rpartition("-")
    try:
        return _charmaps().get(name, {}).get(int(index, 16), "?")
    except ValueError:
        return "?"


def _path_points(d: str):
    nums = [float(x) for x in _NUMBER.findall(d)]
    return list(zip(nums[0::2], nums[1::2], strict=False))


def read(path: Path) -> tuple[Box, list[SvgText]]:
    """The page (the viewBox) and every text group of the SVG at ``path``."""
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    root = ET.parse(path, parser).getroot()
    vb = [float(x) for x in root.get("viewBox", "0 0 0 0").split()]
    page = Box(vb[0], vb[1], vb[0] + vb[2], vb[1] + vb[3])
    defs = {el.get("id"): el for el in root.iter() if el.get("id")}
    found: list[SvgText] = []

    def glyph_points(el, m):
        """Corners of the outline of ``el`` (a path or a use of one) under ``m``."""
        if el.tag == f"{SVG}use":
            ref = (el.get(XLINK) or "").lstrip("#")
            target = defs.get(ref)
            if target is None:
                return []
            m2 = _compose(m, _matrix(el.get("transform")))
            m2 = _compose(m2, (1, 0, 0, 1, float(el.get("x", 0)), float(el.get("y", 0))))
            return glyph_points(target, m2)
        if el.tag == f"{SVG}path":
            m2 = _compose(m, _matrix(el.get("transform")))
            return [_apply(m2, x, y) for x, y in _path_points(el.get("d", ""))]
        if el.tag == f"{SVG}rect":  # mathtext's rules (fraction bars)
            x, y = float(el.get("x", 0)), float(el.get("y", 0))
            w, h = float(el.get("width", 0)), float(el.get("height", 0))
            m2 = _compose(m, _matrix(el.get("transform")))
            return [_apply(m2, x, y), _apply(m2, x + w, y + h)]
        return []

    def text_of(group, m):
        chars, points = [], []

        def walk(el, m):
            for child in el:
                if child.tag == f"{SVG}defs" or not isinstance(child.tag, str):
                    continue
                if child.tag == f"{SVG}use":
                    chars.append(_glyph_char((child.get(XLINK) or "").lstrip("#")))
                    points.extend(glyph_points(child, m))
                elif child.tag in (f"{SVG}path", f"{SVG}rect"):
                    points.extend(glyph_points(child, m))
                elif child.tag == f"{SVG}g":
                    walk(child, _compose(m, _matrix(child.get("transform"))))

        walk(group, m)
        return "".join(chars), points

    def visit(el, m, parent, axes):
        for child in el:
            if not isinstance(child.tag, str):
                continue
            m2 = _compose(m, _matrix(child.get("transform")))
            gid = child.get("id") or ""
            if child.tag == f"{SVG}g" and gid.startswith("text_"):
                source = next((c.text.strip() for c in child if c.tag is ET.Comment and c.text), "")
                drawn, pts = text_of(child, m2)
                if pts:
                    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                    box = Box(min(xs), min(ys), max(xs), max(ys))
                    found.append(SvgText(gid, source, drawn, box, parent, axes))
                continue
            named = child.tag == f"{SVG}g" and gid
            visit(child, m2, gid if named else parent, gid if gid.startswith("axes_") else axes)

    visit(root, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), "", "")
    return page, found
