"""calc.data.yaml_events: a document built from libyaml's events equals the strict loader's
(values, types and key order), and everything it does not handle goes to the strict loader."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from calc.data import yaml_io
from calc.data.yaml_events import NOT_PLAIN, build

ROOT = Path(__file__).resolve().parents[1]


def _strict(text: str):
    """The strict loader alone (yaml_io's path before the event builder)."""
    return yaml.load(text, Loader=yaml_io._loader(True))


def _same(a, b) -> bool:
    """Equal values of the same types, mappings in the same key order (1 == 1.0 == True
    would hide a type slip)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (
            [type(k) for k in a] == [type(k) for k in b]
            and list(a) == list(b)
            and all(_same(a[k], b[k]) for k in a)
        )
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return repr(a) == repr(b)


def _shipped_yaml() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.yaml", "*.yml"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()  # fmt: skip
    return [ROOT / p for p in out]


def test_every_shipped_yaml_builds_as_the_strict_loader_reads_it():
    paths = _shipped_yaml()
    assert len(paths) > 50  # hardware profiles, model configs, validation runs, examples
    for p in paths:
        text = p.read_text()
        got = build(text, yaml_io._loader(True))
        assert got is not NOT_PLAIN, p
        assert _same(got, _strict(text)), p


PLAIN = {
    "scalars": "a: yes\nb: No\nc: ~\nd: ''\ne: '3'\nf: !!str 3\ng: 0x1F\nh: -.inf\ni: 1_000\n"
    "j: 2001-12-14\nk: 1.5\nl: +12\nm: !!binary aGVsbG8=\n",
    "exponents": "a: 1e1\nb: 2e-3\nc: 5E+9\nd: 3.2e1\ne: 1.25e1\nf: '1e1'\ng: 1e\nh: 1e23\n",
    "nesting": "a:\n  - 1\n  - {b: [x, {c: 2}]}\n  - []\nd: {}\n",
    "top sequence": "- 1\n- a\n",
    "empty": "",
    "anchor without alias": "a: &x 1\nb: 2\n",
}


@pytest.mark.parametrize("name", PLAIN)
def test_plain_documents_match_the_strict_loader(name):
    text = PLAIN[name]
    got = build(text, yaml_io._loader(True))
    assert got is not NOT_PLAIN
    assert _same(got, _strict(text))


LEFT = {
    "repeated key": "a: 1\na: 2\n",
    "alias": "a: &x 1\nb: *x\n",
    "merge key": "a: &x {k: 1}\nb:\n  <<: *x\n",
    "octal": "a: 010\n",
    "base 60": "a: 1:30\n",
    "set": "a: !!set {x, y}\n",
    "unknown tag": "a: !foo 3\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "collection key": "? [a]\n: 1\n",
    "equal keys": "1: a\n1.0: b\n",
    "malformed": "a: [1\n",
}


@pytest.mark.parametrize("name", LEFT)
def test_what_it_does_not_handle_goes_to_the_strict_loader(name):
    assert build(LEFT[name], yaml_io._loader(True)) is NOT_PLAIN


def test_refusals_keep_their_words():
    """Through ``_parse`` a repeated key and an alias are refused as before."""
    with pytest.raises(yaml.YAMLError, match="duplicate key"):
        yaml_io._parse("a: 1\na: 2\n")
    with pytest.raises(yaml.YAMLError, match="aliases"):
        yaml_io._parse("a: &x 1\nb: *x\n")
