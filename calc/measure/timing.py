"""Wall time [s] of repeated kernel runs: warm-up excluded, inputs rotated, CUDA events on a
GPU and a monotonic clock (time.perf_counter) after synchronising elsewhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

ROTATE_TARGET_BYTES = 256 * 2**20  # rotate through at least this much so caches cannot hold it
MAX_BUFFERS = 8


def n_buffers(
    set_bytes: float, target_bytes: float = ROTATE_TARGET_BYTES, most: int = MAX_BUFFERS
) -> int:
    """Input sets to rotate through: enough to exceed ``target_bytes`` (>= 2, <= ``most``)."""
    if set_bytes <= 0:
        return most
    return int(min(most, max(2, -(-target_bytes // set_bytes))))


def quantile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile (q in [0, 1]) of a non-empty sequence."""
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


@dataclass(frozen=True)
class Timing:
    """Seconds per run over ``repeats`` timed runs (warm-up runs not included)."""

    samples_s: tuple[float, ...]
    clock: str

    def per(self, n: int) -> Timing:
        """The same runs divided by ``n``: seconds per kernel of a run of ``n`` kernels."""
        return Timing(tuple(s / n for s in self.samples_s), self.clock)

    @property
    def median_s(self) -> float:
        return quantile(self.samples_s, 0.5)

    @property
    def p10_s(self) -> float:
        return quantile(self.samples_s, 0.1)

    @property
    def p90_s(self) -> float:
        return quantile(self.samples_s, 0.9)


def synchronize(torch, device) -> None:
    if getattr(device, "type", str(device)) == "cuda":
        torch.cuda.synchronize(device)


QUEUE_AHEAD_S_PER_RUN = 50e-6  # GPU sleep per queued run: longer than launching one run
_MAX_CLOCK_HZ = 2.5e9  # cycles of torch.cuda._sleep per second at most (H100/H200: <= 2 GHz)


def time_runs(
    torch,
    fn: Callable,
    input_sets: Sequence,
    device,
    warmup: int,
    repeats: int,
    queued: bool = False,
) -> Timing:
    """Run ``fn(input_sets[i % n])`` ``warmup`` times untimed, then ``repeats`` times timed.

    ``queued`` (CUDA only): the GPU first sleeps while every timed run is launched, so the
    runs execute back to back and their events time the device alone, as a CUDA-graph
    replay would run them; without it an idle GPU waits for each launch inside the timing.
    """
    n = len(input_sets)
    for i in range(warmup):
        fn(input_sets[i % n])
    synchronize(torch, device)
    if getattr(device, "type", str(device)) == "cuda":
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
        sleep = getattr(torch.cuda, "_sleep", None)  # private; absent: launches stay exposed
        if queued and sleep is not None:
            ahead_s = min(0.5, repeats * QUEUE_AHEAD_S_PER_RUN)
            sleep(int(ahead_s * _MAX_CLOCK_HZ))
        for i in range(repeats):
            inputs = input_sets[(warmup + i) % n]
            starts[i].record()
            fn(inputs)
            ends[i].record()
        torch.cuda.synchronize(device)
        samples = tuple(s.elapsed_time(e) / 1e3 for s, e in zip(starts, ends, strict=True))
        return Timing(samples, "cuda events, queued" if queued else "cuda events")
    samples = []
    for i in range(repeats):
        inputs = input_sets[(warmup + i) % n]
        synchronize(torch, device)
        t0 = time.perf_counter()
        fn(inputs)
        synchronize(torch, device)
        samples.append(time.perf_counter() - t0)
    return Timing(tuple(samples), "perf_counter")
