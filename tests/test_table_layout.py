"""Tables never cut a number: at 60 and 120 columns wide tables fold (by columns, repeating
the key columns, or transposed), every line fits the width, and every figure the wide table
shows appears whole in the narrow one."""

from __future__ import annotations

import re

import pytest

from calc.output.render import print_table, rows_table
from calc.output.table_layout import broken, column_min_width, fold, header_lines

# a figure as tables print it: 163,840 | 16.06 | -66.54 | 1,099.51 (a sign, digits, commas, a point)
NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")


def numbers(text: str) -> set[str]:
    return set(NUMBER.findall(text))


def widest_line(text: str) -> int:
    return max(len(line) for line in text.splitlines())


COMMANDS = [
    ("sweep", "-m", "llama3-8b,llama3-70b", "-H", "h100,h200", "--ctx", "1024,163840",
     "--batch", "1,64", "--tp", "1,8"),
    ("hardware",),
    ("models",),
    ("memory", "-m", "llama3-70b", "--ctx", "163840", "-H", "h100", "--gpus", "8"),
    ("capacity", "-m", "llama3-70b", "-H", "h100", "--tp", "4", "--ctx", "163840"),
    ("latency", "-m", "llama3-8b", "-H", "h100", "--ctx", "163840"),
    ("cost", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192"),
    ("flops", "-m", "llama3-8b", "--ctx", "163840"),
]  # fmt: skip


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
@pytest.mark.parametrize("width", [60, 120])
def test_cli_tables_keep_every_number_whole(cli, monkeypatch, args, width):
    monkeypatch.setenv("COLUMNS", "1000")  # wide enough that nothing folds: the reference
    wide = cli(*args)
    assert wide.code == 0, wide.err
    monkeypatch.setenv("COLUMNS", str(width))
    narrow = cli(*args)
    assert narrow.code == 0, narrow.err
    assert widest_line(narrow.out) <= width
    missing = numbers(wide.out) - numbers(narrow.out)
    assert not missing, f"cut or lost at {width} columns: {sorted(missing)[:10]}"


def test_sweep_at_120_columns_folds_by_columns_repeating_the_grid_keys(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024,163840", "--batch", "1,64")
    assert r.code == 0, r.err
    # the constant keys are said once; ctx and batch head every part
    assert "model llama3-8b, hardware h100, weight_dtype bf16, kv_dtype bf16, tp 1, pp 1" in r.out
    # four parts since the steady-state serving columns (gen, serving_*) joined the grid
    assert "(part 1 of 4, folded to 120 columns)" in r.out
    assert "(part 4 of 4, folded to 120 columns)" in r.out
    # two rows at ctx 163,840 (their prompt too), the keys repeated in each of four parts
    assert r.out.count("163,840") == 2 * 2 * 4
    assert "16.06 GB" in r.out and "(14.96 GiB)" in r.out  # the GiB goes under, whole


def _wide_rows(n: int = 3) -> list[dict]:
    return [
        {
            "model": f"model-{i}",
            "ctx": 163_840 * (i + 1),
            **{f"kv_cache_bytes_{j}": 1_099_511_627_776 * (j + 1) for j in range(8)},
            "usd_per_million_output_tokens": 12.3456 * (i + 1),
        }
        for i in range(n)
    ]


@pytest.mark.parametrize("width", [40, 60, 120])
def test_rows_table_folds_within_width(width):
    rows = _wide_rows()
    wide = print_table(rows_table(rows, "wide", keys=2), width=1000)
    text = print_table(rows_table(rows, "wide", keys=2), width=width)
    assert widest_line(wide) > width  # it did need folding
    assert widest_line(text) <= width
    assert numbers(wide) <= numbers(text)
    # 163,840 × 2 = 327,680: a key, repeated in every part
    parts = text.count("folded to")
    assert parts >= 2 and text.count("327,680") in (parts, 0)


def test_too_narrow_for_the_keys_transposes():
    rows = _wide_rows(2)
    table = rows_table(rows, "t", keys=2)
    folded = fold(table, 34)
    # a field column, then one column per row: "row 1", "row 2"
    assert [c.header for c in folded[0].columns][:2] == ["field", "row 1"]
    text = print_table(rows_table(rows, "t", keys=2), width=34)
    assert numbers(print_table(rows_table(rows, "t"), width=1000)) <= numbers(text)


def test_a_table_that_fits_is_left_alone():
    rows = [{"model": "m", "ctx": 1024}]
    table = rows_table(rows, "small")
    assert fold(table, 60) == [table]


def test_cells_break_only_before_a_parenthesis():
    cell = "1,099.51 GB (1,024.00 GiB)"
    assert column_min_width("x", [cell]) == len("(1,024.00 GiB)")
    assert broken(cell, 14) == "1,099.51 GB\n(1,024.00 GiB)"
    assert broken(cell, 40) == cell
    assert broken("163,840", 3) == "163,840"  # a figure is never split


def test_headers_break_after_underscores():
    assert header_lines("usd_per_million_output_tokens", 16) == "usd_per_million_\noutput_tokens"
    assert header_lines("ctx", 2) == "ctx"
    # its longest piece is "million_" (8), but a header gets at least 10 columns (fewer lines)
    assert column_min_width("usd_per_million_output_tokens", ["$1.0000"]) == 10


def test_a_long_phrase_breaks_after_its_semicolon_rather_than_transposing():
    # qa (issue 23): score's run table at COLUMNS=60 has the value "prompts as recorded per
    # request; outputs as recorded per request" (64 characters, one piece): the field/value
    # table was transposed into "row 1 ... row 17" columns and its field column squeezed to
    # one letter a line. A phrase breaks after "; " (never inside a figure)
    from calc.output.render import kv_table

    lengths = "prompts as recorded per request; outputs as recorded per request"
    two = "prompts as recorded per request;\noutputs as recorded per request"
    assert broken(lengths, 40) == two
    assert column_min_width("value", [lengths]) == len("prompts as recorded per request;")
    fields = {"tool": "vllm bench serve", "max_batched_tokens": 2048, "lengths": lengths}
    text = print_table(kv_table(fields, "a run"), 60)
    assert widest_line(text) <= 60
    assert "row 1" not in text and "max_batched_tokens" in text and "2,048" in text
    assert "prompts as recorded per request;" in text and "outputs as recorded per request" in text
