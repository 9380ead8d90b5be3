"""Generates the CLI reference (docs/cli.md) from each command's own --help text.

Run: python -m calc.cli.reference > docs/cli.md   (a test checks the file is current)
"""

from __future__ import annotations

import contextlib
import io
import os


def _help(args: list[str]) -> str:
    from calc.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.suppress(SystemExit):
        main([*args, "--help"])
    return buf.getvalue().rstrip() + "\n"


def command_names() -> list[str]:
    import typer.main

    from calc.cli.app import app

    return sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def reference() -> str:
    os.environ["COLUMNS"] = "100"  # fixed wrapping, whatever the terminal
    parts = [
        "# kvcalc command reference\n\n",
        "Generated from `--help` by `python -m calc.cli.reference > docs/cli.md`; "
        "a test fails when it is out of date.\n\n",
        "## kvcalc\n\n```text\n",
        _help([]),
        "```\n",
    ]
    for name in command_names():
        parts += [f"\n## kvcalc {name}\n\n```text\n", _help([name]), "```\n"]
    return "".join(parts)


if __name__ == "__main__":
    print(reference(), end="")
