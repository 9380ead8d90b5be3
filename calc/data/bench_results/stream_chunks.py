"""Whether a vLLM benchmark file's ITL is a gap between tokens or between chunks of several
tokens, from the file's own TPOT and ITL figures [ms in, a note out] (issue 23, itl054 round).

vLLM's benchmark (``benchmark_serving.py``, ``vllm/benchmarks/serve.py`` ``calculate_metrics``)
takes each request's TPOT = (latency − TTFT) / (n − 1), over the requests of n > 1 output
tokens, and pools every gap between two streamed chunks into the ITL list. When each chunk
carries one token, a request's gaps add up to at most its latency − TTFT = (n − 1) × TPOT (the
end of the stream comes after the last token), so the pooled ITL mean, the gaps' total over
their count, is a weighted mean of the requests' TPOTs and at most the largest of them:

    ITL mean ≤ max TPOT ≤ TPOT mean + TPOT std × √(m − 1)

the second step Samuelson's inequality (numpy's ``std``, ddof 0, as the writer computes it)
for m TPOT values (the requests of more than one output token where the file lists the
lengths, else all completed requests: more values only widen the bound). An ITL mean above
that bound says the gaps carried several tokens each: the engine streamed in chunks (vLLM
0.6's multi-step scheduling hands out ``--num-scheduler-steps`` tokens at once), or text was
held back for a whole character. kvcalc's ITL is the gap between two tokens
(``calc.serve.token_gaps``), so such a file's ITL is not comparable to it; its TPOT is.
"""

from __future__ import annotations

import math


def tpot_bound_ms(mean: float, std: float, m: int) -> float:
    """The largest TPOT m values of this mean and (population) standard deviation can hold
    [ms]: mean + std × √(m − 1)."""
    return mean + std * math.sqrt(max(m - 1, 0))


def chunk_note(obj: dict, completed: int, outputs) -> str | None:
    """A note when the file's ITL mean exceeds every request's TPOT (module docstring), else
    None. ``outputs``: the per-request output lengths the file lists (None where it lists
    none)."""
    vals = [obj.get(k) for k in ("mean_itl_ms", "mean_tpot_ms", "std_tpot_ms")]
    if not all(isinstance(v, int | float) and math.isfinite(v) for v in vals):
        return None
    itl, tpot, std = (float(v) for v in vals)
    m = completed if outputs is None else sum(1 for o in outputs if o > 1)
    if m < 1 or tpot <= 0:
        return None
    bound = tpot_bound_ms(tpot, std, m)
    if itl <= bound:
        return None
    return (f"the ITL mean ({itl:.3g} ms) is above any request's TPOT (at most {tpot:.3g} + "
            f"{std:.3g} × √{m - 1} = {bound:.3g} ms): the stream came in chunks of about "
            f"{itl / tpot:.2g} tokens (multi-step scheduling, or a stream interval), so its ITL "
            "is the gap between chunks and kvcalc's is the gap between tokens: compare the "
            "TPOT")  # fmt: skip
