"""The HTML reports of ``kvcalc simulate``, ``kvcalc sweep`` and ``kvcalc check`` [each a
``calc.output.html_report.Document``]: the one-line answer, the command's figures and rows,
latency against the request rate, tokens/s per GPU against tokens/s per user, provenance, the
launch commands and the warnings. The charts evaluate a few more points of the same deployment
with the same models (the simulation, ``calc.reports.frontier``); nothing new is computed."""

from __future__ import annotations

import math

from calc.output.html_report import Commands, Document, Facts, Table
from calc.output.svg_chart import Chart, Series, seconds
from calc.reports.report_views import (
    FRONTIER_NOTE,
    frontier_chart,
    latency_charts,
    provenance_blocks,
    scalars,
    tail_blocks,
)

RATE_STEPS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)  # × the stated rate, for its curve
SWEEP_TABLE_ROWS = 50
SWEEP_SERIES = 10  # deployments of a sweep drawn one line each; the frontier covers them all
FRONTIER_POINTS = 40


def _launch(dep, replicas: int = 1) -> Commands | None:
    from calc.reports.launch_flags import launch_commands

    try:
        commands = launch_commands(dep, replicas=replicas)
    except Exception:
        return None
    return commands_block("Launch command", commands)


def commands_block(title: str, commands) -> Commands:
    """The engine wing's commands (``calc.deploy.engines.base.Command``) as a report block:
    each command on one line with its role, the files it reads and its notes."""
    labels = [f"{c.role} × {c.count}" if c.count > 1 else c.role for c in commands]
    files = [f for c in commands for f in c.files]
    notes = [n for c in commands for n in c.notes]
    return Commands(title, [c.text() for c in commands], notes, files, labels)


# ---------------------------------------------------------------------------------------------
# simulate


def _mean_lengths(fields: dict) -> tuple[float, float] | None:
    """Mean prompt and output tokens of the served requests (from the served rates)."""
    n = fields.get("served_requests_per_s")
    if not n:
        return None
    return fields["served_input_tokens_per_s"] / n, fields["served_output_tokens_per_s"] / n


def simulate_answer(fields: dict) -> tuple[str, str]:
    """One simulation in a line, and pass/fail against its SLOs (none: no verdict)."""
    if fields.get("ttft_p99_s") is None:
        return ("No request was served (every one longer than the KV pool or max model "
                "length)", "fail")  # fmt: skip
    rate = fields.get("rate_per_s") or fields.get("offered_requests_per_s")  # a trace: offered
    text = (
        f"At {rate:.3g} requests/s: p99 TTFT {seconds(fields['ttft_p99_s'])}, "
        f"p99 TPOT {seconds(fields['tpot_p99_s'] or 0)}, "
        f"{fields['served_requests_per_s']:.3g} requests/s served"
    )
    if fields.get("slo_attainment") is not None:
        text += f", {fields['slo_attainment']:.1%} of requests within the SLOs"
    text += "; saturated" if fields.get("saturated") else "; not saturated"
    slos = [(fields.get("ttft_slo_s"), fields["ttft_p99_s"]),
            (fields.get("tpot_slo_s"), fields["tpot_p99_s"] or 0)]  # fmt: skip
    if all(slo is None for slo, _ in slos):
        return text, ""
    ok = not fields.get("saturated") and all(slo is None or v <= slo for slo, v in slos)
    return text + (": meets the p99 targets" if ok else ": misses the p99 targets"), (
        "pass" if ok else "fail"
    )


def _curve_points(rows: list[dict], pct: str = "p99") -> list[tuple[float, float, float]]:
    return [(r["rate_per_s"], r.get(f"ttft_{pct}_s"), r.get(f"tpot_{pct}_s")) for r in rows]


def simulate_document(dep, load, report, *, seed: int, efficiency: str, curve_rows=None,
                      command: str = "") -> Document:  # fmt: skip
    """One simulation (``curve_rows`` None: a latency curve around its rate is simulated for
    the chart) or a --sweep-rate curve (its rows)."""
    from calc.reports.frontier import deployment_curve
    from calc.serve.curve import latency_vs_rate
    from calc.serve.report import result_fields

    f = report.fields
    ttft_slo, tpot_slo = f.get("ttft_slo_s"), f.get("tpot_slo_s")
    blocks: list = []
    if curve_rows is None:
        text, verdict = simulate_answer(f)
        blocks.append(Facts("The simulation", scalars(f)))
        # around the stated rate (a trace without --rate: its offered rate, rescaled)
        rate = load.rate_per_s or f.get("offered_requests_per_s")
        rows = []
        if rate:
            rates = [rate * s for s in RATE_STEPS]
            curve = latency_vs_rate(dep, load, rates, seed, efficiency=efficiency)
            rows = [result_fields(p.result, p.rate_per_s) for p in curve.points]
        lengths = _mean_lengths(f)
    else:
        best = f.get("max_rate_meeting_slo_per_s")
        rows = curve_rows
        verdict = ""
        text = f"Latency against the request rate, {len(rows)} rates simulated"
        if ttft_slo is not None or tpot_slo is not None:
            text = (
                f"Highest rate meeting the SLOs at p99 (not saturated): "
                f"{'none of these' if best is None else f'{best:g} requests/s'}"
            )
            verdict = "fail" if best is None else "pass"
        blocks.append(Facts("The deployment and the load", scalars(f)))
        blocks.append(Table("One row per rate", rows))
        rate = None
        lengths = _mean_lengths(rows[0]) if rows else None
    label = f"{dep.model.name} on {dep.gpus} × {dep.hardware.name}"
    for pct in ("p50", "p90", "p99"):
        if (pct != "p99" and curve_rows is None) or not rows:
            continue
        blocks += latency_charts(
            [(label, _curve_points(rows, pct))],
            ttft_slo_s=ttft_slo if pct == "p99" else None,
            tpot_slo_s=tpot_slo if pct == "p99" else None,
            rate_per_s=rate,
            pct=pct,
            note=f"simulated, seed {seed}, the same requests at each rate",
        )
    if lengths is not None:
        prompt, gen = (max(1, round(x)) for x in lengths)
        pts = deployment_curve(dep, prompt=prompt, gen=gen, label=label, efficiency=efficiency)
        marks = []
        if curve_rows is None and f.get("e2e_p50_s"):
            marks.append(("the simulation (p50)", [(gen / f["e2e_p50_s"],
                          f["served_output_tokens_per_s"] / dep.gpus)]))  # fmt: skip
        if pts:
            blocks.append(
                frontier_chart([(label, pts)], f"Tokens/s per GPU against tokens/s per user, "
                               f"mean request {prompt:,} + {gen:,} tokens", marks=marks)
            )  # fmt: skip
    blocks += provenance_blocks(hardware=[dep.hardware], models=[dep.model], fields=f)
    launch = _launch(dep, dep.replicas)
    if launch is not None:
        blocks.append(launch)
    blocks += tail_blocks((), report.warnings)
    return Document("kvcalc simulate", text, blocks, verdict, command)


# ---------------------------------------------------------------------------------------------
# sweep


def sweep_frontier(grid) -> tuple[list[tuple[str, list]], list[dict], int, int]:
    """Per deployment of the grid, its (tokens/s per user = 1 / TPOT, decode tokens/s per
    GPU) Pareto points over the rows that fit; the grid-wide frontier as rows; rows, fitting
    rows. One more pass over the grid's chunks (evaluated again, never held whole)."""
    import numpy as np

    from calc.reports.frontier import pareto_xy

    per: dict[str, list] = {}
    best: list[dict] = []
    n = fit = 0
    keys = ("model", "hardware", "weight_dtype", "kv_dtype", "tp", "pp", "prompt", "ctx", "batch")
    for chunk in grid.chunks():
        flat = chunk.flat()
        n += chunk.n_rows
        fits = np.asarray(flat["fits"], dtype=bool)
        fit += int(fits.sum())
        if "tpot_s" not in flat:  # --no-latency: no times to trade
            continue
        ok = fits & (flat["tpot_s"] > 0)
        x = np.where(ok, 1.0 / np.where(ok, flat["tpot_s"], 1.0), np.nan)
        y = np.where(ok, flat["output_tokens_per_s_per_gpu"], np.nan)
        label = (f"{flat['model'][0]} {flat['hardware'][0]} {flat['weight_dtype'][0]}/"
                 f"{flat['kv_dtype'][0]} tp{flat['tp'][0]} pp{flat['pp'][0]}")  # fmt: skip
        pts = per.setdefault(label, [])
        idx = pareto_xy(x, y)
        pts += [(float(x[i]), float(y[i])) for i in idx]
        rows = [{k: flat[k][i].item() for k in keys if k in flat} | {
            "output_tokens_per_s_per_user": float(x[i]),
            "output_tokens_per_s_per_gpu": float(y[i]),
        } for i in idx]  # fmt: skip
        allx = [r["output_tokens_per_s_per_user"] for r in best + rows]
        ally = [r["output_tokens_per_s_per_gpu"] for r in best + rows]
        best = [(best + rows)[i] for i in pareto_xy(allx, ally)]
    curves = []
    for label, pts in per.items():
        if pts:
            xs, ys = zip(*pts, strict=True)
            keep = pareto_xy(xs, ys, keep=FRONTIER_POINTS)
            curves.append((label, [pts[i] for i in keep]))
    keep = pareto_xy(
        [r["output_tokens_per_s_per_user"] for r in best],
        [r["output_tokens_per_s_per_gpu"] for r in best],
        keep=FRONTIER_POINTS,
    )
    return curves, [best[i] for i in keep], n, fit


def sweep_document(grid, *, command: str = "") -> Document:
    """A sweep: its size, its first rows, the frontier of its rows (decode only: batch /
    TPOT per GPU against 1 / TPOT per user) and the deployments' provenance."""
    from calc.reports.sweep_io import first_rows

    curves, front, n, fit = sweep_frontier(grid)
    text = f"{n:,} rows, {fit:,} of them fit"
    if front:
        top = max(front, key=lambda r: r["output_tokens_per_s_per_gpu"])
        text += (
            f"; most decode tokens/s per GPU: {top['output_tokens_per_s_per_gpu']:,.0f} "
            f"({top['model']} on {top['hardware']} tp{top['tp']}, ctx {top['ctx']:,}, "
            f"batch {top['batch']:,})"
        )
    blocks: list = []
    shown = sorted(curves, key=lambda c: -max(y for _, y in c[1]))[:SWEEP_SERIES]
    if shown:
        series = [Series(label, pts) for label, pts in shown]
        series.append(Series("frontier of the whole grid", [
            (r["output_tokens_per_s_per_user"], r["output_tokens_per_s_per_gpu"]) for r in front],
            colour="#000000", width=5, opacity=0.25, markers=False))  # fmt: skip
        more = len(curves) - len(shown)
        blocks.append(
            Chart(
                "Decode tokens/s per GPU against tokens/s per user (1 / TPOT)",
                "output tokens/s per user (1 / TPOT)",
                "output tokens/s per GPU (batch / TPOT / GPUs)",
                series,
                x_log=True,
                y_log=True,
                note="each line the Pareto points of one deployment over its rows that fit "
                "(ctx × batch); decode steps only, prefill not charged (the sweep's batch "
                "columns)"
                + (f"; {more} more deployments in the frontier, not drawn" if more else ""),
            )
        )
        blocks.append(Table("The frontier's rows", front))
    rows = first_rows(grid, SWEEP_TABLE_ROWS)
    note = f"the first {len(rows)} of {n:,} rows" if n > len(rows) else ""
    blocks.append(Table("Rows", rows, note=note))
    deps = [g[0] for g in grid.groups]
    blocks += provenance_blocks(hardware=[d.hardware for d in deps],
                                models=[d.model for d in deps])  # fmt: skip
    blocks += tail_blocks((), grid.warnings)
    return Document("kvcalc sweep", text, blocks, "", command)


# ---------------------------------------------------------------------------------------------
# check


def check_document(spec, results, notes, *, calibration=None, command: str = "") -> Document:
    """A check: pass/fail in a line, every requirement's figure and limit, each deployment's
    tokens/s per GPU against tokens/s per user (and p99 latency against the rate where its
    workload states one), provenance and launch commands."""
    from calc.reports.check_spec import build_deployment, load_spec_of
    from calc.reports.frontier import deployment_curve
    from calc.serve.curve import latency_vs_rate

    failed = sum(not r.passed for r in results)
    text = f"{len(results) - failed} passed, {failed} failed"
    if failed:
        text += ": " + "; ".join(f"{r.deployment} {r.requirement}" for r in results if not r.passed)
    blocks: list = [Table("Requirements", [r.display_row() for r in results], status="passed")]
    deps_rows, curves, lat, built_all, launches = [], [], [], [], []
    for d in spec.deployments:
        built = build_deployment(d, calibration)
        built_all.append(built)
        w = d.workload
        deps_rows.append({"name": d.name, "model": d.model, "hardware": d.hardware,
                          "gpus": built.gpus, "layout": built.describe(),
                          "engine": built.engine_config.engine, "ctx": w.ctx, "batch": w.batch,
                          "rate_per_s": w.rate})  # fmt: skip
        prompt = w.prompt_tokens
        gen = max(1, w.ctx - prompt) if w.gen is None else (
            w.gen if isinstance(w.gen, int) else max(1, round(w.lengths("gen").mean)))  # fmt: skip
        if gen > 1:  # a workload without output tokens has no decode to trade
            pts = deployment_curve(built, prompt=prompt, gen=gen, label=d.name,
                                   efficiency=d.efficiency)  # fmt: skip
            if pts:
                curves.append((d.name, pts))
        if w.rate is not None:
            rates = [w.rate * s for s in RATE_STEPS]
            curve = latency_vs_rate(built, load_spec_of(w), rates, w.seed,
                                    efficiency=d.efficiency)  # fmt: skip
            lat.append(
                (
                    d.name,
                    [
                        (
                            p.rate_per_s,
                            _finite(p.result.ttft_s.get("p99")),
                            _finite(p.result.tpot_s.get("p99")),
                        )
                        for p in curve.points
                    ],
                )
            )
        launch = _launch(built, built.replicas)
        if launch is not None:
            launches.append((d.name, launch.commands[0]))
    blocks.append(Table("Deployments", deps_rows))
    if lat:
        limits = [d.requirements for d in spec.deployments if d.workload.rate is not None]
        ttft = min((r.max_ttft_p99_s for r in limits if r.max_ttft_p99_s), default=None)
        tpot = min((r.max_tpot_p99_s for r in limits if r.max_tpot_p99_s), default=None)
        blocks += latency_charts(lat, ttft_slo_s=ttft, tpot_slo_s=tpot,
                                 note="each deployment's workload at multiples of its rate; "
                                 "a saturated point is drawn at its (growing) latency")  # fmt: skip
    if curves:
        blocks.append(frontier_chart(curves, "Tokens/s per GPU against tokens/s per user, at "
                                     "each deployment's prompt and output lengths",
                                     note=FRONTIER_NOTE + "; a deployment whose workload "
                                     "generates no tokens beyond the first (ctx = prompt) is "
                                     "not drawn"))  # fmt: skip
    blocks += provenance_blocks(hardware=[b.hardware for b in built_all],
                                models=[b.model for b in built_all])  # fmt: skip
    if launches:
        blocks.append(Commands("Launch commands", [c for _, c in launches],
                               labels=[name for name, _ in launches]))  # fmt: skip
    blocks += tail_blocks((), notes)
    return Document("kvcalc check", text, blocks, "fail" if failed else "pass", command)


def _finite(v):
    return v if v is not None and math.isfinite(v) else None
