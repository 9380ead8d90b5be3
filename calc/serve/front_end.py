"""When each request reaches the engine [s]: the API front-end takes requests in one at a time
(a FIFO intake with a fixed service time per request) and each then waits its own front-end
latency (HTTP, tokenisation: ``calc.deploy.host_costs``) and any calibrated request latency.

Entry times follow Lindley's recursion for a single server,
``entry_i = max(arrival_i + latency_i, entry_{i−1} + intake_s)``: a request is handed over
no sooner than its own latency after it was sent, and no sooner than one intake time after the
request before it. Unrolled, ``entry_i = i × intake_s + max_{j ≤ i}(x_j − j × intake_s)`` with
``x_j = arrival_j + latency_j``, one cumulative maximum (vectorised). At a steady rate the
requests are far apart (62 ms at 16 requests/s against ~1 ms of intake) and the intake changes
nothing; a burst (``--rate inf``: every request sent at once) reaches the engine over
``n × intake_s``, so the last of 200 requests waits for the 199 before it.

The intake time (``INTAKE_S``): the TTFT of a burst rises with each request's place in the send
order. In the published vLLM 0.8.3 run of 200 ShareGPT requests sent at once (surajssd/llm-k8s
@58b61c5 results_serving_meta-llama-Llama-3.3-70B-Instruct/01_tp8_pp1, qps-inf, its per-request
``ttfts``), the least-squares slope of TTFT over the send order is 1.18 ms per request
(correlation 0.88; the two pipeline-parallel runs' bursts rise 1.8 and 2.6 ms per request but
their TTFTs also jump in waves of whole pipeline steps). It stands for the serial part of the
per-request work of the front-end and of the client: vLLM's API server and the benchmark client
are each one asyncio event loop that parses, tokenises and forwards (or sends and reads) one
request at a time; the engine adds the requests it has received between steps. It is taken for
every engine behind the ``api`` front-end (``offline`` has none): one figure, fitted on one
record (docs/validation.md lists it).

The same loop hands each request's first token out, one at a time, the same time each
(``first_tokens_delivered_s``): in that burst the first tokens start only when the whole intake
is done (the first tenth of the send order at 241 ms, 200 × 1.18 ms = 236 ms) and then rise
1.18 ms per place (median 350 ms, p90 446 ms measured; replayed 353 and 447 ms with the 16/s
run's calibration, where handing the first tokens out at once gave 235 and 370 ms). The slope
and the intercept are both the one figure. At a steady rate a first token comes 1.18 ms after
it is produced (a constant, which a calibrated request latency absorbs).

What is held is the request's stream, not its first token alone: the simulation delays every
token of a request by its first token's hold (``calc.serve.simulate``), so its later tokens
keep the engine's gaps. vLLM 0.8.3's API server would merge a request's tokens produced while
its consumer waited into one streamed chunk (``v1/engine/output_processor.py``
RequestOutputCollector: "RequestOutputs are merged if the producer gets ahead of the
consumer"), and the client counts one gap per chunk; in every burst of the published files
(surajssd/llm-k8s@58b61c5, the untrimmed ``itls``: TP 8 and both TP 4 × PP 2 servers) each
request has exactly output tokens − 1 gaps, so no token was held while the next was produced.
Holding the first token alone (the release before) squeezed a short request's later tokens
into the time after its first (the TP 8 burst's requests of 2-9 output tokens: TPOT 24.6 ms
on average against 58.1 measured; 51.0 ms held whole) and put the burst's TPOT mean 11% under
the measured.
"""

from __future__ import annotations

# the front-end's intake time per request [s] (module docstring)
INTAKE_S = 1.18e-3
INTAKE_SOURCE = (
    "surajssd/llm-k8s@58b61c5 01_tp8_pp1 qps-inf (vLLM 0.8.3, 200 requests at once): "
    "TTFT rises 1.18 ms per place in the send order (least squares, r = 0.88)"
)


def intake_s_of(step) -> float:
    """The intake time per request of ``step``'s front-end [s]: ``INTAKE_S`` behind the api
    front-end (a step table whose host costs state a per-request time), else 0."""
    host = getattr(step, "host", None)
    return INTAKE_S if host is not None and host.per_request_s > 0 else 0.0


def entry_times_s(arrival, latency, intake_s: float):
    """When each request reaches the engine [s]: ``arrival`` (sorted) plus its ``latency``,
    one at a time at most every ``intake_s`` (module docstring); numpy arrays."""
    import numpy as np

    x = np.asarray(arrival, dtype=np.float64) + latency
    if x.size == 0:
        return x
    if intake_s <= 0:
        return np.maximum.accumulate(x)
    k = np.arange(x.size, dtype=np.float64) * intake_s
    return np.maximum.accumulate(x - k) + k


def delivered_s(t, arrival, intake_done):
    """When output produced at ``t`` reaches the client [s]: the front-end's one event loop
    takes in and streams out in the order the work came, so an output waits until the intake
    of every request sent before it is done: ``max(t, intake_done[k])`` with k the last
    request sent at or before t (``arrival`` sorted; ``intake_done`` from
    ``entry_times_s(arrival, 0, intake_s)``, non-decreasing). A burst's first tokens thus come
    no sooner than its whole intake; at a steady rate the intake is long done (no change)."""
    import numpy as np

    t = np.asarray(t, dtype=np.float64)
    k = np.searchsorted(arrival, t, side="right") - 1
    busy = np.where(k >= 0, np.asarray(intake_done)[np.maximum(k, 0)], -np.inf)
    return np.maximum(t, busy)


def first_tokens_delivered_s(t, arrival, intake_done, intake_s: float):
    """When each first token, produced at ``t``, reaches the client [s]: the front-end's one
    event loop hands them out in the order they are ready, one per ``intake_s``, a token being
    ready when produced and when the intake of every request sent before it is done
    (``delivered_s``): Lindley's recursion ``d_j = max(ready_j, d_{j−1}) + intake_s`` in ready
    order, unrolled as in ``entry_times_s``; numpy arrays in the requests' order."""
    import numpy as np

    ready = delivered_s(t, arrival, intake_done)
    if ready.size == 0 or intake_s <= 0:
        return ready
    order = np.argsort(ready, kind="stable")
    k = np.arange(ready.size, dtype=np.float64) * intake_s
    out = np.empty_like(ready)
    out[order] = np.maximum.accumulate(ready[order] - k) + k + intake_s
    return out
