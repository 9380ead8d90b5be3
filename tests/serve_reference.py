"""The one-request-at-a-time reference of a sequence group's schedule (the exact rules of
``calc.serve.simulate``'s docstring, every iteration): slow, kept here as the oracle that
``calc.serve.scheduler.run_group`` (the package's fast loop) is tested against."""

from __future__ import annotations

import itertools
import math
from collections import deque

from calc.serve.scheduler import GroupOut, Limits, cdiv


def simulate_group_reference(
    arrival, prompt, gen, shared, limits: Limits, step, max_in_flight=None
) -> GroupOut:
    """One sequence group's requests (lists sorted by arrival; ``shared`` prefix tokens per
    request, whole blocks) by the exact rules, one request at a time, every iteration: slow,
    the reference ``calc.serve.scheduler.run_group`` is tested against. ``step`` is the
    iteration time (``iteration_s(b, ctx_sum, chunks, rows)``, ``decode_s(b)``,
    ``ctx_slope(b)``). Every token's time is kept (``token_times``, an attribute of the
    result): the inter-token gaps are their differences. ``max_in_flight``: a client keeping
    at most that many requests open (the next is sent at a finish)."""

    n = len(arrival)
    sent = None
    if max_in_flight is not None and max_in_flight < n:
        sent = list(arrival)
        arrival = sent[:max_in_flight] + [math.inf] * (n - max_in_flight)
    released = n if sent is None else max_in_flight
    token_times: list[list[float]] = [[] for _ in range(n)]
    preempted_n = [0] * n
    B = limits.block_size
    M = limits.max_batched_tokens
    max_seqs = limits.max_num_seqs
    shared_blocks = cdiv(max(shared), B) if n and max(shared) else 0
    free = limits.pool_blocks - shared_blocks
    computed = list(shared)
    ntok = list(prompt)
    generated = [0] * n
    blocks = [0] * n
    first_token = [-1.0] * n
    finish = [-1.0] * n
    admitted = [-1.0] * n
    waiting: deque[int] = deque()
    running: list[int] = []
    nxt = 0
    done = 0
    t = arrival[0] if n else 0.0
    t_start = t
    preemptions = 0
    queue_area = 0.0
    queue_max = 0
    used_area = 0.0
    used = 0  # blocks held by running requests
    iterations = 0
    while done < n:
        fresh = 0  # arrived just now (waited 0)
        while nxt < n and arrival[nxt] <= t:
            queue_area += t - arrival[nxt]
            fresh += arrival[nxt] == t
            waiting.append(nxt)
            nxt += 1
        if not running and not waiting:
            t = arrival[nxt]
            continue
        if len(waiting) - fresh > queue_max:  # the longest queue: before admission
            queue_max = len(waiting) - fresh
        pfirst = False
        if limits.prefill_first:  # a prefill batch if a prompt can be prefilled (SGLang)
            pfirst = any(not (ntok[r] - computed[r] == 1 and computed[r] >= prompt[r])
                         for r in running)  # fmt: skip
            if not pfirst and waiting and len(running) < max_seqs:
                w = waiting[0]
                if limits.reserve_whole_request:
                    need = cdiv(prompt[w] + gen[w] - shared[w], B)
                else:  # the whole prompt must fit (SGLang's admission)
                    need = cdiv(ntok[w] - shared[w], B)
                pfirst = need <= free
        budget = M
        sched: list[tuple[int, int]] = []
        preempted = False
        idx = 0
        while idx < len(running) and budget > 0:
            r = running[idx]
            if pfirst and ntok[r] - computed[r] == 1 and computed[r] >= prompt[r]:
                idx += 1  # a decoder waits for the prefill batch
                continue
            k = min(ntok[r] - computed[r], budget)
            need = max(0, cdiv(computed[r] + k - shared[r], B) - blocks[r])
            self_preempted = False
            while need > free:
                v = running.pop()
                free += blocks[v]
                used -= blocks[v]
                blocks[v] = 0
                computed[v] = shared[v]
                waiting.appendleft(v)
                preemptions += 1
                preempted_n[v] += 1
                preempted = True
                if v == r:
                    self_preempted = True
                    break
            if self_preempted:
                break
            free -= need
            used += need
            blocks[r] += need
            sched.append((r, k))
            budget -= k
            idx += 1
        blocked = False
        if not preempted and (pfirst or not limits.prefill_first):
            while waiting and budget > 0:
                if len(running) >= max_seqs:
                    blocked = True
                    break
                w = waiting[0]
                k = min(ntok[w] - computed[w], budget)
                if limits.reserve_whole_request:
                    need = check = cdiv(prompt[w] + gen[w] - shared[w], B)
                else:
                    need = cdiv(computed[w] + k - shared[w], B)
                    check = cdiv(ntok[w] - shared[w], B) if limits.prefill_first else need
                if check > free:
                    blocked = True
                    break
                waiting.popleft()
                running.append(w)
                free -= need
                used += need
                blocks[w] = need
                if admitted[w] < 0:
                    admitted[w] = t
                sched.append((w, k))
                budget -= k
        if not sched:
            continue
        b = 0
        ctx_sum = 0
        chunks = []
        rows = 0
        for r, k in sched:
            if k == 1 and ntok[r] - computed[r] == 1 and computed[r] >= prompt[r]:
                b += 1
                ctx_sum += computed[r] + 1
                rows += 1
            else:
                chunks.append((computed[r], k))
                if computed[r] + k == ntok[r]:
                    rows += 1
        # a stretch of decode-only iterations that nothing can interrupt
        if not chunks and not preempted and len(sched) == len(running) and (blocked or not waiting):
            k_run = min(gen[r] - generated[r] for r in running)
            slope = step.ctx_slope(b)
            if k_run > 1:
                room = 1 << 62 if limits.reserve_whole_request else free  # all reserved
                k_run = _decode_run(
                    running, computed, shared, B, room, k_run, b, ctx_sum, step, slope, t,
                    None if (waiting or nxt >= n or arrival[nxt] == math.inf) else arrival[nxt],
                )  # fmt: skip
            if k_run > 1:
                d = step.decode_s(b)
                dt = k_run * d + slope * (k_run * ctx_sum + b * k_run * (k_run - 1) / 2)
                ends, end = [], t
                for j in range(k_run):
                    end += d + slope * (ctx_sum + b * j)
                    ends.append(end)
                new_used = 0
                for r in running:
                    token_times[r].extend(ends)
                    c = computed[r] + k_run
                    computed[r] = c
                    ntok[r] = c + 1
                    generated[r] += k_run
                    if not limits.reserve_whole_request:
                        nb = cdiv(c - shared[r], B)
                        new_used += nb - blocks[r]
                        blocks[r] = nb
                # blocks of the stretch's first step were allocated above; the rest now
                used_area += dt * (used + new_used / 2)
                used += new_used
                free -= new_used
                queue_area += dt * len(waiting)
                t += dt
                iterations += k_run
                finished = [r for r in running if generated[r] >= gen[r]]
                if finished:
                    for r in finished:
                        finish[r] = t
                        free += blocks[r]
                        used -= blocks[r]
                        blocks[r] = 0
                        if released < n:
                            arrival[released] = max(sent[released], t)
                            released += 1
                    done += len(finished)
                    running = [r for r in running if generated[r] < gen[r]]
                continue
        dt = step.iteration_s(b, ctx_sum, chunks, rows)
        used_area += dt * used
        queue_area += dt * len(waiting)
        t += dt
        iterations += 1
        any_done = False
        for r, k in sched:
            c = computed[r] + k
            computed[r] = c
            if c == ntok[r]:
                generated[r] += 1
                ntok[r] = c + 1
                token_times[r].append(t)
                if first_token[r] < 0:
                    first_token[r] = t
                if generated[r] >= gen[r]:
                    finish[r] = t
                    free += blocks[r]
                    used -= blocks[r]
                    blocks[r] = 0
                    done += 1
                    any_done = True
                    if released < n:
                        arrival[released] = max(sent[released], t)
                        released += 1
        if any_done:
            running = [r for r in running if finish[r] < 0]
    gaps = [b - a for tt in token_times for a, b in itertools.pairwise(tt)]
    itl_max = [max((b - a for a, b in itertools.pairwise(tt)), default=0.0) for tt in token_times]
    out = GroupOut(
        first_token, finish, admitted, preemptions, queue_area, queue_max, used_area,
        t_start, t, iterations, gaps, [1] * len(gaps), [], itl_max, preempted_n,
        arrival if sent is not None else None,
    )  # fmt: skip
    out.token_times = token_times
    return out


def _decode_run(running, computed, shared, B, free, k_run, b, ctx_sum, step, slope, t, arrive):
    """How many decode-only iterations (at most ``k_run``) run before the pool runs out of
    blocks or the iteration in which the next arrival ``arrive`` lands ends."""
    # step j (0 = the one scheduled) writes position c + j: blocks held after it
    # cdiv(c + j + 1, B); the first step's are allocated, so extra(j) = Σ that − cdiv(c+1, B)
    # ≤ b × (floor(j / B) + 1): only when that bound exceeds the free blocks count exactly
    if b * ((k_run - 1) // B + 1) > free:
        import numpy as np

        c = np.fromiter((computed[r] - shared[r] for r in running), dtype=np.int64, count=b)
        base = (c + B) // B  # cdiv(c + 1, B)

        def extra(j: int) -> int:
            return int(((c + j + B) // B - base).sum())

        if extra(k_run - 1) > free:
            lo, hi = 0, k_run - 1  # extra(lo) ≤ free < extra(hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if extra(mid) <= free:
                    lo = mid
                else:
                    hi = mid
            k_run = lo + 1
    if arrive is not None and k_run > 1:
        # end of iteration j (1-based): t + j d + γ (j C + b j (j − 1) / 2); the first j whose
        # end reaches the arrival
        d = step.decode_s(b)
        a2 = slope * b / 2
        a1 = d + slope * ctx_sum - a2
        target = arrive - t
        if a2 > 0:
            j = (-a1 + math.sqrt(a1 * a1 + 4 * a2 * target)) / (2 * a2)
        else:
            j = target / a1 if a1 > 0 else k_run
        j = max(1, math.ceil(j - 1e-9))

        def end(j: int) -> float:
            return a2 * j * j + a1 * j

        while j > 1 and end(j - 1) >= target:
            j -= 1
        while j < k_run and end(j) < target:
            j += 1
        k_run = min(k_run, j)
    return k_run


def random_scenario(seed: int, shared_every: int = 3):
    """A random small scenario for the equivalence tests: (arrival, prompt, gen, shared, limits)
    with tiny pools (preemptions), small budgets (chunking), max_num_seqs caps, prefix sharing
    on every ``shared_every``-th seed, whole-request reservation on odd seeds and SGLang's
    prefill-first batches on seeds 2, 3, 6, 7, …"""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    B = int(rng.choice([1, 2, 4, 16]))
    arrival = np.sort(rng.exponential(2.0, n).cumsum() * rng.uniform(0.05, 1)).tolist()
    prompt = rng.integers(1, 80, n).tolist()
    gen = rng.integers(1, 40, n).tolist()
    shared = [(int(p * 0.3) // B) * B if seed % shared_every == 0 else 0 for p in prompt]
    shared = [min(s, ((p - 1) // B) * B) for s, p in zip(shared, prompt, strict=True)]
    need = max(-(-(p + g - s) // B) for p, g, s in zip(prompt, gen, shared, strict=True))
    lim = Limits(
        pool_blocks=int(need + rng.integers(0, 3 * need) + -(-max(shared) // B)),
        block_size=B,
        max_batched_tokens=int(rng.integers(8, 120)),
        max_num_seqs=int(rng.integers(1, 12)),
        reserve_whole_request=bool(seed % 2),
        prefill_first=bool(seed // 2 % 2),
    )
    return arrival, prompt, gen, shared, lim, rng
