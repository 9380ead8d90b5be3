"""Parallelism: per-GPU shard sizes, collective times [s] and memory per GPU [bytes].

Layout of a deployment (the conventions vLLM and SGLang use):

- ``--tp N`` (tensor parallel) splits every attention layer by heads and every FFN by its
  intermediate width over N GPUs. KV heads are split too; when a model has fewer KV heads
  than N each GPU holds one KV head (replicated N / n_kv_heads times), so GQA/MQA KV does
  not shrink below one head per GPU. MLA's latent is shared by all heads and is replicated on
  every GPU, as are the MLA down-projections (W_DQ, W_DKV), the norms and the MoE router.
  Vocabulary-parallel embedding and lm_head split the vocabulary. Each layer ends its
  attention and its FFN with an all-reduce of the hidden states: two per layer.
- ``--pp N`` (pipeline parallel) gives each stage ceil(n_layers / N) consecutive layers; one
  token still passes every stage, so a decode step's latency is the sum over all layers plus
  N − 1 stage-to-stage sends. Pipelining micro-batches raises throughput, not per-token
  latency, and is not modelled.
- ``--ep N`` (expert parallel) spreads the routed experts over N GPUs, whole (not split by
  width). When N > tp the extra factor N / tp is data parallelism of the attention (each
  replica serves batch / (N / tp) sequences), as in DeepSeek-V3's deployment. Dispatch and
  combine are two all-to-alls per MoE layer.

GPUs used = max(tp, ep) × pp. Collective times (interconnect bandwidth per direction B, a
per-hop latency α, a message of M bytes, N GPUs):

- ring all-reduce: 2(N−1)/N · M / B + 2(N−1) · α (reduce-scatter then all-gather, N−1 steps
  each);
- all-to-all (pairwise exchange): (N−1)/N · M / B + (N−1) · α;
- point-to-point send: M / B + α.

The interconnect rate is used at face value (no efficiency factor): the efficiency bands of a
profile describe the HBM and the tensor cores, not NVLink.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from calc.attention_layout import AttentionLayout
from calc.errors import InvalidInputError
from calc.memory import check_positive_int
from calc.model_schema import ModelConfig
from calc.params import (
    attention_params,
    ffn_params,
    mla_attention_params,
    norm_params,
    router_params,
)

MAX_PARALLEL = 4096


def cdiv(a, b):
    """Ceiling division for ints and numpy arrays: ceil(a / b)."""
    return -(-a // b)


def ring_allreduce_time_s(message_bytes, n, bandwidth_bytes_per_s, latency_s):
    """Ring all-reduce of ``message_bytes`` over ``n`` GPUs [s]: 2(n−1)/n · M / B + 2(n−1)·α."""
    if n == 1:
        return 0 * message_bytes
    return 2 * (n - 1) / n * message_bytes / bandwidth_bytes_per_s + 2 * (n - 1) * latency_s


def all_to_all_time_s(message_bytes, n, bandwidth_bytes_per_s, latency_s):
    """All-to-all where each GPU holds ``message_bytes`` to scatter over ``n`` GPUs [s]:
    (n−1)/n · M / B + (n−1)·α (the 1/n addressed to itself stays local)."""
    if n == 1:
        return 0 * message_bytes
    return (n - 1) / n * message_bytes / bandwidth_bytes_per_s + (n - 1) * latency_s


def p2p_time_s(message_bytes, bandwidth_bytes_per_s, latency_s):
    """One point-to-point send (pipeline stage to stage) [s]: M / B + α."""
    return message_bytes / bandwidth_bytes_per_s + latency_s


@dataclass(frozen=True)
class Sharding:
    """Per-GPU shapes of one model under tp × pp × ep (see the module docstring)."""

    tp: int
    pp: int
    ep: int
    gpus: int
    dp_attn: int  # attention replicas inside one stage (ep / tp when ep > tp)
    n_heads: int  # query heads per GPU
    n_kv_heads: int  # KV heads per GPU (>= 1: replicated when fewer than tp); MLA: 1 latent
    d_ffn: int  # dense FFN width per GPU
    n_experts: int  # routed experts per GPU
    d_expert_ffn: int  # width of one routed expert on a GPU
    d_shared_ffn: int  # width of one shared expert on a GPU
    vocab: int  # vocabulary rows per GPU (embedding and lm_head)
    layers_per_stage: int


def shard(cfg: ModelConfig, *, tp: int = 1, pp: int = 1, ep: int = 1) -> Sharding:
    """Validate ``tp``/``pp``/``ep`` for ``cfg`` and return the per-GPU shapes."""
    for name, value in (("tp", tp), ("pp", pp), ("ep", ep)):
        check_positive_int(name, value, MAX_PARALLEL)
    if cfg.n_heads % tp:
        ok = [n for n in range(1, min(cfg.n_heads, 64) + 1) if cfg.n_heads % n == 0]
        raise InvalidInputError(
            f"--tp {tp} does not divide the {cfg.n_heads} attention heads of {cfg.name}; "
            f"use one of: {', '.join(map(str, ok))}"
        )
    kv = cfg.n_kv_heads
    if cfg.mla is None and (kv % tp if kv >= tp else tp % kv):
        raise InvalidInputError(
            f"--tp {tp} must divide the {kv} KV heads of {cfg.name} or be a multiple of it "
            "(KV heads are split, or replicated when fewer than --tp)"
        )
    if pp > cfg.n_layers:
        raise InvalidInputError(f"--pp {pp} exceeds the {cfg.n_layers} layers of {cfg.name}")
    moe = cfg.moe
    if ep > 1:
        if moe is None:
            raise InvalidInputError(
                f"--ep {ep} needs a mixture-of-experts model; {cfg.name} is dense"
            )
        if moe.n_routed_experts % ep:
            raise InvalidInputError(
                f"--ep {ep} must divide the {moe.n_routed_experts} routed experts of {cfg.name}"
            )
        if max(tp, ep) % min(tp, ep):
            raise InvalidInputError(f"--ep {ep} and --tp {tp}: one must be a multiple of the other")
    ffn_tp = 1 if ep > 1 else tp  # experts are whole under EP, split by width under TP
    return Sharding(
        tp=tp,
        pp=pp,
        ep=ep,
        gpus=max(tp, ep) * pp,
        dp_attn=max(1, ep // tp),
        n_heads=cfg.n_heads // tp,
        n_kv_heads=1 if cfg.mla is not None else cdiv(kv, tp),
        d_ffn=cdiv(cfg.d_ffn, tp),
        n_experts=0 if moe is None else moe.n_routed_experts // ep,
        d_expert_ffn=0 if moe is None else cdiv(moe.d_expert_ffn, ffn_tp),
        d_shared_ffn=0 if moe is None else cdiv(moe.shared_ffn, tp),
        vocab=cdiv(cfg.vocab_size, tp),
        layers_per_stage=cdiv(cfg.n_layers, pp),
    )


def sharded_layout(layout: AttentionLayout, s: Sharding, n_layers: int) -> AttentionLayout:
    """The per-GPU cached-attention shape: KV heads per GPU over ``n_layers`` layers (MLA's
    latent is not split). KV sizes then come from the layout itself, never re-derived."""
    return replace(
        layout, n_kv_heads=s.n_kv_heads if layout.kind != "mla" else 1, n_layers=n_layers
    )


def layer_attention_params_per_gpu(cfg: ModelConfig, s: Sharding) -> int:
    """Attention weights of one layer held by one GPU [params]."""
    if cfg.mla is not None:
        m = cfg.mla
        return mla_attention_params(
            cfg.d_model,
            s.n_heads,
            m.kv_lora_rank,
            m.q_lora_rank or 0,
            m.qk_rope_head_dim,
            m.qk_nope_head_dim,
            m.v_head_dim,
        )
    return attention_params(
        cfg.d_model, s.n_heads, s.n_kv_heads, cfg.k_head_dim, cfg.qkv_bias, cfg.o_bias
    )


@dataclass(frozen=True)
class GpuMemory:
    """Memory of the busiest GPU of a deployment [bytes]."""

    params: int  # weights held by one GPU [params]
    weights_bytes: float
    kv_cache_bytes: float
    total_bytes: float


def params_per_gpu(cfg: ModelConfig, s: Sharding) -> int:
    """Weights on the busiest GPU [params]: its stage's layers (MoE layers first, since they
    are the heaviest), its shard of each, the embedding and lm_head (both at pp = 1; one
    vocabulary table at the first/last stage when pp > 1), and the norms.

    At tp = pp = ep = 1 this equals ``model_params(cfg).total``.
    """
    gated = cfg.ffn_kind == "gated"
    d = cfg.d_model
    layers = s.layers_per_stage
    n_moe = min(layers, cfg.n_moe_layers)
    n_dense = layers - n_moe
    per_layer_ffn = ffn_params(d, s.d_ffn, gated, cfg.ffn_bias)
    moe_layer = 0
    if cfg.moe is not None:
        m = cfg.moe
        moe_layer = (
            s.n_experts * ffn_params(d, s.d_expert_ffn, gated, cfg.ffn_bias)
            + m.n_shared_experts * ffn_params(d, s.d_shared_ffn, gated)
            + router_params(d, m.n_routed_experts, m.router_bias)
        )
    table = s.vocab * d
    vocab_tables = table + (0 if cfg.tie_embeddings else table) if s.pp == 1 else table
    norms = (layers * cfg.norms_per_layer + 1) * norm_params(d, cfg.norm == "layernorm")
    return (
        layers * layer_attention_params_per_gpu(cfg, s)
        + n_dense * per_layer_ffn
        + n_moe * moe_layer
        + vocab_tables
        + norms
    )


def memory_per_gpu(
    cfg: ModelConfig,
    s: Sharding,
    layout: AttentionLayout,
    *,
    weight_bytes_per_element,
    kv_bytes_per_element,
    ctx,
    batch,
) -> GpuMemory:
    """Weights and KV cache on the busiest GPU [bytes]: its weights (``params_per_gpu``) and
    the KV of its layers for the batch / dp_attn sequences its attention replica serves."""
    p = params_per_gpu(cfg, s)
    local = sharded_layout(layout, s, s.layers_per_stage)
    kv = local.kv_bytes_per_sequence(ctx, kv_bytes_per_element) * cdiv(batch, s.dp_attn)
    w = p * weight_bytes_per_element
    return GpuMemory(p, w, kv, w + kv)
