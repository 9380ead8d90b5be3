"""One benchmark run as a result file records it [s, tokens, requests/s]: its settings (model,
rate or client concurrency, lengths), what it measured, and the deployment where the file says.

Every reader (``calc.data.bench_results``, one module per tool) returns these; times are in
seconds whatever the file's unit, rates per second. A figure the file does not record is None
(or absent from ``measured``), never guessed here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from calc.errors import ConfigError

# measured latency metrics and statistics (vLLM's benchmark's names: TTFT, TPOT, ITL, E2E)
METRICS = ("ttft", "tpot", "itl", "e2e")
STATS = ("avg", "p50", "p90", "p99")
# measured throughputs over the run's duration [per s]
RATES = ("requests_per_s", "output_tokens_per_s", "input_tokens_per_s", "goodput_requests_per_s")


@dataclass(frozen=True)
class Lengths:
    """The length distribution a run's dataset settings state [tokens]: ``fixed`` (a),
    ``uniform`` (a..b, both included) or ``normal`` (mean a, standard deviation b)."""

    kind: str
    a: float
    b: float = 0.0


@dataclass(frozen=True)
class ClientDraw:
    """How the benchmark client drew what the file leaves out, where it is known exactly:
    numpy's legacy global generator seeded with ``seed`` (``np.random.seed``), first the random
    dataset's prompt and then output lengths (``randint(lo, hi + 1, size=n)`` each, where
    ``prompt_bounds`` is given: drawn here, not recorded), then one gap before each next send,
    gamma of shape ``gap_shape`` and scale 1 / (rate × shape), sent unscaled (shape 1: an
    exponential; the same stream). ``why`` says whose source this is and how it was checked."""

    seed: int
    gap_shape: float = 1.0
    prompt_bounds: tuple | None = None  # (lo, hi) of the prompt lengths, both included
    output_bounds: tuple | None = None
    why: str = ""


@dataclass(frozen=True, eq=False)
class BenchRun:
    """A benchmark run (module docstring). ``measured`` maps ``"{metric}_{stat}_s"`` (metric
    in METRICS, stat in STATS) and the RATES names to their values."""

    source: str  # the file, and the record's number where it holds several
    tool: str  # what wrote it: "vllm bench serve", "sglang bench_serving", ...
    tool_version: str | None = None
    model: str | None = None  # the model id as the file records it
    backend: str | None = None  # the client's backend / the engine, as recorded
    rate_per_s: float | None = None  # the request rate asked for; None: all at once
    arrival: str = "poisson"  # how requests arrive at rate_per_s: poisson, gamma, constant
    burstiness: float | None = None  # gamma shape of the arrival gaps (1: Poisson)
    max_concurrency: int | None = None  # most requests the client kept open
    completed: int = 0
    failed: int = 0
    duration_s: float | None = None  # the run's duration as the tool measured it
    total_input_tokens: int | None = None
    total_output_tokens: int | None = None
    # per request, in the run's order (None when not recorded)
    prompt_tokens: tuple | None = None
    output_tokens: tuple | None = None
    start_s: tuple | None = None  # when each was sent, from the run's first
    ttft_each_s: tuple | None = None
    e2e_each_s: tuple | None = None
    itl_each_s: tuple | None = None  # per request: its gaps, or None
    prompt_lengths: Lengths | None = None  # what the dataset settings state
    output_lengths: Lengths | None = None
    measured: dict = field(default_factory=dict)
    slo_s: dict = field(default_factory=dict)  # {"ttft", "tpot", "e2e"} where stated
    deployment: dict = field(default_factory=dict)  # tp, pp, gpu, dtype, ... where recorded
    # what the server ran with, as it reported it (not what it was given): kv_cache_tokens (its
    # KV pool of one GPU [tokens]), max_num_seqs (its running-request cap), max_batched_tokens
    # (its tokens per iteration, the chunk), each where the file records it
    server_limits: dict = field(default_factory=dict)
    notes: tuple = ()
    # the client's own random draw of the send gaps (and lengths), where known: ClientDraw
    client_draw: ClientDraw | None = None

    @property
    def mean_prompt_tokens(self) -> float | None:
        return _mean_tokens(self.prompt_tokens, self.total_input_tokens, self.completed)

    @property
    def mean_output_tokens(self) -> float | None:
        return _mean_tokens(self.output_tokens, self.total_output_tokens, self.completed)


def _mean_tokens(each, total, completed) -> float | None:
    """The mean of the per-request lengths where listed, else the total over the requests."""
    if each:
        return sum(each) / len(each)
    if total and completed:
        return total / completed
    return None


# ---------------------------------------------------------------------------------------------
# Reading values: every number checked (finite, in range), every error naming file and key

MAX_REQUESTS = 10_000_000
MAX_TOKENS = 10**9
MAX_SECONDS = 1e9


class Reader:
    """Checked access to one record of a file (``where``: the file and record, for errors)."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.where}: {key}: {problem}")

    def obj(self, d, key: str, required: bool = False) -> dict | None:
        v = d.get(key) if isinstance(d, dict) else None
        if v is None:
            if required:
                raise self.fail(key, "missing")
            return None
        if not isinstance(v, dict):
            raise self.fail(key, f"expected an object, got {type(v).__name__}")
        return v

    def num(self, d, key: str, *, lo: float = 0.0, hi: float = MAX_SECONDS,
            required: bool = False, whole: bool = False, inf_ok: bool = False):  # fmt: skip
        """A number in [lo, hi] (None when absent unless ``required``); "inf" or Infinity where
        ``inf_ok`` (returned as math.inf)."""
        v = d.get(key) if isinstance(d, dict) else None
        if v is None:
            if required:
                raise self.fail(key, "missing")
            return None
        return self.value(v, key, lo=lo, hi=hi, whole=whole, inf_ok=inf_ok)

    def value(self, v, key: str, *, lo: float = 0.0, hi: float = MAX_SECONDS,
              whole: bool = False, inf_ok: bool = False):  # fmt: skip
        if inf_ok and isinstance(v, str) and v.strip().lower() in ("inf", "infinity"):
            return math.inf
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise self.fail(key, f"expected a number, got {_show(v)}")
        if isinstance(v, float) and math.isinf(v) and v > 0 and inf_ok:
            return math.inf
        if not math.isfinite(v):
            raise self.fail(key, f"{v} is not a finite number")
        if not lo <= v <= hi:
            raise self.fail(key, f"{v:g} is outside {lo:g}..{hi:g}")
        if whole:
            if v != int(v):
                raise self.fail(key, f"{v} is not a whole number")
            return int(v)
        return float(v)

    def text(self, d, key: str) -> str | None:
        v = d.get(key) if isinstance(d, dict) else None
        if v is None:
            return None
        if not isinstance(v, str | int | float) or isinstance(v, bool):
            raise self.fail(key, f"expected text, got {_show(v)}")
        return str(v)[:200]

    def nums(self, d, key: str, *, lo: float = 0.0, hi: float = MAX_SECONDS,
             whole: bool = False, n: int | None = None) -> tuple | None:  # fmt: skip
        """A list of numbers (None when absent), of length ``n`` when given."""
        v = d.get(key) if isinstance(d, dict) else None
        if v is None:
            return None
        if not isinstance(v, list):
            raise self.fail(key, f"expected a list, got {_show(v)}")
        if n is not None and len(v) != n:
            raise self.fail(key, f"{len(v)} values, expected {n} (one per request)")
        return tuple(self.value(x, f"{key}[{i}]", lo=lo, hi=hi, whole=whole)
                     for i, x in enumerate(v))  # fmt: skip


# the throughput keys vLLM's and SGLang's writers share -> RATES names
WRITER_RATES = (
    ("request_throughput", "requests_per_s"),
    ("output_throughput", "output_tokens_per_s"),
    ("input_throughput", "input_tokens_per_s"),
    ("request_goodput", "goodput_requests_per_s"),
)


def read_rates(r: Reader, obj: dict, keys=WRITER_RATES) -> dict:
    """The throughputs [1/s] of ``obj`` under ``keys`` (file key -> RATES name) it has."""
    out = {}
    for key, name in keys:
        v = r.num(obj, key, hi=1e12)
        if v is not None:
            out[name] = v
    return out


def _show(v) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def rates_over(duration_s: float | None, completed: int, input_tokens: int,
               output_tokens: int) -> dict:
    """Requests, output and input tokens per second over a run of ``duration_s`` seconds, as
    the tools' summaries divide them; empty where the duration is unknown or 0."""
    if not duration_s or duration_s <= 0:
        return {}
    return {"requests_per_s": completed / duration_s,
            "output_tokens_per_s": output_tokens / duration_s,
            "input_tokens_per_s": input_tokens / duration_s}  # fmt: skip


def run_of_requests(where: str, tool: str, *, start_s, prompt, output, ttft, e2e, duration_s,
                    measured: dict, notes: list, failed: int,
                    backend: str | None = None) -> BenchRun:  # fmt: skip
    """A run read request by request (AIPerf's records, trtllm-bench's --request_json): its
    totals and throughputs from the per-request lists (``ttft``/``e2e``: one per request, or
    None where a request lacks it), ``measured`` the figures the reader computed from them."""
    n = len(prompt)
    tin, tout = sum(prompt), sum(output)
    return BenchRun(
        source=where,
        tool=tool,
        backend=backend,
        completed=n,
        failed=failed,
        duration_s=duration_s,
        total_input_tokens=tin,
        total_output_tokens=tout,
        prompt_tokens=tuple(prompt),
        output_tokens=tuple(output),
        start_s=tuple(start_s),
        ttft_each_s=tuple(ttft) if ttft is not None else None,
        e2e_each_s=tuple(e2e) if e2e is not None else None,
        measured={**measured, **rates_over(duration_s, n, tin, tout)},
        notes=tuple(notes),
    )


def ms(v):
    """Milliseconds to seconds (None stays None)."""
    return None if v is None else v / 1000.0
