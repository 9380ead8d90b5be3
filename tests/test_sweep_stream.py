"""`kvcalc sweep` at scale: numbers written by numpy exactly as Python writes them, output
streamed a chunk at a time (the same bytes whatever the chunking or the number of worker
processes), the --pp/--prompt/gpus/usd_per_gpu_hour additions, empty cost cells for rows that do
not fit, and Parquet output."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calc.data.registry import load_hardware, load_model
from calc.output.fastfmt import float_matrix, int_matrix, join_rows, number_matrix
from calc.reports.cost import operating_point
from calc.reports.sweep import COLUMNS, plan, sweep
from calc.reports.sweep_io import write_csv
from tests import reports as R


def _texts(matrix: np.ndarray) -> list[str]:
    newline = np.full((matrix.shape[0], 1), ord("\n"), dtype=np.uint8)
    return join_rows(np.concatenate([matrix, newline], axis=1)).decode().split("\n")[:-1]


# ---------------------------------------------------------------------------------------
# Numbers as text


EDGES = [0.1, 0.2, 0.3, 1 / 3, 2 / 3, 1.0, 100.0, 0.5, 1e-4, 9.999e-5, 1e15, 1e16,
         9999999999999998.0, 123456789012345.67, 709414035920511.75, 2.0**-10, 5e-324,
         1.7976931348623157e308, 0.0, -0.0, -1.5, float("inf"), float("-inf"),
         0.005383003701492538, 185.76988897903442]  # fmt: skip


def test_floats_are_written_as_repr_writes_them():
    rng = np.random.default_rng(15)
    x = np.concatenate(
        [
            np.array(EDGES),
            rng.random(20_000) * 10.0 ** rng.integers(-8, 18, 20_000),
            1 / rng.integers(1, 10**6, 5_000),  # many need 17 digits
            np.round(rng.random(5_000) * 1000, 3),  # few digits: trailing zeros dropped
        ]
    )
    assert _texts(float_matrix(x)) == [repr(v) for v in x.tolist()]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False), min_size=1, max_size=50))
def test_any_float_reads_back_as_repr(values):
    assert _texts(float_matrix(np.array(values))) == [repr(v) for v in values]


def test_nan_is_the_given_text():
    assert _texts(float_matrix(np.array([np.nan, 1.5]), b"null")) == ["null", "1.5"]
    assert _texts(float_matrix(np.array([np.nan, 1.5]))) == ["", "1.5"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**63) + 1, 2**63 - 1), min_size=1, max_size=50))
def test_integers_are_written_as_str(values):
    assert _texts(int_matrix(np.array(values, dtype=np.int64))) == [str(v) for v in values]


def test_number_matrix_integer_valued_floats_and_booleans():
    # 1,073,741,824 B (a KV figure held as float) prints as an integer, as before
    assert _texts(number_matrix(np.array([1_073_741_824.0, 0.25]))) == ["1073741824", "0.25"]
    assert _texts(number_matrix(np.array([True, False]))) == ["true", "false"]


# ---------------------------------------------------------------------------------------
# Streaming


GRID = dict(ctx=[1000, 8192, 32768], batch=[1, 7, 61, 300], tp=[1, 4])


def _csv_bytes(p, jobs=1) -> bytes:
    buf = io.BytesIO()
    write_csv(p, buf, jobs)
    return buf.getvalue()


def test_chunking_does_not_change_the_bytes():
    models, hws = ["llama3-8b", "llama3-70b"], ["h100", "mi300x"]
    whole = _csv_bytes(plan(models, hws, **GRID))
    for rows in (1, 3, 5, 16):
        p = plan(models, hws, **GRID, chunk_rows=rows)
        assert p.n_chunks > 1
        assert _csv_bytes(p) == whole, rows


def test_worker_processes_write_the_same_bytes():
    models, hws = ["llama3-8b", "llama3-70b"], ["h100"]
    one = _csv_bytes(plan(models, hws, **GRID, chunk_rows=5))
    p = plan(models, hws, **GRID, chunk_rows=5)
    assert _csv_bytes(p, jobs=2) == one
    assert any("do not fit" in w for w in p.warnings)  # counted across the workers too


def test_workers_write_a_regular_file_at_their_offsets(tmp_path):
    """To a regular file the workers write their chunks themselves (os.pwrite at the offset
    the parent hands out in chunk order): the same bytes, the file position at the end."""
    models, hws = ["llama3-8b", "llama3-70b"], ["h100"]
    one = _csv_bytes(plan(models, hws, **GRID, chunk_rows=5))
    p = plan(models, hws, **GRID, chunk_rows=5)
    path = tmp_path / "grid.csv"
    with open(path, "wb") as fh:
        write_csv(p, fh, 3)
        assert fh.tell() == len(one)
        fh.write(b"#end\n")  # a write after the rows lands after them
    assert path.read_bytes() == one + b"#end\n"
    assert any("do not fit" in w for w in p.warnings)


def test_a_file_opened_for_appending_gets_its_rows_in_order(tmp_path):
    """pwrite ignores the offset on a file opened with O_APPEND (`>>`): rows go through the
    parent in order instead."""
    models, hws = ["llama3-8b", "llama3-70b"], ["h100"]
    one = _csv_bytes(plan(models, hws, **GRID, chunk_rows=5))
    path = tmp_path / "grid.csv"
    path.write_bytes(b"#before\n")
    with open(path, "ab") as fh:
        write_csv(plan(models, hws, **GRID, chunk_rows=5), fh, 3)
    assert path.read_bytes() == b"#before\n" + one


def test_chunks_are_evaluated_one_at_a_time(monkeypatch):
    """The writer pulls a chunk, writes it, then computes the next: never the whole grid."""
    import calc.reports.sweep_io as io_mod

    p = plan(["llama3-8b"], ["h100"], **GRID, chunk_rows=4)
    live = []
    real = io_mod.chunk_bytes

    def spy(chunk, *args):
        live.append(chunk.n_rows)
        return real(chunk, *args)

    monkeypatch.setattr(io_mod, "chunk_bytes", spy)
    seen = []

    class Sink:
        def write(self, data):
            seen.append(len(live))  # chunks rendered so far when each write happens

    write_csv(p, Sink())
    assert max(live) <= 4 and len(live) == p.n_chunks
    assert seen == list(range(len(live) + 1))  # the header, then one write per chunk


def test_json_stream_is_valid_json_equal_to_the_rows(cli):
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1000,8192", "--batch", "1,61",
            "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    out = json.loads(r.out)
    rows = sweep(["llama3-8b"], ["h100"], ctx=[1000, 8192], batch=[1, 61]).rows()
    assert out["n_rows"] == 4 and len(out["rows"]) == 4
    for got, want in zip(out["rows"], rows, strict=True):
        for key, value in want.items():
            if isinstance(value, float) and math.isnan(value):
                assert got[key] is None, key
            else:
                assert got[key] == value, key


def test_empty_json_and_csv_to_stdout(cli):
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "-f", "csv")
    assert r.code == 0 and r.out.splitlines()[0].split(",") == list(COLUMNS)


# ---------------------------------------------------------------------------------------
# New options and columns


def test_pp_and_gpus_match_capacity_and_cost(cli):
    r = cli("sweep", "-m", "llama3-70b", "-H", "h100", "--tp", "2", "--pp", "2", "--ctx", "8192",
            "--batch", "1,8", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    cfg, hw = load_model("llama3-70b"), load_hardware("h100")
    for row in r.json()["rows"]:
        assert row["pp"] == 2 and row["gpus"] == 2 * 2
        # most loaded stage: ceil(80 / 2) = 40 layers; 8 KV heads / tp 2 = 4 per GPU;
        # 2 × 40 × 4 × 128 × 2 bytes = 81,920 B per token; × 8,192 tokens
        assert row["kv_bytes_per_sequence_per_gpu"] == 81_920 * 8_192 == 671_088_640
        cap = R.capacity(cfg, hw, ctx=8192, batch=row["batch"], tp=2, pp=2).fields
        for key in ("weights_bytes_per_gpu", "kv_budget_bytes", "max_concurrency", "fits"):
            assert row[key] == cap[key], key
        dep = R.deployment(cfg, hw, tp=2, pp=2)
        point = operating_point(dep, batch=row["batch"], ctx=8192, prompt=8192)
        for key in ("tpot_s", "ttft_one_prompt_s", "output_tokens_per_s_per_gpu",
                    "usd_per_gpu_hour"):  # fmt: skip
            assert row[key] == pytest.approx(point[key], rel=1e-12), key


def test_prompt_sets_ttft_and_input_cost(cli):
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "4096,8192", "--prompt", "512,2048",
            "--usd-per-hour", "2", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    rows = r.json()["rows"]
    assert [(x["prompt"], x["ctx"]) for x in rows] == [(512, 4096), (512, 8192), (2048, 4096),
                                                       (2048, 8192)]  # fmt: skip
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    for row in rows:
        point = operating_point(R.deployment(cfg, hw), batch=1, ctx=row["ctx"],
                                prompt=row["prompt"], usd_per_hour=2)  # fmt: skip
        assert row["usd_per_gpu_hour"] == 2
        for key in ("ttft_one_prompt_s", "usd_per_million_input_tokens",
                    "usd_per_million_output_tokens"):  # fmt: skip
            assert row[key] == pytest.approx(point[key], rel=1e-12), key


def test_default_prompt_is_the_ctx(cli):
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024,2048", "-f", "json")
    assert [x["prompt"] for x in r.json()["rows"]] == [1024, 2048]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--ctx", "1024", "--prompt", "2048"], "--prompt 2,048 exceeds --ctx 1,024"),
        (["--ctx", "1024", "--pp", "81", "-m", "llama3-70b"], "--pp 81 exceeds"),
        (["--ctx", "1024", "--jobs", "-1"], "--jobs must be in 0..64"),
        (["--ctx", "1024", "-f", "parquet"], "--format parquet needs --output"),
    ],
)
def test_new_option_errors(cli, args, message):
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", *args)
    assert r.code == 2 and message in r.err and "Traceback" not in r.err


def test_rows_that_do_not_fit_have_no_price(cli):
    # Llama 3 8B on one H100 (vLLM 0.19): 55 sequences of 8,192 tokens fit, 56 do not (test_sweep's
    # hand arithmetic: budget 59,638,276,096 B / 1,073,741,824 B per sequence)
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "--batch", "55,56,57",
            "--activation", "1GiB", "--engine-version", "0.19", "-f", "csv")  # fmt: skip
    assert r.code == 0, r.err
    rows = list(csv.DictReader(io.StringIO(r.out)))
    assert [x["fits"] for x in rows] == ["true", "false", "false"]
    assert rows[0]["usd_per_million_output_tokens"] != ""
    for row in rows[1:]:
        assert row["usd_per_million_output_tokens"] == row["usd_per_million_input_tokens"] == ""
        assert row["tpot_s"] != ""  # the roofline time is still there
    warnings = [line for line in r.err.splitlines() if "do not fit" in line]
    assert warnings == [
        "kvcalc: warning: 2 of 3 rows do not fit (fits false): their batch cost columns "
        "(usd_per_million_output_tokens, usd_per_million_input_tokens) are left empty"
    ]
    j = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "--batch", "56",
            "--activation", "1GiB", "--engine-version", "0.19", "-f", "json")  # fmt: skip
    row = j.json()["rows"][0]
    assert row["usd_per_million_output_tokens"] is None
    assert row["usd_per_million_input_tokens"] is None


def test_table_shows_no_price_as_a_dash(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "--batch", "56",
            "--activation", "1GiB", "--engine-version", "0.19")  # fmt: skip
    assert r.code == 0 and "—" in r.out and "nan" not in r.out


# ---------------------------------------------------------------------------------------
# Parquet


def test_parquet_round_trip(cli, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "grid.parquet"
    r = cli("sweep", "-m", "llama3-8b,llama3-70b", "-H", "h100", "--ctx", "1000,8192", "--batch",
            "1,61", "-f", "parquet", "-o", out)  # fmt: skip
    assert r.code == 0, r.err
    table = pq.read_table(out)
    assert table.schema.names == list(COLUMNS)
    want = sweep(["llama3-8b", "llama3-70b"], ["h100"], ctx=[1000, 8192], batch=[1, 61]).rows()
    got = table.to_pylist()
    assert len(got) == len(want) == 8
    for g, w in zip(got, want, strict=True):
        for key, value in w.items():
            assert (g[key] is None or math.isnan(g[key])) if value != value else g[key] == value


def test_parquet_without_pyarrow_says_how_to_install(cli, tmp_path, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pyarrow(name, *args, **kw):
        if name.startswith("pyarrow"):
            raise ImportError(name)
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    out = tmp_path / "g.parquet"
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "-f", "parquet", "-o", out)
    assert r.code == 2 and "pip install 'kvcalc[parquet]'" in r.err
    assert not out.exists()


def test_workers_leave_the_output_file_in_place(tmp_path):
    # sweep --jobs forks its workers while the atomic writer holds its temp file; a worker
    # stopped at the end must not remove that file (calc.output.safe_io's signal handler).
    # A real process: the handler is installed only where SIGTERM has its default action.
    import subprocess
    import sys

    out = tmp_path / "grid.csv"
    argv = [sys.executable, "-m", "calc", "sweep", "-m", "llama3-8b,llama3-70b", "-H", "h100",
            "--tp", "1,4", "--ctx", "1024..8192:x2", "--batch", "1..256:x4", "--jobs", "2",
            "-f", "csv", "-o", str(out)]  # fmt: skip
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    # 2 models × 2 tp × 4 ctx × 5 batch = 80 rows and the header
    assert len(out.read_text().splitlines()) == 81


@pytest.mark.parametrize("nan", [b"", b"null"])
def test_masked_cells_at_every_shape(nan):
    """A masked value per batch, per ctx, the same on every row, or per row: ``nan`` where
    the mask is False, the value elsewhere, as Python writes it."""
    from calc.reports.sweep import Chunk
    from calc.reports.sweep_io import _csv_text, chunk_bytes

    mask = np.array([[True, False, True], [False, True, True]])
    columns = {
        "per_batch": np.array([[1.5, 2, 0.1]]),
        "per_ctx": np.array([[7], [123456]]),
        "constant": 0.25,
        "per_row": np.array([[1.0, 2.5, 3.25], [4.5, 5.0, 6.75]]),
    }
    chunk = Chunk(columns, (2, 3), {k: mask for k in columns})
    got = chunk_bytes(chunk, list(columns), [b"", b",", b",", b","], b"\n", _csv_text, nan)
    lines = []
    for i in range(2):
        cells = []
        for v in columns.values():
            x = np.broadcast_to(v, (2, 3))[i] if isinstance(v, np.ndarray) else [v] * 3
            cells.append([x[j] for j in range(3)])
        for j in range(3):
            row = []
            for col in cells:
                x = float(col[j])
                text = str(int(x)) if x == int(x) else repr(x)
                row.append(text if mask[i, j] else nan.decode())
            lines.append(",".join(row))
    assert bytes(got).decode() == "".join(line + "\n" for line in lines)


@pytest.mark.parametrize("to_file", [False, True])
def test_a_failing_worker_fails_the_write(monkeypatch, tmp_path, to_file):
    """A worker's exception reaches the writer as one error (through a pipe or to a file)."""
    import calc.reports.sweep_io as io_mod

    real = io_mod.chunk_bytes
    calls = []

    def failing(chunk, *args):
        calls.append(1)
        if len(calls) == 2:
            raise ValueError("boom")
        return real(chunk, *args)

    monkeypatch.setattr(io_mod, "chunk_bytes", failing)
    p = plan(["llama3-8b", "llama3-70b"], ["h100"], **GRID, chunk_rows=5)
    with pytest.raises(RuntimeError, match="sweep worker failed: ValueError: boom"):
        if to_file:
            with open(tmp_path / "grid.csv", "wb") as fh:
                write_csv(p, fh, 2)
        else:
            write_csv(p, io.BytesIO(), 2)
