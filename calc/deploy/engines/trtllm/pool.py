"""TensorRT-LLM's start-up memory of a deployment's busiest GPU [bytes, tokens]: the terms of
``calc.deploy.engines.trtllm.memory`` with one release's rules; the profiling pass's activation
peak is vLLM's model of the same pass (``calc.deploy.engines.vllm.memory``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import calc.deploy.engines.trtllm.memory as tm
from calc.deploy.engines.base import EngineConfig, PoolBlocks, StartupTerms, pool_prediction
from calc.deploy.engines.shape import kv_shape, usable_memory_bytes
from calc.deploy.engines.trtllm.rules import TrtllmRules
from calc.deploy.engines.vllm.pool import profiled_activation
from calc.deploy.state_pages import sparse_block_size
from calc.formulas.elementwise import cdiv
from calc.output.derivation import figure

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

SOURCES = {
    "usable_memory": "cudaMemGetInfo total",
    "weights": "model load",
    "activation": "profiling forward pass before the KV cache (reference/memory.md)",
    "non_torch": "CUDA context, NCCL, all-reduce fusion workspace (plugin.py)",
    "cuda_graphs": "captured after the pool",
    "budget": "llm_args.py KvCacheConfig.free_gpu_memory_fraction × free memory",
    "blocks": "kvCacheManager.cpp (tokens_per_block)",
    "tokens": "kvCacheManager.cpp (min of fraction and max_tokens, whole blocks)",
}


def non_torch_bytes(rules: TrtllmRules, tp_size: int, ep: int) -> float:
    """Non-torch memory of the profiling pass per GPU [bytes]: the TP 1 figure, or, where the
    GPU talks to others in its step (TP, or the gather and reduce-scatter of expert
    parallelism), the context and NCCL communicator figure plus the all-reduce fusion
    workspace of the engine's TP group (``tp_size``: kvcalc's TP × attention-DP ranks,
    TensorRT-LLM's ``tp_size``)."""
    if tp_size == 1 and ep == 1:
        return rules.non_torch_tp1_bytes
    size = rules.allreduce_size_tp2_bytes if tp_size <= 2 else rules.allreduce_size_bytes
    return rules.non_torch_tp_bytes + tm.allreduce_workspace_bytes(size, tp_size)


def profiling_requests(max_num_tokens: int, max_seq_len: int, max_batch_size: int) -> int:
    """Requests of the profiling pass, whose last tokens the sampler sees
    (``_util.py`` ``KvCacheCreator``: dummy context requests of up to max_seq_len tokens each
    until max_num_tokens are used): ceil(max_num_tokens / min(max_seq_len, max_num_tokens)),
    at most max_batch_size."""
    per = max(1, min(max_seq_len, max_num_tokens))
    return min(max_batch_size, -(-max_num_tokens // per))


def _activation(dep: Deployment, rules: TrtllmRules, config: EngineConfig, measured: dict):
    """The profiling pass's peak [bytes] (vLLM's forward model, one sampler row per dummy
    request) and its derivation (None when measured)."""
    act = measured.get("activation_bytes")
    if act is not None:
        return act, None
    cfg, tp = dep.model, dep.tp
    tokens = config.max_batched_tokens
    rows = profiling_requests(tokens, config.max_model_len or cfg.max_ctx, config.max_num_seqs)
    # under attention data parallelism the MoE runs on the tokens of every rank, gathered
    # (the CUTLASS MoE sizes its workspace for the rows it is given)
    return profiled_activation(cfg, tp, tokens, rows, rules.sampler_bytes_per_logit,
                               moe_tokens=tokens * dep.sharding.dp_attn)  # fmt: skip


def predict(dep: Deployment, rules: TrtllmRules, config: EngineConfig, **measured):
    """The KV pool TensorRT-LLM ``config.version`` allocates on ``dep``'s busiest GPU."""
    cfg, hw, tp, pp = dep.model, dep.hardware, dep.tp, dep.pp
    usable = measured.get("usable_bytes") or usable_memory_bytes(hw)
    weights = measured.get("weights_bytes")
    if weights is None:
        weights = dep.weights_bytes_per_gpu
    shape = kv_shape(cfg, tp, pp, dep.kv_bytes_per_element)
    max_model_len = config.max_model_len or cfg.max_ctx
    act, act_figure = _activation(dep, rules, config, measured)
    non_torch = measured.get("non_torch_bytes")
    if non_torch is None:
        non_torch = non_torch_bytes(rules, tp * dep.sharding.dp_attn, dep.ep)
    fraction = config.memory_fraction or rules.free_gpu_memory_fraction
    block = config.block_size
    if cfg.indexer is not None:  # sparse MLA (DSA) pages 64 tokens (its indexer's cache)
        block = sparse_block_size(block)
    free = tm.free_memory_bytes(usable, weights, act, non_torch)
    budget = free * fraction
    by_fraction = tm.fraction_tokens(free, fraction, shape.bytes_per_token, block)
    tokens = int(tm.capped_tokens(by_fraction, config.max_tokens, block))
    figures = [] if act_figure is None else [act_figure]
    figures += [
        figure(
            "kv_budget_bytes",
            budget,
            "bytes",
            "{free_gpu_memory_fraction} × ({usable} − {weights} − {activation} − {non_torch})",
            free_gpu_memory_fraction=fraction,
            usable=usable,
            weights=weights,
            activation=act,
            non_torch=non_torch,
        ),
        figure(
            "tokens",
            tokens,
            "tokens",
            "min({by_fraction}, {max_tokens_in_blocks})" if config.max_tokens else "{by_fraction}",
            by_fraction=by_fraction,
            max_tokens_in_blocks=cdiv(config.max_tokens or 0, block) * block,
        ),
    ]
    terms = StartupTerms(fraction, usable, weights, act, non_torch, 0.0, budget)
    pool = PoolBlocks(block, block * shape.bytes_per_token_per_layer, tokens // block, tokens,
                      tokens / (cdiv(max_model_len, block) * block), max_model_len)  # fmt: skip
    return pool_prediction("trtllm", config.version, shape.bytes_per_token, terms, pool,
                           sources=SOURCES, figures=figures,
                           fraction_reserve_bytes=free * (1 - fraction))  # fmt: skip
