"""Shared fixtures: run the CLI in-process and capture exit code, stdout and stderr."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from hypothesis import settings

from calc.cli import main

# No per-example deadline: hypothesis's default 200 ms is a timed assertion, and it failed
# property tests on a loaded 2-core machine (273 ms for one example) whatever the code computed.
# Speed is measured under bench/, never asserted in tests.
settings.register_profile("kvcalc", deadline=None)
settings.load_profile("kvcalc")


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli(capsys):
    """``cli("memory", "--model", "llama3-8b", ...)`` -> CliResult (never raises SystemExit)."""

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run
