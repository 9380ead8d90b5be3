"""A grid of deployments [one row per model × hardware × dtypes × tp × pp × prompt × ctx ×
batch] with memory, capacity, latency, throughput and cost columns, evaluated with the same
formula functions as ``capacity``, ``cost`` and ``latency`` vectorised over numpy arrays.

The only Python loop is over the categorical combinations (model, hardware, weight dtype, KV
dtype, tp, pp, prompt) and over chunks of at most ``CHUNK_ROWS`` rows: within a chunk, every
ctx × batch pair is one broadcast numpy evaluation, never a loop over rows. ``plan`` validates
the grid and streams its chunks (``calc.reports.sweep_io`` writes them), so memory does not
grow with the row count; ``sweep`` gathers a small grid in memory. A row that does not fit has
NaN cost columns. ``parse_values`` reads lists and ranges: ``1,2,4``, ``1024..131072:x2``
(geometric), ``0..4096:+512`` (arithmetic), ``1..8`` (step 1), mixed with commas.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from calc.errors import InvalidInputError, KvcalcError

if TYPE_CHECKING:
    from calc.deploy.deployment import EngineSettings

MAX_VALUES = 10_000_000
GRID_KEYS = ("model", "hardware", "weight_dtype", "kv_dtype", "tp", "pp", "prompt", "ctx", "batch")
MAX_ROWS = 50_000_000
SERVING_COLUMNS = (
    "serving_concurrency",
    "serving_cycle_s",
    "serving_output_tokens_per_s_per_gpu",
    "serving_input_tokens_per_s_per_gpu",
    "usd_per_million_output_tokens_serving",
    "usd_per_million_tokens_serving",
)
COLUMNS = (
    "model",
    "hardware",
    "weight_dtype",
    "kv_dtype",
    "tp",
    "ctx",
    "batch",
    "weights_bytes_per_gpu",
    "kv_budget_bytes",
    "kv_bytes_per_sequence_per_gpu",
    "kv_cache_bytes_per_gpu",
    "kv_cache_tokens",
    "max_concurrency",
    "fits",
    "tpot_s",
    "ttft_one_prompt_s",
    "output_tokens_per_s_per_gpu",
    "usd_per_million_output_tokens",
    "usd_per_million_input_tokens",
    # additions (after the original columns, whose order is a contract)
    "pp",
    "prompt",
    "gpus",
    "usd_per_gpu_hour",
    "ssm_state_bytes_per_gpu",
    # steady-state serving throughput with prefill charged (calc.reports.throughput): requests
    # of prompt + gen tokens, gen = ctx − prompt (at least 1); the same as cost and latency
    "gen",
    *SERVING_COLUMNS,
    # the hardware profile carries the --calibration file's figures (plan marks its rows alike)
    "calibrated",
)
LATENCY_COLUMNS = (
    *SERVING_COLUMNS,
    "tpot_s",
    "ttft_one_prompt_s",
    "output_tokens_per_s_per_gpu",
    "usd_per_million_output_tokens",
    "usd_per_million_input_tokens",
    "usd_per_gpu_hour",
)
CHUNK_ROWS = 1 << 16  # rows evaluated and written at a time: ~20 MB of text buffers
_RANGE = re.compile(r"^([0-9]+)\.\.([0-9]+)(?::([x+])([0-9]+(?:\.[0-9]+)?))?$")
MAX_ITEM_CHARS = 40  # "1024..131072:x2" is 15; checked before int() of a 5,000-digit string


def parse_values(text: str, flag: str) -> list[int]:
    """Positive integers from ``1,2,4``, ``a..b`` (step 1), ``a..b:+s`` or ``a..b:xf``."""
    out: list[int] = []
    for item in str(text).replace(" ", "").split(","):
        if not item:
            raise InvalidInputError(f"{flag} {text!r}: empty item (write e.g. 1,2,4 or 1..64:x2)")
        if len(item) > MAX_ITEM_CHARS:
            raise InvalidInputError(
                f"{flag}: {item[:20]!r}... is too long for a value or a range "
                f"(at most {MAX_ITEM_CHARS} characters)"
            )
        if item.isascii() and item.isdigit():
            out.append(int(item))
            continue
        m = _RANGE.match(item)
        if m is None:
            raise InvalidInputError(
                f"{flag} {text!r}: cannot read {item!r}; write a list 1,2,4 or a range "
                "a..b, a..b:+step (arithmetic) or a..b:xfactor (geometric), e.g. 1024..131072:x2"
            )
        lo, hi, kind, step = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        if lo > hi:
            raise InvalidInputError(f"{flag} {item!r}: the start exceeds the end")
        if kind == "x":
            factor = float(step)
            if factor <= 1:
                raise InvalidInputError(f"{flag} {item!r}: the factor must exceed 1")
            if lo == 0:
                raise InvalidInputError(f"{flag} {item!r}: a geometric range starts above 0")
            n = math.floor(math.log(hi / lo, factor) + 1e-9) + 1
            if n > MAX_VALUES:
                raise InvalidInputError(f"{flag} {item!r}: more than {MAX_VALUES:,} values")
            vals = sorted({round(lo * factor**i) for i in range(n)})
        else:
            s = 1 if kind is None else float(step)
            if s <= 0 or s != int(s):
                raise InvalidInputError(f"{flag} {item!r}: the step must be a positive integer")
            if (hi - lo) // int(s) + 1 > MAX_VALUES:
                raise InvalidInputError(f"{flag} {item!r}: more than {MAX_VALUES:,} values")
            vals = list(range(lo, hi + 1, int(s)))
        out.extend(vals)
        if len(out) > MAX_VALUES:
            raise InvalidInputError(f"{flag}: more than {MAX_VALUES:,} values")
    out = list(dict.fromkeys(out))
    if any(v <= 0 for v in out):
        raise InvalidInputError(f"{flag} {text!r}: values must be positive")
    return out


def parse_names(text: str | None, flag: str) -> list[str | None]:
    """Comma-separated names; None (flag not given) stands for the default."""
    if text is None:
        return [None]
    names = [t.strip() for t in str(text).split(",")]
    if not all(names):
        raise InvalidInputError(f"{flag} {text!r}: empty name in the list")
    return list(dict.fromkeys(names))


@dataclass
class Chunk:
    """Rows of one (model, hardware, dtypes, tp, pp, prompt) group over a slice of ctx × batch,
    ctx-major: each column is a Python scalar (the same on every row) or a numpy array that
    broadcasts to ``shape`` = (ctx values, batch values): [C, 1] per ctx, [1, B] per batch,
    [C, B] per row. Writers format each value once at its own shape."""

    columns: dict
    shape: tuple[int, int]
    # column -> bool [C, B]: where False the value is NaN (kept at its own, smaller shape so
    # that it is formatted once per ctx rather than once per row)
    masks: dict = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        return self.shape[0] * self.shape[1]

    def flat(self) -> dict:
        """Every column as a 1-D array of ``n_rows`` values (row order)."""
        import numpy as np

        out = {}
        for key, v in self.columns.items():
            if key in self.masks:
                v = np.where(self.masks[key], v, np.nan)
            if isinstance(v, np.ndarray):
                out[key] = np.ascontiguousarray(np.broadcast_to(v, self.shape)).reshape(-1)
            else:
                out[key] = np.full(self.n_rows, v)
        return out


@dataclass
class SweepPlan:
    """A validated grid: its row count and column names up front, its rows as a stream of
    ``Chunk`` (memory independent of the row count). ``warnings`` gains the count of rows that
    do not fit once the stream is exhausted."""

    columns: tuple[str, ...]
    n_rows: int
    groups: list = field(repr=False)  # (Deployment, prompt, price) each
    ctx: object = field(repr=False)
    batch: object = field(repr=False)
    options: dict = field(repr=False)
    warnings: list[str] = field(default_factory=list)
    chunk_rows: int = CHUNK_ROWS

    @property
    def n_chunks(self) -> int:
        c_step = max(1, self.chunk_rows // self.batch.size)
        b_step = min(self.batch.size, self.chunk_rows)
        per_group = -(-self.ctx.size // c_step) * -(-self.batch.size // b_step)
        return len(self.groups) * per_group

    def lazy_chunks(self) -> Iterator[Callable[[], Chunk]]:
        """Every chunk as a function that computes it (a worker computes only its share)."""
        for group in self.groups:
            yield from _group_chunks(*group, self.ctx, self.batch, self.chunk_rows,
                                     **self.options)  # fmt: skip

    def chunks(self) -> Iterator[Chunk]:
        not_fitting = 0
        for make in self.lazy_chunks():
            chunk = make()
            not_fitting += not_fitting_rows(chunk)
            yield chunk
        self.count_not_fitting(not_fitting)

    def count_not_fitting(self, n: int) -> None:
        """The one warning line for the rows whose cost is left empty."""
        if n:
            self.warnings.append(
                f"{n:,} of {self.n_rows:,} rows do not fit (fits false): their "
                "batch cost columns (usd_per_million_output_tokens, "
                "usd_per_million_input_tokens) are left empty"
            )


def not_fitting_rows(chunk: Chunk) -> int:
    """Rows of ``chunk`` priced as NaN because they do not fit (0 without cost columns)."""
    if "usd_per_million_output_tokens" not in chunk.columns:
        return 0
    return chunk.n_rows - _count(chunk.columns["fits"], chunk.shape)


def _count(fits, shape) -> int:
    import numpy as np

    return int(np.count_nonzero(np.broadcast_to(fits, shape)))


@dataclass
class SweepResult:
    """Columns (numpy arrays of equal length) in ``COLUMNS`` order."""

    columns: dict
    n_rows: int
    warnings: list[str] = field(default_factory=list)

    def rows(self, limit: int | None = None) -> list[dict]:
        n = self.n_rows if limit is None else min(limit, self.n_rows)
        lists = {k: v[:n].tolist() for k, v in self.columns.items()}
        return [dict(zip(lists, vals, strict=True)) for vals in zip(*lists.values(), strict=True)]


def _group_chunks(dep, prompt, price, calibrated, ctx, batch, chunk_rows, *, latency, efficiency):
    """The chunks of one deployment (model, hardware, dtypes, tp, pp) at one ``prompt``: the
    per-group figures once, then ctx × batch broadcast a slice at a time. ``prompt`` None: the
    prompt is the ctx. Per-GPU figures are the deployment's ledger (``calc.deploy.ledger``) on
    arrays, as every other command evaluates it on scalars; times are ``calc.reports.cost``'s."""
    from calc.deploy.steps import step_of
    from calc.reports.throughput import serving_gen

    g = dep.per_gpu
    ttft_one = None
    if latency and prompt is not None:
        ttft_one = float(step_of(dep, efficiency, batch=1, prompt=prompt).time_s)
    head = {
        "model": dep.model.name,
        "hardware": dep.hardware.name,
        "weight_dtype": dep.weight_dtype,
        "kv_dtype": dep.kv_dtype,
        "tp": dep.tp,
    }
    c_step = max(1, chunk_rows // batch.size)
    b_step = min(batch.size, chunk_rows)
    times = _Times(dep, prompt, ttft_one, float(price), efficiency)

    def make(c0: int, b0: int) -> Chunk:
        c = ctx[c0 : c0 + c_step, None]  # [C, 1]
        b = batch[None, b0 : b0 + b_step]  # [1, B]
        cols, masks = _ledger_columns(g, head, c, b)
        if latency:
            times.batch_columns(cols, masks, c, b)
        cols.update(pp=dep.pp, prompt=c if prompt is None else prompt, gpus=dep.gpus)
        if latency:
            cols["usd_per_gpu_hour"] = float(price)
        cols["ssm_state_bytes_per_gpu"] = g.sequences(b) * g.ssm_state_bytes_per_sequence
        cols["gen"] = serving_gen(c if prompt is None else prompt, c)  # [C, 1]
        if latency:
            times.serving_columns(cols, masks, c)
        cols["calibrated"] = calibrated
        return Chunk(cols, (c.shape[0], b.shape[1]), masks)

    for c0 in range(0, ctx.size, c_step):
        for b0 in range(0, batch.size, b_step):
            yield functools.partial(make, c0, b0)


def _ledger_columns(g, head: dict, c, b) -> tuple[dict, dict]:
    """(columns, masks) of the per-GPU ledger at ctx ``c`` [C, 1] and batch ``b`` [1, B]."""
    import numpy as np

    seq = g.sequence_bytes(c)  # [C, 1]: KV paged to whole blocks + SSM state
    cols = {
        **head,
        "ctx": c,
        "batch": b,
        "weights_bytes_per_gpu": float(g.weights_bytes),
        "kv_budget_bytes": g.kv_budget_bytes,
        "kv_bytes_per_sequence_per_gpu": seq - g.ssm_state_bytes_per_sequence,
        "kv_cache_bytes_per_gpu": g.sequences(b) * g.kv_bytes_per_sequence(c),  # [1, B] × [C, 1]
        "kv_cache_tokens": g.kv_cache_tokens,
        "max_concurrency": np.asarray(g.max_concurrency(c)).astype(np.int64),  # [C, 1]
        "fits": np.asarray(g.fits(c, b)),  # [C, B]
    }
    return cols, {}


@dataclass(frozen=True)
class _Times:
    """The time and cost columns of one group: ``prompt`` None is each row's ctx,
    ``ttft_one`` the TTFT of one given prompt [s], ``price`` USD per GPU-hour."""

    dep: Any  # calc.deploy.deployment.Deployment
    prompt: int | None
    ttft_one: float | None
    price: float
    efficiency: str

    def batch_columns(self, cols: dict, masks: dict, c, b) -> None:
        """TPOT, TTFT, tokens/s and USD per million tokens at each ctx and batch."""
        import numpy as np

        from calc.deploy.steps import step_of
        from calc.reports.cost import (
            input_tokens_per_s_per_gpu,
            output_tokens_per_s_per_gpu,
            tpot_at,
            usd_per_million_tokens,
        )

        dep, eff, gpus = self.dep, self.efficiency, self.dep.gpus
        tpot = tpot_at(dep, b.astype(np.float64), c.astype(np.float64), eff)
        if self.prompt is None:  # the prompt is the ctx: one prefill per ctx [C, 1]
            prompt_tokens = c
            ttft = step_of(dep, eff, batch=1, prompt=c.astype(np.float64)).time_s
        else:
            prompt_tokens, ttft = self.prompt, self.ttft_one
        out_tps = output_tokens_per_s_per_gpu(b, tpot, gpus)
        in_tps = input_tokens_per_s_per_gpu(prompt_tokens, 1, ttft, gpus)
        # a configuration that does not fit has no price: NaN (an empty cell, null)
        cols.update(
            tpot_s=tpot,
            ttft_one_prompt_s=ttft,
            output_tokens_per_s_per_gpu=out_tps,
            usd_per_million_output_tokens=np.where(
                cols["fits"], usd_per_million_tokens(self.price, out_tps), np.nan
            ),
            usd_per_million_input_tokens=usd_per_million_tokens(self.price, in_tps),
        )
        masks["usd_per_million_input_tokens"] = cols["fits"]

    def serving_columns(self, cols: dict, masks: dict, c) -> None:
        """Steady-state serving per ctx [C, 1]: the engine picks its own concurrency, not the
        batch."""
        import numpy as np

        from calc.reports.throughput import serving_throughput

        p_tokens = c if self.prompt is None else self.prompt
        s = serving_throughput(
            self.dep,
            prompt=np.broadcast_to(p_tokens, c.shape),
            gen=cols["gen"],
            efficiency=self.efficiency,
        )
        cols.update(s.fields(self.price))
        some = np.asarray(s.concurrency) >= 1
        if not some.all():  # no sequence fits: empty, as cost's null
            masks["serving_concurrency"] = some


def plan(
    models: list[str],
    hardware: list[str],
    *,
    ctx: list[int],
    batch: list[int],
    tp: list[int] = (1,),  # type: ignore[assignment]
    pp: list[int] = (1,),  # type: ignore[assignment]
    ep: int = 1,
    dp: int | None = None,
    gpus: int | None = None,
    prompt: list[int] | None = None,
    weight_dtypes: list[str | None] = (None,),  # type: ignore[assignment]
    kv_dtypes: list[str | None] = (None,),  # type: ignore[assignment]
    compute_dtype: str | None = None,
    moe_imbalance: float | None = None,
    engine: EngineSettings | None = None,
    usd_per_hour: float | None = None,
    latency: bool = True,
    efficiency: str = "expected",
    calibration=None,
    chunk_rows: int = CHUNK_ROWS,
) -> SweepPlan:
    """Validate the grid (names, ranges, size) before any arithmetic; rows are ordered model,
    hardware, weight dtype, KV dtype, tp, pp, prompt, ctx, batch (the last varies fastest).
    ``prompt`` None: each row's prompt is its ctx; ``engine`` None: vLLM's defaults. ``ep``,
    ``dp``, ``gpus``, ``compute_dtype`` and ``moe_imbalance`` hold for every row, as the other
    sizing commands take them."""
    import numpy as np

    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.options import said_of_gpus
    from calc.deploy.rates import check_efficiency
    from calc.reports.cost import _price

    settings = engine or EngineSettings()
    check_efficiency(efficiency)
    prompts = _check_sizes(ctx, batch, tp, pp, prompt)
    warnings: list[str] = []
    cfgs, hws = _load(models, hardware, max(ctx), calibration, warnings)
    _check_names(cfgs, weight_dtypes, kv_dtypes, max(pp))
    prices = [_price(hw, usd_per_hour) for hw in hws]
    marks = [False] * len(hws)
    if calibration is not None:  # which profiles the file moved (plan's test, imported only then)
        from calc.reports.calibration_mark import is_calibrated

        marks = [is_calibrated(hw) for hw in hws]
    alone = gpus is not None and list(tp) == [1] and list(pp) == [1] and dp is None
    layouts = _layouts(tp, pp, dp, gpus, alone)
    n_groups = len(cfgs) * len(hws) * len(weight_dtypes) * len(kv_dtypes) * len(layouts)
    n_rows = n_groups * len(prompts) * len(ctx) * len(batch)
    if n_rows > MAX_ROWS:
        raise InvalidInputError(
            f"the grid has {n_rows:,} rows, more than {MAX_ROWS:,}; narrow a range"
        )
    groups = []
    for cfg, (hw, price, mark), wd0, kd0, (t, p, d), pr in itertools.product(
        cfgs, zip(hws, prices, marks, strict=True), weight_dtypes, kv_dtypes, layouts, prompts
    ):
        try:
            dep = Deployment.build(cfg, hw, tp=t, pp=p, ep=ep, dp=d, weight_dtype=wd0,
                                   kv_dtype=kd0, compute_dtype=compute_dtype,
                                   moe_imbalance=moe_imbalance, engine=settings)  # fmt: skip
        except InvalidInputError as exc:
            if not alone:
                raise
            raise said_of_gpus(exc, t, gpus) from None
        groups.append((dep, pr, price, mark))
    columns = COLUMNS if latency else tuple(c for c in COLUMNS if c not in LATENCY_COLUMNS)
    options = dict(latency=latency, efficiency=efficiency)
    return SweepPlan(
        columns,
        n_rows,
        groups,
        np.asarray(ctx, dtype=np.int64),
        np.asarray(batch, dtype=np.int64),
        options,
        warnings,
        chunk_rows,
    )


ENGINE_OPTIONS = ("engine", "engine_version", "mem_util", "block_size", "max_batched_tokens",
                  "max_num_seqs", "allreduce", "activation", "overhead", "max_model_len",
                  "chunked_prefill", "prefix_cache", "moe_a2a", "cuda_graphs",
                  "moe_backend", "compile_cache", "rocm_kernels", "scheduler_recv_interval",
                  "batch_wait_iters", "batch_wait_ratio", "mamba_ssm_dtype",
                  "max_mamba_cache_size", "max_prefill_tokens")  # fmt: skip


def as_text(value) -> str | None:
    """A grid option as the CLI's text: a list (or one number) joined with commas."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    return ",".join(str(v) for v in value)


def grid_of(
    model, hardware, ctx, batch="1", tp="1", pp="1", *, ep=1, dp=None, gpus=None, prompt=None,
    weight_dtype=None, kv_dtype=None, compute_dtype=None, usd_per_hour=None,
    efficiency="expected", latency=True, calibration=None, moe_imbalance=None, **engine,
) -> SweepPlan:  # fmt: skip
    """The validated grid of `kvcalc sweep`'s options, each the CLI's text ("1,2,4",
    "1024..131072:x2") or a list; ``engine``: the engine options (``ENGINE_OPTIONS``). An
    engine release not modelled is the first warning."""
    from calc.deploy.deployment import EngineSettings
    from calc.deploy.engines import engine as engine_of
    from calc.deploy.options import check_options

    check_options(engine, ENGINE_OPTIONS, "sweep option")
    settings = EngineSettings.of(engine)
    found = engine_of(settings.name).versions.resolve(settings.version)
    said = [found.warning] if found.warning else []
    try:
        grid = plan(
            parse_names(as_text(model), "--model"),  # type: ignore[arg-type]
            parse_names(as_text(hardware), "--hardware"),  # type: ignore[arg-type]
            ctx=parse_values(as_text(ctx), "--ctx"),
            batch=parse_values(as_text(batch), "--batch"),
            tp=parse_values(as_text(tp), "--tp"),
            pp=parse_values(as_text(pp), "--pp"),
            ep=ep,
            dp=dp,
            gpus=gpus,
            prompt=None if prompt is None else parse_values(as_text(prompt), "--prompt"),
            weight_dtypes=parse_names(as_text(weight_dtype), "--weight-dtype"),
            kv_dtypes=parse_names(as_text(kv_dtype), "--kv-dtype"),
            compute_dtype=compute_dtype,
            moe_imbalance=moe_imbalance,
            usd_per_hour=usd_per_hour,
            latency=latency,
            efficiency=efficiency,
            calibration=calibration,
            engine=settings,
        )
    except KvcalcError as exc:  # the release's warning is said before the error
        exc.warnings = said  # type: ignore[attr-defined]
        raise
    grid.warnings[:0] = said
    if calibration is not None:  # fitted to another engine, release, model or dtype: said
        grid.warnings += _calibration_notes(calibration, settings, model, weight_dtype)
    return grid


def _calibration_notes(calibration, engine, model, weight_dtype) -> list[str]:
    """The calibration's mismatch over the grid's models and weight formats (each model's
    released format where none is given): one line or none."""
    from calc.data.registry import load_model
    from calc.deploy.calibration_match import models_note

    cfgs = [load_model(m) for m in parse_names(as_text(model), "--model")]
    formats = parse_names(as_text(weight_dtype), "--weight-dtype") if weight_dtype else [None]
    said = {models_note(calibration, engine, cfgs, f) for f in formats} - {None}
    return sorted(said)[:1]


def _layouts(tp: list[int], pp: list[int], dp: int | None, gpus: int | None,
             alone: bool) -> list[tuple]:  # fmt: skip
    """The grid's (tp, pp, dp), tp varying slower than pp, with ``--gpus`` applied as every
    sizing command applies it (``calc.deploy.options.resolve_gpus``): ``alone`` (no --tp, --pp
    or --dp) the tensor-parallel size, else the GPUs in all of each row, the rest
    data-parallel replicas."""
    from calc.deploy.options import gpus_as_tp, gpus_replicas

    if gpus is None:
        return [(t, p, dp) for t in tp for p in pp]
    if alone:
        return [(gpus_as_tp(gpus), 1, None)]
    return [(t, p, gpus_replicas(t, p, dp, gpus)) for t in tp for p in pp]


def _check_sizes(ctx, batch, tp, pp, prompt) -> list[int | None]:
    """The grid's sizes within bounds; the prompts of its rows (None: each row's ctx)."""
    from calc.data.limits import MAX_BATCH, MAX_CTX

    if max(ctx) > MAX_CTX or max(batch) > MAX_BATCH or max(tp) > 4096 or max(pp) > 4096:
        raise InvalidInputError(
            f"--ctx ≤ {MAX_CTX:,}, --batch ≤ {MAX_BATCH:,}, --tp and --pp ≤ 4,096 please"
        )
    if prompt is None:
        return [None]
    if max(prompt) > min(ctx):
        raise InvalidInputError(
            f"--prompt {max(prompt):,} exceeds --ctx {min(ctx):,}: the prompt is part of "
            "the context; lower --prompt or raise the smallest --ctx"
        )
    return list(prompt)


def _load(models, hardware, max_ctx: int, calibration, warnings: list[str]) -> tuple[list, list]:
    """(model configs, hardware profiles with the calibration applied); a context past a
    model's limit is a warning."""
    from calc.data.registry import load_hardware, load_model

    cfgs = [load_model(m) for m in models]
    warnings += [  # past the model's context limit (RoPE scaling, max_position_embeddings)
        f"--ctx {max_ctx:,} exceeds {c.name}'s max context of {c.context_limit:,}"
        for c in cfgs
        if max_ctx > c.context_limit
    ]
    hws = [load_hardware(h) for h in hardware]
    if calibration is not None:
        from calc.data.calibration import apply_calibration, calibrated, load_calibration

        cal = load_calibration(calibration)
        if len(hws) > 1 and cal.hardware in {h.name for h in hws}:
            # a grid of several GPUs: the profile it was made on alone (as plan applies it)
            hws = [apply_calibration(h, cal, calibration) if h.name == cal.hardware else h
                   for h in hws]  # fmt: skip
        else:  # its GPU is not in the grid: applied to each, with a warning (as latency)
            hws = [calibrated(h, calibration, warnings) for h in hws]
    return cfgs, hws


def _check_names(cfgs, weight_dtypes, kv_dtypes, max_pp: int) -> None:
    """Fail before any work on an unknown format name (UnknownNameError lists the valid ones)
    or more stages than a model has layers."""
    from calc.formulas.quant import kv_format, weight_format

    for d in weight_dtypes:
        if d is not None:
            weight_format(d)
    for d in kv_dtypes:
        if d is not None:
            kv_format(d)
    for cfg in cfgs:
        if max_pp > cfg.n_layers:
            raise InvalidInputError(f"--pp {max_pp} exceeds {cfg.name}'s {cfg.n_layers} layers")


def sweep(models: list[str], hardware: list[str], **kw) -> SweepResult:
    """The whole grid in memory (``plan`` takes the same keywords): for small grids, tests and
    the library; the CLI streams ``plan(...).chunks()`` instead."""
    import numpy as np

    p = plan(models, hardware, **kw)
    parts = [chunk.flat() for chunk in p.chunks()]
    columns = {
        key: np.concatenate([part[key] for part in parts]) if parts else np.zeros(0)
        for key in p.columns
    }
    return SweepResult(columns, p.n_rows, p.warnings)
