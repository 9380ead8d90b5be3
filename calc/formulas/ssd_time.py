"""The measured time [s] of one Mamba-2 layer's chunked SSD scan at prefill (the reference
Triton pipeline of state-spaces/mamba that vLLM, SGLang and TensorRT-LLM run: ``_chunk_cumsum_fwd``,
``_bmm_chunk_fwd``, ``_chunk_state_fwd``, ``_state_passing_fwd``, ``_chunk_scan_fwd``).

Within a chunk the work is matmuls, but the pipeline writes and re-reads its intermediates
(the chunk states, C·Bᵀ, the cumulative decays) between five kernels and walks the chunks in
order to pass the state (vLLM 0.16's ``_state_passing_fwd_kernel``: one program per head and
state block, looping over every chunk of every sequence in the batch), so it runs far below the
tensor cores' peak: on one H100, at granite-4.0-h-small's shape (128 heads of 64, d_state 128),
the chain takes 0.65 ms for 8,192 tokens and 24.2 ms for 262,144, ≈ 0.67 ns a token and head,
where kvcalc's matmul roofline of its ≈ 66 kFLOP a token and head takes ≈ 0.09 ns. Its time is
taken from that measurement:

    t = TOKEN_HEAD_S × T × h × s

for ``T`` tokens (all the GPU's prompts together) and ``h`` heads on the GPU, ``s`` = head_dim ×
d_state / (64 × 128), the state's size against the measured heads' (assumed: every kernel's grid
runs over chunks × heads, each program's work over one head's head_dim × d_state state).

Constant: fitted by ``bench/ssd_prefill_fit.py`` to the one published series found (vLLM PR
#27299, cyang49's comment of 2025-10-25: the unfused chain's throughput on one H100 at 1,024 to
262,144 tokens), the rows of 8,192 tokens and more, where the time grows in proportion to the
tokens (within −9 … +10%; at 1,024 and 2,048 tokens the call took a fixed ≈ 0.29 ms, the
benchmark's launches, not the GPU's work, so no fixed term is fitted: kvcalc's per-kernel cost
stands for it). One shape on one GPU: other GPUs, head counts, state sizes and chunk sizes
(granite's 256, Nemotron-H's 128) are a transfer, not a measurement; vLLM from #35397 (its
state walk parallel over sequences, wider autotune, exp2) runs the chain faster by an unmeasured
amount.
"""

from __future__ import annotations

TOKEN_HEAD_S = 6.67e-10  # one token of one head of 64 × 128 through the five kernels [s]
MEASURED_STATE = 64 * 128  # head_dim × d_state of the measured heads [elements]


def chunked_ssd_s(tokens, heads, head_dim, d_state):
    """One layer's chunked SSD scan over ``tokens`` prompt tokens with ``heads`` heads of
    ``head_dim`` × ``d_state`` on the GPU [s] (the module's formula). Arrays broadcast."""
    return TOKEN_HEAD_S * tokens * heads * (head_dim * d_state / MEASURED_STATE)
