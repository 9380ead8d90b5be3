"""The classes a schema nests in its fields, each once, in first-use order (the generated field
references of docs/hardware.md and the check spec walk them)."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def nested_classes(root: type, inner: Callable[[type], Iterable[type]]) -> list[type]:
    """``root`` and every class reachable through ``inner`` (the classes one class's fields
    hold), each once, depth first in the order the fields name them."""
    out: list[type] = []

    def visit(cls: type) -> None:
        if cls in out:
            return
        out.append(cls)
        for sub in inner(cls):
            visit(sub)

    visit(root)
    return out
