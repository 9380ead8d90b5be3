"""KV-cache budget [bytes per GPU] as each serving engine defines it, from the engine's source.

Each engine turns one user-facing fraction (``--mem-util``) into a KV budget differently; the
formulas below are what their start-up code computes, so a result can be compared with the
pool the engine reports ("GPU KV cache size: N tokens" in vLLM's log). All take plain numbers or
numpy arrays (bytes, fractions) and return bytes; a negative budget means nothing is left.

vLLM (``vllm/v1/worker/gpu_worker.py``, ``Worker.determine_available_memory``)::

    available_kv_cache_memory = total_gpu_memory * gpu_memory_utilization - peak_memory

where ``peak_memory`` is torch's peak allocation during a profiling forward pass of
``max_num_batched_tokens`` tokens (weights + activation peak) plus the memory allocated outside
torch (CUDA context, NCCL buffers). The pool is then cut into blocks
(``vllm/v1/core/kv_cache_utils.py``: ``num_blocks = available_memory // page_size // num_layers``,
``GPU KV cache size = num_blocks * block_size`` tokens). With TP/PP every worker profiles and
the smallest pool wins, so the most loaded GPU sizes it.

SGLang (``python/sglang/srt/model_executor/model_runner.py``, ``profile_max_num_token``)::

    rest_memory = available_gpu_memory - total_gpu_memory * (1 - mem_fraction_static)
    max_num_token = rest_memory // cell_size

``available_gpu_memory`` is measured after the weights are loaded (total − weights − non-torch
memory), so the budget is ``mem_fraction_static × total − weights − non-torch``: activations
and CUDA graphs must fit in the ``1 − mem_fraction_static`` share; they are not subtracted.
``cell_size`` is the KV bytes of one token over all layers (MLA: kv_lora_rank + rope, no 2×).

TensorRT-LLM (``tensorrt_llm/llmapi/llm_args.py`` ``KvCacheConfig.free_gpu_memory_fraction``,
"the fraction of GPU memory ... allocated for the KV cache. Default is 90%";
``docs/source/reference/memory.md``: the KV cache takes that fraction of the memory still free
after the weights and the engine's activation memory are allocated)::

    kv_budget = free_gpu_memory_fraction × (total − weights − activations − non-torch)

The terms these budgets take (activation peak with the sampler pass, non-torch memory by TP,
usable memory as torch reports it), the paging into blocks and tokens, and each engine's
defaults by version are modelled in ``calc.engine_memory`` (``predict_kv_pool``,
``engine_settings``); the budget functions here are the same arithmetic on given terms.
"""

from __future__ import annotations

from dataclasses import dataclass

ENGINE_NAMES = ("vllm", "sglang", "trtllm")


@dataclass(frozen=True)
class Engine:
    name: str
    fraction_name: str  # the engine's own name for --mem-util
    formula: str  # the budget in words, with the engine's names
    source: str  # file in the engine's repository that computes it


ENGINES: dict[str, Engine] = {
    "vllm": Engine(
        "vllm",
        "gpu_memory_utilization",
        "{fraction} × {memory} − {weights} − {activation} − {overhead}",
        "vllm-project/vllm: vllm/v1/worker/gpu_worker.py (determine_available_memory), "
        "vllm/v1/core/kv_cache_utils.py (num_blocks, 'GPU KV cache size')",
    ),
    "sglang": Engine(
        "sglang",
        "mem_fraction_static",
        "{fraction} × {memory} − {weights} − {overhead}",
        "sgl-project/sglang: python/sglang/srt/model_executor/model_runner.py "
        "(profile_max_num_token)",
    ),
    "trtllm": Engine(
        "trtllm",
        "free_gpu_memory_fraction",
        "{fraction} × ({memory} − {weights} − {activation} − {overhead})",
        "NVIDIA/TensorRT-LLM: tensorrt_llm/llmapi/llm_args.py (KvCacheConfig), "
        "docs/source/reference/memory.md",
    ),
}


def vllm_kv_budget_bytes(memory_bytes, fraction, weights_bytes, activation_bytes, overhead_bytes):
    """vLLM: gpu_memory_utilization × total − weights − activation peak − non-torch memory."""
    return memory_bytes * fraction - weights_bytes - activation_bytes - overhead_bytes


def sglang_kv_budget_bytes(memory_bytes, fraction, weights_bytes, activation_bytes, overhead_bytes):
    """SGLang: (total − weights − non-torch) − total × (1 − mem_fraction_static).

    ``activation_bytes`` is accepted for a uniform signature and not subtracted: SGLang leaves
    activations to the ``1 − mem_fraction_static`` share.
    """
    return (memory_bytes - weights_bytes - overhead_bytes) - memory_bytes * (1 - fraction)


def trtllm_kv_budget_bytes(memory_bytes, fraction, weights_bytes, activation_bytes, overhead_bytes):
    """TensorRT-LLM: free_gpu_memory_fraction × (total − weights − activations − non-torch)."""
    return fraction * (memory_bytes - weights_bytes - activation_bytes - overhead_bytes)


_BUDGET = {
    "vllm": vllm_kv_budget_bytes,
    "sglang": sglang_kv_budget_bytes,
    "trtllm": trtllm_kv_budget_bytes,
}


def engine_kv_budget_bytes(
    engine: str, memory_bytes, fraction, weights_bytes, activation_bytes, overhead_bytes
):
    """KV budget per GPU [bytes] under ``engine``'s own definition (see the module docstring)."""
    from calc.errors import UnknownNameError

    if engine not in _BUDGET:
        raise UnknownNameError("engine", engine, ENGINE_NAMES)
    return _BUDGET[engine](memory_bytes, fraction, weights_bytes, activation_bytes, overhead_bytes)
