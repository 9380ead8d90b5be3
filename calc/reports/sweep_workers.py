"""Forked worker processes that compute and format a sweep's chunks [bytes of text], which cannot
outlive kvcalc and are never waited for without a bound.

- A worker holds only its own descriptors: every other one it inherited (another worker's pipe
  ends, the parent's files) is closed, so a worker that dies is seen at once as the end of its
  pipe, and the parent's death is seen by every worker.
- It dies with the parent: Linux's PR_SET_PDEATHSIG (through ctypes) sends it SIGTERM when the
  parent dies, however the parent died (SIGKILL too); elsewhere a thread reading a pipe whose
  only write end the parent holds sees its end of file. Either way the worker removes the
  parent's temp output file if the parent had no time to (``safe_io.files_in_progress``) and
  exits.
- The parent waits in slices of a second and gives up after STALL_S without a message from
  the worker it waits for (unless the workers write to a pipe or terminal, whose reader sets
  the pace: ``| less``); a worker that dies ends the wait at once (its pipe's end of file).
  On any failure or interrupt it kills every worker (SIGKILL) and reaps each, at most REAP_S
  in all.
- Without enough descriptors or processes for the workers (``ulimit -n 12``), the sweep is
  computed in this process instead (the caller's ``serial``), never half-started.
"""

from __future__ import annotations

import errno
import functools
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator

import numpy as np

from calc.errors import KvcalcError

STALL_S = 300.0  # a chunk takes well under a second; a stopped or hung worker ends the sweep
REAP_S = 10.0
_POLL_S = 1.0


class WorkerError(KvcalcError, RuntimeError):
    """A worker failed, ended early, or sent nothing for STALL_S."""


class NoResources(Exception):
    """Not enough descriptors or processes to start the workers (fall back to one process)."""


def can_fork() -> bool:
    return hasattr(os, "fork")


# ---------------------------------------------------------------------------------------
# The worker side


def _die_with_parent(parent: int) -> None:
    """Ask Linux to send SIGTERM when the parent dies; if it died already, exit now."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError, TypeError):
        pass  # not Linux: the watchdog thread sees the parent go
    if os.getppid() != parent:
        _orphaned()


def _orphaned() -> None:
    """The parent is gone: remove its temp output file if it is still there, then exit."""
    from calc.output.safe_io import files_in_progress

    for path, key in files_in_progress():
        try:
            st = os.lstat(path)
            if (st.st_dev, st.st_ino) == key:
                os.unlink(path)
        except OSError:
            pass
    os._exit(1)


def _on_term(parent: int) -> Callable:
    def handler(signum, frame) -> None:
        if os.getppid() != parent:  # PR_SET_PDEATHSIG: the parent died
            _orphaned()
        os._exit(128 + signum)  # stopped by someone else: the parent sees the pipe end

    return handler


def _watch(alive: int) -> None:
    """Exit (cleaning up) when ``alive`` reads end of file: the parent, its only writer, died."""
    try:
        while os.read(alive, 1):
            pass
    except OSError:
        pass
    _orphaned()


def _keep_only(fds: set[int]) -> None:
    """Close every descriptor above 2 but ``fds``."""
    top = 1 << 20
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if 0 < soft < top:
            top = soft
    except (ImportError, OSError, ValueError):
        pass
    low = 3
    for fd in sorted(f for f in fds if f >= 3):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, top)


def _child(parent: int, alive: int, keep: set[int], body: Callable[[], None]) -> None:
    """Run ``body`` as a worker (see the module docstring) and exit; never returns."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent answers Ctrl-C
        if hasattr(signal, "SIGHUP"):
            signal.signal(signal.SIGHUP, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, _on_term(parent))
        _keep_only(keep | {alive})
        _die_with_parent(parent)
        threading.Thread(target=_watch, args=(alive,), daemon=True).start()
        body()
        code = 0
    except BaseException:  # the body reports its own errors; nothing may unwind into the parent
        pass
    finally:
        os._exit(code)


class Workers:
    """Forked workers, killed and reaped by ``stop`` (also on error: use it in a ``with``)."""

    def __init__(self) -> None:
        self.pids: list[int] = []
        self.parent = os.getpid()
        self.alive_r, self.alive_w = _pipe()

    def start(self, body: Callable[[], None], keep: set[int]) -> None:
        import warnings

        with warnings.catch_warnings():
            # Python ≥ 3.12 warns on fork() beside other OS threads (a BLAS pool): the
            # workers run numpy element-wise code only, which takes no lock of those
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                pid = os.fork()
            except OSError as exc:  # EAGAIN: RLIMIT_NPROC; ENOMEM
                raise NoResources(str(exc)) from None
        if pid == 0:
            _child(self.parent, self.alive_r, keep, body)
        self.pids.append(pid)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        """Kill (SIGKILL) every worker still running and reap them all, within REAP_S."""
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        deadline = time.monotonic() + REAP_S
        left = list(self.pids)
        while left and time.monotonic() < deadline:
            for pid in list(left):
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done = pid
                if done:
                    left.remove(pid)
            if left:
                time.sleep(0.01)
        self.pids = []
        for fd in (self.alive_r, self.alive_w):
            try:
                os.close(fd)
            except OSError:
                pass


def _pipe() -> tuple[int, int]:
    try:
        return os.pipe()
    except OSError as exc:
        if exc.errno in (errno.EMFILE, errno.ENFILE):
            raise NoResources(str(exc)) from None
        raise


def _conn_pipe():
    """A one-way multiprocessing Connection pair (receive end, send end)."""
    from multiprocessing.connection import Pipe

    try:
        return Pipe(duplex=False)
    except OSError as exc:
        if exc.errno in (errno.EMFILE, errno.ENFILE):
            raise NoResources(str(exc)) from None
        raise


def wait_recv(conn, what: str, bounded: bool = True):
    """``conn.recv()``, waited for in slices (at most STALL_S, or as long as the worker lives
    when not ``bounded``: a reader of the output sets its pace); WorkerError when the worker
    ended (its pipe's end of file) or sent nothing in time."""
    waited = 0.0
    while not conn.poll(_POLL_S):
        waited += _POLL_S
        if bounded and waited >= STALL_S:
            raise WorkerError(f"{what} sent nothing for {STALL_S:g} s; stopped")
    try:
        return conn.recv()
    except (EOFError, OSError):
        raise WorkerError(
            f"{what} ended before sending its rows (killed? out of memory?)"
        ) from None


def send(conn, value, what: str) -> None:
    try:
        conn.send(value)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        raise WorkerError(f"{what} ended before taking its next chunk (killed?)") from None


def read_all(fd: int, size: int, what: str) -> memoryview:
    """``size`` bytes from the pipe ``fd`` read straight into one new buffer (a Connection's
    recv_bytes copies each 64 KiB piece twice more), waited for as ``wait_recv`` waits."""
    import select

    buf = memoryview(np.empty(size, dtype=np.uint8))
    got, waited = 0, 0.0
    while got < size:
        ready, _, _ = select.select([fd], [], [], _POLL_S)
        if not ready:
            waited += _POLL_S
            if waited >= STALL_S:
                raise WorkerError(f"{what} sent nothing for {STALL_S:g} s; stopped")
            continue
        n = os.readv(fd, [buf[got:]])
        if not n:
            raise WorkerError(f"{what} ended before sending its rows (killed? out of memory?)")
        got += n
    return buf


def write_all(fd: int, data) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def raise_failure(message: str, err: int = 0):
    """A worker's failure, raised here: a closed pipe as BrokenPipeError (the CLI reports it
    as for stdout) and a failed write (a full disk) as OSError, as when this process writes."""
    if message.startswith("BrokenPipeError"):
        raise BrokenPipeError(message)
    if message.startswith("MemoryError"):
        raise MemoryError("a sweep worker ran out of memory (ulimit -v? fewer --jobs)")
    if err:
        raise OSError(err, os.strerror(err))
    raise WorkerError(f"sweep worker failed: {message}")


# ---------------------------------------------------------------------------------------
# The two protocols: chunks piped to this process, or written by the workers themselves


def _my_chunks(plan, render, k: int, jobs: int, conn) -> Iterator:
    """Worker ``k`` of ``jobs``: every jobs-th chunk from the k-th, evaluated and rendered; the
    parent is told each one's rows that do not fit and its length before its text is yielded."""
    from calc.reports.sweep import not_fitting_rows

    for i, make in enumerate(plan.lazy_chunks()):
        if i % jobs == k:
            chunk = make()
            text = render(chunk)
            conn.send(("ok", not_fitting_rows(chunk), len(text)))
            yield text


def piped(plan, render, jobs: int, serial: Callable[[], Iterator[bytes]]) -> Iterator[bytes]:
    """``render(chunk)`` of every chunk in order, computed by ``jobs`` workers (worker k takes
    chunks k, k + jobs, ...) that pipe their text here; ``serial()`` when they cannot start."""
    from calc.output.fastfmt import keep_heap

    keep_heap()  # a buffer per chunk received, reused from the heap
    try:
        workers = Workers()
    except NoResources:
        yield from serial()
        return
    with workers:
        pipes = []
        try:
            for k in range(jobs):
                recv, snd = _conn_pipe()

                def body(k=k, snd=snd) -> None:
                    try:
                        for text in _my_chunks(plan, render, k, jobs, snd):
                            write_all(snd.fileno(), text)  # raw, after the message: no pickling
                    except BaseException as exc:  # reported to the parent, which raises it
                        snd.send(("error", f"{type(exc).__name__}: {exc}", 0))

                workers.start(body, {snd.fileno(), *_stdio()})
                snd.close()
                pipes.append(recv)
        except NoResources:
            workers.stop()
            for p in pipes:
                p.close()
            yield from serial()
            return
        try:
            not_fitting = 0
            for i in range(plan.n_chunks):
                what = f"sweep worker {i % jobs + 1}"
                status, value, size = wait_recv(pipes[i % jobs], what)
                if status != "ok":
                    raise_failure(value)
                not_fitting += value
                yield read_all(pipes[i % jobs].fileno(), size, what)
            plan.count_not_fitting(not_fitting)
        finally:
            workers.stop()
            for p in pipes:
                p.close()


def written(plan, render, jobs: int, fd: int, start: int | None, serial: Callable[[], int],
            behind: Callable[[int], object]) -> int:  # fmt: skip
    """Every chunk rendered by ``jobs`` workers that write their text to ``fd`` themselves:
    into a regular file at the offset ``start`` plus the lengths before, which this process
    hands out in chunk order; elsewhere (``start`` None: a pipe, a terminal, /dev/null, a file
    opened for appending) in turn, each once the chunk before is written. Returns the offset
    after the last row (or the bytes written); ``serial()`` when the workers cannot start.
    ``behind(fd)``: the write-behind each worker tells what it wrote at an offset."""
    try:
        workers = Workers()
    except NoResources:
        return serial()
    with workers:
        pipes, sends = [], []
        try:
            for k in range(jobs):
                recv, snd = _conn_pipe()
                o_recv, o_send = _conn_pipe()
                body = functools.partial(_write_chunks, plan, render, k, jobs, fd, snd, o_recv,
                                         behind)  # fmt: skip
                workers.start(body, {snd.fileno(), o_recv.fileno(), fd, *_stdio()})
                snd.close()
                o_recv.close()
                pipes.append(recv)
                sends.append(o_send)
        except NoResources:
            workers.stop()
            for p in pipes + sends:
                p.close()
            return serial()
        try:
            return _hand_out(plan, jobs, start, pipes, sends)
        finally:
            workers.stop()
            for p in pipes + sends:
                p.close()


def _write_chunks(plan, render, k: int, jobs: int, fd: int, snd, o_recv, behind) -> None:
    """Worker ``k``'s body: its chunks rendered and written to ``fd`` at the offset the parent
    sends (None: in turn, where the descriptor is), each reported on ``snd``."""
    after = behind(fd)
    try:
        for text in _my_chunks(plan, render, k, jobs, snd):
            at = o_recv.recv()  # where the chunks before end; None: in turn
            view = memoryview(text)
            if at is None:
                write_all(fd, view)
                snd.send(("written", 0, 0))
                continue
            begin = at
            while view:
                n = os.pwrite(fd, view, at)
                view, at = view[n:], at + n
            after.wrote(begin, at - begin)
        snd.send(("done", 0, 0))
    except BaseException as exc:  # reported to the parent, which raises it
        err = getattr(exc, "errno", 0) or 0
        snd.send(("error", f"{type(exc).__name__}: {exc}", err))


def _hand_out(plan, jobs: int, start: int | None, pipes: list, sends: list) -> int:
    """The parent's side: each chunk's offset sent to its worker in chunk order (or, in
    turn, once the chunk before is written), every report awaited; the offset after the last
    row (or the bytes written)."""
    # in turn, a worker writes to a pipe or a terminal at its reader's pace (`| less`):
    # no time bound then (a worker that dies still ends the wait at once)
    stall = start is not None
    not_fitting, at = 0, start or 0
    for i in range(plan.n_chunks):
        what = f"sweep worker {i % jobs + 1}"
        status, value, size = wait_recv(pipes[i % jobs], what, stall)
        if status != "ok":
            raise_failure(value, size)
        if start is None and i:  # in turn: once the chunk before is written
            before = f"sweep worker {(i - 1) % jobs + 1}"
            status, value, size_ = wait_recv(pipes[(i - 1) % jobs], before, stall)
            if status != "written":
                raise_failure(value, size_)
        send(sends[i % jobs], None if start is None else at, what)
        not_fitting += value
        at += size
    if start is None:
        last = (plan.n_chunks - 1) % jobs
        status, value, size = wait_recv(pipes[last], f"sweep worker {last + 1}", stall)
        if status != "written":
            raise_failure(value, size)
    for k, pipe in enumerate(pipes):  # every worker has written its last chunk
        status, value, size = wait_recv(pipe, f"sweep worker {k + 1}", stall)
        if status != "done":
            raise_failure(value, size)
    plan.count_not_fitting(not_fitting)
    return at


def _stdio() -> tuple[int, ...]:
    return (0, 1, 2)
