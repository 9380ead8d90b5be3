"""Writes a sweep's rows as they are computed [CSV, JSON, JSON Lines or Parquet bytes], one chunk
at a time, so memory stays independent of the row count.

Each chunk's text is built with numpy (``calc.output.fastfmt``): a value the same on every row of
the chunk (a model name, a KV budget) or on every row of one ctx or one batch is formatted once,
the per-row figures a whole column at a time; the cells of a row sit in one uint8 matrix (the
cells shared by the rows of a ctx laid into one template row, copied whole) whose NUL padding
is deleted in a single pass. Numbers are unrounded (floats as ``repr``, integers as ``str``); a
NaN cell (the cost of a configuration that does not fit) is empty in CSV and ``null`` in JSON.
Strings are CSV-quoted and neutralised (``calc.output.render.safe_cell``) or JSON-encoded.
With ``jobs`` > 1, forked workers compute and format the chunks; for CSV to a descriptor they
also write them (at their offsets in a regular file, in turn elsewhere), otherwise they pipe
them to this process (``calc.reports.sweep_workers``: workers that die with kvcalc, waited for
with a bound). A regular file is written behind (its pages sent to disk and dropped from the
page cache as the chunks go).
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

import numpy as np

from calc.output.fastfmt import keep_heap, number_matrix, text_matrix
from calc.output.result import Report
from calc.reports.sweep_workers import can_fork, piped, written
from calc.reports.sweep_workers import raise_failure as _raise  # noqa: F401 (tests use it)

FORMATS = ("table", "json", "csv", "jsonl", "parquet")


def _csv_text(value: str) -> bytes:
    import csv
    import io

    from calc.output.render import safe_cell

    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow([safe_cell(value)])
    return buf.getvalue().encode()


def _json_text(value: str) -> bytes:
    return json.dumps(value).encode()


@functools.lru_cache(maxsize=256, typed=True)  # typed: True, 1 and 1.0 are equal keys
def _scalar(value, text: Callable[[str], bytes], nan: bytes) -> bytes:
    """A value the same on every row of a chunk (computed once per group: cached), written as
    ``number_matrix`` writes it: booleans true/false, integers and integer-valued floats
    below 2^53 as ints, other floats as repr, NaN as ``nan``."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, bool | np.bool_):
        return b"true" if value else b"false"
    if isinstance(value, int | np.integer):
        return str(int(value)).encode()
    v = float(value)
    if v != v:
        return nan
    if math.isfinite(v) and abs(v) < 2**53 and v == math.floor(v):
        return str(int(v)).encode()
    return repr(v).encode()


def _cells(value, shape, text, nan, mask=None, prefix=b"") -> np.ndarray:
    """uint8 [C, B, W] (broadcastable; each row's characters contiguous) of one column of a
    chunk, each cell after ``prefix`` (only without ``mask``); ``nan`` where ``mask`` is
    False."""
    if not isinstance(value, np.ndarray):
        cells = np.frombuffer(prefix + _scalar(value, text, nan), dtype=np.uint8)[None, None, :]
    else:
        c, b = value.shape
        cells = number_matrix(value, nan, prefix).reshape(c, b, -1)
    if mask is None or mask.all():
        return cells
    width = max(cells.shape[2], len(nan))
    cells = np.concatenate(
        [cells, np.zeros((*cells.shape[:2], width - cells.shape[2]), np.uint8)], axis=2
    )
    return np.where(mask[:, :, None], cells, _blank(nan, width))


def _blank(nan: bytes, width: int) -> np.ndarray:
    blank = np.zeros(width, dtype=np.uint8)
    blank[: len(nan)] = np.frombuffer(nan, dtype=np.uint8)
    return blank


def _kind(shape, full) -> int:
    """0: the same on every row, 1: per ctx [C, 1], 2: per batch [1, B], 3: per row."""
    if len(shape) < 2:
        return 0
    return (shape[0] == full[0] > 1) + 2 * (shape[1] == full[1] > 1)


def chunk_bytes(
    chunk, columns: Iterable[str], seps: list[bytes], end: bytes, text, nan: bytes
) -> bytearray:
    """One chunk as text: for each row ``seps[0] cell0 seps[1] cell1 ... end``.

    Each cell is formatted at its own shape ([1, 1] for a value the same on every row, [C, 1]
    per ctx, [1, B] per batch, [C, B] per row), NUL-padded to the widest value of its column
    in the chunk. Runs of cells and separators that are all per ctx (or all per batch) or the
    same on every row are joined into one piece at that shape, cheaply (C or B rows); the
    pieces are laid side by side in one [C, B] matrix of fixed-width records, each piece one
    field that a single numpy copy fills (by broadcasting where it is per ctx or per batch),
    whose NULs one ``translate`` then deletes."""
    full = chunk.shape
    pieces, masks = _pieces(_joined(_items(chunk, list(columns), seps, end, text, nan)))
    offsets = np.cumsum([0] + [p.shape[2] for p in pieces[:-1]]).tolist()
    width = sum(p.shape[2] for p in pieces)
    records = np.dtype(
        {
            "names": [f"f{i}" for i in range(len(pieces))],
            "formats": [f"V{p.shape[2]}" for p in pieces],
            "offsets": offsets,
            "itemsize": width,
        }
    )
    c, b = full
    buf = _buffer(c * b * width)  # a bytearray: NULs deleted without a copy first
    _fill(np.frombuffer(buf, dtype=records).reshape(c, b), pieces, masks, nan)
    return buf.translate(None, b"\0")


def _items(chunk, cols: list[str], seps: list[bytes], end: bytes, text, nan: bytes) -> list:
    """(kind, cells, mask) of each separator and column of ``chunk``, in order: each cell
    formatted at its own shape (``_kind``); a separator before a per-row column rides with
    its cells."""
    full = chunk.shape
    items: list[tuple[int, np.ndarray, np.ndarray | None]] = []  # (kind, cells, mask)
    for i, (key, before) in enumerate(zip(cols, seps, strict=True)):
        value = chunk.columns[key]
        mask = chunk.masks.get(key)
        if mask is not None and mask.all():
            mask = None
        prefix = b""
        if (
            before
            and mask is None
            and (not items or items[-1][0] in (-1, 3))
            and _kind(np.shape(value), full) == 3
        ):
            prefix = before  # written with the cells: no field of its own between two
        elif before:
            items.append((0, _sep(before), None))
        if isinstance(value, np.ndarray) and value.shape != full and value.size > 1:
            flat = value.reshape(-1)
            if flat.dtype.kind in "iub" or not np.isnan(flat).any():
                if (flat == flat[0]).all():  # the same on every row after all
                    value = flat[0].item()
        kind = _kind(np.shape(value), full)
        if mask is not None and kind != 3:
            # a value per ctx blanked on some rows: written at its own shape and broadcast,
            # then the rows blanked in place (cheaper than formatting a [C, B] copy of it)
            cell = _cells(value, full, text, nan)
            if cell.shape[2] < len(nan):
                cell = _widen(cell, len(nan))
            items.append((-1, cell, np.broadcast_to(mask, full)))
        else:
            items.append((kind, _cells(value, full, text, nan, mask, prefix), None))
        if i == len(cols) - 1 and end:
            items.append((0, _sep(end), None))
    return items


def _joined(items: list) -> list[list]:
    """Runs of items joined: kinds 0 with 1 or with 2; per row (3) and masked (−1) stay
    alone. [kind, [cells], mask] each."""
    groups: list[list] = []
    for kind, cell, mask in items:
        last = groups[-1] if groups else None
        if (
            last is not None
            and kind >= 0
            and last[0] >= 0
            and kind != 3
            and last[0] != 3
            and (kind | last[0]) != 3
        ):
            last[0] |= kind
            last[1].append(cell)
        else:
            groups.append([kind, [cell], mask])
    return groups


def _pieces(groups: list[list]) -> tuple[list[np.ndarray], list[np.ndarray | None]]:
    """(pieces, masks): each group's cells side by side in one contiguous array (empty
    ones dropped)."""
    pieces: list[np.ndarray] = []
    masks: list[np.ndarray | None] = []
    for _, cells, mask in groups:
        if len(cells) == 1:
            piece = cells[0]
        else:
            rows = max(c.shape[0] for c in cells), max(c.shape[1] for c in cells)
            piece = np.concatenate([np.broadcast_to(c, (*rows, c.shape[2])) for c in cells], axis=2)
        if piece.shape[2]:
            if piece.strides[2] != 1:
                piece = np.ascontiguousarray(piece)
            pieces.append(piece)
            masks.append(mask)
    return pieces, masks


def _fill(matrix: np.ndarray, pieces: list, masks: list, nan: bytes) -> None:
    """Each piece into its field of ``matrix`` [C, B] (broadcast where it is per ctx or per
    batch), its masked rows blanked to ``nan``. The pieces the same on every row of a ctx
    (per ctx or constant) are first laid into one row per ctx, which a single copy per row
    writes whole; then the others. A block of rows at a time, every piece into it while it
    is in the CPU's cache."""
    c, b = matrix.shape
    cells = [p.view(f"V{p.shape[2]}").reshape(p.shape[:2]) for p in pieces]
    blanks = [
        None if m is None else _blank(nan, p.shape[2]).view(f"V{p.shape[2]}")[0]
        for p, m in zip(pieces, masks, strict=True)
    ]
    shared = [i for i, p in enumerate(pieces) if p.shape[1] == 1] if b > 1 else []
    template = None
    if len(shared) > 1:
        template = np.zeros((max(pieces[i].shape[0] for i in shared), 1), dtype=matrix.dtype)
        for i in shared:
            template[f"f{i}"] = cells[i]
        template = template.view(f"V{matrix.itemsize}")
        rest = [i for i in range(len(pieces)) if i not in shared or masks[i] is not None]
    else:
        rest = list(range(len(pieces)))
    whole = matrix.view(f"V{matrix.itemsize}")
    step = max(1, _BLOCK_BYTES // (matrix.itemsize * (b if c > 1 else 1)))
    for lo in range(0, c if c > 1 else b, step):
        rows = (slice(lo, lo + step), slice(None)) if c > 1 else (slice(None), slice(lo, lo + step))
        if template is not None:
            whole[rows] = template[rows[0] if template.shape[0] > 1 else slice(None)]
        block = matrix[rows]
        for i in rest:
            cell, mask = cells[i], masks[i]
            field = block[f"f{i}"]
            if template is None or i not in shared:
                part = tuple(
                    r if n > 1 else slice(None) for r, n in zip(rows, cell.shape, strict=True)
                )
                field[...] = cell[part]
            if mask is not None:
                field[~mask[rows]] = blanks[i]


_BLOCK_BYTES = 1 << 20  # rows filled at a time: about the CPU's L2 cache


def _widen(cells: np.ndarray, width: int) -> np.ndarray:
    pad = np.zeros((*cells.shape[:2], width - cells.shape[2]), np.uint8)
    return np.concatenate([cells, pad], axis=2)


_BUFFERS: list[bytearray] = []


def _buffer(size: int) -> bytearray:
    """A bytearray of ``size`` bytes, the previous chunk's resized in place (its allocation
    kept: no zero-filling of a fresh one, whose pages the kernel would also fault in anew).
    Every byte is overwritten by the caller."""
    if not _BUFFERS:
        _BUFFERS.append(bytearray(size))
    buf = _BUFFERS[0]
    try:
        if len(buf) > size:
            del buf[size:]
        elif len(buf) < size:
            buf.extend(bytes(size - len(buf)))
    except BufferError:  # still viewed (a traceback holding a failed chunk's arrays)
        buf = _BUFFERS[0] = bytearray(size)
    return buf


def _sep(sep: bytes) -> np.ndarray:
    return np.frombuffer(sep, dtype=np.uint8)[None, None, :]


class _Render:
    """One chunk -> its text (a picklable callable, run in worker processes too)."""

    def __init__(self, columns, seps, end, text, nan):
        self.args = (list(columns), seps, end, text, nan)

    def __call__(self, chunk) -> bytearray:
        keep_heap()
        return chunk_bytes(chunk, *self.args)


def _csv_render(plan) -> _Render:
    seps = [b""] + [b","] * (len(plan.columns) - 1)
    return _Render(plan.columns, seps, b"\n", _csv_text, b"")


def _json_render(plan) -> _Render:
    cols = list(plan.columns)
    seps = [b'\n    {"%s": ' % cols[0].encode()] + [b', "%s": ' % k.encode() for k in cols[1:]]
    return _Render(cols, seps, b"},", _json_text, b"null")


def _jsonl_render(plan) -> _Render:
    cols = list(plan.columns)
    seps = [b'{"%s": ' % cols[0].encode()] + [b', "%s": ' % k.encode() for k in cols[1:]]
    return _Render(cols, seps, b"}\n", _json_text, b"null")


def write_csv(plan, fh: BinaryIO, jobs: int = 1) -> None:
    """Header, then every row: stable column order, unrounded numbers, empty NaN cells."""
    fh.write(b",".join(_csv_text(k) for k in plan.columns) + b"\n")
    _write_lines(plan, fh, jobs, _csv_render(plan))


def write_jsonl(plan, fh: BinaryIO, jobs: int = 1) -> None:
    """JSON Lines: every row one JSON object on its own line, keys in the column order,
    unrounded numbers, ``null`` where CSV leaves a cell empty; no header, no enclosing list
    (``jq``, pandas ``read_json(lines=True)`` and polars ``read_ndjson`` read it a line at a
    time)."""
    _write_lines(plan, fh, jobs, _jsonl_render(plan))


def _write_lines(plan, fh: BinaryIO, jobs: int, render: _Render) -> None:
    """Every chunk's text after what ``fh`` holds: written by the workers themselves where
    they can reach its descriptor (``sweep_workers.written``), else in order by this process."""
    fd = _writable_fd(fh) if jobs > 1 and plan.n_chunks > 1 and can_fork() else None
    if fd is not None:  # the workers write their chunks to the descriptor themselves
        fh.flush()
        at = os.lseek(fd, 0, os.SEEK_CUR) if _regular_fd(fd) else None

        def serial() -> int:  # no descriptors or processes for workers: this process writes
            _write_rows(plan, fh, 1, render)
            fh.flush()
            return os.lseek(fd, 0, os.SEEK_CUR) if at is not None else 0

        end = written(plan, render, min(jobs, plan.n_chunks), fd, at, serial,
                      _WriteBehind.at)  # fmt: skip
        if at is not None:
            fh.seek(end)
        return
    _write_rows(plan, fh, jobs, render)


def _write_rows(plan, fh: BinaryIO, jobs: int, render: _Render) -> None:
    behind = _WriteBehind.of(fh)
    for text in rendered(plan, render, jobs):
        fh.write(text)
        if behind is not None:
            behind.wrote_through(fh, len(text))


class _WriteBehind:
    """Write-behind for a large file written a chunk at a time: each chunk's pages are sent
    to the disk as soon as written (Linux's sync_file_range), and dropped from the page cache
    two chunks later, once on disk (posix_fadvise DONTNEED), so the page cache holds a few
    chunks rather than the whole file. The pages are then reused from chunk to chunk: fresh
    page-cache pages cost the kernel ~4 ns a byte on the development VM (11.6 s for a 2.8 GB
    file, 1.0-1.6 s with write-behind). The price: a disk slower than the formatting sets the
    pace (the writer waits for the chunk two back), where the page cache would otherwise
    take the file and write it later. Nothing is lost: only pages already on disk are
    dropped. A no-op where either call is missing or fails (not Linux, not a regular file)."""

    _sync = None  # libc's sync_file_range, looked up once; False: not available

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending: list[tuple[int, int]] = []

    @classmethod
    def at(cls, fd: int) -> _WriteBehind:
        """The write-behind of ``fd`` (its calls looked up), for a worker writing at offsets."""
        cls._lookup()
        return cls(fd)

    @classmethod
    def of(cls, fh) -> _WriteBehind | None:
        fd = _writable_fd(fh)
        return cls(fd) if fd is not None and _regular_fd(fd) and cls._lookup() else None

    @classmethod
    def _lookup(cls):
        if cls._sync is None:
            cls._sync = False
            try:
                import ctypes

                sync = ctypes.CDLL(None, use_errno=True).sync_file_range
                sync.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
                if hasattr(os, "posix_fadvise"):
                    cls._sync = sync
            except (OSError, AttributeError, TypeError):
                pass
        return cls._sync

    def wrote_through(self, fh, length: int) -> None:
        """``length`` bytes just written to ``fh``, which ends where they end."""
        fh.flush()
        self.wrote(os.lseek(self.fd, 0, os.SEEK_CUR) - length, length)

    def wrote(self, offset: int, length: int) -> None:
        sync = self._sync
        if not sync or length <= 0:
            return
        # SYNC_FILE_RANGE_WRITE 2: start writing; WAIT_BEFORE 1 | WRITE 2 | WAIT_AFTER 4: on disk
        sync(self.fd, offset, length, 2)
        self.pending.append((offset, length))
        while len(self.pending) > 2:
            at, n = self.pending.pop(0)
            if sync(self.fd, at, n, 7) == 0:
                try:
                    os.posix_fadvise(self.fd, at, n, os.POSIX_FADV_DONTNEED)
                except OSError:
                    pass


def _writable_fd(fh) -> int | None:
    """The descriptor of ``fh`` (a file, a pipe, a terminal, /dev/null) that worker processes
    can write to, else None (a BytesIO, a stream without a descriptor)."""
    try:
        fd = fh.fileno()
        os.fstat(fd)
        return fd
    except (AttributeError, OSError, ValueError):
        return None


def _regular_fd(fd: int) -> bool:
    """Whether workers can write to ``fd`` at an offset (os.pwrite): a regular file not opened
    for appending (where Linux's pwrite ignores the offset); else they write in turn."""
    import stat

    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        import fcntl

        return not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND
    except (ImportError, OSError):
        return False


def write_json(plan, fh: BinaryIO, jobs: int = 1) -> None:
    """``{"n_rows": N, "rows": [{...}, ...]}``, a row per line, streamed."""
    fh.write(b'{\n  "n_rows": %d,\n  "rows": [' % plan.n_rows)
    first = True
    behind = _WriteBehind.of(fh)
    for text in rendered(plan, _json_render(plan), jobs):
        if not first:  # a comma between rows, none after the last
            fh.write(b",")
        fh.write(text[:-1])
        if behind is not None:
            behind.wrote_through(fh, len(text) - 1)
        first = False
    fh.write(b"\n  ]\n}\n" if not first else b"]\n}\n")


def rendered(plan, render: Callable, jobs: int = 1) -> Iterator[bytes]:
    """``render(chunk)`` of every chunk, in order; with ``jobs`` > 1 the chunks are computed
    and rendered by that many forked worker processes (worker k takes chunks k, k + jobs, ...)
    while this process writes. Counts the rows that do not fit into ``plan.warnings``."""
    from calc.reports.sweep import not_fitting_rows

    def serial() -> Iterator[bytes]:
        not_fitting = 0
        for make in plan.lazy_chunks():
            chunk = make()
            not_fitting += not_fitting_rows(chunk)
            yield render(chunk)
        plan.count_not_fitting(not_fitting)

    if jobs <= 1 or plan.n_chunks < 2 or not can_fork():
        yield from serial()
        return
    yield from piped(plan, render, min(jobs, plan.n_chunks), serial)


# Parquet column types, one schema for the whole file whatever each chunk's values (a value the
# same on every row of one group may be a Python int there and a float in the next group)
PARQUET_STRINGS = ("model", "hardware", "weight_dtype", "kv_dtype")
PARQUET_BOOLS = ("fits", "calibrated")
PARQUET_INTS = (
    "tp",
    "pp",
    "ctx",
    "batch",
    "prompt",
    "gen",
    "gpus",
    "kv_cache_tokens",
    "max_concurrency",
    "serving_concurrency",
)  # fmt: skip  (every other column: float64; byte counts are exact in it below 2^53)


def parquet_schema(columns):
    """The Arrow schema of a sweep's columns: strings, booleans, int64 and float64 by name."""
    import pyarrow as pa

    def kind(name):
        if name in PARQUET_STRINGS:
            return pa.string()
        if name in PARQUET_BOOLS:
            return pa.bool_()
        return pa.int64() if name in PARQUET_INTS else pa.float64()

    return pa.schema([(k, kind(k)) for k in columns])


def _parquet_column(values, kind):
    """One chunk's column as an Arrow array of the schema's type; NaN in an integer column
    (no sequence fits: no concurrency) is null."""
    import pyarrow as pa

    if pa.types.is_int64(kind) and values.dtype.kind == "f":
        missing = np.isnan(values)
        return pa.array(np.where(missing, 0, values).astype(np.int64), kind, mask=missing)
    return pa.array(values, kind)


def write_parquet(plan, fh: BinaryIO, jobs: int = 1) -> None:
    """A Parquet file, one row group per chunk, every chunk of one schema (``parquet_schema``)
    (needs pyarrow: the ``parquet`` extra)."""
    from calc.errors import MissingDependencyError

    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingDependencyError("pyarrow", "parquet") from exc
    schema = parquet_schema(plan.columns)
    with pq.ParquetWriter(fh, schema) as writer:
        for chunk in plan.chunks():
            flat = chunk.flat()
            arrays = [_parquet_column(flat[f.name], f.type) for f in schema]
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))


WRITERS = {"csv": write_csv, "json": write_json, "jsonl": write_jsonl, "parquet": write_parquet}


def first_rows(plan, limit: int) -> list[dict]:
    """The first ``limit`` rows as dicts (for a table), evaluating only the chunks needed."""
    rows: list[dict] = []
    for chunk in plan.chunks():
        flat = chunk.flat()
        n = min(limit - len(rows), chunk.n_rows)
        lists = {k: flat[k][:n].tolist() for k in plan.columns}
        for k, values in lists.items():  # NaN (no price: does not fit) shows as "—"
            if values and isinstance(values[0], float):
                lists[k] = [None if v != v else v for v in values]
        rows += [dict(zip(lists, v, strict=True)) for v in zip(*lists.values(), strict=True)]
        if len(rows) >= limit:
            break
    return rows


@dataclass(frozen=True)
class SweepReport(Report):
    """``kvcalc sweep``'s result: ``n_rows`` and every row of the grid (``rows``: one per
    combination, the CLI's JSON values: NaN null, whole floats as integers); ``columns``: the
    same as numpy arrays, one per key (``to_pandas()`` builds its frame from them)."""

    columns: dict = field(default_factory=dict, repr=False, compare=False)

    command = "sweep"

    def to_pandas(self):
        """The grid as a pandas DataFrame, a typed column per key (needs pandas)."""
        from calc.output.result import data_frame

        return data_frame([], columns=self.columns)


def sweep_report(plan) -> SweepReport:
    """The whole grid of ``plan`` in memory: its rows as ``-f json`` prints them and its
    columns as arrays (for small grids and the API; the CLI streams the rows instead)."""
    render = _jsonl_render(plan)
    rows: list[dict] = []
    parts: list[dict] = []
    for chunk in plan.chunks():
        rows += [json.loads(line) for line in bytes(render(chunk)).splitlines()]
        parts.append(chunk.flat())
    columns = {k: np.concatenate([p[k] for p in parts]) if parts else np.zeros(0)
               for k in plan.columns}  # fmt: skip
    fields = {"n_rows": plan.n_rows, "rows": rows}
    return SweepReport(fields, (), tuple(plan.warnings), rows, columns=columns)


def to_csv_text(plan) -> str:
    """The whole CSV as a string (small grids, tests)."""
    import io

    buf = io.BytesIO()
    write_csv(plan, buf)
    return buf.getvalue().decode()


__all__ = ["FORMATS", "WRITERS", "chunk_bytes", "first_rows", "text_matrix", "to_csv_text"]
