"""The share of a benchmark's timed requests whose prompt the engine's prefix cache already holds
[fraction], for prompts drawn from a finite set of distinct prompts: at random with replacement,
or shuffled (every prompt once per pass through the set, in a new order each pass).

Load generators that synthesise prompts build a small data set and draw every request from it:
AIPerf (and GenAI-Perf before it) makes ``--num-dataset-entries`` prompts, 100 by default
(``PromptDefaults.NUM = 100``; "reused until benchmarking is complete"). How a request picks one
changed with the release:

- **random** (AIPerf up to 0.2.0; ai-dynamo/aiperf@db4f6397 ``aiperf/dataset/dataset_manager.py``
  ``_return_any_conversation``: ``random.choice`` over the conversation ids).
- **shuffle** (AIPerf 0.3.0, 0.4.0 and 0.5.0 wheels: ``InputDefaults.DATASET_SAMPLING_STRATEGY =
  DatasetSamplingStrategy.SHUFFLE``; ``aiperf/dataset/dataset_samplers.py`` ``ShuffleSampler``:
  "randomly samples without replacement, then repeats", the ids reshuffled at the end of each
  pass). Warm-up and timed requests draw from the same sampler.

Once the benchmark has sent a prompt, a server with a prefix cache (vLLM V1's automatic prefix
caching, on by default: ``vllm/config/cache.py`` ``enable_prefix_caching: bool = True`` in 0.12.0)
finds all of it but the last block when it comes again, as long as its blocks were not evicted.

With D distinct prompts, W warm-up requests (not timed) and M timed ones, a timed request misses
when its prompt is drawn for the first time. Drawn at random, the expected number of prompts
first drawn among the timed requests is D (1 − 1/D)^W (1 − (1 − 1/D)^M); shuffled, the first D
requests draw every prompt once and no later one draws a new prompt, so min(W + M, D) − W of the
timed ones are first draws (none when W ≥ D). The share of timed requests that miss for that
reason is

    first = D (1 − 1/D)^W (1 − (1 − 1/D)^M) / M          (random)
    first = max(0, min(W + M, D) − W) / M                  (shuffle)

The cache holds ``held`` prompts beside the running requests and evicts the least recently used
blocks first (vLLM's free-block queue). A random draw finds its prompt with probability
min(1, held / D). A shuffled prompt comes back in the next pass: drawn at position p of one pass
and q of the next (each uniform over 0 … D − 1), the other prompts sent in between are the
a = D − 1 − p after it in its pass and the b = q before it in the next, a + b − a b / (D − 1)
distinct ones on average (two independent draws from the other D − 1); it is found when fewer
than ``held`` were, averaged over p and q. The hit share is (1 − first) × that.
"""

from __future__ import annotations

SAMPLINGS = ("random", "shuffle")  # how a load generator picks each request's prompt


def first_draw_share(prompts: int, warmup: int, timed: int, sampling: str = "random") -> float:
    """The share of ``timed`` requests that draw a prompt no earlier request drew, for requests
    drawn from ``prompts`` distinct prompts after ``warmup`` untimed ones [fraction]: at random
    with replacement, D (1 − 1/D)^W (1 − (1 − 1/D)^M) / M; shuffled (``sampling`` "shuffle"),
    max(0, min(W + M, D) − W) / M."""
    if prompts < 1 or timed < 1 or warmup < 0:
        raise ValueError("prompts and timed must be at least 1, warmup at least 0")
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {', '.join(SAMPLINGS)}, not {sampling!r}")
    if sampling == "shuffle":
        return max(0, min(warmup + timed, prompts) - warmup) / timed
    keep = 1.0 - 1.0 / prompts
    # at most 1 (each timed request draws at most one new prompt); min() absorbs rounding
    return min(1.0, prompts * keep**warmup * (1.0 - keep**timed) / timed)


def kept_share(prompts: int, held_prompts: float, sampling: str = "random") -> float:
    """The chance that a prompt drawn again is still in a least-recently-used cache that holds
    ``held_prompts`` prompts [fraction]: min(1, held / D) at random; shuffled, the share of
    (p, q) position pairs of two passes whose a + b − a b / (D − 1) prompts sent in between
    (a = D − 1 − p, b = q) are fewer than ``held`` (0 or less held: none)."""
    if prompts < 1:
        return 0.0
    held = max(0.0, held_prompts)
    if sampling != "shuffle":
        return min(1.0, held / prompts)
    if prompts == 1:
        return 1.0 if held > 0 else 0.0
    import numpy as np

    a = (prompts - 1 - np.arange(prompts))[:, None]  # after it in its own pass
    b = np.arange(prompts)[None, :]  # before it in the next
    between = a + b - a * b / (prompts - 1)
    return float((between < held).mean())


def hit_share(prompts: int, warmup: int, timed: int, held_prompts: float,
              sampling: str = "random") -> float:  # fmt: skip
    """The share of ``timed`` requests whose whole prompt (but its last block) the prefix cache
    holds when it arrives [fraction]: (1 − first draws) × the chance it is still held
    (``kept_share``), ``held_prompts`` the prompts the KV pool keeps beside the running
    requests."""
    first = first_draw_share(prompts, warmup, timed, sampling)
    return (1.0 - first) * kept_share(prompts, held_prompts, sampling)


def cached_tokens(prompt: int, block_size: int) -> int:
    """The tokens of a repeated ``prompt`` served from the cache [tokens]: whole blocks, at most
    prompt − 1 of them (the engine computes at least the last token to get its logits: vLLM's
    ``max_cache_hit_length = request.num_tokens - 1``, ``v1/core/kv_cache_manager.py``)."""
    if prompt < 1 or block_size < 1:
        raise ValueError("prompt and block_size must be at least 1")
    return (prompt - 1) // block_size * block_size
