"""vLLM's KV pool on AMD GPUs release by release, with and without the ROCm rules of issue 21's
rocmpool round (``VllmRules.cudagraph_profiled_rocm``: 0.18.0-0.25.x skip the CUDA graph
profile on ROCm, so neither the estimate nor its capture's residue is charged there) [GiB,
tokens]. "CUDA rules" is the prediction with the skip switched off, as kvcalc predicted
before the round.

Run:  python bench/rocm_pool.py [--model llama3-8b] [--hardware mi300x] [--tp 1]
"""

from __future__ import annotations

import argparse
from unittest import mock

GIB = 2**30
RELEASES = ("0.17.0", "0.18.0", "0.19.0", "0.20.0", "0.21.0", "0.25.0", "0.26.0", "0.27.0",
            "0.33.0")  # fmt: skip


def pool(model: str, hardware: str, tp: int, release: str):
    """(KV budget [bytes], pool tokens) vLLM ``release`` allocates for the deployment."""
    from calc.deploy.options import build_deployment

    dep = build_deployment(model, hardware, tp=tp, engine="vllm", engine_version=release)
    p = dep.per_gpu.prediction
    return p.kv_budget_bytes, p.tokens


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="llama3-8b")
    ap.add_argument("--hardware", default="mi300x")
    ap.add_argument("--tp", type=int, default=1)
    a = ap.parse_args(argv)
    print(f"{a.model} on {a.hardware}, TP {a.tp}, vLLM defaults")
    print("| Release | KV GiB, CUDA rules | KV GiB, ROCm rules | Tokens, CUDA rules | "
          "Tokens, ROCm rules | Change |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for release in RELEASES:
        with mock.patch("calc.deploy.engines.vllm.pool.graph_profile_skipped", return_value=False):
            kv0, t0 = pool(a.model, a.hardware, a.tp, release)
        kv1, t1 = pool(a.model, a.hardware, a.tp, release)
        print(f"| {release} | {kv0 / GIB:.2f} | {kv1 / GIB:.2f} | {t0:,} | {t1:,} | "
              f"{(t1 - t0) / t0:+.2%} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
