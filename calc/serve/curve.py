"""TTFT and TPOT percentiles [s] against the request rate [requests/s] for one deployment: the
curve a capacity planner reads (where the tail latency turns up, where the deployment
saturates). One simulation per rate (``calc.serve.simulate``), the same seed and request
lengths at every rate, one iteration-time table for all."""

from __future__ import annotations

from dataclasses import dataclass

from calc.deploy.deployment import Deployment
from calc.errors import InvalidInputError
from calc.serve.simulate import SimResult, deployment_limits, simulate
from calc.serve.workload import LoadSpec, sample_requests

MAX_RATES = 200


@dataclass(frozen=True)
class RatePoint:
    """One rate of the curve and what the simulation gave there."""

    rate_per_s: float
    result: SimResult


@dataclass(frozen=True)
class LatencyCurve:
    points: tuple[RatePoint, ...]
    load: LoadSpec

    @property
    def rates(self) -> list[float]:
        return [p.rate_per_s for p in self.points]

    def series(self, metric: str, pct: str) -> list[float | None]:
        """``metric`` (ttft_s, tpot_s, e2e_s) at percentile ``pct`` (p50, p90, p99, mean)."""
        return [getattr(p.result, metric)[pct] for p in self.points]

    def max_rate_meeting(self, ttft_slo_s=None, tpot_slo_s=None, pct: str = "p99"):
        """The highest rate of the curve whose ``pct`` TTFT and TPOT meet the SLOs and that is
        not saturated (None if none)."""
        best = None
        for p in self.points:
            r = p.result
            ok = not r.saturated
            if ttft_slo_s is not None:
                ok &= r.ttft_s[pct] is not None and r.ttft_s[pct] <= ttft_slo_s
            if tpot_slo_s is not None:
                ok &= r.tpot_s[pct] is None or r.tpot_s[pct] <= tpot_slo_s
            if ok:
                best = p.rate_per_s
        return best


def parse_rates(text: str, flag: str = "--sweep-rate") -> list[float]:
    """``LO:HI:STEP`` (both ends included) or a comma list ``1,2,5,10`` [requests/s]."""
    import math

    s = str(text).strip()
    try:
        if ":" in s:
            lo, hi, step = (float(x) for x in s.split(":"))
            if not all(math.isfinite(v) for v in (lo, hi, step)) or step <= 0 or hi < lo:
                raise ValueError
            n = math.floor((hi - lo) / step + 1e-9) + 1
            rates = [lo + i * step for i in range(min(n, MAX_RATES + 1))]
        else:
            rates = [float(x) for x in s.split(",") if x.strip()]
    except ValueError:
        raise InvalidInputError(
            f"{flag} {s!r}: expected LO:HI:STEP (e.g. 1:20:1) or a list (1,2,5,10) of requests/s"
        ) from None
    if not rates or len(rates) > MAX_RATES:
        raise InvalidInputError(f"{flag} {s!r}: give 1 to {MAX_RATES} rates")
    for r in rates:
        if not (math.isfinite(r) and 0 < r <= 1e6):
            raise InvalidInputError(f"{flag} {s!r}: rates must be in (0, 1e6] requests/s")
    return sorted(set(rates))


def latency_vs_rate(
    dep: Deployment,
    load: LoadSpec,
    rates,
    seed: int = 0,
    *,
    efficiency: str = "expected",
    max_requests: int | None = None,
) -> LatencyCurve:
    """Simulate ``load`` at each of ``rates`` [requests/s] on ``dep``."""
    from calc.serve.steptime import step_table

    rates = [float(r) for r in rates]
    if not rates:
        raise InvalidInputError("no rates to sweep")
    _, prompt, gen = sample_requests(load.with_rate(rates[0]), seed)
    if max_requests is not None:
        prompt, gen = prompt[:max_requests], gen[:max_requests]
    lengths = prompt + gen
    step = step_table(dep, efficiency, max_ctx=int(lengths.max()) + 1)
    limits = deployment_limits(dep, float(lengths.mean()))
    points = tuple(
        RatePoint(
            r,
            simulate(
                dep,
                load.with_rate(r),
                seed=seed,
                efficiency=efficiency,
                max_requests=max_requests,
                step_time=step,
                limits=limits,
            ),
        )
        for r in rates
    )
    return LatencyCurve(points, load)
