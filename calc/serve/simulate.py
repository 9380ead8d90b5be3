"""Serving a deployment under load: a discrete-event simulation of continuous batching as vLLM
V1 schedules it (SGLang's and TensorRT-LLM's differences below), giving TTFT, TPOT and
end-to-end latency percentiles [s], queue length, KV-pool occupancy, throughput [tokens/s,
requests/s], goodput and preemptions.

Per sequence group (a replica, an attention-DP rank inside an expert group, and under
pipeline parallelism each of a replica's pp micro-batches: vLLM keeps pp batches in flight, one
per stage, each with its own share of the KV pool, pool / pp, and each iteration taking the
whole pipeline's step; requests go to the groups round-robin, request i to group i mod groups,
and each group is simulated on its own), one iteration at a time:

1. Requests that have arrived join the waiting queue (FIFO).
2. **Running requests first**, in admission order, within the token budget M
   (``max_batched_tokens``): a decoding request schedules its one new token; a request still in
   prefill schedules min(tokens left, budget) (**chunked prefill**). Each allocates the KV
   blocks its new tokens need (``block_size`` tokens per block) from the pool; when the pool is
   out of blocks the last-admitted running request is **preempted** (its blocks freed, its
   progress dropped; it rejoins the head of the queue and later recomputes its prompt and the
   tokens it had generated: vLLM V1's recompute preemption).
3. **Then waiting requests** (none in a step that preempted), FCFS, while the budget lasts,
   fewer than ``max_num_seqs`` run, and the pool has the blocks of their first chunk; the first
   that cannot get them stops admission (no skipping ahead).
4. The iteration takes the step-time model's time (``calc.serve.steptime``: decode tokens,
   attended keys, prefill chunks); at its end every request whose tokens are all computed
   samples one output token (the first one ends its TTFT); a request with all its output
   tokens finishes and frees its blocks.

Stretches of decode-only iterations in which nothing can change the batch (no arrival could be
admitted, no request finishes, the pool does not run out) are advanced in one step: their
times are affine in the attended keys, so they sum in closed form.

**Prefix sharing**: a fraction f of every prompt is a prefix all requests share (a system
prompt), whole blocks of it, floor(f × prompt / block) × block tokens, held once in the pool
(the longest request's share, pinned) and never prefilled again: a request computes only the
rest of its prompt (attending to the prefix) and allocates blocks only for it.

**SGLang** (``--engine sglang``): without --enable-mixed-chunk (its default) an iteration is
either a prefill batch (the prompt in progress, then waiting prompts within the budget; the
decoders wait) or a decode batch; it is a prefill batch whenever a prompt can be admitted, and
a waiting prompt is admitted only while the pool, less the running requests' remaining outputs
× ``new_token_ratio``, holds its tokens and its own outputs; a failed admission waits for a
request to leave; a prefill batch takes in at most ``--max-prefill-tokens`` new prompt tokens
(16,384 by default; a first prompt whatever its length; the test by release:
``Limits.prefill_input``); a decode batch short of pages retracts the requests with the fewest
outputs (``calc.serve.policies``, docs/engines.md).

**TensorRT-LLM** (``--engine trtllm``): its default GUARANTEED_NO_EVICT scheduler admits a
request only when the pool holds its whole prompt + output, reserved at admission, so nothing
is ever preempted (vLLM and SGLang allocate blocks as the tokens come and preempt); without
chunked prefill (``trtllm-serve``'s default) a prompt runs whole in one iteration, and one
longer than max_num_tokens is refused.

**Admission holds** (``Limits.admission``; ``calc.serve.admission`` cites the engines' lines):
under SGLang's ``--scheduler-recv-interval N`` a busy scheduler reads new requests only when
its count of forwards since the last read reaches N (a decode forward counts 1, a prefill or
mixed one fires the next read; an idle engine reads at once), so an arrival joins the queue
at the first read after it lands; a decode stretch stops at that read. Under TensorRT-LLM's
batch waiting (``batch_wait_timeout_iters`` T, ``batch_wait_max_tokens_ratio``), an iteration
that would schedule contexts beside running generation requests holds them back (the
decoders run alone) while it has held them fewer than T iterations and their tokens (each
context's whole sequence, + 1 a decoder) stay below the threshold; the count restarts when
they go.

**KV pool**: the ledger's pool in blocks (``dep.per_gpu``): for a model whose layers are all
full attention, the engine's blocks; otherwise (sliding windows, SSM state, hybrid groups) the
pool is counted in full-attention blocks of the same reach: the sequences of the workload's
mean length the ledger fits, × the blocks each holds. A request whose prompt + output alone
needs more blocks than the pool, or is longer than the engine's max model length (the
model's context limit unless set), is refused (counted in ``rejected``), as an engine
refuses it.

Metrics (the definitions of vLLM's benchmark, ``vllm/benchmarks/serve.py`` ``calculate_metrics``,
a request's "arrival" being when the client sent it): TTFT = first token − arrival; TPOT =
(finish − first token) / (output tokens − 1), for requests of more than one output token (one
value per request: its percentiles are over requests); ITL = each gap between two consecutive
tokens of a request, pooled over all requests (its percentiles are over tokens:
``calc.serve.token_gaps``), so a long prefill that stalls the decoders shows in the ITL tail
where a request's mean, its TPOT, hides it; E2E = finish − arrival. Rates are over the
makespan, first arrival to last finish (the benchmark's duration when its first request leaves
at its start). **Client concurrency** (``max_in_flight``, a benchmark's --max-concurrency): at
most C requests are open at once; the next is sent when one finishes (each group gets its share
of C, the rest spread one each over the first groups). Queue length is
the requests waiting for admission, time-averaged over the makespan (all groups), and the
longest queue one group had;
KV-pool occupancy the time-averaged fraction of its pool's blocks in use. **Saturation**: when
the wait from arrival to admission keeps growing with the arrival time (its slope over the
second half of the arrivals above 0.05 s per s, and its mean over the last tenth of the
requests above that over the first tenth by more than 0.05 × the arrival span), the arrival
rate is beyond what the deployment serves and the queue grows without bound; ``saturated`` is
then True, with a one-line reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

from calc.deploy.deployment import Deployment
from calc.errors import InvalidInputError
from calc.serve.front_end import first_tokens_delivered_s
from calc.serve.scheduler import Limits, cdiv, run_group
from calc.serve.token_gaps import gap_summary, gap_values
from calc.serve.workload import LoadSpec, sample_requests

__all__ = ["Limits", "SimResult", "simulate", "simulate_requests"]

PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0}
SATURATION_SLOPE = 0.05  # s of extra wait per s of arrivals


@dataclass(frozen=True, eq=False)
class SimResult:
    """What a simulation measured (see the module docstring for each figure's definition)."""

    n_requests: int  # requests served (arrived and not refused)
    rejected: int  # refused: longer than the whole KV pool
    ttft_s: dict
    tpot_s: dict
    e2e_s: dict
    queue_len_mean: float
    queue_len_max: int
    kv_pool_occupancy_mean: float
    output_tokens_per_s: float
    input_tokens_per_s: float
    requests_per_s: float
    offered_requests_per_s: float
    preemptions: int
    saturated: bool
    saturation_reason: str
    makespan_s: float
    iterations: int
    groups: int
    pool_blocks: int
    ttft_each_s: object = field(repr=False, default=None)
    tpot_each_s: object = field(repr=False, default=None)
    e2e_each_s: object = field(repr=False, default=None)
    wait_each_s: object = field(repr=False, default=None)  # arrival to first admission
    # the inter-token gaps as the scheduler recorded them: (gap, count) pairs and decode
    # stretches (calc.serve.token_gaps); their summary is ``itl_s``
    itl_record: tuple = field(repr=False, default=((), (), ()))
    # per request served (the order of the requests given, refused ones left out): when it was
    # sent [s], its prompt and output tokens, its longest inter-token gap [s] (0: one token),
    # how many times it was preempted, its sequence group
    arrival_each_s: object = field(repr=False, default=None)
    prompt_each: object = field(repr=False, default=None)
    gen_each: object = field(repr=False, default=None)
    itl_max_each_s: object = field(repr=False, default=None)
    preempted_each: object = field(repr=False, default=None)
    group_each: object = field(repr=False, default=None)

    @cached_property
    def itl_s(self) -> dict:
        """Inter-token gaps pooled over all requests' tokens: mean, p50, p90, p99 [s]
        (computed when first asked: a plan's many simulations never ask)."""
        return gap_summary(*gap_values(*self.itl_record))

    def goodput_requests_per_s_e2e(self, ttft_slo_s, tpot_slo_s, e2e_slo_s) -> float:
        """Requests per second that met every SLO given (TTFT, TPOT, E2E; a request of one
        output token has TPOT 0, as vLLM's goodput counts it), over the makespan."""
        import numpy as np

        if self.n_requests == 0 or self.makespan_s <= 0:
            return 0.0
        ok = np.ones(len(self.ttft_each_s), dtype=bool)
        if ttft_slo_s is not None:
            ok &= self.ttft_each_s <= ttft_slo_s
        if tpot_slo_s is not None:
            ok &= np.nan_to_num(self.tpot_each_s, nan=0.0) <= tpot_slo_s
        if e2e_slo_s is not None:
            ok &= self.e2e_each_s <= e2e_slo_s
        return float(ok.sum()) / self.makespan_s

    def goodput_requests_per_s(self, ttft_slo_s: float | None, tpot_slo_s: float | None) -> float:
        """Requests per second that met both SLOs (a missing SLO is met), over the makespan."""
        return self.goodput_requests_per_s_e2e(ttft_slo_s, tpot_slo_s, None)

    def slo_attainment(self, ttft_slo_s: float | None, tpot_slo_s: float | None) -> float:
        """Fraction of requests that met both SLOs."""
        if self.n_requests == 0:
            return 0.0
        return (
            self.goodput_requests_per_s(ttft_slo_s, tpot_slo_s)
            * self.makespan_s
            / (self.n_requests)
        )


# -----------------------------------------------------------------------------------------
# Whole deployment


def _percentiles(x) -> dict:
    import numpy as np

    x = x[~np.isnan(x)]
    if x.size == 0:
        return {"mean": None, **dict.fromkeys(PERCENTILES)}
    out = {"mean": float(x.mean())}
    # all the percentiles from one call (one partition of x; each the same interpolation)
    qs = np.percentile(x, list(PERCENTILES.values())).tolist()
    out.update(zip(PERCENTILES, qs, strict=True))
    return out


# long: the serving loop's state and events in one place (split with the scheduler's rewrite)
def simulate_requests(
    arrival,
    prompt,
    gen,
    *,
    limits: Limits,
    step,
    groups: int = 1,
    prefix_shared_fraction: float = 0.0,
    front_s=None,
    max_in_flight: int | None = None,
    request_s: float = 0.0,
    tokens: bool = True,
    intake_s: float | None = None,
    miss_limits: tuple[float, float] | None = None,
) -> SimResult | None:
    """Simulate requests (arrays sorted by arrival [s], prompt and output lengths [tokens]) on
    ``groups`` sequence groups of ``limits`` each, with the iteration time ``step``; at most
    ``max_in_flight`` requests open at once when given (module docstring). A request reaches
    the engine after its time outside it: ``front_s``, the front-end's (HTTP, tokenisation;
    per request, from the engine's host costs) plus ``request_s``, a calibrated latency
    (``kvcalc score``), taken in one at a time at most every ``intake_s`` (default: the
    api front-end's, ``calc.serve.front_end``, where ``front_s`` is given); its TTFT and E2E
    still count from when it was sent. The engine's settings that hold requests back
    (``limits.admission``: SGLang's receive interval, TensorRT-LLM's batch wait) are replayed
    in each group's schedule, iteration by iteration (module docstring). ``tokens`` off: no
    ITL and no longest gap per request (faster, for a plan or a check). ``miss_limits``: (TTFT,
    TPOT) [s]: None as soon as the groups run so far make a p99 sure to exceed one
    (``calc.serve.sure_miss``; a search that needs only pass or fail)."""
    from calc.serve.front_end import intake_s_of

    if intake_s is None:
        intake_s = intake_s_of(step) if front_s is not None else 0.0
    req = _Requests.of(arrival, prompt, gen, limits, prefix_shared_fraction, front_s, request_s,
                       intake_s)  # fmt: skip
    if limits.intake_stalls_engine and max_in_flight is None:
        limits = replace(limits, paused_until_s=burst_intake_end_s(req.arrival, req.intake_done))
    tally = _Tally(req.arrival.size, groups)
    # as lists once; group g's requests are every groups-th from g, a slice of each (a basic
    # slice of the arrays too: cheaper than an index array per group)
    entry, prompts = req.entry.tolist(), req.prompt.tolist()
    gens, shared = req.gen.tolist(), req.shared.tolist()
    dec_times: dict = {}  # the groups' decode step times by batch size (one step, this call)
    miss = None
    if miss_limits is not None:
        from calc.serve.sure_miss import MissCount

        miss = MissCount(*miss_limits, req.gen)
    for g in range(min(groups, req.arrival.size)):
        idx = slice(g, None, groups)
        cap, ent, lead = None, entry[idx], None
        if max_in_flight is not None:  # this group's share of the client's concurrency
            cap = max(1, max_in_flight // groups + (g < max_in_flight % groups))
            ent, lead = _closed_loop_entries(req, idx, cap)
        out = run_group(
            ent,
            prompts[idx],
            gens[idx],
            shared[idx],
            limits,
            step,
            cap,
            tokens,
            dec_times,
            lead,
        )
        tally.add(idx, out, req, limits.pool_blocks, ent)
        if miss is not None and miss.sure(tally.first[idx], tally.finish[idx],
                                          tally.sent_at[idx], req.gen[idx]):  # fmt: skip
            return None
    return tally.result(req, limits)


def _closed_loop_entries(req: _Requests, idx: slice, cap: int) -> tuple[list, list]:
    """A group's requests under a client's concurrency of ``cap``: when each reaches the engine
    unless a finish holds it back, and its time from the client's send to the engine (the
    lead). The first ``cap`` go at once, through the front-end's intake one after another
    (``req.entry``); each later one is sent only when a request finishes, alone, so its own
    latency is all it waits (``arrival + lead``, no place in an intake queue of requests the
    client had not sent yet); ``GroupState.release`` adds the lead to the finish."""
    lead = (req.latency[idx]).tolist()
    ent = req.entry[idx].tolist()
    later = (req.arrival[idx] + req.latency[idx]).tolist()
    return ent[:cap] + later[cap:], lead


def burst_intake_end_s(arrival, intake_done) -> float:
    """When the front-end's first busy period ends [s]: the requests it takes in back to back
    from the first (each sent by the time the one ahead of it was taken in), the intake of the
    last of them done (``intake_done`` from ``calc.serve.front_end.entry_times_s``); 0 without an
    intake. A burst's whole intake (200 requests sent at once: 200 × 1.18 ms = 236 ms); at a
    steady rate the first request's own 1.18 ms, before the engine sees it (no pause). An
    engine in the front-end's process makes no progress until then (``Limits.paused_until_s``);
    the later requests' intake, one at a time among the steps (at 16 requests/s 1.9% of the
    time), is left out."""
    import numpy as np

    if intake_done is None or len(arrival) == 0:
        return 0.0
    queued = np.asarray(arrival)[1:] <= np.asarray(intake_done)[:-1]  # waited for the one ahead
    k = int(np.argmin(queued)) if not queued.all() else queued.size  # the busy run's last index
    return float(intake_done[k])


@dataclass(frozen=True)
class _Requests:
    """The requests an engine serves (numpy arrays in arrival order; refused ones left out)
    and when each reaches the engine."""

    arrival: object
    prompt: object
    gen: object
    shared: object  # pinned prefix tokens, whole blocks
    entry: object  # when the engine sees it: arrival + the front-end's and calibrated time
    rejected: int
    intake_done: object = None  # when the front-end's intake finished each (None: no intake)
    intake_s: float = 0.0  # the front-end's time per request in and per first token out
    latency: object = None  # each one's own time from its send to the engine, no intake wait

    @classmethod
    def of(cls, arrival, prompt, gen, limits: Limits, prefix_shared_fraction, front_s,
           request_s, intake_s=0.0) -> _Requests:  # fmt: skip
        import numpy as np

        from calc.serve.front_end import entry_times_s

        arrival = np.asarray(arrival, dtype=np.float64)
        prompt = np.asarray(prompt, dtype=np.int64)
        gen = np.asarray(gen, dtype=np.int64)
        B = limits.block_size
        shared = (np.floor(prefix_shared_fraction * prompt / B) * B).astype(np.int64)
        shared = np.minimum(shared, ((prompt - 1) // B) * B)  # at least one token to prefill
        shared_blocks = cdiv(int(shared.max()), B) if shared.size else 0
        ok = ~limits.refused(prompt, gen, shared, limits.pool_blocks - shared_blocks)
        arrival, prompt, gen, shared = arrival[ok], prompt[ok], gen[ok], shared[ok]
        front = np.zeros(arrival.size) if front_s is None else \
            np.broadcast_to(front_s, ok.shape)[ok]  # fmt: skip
        # the front-end hands requests over in arrival order, one per intake time at most
        entry = entry_times_s(arrival, front + request_s, intake_s)
        done = entry_times_s(arrival, 0.0, intake_s) if intake_s > 0 else None
        latency = np.broadcast_to(front + request_s, arrival.shape).astype(np.float64)
        return cls(arrival, prompt, gen, shared, entry, int((~ok).sum()), done, intake_s,
                   latency)  # fmt: skip


class _Tally:
    """Each group's schedule gathered into per-request figures and totals."""

    def __init__(self, n: int, groups: int) -> None:
        import numpy as np

        self.groups = groups
        self.ttft, self.e2e, self.tpot, self.wait = (np.full(n, np.nan) for _ in range(4))
        self.first, self.finish, self.sent_at = (np.full(n, np.nan) for _ in range(3))
        self.closed = False  # the client's concurrency limit sent the requests (no intake)
        self.sent = None
        self.itl_max = np.zeros(n)
        self.preempted = np.zeros(n, dtype=np.int64)
        self.gaps: list[float] = []
        self.counts: list[int] = []
        self.runs: list[tuple] = []
        self.preemptions = self.iterations = self.q_max = 0
        self.q_area = 0.0
        self.occ: list[float] = []
        self.t0, self.t1 = float("inf"), float("-inf")

    def add(self, idx, out, req: _Requests, pool_blocks: int, entry) -> None:
        import numpy as np

        if self.sent is None:
            self.sent = req.entry.copy()  # when each reached the engine (a closed loop later)
        if out.sent is not None:
            self.sent[idx] = out.sent
            self.closed = True
        # from when the client sent it: the engine's sight of it less its time outside (the
        # group's ``entry`` less the arrival: under a client's concurrency, a later request's
        # own latency, sent at a finish: ``_closed_loop_entries``)
        a = self.sent[idx] - (np.asarray(entry) - req.arrival[idx])
        self.itl_max[idx] = out.itl_max
        self.preempted[idx] = out.preempted
        self.gaps += out.itl_gaps
        self.counts += out.itl_counts
        self.runs += out.itl_runs
        self.first[idx], self.finish[idx], self.sent_at[idx] = out.first_token, out.finish, a
        self.wait[idx] = np.asarray(out.admitted) - a
        self.preemptions += out.preemptions
        self.iterations += out.iterations
        span = out.t_end - out.t_start
        self.q_area += out.queue_area
        self.q_max = max(self.q_max, out.queue_max)
        self.occ.append(out.used_area / span / pool_blocks if span > 0 else 0.0)
        self.t0, self.t1 = min(self.t0, out.t_start), max(self.t1, out.t_end)

    def _latencies(self, req: _Requests) -> None:
        """TTFT, E2E and TPOT of every request, its first token handed out by the front-end
        (``calc.serve.front_end``: after the intake of the requests sent before it, one at a
        time over all groups) unless the client's concurrency limit sent the requests; the
        hand-out holds the request's whole stream, its later tokens keeping their gaps (no
        token reaches the client merged with the next: ``first_tokens_delivered_s``)."""
        import numpy as np

        ft, fin, a = self.first, self.finish, self.sent_at
        if req.intake_done is not None and not self.closed and ft.size:
            held = first_tokens_delivered_s(ft, req.arrival, req.intake_done, req.intake_s) - ft
            ft, fin = ft + held, fin + held
        self.ttft, self.e2e = ft - a, fin - a
        many = req.gen > 1
        self.tpot = np.full(ft.size, np.nan)
        self.tpot[many] = (fin[many] - ft[many]) / (req.gen[many] - 1)

    def result(self, req: _Requests, limits: Limits) -> SimResult:
        import numpy as np

        self._latencies(req)
        n = req.arrival.size
        sent = self.sent if self.sent is not None else req.entry.copy()
        outside = req.entry - req.arrival  # each request's time before the engine sees it
        makespan = float(self.t1 - self.t0 + outside[0]) if n else 0.0  # from the first send
        span_arrivals = float(req.arrival[-1] - req.arrival[0]) if n > 1 else 0.0
        offered = (n - 1) / span_arrivals if span_arrivals > 0 else 0.0
        saturated, reason = _saturation(sent, self.wait, self.e2e, offered)

        def per_s(x: float) -> float:
            return x / makespan if makespan > 0 else 0.0

        return SimResult(
            n_requests=int(n),
            rejected=req.rejected,
            ttft_s=_percentiles(self.ttft),
            tpot_s=_percentiles(self.tpot),
            e2e_s=_percentiles(self.e2e),
            queue_len_mean=per_s(self.q_area),
            queue_len_max=int(self.q_max),
            kv_pool_occupancy_mean=float(np.mean(self.occ)) if self.occ else 0.0,
            output_tokens_per_s=per_s(float(req.gen.sum())),
            input_tokens_per_s=per_s(float(req.prompt.sum())),
            requests_per_s=per_s(n),
            offered_requests_per_s=offered,
            preemptions=int(self.preemptions),
            saturated=saturated,
            saturation_reason=reason,
            makespan_s=makespan,
            iterations=int(self.iterations),
            groups=self.groups,
            pool_blocks=int(limits.pool_blocks),
            ttft_each_s=self.ttft,
            tpot_each_s=self.tpot,
            e2e_each_s=self.e2e,
            wait_each_s=self.wait,
            itl_record=(self.gaps, self.counts, self.runs),
            arrival_each_s=self.sent_at,
            prompt_each=req.prompt,
            gen_each=req.gen,
            itl_max_each_s=self.itl_max,
            preempted_each=self.preempted,
            group_each=np.arange(n, dtype=np.int64) % self.groups if self.groups else
            np.zeros(n, dtype=np.int64),
        )


def _saturation(arrival, wait, e2e, offered) -> tuple[bool, str]:
    """Whether the wait for admission grows with the arrival time (module docstring)."""
    import numpy as np

    n = arrival.size
    if n < 20:
        return False, ""
    half = slice(n // 2, n)
    x, y = arrival[half], wait[half]
    if x[-1] <= x[0]:
        return False, ""
    slope = float(np.polyfit(x, y, 1)[0])
    tenth = max(1, n // 10)
    first, last = float(np.mean(wait[:tenth])), float(np.mean(wait[-tenth:]))
    span = float(arrival[-1] - arrival[0])
    if slope > SATURATION_SLOPE and last - first > SATURATION_SLOPE * span:
        served = n / float(np.nanmax(arrival + e2e) - arrival[0])
        return True, (
            f"arrivals at {offered:.3g} requests/s exceed the {served:.3g} requests/s served: "
            f"the wait for admission grew from {first:.3g} s to {last:.3g} s over the run "
            f"(+{slope:.2f} s per s) and keeps growing; lower --rate or add replicas"
        )
    return False, ""


def front_end_s(step, prompt):
    """Each request's front-end time before the engine sees it [s] (HTTP, tokenisation: the
    engine's host costs, ``StepTable.request_s``); None for a step time that states none."""
    return step.request_s(prompt) if hasattr(step, "request_s") else None


def request_latency_s(dep: Deployment) -> float:
    """Each request's latency outside the engine loop [s]: a step calibration's ``request_s``
    (``kvcalc score --save-calibration``), else 0."""
    cal = dep.hardware.step_calibration if dep.hardware is not None else None
    return cal.request_s if cal is not None else 0.0


def groups_of(dep: Deployment) -> int:
    """Sequence groups simulated apart: replicas × attention-DP ranks × pipeline micro-batches
    (under PP each replica runs pp micro-batches at once, each its own scheduler's batch)."""
    return dep.sequence_groups * dep.pp


def deployment_limits(dep: Deployment, mean_tokens: float) -> Limits:
    """The scheduler limits of one sequence group of ``dep`` (module docstring, KV pool; under
    PP each micro-batch's share, pool / pp)."""
    pg = dep.per_gpu
    ec = dep.engine_config
    policy = dep.engine_model.scheduler(ec.version)  # the engine's rules (calc.deploy.engines)
    B = pg.block_size
    cfg = dep.model
    full_only = cfg.n_layers_of("full") == cfg.n_layers
    if full_only or pg.state_slots is not None:  # (the state apart: SGLang's hybrid pool)
        pool = pg.kv_cache_blocks
        if pg.paging is not None and pg.paging.full_groups == 1:
            pool = pg.paging.num_blocks
    else:
        ref = max(B, round(mean_tokens))
        pool = int(pg.max_sequences_per_gpu(ref)) * cdiv(ref, B)
    max_len = int(ec.max_model_len or cfg.context_limit)
    seqs = int(ec.max_num_seqs)
    if dep.engine.max_num_seqs is None:  # the engine's own limit from its pool (SGLang)
        seqs = policy.running_limit(int(pool) * int(B), max_len) or seqs
    cap = getattr(pg.prediction, "max_running_requests", None)
    if cap is not None:  # the engine's own cap from its state pool (SGLang's hybrid models)
        seqs = min(seqs, cap)
    return Limits(
        pool_blocks=int(pool) // dep.pp,
        block_size=int(B),
        max_batched_tokens=int(ec.max_batched_tokens),
        max_num_seqs=seqs,
        max_model_len=max_len,
        reserve_whole_request=policy.reserve_whole_request,
        prefill_first=policy.prefill_first,
        chunked_prefill=ec.chunked_prefill,
        future_tokens=policy.future_tokens,
        prefill_input=dep.engine_model.prefill_input_limit(dep),
        schedule_ahead=policy.schedule_ahead,
        # a simulated request always runs to its output length (ignore_eos, as benchmark
        # clients send): what SGLang's admission counts on when its radix cache is off
        fixed_lengths=policy.prefill_first and dep.engine.prefix_cache is False,
        intake_stalls_engine=dep.engine_model.front_end_in_engine(ec.host_release, dep.pp),
        admission=dep.engine_model.admission_hold(dep),
    )


def check_prefix_hits(dep: Deployment, shared_fraction: float, flag: str) -> None:
    """Refuse prefix-cache hits (``flag``: --prefix-shared, --prefix-cached) on a deployment
    that runs without a prefix cache (--no-prefix-cache): nothing could be reused."""
    if shared_fraction > 0 and dep.engine.prefix_cache is False:
        raise InvalidInputError(
            f"{flag} {shared_fraction:g} models prefix-cache hits, but the deployment runs "
            "without a prefix cache (--no-prefix-cache): give one or the other"
        )


def simulate(
    dep: Deployment,
    load: LoadSpec,
    *,
    seed: int = 0,
    efficiency: str = "expected",
    max_requests: int | None = None,
    step_time=None,
    limits: Limits | None = None,
    tokens: bool = True,
) -> SimResult:
    """Serve ``load`` on ``dep`` (module docstring). ``step_time`` (an iteration-time object,
    default ``calc.serve.steptime.step_table(dep, efficiency)``) and ``limits`` (default from
    the ledger and the engine) can be injected; ``tokens`` off skips the ITL bookkeeping."""
    from calc.deploy.rates import check_efficiency
    from calc.serve.steptime import step_table

    check_efficiency(efficiency)
    if dep.hardware is None:
        raise InvalidInputError("a simulation needs --hardware (iteration times and the KV pool)")
    check_prefix_hits(dep, load.prefix_shared_fraction, "--prefix-shared")
    arrival, prompt, gen = sample_requests(load, seed)
    if max_requests is not None:
        arrival, prompt, gen = arrival[:max_requests], prompt[:max_requests], gen[:max_requests]
    if arrival.size == 0:
        raise InvalidInputError("no request arrives in the time given (raise --duration)")
    lim = limits or deployment_limits(dep, float((prompt + gen).mean()))
    if lim.pool_blocks <= 0:
        raise InvalidInputError(
            f"{dep.model.display_name} on {dep.describe()} leaves no KV pool "
            f"({dep.per_gpu.kv_budget_bytes / 2**30:.2f} GiB budget): nothing can be served; "
            "add GPUs (--tp) or lower --weight-dtype"
        )
    step = step_time or step_table(dep, efficiency, max_ctx=int((prompt + gen).max()) + 1)
    result = simulate_requests(
        arrival,
        prompt,
        gen,
        limits=lim,
        step=step,
        groups=groups_of(dep),
        prefix_shared_fraction=load.prefix_shared_fraction,
        front_s=front_end_s(step, prompt),
        request_s=request_latency_s(dep),
        tokens=tokens,
    )
    if result.n_requests == 0:
        whole = "" if lim.chunked_prefill or lim.prefill_first else (
            f", or prompts up to {int(prompt.max()):,} tokens exceed max_batched_tokens "
            f"({lim.max_batched_tokens:,}) with chunked prefill off (raise --max-batched-tokens)"
        )  # fmt: skip
        raise InvalidInputError(
            f"every request is refused: prompt + output up to {int((prompt + gen).max()):,} "
            f"tokens exceed the max model length ({lim.max_model_len:,}) or the KV pool of "
            f"{lim.pool_blocks:,} blocks of {lim.block_size} tokens{whole}; shorten "
            "--prompt/--gen or raise --max-model-len"
        )
    return result
