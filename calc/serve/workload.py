"""A serving workload: request arrivals [s] and prompt/output lengths [tokens], sampled
deterministically from a seed, or read from a trace.

- ``LengthDist``: a length distribution [tokens]: ``fixed`` (n), ``uniform`` (lo..hi, whole
  numbers, both ends included), ``lognormal`` (mean and coefficient of variation cv = σ / mean
  of the lengths themselves: σ_log² = ln(1 + cv²), μ_log = ln(mean) − σ_log² / 2, rounded to
  whole tokens, at least 1) or ``histogram`` (the empirical distribution of observed lengths,
  e.g. a trace's: each draw is one of them, equally likely).
- ``LoadSpec``: arrivals (``poisson`` at ``rate_per_s``: exponential gaps of mean 1 / rate;
  ``constant``: one request every 1 / rate seconds; or a ``Trace``), the two length
  distributions, the prefix-sharing fraction, and how many requests (``n_requests``) or for how
  long (``duration_s``).
- ``load_trace_csv``: a CSV with the columns ``arrival_s``, ``prompt_tokens`` and
  ``output_tokens`` (other columns are ignored). Rows out of arrival order are **sorted**
  (stably) and the ``Trace`` says so in its ``notes`` (the CLI prints them as warnings); a
  missing column, an empty file, a non-numeric or negative arrival, or a token count that is
  not a whole number ≥ 1 is an error naming the file and line.
- ``sample_requests(spec, seed)``: arrays (arrival_s, prompt, gen), float64 and int64, from a
  ``numpy.random.Generator`` seeded with ``seed`` (the same seed, the same requests).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from calc.data.limits import MAX_CTX
from calc.errors import ConfigError, InvalidInputError, not_one_of
from calc.output.safe_text import quoted

KINDS = ("fixed", "uniform", "lognormal", "histogram")
ARRIVALS = ("poisson", "constant")
DEFAULT_REQUESTS = 1000
MAX_REQUESTS = 1_000_000
TRACE_COLUMNS = ("arrival_s", "prompt_tokens", "output_tokens")


@dataclass(frozen=True)
class LengthDist:
    """A distribution of lengths [tokens] (build it with ``fixed``, ``uniform``, ``lognormal``,
    ``histogram`` or ``parse``)."""

    kind: str
    a: float = 0.0  # fixed: n; uniform: lo; lognormal: mean
    b: float = 0.0  # uniform: hi; lognormal: cv
    values: tuple[int, ...] = ()  # histogram: the observed lengths

    @classmethod
    def fixed(cls, n: int) -> LengthDist:
        _check_tokens("length", n)
        return cls("fixed", n)

    @classmethod
    def uniform(cls, lo: int, hi: int) -> LengthDist:
        _check_tokens("uniform low", lo)
        _check_tokens("uniform high", hi)
        if hi < lo:
            raise InvalidInputError(f"uniform:{lo}:{hi}: the high end is below the low end")
        return cls("uniform", lo, hi)

    @classmethod
    def lognormal(cls, mean: float, cv: float) -> LengthDist:
        if not (math.isfinite(mean) and 1 <= mean <= MAX_CTX):
            raise InvalidInputError(f"lognormal mean must be in 1..{MAX_CTX:,}, got {mean}")
        if not (math.isfinite(cv) and 0 <= cv <= 10):
            raise InvalidInputError(f"lognormal cv must be in 0..10, got {cv}")
        return cls("lognormal", float(mean), float(cv))

    @classmethod
    def histogram(cls, values) -> LengthDist:
        vals = tuple(int(v) for v in values)
        if not vals:
            raise InvalidInputError("a histogram needs at least one length")
        for v in vals:
            _check_tokens("histogram length", v)
        return cls("histogram", values=vals)

    @classmethod
    def parse(cls, text, flag: str = "--prompt") -> LengthDist:
        """``2048``, ``uniform:100:4000`` or ``lognormal:2048:0.5`` (mean, cv)."""
        s = str(text).strip()
        parts = s.split(":")
        try:
            if len(parts) == 1:
                return cls.fixed(_whole(parts[0]))
            kind, args = parts[0].lower(), parts[1:]
            if kind in ("fixed", "const") and len(args) == 1:
                return cls.fixed(_whole(args[0]))
            if kind == "uniform" and len(args) == 2:
                return cls.uniform(_whole(args[0]), _whole(args[1]))
            if kind == "lognormal" and len(args) == 2:
                return cls.lognormal(float(args[0]), float(args[1]))
        except (ValueError, InvalidInputError) as exc:
            why = str(exc) if isinstance(exc, InvalidInputError) else "not a number"
            raise InvalidInputError(f"{flag} {s!r}: {why}") from None
        raise InvalidInputError(
            f"{flag} {s!r}: expected a length (2048), uniform:LO:HI or lognormal:MEAN:CV"
        )

    @property
    def mean(self) -> float:
        """Mean length [tokens] (lognormal: before rounding and the floor of 1)."""
        if self.kind == "fixed":
            return float(self.a)
        if self.kind == "uniform":
            return (self.a + self.b) / 2
        if self.kind == "lognormal":
            return self.a
        return sum(self.values) / len(self.values)

    def sample(self, rng, n: int):
        """``n`` lengths [tokens] (int64 array, each in 1..MAX_CTX)."""
        import numpy as np

        if self.kind == "fixed":
            out = np.full(n, int(self.a), dtype=np.int64)
        elif self.kind == "uniform":
            out = rng.integers(int(self.a), int(self.b), size=n, endpoint=True)
        elif self.kind == "lognormal":
            s2 = math.log1p(self.b**2)
            mu = math.log(self.a) - s2 / 2
            out = np.rint(rng.lognormal(mu, math.sqrt(s2), size=n))
        else:
            out = rng.choice(np.asarray(self.values, dtype=np.int64), size=n)
        return np.clip(out, 1, MAX_CTX).astype(np.int64)

    def describe(self) -> str:
        if self.kind == "fixed":
            return f"{int(self.a)}"
        if self.kind == "uniform":
            return f"uniform {int(self.a)}..{int(self.b)}"
        if self.kind == "lognormal":
            return f"lognormal mean {self.a:g} cv {self.b:g}"
        return f"histogram of {len(self.values)} (mean {self.mean:.0f})"


def _whole(text: str) -> int:
    v = float(text)
    if not math.isfinite(v) or v != int(v):
        raise ValueError(text)
    return int(v)


def _check_tokens(name: str, n) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_CTX:
        raise InvalidInputError(f"{name} must be a whole number of tokens in 1..{MAX_CTX:,}")


@dataclass(frozen=True, eq=False)
class Trace:
    """Recorded requests: arrival times [s] (sorted), prompt and output lengths [tokens]."""

    arrival_s: tuple[float, ...]
    prompt: tuple[int, ...]
    gen: tuple[int, ...]
    source: str = ""
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.arrival_s)

    @property
    def rate_per_s(self) -> float:
        """Mean arrival rate [requests/s]: (n − 1) / span (0 when all arrive at once)."""
        span = self.arrival_s[-1] - self.arrival_s[0]
        return (len(self) - 1) / span if span > 0 else 0.0


@dataclass(frozen=True, kw_only=True)
class LoadSpec:
    """Requests offered to a deployment.

    ``arrival``: ``"poisson"``, ``"constant"`` or a ``Trace``. With a trace, each request keeps
    its recorded lengths unless ``prompt``/``gen`` are given, and its recorded times unless
    ``rate_per_s`` is given (then the times are scaled so the mean rate is ``rate_per_s``).
    ``prefix_shared_fraction``: the fraction of each prompt that is a prefix shared by all
    requests (a system prompt, whole KV blocks of it) and served from the prefix cache.
    ``n_requests`` or ``duration_s`` (arrivals before it) bound the run; neither: 1,000
    requests (a trace: all of its rows).
    """

    rate_per_s: float | None = None
    arrival: str | Trace = "poisson"
    prompt: LengthDist | None = None
    gen: LengthDist | None = None
    prefix_shared_fraction: float = 0.0
    n_requests: int | None = None
    duration_s: float | None = None

    def __post_init__(self) -> None:
        trace = isinstance(self.arrival, Trace)
        if not trace and self.arrival not in ARRIVALS:
            raise InvalidInputError(
                not_one_of("arrival", self.arrival, ARRIVALS, " (or a trace)")
            )
        if self.rate_per_s is not None:
            r = self.rate_per_s
            if (
                isinstance(r, bool)
                or not isinstance(r, int | float)
                or not (math.isfinite(r) and 0 < r <= 1e6)
            ):
                raise InvalidInputError(f"--rate must be in (0, 1e6] requests/s, got {r!r}")
        elif not trace:
            raise InvalidInputError("a request rate is needed (--rate, requests/s) without a trace")
        if not trace and (self.prompt is None or self.gen is None):
            raise InvalidInputError("prompt and gen length distributions are needed")
        f = self.prefix_shared_fraction
        if isinstance(f, bool) or not isinstance(f, int | float) or not 0 <= f < 1:
            raise InvalidInputError(f"--prefix-shared must be in [0, 1), got {f!r}")
        if self.n_requests is not None and (
            isinstance(self.n_requests, bool)
            or not isinstance(self.n_requests, int)
            or not 1 <= self.n_requests <= MAX_REQUESTS
        ):
            raise InvalidInputError(f"--requests must be a whole number in 1..{MAX_REQUESTS:,}")
        if self.duration_s is not None and not (
            isinstance(self.duration_s, int | float) and 0 < self.duration_s <= 1e7
        ):
            raise InvalidInputError("--duration must be a positive time")

    def with_rate(self, rate_per_s: float) -> LoadSpec:
        """The same load at another rate."""
        from dataclasses import replace

        return replace(self, rate_per_s=rate_per_s)

    def describe(self, with_rate: bool = True) -> str:
        if isinstance(self.arrival, Trace):
            src = f"trace {self.arrival.source or ''}".strip()
            rate = f" scaled to {self.rate_per_s:g}/s" if self.rate_per_s and with_rate else ""
            return f"{src} ({len(self.arrival)} requests){rate}"
        p = self.prompt.describe() if self.prompt else "?"
        g = self.gen.describe() if self.gen else "?"
        rate = f" {self.rate_per_s:g} req/s" if with_rate else ""
        return f"{self.arrival}{rate}, prompt {p}, gen {g}"


def sample_requests(spec: LoadSpec, seed: int = 0):
    """(arrival_s, prompt, gen): float64 arrival times from 0 [s] (sorted) and int64 lengths
    [tokens], drawn from ``numpy.random.default_rng(seed)``."""
    import numpy as np

    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InvalidInputError(f"--seed must be a whole number in 0..2^63 − 1, got {seed!r}")
    rng = np.random.default_rng(seed)
    if isinstance(spec.arrival, Trace):
        t = spec.arrival
        n = len(t) if spec.n_requests is None else min(len(t), spec.n_requests)
        arr = np.asarray(t.arrival_s[:n], dtype=np.float64)
        arr = arr - arr[0]
        if spec.rate_per_s is not None and t.rate_per_s > 0:
            arr = arr * (t.rate_per_s / spec.rate_per_s)
        if spec.duration_s is not None:
            n = max(1, int(np.searchsorted(arr, spec.duration_s, side="left")))
            arr = arr[:n]
        prompt = (
            spec.prompt.sample(rng, n)
            if spec.prompt is not None
            else np.asarray(t.prompt[:n], dtype=np.int64)
        )
        gen = (
            spec.gen.sample(rng, n)
            if spec.gen is not None
            else np.asarray(t.gen[:n], dtype=np.int64)
        )
        return arr, prompt, gen
    rate = float(spec.rate_per_s)
    if spec.n_requests is not None or spec.duration_s is None:
        n = spec.n_requests or DEFAULT_REQUESTS
        arr = _arrivals(spec.arrival, rng, rate, n)
    else:
        n = int(rate * spec.duration_s * 1.2 + 10 * math.sqrt(rate * spec.duration_s) + 10)
        n = min(n, MAX_REQUESTS)
        arr = _arrivals(spec.arrival, rng, rate, n)
        arr = arr[arr < spec.duration_s]
        if arr.size == 0:
            arr = arr[:0]
        n = arr.size
    prompt = spec.prompt.sample(rng, n)
    gen = spec.gen.sample(rng, n)
    return arr, prompt, gen


def _arrivals(kind: str, rng, rate: float, n: int):
    import numpy as np

    if kind == "constant":
        return np.arange(n, dtype=np.float64) / rate
    return np.cumsum(rng.exponential(1.0 / rate, size=n))


# -----------------------------------------------------------------------------------------
# Traces

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
MAX_TRACE_ROW_BYTES = 256  # the bytes a trace may spend per request on average, extra columns too
MAX_TRACE_BYTES = MAX_REQUESTS * MAX_TRACE_ROW_BYTES  # 256 MB: a million requests always fit
MAX_TRACE_LINE_CHARS = 1 << 20  # one line (a row with a long note column) up to 1 MiB


def load_trace_csv(path: Path | str) -> Trace:
    """The requests of a CSV trace (see the module docstring for the columns and errors).

    Read a block of lines at a time, linear in the file and bounded: at most MAX_REQUESTS
    rows, MAX_TRACE_BYTES bytes and MAX_TRACE_LINE_CHARS characters a line; lines end in LF,
    CRLF or a lone CR (old Mac files), in any mix; fields may be quoted (a quoted field spans
    no line end). The numbers of a block are converted and checked a column at a time."""
    import numpy as np

    from calc.output.safe_io import open_input

    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    n, cols, width = 0, None, 0
    with open_input(path, what="a request trace", max_bytes=MAX_TRACE_BYTES) as raw:
        for first, pieces in _line_blocks(path, raw):
            keep = [i for i, text in enumerate(pieces) if text.strip(" \t,")]  # not blank
            if cols is None:  # the header: the first line that is not blank
                if not keep:
                    continue
                header, keep = keep[0], keep[1:]
                cols = _header(path, first + header, pieces[header])
                width = max(cols) + 1
            rows = [_fields(path, first + i, pieces[i]) for i in keep]
            if rows and min(map(len, rows)) < width:
                j = next(j for j, r in enumerate(rows) if len(r) < width)
                raise ConfigError(
                    f"{path}: line {first + keep[j]}: {len(rows[j])} fields, the columns "
                    f"{', '.join(TRACE_COLUMNS)} need {width}"
                )
            n += len(rows)
            if n > MAX_REQUESTS:
                raise ConfigError(f"{path}: more than {MAX_REQUESTS:,} requests")
            if rows:
                parts.append(_columns(path, rows, [first + i for i in keep], cols))
    if cols is None:
        raise ConfigError(f"{path}: empty file; expected the columns {', '.join(TRACE_COLUMNS)}")
    if not n:
        raise ConfigError(f"{path}: no requests (only a header)")
    a, pr, ge = (np.concatenate([p[i] for p in parts]) for i in range(3))
    notes: tuple[str, ...] = ()
    if (np.diff(a) < 0).any():
        order = np.argsort(a, kind="stable")  # equal times keep the file's order
        a, pr, ge = a[order], pr[order], ge[order]
        notes = (f"{path}: rows were not in arrival order; sorted by arrival_s",)
    return Trace(tuple(a.tolist()), tuple(pr.tolist()), tuple(ge.tolist()), str(path), notes)


_TEXT_CHARS = 1 << 20  # characters decoded at a time


def _header(path, line: int, text: str) -> list[int]:
    """The positions of TRACE_COLUMNS in the header line (names in any case)."""
    names = [h.strip().lower() for h in _fields(path, line, text)]
    missing = [c for c in TRACE_COLUMNS if c not in names]
    if missing:
        raise ConfigError(
            f"{path}: line {line}: missing column {', '.join(missing)} "
            f"(a trace has the columns {', '.join(TRACE_COLUMNS)})"
        )
    return [names.index(c) for c in TRACE_COLUMNS]


def _line_blocks(path, raw):
    """(number of the first line, [the lines]) of each piece of the file, line ends taken
    off (LF, CRLF or CR); a line longer than MAX_TRACE_LINE_CHARS, or text that is not UTF-8,
    is an error."""
    import io

    text = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")  # line ends kept as they are
    line, carry = 1, ""
    while True:
        try:
            chunk = text.read(_TEXT_CHARS)
        except UnicodeDecodeError:
            raise ConfigError(
                f"{path}: near line {line}: not UTF-8 text (a CSV trace is expected)"
            ) from None
        block = carry + chunk
        carry = ""
        if chunk and block.endswith("\r"):  # perhaps the first half of a CRLF: wait for more
            block, carry = block[:-1], "\r"
        if "\r" in block:
            block = block.replace("\r\n", "\n").replace("\r", "\n")
        pieces = block.split("\n")
        if chunk:
            carry = pieces.pop() + carry  # the line the next chunk continues
        elif pieces and not pieces[-1]:
            pieces.pop()  # the file ends with a line end
        if max(map(len, pieces), default=0) > MAX_TRACE_LINE_CHARS:
            i = next(i for i, p in enumerate(pieces) if len(p) > MAX_TRACE_LINE_CHARS)
            raise ConfigError(
                f"{path}: line {line + i}: longer than {MAX_TRACE_LINE_CHARS:,} characters"
            )
        if len(carry) > MAX_TRACE_LINE_CHARS:
            raise ConfigError(
                f"{path}: line {line + len(pieces)}: longer than {MAX_TRACE_LINE_CHARS:,} "
                "characters"
            )
        if pieces:
            yield line, pieces
        line += len(pieces)
        if not chunk:
            return


def _fields(path, line: int, text: str) -> list[str]:
    """The comma-separated fields of one line (quoted fields as CSV quotes them)."""
    if '"' not in text:
        return text.split(",")
    import csv

    try:
        return next(csv.reader([text], strict=True))
    except csv.Error as exc:
        raise ConfigError(f"{path}: line {line}: malformed CSV: {exc}") from None


def _columns(path, rows: list[list[str]], lines: list[int], cols: list[int]):
    """(arrival_s float64, prompt int64, gen int64) of a block of rows, checked a column at a
    time; the first bad value is reported with its line by the checks one value at a time."""
    import numpy as np

    checks = (_trace_number, _trace_tokens, _trace_tokens)
    out = []
    for col, name, check in zip(cols, TRACE_COLUMNS, checks, strict=True):
        texts = [row[col] for row in rows]
        try:
            v = np.array(texts, dtype=np.float64)  # strips blanks; refuses what float() does
        except ValueError:
            v = None
        if v is not None:
            ok = np.isfinite(v)
            if check is _trace_number:
                ok &= (v >= 0) & (v <= 1e9)
            else:
                ok &= (v >= 1) & (v <= MAX_CTX) & (v == np.floor(v))
            if ok.all():
                out.append(v if check is _trace_number else v.astype(np.int64))
                continue
        for line, text in zip(lines, texts, strict=True):  # find and name the first
            check(path, line, name, text.strip())
        raise AssertionError("a bad value the block check saw, the row check did not")
    return tuple(out)


def _trace_number(path, line: int, col: str, text: str) -> float:
    if not _NUMBER.match(text):
        raise ConfigError(f"{path}: line {line}: {col} {quoted(text)} is not a number")
    v = float(text)
    if not math.isfinite(v) or v < 0:
        raise ConfigError(f"{path}: line {line}: {col} {quoted(text)} must be a time ≥ 0 [s]")
    if v > 1e9:
        raise ConfigError(f"{path}: line {line}: {col} {quoted(text)} is beyond 10^9 s")
    return v


def _trace_tokens(path, line: int, col: str, text: str) -> int:
    if not _NUMBER.match(text):
        raise ConfigError(f"{path}: line {line}: {col} {quoted(text)} is not a number")
    v = float(text)
    if not math.isfinite(v) or v != int(v) or not 1 <= v <= MAX_CTX:
        raise ConfigError(
            f"{path}: line {line}: {col} {quoted(text)} must be a whole number of tokens in "
            f"1..{MAX_CTX:,}"
        )
    return int(v)


# -----------------------------------------------------------------------------------------
# Human units

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(us|µs|ms|s|min|)?\s*$")
_SCALE = {"us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "": 1.0}


def parse_duration_s(text, flag: str) -> float:
    """A time with its unit (``2s``, ``50ms``, ``200us``, ``1min``) → seconds. A bare number in
    text is an error that names both readings (``40``: 40 s or 40 ms?); a Python number is
    seconds."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        v = float(text)
    else:
        m = _DURATION.match(str(text))
        if not m:
            raise InvalidInputError(f"{flag} {text!r}: expected a time such as 2s, 50ms or 200us")
        if not m.group(2):
            n = m.group(1)
            raise InvalidInputError(
                f"{flag} {text.strip()}: a time needs its unit: {n}s or {n}ms? (also us, min)"
            )
        v = float(m.group(1)) * _SCALE[m.group(2)]
    if not math.isfinite(v) or v <= 0 or v > 1e7:
        raise InvalidInputError(f"{flag} {text!r}: must be a positive time")
    return v
