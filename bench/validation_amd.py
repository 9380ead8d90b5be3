"""The AMD section of docs/validation.md (written by bench/validation_doc.py): kvcalc against
published vLLM runs on MI300X, and the two constants fitted to them (the CDNA3 profiles have no
kernel tables: aiconfigurator measures NVIDIA GPUs only); MLPerf floors on MI325X and MI355X; and,
rendered at its end, the MI355X serving runs of bench/validation_amd_serving.py.

Run: python bench/validation_amd.py           (prints the section)
     python bench/validation_amd.py --fit     (the two fitted CDNA3 fractions)

Records (MI300X, TP 8, FP8 weights and KV cache: the amd/…-FP8-KV checkpoints; MI355X's serving
runs are bench/validation_amd_serving.py's, rendered at the end of this section):

- AMD's ROCm performance results page (rocm/vllm 0.10.2 container, 2025-10-06): vLLM offline
  throughput at max load, output tokens/s, Llama 3.1 70B and 405B FP8 (``THROUGHPUT``);
- Oracle Cloud's "Serving Llama 3.1 405B with AMD MI300X" blog: vLLM benchmark_latency at batch
  1-256, 128 in / 128 out, output tokens/s (``LATENCY``).

Fitted (both to these records only, one number each, for mi300x; mi325x takes them as its
assumed expected value inside a band marked unmeasured): the expected memory fraction (the batch
≤ 4 latency rows: weights streaming), then the expected matmul fraction of the fp8 band (the
throughput rows, batch in the hundreds: GEMMs and attention compute), the bf16 band tied to it
by bench/amd_bf16_gemm.py's measured rule (bf16 = fp8 × 2 / r; it times the rows' attention;
until the amdband round the one number was copied to both). Bands: low and high span the fitted
rows' errors.
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
    kv: str | None = "fp8"  # the KV cache's dtype (None: the model's 16-bit)


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

# Held out (issue 20, third round): the same page's same table under the other rocm/vllm
# releases it has published (its English, French and Japanese copies kept different dates),
# same GPUs, checkpoints, lengths and prompt counts; never fitted to. They show how far one
# workload moves between releases of the same engine on the same GPU.
RELEASES = {  # container -> figures in THROUGHPUT's order (70B × 4 lengths, then 405B × 4)
    "rocm6.4.1_vllm_0.9.0.1_20250605": (16581.5, 13667.3, 13367.1, 8352.6,
                                        4275.0, 3356.7, 3201.4, 2179.7),
    "rocm6.4.1_vllm_0.9.1_20250715": (12638.9, 10756.8, 10691.7, 7354.9,
                                      3912.8, 3084.7, 2935.9, 2191.5),
    "rocm6.4.1_vllm_0.10.1_20250909": (13818.7, 11612.0, 11408.7, 7800.5,
                                       4134.0, 3177.6, 3034.1, 2214.2),
    "rocm7.0.0_vllm_0.11.1_20251103": (13279.6, 11449.7, 11347.4, 7651.7,
                                       3816.8, 3099.6, 3026.1, 2196.4),
}  # fmt: skip
HELD_OUT = tuple(
    replace(r, id=f"{r.id}@{tag.split('_')[1]}_{tag.split('_')[2]}", published_tokens_per_s=pub)
    for tag, figures in RELEASES.items()
    for r, pub in zip(THROUGHPUT, figures, strict=True)
)


# Held out (issue 20, round 20; a source not used before): ROCm/vllm's dev-docker README at
# 040de12 (2025-08-13, rocm/vllm-dev with vLLM 0.10.0, ROCm 6.4.1; Supermicro AS-8125GS-TNMR2,
# 8 x MI300X 750 W), the same checkpoints at TP 8: its throughput table (benchmark_throughput,
# --kv-cache-dtype fp8, max-num-seqs = prompts, max-num-batched-tokens 131,072) and its latency
# table (benchmark_latency: seconds for one batch of ``batch`` prompts, 2,048 tokens out; its
# command sets no --kv-cache-dtype, so the KV cache is the model's 16-bit). Output tokens/s of
# a latency row = batch × 2,048 / seconds.
DEV_DOCKER = (
    "https://github.com/ROCm/vllm/blob/040de12d45c16d6de6ad386cc57dd68b8c5b805e/"
    "docs/dev-docker/README.md"
)
DEV_DOCKER_THROUGHPUT = tuple(
    replace(r, id=r.id.replace("amd-perf", "rocm-vllm-readme") + "@0.10.0",
            published_tokens_per_s=pub)
    for r, pub in zip(THROUGHPUT, (13383.3, 11203.6, 10963.3, 7560.9,
                                   3867.7, 3043.3, 2905.6, 2174.1), strict=True)
)  # fmt: skip
# (model, prompt) -> seconds at batch 1, 2, 4 … 128, 2,048 tokens out
DEV_DOCKER_SECONDS = {
    ("llama3.1-70b", 128): (17.236, 18.057, 18.450, 19.677, 22.072, 24.932, 33.287, 46.484),
    ("llama3.1-70b", 2048): (17.500, 18.055, 18.858, 20.161, 22.347, 25.966, 35.324, 52.394),
    ("llama3.1-405b", 128): (48.453, 49.268, 51.136, 54.226, 57.274, 68.901, 88.631, 117.027),
    ("llama3.1-405b", 2048): (48.362, 49.121, 52.347, 54.471, 57.841, 70.538, 91.452, 125.471),
}  # fmt: skip
DEV_DOCKER_LATENCY = tuple(
    Record(f"rocm-vllm-readme-mi300x-{m.removeprefix('llama3.1-')}-{p}-2048-b{b}@0.10.0", m, p,
           2048, b * 2048 / sec, b, kv=None)
    for (m, p), secs in DEV_DOCKER_SECONDS.items()
    for b, sec in zip((1, 2, 4, 8, 16, 32, 64, 128), secs, strict=True)
)  # fmt: skip
DEV_DOCKER_RECORDS = DEV_DOCKER_THROUGHPUT + DEV_DOCKER_LATENCY


def _bf16_rule():
    """bench/amd_bf16_gemm.py (the bf16 band's rule), imported beside this script."""
    from pathlib import Path

    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import amd_bf16_gemm

    return amd_bf16_gemm


def _hw(memory: float | None = None, matmul: float | None = None):
    from calc.data.registry import load_hardware

    hw = load_hardware("mi300x")
    e = hw.efficiency
    up = {}
    if memory is not None:
        up["memory"] = replace(e.memory, expected=memory, low=min(e.memory.low, memory),
                               high=max(e.memory.high, memory))  # fmt: skip
    if matmul is not None:  # the fp8 fraction; bf16 follows by bench/amd_bf16_gemm.py's rule
        for key, x in (("matmul_fp8", matmul), ("matmul", _bf16_rule().bf16_expected(matmul))):
            b = getattr(e, key)
            up[key] = replace(b, expected=x, low=min(b.low, x), high=max(b.high, x))
    return replace(hw, efficiency=replace(e, **up)) if up else hw


def predict(rec: Record, hw=None) -> float:
    """Output tokens/s of the 8 GPUs."""
    from calc.data.registry import load_model
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.engines import host_costs
    from calc.deploy.steps import generation_time_of, step_of
    from calc.reports.throughput import serving_throughput

    # AMD's tuned attention kernels (rocm_kernels "aiter"): every record ran AMD's own vLLM
    # build: the rocm/vllm containers of the performance page and ROCm/vllm's README (its
    # commands export VLLM_V1_USE_PREFILL_DECODE_ATTENTION=1, ROCm's paged-attention decode,
    # beside "AITER FP8 KV cache" and "AITER full graph capture"), and Oracle's vLLM V0 fork
    # with ROCm's custom paged attention; none ran vLLM's Triton unified decode kernel
    engine = EngineSettings(name="vllm", rocm_kernels="aiter")
    dep = Deployment.build(load_model(rec.model), hw or _hw(), tp=8, weight_dtype="fp8-tensor",
                           kv_dtype=rec.kv, engine=engine)  # fmt: skip
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


# Held out (issue 20, seventh round): MLPerf Inference v5.1 llama2-70b-99 Offline runs on MI325X
# and MI355X (mlcommons/inference_results_v5.1@965182b, mlperf_log_summary.txt: "Tokens per
# second", output tokens of the 8 GPUs; "Samples per second"), with the settings of their
# harness files (harness_llm/models/llama2-70b/offline_<gpu>.yaml): 8 replicas of TP 1, vLLM.
# The OpenOrca set's mean input length is in no file read (inputs under 1,024 tokens,
# processorca.py), so what they pin down is a lower bound: the GEMMs of their output tokens
# alone, 2 × (parameters − embedding) FLOPs each, at the measured rate.
MLPERF = "https://github.com/mlcommons/inference_results_v5.1/tree/965182b"


@dataclass(frozen=True)
class MlperfRun:
    id: str
    hardware: str
    weight_dtype: str  # kvcalc's weight format
    peak: str  # the peak its GEMMs run at (the activations' format)
    band: str  # the profile's efficiency band for those GEMMs
    tokens_per_s: float  # output tokens/s of the 8 GPUs
    samples_per_s: float
    settings: str


MLPERF_RUNS = (
    MlperfRun("mlperf51-closed-amd-8xmi325x-llama2-70b-offline", "mi325x", "fp8-tensor", "fp8",
              "matmul_fp8", 34555.0, 114.852,
              "closed; vLLM 0.6.5 MLPerf fork; fp8 weights, KV auto; max_num_seqs 2,700, "
              "max_num_batched_tokens 65,536, chunked prefill off, enforce_eager, 7 scheduler "
              "steps"),
    MlperfRun("mlperf51-open-amd-8xmi355x-llama2-70b-offline", "mi355x", "mxfp4", "fp4",
              "matmul_fp4", 93045.8, 333.216,
              "open; vLLM 0.9.1 fork; MXFP4 weights and activations (quark W4A4), fp8 KV; "
              "max_num_seqs 3,450, max_num_batched_tokens 40,960, chunked prefill off, graphs "
              "on, 19 scheduler steps"),
)  # fmt: skip


def gemm_flops_per_token() -> float:
    """GEMM FLOPs of one Llama-2-70B token: 2 × (parameters − embedding) [FLOP]."""
    from pathlib import Path

    from calc.data.registry import load_model
    from calc.formulas.params import model_params

    root = Path(__file__).resolve().parent.parent
    params = model_params(load_model(str(root / "docs/validation/llama2-70b.yaml")))
    return 2.0 * (params.total - params.embedding)


def mlperf_floor(run: MlperfRun, peak: str | None = None) -> tuple[float, float]:
    """(output tokens per sample, the least fraction of the ``peak`` (default: the run's GEMM
    peak) the run sustained): its output tokens/s per GPU × GEMM FLOPs per token / peak."""
    from calc.data.registry import load_hardware

    flops_per_s = gemm_flops_per_token() * run.tokens_per_s / 8
    peak_flops = load_hardware(run.hardware).peak_flops_per_s[peak or run.peak]
    return run.tokens_per_s / run.samples_per_s, flops_per_s / peak_flops


def _mlperf() -> list[str]:
    from calc.data.registry import load_hardware

    lines = [
        "Held out (issue 20, seventh round): MLPerf Inference v5.1 Llama-2-70B Offline runs on",
        f"MI325X and MI355X ([results]({MLPERF}), each with its harness settings). Their",
        "prompts' mean length is in no file read, so each run gives a floor: the GEMM rate its",
        "output tokens alone need (2 × (parameters − embedding) FLOPs each, "
        f"{gemm_flops_per_token() / 1e9:.1f} GFLOP), as a",
        "fraction of the peak its GEMMs run at, against the profile's band (low / expected /",
        "high). Nothing is fitted to them.",
        "",
        "| record | settings | output tokens/s per GPU | tokens per sample | GEMM floor "
        "(of peak) | band low / expected / high |",
        "|---|---|---:|---:|---:|---|",
    ]
    for run in MLPERF_RUNS:
        per_sample, floor = mlperf_floor(run)
        b = getattr(load_hardware(run.hardware).efficiency, run.band)
        lines.append(
            f"| {run.id} | {run.settings} | {run.tokens_per_s / 8:,.1f} | {per_sample:.1f} | "
            f"**{floor:.3f}** ({run.peak}) | {b.low:.2f} / {b.expected:.2f} / {b.high:.2f} |"
        )
    mi355 = MLPERF_RUNS[1]
    fp4 = mlperf_floor(mi355)[1]
    fp8 = mlperf_floor(mi355, "fp8")[1]
    fp4_expected = load_hardware(mi355.hardware).efficiency.matmul_fp4.expected
    lines += [
        "",
        "A floor above the band's expected value means kvcalc at *expected* is slower than the",
        "run whatever its prompts (the GEMMs of its output tokens alone take longer than the run",
        "took); below the band's high value, the band still holds it. MXFP4 with MXFP4",
        f"activations on MI355X sustains at least {fp4:.3f} of its fp4 peak ({fp8:.3f} of the fp8",
        f"peak): below the expected value fitted to pull 25135's MXFP4 run ({fp4_expected:.2f}, "
        "the part below), inside",
        "the band. MI325X stays marked unmeasured (`provenance: assumed`): no run with stated",
        "lengths was found; its floor sits inside its band, above its expected value.",
        "",
    ]
    return lines


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
        "latency rows, the expected fp8 matmul fraction to the throughput rows (the bf16 band",
        "derived from it by the measured gfx942 rate of bf16 against 8-bit GEMMs, bf16 = fp8 × 2 /",
        "r, r = 1.34-1.98: `python bench/amd_bf16_gemm.py`).",
        f"Sources: AMD's ROCm performance results ([page]({PERF_PAGE}), rocm/vllm 0.10.2,",
        f"2025-10) and Oracle Cloud's MI300X blog ([post]({OCI_BLOG})). MI355X: its MXFP4 GEMM",
        "rate fitted to a published serving run and its other bands' low edges widened to hold",
        "the others (the MI355X part below), those bands marked unmeasured. MI325X has no run",
        "with stated lengths: its bands are marked unmeasured (`provenance: assumed`) and span",
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
    return "\n".join(lines + _held_out() + _dev_docker() + _mlperf() + _serving())


def _serving() -> list[str]:
    """The MI355X serving runs (bench/validation_amd_serving.py)."""
    from pathlib import Path

    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import validation_amd_serving

    return validation_amd_serving.render()


def _dev_docker() -> list[str]:
    """The ROCm/vllm README's rows (a source held out from the fit), row by row."""
    lines = [
        f"Held out (issue 20, round 20): ROCm/vllm's dev-docker README ([040de12]({DEV_DOCKER}),",
        "2025-08-13, rocm/vllm-dev with vLLM 0.10.0, MI300X TP 8, the same FP8 checkpoints), a",
        "source no constant was fitted to: its throughput table (max load, fp8 KV) and its",
        "latency table (benchmark_latency: one batch, 2,048 tokens out, a 16-bit KV cache as its",
        "command sets none; tokens/s = batch × 2,048 / seconds). Predicted as the rows above.",
        "",
        "| record | in / out | batch | predicted tokens/s | published tokens/s | signed error |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r, e in zip(DEV_DOCKER_RECORDS, errors(DEV_DOCKER_RECORDS), strict=True):
        b = "max load" if r.batch is None else f"{r.batch:,}"
        lines.append(f"| {r.id} | {r.prompt:,} / {r.gen:,} | {b} | {predict(r):,.0f} | "
                     f"{r.published_tokens_per_s:,.0f} | **{e:+.1%}** |")  # fmt: skip
    lines += ["", "| rows | n | signed median | median abs | min | max |",
              "|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    groups = (
        ("throughput, max load", DEV_DOCKER_THROUGHPUT),
        ("latency, batch 1-16", [r for r in DEV_DOCKER_LATENCY if r.batch <= 16]),
        ("latency, batch 32-128", [r for r in DEV_DOCKER_LATENCY if r.batch > 16]),
        ("all", DEV_DOCKER_RECORDS),
    )
    for name, rows in groups:
        errs = errors(rows)
        lines.append(f"| {name} | {len(errs)} | **{statistics.median(errs):+.1%}** | "
                     f"{statistics.median(abs(e) for e in errs):.1%} | {min(errs):+.1%} | "
                     f"{max(errs):+.1%} |")  # fmt: skip
    lines.append("")
    return lines


def _held_out() -> list[str]:
    """The other releases' rows of the same table, held out, by release."""
    lines = [
        "Held out: the same table under the page's other rocm/vllm releases (same GPUs,",
        "checkpoints, lengths and prompt counts; predicted as the rows above, one prediction",
        "per workload). The same workload moves up to 31% between releases on the same GPU.",
        "",
        "| release | rows | signed median | median abs | min | max |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    every = []
    for tag in RELEASES:
        rows = [r for r in HELD_OUT if r.id.endswith(f"@{tag.split('_')[1]}_{tag.split('_')[2]}")]
        errs = errors(rows)
        every += errs
        lines.append(f"| {tag} | {len(errs)} | **{statistics.median(errs):+.1%}** | "
                     f"{statistics.median(abs(e) for e in errs):.1%} | {min(errs):+.1%} | "
                     f"{max(errs):+.1%} |")  # fmt: skip
    lines += [
        "",
        f"All {len(every)} held-out rows: median |error| "
        f"{statistics.median(abs(e) for e in every):.1%}, signed median "
        f"{statistics.median(every):+.1%}.",
        "",
    ]
    return lines


if __name__ == "__main__":
    if sys.argv[1:] == ["--fit"]:
        m, x = fit()
        print(f"memory expected {m:.3f}, matmul expected {x:.3f}")
    else:
        sys.stdout.write(render())
