"""Fits the one constant of the Mamba-2 chunked SSD prefill's measured time [s]
(``calc/formulas/ssd_time.py``: ``TOKEN_HEAD_S``; issue 20, ssd round) to the one published series
of the unfused SSD chain's timings found, and prints how kvcalc's Mamba-2 scan op stands against
it and against published timings of the decode state update.

The prefill series: vLLM PR #27299 (https://github.com/vllm-project/vllm/pull/27299), cyang49's
comment of 2025-10-25: RishiAstra's microbenchmark of the reference chain (``_chunk_cumsum_fwd``,
``_bmm_chunk_fwd``, ``_chunk_state_fwd``, ``_state_passing_fwd``, ``_chunk_scan_fwd``: the
"Original" column, vLLM's kernels of October 2025, the ones vLLM 0.16.0 still runs) on one H100
at granite-4.0-h-small's shape (128 heads of 64, d_state 128, one group, one sequence), as
tokens/s for 1,024 … 262,144 tokens. Measured numbers are facts; the column is typed in below.

The form (one layer, ``T`` tokens, ``h`` heads of head_dim × d_state = 64 × 128):

    t = TOKEN_HEAD_S × T × h

fitted by least squares on the relative error over the rows of 8,192 tokens and more, where the
time grows in proportion to the tokens (the GPU's work binds). At 1,024 and 2,048 tokens the
call took the same ≈ 0.29 ms: a fixed cost of the benchmark's launches (five Triton kernels and
the wrapper's tensor work from Python), which is not fitted (kvcalc charges its per-kernel cost).

The decode check: vLLM PR #43083 (https://github.com/vllm-project/vllm/pull/43083), danisereb's
tuning table of the Triton ``selective_state_update`` on one H100 (head_dim 64, d_state 128,
8 groups, bf16 inputs, fp16 state), µs by effective batch (sequences × heads), against the
state's read and write at kvcalc's H100 memory band plus one kernel's fixed cost.

Run: python bench/ssd_prefill_fit.py
"""

from __future__ import annotations

import sys

# vLLM PR #27299, cyang49 2025-10-25, "default" table, Original column: (tokens, tokens/s)
PREFILL_H100 = (
    (1024, 3.452741e6),
    (2048, 7.044192e6),
    (4096, 1.206409e7),
    (8192, 1.262327e7),
    (16384, 1.292440e7),
    (32768, 1.180002e7),
    (65536, 1.106830e7),
    (131072, 1.070444e7),
    (262144, 1.081547e7),
)
HEADS, HEAD_DIM, D_STATE, GROUPS = 128, 64, 128, 1  # granite-4.0-h-small's mixer
FIT_FROM = 8192  # the rows fitted: tokens ≥ this (time in proportion to the tokens)
# vLLM PR #43083, H100, head_dim 64, d_state 128, 8 groups, fp16 state: (sequences × heads, µs)
DECODE_H100 = (
    (8, 2.16), (16, 2.47), (32, 2.69), (64, 3.10), (128, 3.62), (256, 4.74), (512, 6.85),
    (1024, 11.15), (2048, 28.45), (4096, 55.48), (8192, 104.54), (12288, 145.55),
)  # fmt: skip
DECODE_STATE_BYTES = 2  # fp16


def fit(rows):
    """TOKEN_HEAD_S minimising Σ (predicted / measured − 1)² over ``rows`` of (tokens, s)."""
    a = [tokens * HEADS / t for tokens, t in rows]
    return sum(a) / sum(x * x for x in a)


def _rates(hw_name: str):
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.steps import prefill

    step = prefill(load_model("nemotron-3-nano-30b-a3b"), load_hardware(hw_name), batch=1,
                   prompt=1024)  # fmt: skip
    return step.rates


def _scan_op(hw_name: str, tp: int, prompt: int):
    """kvcalc's Mamba-2 scan op of Nemotron 3 Nano at ``tp`` over one prompt, a layer [s]:
    (its time, its roofline without the kernels' fixed cost, its floor)."""
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.rates import op_time_s
    from calc.deploy.steps import prefill

    cfg = load_model("nemotron-3-nano-30b-a3b")
    step = prefill(cfg, load_hardware(hw_name), batch=1, prompt=prompt, tp=tp)
    n = cfg.n_layers_of("mamba2")
    i = next(i for i, op in enumerate(step.raw) if op.name == "mamba2_scan")
    op, r = step.raw[i], step.rates
    roof = op_time_s(op.flops, op.bytes, r.flops_per_s, r.bytes_per_s)
    return step.ops[i].time_s / n, roof / n, op.floor_s / n


def main(argv: list[str]) -> int:
    import calc.formulas.flops as F

    rows = [(tokens, tokens / rate) for tokens, rate in PREFILL_H100]
    k = fit([(tokens, t) for tokens, t in rows if tokens >= FIT_FROM])
    print(f"TOKEN_HEAD_S = {k:.3g} s (rows of {FIT_FROM:,} tokens and more, "
          f"{sum(tokens >= FIT_FROM for tokens, _ in rows)} of {len(rows)})")  # fmt: skip
    r = _rates("h100")
    print("\n| tokens | measured [ms] | fit [ms] | error | kvcalc's roofline [ms] "
          "| measured / roofline |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|")
    for tokens, t in rows:
        model = k * tokens * HEADS
        flops = F.mamba2_prefill_scan_flops(tokens, HEADS * HEAD_DIM, D_STATE, GROUPS)
        roof = flops / r.flops_per_s
        print(f"| {tokens:,} | {t * 1e3:.3f} | {model * 1e3:.3f} | {model / t - 1:+.1%} "
              f"| {roof * 1e3:.3f} | {t / roof:.1f} |")  # fmt: skip
    print("\nNemotron 3 Nano, one Mamba-2 layer's scan op (kvcalc: time / roofline / floor, µs):")
    for hw_name, tp in (("h100", 1), ("h200", 1), ("b200", 2)):
        cells = []
        for p in (2048, 8192):
            t, roof, floor = _scan_op(hw_name, tp, p)
            cells.append(f"{p:,} tokens {t * 1e6:.0f} / {roof * 1e6:.0f} / {floor * 1e6:.0f}")
        print(f"  {hw_name} TP {tp}: " + "; ".join(cells))
    print("\nDecode state update, H100 (vLLM PR #43083): measured / kvcalc's state read and write "
          "at its memory band + one kernel [µs]")
    cells = []
    for eff, us in DECODE_H100:
        state = 2 * eff * HEAD_DIM * D_STATE * DECODE_STATE_BYTES
        model = (state / r.bytes_per_s + r.kernel_s) * 1e6
        cells.append(f"{eff:,}: {us:.1f} / {model:.1f} ({model / us - 1:+.0%})")
    print("  " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
