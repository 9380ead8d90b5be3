"""vLLM's attention kernels on AMD GPUs: which library a release runs by default, the
serial-walk time [s per tile] of its Triton unified-attention decode kernel and the time of
its prefill attention against AMD's tuned kernel's [×].

**Which library** (``VLLM.rocm_kernels_default``): ``VLLM_ROCM_USE_AITER`` defaults to False in
``vllm/envs.py`` of 0.9.2, 0.11.0 and 0.15.1 (read), and ``platforms/rocm.py``
``get_attn_backend_cls`` of those releases and of the newest stored one ends, with no AITER
variable and no ``--attention-backend``, on "Default: Triton Unified Attention" (TRITON_ATTN).
So a plain ``vllm serve`` on MI300X or MI355X runs Triton attention unless the image or the
command sets ``VLLM_ROCM_USE_AITER=1`` (AMD's tuned recipes and InferenceX's MI355X scripts do;
``rocm_kernels`` "aiter" states it) or picks the ROCm paged-attention split
(``VLLM_V1_USE_PREFILL_DECODE_ATTENTION=1``, ROCm/vllm's dev-docker README, also "aiter" here:
a tuned decode kernel).

**What the Triton decode kernel costs.** ``v1/attention/ops/triton_unified_attention.py``
(0.15.1): a decode-only step of at most ``128 // KV heads per GPU`` sequences
(``triton_attn.py`` ``MIN_LAUNCH_GRID_SIZE_2D``) runs the 3D kernel, one workgroup per sequence,
KV head and softmax segment (``NUM_PAR_SOFTMAX_SEGMENTS = 16``), each walking its 1/16 of the
keys in tiles of 16 (``_get_tile_size``: 16 for a 16-bit query) one after another. At the small
batches of a latency-bound decode the grid has few workgroups per CU and the step's attention
takes the length of one walk, not the KV bytes over the bandwidth: time per layer = keys / 256
× the time of one tile, whatever the batch, where that is above the roofline
(``calc.deploy.steps``). Beyond the threshold (or with a prompt in the step) the 2D kernel
walks every key in one workgroup; kvcalc keeps the 3D walk there (a lower bound: no 2D
measurement found).

**The constant** (``TRITON_DECODE_TILE_S``; ``bench/validation_amd_serving.py --fit-triton``):
fitted to one published A/B that switches only the attention backend: vLLM's ROCm attention
blog (vllm-project.github.io ``_posts/2026-02-20-rocm-attention-backend.md``, AMD and Embedded
LLM, vLLM 0.14.0rc2 in ``rocm/vllm-dev:nightly_main_20260115``, ``VLLM_ROCM_USE_AITER=1`` for
every run, ``--attention-backend`` switched), Qwen3-235B-A22B-Instruct-2507-FP8 at TP 8 + EP 8
on 8 × MI355X, 10K prompt and 1K output tokens, 64 concurrent requests: TPOT 1.05 × ROCM_AITER_FA's
under TRITON_ATTN (its TPOT figure; ROCM_AITER_FA's bar reads 39.8 ms at 2.43 px/ms on its 0 to
260 ms axis, so TRITON_ATTN adds 0.05 × 39.8 = 1.99 ms a step). kvcalc's decode step of that
deployment at batch 64 and 10,500 tokens of context, AITER's attention at its roofline, takes
those 1.99 ms more with the walk at 2.70 µs a tile. The llm-d MI355X runs (plain vLLM 0.15.1,
held out) were not used.

**The Triton prefill** (``TRITON_PREFILL_SCALE``; issue 20, amdttft round;
``bench/validation_amd_serving.py --fit-triton-prefill``). A step holding a prompt runs the 2D
kernel (``max_seqlen_q > 1``): one workgroup per block of ``BLOCK_M = 16`` query rows (16 when
a KV head serves at most 16 query heads: 2 tokens × 8 heads for Llama-3.3-70B, 1 × 16 for
Qwen3-235B) and KV head, walking its keys in tiles of ``TILE_SIZE = 32`` (``_get_tile_size``,
prefill) read from the paged cache: each K/V tile is loaded for 16 rows of queries, where a
flash-attention prefill kernel (AITER's ``flash_attn_varlen_func``: CK on gfx942, assembly on
gfx950) keeps a block of 128 rows against tiles of 64 keys. The same 16-row tile whatever the
model's grouping, so one multiple of the prefill attention's time serves every GQA model of
head size 128. Fitted to the blog's TTFT figure (``mha_ttft_comparison.png``: the same runs,
TRITON_ATTN's TTFT 1.33 × ROCM_AITER_FA's on MI355X at 64 requests): kvcalc's TTFT of
that deployment (bench/validation_serving.py's closed loop, the decode walk included) grows by
1.33 × at 2.54 × the prefill attention's roofline time. The other five bars of the figure
(MI355X at 128, MI325X and MI300X at 64 and 128: 1.28-1.42 ×) are checks. Applied, as the walk,
at the expected and low bands only (AITER's own Triton unified kernel: 0.97-1.06 ×
ROCM_AITER_FA's TTFT in the same figure, a Triton kernel at its best).
"""

from __future__ import annotations

# the Triton unified-attention decode kernel: softmax segments × tile size of the 3D kernel
# (NUM_PAR_SOFTMAX_SEGMENTS 16, decode TILE_SIZE 16 for a 16-bit query: 0.15.1)
TRITON_KEYS_PER_TILE_STEP = 16 * 16
# seconds one workgroup takes per 16-key tile (fitted: module docstring; MI355X, gfx950)
TRITON_DECODE_TILE_S = 2.70e-6
TRITON_SOURCE = (
    "fitted: vLLM's ROCm attention blog (2026-02-20, vLLM 0.14.0rc2, AITER on, "
    "--attention-backend switched), Qwen3-235B-A22B-FP8 TP 8 + EP 8 on MI355X, 10K / 1K at "
    "concurrency 64: TRITON_ATTN's TPOT 1.05 x ROCM_AITER_FA's 39.8 ms "
    "(calc/deploy/engines/vllm/rocm_attention.py)"
)

# time of the Triton unified kernel's prefill attention against kvcalc's attention roofline
# (AMD's tuned flash-attention kernel) [×] (fitted: module docstring)
TRITON_PREFILL_SCALE = 2.54
TRITON_PREFILL_SOURCE = (
    "fitted: vLLM's ROCm attention blog (2026-02-20, vLLM 0.14.0rc2, AITER on, "
    "--attention-backend switched), Qwen3-235B-A22B-FP8 TP 8 + EP 8 on MI355X, 10K / 1K at "
    "concurrency 64: TRITON_ATTN's TTFT 1.33 x ROCM_AITER_FA's "
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
