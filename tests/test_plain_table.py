"""The field/value table drawn without rich (calc.output.plain_table) is rich's, character for
character, wherever it draws one: on every command's result table at several terminal widths
and on generated titles and cells; where it declines, the caller's rich table is used."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calc.output.plain_table import NARROW, kv_text
from calc.output.render import kv_cells, kv_table, print_table, printable


def rich_text(cells, title: str, width: int) -> str:
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_header=True, header_style="bold")
    table.add_column("field")
    table.add_column("value", justify="right")
    for k, v in cells:
        table.add_row(k, v)
    return print_table(table, width)


def results():
    import calc

    yield calc.memory("llama3-70b", 8192, 4, hardware="h100", gpus=4)
    yield calc.memory("jamba-v0.1", 4096)
    yield calc.capacity("deepseek-v3", "h200", 8192, tp=8, shared_prefix=1000, users=4)
    yield calc.cost("mixtral-8x7b", "h100", 4096, tp=2, max_tpot_ms=50)
    yield calc.train("llama3-8b", "h100", tokens=1e9, finetune="lora")
    yield calc.simulate("llama3-8b", "h100", rate=2, requests=20, ttft_slo="2s")


TITLE = "Llama 3 70B on 4 × H100 SXM 80GB (vllm): KV capacity per GPU (GB = 10^9 B, GiB = 2^30 B)"


@pytest.mark.parametrize("width", [20, 40, 59, 60, 61, 80, 100, 220])
def test_every_result_table_is_richs(width):
    drawn = 0
    for r in results():
        cells = kv_cells(r.fields)
        for title in ("", "memory", TITLE):
            plain = kv_text(cells, title, width)
            if plain is not None:
                drawn += 1
                assert printable(plain, lines=True) == rich_text(cells, title, width), title
    if width >= 100:
        # every table fits at 220 columns; at 100 cost's three (its price_source is a sentence
        # of about 120 characters, which rich wraps) are left to rich
        assert drawn == (18 if width >= 220 else 15)


def test_the_rendered_result_is_the_same_either_way():
    r = next(results())
    assert kv_table(r.fields, TITLE) is not None
    from calc.output.render import kv_text as render

    assert render(r.fields, TITLE, 120) == print_table(kv_table(r.fields, TITLE), 120)


WORD = st.text(alphabet=sorted(NARROW - {" "}), min_size=1, max_size=12)
CELL = st.text(alphabet=sorted(NARROW), min_size=0, max_size=40)


@settings(max_examples=300, deadline=None)
@given(
    title=st.lists(WORD, max_size=12).map(" ".join),
    cells=st.lists(st.tuples(CELL, CELL), max_size=6),
    width=st.integers(min_value=1, max_value=120),
)
def test_generated_tables_are_richs(title, cells, width):
    plain = kv_text(cells, title, width)
    if plain is not None:
        assert printable(plain, lines=True) == rich_text(cells, title, width)


@pytest.mark.parametrize("text", ["naïve", "模型", "a\tb", "e\u0301", "x\ny", "😀"])
def test_other_characters_go_to_rich(text):
    assert kv_text([("model", text)], "t", 100) is None
    assert kv_text([("model", "m")], text, 100) is None
