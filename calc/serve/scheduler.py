"""One sequence group's continuous-batching scheduler, iteration by iteration [s, blocks]: the
fast loop behind ``calc.serve.simulate`` (whose module docstring states the scheduling rules).

It keeps the decoding requests in aggregate, so an iteration costs O(requests that change)
rather than O(running requests):

- a global decode counter g advances once per iteration; decoding request r has computed
  off_r + g tokens (its KV written so far), so no per-request update is needed;
- it needs a new KV block in the iteration where (off_r + g − shared_r) mod B = 0, so the
  blocks all decoders need at counter g are cnt[(−g) mod B], with cnt the decoders counted by
  (off_r − shared_r) mod B;
- the attended keys of the decode tokens are Σ (off_r + g + 1) = Σ off + b (g + 1);
- finishes come off a heap keyed by the counter value at which each request ends.

At the start of an iteration the running requests are decoders followed by at most one
request still in prefill (a partial chunk takes all the budget left, so nothing is admitted
after it). The usual iteration (all running scheduled, the pool has the blocks) runs in this
aggregate form; any other (the budget below the decoders, or a preemption) materialises every
running request and runs the exact rules one request at a time
(``tests/serve_reference.py: simulate_group_reference`` is that loop throughout; a test checks
the two agree on random scenarios, in every mode).

**Token times** (for inter-token latencies, ITL): every aggregate decoder produces a token in
each decode iteration (in the aggregate form all of them are scheduled), so their gaps need no
per-request work either: a decoder whose previous token came at the end of the previous decode
iteration (a *generic* decoder) has the gap G_e = T_e − T_(e−1) of decode iteration e (its end
time less the last one's); one that joined since with an older token (its first token in a
prefill-only batch under SGLang's rules, a recompute, a request back from the exact rules) is
kept in a small *cohort* keyed by that token's time until the next decode iteration. A stretch
of k iterations gives the gaps d + γ (C + b j), j = 0 … k − 1, in closed form. Each request's
longest gap comes from a stack of suffix maxima of G (a stretch's gaps rise, so its last stands
for it) queried once when the request leaves the aggregate form. The exact rules time tokens
one request at a time.

**Client concurrency** (``max_in_flight``: a benchmark client that keeps at most C requests
open, ``vllm bench serve --max-concurrency``): request i ≥ C is sent when an earlier one
finishes, at max(its own arrival, that finish); the times it was sent are returned.

Modes (``Limits``): whole-request reservation (TensorRT-LLM: admission takes the blocks of
prompt + output, decoders never need one, nothing is preempted) and prefill first (SGLang:
an iteration is a prefill batch, the decoders waiting and the counter g not advancing,
whenever a prompt can be prefilled; a prompt is admitted only when all of it fits).
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left
from collections import deque
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    """A sequence group's scheduler limits: KV pool [blocks], tokens per block, tokens per
    iteration (max batched tokens), running sequences (max num seqs) and the longest request
    (max model len), whether admission reserves whole requests, and whether prefill batches
    run apart from decode ones, first."""

    pool_blocks: int
    block_size: int
    max_batched_tokens: int
    max_num_seqs: int
    max_model_len: int | None = None  # longest request (prompt + output) accepted [tokens]
    # admission reserves a request's whole KV (prompt + output) up front and nothing is ever
    # preempted: TensorRT-LLM's default GUARANTEED_NO_EVICT scheduler
    reserve_whole_request: bool = False
    # an iteration is a prefill batch whenever a prompt can be prefilled, else a decode batch
    # (decoders wait during prefill batches): SGLang's default (no --enable-mixed-chunk)
    prefill_first: bool = False


@dataclass
class GroupOut:
    first_token: list
    finish: list
    admitted: list
    preemptions: int
    queue_area: float
    queue_max: int
    used_area: float
    t_start: float
    t_end: float
    iterations: int
    # inter-token gaps [s]: (gap, how many tokens had it) pairs, and decode stretches
    # (d, γ, C, b, k): gaps d + γ (C + b j) for j = 1 … k − 1, b tokens each
    itl_gaps: list = field(default_factory=list)
    itl_counts: list = field(default_factory=list)
    itl_runs: list = field(default_factory=list)
    itl_max: list = field(default_factory=list)  # per request, its longest gap [s] (0: none)
    preempted: list = field(default_factory=list)  # per request, times it was preempted
    sent: list | None = None  # per request, when it was sent (under client concurrency)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def run_group(
    arrival,
    prompt,
    gen,
    shared,
    limits: Limits,
    step,
    max_in_flight: int | None = None,
    tokens: bool = True,
) -> GroupOut:
    """Simulate one group's requests (lists sorted by arrival; ``shared`` prefix tokens per
    request, whole blocks) with the iteration time ``step`` (``iteration_s(b, ctx_sum, chunks,
    rows)``, ``decode_s(b)``, ``ctx_slope(b)``); at most ``max_in_flight`` requests open at once
    when given (a benchmark client's concurrency: the rest wait for a finish). ``tokens``: keep
    the token gaps (ITL) and each request's longest (off: the loop as fast as without them;
    a plan or a check reads no ITL)."""
    n = len(arrival)
    sent = None
    if max_in_flight is not None and max_in_flight < n:
        sent = list(arrival)
        arrival = sent[:max_in_flight] + [math.inf] * (n - max_in_flight)
    released = n if sent is None else max_in_flight
    B = limits.block_size
    M = limits.max_batched_tokens
    max_seqs = limits.max_num_seqs
    shared_blocks = cdiv(max(shared), B) if n and max(shared) else 0
    free = limits.pool_blocks - shared_blocks
    used = 0
    # per request: computed/ntok/blocks are exact for non-decoders; decoders use off (+ g)
    computed = list(shared)
    ntok = list(prompt)
    blocks = [0] * n
    off = [0] * n
    version = [0] * n  # heap entries of older versions are stale
    first_token = [-1.0] * n
    finish = [-1.0] * n
    admitted = [-1.0] * n
    is_dec = [False] * n
    waiting: deque[int] = deque()
    running: dict[int, None] = {}  # in admission order (a dict: O(1) removal)
    pf = -1  # the running request in prefill, if any (last in running)
    cnt = [0] * B
    sum_off = 0
    n_dec = 0
    heap: list[tuple[int, int, int]] = []  # (counter at finish, request, version)
    g = 0
    nxt = 0
    done = 0
    t = arrival[0] if n else 0.0
    t_start = t
    preemptions = 0
    queue_area = 0.0
    queue_max = 0
    used_area = 0.0
    iterations = 0
    force_slow = False  # more than one request in prefill: the exact rules only
    reserve = limits.reserve_whole_request
    prefill_first = limits.prefill_first
    # token times (module docstring): decode iterations so far (epochs), the end of the last
    # one (the previous token of every generic decoder), the cohorts (previous token time ->
    # decoders), when each decoder joined and its previous token then
    epoch = 0
    last_dec_t = -math.inf
    cohort: dict[float, int] = {}
    cohort_n = 0
    join_e = [0] * n
    prev_t = [0.0] * n
    in_cohort = [False] * n
    last_tok = [0.0] * n  # exact for requests outside the aggregate form
    flush_t: dict[int, float] = {}  # epoch -> its end, where cohorts decoded
    mono_e: list[int] = []  # suffix maxima of G: epochs (rising), gaps (falling)
    mono_v: list[float] = []
    itl_gaps: list[float] = []
    itl_counts: list[int] = []
    itl_runs: list[tuple] = []
    itl_max = [0.0] * n
    preempted_n = [0] * n

    def release(t_done: float) -> None:
        """A finish frees a client slot: the next request is sent (client concurrency)."""
        nonlocal released
        if released < n:
            arrival[released] = max(sent[released], t_done)
            released += 1

    def decode_epoch(t_end: float, stretch=None) -> None:
        """Every aggregate decoder produced a token at ``t_end``: one decode iteration; with
        ``stretch`` (d, γ, C, b, k), k − 1 more after it, in closed form (their gaps rise)."""
        nonlocal epoch, last_dec_t, cohort_n
        epoch += 1
        if last_dec_t > -math.inf:
            gap = t_end - last_dec_t
            while mono_v and mono_v[-1] <= gap:  # suffix maxima of G
                mono_v.pop()
                mono_e.pop()
            mono_e.append(epoch)
            mono_v.append(gap)
            if n_dec > cohort_n:
                itl_gaps.append(gap)
                itl_counts.append(n_dec - cohort_n)
        if cohort_n:
            flush_t[epoch] = t_end
            for tau, c in cohort.items():
                itl_gaps.append(t_end - tau)
                itl_counts.append(c)
            cohort.clear()
            cohort_n = 0
        last_dec_t = t_end
        if stretch is not None:
            d, slope, ctx_sum, b, k = stretch
            itl_runs.append(stretch)
            epoch += k - 1
            gap = d + slope * (ctx_sum + b * (k - 1))  # the stretch's largest
            while mono_v and mono_v[-1] <= gap:
                mono_v.pop()
                mono_e.pop()
            mono_e.append(epoch)
            mono_v.append(gap)

    def token(r: int) -> None:
        """Request r produced a token at t one request at a time (outside the aggregate)."""
        if first_token[r] < 0:
            first_token[r] = t
        elif tokens:
            gap = t - last_tok[r]
            itl_gaps.append(gap)
            itl_counts.append(1)
            if gap > itl_max[r]:
                itl_max[r] = gap
        last_tok[r] = t

    def admit_need(w: int, k: int) -> int:
        """Blocks a waiting request takes when admitted with a first chunk of ``k``."""
        if reserve:
            return cdiv(prompt[w] + gen[w] - shared[w], B)
        return cdiv(computed[w] + k - shared[w], B)

    def admit_check(w: int, k: int) -> int:
        """Blocks the pool must have free to admit it: its first chunk's, or under
        prefill-first its whole prompt's (SGLang admits a prompt only when all of it fits)."""
        if prefill_first and not reserve:
            return cdiv(ntok[w] - shared[w], B)
        return admit_need(w, k)

    def admit(budget: int, n_running: int) -> list[tuple[int, int]]:
        """Waiting requests, first come first served, while the token budget, max_num_seqs and
        the pool allow (the first that cannot get its blocks stops admission): (request, first
        chunk) each, its blocks taken from the pool."""
        nonlocal free, used
        out: list[tuple[int, int]] = []
        while waiting and budget > 0 and n_running + len(out) < max_seqs:
            w = waiting[0]
            k = min(ntok[w] - computed[w], budget)
            need = admit_need(w, k)
            if admit_check(w, k) > free:
                break
            waiting.popleft()
            free -= need
            used += need
            blocks[w] = need
            if admitted[w] < 0:
                admitted[w] = t
            out.append((w, k))
            budget -= k
        return out

    def to_decoder(r: int) -> None:
        nonlocal sum_off, n_dec, cohort_n
        o = computed[r] - g
        off[r] = o
        is_dec[r] = True
        if tokens:
            join_e[r] = epoch
            pt = last_tok[r]
            prev_t[r] = pt
            if pt != last_dec_t:
                in_cohort[r] = True
                cohort[pt] = cohort.get(pt, 0) + 1
                cohort_n += 1
            else:
                in_cohort[r] = False
        cnt[(o - shared[r]) % B] += 1
        sum_off += o
        n_dec += 1
        version[r] += 1
        if reserve:
            cnt[(o - shared[r]) % B] -= 1  # its blocks were all taken at admission
        heapq.heappush(heap, (g + gen[r] - (computed[r] + 1 - prompt[r]), r, version[r]))

    def drop_decoder(r: int) -> None:
        """Remove decoder r from the aggregates (its state materialised first)."""
        nonlocal sum_off, n_dec, cohort_n
        if not tokens:
            pass
        elif epoch > join_e[r]:  # it decoded since it joined: its gaps, its last token
            lo = join_e[r] + 1
            m = 0.0
            if in_cohort[r]:
                m = flush_t[lo] - prev_t[r]
                lo += 1
            i = bisect_left(mono_e, lo)
            if i < len(mono_e) and mono_v[i] > m:
                m = mono_v[i]
            if m > itl_max[r]:
                itl_max[r] = m
            last_tok[r] = last_dec_t
        elif in_cohort[r]:
            pt = prev_t[r]
            c = cohort[pt] - 1
            if c:
                cohort[pt] = c
            else:
                del cohort[pt]
            cohort_n -= 1
        o = off[r]
        computed[r] = o + g
        ntok[r] = o + g + 1
        if not reserve:
            blocks[r] = cdiv(o + g - shared[r], B)
        cnt[(o - shared[r]) % B] -= 1 - reserve
        sum_off -= o
        n_dec -= 1
        is_dec[r] = False
        version[r] += 1

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
        b = n_dec
        pfirst = prefill_first and (
            pf >= 0
            or (len(waiting) > 0 and len(running) < max_seqs
                and admit_check(waiting[0], min(ntok[waiting[0]] - computed[waiting[0]], M))
                <= free)
        )  # fmt: skip
        if pfirst:
            b = 0  # the decoders wait for this prefill batch
        fast = b <= M and not force_slow
        need_dec = cnt[(-g) % B] if b else 0
        k_p = need_p = 0
        if fast and pf >= 0:
            k_p = min(ntok[pf] - computed[pf], M - b)
            need_p = max(0, cdiv(computed[pf] + k_p - shared[pf], B) - blocks[pf])
        if fast and (pf < 0 or k_p > 0):
            preempted = False
            if need_dec + need_p > free:
                # preempt from the tail (the request in prefill, then the latest decoders)
                # until the rest get their blocks: what the one-by-one rule ends with
                total = need_dec + need_p
                while total > free:
                    v, _ = running.popitem()
                    if v == pf:
                        total -= need_p
                        pf = -1
                    else:
                        if b:
                            total -= (off[v] - shared[v] + g) % B == 0
                        drop_decoder(v)
                    free += blocks[v]
                    used -= blocks[v]
                    blocks[v] = 0
                    computed[v] = shared[v]
                    waiting.appendleft(v)
                    preemptions += 1
                    preempted_n[v] += 1
                    preempted = True
                b = 0 if pfirst else n_dec
                need_dec = cnt[(-g) % B] if b else 0
                if pf < 0:
                    k_p = need_p = 0
            free -= need_dec + need_p
            used += need_dec + need_p
            chunks: list[tuple[int, int]] = []
            sched_p: list[tuple[int, int]] = []
            if pf >= 0:
                blocks[pf] += need_p
                chunks.append((computed[pf], k_p))
                sched_p.append((pf, k_p))
            budget = 0 if preempted or (prefill_first and not pfirst) else M - b - k_p
            for w, k in admit(budget, len(running)):
                running[w] = None
                chunks.append((computed[w], k))
                sched_p.append((w, k))
            ctx_sum = sum_off + b * (g + 1) if b else 0
            if not sched_p and not b:
                continue  # a preemption emptied this prefill batch: schedule again
            if not sched_p:
                # decode only, nothing admitted (the queue empty or blocked; not after a
                # preemption, which skips admission once): a stretch of k iterations until a
                # finish, the pool running out or (room to admit) the next arrival
                while heap and heap[0][2] != version[heap[0][1]]:
                    heapq.heappop(heap)
                k_run = max(1, heap[0][0] - g) if heap and not preempted else 1
                extra = 0
                d = step.decode_s(b)
                slope = step.ctx_slope(b)
                if k_run > 1:
                    # blocks of steps 1 … k − 1: the decoders whose key meets −(g + j) mod B
                    cyc = [cnt[(-(g + j)) % B] for j in range(1, B + 1)]
                    per_cycle = 0 if reserve else b  # a decoder starts a block every B steps
                    full, part = divmod(k_run - 1, B)
                    extra = full * per_cycle + sum(cyc[:part])
                    if extra > free:
                        # largest k − 1 steps within free: whole cycles, then step by step
                        full = free // per_cycle if per_cycle else 0
                        extra = full * per_cycle
                        steps = full * B
                        for c in cyc:
                            if extra + c > free:
                                break
                            extra += c
                            steps += 1
                        k_run = min(k_run, steps + 1)
                        extra = (k_run - 1) // B * per_cycle + sum(cyc[: (k_run - 1) % B])
                    if (not waiting and nxt < n and len(running) < max_seqs
                            and k_run > 1 and arrival[nxt] < math.inf):  # fmt: skip
                        k_run = _until_arrival(d, slope, ctx_sum, b, arrival[nxt] - t, k_run)
                        extra = (k_run - 1) // B * per_cycle + sum(cyc[: (k_run - 1) % B])
                dt = k_run * d + slope * (k_run * ctx_sum + b * k_run * (k_run - 1) / 2)
                used_area += dt * (used + extra / 2)
                used += extra
                free -= extra
                queue_area += dt * len(waiting)
                if tokens:  # steps 1 … k − 1: every decoder generic, rising gaps
                    decode_epoch(t + d + slope * ctx_sum,
                                 (d, slope, ctx_sum, b, k_run) if k_run > 1 else None)  # fmt: skip
                t += dt
                last_dec_t = t
                g += k_run
                iterations += k_run
            else:
                rows = b + sum(1 for r, k in sched_p if computed[r] + k == ntok[r])
                b_agg = b  # the aggregate decoders (all decode in this iteration)
                # a recomputed request's last token (its newest output) is timed as a decode
                # token, as the one-by-one rules time it
                tail = [(h, k) for h, k in chunks if k == 1]
                if tail:
                    for (r, k), (h, _) in zip(sched_p, chunks, strict=True):
                        if k == 1 and h >= prompt[r]:
                            b += 1
                            ctx_sum += h + 1
                    chunks = [c for (r, k), c in zip(sched_p, chunks, strict=True)
                              if not (k == 1 and c[0] >= prompt[r])]  # fmt: skip
                dt = step.iteration_s(b, ctx_sum, chunks, rows)
                used_area += dt * used
                queue_area += dt * len(waiting)
                t += dt
                if b:
                    g += 1
                if b_agg and tokens:
                    decode_epoch(t)
                iterations += 1
                pf = -1
                for r, k in sched_p:
                    c = computed[r] + k
                    computed[r] = c
                    if c < ntok[r]:
                        if c == ntok[r] - 1 and c >= prompt[r]:
                            to_decoder(r)  # a recompute left with its newest token: decoding
                        else:
                            pf = r  # still in prefill (the last one)
                        continue
                    ntok[r] = c + 1
                    token(r)
                    if c + 1 - prompt[r] >= gen[r]:  # its last output token
                        finish[r] = t
                        free += blocks[r]
                        used -= blocks[r]
                        blocks[r] = 0
                        done += 1
                        del running[r]
                        if released < n:
                            release(t)
                    else:
                        to_decoder(r)
            # decoders that finished at counter g
            if heap:
                ended = []
                while heap and heap[0][0] <= g:
                    _, r, v = heapq.heappop(heap)
                    if v != version[r]:
                        continue
                    ended.append(r)
                if ended:
                    for r in ended:
                        drop_decoder(r)
                        finish[r] = t
                        free += blocks[r]
                        used -= blocks[r]
                        blocks[r] = 0
                        done += 1
                        if released < n:
                            release(t)
                    for r in ended:
                        del running[r]
            continue
        # ---- the exact rules, one request at a time (budget short or a preemption) ----
        for r in running:
            if is_dec[r]:
                drop_decoder(r)
        heap.clear()
        rl = list(running)
        budget = M
        sched: list[tuple[int, int]] = []
        preempted = False
        idx = 0
        while idx < len(rl) and budget > 0:
            r = rl[idx]
            if pfirst and ntok[r] - computed[r] == 1 and computed[r] >= prompt[r]:
                idx += 1  # a decoder waits for the prefill batch
                continue
            k = min(ntok[r] - computed[r], budget)
            need = max(0, cdiv(computed[r] + k - shared[r], B) - blocks[r])
            self_preempted = False
            while need > free:
                v = rl.pop()
                free += blocks[v]
                used -= blocks[v]
                blocks[v] = 0
                computed[v] = shared[v]
                ntok[v] = max(ntok[v], prompt[v])
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
        if not preempted and (pfirst or not prefill_first):
            for w, k in admit(budget, len(rl)):
                rl.append(w)
                sched.append((w, k))
        pf = -1
        if sched:
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
            dt = step.iteration_s(b, ctx_sum, chunks, rows)
            used_area += dt * used
            queue_area += dt * len(waiting)
            t += dt
            iterations += 1
            ended = False
            for r, k in sched:
                c = computed[r] + k
                computed[r] = c
                if c == ntok[r]:
                    ntok[r] = c + 1
                    token(r)
                    if c + 1 - prompt[r] >= gen[r]:
                        finish[r] = t
                        free += blocks[r]
                        used -= blocks[r]
                        blocks[r] = 0
                        done += 1
                        ended = True
                        if released < n:
                            release(t)
            if ended:
                rl = [r for r in rl if finish[r] < 0]
            if b:  # the decoders scheduled: their previous token is now this one
                last_dec_t = t
        running = dict.fromkeys(rl)
        # back to the aggregate form: decoders (all tokens computed but the newest)
        prefilling = 0
        for r in running:
            if ntok[r] - computed[r] == 1 and computed[r] >= prompt[r]:
                to_decoder(r)
            else:
                pf = r
                prefilling += 1
        force_slow = prefilling > 1
    return GroupOut(
        first_token, finish, admitted, preemptions, queue_area, queue_max, used_area,
        t_start, t, iterations, itl_gaps, itl_counts, itl_runs, itl_max, preempted_n,
        arrival if sent is not None else None,
    )  # fmt: skip


def _until_arrival(d: float, slope: float, ctx_sum: float, b: int, target: float, k_max: int):
    """The first iteration j (1-based, at most ``k_max``) whose end, j d + γ (j C + b j (j −
    1) / 2) after now, reaches ``target`` [s]."""
    a2 = slope * b / 2
    a1 = d + slope * ctx_sum - a2
    if a2 > 0:
        j = (-a1 + math.sqrt(a1 * a1 + 4 * a2 * target)) / (2 * a2)
    else:
        j = target / a1 if a1 > 0 else k_max
    j = max(1, math.ceil(min(j, k_max) - 1e-9))

    def end(j: int) -> float:
        return a2 * j * j + a1 * j

    while j > 1 and end(j - 1) >= target:
        j -= 1
    while j < k_max and end(j) < target:
        j += 1
    return min(k_max, j)
