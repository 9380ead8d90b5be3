"""Running one scheduled iteration of a sequence group [s, blocks]: a stretch of decode-only
iterations in closed form, an iteration with prefill chunks, and the exact rules one request at
a time; the pieces every engine's policy (``calc.serve.policies``) composes its step from."""

from __future__ import annotations

import heapq
import math

from calc.serve.group_state import GroupState, cdiv


def wait_for_front_end(s: GroupState) -> None:
    """An engine in the front-end's own process (``Limits.paused_until_s``) starts timing its
    iteration only once the front-end has taken a burst in: the iteration formed now ends its
    own time after that (the pool and queue held meanwhile)."""
    gap = s.paused_until - s.t
    if gap > 0:
        s.used_area += gap * s.used
        s.queue_area += gap * len(s.waiting)
        s.t = s.paused_until


def decode_stretch(s: GroupState, step, b: int, ctx_sum: int, preempted: bool,
                   held: int = 0) -> int:  # fmt: skip
    """Decode only, nothing admitted: a stretch of k iterations until a decoder finishes, the
    pool runs out or (room to admit, nobody waiting) the next request arrives, under a receive
    interval the receive that reads it, whatever the room (``recv_fires``); ``held`` > 0:
    contexts held by a batch wait, at most that many iterations, stopping at the next arrival
    too. Their times are affine in the attended keys, so they sum in closed form. Returns k.
    (Written for speed: it runs once per stretch, the simulation's commonest event.)"""
    t = s.t
    if t < s.paused_until:
        wait_for_front_end(s)
        t = s.t
    g = s.g
    # the next decoder's finish (stale heap entries dropped: ``GroupState.next_finish``)
    heap, version = s.heap, s.version
    while heap and heap[0][2] != version[heap[0][1]]:
        heapq.heappop(heap)
    k_run = max(1, heap[0][0] - g) if heap and not preempted else 1
    extra = 0
    ds = s.dec_times.get(b)  # ``decode_times``, inlined
    if ds is None:
        ds = s.dec_times[b] = (step.decode_s(b), step.ctx_slope(b), step.loop_floor_s(b))
    d, slope, floor = ds
    if floor > d + slope * ctx_sum:  # the engine's overlapped loop outlasts this GPU step
        k_run, d = 1, floor - slope * ctx_sum  # one iteration, the loop's time
    if k_run > 1:
        B = s.B
        # blocks of steps 1 … k − 1: the decoders whose key meets −(g + j) mod B, j = 1 … B;
        # those keys run down from m = (−g − 1) mod B, wrapping at 0: two reversed slices
        cnt = s.cnt
        m = (-g - 1) % B
        cyc = cnt[m::-1] + cnt[:m:-1]
        per_cycle = 0 if s.reserve else b  # a decoder starts a block every B steps
        full, part = divmod(k_run - 1, B)
        extra = full * per_cycle + sum(cyc[:part])
        free = s.free
        if extra > free:
            k_run = _within_pool(free, per_cycle, cyc, B, k_run)
            extra = (k_run - 1) // B * per_cycle + sum(cyc[: (k_run - 1) % B])
        k_run0 = k_run
        if held:
            k_run = min(k_run, held)
        # under a receive interval every read counts (what is read joins the queue then,
        # admissible or not), so the stretch stops at the read after the next arrival
        nxt, recv_n = s.nxt, s.recv_n
        if (nxt < s.n and k_run > 1
                and (held or recv_n > 1 or (not s.waiting and len(s.running) < s.max_seqs))
                and s.arrival[nxt] < math.inf):  # fmt: skip
            target = s.arrival[nxt] - t
            if not s.ahead:
                k_arr = until_arrival(d, slope, ctx_sum, b, target, k_run)
            elif target <= 0:  # arrived during the last batch: seen after the one formed
                k_arr = 1
            else:  # seen when the batch after the one it arrives in is formed
                k_arr = until_arrival(d, slope, ctx_sum, b, target, k_run) + 1
            if recv_n > 1:  # read at the first receive after it lands
                k_arr = recv_fires(s.recv_count, recv_n, k_arr)
            if k_arr < k_run:
                k_run = k_arr
        if held or k_run < k_run0:
            extra = (k_run - 1) // B * per_cycle + sum(cyc[: (k_run - 1) % B])
    dt = k_run * d + slope * (k_run * ctx_sum + b * k_run * (k_run - 1) / 2)
    used = s.used
    s.used_area += dt * (used + extra / 2)
    s.used = used + extra
    s.free -= extra
    s.queue_area += dt * len(s.waiting)
    clock = s.clock
    if clock.on:  # steps 1 … k − 1: every decoder generic, rising gaps
        clock.decode_epoch(t + d + slope * ctx_sum, s.n_dec,
                           (d, slope, ctx_sum, b, k_run) if k_run > 1 else None)  # fmt: skip
    s.seen = t + dt - (d + slope * (ctx_sum + b * (k_run - 1)))  # the last batch's start
    s.t = t = t + dt
    clock.last_dec_t = t
    s.g = g + k_run
    s.iterations += k_run
    if s.recv_n > 1:  # k decode forwards of weight 1, the count reset at each receive
        s.recv_count = after_decodes(s.recv_count, s.recv_n, k_run)
    return k_run


def recv_fires(count: int, interval: int, j: int) -> int:
    """The first decode iteration j' ≥ ``j`` (1-based, from a count of ``count`` < interval
    forwards since the last receive) at whose end SGLang's receive fires: count + j' a multiple
    of ``interval``. Example: count 1, interval 3, j 1: iteration 2 (1 + 2 = 3)."""
    return j + (-(count + j)) % interval


def after_decodes(count: int, interval: int, k: int) -> int:
    """The receive count after ``k`` decode forwards from ``count`` (< interval), reset at each
    receive inside them (at the ends of iterations 1 … k − 1; the last one's is the next
    loop's): count + k − interval × ⌊(count + k − 1) / interval⌋, in 1 … interval.
    Example: count 1, interval 3, 5 decodes: 6 − 3 × 1 = 3 (a receive after the second)."""
    c = count + k
    return c - interval * ((c - 1) // interval)


def decode_times(s: GroupState, step, b: int) -> tuple[float, float, float]:
    """(d, γ, floor) of a decode iteration of ``b`` sequences: ``step.decode_s(b)``,
    ``step.ctx_slope(b)`` and ``step.loop_floor_s(b)``, looked up once per batch size
    (``s.dec_times`` lives as long as the group's run, or the simulation's whose groups it
    serves: one step time throughout)."""
    ds = s.dec_times.get(b)
    if ds is None:
        ds = s.dec_times[b] = (step.decode_s(b), step.ctx_slope(b), step.loop_floor_s(b))
    return ds


def _within_pool(free: int, per_cycle: int, cyc: list[int], B: int, k_run: int) -> int:
    """The largest k whose steps 1 … k − 1 take at most ``free`` blocks: whole cycles of B
    steps, then step by step."""
    full = free // per_cycle if per_cycle else 0
    extra = full * per_cycle
    steps = full * B
    for c in cyc:
        if extra + c > free:
            break
        extra += c
        steps += 1
    return min(k_run, steps + 1)


def until_arrival(d: float, slope: float, ctx_sum: float, b: int, target: float, k_max: int):
    """The first iteration j (1-based, at most ``k_max``) whose end, j d + γ (j C + b j (j −
    1) / 2) after now, reaches ``target`` [s]."""
    a2 = slope * b / 2
    a1 = d + slope * ctx_sum - a2
    if a2 > 0:
        j = (-a1 + math.sqrt(a1 * a1 + 4 * a2 * target)) / (2 * a2)
    else:
        j = target / a1 if a1 > 0 else k_max
    # max(1, ⌈min(j, k_max) − 10⁻⁹⌉), min and max written out (j is finite here)
    j = math.ceil((j if j <= k_max else k_max) - 1e-9)
    if j < 1:
        j = 1
    # iteration j's end is a2 j² + a1 j (written out: no closure made per call)
    while j > 1 and a2 * (j - 1) * (j - 1) + a1 * (j - 1) >= target:
        j -= 1
    while j < k_max and a2 * j * j + a1 * j < target:
        j += 1
    return j if j < k_max else k_max


def chunk_iteration(s: GroupState, step, b: int, ctx_sum: int, chunks: list, sched: list):
    """One iteration of the ``b`` aggregate decoders (all decoding) and the prefill chunks
    ``chunks`` ((computed, tokens) of the requests ``sched``, (request, tokens)): timed, then
    every request whose tokens are all computed samples one output token; a request at its
    last output token finishes, one left with its newest token joins the decoders."""
    computed, ntok, prompt = s.computed, s.ntok, s.prompt
    rows = b  # the decoders' rows and those of the requests whose tokens this pass completes
    one = False  # whether some chunk is a single token
    for r, k in sched:
        if computed[r] + k == ntok[r]:
            rows += 1
        if k == 1:
            one = True
    b_agg = b
    # a recomputed request's last token (its newest output) is timed as a decode token, as
    # the one-by-one rules time it
    if one:
        for (r, k), (h, _) in zip(sched, chunks, strict=True):
            if k == 1 and h >= prompt[r]:
                b += 1
                ctx_sum += h + 1
        chunks = [c for (r, k), c in zip(sched, chunks, strict=True)
                  if not (k == 1 and c[0] >= prompt[r])]  # fmt: skip
    dt = step.iteration_s(b, ctx_sum, chunks, rows)
    s.recv_count = s.recv_n if chunks else s.recv_count + 1  # a prefill forward: receive next
    t = s.seen = s.t
    if t < s.paused_until:
        wait_for_front_end(s)
        t = s.t
    s.used_area += dt * s.used
    s.queue_area += dt * len(s.waiting)
    s.t = t = t + dt
    clock = s.clock
    if b_agg:  # the aggregate decoders decoded (a recompute's token moves no counter)
        s.g += 1
        if clock.on:
            clock.decode_epoch(t, s.n_dec)
    s.iterations += 1
    s.pf = -1
    gen, first_token, last_tok = s.gen, s.first_token, clock.last_tok
    for r, k in sched:
        c = computed[r] + k
        computed[r] = c
        if c < ntok[r]:
            if c == ntok[r] - 1 and c >= prompt[r]:
                s.to_decoder(r)  # a recompute left with its newest token: decoding
            else:
                s.pf = r  # still in prefill (the last one)
            continue
        ntok[r] = c + 1
        if first_token[r] < 0:  # its first token (``TokenClock.token``, inlined)
            first_token[r] = t
            last_tok[r] = t
        else:
            clock.token(r, t, first_token)
        if c + 1 - prompt[r] >= gen[r]:  # its last output token
            s.end(r)
            del s.running[r]
        else:
            s.to_decoder(r)


def exact_schedule(s: GroupState, budget: int):
    """The exact rules over the running requests, one at a time (vLLM V1 ``schedule()``'s
    running loop): each in admission order takes min(its tokens left, the budget left) and
    the blocks they need; when the pool is out, the last running request is preempted (the
    one being scheduled included). Returns (running list, scheduled (request, tokens), budget
    left, whether it preempted)."""
    rl = list(s.running)
    sched: list[tuple[int, int]] = []
    preempted = False
    idx = 0
    computed, ntok, shared, blocks, B = s.computed, s.ntok, s.shared, s.blocks, s.B
    while idx < len(rl) and budget > 0:
        r = rl[idx]
        k = min(ntok[r] - computed[r], budget)
        need = max(0, cdiv(computed[r] + k - shared[r], B) - blocks[r])
        self_preempted = False
        while need > s.free:
            v = rl.pop()
            s.preempt(v)
            preempted = True
            if v == r:
                self_preempted = True
                break
        if self_preempted:
            break
        s.take(need)
        blocks[r] += need
        sched.append((r, k))
        budget -= k
        idx += 1
    return rl, sched, budget, preempted


def exact_iteration(s: GroupState, step, rl: list, sched: list) -> None:
    """Time and settle an iteration the exact rules scheduled (``sched``, one request at a
    time), then return to the aggregate form."""
    computed, ntok = s.computed, s.ntok
    if sched:
        b = ctx_sum = rows = 0
        chunks = []
        for r, k in sched:
            if k == 1 and s.is_decoding(r):
                b += 1
                ctx_sum += computed[r] + 1
                rows += 1
            else:
                chunks.append((computed[r], k))
                if computed[r] + k == ntok[r]:
                    rows += 1
        dt = step.iteration_s(b, ctx_sum, chunks, rows)
        s.recv_count = s.recv_n if chunks else s.recv_count + 1
        s.seen = s.t
        if s.t < s.paused_until:
            wait_for_front_end(s)
        s.used_area += dt * s.used
        s.queue_area += dt * len(s.waiting)
        s.t += dt
        s.iterations += 1
        ended = False
        for r, k in sched:
            c = computed[r] + k
            computed[r] = c
            if c == ntok[r]:
                ntok[r] = c + 1
                s.clock.token(r, s.t, s.first_token)
                if c + 1 - s.prompt[r] >= s.gen[r]:
                    s.end(r)
                    ended = True
        if ended:
            rl = [r for r in rl if s.finish[r] < 0]
        if b:  # the decoders scheduled: their previous token is now this one
            s.clock.last_dec_t = s.t
    s.running = dict.fromkeys(rl)
    s.aggregate()
