"""Evaluate the arithmetic of an ``--explain`` formula (``calc.output.derivation.Figure``) from its
full-precision operands, safely (a whitelist over ``ast``, never ``eval``)."""

from __future__ import annotations

import ast
import math
import operator
import re

_SYMBOLS = {"×": "*", "·": "*", "−": "-", "–": "-", "÷": "/", "^": "**"}
_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}
_FUNCS = {"floor": math.floor, "ceil": math.ceil, "min": min, "max": max}


class Prose(ValueError):
    """The formula is not (only) arithmetic over its operands."""


# unit words a formula may write after an operand ("{flops} FLOP / {rate} FLOP/s")
_UNIT = r"(?:FLOP/s|B/s|FLOP|bytes|B|s|keys|pairs|tokens|params|sequences|experts|router|biases)"


def to_python(template: str) -> str:
    """The template in Python syntax, each {name} as the bare name.

    Only the arithmetic is kept: of "a = b = c" the last part; words in parentheses that hold
    no operand or number ("(scores)", "(matmul efficiency, expected)") are annotations; a unit
    word after an operand, a number or a closing parenthesis is dropped."""
    expr = template.split(" = ")[-1]
    expr = re.sub(r"(?<![\w)])\s*\((?=[^)]*[A-Za-z])[\w ,;:+'./-]*\)", "", expr)
    expr = re.sub(r"(?<=[}\d)])\s+" + _UNIT + r"(?![\w{])", "", expr)
    for sym, py in _SYMBOLS.items():
        expr = expr.replace(sym, py)
    expr = re.sub(r"\{(\w+)\}", r"\1", expr)
    return expr


def _eval(node, numbers: dict):
    if isinstance(node, ast.Expression):
        return _eval(node.body, numbers)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in numbers:
            raise Prose(f"unknown name {node.id!r}")
        value = numbers[node.id]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Prose(f"{node.id!r} is not a number")
        return value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, numbers), _eval(node.right, numbers))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        v = _eval(node.operand, numbers)
        return -v if isinstance(node.op, ast.USub) else v
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCS
        and not node.keywords
    ):
        return _FUNCS[node.func.id](*(_eval(a, numbers) for a in node.args))
    raise Prose(f"not arithmetic: {ast.dump(node)[:80]}")


def evaluate(template: str, numbers: dict):
    """The value of ``template`` with its operands; raises ``Prose`` when it is not pure
    arithmetic over numbers, names of ``numbers`` and floor/ceil/min/max."""
    expr = to_python(template)
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise Prose(f"not an expression: {expr!r}") from exc
    return _eval(tree, numbers)
