"""Nemotron 3 Nano 30B-A3B FP8's vLLM 0.16.0 step on 2 x B200 (TP 2) taken apart by op [ms]:
decode steps at batch 1, 64 and 290 (the measured decoding batch of the c 512 row: 18,746
tokens/s x 15.46 ms), and a mixed pass (290 decodes and one 2,048-token prompt), each as before
the nemoload round (the routed experts on the format's pooled curve ``moe@vllm.fp8``, 4,086
trtllm-gen rows and 324 CUTLASS ones; the shared experts' eager kernels at their fixed cost
alone) and after it (``moe@vllm.fp8_cutlass``, what 0.16.0 runs for non-gated per-tensor fp8
experts; the bytes of the eager quantisations and activation), and the CUTLASS-only fit's check
against the kernel tables (issue 20, nemoload round; docs/step-time.md).

Run: python bench/nemotron_step_parts.py [--wheel aiconfigurator_core-0.12.0-*.whl]

Without ``--wheel`` only the op table is printed. With it, the study of the measured fused-MoE
rows behind the change (aiconfigurator-core 0.12.0, ``b200_sxm/moe``): the shipped curves
against vLLM 0.24.0's FlashInfer CUTLASS rows (the one shape it holds, 2,816 / 704 / 128
experts / top-8); and, as a check that one shape's fit carries to others within the CUTLASS
kernel family, the same form fitted to TensorRT-LLM 1.3.0rc20's CUTLASS rows at that shape
alone, against its rows at twelve other shapes (needs scipy, as tools/fit_kernels.py).

The held-out serving rows (bench/validation_newruns.py) played no part in any of this.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

BATCHES = (1, 64, 290)  # decode batches: c 1, c 64, and c 512's measured decoding batch
CTX = 2048 + 256  # a decoding sequence's mean context: the prompt and half the 512 outputs
PROMPT = 2048  # the prompt tokens of the mixed pass
STUDY_SHAPE = {"hidden_size": 2816, "inter_size": 704, "num_experts": 128, "topk": 8}
TOKENS = (1, 16, 64, 256, 1024, 8192)


def deployment():
    """The c 512 row's deployment, as bench/validation_newruns.py builds it."""
    import validation_newruns as v

    run = next(r for r in v.runs() if r.id == "vultr-nemotron3-nano-fp8-b200-tp2-c512")
    return v.deployment(run)


def steps(dep, **counts) -> dict[str, tuple]:
    """Per op: (ms after the round, ms before it, whether the serving step table counts it
    per sequence) of ``step_of(dep, **counts)``."""
    from calc.deploy import steps as S

    st = S.op_setup(dep)
    out = {}
    before = dataclasses.replace(st, moe_curve_key=None, shared_extra_bytes=(0.0, 0.0))
    for label, setup in (("after", st), ("before", before)):
        raw = S.forward_ops(
            dep.model, setup.sharding, setup.layout, setup.sizes,
            imbalance=setup.moe_imbalance, moe_kernels=setup.moe_kernels,
            moe_outside_curve=setup.moe_outside_curve,
            shared_extra_kernels=setup.shared_extra_kernels,
            shared_extra_bytes=setup.shared_extra_bytes, moe_comm=setup.moe_comm,
            gather_bytes=setup.gather_bytes, **counts,
        )  # fmt: skip
        step = S._step(setup, dep.hardware, "expected", raw)
        for t, op in zip(step.ops, raw, strict=True):
            out.setdefault(t.name, {})[label] = float(t.time_s) * 1e3
            out[t.name]["seq"] = bool(op.attention)
    return {k: (v["after"], v["before"], v["seq"]) for k, v in out.items()}


def mixed(dep, batch: int) -> dict[str, tuple]:
    """A pass of ``batch`` decodes and one ``PROMPT``-token prompt as the serving step table
    (``calc.serve.steptime``) composes it: the ops it counts per sequence (attention, the SSM
    conv and scan) from the decode step and the prompt's prefill, every other op at the pass's
    ``batch + PROMPT`` tokens."""
    dec = steps(dep, batch=batch, ctx=CTX)
    pre = steps(dep, batch=1, prompt=PROMPT)
    tok = steps(dep, batch=batch + PROMPT, ctx=1)
    out = {}
    for n, (new, old, seq) in tok.items():
        if seq:
            new = dec[n][0] + pre[n][0]
            old = dec[n][1] + pre[n][1]
        elif n == "lm_head":  # logits for the decodes and the prompt's last token only
            new, old = dec[n][0], dec[n][1]
        out[n] = (new, old, seq)
    return out


def op_table() -> str:
    dep = deployment()
    cases = [(f"decode b {b}", {"batch": b, "ctx": CTX}) for b in BATCHES]
    cols = [steps(dep, **c) for _, c in cases]
    cases.append((f"mixed, {BATCHES[-1]} + {PROMPT}", None))
    cols.append(mixed(dep, BATCHES[-1]))
    names = list(cols[0])
    head = "| op | " + " | ".join(label for label, _ in cases) + " |"
    lines = [head, "|---|" + "---:|" * len(cases)]
    for n in names:
        cells = []
        for col in cols:
            new, old, _ = col[n]
            cells.append(f"{new:.3f}" if abs(new - old) < 5e-4 else f"{old:.3f} → {new:.3f}")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    tot = [(sum(c[n][0] for n in names), sum(c[n][1] for n in names)) for c in cols]
    lines.append("| **step** | " + " | ".join(f"**{o:.2f} → {n:.2f}**" for n, o in tot) + " |")
    return "\n".join(lines)


def study(wheel: Path) -> str:
    sys.path.insert(0, str(ROOT / "tools"))
    import fit_kernels as F
    import numpy as np
    import yaml

    prof = yaml.safe_load((ROOT / "hardware_profiles" / "b200.yaml").read_text())
    peaks = {k: float(v) for k, v in prof["peak_flops_per_s"].items()}
    bw = float(prof["hbm_bandwidth_bytes_per_s"])
    stream = float(prof["kernels"]["gemm"]["bf16"]["memory"])
    tables = F.Tables(wheel)
    out = []

    def at(curve, frame) -> np.ndarray:
        c = {k: v if k in ("peak", "band", "source", "provenance", "routes") else float(v)
             for k, v in curve.items()}  # fmt: skip
        c.setdefault("peak", "fp8")
        return F._shipped_moe_s(c, frame, peaks, bw, 1.0)

    vl = tables.read("b200_sxm", "moe", "vllm", "0.24.0", "moe_perf")
    cut = vl[vl.kernel_source.str.contains("modeloptfp8moe_flashinfer_cutlass")
             & (vl.distribution == "balanced")]  # fmt: skip
    meas = cut.latency.to_numpy() * 1e-3
    for key in ("fp8", "fp8_cutlass"):
        err = at(prof["kernels"]["moe_engine"]["vllm"][key], cut) / meas - 1
        out.append(f"moe@vllm.{key} on vLLM 0.24.0's {len(cut)} CUTLASS rows (2,816 / 704 / 128 / "
                   f"8): median {np.median(err):+.1%}, |error| {np.median(abs(err)):.1%}")
        g = cut[(cut.moe_tp_size == 2) & (cut.moe_ep_size == 1) & cut.num_tokens.isin(TOKENS)]
        g = g.sort_values("num_tokens")
        t = at(prof["kernels"]["moe_engine"]["vllm"][key], g)
        out.append("  TP 2, tokens: measured µs, error: " + "; ".join(
            f"{int(n)}: {m * 1e3:.0f}, {x / (m * 1e-3) - 1:+.0%}"
            for n, m, x in zip(g.num_tokens, g.latency, t, strict=True)))  # fmt: skip
    tr = tables.read("b200_sxm", "moe", "trtllm", "1.3.0rc20", "moe_perf")
    tr = tr[(tr.kernel_source == "moe_torch_flow_cutlass") & (tr.moe_dtype == "fp8")]
    one = tr
    for col, v in STUDY_SHAPE.items():
        one = one[one[col] == v]
    fit = F.fit_moe_nested(one, peaks, bw, "fp8", stream, "local")
    bal = tr[tr.distribution == "balanced"]
    err = at(fit[1], bal) / (bal.latency.to_numpy() * 1e-3) - 1
    bal = bal.assign(err=err)
    out.append("TensorRT-LLM 1.3.0rc20 CUTLASS fp8 MoE, the form fitted at 2,816 / 704 / 128 / 8 "
               f"alone ({len(one[one.distribution == 'balanced'])} rows, |error| "
               f"{fit[2]['median_abs_error']:.1%}), against every shape (median error, all "
               "tokens / 16-512 tokens):")
    for shape, g in bal.groupby(["hidden_size", "inter_size", "num_experts", "topk"]):
        mid = g[(g.num_tokens >= 16) & (g.num_tokens <= 512)]
        out.append(f"  {shape}: {np.median(g.err):+.0%} / {np.median(mid.err):+.0%}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", type=Path, help="the aiconfigurator-core 0.12.0 wheel")
    args = ap.parse_args(argv)
    print("Nemotron 3 Nano FP8, vLLM 0.16.0, 2 x B200, TP 2: ms a step on one GPU, before → "
          "after the nemoload round where they differ\n")
    print(op_table())
    if args.wheel:
        print()
        print(study(args.wheel))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
