"""SGLang's start-up memory of a deployment's busiest GPU [bytes, tokens]: the terms of
``calc.deploy.engines.sglang.memory`` composed with one release's rules, each with its
derivation for ``--explain``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import calc.deploy.engines.sglang.memory as sm
from calc.data.dtypes import bytes_per_element
from calc.deploy.engines.base import EngineConfig, PoolBlocks, StartupTerms, pool_prediction
from calc.deploy.engines.gpus import runs_rocm, smi_total_mib
from calc.deploy.engines.sglang.rules import SglangRules
from calc.deploy.engines.shape import (
    FLOAT_DTYPES,
    kv_shape,
    loaded_weights_bytes,
    usable_memory_bytes,
)
from calc.deploy.state_pages import sparse_block_size
from calc.output.derivation import figure

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

SOURCES = {
    "usable_memory": "torch.cuda.mem_get_info (utils.get_available_gpu_memory)",
    "weights": "model_runner.py load_model",
    "rope_table": "layers/rotary_embedding cos_sin_cache (built with the model; FP32 on CUDA "
    "from 0.4.3)",
    "activation": "not subtracted: fits in 1 − mem_fraction_static",
    "allocator_segments": "torch's CUDA caching allocator: the tails of the segments it reserves "
    "for the parameters, in 'Load weight end ... mem usage' (free memory after empty_cache; "
    "sglang/segments.py, sglang/load.py)",
    "non_torch": "in use before the weights load: CUDA context, NCCL, custom all-reduce "
    "(distributed/bootstrap.py measure_pre_model_load_memory)",
    "cuda_graphs": "captured after the pool, in 1 − mem_fraction_static",
    "budget": "model_runner.py profile_max_num_token (rest_memory)",
    "blocks": "page_size tokens per page (server_args.py)",
    "tokens": "model_runner.py profile_max_num_token (rest // cell_size)",
    "state_pool": "hybrid models: kv_cache_configurator.py _handle_max_mamba_cache (the "
    "state's share of rest, sglang/hybrid.py), resolve_max_num_reqs (slots // ratio)",
}


def prefill_graphs_on(rules: SglangRules, pp: int, mla: bool, multimodal: bool, dp: int,
                      nsa: bool, deepep: bool, eager: bool = False) -> bool:  # fmt: skip
    """The release captures prefill CUDA graphs by default on this layout, as its automatic
    ``mem_fraction_static`` reserves for them (``rules.prefill_graph_off``)."""
    off = rules.prefill_graph_off
    if off is None:
        return False
    layout = {
        "pp": pp > 1, "dp_attention": dp > 1, "multimodal": multimodal, "deepep": deepep,
        "nsa": nsa, "mla": mla, "mla_non_nsa": mla and not nsa, "eager": eager,
    }  # fmt: skip
    return not any(layout[name] for name in off)


def auto_fraction(rules: SglangRules, config: EngineConfig, hw, tp: int, pp: int, mla: bool,
                  multimodal: bool, dp: int = 1, nsa: bool = False,
                  deepep: bool = False) -> float:  # fmt: skip
    """SGLang's own ``mem_fraction_static`` for this release, GPU and layout (``tp``: its
    tp_size, the attention-DP ranks included; ``dp``: attention-DP ranks; ``nsa``: DeepSeek's
    sparse attention, which 0.5.3 serves at a fixed 0.8; ``deepep``: DeepEP's all-to-all
    backend)."""
    if rules.auto_fraction == "by_tp":
        return sm.fraction_by_tp(tp)
    if nsa and rules.nsa_fraction is not None:
        return rules.nsa_fraction
    gpu_mem = smi_total_mib(hw)
    chunk, graph_bs = sm.bucket_defaults(rules.buckets, gpu_mem, tp)
    chunk = config.max_batched_tokens or chunk
    graph_bs = config.cuda_graph_max_bs or graph_bs
    prefill = 0
    if prefill_graphs_on(rules, pp, mla, multimodal, dp, nsa, deepep,
                         eager=not config.cuda_graphs):  # fmt: skip
        # one graph per token count up to chunked_prefill_size (MLA: a flat 1.5 GiB)
        prefill = len(sm.prefill_graph_sizes(min(chunk, 8192) if mla else chunk))
    reserved = sm.reserved_memory_mib(
        gpu_mem, chunk, graph_bs if config.cuda_graphs else 0, tp, pp,
        prefill_graphs=prefill, mla=mla, dp_attention=dp if config.cuda_graphs else 1,
    )  # fmt: skip
    return sm.fraction_from_reserve(gpu_mem, reserved)


def non_torch_bytes(rules: SglangRules, hw, group: int) -> float:
    """The memory in use on each GPU before the weights load [bytes]: TP 1; a TP group over
    NVLink/NVSwitch (the profile's scale-up domain holds more than one GPU: custom all-reduce
    and NCCL's NVLink transport); a TP group of PCIe-only cards (no custom all-reduce above two
    such GPUs, custom_all_reduce_utils.py can_use_custom_all_reduce_with_nvlink). A profile
    that does not state its domain is taken as NVLink, as plan's search takes it (8 GPUs)."""
    if group == 1:
        return rules.non_torch_tp1_bytes
    if hw.scale_up_domain_gpus == 1:
        return rules.non_torch_pcie_tp_bytes
    return rules.non_torch_tp_bytes


def rope_table_bytes(dep: Deployment, rules: SglangRules) -> float:
    """SGLang's RoPE cos/sin table on every GPU [bytes]: the scaled positions
    (``vllm.pool.rope_scaled_positions``; SGLang's MRotaryEmbedding keeps max_position, unlike
    vLLM's 4 ×) × the rotary width (``rotary_width``: ``get_rope`` truncates head_dim by
    ``partial_rotary_factor``; MLA's qk_rope_head_dim) × the release's bytes per element on
    this GPU's platform (FP32 on CUDA from 0.4.3, ``rules.rope_bytes_cuda``; else the model
    dtype's), once per distinct table (``rope_tables``); none without attention layers or RoPE.
    A model whose sliding layers have their own RoPE (``local_rope``, Gemma 3) has the
    release's ``local_rope_tables`` unscaled tables of max_position rows.
    A longrope table keeps its short, long and concatenated caches in the model dtype
    (``rope_variant.py`` Phi3LongRoPEScaledRotaryEmbedding: 2 × (original + max_position)
    rows)."""
    from calc.deploy.engines.vllm.pool import rope_scaled_positions

    cfg = dep.model
    if cfg.n_attention_layers == 0:
        return 0.0
    if cfg.local_rope:  # Gemma 3's layers: none, or two unscaled tables (the release's rule)
        rows = rules.local_rope_tables * cfg.max_ctx
        return float(rows * cfg.rotary_width * rope_bytes_per_element(dep, rules))
    r = cfg.rope_scaling
    if r is not None and r.type == "longrope":
        rows = 2 * (cfg.max_ctx + (r.original_max_ctx or cfg.max_ctx))
        dtype = dep.weight_override if dep.weight_override in FLOAT_DTYPES else cfg.dtype
        return float(cfg.rope_tables * rows * cfg.rotary_width * bytes_per_element(dtype))
    rows = rope_scaled_positions(cfg)
    return float(cfg.rope_tables * rows * cfg.rotary_width * rope_bytes_per_element(dep, rules))


def rope_bytes_per_element(dep: Deployment, rules: SglangRules) -> int:
    """Bytes per element of the RoPE table [bytes]: the release's on this GPU's platform; FP32
    under ``--dtype fp32`` (a table cast to the model dtype is FP32 then)."""
    if dep.weight_override == "fp32":
        return 4
    return rules.rope_bytes_rocm if runs_rocm(dep.hardware) else rules.rope_bytes_cuda


def allocator_segment_bytes(dep: Deployment, rules: SglangRules) -> float:
    """What the weight load reserves beyond the weights and the RoPE table [bytes]: the caching
    allocator's segment tails (``calc.deploy.engines.sglang.load``); 0 for layouts not laid out
    tensor by tensor there, and under pipeline parallelism."""
    from calc.deploy.checkpoint import COMPONENTS, resolved_dtypes
    from calc.deploy.engines.sglang.load import allocator_overhead_bytes
    from calc.deploy.engines.vllm.pool import rope_scaled_positions

    cfg = dep.model
    if dep.pp > 1:
        return 0.0
    fmt = dep.weight_override
    if fmt in FLOAT_DTYPES and fmt != cfg.dtype:  # the model built in --dtype
        dtypes = dict.fromkeys(COMPONENTS, fmt)
    else:
        dtypes = resolved_dtypes(cfg, dep.weight_dtype)
    rope_bytes = rope_bytes_per_element(dep, rules)
    extra = allocator_overhead_bytes(cfg, dtypes, dep.tp, dep.ep, dep.sharding.dp_attn,
                                     rope_scaled_positions(cfg), rope_bytes)  # fmt: skip
    return extra or 0.0


def _pool_tokens(budget: float, shape, page: int, rules: SglangRules) -> tuple[int, list]:
    """The tokens of the pool SGLang reports [tokens] and their derivation: budget // cell,
    whole pages; a hybrid SWA pool reports its full-attention layers' share."""
    tokens = int(sm.max_total_num_tokens(budget, shape.bytes_per_token, page))
    one_pool = figure(
        "tokens",
        tokens,
        "tokens",
        "max({budget}, 0) // {cell_size} // {page_size} × {page_size}",
        budget=int(budget),
        cell_size=shape.bytes_per_token,
        page_size=page,
    )
    if not (shape.n_full and shape.n_sliding):
        return tokens, [one_pool]
    full, _ = sm.swa_pool_tokens(tokens, shape.n_kv_layers, shape.n_full, shape.n_sliding,
                                 rules.swa_full_tokens_ratio)  # fmt: skip
    return full // page * page, [
        figure(
            "tokens",
            full // page * page,
            "tokens",
            "floor({pool} × {layers} / ({ratio} × {swa_layers} + {full_layers}) "
            "/ {page_size}) × {page_size}",
            pool=tokens,
            layers=shape.n_kv_layers,
            ratio=rules.swa_full_tokens_ratio,
            swa_layers=shape.n_sliding,
            full_layers=shape.n_full,
            page_size=page,
        )
    ]


def predict(dep: Deployment, rules: SglangRules, config: EngineConfig, **measured):
    """The KV pool SGLang ``config.version`` allocates on ``dep``'s busiest GPU."""
    cfg, hw, tp, pp = dep.model, dep.hardware, dep.tp, dep.pp
    usable = measured.get("usable_bytes") or usable_memory_bytes(hw)
    weights = measured.get("weights_bytes")
    # a measured weight load ('Load weight end. mem usage') already holds the RoPE table
    rope = rope_table_bytes(dep, rules) if weights is None else 0.0
    segments = 0.0
    if weights is None:  # as 'Load weight end ... mem usage' counts it: the segments too
        segments = allocator_segment_bytes(dep, rules)
        weights = loaded_weights_bytes(dep)
    shape = kv_shape(cfg, tp, pp, dep.kv_bytes_per_element)
    group = max(tp, dep.ep)  # SGLang's tp_size: attention-DP ranks inside the TP group
    fraction = config.memory_fraction or auto_fraction(
        rules, config, hw, group, pp, cfg.mla is not None, bool(getattr(cfg, "vision", None)),
        dep.sharding.dp_attn, cfg.indexer is not None,
        dep.ep > 1 and dep.engine.moe_a2a == "deepep",  # --moe-a2a-backend deepep (launch)
    )
    act = measured.get("activation_bytes") or 0.0
    non_torch = measured.get("non_torch_bytes")
    if non_torch is None:
        non_torch = non_torch_bytes(rules, hw, group)
    page = config.block_size
    if cfg.indexer is not None:  # the NSA pool's pages hold 64 tokens (state_pages)
        page = sparse_block_size(page)
    weights += segments  # what the load's 'mem usage' holds besides the RoPE table
    budget = sm.rest_memory_bytes(usable, fraction, weights + rope + act, non_torch)
    state = None
    if shape.n_mamba_layers:  # hybrid: the state pool first, the KV pool the rest (hybrid.py)
        state = _state_pool(dep, rules, budget)
        budget = state.kv_budget_bytes
    tokens, figures = _pool_tokens(budget, shape, page, rules)
    figures.insert(
        0,
        figure(
            "kv_budget_bytes",
            budget,
            "bytes",
            "({usable} − {non_torch}) × {mem_fraction_static} − {weights} − "
            "{allocator_segments} − {rope_table} − {activation}"
            + " − {state_pool}" * (state is not None),
            usable=usable,
            mem_fraction_static=fraction,
            weights=weights - segments,
            rope_table=rope,
            activation=act,
            non_torch=non_torch,
            allocator_segments=segments,
            **({"state_pool": state.pool_bytes} if state is not None else {}),
        ),
    )
    warnings = []
    if state is not None:
        from calc.deploy.engines.sglang.hybrid import running_cap_note

        warnings.append(running_cap_note(config.version, state, tokens))
        figures += _state_figures(state)
    max_model_len = config.max_model_len or cfg.max_ctx
    terms = StartupTerms(fraction, usable, weights, act, non_torch, 0.0, budget)
    pool = PoolBlocks(page, page * shape.bytes_per_token_per_layer, tokens // page, tokens,
                      tokens / max_model_len, max_model_len)  # fmt: skip
    return pool_prediction("sglang", config.version, shape.bytes_per_token, terms, pool,
                           sources=SOURCES, warnings=warnings, figures=figures,
                           rope_table_bytes=rope,
                           state_slots=state.slots if state is not None else None,
                           max_running_requests=state.running_cap if state is not None else None,
                           state_pool_bytes=state.pool_bytes if state is not None else 0.0,
                           fraction_reserve_bytes=(usable - non_torch) * (1 - fraction),
                           )  # fmt: skip


def _state_pool(dep: Deployment, rules: SglangRules, budget: float):
    """SGLang's recurrent-state pool on ``dep``'s busiest GPU (``sglang/hybrid.py``): its
    slots from ``budget`` (the rest memory) and the KV budget they leave."""
    from calc.deploy.engines.sglang.hybrid import (
        config_state_dtype,
        model_state_bytes,
        recurrent_state_bytes,
        state_pool,
    )

    cfg, stated = dep.model, dep.engine.max_mamba_cache_size
    recurrent = recurrent_state_bytes(rules, config_state_dtype(cfg), dep.engine.mamba_ssm_dtype)
    return state_pool(
        rules, budget, model_state_bytes(cfg, dep.tp, dep.pp, recurrent),
        radix_cache=dep.engine.prefix_cache is not False,
        max_running=dep.engine.max_num_seqs,  # per attention-DP rank, as kvcalc keeps it
        mamba2=any(k in ("mamba", "mamba2") for k in cfg.layers),
        # --max-mamba-cache-size is the server's: each attention-DP rank takes // its ranks
        max_cache=None if stated is None else max(stated // dep.sharding.dp_attn, 0),
    )  # fmt: skip


def _state_figures(state) -> list:
    """The state pool's derivations for ``--explain``."""
    from calc.deploy.engines.sglang.hybrid import MAMBA_FULL_MEMORY_RATIO

    slots = (
        figure("state_slots", state.slots, "requests",
               "floor(({budget} × {ratio} / (1 + {ratio}) − {padding} × {per_slot}) / "
               "{per_slot})", budget=state.kv_budget_bytes + state.pool_bytes,
               ratio=MAMBA_FULL_MEMORY_RATIO, padding=int(state.pool_bytes > state.slots
                                                          * state.bytes_per_slot),
               per_slot=state.bytes_per_slot)
        if state.rule == "ratio"
        else figure("state_slots", state.slots, "requests", "{fixed}", fixed=state.slots)
    )  # fmt: skip
    return [
        slots,
        figure("max_running_requests", state.running_cap, "requests",
               "floor({slots} / {slots_per_request})", slots=state.slots,
               slots_per_request=state.slots_per_request),
    ]  # fmt: skip
