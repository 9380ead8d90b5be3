"""SGLang's KV-cache pool [bytes, tokens] per GPU, as its start-up code computes it: pure
functions of plain numbers (sgl-project/sglang; the release each rule holds from is in
``calc.deploy.engines.sglang.rules``).

- ``srt/model_executor/model_runner.py`` ``profile_max_num_token``::

      rest_memory = available_gpu_memory − total_gpu_memory × (1 − mem_fraction_static)
      max_total_num_tokens = rest_memory × 2^30 // cell_size

  ``available_gpu_memory`` is measured after the weights are loaded (the smallest over the
  ranks) and ``total_gpu_memory`` is the free memory after ``init_torch_distributed``, before
  the weights: the budget is ``mem_fraction_static × (total − non-torch) − weights``, modelled
  as ``mem_fraction_static × total − weights − non-torch``; activations and CUDA graphs must fit
  in the ``1 − mem_fraction_static`` share. ``cell_size`` is one token's KV over the GPU's
  layers (K and V heads × head_dim × bytes; MLA: kv_lora_rank + qk_rope_head_dim, one copy).
  The log prints the pool as "KV Cache is allocated. #tokens: N, K size: x GB, V size: x GB"
  (GB there is bytes / 2^30).
- The automatic ``mem_fraction_static``: 0.4 by TP size; from 0.5.3
  ``round((gpu_mem − reserved) / gpu_mem, 3)`` with ``gpu_mem`` the nvidia-smi memory.total
  [MiB] and ``reserved`` (``reserved_memory_mib``) from the chunked prefill size and the CUDA
  graphs, at least 10,240 MiB on GPUs over 60 GiB.
- ``set_num_token_hybrid`` (sliding-window and full-attention layers, unless
  ``--disable-hybrid-swa-memory``): the pool's token-layers are split so that each sliding
  layer holds ``swa_full_tokens_ratio`` as many tokens as each full layer; the pool it reports
  is the full layers'.
"""

from __future__ import annotations

from calc.formulas.elementwise import maximum

MIB = 2**20

# (smallest TP size, mem_fraction_static) from largest to smallest, server_args.py (0.4)
AUTO_MEM_FRACTION_BY_TP = ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87), (1, 0.88))


def fraction_by_tp(tp: int) -> float:
    """SGLang 0.4's default ``mem_fraction_static`` for a TP size."""
    for smallest, fraction in AUTO_MEM_FRACTION_BY_TP:
        if tp >= smallest:
            return fraction
    return AUTO_MEM_FRACTION_BY_TP[-1][1]


def bucket_defaults(buckets, gpu_mem_mib: float, tp: int) -> tuple[int, int]:
    """(chunked_prefill_size, decode cuda_graph max_bs) of the GPU-memory bucket at ``tp``."""
    for below, chunk, small_tp, large_tp in buckets:
        if below is None or gpu_mem_mib < below:
            return chunk, (small_tp if tp < 4 else large_tp)
    raise ValueError("the last bucket has no bound")


def prefill_graph_sizes(max_tokens: int) -> list[int]:
    """Token counts SGLang captures prefill graphs for, up to ``max_tokens``
    (``generate_prefill_cuda_graph_batch_sizes``)."""
    sizes = [
        *range(4, 33, 4), *range(48, 257, 16), *range(288, 513, 32), *range(576, 1025, 64),
        *range(1280, 4097, 256), *range(4608, max_tokens + 1, 512),
    ]  # fmt: skip
    return [s for s in sizes if s <= max_tokens]


def reserved_memory_mib(
    gpu_mem_mib, chunked_prefill_size, cuda_graph_max_bs, tp, pp, *, prefill_graphs=0,
    mla=False, dp_attention=1,
):  # fmt: skip
    """Memory SGLang keeps outside the static pool [MiB]: metadata 512, prefill activations
    1.5 × max(chunk, 2048), decode graphs 2 × max_bs, 1024 × tp × pp / 8 for parallel buffers
    (tp: SGLang's tp_size, the attention-DP ranks included), with DP attention over
    ``dp_attention`` ranks 3 × max_bs × dp of padding (4.5 × when max_bs > 300), prefill graphs
    (``prefill_graphs`` of them: 8 each, or 1,536 with an MLA backend), at least 10,240 on GPUs
    over 60 GiB."""
    reserved = 512 + max(chunked_prefill_size, 2048) * 1.5 + cuda_graph_max_bs * 2
    reserved += tp * pp / 8 * 1024
    if dp_attention > 1:
        reserved += cuda_graph_max_bs * dp_attention * (4.5 if cuda_graph_max_bs > 300 else 3)
    if prefill_graphs:
        reserved += 1536 if mla else prefill_graphs * 8
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return reserved


def fraction_from_reserve(gpu_mem_mib, reserved_mib) -> float:
    """SGLang 0.5's default ``mem_fraction_static``: (gpu_mem − reserved) / gpu_mem, 3 digits."""
    return round((gpu_mem_mib - reserved_mib) / gpu_mem_mib, 3)


def rest_memory_bytes(total_memory_bytes, mem_fraction_static, weights_bytes, non_torch_bytes):
    """``rest_memory`` [bytes]: the free memory after the weights load less the slack
    ``pre × (1 − fraction)``, where ``pre`` is the free memory measured before they load, once
    the distributed runtime holds its share: ``total − non-torch`` (``model_runner.py``
    ``init_torch_distributed`` → ``profile_max_num_token(total_gpu_memory)``, 0.5.3 and 0.5.4;
    ``kv_cache_configurator.py`` ``_profile_available_bytes`` ``pre_model_load_memory``, 0.5.23).
    So ``fraction × (total − non-torch) − weights``: the non-torch share is scaled by the
    fraction too, not taken whole."""
    pre = total_memory_bytes - non_torch_bytes
    return pre - weights_bytes - pre * (1 - mem_fraction_static)


def max_total_num_tokens(rest_bytes, cell_size_bytes, page_size=1):
    """Tokens of the pool: rest // cell_size, rounded down to whole pages."""
    tokens = maximum(rest_bytes, 0) // cell_size_bytes
    return tokens // page_size * page_size


def swa_pool_tokens(max_total_num_tokens, n_layers, n_full, n_swa, ratio):
    """(full-attention, sliding-window) tokens of SGLang's hybrid SWA pool [tokens]: the
    pool's token-layers, max_total_num_tokens × n_layers, split so that a sliding layer holds
    ``ratio`` × a full layer's tokens."""
    total = max_total_num_tokens * n_layers
    full = int(total / (ratio * n_swa + n_full))
    return full, int(full * ratio)
