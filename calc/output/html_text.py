"""Makes text safe inside HTML and inline SVG [a string of markup-free text]: control characters
become visible escapes (``calc.output.safe_text.printable``), characters XML forbids are
replaced, and ``& < > " '`` become character references, so a name from a file can neither
add markup nor break the page."""

from __future__ import annotations

import html

from calc.output.safe_text import printable, xml_safe


def esc(text: object) -> str:
    """``text`` as HTML/SVG character data or an attribute value (newlines kept)."""
    return html.escape(xml_safe(printable(str(text), lines=True)), quote=True)
