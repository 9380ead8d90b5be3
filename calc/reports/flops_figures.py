"""The ``--explain`` figures of the FLOP and time reports [FLOP, s, FLOP/byte]: each op's time
from its own FLOPs, bytes and rates, and the per-layer FLOP formulas with the model's numbers
(``calc.formulas.flops``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from calc.data.hardware_schema import HardwareProfile
from calc.data.model_schema import ModelConfig
from calc.deploy.ops import ALL_TO_ALL, ALLREDUCE, COMPUTE
from calc.deploy.parallel import Link, allreduce_cost
from calc.deploy.rates import (
    LOW_PRECISION_TENSOR_DTYPES,
    curve_explain,
    curve_note,
    flops_rate,
    gemm_dtype,
    gemm_terms,
    is_gemm,
    ridge_points,
)
from calc.deploy.step_calibration import HOST, HOST_ROWS, multiplier, sampled_rows
from calc.deploy.steps import Step
from calc.output.derivation import Figure, figure, figures


def op_figures(prefix: str, step: Step, hw: HardwareProfile | None = None) -> list[Figure]:
    """Each op's time with its arithmetic, and its source: the kernel curve that timed it, or
    (given ``hw``) the profile figures a roofline op or a collective without a curve is timed
    from, each with its provenance kind (issue 20: no op without a source)."""
    r = step.rates
    figs = []
    for i, (op, t) in enumerate(zip(step.raw, step.ops, strict=True)):
        if step.calibration is not None and op.kind == HOST:
            figs.append(host_figure(prefix, op, t, step))
            figs.append(Figure(f"source.{prefix}.{op.name}", t.time_s, "s",
                               f"host time of the step calibration: {step.calibration.source}"))
            continue
        curve = curve_explain(op, r) if r is not None else None
        if curve is not None:  # timed by the profile's kernel curve: its arithmetic and source
            tmpl, nums, name, c = curve
            m = _calibrated(op, step)
            if m is not None:  # a step calibration's multiplier of the op's class
                tmpl, nums = f"({tmpl}) × {{multiplier}}", {**nums, "multiplier": m}
            key = f"{prefix}.{op.name}.time_s"
            figs.append(figure(key, t.time_s, "s", tmpl, **nums))
            source = f"curve {name} ({c.provenance}): {c.source}" + curve_note(name, r, op)
            if r.curves is not None:
                source += f"; {r.curves.source}"
            source = _with_multiplier(source, m, step)
            figs.append(Figure(f"source.{prefix}.{op.name}", t.time_s, "s", source))
            continue
        if op.kind == COMPUTE:
            fixed = ""
            extra = {}
            if op.kernels and r.kernel_s:
                fixed = " + {kernels} × {kernel_s} s"
                extra = {"kernels": op.kernels, "kernel_s": r.kernel_s}
            roof = "max({flops} FLOP / {flops_per_s} FLOP/s, {bytes} B / {bytes_per_s} B/s)"
            if is_gemm(op):  # its own format's rate, padded rows, weight-only streaming
                g = gemm_terms(op, r)
                terms = dict(
                    flops=g.flops, flops_per_s=g.flops_per_s, bytes=g.bytes,
                    bytes_per_s=g.bytes_per_s,
                )  # fmt: skip
                if g.slowdown != 1.0:
                    roof += " × {slowdown}"
                    terms["slowdown"] = g.slowdown
            else:
                terms = dict(
                    flops=op.flops, flops_per_s=flops_rate(op, r), bytes=op.bytes,
                    bytes_per_s=r.bytes_per_s,
                )  # fmt: skip
            roof, terms, kernel_note = _floored(op, r, roof, terms)
            formula = roof + fixed
            adjusted = _kernel_adjusted(step, i)
            if adjusted is not None:  # the engine's attention kernel: its walk or its multiple
                formula, more, kernel_note = adjusted(formula)
                extra = {**extra, **more}
            m = _calibrated(op, step)
            if m is not None:  # a step calibration's multiplier of the op's class
                formula, extra = f"({formula}) × {{multiplier}}", {**extra, "multiplier": m}
            figs.append(figure(f"{prefix}.{op.name}.time_s", t.time_s, "s", formula, **terms,
                               **extra))  # fmt: skip
        else:
            figs.append(_collective_figure(prefix, op, t, r, _calibrated(op, step)))
            kernel_note = None
        if hw is not None:
            source = _profile_source(op, hw, step, r)
            if kernel_note:
                source += f"; {kernel_note}"
            source = _with_multiplier(source, _calibrated(op, step), step)
            figs.append(Figure(f"source.{prefix}.{op.name}", t.time_s, "s", source))
    return figs


# the source of each op's measured floor (``Op.floor_s``), as --explain names it
FLOOR_SOURCES = {
    "gdn_delta_rule": (
        "the chunked delta rule's measured time (calc/formulas/delta_rule_time.py, fitted by "
        "bench/gdn_prefill_fit.py to aiconfigurator-core 0.12.0's SGLang 0.5.14 gdn_perf tables)"
    ),
    "mamba2_scan": (
        "the chunked SSD scan's measured time (calc/formulas/ssd_time.py, fitted by "
        "bench/ssd_prefill_fit.py to vLLM PR #27299's H100 timings of the unfused SSD chain)"
    ),
}


def _floored(op, r, roof: str, terms: dict):
    """A roofline formula with the op's measured floor (``Op.floor_s``) where it applies (every
    band but ``peak``: ``calc.deploy.rates.op_time``), its numbers and the floor's source."""
    if op.floor_s is None or r.efficiency == "peak":
        return roof, terms, None
    return f"max({roof}, {{floor_s}} s)", {**terms, "floor_s": op.floor_s}, FLOOR_SOURCES[op.name]


def _kernel_adjusted(step: Step, i: int):
    """How the engine's attention kernel changes the ``i``-th op's roofline formula, or None:
    a function of the formula giving (formula, its numbers, the note naming the kernel and
    its source). A decode ``attn_scores`` op under a serial walk takes at least the walk less
    its ``attn_values`` op's time (``calc.deploy.steps.walk_bound``); a GQA prefill attention
    op under a prefill multiple takes that multiple of its roofline (``prefill_scaled``)."""
    k = step.attention_kernels
    if k is None:
        return None
    raw = step.raw
    op = raw[i]
    if (k.walk is not None and op.name == "attn_scores" and op.keys is not None
            and i + 1 < len(raw) and raw[i + 1].name == "attn_values"):  # fmt: skip
        tile_s, per_tile = k.walk
        nxt = step.ops[i + 1].time_s / (_calibrated(raw[i + 1], step) or 1.0)

        def walk(formula):
            return (f"max({formula}, {{tile_s}} s × {{keys}} keys / {{keys_per_tile}} − "
                    "{values_s} s)",
                    dict(tile_s=tile_s, keys=op.keys, keys_per_tile=per_tile, values_s=nxt),
                    f"the decode kernel's serial walk, {k.walk_source}")  # fmt: skip

        return walk
    if (k.prefill_scale is not None and op.attention and op.prompt is not None
            and op.attn_kind == "gqa"):  # fmt: skip

        def scaled(formula):
            return (f"({formula}) × {{prefill_scale}}", dict(prefill_scale=k.prefill_scale),
                    f"the prefill kernel's multiple, {k.prefill_source}")  # fmt: skip

        return scaled
    return None


def _with_multiplier(source: str, m, step: Step) -> str:
    """``source``, then where a step calibration's multiplier ``m`` (None: none) comes from."""
    if m is None:
        return source
    return f"{source}; × {m:.4g}: {step.calibration.source}"


def _stated(hw: HardwareProfile, key: str) -> str:
    """``key`` of ``hw``'s provenance as 'key (kind[, copied from X])'."""
    f = hw.provenance.get(key)
    if f is None:
        return f"{key} (no provenance stated)"
    return f"{key} ({_kind(f.kind, f.copied_from)})"


def _kind(kind: str, copied_from: str | None) -> str:
    return f"copied from {copied_from}" if copied_from else kind


def _profile_source(op, hw: HardwareProfile, step: Step, r) -> str:
    """Where a roofline op's or a curve-less collective's time comes from: the profile's
    figures it is computed from, each with its provenance kind."""
    overhead = _stated(hw, "kernel_overhead_s") if r is not None and r.kernel_s else None
    if op.kind == COMPUTE:
        e = hw.efficiency
        band = _band_key(op, hw, r)
        f = hw.provenance.get(band) or hw.provenance.get("efficiency")
        kind = f.kind if band in hw.provenance else (e.provenance or (f.kind if f else "assumed"))
        copied = f.copied_from if f is not None else None
        parts = [f"efficiency bands ({band}), {step.efficiency} ({_kind(kind, copied)})",
                 _stated(hw, "peak_flops_per_s"), _stated(hw, "hbm_bandwidth_bytes_per_s")]
        what = "roofline, no kernel curve for this op"
    else:
        parts = [_stated(hw, "interconnect")]
        link = r.link if r is not None else None
        if link is not None and link.domain_gpus is not None and op.group > link.domain_gpus:
            parts.append(_stated(hw, "scale_out"))
        what = "link model, no collective curve for this group"
    if overhead is not None:
        parts.append(overhead)
    return f"{what}: {hw.name}'s " + ", ".join(parts)


def _band_key(op, hw: HardwareProfile, r) -> str:
    """The efficiency band that times ``op``'s FLOPs, as its provenance key: an fp8 or fp4
    GEMM its own band where the profile has one (``calc.deploy.rates.efficiencies``), a 16-bit
    GEMM the bf16 ``matmul`` band, any other op the profile's band block."""
    if r is None or not is_gemm(op):
        return "efficiency"
    dt = gemm_dtype(op, r)
    e = hw.efficiency
    if dt == "fp4" and e.matmul_fp4 is not None:
        return "efficiency.matmul_fp4"
    if dt in LOW_PRECISION_TENSOR_DTYPES and e.matmul_fp8 is not None:
        return "efficiency.matmul_fp8"
    return "efficiency.matmul" if "efficiency.matmul" in hw.provenance else "efficiency"


def _calibrated(op, step: Step):
    """The multiplier a step calibration applies to ``op``, or None (none, or 1)."""
    if step.calibration is None:
        return None
    m = multiplier(op, step.calibration)
    return None if m == 1.0 else m


def host_figure(prefix: str, op, t, step: Step) -> Figure:
    """A step calibration's host time: per forward pass, or per sequence sampled × rows."""
    cal = step.calibration
    key = f"{prefix}.{op.name}.time_s"
    if op.name == HOST_ROWS:
        rows = sampled_rows(step.raw)
        tmpl = "{rows} × {host_per_seq_s} s"
        return figure(key, t.time_s, "s", tmpl, rows=rows, host_per_seq_s=cal.host_per_seq_s)
    return figure(key, t.time_s, "s", "{host_step_s} s", host_step_s=cal.host_step_s)


def _collective_figure(prefix: str, op, t, r, m=None) -> Figure:
    """A collective's time: NCCL's all-reduce cost of the protocol it picks (base latency and
    hops, then the ring's bytes at the protocol's bandwidth), the pairwise all-to-all or a
    send; each with one kernel's fixed cost (× a step calibration's multiplier ``m``)."""
    if m is not None:
        plain = _collective_figure(prefix, op, replace(t, time_s=t.time_s / m), r)
        tmpl = f"({plain.template}) × {{multiplier}}"
        return figure(plain.key, t.time_s, "s", tmpl, **plain.numbers, multiplier=m)
    n = op.group
    msg = op.bytes / op.count
    link = r.link or Link(r.link_bytes_per_s, r.link_latency_s)
    key = f"{prefix}.{op.name}.time_s"
    if op.kind == ALLREDUCE:
        c = allreduce_cost(float(np.asarray(msg).flat[0]), n, link)
        return figure(
            key, t.time_s, "s",
            "{count} × ({lat} s + {steps}/{n} × {msg} B / {bw} B/s + {kernel_s} s)",
            count=op.count, lat=c.latency_s, steps=c.steps, n=n, msg=msg,
            bw=c.bandwidth_bytes_per_s, kernel_s=r.kernel_s,
        )  # fmt: skip
    bw, lat = link.crossing(n)
    shape = (
        "{count} × (({n}−1)/{n} × {msg} B / {bw} B/s + ({n}−1) × {lat} s + {kernel_s} s)"
        if op.kind == ALL_TO_ALL
        else "{count} × ({msg} B / {bw} B/s + {lat} s + {kernel_s} s)"
    )
    return figure(
        key, t.time_s, "s", shape, count=op.count, n=n, msg=msg, bw=bw, lat=lat,
        kernel_s=r.kernel_s,
    )  # fmt: skip


def _attention_flops(pairs, n_heads, head_dim):
    """Scores + values of ``pairs`` query-key pairs (k and v heads of equal width)."""
    from calc.formulas import flops as F

    return F.attn_score_flops(pairs, n_heads, head_dim) + F.attn_value_flops(
        pairs, n_heads, head_dim
    )


def flops_figures(cfg: ModelConfig, prompt: int, ctx: int) -> list[Figure]:
    """The per-token formulas of the dense linear ops, the attention and the SSM mixers
    (model totals), and how many layers have each."""
    figs = []
    if cfg.mla is None and cfg.n_attention_layers:
        figs += _gqa_figures(cfg, prompt, ctx)
    if cfg.n_attention_layers:
        figs.append(_attended_figure(cfg, ctx))
    figs += ssm_figures(cfg)
    figs += _ffn_flops_figures(cfg)
    return figs + _layer_counts(cfg)


def _gqa_figures(cfg: ModelConfig, prompt: int, ctx: int) -> list[Figure]:
    """Q/K/V/O projections and the attention of one MHA/GQA/MQA layer, full and sliding."""
    from calc.formulas import flops as F

    d, h = cfg.d_model, cfg.n_heads
    dk, kv = cfg.k_head_dim, cfg.n_kv_heads
    figs = figures(
        ("qkv_o_flops_per_token_per_layer",
         F.qkv_proj_flops(1, d, h, kv, dk, dk) + F.o_proj_flops(1, h, dk, d), "FLOP",
         "2 × ({d}·{h}·{hd} + 2·{d}·{kv}·{hd} + {h}·{hd}·{d})",
         {"d": d, "h": h, "kv": kv, "hd": dk}),
        ("decode_attention_flops_per_token_per_layer",
         _attention_flops(F.decode_pairs(ctx), h, dk), "FLOP",
         "2 × {ctx} × {h} × {hd} (scores) + 2 × {ctx} × {h} × {hd} (values)",
         {"ctx": ctx, "h": h, "hd": dk}),
        ("prefill_attention_flops_per_sequence_per_layer",
         _attention_flops(F.causal_pairs(prompt), h, dk), "FLOP",
         "4 × {S}·({S}+1)/2 pairs × {h} × {hd}", {"S": prompt, "h": h, "hd": dk}),
    )  # fmt: skip
    if not cfg.n_layers_of("sliding"):
        return figs
    w = cfg.sliding_window + cfg.sink_tokens
    m = min(prompt, w)
    return figs + figures(
        ("sliding_decode_attention_flops_per_token_per_layer",
         _attention_flops(F.sliding_decode_pairs(ctx, w), h, dk), "FLOP",
         "4 × min({ctx}, {W}) keys × {h} × {hd}", {"ctx": ctx, "W": w, "h": h, "hd": dk}),
        ("sliding_prefill_attention_flops_per_sequence_per_layer",
         _attention_flops(F.sliding_causal_pairs(prompt, w), h, dk), "FLOP",
         "4 × ({m}·({m}+1)/2 + ({S} − {m})·{W}) pairs × {h} × {hd}",
         {"m": m, "S": prompt, "W": w, "h": h, "hd": dk}),
    )  # fmt: skip


def _attended_figure(cfg: ModelConfig, ctx: int) -> Figure:
    """The keys one decode step attends to, summed over the attention layers."""
    from calc.deploy.ops import attended_token_layers

    terms, kw = [], {"ctx": ctx}
    if cfg.n_layers_of("full") and cfg.indexer is not None:  # sparse: the top-k keys
        terms.append("{n_full} × min({ctx}, {topk})")
        kw.update(n_full=cfg.n_layers_of("full"), topk=cfg.indexer.topk)
    elif cfg.n_layers_of("full"):
        terms.append("{n_full} × {ctx}")
        kw["n_full"] = cfg.n_layers_of("full")
    if cfg.n_layers_of("sliding"):
        terms.append("{n_sliding} × min({ctx}, {W})")
        kw.update(n_sliding=cfg.n_layers_of("sliding"), W=cfg.sliding_window + cfg.sink_tokens)
    if cfg.n_layers_of("chunked"):
        terms.append("{n_chunked} × (({ctx} − 1) mod {C} + 1)")
        kw.update(n_chunked=cfg.n_layers_of("chunked"), C=cfg.attention_chunk_size)
    return figure(
        "decode_attended_token_layers",
        attended_token_layers(cfg, ctx, True),
        "token-layers",
        " + ".join(terms) + " (keys attended per attention layer, summed)",
        **kw,
    )


def _ffn_flops_figures(cfg: ModelConfig) -> list[Figure]:
    """A dense FFN, the active experts of a MoE layer, and the LM head, per token."""
    from calc.formulas import flops as F

    d = cfg.d_model
    gated = cfg.ffn_kind == "gated"
    n_mat = 3 if gated else 2
    figs = []
    if cfg.n_dense_ffn_layers:
        figs.append(
            figure(
                "ffn_flops_per_token_per_layer",
                F.ffn_flops(1, d, cfg.d_ffn, gated),
                "FLOP",
                "2 × {n_mat} × {d} × {d_ffn}",
                n_mat=n_mat,
                d=d,
                d_ffn=cfg.d_ffn,
            )
        )
    if cfg.moe is not None:
        m = cfg.moe
        figs.append(
            figure(
                "active_expert_flops_per_token_per_layer",
                F.routed_expert_flops(1, m.experts_per_token, d, m.d_expert_ffn, gated)
                + F.shared_expert_flops(1, m.n_shared_experts, d, m.shared_ffn, gated)
                + F.router_flops(1, d, m.n_routed_experts),
                "FLOP",
                "2 × ({k}·{n_mat}·{d}·{d_e} + {n_shared}·{n_mat}·{d}·{d_s} + {d}·{E} router)",
                k=m.experts_per_token, n_mat=n_mat, d=d, d_e=m.d_expert_ffn,
                n_shared=m.n_shared_experts, d_s=m.shared_ffn, E=m.n_routed_experts,
            )
        )  # fmt: skip
    figs.append(
        figure(
            "lm_head_flops_per_token",
            F.lm_head_flops(1, d, cfg.vocab_size),
            "FLOP",
            "2 × {d} × {vocab}",
            d=d,
            vocab=cfg.vocab_size,
        )
    )
    return figs


def _layer_counts(cfg: ModelConfig) -> list[Figure]:
    """How many layers have each part (those all layers have go unsaid)."""
    L = cfg.n_layers
    figs = [Figure("layers", L, "", "n_layers")]
    counts = {
        "attention_layers": cfg.n_attention_layers,
        "sliding_layers": cfg.n_layers_of("sliding"),
        "chunked_layers": cfg.n_layers_of("chunked"),
        "ssm_layers": cfg.n_layers_of("mamba", "mamba2"),
        "dense_ffn_layers": cfg.n_dense_ffn_layers,
        "moe_layers": cfg.n_moe_layers,
    }
    for key, n in counts.items():
        if n != L or key == "attention_layers":
            figs.append(Figure(key, n, "", f"layers of {cfg.name} with this part"))
    return figs


def ssm_figures(cfg: ModelConfig) -> list[Figure]:
    """Per-token FLOPs of one SSM mixer of each kind the model has (whole model shapes)."""
    from calc.formulas import flops as F
    from calc.formulas.ssm import mixer_shape

    figs = []
    d = cfg.d_model
    for kind in ("mamba", "mamba2"):
        if not cfg.n_layers_of(kind):
            continue
        m = mixer_shape(cfg, kind)
        E, N, K = m.d_inner, m.d_state, m.d_conv
        if kind == "mamba":
            R = m.dt_rank
            value = (
                F.mamba1_in_proj_flops(1, d, E)
                + F.conv1d_flops(1, E, K)
                + F.mamba1_x_dt_proj_flops(1, E, N, R)
                + F.mamba1_scan_flops(1, E, N)
                + F.ssm_out_proj_flops(1, E, d)
            )
            formula = (
                "2·{d}·2·{E} (in_proj) + 2·{E}·{K} (conv1d) + 2·{E}·({R} + 2·{N}) + 2·{R}·{E} "
                "(x_proj, dt_proj) + 9·{E}·{N} (scan) + 2·{E}·{d} (out_proj)"
            )
            kw = dict(d=d, E=E, K=K, R=R, N=N)
        else:
            G, H = m.n_groups, m.n_heads
            value = (
                F.mamba2_in_proj_flops(1, d, E, G, N, H)
                + F.conv1d_flops(1, m.conv_dim, K)
                + F.mamba2_decode_scan_flops(1, E, N)
                + F.ssm_out_proj_flops(1, E, d)
            )
            formula = (
                "2·{d}·(2·{E} + 2·{G}·{N} + {H}) (in_proj) + 2·({E} + 2·{G}·{N})·{K} (conv1d) "
                "+ 5·{E}·{N} (state update) + 2·{E}·{d} (out_proj)"
            )
            kw = dict(d=d, E=E, G=G, N=N, H=H, K=K)
        figs.append(
            figure(f"{kind}_decode_flops_per_token_per_layer", value, "FLOP", formula, **kw)
        )
    return figs


def ridge_figure(hw: HardwareProfile, dtype: str) -> Figure:
    return figure(
        "ridge_point_flop_per_byte",
        ridge_points(hw)[dtype],
        "FLOP/B",
        "{peak} FLOP/s / {bw} B/s (" + dtype + " peak over HBM bandwidth)",
        peak=hw.peak_flops_per_s[dtype],
        bw=hw.hbm_bandwidth_bytes_per_s,
    )
