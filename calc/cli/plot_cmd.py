"""`kvcalc plot roofline|memory|capacity|frontier`: a chart in the terminal, or a PNG/SVG
file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from calc.cli import options as o
from calc.cli.option_groups import DEPLOYMENT, ENGINE, Options, with_options, without

PlotModels = Annotated[
    list[str],
    typer.Option(
        "--model",
        "-m",
        help="Shipped model name (see `kvcalc models`), a YAML path, a Hugging Face "
        "config.json path, or hf:org/name. Repeat it or give a comma-separated list to plot "
        "several models, one series each.",
    ),
]
Kind = Annotated[str, typer.Argument(help="What to plot: roofline | memory | capacity | frontier.")]
PlotHardware = Annotated[
    str | None,
    typer.Option(
        "--hardware",
        "-H",
        help="Shipped accelerator (see `kvcalc hardware`) or a YAML path; needed for roofline "
        "and capacity; for memory it adds the memory-minus-weights line.",
    ),
]
PlotCtx = Annotated[
    int | None,
    typer.Option(
        "--ctx",
        help="roofline: context of the decode step (default: 8192, or the "
        "model's max context if smaller).",
    ),
]
Prompt = Annotated[
    int,
    typer.Option("--prompt", help="roofline: prompt tokens of the prefill; frontier: per request."),
]
Gen = Annotated[int, typer.Option("--gen", help="frontier: output tokens per request.")]
MaxCtx = Annotated[
    int | None,
    typer.Option(
        "--max-ctx",
        help="memory/capacity: largest context on the x axis "
        "(default: the model's max context); the axis starts at 512.",
    ),
]
Tp = Annotated[
    str | None,
    typer.Option(
        "--tp",
        help="Tensor-parallel GPUs (roofline, capacity; default 1). frontier: the sizes to "
        "draw, e.g. 2,4,8 (default: powers of two up to the NVLink domain, at most 8).",
    ),
]
KvHeads = Annotated[
    int | None,
    typer.Option(
        "--kv-heads", help="KV heads of the GQA what-if (default: the model's own, else 8)."
    ),
]
KvLoraRank = Annotated[
    int | None,
    typer.Option(
        "--kv-lora-rank", help="Latent width of the MLA what-if (default: the model's, else 512)."
    ),
]
QkRope = Annotated[
    int | None,
    typer.Option(
        "--qk-rope-head-dim",
        help="RoPE key width of the MLA what-if (default: the model's, else 64).",
    ),
]
PlotOutput = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Write a .png or .svg (needs matplotlib: pip install 'kvcalc[plot]'), atomically; "
        "without it a text chart is printed. With --format json|csv: the data file.",
    ),
]


# every deployment and engine option of the table but --tp (a list for the frontier) and --gpus
# (memory's GPUs in all), declared above; `plot memory` refuses the ones it does not draw with
@with_options(without(DEPLOYMENT, "tp", "gpus"), ENGINE)
def plot(
    kind: Kind,
    model: PlotModels,
    hardware: PlotHardware = None,
    batch: o.Batch = 1,
    ctx: PlotCtx = None,
    prompt: Prompt = 1024,
    gen: Gen = 256,
    max_ctx: MaxCtx = None,
    gpus: o.Gpus = 1,
    tp: Tp = None,
    kv_heads: KvHeads = None,
    kv_lora_rank: KvLoraRank = None,
    qk_rope_head_dim: QkRope = None,
    fmt: o.RowFormat = "table",
    output: PlotOutput = None,
    *,
    options: Options,
) -> None:
    """Plot a roofline with the model's decode and prefill ops on it, KV cache vs context
    across attention kinds (MHA, GQA, MQA, MLA what-ifs and the model's own layout), max
    concurrency vs context, or output tokens/s per GPU against tokens/s per user (frontier).
    Without --output a plain-text chart (log scales, at most 100
    columns) and its numbers are printed; with --output FILE.png|FILE.svg matplotlib draws it.
    --format json|csv gives the numbers behind the chart instead (to stdout or --output).

    roofline: per GPU, ops placed at the attained FLOP/s of the expected efficiency. memory: KV
    bytes of --batch sequences; with --hardware, --gpus × memory − weights as a line (GB =
    10^9 B). capacity: `kvcalc capacity`'s max concurrency (KV budget of the most loaded GPU /
    paged KV per sequence) at each context. What-ifs keep the model's layers and windows.
    frontier: a line per tensor-parallel size, each point one concurrency (1, 2, 4, ... up to
    the engine's own) serving requests of --prompt + --gen tokens in steady state (prefill
    charged), and the Pareto frontier of all of them.

    Several models (-m a -m b, or -m a,b): one series per model (its own attention layout; no
    what-ifs), roofline ops keyed A.d1, B.d1, ...; the data rows carry a `model` column.

    The deployment and engine options are every sizing command's (docs/options.md): roofline,
    capacity and frontier draw the deployment they build (capacity's figures are `kvcalc
    capacity`'s for the same options); memory takes only --weight-dtype and --kv-dtype.

    Example: kvcalc plot roofline --model llama3-70b --hardware h100 --batch 8 --ctx 8192
    """
    from calc.cli.common import warn
    from calc.reports import plot_data as data

    tps = _checked(kind, fmt, output, hardware, tp, options)
    names, cfgs, hw = _models(model, hardware, kv_heads, kv_lora_rank, qk_rope_head_dim)
    if options["calibration"] is not None:
        from calc.cli.common import calibrated_hardware

        hw = calibrated_hardware(hw, options["calibration"])
        warn(_calibration_notes(options, cfgs))
    datas = [
        _one(kind, cfg, hw, batch=batch, ctx=ctx, prompt=prompt, gen=gen, max_ctx=max_ctx,
             gpus=gpus, tps=tps, kv_heads=kv_heads, kv_lora_rank=kv_lora_rank,
             qk_rope_head_dim=qk_rope_head_dim, options=options)
        for cfg in cfgs
    ]  # fmt: skip
    d = data.combine(datas)
    if kind == "frontier" and not d.curves:  # every --tp size left out: nothing to draw
        from calc.errors import InvalidInputError

        raise InvalidInputError("nothing to plot: every --tp size was left out: "
                                + "; ".join(d.skipped))  # fmt: skip
    if kind != "memory":  # the kinds that draw the engine's deployment
        warn(d.warnings)
    if kind in ("memory", "capacity") and max_ctx is not None:  # as every sizing command says
        warn([f"--max-ctx {max_ctx:,} exceeds {c.name}'s max context of {c.context_limit:,}: "
              "the curve past it is hypothetical" for c in cfgs if max_ctx > c.context_limit])
    if fmt != "table" and getattr(d, "skipped", None):  # the chart says it; the rows cannot
        warn([f"left out: {x}" for x in d.skipped])
    _draw(kind, d, fmt, output, names, cfgs)


def _checked(kind: str, fmt: str, output, hardware, tp, options) -> list[int] | None:
    """The kind, the format, the output, the hardware it needs and the options it draws with
    checked before any work; the --tp sizes (one, but for the frontier)."""
    from calc.cli.common import check_choice
    from calc.errors import InvalidInputError
    from calc.output.render import ROW_FORMATS
    from calc.reports.plot_data import MEMORY_OPTIONS, check_plot_kind

    check_plot_kind(kind)
    if kind == "memory":
        from calc.deploy.options import OPTION_SPECS

        for s in OPTION_SPECS:
            if s.name in options and s.name not in MEMORY_OPTIONS and options[s.name] != s.default:
                raise InvalidInputError(
                    f"plot memory draws KV bytes and --gpus × memory − weights: {s.flag} changes "
                    "nothing it draws (plot capacity draws the engine's pool)"
                )
    check_choice("--format", fmt, ROW_FORMATS)
    if output is not None and fmt == "table":
        from calc.output.plot import check_output

        check_output(output)
    if kind in ("roofline", "capacity", "frontier") and hardware is None:
        raise InvalidInputError(f"plot {kind} needs --hardware (see `kvcalc hardware`)")
    from calc.reports.sweep import parse_values

    tps = None if tp is None else parse_values(tp, "--tp")
    if kind != "frontier" and tps is not None and len(tps) > 1:
        raise InvalidInputError(f"plot {kind} takes one --tp, got {tp!r}")
    return tps


def _models(model, hardware, kv_heads, kv_lora_rank, qk_rope_head_dim):
    """(the model names, their configs, the hardware profile)."""
    from calc.cli.common import load_inputs
    from calc.errors import InvalidInputError
    from calc.reports.sweep import parse_names

    names = list(dict.fromkeys(n for m in model for n in parse_names(m, "--model")))
    if not names:
        raise InvalidInputError("plot needs --model (see `kvcalc models`)")
    hw = None
    cfgs = []
    for name in names:
        cfg, hw, _ = load_inputs(  # also checks the what-if sizes are in 1..1,000,000
            name,
            hardware,
            kv_heads=kv_heads,
            kv_lora_rank=kv_lora_rank,
            qk_rope_head_dim=qk_rope_head_dim,
        )
        cfgs.append(cfg)
    return names, cfgs, hw


def _draw(kind: str, d, fmt: str, output, names: list[str], cfgs: list) -> None:
    """The chart's numbers (json, csv, jsonl), its text, or its picture (--output)."""
    import sys

    from calc.output import plot as draw
    from calc.reports import plot_data as data

    text, figure = {
        "roofline": (draw.roofline_text, draw.roofline_figure),
        "capacity": (draw.capacity_text, draw.capacity_figure),
        "memory": (draw.memory_text, draw.memory_figure),
        "frontier": (draw.frontier_text, draw.frontier_figure),
    }[kind]
    if fmt != "table":
        from calc.output.render import emit

        rows = data.plot_rows(d)
        head = {"kind": kind, "model": names[0]} if len(names) == 1 else {"kind": kind}
        emit({**head, "models": [c.name for c in cfgs], "rows": rows}, fmt, output, rows=rows)
    elif output is None:
        from calc.output.safe_text import printable

        sys.stdout.write(printable(text(d), lines=True))  # names from files: no escapes
    else:
        draw.save_atomic(figure(d), output)


def _calibration_notes(options, cfgs) -> list[str]:
    """The calibration's mismatch with the charts' engine, models and weight format."""
    from calc.deploy.calibration_match import models_note
    from calc.deploy.deployment import EngineSettings

    opts = options.deployment
    said = models_note(opts["calibration"], EngineSettings.of(opts), cfgs, opts["weight_dtype"])
    return [said] if said else []


def _one(kind, cfg, hw, *, batch, ctx, prompt, gen, max_ctx, gpus, tps, kv_heads,
         kv_lora_rank, qk_rope_head_dim, options):  # fmt: skip
    """The data of one model's chart."""
    from calc.reports import plot_data as data

    tp = tps[0] if tps else 1
    opts = options.deployment
    dtypes = {"weight_dtype": opts.pop("weight_dtype"), "kv_dtype": opts.pop("kv_dtype")}
    opts.pop("calibration")  # applied to the hardware profile
    if kind == "frontier":
        return data.frontier_data(cfg, hw, prompt=prompt, gen=gen, tps=tps, **dtypes,
                                  options=opts)  # fmt: skip
    if kind == "roofline":
        return data.roofline_data(cfg, hw, batch=batch, ctx=ctx or min(8192, cfg.max_ctx),
                                  prompt=prompt, tp=tp, options=opts, **dtypes)  # fmt: skip
    if kind == "capacity":
        return data.capacity_data(
            cfg, hw, tp=tp, max_ctx=max_ctx, **dtypes, options=opts, kv_heads=kv_heads,
            kv_lora_rank=kv_lora_rank, qk_rope_head_dim=qk_rope_head_dim,
        )  # fmt: skip
    return data.memory_data(
        cfg, hw, batch=batch, gpus=gpus, max_ctx=max_ctx, **dtypes, kv_heads=kv_heads,
        kv_lora_rank=kv_lora_rank, qk_rope_head_dim=qk_rope_head_dim,
    )  # fmt: skip
