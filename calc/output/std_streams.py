"""Keeps the process's standard streams usable to the end: a closed stdin, stdout or stderr
(``>&-``) is held by /dev/null so no file kvcalc opens lands on descriptor 0-2, a closed
stdout fails the first write with one clear error, and once a write to stdout has failed
(a full disk, a closed pipe) nothing buffered is left for the interpreter to flush at exit
(no "Exception ignored" noise after the one error line)."""

from __future__ import annotations

import errno
import io
import os
import sys


class ClosedStdout(io.TextIOBase):
    """Stands for a stdout the caller closed: every write fails as writing to descriptor 1
    would (EBADF), and ``buffer`` is this stream again (binary writers fail alike)."""

    encoding = "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:  # type: ignore[override]
        raise OSError(errno.EBADF, "standard output is closed")

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "standard output is closed")

    @property
    def buffer(self) -> ClosedStdout:
        return self


def hold_closed_descriptors() -> None:
    """Put /dev/null on whichever of descriptors 0, 1, 2 the caller closed, and replace a
    missing ``sys.stdout`` by ``ClosedStdout`` and a missing ``sys.stderr`` by /dev/null
    (an error line then goes nowhere; the exit code still says it)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                held = os.open(os.devnull, os.O_RDWR)
            except OSError:
                return
            if held != fd:  # a lower descriptor was free: cannot happen, 0..fd-1 are held
                os.dup2(held, fd)
                os.close(held)
    if sys.stdout is None:
        sys.stdout = ClosedStdout()
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # held for the whole process


_wrapped: list[int] = []  # the descriptor of the process's stdout, once whole_stdout wrapped it


def whole_stdout() -> None:
    """Make the process's own stdout write every byte or raise (``safe_io.WholeWrites``): the
    interpreter's stream may report a short write to a file that reached its size limit and
    lose the rest in silence, exiting 0 with half a table. A stdout that is not the process's
    own (a test's capture) is left alone."""
    from calc.output.safe_io import whole_writer

    stream = sys.stdout
    if stream is None or stream is not sys.__stdout__ or not isinstance(stream, io.TextIOWrapper):
        return
    try:
        fd = stream.fileno()
        stream.flush()
    except (OSError, ValueError):
        return
    sys.stdout = io.TextIOWrapper(
        whole_writer(fd),
        encoding=stream.encoding,
        errors=stream.errors,
        newline="\n",
        line_buffering=stream.line_buffering,
    )
    _wrapped.append(fd)


def discard_stdout() -> None:
    """After a failed write to the real stdout: point descriptor 1 at /dev/null, so what is
    still buffered goes nowhere when the interpreter flushes at exit (instead of failing
    again and printing "Exception ignored"). A stdout that is not the process's own (a test's
    capture) is left alone."""
    stream = sys.stdout
    if stream is None or (stream is not sys.__stdout__ and not _wrapped):
        return
    try:
        fd = _wrapped[0] if _wrapped else stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError, AttributeError):
        return
    try:
        os.dup2(null, fd)
    except OSError:
        pass
    finally:
        os.close(null)


def write_error_line(line: str) -> None:
    """``line`` on stderr, quietly giving up when stderr cannot be written either."""
    try:
        sys.stderr.write(line)
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def output_error_message(exc: OSError) -> str:
    """One line for an OSError that escaped a command: a failed write of its output."""
    why = exc.strerror or str(exc) or type(exc).__name__
    if exc.errno == errno.EPIPE or isinstance(exc, BrokenPipeError):
        return "cannot write the output: the reader closed the pipe (broken pipe)"
    if getattr(exc, "filename", None):
        return f"{exc.filename}: {why}"
    return f"cannot write the output: {why}"
