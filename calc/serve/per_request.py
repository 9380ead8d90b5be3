"""One record per request of a simulation, as a benchmark client would log it [s, tokens]:
when it was sent, admitted, got its first token and finished, its lengths, TTFT, TPOT, E2E
(``calc.serve.simulate``'s definitions, vLLM's benchmark's), its longest inter-token gap and
how many times it was preempted; written as JSON Lines (one object per line).

The records are in the order of the workload's requests (a trace's rows, a benchmark file's
requests), the refused ones left out; times are from the first request's arrival [s].
"""

from __future__ import annotations

import math

# (key, what it is): the keys of every record, registered in calc.output.names
FIELDS = (
    ("request", "index of the request in the workload (refused requests keep their index)"),
    ("group", "sequence group (replica, attention-DP rank, pipeline micro-batch) it ran on"),
    ("arrival_s", "when the client sent it"),
    ("admitted_s", "when the scheduler first admitted it"),
    ("first_token_s", "when its first output token reached the client (the front-end hands out)"),
    ("finish_s", "when its last output token was produced"),
    ("prompt_tokens", "prompt tokens"),
    ("output_tokens", "output tokens"),
    ("ttft_s", "first_token_s − arrival_s"),
    ("tpot_s", "(finish_s − first_token_s) / (output_tokens − 1); null for one output token"),
    ("e2e_s", "finish_s − arrival_s"),
    ("itl_max_s", "its longest gap between two consecutive output tokens; null for one token"),
    ("preemptions", "times it was preempted (its KV freed, recomputed later)"),
)


def per_request_records(result, index=None) -> list[dict]:
    """The records of ``result`` (a ``SimResult``); ``index``: each served request's index in
    the workload (default 0, 1, …)."""
    r = result
    n = r.n_requests
    idx = range(n) if index is None else index
    t0 = float(r.arrival_each_s[0]) if n else 0.0
    out = []
    for i, k in zip(range(n), idx, strict=True):
        a = float(r.arrival_each_s[i])
        ttft = float(r.ttft_each_s[i])
        e2e = float(r.e2e_each_s[i])
        tpot = float(r.tpot_each_s[i])
        gen = int(r.gen_each[i])
        out.append(
            {
                "request": int(k),
                "group": int(r.group_each[i]),
                "arrival_s": a - t0,
                "admitted_s": a - t0 + float(r.wait_each_s[i]),
                "first_token_s": a - t0 + ttft,
                "finish_s": a - t0 + e2e,
                "prompt_tokens": int(r.prompt_each[i]),
                "output_tokens": gen,
                "ttft_s": ttft,
                "tpot_s": None if math.isnan(tpot) else tpot,
                "e2e_s": e2e,
                "itl_max_s": float(r.itl_max_each_s[i]) if gen > 1 else None,
                "preemptions": int(r.preempted_each[i]),
            }
        )
    return out


def jsonl_text(records) -> str:
    """JSON Lines: one compact object per line. A small local writer: the shared JSONL writer
    of calc/output (engineer 'outputs') replaces it when it lands."""
    import json

    return "".join(json.dumps(rec, separators=(",", ":")) + "\n" for rec in records)


def write_per_request(path, result, index=None, flag: str = "--per-request") -> None:
    """Write the records of ``result`` to ``path`` as JSON Lines, atomically."""
    from calc.output.render import write_atomic

    write_atomic(path, jsonl_text(per_request_records(result, index)), flag)
