"""vLLM's KV-cache pool [bytes, blocks, tokens] per GPU, as its V1 start-up code computes it.

Pure functions of plain numbers (ints, floats or numpy arrays). Each follows one step of
vLLM 0.19 (vllm-project/vllm):

1. ``vllm/v1/worker/gpu_worker.py`` ``Worker.determine_available_memory``::

       requested_memory = total_memory × gpu_memory_utilization
       non_kv_cache_memory = weights + torch peak increase + non-torch increase
       available_kv_cache_memory = requested_memory − non_kv_cache_memory

   ``total_memory`` is what ``torch.cuda.mem_get_info`` reports (79.19 GiB on an H100 80GB:
   the log's "Requested memory: 0.950000 (util), 75.23 GiB"), not the label. CUDA graphs are
   captured after the pool is allocated, out of the ``1 − gpu_memory_utilization`` share: the
   0.19 logs print ``Available KV cache memory`` = requested − non-KV exactly.
2. ``vllm/v1/worker/gpu_model_runner.py`` ``profile_run``: one forward pass of
   ``max_num_batched_tokens`` tokens, then ``_dummy_sampler_run`` on
   ``min(max_num_seqs, max_num_batched_tokens)`` rows of logits over the *full* vocabulary
   (``compute_logits`` all-gathers the vocab-parallel logits, so every TP rank holds them)
   with top-k and top-p set, which sorts the fp32 logits (fp32 values + int64 indices) — the
   sampler, not the forward pass, sets the peak of dense models (the logs print 1.89 GiB for
   Llama-3.1-8B at TP 1, 2 and 4 alike).
3. ``vllm/v1/core/kv_cache_utils.py``: the budget is cut into pages of ``block_size`` tokens of
   one layer, and every layer (or, with the hybrid allocator, every layer slot shared by one
   layer of each group) gets one page per block::

       num_blocks = available_memory // page_size_bytes // num_layer_slots
       GPU KV cache size = num_blocks // num_groups × block_size   [tokens]
       max concurrency = num_blocks / Σ_groups blocks one request of max_model_len needs

   Hybrid models (full + sliding-window layers, Gemma 2/3, gpt-oss) are split into groups of
   ``group_size`` layers of one kind; each group owns a share of the blocks, so the printed
   token count divides by the number of groups. A sliding-window group needs
   ``cdiv(min(window − 1 + max_num_batched_tokens, max_model_len), block_size) + 1`` blocks per
   request (``SlidingWindowSpec.max_memory_usage_bytes``).
4. Mamba hybrids (``vllm/platforms/interface.py`` ``_align_hybrid_block_size``, without prefix
   caching): one Mamba layer's state of one request must fit one page, so the attention block
   is raised to ``16 × cdiv(mamba_state, 16 × attention bytes per token)`` tokens (16: the
   FlashAttention kernel's block alignment) and the Mamba page padded to the attention page;
   each Mamba group then needs one block per request.
"""

from __future__ import annotations

import math

from calc.formulas.elementwise import cdiv, maximum, minimum

GIB = 2**30

# Fitted constants (three in all, each a measurement of the engine's own log lines; see
# docs/validation-capacity.md). They are the only numbers here not read from vLLM's source.
#
# Bytes the sampler's profiling pass holds per logit at its peak. Source: vLLM's
# ``Sampler.forward`` converts the logits to fp32 (4 B) and ``apply_top_k_top_p`` sorts them
# (fp32 values 4 B + int64 indices 8 B) before the softmax (fp32 4 B); at most 20 B are alive at
# once, fewer as temporaries are freed. Measured: 14.5 B per logit fits the torch peak printed
# for five dense models whose sampler sets it (Llama-3.1-8B, Qwen2.5-7B, Qwen3-8B, Phi-4,
# Gemma-2-9B: 1.52-3.65 GiB, within 0.03 GiB each).
SAMPLER_BYTES_PER_LOGIT = 14.5
# Memory allocated outside torch during the profiling forward pass [bytes per GPU], vLLM's
# "non-torch forward increase memory" line. TP 1: cuBLAS/cuBLASLt workspaces and kernels
# loaded on first use, printed 0.24-0.26 GiB for every model at TP 1 (6 logs). TP >= 2 adds the
# communicators' buffers (NCCL channels on NVLink/NVSwitch, vLLM's custom all-reduce IPC
# buffers), printed 2.07-2.13 GiB at TP 2 and 4 (3 logs); the median of each set.
NON_TORCH_SINGLE_GPU_BYTES = round(0.25 * GIB)
NON_TORCH_MULTI_GPU_BYTES = round(2.07 * GIB)

ACTIVATION_BYTES = 2  # the forward pass runs in bf16/fp16


def requested_memory_bytes(total_memory_bytes, gpu_memory_utilization):
    """Memory vLLM may use on one GPU [bytes]: torch's total × gpu_memory_utilization."""
    return total_memory_bytes * gpu_memory_utilization


def non_torch_bytes(tp):
    """Non-torch memory of the profiling pass per GPU [bytes]: 0.25 GiB at TP 1, 2.07 GiB at
    TP >= 2, where the forward pass all-reduces (NCCL and custom all-reduce buffers). Pipeline
    stages only send and receive activations: llm-d's vLLM 0.19 report prints 0.07 GiB of
    non-torch memory on a PP 2 and PP 4 worker, so PP adds nothing here."""
    return NON_TORCH_SINGLE_GPU_BYTES if tp == 1 else NON_TORCH_MULTI_GPU_BYTES


def resident_activation_bytes(tokens, d_model):
    """Activations held across the whole profiling pass [bytes]: the hidden states and the
    residual stream, ``2 × tokens × d_model`` in bf16 (never split by TP)."""
    return 2 * tokens * d_model * ACTIVATION_BYTES


def layer_activation_bytes(tokens, layer_width_per_gpu):
    """The widest layer's temporaries [bytes]: ``tokens × width`` in bf16, where width is the
    per-GPU elements one token keeps alive in that layer (gated FFN: gate+up output 2·d_ffn and
    the activated d_ffn; fused MoE: top-k × (gate+up + activated) of one expert)."""
    return tokens * layer_width_per_gpu * ACTIVATION_BYTES


def sampler_activation_bytes(rows, vocab_size, bytes_per_logit=SAMPLER_BYTES_PER_LOGIT):
    """The dummy sampler pass [bytes]: rows × full vocabulary × bytes per logit."""
    return rows * vocab_size * bytes_per_logit


def moe_workspace_bytes(tokens, experts_per_token, d_expert_per_gpu, d_model):
    """Fused-MoE workspaces [bytes], which stay allocated once the profiling pass has sized
    them (the fused-MoE modular kernel takes them from vLLM's persistent worker workspaces,
    ``WorkspaceSpec`` buffers that are grown, never freed; checked against the Mixtral and
    DeepSeek-V2-Lite logs, whose torch peak is sampler + workspaces, within 0.06 GiB):
    workspace13 holds tokens × top-k × max(2·d_expert, d_model) (gate+up output, reused for
    the down output) and workspace2 tokens × top-k × d_expert (the activated half), in bf16."""
    width = maximum(2 * d_expert_per_gpu, d_model) + d_expert_per_gpu
    return tokens * experts_per_token * width * ACTIVATION_BYTES


def activation_peak_bytes(
    tokens, d_model, layer_width_per_gpu, rows, vocab_size, moe_workspace_bytes_=0
):
    """torch peak increase of ``profile_run`` [bytes]: resident activations and the MoE
    workspaces (held throughout), plus the larger of the widest layer's temporaries and the
    sampler's."""
    held = resident_activation_bytes(tokens, d_model) + moe_workspace_bytes_
    return held + maximum(
        layer_activation_bytes(tokens, layer_width_per_gpu),
        sampler_activation_bytes(rows, vocab_size),
    )


def available_kv_bytes(requested_bytes, weights_bytes, activation_bytes, non_torch_bytes_):
    """``available_kv_cache_memory`` [bytes]: requested − weights − activation − non-torch."""
    return requested_bytes - weights_bytes - activation_bytes - non_torch_bytes_


def page_size_bytes(block_size, kv_bytes_per_token_per_layer):
    """One page: one block of one layer [bytes]."""
    return block_size * kv_bytes_per_token_per_layer


def num_blocks(available_bytes, page_bytes, layer_slots):
    """``available_memory // page_size // num_layers`` (0 when nothing is left)."""
    return maximum(available_bytes, 0) // page_bytes // layer_slots


def pool_tokens(blocks, n_groups, block_size):
    """The printed "GPU KV cache size" [tokens]: blocks // groups × block_size."""
    return blocks // n_groups * block_size


def full_attention_blocks_per_request(max_model_len, block_size):
    """Blocks a full-attention group needs for one request of max_model_len tokens."""
    return cdiv(max_model_len, block_size)


def sliding_window_blocks_per_request(window, max_num_batched_tokens, max_model_len, block_size):
    """Blocks a sliding-window group needs per request: the window plus one prefill chunk,
    capped at max_model_len, plus one block a window can straddle."""
    tokens = minimum(window - 1 + max_num_batched_tokens, max_model_len)
    return cdiv(tokens, block_size) + 1


def max_concurrency(blocks, blocks_per_request):
    """Requests of max_model_len tokens the pool holds at once (vLLM's "Maximum concurrency")."""
    return blocks / blocks_per_request


KERNEL_BLOCK_ALIGNMENT = 16  # smallest kernel block size of the FlashAttention backend
MAMBA_BLOCKS_PER_REQUEST = 1  # a Mamba group keeps one state page per request


def mamba_attention_block_size(block_size, mamba_state_bytes, attention_bytes_per_token):
    """Attention block size [tokens] with Mamba layers: the configured block, raised until one
    attention page holds one Mamba layer's state (``_align_hybrid_block_size``)."""
    align = max(KERNEL_BLOCK_ALIGNMENT, block_size)
    needed = align * math.ceil(mamba_state_bytes / (align * attention_bytes_per_token))
    return max(block_size, needed)


def hybrid_group_size(layers_per_kind: list[int]) -> int:
    """Layers per KV-cache group of the hybrid allocator (``_get_kv_cache_groups_uniform_page_
    size``): the smallest kind's layer count, or the largest when it is within 1.25× of it
    (so that no kind is split into many tiny groups)."""
    small, large = min(layers_per_kind), max(layers_per_kind)
    return large if large < small * 1.25 else small


def hybrid_groups(layers_per_kind: list[int], group_size: int) -> int:
    """Number of groups: each kind padded to whole groups of ``group_size`` layers."""
    return sum(math.ceil(n / group_size) for n in layers_per_kind)
