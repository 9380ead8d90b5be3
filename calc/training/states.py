"""Model states on the busiest GPU of a training setup [bytes]: weights, gradients and optimizer
states (sharded by ZeRO over the data-parallel ranks, experts over fewer of them), LoRA/QLoRA
adapters beside a frozen base, and the layer ZeRO-3 gathers; each with its derivation."""

from __future__ import annotations

from dataclasses import dataclass, field

from calc.data.model_schema import ModelConfig
from calc.output.derivation import Figure, figure, whole
from calc.training import memory as tm
from calc.training.setup import TrainSetup


@dataclass(frozen=True)
class States:
    """The model states of the busiest GPU and the parameter counts they come from."""

    params_gpu: int  # parameters the busiest GPU holds [params]
    trainable: int  # parameters that train (the adapters under LoRA/QLoRA) [params]
    adapter_gpu: float  # adapter parameters on the busiest GPU [params]
    weight_bytes: float  # bytes per held weight (the frozen base's under LoRA/QLoRA)
    dp_dense: int  # ranks the dense states shard over: dp × cp
    weights: int  # [bytes]
    grads: int  # [bytes]
    optim: int  # [bytes]
    gather: int  # ZeRO-3's gathered layer and its prefetched neighbour [bytes]
    figures: list[Figure] = field(default_factory=list)


def lora_params_per_layer(cfg: ModelConfig, i: int, rank: int, targets: str) -> tuple[int, int]:
    """(adapter params, adapted matrices) of layer ``i`` under LoRA rank ``rank``: ``qv`` adapts
    W_Q and W_V (Hu et al. 2021); ``all`` every linear of the block (QLoRA), experts included,
    routers and SSM mixers not."""
    d, h = cfg.d_model, cfg.n_heads
    mats: list[tuple[int, int]] = []
    kind = cfg.layers[i]
    if kind in ("full", "sliding", "chunked"):
        if cfg.mla is not None:
            m = cfg.mla
            qk = m.qk_nope_head_dim + m.qk_rope_head_dim
            q_up = (m.q_lora_rank or d, h * qk)
            kv_up = (m.kv_lora_rank, h * (m.qk_nope_head_dim + m.v_head_dim))
            mats += [q_up, kv_up]
            if targets == "all":
                mats += [(d, m.kv_lora_rank + m.qk_rope_head_dim), (h * m.v_head_dim, d)]
                if m.q_lora_rank:
                    mats.append((d, m.q_lora_rank))
        else:
            kv = cfg.n_kv_heads
            mats += [(d, h * cfg.k_head_dim), (d, kv * cfg.v_head_dim)]
            if targets == "all":
                mats += [(d, kv * cfg.k_head_dim), (h * cfg.v_head_dim, d)]
    if targets == "all" and cfg.has_ffn(i):
        gated = cfg.ffn_kind == "gated"

        def ffn(width: int, n: int) -> None:
            mats.extend([(d, width)] * ((1 + gated) * n) + [(width, d)] * n)

        if cfg.is_moe_layer(i):
            moe = cfg.moe
            assert moe is not None
            ffn(moe.d_expert_ffn, moe.n_routed_experts)
            ffn(moe.shared_ffn, moe.n_shared_experts)
        else:
            ffn(cfg.d_ffn, 1)
    return sum(tm.lora_params(rank, a, b) for a, b in mats), len(mats)


def model_states(cfg: ModelConfig, s: TrainSetup, sh, p, rcp, stage: range) -> States:
    """The busiest GPU's model states: ``sh`` its shard (calc.deploy.parallel), ``p`` the
    model's parameter counts, ``rcp`` the precision recipe, ``stage`` the first stage's
    layers (the one the states are sized on)."""
    from calc.deploy.parallel import params_per_gpu
    from calc.formulas.params import ffn_params

    # Parameters on the busiest GPU; experts are replicated over fewer ranks than the rest.
    params_gpu = params_per_gpu(cfg, sh)
    lps = sh.layers_per_stage
    expert_gpu = 0
    if cfg.moe is not None:
        expert_gpu = (
            min(lps, cfg.n_moe_layers)
            * sh.n_experts
            * ffn_params(cfg.d_model, sh.d_expert_ffn, cfg.ffn_kind == "gated", cfg.ffn_bias)
        )
    dp_dense = s.dp * s.cp
    # each expert lives on (tp · cp · dp) / ep GPUs of a stage (whole experts under EP)
    dp_expert = s.tp * s.cp * s.dp // s.ep if s.ep > 1 else dp_dense
    shards = (params_gpu - expert_gpu, expert_gpu, dp_dense, dp_expert)
    if s.finetune == "full":
        trainable, adapter_gpu, w_b = p.total, 0, rcp.weight_bytes
        figs = [_full_figure(rcp, dp_dense, s.zero)]
        parts, by = _full_states(rcp, s.zero, *shards), None
    else:  # LoRA / QLoRA: frozen base, adapters trained in fp32
        trainable, adapter_gpu, w_b, figs = _adapters(cfg, s, p, rcp, stage)
        parts, by = _adapter_states(s, params_gpu, adapter_gpu, w_b, dp_dense)
    weights, grads, optim = (whole(x) for x in parts)
    gather = 0
    if s.zero == 3:  # FSDP/ZeRO-3 all-gathers one layer's full weights, prefetching the next
        tables = sh.vocab * cfg.d_model * (2 if s.pp == 1 and not cfg.tie_embeddings else 1)
        gather = whole(2 * ((params_gpu - tables) // lps) * w_b)
    if by is None:  # experts live on fewer ranks, so they shard over dp_expert
        held = (params_gpu - expert_gpu, expert_gpu)
        by = (rcp.weight_bytes, rcp.grad_bytes, rcp.optimizer_bytes)
    else:  # the frozen base, or the adapters (which train)
        held = (adapter_gpu, 0)
    figs += _state_figures(
        (weights, grads, optim), by, held, params_gpu, s, dp_dense, dp_expert
    )
    return States(params_gpu, trainable, adapter_gpu, w_b, dp_dense, weights, grads, optim,
                  gather, figs)  # fmt: skip


def _full_states(rcp, z: int, dense_gpu, expert_gpu, dp_dense, dp_expert) -> tuple:
    """(weights, grads, optimizer states) [bytes] when every weight trains."""

    def both(state, per_param):
        return state(dense_gpu, per_param, dp_dense, z) + state(
            expert_gpu, per_param, dp_expert, z
        )

    return (
        both(tm.weight_state_bytes, rcp.weight_bytes),
        both(tm.grad_state_bytes, rcp.grad_bytes),
        both(tm.optimizer_state_bytes, rcp.optimizer_bytes),
    )


def _full_figure(rcp, dp_dense: int, z: int) -> Figure:
    return figure(
        "model_state_bytes_per_param",
        tm.model_state_bytes_per_param(
            rcp.weight_bytes, rcp.grad_bytes, rcp.optimizer_bytes, dp_dense, z
        ),
        "bytes",
        "{weights}/{shard_w} + {grads}/{shard_g} + ({master} + 2 × {moment})/{shard_o}",
        weights=rcp.weight_bytes,
        grads=rcp.grad_bytes,
        master=rcp.master_bytes,
        moment=rcp.moment_bytes,
        shard_w=dp_dense if z >= 3 else 1,
        shard_g=dp_dense if z >= 2 else 1,
        shard_o=dp_dense if z >= 1 else 1,
    )


def _adapters(cfg: ModelConfig, s: TrainSetup, p, rcp, stage: range):
    """(trainable params, adapter params on the busiest GPU, bytes per frozen base weight,
    figures) under LoRA or QLoRA."""
    lora = [lora_params_per_layer(cfg, i, s.lora_rank, s.lora_targets)[0]
            for i in range(cfg.n_layers)]  # fmt: skip
    trainable = sum(lora)
    adapter_gpu = sum(lora[i] for i in stage) / s.tp
    figs = []
    if s.finetune == "qlora":
        frozen_16 = p.embedding + p.lm_head + p.norms
        w_b = ((p.total - frozen_16) * tm.NF4_BYTES_PER_ELEMENT + frozen_16 * 2) / p.total
        figs.append(
            figure(
                "base_bytes_per_param",
                w_b,
                "bytes",
                "(({linear} × {nf4}) + {other} × 2) / {total}",
                linear=p.total - frozen_16,
                nf4=tm.NF4_BYTES_PER_ELEMENT,
                other=frozen_16,
                total=p.total,
            )
        )
    else:
        w_b = rcp.weight_bytes
    figs.append(
        figure(
            "adapter_params",
            trainable,
            "params",
            "Σ layers Σ adapted matrices {rank} × (d_in + d_out)",
            rank=s.lora_rank,
        )
    )
    return trainable, adapter_gpu, w_b, figs


def _adapter_states(s: TrainSetup, params_gpu, adapter_gpu, w_b, dp_dense) -> tuple:
    """((weights, grads, optimizer states) [bytes], bytes per parameter of each) under LoRA or
    QLoRA: the frozen base is held, the adapters train."""
    z = s.zero
    a_b = tm.ADAPTER_WEIGHT_BYTES[s.adapter_dtype]
    moments = a_b + tm.ADAPTER_MOMENT_BYTES
    states = (
        tm.weight_state_bytes(params_gpu, w_b, dp_dense, z),
        tm.grad_state_bytes(adapter_gpu, a_b, dp_dense, z),
        tm.optimizer_state_bytes(adapter_gpu, moments, dp_dense, z),
    )
    return states, (w_b, a_b, moments)


def _state_figures(values, by, held, params_gpu, s: TrainSetup, dp_dense, dp_expert):
    """The derivations of the weights, gradients and optimizer states per GPU."""
    dense_p, expert_p = held
    full = s.finetune == "full"
    figs = []
    for key, value, b, first_stage in zip(
        ("weights_bytes_per_gpu", "grads_bytes_per_gpu", "optimizer_bytes_per_gpu"),
        values,
        by,
        (3, 2, 1),
        strict=True,
    ):
        params = params_gpu if key == "weights_bytes_per_gpu" and not full else dense_p
        sharded = s.zero >= first_stage
        if expert_p:
            figs.append(
                figure(
                    key,
                    value,
                    "bytes",
                    "{dense_params} × {bytes} / {shard} + {expert_params} × {bytes} / "
                    "{expert_shard}",
                    dense_params=params,
                    expert_params=expert_p,
                    bytes=b,
                    shard=dp_dense if sharded else 1,
                    expert_shard=dp_expert if sharded else 1,
                )
            )
        else:
            figs.append(
                figure(
                    key,
                    value,
                    "bytes",
                    "{params} × {bytes} / {shard}",
                    params=params,
                    bytes=b,
                    shard=dp_dense if sharded else 1,
                )
            )
    return figs
