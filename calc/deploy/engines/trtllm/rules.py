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
    non_torch_tp1_bytes: float
    non_torch_tp_bytes: float


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
)

CHANGES = (
    Change(
        "1.0.0",
        {},
        "tensorrt_llm/commands/serve.py get_llm_args (free_gpu_memory_fraction 0.9, "
        "enable_chunked_prefill False, capacity_scheduler_policy GUARANTEED_NO_EVICT); "
        "tensorrt_llm/builder.py BuildConfig (max_batch_size 2048, max_num_tokens 8192); "
        "KvCacheConfig tokens_per_block 32",
        "the profiling pass's activation and non-torch terms are vLLM 0.19's model (no "
        "TensorRT-LLM log in the training set prints them)",
    ),
)

VERSIONS: VersionTable[TrtllmRules] = VersionTable("trtllm", RELEASES, BASE, CHANGES)
