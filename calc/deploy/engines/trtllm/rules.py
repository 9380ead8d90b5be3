"""TensorRT-LLM's releases 1.0.0 to 1.2.1 (PyTorch backend, ``trtllm-serve``) and the start-up
rules each runs [bytes, tokens]. The PyPI package is a stub that downloads the wheel from
NVIDIA's index, so the rules are read from NVIDIA/TensorRT-LLM's source: ``tensorrt_llm/
commands/serve.py`` (get_llm_args: the server's defaults), ``tensorrt_llm/llmapi/llm_args.py``
(KvCacheConfig) and ``tensorrt_llm/_torch/pyexecutor/_util.py`` (KvCacheCreator: the pool is
the fraction of the memory free after the weights and a profiling forward pass)."""

from __future__ import annotations

from dataclasses import dataclass

from calc.deploy.engines.versions import Change, VersionTable

GIB = 2**30

RELEASES = ("1.0.0", "1.1.0", "1.2.0", "1.2.1")  # stable releases; 0.x logs map to 1.0.0


@dataclass(frozen=True)
class TrtllmRules:
    """What one TensorRT-LLM release does at start-up under ``trtllm-serve``."""

    free_gpu_memory_fraction: float  # serve.py default of --kv_cache_free_gpu_memory_fraction
    tokens_per_block: int  # KvCacheConfig / kvCacheManager.cpp default
    max_num_tokens: int  # BuildConfig default
    max_batch_size: int  # BuildConfig default
    chunked_prefill: bool  # serve.py --enable_chunked_prefill default
    capacity_scheduler: str  # serve.py SchedulerConfig.capacity_scheduler_policy
    sampler_bytes_per_logit: float  # the profiling pass's sampler, taken as vLLM 0.19's
    non_torch_tp1_bytes: float  # CUDA context and library workspaces of one GPU
    # at TP > 1: the CUDA context and the TP group's NCCL communicator (NCCL sizes it, not
    # TensorRT-LLM's source), taken as SGLang's memory in use before its weights at TP > 1 as it
    # stood then (2.07 GiB). Kept (issue 21, sgbase): no TensorRT-LLM log at TP > 1 printing its
    # 'Memory used outside torch' was found, and SGLang's figure now (1.88 GiB, its allocator's
    # segment tails apart: sglang/rules.py) holds its custom all-reduce IPC buffers, which
    # TensorRT-LLM replaces by its own workspace term here
    non_torch_tp_bytes: float
    # CustomAllReduceHelper.max_workspace_size_auto (plugin.py): the all-reduce fusion
    # workspace's ``size`` at TP <= 2 and above; each GPU allocates 4 × size × TP of it
    allreduce_size_tp2_bytes: int
    allreduce_size_bytes: int
    # the AUTO all-reduce strategy (calc.deploy.parallel engine_route): its one-shot/two-shot
    # kernels up to (inclusive) these bytes per TP size, NCCL beyond
    allreduce_auto_max: tuple[tuple[int, int], ...] = (
        (2, 16_000_000), (4, 8_000_000), (6, 8_000_000), (8, 8_000_000),
    )  # fmt: skip
    # the profile's curve of its own all-reduce kernels (KernelCurves.allreduce_engine),
    # fitted by tools/fit_kernels.py to aiconfigurator's TensorRT-LLM table, which measures
    # AllReduceStrategy.AUTO at fusion NONE (collector/collect_all_reduce.py), the choice
    # above: it times the one-shot/two-shot stage (issue 20, trtallreduce round)
    allreduce_curve: str | None = "trtllm"
    # KvCacheConfig (a StrictBaseModel: unknown keys refused) has tokens_per_block, the only
    # way the --extra_llm_api_options YAML states a KV block other than 32 tokens
    kv_tokens_per_block_key: bool = True
    # TorchLlmArgs has batch_wait_timeout_iters and batch_wait_max_tokens_ratio (the extra
    # options YAML's batch waiting; calc.serve.admission)
    batch_wait_keys: bool = True


BASE = TrtllmRules(
    free_gpu_memory_fraction=0.9,
    tokens_per_block=32,
    max_num_tokens=8192,
    max_batch_size=2048,
    chunked_prefill=False,
    capacity_scheduler="GUARANTEED_NO_EVICT",
    sampler_bytes_per_logit=14.5,
    non_torch_tp1_bytes=round(0.25 * GIB),
    non_torch_tp_bytes=round(2.07 * GIB),
    allreduce_size_tp2_bytes=16_000_000,
    allreduce_size_bytes=8_000_000,
    kv_tokens_per_block_key=False,
    batch_wait_keys=False,
)

CHANGES = (
    Change(
        "1.0.0",
        {},
        "tensorrt_llm/commands/serve.py get_llm_args (free_gpu_memory_fraction 0.9, "
        "enable_chunked_prefill False, capacity_scheduler_policy GUARANTEED_NO_EVICT); "
        "tensorrt_llm/builder.py BuildConfig (max_batch_size 2048, max_num_tokens 8192); "
        "KvCacheConfig tokens_per_block 32",
        "the profiling pass's activation and TP 1 non-torch terms are vLLM 0.19's model (no "
        "TensorRT-LLM log in the training set prints them). At TP > 1 the profiling pass's "
        "non-torch memory (_util.py: everything the device holds outside torch) is the CUDA "
        "context and NCCL communicator, 2.07 GiB as SGLang holds before its weights at TP > 1 "
        "on NVLink GPUs (the training record sglang-4xh100-qwen3-235b-fp8-tp4 implies 2.2 with "
        "the allocator's segment tails, 1.88 without), "
        "plus TensorRT-LLM's own all-reduce fusion workspace: tensorrt_llm/_torch/distributed/"
        "ops.py get_allreduce_workspace -> plugin/plugin.py CustomAllReduceHelper."
        "allocate_allreduce_fusion_workspace (IPC buffers of size × TP, Lamport buffers of "
        "3 × size × TP, barriers of 256 × TP bytes per GPU) with max_workspace_size_auto's "
        "16,000,000 B at TP <= 2 and 8,000,000 B above (issue 21, round 10)",
    ),
    Change(
        "1.0.0",
        {},
        "AUTO all-reduce (allreduce_auto_max): cpp/tensorrt_llm/thop/allreduceOp.cpp "
        "AllreduceOp::selectImplementation returns NCCL when message_size_bytes > "
        "customAllReduceUtils::getMaxRequiredWorkspaceSize(tp) (16,000,000 B at TP <= 2, "
        "8,000,000 B above), else ONESHOT/TWOSHOT from selectStrategyLookUpTable "
        "(customAllReduceUtils.h AllReduceBestStrategyTable, SM 90 and 100, TP 2/4/8 rows, TP 6 "
        "reads TP 4's; its fusion-NONE rows at hidden 2048-8192 switch to NCCL at 8 MiB at TP "
        "4/8 and 16 MiB at TP 2, where the workspace does); read at NVIDIA/TensorRT-LLM "
        "commit 005b299 and a later main revision (MNNVL inter-node), not at the release tags",
        "aiconfigurator's measured TensorRT-LLM 1.2.0rc5 all-reduce on H100 (systems/data/"
        "h100_sxm/comm/trtllm/1.2.0rc5/custom_allreduce_perf.parquet) meets NCCL's time from "
        "16 MiB at TP 2 (83.1 against 82.2 us) and 8 MiB at TP 4/8 (62.9/62.8, 79.4/78.9 us), "
        "below them it is faster (TP 8, 2 MiB: 28.3 against 38.2 us). Not modelled: the "
        "lookup table's fused rows (RESIDUAL_RMS_NORM) that go to NCCL earlier on Hopper at TP "
        "8 (hidden 8192: from 64 tokens), hidden sizes beyond its 8192 row (NCCL_SYMMETRIC), "
        "MNNVL, TP above 8 (issue 20/21, comm2)",
    ),
    Change(
        "1.0.0",
        {},
        "tensorrt_llm/llmapi/llm.py BaseLLM._check_arguments (read at NVIDIA/TensorRT-LLM "
        "commit 4c05a74; added back by pull 6259, 2025-07, before the 1.0 release): with the "
        "PyTorch backend and enable_chunked_prefill off, a request that is not generation-only "
        "is refused when prompt_len / cp_size + query_len > max_num_tokens ('should not exceed "
        "max_num_tokens', HTTP 400 from trtllm-serve); max_seq_len alone admits any shorter "
        "prompt",
        "with chunked prefill off and no --max-batched-tokens, max_num_tokens is the stated max "
        "model length (plan: the workload's longest request; --max-model-len) where that is "
        "longer than 8,192, so the printed command accepts every request its --max_seq_len "
        "does and the profiling pass, KV pool, step table and simulation use that budget (a "
        "warning and the command's note say so); a stated --max-batched-tokens below it is kept "
        "with a warning and a note that the engine refuses the longer prompts; with no max "
        "model length stated the default 8,192 stands, as trtllm-serve runs it, and so does "
        "the budget a start-up log's server ran (calc/deploy/engines/trtllm/prompts.py)",
    ),
    Change(
        "1.1.0",
        {"kv_tokens_per_block_key": True},
        "KvCacheConfig in each release's published llm_args.py (NVIDIA/TensorRT-LLM gh-pages "
        "1.0.0/_modules/tensorrt_llm/llmapi/llm_args.html at 090dc649, built from ae8270b: "
        "enable_block_reuse ... use_uvm, dtype, no tokens_per_block; 1.1.0's at 8660c119, built "
        "from 48b7b5d: tokens_per_block: int = 32 after mamba_ssm_cache_dtype)",
        "a sparse-attention (DSA) model's 64-token blocks can be stated from 1.1.0; 1.0.0 "
        "refuses the key (StrictBaseModel), so kvcalc does not print that deployment for it",
    ),
    Change(
        "1.1.0",
        {"batch_wait_keys": True},
        "TorchLlmArgs batch_wait_timeout_iters (int, 0) and batch_wait_max_tokens_ratio (float, "
        "0, in [0, 1]), read by py_executor.py _waiting_requests: from NVIDIA/TensorRT-LLM "
        "pulls 7287 (opened 2025-08-27) and 7416 (reviewed 2025-09-22), both on main after "
        "the 1.0 release branch",
        "the keys are stated from 1.1.0; 1.0.0's published llm_args.py was not re-read for "
        "them, so kvcalc refuses them there (its LlmArgs refuses an unknown key: extra forbid)",
    ),
    Change(
        "1.2.0",
        {"allreduce_size_tp2_bytes": 67_108_864, "allreduce_size_bytes": 67_108_864},
        "tensorrt_llm CustomAllReduceHelper.max_workspace_size_auto: 'Default: 64 MiB' "
        "(67,108,864 B at every TP, TRTLLM_ALLREDUCE_FUSION_WORKSPACE_SIZE overrides it), "
        "from NVIDIA/TensorRT-LLM pull 9145 ('Enlarged the AllReduce workspace size to "
        "64MB': tensorrt_llm/plugin/plugin.py, first commit 2025-11-10, reviewed 2025-11-13, "
        "on main after the 1.1 release branch)",
        "the all-reduce fusion workspace at 64 MiB: 4 × 64 MiB × TP per GPU (0.5 GiB at TP "
        "2, 2 GiB at TP 8); the release is the first cut from main after the pull request "
        "(no TensorRT-LLM TP > 1 log found to check it); the AUTO all-reduce keeps its "
        "allreduce_auto_max: the lookup table's NCCL zones (fusion NONE, hidden 2048-8192) "
        "start where the 16/8 MB workspace stopped, so the larger workspace does not move them",
    ),
)

VERSIONS: VersionTable[TrtllmRules] = VersionTable("trtllm", RELEASES, BASE, CHANGES)
