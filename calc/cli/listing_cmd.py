"""`kvcalc models` and `kvcalc hardware`: what ships, with key fields."""

from __future__ import annotations

from calc.cli import options as o


def _layer_kinds(cfg) -> str:
    """The model's layers by kind, in the order they first appear: "full 12 + mamba2 36"."""
    counts: dict[str, int] = {}
    for kind in cfg.layers:
        counts[kind] = counts.get(kind, 0) + 1
    return " + ".join(f"{k} {n}" for k, n in counts.items())


def _state_kind(cfg) -> str:
    kinds = set(cfg.layers)
    names = [("linear_attention", "gated_deltanet"), ("mamba2", "mamba2"), ("mamba", "mamba")]
    found = [name for kind, name in names if kind in kinds]
    return "+".join(found) or "none"


def models(fmt: o.Format = "table", output: o.Output = None) -> None:
    """List the shipped model configs with their shape, attention and state kinds (layer mix,
    the fixed state of gated DeltaNet / Mamba layers, sparse attention's top-k) and parameter
    counts.

    Example: kvcalc models --format csv
    """
    from calc.cli.common import check_choice
    from calc.data.registry import all_models
    from calc.formulas.params import model_params, mtp_params
    from calc.output.render import FORMATS, emit, rows_table

    check_choice("--format", fmt, FORMATS)
    rows = []
    from calc.deploy.checkpoint import linear_dtype

    for cfg in all_models():
        p = model_params(cfg)
        rows.append(
            {
                "name": cfg.name,
                "attention": cfg.attention,
                "n_layers": cfg.n_layers,
                "d_model": cfg.d_model,
                "n_heads": cfg.n_heads,
                "n_kv_heads": cfg.n_kv_heads,
                "head_dim": cfg.k_head_dim,
                "layer_kinds": _layer_kinds(cfg),
                "state_kind": _state_kind(cfg),
                "sparse_topk": cfg.indexer.topk if cfg.indexer else 0,
                "moe_experts": cfg.moe.n_routed_experts if cfg.moe else 0,
                "max_ctx": cfg.context_limit,
                "params_total": p.total,
                "params_active": p.active,
                "params_mtp": mtp_params(cfg),
                # the released format of the linear layers (calc.deploy.checkpoint)
                "dtype": linear_dtype(cfg),
            }
        )
    emit(
        {"models": rows},
        fmt,
        output,
        rows=rows,
        table=lambda: rows_table(rows, "Shipped models (params in billions)"),
    )


def _price_list(source: str) -> str:
    """The price list's name for a table cell: the price_source text up to its first
    parenthesis or comma (JSON and CSV carry the whole text)."""
    short = source.split(" (")[0].split(",")[0].strip()
    return short if len(short) <= 40 else short[:39] + "…"


def hardware(fmt: o.Format = "table", output: o.Output = None) -> None:
    """List the shipped hardware profiles: memory (label and usable, as torch reports it),
    bandwidth, dense peaks (never 'with sparsity'), scale-up domain and network, dated price.

    Example: kvcalc hardware --format json
    """
    from calc.cli.common import check_choice
    from calc.data.registry import all_hardware
    from calc.output.render import FORMATS, emit, rows_table

    check_choice("--format", fmt, FORMATS)
    rows = []
    for hw in all_hardware():
        rows.append(
            {
                "name": hw.name,
                "display_name": hw.display_name,
                "memory_bytes": hw.memory_bytes,
                "memory_label": hw.memory_label,
                "usable_memory_bytes": hw.usable_memory_bytes,
                "hbm_bandwidth_bytes_per_s": hw.hbm_bandwidth_bytes_per_s,
                "bf16_flops_per_s": hw.peak_flops_per_s.get("bf16"),
                "fp8_flops_per_s": hw.peak_flops_per_s.get("fp8"),
                "fp4_flops_per_s": hw.peak_flops_per_s.get("fp4"),
                "interconnect_bandwidth_bytes_per_s": hw.interconnect_bandwidth_bytes_per_s,
                "scale_up_domain_gpus": hw.scale_up_domain_gpus,
                "scale_out_bandwidth_bytes_per_s": (
                    hw.scale_out.bandwidth_bytes_per_s if hw.scale_out else None
                ),
                "usd_per_hour": hw.usd_per_hour,
                "price_date": hw.price_date,
                "price_source": hw.price_source,
            }
        )
    shown = [
        "name",
        "memory_bytes",
        "usable_memory_bytes",
        "hbm_bandwidth_bytes_per_s",
        "bf16_flops_per_s",
        "fp8_flops_per_s",
        "fp4_flops_per_s",
        "interconnect_bandwidth_bytes_per_s",
        "scale_up_domain_gpus",
        "usd_per_hour",
        "price",
    ]
    emit(
        {"hardware": rows},
        fmt,
        output,
        rows=rows,
        table=lambda: rows_table(
            [{**r, "price": f"{r['price_date']} {_price_list(r['price_source'])}"} for r in rows],
            "Shipped hardware (per GPU; dense peaks; usable = what torch reports; "
            "GB = 10^9 B, GiB = 2^30 B)",
            shown,
        ),
    )
