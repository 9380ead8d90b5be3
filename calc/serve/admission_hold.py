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
b running (the running count of arrivals served independently is Poisson); prompts arrive
b / gen a step in a closed loop, λ × step open.

Mean waits, not the engines' events: the simulation replays the events themselves
(docs/step-time.md, admitevents round).
"""

from __future__ import annotations

import math

from calc.deploy.engines.base import AdmissionHold
from calc.serve.admission import batch_wait_s, recv_interval_wait_s


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


def steady_wait_s(dep, step_s: float, batch: int, prompt: int, gen: int) -> float:
    """The mean wait of a request that joins ``batch`` sequences decoding at steps of
    ``step_s`` seconds, each of ``gen`` output tokens (a closed loop: the other batch − 1 run
    beside it, and a prompt arrives batch / gen a step) under ``dep``'s stated settings [s]
    (``latency``'s TTFT). Example: SGLang's receive interval 10 at 8 ms steps, batch 4: 36 ms."""
    hold = dep.engine_model.admission_hold(dep)
    busy = busy_share(batch - 1, True)
    return held_s(hold, step_s, busy, batch / max(1, gen), prompt)
