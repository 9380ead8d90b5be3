"""`kvcalc plan`: the cheapest deployments that serve a request rate within latency targets.

Given model(s), a load (requests/s of ``prompt`` input and ``gen`` output tokens) and SLOs
(p99 TTFT and p99 TPOT), the search tries each family of ``calc.reports.plan_space`` (model ×
hardware × dtypes × tp/pp/ep × engine) and picks its replica count, in two stages so that a
whole plan stays interactive:

(a) **analytic screen**, every family (a few ms each):

    - fits: one request of prompt + gen tokens fits the KV pool (the ledger), else
      ``does not fit``;
    - latency bounds: the prefill of one prompt alone (TTFT) and a decode step of one sequence
      at prompt + gen (TPOT) are the least any load can see; above the SLO: ``SLO ttft`` /
      ``SLO tpot``;
    - replicas: a replica serves at most C tokens/s (``calc.reports.throughput``'s steady state
      with prefill charged, (output + input tokens/s per GPU) × GPUs per replica), run at a
      utilisation cap u (0.8: queues grow without bound as utilisation nears 1):

          replicas_min = ⌈ rate × (prompt + gen) / (u × C) ⌉

    - price: replicas × GPUs per replica × USD per GPU-hour (``calc.reports.tco``); above
      ``--budget-usd-per-hour`` or ``--max-gpus``: ``budget``.

(b) **load evaluation**, the cheapest survivors (by their lower-bound price: the
    ``simulate_top`` cheapest, then, up to as many again, any whose lower bound is below the
    best price found so far): the evaluator (the serving simulation, or the analytic queueing
    estimate of ``calc.reports.plan_eval``) gives the p99 TTFT and TPOT of one replica at
    rate / replicas; replicas grow (by a quarter, at least one) until both p99s meet the SLOs,
    then the least passing count is found by bisection. A family still missing at 4 ×
    replicas_min + 8 replicas (or at the budget's limit) is rejected with the last reason:
    ``saturated``, ``SLO ttft``, ``SLO tpot`` (or ``budget``).

For each evaluated shape a **disaggregated** family (xPyD: x prefill-only and y decode-only
replicas of the same shape, the prompt's KV sent between them) is sized analytically
(``calc.reports.plan_eval.disaggregated_eval``): the least x whose p99 TTFT meets the SLO and
the least y whose p99 TPOT does.

Ranking: by the deployment's USD per hour, then GPUs, then simulated before analytic rows
(the simulation decides; the analytic estimate is cautious), then p99 TPOT. USD per million
tokens at the offered load split the GPU time between prompt and output tokens: aggregated by
the prefill share of the steady-state serving cycle (prefill_s / cycle_s), disaggregated by the
pools (x / (x + y) to the prompts):

    usd_per_million_input_tokens_at_load  = USD/h × share / 3600 / (rate × prompt) × 10^6
    usd_per_million_output_tokens_at_load = USD/h × (1 − share) / 3600 / (rate × gen) × 10^6
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from calc.deploy.deployment import Deployment
from calc.errors import InvalidInputError, KvcalcError
from calc.output.derivation import Figure
from calc.reports.plan_eval import Evaluator, Load, LoadEval
from calc.reports.plan_space import DtypeChoice
from calc.reports.tco import Pricing

SECONDS_PER_HOUR = 3600
UTILISATION_CAP = 0.8
REASONS = ("does not fit", "SLO ttft", "SLO tpot", "budget", "saturated")
GROWTH_LIMIT = (4, 8)  # replicas tried up to 4 × replicas_min + 8
MAX_DISAGG_REPLICAS = 256


@dataclass(frozen=True, kw_only=True)
class Slo:
    """Latency targets at the 99th percentile [s]."""

    ttft_p99_s: float
    tpot_p99_s: float


@dataclass(frozen=True, kw_only=True)
class PlanQuery:
    """What to plan: models, load, SLOs, the space and the limits."""

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

    def __post_init__(self) -> None:
        from calc.data.limits import MAX_CTX, check_positive_int
        from calc.deploy.engines import NAMES as ENGINE_NAMES

        if not self.models:
            raise InvalidInputError("--model: give at least one model")
        r = self.load.rate_per_s
        if isinstance(r, bool) or not isinstance(r, int | float) or not 0 < r <= 1e6:
            raise InvalidInputError(f"--rate must be in (0, 1e6] requests/s, got {r!r}")
        check_positive_int("prompt", self.load.prompt, MAX_CTX)
        check_positive_int("gen", self.load.gen, MAX_CTX)
        for name in self.engines:
            if name not in ENGINE_NAMES:
                raise InvalidInputError(
                    f"--engine {name!r} is not one of: {', '.join(ENGINE_NAMES)}"
                )
        if self.max_gpus is not None:
            check_positive_int("max-gpus", self.max_gpus, 1_000_000)
        b = self.budget_usd_per_hour
        if b is not None and (isinstance(b, bool) or not 0 < b <= 1e9):
            raise InvalidInputError(f"--budget-usd-per-hour must be in (0, 1e9], got {b!r}")
        check_positive_int("top", self.top, 10_000)
        from calc.deploy.rates import check_efficiency

        check_efficiency(self.efficiency)
        if not 0 < self.utilisation_cap <= 1:
            raise InvalidInputError("the utilisation cap must be in (0, 1]")


@dataclass(frozen=True)
class Family:
    """One deployment family: model, hardware, dtypes, sharding, engine (replicas apart)."""

    model: object  # ModelConfig
    hardware: object  # HardwareProfile
    dtypes: DtypeChoice
    tp: int
    pp: int
    ep: int
    engine: str

    def label(self) -> dict:
        return {
            "model": self.model.name,
            "hardware": self.hardware.name,
            "dtypes": self.dtypes.label,
            "tp": self.tp,
            "pp": self.pp,
            "ep": self.ep,
            "engine": self.engine,
        }


@dataclass(frozen=True)
class Screened:
    """A family that passed the analytic screen, with its bounds."""

    family: Family
    dep: Deployment  # one replica
    usd_per_gpu_hour: float
    replica_tokens_per_s: float  # C: steady-state tokens/s of one replica
    replicas_min: int
    prefill_share: float  # prefill_s / cycle_s of the steady state
    ttft_bound_s: float
    tpot_bound_s: float

    @property
    def gpus_per_replica(self) -> int:
        return self.dep.gpus

    def usd_per_hour(self, replicas: int) -> float:
        return replicas * self.gpus_per_replica * self.usd_per_gpu_hour


@dataclass(frozen=True)
class Choice:
    """A ranked answer: a screened family at a replica count (or x prefill + y decode
    replicas) with its evaluated latencies."""

    screened: Screened
    mode: str  # "aggregated" or "disaggregated"
    replicas: int  # aggregated: replicas; disaggregated: x + y
    evaluation: LoadEval
    prefill_replicas: int | None = None
    decode_replicas: int | None = None

    @property
    def gpus(self) -> int:
        return self.replicas * self.screened.gpus_per_replica

    @property
    def usd_per_hour(self) -> float:
        return self.screened.usd_per_hour(self.replicas)

    def sort_key(self):
        # at one price a simulated row ranks before an analytic one (the simulation decides;
        # the analytic estimate is cautious), then the lower p99 TPOT
        simulated = self.evaluation.method == "simulation"
        return (self.usd_per_hour, self.gpus, not simulated, self.evaluation.tpot_p99_s, self.mode)


@dataclass(frozen=True)
class Rejection:
    family: Family
    mode: str
    reason: str  # one of REASONS
    detail: str
    dep: Deployment | None = None

    def row(self) -> dict:
        d = self.dep
        return {
            **_family_fields(self.family, d),
            "mode": self.mode,
            "reason": self.reason,
            "detail": self.detail,
        }


def _family_fields(f: Family, dep: Deployment | None) -> dict:
    return {
        "model": f.model.name,
        "hardware": f.hardware.name,
        "weight_dtype": dep.weight_dtype if dep is not None else f.dtypes.weight_dtype,
        "kv_dtype": dep.kv_dtype if dep is not None else f.dtypes.kv_dtype,
        "tp": f.tp,
        "pp": f.pp,
        "ep": f.ep,
        "engine": f.engine,
        "calibrated": is_calibrated(f.hardware),
    }


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
    return usd_per_hour * share / SECONDS_PER_HOUR / tokens_per_s * 1e6


def headroom(value_s, slo_s):
    """Fraction of the SLO left: 1 − value / SLO (negative: missed)."""
    return 1 - value_s / slo_s


# ---------------------------------------------------------------------------------------------
# The space


def _families(query: PlanQuery) -> list[Family]:
    from calc.data.registry import hardware_names, load_hardware, load_model
    from calc.reports.plan_space import dtype_choices, parallel_layouts

    models = [load_model(m) for m in query.models]
    names = query.hardware if query.hardware else tuple(hardware_names())
    hws = [load_hardware(h) for h in names]
    if query.calibration is not None:
        hws = calibrated_profiles(hws, query.calibration)
    out = []
    for cfg in models:
        for hw in hws:
            for dt in dtype_choices(cfg, hw):
                for tp, pp, ep in parallel_layouts(cfg, hw):
                    for engine in query.engines:
                        out.append(Family(cfg, hw, dt, tp, pp, ep, engine))
    return out


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


def is_calibrated(hw) -> bool:
    """Whether a profile carries a calibration file's figures (bands or a step calibration)."""
    return hw.step_calibration is not None or hw.efficiency.source.startswith("calibration")


def model_len(cfg, load: Load) -> int:
    """The engine's max model length: the longest request, at most the model's context limit
    (a longer sampled request is refused, as the engine refuses it)."""
    return min(load.longest, cfg.max_ctx) if cfg.max_ctx else load.longest


def build(f: Family, load: Load) -> Deployment | None:
    """The one-replica deployment of ``f`` (engine max_model_len = the longest request), or
    None where the model's shape does not allow the layout."""
    from calc.deploy.deployment import EngineSettings
    from calc.errors import KvcalcError

    settings = EngineSettings(name=f.engine, max_model_len=model_len(f.model, load))
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
        )
    except KvcalcError:
        return None


# ---------------------------------------------------------------------------------------------
# (a) the analytic screen


def _limit_replicas(query: PlanQuery, s: Screened) -> int | None:
    """Most replicas the budget and --max-gpus allow (None: no limit)."""
    lim = None
    if query.max_gpus is not None:
        lim = query.max_gpus // s.gpus_per_replica
    if query.budget_usd_per_hour is not None:
        b = int(query.budget_usd_per_hour // (s.gpus_per_replica * s.usd_per_gpu_hour))
        lim = b if lim is None else min(lim, b)
    return lim


def _budget_detail(query: PlanQuery, s: Screened, replicas: int) -> str:
    gpus = replicas * s.gpus_per_replica
    usd = s.usd_per_hour(replicas)
    parts = []
    if query.max_gpus is not None and gpus > query.max_gpus:
        parts.append(f"{gpus:,} GPUs > --max-gpus {query.max_gpus:,}")
    if query.budget_usd_per_hour is not None and usd > query.budget_usd_per_hour:
        parts.append(f"${usd:,.2f}/h > --budget-usd-per-hour {query.budget_usd_per_hour:g}")
    return f"needs ≥ {replicas:,} replica(s): " + "; ".join(parts)


def screen(query: PlanQuery, f: Family, dep: Deployment) -> Screened | Rejection:
    """Stage (a) for one family (module docstring)."""
    from calc.deploy.steps import step_of
    from calc.reports.throughput import serving_throughput

    load, slo = query.load, query.slo
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
    ttft = float(step_of(dep, eff, batch=1, prompt=p).time_s)
    if ttft > slo.ttft_p99_s:
        return Rejection(
            f,
            "aggregated",
            "SLO ttft",
            f"prefill of one prompt alone {ttft * 1e3:,.1f} ms > {slo.ttft_p99_s * 1e3:g} ms",
            dep,
        )
    tpot = float(step_of(dep, eff, batch=1, ctx=p + g).time_s)
    if tpot > slo.tpot_p99_s:
        return Rejection(
            f,
            "aggregated",
            "SLO tpot",
            f"decode step of one sequence {tpot * 1e3:,.2f} ms > {slo.tpot_p99_s * 1e3:g} ms",
            dep,
        )
    serving = serving_throughput(dep, prompt=p, gen=g, efficiency=eff)
    if serving is None:  # the mean request longer than the model's limit, which did fit
        return Rejection(f, "aggregated", "does not fit",
                         f"one {p + g:,}-token request does not fit the KV pool", dep)  # fmt: skip
    per_gpu = serving.output_tokens_per_s_per_gpu + serving.input_tokens_per_s_per_gpu
    cap = per_gpu * dep.gpus
    r0 = replicas_needed(load.rate_per_s, p + g, cap, query.utilisation_cap)
    price = query.pricing.usd_per_gpu_hour(f.hardware)
    s = Screened(f, dep, price, cap, r0, serving.prefill_s / serving.cycle_s, ttft, tpot)
    lim = _limit_replicas(query, s)
    if lim is not None and r0 > lim:
        return Rejection(f, "aggregated", "budget", _budget_detail(query, s, r0), dep)
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


def _miss_detail(reason: str, ev: LoadEval, slo: Slo, replicas: int) -> str:
    at = f"at {replicas:,} replica(s)"
    if reason == "saturated":
        return f"{at}: {ev.reason or 'the queue grows without bound'}"
    if reason == "SLO ttft":
        return f"{at}: p99 TTFT {ev.ttft_p99_s * 1e3:,.1f} ms > {slo.ttft_p99_s * 1e3:g} ms"
    return f"{at}: p99 TPOT {ev.tpot_p99_s * 1e3:,.2f} ms > {slo.tpot_p99_s * 1e3:g} ms"


def grow(
    query: PlanQuery, s: Screened, evaluate: Evaluator, guide: Evaluator | None = None
) -> Choice | Rejection:
    """The least replica count (from replicas_min) whose p99s meet the SLOs (module
    docstring), or the rejection with the last reason. A ``guide`` (a cheap evaluator: the
    analytic estimate) picks where the evaluation starts; the answer is ``evaluate``'s."""
    slo, load = query.slo, query.load
    a, b = GROWTH_LIMIT
    lim = _limit_replicas(query, s)
    cap = a * s.replicas_min + b if lim is None else min(a * s.replicas_min + b, lim)
    cache: dict[int, LoadEval] = {}

    def at(r: int) -> LoadEval:
        if r not in cache:
            try:
                cache[r] = evaluate(s.dep, load, r)
            except KvcalcError as exc:  # the evaluator cannot serve it at all (no KV pool)
                cache[r] = LoadEval(
                    dict.fromkeys(("p50", "p90", "p99"), math.inf),
                    dict.fromkeys(("p50", "p90", "p99"), math.inf),
                    True,
                    str(exc),
                    "simulation",
                )
        return cache[r]

    def passes(r: int) -> bool:
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
                detail = _miss_detail(reason, ev, slo, r)
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
    (analytic, ``calc.reports.plan_eval.disaggregated_eval``)."""
    from calc.reports.plan_eval import disaggregated_eval

    slo, load, eff = query.slo, query.load, query.efficiency
    fam = s.family
    lim = _limit_replicas(query, s)
    top = MAX_DISAGG_REPLICAS if lim is None else min(MAX_DISAGG_REPLICAS, lim)

    def least(ok) -> int | None:
        # first n in 1..top with ok(n), by doubling then bisection (ok is monotone in n)
        hi = 1
        while hi <= top and not ok(hi):
            hi *= 2
        if hi == 1:
            return 1
        lo, hi = hi // 2, min(hi, top)
        if not ok(hi):
            return None
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        return hi

    def prefill_ok(x: int) -> bool:
        ev = disaggregated_eval(s.dep, load, x, 1_000_000, efficiency=eff)
        return not ev.saturated and ev.ttft_p99_s <= slo.ttft_p99_s

    x = least(prefill_ok)
    if x is None:
        ev = disaggregated_eval(s.dep, load, top, 1_000_000, efficiency=eff)
        reason = "saturated" if ev.saturated else "SLO ttft"
        return Rejection(
            fam, "disaggregated", reason, _miss_detail(reason, ev, slo, top) + " prefill", s.dep
        )

    def decode_ok(y: int) -> bool:
        ev = disaggregated_eval(s.dep, load, x, y, efficiency=eff)
        return not ev.saturated and ev.tpot_p99_s <= slo.tpot_p99_s

    y = least(decode_ok)
    if y is None:
        ev = disaggregated_eval(s.dep, load, x, top, efficiency=eff)
        reason = "saturated" if ev.saturated else "SLO tpot"
        return Rejection(
            fam, "disaggregated", reason, _miss_detail(reason, ev, slo, top) + " decode", s.dep
        )
    if lim is not None and x + y > lim:
        return Rejection(fam, "disaggregated", "budget", _budget_detail(query, s, x + y), s.dep)
    ev = disaggregated_eval(s.dep, load, x, y, efficiency=eff)
    return Choice(s, "disaggregated", x + y, ev, x, y)


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


def choice_row(rank: int, c: Choice, query: PlanQuery) -> dict:
    s, ev, load, slo = c.screened, c.evaluation, query.load, query.slo
    usd = c.usd_per_hour
    share = (c.prefill_replicas / c.replicas) if c.mode == "disaggregated" else s.prefill_share
    return {
        "rank": rank,
        **_family_fields(s.family, s.dep),
        "mode": c.mode,
        "replicas": c.replicas,
        "prefill_replicas": c.prefill_replicas,
        "decode_replicas": c.decode_replicas,
        "gpus_per_replica": s.gpus_per_replica,
        "gpus": c.gpus,
        "usd_per_hour": s.usd_per_gpu_hour,
        "usd_per_hour_per_deployment": usd,
        "usd_per_million_input_tokens_at_load": usd_per_million_tokens_at_load(
            usd, share, load.rate_per_s * load.prompt
        ),
        "usd_per_million_output_tokens_at_load": usd_per_million_tokens_at_load(
            usd, 1 - share, load.rate_per_s * load.gen
        ),
        "ttft_p50_s": ev.ttft_s["p50"],
        "ttft_p99_s": ev.ttft_p99_s,
        "tpot_p50_s": ev.tpot_s["p50"],
        "tpot_p99_s": ev.tpot_p99_s,
        "ttft_p99_headroom": headroom(ev.ttft_p99_s, slo.ttft_p99_s),
        "tpot_p99_headroom": headroom(ev.tpot_p99_s, slo.tpot_p99_s),
        "kv_transfer_s": ev.kv_transfer_s,
        "method": ev.method,
    }


def plan(
    query: PlanQuery, evaluate: Evaluator | None = None, *, method: str = "auto", seed: int = 0
) -> PlanReport:
    """Search the space (module docstring) and rank what meets the SLOs."""
    from calc.reports.launch_flags import launch_commands
    from calc.reports.plan_eval import analytic_evaluator, evaluator

    guide = None
    if evaluate is None:
        evaluate = evaluator(method, seed=seed, efficiency=query.efficiency)
        if getattr(evaluate, "method", None) != "analytic":
            guide = analytic_evaluator(query.efficiency)
    load = query.load
    fams = _families(query)
    survivors: list[Screened] = []
    rejected: list[Rejection] = []
    built = 0
    for f in fams:
        dep = build(f, load)
        if dep is None:
            continue
        built += 1
        out = screen(query, f, dep)
        (survivors if isinstance(out, Screened) else rejected).append(out)
    survivors.sort(
        key=lambda s: (s.usd_per_hour(s.replicas_min), s.gpus_per_replica, s.tpot_bound_s)
    )
    choices: list[Choice] = []
    evaluated: list[Screened] = []
    for i, s in enumerate(survivors):
        # the cheapest simulate_top families; then, up to as many again, any family whose
        # lower-bound price is below the best found so far (it could still win)
        best = min((c.usd_per_hour for c in choices), default=math.inf)
        if i >= query.simulate_top and (
            i >= 2 * query.simulate_top or s.usd_per_hour(s.replicas_min) >= best
        ):
            break
        evaluated.append(s)
        for out in (
            grow(query, s, evaluate, guide),
            disaggregate(query, s) if query.disaggregation else None,
        ):
            if isinstance(out, Choice):
                choices.append(out)
            elif out is not None:
                rejected.append(out)
    choices.sort(key=Choice.sort_key)
    rows = [choice_row(i + 1, c, query) for i, c in enumerate(choices)]
    slo = query.slo
    warnings = []
    unexplored = len(survivors) - len(evaluated)
    for cfg in {f.model.name: f.model for f in fams}.values():
        if cfg.max_ctx and load.longest > cfg.max_ctx >= load.prompt + load.gen:
            warnings.append(
                f"the longest sampled request ({load.longest:,} tokens) exceeds {cfg.name}'s "
                f"context limit {cfg.max_ctx:,}: the engine refuses longer requests, and so "
                "does the simulation (its percentiles are of the requests served)"
            )
    if not choices:
        warnings.append(
            "no deployment meets the targets: see the rejected families (raise the budget, "
            "relax the SLOs or add hardware)"
        )
    fields = {
        "models": [m for m in query.models],
        "rate_per_s": load.rate_per_s,
        "prompt": load.prompt,
        "gen": load.gen,
        "lengths": load.describe(),
        "ttft_p99_slo_s": slo.ttft_p99_s,
        "tpot_p99_slo_s": slo.tpot_p99_s,
        "max_gpus": query.max_gpus,
        "budget_usd_per_hour": query.budget_usd_per_hour,
        "pricing": query.pricing.describe(),
        "efficiency": query.efficiency,
        "method": getattr(evaluate, "method", "injected"),
        "n_families": built,
        "n_screened_out": built - len(survivors),
        "n_evaluated": len(evaluated),
        "n_unexplored": unexplored,
        "rows": rows[: query.top],
        "rejected": [r.row() for r in rejected],
    }
    figs: list[Figure] = []
    launch: list = []
    if choices:
        win = choices[0]
        from calc.reports.plan_explain import explain

        figs = explain(win, query)
        seq_len = model_len(win.screened.dep.model, load)
        if win.mode == "aggregated":
            launch = launch_commands(win.screened.dep, replicas=win.replicas,
                                     max_model_len=seq_len)  # fmt: skip
        else:
            launch = launch_commands(win.screened.dep, max_model_len=seq_len,
                                     prefill=win.prefill_replicas, decode=win.decode_replicas)
        fields["launch_commands"] = [c.to_dict() for c in launch]
    return PlanReport(fields, figs, warnings, choices, rejected, launch)
