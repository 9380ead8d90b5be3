"""A grid of deployments [one row per model × hardware × dtypes × tp × ctx × batch] with memory,
capacity, latency, throughput and cost columns, evaluated with the same formula functions as
``capacity``, ``cost`` and ``latency`` vectorised over numpy arrays.

The only Python loop is over the categorical combinations (model, hardware, weight dtype, KV
dtype, tp): within each, every ctx × batch pair is one broadcast numpy evaluation, never a loop
over rows. ``parse_values`` reads lists and ranges: ``1,2,4``, ``1024..131072:x2``
(geometric), ``0..4096:+512`` (arithmetic), ``1..8`` (step 1), mixed with commas.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field

from calc.errors import InvalidInputError

MAX_VALUES = 10_000_000
GRID_KEYS = ("model", "hardware", "weight_dtype", "kv_dtype", "tp", "ctx", "batch")
MAX_ROWS = 50_000_000
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
    "kv_bytes_per_sequence",
    "kv_cache_bytes",
    "kv_cache_tokens",
    "max_concurrency",
    "fits",
    "tpot_s",
    "ttft_s",
    "tokens_per_s",
    "usd_per_million_output_tokens",
    "usd_per_million_input_tokens",
)
_RANGE = re.compile(r"^(\d+)\.\.(\d+)(?::([x+])(\d+(?:\.\d+)?))?$")


def parse_values(text: str, flag: str) -> list[int]:
    """Positive integers from ``1,2,4``, ``a..b`` (step 1), ``a..b:+s`` or ``a..b:xf``."""
    out: list[int] = []
    for item in str(text).replace(" ", "").split(","):
        if not item:
            raise InvalidInputError(f"{flag} {text!r}: empty item (write e.g. 1,2,4 or 1..64:x2)")
        if item.isdigit():
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
class SweepResult:
    """Columns (numpy arrays of equal length) in ``COLUMNS`` order."""

    columns: dict
    n_rows: int
    warnings: list[str] = field(default_factory=list)

    def rows(self, limit: int | None = None) -> list[dict]:
        n = self.n_rows if limit is None else min(limit, self.n_rows)
        lists = {k: v[:n].tolist() for k, v in self.columns.items()}
        return [dict(zip(lists, vals, strict=True)) for vals in zip(*lists.values(), strict=True)]


def _group(cfg, hw, wd, kd, tp, ctx, batch, *, engine, mem_util, block_size, mbt, act, over,
           price, latency, efficiency):  # fmt: skip
    """Columns for one (model, hardware, dtypes, tp): ctx × batch broadcast, flattened."""
    import numpy as np

    from calc.attention_layout import attention_layout
    from calc.capacity import (
        PerGpuLayout,
        activation_peak_bytes,
        model_shape,
        paged_tokens,
        pool_units,
        weights_bytes_per_gpu,
    )
    from calc.cost import output_tokens_per_s_per_gpu, usd_per_million_tokens
    from calc.engines import engine_kv_budget_bytes
    from calc.quant import kv_bytes_per_element, weight_bytes_per_element

    layout = attention_layout(cfg)
    w_b = weight_bytes_per_element(wd, k=cfg.d_model)  # scales included, as in capacity
    kv_b = kv_bytes_per_element(kd, layout.kv_head_width)
    s = model_shape(cfg)
    gpu = PerGpuLayout(layout, tp, 1)
    weights = weights_bytes_per_gpu(cfg, tp, 1, w_b)
    if act is None:
        act = activation_peak_bytes(mbt, s.d_model, s.attn_width, s.ffn_width, tp, s.vocab_size)
    budget = math.floor(
        engine_kv_budget_bytes(engine, hw.memory_bytes, mem_util, weights, act, over)
    )
    block_bytes = gpu.kv_bytes_per_sequence(block_size, kv_b)
    pool_tokens = int(pool_units(budget, block_bytes)) * block_size
    c = ctx[:, None]  # [C, 1]
    b = batch[None, :]  # [1, B]
    seq = gpu.kv_bytes_per_sequence(paged_tokens(c, block_size), kv_b)  # [C, 1]
    conc = pool_units(budget, seq)  # [C, 1]
    shape = (ctx.size, batch.size)
    cols = {
        "tp": np.full(shape, tp, dtype=np.int64),
        "ctx": np.broadcast_to(c, shape),
        "batch": np.broadcast_to(b, shape),
        "weights_bytes_per_gpu": np.full(shape, weights, dtype=np.float64),
        "kv_budget_bytes": np.full(shape, budget, dtype=np.int64),
        "kv_bytes_per_sequence": np.broadcast_to(seq, shape),
        "kv_cache_bytes": b * seq,
        "kv_cache_tokens": np.full(shape, pool_tokens, dtype=np.int64),
        "max_concurrency": np.broadcast_to(conc, shape).astype(np.int64),
        "fits": b <= conc,
    }
    if latency:
        from calc.latency import tpot_s, ttft_s

        kw = dict(weight_dtype=wd, kv_dtype=kd, tp=tp, efficiency=efficiency)
        tpot = tpot_s(cfg, hw, batch=b.astype(np.float64), ctx=c.astype(np.float64), **kw)
        ttft = ttft_s(cfg, hw, prompt=c.astype(np.float64), batch=1, **kw)  # [C, 1]
        out_tps = output_tokens_per_s_per_gpu(b, tpot, tp)
        in_tps = c / ttft / tp
        cols.update(
            tpot_s=tpot,
            ttft_s=np.broadcast_to(ttft, shape),
            tokens_per_s=out_tps,
            usd_per_million_output_tokens=usd_per_million_tokens(price, out_tps),
            usd_per_million_input_tokens=np.broadcast_to(
                usd_per_million_tokens(price, in_tps), shape
            ),
        )
    return {k: np.ascontiguousarray(v).reshape(-1) for k, v in cols.items()}


def sweep(
    models: list[str],
    hardware: list[str],
    *,
    ctx: list[int],
    batch: list[int],
    tp: list[int] = (1,),  # type: ignore[assignment]
    weight_dtypes: list[str | None] = (None,),  # type: ignore[assignment]
    kv_dtypes: list[str | None] = (None,),  # type: ignore[assignment]
    engine: str = "vllm",
    mem_util: float = 0.9,
    block_size: int = 16,
    max_batched_tokens: int = 8192,
    activation_bytes: int | None = None,
    overhead_bytes: int = 2**29,
    usd_per_hour: float | None = None,
    latency: bool = True,
    efficiency: str = "expected",
    calibration=None,
) -> SweepResult:
    """Evaluate the whole grid; rows ordered model, hardware, weight dtype, KV dtype, tp, ctx,
    batch (the last varies fastest)."""
    import numpy as np

    from calc.capacity import _check_fraction
    from calc.cost import _price, check_efficiency
    from calc.engines import ENGINE_NAMES
    from calc.memory import MAX_BATCH, MAX_CTX
    from calc.quant import kv_format, weight_format
    from calc.registry import load_hardware, load_model

    if engine not in ENGINE_NAMES:
        raise InvalidInputError(f"--engine {engine!r} is not one of: {', '.join(ENGINE_NAMES)}")
    _check_fraction("mem-util", mem_util)
    check_efficiency(efficiency)
    if max(ctx) > MAX_CTX or max(batch) > MAX_BATCH or max(tp) > 4096:
        raise InvalidInputError(
            f"--ctx ≤ {MAX_CTX:,}, --batch ≤ {MAX_BATCH:,} and --tp ≤ 4,096 please"
        )
    warnings: list[str] = []
    cfgs = [load_model(m) for m in models]
    hws = [load_hardware(h) for h in hardware]
    if calibration is not None:
        from calc.calibration import calibrated

        hws = [calibrated(h, calibration, warnings) for h in hws]
    # fail before any work on an unknown format name (UnknownNameError lists the valid ones)
    for d in weight_dtypes:
        if d is not None:
            weight_format(d)
    for d in kv_dtypes:
        if d is not None:
            kv_format(d)
    n_groups = len(cfgs) * len(hws) * len(weight_dtypes) * len(kv_dtypes) * len(tp)
    n_rows = n_groups * len(ctx) * len(batch)
    if n_rows > MAX_ROWS:
        raise InvalidInputError(
            f"the grid has {n_rows:,} rows, more than {MAX_ROWS:,}; narrow a range"
        )
    ctx_a = np.asarray(ctx, dtype=np.int64)
    batch_a = np.asarray(batch, dtype=np.int64)
    parts, labels = [], []
    for cfg, hw, wd0, kd0, t in itertools.product(cfgs, hws, weight_dtypes, kv_dtypes, tp):
        wd = cfg.dtype if wd0 is None else wd0
        kd = (cfg.kv_dtype or cfg.dtype) if kd0 is None else kd0
        parts.append(
            _group(cfg, hw, wd, kd, t, ctx_a, batch_a, engine=engine, mem_util=mem_util,
                   block_size=block_size, mbt=max_batched_tokens, act=activation_bytes,
                   over=overhead_bytes, price=_price(hw, usd_per_hour), latency=latency,
                   efficiency=efficiency)
        )  # fmt: skip
        labels.append((cfg.name, hw.name, wd, kd))
    per = ctx_a.size * batch_a.size
    columns: dict = {}
    for i, key in enumerate(("model", "hardware", "weight_dtype", "kv_dtype")):
        columns[key] = np.repeat(np.array([lab[i] for lab in labels]), per)
    for key in COLUMNS[4:]:
        if parts and key in parts[0]:
            columns[key] = np.concatenate([p[key] for p in parts])
    return SweepResult(columns, n_rows, warnings)


def _cells(arr, quoted) -> list[str]:
    """One column as CSV cells: unrounded numbers (repr), true/false, quoted safe strings.
    Values repeated across the grid (budgets, per-ctx figures) are formatted once."""
    import numpy as np

    if arr.dtype.kind == "b":
        return np.where(arr, "true", "false").tolist()
    if arr.dtype.kind == "f":
        finite = np.isfinite(arr)
        if finite.all() and (np.abs(arr) < 2**53).all() and (arr == np.floor(arr)).all():
            arr = arr.astype(np.int64)
    fmt = quoted if arr.dtype.kind in "USO" else (repr if arr.dtype.kind == "f" else str)
    uniq, inv = np.unique(arr, return_inverse=True)
    if uniq.size * 4 < arr.size:
        return np.array([fmt(u) for u in uniq.tolist()], dtype=object)[inv.reshape(-1)].tolist()
    return list(map(fmt, arr.tolist()))


def to_csv_columns(result: SweepResult) -> str:
    """CSV of a sweep built column-wise: header, stable column order, unrounded numbers,
    formula-like cells neutralised (``calc.render.safe_cell``) and quoted as CSV needs."""
    import csv
    import io

    from calc.render import safe_cell

    def quoted(text) -> str:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="").writerow([safe_cell(str(text))])
        return buf.getvalue()

    header = ",".join(quoted(k) for k in result.columns)
    if result.n_rows == 0:
        return header + "\n"
    cols = [_cells(arr, quoted) for arr in result.columns.values()]
    return header + "\n" + "\n".join(map(",".join, zip(*cols, strict=True))) + "\n"
