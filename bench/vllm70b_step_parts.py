"""Llama-3.1-70B under vLLM on B200, NVFP4 and fp8, op by op [ms]: kvcalc's decode step (batch
64 at the 1k/1k rows' mean context, 1,536) at TP 4 and TP 8 and its 1,024-token prefill at TP 4
and TP 8, beside aiconfigurator-core 0.12.0's vLLM 0.24.0 B200 kernel tables at the same shapes;
then, from the silicon sample's 120 rows of that campaign, the time kvcalc misses split into a
part per decode step and a part per prompt (issue 20, fp4dense round; docs/step-time.md).

Run: python bench/vllm70b_step_parts.py --wheel aiconfigurator_core-0.12.0-*.whl

The table columns, all summed over the 80 layers (needs pyarrow):

- qkv / o / gate_up / down: ``gemm/vllm/0.24.0/gemm_perf.parquet`` at (m, n, k) of the per-GPU
  linear (m: the pass's tokens; n: 10,240 / TP, 8,192, 57,344 / TP, 8,192; k: 8,192, 8,192 / TP,
  8,192, 28,672 / TP). The collector times the layer's ``forward`` (collector/vllm/
  collect_gemm.py): for NVFP4 the input's ``scaled_fp4_quant`` is inside the figure. A shape the
  table lacks (gate_up's n at TP 4, qkv's at TP 8) is interpolated linearly in n between its two
  neighbours at the same m and k. The kernel is 0.24.0's (FlashInferCuteDslNvFp4LinearKernel,
  CutlassFP8ScaledMMLinearKernel); the runs' 0.10.2 ran FlashInfer's CUTLASS NVFP4 GEMM after a
  separate ``scaled_fp4_quant`` (``ModelOptNvFp4LinearMethod``: ``flashinfer-cutlass`` where
  FlashInfer is installed), for which no table exists.
- attention: ``attention/vllm/0.24.0`` generation (decode: batch 64, context 1,536) and context
  (prefill: batch 1, isl 1,024) tables at 64 / TP query heads and 8 / TP KV heads, with the
  16-bit KV cache kvcalc scores the rows at and the fp8 cache the runs set (the decode context
  is isl + step: 1,536 lies between its rows at 1,024 and 2,048, interpolated linearly).
- all-reduce: ``comm/vllm/0.24.0/custom_allreduce_perf.parquet`` (vLLM's custom all-reduce, its
  message size in bf16 elements) at tokens × 8,192, two a layer: the graph-captured rows for the
  decode step, the eager rows for the prefill (the runs' passes with a prompt run without a CUDA
  graph: ``cudagraph_mode`` FULL_DECODE_ONLY).

The residual part (``--split``): for each format and TP, the 1k/1k and 1k/8k rows' measured TPOT
less kvcalc's fitted by least squares to a + b × c / (osl − 1): a is time kvcalc misses in every
decode step, b the time it misses per prompt (each request of the closed loop brings one prompt
per osl − 1 decode steps of its own); beside it the c 4 1k/1k row's TTFT gap (measured − kvcalc)
and kvcalc's own 1,024-token pass (GPU time) at that TP. Rows kvcalc has queue for a KV slot
(TTFT over 10 s: TP 1 at c 64 with 9,216-token sequences) are left out. Used to diagnose only:
nothing here is fitted into kvcalc.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tools"))

CAMPAIGN = "2026_04_06_llama_3_1_70b_b200_sxm_vllm"
LAYERS, D, HEADS, KV_HEADS, FFN = 80, 8192, 64, 8, 28672
QKV = (HEADS + 2 * KV_HEADS) * 128
CTX = 1024 + 512  # the 1k/1k rows' mean decode context
GEMM_DTYPE = {"fp4": "nvfp4", "fp8": "fp8"}
# kvcalc's op -> the table terms that stand for it
CASES = (("decode b 64", 64, {"batch": 64, "ctx": CTX}),
         ("prefill 1k", 1024, {"batch": 1, "prompt": 1024}))  # fmt: skip


def row(label: str, tp: int):
    import validation_serving as vs

    return next(r for r in vs.rows() if CAMPAIGN in r.id and r.label == label and r.tp == tp
                and (r.isl, r.osl, r.concurrency) == (1024, 1024, 64))  # fmt: skip


def kvcalc_ops(label: str, tp: int, counts: dict) -> dict[str, float]:
    """kvcalc's step of the row's deployment, ms per op (as bench/validation_serving.py scores
    it)."""
    import validation_serving as vs

    from calc.deploy.steps import step_of

    step = step_of(vs._deployment(row(label, tp)), "expected", **counts)
    return {op.name: float(op.time_s) * 1e3 for op in step.ops}


class Tables:
    """aiconfigurator's vLLM 0.24.0 B200 rows for this model's shapes."""

    def __init__(self, wheel: Path):
        import fit_kernels as F

        t = F.Tables(wheel)
        self.gemm = t.read("b200_sxm", "gemm", "vllm", "0.24.0", "gemm_perf")
        self.dec = t.read("b200_sxm", "attention", "vllm", "0.24.0", "generation_attention_perf")
        self.ctx = t.read("b200_sxm", "attention", "vllm", "0.24.0", "context_attention_perf")
        self.ar = t.read("b200_sxm", "comm", "vllm", "0.24.0", "custom_allreduce_perf")

    def gemm_ms(self, dtype: str, m: int, n: int, k: int) -> float:
        import numpy as np

        g = self.gemm[(self.gemm.gemm_dtype == dtype) & (self.gemm.m == m) & (self.gemm.k == k)]
        g = g.groupby("n").latency.median()
        if n in g.index:
            return float(g[n])
        return float(np.interp(n, g.index.to_numpy(), g.to_numpy()))

    def attention_ms(self, tp: int, kv: str, decode: bool) -> float:
        f = self.dec if decode else self.ctx
        f = f[(f.num_heads == HEADS // tp) & (f.num_key_value_heads == KV_HEADS // tp)
              & (f.head_dim == 128) & (f.kv_cache_dtype == kv) & (f.window_size == 0)]  # fmt: skip
        if decode:  # the context is isl + step; 1,536 between the rows at 1,024 and 2,048
            import numpy as np

            f = f[f.batch_size == 64]
            g = (f.isl + f.step).to_frame("ctx").assign(t=f.latency).groupby("ctx").t.median()
            return float(np.interp(CTX, g.index.to_numpy(), g.to_numpy()))
        else:
            f = f[(f.batch_size == 1) & (f.isl == 1024)]
        return float(f.latency.median()) if len(f) else float("nan")

    def allreduce_ms(self, tp: int, tokens: int, graph: bool) -> float:
        import numpy as np

        f = self.ar[(self.ar.num_gpus == tp)
                    & (self.ar.backend == ("vllm_graph" if graph else "vllm_eager"))]  # fmt: skip
        f = f.sort_values("message_size")
        return float(np.interp(np.log(tokens * D), np.log(f.message_size.to_numpy()),
                               f.latency.to_numpy()))  # fmt: skip

    def ops(self, label: str, tp: int, m: int, decode: bool) -> dict[str, float]:
        dt = GEMM_DTYPE[label]
        out = {
            "qkv_proj": self.gemm_ms(dt, m, QKV // tp, D),
            "o_proj": self.gemm_ms(dt, m, D, HEADS * 128 // tp),
            "ffn": self.gemm_ms(dt, m, 2 * FFN // tp, D) + self.gemm_ms(dt, m, D, FFN // tp),
            "attention (16-bit KV)": self.attention_ms(tp, "bfloat16", decode),
            "attention (fp8 KV)": self.attention_ms(tp, "fp8", decode),
            "tp_allreduce": 2 * self.allreduce_ms(tp, m, graph=decode),
        }
        return {k: v * LAYERS for k, v in out.items()}


def op_table(tables: Tables) -> str:
    lines = []
    for label in ("fp4", "fp8"):
        for name, m, counts in CASES:
            head = f"| {label} {name} | " + " | ".join(f"TP {tp} kvcalc | TP {tp} table"
                                                      for tp in (4, 8)) + " |"  # fmt: skip
            lines += ["", head, "|---|" + "---:|" * 4]
            cols = [(kvcalc_ops(label, tp, counts), tables.ops(label, tp, m, m == 64))
                    for tp in (4, 8)]  # fmt: skip
            names = [*cols[0][0], "attention (16-bit KV)", "attention (fp8 KV)"]
            for op in names:
                if op in ("attn_scores", "attn_values"):
                    continue
                cells = []
                for mine, table in cols:
                    k = mine.get(op)
                    if op.startswith("attention (16"):
                        k = mine["attn_scores"] + mine["attn_values"]
                    cells += ["" if k is None else f"{k:.2f}",
                              f"{table[op]:.2f}" if op in table else ""]
                lines.append(f"| {op} | " + " | ".join(cells) + " |")
            total = [f"**{sum(mine.values()):.2f}**" for mine, _ in cols]
            lines.append(f"| step | {total[0]} | | {total[1]} | |")
    return "\n".join(lines)


def split() -> str:
    """a [ms a step] and b [ms a prompt] of measured − kvcalc TPOT by format and TP (module
    docstring), over the 1k/1k and 1k/8k rows; and the c 4 1k/1k TTFT gap."""
    import numpy as np
    import validation_serving as vs

    res = [vs.predict(r) for r in vs.rows() if CAMPAIGN in r.id]
    from calc.deploy.steps import step_of

    lines = ["| format, TP | a: ms a step | b: ms a prompt | TTFT gap at 1k/1k c 4 | kvcalc's "
             "1k pass | pass + TTFT gap |", "|---|---:|---:|---:|---:|---:|"]
    for label in ("fp4", "fp8"):
        for tp in (1, 2, 4, 8):
            mine = [p for p in res if p and p.row.label == label and p.row.tp == tp
                    and p.row.isl == 1024 and p.ttft_s < 10]  # fmt: skip
            x = np.array([p.row.concurrency / (p.row.osl - 1) for p in mine])
            y = np.array([(p.row.tpot_s - p.tpot_s) * 1e3 for p in mine])
            (a, b), *_ = np.linalg.lstsq(np.c_[np.ones_like(x), x], y, rcond=None)
            c4 = next(p for p in mine if p.row.osl == 1024 and p.row.concurrency == 4)
            gap = (c4.row.ttft_s - c4.ttft_s) * 1e3
            own = float(step_of(vs._deployment(c4.row), "expected", batch=1,
                                prompt=1024).time_s) * 1e3  # fmt: skip
            lines.append(f"| {label}, TP {tp} | {a:.2f} | {b:.0f} | {gap:.0f} | {own:.1f} | "
                         f"{own + gap:.0f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", type=Path, help="aiconfigurator_core-0.12.0 wheel")
    ap.add_argument("--split", action="store_true", help="only the residual split")
    args = ap.parse_args()
    if not args.split:
        if args.wheel is None:
            ap.error("--wheel is needed for the op table")
        print(op_table(Tables(args.wheel)))
        print()
    print(split())


if __name__ == "__main__":
    main()
