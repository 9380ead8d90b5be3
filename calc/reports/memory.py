"""Memory footprint [bytes] of serving a model: weights plus KV cache of the whole model, and
beside it the per-GPU ledger of the deployment (``calc.deploy.ledger``) with its verdict.

Composes params, kv_cache and attention_layout; every figure carries its derivation.
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.data.model_schema import ModelConfig
from calc.deploy.checkpoint import model_weight_bytes, weight_bytes_per_param
from calc.deploy.deployment import Deployment, Workload
from calc.formulas.attention_layout import AttentionLayout
from calc.formulas.params import ParamBreakdown, layer_attention_params, model_params
from calc.formulas.ssm import ssm_state_bytes_per_sequence, ssm_state_elements_per_sequence
from calc.output.derivation import Figure, figure, whole
from calc.output.result import Report


@dataclass(frozen=True)
class MemoryReport(Report):
    """``kvcalc memory``'s result: weights and KV cache (whole model) and, with hardware, the
    per-GPU ledger and its fit."""

    command = "memory"


def _param_figures(cfg: ModelConfig, p: ParamBreakdown) -> list[Figure]:
    """The derivation of every parameter count, in output order: the tables, one attention
    layer, the FFNs and experts, all attention, the SSM mixers, the norms and the totals."""
    from calc.formulas.params import norm_params

    attn = layer_attention_params(cfg)
    figs = [*_table_figures(cfg, p), _attention_layer_figure(cfg, attn), *_ffn_figures(cfg, p)]
    figs.append(
        figure(
            "attention_params",
            p.attention,
            "params",
            "{attention_layers} × {per_layer}",
            attention_layers=cfg.n_attention_layers,
            per_layer=attn,
        )
    )
    if p.ssm:
        figs.append(_ssm_figure(cfg, p))
    figs.append(
        figure(
            "norm_params",
            p.norms,
            "params",
            "({n_layers} × {norms_per_layer} + 1) × {per_norm} (+ 1: the final norm)",
            n_layers=cfg.n_layers,
            norms_per_layer=cfg.norms_per_layer,
            per_norm=norm_params(cfg.d_model, cfg.norm == "layernorm"),
        )
    )
    return figs + _total_figures(cfg, p)


def _table_figures(cfg: ModelConfig, p: ParamBreakdown) -> list[Figure]:
    """The embedding and the LM head (none when tied)."""
    d = cfg.d_model
    return [
        figure(
            "embedding_params",
            p.embedding,
            "params",
            "{vocab_size} × {d_model}",
            vocab_size=cfg.vocab_size,
            d_model=d,
        ),
        Figure("lm_head_params", p.lm_head, "params", "0 (tied to the embedding)")
        if cfg.tie_embeddings
        else figure(
            "lm_head_params",
            p.lm_head,
            "params",
            "{vocab_size} × {d_model}",
            vocab_size=cfg.vocab_size,
            d_model=d,
        ),
    ]


def _attention_layer_figure(cfg: ModelConfig, attn: int) -> Figure:
    """One attention layer's parameters: MLA's projections, or the Q/K/V/O of MHA/GQA/MQA,
    and what the layer has beyond them."""
    from calc.formulas.params import (
        attention_params,
        attention_sink_params,
        layer_indexer_params,
        layer_qk_norm_params,
    )

    d = cfg.d_model
    # q/k norms and learned sinks, where the model has them; an output gate (Qwen3-Next) and a
    # sparse-attention indexer (DeepSeek-V3.2): attention parameters beyond the projections
    extra = layer_qk_norm_params(cfg) + attention_sink_params(cfg.n_heads, cfg.attention_sinks)
    extra += layer_indexer_params(cfg)
    gate = cfg.d_model * cfg.n_heads * cfg.k_head_dim * cfg.attn_output_gate
    if cfg.mla is not None:
        m = cfg.mla
        q_lora = m.q_lora_rank or 0
        shape = dict(d=d, h=cfg.n_heads, kv_lora=m.kv_lora_rank, rope=m.qk_rope_head_dim,
                     nope=m.qk_nope_head_dim, v=m.v_head_dim)  # fmt: skip
        q = (
            "{d}·{q_lora} + {q_lora} + {q_lora}·{h}·({nope} + {rope})"
            if q_lora
            else "{d}·{h}·({nope} + {rope})"
        )
        formula = (
            q + " + {d}·({kv_lora} + {rope}) + {kv_lora} + {kv_lora}·{h}·({nope} + {v}) "
            "+ {h}·{v}·{d}"
        )
        if q_lora:
            shape["q_lora"] = q_lora
        if extra:
            formula += " + {extra} (q/k norms, sinks, indexer)"
            shape["extra"] = extra
        return figure("attention_params_per_layer", attn, "params", formula, **shape)
    h, kv, hd = cfg.n_heads, cfg.n_kv_heads, cfg.k_head_dim
    biases = attention_params(d, h, kv, hd, cfg.qkv_bias, cfg.o_bias) - attention_params(
        d, h, kv, hd
    )
    formula = (
        "{d_model}·{n_heads}·{head_dim} + 2·{d_model}·{n_kv_heads}·{head_dim} "
        "+ {n_heads}·{head_dim}·{d_model}"
    )
    shape = dict(d_model=d, n_heads=h, n_kv_heads=kv, head_dim=hd)
    if biases or extra or gate:
        formula += " + {biases} + {extra} (biases; q/k norms, sinks, output gate)"
        shape.update(biases=biases, extra=extra + gate)
    return figure("attention_params_per_layer", attn, "params", formula, **shape)


def _ffn_figures(cfg: ModelConfig, p: ParamBreakdown) -> list[Figure]:
    """The dense FFNs, the routed experts, and the shared experts with the router."""
    from calc.formulas.params import ffn_params, router_params

    d = cfg.d_model
    gated = cfg.ffn_kind == "gated"
    n_mat = 3 if gated else 2
    figs = []
    if cfg.n_dense_ffn_layers:
        bias = ffn_params(d, cfg.d_ffn, gated, cfg.ffn_bias) - ffn_params(d, cfg.d_ffn, gated)
        per = (
            "({n_mat} × {d_model} × {d_ffn} + {bias} biases)"
            if bias
            else "{n_mat} × {d_model} × {d_ffn}"
        )
        figs.append(
            figure(
                "dense_ffn_params",
                p.dense_ffn,
                "params",
                "{layers} × " + per,
                layers=cfg.n_dense_ffn_layers,
                n_mat=n_mat,
                d_model=d,
                d_ffn=cfg.d_ffn,
                **({"bias": bias} if bias else {}),
            )
        )
    if cfg.moe is None:
        return figs
    m = cfg.moe
    bias = ffn_params(d, m.d_expert_ffn, gated, cfg.ffn_bias) - ffn_params(
        d, m.d_expert_ffn, gated
    )
    figs.append(
        figure(
            "moe_routed_params",
            p.moe_routed,
            "params",
            "{moe_layers} × {experts} × "
            + (
                "({n_mat} × {d_model} × {d_expert_ffn} + {bias} biases)"
                if bias
                else "{n_mat} × {d_model} × {d_expert_ffn}"
            ),
            moe_layers=cfg.n_moe_layers,
            experts=m.n_routed_experts,
            n_mat=n_mat,
            d_model=d,
            d_expert_ffn=m.d_expert_ffn,
            **({"bias": bias} if bias else {}),
        )
    )
    figs.append(
        figure(
            "moe_shared_and_router_params",
            p.moe_shared + p.router,
            "params",
            "{moe_layers} × ({shared} × {n_mat} × {d_model} × {d_shared} + {router})",
            moe_layers=cfg.n_moe_layers,
            shared=m.n_shared_experts,
            n_mat=n_mat,
            d_model=d,
            d_shared=m.shared_ffn,
            router=router_params(
                d,
                m.n_routed_experts,
                m.router_bias,
                m.shared_expert_gate and m.n_shared_experts > 0,
            ),
        )
    )
    return figs


def _ssm_figure(cfg: ModelConfig, p: ParamBreakdown) -> Figure:
    """The SSM and linear-attention mixers: Mamba, Mamba-2 and gated DeltaNet layers."""
    from calc.formulas.ssm import layer_ssm_params

    def per(kind: str) -> int:
        return layer_ssm_params(cfg, kind) if cfg.n_layers_of(kind) else 0

    return figure(
        "ssm_params",
        p.ssm,
        "params",
        "{mamba_layers} × {per_mamba} + {mamba2_layers} × {per_mamba2} + {gdn_layers} × "
        "{per_gdn} (Mamba, Mamba-2, gated DeltaNet mixers, calc/formulas/ssm.py)",
        mamba_layers=cfg.n_layers_of("mamba"),
        per_mamba=per("mamba"),
        mamba2_layers=cfg.n_layers_of("mamba2"),
        per_mamba2=per("mamba2"),
        gdn_layers=cfg.n_layers_of("linear_attention"),
        per_gdn=per("linear_attention"),
    )


def _total_figures(cfg: ModelConfig, p: ParamBreakdown) -> list[Figure]:
    """All parameters, and those one token runs through (MoE: the top-k experts)."""
    figs = [
        figure(
            "params_total",
            p.total,
            "params",
            "{embedding} + {lm_head} + {attention} + {dense_ffn} + {moe_routed} + {moe_shared} "
            "+ {router} + {ssm} + {norms} + {vision} + {audio}",
            vision=p.vision, audio=p.audio, embedding=p.embedding, lm_head=p.lm_head,
            attention=p.attention, dense_ffn=p.dense_ffn, moe_routed=p.moe_routed,
            moe_shared=p.moe_shared, router=p.router, ssm=p.ssm, norms=p.norms,
        )
    ]  # fmt: skip
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
    if layout.kind == "mla" and layout.sparse:  # the latent and the indexer's key
        kw = dict(kv_lora_rank=layout.kv_lora_rank, qk_rope_head_dim=layout.qk_rope_head_dim,
                  index_key=layout.index_bytes_per_token_per_layer)  # fmt: skip
        if kv_bytes == 1:  # fp8_ds_mla: fp32 scales per 128, bf16 RoPE key
            text = (
                "{kv_lora_rank} + {kv_lora_rank} / 128 × 4 + {qk_rope_head_dim} × 2 + {index_key}"
            )
        else:
            text = "({kv_lora_rank} + {qk_rope_head_dim}) × {bytes} + {index_key}"
            kw["bytes"] = kv_bytes
        return figure("kv_bytes_per_token_per_layer", per_layer, "bytes", text, **kw)
    if layout.kind == "mla":
        return figure(
            "kv_bytes_per_token_per_layer", per_layer, "bytes",
            "({kv_lora_rank} + {qk_rope_head_dim}) × {bytes}",
            kv_lora_rank=layout.kv_lora_rank, qk_rope_head_dim=layout.qk_rope_head_dim,
            bytes=kv_bytes,
        )  # fmt: skip
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


def _weights_figure(cfg: ModelConfig, weight_dtype: str, weights, params_total, w_b) -> Figure:
    """weights_bytes: params × bytes, or per format when the checkpoint mixes formats
    (calc.deploy.checkpoint), e.g. ``{params_mxfp4} × {bytes_mxfp4} + {params_bf16} ×
    {bytes_bf16}``."""
    from calc.deploy.checkpoint import params_by_component, resolved_dtypes
    from calc.formulas.quant import weight_bytes_per_element

    dtypes = resolved_dtypes(cfg, weight_dtype)
    by_format: dict[str, int] = {}
    for c, n in params_by_component(cfg).items():
        if n:
            by_format[dtypes[c]] = by_format.get(dtypes[c], 0) + n
    if len(by_format) <= 1:
        return figure(
            "weights_bytes", weights, "bytes", "{params_total} × {bytes}",
            params_total=params_total, bytes=w_b,
        )  # fmt: skip
    numbers: dict = {}
    terms = []
    for f, n in sorted(by_format.items(), key=lambda kv: -kv[1]):
        key = f.replace("-", "_")
        terms.append(f"{{params_{key}}} × {{bytes_{key}}}")
        numbers[f"params_{key}"] = n
        numbers[f"bytes_{key}"] = weight_bytes_per_element(f, k=cfg.d_model)
    return figure("weights_bytes", weights, "bytes", " + ".join(terms), **numbers)


def memory_report(dep: Deployment, work: Workload) -> MemoryReport:
    """Weights, KV cache (batch × ctx tokens) of the whole model and, with hardware, the
    per-GPU ledger of ``dep`` (``calc.deploy.ledger``) and its verdict."""
    cfg, layout = dep.model, dep.layout
    ctx, batch = work.ctx, work.batch
    kv_b = dep.kv_bytes_per_element
    p = model_params(cfg)

    # each component in its checkpoint format, --weight-dtype re-quantising the linear layers
    # (calc.deploy.checkpoint); quantized formats count their scales (calc/formulas/quant.py)
    weights = whole(sum(model_weight_bytes(cfg, dep.weight_dtype).values()))
    per_layer = whole(layout.kv_bytes_per_token_per_layer(kv_b))
    per_seq = whole(layout.kv_bytes_per_sequence(ctx, kv_b))
    # SSM (Mamba) layers keep a fixed state per sequence instead of KV (calc/formulas/ssm.py).
    ssm_per_seq = whole(ssm_state_bytes_per_sequence(cfg, dep.state_bytes_per_element))
    fields: dict = {
        "model": cfg.name,
        "attention": layout.kind,
        "ctx": ctx,
        "batch": batch,
        "weight_dtype": dep.weight_dtype,
        "kv_dtype": dep.kv_dtype,
        "params_total": p.total,
        "params_active": p.active,
        "weights_bytes": weights,
        "kv_bytes_per_token_per_layer": per_layer,
        "kv_bytes_per_token": whole(layout.kv_bytes_per_token(kv_b)),
        "kv_bytes_per_sequence": per_seq,
        "kv_cache_bytes": whole(per_seq * batch),
        "ssm_state_bytes_per_sequence": ssm_per_seq,
        "ssm_state_bytes": whole(ssm_per_seq * batch),
    }
    fields["total_bytes"] = whole(weights + fields["kv_cache_bytes"] + fields["ssm_state_bytes"])
    figs = [*_param_figures(cfg, p), *_cache_figures(dep, work, fields, p)]
    warnings = []
    if ctx > cfg.context_limit:
        warnings.append(f"--ctx {ctx:,} exceeds {cfg.name}'s max context of {cfg.context_limit:,}")
    from calc.reports.capacity import max_model_len_warning

    if (note := max_model_len_warning(dep, ctx)) is not None:
        warnings.append(note)
    if dep.hardware is not None:
        figs += _ledger(dep, work, fields, warnings)
    return MemoryReport(fields, figs, warnings)


def _cache_figures(dep: Deployment, work: Workload, f: dict, p: ParamBreakdown) -> list[Figure]:
    """The derivations of the weights, the KV cache, the SSM state and their total."""
    cfg, layout = dep.model, dep.layout
    w_b = weight_bytes_per_param(cfg, dep.weight_dtype)  # mean over the model's components
    per_layer, per_seq = f["kv_bytes_per_token_per_layer"], f["kv_bytes_per_sequence"]
    figs = [
        _weights_figure(cfg, dep.weight_dtype, f["weights_bytes"], p.total, w_b),
        _kv_figure(layout, dep.kv_bytes_per_element, per_layer),
        figure(
            "kv_bytes_per_token",
            f["kv_bytes_per_token"],
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
            token_layers=layout.cached_token_layers(work.ctx),
        ),
        figure(
            "kv_cache_bytes",
            f["kv_cache_bytes"],
            "bytes",
            "{per_sequence} × {batch}",
            per_sequence=per_seq,
            batch=work.batch,
        ),
    ]
    if f["ssm_state_bytes_per_sequence"]:
        figs.append(_state_figure(dep, work.batch, f["ssm_state_bytes"]))
    figs.append(
        figure(
            "total_bytes", f["total_bytes"], "bytes", "{weights} + {kv_cache} + {ssm_state}",
            weights=f["weights_bytes"], kv_cache=f["kv_cache_bytes"],
            ssm_state=f["ssm_state_bytes"],
        )
    )  # fmt: skip
    return figs


def _state_figure(dep: Deployment, batch: int, ssm_state: int) -> Figure:
    """The SSM state of ``batch`` sequences: one dtype, or conv and recurrent state each in
    its own."""
    from calc.formulas.ssm import recurrent_bytes_per_element

    cfg, state_b = dep.model, dep.state_bytes_per_element
    rec_b = recurrent_bytes_per_element(cfg, state_b)
    if rec_b == state_b:
        return figure(
            "ssm_state_bytes",
            ssm_state,
            "bytes",
            "{elements} × {bytes} × {batch}",
            elements=ssm_state_elements_per_sequence(cfg),
            bytes=state_b,
            batch=batch,
        )
    from calc.data.model_schema import SSM_LAYER_TYPES
    from calc.formulas.ssm import mixer_shape

    shapes = [(n, mixer_shape(cfg, k)) for k in SSM_LAYER_TYPES if (n := cfg.n_layers_of(k))]
    return figure(
        "ssm_state_bytes",
        ssm_state,
        "bytes",
        "({conv} × {conv_bytes} + {recurrent} × {recurrent_bytes}) × {batch}",
        conv=sum(n * m.conv_elements for n, m in shapes if n),
        conv_bytes=state_b,
        recurrent=sum(n * m.recurrent_elements for n, m in shapes if n),
        recurrent_bytes=rec_b,
        batch=batch,
    )


def _ledger(dep: Deployment, work: Workload, fields: dict, warnings: list[str]) -> list[Figure]:
    """With hardware: the per-GPU ledger's keys added to ``fields``, its verdict to
    ``warnings``; its figures returned."""
    from calc.reports.capacity import (
        activation_figure,
        budget_figure,
        concurrency_figure,
        does_not_fit,
        engine_release_fields,
        reserve_figure,
        weights_figure,
    )

    cfg, ctx, batch = dep.model, work.ctx, work.batch
    g, hw = dep.per_gpu, dep.hardware
    assert hw is not None
    ledger = g.at(ctx, batch).fields()
    # capped at the model's context limit (RoPE scaling included)
    max_ctx = min(g.max_ctx(batch, cfg.context_limit), cfg.context_limit)
    used = g.sequences(batch) * g.sequence_bytes(ctx)
    fields.update(
        hardware=hw.name,
        engine=dep.engine.name,
        **engine_release_fields(dep),
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
    message = does_not_fit(dep, work, max_ctx)
    if message:
        warnings.append(message)
    return [
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
        reserve_figure(g),
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
