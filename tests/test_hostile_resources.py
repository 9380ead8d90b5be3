"""Issue 26, deliver 4: kvcalc under resource limits and signals, in child processes with real
descriptors and limits: an open-files limit, an address-space limit, a full disk (a file-size
limit), a read-only output folder, a closed stdout, and `sweep --jobs` stopped by SIGTERM,
SIGHUP or SIGKILL. Each ends in one error line (exit 2) or a clean result, nothing of the
user's is destroyed, no temp file is left and no worker process outlives kvcalc. The timeouts
are guards against a hang, not measurements."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

resource = pytest.importorskip("resource")

SWEEP = ("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1..20000", "-b", "1..4", "-f", "csv")
MEMORY = ("memory", "-m", "llama3-8b", "--ctx", "128", "-f", "json")


def kvcalc(*args, limits=(), **kw) -> subprocess.CompletedProcess:
    """kvcalc in a child process under ``limits`` ((resource, bytes-or-count), ...)."""

    def apply() -> None:
        for which, value in limits:
            resource.setrlimit(which, (value, value))

    kw.setdefault("capture_output", True)
    return subprocess.run([sys.executable, "-m", "calc", *map(str, args)],
                          preexec_fn=apply, timeout=300, **kw)  # fmt: skip


def one_line(r, *needles: str) -> str:
    err = r.stderr.decode() if isinstance(r.stderr, bytes) else r.stderr
    lines = [x for x in err.splitlines() if not x.startswith("kvcalc: warning:")]
    assert r.returncode == 2 and len(lines) == 1, (r.returncode, err)
    assert lines[0].startswith("kvcalc: error: ") and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> bytes:
    """The sweep's CSV from one process, no limits (two chunks of rows: 80,000 rows)."""
    out = tmp_path_factory.mktemp("reference") / "reference.csv"
    assert kvcalc(*SWEEP, "-j", "1", "-o", out).returncode == 0
    return out.read_bytes()


# --- open files --------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [8, 13, 16])
def test_sweep_jobs_under_an_open_files_limit(tmp_path, reference, limit):
    # at 12-15 descriptors the workers' pipes could not all be made and the sweep waited
    # forever; now the workers start or the sweep runs in one process: the same bytes
    out = tmp_path / "out.csv"
    r = kvcalc(*SWEEP, "-j", "4", "-o", out, limits=[(resource.RLIMIT_NOFILE, limit)])
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == reference
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".kvcalc-")] == []


def test_sweep_jobs_to_stdout_under_an_open_files_limit(reference):
    r = kvcalc(*SWEEP, "-j", "2", limits=[(resource.RLIMIT_NOFILE, 14)])
    assert r.returncode == 0, r.stderr
    assert r.stdout == reference


# --- address space -----------------------------------------------------------------------


def test_too_little_address_space_for_numpy_is_one_line():
    mib = 100
    # OpenBLAS used to print its own error and exit(1) while numpy was imported
    r = kvcalc(*SWEEP, limits=[(resource.RLIMIT_AS, mib * 2**20)])
    one_line(r, "out of memory", "numpy needs about 96 MiB")


def test_commands_without_numpy_run_in_little_address_space():
    r = kvcalc(*MEMORY, limits=[(resource.RLIMIT_AS, 100 * 2**20)])
    assert r.returncode == 0, r.stderr
    assert b'"weights_bytes": 16060522496' in r.stdout  # 8,030,261,248 params × 2 B


@pytest.mark.parametrize("mib", [200, 300])
def test_sweep_jobs_under_an_address_space_limit(tmp_path, reference, mib):
    # enough for numpy, maybe not for the workers' chunks: a clean result or one line
    out = tmp_path / "out.csv"
    out.write_text("keep\n")
    r = kvcalc(*SWEEP, "-j", "2", "-o", out, limits=[(resource.RLIMIT_AS, mib * 2**20)])
    if r.returncode == 0:
        assert out.read_bytes() == reference
    else:
        one_line(r, "out of memory")
        assert out.read_text() == "keep\n"
    assert not any(p.name.startswith(".kvcalc-") for p in tmp_path.iterdir())
    assert b"SystemError" not in r.stderr


# --- full disk, read-only folder ---------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_output_file_on_a_full_disk_keeps_the_old_file(tmp_path, jobs):
    # a file-size limit of 64 KiB stands in for a full disk (EFBIG where ENOSPC would be)
    out = tmp_path / "out.csv"
    out.write_text("keep\n")
    r = kvcalc(*SWEEP, "-j", jobs, "-o", out, limits=[(resource.RLIMIT_FSIZE, 1 << 16)])
    one_line(r, f"--output {out}: cannot write: File too large")
    assert out.read_text() == "keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_stdout_file_on_a_full_disk(tmp_path, jobs):
    out = tmp_path / "stdout.csv"
    with open(out, "wb") as fh:
        r = kvcalc(*SWEEP, "-j", jobs, stdout=fh, stderr=subprocess.PIPE,
                   limits=[(resource.RLIMIT_FSIZE, 1 << 16)], capture_output=False)  # fmt: skip
    one_line(r, "cannot write the output: File too large")


def test_stdout_dev_full():
    with open("/dev/full", "wb") as full:
        r = kvcalc(*SWEEP, "-j", "2", stdout=full, stderr=subprocess.PIPE, capture_output=False)
    one_line(r, "No space left on device")


def test_read_only_output_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "old.json").write_text("keep\n")
    folder.chmod(0o555)
    try:
        for name in ("new.json", "old.json"):
            r = kvcalc(*MEMORY, "-o", folder / name)
            one_line(r, "read-only (mode 0555)")
        assert sorted(p.name for p in folder.iterdir()) == ["old.json"]
        assert (folder / "old.json").read_text() == "keep\n"
    finally:
        folder.chmod(0o755)


def test_closed_stdout_with_an_output_file_is_fine(tmp_path):
    out = tmp_path / "out.json"
    cmd = [sys.executable, "-m", "calc", *MEMORY, "-o", str(out)]
    r = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *cmd], capture_output=False,
                       stderr=subprocess.PIPE, timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert '"weights_bytes": 16060522496' in out.read_text()


# --- sweep --jobs under signals ----------------------------------------------------------


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize(
    ("sig", "to"),
    [("SIGTERM", "file"), ("SIGHUP", "pipe"), ("SIGKILL", "file"), ("SIGKILL", "pipe"),
     ("SIGINT", "file")],
)
def test_sweep_workers_die_with_kvcalc(tmp_path, sig, to):
    big = ("sweep", "-m", "llama3-8b,llama3-70b", "-H", "h100,h200", "--ctx", "1..100000",
           "-b", "1..64", "-f", "csv", "-j", "2")  # fmt: skip
    out = tmp_path / "out.csv"
    args = [sys.executable, "-m", "calc", *big] + (["-o", str(out)] if to == "file" else [])
    number = getattr(signal, sig)

    def as_a_user_would() -> None:
        # the signal's default action, whatever this run inherited: a suite started by `cmd &`
        # in a script ignores SIGINT (and `nohup` SIGHUP), which the child inherits, and a
        # Python started with SIGINT ignored never raises KeyboardInterrupt: the sweep then
        # ran on and wrote out.csv (the failure seen once in a full-suite run)
        if number != signal.SIGKILL:
            signal.signal(number, signal.SIG_DFL)

    proc = subprocess.Popen(args, stdout=subprocess.PIPE if to == "pipe" else subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=as_a_user_would)  # fmt: skip
    try:
        workers: list[int] = []
        for _ in range(600):  # until both workers run (at most 60 s)
            workers = children(proc.pid)
            if len(workers) == 2:
                break
            time.sleep(0.1)
        assert len(workers) == 2, "the workers did not start"
        time.sleep(0.5)  # into the rows
        proc.send_signal(number)
        proc.wait(timeout=60)
        assert proc.returncode != 0, f"kvcalc finished its sweep despite {sig}"
        for _ in range(100):  # the workers follow within a moment (at most 10 s)
            if not any(alive(w) for w in workers):
                break
            time.sleep(0.1)
        assert not any(alive(w) for w in workers), f"workers outlived kvcalc after {sig}"
        for _ in range(100):  # and the temp file is gone, removed by kvcalc or a worker
            if not [p for p in tmp_path.iterdir() if p.name.startswith(".kvcalc-")]:
                break
            time.sleep(0.1)
        assert sorted(p.name for p in tmp_path.iterdir()) == []  # no temp, no half output
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        for w in children(proc.pid):
            os.kill(w, signal.SIGKILL)


def test_a_killed_worker_fails_the_sweep_in_one_line(tmp_path):
    # a worker killed from outside (the OOM killer): the parent sees its pipe end at once
    big = ("sweep", "-m", "llama3-8b,llama3-70b", "-H", "h100,h200", "--ctx", "1..100000",
           "-b", "1..64", "-f", "csv", "-j", "2")  # fmt: skip
    out = tmp_path / "out.csv"
    proc = subprocess.Popen([sys.executable, "-m", "calc", *big, "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        workers: list[int] = []
        for _ in range(600):
            workers = children(proc.pid)
            if len(workers) == 2:
                break
            time.sleep(0.1)
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = [x for x in err.decode().splitlines() if not x.startswith("kvcalc: warning:")]
    assert proc.returncode == 2 and len(lines) == 1 and "sweep worker" in lines[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# --- no wait without a bound, but a slow reader is no failure ---------------------------


def test_a_stopped_worker_ends_the_sweep_after_the_stall_bound(tmp_path, monkeypatch):
    import calc.reports.sweep_workers as workers
    from calc.reports.sweep import plan
    from calc.reports.sweep_io import write_csv

    monkeypatch.setattr(workers, "STALL_S", 2.0)
    monkeypatch.setattr(workers, "_POLL_S", 0.1)
    real = workers._my_chunks

    def stop_second(plan_, render, k, jobs, conn):  # worker 2 stops itself (SIGSTOP)
        if k == 1:
            os.kill(os.getpid(), signal.SIGSTOP)
        yield from real(plan_, render, k, jobs, conn)

    monkeypatch.setattr(workers, "_my_chunks", stop_second)
    p = plan(["llama3-8b"], ["h100"], ctx=list(range(1, 20_001)), batch=[1, 2, 3, 4])
    with pytest.raises(workers.WorkerError, match="sweep worker 2 sent nothing for 2 s"):
        with open(tmp_path / "out.csv", "wb") as fh:
            write_csv(p, fh, 2)


def test_a_slow_reader_of_a_pipe_is_waited_for(monkeypatch):
    # workers writing in turn to a pipe go at its reader's pace: no stall bound there
    import threading

    import calc.reports.sweep_workers as workers
    from calc.reports.sweep import plan
    from calc.reports.sweep_io import write_csv

    monkeypatch.setattr(workers, "STALL_S", 0.5)
    monkeypatch.setattr(workers, "_POLL_S", 0.1)
    p = plan(["llama3-8b"], ["h100"], ctx=list(range(1, 20_001)), batch=[1, 2, 3, 4])
    r, w = os.pipe()
    got: list[int] = []

    def slow_reader() -> None:
        time.sleep(2.0)  # four stall bounds before the first byte is read
        with os.fdopen(r, "rb") as fh:
            got.append(len(fh.read()))

    reader = threading.Thread(target=slow_reader)
    reader.start()
    with open(w, "wb") as fh:
        write_csv(p, fh, 2)
    reader.join()
    assert got and got[0] > 1_000_000  # 80,000 rows
