"""vLLM's releases from 0.10.0 to 0.33.0 and the start-up rules each one runs [bytes, tokens]:
the defaults and accounting that changed, each at the first release whose wheel (PyPI
``vllm==X``) has it, with the file it is read from.

Fitted constants are marked "measured" with the logs they come from (docs/validation.md lists
every source); every other value is read from the release's source.
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.deploy.engines.versions import Change, VersionTable

GIB = 2**30
MIB = 2**20
# the CUDA graph constants as bench/validation_capacity.py graph_fit measures them [MiB]
# (tests/test_validation_capacity.py checks they are its current result)
GRAPH_FIT_MIB = {
    "piecewise_base": 96,
    "piecewise_per_graph_layer": 0.21,
    "full_per_graph_layer": 0.17,
}

# vLLM 0.29.0+ runs the V2 model runner on CUDA by default (config/vllm.py
# use_v2_model_runner), whose profile_cudagraph_memory (v1/worker/gpu/cudagraph_utils.py,
# the same in 0.29.0-0.33.0) captures every PIECEWISE graph and measures them all ("PIECEWISE,
# encoder and speculator graphs are measured in full"), where V1 took (n - 1) x the second
# capture; FULL graphs are still extrapolated from the two largest. Each further PIECEWISE
# graph's own memory per layer [bytes], from the training record vllm0290-l40s-qwen3-14b-base
# (Qwen3-14B on an L40S, 0.29.0 defaults), whose line '--gpu-memory-utilization=0.9200 is
# equivalent to --gpu-memory-utilization=0.9086' prints the estimate: 0.0114 x 47,663,022,080 B
# = 543,358,452 B, less its first PIECEWISE capture 100,663,296 + 512 x 52,224 x 2 =
# 154,140,672 B and 34 further FULL graphs x 40 layers x 0.17 MiB = 242,430,880 B, over 50
# further PIECEWISE graphs x 40 layers: 146,786,900 / 2,000 = 73,393 B (0.070 MiB; the
# printed utilisations' 4th decimal bounds it to 0.069-0.071 MiB)
V2_PIECEWISE_PER_GRAPH_LAYER_BYTES = 73_393

# The V2 runner's sampler keeps penalty statistics for every request slot from load_model on
# (v1/worker/gpu/sample/penalties.py PenaltiesState: output_bin_counts max_num_seqs x vocab
# int32 and prompt_bin_mask max_num_seqs x ceil(vocab / 32) int32, on the last PP rank), inside
# the 'consumed' memory the KV budget excludes (pool.penalties_state_bytes). What the same
# record consumes beyond its weights and that state is the V2 runner's non-torch memory at TP 1
# [bytes]: 'Actual usage is 27.79 GiB for consumed memory (weights + non-torch)' less 'Model
# loading took 27.52 GiB' = 0.27 GiB = 289,910,292 B, less 256 x (151,936 + 4,748) x 4 B =
# 160,444,416 B of penalty state: 129,465,876 B (0.12 GiB, +-0.01 from the printed
# hundredths; V1's 0.25 held no per-request state, and 0.12 of it was the graph estimate's
# capture inside the profiling window, VllmRules.graph_capture_residue_bytes). Held out: the
# 0.31.0 A100 log, 15.26 - 15.0 - 256 x (128,256 + 4,008) x 4 B = 0.13 GiB
V2_NON_TORCH_TP1_BYTES = 129_465_876

RELEASES = (
    "0.10.0", "0.10.1", "0.10.1.1", "0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0",
    "0.13.0", "0.14.0", "0.14.1", "0.15.0", "0.15.1", "0.16.0", "0.17.0", "0.17.1", "0.18.0",
    "0.18.1", "0.19.0", "0.19.1", "0.20.0", "0.20.1", "0.20.2", "0.21.0", "0.22.0", "0.22.1",
    "0.23.0", "0.24.0", "0.25.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1", "0.28.0", "0.29.0",
    "0.30.0", "0.31.0", "0.32.0", "0.33.0",
)  # fmt: skip  # every PyPI release of vllm from 0.10.0 (rc/dev builds map to these)


@dataclass(frozen=True)
class VllmRules:
    """What one vLLM release does at start-up (the fields a release changes)."""

    gpu_memory_utilization: float  # CacheConfig default
    block_size: int  # CacheConfig default for non-MLA attention
    # get_batch_defaults (API server): (max_num_batched_tokens, max_num_seqs) for GPUs of at
    # least 160 GiB (None: no such tier), >= 70 GiB and not an A100, and the rest
    huge_gpu_batch: tuple[int, int] | None
    large_gpu_batch: tuple[int, int]
    small_gpu_batch: tuple[int, int]
    sampler_bytes_per_logit: float  # peak bytes per logit of the dummy sampler pass
    sampler_kernel: str  # which top-k/top-p path the dummy sampler pass runs
    non_torch_tp1_bytes: float  # non-torch increase at TP 1 (cuBLAS workspaces, kernels)
    non_torch_tp_bytes: float  # at TP >= 2: NCCL and custom all-reduce buffers
    # FlashInfer all-reduce + RMSNorm fusion on by default (TP > 1, PP 1, DP 1, Hopper or
    # Blackwell): its IPC workspace adds this much non-torch memory (0: not on by default)
    allreduce_fusion_bytes: float
    cudagraph_estimate: bool  # VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS default
    hybrid_ratio: float | None  # group layers of a hybrid model at this ratio (None: min)
    async_in_flight: bool  # sliding windows reserve max_concurrent_batches × batched tokens
    # dense MLA's block size: "forced" (check_and_update_config forces the default backend's
    # block: FlashMLA 64 on Hopper, ``mla_blackwell``'s on Blackwell) or "preferred" (0.18+:
    # update_block_size_for_backend takes the first backend by priority and its
    # get_preferred_block_size)
    mla_block_rule: str
    mla_blackwell: str  # the backend forced on Blackwell: "none", "cutlass" or "flashinfer"
    accounting: str  # "torch_peak" (weights + torch peak + non-torch) or "total_consumed"
    # the "GPU KV cache size: N tokens" line: "blocks" (num_blocks // groups × block_size) or
    # "concurrency" (0.21+: int(max_concurrency × max_model_len), short of the pool where
    # max_model_len is not a multiple of the block size)
    printed_tokens: str = "blocks"
    # the CUDA graph estimate (memory.cudagraph_estimate_bytes), measured on 0.19.0's DEBUG
    # lines (bench/validation_capacity.py graph_fit): the first PIECEWISE capture's fixed part
    # and each further graph's own memory per layer it spans, by mode [bytes]
    cudagraph_piecewise_base_bytes: float = 0.0
    cudagraph_piecewise_per_graph_layer_bytes: float = 0.0
    cudagraph_full_per_graph_layer_bytes: float = 0.0
    # AttentionConfig.flash_attn_max_num_splits_for_cuda_graph: the split bound FlashAttention 3
    # sizes its accumulators for in a full-graph capture (Hopper's default backend)
    fa_max_num_splits: int = 32
    # the CUDA graph estimate holds FlashInfer's float workspace where FlashInfer is the
    # attention backend (pool._flashinfer_workspace_bytes): read in the 0.29.0-0.33.0 wheels
    flashinfer_workspace_in_estimate: bool = False
    # the V2 runner's per-request penalty state counted in the consumed memory
    # (pool.penalties_state_bytes, V2_NON_TORCH_TP1_BYTES)
    v2_penalties_state: bool = False
    # MXFP4 experts (gpt-oss) as loaded: the Triton backend keeps the checkpoint's block
    # scales beside its swizzled copy (until 0.25) and turns the expert biases to fp32; the
    # Blackwell FlashInfer backend pads (intermediate, hidden) to these multiples
    # CUDA graph capture sizes: the ceiling on data-center Blackwell (512 elsewhere) and
    # whether max_num_seqs is added to the sizes
    graph_ceiling_blackwell: int = 512
    graph_sizes_add_seqs: bool = False
    # the capture ceiling a model's config hook sets by architecture (config.json
    # ``architectures[0]``; model_executor/models/config.py MODELS_CONFIG_MAP): an explicit
    # max_cudagraph_capture_size, so neither 2 × max_num_seqs nor the platform ceiling caps it
    graph_ceiling_by_arch: tuple[tuple[str, int], ...] = ()
    # the config.json model_types vLLM runs as multimodal prefix LMs (bidirectional attention
    # over image tokens, ``is_mm_prefix_lm``): FlashAttention takes them only as FA4, so on
    # Hopper (FA3) the backend is TRITON_ATTN and no FA3 split buffer is captured
    mm_prefix_lm_types: tuple[str, ...] = ()
    mxfp4_scale_copy: bool = False
    mxfp4_bias_fp32: bool = False
    mxfp4_blackwell_align: tuple[int, int] = (256, 256)
    # AWQ's linear layers pick their kernel through choose_mp_linear_kernel, which takes
    # Machete on compute capability 9.0 (from 0.19): Machete keeps the zero points pre-scaled in
    # 16 bits (pool.machete_zero_point_bytes); before, AWQ-Marlin repacked to the checkpoint's bytes
    awq_mp_linear: bool = False
    # the tensor-parallel all-reduce's choice by message size (calc.deploy.parallel
    # engine_route), per compute capability ("9.0") a tuple of (world size, bytes): FlashInfer's
    # fused all-reduce + RMSNorm up to (inclusive), the custom all-reduce below ("()": its
    # 8 MiB buffer at every size), symmetric memory up to (below unless ``_inclusive``), with
    # multimem (the switch reduces) at the world sizes ``allreduce_symm_multimem`` lists
    allreduce_flashinfer_max: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = ()
    allreduce_custom_max: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = ()
    allreduce_symm_max: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = ()
    allreduce_symm_inclusive: bool = False
    allreduce_symm_multimem: tuple[tuple[str, tuple[int, ...]], ...] = ()
    # custom_all_reduce.py CustomAllreduce._SUPPORTED_WORLD_SIZES: the custom all-reduce runs
    # at these TP sizes only (any other takes FlashInfer or symmetric memory where their tables
    # list it, else NCCL)
    allreduce_custom_world_sizes: tuple[int, ...] = (2, 4, 6, 8)
    # Inductor's combo kernels with benchmark_combo_kernel on (CompilationConfig, torch >= 2.9):
    # a cold torch.compile inside the profiling pass benchmarks the embedding kernel on random
    # copies of its arguments, the whole (vocab-parallel) table included
    # (memory.compile_benchmark_bytes); a compile loaded from the cache benchmarks nothing
    compile_benchmark_copy: bool = False
    # the model runner a model gets by default (vllm/config/vllm.py use_v2_model_runner and
    # _is_default_v2_model_runner_model; VLLM_USE_V2_MODEL_RUNNER unset): "v1" (to 0.21),
    # "listed-unquantized" (0.22-0.23: an architecture of ``v2_runner_architectures``, neither
    # MoE nor quantized), "listed" (0.24: a listed architecture) or "listed-or-dense" (0.25+:
    # a listed architecture, or any model without MoE that is not a hybrid; never an
    # attention-free one)
    v2_runner: str = "v1"
    v2_runner_architectures: tuple[str, ...] = ()
    # whether the V2 runner's profile_cudagraph_memory estimates its graphs (0.29+); to 0.28
    # it returns 0 ("It is TBD whether we keep this API or not"), so nothing is taken from
    # the KV budget for them and the graphs are captured after the pool, in the slack
    v2_cudagraph_estimate: bool = False
    # what the CUDA graph estimate's dummy capture (gpu_model_runner.py profile_cudagraph_memory)
    # leaves outside torch's allocator where it runs inside the profiling window
    # (gpu_worker.py determine_available_memory: 0.18.0-0.26.x, V1 runner, graphs on), counted
    # in the non-torch increase at TP 1 (pool.graph_capture_residue_bytes) [bytes]
    graph_capture_residue_bytes: float = 0.0
    # whether determine_available_memory runs profile_cudagraph_memory and prints its
    # "Estimated CUDA graph memory" line (0.18+), taken from the budget only where
    # ``cudagraph_estimate`` (0.20+): 0.18 and 0.19 print the estimate and leave it in the slack
    cudagraph_profiled: bool = False
    # whether determine_available_memory profiles the CUDA graphs on ROCm as well: 0.18.0-0.25.x
    # skip profile_cudagraph_memory there (gpu_worker.py: ``not current_platform.is_rocm()``
    # to 0.20, ``current_platform.is_cuda()`` 0.21-0.25), so an AMD GPU gets neither the estimate
    # nor its capture's residue; 0.26.0+ run it there too (``is_cuda_alike()``, vLLM pull 44825)
    cudagraph_profiled_rocm: bool = False


def runs_v2_model_runner(rules: VllmRules, architecture: str | None, moe: bool, hybrid: bool,
                         attention_free: bool, quantized: bool) -> bool:  # fmt: skip
    """Whether the release runs a model on the V2 model runner by default (``rules.v2_runner``):
    ``architecture`` is config.json's ``architectures[0]`` (None: unknown, never listed)."""
    listed = architecture is not None and architecture in rules.v2_runner_architectures
    if rules.v2_runner == "listed-unquantized":
        return listed and not moe and not quantized
    if rules.v2_runner == "listed":
        return listed
    if rules.v2_runner == "listed-or-dense":
        return not attention_free and (listed or (not moe and not hybrid))
    return False


KIB = 2**10
# all_reduce_utils.py CUSTOM_ALL_REDUCE_MAX_SIZES / SYMM_MEM_ALL_REDUCE_MAX_SIZES
CUSTOM_AR_MAX = {
    "9.0": ((2, 64 * MIB), (4, 32 * MIB), (6, 512 * KIB), (8, 256 * KIB)),
    "10.0": ((2, 2 * MIB), (4, 2 * MIB), (6, 1 * MIB), (8, 1 * MIB)),
    "10.3": ((2, 4 * MIB), (4, 4 * MIB), (6, 8 * MIB), (8, 4 * MIB)),
}
SYMM_AR_MAX = {
    "9.0": ((2, 64 * MIB), (4, 32 * MIB), (6, 64 * MIB), (8, 64 * MIB)),
    "10.0": ((2, 8 * MIB), (4, 32 * MIB), (6, 128 * MIB), (8, 128 * MIB)),
    "10.3": ((2, 4 * MIB), (4, 32 * MIB), (6, 32 * MIB), (8, 64 * MIB)),
}
# symm_mem.py SymmMemCommunicator._WORLD_SIZES_MULTIMEM
SYMM_MULTIMEM = {"9.0": (4, 6, 8), "10.0": (6, 8), "10.3": (6, 8)}
# compilation/passes/fusion/allreduce_rms_fusion.py FI_ALLREDUCE_FUSION_MAX_SIZE_MB [MiB]
FI_AR_MAX_MIB = {
    "9.0": ((2, 64), (4, 2), (8, 0.5)),
    "10.0": ((2, 64), (4, 32), (8, 1)),
    "10.3": ((2, 64), (4, 64), (8, 2)),
}

# 0.25.0: FlashInfer's fusion at 16 GPUs on Blackwell, 64 MB ("mnnvl multi-node")
FI_AR_MAX_MIB_025 = {
    **FI_AR_MAX_MIB,
    "10.0": (*FI_AR_MAX_MIB["10.0"], (16, 64)),
    "10.3": (*FI_AR_MAX_MIB["10.3"], (16, 64)),
}


def _ar(table: dict, keys: tuple[str, ...], scale: float = 1.0):
    """A rules table of the all-reduce limits for the capabilities ``keys`` [bytes]."""
    return tuple((k, tuple((n, round(v * scale)) for n, v in table[k])) for k in keys)


# vllm/config/vllm.py DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES: the architectures that run on the
# V2 model runner by default (0.23.0's dense ones; 0.25.0's MoE ones, beside every dense
# model; 0.26.0's additions; the rules below add 0.24.0's union and 0.27.0's, 0.28.0's)
V2_ARCHS_023 = ("LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM")
V2_MOE_ARCHS_025 = ("DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "Qwen2MoeForCausalLM")
V2_ARCHS_026 = (
    *V2_MOE_ARCHS_025,
    "InklingForCausalLM",
    "InklingForConditionalGeneration",
    "LongcatFlashNgramForCausalLM",
)

BASE = VllmRules(
    gpu_memory_utilization=0.9,
    block_size=16,
    huge_gpu_batch=None,
    large_gpu_batch=(8192, 1024),
    small_gpu_batch=(2048, 256),
    sampler_bytes_per_logit=38.0,
    sampler_kernel="flashinfer",
    non_torch_tp1_bytes=round(0.13 * GIB),
    non_torch_tp_bytes=round(0.55 * GIB),
    allreduce_fusion_bytes=0.0,
    cudagraph_estimate=False,
    hybrid_ratio=None,
    async_in_flight=False,
    mla_block_rule="forced",
    mla_blackwell="none",
    accounting="torch_peak",
)

CHANGES = (
    Change(
        "0.10.0",
        {},
        "vllm/config/__init__.py (CacheConfig gpu_memory_utilization 0.9, block_size 16); "
        "vllm/engine/arg_utils.py get_batch_defaults (>= 70 GiB, not A100: 8192/1024, else "
        "2048/256); vllm/platforms/cuda.py check_and_update_config (MLA: FlashMLA forces "
        "block 64 on Hopper, is_flashmla_supported: Hopper only); "
        "v1/sample/ops/topk_topp_sampler.py "
        "(FlashInfer top-k/top-p sampling when installed, VLLM_USE_FLASHINFER_SAMPLER unset); "
        "v1/core/kv_cache_utils.py (hybrid group size = the smallest layer kind)",
        "sampler 38.0 B per logit and non-torch 0.13 GiB (TP 1), 0.55 GiB (TP 2) measured on "
        "0.11.0 (llm-d-planner docs/empirical-vllm-memory-results.md: torch peaks of 4.76 GiB "
        "for Llama-3.1-8B, 5.56 GiB for Qwen3-0.6B, 7.38 GiB for gpt-oss-20b at 8,192 tokens "
        "and 1,024 rows = the resident hidden states + 1,024 × vocabulary × 38.0 B: 4.78, 5.54, "
        "7.38 GiB)",
    ),
    Change(
        "0.10.1",
        {
            "mxfp4_scale_copy": True,
            "mxfp4_bias_fp32": True,
            "mla_blackwell": "cutlass",
            "graph_ceiling_by_arch": (("GptOssForCausalLM", 1024),),
        },
        "vllm/platforms/cuda.py check_and_update_config (Blackwell => Force CutlassMLA: block "
        "128); model_executor/layers/quantization/mxfp4.py Mxfp4MoEMethod (gpt-oss): "
        "create_weights "
        "pads the expert widths per backend (Triton on Hopper: intermediate to 64, FlashInfer "
        "on Blackwell: both to 256, Marlin before Hopper: 128 / 256); "
        "process_weights_after_loading, Triton backend: biases .to(torch.float32), "
        "_swizzle_mxfp4 copies the block scales into the Hopper layout (rows padded to 256) "
        "and deletes only w13_weight / w2_weight, so the checkpoint's scales stay; "
        "model_executor/models/config.py GptOssForCausalLMConfig.verify_and_update_config "
        "(gpt-oss: capture sizes up to 1,024, 83 graphs, unless the user sets them)",
        "the rule reproduces llm-d-planner's 0.11.0 weights: gpt-oss-20b 12.81 + 0.60 = 13.41 "
        "GiB (printed 13.47), gpt-oss-120b 60.71 + 3.59 = 64.30 GiB (printed 64.38)",
    ),
    Change(
        "0.11.0",
        {"graph_ceiling_by_arch": (("GptOssForCausalLM", 992),)},
        "model_executor/models/config.py GptOssForCausalLMConfig (this release only: 992, 81 "
        "graphs, 'the max supported size [of full graphs with FA3] is 992')",
    ),
    Change(
        "0.11.1",
        {"sampler_kernel": "torch-sort", "graph_ceiling_by_arch": (("GptOssForCausalLM", 1024),)},
        "v1/sample/ops/topk_topp_sampler.py (FlashInfer sampling only with "
        "VLLM_USE_FLASHINFER_SAMPLER=1: the PyTorch sort path); "
        "model_executor/models/config.py GptOssForCausalLMConfig (1,024 again, as "
        "max_cudagraph_capture_size: the 2 × max_num_seqs cap no longer applies)",
        "the sort path keeps the 38.0 B per logit of 0.11.0: _dummy_sampler_run's penalties "
        "and log-probabilities, not the top-k/top-p kernel, set the peak (measured on 0.15.0 "
        "and 0.16.0, llm-d-planner accuracy/results/version-sweep: Qwen3-14B's torch peak "
        "5.64 GiB = resident 2 × 8,192 × 5,120 × 2 B + 1,024 × 151,936 × 38.0 B = 5.66 GiB; "
        "28 B, read from the sort path alone, gave 4.21 GiB and a pool 3.4% too large)",
    ),
    Change(
        "0.11.0",
        {
            "allreduce_custom_max": _ar(CUSTOM_AR_MAX, ("9.0", "10.0")),
            "allreduce_symm_max": _ar(SYMM_AR_MAX, ("9.0", "10.0")),
            "allreduce_symm_multimem": tuple((k, SYMM_MULTIMEM[k]) for k in ("9.0", "10.0")),
        },
        "vllm/envs.py VLLM_ALLREDUCE_USE_SYMM_MEM defaults to 1 (0.10.2: 0); "
        "distributed/device_communicators/cuda_communicator.py all_reduce (quick all-reduce on "
        "ROCm MI300 when VLLM_ROCM_QUICK_REDUCE_QUANTIZATION is set, default NONE: off; the "
        "custom all-reduce; symmetric memory; pynccl); custom_all_reduce.py (with symmetric "
        "memory on, its buffer shrinks to CUSTOM_ALL_REDUCE_MAX_SIZES[capability][world size]; "
        "should_custom_ar: inp_size < max_size); all_reduce_utils.py "
        "SYMM_MEM_ALL_REDUCE_MAX_SIZES; symm_mem.py (should_use_symm_mem: inp_size < max_size; "
        "multimem_all_reduce_ at the _WORLD_SIZES_MULTIMEM, else two-shot; CUDA only)",
    ),
    Change(
        "0.11.1",
        {"compile_benchmark_copy": True},
        "config/compilation.py CompilationConfig.__post_init__ (0.11.1-0.33.0): with torch >= "
        "2.9 and neither key set by the user, inductor_compile_config gets combo_kernels and "
        "benchmark_combo_kernel True (0.33.0: benchmark_combo_kernel = not deterministic, "
        "deterministic off by default); the wheel pins torch==2.9.0 (0.11.0: 2.8.0, so off). "
        "torch _inductor/scheduler.py speedup_by_combo_kernel benchmarks each subkernel and the "
        "combo (codegen/triton.py benchmark_fused_nodes, benchmark_codegened_module: "
        "mod.get_args() unless a .kernel_perf file caches the time), and "
        "codegen_kernel_benchmark's get_args allocates rand_strided(size) for every buffer "
        "and graph constant the kernel takes, at the compile's size hint (the profiling "
        "pass's max_num_batched_tokens). enforce_eager sets CompilationMode.NONE: no compile",
        "the copy of the embedding table and of the step's hidden states twice (the kernel's "
        "two outputs) against the transient peaks of four cold-compile logs, no constant "
        "fitted: vLLM 0.29.0 Qwen3-14B on an L40S at 2,048 and 8,192 tokens (1.48, 1.48, 1.60 "
        "GiB against 151,936 × 5,120 × 2 B + 2 × tokens × 5,120 × 2 B = 1.488, 1.488, 1.605 "
        "GiB) and vLLM 0.19.0 Llama 3.1 8B in fp32 on an H100 (torch peak 2.21 GiB against "
        "128,256 × 4,096 × 4 B + 2 × 8,192 × 4,096 × 4 B = 2.207 GiB; the bf16 runs' 1.89 GiB "
        "peak, cold and warm alike, is the sampler's, above the 1.10 GiB copy)",
    ),
    Change(
        "0.12.0",
        {"hybrid_ratio": 1.25},
        "v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size "
        "(max_num_layers < min_num_layers * 1.25)",
    ),
    Change(
        "0.13.0",
        {"mm_prefix_lm_types": ("gemma3",)},
        "config/model.py is_mm_prefix_lm (MM_PREFIX_LM_MODELS, by config.json model_type); "
        "v1/attention/backends/flash_attn.py has no supports_mm_prefix, so the selector "
        "(attention/selector.py use_mm_prefix) passes FLASH_ATTN and FLASHINFER over for "
        "TRITON_ATTN",
    ),
    Change(
        "0.14.0",
        {"mm_prefix_lm_types": ("gemma3", "paligemma")},
        "config/model.py is_mm_prefix_lm (MM_PREFIX_LM_MODELS)",
    ),
    Change(
        "0.15.0",
        {"mla_blackwell": "flashinfer", "mm_prefix_lm_types": ("gemma3", "molmo2", "paligemma")},
        "vllm/platforms/cuda.py check_and_update_config (Blackwell, qk_nope_head_dim 128: "
        "FlashInfer MLA forced, block 64 unless 32; else CUTLASS MLA, 128); config/model.py "
        "is_mm_prefix_lm (molmo2 added)",
    ),
    Change(
        "0.17.0",
        {
            "sampler_bytes_per_logit": 14.5,
            "sampler_kernel": "triton",
            "allreduce_fusion_bytes": round(1.52 * GIB),
            "allreduce_flashinfer_max": _ar(FI_AR_MAX_MIB, ("9.0", "10.0"), MIB),
        },
        "v1/sample/ops/topk_topp_triton.py (Triton top-k/top-p for >= 8 rows, no full sort); "
        "vllm/config/vllm.py enable_allreduce_rms_fusion (on by default at TP > 1, PP 1, DP 1 on "
        "Hopper/Blackwell with FlashInfer)"
        "; the fusion takes every all-reduce before an RMSNorm of up to "
        "FI_ALLREDUCE_FUSION_MAX_SIZE_MB[capability][world size] "
        "(compilation/passes/fusion/allreduce_rms_fusion.py; is_applicable_for_range: "
        "compile_range.end <= max_token_num), ahead of the custom all-reduce",
        "14.5 B per logit and 0.55 + 1.52 = 2.07 GiB of non-torch memory (TP 2, 4) measured on "
        "0.19.0 (llm-d-planner accuracy/results/v0.19.0 logs); 0.17.0's Qwen3-14B torch peak "
        "2.23 GiB (llm-d-planner version-sweep) is the same 14.5 B",
    ),
    Change(
        "0.18.0",
        {
            "hybrid_ratio": 1.5,
            "mla_block_rule": "preferred",
            "graph_capture_residue_bytes": round(0.25 * GIB) - round(0.13 * GIB),
            "mm_prefix_lm_types": ("bagel", "gemma3", "molmo2", "paligemma"),
            "cudagraph_profiled": True,
        },
        "v1/core/kv_cache_utils.py (max_num_layers < min_num_layers * 1.5); "
        "vllm/platforms/interface.py update_block_size_for_backend and "
        "v1/attention/backend.py get_preferred_block_size (the default 16 if the backend takes "
        "it, else its smallest kernel block); vllm/platforms/cuda.py _get_backend_priorities "
        "(Hopper: FLASH_ATTN_MLA, MultipleOf(16), bf16 KV only, then FLASHMLA [64]; Blackwell: "
        "FLASHINFER_MLA [32, 64] when qk_nope_head_dim is 64, 128 or 192, then CUTLASS_MLA "
        "[128]); transformers_utils/model_arch_config_convertor.py is_mm_prefix_lm (bagel added)",
        "non-torch 0.25 GiB at TP 1 from 0.18.0: llm-d-planner's version-sweep prints 0.13 GiB "
        "for Qwen3-14B under 0.15.0-0.17.0 and 0.25 GiB under 0.18.0 (0.19.0's logs: 0.24-0.26 "
        "for graph estimates of 0.61-1.39 GiB); the 0.12 GiB step is the graph estimate's "
        "capture, which 0.18.0 added inside memory_profiling (v1/worker/gpu_worker.py "
        "determine_available_memory; none in 0.17.0), skipped with enforce_eager and by the V2 "
        "runner's profile_cudagraph_memory (returns 0 to 0.28): graph_capture_residue_bytes "
        "(issue 21, memlogs round); the same function logs 'Estimated CUDA graph memory' and "
        "0.18.0 and 0.19.1 subtract it only under VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 "
        "(envs.py default 0; cudagraph_memory_estimate_applied, read in both wheels): "
        "cudagraph_profiled (graphrow round)",
    ),
    Change(
        "0.18.0",
        {"cudagraph_profiled_rocm": False},
        "v1/worker/gpu_worker.py determine_available_memory: profile_cudagraph_memory only "
        "where not current_platform.is_rocm() (0.18.0-0.20.2; current_platform.is_cuda() "
        "in 0.21.0, 0.23.0, 0.24.0, 0.25.0: 'Skip on ROCm/HIP/XPU as graph pool handles and "
        "mem_get_info behave differently'), so on an AMD GPU no 'Estimated CUDA graph memory' is "
        "printed or taken from the budget (0.20+) and no dummy capture runs inside the profiling "
        "window: no graph_capture_residue_bytes (issue 21, rocmpool round)",
    ),
    Change(
        "0.19.0",
        {
            "allreduce_custom_max": _ar(CUSTOM_AR_MAX, ("9.0", "10.0", "10.3")),
            "allreduce_symm_max": _ar(SYMM_AR_MAX, ("9.0", "10.0", "10.3")),
            "allreduce_symm_multimem": tuple(SYMM_MULTIMEM.items()),
            "allreduce_flashinfer_max": _ar(FI_AR_MAX_MIB, ("9.0", "10.0", "10.3"), MIB),
        },
        "distributed/device_communicators/all_reduce_utils.py and symm_mem.py: capability "
        "10.3 (B300, GB300) gets its own custom and symmetric-memory limits (0.18.1: none, so "
        "its all-reduce stayed on the 8 MiB custom buffer and NCCL); "
        "compilation/passes/fusion/allreduce_rms_fusion.py FI_ALLREDUCE_FUSION_MAX_SIZE_MB 103",
    ),
    Change(
        "0.19.0",
        {"awq_mp_linear": True},
        "model_executor/layers/quantization/awq_marlin.py AWQMarlinLinearMethod.create_weights "
        "(0.19.0, 0.20.0, 0.21.0; auto_awq.py AutoAWQMarlinLinearMethod in 0.26.0-0.33.0): "
        "choose_mp_linear_kernel, whose CUDA list puts MacheteLinearKernel (capability 9.0 "
        "only; uint4/uint8 with zero points, groups 64/128/-1 for 16-bit activations) before "
        "MarlinLinearKernel; machete.py transform_w_zp stores -scale × zero in the activation "
        "dtype, [in/group, out] (0.17.0 and 0.18.0: awq_marlin_repack, no Machete; 0.18.1 "
        "not read)",
    ),
    Change(
        "0.20.0",
        {
            "gpu_memory_utilization": 0.92,
            "cudagraph_estimate": True,
            "cudagraph_piecewise_base_bytes": round(GRAPH_FIT_MIB["piecewise_base"] * MIB),
            "cudagraph_piecewise_per_graph_layer_bytes": round(
                GRAPH_FIT_MIB["piecewise_per_graph_layer"] * MIB
            ),
            "cudagraph_full_per_graph_layer_bytes": round(
                GRAPH_FIT_MIB["full_per_graph_layer"] * MIB
            ),
            "mm_prefix_lm_types": ("bagel", "gemma3", "molmo2", "paligemma", "umm"),
        },
        "vllm/config/cache.py (gpu_memory_utilization default 0.92); vllm/envs.py "
        "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to 1 in the 0.20.0 wheel; its log "
        "line says 'default since v0.21.0'; 0.19.0's logs dump it as False) and "
        "v1/worker/gpu_worker.py determine_available_memory (the estimate taken from the KV "
        "budget); transformers_utils/model_arch_config_convertor.py is_mm_prefix_lm (umm added)",
        "CUDA graph estimate (v1/worker/gpu_model_runner.py profile_cudagraph_memory, the same in "
        "0.19.0, 0.20.0 and 0.33.0): per mode the first two captures, the largest first; "
        "max(first PIECEWISE, first FULL) + (n − 1) × the second capture, per mode. First FULL "
        "capture on Hopper: FlashAttention 3's split accumulators, 32 splits × heads × tokens × "
        "(v_head_dim + 1) × 4 B (config/attention.py, backends/flash_attn.py; 258 MiB for Llama "
        "3.1 8B at 512 tokens, 260 printed). Measured on the 0.19.0 logs' DEBUG lines (medians "
        "over 20 training logs): the first PIECEWISE capture's fixed part "
        f"{GRAPH_FIT_MIB['piecewise_base']:.0f} MiB beside the widest layer's temporaries, and "
        f"{GRAPH_FIT_MIB['piecewise_per_graph_layer']:.2f} MiB (PIECEWISE), "
        f"{GRAPH_FIT_MIB['full_per_graph_layer']:.2f} MiB (FULL) per further graph per layer",
    ),
    Change(
        "0.21.0",
        {"printed_tokens": "concurrency"},
        "v1/core/kv_cache_utils.py _report_kv_cache_config: 'GPU KV cache size' is "
        "int(max_concurrency × max_model_len), max_concurrency = num_blocks / cdiv(a request's "
        "max_model_len bytes, a block's); to 0.20.0 num_blocks // len(kv_cache_groups) × "
        "min block_size (0.24.0+ get_kv_cache_capacity, the same figure, to 0.33.0)",
    ),
    Change(
        "0.21.0",
        {"mm_prefix_lm_types": ("bagel", "gemma3", "molmo2", "moondream3", "paligemma", "umm")},
        "transformers_utils/model_arch_config_convertor.py is_mm_prefix_lm (moondream3 added); "
        "from 0.24.0 "
        "v1/attention/backends/flash_attn.py supports_combination takes mm_prefix only where "
        "get_flash_attn_version gives FA4, and Hopper's is FA3 (0.33.0 fa_utils.py upgrades to "
        "FA4 only for head sizes above 256, sinks with a different V width, diffusion models), "
        "so Hopper stays "
        "on TRITON_ATTN to 0.33.0 (SM90 with an fp8 KV cache: 'requires Triton')",
    ),
    Change(
        "0.22.0",
        {"allreduce_symm_inclusive": True},
        "distributed/device_communicators/symm_mem.py should_use_symm_mem: inp_size <= "
        "max_size (0.21.0: <)",
    ),
    Change(
        "0.22.0",
        {"v2_runner": "listed-unquantized", "v2_runner_architectures": ("Qwen3ForCausalLM",)},
        "vllm/config/vllm.py use_v2_model_runner (VLLM_USE_V2_MODEL_RUNNER unset: "
        "_is_default_v2_model_runner_model, DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES; 0.21.0: "
        "VLLM_USE_V2_MODEL_RUNNER defaults to 0, V1 for every model); "
        "v1/worker/gpu/model_runner.py profile_cudagraph_memory returns 0 (0.22.0-0.28.0)",
    ),
    Change(
        "0.23.0",
        {"v2_runner_architectures": V2_ARCHS_023},
        "vllm/config/vllm.py DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES (Llama, Mistral added)",
        "LMCache pull 3502 dates vllm pull 43458 (the V2 runner by default for Llama and "
        "Mistral dense models) to nightly 0.22.1rc1.dev95; the 0.22.1 wheel still lists "
        "Qwen3 alone",
    ),
    Change(
        "0.24.0",
        {
            "v2_runner": "listed",
            "v2_runner_architectures": (*V2_ARCHS_023, *V2_MOE_ARCHS_025),
        },
        "vllm/config/vllm.py _is_default_v2_model_runner_model (a listed architecture, MoE "
        "and quantized ones too)",
    ),
    Change(
        "0.25.0",
        {"mxfp4_scale_copy": False},
        "model_executor/layers/fused_moe/oracle/mxfp4.py (Triton backends: 'drop the now-dead "
        "weight/scale Parameters': del layer.w13_weight_scale / w2_weight_scale)",
    ),
    Change(
        "0.25.0",
        {"allreduce_flashinfer_max": _ar(FI_AR_MAX_MIB_025, ("9.0", "10.0", "10.3"), MIB)},
        "compilation/passes/fusion/allreduce_rms_fusion.py FI_ALLREDUCE_FUSION_MAX_SIZE_MB "
        "100 and 103 at 16 GPUs: 64 MB ('mnnvl multi-node'; 0.24.0: none), read in the "
        "0.19.0, 0.22.0, 0.24.0 and 0.25.0 wheels (issue 20/21, comm2)",
    ),
    Change(
        "0.25.0",
        {
            "v2_runner": "listed-or-dense",
            "v2_runner_architectures": V2_MOE_ARCHS_025,
        },
        "vllm/config/vllm.py _is_default_v2_model_runner_model (not hybrid, not "
        "attention-free; a listed architecture or not is_moe: every dense model)",
    ),
    Change(
        "0.26.0",
        {"cudagraph_profiled_rocm": True},
        "v1/worker/gpu_worker.py determine_available_memory: current_platform.is_cuda_alike() "
        "('ROCm is included: #44825 moved the profiler to torch.accelerator.get_memory_info'), "
        "inside the memory_profiling window in 0.26.0 (the residue with it), after it from 0.27.0 "
        "as on CUDA; read in the 0.26.0, 0.27.0, 0.29.0 and 0.33.0 wheels (issue 21, rocmpool "
        "round)",
    ),
    Change(
        "0.26.0",
        {"async_in_flight": True},
        "v1/kv_cache_interface.py SlidingWindowSpec.max_admission_blocks_per_request and "
        "vllm/config/vllm.py max_in_flight_tokens (max_concurrent_batches × "
        "max_num_batched_tokens: 2 batches under async scheduling, on by default, at PP 1)",
    ),
    Change(
        "0.26.0",
        {
            "v2_runner_architectures": V2_ARCHS_026,
        },
        "vllm/config/vllm.py DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES",
    ),
    Change(
        "0.27.0",
        {
            "accounting": "total_consumed",
            "mxfp4_blackwell_align": (128, 256),
            "graph_capture_residue_bytes": 0.0,
        },
        "vllm/utils/mem_utils.py memory_profiling (non-KV = total consumed from mem_get_info + "
        "transient peak headroom; the log prints 'total consumed'); v1/worker/gpu_worker.py "
        "determine_available_memory (profile_cudagraph_memory runs after the memory_profiling "
        "block, outside the measured window: read in the 0.25.0, 0.26.0, 0.27.0 and 0.29.0 "
        "wheels, issue 21, memlogs round); "
        "model_executor/layers/fused_moe/oracle/mxfp4.py "
        "mxfp4_round_up_hidden_size_and_intermediate_size (TRTLLM backends: intermediate to "
        "128, hidden to 256)",
    ),
    Change(
        "0.27.0",
        {"allreduce_custom_world_sizes": (2, 4, 6, 8, 16)},
        "distributed/device_communicators/custom_all_reduce.py CustomAllreduce."
        "_SUPPORTED_WORLD_SIZES [2, 4, 6, 8, 16] (multi-node NVLink groups; 0.8.3-0.26.0: "
        "[2, 4, 6, 8], and a group spanning nodes disabled it), read in the 0.25.0, 0.25.1, "
        "0.26.0, 0.27.0-0.33.0 wheels (issue 20/21, comm2)",
    ),
    Change(
        "0.27.0",
        {
            "v2_runner_architectures": (*V2_ARCHS_026, "KimiK3ForConditionalGeneration"),
        },
        "vllm/config/vllm.py DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES (a listed hybrid runs V2 "
        "too; none of the listed ones is a hybrid)",
    ),
    Change(
        "0.28.0",
        {"huge_gpu_batch": (16384, 1024), "graph_ceiling_blackwell": 1024},
        "vllm/engine/arg_utils.py get_batch_defaults (GPUs of >= 160 GiB: 16384 batched "
        "tokens, 1024 sequences, API server included); vllm/config/vllm.py "
        "_set_cudagraph_sizes (default_max_graph_size 1024 on capability family 100)",
    ),
    Change(
        "0.28.0",
        {
            "v2_runner_architectures": (
                *V2_ARCHS_026,
                "KimiK3ForConditionalGeneration",
                "DeepseekV4ForCausalLM",
            ),
        },
        "vllm/config/vllm.py DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES",
    ),
    Change(
        "0.29.0",
        {"mm_prefix_lm_types": ("bagel", "gemma3", "molmo2", "moondream3", "paligemma")},
        "transformers_utils/model_arch_config_convertor.py is_mm_prefix_lm (umm removed)",
    ),
    Change(
        "0.29.0",
        {
            "allreduce_flashinfer_max": _ar(
                {**FI_AR_MAX_MIB_025, "10.3": ((2, 64), (4, 64), (8, 4), (16, 64))},
                ("9.0", "10.0", "10.3"),
                MIB,
            )
        },
        "compilation/passes/fusion/allreduce_rms_fusion.py FI_ALLREDUCE_FUSION_MAX_SIZE_MB "
        "103 at 8 GPUs 4 MB (0.28.0: 2); vllm/envs.py VLLM_ALLREDUCE_USE_FLASHINFER defaults "
        "to 1: FlashInfer's standalone all-reduce first in cuda_communicator.py all_reduce "
        "(flashinfer_all_reduce.py should_use_fi_ar: nbytes <= the same limits), so unfused "
        "all-reduces take the same choice",
    ),
    Change(
        "0.29.0",
        {
            "v2_cudagraph_estimate": True,
            "cudagraph_piecewise_per_graph_layer_bytes": V2_PIECEWISE_PER_GRAPH_LAYER_BYTES,
            "flashinfer_workspace_in_estimate": True,
            "v2_penalties_state": True,
            "non_torch_tp1_bytes": V2_NON_TORCH_TP1_BYTES,
        },
        "v1/worker/gpu/model_runner.py profile_cudagraph_memory -> cudagraph_utils.py (the V2 "
        "model runner's own estimate, taken again from 0.29.0; the runner some models ran on "
        "from 0.22.0, rules.runs_v2_model_runner, the default on CUDA by 0.29.0: PIECEWISE "
        "graphs captured and measured in full, FULL graphs extrapolated from the two largest "
        "as before; the profiling KV cache and attention backends built first, so a backend's "
        "lazily allocated buffers are measured with the graphs); "
        "v1/attention/backends/flashinfer.py _get_workspace_buffer (max(394 MiB, "
        "max_num_batched_tokens x query heads x head_dim x 16 B), envs.py "
        "VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE); v1/worker/gpu/model_runner.py load_model "
        "(the Sampler built on the last PP rank after the weights) and "
        "v1/worker/gpu/sample/penalties.py PenaltiesState (max_num_seqs x vocab x 4 B + "
        "max_num_seqs x ceil(vocab / 32) x 4 B); read in the 0.29.0-0.33.0 wheels (issue 21, "
        "vnew round)",
        "each further PIECEWISE graph 0.070 MiB per layer (0.21 under V1), measured on the "
        "training record vllm0290-l40s-qwen3-14b-base's printed estimate (0.0114 x 44.39 GiB); "
        "held out: the 0.31.0 A100 log's peak activation 1.44 GiB less the cold compile's copy "
        "1.01 leaves 0.43 GiB for the estimate, 0.42 predicted; the penalty state (0.15 GiB "
        "for Qwen3-14B at 256 requests) beside a V2 non-torch of 0.12 GiB (0.25 under V1), "
        "measured on the same record; FlashInfer's workspace (394 MiB) in the graph estimate "
        "where an fp8 KV cache on compute capability 8.x sends attention to FlashInfer",
    ),
    Change(
        "0.31.0",
        {"graph_sizes_add_seqs": True},
        "vllm/config/vllm.py _set_cudagraph_sizes (uniform_decode_sizes = [max_num_seqs] when "
        "within the ceiling: the largest decode batch gets its own graph)",
    ),
)

VERSIONS: VersionTable[VllmRules] = VersionTable("vllm", RELEASES, BASE, CHANGES)
