"""docs/hardware.md's field reference is generated from the hardware profile schema and current;
every schema field has its line of meaning."""

from __future__ import annotations

import dataclasses

from calc.data.hardware_reference import DOC, FIELD_HELP, _schemas, missing_help, render


def test_every_schema_field_has_a_meaning():
    assert missing_help() == [], "add a line to FIELD_HELP in calc/data/hardware_reference.py"
    known = {f"{c.__name__}.{f.name}" for c in _schemas() for f in dataclasses.fields(c)}
    assert set(FIELD_HELP) == known  # no line for a field that is gone


def test_docs_page_is_current():
    page = DOC.read_text()
    assert render(page) == page, "docs/hardware.md is stale: python -m calc.data.hardware_reference"


def test_every_field_is_on_the_page():
    page = DOC.read_text()
    for key in FIELD_HELP:
        cls, field = key.split(".")
        assert f"### `{cls}`" in page and f"| `{field}` |" in page, key
