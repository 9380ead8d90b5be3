"""Activations one GPU stores while training [bytes]: per layer for one micro-batch (attention,
MLA, SSM, FFN and MoE blocks, LoRA's x·A, recomputation's checkpoints), over the micro-batches
a pipeline stage holds in flight, on the busiest stage (the first, or the last with the
logits); each with its derivation."""

from __future__ import annotations

from dataclasses import dataclass, field

from calc.data.model_schema import ModelConfig
from calc.output.derivation import Figure, figure, whole
from calc.training import memory as tm
from calc.training.setup import TrainSetup
from calc.training.states import lora_params_per_layer


@dataclass(frozen=True)
class Activations:
    """The busiest GPU's stored activations and the micro-batch shape they come from."""

    act_bytes: int  # bytes per activation element (4 under the fp32 recipe, else 2)
    tokens_mb: int  # tokens of one micro-batch on one GPU (ctx split over cp)
    microbatches: int  # micro-batches per optimizer step per replica
    per_layer: float  # stored bytes of one first-stage layer, one micro-batch
    total: int  # the busiest stage's activations [bytes]
    stage: str  # the busiest stage: "first" or "last"
    figures: list[Figure] = field(default_factory=list)


def first_stage(cfg: ModelConfig, layers_per_stage: int) -> range:
    """The first pipeline stage's layers (it holds the most micro-batches in flight)."""
    return range(min(layers_per_stage, cfg.n_layers))


def layer_activation(cfg: ModelConfig, i: int, s: TrainSetup, act_b: float, rec: str) -> float:
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
        total += _ffn_activation(cfg, i, s, t, extra, kw)
    if s.finetune != "full":  # x·A, r wide, per adapted matrix
        total += lora_params_per_layer(cfg, i, s.lora_rank, s.lora_targets)[1] * (
            t * s.lora_rank * act_b / s.tp
        )
    return total


def _ffn_activation(cfg: ModelConfig, i: int, s: TrainSetup, t: int, extra: int, kw) -> float:
    """Stored activations of layer ``i``'s FFN or MoE block [bytes]."""
    gated = cfg.ffn_kind == "gated"
    if cfg.is_moe_layer(i):
        moe = cfg.moe
        assert moe is not None
        return tm.moe_activation_bytes(
            t, cfg.d_model, moe.n_routed_experts, moe.experts_per_token, moe.d_expert_ffn,
            moe.n_shared_experts, moe.shared_ffn, gated, dropout=s.dropout,
            extra_norms=extra / 2, **kw,
        )  # fmt: skip
    return tm.ffn_activation_bytes(
        t, cfg.d_model, cfg.d_ffn, gated, dropout=s.dropout, extra_norms=extra / 2, **kw
    )


def stage_activations(cfg: ModelConfig, s: TrainSetup, lps: int) -> Activations:
    """The activations of the busiest pipeline stage (``lps`` layers per stage)."""
    act_b = 4 if s.recipe == "fp32" else 2
    tokens_mb = s.micro_batch * s.ctx // s.cp
    kw = dict(tp=s.tp, sequence_parallel=s.sequence_parallel)

    def held(layers: range) -> tuple[float, float]:
        """(stored bytes of these layers for one micro-batch, the one-layer working set that
        full recomputation re-materialises)."""
        if not layers:
            return 0, 0
        if s.recompute == "full":
            ckpt = tm.checkpoint_bytes(tokens_mb, cfg.d_model, act_b, **kw)
            return ckpt * len(layers), max(
                layer_activation(cfg, i, s, act_b, "none") for i in layers
            )
        return sum(layer_activation(cfg, i, s, act_b, s.recompute) for i in layers), 0

    stage = first_stage(cfg, lps)
    layers_act, working = held(stage)
    last_stage = range(min((s.pp - 1) * lps, cfg.n_layers), cfg.n_layers)
    last_act, last_working = held(last_stage)
    figs = [_layer_figure(cfg, s, act_b, tokens_mb, layers_act / len(stage))]
    m = (s.global_batch or s.default_global_batch) // (s.micro_batch * s.dp)
    emb = tm.embedding_activation_bytes(tokens_mb, cfg.d_model, s.dropout)
    out = tm.output_activation_bytes(tokens_mb, cfg.d_model, cfg.vocab_size, act_b, **kw)
    # the first stage holds the most micro-batches; the last one holds the logits
    in_first = tm.in_flight_microbatches(s.pp, m, s.virtual_stages)
    in_last = tm.in_flight_microbatches_last_stage(s.pp, m, s.virtual_stages)
    first = (layers_act + emb) * in_first + working + (out if s.pp == 1 else 0)
    last = last_act * in_last + last_working + out
    busiest = "first" if s.pp == 1 or first >= last else "last"
    total = whole(max(first, last) if s.pp > 1 else first)
    if busiest == "first":
        figs.append(
            figure(
                "activation_bytes_per_gpu",
                total,
                "bytes",
                "({layers} × {per_layer} + {embedding}) × {in_flight} + {working_layer}"
                + (" + {output}" if s.pp == 1 else ""),
                layers=len(stage),
                per_layer=layers_act / len(stage),
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
                total,
                "bytes",
                "{layers} × {per_layer} × {in_flight} + {working_layer} + {output}",
                layers=len(last_stage),
                per_layer=last_act / max(1, len(last_stage)),
                in_flight=in_last,
                working_layer=last_working,
                output=out,
            )
        )
    return Activations(act_b, tokens_mb, m, layers_act / len(stage), total, busiest, figs)


def _layer_figure(cfg: ModelConfig, s: TrainSetup, act_b, tokens_mb, per_layer) -> Figure:
    """One first-stage layer's stored activations: a checkpoint under full recomputation,
    else the tensors layer 0 keeps."""
    if s.recompute == "full":
        return figure(
            "activation_bytes_per_layer",
            per_layer,
            "bytes",
            "{tokens} × {d_model} × {bytes}" + (" / {tp}" if s.sequence_parallel else ""),
            tokens=tokens_mb,
            d_model=cfg.d_model,
            bytes=act_b,
            tp=s.tp,
        )
    first_layer = layer_activation(cfg, 0, s, act_b, s.recompute)
    return _activation_figure(cfg, s, act_b, tokens_mb, first_layer)


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
