"""The sweep's fast CSV path (numpy-built text, calc.output.fastfmt and calc.reports.sweep_io)
against a plain reference: Python's ``csv`` module writing ``str(int)`` for integers and
integer-valued floats below 2^53, ``repr`` for other floats, true/false for booleans and an
empty cell for NaN (a configuration that does not fit has no price). Byte for byte, in one
process and in worker processes, on random values and their edge cases."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calc.output.fastfmt import float_matrix, join_rows, number_matrix
from calc.output.render import safe_cell
from calc.reports.sweep import plan, sweep
from calc.reports.sweep_io import chunk_bytes, write_csv

EDGE_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 100.0, 123.456, -123.456,
    1e-4, 9.999999999999999e-05, 1.0000000000000002e-4, 1e-5, 5e-324, 2.2250738585072014e-308,
    1e15, 1e15 + 0.5, 1e16, 9999999999999998.0, 2.0**53, 2.0**53 + 2, 2.0**53 - 1, 1e17, 1e300,
    1.7976931348623157e308, -1.7976931348623157e308, 123456789012345.67, 709414035920511.75,
    0.9999999999999999, 999.9999999999999, 0.005383003701492538, 185.76988897903442,
    float("nan"), float("inf"), float("-inf"), 2.0**-10, 2.0**-13, 2.0**-14, 3.0e15 + 0.25,
]  # fmt: skip


def _reference(value, nan: str = "") -> str:
    """What the sweep writes for one number, by plain Python."""
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, int | np.integer):
        return str(int(value))
    v = float(value)
    if v != v:
        return nan
    if math.isfinite(v) and abs(v) < 2**53 and v == math.floor(v):
        return str(int(v))
    return repr(v)


def _texts(matrix: np.ndarray) -> list[str]:
    newline = np.full((matrix.shape[0], 1), ord("\n"), dtype=np.uint8)
    return join_rows(np.concatenate([matrix, newline], axis=1)).decode().split("\n")[:-1]


def _random_floats(rng, n: int) -> np.ndarray:
    return np.concatenate(
        [
            rng.random(n) * 10.0 ** rng.integers(-8, 18, n),  # every magnitude repr writes
            -rng.random(n // 4) * 10.0 ** rng.integers(-5, 16, n // 4),  # negatives
            1 / rng.integers(1, 10**9, n // 4),  # 16 or 17 digits
            np.round(rng.random(n // 4) * 10**6, 3),  # few digits: trailing zeros dropped
            rng.integers(0, 10**12, n // 4).astype(np.float64),  # integer-valued
            np.frombuffer(rng.bytes(8 * (n // 4)), dtype=np.float64),  # any bit pattern
            np.nextafter(10.0 ** rng.integers(-4, 17, n // 4), 0.0),  # just below 10^k
        ]
    )


@pytest.mark.parametrize("nan", [b"", b"null"])
@pytest.mark.parametrize("prefix", [b"", b",", b', "usd_per_hour": '])
def test_numbers_equal_the_reference(nan, prefix):
    rng = np.random.default_rng(7)
    x = np.concatenate([np.array(EDGE_FLOATS), _random_floats(rng, 20_000)])
    x[rng.integers(0, x.size, 500)] = np.nan  # NaN scattered among fast-path values
    want = [prefix.decode() + _reference(v, nan.decode()) for v in x.tolist()]
    assert _texts(number_matrix(x, nan, prefix)) == want
    ints = rng.integers(-(2**62), 2**62, 5_000)
    ints[:4] = [0, -1, 2**62, -(2**62)]
    assert _texts(number_matrix(ints, nan, prefix)) == [prefix.decode() + str(v) for v in ints]
    flags = rng.random(100) < 0.5
    assert _texts(number_matrix(flags, nan, prefix)) == [
        prefix.decode() + ("true" if f else "false") for f in flags
    ]


def test_nan_rows_among_fast_path_rows():
    """A cost column: prices where the configuration fits, NaN (empty) where it does not,
    including a column that is NaN on every row and one with NaN and a slow-path value."""
    x = np.array([0.25, np.nan, 12.5, np.nan, 1e-3])
    assert _texts(float_matrix(x)) == ["0.25", "", "12.5", "", "0.001"]
    assert _texts(float_matrix(x, b"null", b",")) == [",0.25", ",null", ",12.5", ",null", ",0.001"]
    assert _texts(float_matrix(np.full(3, np.nan), b"", b",")) == [","] * 3
    y = np.array([np.nan, 0.0, 1e-9, 7.5])
    assert _texts(float_matrix(y, b"", b",")) == [",", ",0.0", ",1e-09", ",7.5"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(), min_size=1, max_size=40),
    st.sampled_from([b"", b",", b"; "]),
)
def test_any_float_with_a_prefix(values, prefix):
    got = _texts(number_matrix(np.array(values, dtype=np.float64), b"", prefix))
    assert got == [prefix.decode() + _reference(v) for v in values]


def _csv_reference(result) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(list(result.columns))
    for row in zip(*result.columns.values(), strict=True):
        writer.writerow(
            [safe_cell(v.item()) if isinstance(v.item(), str) else _reference(v) for v in row]
        )
    return buf.getvalue().encode()


GRID = dict(ctx=[1000, 8192, 32768, 131072], batch=[1, 3, 64, 300, 1024], tp=[1, 8], pp=[1, 2])


@pytest.mark.parametrize("jobs", [1, 2])
def test_csv_file_equals_the_csv_module(jobs):
    """The whole CSV of a grid with rows that fit and rows that do not (empty cost cells),
    small and large figures, per-ctx and per-row columns, against ``csv.writer`` of the same
    rows; chunks of 7 rows cut through ctx and batch."""
    models, hws = ["llama3-8b", "llama3-70b"], ["h100", "mi300x"]
    result = sweep(models, hws, **GRID)
    assert any(v != v for v in result.columns["usd_per_million_output_tokens"].tolist())
    want = _csv_reference(result)
    for chunk_rows in (7, 1 << 16):
        buf = io.BytesIO()
        write_csv(plan(models, hws, **GRID, chunk_rows=chunk_rows), buf, jobs)
        assert buf.getvalue() == want, chunk_rows


def test_per_row_cells_with_separators_between_them():
    """Per-row columns side by side (their separators written with the cells), per-ctx and
    constant columns between, a prefix-free first column: the same text as the reference."""
    from calc.reports.sweep import Chunk
    from calc.reports.sweep_io import _csv_text

    rng = np.random.default_rng(3)
    c, b = 5, 4
    columns = {
        "a": rng.random((c, b)) * 1e3,
        "b": rng.integers(-5, 5, (c, b)),
        "c": rng.random((c, b)) < 0.5,
        "d": np.where(rng.random((c, b)) < 0.3, np.nan, rng.random((c, b))),
        "e": rng.random((c, 1)),
        "f": "name,with comma",
        "g": np.array([[0.5] * b]),  # per batch, the same on every row after all
        "h": rng.random((c, b)),
    }
    chunk = Chunk(columns, (c, b))
    seps = [b""] + [b","] * (len(columns) - 1)
    got = bytes(chunk_bytes(chunk, list(columns), seps, b"\n", _csv_text, b"")).decode()
    lines = []
    for i in range(c):
        for j in range(b):
            cells = []
            for v in columns.values():
                if isinstance(v, str):
                    cells.append('"name,with comma"')
                else:
                    cells.append(_reference(np.broadcast_to(v, (c, b))[i, j].item()))
            lines.append(",".join(cells) + "\n")
    assert got == "".join(lines)


def _one_process_bytes(p) -> bytes:
    buf = io.BytesIO()
    write_csv(p, buf, 1)
    return buf.getvalue()


def test_workers_write_to_a_pipe_in_turn():
    """To a pipe (stdout piped on), the workers write their chunks themselves, each once the
    chunk before is written: the same bytes as one process, in order."""
    import os
    import threading

    models, hws = ["llama3-8b", "llama3-70b"], ["h100"]
    one = _one_process_bytes(plan(models, hws, **GRID, chunk_rows=5))
    p = plan(models, hws, **GRID, chunk_rows=5)
    r, w = os.pipe()
    got: list[bytes] = []

    def read() -> None:
        with os.fdopen(r, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read)
    reader.start()
    with open(w, "wb") as fh:
        write_csv(p, fh, 3)
        fh.write(b"#end\n")  # after the rows
    reader.join()
    assert got == [one + b"#end\n"]
    assert any("do not fit" in m for m in p.warnings)


def test_workers_write_to_dev_null_and_a_closed_pipe_is_a_broken_pipe():
    import os

    p = plan(["llama3-8b"], ["h100"], **GRID, chunk_rows=5)
    with open(os.devnull, "wb") as fh:
        write_csv(p, fh, 2)
    r, w = os.pipe()
    os.close(r)
    with pytest.raises(BrokenPipeError), open(w, "wb") as fh:
        write_csv(plan(["llama3-8b"], ["h100"], **GRID, chunk_rows=5), fh, 2)


def test_a_workers_failed_write_is_raised_as_the_same_error():
    """A worker that cannot write (a full disk, a closed pipe) fails the write with the error
    this process would have had, which the CLI reports as for any output."""
    import errno

    from calc.reports.sweep_io import _raise

    with pytest.raises(OSError) as info:
        _raise("OSError: [Errno 28] No space left on device", errno.ENOSPC)
    assert info.value.errno == errno.ENOSPC
    with pytest.raises(BrokenPipeError):
        _raise("BrokenPipeError: [Errno 32] Broken pipe", errno.EPIPE)
    with pytest.raises(RuntimeError, match="sweep worker failed: ValueError"):
        _raise("ValueError: bad", 0)
