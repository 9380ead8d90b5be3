"""JSON Lines wherever a command's output is rows (sweep's streamed writer, plan, check, plot,
simulate through calc.output.jsonl) and Parquet of one schema for the whole file."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

from calc.output.jsonl import record_line, to_jsonl, write_jsonl
from calc.reports.sweep import COLUMNS, plan, sweep
from calc.reports.sweep_io import write_jsonl as sweep_jsonl

GRID = dict(ctx=[1000, 8192, 32768], batch=[1, 7, 61, 300], tp=[1, 4])


def _lines(text: str) -> list[dict]:
    assert text.endswith("\n") or text == ""
    return [json.loads(line) for line in text.splitlines()]


# ---------------------------------------------------------------------------------------
# The shared writer


def test_a_record_is_one_line_of_plain_json():
    line = record_line(
        {"name": "a\nb", "x": np.float64(0.1), "n": np.int64(3), "nan": float("nan"), "ok": True}
    )
    assert line.count("\n") == 1 and line.endswith("\n")  # the newline in a value is escaped
    assert json.loads(line) == {"name": "a\nb", "x": 0.1, "n": 3, "nan": None, "ok": True}
    assert to_jsonl([]) == ""


def test_write_jsonl_streams_records_and_row_objects():
    class Req:  # a simulation's per-request record, as `score` will pass them
        def __init__(self, i):
            self.i = i

        def row(self):
            return {"request": self.i, "ttft_s": self.i / 10}

    buf = io.BytesIO()
    n = write_jsonl((Req(i) for i in range(3)), buf)
    assert n == 3
    assert _lines(buf.getvalue().decode()) == [
        {"request": 0, "ttft_s": 0.0},
        {"request": 1, "ttft_s": 0.1},
        {"request": 2, "ttft_s": 0.2},
    ]


# ---------------------------------------------------------------------------------------
# sweep -f jsonl: streamed, the rows of -f json


def test_sweep_jsonl_is_the_json_rows_a_line_each(cli):
    args = ("sweep", "-m", "llama3-8b,llama3.1-405b", "-H", "h100", "--ctx", "1000,8192",
            "--batch", "1,61")  # fmt: skip
    r = cli(*args, "-f", "jsonl")
    assert r.code == 0, r.err
    lines = _lines(r.out)
    whole = json.loads(cli(*args, "-f", "json").out)
    assert lines == whole["rows"] and len(lines) == 8
    assert list(lines[0]) == list(COLUMNS)  # keys in the column order
    # 405B does not fit one H100: no price, no serving concurrency (null, as JSON's)
    big = [x for x in lines if x["model"] == "llama3.1-405b"]
    assert all(x["usd_per_million_output_tokens"] is None for x in big)
    assert all(x["serving_concurrency"] is None for x in big)


def test_sweep_jsonl_same_bytes_whatever_the_chunks_and_workers(tmp_path):
    models, hws = ["llama3-8b", "llama3-70b"], ["h100"]
    buf = io.BytesIO()
    sweep_jsonl(plan(models, hws, **GRID), buf)
    one = buf.getvalue()
    for rows, jobs in ((5, 1), (5, 2), (3, 3)):
        path = tmp_path / f"g{rows}{jobs}.jsonl"
        with open(path, "wb") as fh:  # a regular file: the workers write at their offsets
            sweep_jsonl(plan(models, hws, **GRID, chunk_rows=rows), fh, jobs)
        assert path.read_bytes() == one, (rows, jobs)
    want = sweep(models, hws, **GRID).rows()
    got = _lines(one.decode())
    assert len(got) == len(want) == 2 * 3 * 4 * 2
    for g, w in zip(got, want, strict=True):
        for key, value in w.items():
            assert g[key] is None if value != value else g[key] == value, key


# ---------------------------------------------------------------------------------------
# Commands whose output is rows: -f jsonl carries what -f csv carries


@pytest.mark.parametrize(
    "args",
    [
        ("plan", "-m", "llama3-8b", "-H", "h100,a100-80g", "--rate", "2", "--prompt", "1000",
         "--gen", "100", "--ttft-p99", "5s", "--tpot-p99", "200ms", "--method", "analytic"),
        ("check", "examples/check-spec.yaml"),
        ("plot", "frontier", "-m", "llama3-8b", "-H", "h100", "--tp", "1,2"),
        ("plot", "memory", "-m", "llama3-8b"),
        ("simulate", "-m", "llama3-8b", "-H", "h100", "--prompt", "500", "--gen", "50", "-n",
         "50", "--sweep-rate", "1,4"),
        ("models",),  # the listings are rows too (freshuser: they refused -f jsonl)
        ("hardware",),
    ],
)  # fmt: skip
def test_jsonl_rows_are_the_csv_rows(cli, args):
    r_csv = cli(*args, "-f", "csv")
    r = cli(*args, "-f", "jsonl")
    assert r.code == r_csv.code and r.code in (0, 1), r.err  # check's example fails on purpose
    rows = list(csv.DictReader(io.StringIO(r_csv.out)))
    lines = _lines(r.out)
    assert len(lines) == len(rows) >= 2
    for line, row in zip(lines, rows, strict=True):
        assert list(line) == list(row)
        for key, cell in row.items():
            value = line[key]
            if value is None:
                assert cell == ""
            elif isinstance(value, bool):
                assert cell == ("true" if value else "false")
            elif isinstance(value, float):
                assert math.isclose(float(cell), value, rel_tol=0, abs_tol=0), key
            else:
                assert cell == str(value), key


def test_one_simulation_is_one_line(cli):
    r = cli("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "2", "-n", "30", "-f", "jsonl")
    assert r.code == 0, r.err
    (line,) = _lines(r.out)
    assert line["model"] == "llama3-8b" and line["ttft_p99_s"] > 0


def test_unknown_format_lists_jsonl(cli):
    r = cli("plan", "-m", "llama3-8b", "--rate", "1", "--prompt", "10", "--gen", "10",
            "--ttft-p99", "1s", "--tpot-p99", "1s", "-f", "ndjson")  # fmt: skip
    assert r.code == 2 and "jsonl" in r.err and len(r.err.splitlines()) == 1


# ---------------------------------------------------------------------------------------
# Parquet: one schema for the whole file


def test_parquet_one_schema_across_chunks_and_models(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from calc.reports.sweep_io import PARQUET_INTS, write_parquet

    # two models in chunks of 3 rows: a KV budget that is an int in one group and a float in
    # the next, a serving concurrency that is missing (405B does not fit) in some
    models, hws = ["llama3-8b", "llama3.1-405b", "mixtral-8x7b"], ["h100"]
    p = plan(models, hws, **GRID, chunk_rows=3)
    path = tmp_path / "g.parquet"
    with open(path, "wb") as fh:
        write_parquet(p, fh)
    f = pq.ParquetFile(path)
    assert f.metadata.num_row_groups == p.n_chunks > 1
    schema = f.schema_arrow
    assert schema.names == list(COLUMNS)
    assert schema.field("model").type == pa.string() and schema.field("fits").type == pa.bool_()
    for name in PARQUET_INTS:
        assert schema.field(name).type == pa.int64(), name
    assert schema.field("kv_budget_bytes").type == pa.float64()
    got = f.read().to_pylist()
    want = sweep(models, hws, **GRID).rows()
    assert len(got) == len(want) == 3 * 3 * 4 * 2
    for g, w in zip(got, want, strict=True):
        for key, value in w.items():
            if isinstance(value, float) and value != value:  # NaN: null (ints) or NaN
                assert g[key] is None or g[key] != g[key], key
            else:
                assert g[key] == value, key


def test_parquet_of_no_rows_has_the_schema(tmp_path, monkeypatch):
    pq = pytest.importorskip("pyarrow.parquet")
    from calc.reports.sweep_io import write_parquet

    p = plan(["llama3-8b"], ["h100"], ctx=[1024], batch=[1])
    monkeypatch.setattr(type(p), "chunks", lambda self: iter(()))
    path = tmp_path / "g.parquet"
    with open(path, "wb") as fh:
        write_parquet(p, fh)
    table = pq.read_table(path)
    assert table.num_rows == 0 and table.schema.names == list(COLUMNS)
