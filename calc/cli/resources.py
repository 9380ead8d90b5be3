"""Keeps kvcalc's failures one line under tight resource limits [bytes of address space]: numpy's
BLAS is loaded with one thread when the address space is limited (``ulimit -v``), and the
first import of numpy is refused with a MemoryError (one line from the CLI) when fewer than
NUMPY_HEADROOM_BYTES are left, instead of OpenBLAS printing its own error and exiting.
Measured on the development VM: numpy adds 82 MB of address space with one BLAS thread and
123 MB with two; below about 100 MB in all OpenBLAS gives up with ``exit(1)``."""

from __future__ import annotations

import os
import sys

NUMPY_HEADROOM_BYTES = 96 * 2**20  # numpy's 82 MB with one BLAS thread, and some margin


def _limited() -> bool:
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError, AttributeError):
        return False
    return soft != resource.RLIM_INFINITY


def _room(size: int) -> bool:
    """Whether ``size`` more bytes of address space can be mapped now (mapped and let go)."""
    import mmap

    try:
        mmap.mmap(-1, size).close()
    except (OSError, ValueError, MemoryError):
        return False
    return True


class _NumpyGuard:
    """Checks the room for numpy once, at its first import (a finder on ``sys.meta_path``:
    any object with ``find_spec``; importlib.abc's base class would cost start-up time)."""

    def find_spec(self, name, path, target=None):
        if name == "numpy":
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            if not _room(NUMPY_HEADROOM_BYTES):
                raise MemoryError(
                    f"numpy needs about {NUMPY_HEADROOM_BYTES // 2**20} MiB more address space "
                    "than the limit (ulimit -v) leaves"
                )
        return None


def guard_memory() -> None:
    """Under an address-space limit: one BLAS thread (unless the user chose), and the check
    of room for numpy at its first import (nothing to do once numpy is loaded)."""
    if "numpy" in sys.modules or not _limited():
        return
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if not any(isinstance(f, _NumpyGuard) for f in sys.meta_path):
        sys.meta_path.insert(0, _NumpyGuard())
