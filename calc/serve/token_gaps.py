"""The inter-token latency (ITL) distribution of a simulation [s]: every gap between two
consecutive output tokens of one request, pooled over all requests, as vLLM's benchmark pools
them (``vllm/benchmarks/serve.py``, ``calculate_metrics``: ``itls += outputs[i].itl``), and its
mean and percentiles computed as ``numpy.percentile`` computes them on that pooled list.

The scheduler (``calc.serve.scheduler``) does not list the gaps one by one: it records
``(gap, count)`` pairs and decode stretches ``(d, γ, C, b, k)`` whose gaps are d + γ (C + b j)
for j = 1 … k − 1, b tokens each (a stretch's first iteration is among the pairs). The
percentiles are taken on these weighted values without expanding the counts:

    sorted distinct values v_0 < v_1 < …, with counts n_i; N = Σ n_i tokens;
    the q-th percentile sits at rank h = q / 100 × (N − 1) of the expanded sorted list;
    x(k) = the value whose cumulative count first exceeds k;
    percentile = x(⌊h⌋) + (h − ⌊h⌋) × (x(⌊h⌋ + 1) − x(⌊h⌋))   (numpy's "linear" method).
"""

from __future__ import annotations

PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0}


def gap_values(pairs_gaps, pairs_counts, runs):
    """(values [s], counts) of all gaps: the pairs, then every stretch's steps 1 … k − 1."""
    import numpy as np

    vals = [np.asarray(pairs_gaps, dtype=np.float64)]
    cnts = [np.asarray(pairs_counts, dtype=np.int64)]
    if runs:
        r = np.asarray(runs, dtype=np.float64)  # columns d, γ, C, b, k
        steps = (r[:, 4] - 1).astype(np.int64)
        keep = steps > 0
        r, steps = r[keep], steps[keep]
        if steps.size:
            which = np.repeat(np.arange(steps.size), steps)
            start = np.cumsum(steps) - steps
            j = np.arange(int(steps.sum()), dtype=np.float64) - (start - 1)[which]
            base = r[:, 0] + r[:, 1] * r[:, 2]  # d + γ C
            rise = r[:, 1] * r[:, 3]  # γ b
            vals.append(base[which] + rise[which] * j)
            cnts.append(r[:, 3].astype(np.int64)[which])
    return np.concatenate(vals), np.concatenate(cnts)


def _sorted(values, counts):
    """(values, cumulative counts) in ascending order of value, the zero counts left out."""
    import numpy as np

    values = np.asarray(values, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    keep = counts > 0
    values, counts = values[keep], counts[keep]
    order = np.argsort(values, kind="stable")  # a stretch's gaps arrive already rising
    return values[order], np.cumsum(counts[order])


def _percentile(v, cum, q: float) -> float:
    import numpy as np

    total = int(cum[-1])
    h = q / 100.0 * (total - 1)
    lo = int(np.floor(h))
    x_lo = v[np.searchsorted(cum, lo, side="right")]
    x_hi = v[np.searchsorted(cum, min(lo + 1, total - 1), side="right")]
    return float(x_lo + (h - lo) * (x_hi - x_lo))


def weighted_percentile(values, counts, q: float) -> float:
    """The q-th percentile of ``values`` each repeated ``counts`` times (module docstring)."""
    return _percentile(*_sorted(values, counts), q)


def gap_summary(values, counts) -> dict:
    """{"mean", "p50", "p90", "p99"} of the pooled gaps [s] (None each when there is none)."""
    import numpy as np

    v, cum = _sorted(values, counts)
    if cum.size == 0:
        return {"mean": None, **dict.fromkeys(PERCENTILES)}
    weights = np.diff(cum, prepend=0)
    out = {"mean": float(np.dot(v, weights) / cum[-1])}
    for k, q in PERCENTILES.items():
        out[k] = _percentile(v, cum, q)
    return out
