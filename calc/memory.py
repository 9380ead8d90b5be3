"""Memory footprint [bytes] of serving a model: weights plus KV cache of the whole model, and
beside it the per-GPU ledger of the deployment (``calc.ledger``) with its verdict.

Composes params, kv_cache and attention_layout; every figure carries its derivation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from calc.attention_layout import AttentionLayout
from calc.deployment import MAX_CTX, Deployment, Workload
from calc.derivation import Figure, figure, whole
from calc.model_schema import ModelConfig
from calc.params import ParamBreakdown, layer_attention_params, model_params
from calc.ssm import ssm_state_bytes_per_sequence, ssm_state_elements_per_sequence


@dataclass(frozen=True)
class MemoryReport:
    fields: dict  # JSON keys -> unrounded base-unit values, in output order
    figures: list[Figure]
    warnings: list[str] = field(default_factory=list)


def _param_figures(cfg: ModelConfig, p: ParamBreakdown) -> list[Figure]:
    d, L = cfg.d_model, cfg.n_layers
    figs = [
        figure(
            "embedding_params",
            p.embedding,
            "params",
            "{vocab_size} × {d_model}",
            vocab_size=cfg.vocab_size,
            d_model=d,
        ),
        Figure(
            "lm_head_params",
            p.lm_head,
            "params",
            "0 (tied to the embedding)" if cfg.tie_embeddings else "vocab_size × d_model",
        ),
    ]
    attn = layer_attention_params(cfg)
    if cfg.mla is not None:
        figs.append(
            Figure(
                "attention_params_per_layer",
                attn,
                "params",
                "MLA: d·q_lora + q_lora + q_lora·h·(nope+rope) + d·(kv_lora+rope) "
                "+ kv_lora + kv_lora·h·(nope+v) + h·v·d",
            )
        )
    else:
        figs.append(
            figure(
                "attention_params_per_layer",
                attn,
                "params",
                "{d_model}·{n_heads}·{head_dim} + 2·{d_model}·{n_kv_heads}·{head_dim} "
                "+ {n_heads}·{head_dim}·{d_model} (+ biases)",
                d_model=d,
                n_heads=cfg.n_heads,
                n_kv_heads=cfg.n_kv_heads,
                head_dim=cfg.k_head_dim,
            )
        )
    n_mat = 3 if cfg.ffn_kind == "gated" else 2
    if cfg.n_dense_ffn_layers:
        figs.append(
            figure(
                "dense_ffn_params",
                p.dense_ffn,
                "params",
                "{layers} × {n_mat} × {d_model} × {d_ffn}",
                layers=cfg.n_dense_ffn_layers,
                n_mat=n_mat,
                d_model=d,
                d_ffn=cfg.d_ffn,
            )
        )
    if cfg.moe is not None:
        m = cfg.moe
        figs.append(
            figure(
                "moe_routed_params",
                p.moe_routed,
                "params",
                "{moe_layers} × {experts} × {n_mat} × {d_model} × {d_expert_ffn}",
                moe_layers=cfg.n_moe_layers,
                experts=m.n_routed_experts,
                n_mat=n_mat,
                d_model=d,
                d_expert_ffn=m.d_expert_ffn,
            )
        )
        figs.append(
            Figure(
                "moe_shared_and_router_params",
                p.moe_shared + p.router,
                "params",
                "moe_layers × (shared × n_mat·d·d_shared + d·n_experts [+ bias])",
            )
        )
    figs.append(
        Figure(
            "attention_params",
            p.attention,
            "params",
            f"{cfg.n_attention_layers} attention layers × per-layer",
        )
    )
    if p.ssm:
        figs.append(
            Figure(
                "ssm_params",
                p.ssm,
                "params",
                f"{cfg.n_layers_of('mamba')} Mamba + {cfg.n_layers_of('mamba2')} Mamba-2 "
                "layers × per-layer mixer (calc/ssm.py)",
            )
        )
    figs.append(
        Figure(
            "norm_params",
            p.norms,
            "params",
            f"({L} × {cfg.norms_per_layer} + 1 final) × "
            f"{'2·' if cfg.norm == 'layernorm' else ''}{d}",
        )
    )
    figs.append(
        Figure(
            "params_total",
            p.total,
            "params",
            "embedding + lm_head + attention + ffn + experts + router + norms",
        )
    )
    if cfg.moe is not None:
        figs.append(
            figure(
                "params_active",
                p.active,
                "params",
                "{total} − {routed} + {routed_active} (routed experts, then the top-k active)",
                total=p.total,
                routed=p.moe_routed,
                routed_active=p.moe_routed_active,
            )
        )
    return figs


def _kv_figure(layout: AttentionLayout, kv_bytes: float, per_layer) -> Figure:
    if layout.kind == "mla":
        return figure(
            "kv_bytes_per_token_per_layer",
            per_layer,
            "bytes",
            "({kv_lora_rank} + {qk_rope_head_dim}) × {bytes}",
            kv_lora_rank=layout.kv_lora_rank,
            qk_rope_head_dim=layout.qk_rope_head_dim,
            bytes=kv_bytes,
        )
    if layout.k_head_dim == layout.v_head_dim:
        return figure(
            "kv_bytes_per_token_per_layer",
            per_layer,
            "bytes",
            "2 × {n_kv_heads} × {head_dim} × {bytes}",
            n_kv_heads=layout.n_kv_heads,
            head_dim=layout.k_head_dim,
            bytes=kv_bytes,
        )
    return figure(
        "kv_bytes_per_token_per_layer",
        per_layer,
        "bytes",
        "{n_kv_heads} × ({k_head_dim} + {v_head_dim}) × {bytes}",
        n_kv_heads=layout.n_kv_heads,
        k_head_dim=layout.k_head_dim,
        v_head_dim=layout.v_head_dim,
        bytes=kv_bytes,
    )


def memory_report(dep: Deployment, work: Workload) -> MemoryReport:
    """Weights, KV cache (batch × ctx tokens) of the whole model and, with hardware, the
    per-GPU ledger of ``dep`` (``calc.ledger``) and its verdict."""
    cfg, layout = dep.model, dep.layout
    ctx, batch = work.ctx, work.batch
    weight_dtype, kv_dtype = dep.weight_dtype, dep.kv_dtype
    w_b, kv_b = dep.weight_bytes_per_element, dep.kv_bytes_per_element
    p = model_params(cfg)

    weights = whole(p.total * w_b)
    per_layer = whole(layout.kv_bytes_per_token_per_layer(kv_b))
    per_token = whole(layout.kv_bytes_per_token(kv_b))
    per_seq = whole(layout.kv_bytes_per_sequence(ctx, kv_b))
    cache = whole(per_seq * batch)
    # SSM (Mamba) layers keep a fixed state per sequence instead of KV (calc/ssm.py).
    state_b = dep.state_bytes_per_element
    ssm_per_seq = whole(ssm_state_bytes_per_sequence(cfg, state_b))
    ssm_state = whole(ssm_per_seq * batch)
    total = whole(weights + cache + ssm_state)

    fields: dict = {
        "model": cfg.name,
        "attention": layout.kind,
        "ctx": ctx,
        "batch": batch,
        "weight_dtype": weight_dtype,
        "kv_dtype": kv_dtype,
        "params_total": p.total,
        "params_active": p.active,
        "weights_bytes": weights,
        "kv_bytes_per_token_per_layer": per_layer,
        "kv_bytes_per_token": per_token,
        "kv_bytes_per_sequence": per_seq,
        "kv_cache_bytes": cache,
        "ssm_state_bytes_per_sequence": ssm_per_seq,
        "ssm_state_bytes": ssm_state,
        "total_bytes": total,
    }
    figs = _param_figures(cfg, p)
    figs += [
        figure(
            "weights_bytes",
            weights,
            "bytes",
            "{params_total} × {bytes}",
            params_total=p.total,
            bytes=w_b,
        ),
        _kv_figure(layout, kv_b, per_layer),
        figure(
            "kv_bytes_per_token",
            per_token,
            "bytes",
            "{per_layer} × {n_layers}",
            per_layer=per_layer,
            n_layers=layout.n_layers,
        ),
        figure(
            "kv_bytes_per_sequence",
            per_seq,
            "bytes",
            "{per_layer} × {token_layers}",
            per_layer=per_layer,
            token_layers=layout.cached_token_layers(ctx),
        ),
        figure(
            "kv_cache_bytes",
            cache,
            "bytes",
            "{per_sequence} × {batch}",
            per_sequence=per_seq,
            batch=batch,
        ),
    ]
    if ssm_per_seq:
        figs.append(
            figure(
                "ssm_state_bytes",
                ssm_state,
                "bytes",
                "{elements} × {bytes} × {batch}",
                elements=ssm_state_elements_per_sequence(cfg),
                bytes=state_b,
                batch=batch,
            )
        )
    figs.append(
        figure(
            "total_bytes",
            total,
            "bytes",
            "{weights} + {kv_cache} + {ssm_state}",
            weights=weights,
            kv_cache=cache,
            ssm_state=ssm_state,
        )
    )
    warnings = []
    if ctx > cfg.max_ctx:
        warnings.append(f"--ctx {ctx:,} exceeds {cfg.name}'s max context of {cfg.max_ctx:,}")
    if dep.hardware is not None:
        from calc.capacity import (
            activation_figure,
            budget_figure,
            concurrency_figure,
            does_not_fit,
            ledger_fields,
            weights_figure,
        )

        g, hw = dep.per_gpu, dep.hardware
        ledger = ledger_fields(dep, work)
        max_ctx = g.max_ctx(batch, MAX_CTX)
        used = g.sequences(batch) * g.sequence_bytes(ctx)
        fields.update(
            hardware=hw.name,
            engine=dep.engine.name,
            tp=dep.tp,
            pp=dep.pp,
            ep=dep.ep,
            dp=dep.dp,
            gpus=dep.gpus,
            memory_capacity_bytes=hw.memory_bytes * dep.gpus,
            **ledger,
            headroom_bytes_per_gpu=whole(g.kv_budget_bytes - used),
            max_batch_that_fits=ledger["max_concurrency"],
            max_ctx_that_fits=max_ctx,
        )
        figs += [
            figure(
                "memory_capacity_bytes",
                fields["memory_capacity_bytes"],
                "bytes",
                "{gpus} × {memory_bytes}",
                gpus=dep.gpus,
                memory_bytes=hw.memory_bytes,
            ),
            weights_figure(dep, g),
            activation_figure(dep, g),
            budget_figure(dep, g),
            concurrency_figure(work, g),
            figure(
                "headroom_bytes_per_gpu",
                fields["headroom_bytes_per_gpu"],
                "bytes",
                "{budget} − {sequences} × {sequence_bytes}",
                budget=g.kv_budget_bytes,
                sequences=g.sequences(batch),
                sequence_bytes=g.sequence_bytes(ctx),
            ),
        ]
        message = does_not_fit(dep, work, max_ctx)
        if message:
            warnings.append(message)
    return MemoryReport(fields, figs, warnings)
