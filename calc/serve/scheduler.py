"""One sequence group's continuous-batching schedule, iteration by iteration [s, blocks]: the
fast loop behind ``calc.serve.simulate`` (whose module docstring states the scheduling rules),
run with the policy the engine wing chose for the release (``calc.serve.policies``).

It keeps the decoding requests in aggregate, so an iteration costs O(requests that change)
rather than O(running requests) (``calc.serve.group_state``):

- a global decode counter g advances once per decode iteration; decoding request r has computed
  off_r + g tokens (its KV written so far), so no per-request update is needed;
- it needs a new KV block in the iteration where (off_r + g − shared_r) mod B = 0, so the
  blocks all decoders need at counter g are cnt[(−g) mod B], with cnt the decoders counted by
  (off_r − shared_r) mod B;
- the attended keys of the decode tokens are Σ (off_r + g + 1) = Σ off + b (g + 1);
- finishes come off a heap keyed by the counter value at which each request ends.

At the start of an iteration the running requests are decoders followed by at most one
request still in prefill (a partial chunk takes all the budget left, so nothing is admitted
after it). The usual iteration runs in this aggregate form; any other (under vLLM's rules: the
budget below the decoders, or several requests in prefill) materialises every running request
and runs the exact rules one request at a time (``calc.serve.iteration``). Stretches of
decode-only iterations that nothing can interrupt are advanced in closed form.
``tests/serve_reference.py: simulate_group_reference`` is the exact rules throughout, every
policy; a test checks the two agree on random scenarios, in every mode. Token times (ITL) are
kept by ``calc.serve.token_clock``.

**Admission holds** (``Limits.admission``): SGLang's receive interval as a count of forwards
since the last read (``GroupState.recv_count``; a stretch stops at the read after the next
arrival, ``calc.serve.iteration.recv_fires``), TensorRT-LLM's batch wait as a count of
iterations held (``GroupState.bw_count``; ``calc.serve.policies.MixedBatches.batch_wait``): the
reference keeps the same counters.

**Client concurrency** (``max_in_flight``: a benchmark client that keeps at most C requests
open, ``vllm bench serve --max-concurrency``): request i ≥ C is sent when an earlier one
finishes, at max(its own arrival, that finish); the times it was sent are returned.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from calc.deploy.engines.base import AdmissionHold, FutureTokens, PrefillInputLimit
from calc.serve.group_state import GroupState, cdiv
from calc.serve.policies import policy_for

__all__ = ["FutureTokens", "GroupOut", "Limits", "PrefillInputLimit", "cdiv", "run_group"]


@dataclass(frozen=True)
class Limits:
    """A sequence group's scheduler limits: KV pool [blocks], tokens per block, tokens per
    iteration (max batched tokens), running sequences (max num seqs) and the longest request
    (max model len), and the engine's policy (``calc.serve.policies``)."""

    pool_blocks: int
    block_size: int
    max_batched_tokens: int
    max_num_seqs: int
    max_model_len: int | None = None  # longest request (prompt + output) accepted [tokens]
    # admission reserves a request's whole KV (prompt + output) up front and nothing is ever
    # preempted: TensorRT-LLM's default GUARANTEED_NO_EVICT scheduler
    reserve_whole_request: bool = False
    # an iteration is a prefill batch whenever a prompt can be admitted, else a decode batch
    # (decoders wait during prefill batches): SGLang's default (no --enable-mixed-chunk)
    prefill_first: bool = False
    # prompts split over iterations of max_batched_tokens (False: a prompt runs whole in one
    # iteration, at most max_batched_tokens long: trtllm-serve's default; under prefill_first,
    # SGLang's --chunked-prefill-size -1, of any length, the batch bounded by prefill_input)
    chunked_prefill: bool = True
    # SGLang's room for the running requests' future tokens (prefill_first only)
    future_tokens: FutureTokens = field(default_factory=FutureTokens)
    # SGLang's bound on one prefill batch's new prompt tokens (--max-prefill-tokens;
    # prefill_first only; None: the step budget alone)
    prefill_input: PrefillInputLimit | None = None
    # every request runs to its output length with no prefix cache: SGLang admits by its
    # add_one_req_ignore_eos (calc.serve.policies.PrefillFirst.fits_to_finish)
    fixed_lengths: bool = False
    # the scheduler forms each batch while the GPU runs the one before (SGLang's overlap
    # scheduler): a request arriving during a batch waits for the batch already formed
    schedule_ahead: bool = False
    # the engine runs in the front-end's own process (vLLM's V0 engine under PP: the engine
    # wing's ``front_end_in_engine``), so it makes no progress while the front-end takes a
    # burst in: no iteration ends its time before ``paused_until_s`` [s], the end of the
    # intake's first busy period (``calc.serve.simulate``; 0: never paused)
    intake_stalls_engine: bool = False
    paused_until_s: float = 0.0
    # what holds new requests back before admission (SGLang's receive interval, TensorRT-LLM's
    # batch wait), replayed event by event (calc.serve.admission; the group state's counters)
    admission: AdmissionHold = field(default_factory=AdmissionHold)

    def refused(self, prompt, gen, shared, room):
        """Which requests the engine can never serve (numpy arrays of prompt, output and
        pinned-prefix tokens; ``room``: the pool's blocks less the pinned prefix): longer than
        the pool (SGLang: with the page its admission adds, under its strict test), a prompt
        over the batch when prompts are not chunked (not SGLang's: it takes any whole), longer
        than the max model length."""
        B = self.block_size
        out = -(-(prompt + gen - shared) // B) > room
        if self.prefill_first:
            page = B if self.future_tokens.page_reserve else 0
            out |= prompt + gen - shared + page >= room * B
        if not self.chunked_prefill and not self.prefill_first:  # (SGLang: any length whole)
            out |= prompt > self.max_batched_tokens
        if self.max_model_len is not None:
            out |= prompt + gen > self.max_model_len
        return out


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


def run_group(
    arrival,
    prompt,
    gen,
    shared,
    limits: Limits,
    step,
    max_in_flight: int | None = None,
    tokens: bool = True,
    dec_times: dict | None = None,
    lead: list | None = None,
) -> GroupOut:
    """Simulate one group's requests (lists sorted by arrival; ``shared`` prefix tokens per
    request, whole blocks) with the iteration time ``step`` (``iteration_s(b, ctx_sum, chunks,
    rows)``, ``decode_s(b)``, ``ctx_slope(b)``); at most ``max_in_flight`` requests open at once
    when given (a benchmark client's concurrency: the rest wait for a finish). ``tokens``: keep
    the token gaps (ITL) and each request's longest (off: the loop as fast as without them;
    a plan or a check reads no ITL). ``dec_times``: the (decode_s, ctx_slope, loop_floor_s) of
    each batch size looked up so far with this ``step`` (groups of one simulation share it).
    ``lead``: under a client's concurrency, each request's time from its send to the engine
    (the front-end's; None: 0): a request sent at a finish reaches the engine that much later."""
    s = GroupState(arrival, prompt, gen, shared, limits, max_in_flight, tokens, lead)
    if dec_times is not None:
        s.dec_times = dec_times
    policy = policy_for(limits)
    policy.prepare(s)
    # bound once: the loop runs once per iteration (s.running is replaced by the exact rules)
    arrival, n, waiting, policy_step = s.arrival, s.n, s.waiting, policy.step
    recv = s.recv_n > 1  # SGLang's receive interval: new requests read every N forwards
    while s.done < n:
        if recv and s.recv_count < s.recv_n and (s.running or waiting):
            fresh = 0  # busy and the receive not due: arrivals stay in the socket
        else:
            s.recv_count = 0  # the receive fires (an idle engine's at once), its count reset
            fresh = s.take_arrivals() if s.nxt < n and arrival[s.nxt] <= s.t else 0
        if not s.running and not waiting:
            policy.on_idle(s)
            s.t = s.seen = max(s.t, arrival[s.nxt])  # idle: an arrival is seen at once
            continue
        if len(waiting) - fresh > s.queue_max:  # the longest queue: before admission
            s.queue_max = len(waiting) - fresh
        if recv:
            before = s.iterations
            policy_step(s, step)
            if s.iterations == before:  # no batch ran: an idle loop, weight 1
                s.recv_count += 1
        else:
            policy_step(s, step)
    c = s.clock
    return GroupOut(
        s.first_token, s.finish, s.admitted, s.preemptions, s.queue_area, s.queue_max,
        s.used_area, s.t_start, s.t, s.iterations, c.gaps, c.counts, c.runs, c.itl_max,
        s.preempted_n, s.arrival if s.sent is not None else None,
    )  # fmt: skip
