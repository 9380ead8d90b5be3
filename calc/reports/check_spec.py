"""CI sizing checks: a strict YAML spec of deployments and requirements, evaluated to one
pass/fail row per requirement (computed figure against its limit, in the requirement's unit),
and written as JUnit XML for CI systems.

A spec (see examples/check-spec.yaml)::

    deployments:
      - name: chat-70b
        model: llama3-70b
        hardware: h100
        tp: 4
        workload: {ctx: 8192, prompt: 2048, batch: 32}
        requirements:
          must_fit: true
          min_concurrency: 32
          max_tpot_ms: 60
          max_ttft_ms: 800
          max_usd_per_million_output_tokens: 3.0

Figures: ``must_fit`` compares the KV of ``batch`` sequences of ``ctx`` tokens (whole blocks)
with the KV budget of the most loaded GPU; ``min_concurrency`` is the max concurrency at
``ctx``; ``max_tpot_ms`` the decode step at ``batch`` sequences of ``ctx`` tokens (the last,
slowest token); ``max_ttft_ms`` the prefill of one ``prompt``; the cost limits are USD per
million output tokens at ``batch`` and per million input tokens of ``prompt``-token prefills.

**Under load** (examples/check-load.yaml): a workload with a request ``rate`` [requests/s,
Poisson] and ``prompt``/``gen`` lengths (a number, ``uniform:LO:HI`` or ``lognormal:MEAN:CV``)
is served by the serving simulation (``calc.serve.simulate``: continuous batching, chunked
prefill, the KV pool, dp replicas round-robin), ``requests`` requests with ``seed``; the
requirements ``max_ttft_p50_s`` … ``max_tpot_p99_s`` are its TTFT/TPOT percentiles [s]. A
deployment the load saturates (the queue grows without bound) fails them whatever its
percentiles, with the reason as a note. With a length distribution, ``prompt`` means its mean
(rounded) for the other requirements.
"""

from __future__ import annotations

import difflib
import math
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from calc.data.yaml_io import load_mapping, validate
from calc.errors import ConfigError, KvcalcError
from calc.output.result import Report
from calc.output.safe_text import is_name
from calc.training.check import TrainingFit

_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)

# (requirement, the simulated latency, its percentile): max_ttft_p50_s ... max_tpot_p99_s
LOAD_REQUIREMENTS = tuple(
    (f"max_{latency}_{q}_s", f"{latency}_s", q)
    for latency in ("ttft", "tpot")
    for q in ("p50", "p90", "p99")
)
DEFAULT_LOAD_REQUESTS = 1000


class Workload(BaseModel):
    """The operating point the requirements are judged at."""

    model_config = _STRICT

    ctx: int = Field(gt=0, le=10**9, description="tokens per sequence (prompt + output)")
    batch: int = Field(default=1, gt=0, le=10**7, description="concurrent sequences")
    prompt: int | str | None = Field(
        default=None,
        description="prompt tokens (default: ctx), or under load a length distribution: "
        "uniform:LO:HI or lognormal:MEAN:CV [tokens]",
    )
    gen: int | str | None = Field(
        default=None,
        description="output tokens per request under load (default: ctx − prompt, at least "
        "1), or a length distribution as prompt [tokens]",
    )
    rate: float | None = Field(
        default=None,
        gt=0,
        le=10**6,
        description="requests arriving per second (Poisson) for the max_ttft_p*/max_tpot_p* "
        "requirements [requests/s]",
    )
    requests: int = Field(
        default=DEFAULT_LOAD_REQUESTS,
        gt=0,
        le=10**6,
        description="requests the load simulation serves [requests]",
    )
    seed: int = Field(default=0, ge=0, lt=2**32, description="seed of the simulated arrivals")

    @model_validator(mode="after")
    def _prompt_within_ctx(self) -> Workload:
        for name in ("prompt", "gen"):
            value = getattr(self, name)
            if isinstance(value, int) and not 0 < value <= 10**9:
                raise ValueError(f"{name} must be in 1..1,000,000,000, got {value}")
            if isinstance(value, str):
                self.lengths(name)  # a bad distribution is a spec error now
        if isinstance(self.prompt, int) and self.prompt > self.ctx:
            raise ValueError(f"prompt ({self.prompt}) exceeds ctx ({self.ctx})")
        return self

    def lengths(self, name: str):
        """The length distribution of ``prompt`` or ``gen`` (``calc.serve.workload``)."""
        from calc.errors import KvcalcError
        from calc.serve.workload import LengthDist

        value = getattr(self, name)
        try:
            return LengthDist.parse(value, name)
        except KvcalcError as exc:
            raise ValueError(str(exc)) from None

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens of one request: the number, a distribution's mean (rounded), or ctx."""
        if self.prompt is None:
            return self.ctx
        if isinstance(self.prompt, int):
            return self.prompt
        return max(1, round(self.lengths("prompt").mean))


# time limits by the key that holds them: its unit (a number there is in that unit) and the
# unit-less name that takes a time with its unit only (issue 22: 40ms, 2s)
TIME_KEYS = {
    "max_tpot_ms": ("ms", "max_tpot"),
    "max_ttft_ms": ("ms", "max_ttft"),
    **{name: ("s", name[: -len("_s")]) for name, _, _ in LOAD_REQUIREMENTS},
}


def _times(data: Any) -> Any:
    """A spec's time limits in their keys' units: ``max_tpot_ms: 40`` (a number: the key's
    unit, a contract), ``max_tpot_ms: 40ms`` or ``max_tpot: 40ms`` (a time with its unit); a
    bare number under a unit-less key is an error naming both readings."""
    if not isinstance(data, dict):
        return data
    from calc.serve.workload import parse_duration_s

    out = dict(data)
    for key, (unit, alias) in TIME_KEYS.items():
        scale = 1e3 if unit == "ms" else 1.0
        if alias in out:
            if key in out:
                raise ValueError(f"give {alias} or {key}, not both")
            value = out.pop(alias)
            if isinstance(value, bool) or not isinstance(value, str):
                raise ValueError(
                    f"{alias}: {value!r} needs its unit: {value}s or {value}ms? (or use {key}, "
                    f"whose numbers are in {unit})"
                )
            out[key] = parse_duration_s(value, alias) * scale
        elif isinstance(out.get(key), str):
            out[key] = parse_duration_s(out[key], key) * scale
    return out


class Requirements(BaseModel):
    """Limits a deployment must meet; at least one. Time limits take a number in their key's
    unit (``max_tpot_ms: 40``, ``max_ttft_p99_s: 2``) or a time with its unit
    (``max_tpot_ms: 40ms``, or the unit-less keys ``max_tpot: 40ms``, ``max_ttft_p99: 2s``)."""

    model_config = _STRICT

    @model_validator(mode="before")
    @classmethod
    def _time_units(cls, data: Any) -> Any:
        return _times(data)

    must_fit: bool | None = None
    min_concurrency: int | None = Field(default=None, gt=0, le=10**7)
    max_tpot_ms: float | None = Field(default=None, gt=0)
    max_ttft_ms: float | None = Field(default=None, gt=0)
    max_usd_per_million_output_tokens: float | None = Field(default=None, gt=0)
    max_usd_per_million_input_tokens: float | None = Field(default=None, gt=0)
    training_fit: TrainingFit | None = None  # calc/training/check.py
    max_ttft_p50_s: float | None = Field(default=None, gt=0)
    max_ttft_p90_s: float | None = Field(default=None, gt=0)
    max_ttft_p99_s: float | None = Field(default=None, gt=0)
    max_tpot_p50_s: float | None = Field(default=None, gt=0)
    max_tpot_p90_s: float | None = Field(default=None, gt=0)
    max_tpot_p99_s: float | None = Field(default=None, gt=0)

    @property
    def under_load(self) -> bool:
        return any(getattr(self, name) is not None for name, _, _ in LOAD_REQUIREMENTS)

    @model_validator(mode="after")
    def _at_least_one(self) -> Requirements:
        if all(v is None for v in self.model_dump().values()):
            raise ValueError("give at least one requirement")
        return self


class Deployment(BaseModel):
    """One model on one kind of GPU with its parallelism, dtypes and engine settings."""

    model_config = _STRICT

    name: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:/+-]+$")
    model: str = Field(min_length=1)
    hardware: str = Field(min_length=1)
    tp: int = Field(default=1, gt=0, le=4096)
    pp: int = Field(default=1, gt=0, le=4096)
    ep: int = Field(default=1, gt=0, le=4096)
    dp: int | None = Field(default=None, gt=0, le=4096)
    weight_dtype: str | None = Field(default=None, description="dtype or format, as --weight-dtype")
    kv_dtype: str | None = Field(default=None, description="dtype or format, as --kv-dtype")
    compute_dtype: str | None = Field(default=None, description="as --compute-dtype")
    engine: Literal["vllm", "sglang", "trtllm"] = "vllm"
    engine_version: str | None = Field(default=None, min_length=1, max_length=20)
    mem_util: float | None = Field(default=None, gt=0, le=1)
    block_size: int | None = Field(default=None, gt=0, le=1 << 20)
    max_batched_tokens: int | None = Field(default=None, gt=0, le=10**9)
    max_num_seqs: int | None = Field(default=None, gt=0, le=10**7)
    allreduce: str | None = Field(default=None, description="custom or nccl, as --allreduce")
    moe_imbalance: float | None = Field(
        default=None,
        ge=1,
        le=10**6,
        description="busiest GPU's MoE tokens / mean, as --moe-imbalance",
    )
    activation: str | int | None = Field(default=None, description="bytes or '4GiB'")
    overhead: str | int | None = Field(default=None, description="bytes or '0.25GiB'")
    max_model_len: int | None = Field(default=None, gt=0, le=10**9)
    # what holds new requests back (calc.serve.admission), checked as the CLI's options are
    # (calc.deploy.deployment._check_admission: the engine's own, the range, the pair) and
    # charged as simulate charges them: the load requirements' TTFT carries the wait;
    # max_ttft_ms (one prompt on an idle engine, as sweep's) none
    scheduler_recv_interval: int | None = Field(
        default=None,
        description="SGLang --scheduler-recv-interval N (0.5.2+): the scheduler reads new "
        "requests every N decode steps (1 to 1,000,000; default: 1, every step); the "
        "max_ttft_p* requirements carry the wait [steps]",
    )
    batch_wait_iters: int | None = Field(
        default=None,
        description="TensorRT-LLM batch_wait_timeout_iters T (1.1.0+, with batch_wait_ratio): "
        "new prompts held beside running generation requests for up to T steps (1 to "
        "1,000,000; default: off); the max_ttft_p* requirements carry the wait [steps]",
    )
    batch_wait_ratio: float | None = Field(
        default=None,
        description="TensorRT-LLM batch_wait_max_tokens_ratio r in [0, 1] (with "
        "batch_wait_iters): the held prompts go in once their tokens reach r × "
        "max_num_tokens (default: off)",
    )
    # hybrid models' state pool (SGLang), checked as the CLI's options are
    # (calc.deploy.deployment._check_state_settings, the release in the engine wing)
    mamba_ssm_dtype: str | None = Field(
        default=None,
        description="SGLang --mamba-ssm-dtype (0.5.2+): the recurrent state's dtype on hybrid "
        "models, float32, bfloat16 or float16 (0.5.9+) (default: the release's)",
    )
    max_mamba_cache_size: int | None = Field(
        default=None,
        description="SGLang --max-mamba-cache-size N (0.5.2+): the hybrid state pool's slots, "
        "the server's total (1 to 10^9; default: SGLang sizes it) [requests]",
    )
    # one prefill batch's prompt tokens (SGLang), checked as the CLI's option is
    # (calc.deploy.deployment._check_prefill_settings)
    max_prefill_tokens: int | None = Field(
        default=None,
        description="SGLang --max-prefill-tokens N: the new prompt tokens one prefill batch "
        "takes in, a first request whatever its length (1 to 10^9; default: 16384) [tokens]",
    )
    # the fused MoE's kernels, checked as the CLI's --moe-backend is (the engine's own names;
    # calc.deploy.engines.sglang.moe_runner, calc.deploy.engines.trtllm.moe_backend,
    # calc.deploy.engines.vllm.moe_backend)
    moe_backend: str | None = Field(
        default=None,
        description="the fused MoE's kernels, as --moe-backend: SGLang --moe-runner-backend "
        "triton, flashinfer_trtllm or deep_gemm (0.5.2+); TensorRT-LLM moe_config.backend "
        "CUTLASS, TRTLLM or DEEPGEMM; vLLM --moe-backend flashinfer_trtllm, flashinfer_cutlass, "
        "triton, deep_gemm or marlin (0.17.0+; fp8 experts at 0.16 by environment variables) "
        "(default: the release's rule)",
    )
    usd_per_hour: float | None = Field(default=None, gt=0, le=10_000)
    efficiency: Literal["low", "expected", "high"] = "expected"
    workload: Workload
    requirements: Requirements

    @model_validator(mode="before")
    @classmethod
    def _version_is_text(cls, data: Any) -> Any:
        v = data.get("engine_version") if isinstance(data, dict) else None
        if isinstance(v, int | float) and not isinstance(v, bool):  # YAML's 0.10 is 0.1
            raise ValueError(
                f"engine_version {v} is a number in YAML, which cannot say the release "
                '(0.10 reads as 0.1): quote it, e.g. engine_version: "0.19"'
            )
        return data

    @model_validator(mode="after")
    def _load_needs_a_rate(self) -> Deployment:
        if self.requirements.under_load and self.workload.rate is None:
            raise ValueError(
                "the max_ttft_p*/max_tpot_p* requirements are judged under load: give the "
                "workload a rate (requests/s)"
            )
        return self


class CheckSpec(BaseModel):
    """Top level of a check spec file."""

    model_config = _STRICT

    deployments: list[Deployment] = Field(min_length=1, max_length=10_000)

    @model_validator(mode="after")
    def _unique_names(self) -> CheckSpec:
        names = [d.name for d in self.deployments]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"deployment names must be unique; repeated: {', '.join(dup)}")
        return self


def load_spec(path: Path | str) -> CheckSpec:
    """The validated spec; a misspelt key is reported first, with the closest valid key."""
    from calc.data.registry import relative_to

    path = Path(path)
    data = load_mapping(path)
    if (problem := unknown_key_message(data)) is not None:
        raise ConfigError(f"{path}: {problem}")
    spec = validate(CheckSpec, data, path)
    from calc.serve.workload import MAX_REQUESTS

    simulated = sum(d.workload.requests for d in spec.deployments if d.requirements.under_load)
    if simulated > MAX_REQUESTS:  # bounded time: as much as one simulate -n 1,000,000 at most
        raise ConfigError(
            f"{path}: the load requirements simulate {simulated:,} requests in all, more than "
            f"{MAX_REQUESTS:,}; lower workload.requests"
        )
    folder = path.parent  # paths in the spec are relative to the spec, not to the shell
    deployments = [
        d.model_copy(
            update={
                "model": relative_to(d.model, folder, "model"),
                "hardware": relative_to(d.hardware, folder, "hardware"),
            }
        )
        for d in spec.deployments
    ]
    return spec.model_copy(update={"deployments": deployments})


@dataclass(frozen=True)
class Result:
    """One requirement of one deployment: the computed figure against its limit."""

    deployment: str
    requirement: str
    figure: float
    limit: float
    unit: str
    passed: bool

    def row(self) -> dict:
        """The result's fields by name, in their order (the JSON and CSV row)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def message(self) -> str:
        op = "≥" if self.requirement == "min_concurrency" else "≤"
        verdict = "PASS" if self.passed else "FAIL"
        return (
            f"{self.deployment} {self.requirement}: {human_figure(self.figure, self.unit)}, "
            f"limit {op} {human_figure(self.limit, self.unit)}: {verdict}"
        )

    def display_row(self) -> dict:
        """The row for a table: figure and limit in human units (GB and GiB, ms, USD)."""
        row = {k: v for k, v in self.row().items() if k != "unit"}  # the figure names it
        return {
            **row,
            "figure": human_figure(self.figure, self.unit),
            "limit": human_figure(self.limit, self.unit),
            "passed": "PASS" if self.passed else "FAIL",
        }


def human_figure(value: float, unit: str) -> str:
    """A figure for people: bytes as GB and GiB side by side, ms, USD per million tokens,
    sequences as a whole number (JSON and CSV keep the unrounded base-unit value)."""
    from calc.output.derivation import fmt_number

    if unit == "bytes":
        return f"{value / 1e9:,.2f} GB ({value / 2**30:,.2f} GiB)"
    if unit == "ms":
        return f"{value:,.3g} ms" if value < 1000 else f"{value:,.0f} ms"
    if unit == "USD":
        return f"${value:,.3f} per 1M tokens"
    if unit == "s":
        return f"{value * 1e3:,.3g} ms" if value < 1 else f"{value:,.3g} s"
    return f"{fmt_number(value)} {unit}"


def build_deployment(dep: Deployment, calibration=None, warnings: list[str] | None = None):
    """The ``calc.deploy.deployment.Deployment`` of one spec entry: the same object (and the same
    validation) as the CLI's options build."""
    from calc.data.calibration import calibrated
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment as Built
    from calc.deploy.deployment import EngineSettings

    settings = EngineSettings.of(dict(dep), flag="")
    built = Built.build(
        load_model(dep.model),
        calibrated(load_hardware(dep.hardware), calibration, warnings),
        tp=dep.tp, pp=dep.pp, ep=dep.ep, dp=dep.dp, weight_dtype=dep.weight_dtype,
        kv_dtype=dep.kv_dtype, compute_dtype=dep.compute_dtype, engine=settings,
        moe_imbalance=dep.moe_imbalance,
    )  # fmt: skip
    if warnings is not None:  # a release not modelled: said for every command (engine wing)
        from calc.deploy.calibration_match import calibration_note

        said = [*built.engine_config.warnings, calibration_note(calibration, built)]
        warnings.extend(w for w in said if w and w not in warnings)
    return built


def _latency_results(built, dep: Deployment, add) -> None:
    """The TPOT, TTFT and cost requirements at the workload's batch and ctx (``add`` each)."""
    w, req = dep.workload, dep.requirements
    names = ("max_tpot_ms", "max_ttft_ms", "max_usd_per_million_output_tokens",
             "max_usd_per_million_input_tokens")  # fmt: skip
    if all(getattr(req, n) is None for n in names):
        return
    from calc.reports.cost import operating_point

    point = operating_point(
        built,
        batch=w.batch,
        ctx=w.ctx,
        prompt=w.prompt_tokens,
        usd_per_hour=dep.usd_per_hour,
        efficiency=dep.efficiency,
    )
    figures = (
        (point["tpot_s"] * 1e3, "ms"),
        (point["ttft_one_prompt_s"] * 1e3, "ms"),
        (point["usd_per_million_output_tokens"], "USD"),
        (point["usd_per_million_input_tokens"], "USD"),
    )
    for name, (figure, unit) in zip(names, figures, strict=True):
        limit = getattr(req, name)
        if limit is not None:
            add(name, figure, limit, unit, figure <= limit)


def _load_results(built, dep: Deployment, add, warnings: list[str] | None) -> None:
    """The percentile requirements under load, from the serving simulation (``add`` each);
    a load that saturates the deployment or serves nothing is a note."""
    res = simulate_load(built, dep.workload, dep.efficiency)
    served = res.ttft_s.get("p99") is not None
    if warnings is not None:
        if res.saturated:
            warnings.append(f"{dep.name}: the load saturates it: {res.saturation_reason}")
        if not served:
            warnings.append(
                f"{dep.name}: no request was served: all {res.rejected:,} are longer than "
                "the KV pool or the max model length"
            )
    for name, key, q in LOAD_REQUIREMENTS:
        limit = getattr(dep.requirements, name)
        if limit is not None:
            value = getattr(res, key).get(q)
            if value is None and served and key == "tpot_s":
                value = 0.0  # no request of two or more output tokens: no TPOT to miss
            figure = math.inf if value is None else float(value)
            add(name, figure, limit, "s", served and figure <= limit and not res.saturated)


def _evaluate(dep: Deployment, calibration, warnings: list[str] | None = None) -> list[Result]:
    from calc.deploy.deployment import Workload as Work
    from calc.output.derivation import whole

    built = build_deployment(dep, calibration, warnings)
    w, req = dep.workload, dep.requirements
    work = Work(ctx=w.ctx, batch=w.batch, prompt=w.prompt_tokens)
    if warnings is not None:  # what memory and capacity say of the same deployment
        warnings.extend(f"{dep.name}: {note}" for note in _length_notes(built, w.ctx))
    g = built.per_gpu
    at = g.at(work.ctx, work.batch)
    out: list[Result] = []

    def add(name: str, figure, limit, unit: str, passed: bool) -> None:
        out.append(Result(dep.name, name, figure, limit, unit, bool(passed)))

    if req.must_fit is not None:
        # the ledger's verdict: this GPU's sequences (KV paged + SSM state) in the KV budget
        needed = whole(g.sequences(w.batch) * g.sequence_bytes(w.ctx))
        add("must_fit", needed, at.kv_budget_bytes, "bytes", at.fits or not req.must_fit)
    if req.training_fit is not None:
        from calc.training.check import training_fit_result

        add(
            "training_fit",
            **training_fit_result(
                built.model, built.hardware, req.training_fit, tp=dep.tp, pp=dep.pp
            ),
        )
    if req.min_concurrency is not None:
        got = at.max_concurrency
        add("min_concurrency", got, req.min_concurrency, "sequences", got >= req.min_concurrency)
    _latency_results(built, dep, add)
    if req.under_load:
        _load_results(built, dep, add, warnings)
    return out


def _length_notes(built, ctx: int) -> list[str]:
    """A context past the model's limit or the stated --max-model-len: the figures stand, the
    engine refuses such a request (as every sizing command warns)."""
    from calc.reports.capacity import max_model_len_warning

    cfg, notes = built.model, []
    if ctx > cfg.context_limit:
        notes.append(f"ctx {ctx:,} exceeds {cfg.name}'s max context of {cfg.context_limit:,}")
    if (note := max_model_len_warning(built, ctx)) is not None:
        notes.append(note)
    return notes


def load_spec_of(w: Workload):
    """The simulation's load (``calc.serve.workload.LoadSpec``) of a spec workload."""
    from calc.serve.workload import LengthDist, LoadSpec

    prompt = w.lengths("prompt") if w.prompt is not None else LengthDist.fixed(w.ctx)
    if w.gen is not None:
        gen = w.lengths("gen")
    else:
        gen = LengthDist.fixed(max(1, w.ctx - w.prompt_tokens))
    return LoadSpec(rate_per_s=w.rate, prompt=prompt, gen=gen, n_requests=w.requests)


def simulate_load(built, w: Workload, efficiency: str):
    """The serving simulation of ``built`` under the spec workload's load."""
    from calc.serve.simulate import simulate

    return simulate(built, load_spec_of(w), seed=w.seed, efficiency=efficiency, tokens=False)


def run_checks(
    spec: CheckSpec,
    calibration=None,
    path: Path | str = "spec",
    warnings: list[str] | None = None,
) -> list[Result]:
    """Every requirement of every deployment, in spec order (notes go to ``warnings``). A
    spec over several GPUs takes ``calibration`` on the profile it was made on alone (as plan
    and sweep do) when that profile is among them; else on every deployment, with a note."""
    results: list[Result] = []
    own = None
    if calibration is not None:
        from calc.data.calibration import load_calibration
        from calc.data.registry import load_hardware

        made_on = load_calibration(calibration).hardware
        names = {}
        for d in spec.deployments:
            try:
                names[d.hardware] = load_hardware(d.hardware).name
            except KvcalcError:  # said below, with the deployment's index
                names[d.hardware] = str(d.hardware)
        own = made_on if len(set(names.values())) > 1 and made_on in names.values() else None
    for i, dep in enumerate(spec.deployments):
        cal = calibration if own is None or names[dep.hardware] == own else None
        try:
            results += _evaluate(dep, cal, warnings)
        except KvcalcError as exc:
            raise ConfigError(f"{path}: deployments[{i}] ({dep.name}): {exc}") from exc
    return results


@dataclass(frozen=True)
class CheckReport(Report):
    """``kvcalc check``'s result: ``passed`` (every requirement met), ``failed`` (how many
    not) and a row per requirement (``rows``: the figure against its limit)."""

    spec: Any = field(default=None, repr=False, compare=False)  # the validated CheckSpec
    results: tuple = ()  # Result each, in spec order

    command = "check"


def check_report(path: Path, calibration=None) -> CheckReport:
    """Every requirement of the spec at ``path`` evaluated (``calibration`` applied as
    ``run_checks`` says); its notes said once each."""
    notes: list[str] = []
    spec = load_spec(path)
    results = run_checks(spec, calibration, path, notes)
    rows = [r.row() for r in results]
    failed = sum(not r.passed for r in results)
    fields = {"passed": failed == 0, "failed": failed, "results": rows}
    return CheckReport(fields, (), tuple(dict.fromkeys(notes)), rows, spec=spec,
                       results=tuple(results))  # fmt: skip


def junit_error_xml(problem: str, spec: Path | str = "spec", suite: str = "kvcalc check") -> str:
    """JUnit XML for a spec that could not be evaluated: one errored test case naming the
    problem, so a CI step that publishes JUnit shows why instead of finding no file."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name=suite, tests="1", failures="0", errors="1")
    ts = ET.SubElement(
        root, "testsuite", name=str(spec), tests="1", failures="0", errors="1", skipped="0"
    )
    tc = ET.SubElement(ts, "testcase", classname="kvcalc.spec", name="spec is valid", time="0")
    err = ET.SubElement(tc, "error", message=problem, type="InvalidSpec")
    err.text = problem
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def junit_xml(results: list[Result], suite: str = "kvcalc check") -> str:
    """JUnit XML: one <testsuite> per deployment, one <testcase> per requirement."""
    import xml.etree.ElementTree as ET

    root = ET.Element(
        "testsuites",
        name=suite,
        tests=str(len(results)),
        failures=str(sum(not r.passed for r in results)),
        errors="0",
    )
    for name in dict.fromkeys(r.deployment for r in results):
        mine = [r for r in results if r.deployment == name]
        ts = ET.SubElement(
            root,
            "testsuite",
            name=name,
            tests=str(len(mine)),
            failures=str(sum(not r.passed for r in mine)),
            errors="0",
            skipped="0",
        )
        for r in mine:
            tc = ET.SubElement(
                ts, "testcase", classname=f"kvcalc.{name}", name=r.requirement, time="0"
            )
            prop = ET.SubElement(ET.SubElement(tc, "properties"), "property")
            prop.set("name", "figure")
            prop.set("value", repr(r.figure))
            if not r.passed:
                failure = ET.SubElement(
                    tc, "failure", message=r.message(), type="RequirementFailed"
                )
                failure.text = r.message()
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# --- misspelt keys: the closest valid key ------------------------------------------------


def nested_models(annotation: Any, base: type) -> list[type]:
    """The BaseModel classes inside an annotation (``X``, ``list[X]``, ``X | None``)."""
    if isinstance(annotation, type) and issubclass(annotation, base):
        return [annotation]
    out: list[type] = []
    for arg in typing.get_args(annotation):
        out += nested_models(arg, base)
    return out


def _field_model(model: type, key: str) -> type | None:
    """The spec model a key's value is validated against (for nested suggestions)."""
    from pydantic import BaseModel

    field = model.model_fields.get(key)  # type: ignore[attr-defined]
    if field is None:
        return None
    found = nested_models(field.annotation, BaseModel)
    return found[0] if found else None


def unknown_key_message(data: Any) -> str | None:
    """The first key of ``data`` that the spec does not have, with where it is, the closest
    valid key(s) and the valid ones; None when every key is known. Values are not checked
    here (the schema validation after this does that)."""
    return _walk(CheckSpec, data, "")


def _walk(model: type, data: Any, loc: str) -> str | None:
    if isinstance(data, list):
        for i, item in enumerate(data):
            if (msg := _walk(model, item, f"{loc}[{i}]")) is not None:
                return msg
        return None
    if not isinstance(data, dict):
        return None
    valid = list(model.model_fields)  # type: ignore[attr-defined]
    if model is Requirements:  # the unit-less time keys (TIME_KEYS)
        valid += [alias for _, alias in TIME_KEYS.values()]
    for key, value in data.items():
        if not isinstance(key, str) or key not in valid:
            where = loc or "the top level"
            close = difflib.get_close_matches(str(key), valid, n=2, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            # never echo a line of a file that is no spec (check /etc/shadow, as root)
            what = f"field {key!r}" if is_name(key) else "field (a key that is not a field name)"
            return (
                f"unknown {what} in {where}{hint} "
                f"Valid: {', '.join(valid)} (see kvcalc check --schema)"
            )
        sub = _field_model(model, key)
        if sub is not None:
            if (msg := _walk(sub, value, f"{loc}.{key}" if loc else key)) is not None:
                return msg
    return None
