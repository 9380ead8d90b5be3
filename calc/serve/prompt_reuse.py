"""The share of a benchmark's timed requests whose prompt the engine's prefix cache already holds
[fraction], for prompts drawn at random, with replacement, from a finite set of distinct prompts.

Load generators that synthesise prompts build a small data set and draw every request from it:
AIPerf (and GenAI-Perf before it) makes ``--num-dataset-entries`` prompts, 100 by default
(ai-dynamo/aiperf@db4f6397 ``aiperf/common/config/conversation_config.py``: the option sets
``conversation.num``, "reused until benchmarking is complete"; ``config_defaults.py``
``ConversationDefaults.NUM = 100``), and hands each request of a synthetic run one of them chosen
at random (``aiperf/dataset/dataset_manager.py`` ``_return_any_conversation``: ``random.choice``
over the conversation ids; sequential only for Mooncake traces). Once the benchmark has
sent a prompt, a server with a prefix cache (vLLM V1's automatic prefix caching, on by default:
``vllm/config/cache.py`` ``enable_prefix_caching: bool = True`` in 0.12.0) finds all of it but
the last block when it comes again, as long as its blocks were not evicted.

With D distinct prompts, W warm-up requests (not timed) and M timed ones, a timed request misses
when its prompt is drawn for the first time. The expected number of prompts first drawn among the
timed requests is D (1 − 1/D)^W (1 − (1 − 1/D)^M), so the share of timed requests that miss for
that reason is

    first = D (1 − 1/D)^W (1 − (1 − 1/D)^M) / M.

The cache holds ``held`` prompts beside the running requests; a random (not cyclic) draw over D
prompts of which the least recently used are evicted finds its prompt with probability
min(1, held / D). The hit share is (1 − first) × min(1, held / D).
"""

from __future__ import annotations


def first_draw_share(prompts: int, warmup: int, timed: int) -> float:
    """The share of ``timed`` requests that draw a prompt no earlier request drew, for requests
    drawn uniformly with replacement from ``prompts`` distinct prompts after ``warmup`` untimed
    ones [fraction]: D (1 − 1/D)^W (1 − (1 − 1/D)^M) / M."""
    if prompts < 1 or timed < 1 or warmup < 0:
        raise ValueError("prompts and timed must be at least 1, warmup at least 0")
    keep = 1.0 - 1.0 / prompts
    # at most 1 (each timed request draws at most one new prompt); min() absorbs rounding
    return min(1.0, prompts * keep**warmup * (1.0 - keep**timed) / timed)


def hit_share(prompts: int, warmup: int, timed: int, held_prompts: float) -> float:
    """The share of ``timed`` requests whose whole prompt (but its last block) the prefix cache
    holds when it arrives [fraction]: (1 − first draws) × min(1, held / prompts), ``held_prompts``
    the prompts the KV pool keeps beside the running requests (0 or less: none)."""
    kept = min(1.0, max(0.0, held_prompts) / prompts) if prompts >= 1 else 0.0
    return (1.0 - first_draw_share(prompts, warmup, timed)) * kept


def cached_tokens(prompt: int, block_size: int) -> int:
    """The tokens of a repeated ``prompt`` served from the cache [tokens]: whole blocks, at most
    prompt − 1 of them (the engine computes at least the last token to get its logits: vLLM's
    ``max_cache_hit_length = request.num_tokens - 1``, ``v1/core/kv_cache_manager.py``)."""
    if prompt < 1 or block_size < 1:
        raise ValueError("prompt and block_size must be at least 1")
    return (prompt - 1) // block_size * block_size
