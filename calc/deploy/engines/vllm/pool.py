"""vLLM's start-up memory of a deployment's busiest GPU [bytes, blocks, tokens]: the terms of
``calc.deploy.engines.vllm.memory`` composed with one release's rules
(``calc.deploy.engines.vllm.rules``), each with its derivation for ``--explain``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import calc.deploy.engines.vllm.memory as vm
from calc.deploy.engines.base import EngineConfig, Paging, PoolPrediction
from calc.deploy.engines.gpus import compute_capability
from calc.deploy.engines.shape import (
    kv_shape,
    layer_width_per_gpu,
    loaded_weights_bytes,
    usable_memory_bytes,
)
from calc.deploy.engines.vllm.rules import VllmRules
from calc.deploy.state_pages import sparse_block_size
from calc.formulas.elementwise import cdiv
from calc.output.derivation import figure

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

SOURCES = {
    "usable_memory": "torch.cuda.mem_get_info total (gpu_worker.py init_device)",
    "weights": "model load (gpu_model_runner.py load_model: 'Model loading took')",
    "activation": "gpu_model_runner.py profile_run + _dummy_sampler_run (torch peak)",
    "non_torch": "gpu_worker.py determine_available_memory (non-torch increase)",
    "cuda_graphs": "gpu_model_runner.py profile_cudagraph_memory (0.20+; before: after the pool)",
    "budget": "gpu_worker.py determine_available_memory (requested − non-KV − CUDA graphs)",
    "blocks": "v1/core/kv_cache_utils.py (budget // page_size // num_layers)",
    "tokens": "v1/core/kv_cache_utils.py ('GPU KV cache size')",
}


def mla_block_size(rules: VllmRules, hw, configured: int) -> int:
    """The block size an MLA model runs with: the backend's kernel block on Hopper and
    Blackwell (``rules.mla_block_hopper`` / ``mla_block_blackwell``), else ``configured``."""
    cc = compute_capability(hw)
    if cc is None:
        return configured
    if cc[0] == 9:
        return rules.mla_block_hopper
    if cc[0] == 10:
        return rules.mla_block_blackwell
    return configured


def non_torch_bytes(rules: VllmRules, tp: int, pp: int, dp: int, hw) -> float:
    """Non-torch memory of the profiling pass per GPU [bytes]: the TP 1 figure, or at TP >= 2
    the communicators' buffers plus, where the release turns the FlashInfer all-reduce +
    RMSNorm fusion on by default (TP > 1, PP 1, DP 1, Hopper or Blackwell), its workspace.
    Pipeline stages only send and receive activations: PP adds nothing."""
    if tp == 1:
        return rules.non_torch_tp1_bytes
    cc = compute_capability(hw)
    fusion = pp == 1 and dp == 1 and cc is not None and cc[0] in (9, 10)
    return rules.non_torch_tp_bytes + (rules.allreduce_fusion_bytes if fusion else 0.0)


def in_flight_tokens(rules: VllmRules, config: EngineConfig, pp: int) -> int:
    """Tokens scheduled but not settled (``max_in_flight_tokens``): one batch until 0.25; from
    0.26, 2 batches under async scheduling (its default) at PP 1, else pp batches."""
    if not rules.async_in_flight:
        return config.max_batched_tokens
    batches = 2 if pp == 1 else pp
    return batches * config.max_batched_tokens


# long: vLLM's start-up profile in its own order, term by term (engine wing's to split)
def predict(dep: Deployment, rules: VllmRules, config: EngineConfig, **measured) -> PoolPrediction:
    """The KV pool vLLM ``config.version`` allocates on ``dep``'s busiest GPU."""
    cfg, hw, tp, pp = dep.model, dep.hardware, dep.tp, dep.pp
    dp = dep.sharding.dp_attn
    usable = measured.get("usable_bytes") or usable_memory_bytes(hw)
    weights = measured.get("weights_bytes")
    if weights is None:
        weights = loaded_weights_bytes(dep)
    shape = kv_shape(cfg, tp, pp, dep.kv_bytes_per_element, rules.hybrid_ratio)
    max_model_len = config.max_model_len or cfg.max_ctx
    tokens_pass = config.max_batched_tokens
    rows = min(config.max_num_seqs, tokens_pass)
    width = layer_width_per_gpu(cfg, tp)
    workspace = 0
    if cfg.moe is not None:
        workspace = vm.moe_workspace_bytes(
            tokens_pass, cfg.moe.experts_per_token, cdiv(cfg.moe.d_expert_ffn, tp), cfg.d_model
        )
    act = measured.get("activation_bytes")
    modelled_act = act is None
    if act is None:
        act = vm.activation_peak_bytes(
            tokens_pass, cfg.d_model, width, rows, cfg.vocab_size,
            rules.sampler_bytes_per_logit, workspace,
        )  # fmt: skip
    non_torch = measured.get("non_torch_bytes")
    if non_torch is None:
        non_torch = non_torch_bytes(rules, tp, pp, dp, hw)
    graphs = 0.0
    figures = []
    if rules.cudagraph_estimate and config.cuda_graphs:
        graphs = measured.get("cuda_graph_bytes")
        if graphs is None:
            sizes = vm.cudagraph_capture_sizes(config.max_num_seqs)
            full = [s for s in sizes if s <= config.max_num_seqs]
            graphs = vm.cudagraph_estimate_bytes(
                len(sizes), len(full), sizes[-1], cfg.d_model, width, cdiv(cfg.n_layers, pp),
                rules.cudagraph_first_fixed_bytes, rules.cudagraph_per_graph_layer_bytes,
            )  # fmt: skip
            figures.append(
                figure(
                    "cuda_graph_bytes",
                    graphs,
                    "bytes",
                    "{fixed} + {largest} × (2 × {d_model} + {width}) × 2 + ({piecewise} − 1 + "
                    "{full} − 1) × {per_graph_layer} × {layers}",
                    fixed=rules.cudagraph_first_fixed_bytes,
                    largest=sizes[-1],
                    d_model=cfg.d_model,
                    width=width,
                    piecewise=len(sizes),
                    full=len(full),
                    per_graph_layer=rules.cudagraph_per_graph_layer_bytes,
                    layers=cdiv(cfg.n_layers, pp),
                )
            )
    block_size = config.block_size
    warnings: list[str] = []
    if cfg.indexer is not None:  # sparse MLA and indexer kernels page 64 tokens at a time
        block_size = sparse_block_size(block_size)  # (only sparse backends serve these)
    elif cfg.mla is not None:
        block_size = mla_block_size(rules, hw, block_size)
    if shape.n_mamba_layers:
        block_size = vm.mamba_attention_block_size(
            block_size, shape.mamba_state_bytes_per_layer, shape.bytes_per_token_per_layer
        )
    page = vm.page_size_bytes(block_size, shape.bytes_per_token_per_layer)
    fraction = config.memory_fraction or rules.gpu_memory_utilization
    budget = vm.available_kv_bytes(
        vm.requested_memory_bytes(usable, fraction), weights, act, non_torch, graphs
    )
    blocks = int(vm.num_blocks(budget, page, shape.layer_slots))
    tokens = int(vm.pool_tokens(blocks, shape.n_groups, block_size))
    flight = in_flight_tokens(rules, config, pp)
    paging = Paging(
        num_blocks=blocks,
        block_bytes=page * shape.layer_slots,
        block_size=block_size,
        full_groups=shape.full_groups,
        sliding_groups=shape.sliding_groups,
        mamba_groups=shape.mamba_groups,
        window=shape.window,
        in_flight_tokens=flight,
    )
    per_request = paging.blocks_per_request(max_model_len)
    concurrency = vm.max_concurrency(blocks, per_request)
    if modelled_act:
        figures.insert(
            0,
            figure(
                "activation_bytes",
                act,
                "bytes",
                "2 × {tokens} × {d_model} × 2 + {moe_workspace} + max({tokens} × "
                "{layer_width} × 2, {rows} × {vocab_size} × {bytes_per_logit})",
                tokens=tokens_pass,
                d_model=cfg.d_model,
                moe_workspace=workspace,
                layer_width=width,
                rows=rows,
                vocab_size=cfg.vocab_size,
                bytes_per_logit=rules.sampler_bytes_per_logit,
            ),
        )
    figures += [
        figure(
            "kv_budget_bytes",
            budget,
            "bytes",
            "{usable} × {gpu_memory_utilization} − {weights} − {activation} − {non_torch} − "
            "{cuda_graphs}",
            usable=usable,
            gpu_memory_utilization=fraction,
            weights=weights,
            activation=act,
            non_torch=non_torch,
            cuda_graphs=graphs,
        ),
        figure(
            "num_blocks",
            blocks,
            "blocks",
            "max({budget}, 0) // {page} // {layer_slots}",
            budget=int(budget),
            page=page,
            layer_slots=shape.layer_slots,
        ),
        figure(
            "tokens",
            tokens,
            "tokens",
            "{blocks} // {groups} × {block_size}",
            blocks=blocks,
            groups=shape.n_groups,
            block_size=block_size,
        ),
        figure(
            "max_concurrency",
            concurrency,
            "requests",
            "{blocks} / {blocks_per_request}",
            blocks=blocks,
            blocks_per_request=per_request,
        ),
    ]
    return PoolPrediction(
        engine="vllm",
        version=config.version,
        memory_fraction=fraction,
        usable_memory_bytes=usable,
        weights_bytes=weights,
        activation_bytes=act,
        non_torch_bytes=non_torch,
        cuda_graph_bytes=graphs,
        kv_budget_bytes=budget,
        kv_bytes_per_token=shape.bytes_per_token,
        page_size_bytes=page,
        num_blocks=blocks,
        tokens=tokens,
        max_concurrency=concurrency,
        max_model_len=max_model_len,
        block_size=block_size,
        sources=SOURCES,
        warnings=warnings,
        figures=figures,
        paging=paging,
    )
