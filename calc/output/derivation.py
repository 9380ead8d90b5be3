"""A reported figure with its formula and the numbers substituted (what ``--explain`` prints)."""

from __future__ import annotations

from dataclasses import dataclass, field


def fmt_number(x) -> str:
    """12,345 for whole numbers, 4 significant digits otherwise (for derivations only)."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e18):
        return f"{int(x):,}"
    if isinstance(x, float):
        return f"{x:,.4g}" if abs(x) >= 1e-3 else f"{x:.4g}"
    return str(x)


@dataclass(frozen=True)
class Figure:
    """``key`` = ``formula`` = ``substituted`` = ``value`` ``unit``."""

    key: str
    value: float
    unit: str
    formula: str
    substituted: str = ""
    # the operands at full precision, by the {name}s of the formula template (``figure``);
    # empty for prose figures built directly
    numbers: dict = field(default_factory=dict, compare=False, hash=False)
    template: str = field(default="", compare=False)

    def line(self) -> str:
        parts = [self.key, self.formula]
        if self.substituted and self.substituted != self.formula:
            parts.append(self.substituted)
        return " = ".join(parts) + f" = {fmt_number(self.value)} {self.unit}".rstrip()


def figure(key: str, value, unit: str, formula: str, **numbers) -> Figure:
    """Build a Figure whose substituted form is ``formula`` with each {name} replaced."""
    subs = {k: fmt_number(v) for k, v in numbers.items()}
    return Figure(
        key,
        value,
        unit,
        formula.format(**{k: k for k in numbers}),
        formula.format(**subs),
        numbers=dict(numbers),
        template=formula,
    )


def figures(*rows: tuple) -> list[Figure]:
    """One ``figure`` per declared row: (key, value, unit, formula, {name: operand})."""
    return [figure(key, value, unit, formula, **terms) for key, value, unit, formula, terms in rows]


def whole(x):
    """An int when ``x`` is a whole float (bytes of bf16 weights), else ``x`` unchanged."""
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x
