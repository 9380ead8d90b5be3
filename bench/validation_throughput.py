"""The serving-throughput section of docs/validation.md (written by bench/validation_doc.py):
kvcalc's steady-state throughput (``calc.reports.throughput``, prefill charged) beside the
TensorRT-LLM v1.0 throughput table, with every row's signed error.

Run: python bench/validation_throughput.py   (prints the section)

Each prediction uses only what the benchmark states: the model, the GPU, TP, the checkpoint's
formats (NVIDIA ModelOpt FP8: per-tensor fp8 weights and an fp8 KV cache, as the engine-log
validation states for the same checkpoint), the request lengths, and TensorRT-LLM 1.0's
default settings (``calc.deploy.engines.trtllm.rules``: max_num_tokens 8,192, max_batch_size
2,048, free_gpu_memory_fraction 0.9). One constant is fitted to these rows
(``fit_fp8_serving_ratio``): the ratio of every fp8 GEMM band's expected fraction to its high one.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass

SOURCE = (
    "https://github.com/NVIDIA/TensorRT-LLM/blob/00f37686aa854010d68bcbd0f4ab000221541ca6/"
    "docs/source/performance/perf-overview.md"
)


PAGE_RELEASE = "1.0.0"  # the page's release (its v1.0 tag): its rules and its fused MoE's speed
FP8_SERVING_RATIO = 0.80  # the profiles' rounded fit (fit_fp8_serving_ratio)

# The page's llm_options.yml (every run, dense and MoE): cuda_graph_config enable_padding true,
# these batch_sizes. TensorRT-LLM (_torch/pyexecutor/cuda_graph_runner.py pad_batch) pads a
# decode-only batch with dummy generation requests up to the smallest captured size holding it
# (not beyond max_batch_size; a batch beyond the largest size runs unpadded, eagerly):
# ``calc.reports.throughput`` times each decode step in its padded graph.
PAGE_GRAPH_BATCH_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192)


@dataclass(frozen=True)
class Row:
    id: str
    model: str  # kvcalc model
    hardware: str
    tp: int
    weight_dtype: str
    kv_dtype: str
    prompt: int
    gen: int
    published_output_tokens_per_s: float  # whole TP group
    pp: int = 1
    ep: int = 1  # MoE: experts over ep GPUs, attention data parallel (enable_attention_dp)


# TensorRT-LLM v1.0, PyTorch backend, trtllm-bench throughput at max load (infinite request
# rate), synthetic fixed ISL/OSL; "Total Output Throughput (tokens/s)" of the TP group.
# Llama-3.1-8B-Instruct FP8 (nvidia/Llama-3.1-8B-Instruct-FP8) on H100 SXM 80GB.
# (input tokens, output tokens, published output tokens/s)
PUBLISHED = ((128, 128, 28312), (1000, 1000, 15220), (2048, 128, 3450), (20000, 2000, 1351))
ROWS = tuple(
    Row(
        f"trtllm-Llama-3.1-8B-Instruct-H100SXM-tp1-FP8-{p}-{g}",
        "llama3.1-8b",
        "h100",
        1,
        "fp8-tensor",
        "fp8",
        p,
        g,
        pub,
    )
    for p, g, pub in PUBLISHED
)


@dataclass(frozen=True)
class Result:
    row: Row
    predicted: float  # output tokens/s of the TP group, steady state, prefill charged
    decode_only: float  # batch / TPOT at the same concurrency (prefill left out)
    concurrency: int
    prefill_share: float  # prefill time / cycle time
    decode_terms: dict  # a decode step's time by term [s]: GEMMs, attention, fixed, other

    @property
    def dominant(self) -> str:
        """The cycle's largest term: prefill, or the decode step's largest."""
        if self.prefill_share >= 0.5:
            return "prefill"
        return "decode " + max(self.decode_terms, key=self.decode_terms.get)

    @property
    def error(self) -> float:
        return self.predicted / self.row.published_output_tokens_per_s - 1

    @property
    def decode_only_error(self) -> float:
        return self.decode_only / self.row.published_output_tokens_per_s - 1


# trtllm-bench's own estimate of the KV cache (tensorrt_llm/bench/build/tuning.py,
# calc_engine_setting): bytes per weight by the checkpoint's quantisation (BYTES_PER_ELEM) and
# the fraction of the memory left after the weights it sizes the cache by (the CLI's
# --kv_cache_free_gpu_mem_fraction default, 0.90)
BENCH_BYTES_PER_WEIGHT = {"fp8-tensor": 1.0, "fp8-block": 1.0, "nvfp4": 0.5}
BENCH_KV_FRACTION = 0.90


def bench_settings(row: Row) -> tuple[int, int]:
    """The max_batch_size and max_num_tokens trtllm-bench throughput runs ``row`` with when
    neither is given (NVIDIA/TensorRT-LLM ``tensorrt_llm/bench/benchmark/utils/general.py``
    get_settings → ``bench/build/tuning.py`` calc_engine_setting and finetune_setting):

    - KV requests R = fraction × (GPUs × device GiB − params × bytes per weight / GiB) /
      (2 × attention layers × max(tp, kv heads) × head dim × KV bytes / GiB × (ISL + OSL)),
      over the ``--tp × --pp`` GPUs (the MoE columns: --tp = --ep = the GPUs);
    - batch b = min(R, 4096) / pp, rounded up to 32 (at least 64) below 256, to 128 below
      1,024, else to 256;
    - tokens t = min(b × (1 + ISL / OSL), 32,768), rounded up to 256 (at least 2,048) below
      4,096, to 512 below 8,192, else to 1,024; chunked prefill is off (the page's commands
      do not turn it on), so t = max(t, ISL + max_batch_size).
    """
    import math

    from calc.data.registry import load_hardware, load_model
    from calc.formulas.params import model_params

    cfg, hw = load_model(row.model), load_hardware(row.hardware)
    tp, pp = max(row.tp, row.ep), row.pp
    kv_bytes = 1.0 if row.kv_dtype.startswith("fp8") else 2.0
    per_token = 2 * cfg.n_attention_layers * max(tp, cfg.n_kv_heads) * cfg.k_head_dim * kv_bytes
    engine = model_params(cfg).total * BENCH_BYTES_PER_WEIGHT.get(row.weight_dtype, 2.0)
    available = tp * pp * hw.budget_memory_bytes - engine
    requests = BENCH_KV_FRACTION * available / (per_token * (row.prompt + row.gen))
    raw_bs = min(requests, 4096) / pp
    raw_tokens = min(raw_bs * (1 + row.prompt / row.gen), 32768)
    batch = max(64, _round_up(raw_bs, ((256, 32), (1024, 128), (math.inf, 256))))
    tokens = max(2048, _round_up(raw_tokens, ((4096, 256), (8192, 512), (math.inf, 1024))))
    return batch, max(tokens, row.prompt + batch)


def _round_up(x: float, tiers) -> int:
    """``x`` rounded up to the step of the first ``(below, step)`` tier it is below."""
    import math

    step = next(step for below, step in tiers if x < below)
    return step * math.ceil(x / step)


def deployment(row: Row, bench: bool = False):
    """The row's deployment: its model, GPU, TP and checkpoint formats under TensorRT-LLM 1.0's
    defaults (max_num_tokens 8,192, max_batch_size 2,048: what the fp8 serving ratio was fitted
    with), or with ``bench`` the settings trtllm-bench gives the run (``bench_settings``)."""
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings

    engine = EngineSettings(name="trtllm", version=PAGE_RELEASE)
    if bench:
        batch, tokens = bench_settings(row)
        engine = EngineSettings(
            name="trtllm", version=PAGE_RELEASE, max_num_seqs=batch, max_batched_tokens=tokens,
            chunked_prefill=False,
        )
    return Deployment.build(
        load_model(row.model),
        load_hardware(row.hardware),
        tp=row.tp,
        pp=row.pp,
        ep=row.ep,
        weight_dtype=row.weight_dtype,
        kv_dtype=row.kv_dtype,
        engine=engine,
    )


def predict(row: Row, efficiency: str = "expected", host=None, bench: bool = False) -> Result:
    from calc.deploy.engines import host_costs
    from calc.deploy.steps import step_of
    from calc.reports.throughput import serving_throughput

    dep = deployment(row, bench)
    if host is None:  # trtllm-bench: the engine's Python API fed token ids, nothing streamed
        host = host_costs("trtllm", frontend="offline")
    s = serving_throughput(dep, prompt=row.prompt, gen=row.gen, efficiency=efficiency, host=host,
                           graph_batch_sizes=PAGE_GRAPH_BATCH_SIZES)
    step = step_of(dep, efficiency, batch=s.concurrency, ctx=row.prompt + row.gen)
    return Result(
        row,
        s.output_tokens_per_s_per_gpu * dep.gpus,
        s.concurrency / float(step.time_s),
        s.concurrency,
        s.prefill_s / s.cycle_s,
        decode_terms(step),
    )


def decode_terms(step) -> dict:
    """A step's time [s] split into its GEMMs' rooflines, attention's, the fixed kernel costs
    and the rest (norms, embedding, collectives)."""
    from calc.deploy.rates import is_gemm, op_time

    r = step.rates
    out = {"GEMMs": 0.0, "attention": 0.0, "fixed kernel cost": 0.0, "other": 0.0}
    for op in step.raw:
        fixed = op.kernels * r.kernel_s if op.kind == "compute" else 0.0
        t = float(op_time(op, r)) - fixed
        key = "GEMMs" if is_gemm(op) else "attention" if op.attention else "other"
        out[key] += t
        out["fixed kernel cost"] += fixed
    return out


def results(efficiency: str = "expected", host=None) -> list[Result]:
    return [predict(r, efficiency, host) for r in ROWS]


def fit_fp8_serving_ratio(lo: float = 0.5, hi: float = 1.0) -> float:
    """The one constant fitted to these rows: the ratio r of an fp8 band's *expected* fraction to
    its *high* one (mamf-finder's best shape), found by bisection so that the signed median
    error of the rows is zero with the h100 profile's fp8 band at expected = r × high (its
    other settings as shipped). Profiles round it and apply it to every fp8 band."""
    from dataclasses import replace

    from calc.data import registry
    from calc.data.hardware_schema import Band
    from calc.deploy.host_costs import NONE

    shipped = registry.load_hardware

    def signed_median(r: float) -> float:
        def load(name):  # the band model: the profile without its kernel curves
            hw = shipped(name)
            b = hw.efficiency.matmul_fp8
            band = Band(low=min(b.low, r * b.high), expected=r * b.high, high=b.high)
            return replace(hw, efficiency=replace(hw.efficiency, matmul_fp8=band), kernels=None)

        registry.load_hardware = load
        try:  # the GPU's time alone, as when the ratio was fitted (before host costs)
            return statistics.median(r.error for r in results(host=NONE))
        finally:
            registry.load_hardware = shipped

    for _ in range(30):  # the error grows with r
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if signed_median(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def render() -> str:
    res = results()
    low = results("low")  # the profile's low efficiency band: the slowest step times
    errors = [r.error for r in res]
    low_errors = [r.error for r in low]
    old = [r.decode_only_error for r in res]
    lines = [
        "## Steady-state serving throughput against TensorRT-LLM",
        "",
        "<!-- generated by bench/validation_throughput.py -->",
        "",
        "kvcalc's `serving_output_tokens_per_s_per_gpu` (`calc.reports.throughput`: continuous",
        "batching, chunked prefill of max_num_tokens per step, concurrency = min(max_batch_size,",
        "sequences of prompt + gen tokens the KV pool holds), prefill and decode sharing the GPU)",
        "× GPUs, against the TensorRT-LLM v1.0 throughput table (trtllm-bench at max load,",
        f"fixed input/output lengths; [perf-overview.md]({SOURCE})). Settings: the FP8",
        "checkpoint's formats (per-tensor fp8 weights, fp8 KV cache) and TensorRT-LLM 1.0's",
        "defaults (max_num_tokens 8,192, max_batch_size 2,048, free_gpu_memory_fraction 0.9);",
        "step times at the expected efficiency. One constant is fitted to these rows (below). The",
        "decode-only column is batch / TPOT at the same concurrency and the full context: the",
        "kind of figure `cost`'s `output_tokens_per_s_per_gpu` is (prefill left out).",
        "The dominant term is the cycle's largest: prefill when it takes half the cycle or",
        "more, else the largest part of a decode step (its GEMMs, attention, the fixed kernel",
        "costs, or the rest: norms, embedding, collectives).",
        "The last column is the prediction at the profile's low efficiency band (the slowest",
        "step times the profile allows).",
        "",
        "| record | in / out tokens | concurrency | prefill share of the cycle | dominant term "
        "| predicted tokens/s | published tokens/s | signed error | decode-only tokens/s "
        "| its error | error at low efficiency |",
        "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r, lo in zip(res, low, strict=True):
        row = r.row
        lines.append(
            f"| {row.id} | {row.prompt:,} / {row.gen:,} | {r.concurrency:,} | "
            f"{r.prefill_share:.0%} | {r.dominant} | {r.predicted:,.0f} | "
            f"{row.published_output_tokens_per_s:,.0f} | **{r.error:+.1%}** | "
            f"{r.decode_only:,.0f} | {r.decode_only_error:+.1%} | {lo.error:+.1%} |"
        )
    lines += [
        "",
        f"Median |error| {statistics.median(abs(e) for e in errors):.1%}, signed median "
        f"{statistics.median(errors):+.1%} over {len(res)} rows (decode only, prefill left "
        f"out: median |error| {statistics.median(abs(e) for e in old):.1%}, signed "
        f"{statistics.median(old):+.1%}). At the low efficiency band: median |error| "
        f"{statistics.median(abs(e) for e in low_errors):.1%}, signed "
        f"{statistics.median(low_errors):+.1%}.",
        "",
        "Since issue 20 these rows are timed by the h100 profile's kernel curves (fitted to",
        "aiconfigurator's kernel tables, see the kernel-curves section), its attention curves",
        "at TensorRT-LLM's own scale; no constant is fitted to these four rows any more.",
        "",
        "### The fp8 band rule (profiles without kernel curves)",
        "",
        f"**fp8 serving ratio = {FP8_SERVING_RATIO}** (fitted with the band model, the h100",
        "profile's curves set aside:",
        "`python bench/validation_throughput.py --fit` bisects the ratio r at which the signed",
        "median error of these rows is zero with the h100 profile's fp8 band at expected =",
        "r × high; it gives 0.800). Every profile's fp8",
        "GEMM band is expected = 0.80 × high, low = 0.8 × expected, where high is",
        "mamf-finder's best-shape fp8 fraction (or the bf16 band's high where no fp8 GEMM was",
        "measured). What it stands for: mamf-finder's figure is the best of thousands of shapes;",
        "a serving step's fp8 GEMMs have the model's shapes (K = 4,096, N = 1,024–14,336 per",
        "GPU), quantise their activations and rescale their outputs, so they reach less of the",
        "fp8 peak than the best shape (H100: 0.567 of 1,979 TFLOPS = 1,122 TFLOPS). The bf16",
        "bands are not changed by it: no serving row of the training set is bf16 and compute",
        "bound.",
        "",
        "Terms not fitted but new in the step-time model (each from its source, see",
        "`calc/deploy/rates.py`): the fixed cost per kernel on every GPU (the a100-80g fit, 5.6",
        "µs, assumed elsewhere), GEMM rows padded to whole tensor-core tiles (Hopper 64 rows),",
        "the 16-bit lm_head of an fp8 checkpoint at the bf16 rate. The concurrency and the",
        "prefill share follow from the engine's settings alone.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:] == ["--fit"]:
        print(f"fp8 serving ratio (expected / high): {fit_fp8_serving_ratio():.4f}")
    else:
        sys.stdout.write(render())
