"""`kvcalc plot` of several models (-m repeated or comma-separated): one series per model, a
`model` column in the CSV/JSON rows, through the CLI."""

from __future__ import annotations

import csv
import io

import pytest

from calc.data.registry import load_hardware, load_model
from tests import reports as R


def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_memory_csv_has_a_model_column_and_one_series_per_model(cli):
    r = cli("plot", "memory", "-m", "llama3-8b", "-m", "llama3-70b", "-f", "csv")
    assert r.code == 0, r.err
    rows = _csv(r.out)
    assert r.out.startswith("model,")
    assert {row["model"] for row in rows} == {"llama3-8b", "llama3-70b"}
    # one series per model (its own layout, no what-ifs): 512, 1K, 2K, 4K, 8K each
    assert len(rows) == 2 * 5
    at = {(row["model"], int(row["ctx"])): int(row["kv_cache_bytes"]) for row in rows}
    # Llama 3 8B: 2 × 32 layers × 8 KV heads × 128 × 2 bytes = 131,072 B/token; × 8,192
    assert at["llama3-8b", 8192] == 131_072 * 8_192 == 1_073_741_824
    # Llama 3 70B: 2 × 80 × 8 × 128 × 2 = 327,680 B/token; × 8,192
    assert at["llama3-70b", 8192] == 327_680 * 8_192 == 2_684_354_560


def test_comma_separated_equals_repeated(cli):
    a = cli("plot", "memory", "-m", "llama3-8b,llama3-70b", "-f", "csv")
    b = cli("plot", "memory", "-m", "llama3-8b", "-m", "llama3-70b", "-f", "csv")
    c = cli("plot", "memory", "-m", "llama3-8b,llama3-70b", "-m", "llama3-8b", "-f", "csv")
    assert a.code == b.code == c.code == 0
    assert a.out == b.out == c.out  # a repeated name is plotted once


def test_capacity_json_per_model_matches_capacity(cli):
    r = cli("plot", "capacity", "-m", "llama3-8b,llama3-70b", "-H", "h200", "--tp", "2",
            "--max-ctx", "8192", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    out = r.json()
    assert out["models"] == ["llama3-8b", "llama3-70b"] and "model" not in out
    hw = load_hardware("h200")
    for row in out["rows"]:
        cap = R.capacity(load_model(row["model"]), hw, ctx=row["ctx"], tp=2,
                         max_model_len=8192).fields  # fmt: skip
        assert row["max_concurrency"] == cap["max_concurrency"], row


def test_roofline_rows_name_their_model_and_keys_name_the_model(cli):
    r = cli("plot", "roofline", "-m", "llama3-8b", "-m", "llama3-70b", "-H", "h100", "-f", "json")
    assert r.code == 0, r.err
    rows = r.json()["rows"]
    assert {row["model"] for row in rows} == {"llama3-8b", "llama3-70b"}
    text = cli("plot", "roofline", "-m", "llama3-8b", "-m", "llama3-70b", "-H", "h100").out
    assert "A.* = llama3-8b, B.* = llama3-70b" in text
    assert "A.d1" in text and "B.p5" in text


def test_terminal_chart_one_line_per_model(cli):
    r = cli("plot", "capacity", "-m", "llama3-8b,llama3-70b", "-H", "h100", "--max-ctx", "8192")
    assert r.code == 0, r.err
    assert "AAA  llama3-8b: GQA, 8 KV heads" in r.out
    assert "BBB  llama3-70b: GQA, 8 KV heads" in r.out
    assert "one line per model" in r.out
    assert "MHA" not in r.out  # what-ifs are a single-model view


def test_single_model_keeps_its_what_ifs_and_gains_the_model_column(cli):
    r = cli("plot", "memory", "-m", "llama3-8b", "-f", "json")
    out = r.json()
    assert out["model"] == "llama3-8b" and out["models"] == ["llama3-8b"]
    assert {row["attention"] for row in out["rows"]} == {"mha", "gqa", "mqa", "mla"}
    assert {row["model"] for row in out["rows"]} == {"llama3-8b"}


@pytest.mark.parametrize(
    "args, message",
    [
        (["-m", "llama3-8b,nope"], "nope"),
        (["-m", "llama3-8b,"], "empty name"),
    ],
)
def test_bad_model_lists(cli, args, message):
    r = cli("plot", "memory", *args)
    assert r.code == 2 and message in r.err and "Traceback" not in r.err


def test_png_of_two_models(cli, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "cap.png"
    r = cli("plot", "capacity", "-m", "llama3-8b", "-m", "llama3-70b", "-H", "h100", "-o", out)
    assert r.code == 0, r.err
    assert out.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
