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


def models(fmt: o.RowFormat = "table", output: o.Output = None) -> None:
    """List the shipped model configs with their shape, attention and state kinds (layer mix,
    the fixed state of gated DeltaNet / Mamba layers, sparse attention's top-k) and parameter
    counts.

    Example: kvcalc models --format csv
    """
    from calc.cli.common import check_choice
    from calc.data.registry import all_models
    from calc.formulas.params import model_params, mtp_params
    from calc.output.render import ROW_FORMATS, emit, rows_table

    check_choice("--format", fmt, ROW_FORMATS)
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


def _prices_text(hw) -> str:
    """Every price of a profile, one basis each: 'neocloud_on_demand $3.945 (median,
    2026-11-09); ...'."""
    return "; ".join(
        f"{p.basis} ${p.usd_per_gpu_hour:g} ({p.kind}, {p.date})" for p in hw.prices
    )


def _source_of(hw, figure: str) -> str:
    """The source text of one figure of ``profile_items``."""
    if figure in hw.provenance:
        return hw.provenance[figure].source
    if figure == "board_power_w" and hw.board_power is not None:
        return hw.board_power.source
    if figure == "kernel curves" and hw.kernels is not None:
        return hw.kernels.source
    if figure == "efficiency bands":
        return hw.efficiency.source
    return hw.prices[0].source


def _provenance_text(hw) -> str:
    from calc.reports.plan_confidence import profile_items

    return "; ".join(i.describe() for i in profile_items(hw))


def hardware(fmt: o.RowFormat = "table", output: o.Output = None) -> None:
    """List the shipped hardware profiles: memory (label and usable, as torch reports it),
    bandwidth, dense peaks (never 'with sparsity'), scale-up domain and network, board power,
    every price with its basis, kind and date (the first is the reference price), and what each
    figure that moves a speed or a price is (published, measured, fitted, derived, assumed or
    copied; the table shows the weakest, JSON and CSV every one).

    Example: kvcalc hardware --format json
    """
    from calc.cli.common import check_choice
    from calc.data.registry import all_hardware
    from calc.output.render import ROW_FORMATS, emit, rows_table

    check_choice("--format", fmt, ROW_FORMATS)
    rows, full = [], []
    for hw in all_hardware():
        row, everything = _hardware_row(hw)
        rows.append(row)
        full.append(everything)
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
        "board_power_w",
        "usd_per_gpu_hour",
        "price",
        "weakest_provenance",
    ]
    emit(
        {"hardware": full},
        fmt,
        output,
        rows=rows,
        table=lambda: rows_table(
            [{**r, "price": f"{r['price_basis']} {r['price_kind']} {r['price_date']}"}
             for r in rows],
            "Shipped hardware (per GPU; dense peaks; usable = what torch reports; "
            "GB = 10^9 B, GiB = 2^30 B; price: the reference price's basis, kind and date; "
            "kvcalc hardware -f json lists every price and figure's provenance)",
            shown,
        ),
    )


def _hardware_row(hw) -> tuple[dict, dict]:
    """(the table's row of one profile, its JSON/CSV record: every price and provenance)."""
    from calc.reports.plan_confidence import profile_items, weakest

    ref = hw.prices[0]
    row = {
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
        "board_power_w": hw.board_power_w,
        "usd_per_gpu_hour": ref.usd_per_gpu_hour,
        "price_basis": ref.basis,
        "price_kind": ref.kind,
        "price_date": ref.date,
        "price_source": ref.source,
        "weakest_provenance": weakest(profile_items(hw)).describe(),
    }
    everything = {
        **row,
        "prices": [p.to_dict(exclude_defaults=True) for p in hw.prices],
        "provenance": [
            {
                "figure": i.what,
                "kind": i.kind,
                "copied_from": i.copied_from,
                "source": _source_of(hw, i.what),
            }
            for i in profile_items(hw)
        ],
    }
    return {**row, "prices": _prices_text(hw), "provenance": _provenance_text(hw)}, everything
