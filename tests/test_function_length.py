"""Functions a reader can hold (issue 27): no function in calc/ runs over 80 lines (from its
``def``, or its first decorator, to its last line, docstring included) without a one-line
reason beside it: a comment starting ``# long:`` on the line just above the ``def`` (or its
first decorator) or on the ``def`` line itself."""

from __future__ import annotations

import ast
from pathlib import Path

CALC = Path(__file__).resolve().parent.parent / "calc"
MAX_LINES = 80
# files exempted from the check (none: every long function in calc/ carries its reason)
ALLOWED: tuple[str, ...] = ()


def long_functions(path: Path) -> list[tuple[str, int, int]]:
    """(name, first line, length) of each function over MAX_LINES lines without its reason."""
    text = path.read_text()
    lines = text.splitlines()
    out = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        length = node.end_lineno - first + 1  # type: ignore[operator]
        if length <= MAX_LINES:
            continue
        above = lines[first - 2].strip() if first >= 2 else ""
        on_def = lines[node.lineno - 1]
        if above.startswith("# long:") or "# long:" in on_def:
            continue
        out.append((node.name, first, length))
    return out


def test_no_long_function_without_its_reason():
    found = []
    for path in sorted(CALC.rglob("*.py")):
        rel = path.relative_to(CALC)
        if any(rel.match(pattern) for pattern in ALLOWED):
            continue
        found += [f"calc/{rel}:{line} {name} ({n} lines)" for name, line, n in long_functions(path)]
    assert not found, (
        f"functions over {MAX_LINES} lines: split them, or write why beside them "
        "(# long: ...):\n  " + "\n  ".join(found)
    )


def test_the_check_sees_long_functions(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    path = tmp_path / "m.py"
    path.write_text(f"def f():\n{body}\n\n\ndef g():\n    return 1\n")
    assert long_functions(path) == [("f", 1, MAX_LINES + 1)]
    path.write_text(f"# long: one table of constants\ndef f():\n{body}\n")
    assert long_functions(path) == []
    path.write_text(f"@staticmethod\ndef f():  # long: one table\n{body}\n")
    assert long_functions(path) == []
    path.write_text(f"# not a reason\ndef f():\n{body}\n")
    assert [n for n, _, _ in long_functions(path)] == ["f"]
