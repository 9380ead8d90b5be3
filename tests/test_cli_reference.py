"""docs/cli.md is generated from --help and must match the current commands."""

from __future__ import annotations

from pathlib import Path

from calc.cli.reference import command_names, reference

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def test_cli_reference_is_current():
    assert DOC.read_text() == reference(), (
        "docs/cli.md is stale: run `python -m calc.cli.reference > docs/cli.md`"
    )


def test_every_command_documented_in_readme():
    readme = (DOC.parent.parent / "README.md").read_text()
    missing = [n for n in command_names() if f"kvcalc {n}" not in readme]
    assert not missing, f"README.md lacks a walk-through of: {missing}"
