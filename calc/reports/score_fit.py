"""A step calibration fitted to benchmark runs [ratio, s]: multipliers on the op times of the
classes asked for (gemm, attention, moe, communication: ``calc.deploy.step_calibration``), a
host time per forward pass (host) and one per sequence it samples (host_seq), and a latency of
each request outside the engine loop (request: API server, network), chosen so the simulation
of each run matches its measured TTFT median, TPOT mean and output throughput
(``calc.reports.score.FIT_METRICS``; a run without one of them uses the nearest it has: TTFT
mean; TPOT median, ITL mean, E2E mean, ITL median: ``TPOT_STAND_INS``) and, where the file
records it, its TPOT p99.

Why the E2E mean before the ITL median where a file has no TPOT (SGLang 0.4's ``bench_serving``
records only the ITL median and the E2E mean and median): the TPOT mean is a mean, every gap
counted, the decode gaps a prefill batch stalls included; the E2E mean is TTFT + TPOT × (output
− 1) averaged, so it moves with the TPOT mean one for one up to the TTFT's small share (on the
steady SGLang runs of docs/validation.md, TTFT median over E2E mean: 0.4-1.1%; a run that queues
is no fit run). The ITL median is a quantile: it is the decode-only gap while fewer than half
the gaps carry a prefill and jumps by a whole prefill when more do, so at a load where arrivals
meet about every other decode step it flips between the two (the published SGLang 0.4.0
Llama-3.3-70B runs at 8 and 16 requests/s: kvcalc's mean time per output token within -5% and
+10% of the measured, its ITL median +19% and +39%).

Why the TPOT p99: a per-sequence cost (host_seq) shows only in how TPOT grows with the requests
in flight, and three figures of one run, all taken at one load, cannot tell it from a GEMM
multiplier (the fit refused it on every vLLM run below 16 requests/s). Within a run the load
varies (Poisson arrivals, the ramp up and the drain), and the requests decoded while it peaks
make the TPOT tail: the p99 over the mean grows with the per-sequence cost and not with the
multiplier. It enters only a fit of host_seq: without it the tail has nothing of its own to
move and would pull the multiplier. With it one run at 4 requests/s constrains host_seq (vLLM
0.8.3 Llama-3.3-70B TP 8 on A100: 79 µs, against 121 µs from the 16/s run and 103 µs from the
three runs together).

Residuals: r = ln(predicted / measured) per run and figure; the fit minimises Σ r² by
Levenberg–Marquardt on the multipliers (kept in 0.05 … 20) and on the host times [s] (0 … 0.1 s,
0 … 10 ms, 0 … 2 s), the Jacobian by central differences. The figures are nearly linear in
these (an iteration's time is), so it converges in a few steps; a median moves in steps of one
iteration (a request lands before or after an iteration's end), which bounds how closely the
parameters are found. A simulation is linear in the op times, so the iteration-time table of
any parameters is the sum of one table per class, built once:
T(m, h, h_seq) = T_other + Σ_c m_c T_c + h (each forward pass) + h_seq × (rows it samples).

A parameter the runs cannot constrain is refused: before fitting, an op class the deployment
does not have (MoE on a dense model, collectives at TP 1), a parameter that moves no figure
by 1% when doubled, or two parameters that move the figures in the same proportions (the
cosine of their Jacobian columns above 0.995); after fitting, a parameter whose standard error
exceeds its scale (``SCALE``: 0.25 for a multiplier, 2 ms per step, 0.1 ms per sequence, 10 ms
per request) when each measured figure is taken as known to 2% (``NOISE``; σ = NOISE ×
√diag((JᵀJ)⁻¹), J the Jacobian of the ln residuals at the solution).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from calc.errors import InvalidInputError

PARAMETERS = ("gemm", "attention", "moe", "communication", "host", "host_seq", "request")
DEFAULT = ("gemm", "host_seq", "request")
HOSTS = ("host", "host_seq", "request")  # times [s], the rest multipliers
# bounds [s], finite-difference steps [s] and the "doubling" of the sensitivity check
HOST_MAX_S = {"host": 0.1, "host_seq": 0.01, "request": 2.0}
HOST_STEP_S = {"host": 0.002, "host_seq": 5e-5, "request": 0.005}
MIN_SENSITIVITY = 0.01  # |Δ ln figure| a doubling must cause somewhere
MAX_COSINE = 0.995
# the fit's figures, each with the ones that stand in for it when the file lacks it; the last,
# the TPOT tail, only where recorded (module docstring: what it constrains)
# the TPOT mean and what stands in for it, nearest first (module docstring: the E2E mean before
# the ITL median)
TPOT_STAND_INS = (("tpot", "avg"), ("tpot", "p50"), ("itl", "avg"), ("e2e", "avg"), ("itl", "p50"))
_FIGURES = (
    (("ttft", "p50"), ("ttft", "avg")),
    TPOT_STAND_INS,
    (("output_tokens_per_s", ""),),
    (("tpot", "p99"),),
)


def fit_figures(run, params=DEFAULT) -> list[tuple[str, str]]:
    """The (metric, stat) pairs of ``run`` the fit of ``params`` uses (module docstring): the
    TPOT tail only where a per-sequence host time is fitted (nothing else moves it apart)."""
    out = []
    for choices in _FIGURES if "host_seq" in params else _FIGURES[:-1]:
        for metric, stat in choices:
            key = f"{metric}_{stat}_s" if stat else metric
            if run.measured.get(key):
                out.append((metric, stat))
                break
    return out


def _measured(run, metric, stat):
    return run.measured[f"{metric}_{stat}_s" if stat else metric]


def parse_parameters(text: str | None) -> tuple[str, ...]:
    """``gemm,host`` -> ("gemm", "host"), each one of PARAMETERS."""
    if text is None:
        return DEFAULT
    names = tuple(dict.fromkeys(p.strip().lower() for p in text.split(",") if p.strip()))
    bad = [n for n in names if n not in PARAMETERS]
    if bad or not names:
        raise InvalidInputError(
            f"--fit {text!r}: each must be one of {', '.join(PARAMETERS)} (comma-separated)"
        )
    return names


# ---------------------------------------------------------------------------------------------
# Iteration-time tables as a sum over op classes


class TableBasis:
    """One iteration-time table per op class of a deployment (module docstring)."""

    _FIELDS = ("tokens_s", "rows_s", "attn_base_s", "attn_per_token_s", "prefill_attn_s")

    def __init__(self, dep, efficiency: str, max_ctx: int) -> None:
        from calc.data.hardware_schema import StepCalibration
        from calc.deploy.step_calibration import CLASSES
        from calc.serve.steptime import step_table

        zero = dict.fromkeys(CLASSES, 0.0)
        tables = {}
        for name in ("other", *CLASSES):
            mult = dict(zero, **({name: 1.0} if name != "other" else {}))
            hw = replace(dep.hardware, step_calibration=StepCalibration(**mult, source="basis"))
            tables[name] = step_table(replace(dep, hardware=hw), efficiency, max_ctx=max_ctx)
        self.grid = tables["other"].prefill_grid
        self.host = tables["other"].host  # the engine's own host costs, beside the fitted ones
        other = self._arrays(tables["other"])
        # each class's own part: its table less the unscaled ops every table holds
        self.parts = {"other": other}
        for c in CLASSES:
            self.parts[c] = [a - b for a, b in zip(self._arrays(tables[c]), other, strict=True)]
        self.present = {c: any(float(abs(x).max()) > 0 for x in self.parts[c]) for c in CLASSES}

    def _arrays(self, t):
        import numpy as np

        return [np.asarray(getattr(t, f), dtype=np.float64) for f in self._FIELDS] + [
            np.asarray([t.attn_fixed_s])
        ]

    def table(self, mult: dict, host_s: float, host_seq_s: float = 0.0):
        """The table of multipliers ``mult`` (class -> factor), host time ``host_s`` per
        forward pass and ``host_seq_s`` per row sampled."""
        import numpy as np

        from calc.serve.steptime import StepTable

        acc = list(self.parts["other"])
        for c, m in mult.items():
            if m:
                acc = [a + m * b for a, b in zip(acc, self.parts[c], strict=True)]
        tokens = acc[0].copy()
        tokens[1:] += host_s
        rows = acc[1] + host_seq_s * np.arange(acc[1].size)
        return StepTable(
            tokens_s=tokens,
            rows_s=rows,
            attn_fixed_s=float(acc[5][0]),
            attn_base_s=acc[2],
            attn_per_token_s=acc[3],
            prefill_grid=np.asarray(self.grid),
            prefill_attn_s=acc[4],
            host=self.host,
        )


# ---------------------------------------------------------------------------------------------
# The fit


@dataclass(frozen=True)
class FitResult:
    """Fitted multipliers (class -> factor, 1 for the classes not fitted) and host time [s], the
    residual ln(predicted / measured) of every run's figures before and after, per run."""

    parameters: tuple[str, ...]
    multipliers: dict
    host_step_s: float
    host_per_seq_s: float
    request_s: float
    before: list = field(default_factory=list)  # per run: {(metric, stat): residual}
    after: list = field(default_factory=list)
    iterations: int = 0

    @property
    def rms_after(self) -> float:
        r = [v for d in self.after for v in d.values()]
        return math.sqrt(sum(x * x for x in r) / len(r)) if r else 0.0


class _Problem:
    """The runs (each with its deployment's basis, its replay and its figures) as a function
    of the parameter vector."""

    def __init__(self, items, params, efficiency, bases: dict | None = None):
        from calc.reports.score import predicted
        from calc.serve.simulate import deployment_limits, groups_of

        self.params = params
        self.predicted = predicted
        self.items = []
        bases = {} if bases is None else bases  # a caller's cache: id(dep) -> (basis, ctx)
        for run, dep, rep, pool_blocks in items:
            figures = fit_figures(run, params)
            if not figures:
                raise InvalidInputError(
                    f"{run.source}: measures none of TTFT, TPOT, ITL or output throughput: "
                    "nothing to fit to"
                )
            key = id(dep)
            max_ctx = int((rep.prompt + rep.gen).max()) + 1
            if key not in bases or bases[key][1] < max_ctx:
                bases[key] = (TableBasis(dep, efficiency, max(max_ctx, 16)), max_ctx)
            lim = deployment_limits(dep, float((rep.prompt + rep.gen).mean()))
            if pool_blocks:
                lim = replace(lim, pool_blocks=int(pool_blocks) // max(dep.pp, 1))
            if lim.max_model_len is not None:
                lim = replace(lim, max_model_len=max(lim.max_model_len, max_ctx))
            self.items.append((run, dep, rep, lim, groups_of(dep), figures, key))
        self.bases = {k: b for k, (b, _) in bases.items()}

    def unpack(self, x) -> tuple[dict, dict]:
        """(multipliers by class, {"host", "host_seq", "request"} times [s])."""
        mult, times = {}, dict.fromkeys(HOSTS, 0.0)
        for name, v in zip(self.params, x, strict=True):
            if name in HOSTS:
                times[name] = v
            else:
                mult[name] = v
        return mult, times

    def residuals(self, x) -> list[dict]:
        from calc.serve.simulate import front_end_s, simulate_requests

        mult, times = self.unpack(x)
        host, host_seq = times["host"], times["host_seq"]
        full = {c: mult.get(c, 1.0) for c in ("gemm", "attention", "moe", "communication")}
        out = []
        for run, _dep, rep, lim, groups, figures, key in self.items:
            step = self.bases[key].table(full, host, host_seq)
            sim = simulate_requests(rep.arrival_s, rep.prompt, rep.gen, limits=lim, step=step,
                                    groups=groups, max_in_flight=rep.max_in_flight,
                                    prefix_shared_fraction=rep.cached_fraction,
                                    front_s=front_end_s(step, rep.prompt),
                                    request_s=times["request"],
                                    tokens=any(m == "itl" for m, _ in figures))  # fmt: skip
            res = {}
            for metric, stat in figures:
                p = self.predicted(sim, metric, stat)
                m = _measured(run, metric, stat)
                res[(metric, stat)] = math.log(p / m) if p and p > 0 else 10.0
            out.append(res)
        return out

    @staticmethod
    def flat(res: list[dict]) -> list[float]:
        return [v for d in res for v in d.values()]


def _check_present(problem: _Problem) -> None:
    from calc.deploy.step_calibration import CLASSES

    for name in problem.params:
        if name in CLASSES and not any(b.present[name] for b in problem.bases.values()):
            what = {
                "moe": "no MoE routed experts",
                "communication": "no collectives (TP, PP and EP are 1)",
                "attention": "no attention",
                "gemm": "no GEMM",
            }[name]
            deps = {item[1].describe() for item in problem.items}
            raise InvalidInputError(
                f"--fit {name}: the runs cannot constrain it: their deployment ({', '.join(deps)}) "
                f"has {what}; leave {name} out of --fit"
            )


def _jacobian(problem: _Problem, x, r0=None):
    """∂ residual / ∂ parameter by central differences (multipliers: ± 2%; times: their
    HOST_STEP_S, one-sided at 0)."""
    import numpy as np

    cols = []
    for i, name in enumerate(problem.params):
        h = HOST_STEP_S[name] if name in HOSTS else 0.02 * x[i]
        lo, hi = list(x), list(x)
        hi[i] += h
        lo[i] = max(lo[i] - h, 0.0)
        rh = np.asarray(problem.flat(problem.residuals(hi)))
        rl = np.asarray(problem.flat(problem.residuals(lo)))
        cols.append((rh - rl) / (hi[i] - lo[i]))
    return np.column_stack(cols)


def _check_identifiable(problem: _Problem, x, r0) -> None:
    """Refuse more parameters than figures, a parameter no figure responds to, or two that move
    the figures alike."""
    import numpy as np

    n = len(r0)
    if n < len(problem.params):
        raise InvalidInputError(
            f"--fit {','.join(problem.params)}: {n} measured figures cannot constrain "
            f"{len(problem.params)} parameters (--fit's default is gemm,host_seq,request); "
            f"name fewer (e.g. --fit {problem.params[0]}) or add runs"
        )
    J = _jacobian(problem, x)
    for i, name in enumerate(problem.params):
        # response of the figures to doubling the parameter (host times: 2 ms, 50 µs more)
        scale = HOST_STEP_S[name] if name in HOSTS else x[i]
        if float(np.max(np.abs(J[:, i]))) * scale < MIN_SENSITIVITY:
            change = {
                "host": "adding 2 ms per step",
                "host_seq": "adding 50 µs per sequence",
                "request": "adding 5 ms per request",
            }.get(name, "doubling it")
            raise InvalidInputError(
                f"--fit {name}: the runs cannot constrain it: {change} moves none of their "
                f"TTFT, TPOT or throughput by 1%; leave it out of --fit"
            )
    norms = np.linalg.norm(J, axis=0)
    unit = J / norms
    for i in range(len(problem.params)):
        for j in range(i + 1, len(problem.params)):
            cos = float(abs(unit[:, i] @ unit[:, j]))
            if cos > MAX_COSINE:
                a, b = problem.params[i], problem.params[j]
                raise InvalidInputError(
                    f"--fit {a},{b}: the runs cannot tell them apart (they move the TTFT, TPOT "
                    f"and throughput in the same proportions, cosine {cos:.4f}); fit one of "
                    "them, or add runs at other prompt lengths or loads"
                )


GOOD_ENOUGH = 0.003  # rms residual [ln] the fit stops at: below the simulation's own steps
NOISE = 0.02  # how well a measured figure is known [ln]: run-to-run repeats within ~2%
# a parameter is constrained when its standard error is below: multipliers [×], times [s]
SCALE = {"gemm": 0.25, "attention": 0.25, "moe": 0.25, "communication": 0.25,
         "host": 0.002, "host_seq": 1e-4, "request": 0.01}  # fmt: skip


def fit(
    items, params=DEFAULT, *, efficiency: str = "expected", max_iterations: int = 12, bases=None
):
    """Fit ``params`` to ``items``: (run, deployment, replay, printed KV pool blocks or None)
    each (module docstring); ``bases``: a dict kept between fits on the same deployments (their
    per-class tables are built once)."""
    import numpy as np

    problem = _Problem(items, params, efficiency, bases)
    _check_present(problem)
    x = np.array([0.0 if p in HOSTS else 1.0 for p in params])  # as modelled
    before = problem.residuals(x)
    r = np.asarray(problem.flat(before))
    _check_identifiable(problem, x, r)
    cost = float(r @ r)
    lam = 1e-3
    it = 0
    for it in range(1, max_iterations + 1):  # noqa: B007 (iterations are reported)
        J = _jacobian(problem, x)
        A = J.T @ J
        g = J.T @ r
        accepted = False
        for _ in range(6):
            dx = -np.linalg.solve(A + lam * np.diag(np.diag(A) + 1e-12), g)
            xn = _bounded(params, x + dx)
            rn = np.asarray(problem.flat(problem.residuals(xn)))
            cn = float(rn @ rn)
            if cn < cost:
                step = float(np.max(np.abs(xn - x) / np.maximum(np.abs(x), _scales(params))))
                x, r, cost, accepted = xn, rn, cn, True
                lam = max(lam / 3, 1e-9)
                break
            lam *= 4
        if not accepted or cost < GOOD_ENOUGH**2 * len(r) or step < 1e-4:
            break
    _check_errors(problem, x)
    mult, times = problem.unpack(x)
    after = problem.residuals(x)
    return FitResult(tuple(params), mult, times["host"], times["host_seq"], times["request"],
                     before, after, it)  # fmt: skip


def standard_errors(problem: _Problem, x):
    """σ of each parameter at ``x`` with NOISE on each figure (module docstring); inf where
    the figures do not determine it."""
    import numpy as np

    J = _jacobian(problem, x)
    A = J.T @ J
    try:
        cov = np.linalg.inv(A)
    except np.linalg.LinAlgError:
        return np.full(len(problem.params), np.inf)
    d = np.diag(cov)
    return np.where(d >= 0, NOISE * np.sqrt(np.abs(d)), np.inf)


def _check_errors(problem: _Problem, x) -> None:
    sigma = standard_errors(problem, x)
    loose = [(n, s) for n, s in zip(problem.params, sigma, strict=True) if not s <= SCALE[n]]
    if loose:

        def show(name, s):
            if name in ("host", "host_seq", "request"):
                unit = "ms" if name != "host_seq" else "µs"
                k = 1e3 if unit == "ms" else 1e6
                return f"{name} ± {s * k:,.3g} {unit} (scale {SCALE[name] * k:g} {unit})"
            return f"{name} ± {s:.3g} (scale {SCALE[name]:g})"

        names = ",".join(n for n, _ in loose)
        raise InvalidInputError(
            f"--fit {names}: the runs cannot constrain it: standard error "
            + "; ".join(show(n, s) for n, s in loose)
            + f" with each figure known to {NOISE:.0%}; fit fewer parameters or add runs at "
            "other loads"
        )


def _bounded(params, x):
    import numpy as np

    out = np.array(x, dtype=np.float64)
    for i, name in enumerate(params):
        if name in HOSTS:
            out[i] = min(max(out[i], 0.0), HOST_MAX_S[name])
        else:
            out[i] = min(max(out[i], 0.05), 20.0)
    return out


def _scales(params):
    """A parameter's natural size, for the relative step test (a time at 0 has none)."""
    import numpy as np

    return np.array([HOST_STEP_S[p] if p in HOSTS else 1.0 for p in params])
