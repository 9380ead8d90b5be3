"""The AMD section of docs/validation.md (written by bench/validation_doc.py): kvcalc against
published vLLM runs on MI300X, and the two constants fitted to them (the CDNA3 profiles have no
kernel tables: aiconfigurator measures NVIDIA GPUs only).

Run: python bench/validation_amd.py           (prints the section)
     python bench/validation_amd.py --fit     (the two fitted CDNA3 fractions)

Records (MI300X, TP 8, FP8 weights and KV cache: the amd/…-FP8-KV checkpoints):

- AMD's ROCm performance results page (rocm/vllm 0.10.2 container, 2025-10-06): vLLM offline
  throughput at max load, output tokens/s, Llama 3.1 70B and 405B FP8 (``THROUGHPUT``);
- Oracle Cloud's "Serving Llama 3.1 405B with AMD MI300X" blog: vLLM benchmark_latency at batch
  1-256, 128 in / 128 out, output tokens/s (``LATENCY``).

Fitted (both to these records only, one number each, for mi300x; mi325x takes them as its
assumed expected value inside a band marked unmeasured): the expected memory fraction (the batch
≤ 4 latency rows: weights streaming), then the expected matmul fraction of the bf16 and fp8
bands (the throughput rows, batch in the hundreds: GEMMs and attention compute). Bands: low and
high span the fitted rows' errors.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, replace

PERF_PAGE = "https://www.amd.com/en/developer/resources/rocm-hub/dev-ai/performance-results.html"
OCI_BLOG = "https://blogs.oracle.com/cloud-infrastructure/serving-llama-31-405b-model-with-amd-mi300x-gpus"


@dataclass(frozen=True)
class Record:
    id: str
    model: str
    prompt: int
    gen: int
    published_tokens_per_s: float  # output tokens/s of the 8 GPUs
    batch: int | None = None  # a latency run's batch; None: throughput at max load


THROUGHPUT = tuple(
    Record(f"amd-perf-mi300x-{m}-{p}-{g}", m, p, g, pub)
    for m, p, g, pub in (
        ("llama3.1-70b", 128, 2048, 13212.5),
        ("llama3.1-70b", 128, 4096, 11312.8),
        ("llama3.1-70b", 500, 2000, 11376.7),
        ("llama3.1-70b", 2048, 2048, 7252.1),
        ("llama3.1-405b", 128, 2048, 4201.7),
        ("llama3.1-405b", 128, 4096, 3176.3),
        ("llama3.1-405b", 500, 2000, 2992.0),
        ("llama3.1-405b", 2048, 2048, 2153.7),
    )
)
# batch -> output tokens/s
OCI_405B = ((1, 36), (2, 71), (4, 137), (8, 258), (16, 468), (32, 798), (64, 1184), (128, 1585),
            (256, 1846))  # fmt: skip
LATENCY = tuple(
    Record(f"oci-mi300x-405b-b{b}", "llama3.1-405b", 128, 128, tps, b) for b, tps in OCI_405B
)
RECORDS = THROUGHPUT + LATENCY


def _hw(memory: float | None = None, matmul: float | None = None):
    from calc.data.registry import load_hardware

    hw = load_hardware("mi300x")
    e = hw.efficiency
    up = {}
    if memory is not None:
        up["memory"] = replace(e.memory, expected=memory, low=min(e.memory.low, memory),
                               high=max(e.memory.high, memory))  # fmt: skip
    if matmul is not None:
        for key in ("matmul", "matmul_fp8"):
            b = getattr(e, key)
            up[key] = replace(b, expected=matmul, low=min(b.low, matmul), high=max(b.high, matmul))
    return replace(hw, efficiency=replace(e, **up)) if up else hw


def predict(rec: Record, hw=None) -> float:
    """Output tokens/s of the 8 GPUs."""
    from calc.data.registry import load_model
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.engines import host_costs
    from calc.deploy.steps import generation_time_of, step_of
    from calc.reports.throughput import serving_throughput

    dep = Deployment.build(load_model(rec.model), hw or _hw(), tp=8, weight_dtype="fp8-tensor",
                           kv_dtype="fp8", engine=EngineSettings(name="vllm"))  # fmt: skip
    host = host_costs("vllm", frontend="offline")
    if rec.batch is None:
        s = serving_throughput(dep, prompt=rec.prompt, gen=rec.gen, host=host)
        return s.output_tokens_per_s_per_gpu * dep.gpus
    b = rec.batch
    e2e = float(step_of(dep, batch=b, prompt=rec.prompt).time_s) + host.step_host_s(b)
    e2e += generation_time_of(dep, prompt=rec.prompt, gen=rec.gen, batch=b)
    e2e += (rec.gen - 1) * host.step_host_s(b)
    return b * rec.gen / e2e


def errors(records, hw=None) -> list[float]:
    return [predict(r, hw) / r.published_tokens_per_s - 1 for r in records]


def _bisect(f, lo: float, hi: float) -> float:
    """The x in [lo, hi] where the increasing f crosses zero."""
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def fit() -> tuple[float, float]:
    """(memory, matmul) expected fractions: memory so the batch ≤ 4 rows' signed median error
    is zero, then matmul so the throughput rows' is."""
    small = [r for r in LATENCY if r.batch <= 4]
    memory = _bisect(lambda m: statistics.median(errors(small, _hw(memory=m))), 0.2, 1.0)
    matmul = _bisect(
        lambda x: statistics.median(errors(THROUGHPUT, _hw(memory=memory, matmul=x))), 0.05, 1.0
    )
    return memory, matmul


def render() -> str:
    errs = errors(RECORDS)
    lines = [
        "## AMD: published vLLM runs on MI300X",
        "",
        "<!-- generated by bench/validation_amd.py -->",
        "",
        "aiconfigurator measures NVIDIA GPUs only, so the AMD profiles keep efficiency bands;",
        "two of mi300x's numbers are fitted to the published MI300X runs below",
        "(`python bench/validation_amd.py --fit`): the expected memory fraction to the batch ≤ 4",
        "latency rows, the expected matmul fraction (bf16 and fp8) to the throughput rows.",
        f"Sources: AMD's ROCm performance results ([page]({PERF_PAGE}), rocm/vllm 0.10.2,",
        f"2025-10) and Oracle Cloud's MI300X blog ([post]({OCI_BLOG})). MI325X and MI355X have",
        "no measurement here: their bands are marked unmeasured (`provenance: assumed`) and span",
        "what MI300X shows and the CDNA best-shape GEMM ceiling (MAMF about 0.60).",
        "",
        "| record | in / out | batch | predicted tokens/s | published tokens/s | signed error |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r, e in zip(RECORDS, errs, strict=True):
        b = "max load" if r.batch is None else f"{r.batch:,}"
        lines.append(
            f"| {r.id} | {r.prompt:,} / {r.gen:,} | {b} | "
            f"{predict(r):,.0f} | {r.published_tokens_per_s:,.0f} | **{e:+.1%}** |"
        )
    lines += [
        "",
        f"{len(errs)} rows: median |error| {statistics.median(abs(e) for e in errs):.1%}, signed "
        f"median {statistics.median(errs):+.1%}, from {min(errs):+.1%} to {max(errs):+.1%}.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:] == ["--fit"]:
        m, x = fit()
        print(f"memory expected {m:.3f}, matmul expected {x:.3f}")
    else:
        sys.stdout.write(render())
