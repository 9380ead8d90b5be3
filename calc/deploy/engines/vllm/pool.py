"""vLLM's start-up memory of a deployment's busiest GPU [bytes, blocks, tokens]: the terms of
``calc.deploy.engines.vllm.memory`` composed with one release's rules
(``calc.deploy.engines.vllm.rules``), each with its derivation for ``--explain``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import calc.deploy.engines.vllm.memory as vm
from calc.deploy.engines.base import (
    EngineConfig,
    Paging,
    PoolBlocks,
    PoolPrediction,
    StartupTerms,
    pool_prediction,
)
from calc.deploy.engines.gpus import compute_capability, runs_rocm
from calc.deploy.engines.shape import (
    FLOAT_DTYPES,
    kv_shape,
    layer_width_per_gpu,
    loaded_weights_bytes,
    usable_memory_bytes,
)
from calc.deploy.engines.vllm.rules import VllmRules, runs_v2_model_runner
from calc.deploy.state_pages import sparse_block_size, vllm_printed_tokens
from calc.formulas.elementwise import cdiv
from calc.output.derivation import figure, figures

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

SOURCES = {
    "usable_memory": "torch.cuda.mem_get_info total (gpu_worker.py init_device)",
    "weights": "model load (gpu_model_runner.py load_model: 'Model loading took')",
    "rope_table": "layers/rotary_embedding/base.py cos_sin_cache (built with the model)",
    "activation": "gpu_model_runner.py profile_run + _dummy_sampler_run (torch peak)",
    "non_torch": "gpu_worker.py determine_available_memory (non-torch increase)",
    "cuda_graphs": "gpu_model_runner.py profile_cudagraph_memory (0.20+; before, on the V2 "
    "model runner to 0.28 and on AMD GPUs to 0.25: after the pool)",
    "budget": "gpu_worker.py determine_available_memory (requested − non-KV − CUDA graphs)",
    "blocks": "v1/core/kv_cache_utils.py (budget // page_size // num_layers)",
    "tokens": "v1/core/kv_cache_utils.py ('GPU KV cache size': blocks // groups × block_size "
    "to 0.20, int(max_concurrency × max_model_len) from 0.21)",
}


def mla_block_size(rules: VllmRules, hw, block_size: int, user_set: bool, qk_nope: int,
                   kv_fp8: bool) -> int:  # fmt: skip
    """The block size a dense MLA model runs with [tokens] (``rules.mla_block_rule``): until
    0.17 the default backend's block is forced (FlashMLA's 64 on Hopper; on Blackwell CUTLASS
    MLA's 128, from 0.15 FlashInfer MLA's 64 for qk_nope_head_dim 128); from 0.18 the first
    backend by priority gives its preferred block (Hopper: FLASH_ATTN_MLA's 16 for a 16-bit KV
    cache, FlashMLA's 64 for fp8; Blackwell: FlashInfer MLA's smallest, 32, else CUTLASS
    MLA's 128), a block the user set kept."""
    cc = compute_capability(hw)
    if cc is None:
        return block_size
    major = cc[0]
    if rules.mla_block_rule == "preferred":
        if user_set or major not in (9, 10):
            return block_size
        if major == 9:
            return 64 if kv_fp8 else 16
        return 32 if qk_nope in (64, 128, 192) else 128
    if major == 9:
        return block_size if block_size % 64 == 0 else 64
    if major == 10 and rules.mla_blackwell != "none":
        if rules.mla_blackwell == "flashinfer" and qk_nope == 128:
            return block_size if block_size == 32 or block_size % 64 == 0 else 64
        return block_size if block_size % 128 == 0 else 128
    return block_size


def mxfp4_experts(dep: Deployment) -> bool:
    """Whether the routed experts load as MXFP4 (gpt-oss as released): vLLM runs them with
    its MXFP4 kernels (triton_kernels' matmul_ogs on Hopper, FlashInfer on Blackwell), which
    hold no fused-MoE workspace between steps."""
    from calc.deploy.checkpoint import resolved_dtypes

    if dep.model.moe is None or dep.weight_override in FLOAT_DTYPES:
        return False
    return resolved_dtypes(dep.model, dep.weight_dtype)["routed_experts"] == "mxfp4"


def rope_scaled_positions(cfg) -> int:
    """Positions a RoPE table covers once its scaling stretches them [positions]: the config's
    max_position_embeddings, stretched by ``factor`` for linear and dynamic-NTK scaling
    (``linear_scaling_rope.py``: max_position_embeddings × scaling_factor) and, for YaRN, the
    original length × factor (``yarn_scaling_rope.py``, ``deepseek_scaling_rope.py``); llama3
    and longrope tables keep max_position_embeddings (Llama 4 Scout: 10,485,760). vLLM's and
    SGLang's rotary classes take the same rules."""
    r = cfg.rope_scaling
    if r is None or r.type in ("default", "llama3", "longrope"):
        return cfg.max_ctx
    if r.type == "yarn":
        return int((r.original_max_ctx or cfg.max_ctx) * r.factor)
    return int(cfg.max_ctx * r.factor)


def rope_cache_positions(cfg) -> int:
    """Rows of the RoPE table vLLM builds for ``cfg`` [positions] (``get_rope``): the scaled
    positions (``rope_scaled_positions``); 4 × those for multimodal RoPE
    (``mrope.py`` MRotaryEmbedding: ``cache_max_position_num = max_position_embeddings * 4``,
    read in the 0.10.2, 0.16.0 and 0.19.1 wheels; Qwen3.5: 1,048,576 rows); a longrope table
    holds the short and the long caches one after the other (``phi3_long_rope_scaled_rope.py``:
    original + max_position_embeddings rows)."""
    r = cfg.rope_scaling
    rows = rope_scaled_positions(cfg)
    if r is not None and r.type == "longrope":
        rows += r.original_max_ctx or cfg.max_ctx
    return 4 * rows if r is not None and r.mrope else rows


def rope_table_bytes(dep: Deployment) -> float:
    """vLLM's RoPE cos/sin table on every GPU [bytes] (``memory.rope_cache_bytes``): the rotary
    width is the model's ``rotary_width`` (``get_rope``: ``rotary_dim = int(head_size ×
    partial_rotary_factor)``; MLA's qk_rope_head_dim), once per distinct table
    (``rope_tables``: DeepSeek-V3.2's indexer adds a NeoX-style one), and an unscaled one for
    sliding layers with their own RoPE (``local_rope``, Gemma 3); models without attention
    layers, or whose attention has no RoPE, have none."""
    cfg = dep.model
    if cfg.n_attention_layers == 0:
        return 0.0
    table = cfg.rope_tables * vm.rope_cache_bytes(rope_cache_positions(cfg), cfg.rotary_width)
    if cfg.local_rope and cfg.rotary_width and cfg.n_layers_of("sliding"):
        # Gemma 3's sliding layers: get_rope with rope_type default and the local base
        # (gemma3.py), max_position_embeddings rows
        table += vm.rope_cache_bytes(cfg.max_ctx, cfg.rotary_width)
    return table


def weights_as_loaded(dep: Deployment, rules: VllmRules) -> float:
    """The weights vLLM holds on the busiest GPU after loading [bytes]: the checkpoint as kvcalc
    sizes it (``shape.loaded_weights_bytes``), MXFP4 routed experts (gpt-oss) as the release's
    kernel backend lays them out (``rules``: Triton on Hopper, FlashInfer on Blackwell, Marlin
    before Hopper; ``memory.mxfp4_experts_loaded_bytes``), and on Hopper from 0.19 Machete's
    16-bit zero points of AWQ-style int4/int8 layers (``machete_zero_point_bytes``; AWQ-Marlin
    elsewhere keeps the checkpoint's bytes). The RoPE table that 'Model loading took' also
    counts is a term of its own (``rope_table_bytes``)."""
    from calc.deploy.checkpoint import weight_bytes_per_gpu_by_component

    weights = loaded_weights_bytes(dep)
    cfg, s = dep.model, dep.sharding
    cc = compute_capability(dep.hardware)
    if cc == (9, 0) and rules.awq_mp_linear:
        weights += machete_zero_point_bytes(dep)
    if cc is None or not mxfp4_experts(dep):
        return weights
    if cc[0] >= 10:
        (inter, hidden), bias, copy = rules.mxfp4_blackwell_align, 2, False
    elif cc[0] == 9:
        (inter, hidden), copy = (64, 1), rules.mxfp4_scale_copy
        bias = 4 if rules.mxfp4_bias_fp32 else 2
    else:
        (inter, hidden), bias, copy = (128, 256), 2, False
    stage = range(cdiv(cfg.n_layers, dep.pp))
    layers = sum(1 for i in stage if cfg.is_moe_layer(i))
    loaded = vm.mxfp4_experts_loaded_bytes(
        layers, s.n_experts, cfg.d_model, s.d_expert_ffn, hidden, inter, bias, copy
    )
    checkpoint = weight_bytes_per_gpu_by_component(cfg, s, dep.weight_dtype)["routed_experts"]
    return weights - checkpoint + loaded


# the linear layers an MPLinear kernel serves (routed experts go to the fused-MoE methods)
MP_LINEAR_COMPONENTS = ("attention", "dense_ffn", "shared_experts", "ssm")


def machete_zero_point_bytes(dep: Deployment) -> float:
    """What Machete adds on a Hopper GPU (compute capability 9.0) to the busiest GPU's linear
    layers held in an asymmetric integer format with a group Machete takes (int4/int8-g64,
    -g128) [bytes]: their zero points become 16-bit (``memory.machete_zero_point_bytes``).
    The projections' widths are taken to be multiples of Machete's 64 × 128 block (true of the
    shipped models); layers the checkpoint leaves in 16 bits add nothing."""
    from calc.deploy.checkpoint import resolved_dtypes, unquantised_shares
    from calc.deploy.parallel import params_per_gpu_by_component
    from calc.formulas.quant import is_plain, weight_format

    cfg = dep.model
    formats = resolved_dtypes(cfg, dep.weight_dtype)
    kept = unquantised_shares(cfg, dep.weight_dtype)
    params = params_per_gpu_by_component(cfg, dep.sharding)
    out = 0.0
    for comp in MP_LINEAR_COMPONENTS:
        name = formats[comp]
        if is_plain(name) or not name.startswith("int"):
            continue
        f = weight_format(name)
        if not f.zero_bytes or f.group not in vm.MACHETE_GROUPS:
            continue
        quantized = params[comp] * (1 - kept.get(comp, 0.0))
        out += vm.machete_zero_point_bytes(quantized, f.group, f.zero_bytes)
    return out


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


def _activation(dep: Deployment, rules: VllmRules, config: EngineConfig, measured: dict):
    """The profiling pass's torch peak [bytes] and its derivation (None when measured): the
    forward and sampler passes, or a cold compile's benchmark copy where that is larger."""
    act = measured.get("activation_bytes")
    if act is not None:
        return act, None
    tokens, rows = config.max_batched_tokens, min(config.max_num_seqs, config.max_batched_tokens)
    act, derivation = profiled_activation(
        dep.model, dep.tp, tokens, rows, rules.sampler_bytes_per_logit,
        moe_workspace=not mxfp4_experts(dep),
    )  # fmt: skip
    copy = compile_copy_bytes(dep, rules, config)
    if copy <= act:
        return act, derivation
    cfg = dep.model
    table = vm.embedding_rows_per_gpu(cfg.vocab_size, dep.tp)
    return copy, figure(
        "activation_bytes", copy, "bytes",
        "max(({table_rows} + 2 × {tokens}) × {d_model} × 2, {forward_and_sampler})",
        table_rows=table, tokens=tokens, d_model=cfg.d_model, forward_and_sampler=act,
    )  # fmt: skip


def compile_copy_excess(dep: Deployment, rules: VllmRules, config: EngineConfig) -> float:
    """How much a cold compile raises the profiling pass's peak over a warm start [bytes]:
    the benchmark copy less the forward and sampler peak, where the copy is the larger, as if
    the compile ran cold whatever ``config.compile_cache`` says (0 before 0.11.1, eager)."""
    from dataclasses import replace

    cold = compile_copy_bytes(dep, rules, replace(config, compile_cache="cold"))
    if not cold:
        return 0.0
    warm, _ = _activation(dep, rules, replace(config, compile_cache="warm"), {})
    return max(cold - warm, 0.0)


def compile_copy_bytes(dep: Deployment, rules: VllmRules, config: EngineConfig) -> float:
    """A cold torch.compile's benchmark copy inside the profiling pass [bytes]
    (``memory.compile_benchmark_bytes``): from 0.11.1 (``rules.compile_benchmark_copy``),
    where the model is compiled (not --enforce-eager) and not loaded from the compile cache
    (``config.compile_cache``); 0 otherwise."""
    if not (rules.compile_benchmark_copy and config.cuda_graphs and config.compile_cache == "cold"):
        return 0.0
    cfg = dep.model
    table = vm.embedding_rows_per_gpu(cfg.vocab_size, dep.tp)
    return vm.compile_benchmark_bytes(table, cfg.d_model, config.max_batched_tokens)


def profiled_activation(cfg, tp: int, tokens: int, rows: int, bytes_per_logit: float, *,
                        moe_workspace: bool = True, moe_tokens: int | None = None):  # fmt: skip
    """The profiling pass's activation peak [bytes] on one GPU of ``tp``: a forward pass of
    ``tokens`` tokens and the sampler's ``rows`` rows of logits (``moe_workspace``: the fused
    MoE kernel's workspace counted, sized for ``moe_tokens`` rows (default ``tokens``); not for
    MXFP4 experts), and its derivation. vLLM's model; TensorRT-LLM's profiling pass is timed by
    it too."""
    width = layer_width_per_gpu(cfg, tp)
    workspace = 0
    if cfg.moe is not None and moe_workspace:
        workspace = vm.moe_workspace_bytes(
            tokens if moe_tokens is None else moe_tokens, cfg.moe.experts_per_token,
            cdiv(cfg.moe.d_expert_ffn, tp), cfg.d_model,
        )  # fmt: skip
    act = vm.activation_peak_bytes(
        tokens, cfg.d_model, width, rows, cfg.vocab_size, bytes_per_logit, workspace
    )
    return act, figure(
        "activation_bytes", act, "bytes",
        "2 × {tokens} × {d_model} × 2 + {moe_workspace} + max({tokens} × "
        "{layer_width} × 2, {rows} × {vocab_size} × {bytes_per_logit})",
        tokens=tokens, d_model=cfg.d_model, moe_workspace=workspace, layer_width=width,
        rows=rows, vocab_size=cfg.vocab_size, bytes_per_logit=bytes_per_logit,
    )  # fmt: skip


def _fa3_split_buffer_bytes(dep: Deployment, rules: VllmRules, tokens: int) -> float:
    """The first FULL capture's FlashAttention 3 split accumulators [bytes]: on Hopper, whose
    default backend is FlashAttention 3 (``fa_utils.get_flash_attn_version``; MLA with a 16-bit
    KV cache: FLASH_ATTN_MLA, the latent as its value); 0 elsewhere (FA2 and the other
    backends size no split buffer for graphs), for multimodal prefix LMs (Gemma 3: FLASH_ATTN
    takes bidirectional image attention only as FA4, so Hopper runs TRITON_ATTN; rules
    ``mm_prefix_lm_types``, from the source) and for models with attention sinks (gpt-oss runs
    FLASH_ATTN, FA3 supports sinks, yet 0.19.0's logs print a 6-8 MiB first FULL capture: from
    the logs, the FA3 kernel's split choice with sinks is not read)."""
    cfg = dep.model
    cc = compute_capability(dep.hardware)
    prefix_lm = cfg.model_type is not None and cfg.model_type in rules.mm_prefix_lm_types
    if cc is None or cc[0] != 9 or cfg.attention_sinks or prefix_lm:
        return 0.0
    if cfg.mla is not None:
        if dep.kv_dtype.startswith("fp8"):
            return 0.0  # FlashMLA
        v_dim = cfg.mla.kv_lora_rank
    else:
        v_dim = cfg.v_head_dim
    heads = cfg.n_heads // dep.tp
    return vm.fa3_split_buffer_bytes(tokens, heads, v_dim, rules.fa_max_num_splits)


def v2_model_runner(dep: Deployment, rules: VllmRules) -> bool:
    """Whether the release runs ``dep``'s model on the V2 model runner by default
    (``rules.runs_v2_model_runner``): quantized where any weight component is not a float
    dtype, a hybrid where state-space layers sit beside attention ones."""
    from calc.data.model_schema import SSM_LAYER_TYPES

    cfg = dep.model
    attention = cfg.n_attention_layers
    quantized = any(d not in FLOAT_DTYPES for d in dep.weight_dtypes.values())
    hybrid = attention > 0 and cfg.n_layers_of(*SSM_LAYER_TYPES) > 0
    return runs_v2_model_runner(
        rules, cfg.architecture, cfg.moe is not None, hybrid, attention == 0, quantized
    )


def graph_profile_skipped(dep: Deployment, rules: VllmRules) -> bool:
    """Whether the release skips ``profile_cudagraph_memory`` on ``dep``'s GPU: on an AMD GPU
    from 0.18.0 to 0.25.x (``rules.cudagraph_profiled_rocm``: ``gpu_worker.py
    determine_available_memory`` runs it on CUDA only), so the graphs are neither estimated nor
    captured before the pool is sized."""
    return runs_rocm(dep.hardware) and not rules.cudagraph_profiled_rocm


def graph_capture_residue_bytes(dep: Deployment, rules: VllmRules, config: EngineConfig) -> float:
    """Non-torch memory the CUDA graph estimate's dummy capture leaves at TP 1 [bytes]
    (``rules.graph_capture_residue_bytes``): 0.18.0-0.26.x run ``profile_cudagraph_memory``
    inside ``memory_profiling`` (``gpu_worker.py determine_available_memory``), so what it
    leaves outside torch's allocator is in the measured non-torch increase; none where it
    captures nothing: --enforce-eager, the V2 runner, whose estimate returns 0 to 0.28, or an
    AMD GPU before 0.26.0 (``graph_profile_skipped``). At TP >= 2 the measured figure
    (``non_torch_tp_bytes``) already holds it."""
    if dep.tp != 1 or not config.cuda_graphs or v2_model_runner(dep, rules):
        return 0.0
    if graph_profile_skipped(dep, rules):
        return 0.0
    return rules.graph_capture_residue_bytes


def penalties_state_bytes(dep: Deployment, rules: VllmRules, config: EngineConfig) -> float:
    """The V2 runner's penalty statistics [bytes] (0.29.0+, ``rules.v2_penalties_state``),
    allocated with the sampler after the weights and so counted in vLLM's consumed memory:
    max_num_seqs × vocab × 4 B (output_bin_counts, int32) + max_num_seqs × ceil(vocab / 32) ×
    4 B (prompt_bin_mask) (``v1/worker/gpu/sample/penalties.py`` PenaltiesState)."""
    if not rules.v2_penalties_state:
        return 0.0
    vocab = dep.model.vocab_size
    return float(config.max_num_seqs * (vocab + cdiv(vocab, 32)) * 4)


FLASHINFER_WORKSPACE_BYTES = 394 * 2**20  # envs.py VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE
FLASHINFER_PREFILL_BYTES_PER_ELEM = 16  # flashinfer.py FLASHINFER_PREFILL_WORKSPACE_BYTES_PER_ELEM


def flashinfer_workspace_bytes(dep: Deployment, rules: VllmRules, config: EngineConfig) -> float:
    """FlashInfer's float workspace inside the CUDA graph estimate [bytes] (0.29.0+,
    ``rules.flashinfer_workspace_in_estimate``): where the attention backend is FlashInfer
    because FlashAttention cannot read the KV cache: an fp8 KV cache on compute capability 8.x,
    whose FlashAttention 2 takes no fp8 cache (``fa_utils.flash_attn_supports_kv_cache_dtype``:
    FA3 on 9.x, FA4 on 10.x only), so ``cuda.py _get_backend_priorities`` falls to FLASHINFER.
    Its metadata builder allocates the workspace on first use, during the profiling capture
    that measures the graphs: max(394 MiB, max_num_batched_tokens × query heads per GPU ×
    head_dim × 16 B). Its wrappers' 8 MiB index buffers are not charged (the A10G pair of
    Tensward reports differs by 0.33 GiB, under the workspace alone). Blackwell's default
    FlashInfer path (TRT-LLM kernels) and MLA are not modelled here: 0."""
    cfg = dep.model
    cc = compute_capability(dep.hardware)
    if not (rules.flashinfer_workspace_in_estimate and config.cuda_graphs) or cc is None:
        return 0.0
    if cc[0] != 8 or cfg.mla is not None or not dep.kv_dtype.startswith("fp8"):
        return 0.0
    heads = cfg.n_heads // dep.tp
    sized = config.max_batched_tokens * heads * cfg.head_dim * FLASHINFER_PREFILL_BYTES_PER_ELEM
    return float(max(FLASHINFER_WORKSPACE_BYTES, sized))


def _cuda_graphs(dep: Deployment, rules: VllmRules, config: EngineConfig, measured: dict):
    """The CUDA graph estimate the release computes (0.18+; taken from the budget 0.20+)
    [bytes] and its derivation; (None, None) where it computes none (before 0.18, eager, an
    AMD GPU before 0.26: ``graph_profile_skipped``)."""
    if not ((rules.cudagraph_estimate or rules.cudagraph_profiled) and config.cuda_graphs):
        return None, None
    if graph_profile_skipped(dep, rules):
        return None, None
    if measured.get("cuda_graph_bytes") is not None:
        return measured["cuda_graph_bytes"], None
    if not rules.v2_cudagraph_estimate and v2_model_runner(dep, rules):
        return 0.0, figure(
            "cuda_graph_bytes", 0.0, "bytes",
            "0: the V2 model runner's profile_cudagraph_memory returns 0 (0.22.0-0.28.0)",
        )  # fmt: skip
    cfg, hw = dep.model, dep.hardware
    cc = compute_capability(hw)
    ceiling = rules.graph_ceiling_blackwell if cc is not None and cc[0] == 10 else 512
    by_arch = dict(rules.graph_ceiling_by_arch).get(cfg.architecture or "")
    sizes = vm.cudagraph_capture_sizes(
        config.max_num_seqs, by_arch or ceiling, config.max_batched_tokens,
        rules.graph_sizes_add_seqs, explicit_max=by_arch is not None,
    )  # fmt: skip
    full = [s for s in sizes if s <= config.max_num_seqs]
    width, layers = layer_width_per_gpu(cfg, dep.tp), cdiv(cfg.n_layers, dep.pp)
    per_pw = vm.per_graph_bytes(rules.cudagraph_piecewise_per_graph_layer_bytes, layers)
    per_full = vm.per_graph_bytes(rules.cudagraph_full_per_graph_layer_bytes, layers)
    first_pw = vm.piecewise_first_capture_bytes(
        sizes[-1], width, rules.cudagraph_piecewise_base_bytes
    )
    split = _fa3_split_buffer_bytes(dep, rules, full[-1]) if full else 0.0
    first_full = split + per_full
    workspace = flashinfer_workspace_bytes(dep, rules, config)
    graphs = (
        vm.cudagraph_estimate_bytes(len(sizes), len(full), first_pw, first_full, per_pw, per_full)
        + workspace
    )
    return graphs, figure(
        "cuda_graph_bytes",
        graphs,
        "bytes",
        "max({base} + {largest} × {width} × 2, {split} + {per_full}) + ({piecewise} − 1) × "
        "{per_piecewise} + ({full} − 1) × {per_full} + {flashinfer_workspace}",
        base=rules.cudagraph_piecewise_base_bytes,
        largest=sizes[-1],
        width=width,
        split=split,
        per_full=per_full,
        piecewise=len(sizes),
        per_piecewise=per_pw,
        full=len(full),
        flashinfer_workspace=workspace,
    )


def _block_size(dep: Deployment, rules: VllmRules, config: EngineConfig, shape) -> int:
    """Tokens per KV block as the release runs this model (sparse MLA, MLA, Mamba hybrids)."""
    cfg, block_size = dep.model, config.block_size
    if cfg.indexer is not None:  # sparse MLA and indexer kernels page 64 tokens at a time
        block_size = sparse_block_size(block_size)  # (only sparse backends serve these)
    elif cfg.mla is not None:
        block_size = mla_block_size(
            rules, dep.hardware, block_size, dep.engine.block_size is not None,
            cfg.mla.qk_nope_head_dim, dep.kv_dtype.startswith("fp8"),
        )  # fmt: skip
    if shape.n_mamba_layers:
        block_size = vm.mamba_attention_block_size(
            block_size, shape.mamba_state_bytes_per_layer, shape.bytes_per_token_per_layer
        )
    return block_size


def _pool_figures(p: PoolPrediction, shape, per_request: int) -> list:
    """The derivations of the budget, blocks, tokens and concurrency of prediction ``p``."""
    return figures(
        ("kv_budget_bytes", p.kv_budget_bytes, "bytes",
         "{usable} × {gpu_memory_utilization} − {weights} − {rope_table} − {activation} − "
         "{non_torch} − {cuda_graphs}",
         {"usable": p.usable_memory_bytes, "gpu_memory_utilization": p.memory_fraction,
          "weights": p.weights_bytes, "rope_table": p.rope_table_bytes,
          "activation": p.activation_bytes, "non_torch": p.non_torch_bytes,
          "cuda_graphs": p.cuda_graph_bytes}),
        ("num_blocks", p.num_blocks, "blocks", "max({budget}, 0) // {page} // {layer_slots}",
         {"budget": int(p.kv_budget_bytes), "page": p.page_size_bytes,
          "layer_slots": shape.layer_slots}),
        ("tokens", p.tokens, "tokens", "{blocks} // {groups} × {block_size}",
         {"blocks": p.num_blocks, "groups": shape.n_groups, "block_size": p.block_size}),
        *([("printed_tokens", p.printed_tokens, "tokens",
            "floor({blocks} / {blocks_per_request} × {max_model_len})",
            {"blocks": p.num_blocks, "blocks_per_request": per_request,
             "max_model_len": p.max_model_len})] if p.engine_printed_tokens is not None else []),
        ("max_concurrency", p.max_concurrency, "requests", "{blocks} / {blocks_per_request}",
         {"blocks": p.num_blocks, "blocks_per_request": per_request}),
    )  # fmt: skip


def predict(dep: Deployment, rules: VllmRules, config: EngineConfig, **measured) -> PoolPrediction:
    """The KV pool vLLM ``config.version`` allocates on ``dep``'s busiest GPU."""
    cfg, hw, tp, pp = dep.model, dep.hardware, dep.tp, dep.pp
    usable = measured.get("usable_bytes") or usable_memory_bytes(hw)
    weights = measured.get("weights_bytes")
    # a measured weights figure ('Model loading took') already holds the RoPE table
    rope = rope_table_bytes(dep) if weights is None else 0.0
    if weights is None:
        weights = weights_as_loaded(dep, rules)
    shape = kv_shape(cfg, tp, pp, dep.kv_bytes_per_element, rules.hybrid_ratio)
    act, act_figure = _activation(dep, rules, config, measured)
    non_torch = measured.get("non_torch_bytes")
    if non_torch is None:
        non_torch = non_torch_bytes(rules, tp, pp, dep.sharding.dp_attn, hw)
        non_torch += penalties_state_bytes(dep, rules, config)
        non_torch += graph_capture_residue_bytes(dep, rules, config)
    estimate, graph_figure = _cuda_graphs(dep, rules, config, measured)
    graphs = 0.0
    if rules.cudagraph_estimate and estimate is not None:
        graphs = estimate
    else:  # printed and left in the slack (0.18, 0.19): not a budget term
        graph_figure = None
    block_size = _block_size(dep, rules, config, shape)
    page = vm.page_size_bytes(block_size, shape.bytes_per_token_per_layer)
    fraction = config.memory_fraction or rules.gpu_memory_utilization
    budget = vm.available_kv_bytes(
        vm.requested_memory_bytes(usable, fraction), weights + rope, act, non_torch, graphs
    )
    blocks = int(vm.num_blocks(budget, page, shape.layer_slots))
    paging = Paging(
        num_blocks=blocks,
        block_bytes=page * shape.layer_slots,
        block_size=block_size,
        full_groups=shape.full_groups,
        sliding_groups=shape.sliding_groups,
        mamba_groups=shape.mamba_groups,
        window=shape.window,
        in_flight_tokens=in_flight_tokens(rules, config, pp),
    )
    max_model_len = config.max_model_len or cfg.max_ctx
    per_request = paging.blocks_per_request(max_model_len)
    terms = StartupTerms(fraction, usable, weights, act, non_torch, graphs, budget)
    tokens = int(vm.pool_tokens(blocks, shape.n_groups, block_size))
    concurrency = vm.max_concurrency(blocks, per_request)
    printed = None
    if rules.printed_tokens == "concurrency":
        printed = vllm_printed_tokens(concurrency, max_model_len)
    pool = PoolBlocks(block_size, page, blocks, tokens, concurrency, max_model_len)
    p = pool_prediction("vllm", config.version, shape.bytes_per_token, terms, pool,
                        sources=SOURCES, paging=paging, rope_table_bytes=rope,
                        printed_tokens=printed, cuda_graph_estimate_bytes=estimate,
                        fraction_reserve_bytes=usable * (1 - fraction))  # fmt: skip
    figures = [f for f in (act_figure, graph_figure) if f is not None]
    p.figures.extend(figures + _pool_figures(p, shape, per_request))
    return p
