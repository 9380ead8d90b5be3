"""DeepSeek-R1's 8k prefill pass on MI325X / MI300X taken apart by op [ms], each op's rate as a
fraction of the peak it is charged against, the profile figure it uses, and the rate AITER's own
tuning tables measured for that kernel on gfx942 (issue 20, amdprefill round; docs/step-time.md).

Run: python bench/amd_prefill_parts.py

The pass: one prompt of the mean length of InferenceX PR #3318's 8k/1k rows (7,372 tokens: the
client's lengths uniform over [0.8, 1] x 8,192), DeepSeek-R1 FP8 at TP 8 under SGLang 0.5.19,
as bench/validation_newruns.py builds it (``step_of`` at batch 1). Per op: kvcalc's time, its
FLOPs a GPU, the rate those imply against the peak of the op's dtype (fp8 for the block-scaled
weights, bf16 for the MHA-form attention), and where AITER measured the same kernel on gfx942
(304 CUs: MI300X and MI325X alike) the time at that rate. Nothing here is fitted.

The measured rates, each at M = 8,192 rows (the tables' nearest row to 7,372: AITER pads M to
the row it looks up), from the tuners' own output ("us", "tflops" columns; the FLOPs are
2 x M x N x K for a GEMM, 2 x tokens x topk x 3 x model_dim x inter_dim for a fused MoE):

- ``GEMM``: ROCm/aiter aiter/configs/model_configs/a8w8_blockscale_tuned_gemm_ds_v3.csv
  (commit 84493f0e5b, PR #3951 "gfx942 MI325X: tuned a8w8 blockscale GEMM + FMoE configs for
  DSv3.2 TP8"; read at e4048607a): CK a8w8 block-scale GEMMs at DeepSeek's TP 8 shapes.
- ``MOE``: ROCm/aiter PR #4261 (commit ebc905b031, "[MoE] Add tuned config for MiMo-V2.5-Pro
  prefill on MI300X"), aiter/configs/model_configs/mimo_v2_5_pro_tuned_fmoe.csv: the fp8
  block-scale fused MoE (per_1x128, asm fmoe_bf16_blockscaleFp8_g1u1_vs_ps_silu_64x256) at
  model_dim 6,144, inter_dim 256 (a TP-split expert, as DeepSeek's 2,048 / 8 = 256), 384 experts,
  top-8. No gfx942 row at DeepSeek's own TP 8 shape (7,168 / 256, 257 experts, top-9) is in
  AITER's tables (only gfx950's, and the EP 8 shape 7,168 / 2,048 / 33 / 9 on gfx942): the
  sibling has the same inter_dim and 171 rows an expert at 8,192 tokens against DeepSeek's 230.
- Not measured on gfx942 at these shapes: the MHA-form prefill attention (qk 192, v 128, 16
  heads a GPU), the router, the norms and the all-reduce.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (us, M, N, K) of AITER's gfx942 CK a8w8 block-scale GEMM rows, M = 8,192
# (a8w8_blockscale_tuned_gemm_ds_v3.csv @ 84493f0e5b)
GEMM = {
    "q_kv_down": (291.6331, 8192, 2112, 7168),  # fused q_a + kv_a: 1,536 + 576 = 2,112
    "q_up": (106.0009, 8192, 3072, 1536),  # q_b: 128 heads x 192 / 8 = 3,072
    "kv_up": (66.7474, 8192, 4096, 512),  # kv_b: 128 x (128 + 128) / 8 = 4,096
    "o_proj": (268.9760, 8192, 7168, 2048),  # 128 x 128 / 8 = 2,048
    "ffn_up": (566.1328, 8192, 4608, 7168),  # dense layers: 2 x 18,432 / 8 = 4,608
    "ffn_down": (270.2519, 8192, 7168, 2304),
    "shared_up": (93.8073, 8192, 512, 7168),  # shared expert: 2 x 2,048 / 8 = 512
    "shared_down": (82.6615, 8192, 7168, 256),
}
# (us, tokens, topk, model_dim, inter_dim) of AITER's gfx942 fused MoE, fp8 block scales
# (mimo_v2_5_pro_tuned_fmoe.csv @ ebc905b031, PR #4261)
MOE = {
    2048: (703.1913, 2048, 8, 6144, 256),
    4096: (1069.7621, 4096, 8, 6144, 256),
    8192: (1412.0369, 8192, 8, 6144, 256),
    16384: (2680.6649, 16384, 8, 6144, 256),
    32768: (4816.4201, 32768, 8, 6144, 256),
}
# kvcalc's op -> the measured kernels it stands for (their FLOP-weighted rate)
MEASURED_BY_OP = {
    "q_down": ("q_kv_down",), "kv_down": ("q_kv_down",), "q_up": ("q_up",),
    "kv_up": ("kv_up",), "o_proj": ("o_proj",), "ffn": ("ffn_up", "ffn_down"),
    "shared_experts": ("shared_up", "shared_down"), "routed_experts": ("moe",),
}  # fmt: skip


def gemm_rate(name: str) -> float:
    """A measured GEMM's rate [FLOP/s]: 2 x M x N x K over its time."""
    us, m, n, k = GEMM[name]
    return 2.0 * m * n * k / (us * 1e-6)


def moe_rate(tokens: int = 8192) -> float:
    """The measured fused MoE's rate [FLOP/s]: 2 x tokens x topk x 3 x model_dim x inter_dim
    (gate, up and down) over its time."""
    us, t, topk, d, inter = MOE[tokens]
    return 2.0 * t * topk * 3 * d * inter / (us * 1e-6)


def op_rate(op: str) -> float | None:
    """The measured rate [FLOP/s] for kvcalc's op, None where nothing is measured (a pair of
    GEMMs: their combined FLOPs over their combined time)."""
    names = MEASURED_BY_OP.get(op)
    if names is None:
        return None
    if names == ("moe",):
        return moe_rate()
    flops = sum(2.0 * m * n * k for _, m, n, k in (GEMM[x] for x in names))
    return flops / sum(GEMM[x][0] * 1e-6 for x in names)


def figure(op: str) -> str:
    """The profile figure kvcalc's op is charged at."""
    if op in ("attn_scores", "attn_values"):
        return "efficiency.matmul (bf16)"
    if op in ("norms", "embedding", "lm_head"):
        return "efficiency.memory"
    if op == "tp_allreduce":
        return "interconnect"
    if op == "router":
        return "efficiency.matmul (bf16)"
    return "efficiency.matmul_fp8"


def parts(hardware: str) -> tuple[list[dict], dict]:
    """Per op of the 8k pass on ``hardware``: kvcalc's time, FLOPs, implied fraction, figure
    and the measured-rate time; and the totals [s]."""
    import dataclasses

    import validation_newruns as v

    from calc.deploy.steps import step_of

    run = next(r for r in v.runs() if r.id.startswith("ix3318") and r.concurrency == 4)
    run = dataclasses.replace(run, hardware=hardware)
    dep = v.deployment(run)
    p = round(float(v.replay(run).prompt.mean()))
    step = step_of(dep, "expected", batch=dep.sharding.dp_attn, prompt=float(p))
    peaks = dep.hardware.peak_flops_per_s
    rows, tot, tot_meas = [], 0.0, 0.0
    for t, op in zip(step.ops, step.raw, strict=True):
        s, f = float(t.time_s), float(t.flops)
        fig = figure(op.name)
        peak = peaks["bf16"] if "bf16" in fig else peaks["fp8"]
        rate = op_rate(op.name)
        meas = f / rate if rate else s
        rows.append({"op": op.name, "ms": s * 1e3, "tflop": f / 1e12,
                     "frac": f / s / peak if f and s else None, "figure": fig,
                     "meas_frac": rate / peaks["fp8"] if rate else None,
                     "meas_ms": meas * 1e3})  # fmt: skip
        tot, tot_meas = tot + s, tot_meas + meas
    return rows, {"prompt": p, "pass_ms": tot * 1e3, "at_measured_ms": tot_meas * 1e3}


def render() -> str:
    out = []
    for hw in ("mi325x", "mi300x"):
        rows, t = parts(hw)
        out.append(f"## {hw}: {t['prompt']}-token prompt, TP 8 (step_of, ms)\n")
        out.append("| op | kvcalc ms | TFLOP a GPU | of peak | figure "
                   "| AITER measured of fp8 peak | ms at it |")  # fmt: skip
        out.append("|---|---:|---:|---:|---|---:|---:|")
        for r in rows:
            frac = f"{r['frac']:.3f}" if r["frac"] else "-"
            meas = f"{r['meas_frac']:.3f}" if r["meas_frac"] else "not measured"
            out.append(f"| {r['op']} | {r['ms']:.1f} | {r['tflop']:.2f} | {frac} | "
                       f"{r['figure']} | {meas} | {r['meas_ms']:.1f} |")  # fmt: skip
        out.append(f"\npass {t['pass_ms']:.1f} ms; at AITER's measured rates "
                   f"{t['at_measured_ms']:.1f} ms\n")  # fmt: skip
    out.append("AITER fused MoE (gfx942, inter_dim 256, fp8 blocks) by tokens, of the fp8 peak "
               "2,614.9 TFLOP/s: " + ", ".join(
                   f"{n}: {moe_rate(n) / 2.6149e15:.3f}" for n in MOE))  # fmt: skip
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    sys.stdout.write(render())
