"""TensorRT-LLM's fused-MoE curves with a fixed cost per active local expert [s per expert],
fitted alone on top of each shipped curve (issue 20, round 13; docs/step-time.md).

A dev script (pandas, pyarrow: the fitting venv of tools/fit_kernels.py). Run it after
``tools/fit_kernels.py --write``:

    /tmp/fitvenv/bin/python tools/moe_per_expert_hold.py \
        --wheel /tmp/wheels/aiconfigurator_core-0.12.0-*.whl [--write]

Round 10 fitted the per-expert term together with the curve's other constants; the refit
raised the compute fraction and made the curve faster at the mid-size shapes the serving steps
sit at. Here every other constant of the shipped curve (``moe_engine.trtllm.<key>`` of the
profile: compute, fixed, per-route, tile, sharpness) is held, and only ``per_expert_s`` is
chosen, on a grid of 0-2 µs in 0.025 µs steps, to minimise the median |error| over the same
balanced rows of the engine's default MoE path (``fit_kernels.moe_default_path``) the curve was
fitted to. A nested model: the constant 0 is the shipped curve. It is kept only where it lowers
the median |error| overall and in every token range of ``fit_kernels.MOE_TOKEN_RANGES``
(decode batches, the middle, prefill-sized steps); else it stays 0. The active experts are
counted as the tables route them (``fit_kernels.table_active_experts``: min(E, T k) / EP).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fit_kernels as F

ENGINE = "trtllm"
GRID_S = np.arange(0, 81) * 0.025e-6  # 0-2 µs per active expert
# appended to a curve's source where the term is set: --explain names the fit
SOURCE_NOTE = "; per_expert_s held fit: tools/moe_per_expert_hold.py"


def _errors(frame, curve: dict, peaks: dict, bandwidth: float, dtype: str):
    """(the shipped curve's time without the term [s], the active local experts, the measured
    time [s], the tokens) of each balanced row of ``dtype``; None below 100 rows."""
    _, peak_key, w = F.MOE_DTYPES[dtype]
    got = F.balanced_moe_rows(frame, dtype)
    if got is None:
        return None
    f, (T, h, inter, k, E, tp, ep) = got
    measured = f.latency.to_numpy() * 1e-3
    routes = T * k / ep
    touched = F.table_active_experts(E, k, T) / ep  # the tables' balanced routing
    i_local = inter / tp
    flops = 6 * routes * h * i_local
    moved = touched * 3 * h * i_local * w + routes * h * 4
    base = F.K.moe_time_s(
        flops, moved, routes / touched, routes * h,
        flops_per_s=peaks[curve.get("peak", peak_key)], bytes_per_s=bandwidth,
        compute=curve["compute"], memory=curve["memory"], fixed_s=curve["fixed_s"],
        per_route_element_s=curve["per_route_element_s"], tile_m=curve["tile_m"],
        sharpness=curve["sharpness"],
    )  # fmt: skip
    return base, touched, measured, T


def _score(base, touched, measured, tokens, per_expert_s: float) -> tuple:
    """Median |error| overall and in each token range."""
    r = np.abs(measured / (base + per_expert_s * touched) - 1)
    ranges = tuple(
        float(np.median(r[(tokens >= lo) & (tokens <= hi)]))
        if ((tokens >= lo) & (tokens <= hi)).any() else 0.0
        for lo, hi in F.MOE_TOKEN_RANGES
    )  # fmt: skip
    return float(np.median(r)), ranges


def fit_held(frame, curve: dict, peaks: dict, bandwidth: float, dtype: str):
    """(per_expert_s, score before, score after) for one shipped curve; per_expert_s 0 where
    no grid value lowers the median |error| overall and in every token range."""
    got = _errors(frame, curve, peaks, bandwidth, dtype)
    if got is None:
        return None
    before = _score(*got, 0.0)
    best = min(GRID_S, key=lambda pe: _score(*got, pe)[0])
    after = _score(*got, best)
    better = after[0] < before[0] and all(a < b for a, b in zip(after[1], before[1], strict=True))
    if not better:
        return 0.0, before, before
    return float(best), before, after


def fits(tables) -> list[tuple]:
    """(profile, curve key, table dtype, per_expert_s, before, after) for every TensorRT-LLM
    engine curve of a profile with aiconfigurator tables."""
    out = []
    for gpu, (name, _) in F.GPUS.items():
        prof = F.load_profile(name)
        curves = prof.get("kernels", {}).get("moe_engine", {}).get(ENGINE, {})
        if not curves:
            continue
        peaks = {k: float(v) for k, v in prof["peak_flops_per_s"].items()}
        bw = float(prof["hbm_bandwidth_bytes_per_s"])
        mo = tables.newest(gpu, "moe", "moe_perf", by="moe_dtype", keep=F.moe_default_path)
        if mo is None:
            continue
        own = mo[mo.fw == ENGINE]
        for key, curve in curves.items():
            for dtype in F._engine_moe_order(ENGINE, key):
                res = fit_held(own, curve, peaks, bw, dtype)
                if res is not None:
                    out.append((name, key, dtype, *res))
                    break
    return out


def write(name: str, key: str, per_expert_s: float) -> None:
    """Set ``per_expert_s`` on the profile's ``moe_engine.trtllm.<key>`` line."""
    path = F.ROOT / "hardware_profiles" / f"{name}.yaml"
    lines = path.read_text().split("\n")
    start = lines.index("  moe_engine:")
    eng = next(i for i in range(start, len(lines)) if lines[i] == f"    {ENGINE}:")
    i = next(j for j in range(eng + 1, len(lines)) if lines[j].startswith(f"      {key}: {{"))
    lines[i] = re.sub(r" per_expert_s: [^,]+,", "", lines[i])  # 0: the key left out
    lines[i] = lines[i].replace(SOURCE_NOTE, "")
    if per_expert_s:
        value = f"{per_expert_s:.4g}"
        lines[i] = re.sub(r"(sharpness: [^,]+,)", rf"\1 per_expert_s: {value},", lines[i], count=1)
        lines[i] = re.sub(r'(source: "[^"]*)"', rf'\1{SOURCE_NOTE}"', lines[i], count=1)
    path.write_text("\n".join(lines))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", required=True, type=Path)
    ap.add_argument("--write", action="store_true", help="write per_expert_s into the profiles")
    args = ap.parse_args(argv)
    tables = F.Tables(args.wheel)
    print("| profile | curve | table rows | per_expert_s [µs] | median abs: all | 1-63 | "
          "64-2,048 | 2,049+ tokens |")
    print("|---|---|---|---:|---|---|---|---|")
    for name, key, dtype, pe, before, after in fits(tables):
        pairs = zip((before[0], *before[1]), (after[0], *after[1]), strict=True)
        cells = " | ".join(f"{b:.1%} → {a:.1%}" for b, a in pairs)
        print(f"| {name} | moe@{ENGINE}.{key} | {dtype} | {pe * 1e6:.3f} | {cells} |")
        if args.write:
            write(name, key, pe)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
