"""Issue 26: a write error on stdout (a full disk, a closed stdout, a reader that went away)
in every command is one line on stderr and exit 2: no traceback, no "Exception ignored"
noise at exit, and never exit 0 with half the output."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys

import pytest

from calc.cli import main
from calc.cli.app import COMMANDS
from tests.hostile_corpus import NAMES, every_command


class FailingStdout(io.TextIOBase):
    """A stdout whose every write fails with ``err`` (ENOSPC: a full disk; EPIPE: the reader
    closed the pipe); ``buffer`` fails alike and it has no descriptor."""

    def __init__(self, err: int) -> None:
        self.err = err

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:  # type: ignore[override]
        raise OSError(self.err, os.strerror(self.err))

    @property
    def buffer(self):
        return self


def run_with_stdout(stream, args) -> tuple[int, str]:
    saved_out, saved_err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = stream, io.StringIO()
    try:
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        return code, sys.stderr.getvalue()
    finally:
        sys.stdout, sys.stderr = saved_out, saved_err


def test_the_corpus_names_every_command(tmp_path):
    assert set(every_command(tmp_path)) == set(NAMES) >= set(COMMANDS) - {"measure"}


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EBADF])
@pytest.mark.parametrize("name", NAMES)
def test_every_command_reports_a_failed_stdout_in_one_line(tmp_path, name, err):
    args = every_command(tmp_path)[name]
    code, stderr = run_with_stdout(FailingStdout(err), args)
    assert code == 2, (code, stderr)
    error_lines = [x for x in stderr.splitlines() if not x.startswith("kvcalc: warning:")]
    assert error_lines == [error_lines[0]] and error_lines[0].startswith(
        "kvcalc: error: cannot write the output: "
    ), stderr
    assert "Traceback" not in stderr


def kvcalc(*args, **kw) -> subprocess.CompletedProcess:
    """kvcalc in a child process (real descriptors), at most 120 s (a hang guard only)."""
    return subprocess.run(
        [sys.executable, "-m", "calc", *map(str, args)], capture_output="stdout" not in kw,
        timeout=120, **kw,
    )  # fmt: skip


def assert_one_line(r: subprocess.CompletedProcess, needle: str) -> None:
    err = r.stderr.decode()
    lines = [x for x in err.splitlines() if not x.startswith("kvcalc: warning:")]
    assert r.returncode == 2 and len(lines) == 1 and needle in lines[0], (r.returncode, err)
    assert "Traceback" not in err and "Exception ignored" not in err


SUBPROCESS = ["memory", "sweep", "plan", "help"]


@pytest.mark.parametrize("name", SUBPROCESS)
def test_stdout_on_a_full_disk(tmp_path, name):
    with open("/dev/full", "wb") as full:
        r = kvcalc(*every_command(tmp_path)[name], stdout=full, stderr=subprocess.PIPE)
    assert_one_line(r, "cannot write the output: No space left on device")


@pytest.mark.parametrize("name", SUBPROCESS)
def test_stdout_closed(tmp_path, name):
    cmd = [sys.executable, "-m", "calc", *every_command(tmp_path)[name]]
    r = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *cmd], stderr=subprocess.PIPE,
                       timeout=120)  # fmt: skip
    assert_one_line(r, "cannot write the output: standard output is closed")


@pytest.mark.parametrize("name", SUBPROCESS)
def test_stdout_a_pipe_nobody_reads(tmp_path, name):
    read, write = os.pipe()
    os.close(read)  # the reader went away before the first byte (`| head -c0`)
    try:
        r = kvcalc(*every_command(tmp_path)[name], stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert_one_line(r, "the reader closed the pipe")


def test_sweep_jobs_into_a_closed_pipe(tmp_path):
    # the workers write the rows themselves: their EPIPE reaches the parent as one line
    read, write = os.pipe()
    os.close(read)
    try:
        r = kvcalc("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1..8192", "-b", "1..8",
                   "-f", "csv", "-j", "2", stdout=write, stderr=subprocess.PIPE)  # fmt: skip
    finally:
        os.close(write)
    assert_one_line(r, "the reader closed the pipe")


def test_stdout_short_of_a_file_size_limit_is_an_error_not_half_a_table(tmp_path):
    # RLIMIT_FSIZE 1 KiB: the kernel takes the first 1,024 bytes of the table and refuses the
    # rest (EFBIG); the table used to be cut there with exit 0
    import resource

    out = tmp_path / "out.txt"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    with open(out, "wb") as fh:
        r = kvcalc(*every_command(tmp_path)["memory"], stdout=fh, stderr=subprocess.PIPE,
                   preexec_fn=limit)  # fmt: skip
    assert_one_line(r, "File too large")
    assert out.stat().st_size == 1024


@pytest.mark.parametrize(
    ("redirect", "args", "code"),
    [
        ("<&-", ("memory", "-m", "llama3-8b", "--ctx", "8", "-f", "json"), 0),
        ("2>&-", ("memory", "-m", "nope", "--ctx", "8"), 2),  # the error line goes nowhere
        ("2>/dev/full", ("memory", "-m", "nope", "--ctx", "8"), 2),
        ("<&- 2>&-", ("memory", "-m", "llama3-8b", "--ctx", "8", "-f", "json"), 0),
    ],
)
def test_closed_stdin_or_stderr(redirect, args, code):
    cmd = [sys.executable, "-m", "calc", *args]
    r = subprocess.run(["sh", "-c", f'exec "$@" {redirect}', "sh", *cmd], capture_output=True,
                       timeout=120)  # fmt: skip
    assert r.returncode == code, r
    if code == 0:
        assert b'"weights_bytes": 16060522496' in r.stdout  # 8,030,261,248 params × 2 B
