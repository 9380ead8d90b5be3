"""DeepSeek-R1's MoE layer (256 experts, 7,168 hidden, 2,048 per expert, top-8) under
TensorRT-LLM on B200 and H200: aiconfigurator's measured fused-MoE time beside kvcalc's
fp8-block128 curve for that engine [µs], at the silicon records' token counts (issue 20,
round 15; docs/step-time.md).

A dev script: it reads aiconfigurator-core 0.12.0's moe_perf.parquet (Apache-2.0) with
pandas/pyarrow, which kvcalc never imports. Run it with a python that has them:

    /tmp/aic-venv/bin/python tools/moe_fp8_block_b200.py [wheel]
"""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from calc.formulas import kernel_curves as K  # noqa: E402
from calc.formulas.flops import expected_active_experts  # noqa: E402

WHEEL = "/tmp/wheels/aiconfigurator_core-0.12.0-cp311-abi3-manylinux_2_28_x86_64.whl"
TABLES = {"b200": "b200_sxm/moe/trtllm/1.3.0rc20", "h200": "h200_sxm/moe/trtllm/1.3.0rc20"}
HIDDEN, INTER, E, K_TOP = 7168, 2048, 256, 8
W = 1.0 + 4 / 128**2  # fp8 weight bytes with one fp32 scale per 128 × 128 block
TOKENS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)


def curve_us(profile: dict, tokens, tp: int, ep: int) -> np.ndarray:
    """kvcalc's TensorRT-LLM fp8_block fused-MoE time at balanced routing [µs]."""
    raw = profile["kernels"]["moe_engine"]["trtllm"]["fp8_block"]
    c = {k: float(v) for k, v in raw.items() if k not in ("peak", "band", "provenance", "source")}
    T = np.asarray(tokens, dtype=float)
    routes = T * K_TOP / ep
    touched = expected_active_experts(E, K_TOP, T) / ep
    i_local = INTER / tp
    flops = 2 * 3 * routes * HIDDEN * i_local
    moved = touched * 3 * HIDDEN * i_local * W + routes * HIDDEN * 2 * 2
    t = K.moe_time_s(
        flops, moved, routes / touched, routes * HIDDEN, touched,
        flops_per_s=float(profile["peak_flops_per_s"][raw.get("peak", "fp8")]),
        bytes_per_s=float(profile["hbm_bandwidth_bytes_per_s"]),
        compute=c["compute"], memory=c["memory"], fixed_s=c["fixed_s"],
        per_route_element_s=c["per_route_element_s"], tile_m=c["tile_m"],
        sharpness=c["sharpness"], per_expert_s=c.get("per_expert_s", 0.0),
    )  # fmt: skip
    return np.asarray(t) * 1e6


def main(argv: list[str]) -> int:
    wheel = argv[0] if argv else WHEEL
    z = zipfile.ZipFile(wheel)
    for gpu, table in TABLES.items():
        path = f"aiconfigurator_core/systems/data/{table}/moe_perf.parquet"
        f = pd.read_parquet(io.BytesIO(z.read(path)))
        f = f[(f.moe_dtype == "fp8_block") & (f.hidden_size == HIDDEN) & (f.inter_size == INTER)
              & (f.num_experts == E) & (f.topk == K_TOP)]  # fmt: skip
        prof = yaml.safe_load((ROOT / "hardware_profiles" / f"{gpu}.yaml").read_text())
        print(f"## {gpu}: {table} kernel_source {sorted(set(f.kernel_source))}")
        for tp, ep in ((8, 1), (1, 8)):
            g = f[(f.moe_tp_size == tp) & (f.moe_ep_size == ep)]
            print(
                f"\nMoE TP{tp} EP{ep}: tokens | measured balanced / power_law_1.01 [µs]"
                " | kvcalc curve [µs] | curve / balanced − 1"
            )
            for T in TOKENS:
                b = g[(g.num_tokens == T) & (g.distribution == "balanced")].latency
                p = g[(g.num_tokens == T) & (g.distribution == "power_law_1.01")].latency
                if b.empty:
                    continue
                mb, mp = float(b.iloc[0]) * 1e3, float(p.iloc[0]) * 1e3 if len(p) else np.nan
                k = float(curve_us(prof, [T], tp, ep)[0])
                print(f"{T:>6} | {mb:9.1f} / {mp:9.1f} | {k:9.1f} | {k / mb - 1:+.1%}")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
