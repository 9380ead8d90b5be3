"""Consistency checks of a result file where it records both sides of a figure (issue 23): a
self-contradictory file is said in one line, ``"<file>: <key> says X but <other key> says Y
(why they cannot both hold)"``, not scored as if fine. The file is still scored, as read, with
that line among its runs' notes (``calc.data.bench_results.parse_results``): a file a
writer's fork or a later release wrote with one relation loosened is still read; only a run
that completed requests in no time is refused (``positive_duration``).

What the writers guarantee, and so what is checked:

- vLLM's ``benchmark_serving.py`` / ``vllm/benchmarks/serve.py`` and SGLang's
  ``bench_serving`` (``calculate_metrics``): ``total_output_tokens`` is ``sum(output_lens)``
  (a failed request counts 0), ``total_input_tokens`` the sum of the successful requests'
  ``input_lens``, ``completed`` the successful requests, the per-request lists hold every
  request sent (failed ones too: ``completed + failed`` of them, a failed one with TTFT 0 and
  output 0), ``request_throughput = completed / duration``, ``output_throughput =
  total_output_tokens / duration``, ``input_throughput = total_input_tokens / duration``,
  vLLM's ``total_token_throughput = (total_input_tokens + total_output_tokens) / duration``
  (float divisions: the relative tolerance ``RATE_TOL`` is far below any real disagreement).
  A success may have output 0 (vLLM 0.5.4 counts an empty text as 0 tokens), so only "more
  requests with output than completed" is a contradiction, not "fewer".
- Every tool's percentiles of one metric rise with q (numpy's, nearest-rank's, both monotone):
  median/p50 ≤ p90 ≤ p95 ≤ p99 ≤ max, min ≤ each, and the mean lies within [min, max]
  (a printed report rounds all of them the same way, which keeps both orders).
- AIPerf (``aiperf._check``): ``total_osl``/``total_isl`` = the lengths' ``sum``,
  ``request_throughput = request_count / benchmark_duration``, ``output_token_throughput =
  total_osl / benchmark_duration`` (not on a printed table or CSV: rounded to 2 decimals).
- trtllm-bench (``trtllm_bench._check``): request throughput = requests / total latency, output
  throughput = requests × average output length / total latency; on the printed report within
  ``PRINTED_TOL``.
- Per request, where both are listed (vLLM ``latencies``, GuideLLM's requests, AIPerf's
  records): TTFT ≤ latency.
- A run that completed requests took time: its duration is above 0.

Not checked, because the writer really writes it: GuideLLM's ``request_totals.successful``
against its ``requests.successful`` list (the totals count the measurement window, the list
the whole run: 19 beside 23 in the real 0.5 file of tests/data/bench_results).
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import wraps

from calc.errors import ConfigError

# set while a contradicted file is read again to be scored as read: the checks stand down
LENIENT: ContextVar[bool] = ContextVar("bench_results_lenient", default=False)


class Contradiction(ConfigError):
    """Two figures of one file that its writer computes to agree, disagreeing."""


def check(fn):
    """A consistency check: skipped while a contradicted file is read as it is."""

    @wraps(fn)
    def run(*args, **kwargs):
        if LENIENT.get():
            return None
        return fn(*args, **kwargs)

    return run

# the writers divide floats (the same numbers kvcalc reads back from JSON's shortest repr):
# they agree to ~1e-15; a real contradiction is off by whole percents
RATE_TOL = 1e-6
# a printed report (trtllm-bench's: 4 decimals) rounds each figure: (relative, absolute) slack
# well above that rounding (1e-4 absolute: two units of the last printed digit)
PRINTED_TOL = (1e-3, 1e-4)
# orderings: printed reports round to 2 decimals the same way for every statistic, which keeps
# the order; this only absorbs float noise
ORDER_TOL = 1e-9


def _show(v) -> str:
    """A count as the file has it (an int: 42,449), a measured figure to 6 digits."""
    return f"{v:,}" if isinstance(v, int) else f"{v:.6g}"


def contradiction(where: str, key: str, x, other: str, y, why: str) -> Contradiction:
    x = x if isinstance(x, str) else _show(x)
    y = y if isinstance(y, str) else _show(y)
    return Contradiction(f"{where}: {key} says {x} but {other} says {y} ({why})")


@check
def ordered(where: str, items, why: str = "percentiles rise with q, within min..max") -> None:
    """``items``: (key, value) pairs in the order their values must not fall (None: absent)."""
    present = [(k, v) for k, v in items if v is not None]
    for i, (k_hi, v_hi) in enumerate(present):
        for k_lo, v_lo in present[:i]:
            if v_lo > v_hi + ORDER_TOL * max(abs(v_lo), abs(v_hi), 1.0):
                raise contradiction(where, k_lo, v_lo, k_hi, v_hi, why)


@check
def mean_within(where: str, mean, lo, hi) -> None:
    """``mean``, ``lo``, ``hi``: (key, value); the mean lies within [min, max]."""
    ordered(where, (lo, mean, hi), "a mean lies within min..max")


@check
def percentiles(where: str, pcts, lo=None, hi=None, mean=None) -> None:
    """``pcts``: (q, key, value); in rising q they must not fall, and lie within the
    (key, value) ``lo`` and ``hi`` where given; ``mean`` within them."""
    chain = [(k, v) for _, k, v in sorted(pcts, key=lambda x: x[0])]
    ordered(where, [*([lo] if lo else []), *chain, *([hi] if hi else [])])
    if mean and mean[1] is not None and lo and hi:
        mean_within(where, mean, lo, hi)


@check
def rate(where: str, rate_kv, count_kv, duration_kv, printed: bool = False) -> None:
    """(key, value) of a throughput the writer computed as count / duration; ``printed``: the
    figures come from a printed report, rounded (``PRINTED_TOL``)."""
    (rk, r), (ck, c), (dk, d) = rate_kv, count_kv, duration_kv
    if r is None or c is None or d is None or d <= 0:
        return
    want = c / d
    rel, absolute = PRINTED_TOL if printed else (RATE_TOL, 0.0)
    if abs(r - want) > rel * max(abs(r), abs(want), 1e-12) + absolute:
        raise contradiction(where, rk, r, f"{ck} / {dk}", f"{_show(c)} / {_show(d)} = "
                            f"{_show(want)}", "the writer divides them")  # fmt: skip


def positive_duration(where: str, duration_kv, count_kv) -> None:
    (dk, d), (ck, c) = duration_kv, count_kv
    if d is not None and c and d <= 0:  # nothing to score: refused, not read as it is
        raise ConfigError(str(contradiction(where, dk, d, ck, c, "requests completed in no time")))


@check
def serving(where: str, obj: dict, *, completed: int, failed: int | None, duration,
            tin, tout, prompt, output, ttfts, rates: dict) -> None:
    """vLLM's and SGLang's result (the module docstring): the per-request lists (as read, all
    requests, before any is left out) against ``completed``, ``failed`` and the totals; the
    throughputs against the totals over the duration; the percentiles' order."""
    positive_duration(where, ("duration", duration), ("completed", completed))
    n = next((len(x) for x in (prompt, output, ttfts) if x is not None), None)
    lists = next((k for k, x in (("input_lens", prompt), ("output_lens", output),
                                 ("ttfts", ttfts)) if x is not None), None)  # fmt: skip
    if n is not None:
        if failed is not None and "failed" in obj and n != completed + failed:
            raise contradiction(where, lists, f"{n:,} requests", "completed + failed",
                                f"{completed:,} + {failed:,}", "the lists hold every request")
        if n < completed:
            raise contradiction(where, "completed", completed, lists, f"{n:,} requests",
                                "the lists hold every request")  # fmt: skip
    errors = obj.get("errors")
    ok = None
    if isinstance(errors, list) and n is not None and len(errors) == n:
        ok = [not e for e in errors]
        if sum(ok) != completed:
            raise contradiction(where, "completed", completed, "errors",
                                f"{sum(ok):,} requests without an error",
                                "completed counts the successes")  # fmt: skip
    if output is not None:
        if tout is not None and sum(output) != tout:
            raise contradiction(where, "total_output_tokens", tout, "output_lens",
                                f"{sum(output):,} in all", "the writer sums them")
        with_output = sum(1 for o in output if o > 0)
        if with_output > completed:
            raise contradiction(where, "completed", completed, "output_lens",
                                f"{with_output:,} requests with output",
                                "a failed request has no output")  # fmt: skip
    if ttfts is not None:
        first = sum(1 for t in ttfts if t > 0)
        if first > completed:
            raise contradiction(where, "completed", completed, "ttfts",
                                f"{first:,} requests with a first token",
                                "a failed request has no first token")  # fmt: skip
    latencies = obj.get("latencies")
    if ttfts is not None and isinstance(latencies, list) and len(latencies) == len(ttfts):
        for i, (t, e) in enumerate(zip(ttfts, latencies, strict=True)):
            if isinstance(e, int | float) and t > e + ORDER_TOL * max(t, 1.0):
                raise contradiction(where, f"ttfts[{i}]", float(t), f"latencies[{i}]",
                                    float(e), "the first token comes within the request")
    if prompt is not None and tin is not None:
        keep = ok if ok is not None else ([True] * n if n == completed else None)
        if keep is not None:
            got = sum(p for p, good in zip(prompt, keep, strict=True) if good)
            if got != tin:
                raise contradiction(where, "total_input_tokens", tin, "input_lens",
                                    f"{got:,} over the completed requests",
                                    "the writer sums them")  # fmt: skip
    both = None if tin is None or tout is None else tin + tout
    for key, count_kv in (("request_throughput", ("completed", completed)),
                          ("output_throughput", ("total_output_tokens", tout)),
                          ("input_throughput", ("total_input_tokens", tin)),
                          ("total_token_throughput",
                           ("(total_input_tokens + total_output_tokens)", both))):  # fmt: skip
        rate(where, (key, rates.get(key)), count_kv, ("duration", duration))


_WRITER_PCT = None


@check
def writer_percentiles(where: str, obj: dict) -> None:
    """vLLM's and SGLang's ``median_X_ms`` and ``p{q}_X_ms``, per metric X, in rising q."""
    import re

    global _WRITER_PCT
    if _WRITER_PCT is None:
        _WRITER_PCT = re.compile(r"^(?:median|p(\d+(?:\.\d+)?))_(.+)_ms$")
    by_metric: dict = {}
    for key, v in obj.items():
        m = _WRITER_PCT.match(key) if isinstance(key, str) else None
        if m and isinstance(v, int | float) and not isinstance(v, bool):
            q = float(m.group(1)) if m.group(1) else 50.0
            by_metric.setdefault(m.group(2), []).append((q, key, float(v)))
    for pcts in by_metric.values():
        percentiles(where, pcts)


def _pct_q(name: str) -> float | None:
    """The percentile a stat's name states: ``p50`` -> 50, ``p99.9`` -> 99.9; GuideLLM's
    ``p001`` (0.1), ``p01`` (1), ``p05`` (5), ``p999`` (99.9): a decimal fraction's digits."""
    if not (isinstance(name, str) and len(name) > 1 and name[0] == "p"):
        return None
    digits = name[1:]
    if not digits.replace(".", "", 1).isdigit():
        return None
    if "." in digits or digits == "100":
        return float(digits)
    return float("0." + digits) * 100 if digits[0] == "0" or len(digits) == 3 else float(digits)


@check
def stats_block(where: str, key: str, block: dict, *, pcts: dict | None = None,
                lo: str = "min", hi: str = "max", mean: str = "avg",
                median: str | None = None) -> None:  # fmt: skip
    """One metric's summary (AIPerf's ``{"avg", "min", "max", "p50", …}``, GuideLLM's
    ``successful``, trtllm-bench's percentiles): min ≤ pN (rising N) ≤ max, min ≤ mean ≤ max.
    ``pcts``: where the pN stand when not in ``block`` itself."""

    def num(d, k):
        v = d.get(k) if isinstance(d, dict) else None
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    src = block if pcts is None else pcts
    prefix = f"{key}." if pcts is None else f"{key}.percentiles."
    chain = []
    for name in src if isinstance(src, dict) else ():
        q = _pct_q(name)
        if q is not None and num(src, name) is not None:
            chain.append((q, prefix + name, num(src, name)))
    if median and num(block, median) is not None:
        chain.append((50.0, f"{key}.{median}", num(block, median)))
    lo_kv = (f"{key}.{lo}", num(block, lo)) if num(block, lo) is not None else None
    hi_kv = (f"{key}.{hi}", num(block, hi)) if num(block, hi) is not None else None
    percentiles(where, chain, lo_kv, hi_kv)
    if num(block, mean) is not None and lo_kv and hi_kv:
        mean_within(where, (f"{key}.{mean}", num(block, mean)), lo_kv, hi_kv)


@check
def equal(where: str, a_kv, b_kv, why: str) -> None:
    """Two figures the writer computes the same way (exact: token counts)."""
    (ak, a), (bk, b) = a_kv, b_kv
    a, b = (int(x) if isinstance(x, float) and x == int(x) else x for x in (a, b))
    if a is not None and b is not None and a != b:
        raise contradiction(where, ak, a, bk, b, why)
