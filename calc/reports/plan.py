"""`kvcalc plan`: the cheapest deployments that serve a load within latency targets, at one
price basis, with the margins the model's measured error asks for.

Given model(s), a load (requests/s of ``prompt`` input and ``gen`` output tokens, N users in a
closed loop, or a recorded trace) and SLOs (p99 TTFT and p99 TPOT), the search tries each family
of ``calc.reports.plan_space`` (model × hardware × dtypes × tp/pp/ep × engine) and picks its
replica count, in two stages so that a whole plan stays interactive:

(a) **analytic screen**, every family (a few ms each):

    - engine: a release that cannot load the model's architecture (``Engine.cannot_load``:
      Llama 4 on SGLang before 0.4.5) or a layout the engine version cannot start
      (``Engine.cannot_start``: pipeline parallel on SGLang before 0.4.7, attention TP inside
      TensorRT-LLM's attention DP) is ``engine release``, never ranked (a disaggregated
      family likewise where the release has no disaggregated servers:
      ``Engine.cannot_disaggregate``, SGLang before 0.4.5);
    - price: the GPU-hour on the plan's one basis (``calc.deploy.pricing``); a profile with no
      price on it (or only a derived or placeholder one, unless asked for) is left out, said so;
    - margins: the family's class band (``calc.reports.plan_confidence``: vendor × dtype ×
      dense/MoE, the measured error of docs/validation.md) or ``--margin`` turns each SLO into
      the target the *predicted* p99 must meet: SLO / factor, factor = 1 / (1 + p25 of the
      class's signed error) (the widest band measured where the class is unvalidated);
    - fits: one request of prompt + gen tokens fits the KV pool (the ledger), else
      ``does not fit``;
    - latency bounds: the prefill of one prompt alone (TTFT) and a decode step of one sequence
      at prompt + gen (TPOT) are the least any load can see; above the margined SLO:
      ``SLO ttft`` / ``SLO tpot``;
    - replicas: a replica serves at most C tokens/s (``calc.reports.throughput``'s steady state
      with prefill charged, (output + input tokens/s per GPU) × GPUs per replica), run at a
      utilisation cap u (0.8: queues grow without bound as utilisation nears 1):

          replicas_min = ⌈ rate × (prompt + gen) / (u × C) ⌉

      (a closed loop of N users: ⌈ N / sequences one replica holds ⌉);
    - price: replicas × GPUs per replica × USD per GPU-hour; above ``--budget-usd-per-hour`` or
      ``--max-gpus``: ``budget``.

(b) **load evaluation**, the cheapest survivors (by their lower-bound price: the
    ``simulate_top`` cheapest, then, up to as many again, any whose lower bound is below the
    best price those found; families are screened cheapest-first by the least they can cost,
    one replica, and the ones that could not reach this stage are not screened): the
    evaluator (the serving simulation, or the analytic queueing estimate of
    ``calc.reports.plan_eval``) gives the p99 TTFT and TPOT of the deployment at
    R replicas; R grows (by a quarter, at least one) until both p99s meet the margined SLOs,
    then the least passing count is found by bisection. A family still missing at 4 ×
    replicas_min + 8 replicas (or at the budget's limit) is rejected with the last reason:
    ``saturated``, ``SLO ttft``, ``SLO tpot`` (or ``budget``).

**Disaggregated** families (xPyD, ``calc.reports.plan_disagg``): for each model × hardware ×
dtypes × engine of the evaluated survivors, the prefill shape and count (x) and the decode
shape and count (y) are chosen apart, the prompt's KV sent between them; sized analytically,
then checked by the simulation of both pools where it is installed.

Ranking: by the deployment's USD per hour, then GPUs, then simulated before analytic rows
(the simulation decides; the analytic estimate is cautious), then p99 TPOT. A row is ranked
only if its p99s times its factors meet the SLOs. USD per million tokens at the offered load
split the GPU time between prompt and output tokens: aggregated by the prefill share of the
steady-state serving cycle (prefill_s / cycle_s), disaggregated by the pools' GPUs:

    usd_per_million_input_tokens_at_load  = USD/h × share / 3600 / (rate × prompt) × 10^6
    usd_per_million_output_tokens_at_load = USD/h × (1 − share) / 3600 / (rate × gen) × 10^6

and the energy the same way (``calc.reports.tco``): GPUs × board power × PUE. The report's first
line (``answer``) is the winner in one sentence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from calc.deploy.deployment import Deployment
from calc.deploy.pricing import PriceChoice, Pricing
from calc.errors import InvalidInputError, KvcalcError
from calc.output.derivation import Figure
from calc.reports.plan_eval import Evaluator, Load, LoadEval
from calc.reports.plan_types import (
    Choice,
    Family,
    Rejection,
    Screened,
    Slo,
    _family_fields,
    budget_detail,
    is_calibrated,
    limit_replicas,
    margin_note,
    miss_detail,
)

SECONDS_PER_HOUR = 3600
UTILISATION_CAP = 0.8
REASONS = ("does not fit", "SLO ttft", "SLO tpot", "budget", "saturated", "engine release")
GROWTH_LIMIT = (4, 8)  # replicas tried up to 4 × replicas_min + 8
MAX_DISAGG_REPLICAS = 256
MAX_MARGIN = 10.0


def _check_dtype_list(flag: str, names, kind: str) -> None:
    from calc.formulas.quant import kv_format, weight_format
    from calc.reports.plan_space import NATIVE, RELEASED

    if names is None:
        return
    if not names:
        raise InvalidInputError(f"{flag}: give at least one format (e.g. released,fp8)")
    lookup = weight_format if kind == "weight" else kv_format
    for n in names:
        if n in (RELEASED, *NATIVE):
            continue
        lookup(n)  # an unknown format: its error lists the formats


@dataclass(frozen=True, kw_only=True)
class PlanQuery:
    """What to plan: models, load, SLOs, the space, prices, margins and the limits."""

    models: tuple[str, ...]
    load: Load
    slo: Slo
    hardware: tuple[str, ...] | None = None  # None: every shipped profile
    engines: tuple[str, ...] = ("vllm",)
    max_gpus: int | None = None
    budget_usd_per_hour: float | None = None
    pricing: Pricing = field(default_factory=Pricing)
    top: int = 10
    simulate_top: int = 10
    utilisation_cap: float = UTILISATION_CAP
    disaggregation: bool = True
    efficiency: str = "expected"
    # a calibration file (kvcalc measure / kvcalc score --save-calibration): applied to the
    # hardware profile it names; that profile's rows are marked calibrated
    calibration: object = None
    # issue 22: margins, the dtypes allowed, the engine release, the MoE imbalance
    margin: float | None = None  # a uniform margin on both p99s in place of the class bands
    weight_dtypes: tuple[str, ...] | None = None  # None: released + the GPU's native formats
    kv_dtypes: tuple[str, ...] | None = None  # None: released + fp8 where native
    engine_version: str | None = None  # None: the newest release modelled
    moe_imbalance: float | None = None  # None: the published default under EP
    # stated scheduler settings that hold requests back (EngineSettings' names): each family
    # whose engine has the setting runs with it (calc.deploy.engines admission_settings)
    admission: tuple[tuple[str, object], ...] = ()

    def __post_init__(self) -> None:
        from calc.data.limits import MAX_CTX, check_positive_int
        from calc.deploy.engines import NAMES as ENGINE_NAMES
        from calc.deploy.engines import engine_name

        if not self.models:
            raise InvalidInputError("--model: give at least one model")
        r = self.load.rate_per_s
        if not self.load.closed and (
            isinstance(r, bool) or not isinstance(r, int | float) or not 0 < r <= 1e6
        ):
            raise InvalidInputError(f"--rate must be in (0, 1e6] requests/s, got {r!r}")
        check_positive_int("prompt", self.load.prompt, MAX_CTX)
        check_positive_int("gen", self.load.gen, MAX_CTX)
        if any(name not in ENGINE_NAMES for name in self.engines):  # "TRT-LLM" -> trtllm
            object.__setattr__(self, "engines", tuple(engine_name(n) for n in self.engines))
        if self.engine_version is not None and len(self.engines) != 1:
            raise InvalidInputError(
                "--engine-version names one engine's release: give one --engine with it"
            )
        if self.max_gpus is not None:
            check_positive_int("max-gpus", self.max_gpus, 1_000_000)
        b = self.budget_usd_per_hour
        if b is not None and (isinstance(b, bool) or not 0 < b <= 1e9):
            raise InvalidInputError(f"--budget-usd-per-hour must be in (0, 1e9], got {b!r}")
        check_positive_int("top", self.top, 10_000)
        i = self.moe_imbalance  # capped at each family's ep; below 1 no EP family would build
        if i is not None and (isinstance(i, bool) or not 1 <= i < math.inf):
            raise InvalidInputError(
                f"--moe-imbalance must be at least 1 (balanced; capped at each family's ep), "
                f"got {i!r}"
            )
        from calc.deploy.rates import check_efficiency

        check_efficiency(self.efficiency)
        if not 0 < self.utilisation_cap <= 1:
            raise InvalidInputError("the utilisation cap must be in (0, 1]")
        m = self.margin
        if m is not None and (isinstance(m, bool) or not 0 <= m <= MAX_MARGIN):
            raise InvalidInputError(f"--margin must be in [0%, {MAX_MARGIN:.0%}], got {m!r}")
        _check_admission(self.admission, self.engines)
        _check_dtype_list("--weight-dtype", self.weight_dtypes, "weight")
        _check_dtype_list("--kv-dtype", self.kv_dtypes, "kv")
        if self.load.closed and self.disaggregation:
            object.__setattr__(self, "disaggregation", False)  # frozen: set once, here


# ---------------------------------------------------------------------------------------------
# Formulas (plain numbers)


def replicas_needed(rate_per_s, tokens_per_request, replica_tokens_per_s, utilisation_cap):
    """Replicas that carry the rate at the utilisation cap: ⌈rate × tokens / (u × C)⌉, ≥ 1."""
    return max(
        1, math.ceil(rate_per_s * tokens_per_request / (utilisation_cap * replica_tokens_per_s))
    )


def usd_per_million_tokens_at_load(usd_per_hour, share, tokens_per_s):
    """USD per million tokens of one kind at the offered load: USD/h × share / 3600 /
    (tokens/s) × 10^6."""
    from calc.reports.tco import usd_per_million_tokens_at_load as f

    return f(usd_per_hour, share, tokens_per_s)


def headroom(value_s, slo_s):
    """Fraction of the SLO left: 1 − value / SLO (negative: missed)."""
    return 1 - value_s / slo_s


# ---------------------------------------------------------------------------------------------
# The space


@dataclass
class Space:
    """The families of a query, and the profiles left out for want of a price."""

    families: list[Family]
    prices: dict  # hardware name -> PriceChoice
    unpriced: list[tuple[str, str]]  # (hardware name, why)


def _space(query: PlanQuery) -> Space:
    from calc.data.registry import hardware_names, load_hardware, load_model
    from calc.reports.plan_space import dtype_choices, engine_runs_on, parallel_layouts

    models = [load_model(m) for m in query.models]
    names = query.hardware if query.hardware else tuple(hardware_names())
    hws = [load_hardware(h) for h in names]
    if query.calibration is not None:
        hws = calibrated_profiles(hws, query.calibration)
    prices, unpriced, priced = {}, [], []
    for hw in hws:
        p = query.pricing.price_of(hw)
        if p is None:
            unpriced.append((hw.name, query.pricing.missing(hw)))
        else:
            prices[hw.name] = p
            priced.append(hw)
    out = []
    for cfg in models:
        for hw in priced:
            for dt in dtype_choices(cfg, hw, query.weight_dtypes, query.kv_dtypes):
                for tp, pp, ep in parallel_layouts(cfg, hw):
                    for engine in query.engines:
                        if engine_runs_on(engine, hw):
                            out.append(Family(cfg, hw, dt, tp, pp, ep, engine))
    if priced and not any(engine_runs_on(e, hw) for e in query.engines for hw in priced):
        raise InvalidInputError(
            f"--engine {','.join(query.engines)} runs on none of the hardware considered "
            f"({', '.join(f'{hw.name}: {hw.vendor}' for hw in priced)}): add an engine that "
            "runs there (vllm, sglang) or NVIDIA hardware"
        )
    return Space(out, prices, unpriced)


def _families(query: PlanQuery) -> list[Family]:
    """The families of a query (its priced profiles)."""
    return _space(query).families


def _check_admission(stated: tuple, engines: tuple[str, ...]) -> None:
    """Refuse stated admission settings none of the plan's engines has, and values the
    engines refuse (checked once on a default deployment's settings of an engine that has
    them: EngineSettings)."""
    from calc.deploy.deployment import ADMISSION_FLAGS, EngineSettings
    from calc.deploy.engines import engine

    for key, _ in stated:
        takers = [n for n in engines if key in engine(n).admission_settings]
        if not takers:
            raise InvalidInputError(
                f"{ADMISSION_FLAGS[key]} is a setting of none of the engines planned "
                f"({', '.join(engines)}): add the engine that has it, or drop it"
            )
        EngineSettings(name=takers[0], **{k: v for k, v in stated
                                          if k in engine(takers[0]).admission_settings})


def admission_of(engine_name: str, query: PlanQuery | None) -> dict:
    """The stated admission settings ``engine_name``'s families take (the rest belong to
    another engine of the plan)."""
    from calc.deploy.engines import engine

    if query is None:
        return {}
    return {k: v for k, v in query.admission if k in engine(engine_name).admission_settings}


def calibrated_profiles(hws: list, path) -> list:
    """``hws`` with the calibration file at ``path`` applied to the profile it was made on (by
    name); an error when none of them is that profile."""
    from calc.data.calibration import apply_calibration, load_calibration

    cal = load_calibration(path)
    if cal.hardware not in {h.name for h in hws}:
        raise InvalidInputError(
            f"--calibration {path} was made on {cal.hardware!r}, which this plan does not "
            f"consider ({', '.join(h.name for h in hws)}); add it to --hardware"
        )
    return [apply_calibration(h, cal, path) if h.name == cal.hardware else h for h in hws]


def model_len(cfg, load: Load) -> int:
    """The engine's max model length: the longest request, at most the model's context limit
    (a longer sampled request is refused, as the engine refuses it)."""
    return min(load.longest, cfg.max_ctx) if cfg.max_ctx else load.longest


def build(f: Family, load: Load, query: PlanQuery | None = None) -> Deployment | None:
    """The one-replica deployment of ``f`` (engine max_model_len = the longest request), or
    None where the model's shape does not allow the layout."""
    from calc.deploy.deployment import EngineSettings

    version = query.engine_version if query is not None else None
    imbalance = query.moe_imbalance if query is not None and f.ep > 1 else None
    settings = EngineSettings(name=f.engine, version=version,
                              max_model_len=model_len(f.model, load),
                              **admission_of(f.engine, query))  # fmt: skip
    try:
        return Deployment.build(
            f.model,
            f.hardware,
            tp=f.tp,
            pp=f.pp,
            ep=f.ep,
            weight_dtype=f.dtypes.weight_dtype,
            kv_dtype=f.dtypes.kv_dtype,
            engine=settings,
            moe_imbalance=None if imbalance is None else min(imbalance, f.ep),
        )
    except KvcalcError:
        return None


# ---------------------------------------------------------------------------------------------
# (a) the analytic screen


def _alone_too_slow(f: Family, dep: Deployment, conf, kind: str, one_ms: str,
                    slo_s: float) -> Rejection:  # fmt: skip
    """The rejection of a family whose one request alone ("prefill of one prompt alone 812.3",
    in ms) already misses the p99 SLO ``kind`` (ttft, tpot) of ``slo_s`` seconds."""
    why = f"{one_ms} ms > {slo_s * 1e3:,.4g} ms" + margin_note(conf, kind)
    return Rejection(f, "aggregated", f"SLO {kind}", why, dep)


def screen(
    query: PlanQuery, f: Family, dep: Deployment, price: PriceChoice | None = None
) -> Screened | Rejection:
    """Stage (a) for one family (module docstring)."""
    from calc.deploy.steps import step_of
    from calc.reports.plan_confidence import confidence_of
    from calc.reports.throughput import serving_throughput

    # a release older than the model's architecture, or a layout it cannot start: not ranked
    why = dep.engine_model.cannot_load(dep) or dep.engine_model.cannot_start(dep)
    if why is not None:
        return Rejection(f, "aggregated", "engine release", why, dep)
    load = query.load
    if price is None:
        price = query.pricing.price_of(f.hardware)
        if price is None:
            raise InvalidInputError(query.pricing.missing(f.hardware))
    conf = confidence_of(dep, query.margin)
    slo = query.slo.over(conf)
    p, g = load.prompt, load.gen
    limit = f.model.max_ctx
    if limit and p + g > limit:
        return Rejection(f, "aggregated", "does not fit",
                         f"a {p + g:,}-token request exceeds the model's context limit "
                         f"{limit:,}", dep)  # fmt: skip
    longest = model_len(f.model, load)
    seqs = int(dep.per_gpu.max_sequences_per_gpu(longest))
    if seqs < 1:
        budget = dep.per_gpu.kv_budget_bytes
        why = (
            f"weights {dep.per_gpu.weights_bytes / 1e9:,.1f} GB leave no KV budget"
            if budget <= 0
            else f"one {longest:,}-token sequence needs more than the {budget / 1e9:,.2f} GB "
            "KV budget"
        )
        return Rejection(f, "aggregated", "does not fit", why, dep)
    eff = query.efficiency
    ttft = float(step_of(dep, eff, batch=1, prompt=load.new_prompt).time_s)
    if ttft > slo.ttft_p99_s:
        alone = f"prefill of one prompt alone {ttft * 1e3:,.1f}"
        return _alone_too_slow(f, dep, conf, "ttft", alone, slo.ttft_p99_s)
    tpot = float(step_of(dep, eff, batch=1, ctx=p + g).time_s)
    if tpot > slo.tpot_p99_s:
        alone = f"decode step of one sequence {tpot * 1e3:,.2f}"
        return _alone_too_slow(f, dep, conf, "tpot", alone, slo.tpot_p99_s)
    serving = serving_throughput(dep, prompt=load.new_prompt, gen=g, efficiency=eff)
    if serving is None:  # the mean request longer than the model's limit, which did fit
        return Rejection(f, "aggregated", "does not fit",
                         f"one {p + g:,}-token request does not fit the KV pool", dep)  # fmt: skip
    per_gpu = serving.output_tokens_per_s_per_gpu + serving.input_tokens_per_s_per_gpu
    cap = per_gpu * dep.gpus
    if load.closed:
        held = max(1, min(dep.engine_config.max_num_seqs * dep.sharding.dp_attn,
                          seqs * dep.sharding.dp_attn))  # fmt: skip
        r0 = max(1, math.ceil(load.concurrency / held))
    else:
        r0 = replicas_needed(load.rate_per_s, load.new_prompt + g, cap, query.utilisation_cap)
    share = serving.prefill_s / serving.cycle_s
    s = Screened(f, dep, price.usd_per_gpu_hour, cap, r0, share, ttft, tpot, price, conf, slo)
    lim = limit_replicas(query, s)
    if lim is not None and r0 > lim:
        return Rejection(f, "aggregated", "budget", budget_detail(query, s, r0), dep)
    return s


# ---------------------------------------------------------------------------------------------
# (b) the load evaluation


def failure(ev: LoadEval, slo: Slo) -> str | None:
    """Why an evaluation misses: saturated, SLO ttft, SLO tpot; None when it meets both."""
    if ev.saturated:
        return "saturated"
    if ev.ttft_p99_s > slo.ttft_p99_s:
        return "SLO ttft"
    if ev.tpot_p99_s > slo.tpot_p99_s:
        return "SLO tpot"
    return None


def _slo(query: PlanQuery, s: Screened) -> Slo:
    return s.slo if s.slo is not None else query.slo


def _guarded(run) -> LoadEval | None:
    """``run()``'s evaluation, or where the evaluator cannot serve the deployment at all (no KV
    pool: a KvcalcError) a saturated one that says why."""
    try:
        return run()
    except KvcalcError as exc:
        inf = dict.fromkeys(("p50", "p90", "p99"), math.inf)
        return LoadEval(inf, dict(inf), True, str(exc), "simulation")


def grow(
    query: PlanQuery, s: Screened, evaluate: Evaluator, guide: Evaluator | None = None
) -> Choice | Rejection:
    """The least replica count (from replicas_min) whose p99s meet the margined SLOs (module
    docstring), or the rejection with the last reason. A ``guide`` (a cheap evaluator: the
    analytic estimate) picks where the evaluation starts; the answer is ``evaluate``'s."""
    slo, load = _slo(query, s), query.load
    a, b = GROWTH_LIMIT
    lim = limit_replicas(query, s)
    cap = a * s.replicas_min + b if lim is None else min(a * s.replicas_min + b, lim)
    cache: dict[int, LoadEval] = {}
    missed: set[int] = set()  # counts whose run stopped at a sure miss (pass-or-fail only)
    unless_missed = getattr(evaluate, "unless_missed", None)

    def at(r: int) -> LoadEval:
        if r not in cache:
            cache[r] = _guarded(lambda: evaluate(s.dep, load, r))
        return cache[r]

    def passes(r: int) -> bool:
        """Whether r replicas meet the SLOs (the bisection's question): the run may stop once
        a p99 is sure to miss, its figures never used (``at`` runs such a count again)."""
        if r in missed:
            return False
        if r not in cache and unless_missed is not None:
            ev = _guarded(lambda: unless_missed(s.dep, load, r, slo.ttft_p99_s, slo.tpot_p99_s))
            if ev is None:
                missed.add(r)
                return False
            cache[r] = ev
        return failure(at(r), slo) is None

    r, last_fail = s.replicas_min, None
    if guide is not None:
        while r < cap and failure(guide(s.dep, load, r), slo) is not None:
            r = min(cap, r + max(1, r // 4))
        if passes(r):  # the guide may be cautious: the least passing count below it
            lo, hi = s.replicas_min - 1, r
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if passes(mid) else (mid, hi)
            return Choice(s, "aggregated", hi, at(hi))
    while True:
        if r < cap:  # a miss here only moves r on: pass or fail is all it needs
            if passes(r):
                break
        else:
            ev = at(r)
            if failure(ev, slo) is None:
                break
        last_fail = r
        nxt = r + max(1, r // 4)
        if nxt > cap:
            if r < cap:
                nxt = cap
            else:
                reason = failure(ev, slo)
                detail = miss_detail(reason, ev, slo, r, s.confidence)
                if lim is not None and cap == lim:
                    detail += f"; more would exceed the limit ({_limit_text(query)})"
                    return Rejection(s.family, "aggregated", "budget", detail, s.dep)
                return Rejection(s.family, "aggregated", reason, detail, s.dep)
        r = nxt
    if last_fail is not None:  # bisection between the last miss and the first pass
        lo, hi = last_fail, r
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if passes(mid) else (mid, hi)
        r = hi
    return Choice(s, "aggregated", r, at(r))


def _limit_text(query: PlanQuery) -> str:
    parts = []
    if query.max_gpus is not None:
        parts.append(f"--max-gpus {query.max_gpus:,}")
    if query.budget_usd_per_hour is not None:
        parts.append(f"--budget-usd-per-hour {query.budget_usd_per_hour:g}")
    return ", ".join(parts)


def disaggregate(query: PlanQuery, s: Screened) -> Choice | Rejection:
    """The least x prefill + y decode replicas of the screened shape meeting both SLOs
    (analytic; ``calc.reports.plan_disagg`` chooses the two shapes apart)."""
    from calc.reports.plan_disagg import size_pools

    return size_pools(query, s, s, simulate=None)


# ---------------------------------------------------------------------------------------------
# The plan


@dataclass(frozen=True)
class PlanReport:
    fields: dict
    figures: list[Figure]
    warnings: list[str]
    choices: list[Choice]
    rejections: list[Rejection]
    launch: list = field(default_factory=list)  # the winner's commands (calc.deploy.engines)


# families evaluated at once in worker processes (a fork of this one; Linux): the plan's own
# evaluators only (an injected one may keep state in this process); KVCALC_PLAN_WORKERS=1: none
DEFAULT_WORKERS = 2
_JOB: tuple = ()  # (query, families, evaluate, guide) for the forked workers


def _workers(evaluate: Evaluator, n: int) -> int:
    import os
    import sys

    if n < 2 or not sys.platform.startswith("linux") or not getattr(evaluate, "builtin", False):
        return 1
    try:
        want = int(os.environ.get("KVCALC_PLAN_WORKERS", DEFAULT_WORKERS))
    except ValueError:
        want = DEFAULT_WORKERS
    cores = os.cpu_count() or 1
    try:  # a busy machine has no core to spare: a second process only adds its start-up
        free = cores - os.getloadavg()[0]
    except OSError:
        free = cores
    if "KVCALC_PLAN_WORKERS" not in os.environ and free < 1:
        return 1
    return max(1, min(want, n, cores))


def _grow_one(i: int) -> tuple:
    """One family of ``_JOB`` grown in a worker: ("choice", replicas, evaluation) or
    ("rejection", reason, detail) (small, picklable)."""
    query, families, evaluate, guide = _JOB
    out = grow(query, families[i], evaluate, guide)
    if isinstance(out, Choice):
        return ("choice", out.replicas, out.evaluation)
    return ("rejection", out.reason, out.detail)


def evaluate_families(query: PlanQuery, families: list, evaluate: Evaluator,
                      guide: Evaluator | None = None) -> list:  # fmt: skip
    """``grow`` of each family, in order; in ``_workers`` forked processes where that is more
    than one (the same results: each evaluation is seeded)."""
    global _JOB
    n = _workers(evaluate, len(families))
    if n == 1:
        return [grow(query, s, evaluate, guide) for s in families]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _JOB = (query, families, evaluate, guide)
    try:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=n, mp_context=ctx) as pool:
            done = list(pool.map(_grow_one, range(len(families))))
    finally:
        _JOB = ()
    out = []
    for s, (kind, a, b) in zip(families, done, strict=True):
        if kind == "choice":
            out.append(Choice(s, "aggregated", a, b))
        else:
            out.append(Rejection(s.family, "aggregated", a, b, s.dep))
    return out


def _floor_usd(f: Family, price: PriceChoice) -> float:
    """The least a family can cost per hour: one replica, max(tp, ep) × pp GPUs [USD/h]."""
    return max(f.tp, f.ep) * f.pp * price.usd_per_gpu_hour


def _rate_of(c: Choice, load: Load) -> float:
    """Requests/s the deployment serves: the offered rate, or a closed loop's achieved rate."""
    r = c.evaluation.requests_per_s
    return r if r else (load.rate_per_s or 0.0)


def choice_row(rank: int, c: Choice, query: PlanQuery) -> dict:
    from calc.reports.plan_confidence import provenance_items, weakest
    from calc.reports.plan_space import domain_of
    from calc.reports.tco import kwh_per_million_tokens_at_load

    s, ev, load, slo = c.screened, c.evaluation, query.load, query.slo
    conf = s.confidence
    usd = c.usd_per_hour
    share = c.prefill_gpu_share
    rate = _rate_of(c, load)
    d = c.decode_shape
    hw = s.dep.hardware
    multi = c.mode == "disaggregated" or max(s.gpus_per_replica, d.gpus_per_replica) > domain_of(hw)
    price = s.price or PriceChoice(s.usd_per_gpu_hour, "stated", "stated", "")
    items = provenance_items(s.dep, price, multi_node=multi)
    power = query.pricing.power_kw(hw)
    pue = query.pricing.pue
    ttft_f = conf.ttft_factor if conf else 1.0
    tpot_f = conf.tpot_factor if conf else 1.0

    def usd_mtok(part, tokens):
        return usd_per_million_tokens_at_load(usd, part, rate * tokens) if rate else None

    def kwh_mtok(part, tokens):
        if not rate or power is None:
            return None
        return kwh_per_million_tokens_at_load(c.gpus, power, pue, part, rate * tokens)

    pessimistic = (ev.ttft_p99_s * ttft_f, ev.tpot_p99_s * tpot_f)
    return {
        "rank": rank,
        **_family_fields(s.family, s.dep),
        "mode": c.mode,
        "replicas": c.replicas,
        "prefill_replicas": c.prefill_replicas,
        "decode_replicas": c.decode_replicas,
        "decode_tp": d.family.tp if c.mode == "disaggregated" else None,
        "decode_pp": d.family.pp if c.mode == "disaggregated" else None,
        "decode_ep": d.family.ep if c.mode == "disaggregated" else None,
        "gpus_per_replica": s.gpus_per_replica,
        "decode_gpus_per_replica": d.gpus_per_replica if c.mode == "disaggregated" else None,
        "gpus": c.gpus,
        "engine_version": s.dep.engine_config.version,
        "engine_version_asked": s.dep.engine_config.version_unmodelled,
        "checkpoint": s.family.dtypes.checkpoint,
        "needs_checkpoint": s.family.dtypes.needs_checkpoint,
        "usd_per_gpu_hour": s.usd_per_gpu_hour,
        "usd_per_hour_per_deployment": usd,
        "price_basis": price.basis,
        "price_kind": price.kind,
        "price_flagged": price.flagged,
        "requests_per_s": rate,
        "usd_per_million_input_tokens_at_load": usd_mtok(share, load.prompt),
        "usd_per_million_output_tokens_at_load": usd_mtok(1 - share, load.gen),
        "kwh_per_million_input_tokens_at_load": kwh_mtok(share, load.prompt),
        "kwh_per_million_output_tokens_at_load": kwh_mtok(1 - share, load.gen),
        "ttft_p50_s": ev.ttft_s["p50"],
        "ttft_p99_s": ev.ttft_p99_s,
        "tpot_p50_s": ev.tpot_s["p50"],
        "tpot_p99_s": ev.tpot_p99_s,
        "ttft_factor": ttft_f,
        "tpot_factor": tpot_f,
        "ttft_p99_pessimistic_s": pessimistic[0],
        "tpot_p99_pessimistic_s": pessimistic[1],
        "ttft_p99_headroom": headroom(pessimistic[0], slo.ttft_p99_s),
        "tpot_p99_headroom": headroom(pessimistic[1], slo.tpot_p99_s),
        "confidence_class": conf.cls if conf else None,
        "confidence_basis": conf.basis if conf else None,
        "confidence": conf.text if conf else None,
        "weakest_provenance": weakest(items).describe(),
        "kv_transfer_s": ev.kv_transfer_s,
        "method": ev.method,
    }


def release_label(row: dict) -> str:
    """The engine release of a row as said: "0.5.4 (modelled as 0.10.0)" where the one asked
    for is modelled as another (``calc.output.render.modelled_as``)."""
    from calc.output.render import modelled_as

    return modelled_as(row.get("engine_version_asked"), row["engine_version"])


def _ms(x: float) -> str:
    return f"{x * 1e3:,.0f} ms" if x >= 0.1 else f"{x * 1e3:,.1f} ms"


def answer_line(row: dict | None, query: PlanQuery) -> str:
    """The plan's first line: the answer in one sentence."""
    slo = query.slo
    if row is None:
        return (
            f"No deployment meets the targets (p99 TTFT {_ms(slo.ttft_p99_s)}, TPOT "
            f"{_ms(slo.tpot_p99_s)}) at the pessimistic end of its error band: see the rejected "
            "families."
        )
    layout = (
        f"tp{row['tp']}"
        + (f" pp{row['pp']}" if row["pp"] > 1 else "")
        + (f" ep{row['ep']}" if row["ep"] > 1 else "")
    )
    if row["mode"] == "disaggregated":
        dl = f"tp{row['decode_tp']}" + (f" pp{row['decode_pp']}" if row["decode_pp"] > 1 else "")
        dl += f" ep{row['decode_ep']}" if row["decode_ep"] > 1 else ""
        shape = (f"{row['prefill_replicas']} prefill × {layout} + {row['decode_replicas']} "
                 f"decode × {dl}")  # fmt: skip
    else:
        shape = f"{row['replicas']} × {layout}"
    ck = " (needs a quantised checkpoint)" if row["needs_checkpoint"] else ""
    flag = ", flagged price" if row["price_flagged"] else ""
    hw = f"{row['hardware']} (calibrated)" if row.get("calibrated") else row["hardware"]
    return (
        f"{row['gpus']:,} × {hw} ({shape}, {row['weight_dtype']} weights{ck} / "
        f"{row['kv_dtype']} KV) for {row['model']} on {row['engine']} {release_label(row)}, "
        f"${row['usd_per_hour_per_deployment']:,.2f}/h ({row['price_basis']}{flag}): p99 TTFT "
        f"{_ms(row['ttft_p99_s'])}, TPOT {_ms(row['tpot_p99_s'])} (pessimistic "
        f"{_ms(row['ttft_p99_pessimistic_s'])} / {_ms(row['tpot_p99_pessimistic_s'])} against "
        f"{_ms(slo.ttft_p99_s)} / {_ms(slo.tpot_p99_s)}); confidence: {row['confidence']}; "
        f"weakest provenance {row['weakest_provenance']}."
    )


def plan(
    query: PlanQuery, evaluate: Evaluator | None = None, *, method: str = "auto", seed: int = 0
) -> PlanReport:
    """Search the space (module docstring) and rank what meets the margined SLOs: (a) screen
    every family, (b) evaluate the cheapest survivors under load, then rank and explain."""
    guide = None
    if evaluate is None:
        from calc.reports.plan_eval import analytic_evaluator, evaluator

        evaluate = evaluator(method, seed=seed, efficiency=query.efficiency)
        if getattr(evaluate, "method", None) != "analytic":
            guide = analytic_evaluator(query.efficiency)
    space = _space(query)
    if not space.prices:
        raise InvalidInputError(
            "no profile has a price on this basis: " + "; ".join(why for _, why in space.unpriced)
        )
    screening = _screen_families(query, space)
    choices, evaluated = _evaluate_survivors(query, screening, evaluate, guide, seed)
    choices.sort(key=Choice.sort_key)
    rows = [choice_row(i + 1, c, query) for i, c in enumerate(choices)]
    warnings = _plan_warnings(query, space, screening.families, rows)
    fields = _plan_fields(query, space, screening, len(evaluated), rows)
    fields["method"] = getattr(evaluate, "method", "injected")
    figs: list[Figure] = []
    launch: list = []
    if choices:
        win = choices[0]
        from calc.reports.plan_explain import explain

        figs = explain(win, query)
        launch, note = _launch(win, query.load)
        if note:
            warnings.append(note)
        fields["launch_commands"] = [c.to_dict() for c in launch]
    return PlanReport(fields, figs, warnings, choices, screening.rejected, launch)


@dataclass
class _Screening:
    """Stage (a)'s outcome: the families cheapest-first by their one-replica floor, the
    survivors ranked by their lower-bound price, the rejections (stage (b) adds its own),
    the families built and those left unscreened."""

    families: list[Family]
    survivors: list[Screened] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    built: int = 0
    unscreened: int = 0


def _screen_families(query: PlanQuery, space: Space) -> _Screening:
    """Stage (a): each family screened, cheapest floor first. Once the floor of the next
    family is above the bound of the last family the evaluation could reach (2 ×
    simulate_top survivors), no later family can be evaluated, so none is screened."""
    import bisect

    fams = sorted(space.families, key=lambda f: _floor_usd(f, space.prices[f.hardware.name]))
    out = _Screening(fams)
    reach = 2 * query.simulate_top
    bounds: list[float] = []
    for i, f in enumerate(fams):
        if len(bounds) >= reach and _floor_usd(f, space.prices[f.hardware.name]) >= bounds[-1]:
            out.unscreened = len(fams) - i
            break
        dep = build(f, query.load, query)
        if dep is None:
            continue
        out.built += 1
        s = screen(query, f, dep, space.prices[f.hardware.name])
        if isinstance(s, Screened):
            out.survivors.append(s)
            bisect.insort(bounds, s.usd_per_deployment_hour(s.replicas_min))
            del bounds[reach:]
        else:
            out.rejected.append(s)
    out.survivors.sort(
        key=lambda s: (s.usd_per_deployment_hour(s.replicas_min), s.gpus_per_replica,
                       s.tpot_bound_s)
    )  # fmt: skip
    return out


def _evaluate_survivors(
    query: PlanQuery, screening: _Screening, evaluate: Evaluator, guide, seed: int
) -> tuple[list[Choice], list[Screened]]:
    """Stage (b): (the choices, the survivors evaluated). The cheapest simulate_top
    survivors; then, up to as many again, any whose lower-bound price is below the best the
    first ones found (it could still win); then the disaggregated families. Their
    rejections join ``screening.rejected``."""
    survivors, rejected = screening.survivors, screening.rejected
    choices: list[Choice] = []

    def take(outs) -> None:
        for out in outs:
            (choices if isinstance(out, Choice) else rejected).append(out)

    first = survivors[: query.simulate_top]
    take(evaluate_families(query, first, evaluate, guide))
    best = min((c.usd_per_hour for c in choices), default=math.inf)
    more = [
        s
        for s in survivors[query.simulate_top : 2 * query.simulate_top]
        if s.usd_per_deployment_hour(s.replicas_min) < best
    ]
    take(evaluate_families(query, more, evaluate, guide))
    evaluated = first + more
    if query.disaggregation:
        from calc.reports.plan_disagg import disaggregated_choices

        sim = evaluate if getattr(evaluate, "method", None) == "simulation" else None
        best = min((c.usd_per_hour for c in choices), default=math.inf)
        take(disaggregated_choices(query, evaluated, survivors, best, sim, seed=seed))
    return choices, evaluated


def _plan_warnings(query: PlanQuery, space: Space, fams: list[Family], rows: list) -> list[str]:
    """What the plan says beside its ranking: requests past a model's context, an engine
    release not modelled, profiles left unpriced, a winner's price or checkpoint to check,
    or no winner at all."""
    load = query.load
    warnings = []
    over = 0  # models whose context limit is below the mean request: none of theirs can serve
    models = {f.model.name: f.model for f in fams}
    for cfg in models.values():
        if cfg.max_ctx and load.prompt + load.gen > cfg.max_ctx:
            over += 1
            warnings.append(
                f"a {load.prompt + load.gen:,}-token request (--prompt + --gen) exceeds "
                f"{cfg.name}'s context limit {cfg.max_ctx:,}: no deployment of it can serve it"
            )
        elif cfg.max_ctx and load.longest > cfg.max_ctx:
            warnings.append(
                f"the longest sampled request ({load.longest:,} tokens) exceeds {cfg.name}'s "
                f"context limit {cfg.max_ctx:,}: the engine refuses longer requests, and so "
                "does the simulation (its percentiles are of the requests served)"
            )
    if query.engine_version is not None:  # a release kvcalc does not model: say which it used
        from calc.deploy.engines import engine

        for name in query.engines:
            said = engine(name).versions.resolve(query.engine_version).warning
            if said:
                warnings.append(said)
    if query.calibration is not None:  # fitted to another engine, model or dtype: said
        from calc.deploy.calibration_match import grid_note

        grid = ({"engine": r["engine"], "engine_version": r["engine_version"],
                 "model": r["model"], "dtype": r["weight_dtype"]}
                for r in rows if r.get("calibrated"))  # fmt: skip
        said = grid_note(query.calibration, grid)
        if said:
            warnings.append(said)
    for _name, why in space.unpriced:
        warnings.append(f"left out of the ranking: {why}")
    if rows and rows[0]["price_flagged"]:
        warnings.append(
            f"the winner's price is {rows[0]['price_kind']}, not a price of this part "
            "(--derived-prices): check it before you buy"
        )
    if rows and rows[0]["needs_checkpoint"]:
        warnings.append(
            f"the winner runs {rows[0]['weight_dtype']} weights, and {rows[0]['model']} has no "
            "published checkpoint in that format kvcalc knows of: quantise one (NVIDIA ModelOpt, "
            "AMD Quark, llm-compressor) or rule it out with --weight-dtype"
        )
    if not rows and not (models and over == len(models)):  # else said above, per model
        warnings.append(
            "no deployment meets the targets at the pessimistic end of its band: see the "
            "rejected families (raise the budget, relax the SLOs, add hardware or state "
            "--margin)"
        )
    return warnings


def _plan_fields(query: PlanQuery, space: Space, screening: _Screening, n_evaluated: int,
                 rows: list) -> dict:  # fmt: skip
    """The report's fields: the answer, the load and targets, the search's counts, the
    ranked rows and the rejected families (``method`` placed by the caller)."""
    load, slo = query.load, query.slo
    survivors = screening.survivors
    return {
        "answer": answer_line(rows[0] if rows else None, query),
        "models": [m for m in query.models],
        "rate_per_s": load.rate_per_s,
        "concurrency": load.concurrency,
        "prompt": load.prompt,
        "gen": load.gen,
        "prefix_shared": load.prefix_shared,
        "lengths": load.describe(),
        "ttft_p99_slo_s": slo.ttft_p99_s,
        "tpot_p99_slo_s": slo.tpot_p99_s,
        "margin": query.margin,
        "max_gpus": query.max_gpus,
        "budget_usd_per_hour": query.budget_usd_per_hour,
        "price_basis": query.pricing.basis_name,
        "pricing": query.pricing.describe(),
        "unpriced": [n for n, _ in space.unpriced],
        "efficiency": query.efficiency,
        "method": None,
        "n_families": screening.built,
        "n_screened_out": screening.built - len(survivors),
        "n_evaluated": n_evaluated,
        "n_unexplored": len(survivors) - n_evaluated,
        "n_unscreened": screening.unscreened,
        "rows": rows[: query.top],
        "rejected": [r.row() for r in screening.rejected],
    }


def _launch(win: Choice, load: Load) -> tuple[list, str | None]:
    """The winner's commands (the engine wing's), and a note where it has none."""
    from calc.reports.launch_flags import launch_commands

    dep = win.screened.dep
    seq_len = model_len(dep.model, load)
    try:
        if win.mode == "aggregated":
            return launch_commands(dep, replicas=win.replicas, max_model_len=seq_len), None
        x, y = win.prefill_replicas, win.decode_replicas
        pre = launch_commands(dep, max_model_len=seq_len, prefill=x, decode=y)
        if win.decode is None or win.decode is win.screened:
            return pre, None
        dec = launch_commands(win.decode.dep, max_model_len=seq_len, prefill=x, decode=y)
        return ([c for c in pre if "decode" not in c.role]
                + [c for c in dec if "decode" in c.role]), None  # fmt: skip
    except KvcalcError as exc:
        return [], f"no launch command for the winner: {exc}"


__all__ = [
    "REASONS",
    "Choice",
    "Family",
    "PlanQuery",
    "PlanReport",
    "Rejection",
    "Screened",
    "Slo",
    "build",
    "choice_row",
    "disaggregate",
    "grow",
    "is_calibrated",
    "plan",
    "replicas_needed",
    "screen",
    "usd_per_million_tokens_at_load",
]
