"""Memory footprint [bytes] of serving a model: weights plus KV cache, and the fit on GPUs.

Composes params, kv_cache and attention_layout; every figure carries its derivation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from calc.attention_layout import AttentionLayout, attention_layout
from calc.checkpoint import linear_dtype, model_weight_bytes, weight_bytes_per_param
from calc.derivation import Figure, figure, whole
from calc.dtypes import bytes_per_element
from calc.errors import InvalidInputError
from calc.hardware_schema import HardwareProfile
from calc.model_schema import ModelConfig
from calc.params import ParamBreakdown, layer_attention_params, model_params
from calc.quant import kv_bytes_per_element
from calc.ssm import (
    ssm_state_bytes_per_sequence,
    ssm_state_dtype,
    ssm_state_elements_per_sequence,
)

MAX_CTX = 10**9  # tokens per sequence accepted at all (a sanity bound, not a model limit)
MAX_BATCH = 10**7


def check_positive_int(name: str, value: int, upper: int) -> None:
    """Reject zero, negative and absurd sizes with one clear message."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= upper:
        raise InvalidInputError(f"--{name} must be an integer in 1..{upper:,}, got {value!r}")


def max_ctx_within(layout: AttentionLayout, bytes_per_element, budget_bytes) -> int:
    """Largest ctx whose per-sequence KV fits in ``budget_bytes`` (0 if none; bisection, so
    windowed layers that stop growing are handled by the layout's own accounting)."""
    if layout.kv_bytes_per_sequence(1, bytes_per_element) > budget_bytes:
        return 0
    lo, hi = 1, MAX_CTX
    if layout.kv_bytes_per_sequence(hi, bytes_per_element) <= budget_bytes:
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if layout.kv_bytes_per_sequence(mid, bytes_per_element) <= budget_bytes:
            lo = mid
        else:
            hi = mid
    return lo


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
                "total − routed + {moe_layers} × {top_k} experts",
                moe_layers=cfg.n_moe_layers,
                top_k=cfg.moe.experts_per_token,
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


def _weights_figure(cfg: ModelConfig, weight_dtype: str, weights, params_total, w_b) -> Figure:
    """weights_bytes: params × bytes, or per format when the checkpoint mixes formats
    (calc.checkpoint), e.g. ``{params_mxfp4} × {bytes_mxfp4} + {params_bf16} × {bytes_bf16}``."""
    from calc.checkpoint import params_by_component, resolved_dtypes
    from calc.quant import weight_bytes_per_element

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


def memory_report(
    cfg: ModelConfig,
    *,
    ctx: int,
    batch: int = 1,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    hardware: HardwareProfile | None = None,
    gpus: int = 1,
    layout: AttentionLayout | None = None,
) -> MemoryReport:
    """Weights, KV cache (batch × ctx tokens) and, with ``hardware``, the fit on ``gpus``."""
    check_positive_int("ctx", ctx, MAX_CTX)
    check_positive_int("batch", batch, MAX_BATCH)
    check_positive_int("gpus", gpus, 100_000)
    # each component in its checkpoint format, --weight-dtype re-quantising the linear
    # layers (calc.checkpoint); quantized formats count their scales (calc/quant.py)
    weight_dtype = linear_dtype(cfg, weight_dtype)
    kv_dtype = (cfg.kv_dtype or cfg.dtype) if kv_dtype is None else kv_dtype
    layout = layout or attention_layout(cfg)
    w_b = weight_bytes_per_param(cfg, weight_dtype)
    kv_b = kv_bytes_per_element(kv_dtype, layout.kv_head_width)
    p = model_params(cfg)

    weights = whole(sum(model_weight_bytes(cfg, weight_dtype).values()))
    per_layer = whole(layout.kv_bytes_per_token_per_layer(kv_b))
    per_token = whole(layout.kv_bytes_per_token(kv_b))
    per_seq = whole(layout.kv_bytes_per_sequence(ctx, kv_b))
    cache = whole(per_seq * batch)
    # SSM (Mamba) layers keep a fixed state per sequence instead of KV (calc/ssm.py).
    state_dtype = ssm_state_dtype(cfg, kv_dtype)
    ssm_per_seq = whole(ssm_state_bytes_per_sequence(cfg, bytes_per_element(state_dtype)))
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
        _weights_figure(cfg, weight_dtype, weights, p.total, w_b),
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
                "{elements} state elements × {bytes} × {batch}",
                elements=ssm_state_elements_per_sequence(cfg),
                bytes=bytes_per_element(state_dtype),
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
    if ctx > cfg.context_limit:
        warnings.append(f"--ctx {ctx:,} exceeds {cfg.name}'s max context of {cfg.context_limit:,}")
    if hardware is not None:
        capacity = hardware.memory_bytes * gpus
        free_for_kv = capacity - weights
        fields.update(
            hardware=hardware.name,
            gpus=gpus,
            memory_capacity_bytes=capacity,
            fits=total <= capacity,
            headroom_bytes=whole(capacity - total),
            max_batch_that_fits=max(0, int(free_for_kv // (per_seq + ssm_per_seq))),
            # capped at the model's context limit (RoPE scaling, max_position_embeddings)
            max_ctx_that_fits=min(
                cfg.context_limit,
                max_ctx_within(layout, kv_b, free_for_kv / batch - ssm_per_seq),
            ),
        )
        figs += [
            figure(
                "memory_capacity_bytes",
                capacity,
                "bytes",
                "{gpus} × {memory_bytes}",
                gpus=gpus,
                memory_bytes=hardware.memory_bytes,
            ),
            figure(
                "headroom_bytes",
                fields["headroom_bytes"],
                "bytes",
                "{capacity} − {total}",
                capacity=capacity,
                total=total,
            ),
            figure(
                "max_batch_that_fits",
                fields["max_batch_that_fits"],
                "sequences",
                "floor(({capacity} − {weights}) / ({per_sequence} + {ssm_per_sequence}))",
                capacity=capacity,
                weights=weights,
                per_sequence=per_seq,
                ssm_per_sequence=ssm_per_seq,
            ),
            figure(
                "max_ctx_that_fits",
                fields["max_ctx_that_fits"],
                "tokens",
                "min({context_limit}, floor(({capacity} − {weights}) / ({per_token} × {batch})))",
                context_limit=cfg.context_limit,
                capacity=capacity,
                weights=weights,
                per_token=per_token,
                batch=batch,
            ),
        ]
        if not fields["fits"]:
            warnings.append(
                f"does not fit: needs {total / 1e9:,.2f} GB, {gpus} × {hardware.name} has "
                f"{capacity / 1e9:,.2f} GB; at --batch {batch} the largest --ctx that fits is "
                f"{fields['max_ctx_that_fits']:,}, at --ctx {ctx:,} the largest --batch is "
                f"{fields['max_batch_that_fits']:,} (or raise --gpus, or lower --weight-dtype/"
                "--kv-dtype)"
            )
    return MemoryReport(fields, figs, warnings)
