"""The training report: memory per GPU [bytes], FLOPs [FLOP], step and run time [s], cost
[USD] of one training or fine-tuning setup, each figure with its derivation.

It composes the formulas of calc.train.memory, .flops, .time and .cost with the parameter
counts and shards of calc.formulas.params and calc.deploy.parallel; it adds no arithmetic of its
own beyond
summing parts and multiplying per-layer figures by layer counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from calc.data.hardware_schema import HardwareProfile
from calc.data.limits import check_positive_int
from calc.data.model_schema import ModelConfig
from calc.errors import InvalidInputError
from calc.output.derivation import Figure, figure, whole
from calc.train import cost as tc
from calc.train import flops as tf
from calc.train import memory as tm
from calc.train import time as tt

FINETUNE = ("full", "lora", "qlora")
LORA_TARGETS = ("all", "qv")
SCHEDULES = ("1f1b", "interleaved")
MAX_TOKENS = 1e16
NETWORK_BYTES_PER_S = 50e9  # one 400 Gb/s NIC per GPU (DGX H100: 8 × ConnectX-7 400G)


def usable_memory_bytes(hw: HardwareProfile) -> int:
    """Memory one GPU offers a training process [bytes]: what torch reports as the device's
    total (the profile's usable memory), as for serving (the one place that reads it)."""
    return hw.budget_memory_bytes


@dataclass(frozen=True, kw_only=True)
class TrainSetup:
    """How one model is trained: sequence shape, parallelism, precision, memory policies and
    the run's budget and price."""

    ctx: int = 4096
    micro_batch: int = 1
    global_batch: int | None = None  # sequences per optimizer step; default below
    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    dp: int = 1
    recipe: str = "bf16"
    zero: int = 0
    recompute: str = "none"
    flash: bool = True
    dropout: bool = False
    sequence_parallel: bool = True
    virtual_stages: int = 1
    finetune: str = "full"
    lora_rank: int = 16
    lora_targets: str = "all"
    adapter_dtype: str = "fp32"
    tokens: float | None = None
    mfu: float | None = None
    efficiency: str = "expected"
    usd_per_hour: float | None = None
    # how a GPU-hour is priced (calc.deploy.pricing: a basis, a stated price or owned TCO);
    # None: the profile's price on the default basis, or ``usd_per_hour``
    pricing: object = None
    overhead_bytes: int = 2**29
    network_bytes_per_s: float = NETWORK_BYTES_PER_S

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.cp * self.dp

    @property
    def default_global_batch(self) -> int:
        """micro_batch × dp × m with m = 1 without pipelining, else 4 × pp (bubble ≤ 20 %)."""
        return self.micro_batch * self.dp * (1 if self.pp == 1 else 4 * self.pp)


@dataclass(frozen=True)
class TrainReport:
    fields: dict
    figures: list[Figure]
    warnings: list[str] = field(default_factory=list)


def _choice(flag: str, value: str, choices) -> None:
    if value not in choices:
        raise InvalidInputError(f"{flag} {value!r} is not one of: {', '.join(choices)}")


def _check(cfg: ModelConfig, s: TrainSetup) -> None:
    check_positive_int("ctx", s.ctx, 10**8)
    check_positive_int("micro-batch", s.micro_batch, 10**6)
    for name in ("tp", "pp", "cp", "ep", "dp", "virtual-stages", "lora-rank"):
        check_positive_int(name, getattr(s, name.replace("-", "_")), 10**6)
    tm.recipe(s.recipe)
    _choice("--recompute", s.recompute, tm.RECOMPUTE)
    _choice("--finetune", s.finetune, FINETUNE)
    _choice("--lora-targets", s.lora_targets, LORA_TARGETS)
    _choice("--adapter-dtype", s.adapter_dtype, tuple(tm.ADAPTER_WEIGHT_BYTES))
    if s.zero not in tm.ZERO_STAGES:
        raise InvalidInputError(f"--zero must be 0, 1, 2 or 3, got {s.zero!r}")
    if s.ctx % s.cp:
        raise InvalidInputError(f"--cp {s.cp} must divide --ctx {s.ctx:,}")
    if s.virtual_stages > 1 and s.pp == 1:
        raise InvalidInputError("--virtual-stages needs --pp > 1 (interleaved pipeline)")
    if s.virtual_stages > 1 and cfg.n_layers % (s.pp * s.virtual_stages):
        raise InvalidInputError(
            f"--pp {s.pp} × --virtual-stages {s.virtual_stages} must divide the "
            f"{cfg.n_layers} layers of {cfg.name}"
        )
    if s.ep > 1 and (s.tp * s.cp * s.dp) % s.ep:
        raise InvalidInputError(
            f"--ep {s.ep} must divide --tp × --cp × --dp = {s.tp * s.cp * s.dp} (experts are "
            "spread over the data-parallel ranks of a stage)"
        )
    gb = s.global_batch
    if gb is not None:
        check_positive_int("global-batch", gb, 10**9)
        if gb % (s.micro_batch * s.dp):
            raise InvalidInputError(
                f"--global-batch {gb:,} must be a multiple of --micro-batch × --dp = "
                f"{s.micro_batch * s.dp:,}"
            )
    if s.tokens is not None and not 0 < s.tokens <= MAX_TOKENS:
        raise InvalidInputError(f"--tokens must be in (0, 1e16], got {s.tokens!r}")
    if s.mfu is not None and not 0 < s.mfu <= 1:
        raise InvalidInputError(f"--mfu must be a fraction in (0, 1], got {s.mfu!r}")
    if s.usd_per_hour is not None and not 0 < s.usd_per_hour <= 10_000:
        raise InvalidInputError(f"--usd-per-hour must be in (0, 10000], got {s.usd_per_hour!r}")
    if not 0 < s.network_bytes_per_s <= 1e14:
        raise InvalidInputError("--network-bandwidth must be in (0, 100 TB/s]")


def _stage_layers(cfg: ModelConfig, layers_per_stage: int) -> range:
    """The first pipeline stage's layers (it holds the most micro-batches in flight)."""
    return range(min(layers_per_stage, cfg.n_layers))


def _lora_params_per_layer(cfg: ModelConfig, i: int, rank: int, targets: str) -> tuple[int, int]:
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


def _layer_activation(cfg: ModelConfig, i: int, s: TrainSetup, act_b: float, rec: str) -> float:
    """Stored activations of layer ``i`` for one micro-batch on one GPU [bytes]."""
    from calc.formulas.ssm import ssm_d_inner

    t = s.micro_batch * s.ctx // s.cp
    kw = dict(act_bytes=act_b, tp=s.tp, sequence_parallel=s.sequence_parallel)
    extra = max(0, cfg.norms_per_layer - 2)  # Gemma's post-norms keep their inputs too
    kind = cfg.layers[i]
    total = 0.0
    if kind in ("full", "sliding", "chunked"):
        core = dict(flash=s.flash, dropout=s.dropout, recompute=rec)
        if cfg.mla is not None:
            m = cfg.mla
            total += tm.mla_activation_bytes(
                t, s.ctx, cfg.d_model, cfg.n_heads, m.q_lora_rank or 0, m.kv_lora_rank,
                m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim, **core, **kw,
            )  # fmt: skip
        else:
            total += tm.attention_activation_bytes(
                t, s.ctx, cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.k_head_dim,
                cfg.v_head_dim, extra_norms=extra / 2, **core, **kw,
            )  # fmt: skip
    elif kind in ("mamba", "mamba2"):
        ssm = cfg.ssm
        assert ssm is not None
        e = ssm_d_inner(ssm, cfg.d_model, kind == "mamba2")
        gn = 2 * ssm.n_groups * ssm.d_state if kind == "mamba2" else 0
        in_w = 2 * e + gn + (ssm.n_heads or 0) * (kind == "mamba2")
        total += tm.ssm_activation_bytes(t, cfg.d_model, in_w, e + gn, e, **kw)
    if cfg.has_ffn(i):
        gated = cfg.ffn_kind == "gated"
        if cfg.is_moe_layer(i):
            moe = cfg.moe
            assert moe is not None
            total += tm.moe_activation_bytes(
                t, cfg.d_model, moe.n_routed_experts, moe.experts_per_token, moe.d_expert_ffn,
                moe.n_shared_experts, moe.shared_ffn, gated, dropout=s.dropout,
                extra_norms=extra / 2, **kw,
            )  # fmt: skip
        else:
            total += tm.ffn_activation_bytes(
                t, cfg.d_model, cfg.d_ffn, gated, dropout=s.dropout, extra_norms=extra / 2, **kw
            )
    if s.finetune != "full":  # x·A, r wide, per adapted matrix
        total += _lora_params_per_layer(cfg, i, s.lora_rank, s.lora_targets)[1] * (
            t * s.lora_rank * act_b / s.tp
        )
    return total


def _peak(hw: HardwareProfile, dtype: str) -> float:
    if dtype == "fp32" and "tf32" in hw.peak_flops_per_s:
        dtype = "tf32"  # fp32 training runs its matmuls in TF32 on the tensor cores
    try:
        return hw.peak_flops_per_s[dtype]
    except KeyError:
        raise InvalidInputError(
            f"{hw.name} has no {dtype} tensor-core peak; use a bf16 --recipe"
        ) from None


def train_report(cfg: ModelConfig, hw: HardwareProfile, s: TrainSetup) -> TrainReport:
    """Memory per GPU and its fit, FLOPs, step time, run time and cost of training ``cfg`` on
    ``hw`` as ``s`` describes."""
    from calc.deploy.parallel import params_per_gpu, shard
    from calc.deploy.rates import efficiencies
    from calc.formulas.params import ffn_params, model_params

    _check(cfg, s)
    rcp = tm.recipe(s.recipe)
    sh = shard(cfg, tp=s.tp, pp=s.pp, ep=s.ep)
    p = model_params(cfg)
    gpus = s.gpus
    lps = sh.layers_per_stage
    stage = _stage_layers(cfg, lps)
    warnings: list[str] = []
    figs: list[Figure] = []

    # Parameters on the busiest GPU; experts are replicated over fewer ranks than the rest.
    params_gpu = params_per_gpu(cfg, sh)
    expert_gpu = 0
    if cfg.moe is not None:
        expert_gpu = (
            min(lps, cfg.n_moe_layers)
            * sh.n_experts
            * ffn_params(cfg.d_model, sh.d_expert_ffn, cfg.ffn_kind == "gated", cfg.ffn_bias)
        )
    dense_gpu = params_gpu - expert_gpu
    dp_dense = s.dp * s.cp
    # each expert lives on (tp · cp · dp) / ep GPUs of a stage (whole experts under EP)
    dp_expert = s.tp * s.cp * s.dp // s.ep if s.ep > 1 else dp_dense
    z = s.zero

    # Model states
    adapter_gpu = 0
    if s.finetune == "full":
        trainable = p.total
        w_b = rcp.weight_bytes
        weights = tm.weight_state_bytes(dense_gpu, w_b, dp_dense, z) + tm.weight_state_bytes(
            expert_gpu, w_b, dp_expert, z
        )
        grads = tm.grad_state_bytes(dense_gpu, rcp.grad_bytes, dp_dense, z) + tm.grad_state_bytes(
            expert_gpu, rcp.grad_bytes, dp_expert, z
        )
        optim = tm.optimizer_state_bytes(
            dense_gpu, rcp.optimizer_bytes, dp_dense, z
        ) + tm.optimizer_state_bytes(expert_gpu, rcp.optimizer_bytes, dp_expert, z)
        figs.append(
            figure(
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
        )
    else:  # LoRA / QLoRA: frozen base, adapters trained in fp32
        lora = [_lora_params_per_layer(cfg, i, s.lora_rank, s.lora_targets)[0]
                for i in range(cfg.n_layers)]  # fmt: skip
        trainable = sum(lora)
        adapter_gpu = sum(lora[i] for i in stage) / s.tp
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
        weights = tm.weight_state_bytes(params_gpu, w_b, dp_dense, z)
        a_b = tm.ADAPTER_WEIGHT_BYTES[s.adapter_dtype]
        grads = tm.grad_state_bytes(adapter_gpu, a_b, dp_dense, z)
        optim = tm.optimizer_state_bytes(adapter_gpu, a_b + tm.ADAPTER_MOMENT_BYTES, dp_dense, z)
        figs.append(
            figure(
                "adapter_params",
                trainable,
                "params",
                "Σ layers Σ adapted matrices {rank} × (d_in + d_out)",
                rank=s.lora_rank,
            )
        )
    weights, grads, optim = whole(weights), whole(grads), whole(optim)
    gather = 0
    if z == 3:  # FSDP/ZeRO-3 all-gathers one layer's full weights, prefetching the next
        tables = sh.vocab * cfg.d_model * (2 if s.pp == 1 and not cfg.tie_embeddings else 1)
        gather = whole(2 * ((params_gpu - tables) // lps) * w_b)
    full = s.finetune == "full"
    a_b = tm.ADAPTER_WEIGHT_BYTES[s.adapter_dtype]
    if full:  # experts live on fewer ranks, so they shard over dp_expert
        dense_p, expert_p = dense_gpu, expert_gpu
        by = (rcp.weight_bytes, rcp.grad_bytes, rcp.optimizer_bytes)
    else:  # the frozen base, or the adapters (which train)
        dense_p, expert_p = adapter_gpu, 0
        by = (w_b, a_b, a_b + tm.ADAPTER_MOMENT_BYTES)
    for key, value, b, first_stage in (
        ("weights_bytes_per_gpu", weights, by[0], 3),
        ("grads_bytes_per_gpu", grads, by[1], 2),
        ("optimizer_bytes_per_gpu", optim, by[2], 1),
    ):
        params = params_gpu if key == "weights_bytes_per_gpu" and not full else dense_p
        sharded = z >= first_stage
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

    # Activations of the first stage's layers, one micro-batch
    act_b = 4 if s.recipe == "fp32" else 2
    tokens_mb = s.micro_batch * s.ctx // s.cp
    kw = dict(tp=s.tp, sequence_parallel=s.sequence_parallel)

    def stage_activations(layers: range) -> tuple[float, float]:
        """(stored bytes of these layers for one micro-batch, the one-layer working set that
        full recomputation re-materialises)."""
        if not layers:
            return 0, 0
        if s.recompute == "full":
            ckpt = tm.checkpoint_bytes(tokens_mb, cfg.d_model, act_b, **kw)
            return ckpt * len(layers), max(
                _layer_activation(cfg, i, s, act_b, "none") for i in layers
            )
        return sum(_layer_activation(cfg, i, s, act_b, s.recompute) for i in layers), 0

    layers_act, working = stage_activations(stage)
    last_stage = range(min((s.pp - 1) * lps, cfg.n_layers), cfg.n_layers)
    last_act, last_working = stage_activations(last_stage)
    if s.recompute == "full":
        figs.append(
            figure(
                "activation_bytes_per_layer",
                layers_act / len(stage),
                "bytes",
                "{tokens} × {d_model} × {bytes}" + (" / {tp}" if s.sequence_parallel else ""),
                tokens=tokens_mb,
                d_model=cfg.d_model,
                bytes=act_b,
                tp=s.tp,
            )
        )
    else:
        first_layer = _layer_activation(cfg, 0, s, act_b, s.recompute)
        figs.append(_activation_figure(cfg, s, act_b, tokens_mb, first_layer))
    per_layer_act = layers_act / len(stage)
    m = (s.global_batch or s.default_global_batch) // (s.micro_batch * s.dp)
    emb = tm.embedding_activation_bytes(tokens_mb, cfg.d_model, s.dropout)
    out = tm.output_activation_bytes(tokens_mb, cfg.d_model, cfg.vocab_size, act_b, **kw)
    # the first stage holds the most micro-batches; the last one holds the logits
    in_first = tm.in_flight_microbatches(s.pp, m, s.virtual_stages)
    in_last = tm.in_flight_microbatches_last_stage(s.pp, m, s.virtual_stages)
    first = (layers_act + emb) * in_first + working + (out if s.pp == 1 else 0)
    last = last_act * in_last + last_working + out
    busiest = "first" if s.pp == 1 or first >= last else "last"
    activations = whole(max(first, last) if s.pp > 1 else first)
    if busiest == "first":
        figs.append(
            figure(
                "activation_bytes_per_gpu",
                activations,
                "bytes",
                "({layers} × {per_layer} + {embedding}) × {in_flight} + {working_layer}"
                + (" + {output}" if s.pp == 1 else ""),
                layers=len(stage),
                per_layer=per_layer_act,
                embedding=emb,
                in_flight=in_first,
                working_layer=working,
                output=out,
            )
        )
    else:
        figs.append(
            figure(
                "activation_bytes_per_gpu",
                activations,
                "bytes",
                "{layers} × {per_layer} × {in_flight} + {working_layer} + {output}",
                layers=len(last_stage),
                per_layer=last_act / max(1, len(last_stage)),
                in_flight=in_last,
                working_layer=last_working,
                output=out,
            )
        )
    total = whole(weights + grads + optim + gather + activations + s.overhead_bytes)
    capacity = usable_memory_bytes(hw)
    fits = total <= capacity
    figs.append(
        figure(
            "total_bytes_per_gpu",
            total,
            "bytes",
            "{weights} + {grads} + {optimizer} + {gathered} + {activations} + {overhead}",
            weights=weights,
            grads=grads,
            optimizer=optim,
            gathered=gather,
            activations=activations,
            overhead=s.overhead_bytes,
        )
    )
    # activations grow with the micro-batch: the largest one that fits
    act_per_seq = activations / s.micro_batch
    static = total - activations
    max_mb = max(0, int((capacity - static) // act_per_seq)) if act_per_seq else 0

    # FLOPs per token
    n_mm = tf.matmul_params(p.active, p.embedding, p.norms, cfg.tie_embeddings)
    attn_fwd = attn_scores = 0
    for kind in cfg.layers:
        if kind in ("full", "sliding", "chunked"):
            pairs = tf.layer_pairs(kind, s.ctx, cfg.sliding_window, cfg.attention_chunk_size)
            attn_fwd += tf.attention_forward_flops(
                pairs, cfg.n_heads, cfg.k_head_dim, cfg.v_head_dim
            )
            attn_scores += 2 * pairs * cfg.n_heads * cfg.k_head_dim
    attn_fwd_tok = attn_fwd / s.ctx
    scores_tok = attn_scores / s.ctx
    mm_fwd = tf.forward_matmul_flops_per_token(n_mm)
    fwd = mm_fwd + attn_fwd_tok
    model_tok = tf.training_flops_per_token(fwd)
    extra_tok = tf.recompute_flops_per_token(s.recompute, mm_fwd, attn_fwd_tok, scores_tok, s.flash)
    hw_tok = model_tok + extra_tok
    figs += [
        figure(
            "model_flops_per_token",
            model_tok,
            "FLOP",
            "6 × {matmul_params} + 3 × {attention_forward_per_token}",
            matmul_params=n_mm,
            attention_forward_per_token=attn_fwd_tok,
        ),
        figure(
            "recompute_flops_per_token",
            extra_tok,
            "FLOP",
            {
                "full": "{matmul_forward} + {attention_forward}",
                "selective": "{attention_forward}" if not s.flash else "0",
                "none": "0",
            }[s.recompute]
            + (" + {flash_backward_scores}" if s.flash else ""),
            matmul_forward=mm_fwd,
            attention_forward=attn_fwd_tok,
            flash_backward_scores=scores_tok,
        ),
    ]

    # Step time from the compute model
    mm_frac, _ = efficiencies(hw, s.efficiency)
    peak_mm = _peak(hw, rcp.compute_dtype)
    peak_attn = _peak(hw, "fp32" if s.recipe == "fp32" else "bf16")
    global_batch = m * s.micro_batch * s.dp
    tokens_step = global_batch * s.ctx
    mm_tok = 3 * mm_fwd + (mm_fwd if s.recompute == "full" else 0)
    attn_tok = hw_tok - mm_tok
    per_gpu_step = tokens_step / gpus
    compute_mb = (
        tt.compute_time_s(mm_tok * per_gpu_step, peak_mm, mm_frac)
        + tt.compute_time_s(attn_tok * per_gpu_step, peak_attn, mm_frac)
    ) / m
    bw, lat = hw.interconnect_bandwidth_bytes_per_s, hw.interconnect_latency_s
    tp_mb = tt.tp_comm_per_microbatch_s(
        tokens_mb, cfg.d_model, act_b, lps, s.tp, bw, lat, s.recompute == "full"
    )
    ep_mb = 0.0
    if s.ep > 1 and cfg.moe is not None:
        ep_mb = tt.ep_comm_per_microbatch_s(
            tokens_mb, cfg.d_model, act_b, cfg.moe.experts_per_token,
            min(lps, cfg.n_moe_layers), s.ep, bw, lat,
        )  # fmt: skip
    pp_mb = tt.pp_comm_per_microbatch_s(
        tokens_mb, cfg.d_model, act_b, s.pp, s.network_bytes_per_s, lat
    )
    mb_s = compute_mb + tp_mb + ep_mb + pp_mb
    bubble = tt.bubble_fraction(s.pp, m, s.virtual_stages)
    pipe_s = tt.pipeline_step_s(mb_s, s.pp, m, s.virtual_stages)
    grad_msg = (
        params_gpu * rcp.grad_bytes
        if s.finetune == "full"
        else adapter_gpu * tm.ADAPTER_WEIGHT_BYTES[s.adapter_dtype]
    )
    dp_s = tt.dp_comm_per_step_s(
        grad_msg, params_gpu * w_b, dp_dense, z, s.network_bytes_per_s, lat
    )
    dp_exposed = max(0.0, dp_s - compute_mb * 2 / 3)
    step_s = pipe_s + dp_exposed
    peak_model = peak_mm
    mfu_pred = tt.mfu(model_tok * tokens_step, gpus, peak_model, step_s)
    figs += [
        figure(
            "microbatch_s",
            mb_s,
            "s",
            "{compute} + {tp_comm} + {ep_comm} + {pp_comm}",
            compute=compute_mb,
            tp_comm=tp_mb,
            ep_comm=ep_mb,
            pp_comm=pp_mb,
        ),
        figure(
            "bubble_fraction",
            bubble,
            "",
            "({pp} − 1) / ({v} × {m} + {pp} − 1)",
            pp=s.pp,
            v=s.virtual_stages,
            m=m,
        ),
        figure(
            "step_s",
            step_s,
            "s",
            "({m} + ({pp} − 1) / {v}) × {microbatch_s} + max(0, {dp_comm} − ⅔ × {compute})",
            m=m,
            pp=s.pp,
            v=s.virtual_stages,
            microbatch_s=mb_s,
            dp_comm=dp_s,
            compute=compute_mb,
        ),
        figure(
            "mfu",
            mfu_pred,
            "",
            "{model_flops_per_token} × {tokens_per_step} / ({gpus} × {peak} × {step_s})",
            model_flops_per_token=model_tok,
            tokens_per_step=tokens_step,
            gpus=gpus,
            peak=peak_model,
            step_s=step_s,
        ),
    ]
    tps_gpu = tc.tokens_per_s_per_gpu(tokens_step, step_s, gpus)

    fields: dict = {
        "model": cfg.name,
        "hardware": hw.name,
        "finetune": s.finetune,
        "recipe": s.recipe,
        "zero_stage": z,
        "recompute": s.recompute,
        "flash_attention": s.flash,
        "ctx": s.ctx,
        "micro_batch": s.micro_batch,
        "global_batch": global_batch,
        "microbatches": m,
        "tp": s.tp,
        "pp": s.pp,
        "cp": s.cp,
        "ep": s.ep,
        "dp": s.dp,
        "gpus": gpus,
        "params_total": p.total,
        "params_trainable": trainable,
        "params_per_gpu": params_gpu,
        "weights_bytes_per_gpu": weights,
        "grads_bytes_per_gpu": grads,
        "optimizer_bytes_per_gpu": optim,
        "gathered_weights_bytes_per_gpu": gather,
        "activation_bytes_per_layer": whole(per_layer_act),
        "activation_bytes_per_gpu": activations,
        "activation_stage": busiest,
        "overhead_bytes_per_gpu": s.overhead_bytes,
        "total_bytes_per_gpu": total,
        "memory_bytes_per_gpu": capacity,
        "headroom_bytes_per_gpu": whole(capacity - total),
        "fits": fits,
        "max_micro_batch_that_fits": max_mb,
        "matmul_params": n_mm,
        "model_flops_per_token": whole(model_tok),
        "forward_flops_per_token": whole(fwd),
        "backward_flops_per_token": whole(tf.backward_flops_per_token(fwd)),
        "recompute_flops_per_token": whole(extra_tok),
        "hardware_flops_per_token": whole(hw_tok),
        "tokens_per_step": tokens_step,
        "microbatch_s": mb_s,
        "bubble_fraction": bubble,
        "tp_comm_per_microbatch_s": tp_mb,
        "ep_comm_per_microbatch_s": ep_mb,
        "pp_comm_per_microbatch_s": pp_mb,
        "dp_comm_per_step_s": dp_s,
        "dp_comm_exposed_s": dp_exposed,
        "step_s": step_s,
        "mfu": mfu_pred,
        "tokens_per_s_per_gpu": tps_gpu,
    }

    if s.tokens is not None:
        d_tok = s.tokens
        model_flops = model_tok * d_tok
        figs.append(
            figure(
                "run_model_flops",
                model_flops,
                "FLOP",
                "{model_flops_per_token} × {tokens}",
                model_flops_per_token=model_tok,
                tokens=d_tok,
            )
        )
        if s.mfu is not None:
            run_s = tt.time_at_mfu_s(model_flops, gpus, peak_model, s.mfu)
            figs.append(
                figure(
                    "run_s",
                    run_s,
                    "s",
                    "{run_model_flops} / ({gpus} × {peak} × {mfu})",
                    run_model_flops=model_flops,
                    gpus=gpus,
                    peak=peak_model,
                    mfu=s.mfu,
                )
            )
        else:
            run_s = d_tok / tokens_step * step_s
            figs.append(
                figure(
                    "run_s",
                    run_s,
                    "s",
                    "{tokens} / {tokens_per_step} × {step_s}",
                    tokens=d_tok,
                    tokens_per_step=tokens_step,
                    step_s=step_s,
                )
            )
        hours = tc.gpu_hours(gpus, run_s)
        from dataclasses import replace

        from calc.deploy.pricing import Pricing

        pricing = s.pricing or Pricing(usd_per_gpu_hour=s.usd_per_hour)
        pricing = replace(pricing, fallback=True)
        choice = pricing.price_of(hw)
        if choice is None:
            raise InvalidInputError(pricing.missing(hw))
        if (note := pricing.fallback_note(hw, choice)) is not None:
            warnings.append(note)
        price = choice.usd_per_gpu_hour
        if pricing.owned is not None:
            o = pricing.owned
            figs.append(
                figure(
                    "usd_per_gpu_hour",
                    price,
                    "USD",
                    "{capex} / ({years} × 8,766 × {utilization}) + {power_kw} × {pue} "
                    "× {usd_per_kwh}",
                    capex=o.capex_of(hw),
                    years=o.years,
                    utilization=o.utilisation,
                    power_kw=o.power_kw_of(hw),
                    pue=o.pue,
                    usd_per_kwh=o.usd_per_kwh,
                )
            )
        usd = tc.run_usd(hours, price)
        figs += [
            figure("gpu_hours", hours, "GPU-h", "{gpus} × {run_s} / 3,600", gpus=gpus, run_s=run_s),
            figure(
                "run_usd",
                usd,
                "USD",
                "{gpu_hours} × {usd_per_gpu_hour}",
                gpu_hours=hours,
                usd_per_gpu_hour=price,
            ),
        ]
        fields.update(
            tokens=whole(d_tok),
            steps=d_tok / tokens_step,
            run_model_flops=model_flops,
            mfu_assumed=s.mfu,
            run_s=run_s,
            gpu_hours=hours,
            usd_per_gpu_hour=price,
            price_basis=choice.basis,
            price_kind=choice.kind,
            run_usd=usd,
        )

    if s.ctx > cfg.max_ctx:
        warnings.append(f"--ctx {s.ctx:,} exceeds {cfg.name}'s max context of {cfg.max_ctx:,}")
    if s.cp > 1 and not s.flash:
        warnings.append(
            "--cp with --no-flash: each GPU keeps its queries' scores against all --ctx keys "
            "(context parallelism is normally ring attention over FlashAttention)"
        )
    if cfg.n_layers % s.pp:
        warnings.append(
            f"--pp {s.pp} does not divide the {cfg.n_layers} layers; the first stage holds "
            f"{lps} of them"
        )
    if not fits:
        fixes = []
        if z < 3:
            fixes.append("raise --zero")
        if s.recompute != "full":
            fixes.append("use --recompute full")
        fixes.append("raise --tp/--pp or --gpus")
        if s.finetune != "qlora":
            fixes.append("use --finetune " + ("lora or qlora" if s.finetune == "full" else "qlora"))
        largest = (
            f"the largest --micro-batch that fits is {max_mb:,}"
            if max_mb
            else f"not even --micro-batch 1 fits (all but activations need "
            f"{static / 2**30:,.2f} GiB)"
        )
        warnings.append(
            f"does not fit: needs {total / 2**30:,.2f} GiB per GPU, {hw.name} has "
            f"{capacity / 2**30:,.2f} GiB; {largest} ({', '.join(fixes)})"
        )
    return TrainReport(fields, figs, warnings)


def _activation_figure(cfg, s: TrainSetup, act_b, tokens, value) -> Figure:
    """The first layer's stored activations, written as the tensors it keeps."""
    plain = cfg.mla is None and cfg.layers[0] in ("full", "sliding", "chunked")
    if not plain or s.finetune != "full" or cfg.is_moe_layer(0) or not cfg.has_ffn(0):
        return Figure(
            "activation_bytes_per_layer", value, "bytes", "layer 0's stored tensors (see docs)"
        )
    gated = cfg.ffn_kind == "gated"
    core = (
        "0"
        if s.recompute != "none"
        else ("4 × {tokens} × {n_heads}" if s.flash else "{tokens} × {n_heads} × {ctx} × {core_b}")
    )
    split = " / {tp}" if s.tp > 1 else ""
    rep = " / {tp}" if s.tp > 1 and s.sequence_parallel else ""
    return figure(
        "activation_bytes_per_layer",
        value,
        "bytes",
        "{tokens} × {d_model} × ({norms} × {a} + {masks})"
        + rep
        + " + ({tokens} × ({n_heads} × {k_head_dim} + {n_kv_heads} × ({k_head_dim} + "
        "{v_head_dim}) + {n_heads} × {v_head_dim} + {ffn_mult} × {d_ffn}) × {a} + "
        + core
        + ")"
        + split,
        tokens=tokens,
        d_model=cfg.d_model,
        a=act_b,
        norms=4 + max(0, cfg.norms_per_layer - 2),
        masks=2 * s.dropout,
        n_heads=cfg.n_heads,
        n_kv_heads=cfg.n_kv_heads,
        k_head_dim=cfg.k_head_dim,
        v_head_dim=cfg.v_head_dim,
        ffn_mult=2 + gated,
        d_ffn=cfg.d_ffn,
        ctx=s.ctx,
        core_b=act_b + s.dropout * (1 + act_b),
        tp=s.tp,
    )
