"""Writes a sweep's rows as they are computed [CSV, JSON or Parquet bytes], one chunk at a time,
so memory stays independent of the row count.

Each chunk's text is built with numpy (``calc.output.fastfmt``): a value the same on every row of
the
chunk (a model name, a KV budget) or on every row of one ctx or one batch is formatted once,
the per-row figures a whole column at a time; the cells of a row sit in one uint8 matrix whose
NUL padding is deleted in a single pass. Numbers are unrounded (floats as ``repr``, integers
as ``str``); a NaN cell (the cost of a configuration that does not fit) is empty in CSV and
``null`` in JSON. Strings are CSV-quoted and neutralised (``calc.output.render.safe_cell``) or
JSON-encoded.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

import numpy as np

from calc.output.fastfmt import keep_heap, number_matrix, text_matrix

FORMATS = ("table", "json", "csv", "parquet")


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


def _cells(value, shape, text, nan, mask=None) -> np.ndarray:
    """uint8 [C, B, W] (broadcastable) of one column of a chunk; ``nan`` where ``mask`` is
    False."""
    if not isinstance(value, np.ndarray):
        cells = np.frombuffer(_scalar(value, text, nan), dtype=np.uint8)[None, None, :]
    else:
        c, b = value.shape
        cells = number_matrix(value, nan).reshape(c, b, -1)
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


def chunk_bytes(
    chunk, columns: Iterable[str], seps: list[bytes], end: bytes, text, nan: bytes
) -> bytearray:
    """One chunk as text: for each row ``seps[0] cell0 seps[1] cell1 ... end``.

    Each cell is formatted at its own shape ([1, 1] for a value the same on every row, [C, 1]
    per ctx, [C, B] per row), NUL-padded to the widest value of its column in the chunk; the
    cells and separators are laid side by side in one [C, B] matrix of fixed-width records,
    each cell one field that a single numpy copy fills (a cell of any width is one element,
    a value the same on every row or every ctx written by broadcasting), whose NULs one
    ``translate`` then deletes. Runs of values the same on every row are joined first."""
    cols = list(columns)
    after = [*seps[1:], end]
    pieces: list[np.ndarray] = [np.frombuffer(seps[0], dtype=np.uint8)[None, None, :]]
    masked: dict[int, tuple] = {}  # piece -> (where its cells stay, else ``nan``; the cell)
    pending = b""  # the separator after a per-row cell, joined to the next smaller piece
    for key, sep in zip(cols, after, strict=True):
        mask = chunk.masks.get(key)
        if mask is not None and not mask.all() and np.shape(chunk.columns[key])[:2] != chunk.shape:
            # a value per ctx blanked on some rows: written at its own shape, then the rows
            # blanked in place (cheaper than formatting a [C, B] copy of it)
            cell = _cells(chunk.columns[key], chunk.shape, text, nan)
            if cell.shape[2] < len(nan):
                cell = np.concatenate(
                    [cell, np.zeros((*cell.shape[:2], len(nan) - cell.shape[2]), np.uint8)], 2
                )
            if pending:
                pieces.append(_sep(pending))
            masked[len(pieces)] = (np.broadcast_to(mask, chunk.shape), cell)
            pieces.append(np.broadcast_to(cell, (*chunk.shape, cell.shape[2])))
            pending = sep
            continue
        cell = _cells(chunk.columns[key], chunk.shape, text, nan, mask)
        if cell.shape[:2] == (1, 1) and pieces[-1].shape[:2] == (1, 1) and not pending:
            pieces[-1] = np.concatenate([pieces[-1], cell, _sep(sep)], axis=2)
        elif cell.shape[:2] != chunk.shape:  # per ctx, per batch or constant: cheap to join
            before = np.broadcast_to(_sep(pending), (*cell.shape[:2], len(pending)))
            seps_ = np.broadcast_to(_sep(sep), (*cell.shape[:2], len(sep)))
            pieces.append(np.concatenate([before, cell, seps_], axis=2))
            pending = b""
        else:
            if pending:
                pieces.append(_sep(pending))
            pieces.append(cell)
            pending = sep
    if pending:
        pieces.append(_sep(pending))
    masked = {id(pieces[i]): m for i, m in masked.items()}
    pieces = [p for p in pieces if p.shape[2]]
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
    c, b = chunk.shape
    buf = _buffer(c * b * width)  # a bytearray: NULs deleted without a copy first
    matrix = np.frombuffer(buf, dtype=records).reshape(c, b)
    for i, p in enumerate(pieces):
        if id(p) in masked:  # the cell at its own shape broadcast, then its blank rows
            mask, cell = masked[id(p)]
            field = matrix[f"f{i}"]
            field[...] = np.ascontiguousarray(cell).view(f"V{p.shape[2]}")[:, :, 0]
            field[~mask] = _blank(nan, p.shape[2]).view(f"V{p.shape[2]}")[0]
            continue
        p = np.ascontiguousarray(p)
        matrix[f"f{i}"] = p.view(f"V{p.shape[2]}").reshape(p.shape[:2])
    del matrix
    return buf.translate(None, b"\0")


_BUFFERS: dict[int, bytearray] = {}


def _buffer(size: int) -> bytearray:
    """A bytearray of ``size`` bytes, reused from the previous chunk of the same size (every
    byte is overwritten, so it need not be cleared)."""
    buf = _BUFFERS.get(size)
    if buf is None:
        _BUFFERS.clear()
        buf = _BUFFERS[size] = bytearray(size)
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


def write_csv(plan, fh: BinaryIO, jobs: int = 1) -> None:
    """Header, then every row: stable column order, unrounded numbers, empty NaN cells."""
    fh.write(b",".join(_csv_text(k) for k in plan.columns) + b"\n")
    fd = _regular_fd(fh) if jobs > 1 and plan.n_chunks > 1 and _can_fork() else None
    if fd is not None:  # the workers write their chunks into the file themselves
        fh.flush()
        end = _parallel_pwrite(plan, _csv_render(plan), min(jobs, plan.n_chunks), fd,
                               os.lseek(fd, 0, os.SEEK_CUR))  # fmt: skip
        fh.seek(end)
        return
    for text in rendered(plan, _csv_render(plan), jobs):
        fh.write(text)


def _regular_fd(fh) -> int | None:
    """The descriptor of ``fh`` where it is a regular file (one that workers can write at an
    offset), else None (a pipe, a terminal, a BytesIO, a file opened for appending, where
    Linux's pwrite ignores the offset)."""
    import stat

    try:
        fd = fh.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        import fcntl

        return None if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND else fd
    except (AttributeError, ImportError, OSError, ValueError):
        return None


def write_json(plan, fh: BinaryIO, jobs: int = 1) -> None:
    """``{"n_rows": N, "rows": [{...}, ...]}``, a row per line, streamed."""
    fh.write(b'{\n  "n_rows": %d,\n  "rows": [' % plan.n_rows)
    first = True
    for text in rendered(plan, _json_render(plan), jobs):
        if not first:  # a comma between rows, none after the last
            fh.write(b",")
        fh.write(text[:-1])
        first = False
    fh.write(b"\n  ]\n}\n" if not first else b"]\n}\n")


def rendered(plan, render: Callable, jobs: int = 1) -> Iterator[bytes]:
    """``render(chunk)`` of every chunk, in order; with ``jobs`` > 1 the chunks are computed
    and rendered by that many forked worker processes (worker k takes chunks k, k + jobs, ...)
    while this process writes. Counts the rows that do not fit into ``plan.warnings``."""
    from calc.reports.sweep import not_fitting_rows

    if jobs <= 1 or plan.n_chunks < 2 or not _can_fork():
        not_fitting = 0
        for make in plan.lazy_chunks():
            chunk = make()
            not_fitting += not_fitting_rows(chunk)
            yield render(chunk)
        plan.count_not_fitting(not_fitting)
        return
    yield from _parallel(plan, render, min(jobs, plan.n_chunks))


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _default_signals() -> None:
    """In a worker: SIGTERM and SIGHUP kill it plainly (the handlers inherited from the parent
    remove the parent's temp file, which a stopped worker must not do)."""
    import signal

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)


def _worker(plan, render, k: int, jobs: int, conn) -> None:
    from calc.reports.sweep import not_fitting_rows

    _default_signals()
    try:
        for i, make in enumerate(plan.lazy_chunks()):
            if i % jobs == k:
                chunk = make()
                text = render(chunk)
                conn.send(("ok", not_fitting_rows(chunk), len(text)))
                _write_all(conn.fileno(), text)  # raw, after the message: no pickling
    except BaseException as exc:  # reported to the parent, which raises it
        conn.send(("error", f"{type(exc).__name__}: {exc}", 0))
    finally:
        conn.close()


def _write_all(fd: int, data) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_all(fd: int, size: int) -> memoryview:
    """``size`` bytes from the pipe ``fd`` read straight into one new buffer (a Connection's
    recv_bytes copies each 64 KiB piece twice more)."""
    buf = memoryview(np.empty(size, dtype=np.uint8))
    got = 0
    while got < size:
        n = os.readv(fd, [buf[got:]])
        if not n:
            raise RuntimeError("sweep worker ended before sending its rows")
        got += n
    return buf


def _parallel(plan, render, jobs: int) -> Iterator[bytes]:
    import multiprocessing
    import warnings

    keep_heap()  # a buffer per chunk received, reused from the heap
    ctx = multiprocessing.get_context("fork")
    pipes, procs = [], []
    try:
        for k in range(jobs):
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_worker, args=(plan, render, k, jobs, send), daemon=True)
            with warnings.catch_warnings():
                # Python ≥ 3.12 warns on fork() beside other OS threads (a BLAS pool): the
                # workers run numpy element-wise code only, which takes no lock of those
                warnings.simplefilter("ignore", DeprecationWarning)
                proc.start()
            send.close()
            pipes.append(recv)
            procs.append(proc)
        not_fitting = 0
        for i in range(plan.n_chunks):
            status, value, size = pipes[i % jobs].recv()
            if status != "ok":
                raise RuntimeError(f"sweep worker failed: {value}")
            not_fitting += value
            yield _read_all(pipes[i % jobs].fileno(), size)
        plan.count_not_fitting(not_fitting)
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
            proc.join()
        for pipe in pipes:
            pipe.close()


def _pwrite_worker(plan, render, k: int, jobs: int, conn, offsets, fd: int) -> None:
    from calc.reports.sweep import not_fitting_rows

    _default_signals()
    try:
        for i, make in enumerate(plan.lazy_chunks()):
            if i % jobs == k:
                chunk = make()
                text = render(chunk)
                conn.send(("ok", not_fitting_rows(chunk), len(text)))
                at = offsets.recv()  # where the previous chunks end
                view = memoryview(text)
                while view:
                    n = os.pwrite(fd, view, at)
                    view, at = view[n:], at + n
        conn.send(("done", 0, 0))
    except BaseException as exc:  # reported to the parent, which raises it
        conn.send(("error", f"{type(exc).__name__}: {exc}", 0))
    finally:
        conn.close()


def _parallel_pwrite(plan, render, jobs: int, fd: int, start: int) -> int:
    """Every chunk rendered by ``jobs`` forked workers (worker k takes chunks k, k + jobs, ...)
    that write their text into the regular file ``fd`` themselves, at the offset this process
    hands out in chunk order (the sum of the lengths before): no text passes through a pipe
    or this process, and the kernel's copying is shared between the workers. Returns the
    offset after the last row."""
    import multiprocessing
    import warnings

    ctx = multiprocessing.get_context("fork")
    pipes, sends, procs = [], [], []
    try:
        for k in range(jobs):
            recv, send = ctx.Pipe(duplex=False)
            o_recv, o_send = ctx.Pipe(duplex=False)
            proc = ctx.Process(
                target=_pwrite_worker, args=(plan, render, k, jobs, send, o_recv, fd), daemon=True
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # see _parallel
                proc.start()
            send.close()
            o_recv.close()
            pipes.append(recv)
            sends.append(o_send)
            procs.append(proc)
        not_fitting, at = 0, start
        for i in range(plan.n_chunks):
            status, value, size = pipes[i % jobs].recv()
            if status != "ok":
                raise RuntimeError(f"sweep worker failed: {value}")
            sends[i % jobs].send(at)
            not_fitting += value
            at += size
        for pipe in pipes:  # every worker has written its last chunk
            status, value, _ = pipe.recv()
            if status != "done":
                raise RuntimeError(f"sweep worker failed: {value}")
        plan.count_not_fitting(not_fitting)
        for proc in procs:
            proc.join()
        return at
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
            proc.join()
        for pipe in pipes + sends:
            pipe.close()


def write_parquet(plan, fh: BinaryIO, jobs: int = 1) -> None:
    """A Parquet file, one row group per chunk (needs pyarrow: the ``parquet`` extra)."""
    from calc.errors import MissingDependencyError

    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingDependencyError("pyarrow", "parquet") from exc
    writer = None
    try:
        for chunk in plan.chunks():
            flat = chunk.flat()
            table = pa.table({k: flat[k] for k in plan.columns})
            if writer is None:
                writer = pq.ParquetWriter(fh, table.schema)
            writer.write_table(table)
        if writer is None:  # no rows: the schema of an empty table
            pq.write_table(pa.table({k: [] for k in plan.columns}), fh)
    finally:
        if writer is not None:
            writer.close()


WRITERS = {"csv": write_csv, "json": write_json, "parquet": write_parquet}


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


def to_csv_text(plan) -> str:
    """The whole CSV as a string (small grids, tests)."""
    import io

    buf = io.BytesIO()
    write_csv(plan, buf)
    return buf.getvalue().decode()


__all__ = ["FORMATS", "WRITERS", "chunk_bytes", "first_rows", "text_matrix", "to_csv_text"]
