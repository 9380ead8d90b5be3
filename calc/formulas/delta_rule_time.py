"""The measured time [s] of one gated DeltaNet layer's chunked delta rule at prefill (FLA's
``chunk_gated_delta_rule``, the Triton pipeline vLLM and SGLang run for Qwen3-Next and Qwen3.5).

The chunked form splits each sequence into chunks of ``CHUNK`` tokens; within a chunk the work is
matmuls, but the state passes from chunk to chunk in order (``chunk_gated_delta_rule_fwd_h``: a
grid over value-dimension blocks and (sequence, head) pairs, each program walking its
sequence's chunks one after another), so the pipeline runs far below the tensor cores' peak: on
an H200 one Qwen3.5-27B layer (48 value heads) takes 0.89 ms for 8,192 tokens, where its
≈ 60 GFLOP would take 0.08 ms at kvcalc's matmul band. Its time is taken from measurements:

    t = FIXED_S + CHUNK_S × ceil(p / CHUNK) + TOKEN_HEAD_S × b × ceil(p / CHUNK) × CHUNK × h × s

for ``b`` prompts of ``p`` tokens and ``h`` value heads on the GPU: the call's launches, the
serial walk over one sequence's chunks (the sequences walk side by side), and the work of every
token and head (a sequence's last chunk padded to ``CHUNK`` tokens); ``s`` = d_k × d_v / 128²,
the state's size against the measured heads' (every table row has 128 × 128; other sizes are
scaled by it, assumed).

Constants: fitted by ``bench/gdn_prefill_fit.py`` to aiconfigurator-core 0.12.0's SGLang 0.5.14
``gdn_perf`` tables (ai-dynamo/aiconfigurator, Apache-2.0: ``chunk_gated_delta_rule`` on H100,
H200, B200, B300, GB200 and GB300, 9,324 rows of 512-16,384 tokens, pooled; median |error|
10.9%, each GPU's median within −13% … +5%). Hopper and Blackwell measure alike (the walk, not
the peaks, binds), so one triple serves every GPU; on others it is a transfer, not a
measurement.
"""

from __future__ import annotations

from calc.formulas.elementwise import cdiv

CHUNK = 64  # tokens per chunk: FLA's chunk_size (sglang fla/chunk.py CHUNK_SIZE)
FIXED_S = 2.89e-5  # the call's fixed cost: its six Triton kernels launched eagerly [s]
CHUNK_S = 1.38e-6  # one step of the serial walk over a sequence's chunks [s]
TOKEN_HEAD_S = 1.78e-9  # one (padded) token of one value head of 128 × 128 [s]
MEASURED_STATE = 128 * 128  # d_k × d_v of every measured row [elements]


def chunked_delta_rule_s(batch, prompt, value_heads, key_head_dim, value_head_dim):
    """One layer's chunked delta rule over ``batch`` prompts of ``prompt`` tokens with
    ``value_heads`` heads on the GPU [s] (the module's formula). Arrays broadcast."""
    chunks = cdiv(prompt, CHUNK)
    scale = key_head_dim * value_head_dim / MEASURED_STATE
    return FIXED_S + CHUNK_S * chunks + TOKEN_HEAD_S * batch * chunks * CHUNK * value_heads * scale
