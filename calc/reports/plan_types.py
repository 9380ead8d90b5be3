"""The nouns of ``kvcalc plan``'s search: the latency targets, a deployment family, a family
that passed the screen, a ranked choice and a rejection with its reason [s, USD per hour], and
the limit and miss texts both the aggregated and the disaggregated search use."""

from __future__ import annotations

from dataclasses import dataclass

from calc.deploy.deployment import Deployment
from calc.deploy.pricing import PriceChoice
from calc.reports.calibration_mark import is_calibrated
from calc.reports.plan_confidence import Confidence
from calc.reports.plan_eval import LoadEval
from calc.reports.plan_space import DtypeChoice


@dataclass(frozen=True, kw_only=True)
class Slo:
    """Latency targets at the 99th percentile [s]."""

    ttft_p99_s: float
    tpot_p99_s: float

    def over(self, c: Confidence) -> Slo:
        """The targets a predicted p99 must meet so that the pessimistic end meets these."""
        return Slo(ttft_p99_s=self.ttft_p99_s / c.ttft_factor,
                   tpot_p99_s=self.tpot_p99_s / c.tpot_factor)  # fmt: skip


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

    def group(self) -> tuple:
        """What a disaggregated pair shares: model, hardware, dtypes, engine."""
        return (self.model.name, self.hardware.name, self.dtypes, self.engine)


@dataclass(frozen=True)
class Screened:
    """A family that passed the analytic screen, with its bounds, price and margins."""

    family: Family
    dep: Deployment  # one replica
    usd_per_gpu_hour: float
    replica_tokens_per_s: float  # C: steady-state tokens/s of one replica
    replicas_min: int
    prefill_share: float  # prefill_s / cycle_s of the steady state
    ttft_bound_s: float
    tpot_bound_s: float
    price: PriceChoice | None = None
    confidence: Confidence | None = None
    slo: Slo | None = None  # the margined targets the predicted p99s must meet

    @property
    def gpus_per_replica(self) -> int:
        return self.dep.gpus

    def usd_per_deployment_hour(self, replicas: int) -> float:
        """USD per hour of ``replicas`` replicas (per deployment)."""
        return replicas * self.gpus_per_replica * self.usd_per_gpu_hour


@dataclass(frozen=True)
class Choice:
    """A ranked answer: a screened family at a replica count (or x prefill replicas of one
    shape + y decode replicas of another) with its evaluated latencies."""

    screened: Screened
    mode: str  # "aggregated" or "disaggregated"
    replicas: int  # aggregated: replicas; disaggregated: x + y
    evaluation: LoadEval
    prefill_replicas: int | None = None
    decode_replicas: int | None = None
    decode: Screened | None = None  # disaggregated: the decode pool's shape (None: the same)

    @property
    def decode_shape(self) -> Screened:
        return self.decode or self.screened

    @property
    def gpus(self) -> int:
        if self.mode == "disaggregated":
            return (self.prefill_replicas * self.screened.gpus_per_replica
                    + self.decode_replicas * self.decode_shape.gpus_per_replica)  # fmt: skip
        return self.replicas * self.screened.gpus_per_replica

    @property
    def usd_per_hour(self) -> float:
        """USD per hour of the whole deployment."""
        return self.gpus * self.screened.usd_per_gpu_hour

    @property
    def prefill_gpu_share(self) -> float:
        """The share of the GPUs (and of the price) prefilling: the prefill pool's under
        disaggregation, the steady-state cycle's prefill share otherwise."""
        if self.mode == "disaggregated":
            return self.prefill_replicas * self.screened.gpus_per_replica / self.gpus
        return self.screened.prefill_share

    def sort_key(self):
        # at one price a simulated row ranks before an analytic one (the simulation decides;
        # the analytic estimate is cautious), an aggregated one before a disaggregated one (one
        # kind of server to run), then the lower p99 TPOT
        simulated = self.evaluation.method == "simulation"
        return (self.usd_per_hour, self.gpus, not simulated, self.mode != "aggregated",
                self.evaluation.tpot_p99_s)  # fmt: skip


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


def limit_replicas(query, s: Screened) -> int | None:
    """Most replicas the budget and --max-gpus allow (None: no limit)."""
    lim = None
    if query.max_gpus is not None:
        lim = query.max_gpus // s.gpus_per_replica
    if query.budget_usd_per_hour is not None:
        b = int(query.budget_usd_per_hour // (s.gpus_per_replica * s.usd_per_gpu_hour))
        lim = b if lim is None else min(lim, b)
    return lim


def budget_detail(query, s: Screened, replicas: int) -> str:
    gpus = replicas * s.gpus_per_replica
    usd = s.usd_per_deployment_hour(replicas)
    parts = []
    if query.max_gpus is not None and gpus > query.max_gpus:
        parts.append(f"{gpus:,} GPUs > --max-gpus {query.max_gpus:,}")
    if query.budget_usd_per_hour is not None and usd > query.budget_usd_per_hour:
        parts.append(f"${usd:,.2f}/h > --budget-usd-per-hour {query.budget_usd_per_hour:g}")
    return f"needs ≥ {replicas:,} replica(s): " + "; ".join(parts)


def margin_note(c: Confidence, which: str) -> str:
    factor = c.ttft_factor if which == "ttft" else c.tpot_factor
    if factor == 1:
        return ""
    if c.basis == "margin":
        return f" (× {factor:.2f}: --margin)"
    if c.basis == "calibration":
        return f" (× {factor:.2f} at the pessimistic end of the calibration's residual band)"
    if c.basis == "widest" and f"{which.upper()} unvalidated" in c.text:
        return f" (× {factor:.2f}: {c.cls} is unvalidated, the widest band measured)"
    return f" (× {factor:.2f} at the pessimistic end of {c.cls}'s band)"


def miss_detail(reason: str, ev: LoadEval, slo: Slo, replicas: int,
                 conf: Confidence | None = None) -> str:  # fmt: skip
    at = f"at {replicas:,} replica(s)"
    if reason == "saturated":
        return f"{at}: {ev.reason or 'the queue grows without bound'}"
    note = "" if conf is None else margin_note(conf, "ttft" if reason == "SLO ttft" else "tpot")
    if reason == "SLO ttft":
        return (f"{at}: p99 TTFT {ev.ttft_p99_s * 1e3:,.1f} ms > "
                f"{slo.ttft_p99_s * 1e3:,.4g} ms{note}")  # fmt: skip
    return f"{at}: p99 TPOT {ev.tpot_p99_s * 1e3:,.2f} ms > {slo.tpot_p99_s * 1e3:,.4g} ms{note}"
