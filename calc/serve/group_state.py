"""One sequence group's scheduling state [requests, blocks, s] and the primitive moves every
engine's scheduler is built from: arrivals, allocating and freeing KV blocks, finishing,
preempting (or retracting) a request, and moving a request into and out of the aggregate
decoders.

The aggregate (``calc.serve.scheduler``'s docstring): a global decode counter g advances once
per decode iteration; decoding request r has computed off_r + g tokens, needs a new block in the
iteration where (off_r + g − shared_r) mod B = 0 (so the blocks all decoders need at counter g
are cnt[(−g) mod B]), attends to Σ (off_r + g + 1) keys in all, and finishes when g reaches its
key in a heap. Its remaining decode iterations at counter g are fin_r − g, which SGLang's
admission counts (``future_tokens``).
"""

from __future__ import annotations

import heapq
import math
from collections import deque

from calc.serve.token_clock import TokenClock


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


class GroupState:
    """The requests of one sequence group (lists sorted by arrival) and their schedule so far."""

    __slots__ = (
        "B",
        "M",
        "admitted",
        "ahead",
        "arrival",
        "blocks",
        "bw_count",
        "bw_iters",
        "bw_tokens",
        "clip",
        "clock",
        "cnt",
        "computed",
        "dec_times",
        "done",
        "far",
        "fin",
        "finish",
        "first_token",
        "force_slow",
        "free",
        "full",
        "g",
        "gen",
        "heap",
        "is_dec",
        "iterations",
        "lead",
        "max_seqs",
        "n",
        "n_dec",
        "near_fin",
        "near_n",
        "ntok",
        "nxt",
        "off",
        "paused_until",
        "pf",
        "preempted_n",
        "preemptions",
        "prompt",
        "queue_area",
        "queue_max",
        "ratio_base",
        "ratio_steps",
        "recv_count",
        "recv_n",
        "released",
        "requeue_front",
        "reserve",
        "running",
        "seen",
        "sent",
        "shared",
        "sum_off",
        "t",
        "t_start",
        "used",
        "used_area",
        "version",
        "waiting",
    )  # fmt: skip

    def __init__(self, arrival, prompt, gen, shared, limits, max_in_flight, tokens,
                 lead=None) -> None:  # fmt: skip
        n = self.n = len(arrival)
        self.sent = None
        # under client concurrency: each request's time from the client's send to the engine
        # (the front-end's latency; None: 0), added to the finish that frees its slot
        self.lead = lead
        if max_in_flight is not None and max_in_flight < n:  # a client's concurrency
            self.sent = list(arrival)
            arrival = self.sent[:max_in_flight] + [math.inf] * (n - max_in_flight)
        self.arrival = arrival
        self.released = n if self.sent is None else max_in_flight
        self.prompt, self.gen, self.shared = prompt, gen, shared
        B = self.B = limits.block_size
        self.M = limits.max_batched_tokens
        self.max_seqs = limits.max_num_seqs
        # an engine in the front-end's process: no iteration ends before the burst's intake
        self.paused_until = limits.paused_until_s
        self.free = limits.pool_blocks - (cdiv(max(shared), B) if n and max(shared) else 0)
        self.used = 0
        # per request: computed/ntok/blocks are exact for non-decoders; decoders use off (+ g)
        self.computed = list(shared)
        self.ntok = list(prompt)
        self.blocks = [0] * n
        self.off = [0] * n
        self.fin = [0] * n  # a decoder's counter at its finish
        self.version = [0] * n  # heap entries of older versions are stale
        self.first_token = [-1.0] * n
        self.finish = [-1.0] * n
        self.admitted = [-1.0] * n
        self.is_dec = [False] * n
        self.waiting: deque[int] = deque()
        self.running: dict[int, None] = {}  # in admission order (a dict: O(1) removal)
        self.pf = -1  # the running request in prefill, if any (last in running)
        self.cnt = [0] * B
        self.sum_off = 0
        self.n_dec = 0
        self.heap: list[tuple[int, int, int]] = []  # (counter at finish, request, version)
        self.g = self.nxt = self.done = 0
        self.t = self.t_start = arrival[0] if n else 0.0
        # the scheduler runs one batch ahead of the GPU (SGLang's overlap scheduler): while
        # busy, a decision sees the requests that arrived by the start of the batch before it
        self.ahead = limits.schedule_ahead
        self.seen = self.t
        self.preemptions = self.queue_max = self.iterations = 0
        self.queue_area = self.used_area = 0.0
        self.force_slow = False  # more than one request in prefill: the exact rules only
        self.reserve = limits.reserve_whole_request
        self.clock = TokenClock(n, tokens)
        self.preempted_n = [0] * n
        # SGLang's admission: the decoders' future tokens, each clipped at ``clip``
        self.clip = None
        self.near_fin = self.near_n = 0  # decoders within the clip: Σ fin, how many
        self.far: dict[int, None] = {}  # decoders beyond it when they joined
        self.requeue_front = True  # a preempted request goes back to the head of the queue
        self.full = False  # SGLang's batch_is_full: no admission until a request leaves
        self.ratio_base = 1.0  # SGLang's new_token_ratio: its last reset value and the
        self.ratio_steps = 0  # decode batches since
        self.dec_times: dict[int, tuple] = {}  # b -> (decode_s, ctx_slope, loop_floor_s)
        # the engine's admission holds (calc.serve.admission): SGLang's receive interval N and
        # its count of weighted forwards since the last receive (a decode 1, any other N: the
        # skipper's 1000 fires at once); TensorRT-LLM's batch wait of T iterations below a
        # token threshold and its count of iterations held
        hold = limits.admission
        self.recv_n, self.recv_count = max(1, hold.recv_interval), 0
        self.bw_iters = hold.batch_wait_iters if hold.batch_wait_tokens > 0 else 0
        self.bw_tokens, self.bw_count = hold.batch_wait_tokens, 0

    # -- arrivals, the queue and the client -----------------------------------------------

    def take_arrivals(self) -> int:
        """Requests that have arrived by t (scheduling ahead: by ``seen``) join the queue; how
        many arrived just now."""
        fresh = 0
        arrival, t = self.arrival, self.t
        last = self.seen if self.ahead else t
        while self.nxt < self.n and arrival[self.nxt] <= last:
            self.queue_area += t - arrival[self.nxt]
            fresh += arrival[self.nxt] == t
            self.waiting.append(self.nxt)
            self.nxt += 1
        return fresh

    def release(self, t_done: float) -> None:
        """A finish frees a client slot: the next request is sent (client concurrency)."""
        if self.released < self.n:
            r = self.released
            lead = self.lead[r] if self.lead is not None else 0.0
            self.arrival[r] = max(self.sent[r], t_done + lead)
            self.released += 1

    def requeue(self, v: int) -> None:
        if self.requeue_front:
            self.waiting.appendleft(v)
        else:
            self.waiting.append(v)

    # -- blocks ---------------------------------------------------------------------------

    def take(self, blocks: int) -> None:
        self.free -= blocks
        self.used += blocks

    def give_back(self, r: int) -> None:
        """Request r's blocks return to the pool."""
        self.free += self.blocks[r]
        self.used -= self.blocks[r]
        self.blocks[r] = 0

    def admit(self, w: int, need: int) -> None:
        """Waiting request w (the head of the queue) runs, its ``need`` blocks taken."""
        self.waiting.popleft()
        self.free -= need
        self.used += need
        self.blocks[w] = need
        if self.admitted[w] < 0:
            self.admitted[w] = self.t

    def preempt(self, v: int) -> None:
        """Request v (no longer running, out of the aggregate) loses its KV and is queued
        again to recompute it (vLLM's recompute preemption, SGLang's retraction)."""
        self.give_back(v)
        self.computed[v] = self.shared[v]
        self.ntok[v] = max(self.ntok[v], self.prompt[v])
        self.requeue(v)
        self.preemptions += 1
        self.preempted_n[v] += 1
        self.full = False  # the running batch shrank: SGLang tries admission again

    def end(self, r: int) -> None:
        """Request r produced its last output token at t: it finishes and frees its blocks."""
        self.finish[r] = self.t
        blocks = self.blocks
        self.free += blocks[r]  # its blocks return to the pool (``give_back``)
        self.used -= blocks[r]
        blocks[r] = 0
        self.done += 1
        self.full = False
        if self.released < self.n:
            self.release(self.t)

    # -- the aggregate decoders -----------------------------------------------------------

    def to_decoder(self, r: int) -> None:
        """Request r (all tokens computed but its newest) joins the aggregate decoders."""
        g, c = self.g, self.computed[r]
        o = c - g
        self.off[r] = o
        self.is_dec[r] = True
        if self.clock.on:
            self.clock.join(r)
        if not self.reserve:  # under reservation its blocks were all taken at admission
            self.cnt[(o - self.shared[r]) % self.B] += 1
        self.sum_off += o
        self.n_dec += 1
        v = self.version[r] = self.version[r] + 1
        fin = g + self.gen[r] - (c + 1 - self.prompt[r])
        self.fin[r] = fin
        heapq.heappush(self.heap, (fin, r, v))
        if self.clip is not None:
            if fin - g > self.clip:
                self.far[r] = None
            else:
                self.near_fin += fin
                self.near_n += 1

    def drop_decoder(self, r: int) -> None:
        """Remove decoder r from the aggregates, its state made exact again."""
        if self.clock.on:
            self.clock.leave(r)
        o, g = self.off[r], self.g
        self.computed[r] = o + g
        self.ntok[r] = o + g + 1
        if not self.reserve:
            B, sh = self.B, self.shared[r]
            self.blocks[r] = -(-(o + g - sh) // B)
            self.cnt[(o - sh) % B] -= 1
        self.sum_off -= o
        self.n_dec -= 1
        self.is_dec[r] = False
        self.version[r] += 1
        if self.clip is not None:
            if r in self.far:
                del self.far[r]
            else:
                self.near_fin -= self.fin[r]
                self.near_n -= 1

    def decoder_needs_block(self, r: int) -> bool:
        """Whether decoder r starts a new block in the iteration at counter g."""
        return (self.off[r] - self.shared[r] + self.g) % self.B == 0

    def next_finish(self) -> int | None:
        """The counter at which the next decoder finishes (stale heap entries dropped)."""
        heap, version = self.heap, self.version
        while heap and heap[0][2] != version[heap[0][1]]:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def finish_decoders(self) -> None:
        """Decoders whose last token came at counter g finish."""
        heap, version, g = self.heap, self.version, self.g
        ended = []
        while heap and heap[0][0] <= g:
            _, r, v = heapq.heappop(heap)
            if v == version[r]:
                ended.append(r)
        for r in ended:
            self.drop_decoder(r)
            self.end(r)
        for r in ended:
            del self.running[r]

    def materialise(self) -> None:
        """Every decoder leaves the aggregate (for the exact rules, one request at a time)."""
        for r in self.running:
            if self.is_dec[r]:
                self.drop_decoder(r)
        self.heap.clear()

    def aggregate(self) -> None:
        """Back to the aggregate form after the exact rules: decoders (all tokens computed but
        the newest) join it; the one left in prefill, if any, is ``pf``."""
        self.pf = -1
        prefilling = 0
        for r in self.running:
            if self.ntok[r] - self.computed[r] == 1 and self.computed[r] >= self.prompt[r]:
                self.to_decoder(r)
            else:
                self.pf = r
                prefilling += 1
        self.force_slow = prefilling > 1

    def is_decoding(self, r: int) -> bool:
        """(Outside the aggregate) whether r has all its tokens computed but the newest."""
        return self.ntok[r] - self.computed[r] == 1 and self.computed[r] >= self.prompt[r]

    # -- SGLang's future tokens -----------------------------------------------------------

    def future_tokens(self) -> int:
        """Σ over the decoders of their remaining output tokens, each clipped at ``clip``
        (SGLang's ``min(max_new_tokens − len(output_ids), CLIP_MAX_NEW_TOKENS)``)."""
        g, clip, fin = self.g, self.clip, self.fin
        total = self.near_fin - self.near_n * g
        for r in self.far:
            total += min(fin[r] - g, clip)
        return total
