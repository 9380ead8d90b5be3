"""kvcalc's Python API: a function per job of the CLI (memory, capacity, latency, cost, sweep,
plan, simulate, train, log, score, check), each taking the command's options as keyword
arguments by their Python names (``--weight-dtype`` is ``weight_dtype``), with the command's
defaults, validation and typed errors (``calc.errors``), and returning a frozen report
(``calc.output.result.Report``) whose ``to_dict()`` is the JSON ``kvcalc COMMAND -f json``
prints [unrounded base units: bytes, s, FLOP, USD; every key in docs/names.md].

    import calc as kvcalc

    r = kvcalc.latency("llama3-70b", "h100", tp=4, prompt=2048, gen=256, batch=8)
    r.tpot_s, r.to_dict(), r.warnings, r.derivation()

The commands call these same functions (parse, one call here, render), so the API and the CLI
cannot disagree. Options a command prints rather than computes (``--format``, ``--output``,
``--explain``, ``--report``) are not arguments: a report's ``to_dict(explain=True)``,
``to_pandas()`` and ``derivation()`` give them. Reference: docs/api.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from calc import __all__ as _PACKAGE_NAMES
from calc.deploy.options import DeploymentOptions
from calc.errors import ConfigError as ConfigError  # (``X as X``: re-exported)
from calc.errors import InvalidInputError as InvalidInputError
from calc.errors import KvcalcError as KvcalcError
from calc.errors import MissingDependencyError as MissingDependencyError
from calc.errors import UnknownNameError as UnknownNameError
from calc.output.result import Report

if TYPE_CHECKING:
    from calc.reports.capacity import CapacityReport
    from calc.reports.check_spec import CheckReport
    from calc.reports.cost import CostReport
    from calc.reports.engine_log import LogReport
    from calc.reports.latency import LatencyReport
    from calc.reports.memory import MemoryReport
    from calc.reports.score_report import ScoreReport
    from calc.reports.sweep_io import SweepReport
    from calc.serve.report import SimReport
    from calc.training.report import TrainReport

# the jobs, in the order the README walks through them
JOBS = ("memory", "capacity", "latency", "cost", "sweep", "plan", "simulate", "train", "log",
        "score", "check")  # fmt: skip

# the public names are declared once, in calc/__init__.py (which re-exports them from here
# on first use): all of them but the package's version
__all__ = [name for name in _PACKAGE_NAMES if name != "__version__"]


@contextmanager
def _noting(notes: list[str]) -> Iterator[None]:
    """The warnings said before a typed error travel with it (``exc.warnings``): the CLI
    prints them before the error line, as it did when they were printed as they came."""
    try:
        yield
    except KvcalcError as exc:
        exc.warnings = (*notes, *getattr(exc, "warnings", ()))  # type: ignore[attr-defined]
        raise


def _build(model: str, hardware: str | None, notes: list[str], options: dict, **extra):
    """The job's Deployment (``calc.deploy.options.build_deployment``), unknown options
    refused by name."""
    from calc.deploy.options import build_deployment, check_options

    check_options(options)
    return build_deployment(model, hardware, notes=notes, **options, **extra)


def _said(report, notes: list[str], dep=None, **extra):
    """``report`` with the warnings said while building its deployment first."""
    return replace(report, warnings=(*notes, *report.warnings), deployment=dep, **extra)


def memory(
    model: str,
    ctx: int,
    batch: int = 1,
    *,
    hardware: str | None = None,
    attention: str | None = None,
    kv_heads: int | None = None,
    kv_lora_rank: int | None = None,
    qk_rope_head_dim: int | None = None,
    **deployment: Unpack[DeploymentOptions],
) -> MemoryReport:
    """``kvcalc memory``: weights and KV cache of ``batch`` sequences of ``ctx`` tokens (whole
    model) and, with ``hardware``, the per-GPU ledger (weights, KV, SSM state, runtime reserve)
    and its fit. ``attention`` (mha, gqa, mqa, mla) recomputes the KV cache as that layout on
    the same model shape (what-if)."""
    from calc.deploy.deployment import Workload
    from calc.deploy.options import what_if_layout
    from calc.reports.memory import memory_report

    notes: list[str] = []
    with _noting(notes):
        layout = what_if_layout(
            attention,
            kv_heads=kv_heads,
            kv_lora_rank=kv_lora_rank,
            qk_rope_head_dim=qk_rope_head_dim,
        )
        dep = _build(model, hardware, notes, deployment, layout=layout)
        return _said(memory_report(dep, Workload(ctx=ctx, batch=batch)), notes, dep)


def capacity(
    model: str,
    hardware: str,
    ctx: int,
    batch: int = 1,
    *,
    shared_prefix: int | None = None,
    users: int | None = None,
    **deployment: Unpack[DeploymentOptions],
) -> CapacityReport:
    """``kvcalc capacity``: KV budget per GPU, KV pool in tokens, max concurrency at ``ctx``,
    max context at ``batch``, paged vs contiguous waste, and the saving of ``shared_prefix``
    tokens shared by ``users`` sequences."""
    from calc.deploy.deployment import Workload
    from calc.reports.capacity import capacity_report

    notes: list[str] = []
    with _noting(notes):
        dep = _build(model, hardware, notes, deployment)
        report = capacity_report(
            dep, Workload(ctx=ctx, batch=batch), shared_prefix=shared_prefix, users=users
        )
        return _said(report, notes, dep)


def latency(
    model: str,
    hardware: str,
    prompt: int = 1024,
    gen: int = 256,
    batch: int = 1,
    *,
    ctx: int | None = None,
    matmul_eff: float | None = None,
    mem_eff: float | None = None,
    **deployment: Unpack[DeploymentOptions],
) -> LatencyReport:
    """``kvcalc latency``: roofline TTFT, TPOT, end-to-end time and tokens/s of ``batch``
    requests of ``prompt`` + ``gen`` tokens, at the speed of light, expected (the profile's
    efficiencies) and a low-high band; per-op bound and time; memory per GPU. ``ctx``: the
    context of the reported decode step (default prompt + gen)."""
    from calc.deploy.deployment import Workload
    from calc.reports.latency import latency_report

    notes: list[str] = []
    with _noting(notes):
        dep = _build(model, hardware, notes, deployment)
        work = Workload(ctx=ctx or prompt + gen, batch=batch, prompt=prompt, gen=gen)
        report = latency_report(dep, work, matmul_eff=matmul_eff, mem_eff=mem_eff)
        return _said(report, notes, dep)


def cost(
    model: str,
    hardware: str,
    ctx: int,
    batch: int = 1,
    *,
    prompt: int | None = None,
    max_tpot_ms: float | None = None,
    max_ttft_ms: float | None = None,
    efficiency: str = "expected",
    usd_per_gpu_hour: float | None = None,
    price_basis: str = "neocloud_on_demand",
    price: str | None = None,
    derived_prices: bool = False,
    capex_usd_per_gpu: str | float | None = None,
    years: float | None = None,
    power_kw_per_gpu: float | None = None,
    pue: float | None = None,
    usd_per_kwh: float | None = None,
    **deployment: Unpack[DeploymentOptions],
) -> CostReport:
    """``kvcalc cost``: tokens/s per GPU and USD per million output and input tokens at
    ``batch``, at the largest batch that fits, at the cheapest batch meeting ``max_tpot_ms`` /
    ``max_ttft_ms``, and the steady-state serving throughput with prefill charged. A GPU-hour
    is priced on ``price_basis`` (``price="h100=2.99"`` states one profile's), at
    ``usd_per_gpu_hour``, or as owned hardware (``capex_usd_per_gpu``, ``years``,
    ``power_kw_per_gpu``, ``pue``, ``usd_per_kwh``)."""
    from calc.deploy.deployment import Workload
    from calc.deploy.pricing import pricing_from
    from calc.reports.cost import cost_report

    pricing = pricing_from(
        price_basis=price_basis, price=price, usd_per_gpu_hour=usd_per_gpu_hour,
        derived_prices=derived_prices, capex_usd_per_gpu=capex_usd_per_gpu, years=years,
        power_kw_per_gpu=power_kw_per_gpu, pue=pue, usd_per_kwh=usd_per_kwh,
    )  # fmt: skip
    notes: list[str] = []
    with _noting(notes):
        dep = _build(model, hardware, notes, deployment)
        report = cost_report(
            dep,
            Workload(ctx=ctx, batch=batch, prompt=prompt),
            pricing=pricing,
            max_tpot_ms=max_tpot_ms,
            max_ttft_ms=max_ttft_ms,
            efficiency=efficiency,
        )
        return _said(report, notes, dep)


def sweep(
    model: str | list[str],
    hardware: str | list[str],
    ctx: str | int | list[int],
    batch: str | int | list[int] = "1",
    tp: str | int | list[int] = "1",
    pp: str | int | list[int] = "1",
    *,
    ep: int = 1,
    dp: int | None = None,
    gpus: int | None = None,
    prompt: str | int | list[int] | None = None,
    weight_dtype: str | list[str] | None = None,
    kv_dtype: str | list[str] | None = None,
    usd_per_hour: float | None = None,
    efficiency: str = "expected",
    latency: bool = True,
    compute_dtype: str | None = None,
    calibration: str | Path | None = None,
    moe_imbalance: float | None = None,
    **engine_options: Any,
) -> SweepReport:
    """``kvcalc sweep``: every combination of models, hardware, dtypes, tp, pp, prompt, ctx and
    batch, a row each (memory, KV budget and pool, max concurrency, fit, TPOT, TTFT, tokens/s
    per GPU, USD per million tokens). Each grid option takes the CLI's text (``"1,2,4"``,
    ``"1024..131072:x2"``) or a list; ``ep``, ``dp``, ``gpus``, ``compute_dtype`` and
    ``moe_imbalance`` one value for every row, as ``memory`` and ``capacity`` take them;
    ``engine_options``: the engine options (``engine``, ``engine_version``, ``mem_util``,
    ``block_size``, ``max_batched_tokens``, ``max_num_seqs``, ``allreduce``, ``activation``,
    ``overhead``, ``max_model_len``, ``chunked_prefill``, ``prefix_cache``, ``moe_a2a``,
    ``cuda_graphs``, ``moe_backend``, ``rocm_kernels``). The whole grid is held in memory
    (the CLI streams it)."""
    from calc.reports.sweep import grid_of
    from calc.reports.sweep_io import sweep_report

    return sweep_report(
        grid_of(
            model, hardware, ctx, batch, tp, pp, ep=ep, dp=dp, gpus=gpus, prompt=prompt,
            weight_dtype=weight_dtype, kv_dtype=kv_dtype, compute_dtype=compute_dtype,
            usd_per_hour=usd_per_hour, efficiency=efficiency, latency=latency,
            calibration=calibration, moe_imbalance=moe_imbalance, **engine_options,
        )
    )  # fmt: skip


@dataclass(frozen=True)
class PlanResult(Report):
    """``kvcalc plan``'s result: ``fields`` (the load, the search, ``rows`` ranked cheapest
    first and the ``rejected`` families), ``figures`` (why the winner fits), and the
    objects behind them: ``choices`` and ``rejections`` (``calc.reports.plan``), ``launch``
    (the winner's engine commands) and ``query`` (the validated question)."""

    choices: tuple = ()
    rejections: tuple = ()
    launch: tuple = ()
    query: Any = field(default=None, repr=False, compare=False)

    command = "plan"


# long: one keyword per `kvcalc plan` option (the signature is most of it)
def plan(
    model: str | list[str],
    rate: float | None = None,
    prompt: str | int | None = None,
    gen: str | int | None = None,
    ttft_p99: str = "",
    tpot_p99: str = "",
    *,
    concurrency: int | None = None,
    trace: str | Path | None = None,
    prefix_shared: float = 0.0,
    hardware: str | list[str] | None = None,
    engine: str | list[str] = "vllm",
    engine_version: str | None = None,
    weight_dtype: str | list[str] | None = None,
    kv_dtype: str | list[str] | None = None,
    moe_imbalance: float | None = None,
    margin: str | float | None = None,
    max_gpus: int | None = None,
    budget_usd_per_hour: float | None = None,
    top: int = 10,
    price_basis: str = "neocloud_on_demand",
    price: str | None = None,
    usd_per_gpu_hour: float | None = None,
    derived_prices: bool = False,
    capex_usd_per_gpu: str | float | None = None,
    years: float | None = None,
    power_kw_per_gpu: float | None = None,
    pue: float | None = None,
    usd_per_kwh: float | None = None,
    method: str = "auto",
    disaggregation: bool = True,
    seed: int = 0,
    efficiency: str = "expected",
    calibration: str | Path | None = None,
    scheduler_recv_interval: int | None = None,
    batch_wait_iters: int | None = None,
    batch_wait_ratio: float | None = None,
) -> PlanResult:
    """``kvcalc plan``: the cheapest deployments (hardware × dtypes × tp/pp/ep × replicas ×
    engine, and prefill/decode disaggregation) that serve ``rate`` requests/s (or
    ``concurrency`` users, or a ``trace``) of ``prompt`` + ``gen`` tokens with p99 TTFT and
    TPOT within ``ttft_p99`` and ``tpot_p99`` ("2s", "50ms") at the pessimistic end of each
    class's measured error band (or ``margin``: 0.2 or "20%"), every GPU priced on one
    ``price_basis``; every rejected family with its reason, and the winner's launch commands.
    ``scheduler_recv_interval`` (SGLang), ``batch_wait_iters`` and ``batch_wait_ratio``
    (TensorRT-LLM): the families of the engine that has them run with them."""
    from calc.deploy.pricing import pricing_from
    from calc.reports.plan import PlanQuery
    from calc.reports.plan import plan as run_plan
    from calc.reports.sweep import as_text, parse_names

    if seed < 0 or seed >= 2**32:
        raise InvalidInputError(f"--seed must be in 0..{2**32 - 1}, got {seed}")
    hws = _names(hardware, "--hardware")  # "" is an empty list, not "every profile"
    pricing = pricing_from(
        price_basis=price_basis, price=price, usd_per_gpu_hour=usd_per_gpu_hour,
        derived_prices=derived_prices, capex_usd_per_gpu=capex_usd_per_gpu, years=years,
        power_kw_per_gpu=power_kw_per_gpu, pue=pue, usd_per_kwh=usd_per_kwh,
    )  # fmt: skip
    _check_owned(pricing, hws)
    given = [model] if isinstance(model, str) else list(model)
    query = PlanQuery(
        models=tuple(dict.fromkeys(n for m in given for n in parse_names(m, "--model"))),
        load=_plan_load(rate, prompt, gen, seed=seed, concurrency=concurrency, trace=trace,
                        prefix_shared=prefix_shared),
        slo=_plan_slo(ttft_p99, tpot_p99), hardware=hws,
        engines=tuple(parse_names(as_text(engine), "--engine")), max_gpus=max_gpus,
        budget_usd_per_hour=budget_usd_per_hour, pricing=pricing, top=top,
        disaggregation=disaggregation, efficiency=efficiency, calibration=calibration,
        margin=_margin(margin), weight_dtypes=_names(weight_dtype, "--weight-dtype"),
        kv_dtypes=_names(kv_dtype, "--kv-dtype"), engine_version=engine_version,
        moe_imbalance=moe_imbalance,
        admission=tuple((k, v) for k, v in (("recv_interval", scheduler_recv_interval),
                                            ("batch_wait_iters", batch_wait_iters),
                                            ("batch_wait_ratio", batch_wait_ratio))
                        if v is not None),
    )  # fmt: skip
    r = run_plan(query, method=method, seed=seed)
    return PlanResult(
        r.fields, r.figures, r.warnings, r.fields["rows"], choices=tuple(r.choices),
        rejections=tuple(r.rejections), launch=tuple(r.launch), query=query,
    )  # fmt: skip


def _check_owned(pricing, hws) -> None:
    """One capex figure prices one kind of owned GPU: refuse it over several profiles."""
    owned = pricing.owned
    if owned is not None and not isinstance(owned.capex_usd_per_gpu, dict):
        if hws is None or len(hws) != 1:
            raise InvalidInputError(
                "--capex-usd-per-gpu with one figure prices one kind of owned GPU: give one "
                "--hardware, or a figure per profile (h100=30000,b200=40000)"
            )


def _plan_load(rate, prompt, gen, *, seed, concurrency, trace, prefix_shared):
    """The plan's offered load (``calc.reports.plan_eval.Load``): a rate, N users or a trace."""
    from calc.reports.plan_eval import Load

    recorded = None
    if trace is not None:
        from calc.serve.workload import load_trace_csv

        recorded = load_trace_csv(trace)
    return Load.parse(
        rate,
        None if prompt is None else str(prompt),
        None if gen is None else str(gen),
        seed=seed,
        concurrency=concurrency,
        trace=recorded,
        prefix_shared=prefix_shared,
    )


def _plan_slo(ttft_p99: str, tpot_p99: str):
    """The p99 targets, each a time with its unit ("2s", "50ms")."""
    from calc.reports.plan import Slo
    from calc.serve.workload import parse_duration_s

    for flag, value in (("--ttft-p99", ttft_p99), ("--tpot-p99", tpot_p99)):
        if not value:
            raise InvalidInputError(f"{flag} is required (a time with its unit, e.g. 2s, 50ms)")
    return Slo(
        ttft_p99_s=parse_duration_s(ttft_p99, "--ttft-p99"),
        tpot_p99_s=parse_duration_s(tpot_p99, "--tpot-p99"),
    )


def _margin(value) -> float | None:
    """``margin`` 0.2, "0.2" or "20%" → 0.2."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    t = str(value).strip()
    try:
        return float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise InvalidInputError(
            f"--margin {t!r}: expected a fraction (0.2) or a percent (20%)"
        ) from None


def _names(value, flag: str) -> tuple[str, ...] | None:
    """A comma-separated text or a list of names, or None."""
    from calc.reports.sweep import as_text, parse_names

    return None if value is None else tuple(parse_names(as_text(value), flag))


def simulate(
    model: str,
    hardware: str,
    rate: float | None = None,
    prompt: str | int | None = None,
    gen: str | int | None = None,
    *,
    trace: str | Path | None = None,
    arrival: str = "poisson",
    requests: int | None = None,
    duration: str | None = None,
    seed: int = 0,
    ttft_slo: str | None = None,
    tpot_slo: str | None = None,
    prefix_shared: float = 0.0,
    sweep_rate: str | None = None,
    efficiency: str = "expected",
    per_request: str | Path | None = None,
    **deployment: Unpack[DeploymentOptions],
) -> SimReport:
    """``kvcalc simulate``: requests arriving at ``rate`` [requests/s] served on the
    deployment as vLLM/SGLang schedule them (continuous batching, chunked prefill, the KV
    pool), each step timed by the step-time model: TTFT, TPOT, ITL and E2E percentiles, queue,
    KV-pool occupancy, throughput, goodput under ``ttft_slo``/``tpot_slo`` ("2s", "50ms").
    ``prompt``/``gen``: a number or ``uniform:LO:HI`` / ``lognormal:MEAN:CV``; ``sweep_rate``
    ("1:20:1", "1,2,5"): one row per rate instead (``rows``); ``per_request``: also write each
    request as a JSON line to that file."""
    from calc.reports.serving import simulate_job

    notes: list[str] = []
    with _noting(notes):
        return simulate_job(
            lambda: _build(model, hardware, notes, deployment), notes,
            rate=rate, prompt=prompt, gen=gen, trace=trace, arrival=arrival,
            requests=requests, duration=duration, seed=seed, ttft_slo=ttft_slo,
            tpot_slo=tpot_slo, prefix_shared=prefix_shared, sweep_rate=sweep_rate,
            efficiency=efficiency, per_request=per_request,
        )  # fmt: skip


def train(
    model: str,
    hardware: str,
    ctx: int = 4096,
    micro_batch: int = 1,
    *,
    global_batch: int | None = None,
    tp: int = 1,
    pp: int = 1,
    ep: int = 1,
    cp: int = 1,
    dp: int | None = None,
    gpus: int | None = None,
    recipe: str = "bf16",
    zero: int = 0,
    recompute: str = "none",
    flash: bool = True,
    dropout: bool = False,
    sequence_parallel: bool = True,
    virtual_stages: int = 1,
    finetune: str = "full",
    lora_rank: int = 16,
    lora_targets: str = "all",
    adapter_dtype: str = "fp32",
    tokens: float | None = None,
    mfu: float | None = None,
    efficiency: str = "expected",
    usd_per_gpu_hour: float | None = None,
    price_basis: str = "neocloud_on_demand",
    price: str | None = None,
    derived_prices: bool = False,
    capex_usd_per_gpu: str | float | None = None,
    years: float | None = None,
    power_kw_per_gpu: float | None = None,
    pue: float | None = None,
    usd_per_kwh: float | None = None,
    utilization: float | None = None,
    power_w: float | None = None,
    overhead: str | float = "0.5GiB",
    network_bandwidth: str | float | None = None,
) -> TrainReport:
    """``kvcalc train``: memory per GPU (weights, gradients, optimizer states, activations)
    and the fit, FLOPs per token (6N + attention, recomputation), step time with pipeline
    bubble and communication, and with ``tokens`` the run's time, GPU-hours and dollars: a
    GPU-hour priced on ``price_basis``, at ``usd_per_gpu_hour``, or owned
    (``capex_usd_per_gpu`` with ``years``, ``power_kw_per_gpu`` (or ``power_w``), ``pue``,
    ``usd_per_kwh``, ``utilization``)."""
    from calc.data.registry import load_hardware, load_model
    from calc.data.units import parse_bytes, parse_bytes_or_none
    from calc.deploy.pricing import pricing_from
    from calc.training.report import train_report
    from calc.training.setup import TrainSetup, data_parallel

    dp = data_parallel(tp, pp, cp, dp, gpus)
    if power_w is not None:  # the older option, in W
        if power_kw_per_gpu is not None:
            raise InvalidInputError("give --power-kw-per-gpu or --power-w, not both")
        if not 0 < power_w <= 1e5:
            raise InvalidInputError(f"--power-w must be in (0, 100000], got {power_w!r}")
        power_kw_per_gpu = power_w / 1000
    if utilization is not None and capex_usd_per_gpu is None:
        raise InvalidInputError(
            "--utilization prices owned GPUs: give --capex-usd-per-gpu too, or leave it out"
        )
    pricing = pricing_from(
        price_basis=price_basis, price=price, usd_per_gpu_hour=usd_per_gpu_hour,
        derived_prices=derived_prices, capex_usd_per_gpu=capex_usd_per_gpu, years=years,
        power_kw_per_gpu=power_kw_per_gpu, pue=pue, usd_per_kwh=usd_per_kwh,
        utilisation=utilization,
    )  # fmt: skip
    setup = TrainSetup(
        ctx=ctx, micro_batch=micro_batch, global_batch=global_batch, tp=tp, pp=pp, cp=cp, ep=ep,
        dp=dp, recipe=recipe, zero=zero, recompute=recompute, flash=flash, dropout=dropout,
        sequence_parallel=sequence_parallel, virtual_stages=virtual_stages, finetune=finetune,
        lora_rank=lora_rank, lora_targets=lora_targets, adapter_dtype=adapter_dtype,
        tokens=tokens, mfu=mfu, efficiency=efficiency, pricing=pricing,
        overhead_bytes=parse_bytes(overhead, "--overhead"),
        network_bytes_per_s=parse_bytes_or_none(network_bandwidth, "--network-bandwidth"),
    )  # fmt: skip
    return train_report(load_model(model), load_hardware(hardware), setup)


def log(
    file: str | Path,
    *,
    model: str | None = None,
    hardware: str | None = None,
    tp: int | None = None,
    pp: int | None = None,
    engine: str | None = None,
    engine_version: str | None = None,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    calibration: str | Path | None = None,
    save_calibration: str | Path | None = None,
    mem_util: float | None = None,
    max_model_len: int | None = None,
    max_batched_tokens: int | None = None,
    max_num_seqs: int | None = None,
    block_size: int | None = None,
    activation: str | int | None = None,
    overhead: str | int | None = None,
    compile_cache: str | None = None,
    moe_backend: str | None = None,
) -> LogReport:
    """``kvcalc log``: an engine's start-up log (vLLM, SGLang, TensorRT-LLM; ``"-"``: stdin)
    beside kvcalc's prediction of the same start-up, term by term (``rows``), each with its
    error (predicted − printed) / printed. Options a log does not state fall back to these
    arguments, and the engine settings given (``mem_util`` ... ``overhead``, as the deployment
    options) override what it states; ``calibration``: the overheads a former
    ``save_calibration`` wrote, predicted with; ``save_calibration``: write the log's measured
    overheads to this YAML file."""
    from calc.reports.engine_log import log_file_report

    return log_file_report(
        Path(file), model=model, hardware=hardware, tp=tp, pp=pp, engine=engine,
        engine_version=engine_version, weight_dtype=weight_dtype, kv_dtype=kv_dtype,
        calibration=calibration, save_calibration=save_calibration, mem_util=mem_util,
        max_model_len=max_model_len, max_batched_tokens=max_batched_tokens,
        max_num_seqs=max_num_seqs, block_size=block_size, activation=activation,
        overhead=overhead, compile_cache=compile_cache, moe_backend=moe_backend,
    )  # fmt: skip


# the deployment options `kvcalc score` takes: every one, over what a result file or log states
_SCORE_OPTIONS = tuple(DeploymentOptions.__annotations__)


def score(
    files: str | Path | list[str | Path],
    *,
    model: str | None = None,
    hardware: str | None = None,
    log: str | Path | None = None,
    prompt: str | None = None,
    gen: str | None = None,
    seed: int = 0,
    prefix_cached: float = 0.0,
    concurrency: int | None = None,
    efficiency: str = "expected",
    save_calibration: str | Path | None = None,
    fit: str | None = None,
    pool_from_file: bool = False,
    **deployment: Any,
) -> ScoreReport:
    """``kvcalc score``: benchmark result files (vllm bench serve, SGLang bench_serving,
    GuideLLM, AIPerf / GenAI-Perf, trtllm-bench) replayed through the serving simulation,
    each measured figure beside the prediction with its signed error (``rows``); with
    ``save_calibration`` a step calibration fitted to the runs (``fit``: its parameters).
    ``deployment``: every one of ``DeploymentOptions``, over what the file and ``log`` state
    (``tp``, ``pp``, ``ep`` and ``engine`` default to the file's, else 1 and vllm);
    ``concurrency``: the client's limit on open requests, for files that do not record it
    (trtllm-bench's report, GenAI-Perf's printed table) or to replace the recorded one;
    ``pool_from_file``: replay the KV pool, running-request cap and chunk the file records the
    server ran with (SGLang's ``server_info``, trtllm-bench's runtime limits) in place of
    kvcalc's (``calc.reports.score_pool``; the rows ``kv_cache_tokens``, ``max_num_seqs`` and
    ``max_batched_tokens`` compare them either way)."""
    from calc.deploy.options import check_options
    from calc.reports.score_report import score_files

    check_options(deployment, _SCORE_OPTIONS, "score option")
    from calc.deploy.engines import engine_name

    if deployment.get("engine") is not None:  # "TRT-LLM" -> trtllm; else the nearest named
        deployment = {**deployment, "engine": engine_name(deployment["engine"])}
    paths = [Path(files)] if isinstance(files, str | Path) else [Path(f) for f in files]
    if not paths:
        raise InvalidInputError("give at least one result file")
    if save_calibration is not None:
        from calc.output.render import check_output_path, check_yaml_output

        check_output_path(Path(save_calibration), "--save-calibration")
        check_yaml_output(save_calibration, "--save-calibration")
    given = {"model": model, "hardware": hardware, **{k: deployment.get(k) for k in _SCORE_OPTIONS}}
    notes: list[str] = []
    with _noting(notes):
        report = score_files(
            paths, given, build=lambda options: _score_deployment(options, notes), log=log,
            prompt=prompt, gen=gen, seed=seed, efficiency=efficiency, fit=fit,
            save_calibration=save_calibration, prefix_cached=prefix_cached,
            concurrency=concurrency, pool_from_file=pool_from_file,
        )  # fmt: skip
        return _said(report, notes)


def _score_deployment(options: dict, notes: list[str]):
    """A Deployment of the merged options (the command's, the log's, the file's)."""
    from calc.deploy.options import build_deployment

    opts = {k: v for k, v in options.items() if v is not None}
    opts.setdefault("engine", "vllm")
    for key in ("tp", "pp", "ep"):
        opts.setdefault(key, 1)
    return build_deployment(opts.pop("model"), opts.pop("hardware"), notes=notes, **opts)


def check(spec: str | Path, *, calibration: str | Path | None = None) -> CheckReport:
    """``kvcalc check``: each deployment of the YAML ``spec`` (docs/check-spec.md) against its
    requirements (fit, concurrency, TPOT, TTFT, USD per million tokens, percentiles under
    load): a row per requirement with the computed figure, the limit and ``passed``;
    ``fields["passed"]`` is true when all pass (the CLI's exit status 0, else 1)."""
    from calc.reports.check_spec import check_report

    return check_report(Path(spec), None if calibration is None else Path(calibration))
