"""TensorRT-LLM's attention-DP balance replayed iteration by iteration over a closed-loop benchmark,
the check of the mean wait ``calc.serve.admission.adp_balance_rounds_wait_s`` gives (issue 20,
adpbalance round). Not part of the test suite (the full cases take a minute).

The replay, in decode iterations (no step times): c clients each send ``rounds`` prompts, the
next when their last one ends; a new prompt goes to the rank with the fewest active requests
(ties drawn at random: ``_balance_requests_across_ranks``); each iteration the ranks' held
contexts go in by the balance's rule (``_balance_adp_requests``: a shared counter rising one an
iteration while some rank has no context, released at ``timeout_iters``, or at once when some
rank has no generation request; once every rank has one, ``batching_wait_iters`` more); a
released request then decodes an output length drawn uniformly over [ratio × osl, osl]. With a
``cap`` a rank lets at most that many of its held contexts go at a release (the prompts its
micro-batch scheduler fits into ``max_num_tokens``; trttrickle round), the rest held on.

    python bench/adp_balance_replay.py        (the cases of the write-up, docs/step-time.md)
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# (clients, ranks, osl, timeout_iters, batching_wait_iters): the InferenceX scripts' settings
# (DeepSeek-R1: T 60, B 0; gpt-oss: T 50, B 10) at the sample's shapes
CASES = [
    (256, 8, 1024, 60, 0), (256, 4, 1024, 60, 0), (256, 8, 8192, 60, 0), (64, 8, 1024, 60, 0),
    (128, 4, 8192, 60, 0), (64, 2, 1024, 50, 10), (32, 4, 1024, 50, 10), (64, 4, 1024, 50, 10),
    (128, 2, 1024, 50, 10), (256, 2, 1024, 50, 10), (64, 2, 8192, 50, 10),
]  # fmt: skip
RATIO, ROUNDS = 0.8, 10  # InferenceX's --random-range-ratio and prompts a client


def _release(held: list[list[int]], running: list[list[int]], state: list[int], timeout: int,
             batching: int) -> bool:  # fmt: skip
    """One iteration of the balance's rule: whether the held contexts go in; ``state`` holds
    the shared waiting and batching counters, updated in place."""
    all_gen = all(running)
    if all(held):
        state[0] = 0
        if all_gen and state[1] < batching:
            state[1] += 1
            return False
        state[1] = 0
        return True
    state[0] += 1
    if state[0] >= timeout or not all_gen:
        state[0] = 0
        return True
    return False


def replay(clients: int, ranks: int, osl: int, timeout: int, batching: int,
           rounds: int = ROUNDS, ratio: float = RATIO, seed: int = 0,
           cap: int | None = None) -> list[int]:  # fmt: skip
    """Each prompt's wait in iterations, from the iteration it arrives to the one it goes in.
    ``cap``: the most contexts a rank's micro-batch scheduler takes in one iteration (the
    prompts that fit ``max_num_tokens`` beside its generation tokens); None: all it holds.

    Event by event: an iteration where nothing arrives, finishes or is released only moves the
    balance's counter, so the replay jumps to the next iteration that does (a finish, or the
    counter reaching ``timeout``), the same waits as stepping every iteration."""
    rng = random.Random(seed)
    take = cap if cap is not None else clients * rounds
    held: list[list[int]] = [[] for _ in range(ranks)]  # arrival iteration of each context
    running: list[list[int]] = [[] for _ in range(ranks)]  # finish iteration of each request
    state, waits, left, ready, it = [0, 0], [], clients * rounds, clients, 0
    while left or any(held) or any(running):
        for _ in range(min(ready, left)):
            load = [len(held[r]) + len(running[r]) for r in range(ranks)]
            least = [r for r in range(ranks) if load[r] == min(load)]
            held[rng.choice(least)].append(it)
            left -= 1
        ready = 0
        go = _release(held, running, state, timeout, batching)
        for r in range(ranks):
            ready += sum(1 for x in running[r] if x <= it)
            running[r] = [x for x in running[r] if x > it]
            if go:
                waits += [it - t for t in held[r][:take]]
                running[r] += [it + rng.randint(int(osl * ratio), osl) for _ in held[r][:take]]
                held[r] = held[r][take:]
        it += _skip(held, running, state, timeout, ready, it)
    return waits


def _skip(held, running, state, timeout: int, ready: int, it: int) -> int:
    """Iterations from ``it`` to the next one where something happens (1: the next), moving
    the balance's waiting counter over those between (``_release`` with nothing new)."""
    if ready or all(held) or not all(running):
        return 1  # arrivals, a release by cover (or the batching wait), or one each iteration
    finish = min(min(x) for x in running)  # the next finish (running is non-empty on every rank)
    step = max(1, min(finish - it, timeout - state[0]))
    state[0] += step - 1
    return step


def model_steps(clients: int, ranks: int, osl: int, timeout: int, batching: int) -> float:
    """The round model's mean wait in iterations (``adp_balance_rounds_wait_s`` at 1 s a
    step), the cycle the mean output length."""
    from calc.serve.admission import adp_balance_rounds_wait_s

    return adp_balance_rounds_wait_s(ranks, timeout, batching, 1.0, clients, ROUNDS,
                                     (1 - RATIO) * osl, (1 + RATIO) / 2 * osl)  # fmt: skip


def main() -> int:
    print("| clients | ranks | osl | T | B | replay (iterations) | round model "
          "| replay, one a rank a release |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case in CASES:
        waits, held = replay(*case), replay(*case, cap=1)
        got, want = sum(waits) / len(waits), model_steps(*case)
        one = sum(held) / len(held)
        cells = " | ".join(map(str, case))
        print(f"| {cells} | {got:.1f} | {want:.1f} ({want / got - 1:+.0%}) | {one:.1f} "
              f"(×{one / got:.2f}) |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
