"""The one-request-at-a-time reference of a sequence group's schedule (the exact rules of
``calc.serve.simulate``'s docstring and ``calc.serve.policies``, every iteration): slow, kept
here as the oracle that ``calc.serve.scheduler.run_group`` (the package's fast loop) is tested
against, for every policy:

- mixed batches (vLLM V1; TensorRT-LLM with whole-request reservation, prompts chunked or not);
- prefill batches first (SGLang: admission with room for the running requests' future tokens,
  batch_is_full, retraction of the fewest-output decoders, the new_token_ratio).
"""

from __future__ import annotations

import itertools
import math
from collections import deque

from calc.serve.scheduler import GroupOut, Limits, cdiv


class _Group:
    """Every request's state, kept exactly (no aggregate)."""

    def __init__(self, arrival, prompt, gen, shared, limits: Limits, max_in_flight):
        n = self.n = len(arrival)
        self.sent = None
        if max_in_flight is not None and max_in_flight < n:
            self.sent = list(arrival)
            arrival = self.sent[:max_in_flight] + [math.inf] * (n - max_in_flight)
        self.arrival = arrival
        self.released = n if self.sent is None else max_in_flight
        self.prompt, self.gen, self.shared, self.lim = prompt, gen, shared, limits
        self.B = limits.block_size
        self.free = limits.pool_blocks - (cdiv(max(shared), self.B) if n and max(shared) else 0)
        self.used = 0
        self.computed = list(shared)
        self.ntok = list(prompt)
        self.generated = [0] * n
        self.blocks = [0] * n
        self.first_token = [-1.0] * n
        self.finish = [-1.0] * n
        self.admitted = [-1.0] * n
        self.token_times: list[list[float]] = [[] for _ in range(n)]
        self.preempted_n = [0] * n
        self.waiting: deque[int] = deque()
        self.running: list[int] = []
        self.nxt = self.done = self.preemptions = self.queue_max = self.iterations = 0
        self.t = self.t_start = arrival[0] if n else 0.0
        self.queue_area = self.used_area = 0.0
        f = limits.future_tokens
        self.ratio_min = f.init_ratio * f.min_ratio_factor
        self.ratio_decay = (f.init_ratio - self.ratio_min) / f.decay_steps
        self.ratio_base, self.ratio_steps, self.full = f.init_ratio, 0, False
        hold = limits.admission  # SGLang's receive interval, TensorRT-LLM's batch wait
        self.recv_n, self.recv_count = max(1, hold.recv_interval), 0
        self.bw_iters = hold.batch_wait_iters if hold.batch_wait_tokens > 0 else 0
        self.bw_tokens, self.bw_count = hold.batch_wait_tokens, 0

    def decoding(self, r) -> bool:
        return self.ntok[r] - self.computed[r] == 1 and self.computed[r] >= self.prompt[r]

    def new_blocks(self, r, k) -> int:
        return max(0, cdiv(self.computed[r] + k - self.shared[r], self.B) - self.blocks[r])

    def take(self, r, need):
        self.free -= need
        self.used += need
        self.blocks[r] += need

    def preempt(self, v, front=True):
        self.free += self.blocks[v]
        self.used -= self.blocks[v]
        self.blocks[v] = 0
        self.computed[v] = self.shared[v]
        (self.waiting.appendleft if front else self.waiting.append)(v)
        self.preemptions += 1
        self.preempted_n[v] += 1
        self.full = False

    def admit(self, w, need):
        self.waiting.popleft()
        self.running.append(w)
        self.take(w, need)
        if self.admitted[w] < 0:
            self.admitted[w] = self.t

    def ratio(self) -> float:
        return max(self.ratio_min, self.ratio_base - self.ratio_steps * self.ratio_decay)


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
    s = _Group(arrival, prompt, gen, shared, limits, max_in_flight)
    while s.done < s.n:
        fresh = 0  # arrived just now (waited 0)
        # a receive interval: busy, new requests are read only when N forwards have run
        due = s.recv_count >= s.recv_n or not (s.running or s.waiting)
        if due:
            s.recv_count = 0
        while due and s.nxt < s.n and s.arrival[s.nxt] <= s.t:
            s.queue_area += s.t - s.arrival[s.nxt]
            fresh += s.arrival[s.nxt] == s.t
            s.waiting.append(s.nxt)
            s.nxt += 1
        if not s.running and not s.waiting:
            s.ratio_base, s.ratio_steps = limits.future_tokens.init_ratio, 0
            s.t = s.arrival[s.nxt]
            continue
        if len(s.waiting) - fresh > s.queue_max:  # the longest queue: before admission
            s.queue_max = len(s.waiting) - fresh
        before = s.iterations
        if limits.prefill_first:
            _sglang_pass(s, step)
        else:
            _mixed_pass(s, step)
        if s.iterations == before:  # no batch: an idle loop, weight 1
            s.recv_count += 1
    gaps = [b - a for tt in s.token_times for a, b in itertools.pairwise(tt)]
    itl_max = [max((b - a for a, b in itertools.pairwise(tt)), default=0.0)
               for tt in s.token_times]  # fmt: skip
    out = GroupOut(
        s.first_token, s.finish, s.admitted, s.preemptions, s.queue_area, s.queue_max,
        s.used_area, s.t_start, s.t, s.iterations, gaps, [1] * len(gaps), [], itl_max,
        s.preempted_n, s.arrival if s.sent is not None else None,
    )  # fmt: skip
    out.token_times = s.token_times
    return out


# -- mixed batches: vLLM V1, TensorRT-LLM ------------------------------------------------


def _mixed_pass(s: _Group, step) -> None:
    """Running requests first (each min(its tokens left, the budget), its blocks; when the
    pool is out the last running request is preempted), then waiting requests FCFS while the
    budget, max_num_seqs and the pool allow (TensorRT-LLM: whole requests reserved; without
    chunked prefill, whole prompts charged at their length)."""
    lim = s.lim
    budget = lim.max_batched_tokens
    sched: list[tuple[int, int]] = []
    preempted = False
    idx = 0
    while idx < len(s.running) and budget > 0:
        r = s.running[idx]
        k = min(s.ntok[r] - s.computed[r], budget)
        need = s.new_blocks(r, k)
        self_preempted = False
        while need > s.free:
            v = s.running.pop()
            s.preempt(v)
            preempted = True
            if v == r:
                self_preempted = True
                break
        if self_preempted:
            break
        s.take(r, need)
        sched.append((r, k))
        budget -= k
        idx += 1
    blocked = False
    new = []  # (request, blocks, first admission) admitted in this pass
    while not preempted and s.waiting and budget > 0:
        if len(s.running) >= lim.max_num_seqs:
            blocked = True
            break
        w = s.waiting[0]
        k = charge = min(s.ntok[w] - s.computed[w], budget)
        if not lim.chunked_prefill:
            k, charge = s.ntok[w] - s.computed[w], s.ntok[w]
        if lim.reserve_whole_request:
            need = cdiv(s.prompt[w] + s.gen[w] - s.shared[w], s.B)
        else:
            need = cdiv(s.computed[w] + k - s.shared[w], s.B)
        if charge > budget or need > s.free:
            blocked = True
            break
        new.append((w, need, s.admitted[w] < 0))
        s.admit(w, need)
        sched.append((w, k))
        budget -= charge
    if not sched:
        return
    gens = [(r, k) for r, k in sched if k == 1 and s.decoding(r)]
    held = 0
    if s.bw_iters and lim.reserve_whole_request and not preempted and gens and \
            len(gens) < len(sched):  # fmt: skip
        held = _batch_wait(s, sched, len(gens))
    if held:  # the contexts wait: the decoders alone (nothing to undo: all reserved)
        for w, need, first in reversed(new):  # admitted just now: back to the queue's head
            s.running.remove(w)
            s.waiting.appendleft(w)
            s.free, s.used, s.blocks[w] = s.free + need, s.used - need, s.blocks[w] - need
            if first:
                s.admitted[w] = -1.0
        before = s.iterations
        _run(s, step, gens, True, held)
        s.bw_count += s.iterations - before
        return
    stretch = not preempted and len(sched) == len(s.running) and (blocked or not s.waiting)
    _run(s, step, sched, stretch)


def _batch_wait(s: _Group, sched, gens: int) -> int:
    """TensorRT-LLM's batch wait over the contexts scheduled (``calc.serve.policies``
    ``MixedBatches.batch_wait``): held while the count is below T and their whole sequences'
    tokens + one a decoder below the threshold; the iterations they may still wait, or 0."""
    tokens = gens + sum(s.ntok[r] for r, k in sched if not (k == 1 and s.decoding(r)))
    if s.bw_count < s.bw_iters and tokens < s.bw_tokens:
        return s.bw_iters - s.bw_count
    s.bw_count = 0
    return 0


# -- prefill batches first: SGLang ---------------------------------------------------------


def _sglang_pass(s: _Group, step) -> None:
    """A prefill batch if one forms (the request in chunked prefill continues, then waiting
    requests while the pool less the decoders' future tokens × ratio holds them), else a
    decode batch of every decoder (retracting the fewest-output ones when the pool is out)."""
    f = s.lim.future_tokens
    page = s.B if f.page_reserve else 0
    decoders = [r for r in s.running if s.decoding(r)]
    in_prefill = [r for r in s.running if not s.decoding(r)]
    if not decoders:
        s.full = False
    if in_prefill or (s.waiting and not s.full):
        future = sum(min(s.gen[r] - (s.ntok[r] - s.prompt[r]), f.clip) for r in decoders)
        room = s.free * s.B - s.ratio() * future
        budget = s.lim.max_batched_tokens if s.lim.chunked_prefill else 1 << 62
        cap = s.lim.prefill_input  # --max-prefill-tokens: rem_input_tokens
        rem_in = cap.tokens if cap is not None else 1 << 62
        unit = s.B if cap is not None and cap.paged else 1
        sched = []
        for r in in_prefill:  # at most one: the chunked request
            left = s.ntok[r] - s.computed[r]
            k = min(left, min(budget, int(room)) if int(room) > 0 else budget)
            k = min(k, (s.blocks[r] + s.free) * s.B - (s.computed[r] - s.shared[r]))
            if k <= 0:
                s.running.remove(r)
                s.preempt(r, front=False)
                continue
            s.take(r, s.new_blocks(r, k))
            sched.append((r, k))
            room -= cdiv(k, s.B) * s.B + page + (min(s.gen[r], f.clip) if k == left else 0)
            budget = budget - k if k == left else 0
            rem_in -= cdiv(k, unit) * unit
        while not s.full and s.waiting and budget > 0:
            if len(s.running) >= s.lim.max_num_seqs:
                s.full = True
                break
            w = s.waiting[0]
            left = s.ntok[w] - s.computed[w]
            total = left + min(s.gen[w] - (s.ntok[w] - s.prompt[w]), f.clip) + page
            k = min(left, budget)
            need = cdiv(s.computed[w] + k - s.shared[w], s.B)
            if total >= room or need > s.free:
                s.full = bool(sched) or bool(decoders)
                break
            tested = cap is not None and (cap.check != "unchunked" or not s.lim.chunked_prefill)
            if tested and sched and (cdiv(left, unit) * unit > rem_in or (
                    cap.check != "gt" and cdiv(left, unit) * unit >= rem_in)):  # fmt: skip
                break
            s.admit(w, need)
            sched.append((w, k))
            room -= cdiv(k, s.B) * s.B + page + (min(s.gen[w], f.clip) if k == left else 0)
            budget -= k
            rem_in -= cdiv(k, unit) * unit
            if k < left or rem_in <= 0:
                break
        if sched:
            _run(s, step, sched, False)
            return
    if not decoders:
        return
    need = sum(s.new_blocks(r, 1) for r in decoders)
    retracted = need > s.free
    if retracted:
        order = sorted(decoders, key=lambda r: (s.ntok[r] - s.prompt[r], -s.prompt[r]),
                       reverse=True)  # fmt: skip
        while len(order) > 1:
            v = order.pop()
            need -= s.new_blocks(v, 1)
            s.running.remove(v)
            s.preempt(v, front=False)
            if need <= s.free:
                break
        outputs = sum(s.ntok[r] - s.prompt[r] for r in order)
        s.ratio_base = min(1.0, (outputs + f.retract_steps * len(order))
                           / (sum(s.gen[r] for r in order) + 1))  # fmt: skip
        s.ratio_steps = 0
    for r in s.running:
        s.take(r, s.new_blocks(r, 1))
    before = s.iterations
    _run(s, step, [(r, 1) for r in s.running], not retracted and (s.full or not s.waiting))
    if not retracted:
        s.ratio_steps += s.iterations - before


# -- an iteration, timed and settled --------------------------------------------------------


def _run(s: _Group, step, sched, may_stretch: bool, held: int = 0) -> None:
    """Time the scheduled iteration and settle it; a decode-only one that nothing can
    interrupt (``may_stretch``) runs on until the first finish, the pool's end or the next
    arrival (under a receive interval: the receive that reads it); ``held`` > 0: contexts
    held by a batch wait beside it, at most that many iterations, to the next arrival too."""
    b = ctx_sum = rows = 0
    chunks = []
    for r, k in sched:
        if k == 1 and s.decoding(r):
            b += 1
            ctx_sum += s.computed[r] + 1
            rows += 1
        else:
            chunks.append((s.computed[r], k))
            if s.computed[r] + k == s.ntok[r]:
                rows += 1
    if not chunks and may_stretch:
        decs = [r for r, _ in sched]
        k_run = min(s.gen[r] - s.generated[r] for r in decs)
        if held:
            k_run = min(k_run, held)
        slope = step.ctx_slope(b)
        if step.loop_floor_s(b) > step.decode_s(b) + slope * ctx_sum:
            k_run = 1  # the engine's overlapped loop outlasts this step: the iteration's own
        if k_run > 1:
            room = 1 << 62 if s.lim.reserve_whole_request else s.free  # all reserved
            k_run = _decode_run(
                decs, s.computed, s.shared, s.B, room, k_run, b, ctx_sum, step, slope, s.t,
                None if ((s.waiting and not held and s.recv_n == 1) or s.nxt >= s.n
                         or s.arrival[s.nxt] == math.inf) else s.arrival[s.nxt],
                s.recv_count, s.recv_n,
            )  # fmt: skip
        if k_run > 1:
            _stretch(s, step, b, ctx_sum, k_run, slope, decs)
            return
    dt = step.iteration_s(b, ctx_sum, chunks, rows)
    # SGLang's receive count: a decode forward weighs 1, any other fires the next receive
    s.recv_count = s.recv_n if chunks else s.recv_count + 1
    s.used_area += dt * s.used
    s.queue_area += dt * len(s.waiting)
    s.t += dt
    s.iterations += 1
    for r, k in sched:
        c = s.computed[r] + k
        s.computed[r] = c
        if c == s.ntok[r]:
            s.ntok[r] = c + 1
            _token(s, r, [s.t])
    s.running = [r for r in s.running if s.finish[r] < 0]


def _stretch(s: _Group, step, b, ctx_sum, k_run, slope, decs) -> None:
    d = step.decode_s(b)
    dt = k_run * d + slope * (k_run * ctx_sum + b * k_run * (k_run - 1) / 2)
    ends, end = [], s.t
    for j in range(k_run):
        end += d + slope * (ctx_sum + b * j)
        ends.append(end)
    new_used = 0
    for r in decs:
        c = s.computed[r] + k_run
        s.computed[r] = c
        s.ntok[r] = c + 1
        if not s.lim.reserve_whole_request:
            nb = cdiv(c - s.shared[r], s.B)
            new_used += nb - s.blocks[r]
            s.blocks[r] = nb
    # blocks of the stretch's first step were allocated before it; the rest now
    s.used_area += dt * (s.used + new_used / 2)
    s.used += new_used
    s.free -= new_used
    s.queue_area += dt * len(s.waiting)
    s.t += dt
    s.iterations += k_run
    for _ in range(k_run):  # one decode forward each, a receive where the count reaches N
        s.recv_count = 1 if s.recv_count >= s.recv_n else s.recv_count + 1
    for r in decs:
        _token(s, r, ends)
    s.running = [r for r in s.running if s.finish[r] < 0]


def _token(s: _Group, r: int, times: list[float]) -> None:
    """Request r produced one token at each of ``times``; at its last output token it
    finishes at t."""
    s.generated[r] += len(times)
    s.token_times[r].extend(times)
    if s.first_token[r] < 0:
        s.first_token[r] = times[0]
    if s.generated[r] >= s.gen[r]:
        s.finish[r] = s.t
        s.free += s.blocks[r]
        s.used -= s.blocks[r]
        s.blocks[r] = 0
        s.done += 1
        s.full = False
        if s.released < s.n:
            s.arrival[s.released] = max(s.sent[s.released], s.t)
            s.released += 1


def _decode_run(running, computed, shared, B, free, k_run, b, ctx_sum, step, slope, t, arrive,
                count=0, interval=1):  # fmt: skip
    """How many decode-only iterations (at most ``k_run``) run before the pool runs out of
    blocks or the iteration in which the next arrival ``arrive`` lands ends (under a receive
    interval, the first after it at whose end the count ``count`` + j reaches a multiple of
    ``interval``: the receive that reads it)."""
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
        while (count + j) % interval:  # not read until the receive fires
            j += 1
        k_run = min(k_run, j)
    return k_run


def random_scenario(seed: int, shared_every: int = 3):
    """A random small scenario for the equivalence tests: (arrival, prompt, gen, shared, limits)
    with tiny pools (preemptions, retractions), small budgets (chunking), max_num_seqs caps,
    prefix sharing on every ``shared_every``-th seed, and a policy by ``seed % 4``: vLLM's mixed
    batches (0), TensorRT-LLM's whole-request reservation with chunked prefill (1) or without
    (3: the budget at least the longest prompt), SGLang's prefill batches first (2; on most of
    its seeds with a bound on a prefill batch's prompt tokens, under each release's test)."""
    import numpy as np

    from calc.serve.scheduler import FutureTokens

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    B = int(rng.choice([1, 2, 4, 16]))
    arrival = np.sort(rng.exponential(2.0, n).cumsum() * rng.uniform(0.05, 1)).tolist()
    prompt = rng.integers(1, 80, n).tolist()
    gen = rng.integers(1, 40, n).tolist()
    shared = [(int(p * 0.3) // B) * B if seed % shared_every == 0 else 0 for p in prompt]
    shared = [min(s, ((p - 1) // B) * B) for s, p in zip(shared, prompt, strict=True)]
    need = max(-(-(p + g - s) // B) for p, g, s in zip(prompt, gen, shared, strict=True))
    mode = seed % 4
    budget = int(rng.integers(8, 120))
    lim = Limits(
        pool_blocks=int(need + rng.integers(0, 3 * need) + -(-max(shared) // B)) + 2 * (mode == 2),
        block_size=B,
        max_batched_tokens=max(budget, max(prompt)) if mode == 3 else budget,
        max_num_seqs=int(rng.integers(1, 12)),
        reserve_whole_request=mode in (1, 3),
        prefill_first=mode == 2,
        chunked_prefill=mode != 3,
        # a fast-decaying ratio and a small clip, so that both matter in small scenarios
        future_tokens=FutureTokens(decay_steps=int(rng.integers(5, 50)),
                                   clip=int(rng.integers(8, 40)),
                                   retract_steps=int(rng.integers(1, 20))),
    )  # fmt: skip
    if mode == 2 and seed % 16 != 2:  # SGLang's --max-prefill-tokens, each release's test
        from dataclasses import replace

        from calc.serve.scheduler import PrefillInputLimit

        own = np.random.default_rng(seed + 10**6)  # apart: the draws above stay as they were
        cap = PrefillInputLimit(int(own.integers(4, 64)), ("gt", "ge", "unchunked")[seed % 3])
        lim = replace(lim, prefill_input=cap, chunked_prefill=seed % 5 != 0)
    return arrival, prompt, gen, shared, lim, rng


def assert_same_schedule(a: GroupOut, b: GroupOut) -> None:
    """The fast loop's ``a`` and the reference's ``b`` ran the same schedule: preemptions,
    iterations, admission, first-token and finish times, the queue's peak and area."""
    import pytest

    assert a.preemptions == b.preemptions
    assert a.iterations == b.iterations
    assert a.admitted == pytest.approx(b.admitted)
    assert a.first_token == pytest.approx(b.first_token)
    assert a.finish == pytest.approx(b.finish)
    assert a.queue_max == b.queue_max
    assert a.queue_area == pytest.approx(b.queue_area)
