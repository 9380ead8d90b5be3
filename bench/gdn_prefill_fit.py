"""Fits the three constants of the chunked gated-DeltaNet prefill's measured time [s]
(``calc/formulas/delta_rule_time.py``: ``FIXED_S``, ``CHUNK_S``, ``TOKEN_HEAD_S``; issue 20,
gdnstep round) to aiconfigurator's measured SGLang kernel tables, and prints how the fit and
kvcalc's decode-step state update stand against them.

The tables: the ``aiconfigurator-core`` 0.12.0 wheel (ai-dynamo/aiconfigurator, Apache-2.0)
carries ``aiconfigurator_core/systems/data/<gpu>/linear_attention/sglang/0.5.14/gdn_perf.parquet``:
SGLang 0.5.14's ``chunk_gated_delta_rule`` (the FLA Triton pipeline a prefill pass runs per
layer: the q/k l2 norms, the chunk cumsum, the fused intra-chunk solve, the chunk-state
recurrence ``chunk_gated_delta_rule_fwd_h``, the output) and its decode kernels
(``causal_conv1d_update``, ``fused_recurrent_gated_delta_rule_packed_decode``) timed for the
Qwen3.5 family's per-GPU head counts. Measured numbers are facts; nothing of the tables is
copied into kvcalc, only the three numbers fitted here.

The form (one layer, ``b`` prompts of ``p`` tokens, ``h`` value heads on the GPU, chunks of
``CHUNK`` = 64 tokens, FLA's ``chunk_size``):

    t = FIXED_S + CHUNK_S × ceil(p / 64) + TOKEN_HEAD_S × b × ceil(p / 64) × 64 × h

the first term the call's launches (six Triton kernels, run eagerly: the function is
``torch.compiler.disable``-d, outside SGLang's graphs), the second the serial walk of
``chunk_gated_delta_rule_fwd_h`` over one sequence's chunks (its grid runs the sequences and
heads side by side, each program walking its chunks in order), the third the work over every
(padded) token and head. Fitted by least squares on the relative
error over every row of 512-16,384 tokens (a serving prefill chunk) of the six Hopper and
Blackwell data-centre GPUs (H100, H200, B200, B300, GB200, GB300) pooled: one triple for all.

Run (needs pandas and pyarrow, which kvcalc itself never imports):

    pip download --no-deps aiconfigurator-core==0.12.0 -d /tmp/wheels
    python bench/gdn_prefill_fit.py --wheel /tmp/wheels/aiconfigurator_core-0.12.0-*.whl
"""

from __future__ import annotations

import argparse
import io
import sys
import zipfile

GPUS = ("h100_sxm", "h200_sxm", "b200_sxm", "b300_sxm", "gb200", "gb300")
TABLE = "aiconfigurator_core/systems/data/{gpu}/linear_attention/sglang/0.5.14/gdn_perf.parquet"
CHUNK = 64
TOKENS = (512, 16384)  # the fitted rows' tokens per call (a serving prefill chunk)
# the decode check: Qwen3.5-27B at TP 1 (16 key heads, 48 value heads of 128 × 128, fp32 state)
DECODE_HEADS, STATE_BYTES = 48, 4
HBM = {"h200_sxm": 4.8e12, "b200_sxm": 8.0e12}  # the profiles' bandwidth [B/s]
MEMORY_EFFICIENCY = {"h200_sxm": 0.84, "b200_sxm": 0.84}  # their expected memory band


def load(wheel: str):
    import pandas as pd

    frames = []
    with zipfile.ZipFile(wheel) as z:
        for gpu in GPUS:
            d = pd.read_parquet(io.BytesIO(z.read(TABLE.format(gpu=gpu))))
            frames.append(d.assign(gpu=gpu))
    return pd.concat(frames)


def fit(rows):
    """(fixed_s, chunk_s, token_head_s) minimising Σ (predicted / measured − 1)²."""
    import numpy as np

    chunks = np.ceil(rows.seq_len / CHUNK)
    padded = rows.batch_size * chunks * CHUNK * rows.num_v_heads
    t = rows.latency * 1e-3  # the tables' ms
    a = np.c_[1 / t, chunks / t, padded / t]
    (f, c, th), *_ = np.linalg.lstsq(a, np.ones(len(rows)), rcond=None)
    return f, c, th, (f + c * chunks + th * padded) / t - 1


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", required=True, help="the aiconfigurator-core 0.12.0 wheel")
    args = ap.parse_args(argv)
    d = load(args.wheel)
    pre = d[(d.phase == "context") & (d.kernel_source == "chunk_gated_delta_rule")]
    pre = pre[pre.num_tokens.between(*TOKENS)]
    f, c, th, err = fit(pre)
    print(f"rows fitted: {len(pre)} (chunk_gated_delta_rule, {TOKENS[0]}-{TOKENS[1]} tokens)")
    print(f"FIXED_S = {f:.3g} s, CHUNK_S = {c:.3g} s, TOKEN_HEAD_S = {th:.3g} s; "
          f"median |error| {err.abs().median():.1%}")
    pre = pre.assign(err=err)
    print("\n| GPU | rows | median | 25% | 75% "
          "| Qwen3.5-27B TP 1, 1 × 8,192: measured / fit [µs] |")
    print("|---|---:|---:|---:|---:|---|")
    for gpu, g in pre.groupby("gpu"):
        one = g[(g.model_name == "Qwen/Qwen3.5-27B") & (g.num_v_heads == 48)
                & (g.batch_size == 1) & (g.seq_len == 8192)]  # fmt: skip
        meas = one.latency.median() * 1e3
        model = (f + c * 8192 / CHUNK + th * 8192 * 48) * 1e6
        q = g.err.quantile([0.5, 0.25, 0.75]).tolist()
        print(f"| {gpu} | {len(g)} | {q[0]:+.1%} | {q[1]:+.1%} | {q[2]:+.1%} "
              f"| {meas:.0f} / {model:.0f} |")  # fmt: skip
    print("\nby value heads (median error):",
          ", ".join(f"{h}: {e:+.0%}" for h, e in pre.groupby("num_v_heads").err.median().items()))
    print("by batch (median error):",
          ", ".join(f"{b}: {e:+.0%}" for b, e in pre.groupby("batch_size").err.median().items()))
    dec = d[(d.phase == "generation") & (d.model_name == "Qwen/Qwen3.5-27B")
            & (d.num_v_heads == DECODE_HEADS)]  # fmt: skip
    print("\nDecode state update, Qwen3.5-27B TP 1: measured packed decode [µs] against the "
          "state's read and write at the expected memory band (kvcalc's gdn_delta_rule without "
          "its weights and fixed cost)")
    for gpu in HBM:
        kernel = "fused_recurrent_gated_delta_rule_packed_decode"
        g = dec[(dec.gpu == gpu) & (dec.kernel_source == kernel)]
        cells = []
        for b in (1, 8, 32, 64, 256):
            meas = g[g.batch_size == b].latency.median() * 1e3
            state = 2 * b * DECODE_HEADS * 128 * 128 * STATE_BYTES
            roof = state / (HBM[gpu] * MEMORY_EFFICIENCY[gpu]) * 1e6
            cells.append(f"b {b}: {meas:.1f} / {roof:.1f}")
        print(f"  {gpu}: " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
