"""Which layer shapes each version of aiconfigurator's fused-MoE tables holds for every engine
MoE curve kvcalc ships (``moe_engine.*`` and ``moe_runner.*`` of hardware_profiles/*.yaml), and
which of them the curve's fit read (issue 20, pershape round).

``tools/fit_kernels.py`` fits an engine's curve on the newest table of each weight format
(``Tables.newest(by="moe_dtype")``): an older table's rows at layer shapes (hidden, expert width,
experts, top-k) the newest one did not measure are left out. For each curve this lists, per
table version, the balanced rows of the curve's format and backend at each shape, marked
``fit`` where the shipped fit's rows hold that shape and ``hidden`` where only an older version
does (the rows ``--refit-engine-moe KEY --per-shape`` adds); for a curve with a hidden shape,
each older version's median time over the newest's at the rows both measured (does the older
table time the same kernel?). Reads the tables, fits nothing.

    /work/main/.venv/bin/python tools/moe_table_shapes.py \
        --wheel /tmp/wheels/aiconfigurator_core-0.12.0-*.whl [--hidden-only]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fit_kernels as fk

SHAPE = fk.MOE_TABLE_SHAPE[1:]  # hidden, width, experts, top-k


def shipped_curves(gpu: str):
    """(engine, runner or None, key) of each engine MoE curve the GPU's profile ships."""
    kern = fk.load_profile(fk.GPUS[gpu][0]).get("kernels") or {}
    out = [(fw, None, key) for fw, d in (kern.get("moe_engine") or {}).items() for key in d]
    out += [(fw, runner, key) for fw, d in (kern.get("moe_runner") or {}).items()
            for runner, keys in d.items() for key in keys]  # fmt: skip
    return out


def curve_selection(gpu: str, fw: str, runner: str | None, key: str):
    """(the engine whose rows the curve takes, the kernel_source substring or None, the
    ``Tables.newest`` row filter) as ``fit_engine_moe`` and ``refit_runner_moe`` choose them."""
    if runner is None:
        return fw, fk.MOE_ENGINE_BACKEND.get((gpu, fw, key)), fk.moe_default_path
    src, sub = fk.runner_rows(fk.MOE_RUNNER_ROWS[(gpu, fw, runner, key)])
    keep = fk.runner_keep(sub) if fk.MXFP4_OFF_PATH in sub else fk.moe_default_path
    return src or fw, sub, keep


def _rows(frame, src: str, sub: str | None, dtype: str):
    f = frame[(frame.fw == src) & (frame.moe_dtype == dtype) & (frame.distribution == "balanced")]
    return f[f.kernel_source.str.contains(sub)] if sub else f


def curve_format(newest, src: str, key: str, sub: str | None):
    """The table format the curve's fit takes (the first of ``_engine_moe_order`` with enough
    rows, measured by two engines or more), or None."""
    for dtype in fk._engine_moe_order(src, key):
        if len(set(newest.fw[newest.moe_dtype == dtype])) < 2:
            continue
        if len(_rows(newest, src, sub, dtype)) >= 100:
            return dtype
    return None


def shipped_per_shape(gpu: str, fw: str, runner: str | None, key: str, src: str) -> bool:
    """Whether the shipped line was fitted per layer shape (``--per-shape``): its source names
    more than one version of the engine's table."""
    kern = fk.load_profile(fk.GPUS[gpu][0])["kernels"]
    curve = kern["moe_runner"][fw][runner] if runner else kern["moe_engine"][fw]
    return str(curve[key].get("source", "")).count(f"moe/{src}/") > 1


def shape_lines(tables, gpu: str, fw: str, runner: str | None, key: str) -> list[str]:
    """The lines of one curve: per table version and shape, the rows and fit / hidden."""
    src, sub, keep = curve_selection(gpu, fw, runner, key)
    per_shape = shipped_per_shape(gpu, fw, runner, key, src)
    by = fk.MOE_TABLE_SHAPE if per_shape else "moe_dtype"
    newest = tables.newest(gpu, "moe", "moe_perf", by=by, keep=keep)
    if newest is None:
        return []
    dtype = curve_format(newest, src, key, sub)
    label = f"{fk.GPUS[gpu][0]} {fw}{'.' + runner if runner else ''}.{key}"
    if dtype is None:
        return [f"{label}: no fit rows"]
    used = set(_rows(newest, src, sub, dtype)[SHAPE].apply(tuple, axis=1))
    how = "newest table of each format and shape" if per_shape else "newest table of the format"
    out = [f"{label} ({dtype}{', ' + sub if sub else ''} rows of {src}; shipped fit: {how}):"]
    for v in reversed(tables.versions(gpu, "moe", src, "moe_perf")):
        f = tables.read(gpu, "moe", src, v, "moe_perf")
        f = _rows(f[keep(f)], src, sub, dtype)
        for shape, n in f.groupby(SHAPE).size().items():
            mark = "fit" if shape in used else "hidden"
            out.append(f"  {v} hidden {shape[0]} width {shape[1]} experts {shape[2]} "
                       f"top-{shape[3]}: {n} rows, {mark}")  # fmt: skip
    return out


def release_agreement(tables, gpu: str, fw: str, runner: str | None, key: str) -> list[str]:
    """For each older version of the curve's table: its median time over the newest version's
    at the rows both measured (the same shape, tokens, MoE TP and EP), with the 10th-90th
    percentiles: whether an older table's rows at the shapes only it measured can stand for
    the kernel the newest one times."""
    src, sub, keep = curve_selection(gpu, fw, runner, key)
    newest = tables.newest(gpu, "moe", "moe_perf", by="moe_dtype", keep=keep)
    dtype = None if newest is None else curve_format(newest, src, key, sub)
    if dtype is None:
        return []
    keys = list(fk.MOE_SHAPE)
    frames = {}
    for v in tables.versions(gpu, "moe", src, "moe_perf"):
        f = tables.read(gpu, "moe", src, v, "moe_perf")
        f = _rows(f[keep(f)], src, sub, dtype)
        if len(f):
            frames[v] = f
    *older, last = list(frames) or [None]
    out = []
    for v in older:
        both = frames[v].groupby(keys).latency.median().to_frame("old").join(
            frames[last].groupby(keys).latency.median().to_frame("new"), how="inner")
        if len(both):
            r = both.old / both.new
            out.append(f"  {v} / {last} at {len(both)} common rows: median {r.median():.2f} "
                       f"(p10 {r.quantile(0.1):.2f}, p90 {r.quantile(0.9):.2f}); "
                       f"{', '.join(sorted(set(frames[v].kernel_source)))} / "
                       f"{', '.join(sorted(set(frames[last].kernel_source)))}")
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", type=Path, required=True, help="the aiconfigurator-core wheel")
    ap.add_argument("--gpu", action="append", help="only these aiconfigurator systems")
    ap.add_argument("--hidden-only", action="store_true",
                    help="only the curves with a hidden shape, and only their hidden lines")
    args = ap.parse_args(argv)
    tables = fk.Tables(args.wheel)
    for gpu in args.gpu or list(fk.GPUS):
        for fw, runner, key in shipped_curves(gpu):
            lines = shape_lines(tables, gpu, fw, runner, key)
            if args.hidden_only:
                hidden = [x for x in lines[1:] if x.endswith("hidden")]
                lines = lines[:1] + hidden if hidden else []
            if lines and any(x.endswith("hidden") for x in lines):
                lines += release_agreement(tables, gpu, fw, runner, key)
            if lines:
                print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
