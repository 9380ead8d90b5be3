"""Latency percentiles of one deployment replica under a request rate [s]: the evaluator the
plan search calls (``evaluate``), either the serving simulation (``calc.serve.simulate``) or,
where that is not available or not asked for, an analytic queueing estimate stated here. Also
the analytic model of prefill/decode disaggregation (xPyD).

An evaluator takes one replica of a deployment, the whole load and a replica count R. The
simulation serves the load on the R-replica deployment itself (requests go to the replicas
round-robin, ``calc.serve.simulate``), so ``kvcalc plan``'s figures are those a re-check of the
chosen deployment gives; under expert parallelism, whose replica is a whole expert group that
one ``Deployment`` cannot repeat, it serves one replica at rate / R (requests routed at random
split a Poisson stream into R Poisson streams of rate / R; round-robin is smoother, so this
errs on the slow side). The analytic estimate is always one replica at rate / R.

**Analytic estimate** (one replica; P prompt and G output tokens; λ requests/s; pp stages):

- prefill of one prompt: t_pf = step_of(batch=1, prompt=P) (all stages: a latency); it takes
  t_pf / pp of the replica's time under pipelining, so the prefill load is ρ = λ · t_pf / pp.
- decode: n sequences decode together; a step at the mean context P + G/2 takes t_d(n) (under
  pp, t_d(⌈n / pp⌉): micro-batches of ⌈n / pp⌉ fill the stages); decode advances only in the
  time prefill leaves, so TPOT(n) = t_d(n) / (1 − ρ). Little's law gives
  the steady decode batch n* = the least n with λ · (G − 1) · TPOT(n) ≤ n, searched over
  n = 1 … min(max_num_seqs, sequences the KV pool holds); none: the replica saturates.
- TPOT p-th percentile: TPOT at the decode batch's percentile, n* + z·√n* (the number of
  requests decoding at once is Poisson with mean n*, as in an M/G/∞ queue; z = 1.28, 2.33 for
  p90, p99; p50 at n*).
- TTFT: prefill waits behind the other prompts, a single-server queue with Poisson arrivals
  (c_a² = 1), service time s = (t_pf + ⌈P / (M − n*)⌉ · t_d(n*)) / pp (the prompt's chunks
  ride decode steps of M = max_batched_tokens tokens; fixed-length prompts: constant service,
  c_s² = 0) and load ρ. Kingman's approximation makes the wait exponential above zero with
  mean m = (c_a² + c_s²) / 2 · s / (1 − ρ): P(W > t) = ρ · e^{−t / m}, so
  W_q = m · ln(ρ / (1 − q)) (0 when ρ ≤ 1 − q); TTFT_q = W_q + t_pf. With c_s² = 1 this is
  the M/M/1 wait exactly. It still errs on the slow side: an engine prefills several queued
  prompts in one step, which a one-at-a-time server does not.
- saturated when ρ ≥ 1 or no decode batch within the pool and max_num_seqs carries the rate.

**Closed loop** (``Load.concurrency``: N users, each sending its next request when the last
finishes): a replica holds b = min(N / replicas, its cap) sequences; the rate they make is
Little's law's λ = b / (TTFT + (G − 1) · TPOT), found by fixed-point iteration with
TPOT = t_d(b) / (1 − ρ); TTFT = t_pf + one decode step + the wait of the users beyond the cap,
(N − b) / λ. The simulation sends every request at once behind a client that keeps N open.

**Disaggregation** (x prefill replicas of one shape, y decode replicas of the same or another
shape): the prefill pool has no decode (ρ = λ/x · t_pf / pp, s = t_pf / pp); the decode pool no
prefill (ρ = 0 in TPOT(n), rate λ / y). The simulation serves both pools
(``simulated_disaggregated_eval``): the prefill pool every request with one output token, the
decode pool the same arrivals with their prefill free (``DecodeOnlyStep``). TTFT adds the KV
transfer: each GPU of a prefill replica sends its own shard of the prompt's KV (the ledger's KV
of one P-token sequence on the busiest GPU) to its decode counterpart at once, one
point-to-point send over the scale-out network (``calc.deploy.parallel.p2p_time_s`` at the
profile's ``scale_out`` bandwidth and latency; the scale-up link where the profile states no
network).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from calc.deploy.deployment import Deployment

# requests simulated per evaluation when not stated: the p99 rests on the slowest 10 of them
DEFAULT_REQUESTS = 1000
Z = {"p50": 0.0, "p90": 1.2816, "p99": 2.3263}  # standard normal quantiles
Q = {"p50": 0.50, "p90": 0.90, "p99": 0.99}
METHODS = ("auto", "simulation", "analytic")


@dataclass(frozen=True)
class Load:
    """Requests arriving at ``rate_per_s`` (Poisson), each ``prompt`` input and ``gen`` output
    tokens; with length distributions (``calc.serve.workload.LengthDist``) ``prompt`` and
    ``gen`` are their means (rounded; the analytic screen and estimate use them), the
    simulation samples the distributions, and ``max_tokens`` is the longest request of the
    simulated sample (the engine's max model length must hold it).

    ``concurrency``: N users in a closed loop (each sends its next request when the last one
    finishes) instead of a rate (``rate_per_s`` None). ``trace``: recorded requests
    (``calc.serve.workload.Trace``, their arrival times and lengths; ``rate_per_s`` rescales
    them). ``prefix_shared``: the fraction of every prompt that is a prefix all requests share,
    served from the prefix cache."""

    rate_per_s: float | None
    prompt: int
    gen: int
    prompt_dist: object = None  # None: every prompt is ``prompt`` tokens
    gen_dist: object = None
    max_tokens: int | None = None  # None: prompt + gen
    concurrency: int | None = None
    trace: object = None
    prefix_shared: float = 0.0

    def describe(self) -> str:
        """The lengths as stated: 'fixed' or each distribution."""
        if self.trace is not None:
            src = getattr(self.trace, "source", "") or "trace"
            return (f"trace {src} ({len(self.trace):,} requests; mean prompt {self.prompt:,}, "
                    f"gen {self.gen:,}; longest {self.longest:,} tokens)")  # fmt: skip
        if self.prompt_dist is None and self.gen_dist is None:
            return "fixed"
        p = self.prompt_dist.describe() if self.prompt_dist else str(self.prompt)
        g = self.gen_dist.describe() if self.gen_dist else str(self.gen)
        return f"prompt {p}, gen {g} (longest sampled request {self.longest:,} tokens)"

    @property
    def longest(self) -> int:
        """The longest request [tokens]: prompt + gen, or the sample's longest."""
        return self.max_tokens if self.max_tokens is not None else self.prompt + self.gen

    @property
    def closed(self) -> bool:
        """Whether the load is N users in a closed loop (``--concurrency``)."""
        return self.concurrency is not None

    @property
    def new_prompt(self) -> int:
        """Prompt tokens each request prefills: the part not in the shared prefix [tokens]."""
        return max(1, round(self.prompt * (1 - self.prefix_shared)))

    def per_replica(self, replicas: int) -> Load:
        if self.closed:
            return replace(self, concurrency=max(1, math.ceil(self.concurrency / replicas)))
        return replace(self, rate_per_s=self.rate_per_s / replicas)

    @classmethod
    def parse(cls, rate_per_s, prompt, gen, *, seed: int = 0, concurrency: int | None = None,
              trace=None, prefix_shared: float = 0.0) -> Load:  # fmt: skip
        """The load of ``--rate`` (or ``--concurrency``), ``--prompt`` and ``--gen`` as given: a
        number of tokens, or ``uniform:LO:HI`` / ``lognormal:MEAN:CV``
        (``calc.serve.workload.LengthDist.parse``); or of a ``--trace`` (its lengths unless
        ``--prompt`` / ``--gen`` are given, its rate unless ``--rate`` is)."""
        from calc.errors import InvalidInputError
        from calc.serve.workload import LengthDist, LoadSpec, sample_requests

        f = prefix_shared
        if isinstance(f, bool) or not isinstance(f, int | float) or not 0 <= f < 1:
            raise InvalidInputError(f"--prefix-shared must be in [0, 1), got {f!r}")
        if trace is not None:
            if concurrency is not None:
                raise InvalidInputError("give --trace or --concurrency, not both")
            spec = LoadSpec(
                rate_per_s=rate_per_s,
                arrival=trace,
                prompt=None if prompt is None else LengthDist.parse(prompt, "--prompt"),
                gen=None if gen is None else LengthDist.parse(gen, "--gen"),
            )
            _, p, g = sample_requests(spec, seed)
            rate = rate_per_s if rate_per_s is not None else trace.rate_per_s
            if not rate or rate <= 0:
                raise InvalidInputError("--trace: its requests all arrive at once; give --rate")
            return cls(float(rate), max(1, round(float(p.mean()))), max(1, round(float(g.mean()))),
                       max_tokens=int((p + g).max()), trace=trace, prefix_shared=f)  # fmt: skip
        if prompt is None or gen is None:
            raise InvalidInputError("give --prompt and --gen (or a --trace)")
        if (rate_per_s is None) == (concurrency is None):
            raise InvalidInputError(
                "give --rate (requests/s) or --concurrency (users in a closed loop), one of them"
            )
        if concurrency is not None:
            from calc.data.limits import check_positive_int

            check_positive_int("concurrency", concurrency, 1_000_000)
        pd = LengthDist.parse(prompt, "--prompt")
        gd = LengthDist.parse(gen, "--gen")
        if pd.kind == "fixed" and gd.kind == "fixed":
            return cls(rate_per_s, int(pd.a), int(gd.a), concurrency=concurrency,
                       prefix_shared=f)  # fmt: skip
        spec = LoadSpec(rate_per_s=rate_per_s or 1.0, prompt=pd, gen=gd,
                        n_requests=DEFAULT_REQUESTS)  # fmt: skip
        _, p, g = sample_requests(spec, seed)
        mean = (max(1, round(pd.mean)), max(1, round(gd.mean)))
        return cls(rate_per_s, *mean, pd, gd, int((p + g).max()), concurrency=concurrency,
                   prefix_shared=f)  # fmt: skip


@dataclass(frozen=True)
class LoadEval:
    """Latency percentiles [s] of one replica (or a disaggregated pair of pools) under load."""

    ttft_s: dict  # {"p50","p90","p99"} [s]
    tpot_s: dict
    saturated: bool
    reason: str | None  # why it saturates (None when it does not)
    method: str  # "simulation" or "analytic"
    decode_batch: float | None = None  # mean sequences decoding at once (analytic)
    prefill_load: float | None = None  # ρ: fraction of the replica's time spent prefilling
    kv_transfer_s: float = 0.0  # disaggregated: KV sent from prefill to decode pool
    # requests/s the deployment served (the offered rate; a closed loop's achieved rate)
    requests_per_s: float | None = None

    @property
    def ttft_p99_s(self) -> float:
        return self.ttft_s["p99"]

    @property
    def tpot_p99_s(self) -> float:
        return self.tpot_s["p99"]


Evaluator = Callable[[Deployment, Load, int], LoadEval]  # one replica, load, replicas


# ---------------------------------------------------------------------------------------------
# Formulas (plain numbers)


def mm1_wait_quantile_s(service_s, load, q):
    """q-quantile of an M/M/1 wait [s]: s / (1 − ρ) · ln(ρ / (1 − q)), 0 when ρ ≤ 1 − q."""
    return kingman_wait_quantile_s(service_s, load, q, ca2=1.0, cs2=1.0)


def kingman_wait_quantile_s(service_s, load, q, ca2=1.0, cs2=0.0):
    """q-quantile of a single-server queue's wait by Kingman's approximation [s]:
    m · ln(ρ / (1 − q)) with m = (c_a² + c_s²) / 2 · s / (1 − ρ), 0 when ρ ≤ 1 − q
    (defaults: Poisson arrivals, constant service)."""
    if load <= 1 - q:
        return 0.0
    return (ca2 + cs2) / 2 * service_s / (1 - load) * math.log(load / (1 - q))


def poisson_quantile(mean, z):
    """Normal approximation of a Poisson count's quantile: mean + z · √mean."""
    return mean + z * math.sqrt(mean)


# ---------------------------------------------------------------------------------------------
# The analytic estimate


@dataclass(frozen=True)
class _Shape:
    """What the estimate needs of one replica, computed once per deployment."""

    t_prefill_s: float
    pp: int
    cap: int  # max decode batch: min(max_num_seqs, pool)
    max_batched_tokens: int
    tpot_by_batch: object  # numpy array, index n − 1: t_d(n) at the mean context


_SHAPES: dict = {}  # (id(dep), prompt, gen, prefix, efficiency) -> (dep, shape)


def _shape(dep: Deployment, load: Load, efficiency: str) -> _Shape | None:
    """The shape of one replica for the load's lengths (computed once per deployment: the
    search asks for it at many rates and replica counts)."""
    key = (id(dep), load.prompt, load.gen, load.prefix_shared, efficiency)
    hit = _SHAPES.get(key)
    if hit is None or hit[0] is not dep:
        if len(_SHAPES) > 512:
            _SHAPES.clear()
        hit = (dep, _new_shape(dep, load, efficiency))
        _SHAPES[key] = hit
    return hit[1]


def _new_shape(dep: Deployment, load: Load, efficiency: str) -> _Shape | None:
    import numpy as np

    from calc.deploy.steps import step_of

    p, g = load.prompt, load.gen
    ec = dep.engine_config
    # the shared prefix is held once: each sequence holds its own part of the prompt
    pool = int(dep.per_gpu.max_sequences_per_gpu(load.new_prompt + g)) * dep.sharding.dp_attn
    cap = min(ec.max_num_seqs * dep.sharding.dp_attn, pool)
    if cap < 1:
        return None
    t_pf = float(step_of(dep, efficiency, batch=1, prompt=load.new_prompt).time_s)
    n = np.arange(1, cap + 1, dtype=np.float64)
    t_d = np.asarray(step_of(dep, efficiency, batch=n, ctx=p + g / 2).time_s, dtype=np.float64)
    return _Shape(t_pf, dep.pp, cap, ec.max_batched_tokens, np.broadcast_to(t_d, n.shape))


def _tpot_at(shape: _Shape, n):
    """The decode step of a replica holding ``n`` sequences [s]: under pp its micro-batches of
    ⌈n / pp⌉ each pass all stages in t_d(⌈n / pp⌉) while the others fill the other stages, so
    a sequence advances one token per t_d(⌈n / pp⌉) (as ``calc.reports.throughput``)."""
    import numpy as np

    micro = np.ceil(np.asarray(n, dtype=np.float64) / shape.pp).astype(np.int64)
    return shape.tpot_by_batch[np.minimum(micro, len(shape.tpot_by_batch)) - 1]


def _decode(shape: _Shape, rate: float, gen: int, rho: float):
    """(n*, TPOT by percentile) of the decode fixed point, or None when it saturates."""
    import numpy as np

    n = np.arange(1, shape.cap + 1, dtype=np.float64)
    t = _tpot_at(shape, n) / (1 - rho)
    ok = np.nonzero(rate * max(gen - 1, 0) * t <= n)[0]
    if ok.size == 0:
        return None
    i = int(ok[0])
    n_star = max(rate * max(gen - 1, 0) * float(t[i]), 1e-9)
    tpot = {}
    for k, z in Z.items():
        b = min(shape.cap, max(1, math.ceil(poisson_quantile(n_star, z))))
        tpot[k] = float(t[b - 1])
    return n_star, tpot


def _ttft(
    shape: _Shape,
    rate: float,
    prompt: int,
    n_star: float,
    rho: float,
    extra_s: float,
    chunked: bool = True,
) -> dict:
    steps = 0
    if chunked:
        room = max(1, shape.max_batched_tokens - math.ceil(n_star))
        steps = math.ceil(prompt / room)
        b = min(shape.cap, max(1, math.ceil(n_star)))
        service = shape.t_prefill_s / shape.pp + steps * float(_tpot_at(shape, b)) / shape.pp
    else:
        service = shape.t_prefill_s / shape.pp
    return {
        k: kingman_wait_quantile_s(service, rho, q) + shape.t_prefill_s + extra_s
        for k, q in Q.items()
    }


def _saturated(reason: str, method: str = "analytic", **kw) -> LoadEval:
    inf = {k: math.inf for k in Q}
    return LoadEval(dict(inf), dict(inf), True, reason, method, **kw)


def analytic_eval(dep: Deployment, load: Load, *, efficiency: str = "expected") -> LoadEval:
    """The analytic estimate of one replica under ``load`` (module docstring)."""
    shape = _shape(dep, load, efficiency)
    if shape is None:
        return _saturated(f"not one sequence of {load.prompt + load.gen:,} tokens fits")
    if load.closed:
        ev = _closed_eval(shape, load)
        if ev.saturated or ev.decode_batch is None:
            return ev
        wait = _held_s(dep, shape, load, ev.decode_batch, None)
        return replace(ev, ttft_s={k: v + wait for k, v in ev.ttft_s.items()}) if wait else ev
    lam = load.rate_per_s
    rho = lam * shape.t_prefill_s / shape.pp
    if rho >= 1:
        return _saturated(
            f"prefill alone needs {rho:.2f} of the replica's time at {lam:g} requests/s",
            prefill_load=rho,
        )
    dec = _decode(shape, lam, load.gen, rho)
    if dec is None:
        return _saturated(
            f"the decode batch {lam:g} requests/s need exceeds {shape.cap:,} sequences "
            "(KV pool / max_num_seqs)",
            prefill_load=rho,
        )
    n_star, tpot = dec
    ttft = _ttft(shape, lam, load.new_prompt, n_star, rho, _held_s(dep, shape, load, n_star, lam))
    return LoadEval(ttft, tpot, False, None, "analytic", n_star, rho, requests_per_s=lam)


def _held_s(dep: Deployment, shape: _Shape, load: Load, running: float,
            rate: float | None) -> float:  # fmt: skip
    """The mean time the deployment's stated scheduler settings hold a new prompt back
    (``calc.serve.admission_hold``) beside ``running`` decoding sequences, at their decode
    step: a closed loop (``rate`` None: the others decode, prompts running / gen a step) or
    open arrivals at ``rate`` [s]; 0 where nothing is stated."""
    from calc.serve.admission_hold import busy_share, held_s

    hold = dep.engine_model.admission_hold(dep)
    if not hold.holds:
        return 0.0
    step = float(_tpot_at(shape, min(shape.cap, max(1, math.ceil(running)))))
    if rate is None:
        busy, per_step = busy_share(running - 1, True), running / max(1, load.gen)
    else:
        busy, per_step = busy_share(running, False), rate * step
    return held_s(hold, step, busy, per_step, load.new_prompt)


def _closed_eval(shape: _Shape, load: Load) -> LoadEval:
    """N users in a closed loop on one replica (analytic): b = min(N, cap) sequences decode at
    once, the rest wait; the rate is Little's law's λ = b / (TTFT + (G − 1) × TPOT), found by
    fixed-point iteration with TPOT = t_d(b) / (1 − ρ), ρ = λ × t_pf / pp; a waiting user waits
    (N − b) / λ more."""
    n = load.concurrency
    b = min(n, shape.cap)
    g = max(load.gen - 1, 0)
    t_d = float(_tpot_at(shape, b))
    lam = b / (shape.t_prefill_s + g * t_d)
    for _ in range(50):
        rho = min(0.95, lam * shape.t_prefill_s / shape.pp)
        tpot = t_d / (1 - rho)
        e2e = shape.t_prefill_s + g * tpot
        lam = 0.5 * lam + 0.5 * b / e2e
    rho = lam * shape.t_prefill_s / shape.pp
    if rho >= 1:
        return _saturated(f"{n:,} users keep the replica prefilling ({rho:.2f} of its time)",
                          prefill_load=rho)  # fmt: skip
    tpot = t_d / (1 - rho)
    queue = (n - b) / lam if n > b else 0.0
    ttft = shape.t_prefill_s + t_d + queue  # its prefill joins the next step, after this one
    ttft_q = {k: ttft for k in Q}
    return LoadEval(ttft_q, dict.fromkeys(Q, tpot), False, None, "analytic", float(b), rho,
                    requests_per_s=lam)  # fmt: skip


def kv_transfer_s(dep: Deployment, prompt: int) -> float:
    """Time to send one prompt's KV from a prefill replica to a decode replica [s]: each GPU
    sends its own shard (the busiest GPU's KV of one ``prompt``-token sequence) at once, one
    point-to-point send over the scale-out network (the scale-up link without one)."""
    from calc.deploy.parallel import p2p_time_s

    hw = dep.hardware
    shard = float(dep.per_gpu.kv_bytes_per_sequence(prompt))
    if hw.scale_out is not None:
        return p2p_time_s(shard, hw.scale_out.bandwidth_bytes_per_s, hw.scale_out.latency_s)
    return p2p_time_s(shard, hw.interconnect_bandwidth_bytes_per_s, hw.interconnect_latency_s)


def disaggregated_eval(
    dep: Deployment,
    load: Load,
    x: int,
    y: int,
    *,
    efficiency: str = "expected",
    decode: Deployment | None = None,
) -> LoadEval:
    """x prefill replicas of ``dep`` and y decode replicas of ``decode`` (default ``dep``)
    under ``load``, analytic (module docstring)."""
    dec_dep = dep if decode is None else decode
    shape = _shape(dep, load, efficiency)
    dshape = shape if decode is None else _shape(dec_dep, load, efficiency)
    if shape is None or dshape is None:
        return _saturated(f"not one sequence of {load.prompt + load.gen:,} tokens fits")
    lam = load.rate_per_s
    rho = lam / x * shape.t_prefill_s / shape.pp
    if rho >= 1:
        return _saturated(f"prefill load {rho:.2f} on {x} prefill replica(s)", prefill_load=rho)
    dec = _decode(dshape, lam / y, load.gen, 0.0)
    if dec is None:
        return _saturated(
            f"{y} decode replica(s) cannot hold the decode batch the rate needs",
            prefill_load=rho,
        )
    n_star, tpot = dec
    move = kv_transfer_s(dep, load.prompt)
    ttft = _ttft(shape, lam / x, load.new_prompt, 0.0, rho, move, chunked=False)
    return LoadEval(ttft, tpot, False, None, "analytic", n_star, rho, move, requests_per_s=lam)


# ---------------------------------------------------------------------------------------------
# The simulation


def simulation_available() -> bool:
    """Whether the serving simulation (``calc.serve.simulate``) is installed in this tree."""
    import importlib.util

    try:
        return importlib.util.find_spec("calc.serve.simulate") is not None
    except ModuleNotFoundError:
        return False


def one_replica(dep: Deployment) -> Deployment:
    """``dep`` as one replica (dp 1 without expert parallelism; under EP a replica is the whole
    expert group, its dp the attention ranks inside it)."""
    if dep.ep > 1 or dep.dp == 1:
        return dep
    return dep.rebuilt(dp=1)


def simulated_eval(
    dep: Deployment,
    load: Load,
    replicas: int = 1,
    *,
    seed: int = 0,
    efficiency: str = "expected",
    max_requests: int | None = None,
) -> LoadEval:
    """``replicas`` copies of the one-replica ``dep`` under ``load`` by the serving simulation
    (module docstring)."""
    return simulate_load(
        dep, load, replicas, seed=seed, efficiency=efficiency, max_requests=max_requests
    )


def evaluator(
    method: str = "auto",
    *,
    seed: int = 0,
    efficiency: str = "expected",
    max_requests: int | None = None,
) -> Evaluator:
    """The evaluator ``method`` names: the simulation, the analytic estimate, or ``auto`` (the
    simulation where installed)."""
    from calc.errors import InvalidInputError, not_one_of

    if method not in METHODS:
        raise InvalidInputError(not_one_of("--method", method, METHODS))
    if method == "simulation" and not simulation_available():
        raise InvalidInputError("--method simulation: the serving simulation is not installed")
    if method == "analytic" or (method == "auto" and not simulation_available()):
        return analytic_evaluator(efficiency)

    def evaluate(dep: Deployment, load: Load, replicas: int = 1) -> LoadEval:
        return simulated_eval(
            dep, load, replicas, seed=seed, efficiency=efficiency, max_requests=max_requests
        )

    def unless_missed(dep: Deployment, load: Load, replicas: int, ttft_s: float,
                      tpot_s: float) -> LoadEval | None:  # fmt: skip
        """``evaluate``'s answer, or None once a p99 is sure to exceed ``ttft_s`` or
        ``tpot_s`` (the run stopped early: a pass-or-fail question only)."""
        return simulate_load(dep, load, replicas, seed=seed, efficiency=efficiency,
                             max_requests=max_requests, miss_limits=(ttft_s, tpot_s))  # fmt: skip

    evaluate.method = "simulation"  # type: ignore[attr-defined]
    evaluate.builtin = True  # type: ignore[attr-defined]  # stateless: may run in a worker
    evaluate.unless_missed = unless_missed  # type: ignore[attr-defined]
    return evaluate


def analytic_evaluator(efficiency: str = "expected") -> Evaluator:
    """The analytic estimate as an evaluator: one replica at rate / replicas (the rate it
    reports is the whole deployment's: the replicas' together)."""

    def evaluate(dep: Deployment, load: Load, replicas: int = 1) -> LoadEval:
        ev = analytic_eval(dep, load.per_replica(replicas), efficiency=efficiency)
        if ev.requests_per_s is None or replicas == 1:
            return ev
        return replace(ev, requests_per_s=ev.requests_per_s * replicas)

    evaluate.method = "analytic"  # type: ignore[attr-defined]
    evaluate.builtin = True  # type: ignore[attr-defined]
    return evaluate


def evaluate_deployment(dep: Deployment, load: Load, evaluate: Evaluator) -> LoadEval:
    """A whole deployment (its replicas) under ``load``."""
    return evaluate(one_replica(dep), load, dep.replicas)


# ---------------------------------------------------------------------------------------------
# The simulation as an evaluator: the R-replica deployment (round-robin; under EP one replica at
# rate / R), fixed prompt and output lengths, Poisson arrivals; a replica's iteration-time table
# is built once and reused for every replica count.

_TABLES: dict = {}  # id(one-replica deployment) -> (deployment, efficiency, step table)


def _table(dep: Deployment, efficiency: str, max_ctx: int):
    from calc.serve.steptime import step_table

    key = (id(dep), efficiency, max_ctx)
    hit = _TABLES.get(key)
    if hit is None or hit[0] is not dep:
        if len(_TABLES) > 64:
            _TABLES.clear()
        hit = (dep, step_table(dep, efficiency, max_ctx=max_ctx))
        _TABLES[key] = hit
    return hit[1]


class DecodeOnlyStep:
    """The iteration time of a decode pool [s]: the prompt's KV arrives by transfer, so a
    request's prefill chunks cost nothing (its blocks are still allocated, its keys still
    attended); everything else as the step table (``calc.serve.steptime``) times it."""

    def __init__(self, table) -> None:
        self.table = table

    def decode_s(self, b: int) -> float:
        return self.table.decode_s(b)

    def ctx_slope(self, b: int) -> float:
        return self.table.ctx_slope(b)

    def loop_floor_s(self, b: int) -> float:
        return self.table.loop_floor_s(b)

    def iteration_s(self, b, ctx_sum, chunks, rows) -> float:
        if b:
            return self.table.iteration_s(b, ctx_sum, (), b)
        return 1e-6  # a pass that only lands transferred KV: no compute


def _spec(load: Load, rate, n: int, *, gen_one: bool = False):
    """The requests the simulation serves: the load's lengths (or trace), ``n`` of them."""
    from calc.serve.workload import LengthDist, LoadSpec

    one = LengthDist.fixed(1) if gen_one else None
    if load.trace is not None:
        return LoadSpec(rate_per_s=rate, arrival=load.trace, prompt=load.prompt_dist,
                        gen=one or load.gen_dist, prefix_shared_fraction=load.prefix_shared,
                        n_requests=min(n, len(load.trace)))  # fmt: skip
    return LoadSpec(
        rate_per_s=rate,
        arrival="constant" if load.closed else "poisson",
        prompt=load.prompt_dist or LengthDist.fixed(load.prompt),
        gen=one or load.gen_dist or LengthDist.fixed(load.gen),
        prefix_shared_fraction=load.prefix_shared,
        n_requests=n,
    )


def simulate_load(
    dep: Deployment,
    load,
    replicas: int = 1,
    *,
    seed: int = 0,
    efficiency: str = "expected",
    max_requests: int | None = None,
    pool: str = "serve",
    miss_limits: tuple[float, float] | None = None,
):
    """``replicas`` copies of ``dep`` serving ``load`` by the serving simulation: ``pool``
    "serve" (aggregated), "prefill" (a disaggregated prefill pool: every request one output
    token, its TTFT) or "decode" (a decode pool: prefill free, the front-end time elsewhere).
    A closed loop (``load.concurrency``) sends every request at once behind a client that
    keeps ``concurrency`` of them open (vLLM's --max-concurrency); it never saturates.
    ``miss_limits`` (p99 TTFT, TPOT [s]): None where the run stopped once one was sure to be
    exceeded (``calc.serve.sure_miss``)."""
    import numpy as np

    from calc.serve.simulate import (
        deployment_limits,
        front_end_s,
        groups_of,
        request_latency_s,
        simulate_requests,
    )

    rate = load.rate_per_s
    users = load.concurrency
    target = dep
    if replicas > 1:
        if dep.ep > 1:  # a replica is a whole expert group: one of them at rate / replicas
            if load.closed:
                users = max(1, math.ceil(users / replicas))
            else:
                rate /= replicas
        else:
            target = replace(dep, dp=replicas)
    if load.closed:
        n = max_requests or min(20_000, max(DEFAULT_REQUESTS, 3 * users))
        rate = 1e6  # every request sent at once; the client's concurrency paces them
    else:
        n = max_requests or DEFAULT_REQUESTS
    arrival, prompt, gen = _requests(load, rate, n, pool == "prefill", seed)
    table = _table(dep, efficiency, load.longest + 1)
    step = DecodeOnlyStep(table) if pool == "decode" else table
    # a sequence group's limits: the same for dep and target, which differ only in dp (replicas
    # of the same GPUs; nothing deployment_limits reads depends on it), from dep's ledger, built
    # once (target is a new deployment whose ledger and KV pool would be predicted again)
    limits = deployment_limits(dep, float((prompt + gen).mean()))
    if limits.pool_blocks <= 0:
        return _saturated("no KV pool", "simulation")
    res = simulate_requests(
        arrival, prompt, gen, limits=limits, step=step, groups=groups_of(target),
        prefix_shared_fraction=load.prefix_shared,
        front_s=None if pool == "decode" else front_end_s(table, prompt),
        max_in_flight=users if load.closed else None,
        request_s=0.0 if pool == "decode" else request_latency_s(dep),
        tokens=False,
        miss_limits=miss_limits,
    )  # fmt: skip
    if res is None:  # a sure miss: stopped early
        return None
    served = float(res.requests_per_s) if load.closed else load.rate_per_s
    if load.closed and target is dep and replicas > 1:  # one expert group of the replicas
        served *= replicas
    del np
    return _sim_eval(res, load, served)


_SAMPLES: dict = {}  # (id(load), rate, n, gen_one, seed) -> (load, (arrival, prompt, gen))


def _requests(load: Load, rate, n: int, gen_one: bool, seed: int):
    """``sample_requests`` of the load's spec (``_spec``), drawn once per load, rate, count and
    seed: a search asks for the same requests at every replica count (the draw is seeded: the
    same arrays). Read-only, shared by the runs that ask."""
    from calc.serve.workload import sample_requests

    key = (id(load), rate, n, gen_one, seed)
    hit = _SAMPLES.get(key)
    if hit is None or hit[0] is not load:
        if len(_SAMPLES) > 64:
            _SAMPLES.clear()
        arrays = sample_requests(_spec(load, rate, n, gen_one=gen_one), seed)
        for a in arrays:
            a.flags.writeable = False
        hit = _SAMPLES[key] = (load, arrays)
    return hit[1]


def _sim_eval(res, load: Load, served: float) -> LoadEval:
    """A simulation's result (``calc.serve.simulate.SimResult``) as the plan's evaluation;
    ``served``: the requests/s it reports."""
    if res.ttft_s.get("p99") is None:
        inf = dict.fromkeys(("p50", "p90", "p99"), math.inf)
        why = f"the simulation served no request ({res.rejected:,} refused: longer than the pool"
        return LoadEval(inf, dict(inf), True, why + " or the max model length)", "simulation")
    saturated = bool(res.saturated) and not load.closed
    reason = res.saturation_reason if saturated else None
    return LoadEval(
        {k: res.ttft_s[k] for k in ("p50", "p90", "p99")},
        # no request of two or more output tokens (gen 1): no time between tokens
        {k: res.tpot_s.get(k) or 0.0 for k in ("p50", "p90", "p99")},
        saturated,
        reason or ("the queue grows without bound" if saturated else None),
        "simulation",
        decode_batch=None,
        prefill_load=None,
        requests_per_s=served,
    )


def simulated_disaggregated_eval(
    prefill: Deployment,
    decode: Deployment,
    load: Load,
    x: int,
    y: int,
    *,
    seed: int = 0,
    efficiency: str = "expected",
    max_requests: int | None = None,
) -> LoadEval:
    """x prefill replicas of ``prefill`` and y decode replicas of ``decode`` by the serving
    simulation: the prefill pool serves every request with one output token (its p99 TTFT, plus
    the KV transfer), the decode pool the same arrivals with their prefill free (its p99
    TPOT)."""
    kw = dict(seed=seed, efficiency=efficiency, max_requests=max_requests)
    p = _pool_eval(prefill, load, x, "prefill", kw)
    if p.saturated:
        return replace(p, reason=f"prefill pool: {p.reason}")
    d = _pool_eval(decode, load, y, "decode", kw)
    if d.saturated:
        return replace(d, reason=f"decode pool: {d.reason}")
    move = kv_transfer_s(prefill, load.prompt)
    return LoadEval({k: v + move for k, v in p.ttft_s.items()}, d.tpot_s, False, None,
                    "simulation", kv_transfer_s=move, requests_per_s=load.rate_per_s)  # fmt: skip


_POOLS: dict = {}  # (id(deployment), id(load), replicas, pool, settings) -> (dep, load, eval)


def _pool_eval(dep: Deployment, load: Load, replicas: int, pool: str, kw: dict) -> LoadEval:
    """``simulate_load`` of one disaggregated pool, once per deployment, load, count and
    settings: the sizing of x prefill + y decode replicas asks for the same pool again with the
    other pool's count changed (the simulation is seeded: the same answer)."""
    key = (id(dep), id(load), replicas, pool, tuple(sorted(kw.items())))
    hit = _POOLS.get(key)
    if hit is None or hit[0] is not dep or hit[1] is not load:
        if len(_POOLS) > 256:
            _POOLS.clear()
        hit = (dep, load, simulate_load(dep, load, replicas, pool=pool, **kw))
        _POOLS[key] = hit
    return hit[2]
