"""Opens the files kvcalc reads and writes: an input is a regular file, opened without
blocking and read up to a size cap [bytes]; an output is checked before it is written (its
kind, folder, name length, and that it is none of the command's inputs), then written
atomically when it is a regular file, or directly when it is a character device or a FIFO
(``-o /dev/null``, ``-o /dev/stdout``, ``-o >(gzip > x.gz)``).

Every failure is a typed error (ConfigError for inputs, InvalidInputError for outputs) whose
message is one line naming the path; an OS error (no permission, name too long) never
escapes as a traceback, and nothing the user had is replaced by a half-written file.
"""

from __future__ import annotations

import errno
import io
import os
import re
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from calc.errors import ConfigError, InvalidInputError

MAX_INPUT_BYTES = 1_000_000  # a config is a few KB; refuse anything absurd before parsing

# Files read by this run, by (st_dev, st_ino) -> the path as the user named it: an output
# that is one of them is refused (`-o model.yaml` must not destroy the model it read).
_inputs: dict[tuple[int, int], str] = {}

_O_READ = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the stat cannot block the open
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_CHUNK_BYTES = 1 << 16
# Paths that name an already-open stream: written in place, never renamed over.
_STDOUT = ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")
_STDERR = ("/dev/stderr", "/dev/fd/2", "/proc/self/fd/2")
_FD_PATH = re.compile(r"/(dev/fd|proc/(self|thread-self|[0-9]+)/fd)/[0-9]+")  # an open fd


class WholeWrites(io.FileIO):
    """A raw file whose ``write`` writes every byte or raises: a short write (a file-size
    limit, a disk filling up) is retried, so the error of the next attempt (EFBIG, ENOSPC)
    is raised instead of bytes lost in silence (io.BufferedWriter may report a short count
    that nobody checks)."""

    def write(self, data) -> int:  # type: ignore[override]
        view = memoryview(data).cast("B")
        total = len(view)
        while view:
            n = super().write(view)
            if n is None:  # a non-blocking descriptor that is full: wait for room
                import select

                select.select([], [self.fileno()], [])
                continue
            view = view[n:]
        return total


def whole_writer(fd: int) -> BinaryIO:
    """A buffered binary file on the open descriptor ``fd`` (left open when it is closed)
    whose writes are whole or raise (``WholeWrites``)."""
    return io.BufferedWriter(WholeWrites(fd, "wb", closefd=False), _CHUNK_BYTES)


def _kind(mode: int) -> str:
    """What a non-regular file is, for a message: 'a directory', 'a FIFO (named pipe)', ..."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _why(exc: BaseException) -> str:
    """An OS error's reason without the path (the message names it once, first)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, ValueError):  # embedded NUL byte in a path from a spec file
        return "the path contains a NUL byte"
    return str(exc)


def forget_inputs() -> None:
    """Start a new run (the CLI calls this once per command): no file has been read yet."""
    _inputs.clear()


def read_input(path: Path | str, *, what: str = "a config file",
               max_bytes: int = MAX_INPUT_BYTES) -> bytes:  # fmt: skip
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    Devices, FIFOs, sockets and directories are refused by what they are; the open never
    blocks (O_NONBLOCK) and the read stops one byte past the cap, so ``/dev/zero``, a pipe
    or a file growing under us cannot hang or exhaust memory. Raises ConfigError.
    """
    with open_input(path, what=what, max_bytes=max_bytes) as fh:
        return fh.read()


def piped_stdin(what: str, example: str) -> BinaryIO:
    """Standard input as a binary stream for an input given as ``-`` (``what``: "a start-up
    log", ``example``: the command that pipes one): one clear InvalidInputError for a closed
    stdin or a terminal (reading would wait for the user to type one)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # stdin closed (``<&-``)
        raise InvalidInputError(f"stdin: closed, nothing to read; pipe {what} in or pass its path")
    if sys.stdin.isatty():
        raise InvalidInputError(f"stdin: is a terminal, not {what}; pipe one in ({example}) "
                                "or pass its path")  # fmt: skip
    return stream


@contextmanager
def open_input(path: Path | str, *, what: str = "a config file",
               max_bytes: int = MAX_INPUT_BYTES) -> Iterator[BinaryIO]:  # fmt: skip
    """The regular file ``path`` opened for reading as ``read_input`` checks it, as a binary
    stream (for inputs read a piece at a time) that raises ConfigError once more than
    ``max_bytes`` have been read from it, or on a read error."""
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read: {_why(exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"{path}: is a directory, expected a file")
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{path}: is {_kind(st.st_mode)}, expected a regular file")
    if st.st_size > max_bytes:
        raise ConfigError(f"{path}: {st.st_size:,} bytes is too large for {what}")
    try:
        fd = os.open(path, _O_READ)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket swapped in after the stat
            raise ConfigError(f"{path}: is a socket, expected a regular file") from None
        raise ConfigError(f"{path}: cannot read: {_why(exc)}") from None
    try:
        try:
            st = os.fstat(fd)
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read: {_why(exc)}") from None
        if not stat.S_ISREG(st.st_mode):  # swapped between stat and open
            raise ConfigError(f"{path}: is {_kind(st.st_mode)}, expected a regular file")
        _inputs[(st.st_dev, st.st_ino)] = str(path)
        yield io.BufferedReader(_CappedReader(fd, path, what, max_bytes), _CHUNK_BYTES)
    finally:
        os.close(fd)


class _CappedReader(io.RawIOBase):
    """Reads a descriptor (left open) and fails with ConfigError past ``max_bytes`` (/proc
    files and growing files report a size that is not true) or on a read error."""

    def __init__(self, fd: int, path: Path, what: str, max_bytes: int) -> None:
        self.fd, self.path, self.what = fd, path, what
        self.max_bytes = self.left = max_bytes

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        try:
            n = os.readv(self.fd, [view[: max(1, min(len(view), self.left + 1))]])
        except OSError as exc:
            raise ConfigError(f"{self.path}: cannot read: {_why(exc)}") from None
        self.left -= n
        if self.left < 0:
            raise ConfigError(
                f"{self.path}: more than {self.max_bytes:,} bytes is too large for {self.what}"
            )
        return n


# ----------------------------------------------------------------------------------------
# Outputs


@dataclass(frozen=True)
class OutputTarget:
    """Where and how an output path is written: ``file`` (temp file + rename over ``real``,
    the path with symbolic links resolved), ``stream`` (opened and written in place: a
    character device, a FIFO, a /dev/fd/N), ``stdout`` or ``stderr`` (this process's own)."""

    path: Path
    flag: str
    how: Literal["file", "stream", "stdout", "stderr"]
    real: Path
    key: tuple[int, int] | None  # (st_dev, st_ino) when the path exists


def _refuse(flag: str, path: Path, why: str) -> InvalidInputError:
    return InvalidInputError(f"{flag} {path}: {why}")


def check_output(path: Path | str, flag: str = "--output") -> OutputTarget:
    """Refuse an output path that cannot or must not be written, before any work: a folder,
    a block device, a socket, a missing folder, a name longer than the file system allows,
    a folder without write permission, or a file this run has read. Raises InvalidInputError."""
    path = Path(path)
    if str(path) == "-":  # standard output, as "-" is standard input to log and score
        return OutputTarget(path, flag, "stdout", path, None)
    text = os.path.abspath(path) if str(path) else ""
    if text in _STDOUT or text in _STDERR:
        how = "stdout" if text in _STDOUT else "stderr"
        return OutputTarget(path, flag, how, path, None)
    try:
        st: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        st = None
    except (OSError, ValueError) as exc:
        if isinstance(exc, OSError) and exc.errno == errno.ENOTDIR:
            raise _refuse(flag, path, f"folder {path.parent} does not exist") from None
        raise _refuse(flag, path, f"cannot write there: {_why(exc)}") from None
    if st is not None:
        key = (st.st_dev, st.st_ino)
        if key in _inputs:
            raise _refuse(
                flag, path, f"is also an input of this command ({_inputs[key]}); "
                "write the output to another file"
            )  # fmt: skip
        mode = st.st_mode
        if stat.S_ISDIR(mode):
            raise _refuse(flag, path, "is a directory, expected a file path")
        if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
            return OutputTarget(path, flag, "stream", path, key)
        if not stat.S_ISREG(mode):
            raise _refuse(flag, path, f"is {_kind(mode)}; write to a regular file instead")
        if _FD_PATH.fullmatch(text):  # /dev/fd/3 opened on a file by the shell: write there
            return OutputTarget(path, flag, "stream", path, key)
        if not mode & 0o222:  # marked read-only: kept, even for root (who could replace it)
            raise _refuse(
                flag, path, f"is read-only (mode {mode & 0o777:04o}); make it writable "
                "(chmod u+w) or write to another file"
            )  # fmt: skip
        if not os.access(path, os.W_OK):
            raise _refuse(flag, path, "permission denied: this file is not writable by you")
        real = Path(os.path.realpath(path))
        _check_folder(flag, path, real.parent)
        return OutputTarget(path, flag, "file", real, key)
    real = Path(os.path.realpath(path))  # a dangling link: write where it points
    parent = real.parent
    if not parent.is_dir():
        shown = path.parent if str(path.parent) else Path(".")
        raise _refuse(flag, path, f"folder {shown} does not exist")
    try:
        name_max = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows): the write says
        name_max = None
    name_bytes = len(os.fsencode(real.name))
    if name_max and name_bytes > name_max:
        raise _refuse(
            flag, path, f"file name is {name_bytes} bytes, longer than this file system's "
            f"limit of {name_max}"
        )  # fmt: skip
    _check_folder(flag, path, parent)
    return OutputTarget(path, flag, "file", real, None)


def _check_folder(flag: str, path: Path, folder: Path) -> None:
    """Refuse a folder the output's temp file cannot be created in: no permission, or marked
    read-only (no write bit at all: refused for root too, as a read-only file is)."""
    try:
        mode = os.stat(folder).st_mode
    except OSError as exc:
        raise _refuse(flag, path, f"cannot write in folder {folder}: {_why(exc)}") from None
    if not mode & 0o222:
        raise _refuse(flag, path, f"folder {folder} is read-only (mode {mode & 0o777:04o})")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _refuse(flag, path, f"cannot write in folder {folder}: permission denied")


def check_outputs(*targets: tuple[str, Path | str | None]) -> list[OutputTarget]:
    """Check every output of a command (``(flag, path)`` pairs; None is skipped) before any
    is written, and refuse two flags naming the same file."""
    checked = [check_output(p, flag) for flag, p in targets if p is not None]
    seen: dict[object, OutputTarget] = {}
    for t in checked:
        same = t.key if t.key is not None else (t.how, str(t.real))
        if t.how in ("stdout", "stderr") or (t.how == "stream" and _is_char_device(t.path)):
            continue  # two outputs may share a terminal or /dev/null
        if same in seen:
            raise _refuse(t.flag, t.path, f"is the same file as {seen[same].flag}")
        seen[same] = t
    return checked


Content = str | bytes | Callable[[BinaryIO], None]


def write_output(path: Path | str, content: Content, flag: str = "--output") -> None:
    """Write ``content`` (text, bytes, or a function that writes to a binary file) to
    ``path``: a regular file via a temp file in the same folder + rename, all or nothing
    (an existing file is untouched when anything fails, and the temp file is removed on
    SIGINT, SIGTERM and SIGHUP too); a character device or FIFO directly."""
    target = check_output(path, flag)
    if target.how == "file":
        _write_atomic(target, content)
    else:
        _write_stream(target, content)


def _write_to(fh: BinaryIO, content: Content) -> None:
    if callable(content):
        content(fh)
    else:
        fh.write(content.encode("utf-8") if isinstance(content, str) else content)


def _write_stream(target: OutputTarget, content: Content) -> None:
    if target.how in ("stdout", "stderr"):
        stream = sys.stdout if target.how == "stdout" else sys.stderr
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if isinstance(content, str) and buffer is None:
            stream.write(content)
        else:
            _write_to(buffer, content)  # type: ignore[arg-type]
            buffer.flush()  # type: ignore[union-attr]
        return
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    nonblock = getattr(os, "O_NONBLOCK", 0)  # a FIFO nobody reads: refuse, do not hang
    path = target.path
    try:
        fd = os.open(path, flags | nonblock | (os.O_TRUNC if _is_regular(path) else 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO and target.key is not None and _is_fifo(path):
            raise _refuse(target.flag, path, "no process is reading this FIFO") from None
        raise _refuse(target.flag, path, f"cannot write: {_why(exc)}") from None
    try:
        if nonblock:
            import fcntl

            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~nonblock)
        with whole_writer(fd) as fh:
            _write_to(fh, content)
    except BrokenPipeError:
        raise  # the reader went away: the CLI says so, as for stdout
    except OSError as exc:
        raise _refuse(target.flag, path, f"cannot write: {_why(exc)}") from None
    finally:
        os.close(fd)


def _is_char_device(path: Path) -> bool:
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


def _is_fifo(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


# Temp files being written now: path -> (st_dev, st_ino). A worker process forked while one is
# written (sweep --jobs) removes it should this process die without the time to do so.
_in_progress: dict[str, tuple[int, int]] = {}


def files_in_progress() -> list[tuple[str, tuple[int, int]]]:
    """(path, (st_dev, st_ino)) of each temp output file this process is writing now."""
    return list(_in_progress.items())


def _write_atomic(target: OutputTarget, content: Content) -> None:
    import tempfile  # imported here: start-up time of every command matters

    real, tmp = target.real, None
    with _remove_on_signal(lambda: tmp):
        try:
            # O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600: a name nobody else holds, never a link;
            # a short fixed-length name: a legal output name never pushes it past the limit
            fd, tmp = tempfile.mkstemp(prefix=".kvcalc-", suffix=".tmp", dir=real.parent)
        except OSError as exc:
            raise _refuse(target.flag, target.path, f"cannot write there: {_why(exc)}") from None
        first = os.fstat(fd)
        _in_progress[tmp] = (first.st_dev, first.st_ino)
        try:
            with whole_writer(fd) as fh:
                _write_to(fh, content)
            # through the descriptor: a link swapped in for the temp name cannot redirect it
            os.fchmod(fd, _new_file_mode(real))  # mkstemp makes 0600; keep the usual mode
            mine = os.fstat(fd)
            if not _is_file(tmp, mine):
                raise _refuse(target.flag, target.path, _SWAPPED)
            os.replace(tmp, real)
            if not _is_file(real, mine):  # swapped between the check and the rename
                raise _refuse(target.flag, target.path, _SWAPPED)
        except OSError as exc:
            _unlink_own(tmp, fd)
            raise _refuse(target.flag, target.path, f"cannot write: {_why(exc)}") from None
        except BaseException:
            _unlink_own(tmp, fd)
            raise
        finally:
            _in_progress.pop(tmp, None)
            os.close(fd)


_SWAPPED = (
    "another process replaced kvcalc's temporary file while it was written (a shared folder "
    "without the sticky bit?); the output is not trustworthy: write it to a private folder"
)


def _is_file(path: str | Path, st: os.stat_result) -> bool:
    """Whether ``path`` itself (not followed if a link) is the file ``st`` describes."""
    try:
        now = os.lstat(path)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino)


def _unlink_own(tmp: str, fd: int) -> None:
    """Remove the temp name if it is still this writer's file (never another's file or link)."""
    try:
        if _is_file(tmp, os.fstat(fd)):
            os.unlink(tmp)
    except OSError:
        pass


def _new_file_mode(path: Path) -> int:
    """The existing file's mode, or what a plain open() would give (0666 less the umask)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))


@contextmanager
def _remove_on_signal(tmp: Callable[[], str | None]) -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP (when they would kill the process anyway)
    first remove the temp file ``tmp()``, then kill the process as before. SIGINT needs no
    handler: its KeyboardInterrupt unwinds through the writer's cleanup."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in _SIGNALS}
    mine = [s for s, h in previous.items() if h == signal.SIG_DFL]  # respect nohup's SIG_IGN
    owner = os.getpid()  # a worker forked inside the block (sweep --jobs) inherits the handler

    def handler(signum: int, frame: object) -> None:
        name = tmp()
        if name is not None and os.getpid() == owner:  # never the writer's file from a worker
            Path(name).unlink(missing_ok=True)
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)  # die of the signal, as without this handler

    for s in mine:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s in mine:
            signal.signal(s, previous[s])
