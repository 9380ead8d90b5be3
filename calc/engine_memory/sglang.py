"""SGLang's KV-cache pool [bytes, tokens] per GPU, as its start-up code computes it.

Pure functions of plain numbers. Sources (sgl-project/sglang):

- ``python/sglang/srt/model_executor/model_runner.py`` ``profile_max_num_token``::

      rest_memory = available_gpu_memory − total_gpu_memory × (1 − mem_fraction_static)
      max_total_num_tokens = rest_memory × 2^30 // cell_size

  ``available_gpu_memory`` is measured after the weights are loaded (the smallest over the TP
  ranks), so the budget is ``mem_fraction_static × total − weights − non-torch``: activations
  and CUDA graphs must fit in the ``1 − mem_fraction_static`` share and are not subtracted.
  ``cell_size`` is one token's KV over the GPU's layers (K and V heads × head_dim × bytes;
  MLA: kv_lora_rank + qk_rope_head_dim, one copy). The log prints the pool as
  "KV Cache is allocated. #tokens: N, K size: x GB, V size: x GB" (GB there is bytes / 2^30).
- ``python/sglang/srt/server_args.py``: when ``--mem-fraction-static`` is not given it is
  chosen by TP size (0.88 at TP 1, 0.87 at TP 2, 0.85 at TP 4, 0.81 at TP 8, 0.79 at TP 16),
  the rule of the 0.4 releases; later releases size a reserve from the GPU's memory instead.
"""

from __future__ import annotations

from calc.elementwise import maximum

# (smallest TP size, mem_fraction_static) from largest to smallest, server_args.py (0.4)
AUTO_MEM_FRACTION_BY_TP = ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87), (1, 0.88))


def auto_mem_fraction_static(tp: int) -> float:
    """SGLang's default ``mem_fraction_static`` for a TP size (server_args.py, 0.4)."""
    for smallest, fraction in AUTO_MEM_FRACTION_BY_TP:
        if tp >= smallest:
            return fraction
    return AUTO_MEM_FRACTION_BY_TP[-1][1]


def rest_memory_bytes(total_memory_bytes, mem_fraction_static, weights_bytes, non_torch_bytes):
    """``rest_memory`` [bytes]: (total − weights − non-torch) − total × (1 − fraction)."""
    available = total_memory_bytes - weights_bytes - non_torch_bytes
    return available - total_memory_bytes * (1 - mem_fraction_static)


def max_total_num_tokens(rest_bytes, cell_size_bytes, page_size=1):
    """Tokens of the pool: rest // cell_size, rounded down to whole pages."""
    tokens = maximum(rest_bytes, 0) // cell_size_bytes
    return tokens // page_size * page_size
