"""The workload a benchmark run measured, rebuilt for the simulation [s, tokens]: when each
request was sent and its prompt and output lengths, from what the result file records.

Lengths, in order of preference: the per-request lengths the file lists; the length
distribution its dataset settings state (SGLang's random datasets: uniform; AIPerf's
synthetic ones: normal), drawn with the seed; the mean from the token totals, every request
at that mean. ``--prompt``/``--gen`` replace them.

Where the client's own random draw is known exactly (``ClientDraw``: vLLM's benchmark before
its gaps were rescaled, 2025-07-17; SGLang's bench_serving on a random dataset, checked against
the file's totals) the lengths it drew and its send gaps are replayed as it drew them, seeded
as it seeded numpy's global generator, unscaled. Otherwise:

Arrivals, in order of preference: the send times the file lists; at the stated rate, the
first request at 0 s and gamma-distributed gaps of shape ``burstiness`` (1: exponential, a
Poisson process; GuideLLM's constant rate: equal gaps), drawn with the seed and scaled so the
mean gap is exactly 1 / rate (vLLM's benchmark scales its own draw the same way since 0.10;
older clients and SGLang's do not, and their realised rate then differs from the stated one by
about 1/√n); without a rate, every request at 0 s. A client concurrency limit (vLLM's
--max-concurrency, GuideLLM's synchronous and concurrent strategies, AIPerf's and
GenAI-Perf's --concurrency) is kept: the simulation sends the next request only when one
finishes (``calc.serve.simulate``).
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.errors import InvalidInputError

MAX_REPLAY_TOKENS = 1e10  # prompt + output tokens of a replayed run, in all


@dataclass(frozen=True, eq=False)
class Replay:
    """A run's requests: send times [s] (sorted), prompt and output lengths [tokens], the
    client's concurrency limit (None: none), and how each part was rebuilt."""

    arrival_s: object  # numpy float64
    prompt: object  # numpy int64
    gen: object
    max_in_flight: int | None
    arrivals: str  # how the send times were rebuilt, in words
    lengths: str  # how the lengths were rebuilt, in words
    # fraction of each prompt found in the engine's prefix cache (whole blocks of it; at least
    # one token is computed): a rerun of the same prompts on a server with prefix caching
    cached_fraction: float = 0.0


def _draw(lengths, rng, n: int, flag: str):
    """``n`` lengths from a ``Lengths`` (calc.data.bench_results.run) [tokens, ≥ 1]."""
    import numpy as np

    if lengths.kind == "fixed":
        out = np.full(n, round(lengths.a))
    elif lengths.kind == "uniform":
        out = rng.integers(int(lengths.a), int(lengths.b), size=n, endpoint=True)
    elif lengths.kind == "normal":
        out = np.rint(rng.normal(lengths.a, lengths.b, size=n))
    else:  # pragma: no cover - the readers make only these three
        raise InvalidInputError(f"{flag}: unknown length distribution {lengths.kind!r}")
    return np.maximum(out, 1).astype(np.int64)


def _describe(lengths) -> str:
    if lengths.kind == "fixed":
        return f"{round(lengths.a)}"
    if lengths.kind == "uniform":
        return f"uniform {int(lengths.a)}..{int(lengths.b)}"
    return f"normal mean {lengths.a:.0f} sd {lengths.b:.0f}"


def _lengths(run, rng, n: int, which: str, given):
    """(lengths, how) of the prompts (``which`` "prompt") or outputs ("output")."""
    import numpy as np

    from calc.data.bench_results import Lengths

    flag = "--prompt" if which == "prompt" else "--gen"
    if given is not None:  # a calc.serve.workload.LengthDist
        return given.sample(rng, n), f"{given.describe()} ({flag})"
    each = run.prompt_tokens if which == "prompt" else run.output_tokens
    if each is not None and len(each) == n:
        return np.asarray(each, dtype=np.int64), "as recorded per request"
    stated = run.prompt_lengths if which == "prompt" else run.output_lengths
    if stated is not None:
        return _draw(stated, rng, n, flag), f"{_describe(stated)} (the dataset's settings)"
    mean = run.mean_prompt_tokens if which == "prompt" else run.mean_output_tokens
    if mean:
        fixed = Lengths("fixed", mean)
        return _draw(fixed, rng, n, flag), f"{round(mean)} each (the mean of the file's totals)"
    raise InvalidInputError(
        f"{run.source}: the file records no {which} lengths (per request, dataset settings or "
        f"totals): give {flag}"
    )


def replay(run, *, seed: int = 0, prompt=None, gen=None, rate_per_s=None,
           cached_fraction: float = 0.0, concurrency: int | None = None) -> Replay:  # fmt: skip
    """The requests of ``run`` (a ``BenchRun``) rebuilt for the simulation (module docstring);
    ``prompt``/``gen``: LengthDists that replace the recorded lengths, ``rate_per_s`` the
    recorded rate, ``cached_fraction`` the part of each prompt in the prefix cache,
    ``concurrency`` the client's limit where the file does not record it (or records another:
    it replaces the file's; recorded send times already waited for the client's slots)."""
    import numpy as np

    f = cached_fraction
    if isinstance(f, bool) or not isinstance(f, int | float) or not 0 <= f <= 1:
        raise InvalidInputError(f"--prefix-cached must be in 0..1, got {f!r}")
    if concurrency is not None and (
        isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1
    ):
        raise InvalidInputError(f"--concurrency must be a whole number >= 1, got {concurrency!r}")

    n = len(run.prompt_tokens) if run.prompt_tokens is not None else run.completed
    if n < 1:
        raise InvalidInputError(f"{run.source}: no completed request to replay")
    if n > 1_000_000:
        raise InvalidInputError(f"{run.source}: {n:,} requests; kvcalc replays at most 1,000,000")
    rng = np.random.default_rng(seed)
    client = _client(run, n)
    p, p_how = _lengths(run, rng, n, "prompt", prompt)
    g, g_how = _lengths(run, rng, n, "output", gen)
    if client is not None and client.prompt is not None:
        if prompt is None:
            p, p_how = client.prompt, f"as the client drew them ({client.why})"
        if gen is None:
            g, g_how = client.output, f"as the client drew them ({client.why})"
    if float(p.sum()) + float(g.sum()) > MAX_REPLAY_TOKENS:
        raise InvalidInputError(
            f"{run.source}: {float(p.sum() + g.sum()):,.0f} tokens in all; kvcalc replays at "
            f"most {MAX_REPLAY_TOKENS:,.0f}"
        )
    rate = rate_per_s if rate_per_s is not None else run.rate_per_s
    if run.start_s is not None and len(run.start_s) == n and rate_per_s is None:
        arrival = np.asarray(run.start_s, dtype=np.float64)
        order = np.argsort(arrival, kind="stable")
        arrival, p, g = arrival[order], p[order], g[order]
        how = "as recorded per request"
        cap = None  # the recorded send times already waited for the client's slots
        if concurrency is not None:
            how += " (--concurrency not applied: the send times already waited for its slots)"
    else:
        cap = concurrency if concurrency is not None else run.max_concurrency
        if rate is None or rate <= 0:
            arrival = np.zeros(n)
            how = "all at once"
        else:
            kind = {"constant": "constant", "gamma": f"gamma (burstiness {run.burstiness})"}
            if client is not None and rate_per_s is None:
                arrival = client.arrivals(rate)
                how = (f"{kind.get(run.arrival, 'Poisson')} at {rate:g} requests/s as the "
                       f"client sent them: {client.why}")  # fmt: skip
            else:
                arrival = _arrivals(rng, n, rate, run.arrival, run.burstiness)
                how = f"{kind.get(run.arrival, 'Poisson')} at {rate:g} requests/s (seed {seed})"
        if cap is not None:
            given = " from --concurrency" if concurrency is not None else ""
            how += f", at most {cap} open (client concurrency{given})"
    # one account when both lengths came the same way (it was said twice, word for word)
    lengths = (f"prompts and outputs {p_how}" if p_how == g_how
               else f"prompts {p_how}; outputs {g_how}")  # fmt: skip
    if f:
        lengths += f"; {f:g} of each prompt in the prefix cache (whole blocks)"
    return Replay(arrival, p, g, cap, how, lengths, float(f))


class _Client:
    """The client's own draw (``calc.data.bench_results.run.ClientDraw``) replayed: numpy's
    legacy generator, seeded as the client seeded its global one, drawn in the client's order
    (the random dataset's lengths, then the gaps)."""

    def __init__(self, draw, n: int) -> None:
        import numpy as np

        self.n, self.draw, self.why = n, draw, draw.why
        self.rs = np.random.RandomState(draw.seed)
        self.prompt = self.output = None
        if draw.prompt_bounds is not None and draw.output_bounds is not None:
            (a, b), (c, d) = draw.prompt_bounds, draw.output_bounds
            # the client's own bounds (an output length may be 0 there: replayed as 1 token)
            self.prompt = np.maximum(self.rs.randint(a, b + 1, size=n), 1).astype(np.int64)
            self.output = np.maximum(self.rs.randint(c, d + 1, size=n), 1).astype(np.int64)

    def arrivals(self, rate: float):
        """Send times [s]: 0, then the client's gaps, unscaled."""
        import numpy as np

        k = self.draw.gap_shape
        gaps = self.rs.gamma(k, 1.0 / (rate * k), size=self.n - 1) if self.n > 1 else []
        return np.concatenate([[0.0], np.cumsum(gaps)])


def _client(run, n: int):
    """The run's client draw replayed (None where the file says no ``ClientDraw``, or the
    replay has other requests than the client sent: a failed request drew its gap too)."""
    draw = getattr(run, "client_draw", None)
    failed = run.failed or any("failed requests" in note for note in run.notes)
    if draw is None or n != run.completed or failed:
        return None
    return _Client(draw, n)


def _arrivals(rng, n: int, rate: float, kind: str, burstiness):
    """Send times: 0, then gaps of mean exactly 1 / rate (module docstring)."""
    import numpy as np

    if n == 1:
        return np.zeros(1)
    if kind == "constant":
        gaps = np.ones(n - 1)
    else:
        shape = burstiness if kind == "gamma" and burstiness else 1.0
        gaps = rng.gamma(shape, 1.0, size=n - 1)
    t = np.concatenate([[0.0], np.cumsum(gaps)])
    return t * ((n - 1) / rate / t[-1])
