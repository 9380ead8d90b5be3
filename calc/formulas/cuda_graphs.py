"""Which decode batches an engine replays as CUDA graphs [sequences]: the sizes it captures
from those asked, the batch a padded replay runs, and whether an unpadded one replays at all.

Pure functions of numbers; ``padded_batch`` and ``replays_graph`` accept numpy arrays.
"""

from __future__ import annotations


def captured_batch_sizes(sizes, max_batch, max_tokens) -> tuple:
    """The decode graphs a padded engine captures from the ``sizes`` asked [seqs]: those up to
    min(max_batch, max_tokens) (the largest pure-decode batch), and that bound itself where a
    larger size was asked (TensorRT-LLM ``_filter_cuda_graph_batch_sizes``: "padding to
    max_cuda_graph_bs is acceptable")."""
    bound = min(int(max_batch), int(max_tokens))
    kept = tuple(s for s in sorted(sizes) if s <= bound)
    if any(s > bound for s in sizes) and (not kept or kept[-1] != bound):
        kept += (bound,)
    return kept


def padded_batch(batch, sizes, cap):
    """The batch a padded CUDA-graph replay runs [seqs]: the smallest captured size in ``sizes``
    (ascending) holding ``batch``; ``batch`` itself beyond the largest, or where the padded
    batch would exceed ``cap`` (the engine's max batch size). Numbers or arrays."""
    import numpy as np

    s = np.asarray(sizes, dtype=np.float64)
    b = np.asarray(batch, dtype=np.float64)
    idx = np.searchsorted(s, b, side="left")
    up = s[np.minimum(idx, len(s) - 1)]
    return np.where((idx < len(s)) & (up <= cap), up, b)


def replays_graph(batch, sizes, padded: bool):
    """Whether a decode-only step of ``batch`` sequences (per rank) replays a captured graph:
    padded, when some captured size in ``sizes`` holds it (it is rounded up to that size);
    unpadded, only when ``batch`` is itself a captured size (TensorRT-LLM's
    ``cuda_graph_runner.py``: a batch without its graph runs eagerly). Numbers or arrays."""
    import numpy as np

    b = np.asarray(batch, dtype=np.float64)
    if len(sizes) == 0:
        return np.zeros_like(b, dtype=bool)
    if padded:
        return b <= max(sizes)
    return np.isin(b, np.asarray(sizes, dtype=np.float64))
