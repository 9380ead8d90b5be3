"""vLLM's KV-cache pool [bytes, blocks, tokens] per GPU, as its V1 start-up code computes it:
pure functions of plain numbers (ints, floats or numpy arrays), each one step of the source
(vllm-project/vllm; the release a step changed at is in ``calc.deploy.engines.vllm.rules``).

1. ``vllm/v1/worker/gpu_worker.py`` ``Worker.determine_available_memory``::

       requested_memory = total_memory × gpu_memory_utilization
       non_kv_cache_memory = weights + torch peak increase + non-torch increase
       available_kv_cache_memory = requested_memory − non_kv_cache_memory
                                   − CUDA graph estimate (0.20+)

   ``total_memory`` is what ``torch.cuda.mem_get_info`` reports (79.19 GiB on an H100 80GB),
   not the label. From 0.27 the non-KV memory is measured as "total consumed (from
   mem_get_info)" plus the transient peak headroom: the same three terms, counted from free
   memory. From 0.20 ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` defaults to 1: a dummy
   capture (``gpu_model_runner.py`` ``profile_cudagraph_memory``) estimates the graphs'
   memory, and it is taken from the KV budget; before, graphs were captured after the pool,
   out of the ``1 − gpu_memory_utilization`` share.
2. ``gpu_model_runner.py`` ``profile_run``: one forward pass of ``max_num_batched_tokens``
   tokens, then ``_dummy_sampler_run`` on ``min(max_num_seqs, max_num_batched_tokens)`` rows of
   logits over the full vocabulary (``compute_logits`` all-gathers the vocab-parallel logits,
   so every TP rank holds them) with top-k and top-p set: the sampler, not the forward pass,
   sets the peak of dense models. Its bytes per logit depend on the top-k/top-p kernel of the
   release (``rules.VllmRules.sampler_bytes_per_logit``). From 0.11.1 a cold torch.compile
   runs inside the same pass and Inductor's combo-kernel benchmark holds a random copy of
   the embedding table (``compile_benchmark_bytes``): the peak is the larger of the two.
3. ``vllm/v1/core/kv_cache_utils.py``: the budget is cut into pages of ``block_size`` tokens of
   one layer, and every layer (or, with the hybrid allocator, every layer slot shared by one
   layer of each group) gets one page per block::

       num_blocks = available_memory // page_size_bytes // num_layer_slots
       GPU KV cache size = num_blocks // num_groups × block_size   [tokens]
       max concurrency = num_blocks / Σ_groups blocks one request of max_model_len needs

   A sliding-window group needs ``cdiv(min(window − 1 + in-flight tokens, max_model_len),
   block_size) + 1`` blocks per request (``SlidingWindowSpec``): the in-flight tokens are
   ``max_num_batched_tokens`` until 0.25 and ``max_concurrent_batches × max_num_batched_tokens``
   from 0.26 (2 batches under async scheduling, its default).
4. Mamba hybrids (``vllm/platforms/interface.py`` ``_align_hybrid_block_size``, without prefix
   caching): one Mamba layer's state of one request must fit one page, so the attention block
   is raised to ``16 × cdiv(mamba_state, 16 × attention bytes per token)`` tokens and each
   Mamba group needs one block per request.
"""

from __future__ import annotations

import math

from calc.deploy.engines.paging import (  # noqa: F401 - the block rules, shared
    MAMBA_BLOCKS_PER_REQUEST,
    full_attention_blocks_per_request,
    sliding_window_blocks_per_request,
)
from calc.formulas.elementwise import maximum

GIB = 2**30
ACTIVATION_BYTES = 2  # the forward pass runs in bf16/fp16
KERNEL_BLOCK_ALIGNMENT = 16  # smallest kernel block size of the FlashAttention backend


def requested_memory_bytes(total_memory_bytes, gpu_memory_utilization):
    """Memory vLLM may use on one GPU [bytes]: torch's total × gpu_memory_utilization."""
    return total_memory_bytes * gpu_memory_utilization


def resident_activation_bytes(tokens, d_model):
    """Activations held across the whole profiling pass [bytes]: the hidden states and the
    residual stream, ``2 × tokens × d_model`` in bf16 (never split by TP)."""
    return 2 * tokens * d_model * ACTIVATION_BYTES


def layer_activation_bytes(tokens, layer_width_per_gpu):
    """The widest layer's temporaries [bytes]: ``tokens × width`` in bf16 (width: the per-GPU
    elements one token keeps alive in that layer, ``calc.deploy.engines.shape``)."""
    return tokens * layer_width_per_gpu * ACTIVATION_BYTES


def rope_cache_bytes(positions, rotary_dim, bytes_per_element=ACTIVATION_BYTES):
    """RoPE's cos/sin table [bytes]: ``positions × rotary_dim`` (cos and sin of half the
    rotary width each) in the model dtype (``layers/rotary_embedding/base.py``
    ``_compute_cos_sin_cache`` then ``cache.to(dtype)``, a non-persistent buffer built with the
    model, so 'Model loading took' counts it). ``get_rope`` caches its instances: one table
    per distinct RoPE, on every GPU (never sharded)."""
    return positions * rotary_dim * bytes_per_element


def sampler_activation_bytes(rows, vocab_size, bytes_per_logit):
    """The dummy sampler pass [bytes]: rows × full vocabulary × bytes per logit."""
    return rows * vocab_size * bytes_per_logit


def moe_workspace_bytes(tokens, experts_per_token, d_expert_per_gpu, d_model):
    """Fused-MoE workspaces [bytes], kept once the profiling pass has sized them (vLLM's
    persistent worker workspaces): workspace13 holds tokens × top-k × max(2·d_expert, d_model)
    and workspace2 tokens × top-k × d_expert, in bf16."""
    width = maximum(2 * d_expert_per_gpu, d_model) + d_expert_per_gpu
    return tokens * experts_per_token * width * ACTIVATION_BYTES


VOCAB_PADDING = 64  # VocabParallelEmbedding pads the vocabulary to a multiple of 64 rows


def embedding_rows_per_gpu(vocab_size, tp):
    """Rows of the (vocab-parallel) embedding table on one GPU [rows]:
    ``pad_vocab_size(vocab, 64) / tp`` (``layers/vocab_parallel_embedding.py``)."""
    return -(-vocab_size // VOCAB_PADDING) * VOCAB_PADDING // tp


def compile_benchmark_bytes(table_rows, d_model, tokens, bytes_per_element=ACTIVATION_BYTES):
    """What a cold torch.compile's kernel benchmark holds at once [bytes]: Inductor times a
    kernel on random copies of every argument (``torch/_inductor/codegen/triton.py``
    ``codegen_kernel_benchmark``: ``rand_strided`` per buffer and graph constant), so
    benchmarking the embedding kernel allocates a copy of the table, ``table_rows × d_model``,
    and of its outputs, in the model dtype. Two outputs of ``tokens × d_model`` (the embedded
    hidden states and what the first norm reads) and the embedding kernel's being among those
    benchmarked are inferred: four printed peaks fit the table plus two token-wide buffers
    (rules.py, the 0.11.1 change). Freed before the forward pass, so it competes with the
    activation peak rather than adding to it::

        copy = table_rows × d_model × b + 2 × tokens × d_model × b
    """
    return (table_rows + 2 * tokens) * d_model * bytes_per_element


def activation_peak_bytes(
    tokens, d_model, layer_width_per_gpu, rows, vocab_size, bytes_per_logit,
    moe_workspace_bytes_=0,
):  # fmt: skip
    """torch peak increase of ``profile_run`` [bytes]: resident activations and the MoE
    workspaces (held throughout), plus the larger of the widest layer's temporaries and the
    sampler's."""
    held = resident_activation_bytes(tokens, d_model) + moe_workspace_bytes_
    return held + maximum(
        layer_activation_bytes(tokens, layer_width_per_gpu),
        sampler_activation_bytes(rows, vocab_size, bytes_per_logit),
    )


def cudagraph_capture_sizes(
    max_num_seqs: int, max_capture: int = 512, max_num_tokens: int | None = None,
    add_max_seqs: bool = False, explicit_max: bool = False,
) -> list[int]:  # fmt: skip
    """Batch sizes vLLM captures graphs for (``VllmConfig._set_cudagraph_sizes``): 1, 2, 4, then
    steps of 8 below 256, then steps of 16, up to min(max_capture, 2 × max_num_seqs,
    max_num_batched_tokens); max_num_batched_tokens itself when it is within that, and (from
    0.31) max_num_seqs too. ``explicit_max``: max_capture is a set
    ``max_cudagraph_capture_size`` (a model's config hook), which only max_num_batched_tokens
    caps and which adds no max_num_seqs size."""
    top = max_capture if explicit_max else min(max_capture, 2 * max_num_seqs)
    add_max_seqs = add_max_seqs and not explicit_max
    if max_num_tokens is not None:
        top = min(top, max_num_tokens)
    sizes = [s for s in (1, 2, 4, *range(8, 256, 8), *range(256, top + 1, 16)) if s <= top]
    extra = [max_num_tokens] if max_num_tokens is not None else []
    if add_max_seqs and max_num_seqs <= min(max_capture, 2 * max_num_seqs):
        extra.append(max_num_seqs)
    return sorted(set(sizes) | {x for x in extra if x <= top})


MIN_GRAPH_BYTES = 2**20  # profile_cudagraph_memory: at least 1 MiB per graph (driver)
FA_ACCUM_BYTES = 4  # FlashAttention 3 keeps its split-KV partial results in fp32


def fa3_split_buffer_bytes(tokens, q_heads_per_gpu, v_head_dim, max_splits):
    """FlashAttention 3's split-KV accumulators in a full-graph capture [bytes]: with CUDA graphs
    vLLM passes the upper bound ``flash_attn_max_num_splits_for_cuda_graph`` and the AOT
    scheduler, so FA3 sizes ``out_accum`` [splits, heads, tokens, v_head_dim] and
    ``softmax_lse_accum`` [splits, heads, tokens] for every split, in fp32
    (``v1/attention/backends/flash_attn.py``: "intermediate buffers of size [num_splits,
    num_heads, num_tokens, head_size] are allocated")."""
    return max_splits * q_heads_per_gpu * tokens * (v_head_dim + 1) * FA_ACCUM_BYTES


def piecewise_first_capture_bytes(tokens, layer_width_per_gpu, base_bytes):
    """The first (largest) PIECEWISE capture [bytes]: the widest layer's bf16 temporaries of
    ``tokens`` held in the graph pool, plus a fixed part (measured: the warm-up's smaller
    activations rounded up to allocator segments and the graph's own memory)."""
    return base_bytes + tokens * layer_width_per_gpu * ACTIVATION_BYTES


def per_graph_bytes(per_graph_layer_bytes, n_layers_per_gpu):
    """One further graph's own memory [bytes]: proportional to the layers (and so the kernel
    nodes) it spans, at least the 1 MiB ``profile_cudagraph_memory`` assumes."""
    return max(per_graph_layer_bytes * n_layers_per_gpu, MIN_GRAPH_BYTES)


def cudagraph_estimate_bytes(
    n_piecewise, n_full, first_piecewise_bytes, first_full_bytes, per_graph_piecewise_bytes,
    per_graph_full_bytes,
):  # fmt: skip
    """``profile_cudagraph_memory`` [bytes]: per mode it captures the two largest graphs, takes
    the first capture as the mode's shared memory and the second as every further graph's;
    FULL and PIECEWISE share one pool, so only the larger first capture counts::

        estimate = max(first_PIECEWISE, first_FULL)
                   + (n_PIECEWISE − 1) × per_graph_PIECEWISE + (n_FULL − 1) × per_graph_FULL
    """
    firsts = [first_piecewise_bytes if n_piecewise else 0, first_full_bytes if n_full else 0]
    further = max(n_piecewise - 1, 0) * per_graph_piecewise_bytes
    further += max(n_full - 1, 0) * per_graph_full_bytes
    return max(firsts) + further


def available_kv_bytes(requested_bytes, weights_bytes, activation_bytes, non_torch_bytes_,
                       cuda_graph_bytes=0):  # fmt: skip
    """``available_kv_cache_memory`` [bytes]: requested − weights − activation − non-torch −
    the CUDA graph estimate (0 before 0.20)."""
    return requested_bytes - weights_bytes - activation_bytes - non_torch_bytes_ - cuda_graph_bytes


def page_size_bytes(block_size, kv_bytes_per_token_per_layer):
    """One page: one block of one layer [bytes]."""
    return block_size * kv_bytes_per_token_per_layer


def num_blocks(available_bytes, page_bytes, layer_slots):
    """``available_memory // page_size // num_layers`` (0 when nothing is left)."""
    return maximum(available_bytes, 0) // page_bytes // layer_slots


def pool_tokens(blocks, n_groups, block_size):
    """The pool in tokens [tokens]: blocks // groups × block_size (the printed "GPU KV cache
    size" to 0.20)."""
    return blocks // n_groups * block_size


def max_concurrency(blocks, blocks_per_request):
    """Requests of max_model_len tokens the pool holds at once (vLLM's "Maximum concurrency")."""
    return blocks / blocks_per_request


def mamba_attention_block_size(block_size, mamba_state_bytes, attention_bytes_per_token):
    """Attention block size [tokens] with Mamba layers: the configured block, raised until one
    attention page holds one Mamba layer's state (``_align_hybrid_block_size``)."""
    align = max(KERNEL_BLOCK_ALIGNMENT, block_size)
    needed = align * math.ceil(mamba_state_bytes / (align * attention_bytes_per_token))
    return max(block_size, needed)


MXFP4_BLOCK = 32  # elements per E8M0 scale byte
MXFP4_VALUE_BYTES = 0.5  # one fp4 value
SCALE_ROWS_ALIGN = 256  # the Hopper scale layout's rows: 2 × num_warps (8) × 2 × 8


def round_up(x: int, multiple: int) -> int:
    return -(-x // multiple) * multiple


def mxfp4_experts_loaded_bytes(
    n_layers, n_experts, hidden, intermediate, hidden_align, inter_align, bias_bytes,
    scale_copy,
):  # fmt: skip
    """MXFP4 routed experts as vLLM loads them on one GPU [bytes]: ``n_layers`` × ``n_experts``
    experts of gate+up (2 × intermediate × hidden) and down (hidden × intermediate) in fp4 with
    one scale byte per 32 values, the widths padded to the backend's multiples, biases
    (2 × intermediate + hidden) of ``bias_bytes`` each, and with ``scale_copy`` the Triton
    backend's swizzled copy of the scales beside the checkpoint's (rows padded to 256)."""
    h = round_up(hidden, hidden_align)
    i = round_up(intermediate, inter_align)
    elements = 3 * h * i
    per_expert = elements * (MXFP4_VALUE_BYTES + 1 / MXFP4_BLOCK) + (2 * i + h) * bias_bytes
    if scale_copy:
        per_expert += (round_up(2 * i, SCALE_ROWS_ALIGN) * h
                       + round_up(h, SCALE_ROWS_ALIGN) * i) / MXFP4_BLOCK  # fmt: skip
    return n_layers * n_experts * per_expert


MACHETE_GROUPS = (64, 128)  # machete_utils.py query_machete_supported_group_sizes (16-bit acts)


def machete_zero_point_bytes(quantized_elements, group, zero_bytes, act_bytes=ACTIVATION_BYTES):
    """What Machete adds to an asymmetric integer checkpoint's linear layers on Hopper [bytes]:
    each group's zero point (``zero_bytes``: 0.5 B packed for int4) is stored pre-scaled in the
    activation dtype (``act_bytes``), one per ``group`` input elements of every output column
    (``machete.py`` transform_w_zp: -scales × zeros, [in/group, out])."""
    return quantized_elements / group * (act_bytes - zero_bytes)
