"""The mean time a deployment's stated scheduler settings hold each new request back before
its prompt is taken in [s] (SGLang's ``--scheduler-recv-interval``, TensorRT-LLM's batch
waiting: ``EngineSettings``, resolved by the engine wing's ``admission_hold``), at the running
batch of a load: the waits of ``calc.serve.admission`` as ``latency``'s and ``plan``'s analytic
TTFT charge them (the simulation replays the holds event by event instead: ``calc.serve.simulate``).

Both waits count decode steps, so they apply only while generation requests run beside the
new one: an engine with nothing running reads its socket every idle loop (SGLang's skipper
weighs an idle loop 1, and the loop takes no forward pass) and TensorRT-LLM waits only beside
generation requests. ``busy``: the share of arrivals that find any running: in a closed loop
of c requests a group, 1 once c − 1 others run; under open arrivals, 1 − e^(−b) for a mean of
b running (the running count of arrivals served independently is Poisson), b from Little's law
b = λ × gen × step(b) at the group's arrival rate λ, the mean output and the decode step at b,
at most ``max_num_seqs``. The step is the decode step of b sequences at the mean context
(prompt + gen / 2); prompts arrive b / gen a step in a closed loop, λ × step open.

Mean waits, not the engines' events. ``held_each_s`` is the mean-wait estimate the simulation
used before it replayed the events (each request's wait added to when the engine sees it),
kept to compare the two (docs/step-time.md, admitevents round).
"""

from __future__ import annotations

import math

from calc.deploy.engines.base import AdmissionHold
from calc.serve.admission import batch_wait_s, recv_interval_wait_s

LITTLE_ITERATIONS = 60  # fixed-point steps for the running batch of an open load


def held_s(hold: AdmissionHold, step_s: float, busy: float, arrivals_per_step: float,
           prompt: int) -> float:  # fmt: skip
    """The mean wait of a new prompt of ``prompt`` tokens under ``hold`` [s]: ``busy`` (the
    share of arrivals that find generation requests running) × (the receive interval's wait +
    the batch wait), with decode steps of ``step_s`` seconds and ``arrivals_per_step`` other
    prompts a step joining a batch wait (``calc.serve.admission``).

    Example: a receive interval of 10, 8 ms steps, always busy: (10 − 1) / 2 × 8 ms = 36 ms.
    """
    if busy <= 0 or not hold.holds:
        return 0.0
    wait = recv_interval_wait_s(hold.recv_interval, step_s)
    if hold.batch_wait_iters > 0 and hold.batch_wait_tokens > 0:
        wait += batch_wait_s(hold.batch_wait_iters, step_s, arrivals_per_step, prompt,
                             hold.batch_wait_tokens)  # fmt: skip
    return busy * wait


def busy_share(others: float, closed: bool) -> float:
    """The share of arrivals that find generation requests running beside them: in a closed
    loop 1 where ``others`` (the requests running beside a new one) reach 1, else 0; under
    open arrivals 1 − e^(−others) (module docstring)."""
    if closed:
        return 1.0 if others >= 1 else 0.0
    return 1.0 - math.exp(-max(0.0, others))


def decode_step_s(step, batch: float, ctx: float) -> float:
    """One decode step of ``batch`` sequences (rounded, at least 1) at a mean context of
    ``ctx`` tokens [s]: ``step.decode_s(b) + step.ctx_slope(b) × b × ctx``."""
    b = max(1, round(batch))
    return float(step.decode_s(b)) + float(step.ctx_slope(b)) * b * ctx


def open_batch(step, rate_per_s: float, gen: float, ctx: float, max_seqs: int) -> float:
    """The mean running batch of a group offered ``rate_per_s`` requests of ``gen`` output
    tokens [sequences]: Little's law b = rate × gen × step(b), iterated from one sequence and
    capped at ``max_seqs`` (module docstring)."""
    b = 1.0
    for _ in range(LITTLE_ITERATIONS):
        nxt = min(float(max_seqs), rate_per_s * gen * decode_step_s(step, b, ctx))
        if abs(nxt - b) < 1e-3:
            return nxt
        b = nxt
    return b


def held_each_s(hold: AdmissionHold, step, arrival, prompt, gen, groups: int,
                max_in_flight: int | None, max_seqs: int):  # fmt: skip
    """Each request's mean wait under ``hold`` in a load's simulation [s] (numpy array in the
    requests' order; None where nothing is held): the group's running batch from the client's
    concurrency (``max_in_flight`` over ``groups``) or, under open arrivals, from the
    offered rate (module docstring), then ``held_s`` per prompt length; None too where every
    request has one output token (a prefill server's: no decode step runs beside them)."""
    import numpy as np

    if not hold.holds:
        return None
    arrival = np.asarray(arrival, dtype=np.float64)
    prompt = np.asarray(prompt, dtype=np.int64)
    n = arrival.size
    if n == 0 or int(np.max(gen)) <= 1:  # one output token each: no decode step ever runs
        return None
    mean_gen = float(np.mean(gen))
    ctx = float(np.mean(prompt)) + mean_gen / 2
    if max_in_flight is not None:  # a closed loop: at most max_in_flight open at once
        c = min(max_in_flight, n)
        b = float(min(max_seqs, math.ceil(c / max(1, groups))))
        step_s = decode_step_s(step, b, ctx)
        per_step, busy = b / mean_gen, busy_share(b - 1, True)
    else:
        span = float(arrival[-1] - arrival[0])
        rate = (n - 1) / span / max(1, groups) if span > 0 else 0.0
        b = open_batch(step, rate, mean_gen, ctx, max_seqs) if rate > 0 else 0.0
        step_s = decode_step_s(step, b, ctx)
        per_step, busy = rate * step_s, busy_share(b, False)
    out = np.zeros(n)
    for p in np.unique(prompt).tolist():
        out[prompt == p] = held_s(hold, step_s, busy, per_step, int(p))
    return out


def steady_wait_s(dep, step_s: float, batch: int, prompt: int, gen: int) -> float:
    """The mean wait of a request that joins ``batch`` sequences decoding at steps of
    ``step_s`` seconds, each of ``gen`` output tokens (a closed loop: the other batch − 1 run
    beside it, and a prompt arrives batch / gen a step) under ``dep``'s stated settings [s]
    (``latency``'s TTFT). Example: SGLang's receive interval 10 at 8 ms steps, batch 4: 36 ms."""
    hold = dep.engine_model.admission_hold(dep)
    busy = busy_share(batch - 1, True)
    return held_s(hold, step_s, busy, batch / max(1, gen), prompt)
