"""TensorRT-LLM's KV-cache pool [bytes, tokens] per GPU, as its KV cache manager sizes it:
pure functions of plain numbers (NVIDIA/TensorRT-LLM).

- ``tensorrt_llm/llmapi/llm_args.py`` ``KvCacheConfig``: ``free_gpu_memory_fraction`` is "the
  fraction of GPU memory that should be allocated for the KV cache", taken of the memory still
  free after the weights and the activations of a profiling pass
  (``docs/source/reference/memory.md``); ``max_tokens`` caps it, and when both are set "the
  smaller value will be used" (the warning the log prints).
- ``cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp``: the pool is whole blocks of
  ``tokens_per_block`` tokens; a ``max_tokens`` cap is rounded up to a whole block ("Allocated
  52.51 GiB for max tokens in paged KV cache (860320)" for max_tokens 860308).
"""

from __future__ import annotations

from calc.formulas.elementwise import cdiv, maximum, minimum


def allreduce_workspace_bytes(size_bytes, tp):
    """The all-reduce fusion workspace one GPU of a TP group allocates outside torch [bytes]
    (``CustomAllReduceHelper.allocate_allreduce_fusion_workspace``): IPC buffers of
    size × TP, Lamport buffers of 3 × size × TP and barriers of 256 × TP bytes; none at TP 1."""
    if tp <= 1:
        return 0
    return 4 * size_bytes * tp + 256 * tp


def free_memory_bytes(total_memory_bytes, weights_bytes, activation_bytes, non_torch_bytes):
    """Memory free after the weights and the profiling pass [bytes]."""
    return total_memory_bytes - weights_bytes - activation_bytes - non_torch_bytes


def fraction_tokens(free_bytes, free_gpu_memory_fraction, kv_bytes_per_token, tokens_per_block):
    """Tokens the fraction of free memory holds, in whole blocks."""
    budget = maximum(free_bytes, 0) * free_gpu_memory_fraction
    return budget // (kv_bytes_per_token * tokens_per_block) * tokens_per_block


def capped_tokens(tokens_from_fraction, max_tokens, tokens_per_block):
    """The pool [tokens]: the fraction's pool, or ``max_tokens`` rounded up to a whole block
    when that is smaller."""
    if max_tokens is None:
        return tokens_from_fraction
    return minimum(tokens_from_fraction, cdiv(max_tokens, tokens_per_block) * tokens_per_block)
