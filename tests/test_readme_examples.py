"""The README cannot drift: every example's output is what the command prints now (tools/
readme_examples.py writes them; this re-runs them), no command is shown outside an example
block, every local link and anchor resolves, the page stays a short guide, and its two
set-up commands are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, ROOT / "docs" / "guide.md", ROOT / "docs" / "outputs.md", ROOT / "CHANGELOG.md"]


def _tool():
    return load_script("tools/readme_examples.py")


def test_examples_show_what_the_commands_print():
    diffs = _tool().stale()
    assert not diffs, "run python tools/readme_examples.py:\n" + "\n".join(diffs[:80])


def test_no_command_is_shown_outside_an_example():
    """A `$ kvcalc` line is inside an example block (generated), or a block marked static with
    its reason (measured timings)."""
    for page in PAGES[:2]:
        inside = False
        static = False
        for n, line in enumerate(page.read_text().splitlines(), 1):
            if line.startswith("<!-- example: "):
                inside = True
            elif line.startswith("<!-- /example -->"):
                inside = False
            elif line.startswith("<!-- static: ") and len(line) > 30:
                static = True
            elif line.startswith("```") and static and not line.startswith("```console"):
                static = False  # the end of the static block
            if line.startswith("$ kvcalc") and not (inside or static):
                raise AssertionError(f"{page.name}:{n}: a command outside an example: {line}")


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def test_local_links_and_anchors_resolve():
    for page in PAGES:
        text = page.read_text()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            assert file.exists(), f"{page.name}: link to a missing file: {target}"
            if anchor and file.suffix == ".md":
                heads = [_slug(h) for h in re.findall(r"^#+ (.+)$", file.read_text(), re.M)]
                assert anchor in heads, f"{page.name}: no heading #{anchor} in {file.name}"


def test_readme_is_a_short_guide_with_the_changelog_apart():
    text = README.read_text()
    assert len(text.splitlines()) < 400
    assert "CHANGELOG.md" in text
    for history in ("Renames and changed figures", "Changes (", "Module moves"):
        assert history not in text, history  # history lives in CHANGELOG.md
    log = (ROOT / "CHANGELOG.md").read_text()
    from calc.output.names import RENAMES

    for _old, new, _ in RENAMES:  # every rename stays findable from the README
        assert f"`{new}`" in log, new


def _bash_block_after(text: str, words: str) -> str:
    i = text.index(words)
    block = re.search(r"```bash\n(.*?)\n```", text[i:], re.S)
    assert block, words
    return block.group(1).strip()


def test_ci_runs_the_readme_commands():
    text = README.read_text()
    run = _bash_block_after(text, "Set up and run the main job")
    tests = _bash_block_after(text, "Set up and pass the tests")
    assert run.startswith("python3 -m venv .venv && .venv/bin/pip install . && ")
    assert "download.pytorch.org" not in tests  # a PyPI-only machine runs it
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci.splitlines() and run in ci.splitlines()  # verbatim, each its own line
