"""The fused-MoE layer of TensorRT-LLM v1.0's throughput-table MoE rows at their decode steps'
token counts: kvcalc's curve beside aiconfigurator's measured tables [µs per layer], and the
1.0 / 1.3.0rc20 ratio of those tables at the same tokens [×] (issue 20, round 16;
docs/step-time.md).

For each MoE column of the held-out page (``bench/validation_heldout.py``) and each of its rows
whose steady state decodes (every length but the prefill-bound ones stays in), the tokens one
MoE layer takes in a decode-only step are the per-rank batch padded to the page's next captured
CUDA-graph size, times the attention-DP ranks (every rank's tokens gathered before the MoE).
Beside kvcalc's curve at that count (balanced routing, at the 1.3 tables' speed: what it was
fitted to) it prints:

- the 1.3.0rc20 table, ``balanced`` and ``power_law_1.01`` routing, interpolated in log-log
  between the measured token counts (the tables reach 16,384 tokens: no row needs more);
- the 1.0 table (1.0.0rc3 on Hopper, 1.0.0rc6 on Blackwell; ``power_law_1.01`` only) and its
  ratio to the 1.3 table at the same routing: the release factor at that count.

A dev script: it reads aiconfigurator-core 0.12.0's and aiconfigurator 0.7.0's tables
(Apache-2.0) with pandas/pyarrow, which kvcalc never imports; run it with a python that has
them and kvcalc's own requirements:

    /tmp/aic-venv/bin/python tools/moe_large_batch.py [new wheel] [old wheel]
"""

from __future__ import annotations

import io
import math
import statistics
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

NEW_WHEEL = "/tmp/wheels/aiconfigurator_core-0.12.0-cp311-abi3-manylinux_2_28_x86_64.whl"
OLD_WHEEL = "/tmp/wheels/aiconfigurator-0.7.0-py3-none-any.whl"
# kvcalc hardware -> (aiconfigurator-core system, aiconfigurator 0.7.0 system, 1.0 release)
SYSTEMS = {
    "h100": ("h100_sxm", "h100_sxm", "1.0.0rc3"),
    "h200": ("h200_sxm", "h200_sxm", "1.0.0rc3"),
    "b200": ("b200_sxm", "b200_sxm", "1.0.0rc6"),
    "gb200": ("gb200", "gb200_sxm", "1.0.0rc6"),
}
TABLE_DTYPE = {"fp8-tensor": "fp8", "nvfp4": "nvfp4"}
NEW_RELEASE = "1.2.1"  # kvcalc's newest modelled TensorRT-LLM: the fused MoE at the 1.3 tables
KEYS = ["hidden_size", "inter_size", "num_experts", "topk", "moe_tp_size", "moe_ep_size"]


def _tables(new_wheel: str, old_wheel: str, hw: str):
    """(1.3.0rc20 rows of the default CUTLASS kernels, 1.0 rows of the regular kernels)."""
    new_sys, old_sys, release = SYSTEMS[hw]
    zn, zo = zipfile.ZipFile(new_wheel), zipfile.ZipFile(old_wheel)
    new = pd.read_parquet(io.BytesIO(zn.read(
        f"aiconfigurator_core/systems/data/{new_sys}/moe/trtllm/1.3.0rc20/moe_perf.parquet")))
    old = pd.read_csv(io.BytesIO(zo.read(
        f"aiconfigurator/systems/data/{old_sys}/trtllm/{release}/moe_perf.txt")))  # fmt: skip
    new = new[new.kernel_source == "moe_torch_flow_cutlass"]
    return new, old[old.kernel_source == "moe_torch_flow"]


def _at(frame: pd.DataFrame, tokens: float) -> float:
    """The table's latency at ``tokens`` [µs], log-log between its measured counts (nan
    outside them)."""
    f = frame.groupby("num_tokens").latency.min().sort_index()
    if f.empty or tokens < f.index[0] or tokens > f.index[-1]:
        return math.nan
    x, y = np.log(f.index.to_numpy(float)), np.log(f.to_numpy(float) * 1e3)
    return float(np.exp(np.interp(math.log(tokens), x, y)))


def _shape(frame: pd.DataFrame, fmt: str, m, ep: int, dist: str) -> pd.DataFrame:
    return frame[(frame.moe_dtype == fmt) & (frame.hidden_size == m["hidden"])
                 & (frame.inter_size == m["inter"]) & (frame.num_experts == m["experts"])
                 & (frame.topk == m["topk"]) & (frame.moe_tp_size == 1)
                 & (frame.moe_ep_size == ep) & (frame.distribution == dist)]  # fmt: skip


def kvcalc_layer_us(row, tokens: int, release: str, imbalance: float | None) -> float:
    """kvcalc's routed-experts op at ``tokens`` into each MoE layer, one decode step [µs]."""
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.rates import op_time
    from calc.deploy.steps import step_of

    dep = Deployment.build(load_model(row.model), load_hardware(row.hardware), tp=row.tp,
                           pp=row.pp, ep=row.ep, weight_dtype=row.weight_dtype,
                           kv_dtype=row.kv_dtype,
                           engine=EngineSettings(name="trtllm", version=release),
                           moe_imbalance=imbalance)  # fmt: skip
    step = step_of(dep, "expected", batch=tokens, ctx=row.prompt + row.gen // 2)
    op = next(o for o in step.raw if o.name == "routed_experts")
    return float(op_time(op, step.rates)) / op.layers * 1e6


def main(argv: list[str]) -> int:
    from validation_heldout import rows
    from validation_throughput import PAGE_GRAPH_BATCH_SIZES, predict

    from calc.data.registry import load_model

    new_wheel = argv[0] if argv else NEW_WHEEL
    old_wheel = argv[1] if len(argv) > 1 else OLD_WHEEL
    tables = {}
    groups: dict[str, list[tuple[float, float, float]]] = {}
    for row in rows():
        cfg = load_model(row.model)
        if cfg.moe is None:
            continue
        res = predict(row)
        if res.dominant == "prefill":
            continue
        ep = max(row.ep, 1)
        per_rank = math.ceil(res.concurrency / ep)
        padded = next((b for b in PAGE_GRAPH_BATCH_SIZES if b >= per_rank), per_rank)
        tokens = padded * ep
        if row.hardware not in tables:
            tables[row.hardware] = _tables(new_wheel, old_wheel, row.hardware)
        new, old = tables[row.hardware]
        m = {"hidden": cfg.d_model, "inter": cfg.moe.d_expert_ffn,
             "experts": cfg.moe.n_routed_experts, "topk": cfg.moe.experts_per_token}  # fmt: skip
        fmt = TABLE_DTYPE[row.weight_dtype]
        bal = _at(_shape(new, fmt, m, ep, "balanced"), tokens)
        pl = _at(_shape(new, fmt, m, ep, "power_law_1.01"), tokens)
        old_pl = _at(_shape(old, fmt, m, ep, "power_law_1.01"), tokens)
        curve = kvcalc_layer_us(row, tokens, NEW_RELEASE, 1.0)
        served = kvcalc_layer_us(row, tokens, "1.0.0", None)
        group = row.id.rsplit(" ", 1)[0]
        groups.setdefault(group, []).append((curve / bal - 1, old_pl / pl, served / old_pl - 1))
        print(f"{row.id:52s} {tokens:>6,} tok | curve {curve:7.1f} / 1.3 bal {bal:7.1f} "
              f"({curve / bal - 1:+6.1%}) | 1.3 pl {pl:7.1f} 1.0 pl {old_pl:7.1f} "
              f"(1.0/1.3 {old_pl / pl:.3f}) | kvcalc as served {served:7.1f} "
              f"({served / old_pl - 1:+6.1%} of 1.0 pl)")  # fmt: skip
    print("\ngroup | rows | curve / 1.3 balanced - 1 (median, range) | 1.0 / 1.3 power-law "
          "(median) | kvcalc as served / 1.0 power-law - 1 (median)")  # fmt: skip
    for group, got in groups.items():
        dev = [g[0] for g in got]
        rel = [g[1] for g in got if g[1] == g[1]]
        served = [g[2] for g in got if g[2] == g[2]]
        print(f"{group} | {len(got)} | {statistics.median(dev):+.1%} ({min(dev):+.1%} to "
              f"{max(dev):+.1%}) | {statistics.median(rel) if rel else math.nan:.3f} | "
              f"{statistics.median(served) if served else math.nan:+.1%}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
