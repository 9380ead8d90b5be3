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
- ``python/sglang/srt/server_args.py``: when ``--mem-fraction-static`` is not given, the 0.4
  releases choose it by TP size (0.88 at TP 1, 0.87 at TP 2, 0.85 at TP 4, 0.81 at TP 8, 0.79
  at TP 16). From 0.5 (sgl-project/sglang PR #10975, ``_handle_gpu_memory_settings``) it is
  ``round((gpu_mem − reserved) / gpu_mem, 3)`` with ``gpu_mem`` the device memory in MiB and
  ``reserved = 512 + 1.5 × max(chunked_prefill_size, 2048) + 2 × cuda_graph_max_bs +
  1024 × tp × pp / 8`` MiB, at least 10,240 MiB on GPUs over 60 GiB; ``chunked_prefill_size``
  and ``cuda_graph_max_bs`` default by GPU memory bucket (H100/H200: 8,192 and 256 below
  TP 4, 512 from TP 4). Speculative decoding, DP attention and multimodal adjustments are not
  modelled.
- ``model_runner.py`` ``set_num_token_hybrid`` (models with sliding-window and full-attention
  layers, unless ``--disable-hybrid-swa-memory``): the tokens the pool holds over all layers,
  ``max_total_num_tokens × num_layers``, are split so that each sliding layer holds
  ``swa_full_tokens_ratio`` (default 0.8, ``server_args.py``) as many tokens as each full
  layer: ``full = int(total / (ratio × swa_layers + full_layers))``, ``swa = int(full ×
  ratio)``; the pool it reports (``max_total_num_tokens``) is then ``full``.
"""

from __future__ import annotations

from calc.formulas.elementwise import maximum

SWA_FULL_TOKENS_RATIO = 0.8  # server_args.py default of --swa-full-tokens-ratio

# (smallest TP size, mem_fraction_static) from largest to smallest, server_args.py (0.4)
AUTO_MEM_FRACTION_BY_TP = ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87), (1, 0.88))


def auto_mem_fraction_static(tp: int) -> float:
    """SGLang's default ``mem_fraction_static`` for a TP size (server_args.py, 0.4)."""
    for smallest, fraction in AUTO_MEM_FRACTION_BY_TP:
        if tp >= smallest:
            return fraction
    return AUTO_MEM_FRACTION_BY_TP[-1][1]


MIB = 2**20
# (GPU memory below [MiB], chunked_prefill_size, cuda_graph_max_bs below TP 4, from TP 4);
# server_args.py _handle_gpu_memory_settings (CUDA GPUs), 0.5
BUCKETS_0_5 = (
    (20 * 1024, 2048, 8, 8),  # T4, 4080
    (35 * 1024, 2048, 24, 80),  # A10, 4090, 5090
    (60 * 1024, 4096, 32, 160),  # A100 40GB, L40
    (90 * 1024, 8192, 256, 512),  # H100, A100 80GB
    (160 * 1024, 8192, 256, 512),  # H20, H200
    (None, 16384, 512, 512),  # B200, MI300
)


def bucket_defaults_0_5(gpu_mem_mib: float, tp: int) -> tuple[int, int]:
    """SGLang 0.5's default (chunked_prefill_size, cuda_graph_max_bs) for a GPU and TP."""
    for below, chunk, small_tp, large_tp in BUCKETS_0_5:
        if below is None or gpu_mem_mib < below:
            return chunk, (small_tp if tp < 4 else large_tp)
    raise AssertionError("unreachable: the last bucket has no bound")


def reserved_memory_mib(gpu_mem_mib, chunked_prefill_size, cuda_graph_max_bs, tp, pp):
    """Memory SGLang 0.5 keeps outside the static pool [MiB]: metadata, prefill activations,
    CUDA graphs and parallel buffers, at least 10 GiB on GPUs over 60 GiB."""
    reserved = 512 + max(chunked_prefill_size, 2048) * 1.5 + cuda_graph_max_bs * 2
    reserved += tp * pp / 8 * 1024
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return reserved


def auto_mem_fraction_static_0_5(gpu_mem_mib, reserved_mib) -> float:
    """SGLang 0.5's default ``mem_fraction_static``: (gpu_mem − reserved) / gpu_mem, 3 digits."""
    return round((gpu_mem_mib - reserved_mib) / gpu_mem_mib, 3)


def rest_memory_bytes(total_memory_bytes, mem_fraction_static, weights_bytes, non_torch_bytes):
    """``rest_memory`` [bytes]: (total − weights − non-torch) − total × (1 − fraction)."""
    available = total_memory_bytes - weights_bytes - non_torch_bytes
    return available - total_memory_bytes * (1 - mem_fraction_static)


def max_total_num_tokens(rest_bytes, cell_size_bytes, page_size=1):
    """Tokens of the pool: rest // cell_size, rounded down to whole pages."""
    tokens = maximum(rest_bytes, 0) // cell_size_bytes
    return tokens // page_size * page_size


def swa_pool_tokens(max_total_num_tokens, n_layers, n_full, n_swa, ratio=SWA_FULL_TOKENS_RATIO):
    """(full-attention, sliding-window) tokens of SGLang's hybrid SWA pool [tokens]: the
    pool's token-layers, max_total_num_tokens × n_layers, split so that a sliding layer holds
    ``ratio`` × a full layer's tokens (model_runner.py set_num_token_hybrid)."""
    total = max_total_num_tokens * n_layers
    full = int(total / (ratio * n_swa + n_full))
    return full, int(full * ratio)
