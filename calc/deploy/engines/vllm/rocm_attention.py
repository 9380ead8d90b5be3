"""vLLM's attention kernels on AMD GPUs: which library a release runs by default, the
serial-walk time [s per tile] of its Triton unified-attention decode kernel and the time of
its prefill attention against AMD's tuned kernel's [×].

**Which library** (``VLLM.rocm_default``): ``VLLM_ROCM_USE_AITER`` defaults to False in
``vllm/envs.py`` of 0.9.2, 0.11.0, 0.15.1 and 0.20.0 (read). Below 0.19.0 ``platforms/rocm.py``
``get_attn_backend_cls`` (0.9.2, 0.11.0, 0.15.1, 0.16.0, 0.17.0; ``_get_backend_priorities`` in
0.18.0) ends, with no AITER variable and no ``--attention-backend``, on "Default: Triton
Unified Attention" (TRITON_ATTN): a plain ``vllm serve`` on MI300X or MI355X runs Triton
attention unless the image or the command sets ``VLLM_ROCM_USE_AITER=1`` (AMD's tuned recipes
and InferenceX's MI355X scripts do; ``rocm_kernels`` "aiter" states it) or picks the ROCm
paged-attention split (``VLLM_V1_USE_PREFILL_DECODE_ATTENTION=1``, ROCm/vllm's dev-docker
README, also "aiter" here: a tuned decode kernel). From 0.19.0 (``ROCM_ATTN_SINCE``; the 0.19.0,
0.20.0 and 0.33.0 wheels read) ``_get_backend_priorities`` puts ROCM_ATTN first, ahead of
ROCM_AITER_FA (only with AITER on), ROCM_AITER_UNIFIED_ATTN and TRITON_ATTN, and the valid
backend of lowest index wins, with AITER on or off: ``rocm_attn.py`` runs
``chunked_prefill_paged_decode``, whose decode tokens take ROCm's own paged-attention kernel
(``ops.paged_attention_rocm``, partitions of 256 keys; ``use_rocm_custom_paged_attention``:
a 16-bit query, head size 64 or 128, block size 16 or 32, at most 16 query heads a KV head,
no sliding window, no sinks) and whose prompt tokens take the Triton prefix-prefill kernel
``context_attention_fwd`` (``prefix_prefill.py``: blocks of ``BASE_BLOCK`` = 128 query rows
of one head against 64 keys, a flash-attention tile, not the unified kernel's 16-row one).
Both are the tuned class: from 0.19.0 vLLM's default is "aiter" (no walk, no prefill
multiple). Not modelled: the models outside that kernel's conditions (a sliding window, head
size 256, attention sinks), whose decode takes a Triton fallback or another backend.

**What the Triton decode kernel costs.** ``v1/attention/ops/triton_unified_attention.py``
(0.14.0, 0.15.1): a decode-only step of at most ``128 // KV heads per GPU`` sequences
(``triton_attn.py`` ``MIN_LAUNCH_GRID_SIZE_2D``, moved to the nearest CUDA-graph size) runs
the 3D kernel, one workgroup per sequence, KV head and softmax segment
(``NUM_PAR_SOFTMAX_SEGMENTS = 16``), each walking its 1/16 of the keys in tiles of 16
(``_get_tile_size``: 16 for a 16-bit query) one after another. At the small batches of a
latency-bound decode the grid has few workgroups per CU and the step's attention takes the
length of one walk, not the KV bytes over the bandwidth: time per layer = keys / 256 × the
time of one tile, whatever the batch, where that is above the roofline
(``calc.deploy.steps``). Beyond the threshold (or with a prompt in the step) the 2D kernel
walks every key in one workgroup; kvcalc keeps the 3D walk there (a lower bound: no 2D
measurement found).

**Both constants, fitted together** (``TRITON_DECODE_TILE_S``, ``TRITON_PREFILL_SCALE``;
issue 20, amdwalk round; ``bench/validation_amd_serving.py --fit-triton``): least squares of the
signed errors of the twelve bars of vLLM's ROCm attention blog (vllm-project.github.io
``_posts/2026-02-20-rocm-attention-backend.md``, AMD and Embedded LLM, vLLM 0.14.0rc2 in
``rocm/vllm-dev:nightly_main_20260115``, ``VLLM_ROCM_USE_AITER=1`` in every run, only
``--attention-backend`` switched; Qwen3-235B-A22B-Instruct-2507-FP8 at TP 8 + EP 8, 10K prompt
and 1K output tokens, MI355X, MI325X and MI300X at 64 and 128 requests): TRITON_ATTN's TTFT and
TPOT as multiples of ROCM_AITER_FA's (``mha_ttft_comparison.png`` and the TPOT figure), each
against kvcalc's closed loop of that deployment under both (bench/validation_serving.py). The
sum is flat in the tile below 2.18 µs: there the walk stays under kvcalc's attention roofline
at every bar (at 64 sequences the 3D grid is 1,024 workgroups, four to a CU, and the KV read
binds), so the blog bounds the tile from above and not below; above it the walk lengthens the
MI355X 64-request TPOT, already the one bar kvcalc has too slow (+5.8%). The tile is the bound,
2.18 µs (the walk exists: the kernel's source; the blog cannot say how far under its bound it
lies), the prefill multiple the least-squares one at that tile, 2.96 × (2.57 until the amdband
round moved the CDNA bf16 GEMM band its roofline is timed at: 0.18 -> 0.24 on MI300X / MI325X,
0.20 -> 0.26 on MI355X; 2.95 until the marlinfp4 round's refit of vLLM's chunked wave share,
0.122 -> 0.089, which the closed-loop TTFT bars are timed with; refitted, not chosen). Fitted
one after the other on one bar each (2.70 µs on the MI355X 64-request TPOT with the decode step
alone, then 2.54 × on its TTFT in the closed loop) they left that TPOT bar at +11.1%. The llm-d
MI355X runs (plain vLLM 0.15.1, held out) were not used.

**How the walk grows with context** (0.14.0 and 0.15.1 read, the same kernel):
``tiles_per_segment = cdiv(seq_len, NUM_SEGMENTS_PER_SEQ × TILE_SIZE)`` with the segment count
fixed at 16, so each workgroup walks 1/16 of the keys, linearly in the context with no cap; the
reduce kernel (one program per query token and head) merges the 16 partial softmaxes. The
workgroups run at once while the grid fits the GPU: the llm-d rows' 2 to 32 sequences of one
KV head per GPU make 32 to 512 workgroups on MI355X's 256 CUs, so the step lasts one walk.

**The Triton prefill** (``TRITON_PREFILL_SCALE``; issue 20, amdttft round). A step holding a
prompt runs the 2D kernel (``max_seqlen_q > 1``): one workgroup per block of ``BLOCK_M = 16``
query rows (16 when a KV head serves at most 16 query heads: 2 tokens × 8 heads for
Llama-3.3-70B, 1 × 16 for Qwen3-235B) and KV head, walking its keys in tiles of
``TILE_SIZE = 32`` (``_get_tile_size``, prefill) read from the paged cache: each K/V tile is
loaded for 16 rows of queries, where a flash-attention prefill kernel (AITER's
``flash_attn_varlen_func``: CK on gfx942, assembly on gfx950) keeps a block of 128 rows against
tiles of 64 keys. The same 16-row tile whatever the model's grouping, so one multiple of the
prefill attention's time serves every GQA model of head size 128. Applied, as the walk, at the
expected and low bands only (AITER's own Triton unified kernel: 0.97-1.06 × ROCM_AITER_FA's
TTFT in the same figure, a Triton kernel at its best).
"""

from __future__ import annotations

# the first release whose ROCm platform puts ROCM_ATTN (ROCm's paged-attention decode and the
# Triton prefix-prefill) ahead of every other attention backend (module docstring)
ROCM_ATTN_SINCE = "0.19.0"

# the Triton unified-attention decode kernel: softmax segments × tile size of the 3D kernel
# (NUM_PAR_SOFTMAX_SEGMENTS 16, decode TILE_SIZE 16 for a 16-bit query: 0.15.1)
TRITON_KEYS_PER_TILE_STEP = 16 * 16
# seconds one workgroup takes per 16-key tile (fitted, an upper bound: module docstring)
TRITON_DECODE_TILE_S = 2.18e-6
TRITON_SOURCE = (
    "fitted: vLLM's ROCm attention blog (2026-02-20, vLLM 0.14.0rc2, AITER on, "
    "--attention-backend switched), Qwen3-235B-A22B-FP8 TP 8 + EP 8, 10K / 1K, MI355X / MI325X "
    "/ MI300X at concurrency 64 and 128: least squares over TRITON_ATTN's TTFT and TPOT as "
    "multiples of ROCM_AITER_FA's, the tile at the bound the bars set "
    "(calc/deploy/engines/vllm/rocm_attention.py)"
)

# time of the Triton unified kernel's prefill attention against kvcalc's attention roofline
# (AMD's tuned flash-attention kernel) [×] (fitted with the tile: module docstring)
TRITON_PREFILL_SCALE = 2.96
TRITON_PREFILL_SOURCE = (
    "fitted: vLLM's ROCm attention blog (2026-02-20, vLLM 0.14.0rc2, AITER on, "
    "--attention-backend switched), Qwen3-235B-A22B-FP8 TP 8 + EP 8, 10K / 1K, MI355X / MI325X "
    "/ MI300X at concurrency 64 and 128: least squares over TRITON_ATTN's TTFT and TPOT as "
    "multiples of ROCM_AITER_FA's, with the decode tile "
    "(calc/deploy/engines/vllm/rocm_attention.py)"
)


def prefill_attention_scale(kernels: str | None) -> float | None:
    """The time of vLLM's prefill attention under ``kernels`` against kvcalc's attention
    roofline [×]: the Triton unified kernel's 2D path for "triton", None for "aiter" (AMD's
    flash-attention kernels: the roofline)."""
    if kernels == "triton":
        return TRITON_PREFILL_SCALE
    return None


def attention_walk(kernels: str | None):
    """(seconds per tile, keys per tile step) of vLLM's decode attention under ``kernels``:
    the Triton unified kernel's serial walk for "triton", None for "aiter" (AMD's tuned
    kernels: kvcalc's attention roofline)."""
    if kernels == "triton":
        return TRITON_DECODE_TILE_S, TRITON_KEYS_PER_TILE_STEP
    return None


def attention_kernel_sources(kernels: str | None) -> tuple[str, str] | None:
    """(where the decode walk's tile time comes from, where the prefill multiple comes from)
    under ``kernels``: the Triton unified kernel's fits for "triton", None for "aiter"."""
    if kernels == "triton":
        return TRITON_SOURCE, TRITON_PREFILL_SOURCE
    return None
