"""The package's layers (README "Layout"): every import of a calc module goes down the order
below or stays in its own layer, and no two modules import each other, directly or through
others (function-level imports included; ``if TYPE_CHECKING:`` imports are not imports)."""

from __future__ import annotations

import ast
from pathlib import Path

CALC = Path(__file__).resolve().parent.parent / "calc"
# top to bottom; a module may import its own layer and the layers after it
ORDER = [
    "cli",
    "api",
    "reports",
    "serve",
    "training",
    "measure",
    "deploy",
    "formulas",
    "data",
    "output",
    "errors",
]


def _modules() -> dict[str, Path]:
    out = {}
    for p in CALC.rglob("*.py"):
        parts = list(p.relative_to(CALC.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _imports(path: Path, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text())
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            skip |= {id(n) for n in ast.walk(node)}
    deps = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("calc"):
            if node.module == "calc":
                deps |= {f"calc.{a.name}" for a in node.names}
            else:
                deps.add(node.module)
        elif isinstance(node, ast.Import):
            deps |= {a.name for a in node.names if a.name.startswith("calc")}
    return {d for d in deps if d in known}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in ORDER:
        return parts[1]
    if len(parts) > 1 and parts[1] == "errors":
        return "errors"
    return None  # calc itself, calc.__main__


MODULES = _modules()
EDGES = {m: _imports(p, set(MODULES)) - {m} for m, p in MODULES.items()}


def test_every_module_is_in_a_layer():
    loose = [m for m in MODULES if _layer(m) is None and m not in ("calc", "calc.__main__")]
    assert not loose, f"modules outside the layers {ORDER}: {loose}"


def test_imports_go_down_the_layers():
    upward = [
        f"{m} -> {d}"
        for m, deps in EDGES.items()
        for d in deps
        if _layer(m) and _layer(d) and ORDER.index(_layer(d)) < ORDER.index(_layer(m))
    ]
    assert not upward, "upward imports:\n  " + "\n  ".join(sorted(upward))


def test_no_import_cycle():
    # Tarjan's strongly connected components over the module graph
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in EDGES[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in MODULES:
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def test_the_check_sees_imports():
    # the graph is not empty: the ledger imports the engine model, capacity the ledger
    assert "calc.deploy.parallel" in EDGES["calc.deploy.ledger"]
    assert "calc.deploy.ledger" in EDGES["calc.reports.capacity"]
