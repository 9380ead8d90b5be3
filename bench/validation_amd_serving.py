"""Part of the AMD section of docs/validation.md (rendered by bench/validation_amd.py): kvcalc
against published vLLM serving runs on MI355X at a fixed concurrency, TPOT [s], TTFT [s] and
output tokens/s of the whole deployment, with every row's signed error, and the two MI355X
figures fitted to them.

Run: python bench/validation_amd_serving.py          (prints the rows)
     python bench/validation_amd_serving.py --fit    (the fitted MI355X figure, and the
                                                      kernel cost the llm-d rows alone imply)
     python bench/validation_amd_serving.py --fit-triton  (the Triton decode tile time and
                                                           prefill multiple, fitted together)

Records (issue 20, round 20; scored before anything was fitted, see ``ASSUMED``):

- llm-d/llm-d docs/accelerators/amd-mi355x-perf.md (``LLMD``): amd/Llama-3.3-70B-Instruct-FP8-KV
  (fp8 weights and KV cache) on 8 x MI355X, TP 8, vLLM 0.15.1 (ghcr.io/llm-d/llm-d-rocm:v0.6.0,
  no AITER variable set), ``vllm bench serve`` random prompts at fixed lengths, the best of a
  sweep of memory fraction, block size and max-num-seqs that moved nothing by more than 3%.
  All held out.
- vllm-project/vllm pull 25135 (``PR25135``, 2025-09-18, from AMD's ``355_wip`` MI355X
  branch): Llama-3.1-405B with MXFP4 weights on one MI355X (TP 1), ``benchmark_serving`` at
  concurrency 64, 320 prompts of 1,022 tokens (326,905 in all) and 1,024 out.

Prediction: bench/validation_serving.py's closed loop at concurrency c (TPOT and TTFT), its
vLLM host costs; output tokens/s = c × osl / (TTFT + (osl − 1) × TPOT) over that steady cycle.
Where a run states its --num-prompts N, the mean TTFT also holds its first wave at weight c / N
(issue 20, AMD serving round; ``first_wave_ttft_s``): ``vllm bench serve`` at --request-rate
inf sends the first c requests together, with no warm-up requests by default, and they wait
for each other's prefills; the steady cycle, fitted elsewhere on runs whose warm-up requests
were left out, has no such burst. A TPOT that misses Little's law against the run's own
throughput by more than 10% is shown and not scored (``tpot_scored``).

Fitted (``fit``; one number, in hardware_profiles/mi355x.yaml): ``efficiency.matmul_fp4``'s
expected fraction, so pull 25135's output tokens/s error is zero (the run's whole time: each
wave's 64 prompts of 1,022 tokens, 65K tokens of MXFP4 GEMMs, and its 1,024 decode steps at
batch 64 of a 405B model on one GPU). One record: checked against the MLPerf floor
(bench/validation_amd.py: at least 0.159 of the fp4 peak).

Not fitted, widened: the low edges of mi355x's unmeasured bf16, fp8 and memory bands, so the
held-out rows lie between kvcalc at ``--efficiency low`` and ``high`` (``band_holds``).

Attention kernels (issue 20, rocmattn round; ``Run.kernels``, ``tuned``, ``blog_checks``):
each run is predicted with the ROCm attention kernels its stack ran
(EngineSettings.rocm_kernels): the llm-d rows vLLM's default, Triton unified attention (no
AITER variable), pull 25135 AMD's tuned ones; ``tuned`` is every run with AMD's kernels (the
figures before the setting). The Triton decode kernel's serial walk and (issue 20, amdttft
round; ``walk_only``: every run before it) the 2D kernel's prefill attention at
TRITON_PREFILL_SCALE × its roofline (calc/deploy/engines/vllm/rocm_attention.py).

Both Triton constants (issue 20, amdwalk round; ``triton_joint_fit``, ``blog_errors``,
``sequential``): fitted together to vLLM's ROCm attention blog (``BLOG``; Qwen3-235B-A22B-FP8
on MI355X, MI325X and MI300X at concurrency 64 and 128), least squares over its twelve bars
(``BLOG_TTFT``, ``BLOG_TPOT``: TRITON_ATTN's TTFT and TPOT as multiples of ROCM_AITER_FA's),
each against bench/validation_serving.py's closed loop of the blog's deployment under both
kernels; never to these rows. ``sequential`` is every run at the constants fitted one after
the other on one bar each before (2.70 µs, 2.54 ×).

Not shipped (``kernel_cost_fit``, under AMD's tuned kernels): the per-kernel fixed cost that
would make the llm-d 4,096 / 4,096 rows' signed median TPOT error zero. The MI355X profile
keeps the A100's cost (as MI300X, whose fractions were fitted beside it on AMD's tuned
containers): a fitted cost puts kvcalc's TPOT floor for Llama-3.3-70B at TP 8 above the
10.4 ms (96 tokens/s per user) that InferenceX's tuned MI355X runs reach
(docs/validation/cross_vendor_runs.yaml, tested by tests/test_plan_cross_vendor.py): the llm-d
rows' fixed costs are their stack's (plain vLLM without AITER's fused kernels), not the GPU's.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

LLMD = (
    "https://github.com/llm-d/llm-d/blob/a974157bb1230897f6e9e629b4419cb71f952b2c/"
    "docs/accelerators/amd-mi355x-perf.md"
)
PR25135 = "https://github.com/vllm-project/vllm/pull/25135"
PR18686 = "https://github.com/vllm-project/vllm/pull/18686"
ISSUE56945 = "https://github.com/vllm-project/vllm/issues/56945"

# the mi355x figures as they stood before these records (assumed): the "before" columns
ASSUMED = {"matmul_fp4": 0.10, "matmul_low": 0.12, "memory_low": 0.40}


@dataclass(frozen=True)
class Run:
    id: str
    model: str
    weight_dtype: str
    kv_dtype: str
    tp: int
    isl: int
    osl: int
    concurrency: int
    tokens_per_s: float  # output tokens/s of the deployment
    ttft_s: float  # mean
    tpot_s: float | None  # median (llm-d) or mean (pull 25135); None: not stated
    release: str  # vLLM
    fit: str = ""  # the constant it is fitted to ("" held out)
    prompts: int | None = None  # the run's --num-prompts where its source states it
    # the attention kernels the run's stack ran (EngineSettings.rocm_kernels; None: vLLM's
    # default, Triton unified attention: no VLLM_ROCM_USE_AITER set)
    kernels: str | None = None


def _llmd(isl, osl, c, tps, ttft_ms, tpot_ms, prompts=None):
    return Run(f"llmd-mi355x-70b-fp8-{isl}-{osl}-c{c}", "llama3.3-70b", "fp8-tensor", "fp8", 8,
               isl, osl, c, tps, ttft_ms / 1e3, None if tpot_ms is None else tpot_ms / 1e3,
               "0.15.1", prompts=prompts)  # fmt: skip


RUNS = (
    _llmd(1024, 256, 16, 1320.8, 343, 10.3),
    _llmd(4096, 4096, 4, 353.6, 369, 11.3),
    _llmd(4096, 4096, 16, 1233.0, 871, 12.8),
    _llmd(4096, 4096, 32, 2230.0, 1204, 14.1, prompts=128),  # the doc's reproducer command
    _llmd(16384, 2048, 4, 246.8, 1770, 21.0),
    _llmd(16384, 2048, 16, 717.1, 3100, 21.2),
    _llmd(16384, 2048, 32, 1112.6, 4440, 27.7),
    _llmd(32768, 128, 4, 48.8, 4290, None),
    _llmd(65536, 128, 2, 15.5, 9090, None),
    # KV dtype not stated: fp8 taken (AMD's ROCm recipes pass --kv-cache-dtype fp8); a 16-bit
    # cache holds 50 of the 64 sequences in kvcalc's pool, which the measured 5.2 s mean TTFT
    # (no queue of whole requests) rules out. Kernels: AMD's tuned ones (aiter): the 355_wip
    # line's MXFP4 Llama-3.1-405B commands set VLLM_ROCM_USE_AITER=1 (ROCm/vllm pull 584, the
    # same author's); pull 25135 prints its results and no environment
    Run("pr25135-mi355x-405b-mxfp4-1022-1024-c64", "llama3.1-405b", "mxfp4", "fp8", 1, 1022,
        1024, 64, 793.27, 5.24027, 0.07558, "0.10.2", "matmul_fp4", prompts=320,
        kernels="aiter"),
)  # fmt: skip

# llm-d rows left out: total / output tokens/s contradicts the stated lengths (1,024 in and
# 256 out make the ratio 5; these show 17.0 and 9.0, i.e. 4,096 and 2,048 input tokens)
LEFT_OUT = (
    ("1024 / 256, c64", 1519.2, 25820.6),
    ("1024 / 256, c128", 2985.0, 26853.0),
    ("1024 / 256, c256", 3347.9, 30118.4),
)


def hardware(kernel_overhead_s: float | None = None, fp4: float | None = None,
             lows: tuple[float, float] | None = None):  # fmt: skip
    """mi355x as shipped, or with a figure replaced: the per-kernel cost, the MXFP4 GEMMs'
    expected fraction, or (bf16/fp8 matmul, memory) low edges."""
    from calc.data.registry import load_hardware

    hw = load_hardware("mi355x")
    if kernel_overhead_s is not None:
        hw = replace(hw, kernel_overhead_s=kernel_overhead_s)
    e = hw.efficiency
    if fp4 is not None:
        b = e.matmul_fp4
        e = replace(e, matmul_fp4=replace(b, expected=fp4, low=min(b.low, fp4),
                                          high=max(b.high, fp4)))  # fmt: skip
    if lows is not None:
        mm, mem = lows
        e = replace(e, matmul=replace(e.matmul, low=mm),
                    matmul_fp8=replace(e.matmul_fp8, low=mm), memory=replace(e.memory, low=mem))
    return replace(hw, efficiency=e)


def littles_law_gap(run: Run) -> float | None:
    """How far the run's own figures miss Little's law: (TTFT + (osl − 1) × TPOT), a request's
    life from its latencies, over c × osl / output tokens/s, its life from the throughput, less
    1 [fraction]; None where the run states no TPOT. A closed loop of c requests holds it
    whatever the engine (vLLM pull 25135: 5.240 + 1,023 × 0.07558 = 82.56 s, its printed mean
    E2E latency, against 64 × 1,024 / 793.27 = 82.61 s)."""
    if run.tpot_s is None:
        return None
    life = run.ttft_s + (run.osl - 1) * run.tpot_s
    return life / (run.concurrency * run.osl / run.tokens_per_s) - 1


LITTLE_TOLERANCE = 0.10  # a median TPOT may sit a few percent off the mean the law holds for


def tpot_scored(run: Run) -> bool:
    """Whether the run's TPOT is scored: stated, and its figures within ``LITTLE_TOLERANCE`` of
    Little's law (``littles_law_gap``). One llm-d row misses it by +35% (16,384 / 2,048 at
    concurrency 4: 1.77 + 2,047 × 0.021 = 44.8 s against 4 × 2,048 / 246.8 = 33.2 s): its
    TPOT cannot belong to the run whose throughput it is printed beside, so it is shown and
    not scored; its TTFT and throughput are."""
    gap = littles_law_gap(run)
    return gap is not None and abs(gap) <= LITTLE_TOLERANCE


@dataclass(frozen=True)
class Predicted:
    run: Run
    tpot_s: float
    ttft_s: float  # the mean over the run's requests, its first wave's burst included
    cycle_ttft_s: float | None = None  # the closed loop's steady TTFT; None: ttft_s

    @property
    def tokens_per_s(self) -> float:
        """Output tokens/s over the steady cycle: the first wave's burst reorders its prefills
        ahead of the decodes but adds no GPU work, so it leaves the throughput alone."""
        r = self.run
        ttft = self.ttft_s if self.cycle_ttft_s is None else self.cycle_ttft_s
        return r.concurrency * r.osl / (ttft + (r.osl - 1) * self.tpot_s)

    @property
    def tpot_error(self) -> float | None:
        """None where the run's TPOT is not scored (``tpot_scored``)."""
        return self.tpot_s / self.run.tpot_s - 1 if tpot_scored(self.run) else None

    @property
    def ttft_error(self) -> float:
        return self.ttft_s / self.run.ttft_s - 1

    @property
    def tokens_error(self) -> float:
        return self.tokens_per_s / self.run.tokens_per_s - 1


def _deployment(run: Run, hw=None, kernels: str | None = None):
    """The run's deployment; ``kernels`` replaces the run's attention kernels (its stated
    ``Run.kernels``, else vLLM's default)."""
    from calc.data.registry import load_model
    from calc.deploy.deployment import Deployment, EngineSettings

    engine = EngineSettings(name="vllm", version=run.release,
                            rocm_kernels=kernels or run.kernels)  # fmt: skip
    return Deployment.build(load_model(run.model), hw or hardware(), tp=run.tp,
                            weight_dtype=run.weight_dtype, kv_dtype=run.kv_dtype,
                            engine=engine)  # fmt: skip


def burst_steps(concurrency: int, isl: int, budget: int) -> float:
    """The mean number of prefill steps the first wave's requests wait for their first token
    [steps]: ``concurrency`` prompts of ``isl`` tokens sent together, prefilled first come first
    served in steps of ``budget`` tokens (vLLM's max_num_batched_tokens): k = max(1, budget //
    isl) prompts a step, a prompt longer than the budget over m = ceil(isl / budget) steps, so
    the i-th prompt's first token ends step ceil(i / k) × m."""
    k = max(1, budget // isl)
    m = -(-isl // budget)
    return sum(-(-i // k) * m for i in range(1, concurrency + 1)) / concurrency


def first_wave_ttft_s(run: Run, dep, efficiency: str = "expected") -> float:
    """The mean TTFT of the run's first ``concurrency`` requests [s]: ``vllm bench serve`` at
    --request-rate inf sends them at once (vllm/benchmarks/serve.py: a zero delay for every
    request, at most --max-concurrency in flight, no warm-up requests by default), so they
    wait for each other's prefills (``burst_steps``), each step the prefill of its k prompts
    (a 1 / m share of one prompt past the budget) plus vLLM's host time per step, after the
    front-end time of one request. The decodes of the prompts already served ride in the
    same steps and are left out (tens of tokens beside thousands)."""
    from calc.deploy.engines import host_costs
    from calc.deploy.steps import step_of

    host = host_costs("vllm")
    budget = int(dep.engine_config.max_batched_tokens)
    k = max(1, budget // run.isl)
    m = -(-run.isl // budget)
    step = float(step_of(dep, efficiency, batch=k, prompt=run.isl).time_s) / m
    step += float(host.step_host_s(k))
    steps = burst_steps(run.concurrency, run.isl, budget)
    return float(host.request_host_s(run.isl)) + steps * step


def predict(run: Run, hw=None, efficiency: str = "expected",
            kernels: str | None = None) -> Predicted:  # fmt: skip
    """The run's TPOT and TTFT: bench/validation_serving.py's closed loop (its steady state),
    and where the run states its --num-prompts N, its first wave at its weight c / N in the
    mean TTFT (``first_wave_ttft_s``; the later waves arrive as the first wave's requests
    finish, spread as their first tokens were). ``kernels``: as ``_deployment``."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import validation_serving as vs

    dep = _deployment(run, hw, kernels)
    row = vs.Row(run.id, "vllm", run.model, "mi355x", run.weight_dtype, run.kv_dtype, run.isl,
                 run.osl, run.concurrency, run.tp, 1, run.ttft_s, run.tpot_s or 0.0,
                 run.weight_dtype, run.release)  # fmt: skip
    res = vs.predict(row, efficiency=efficiency, dep=dep)
    ttft = res.ttft_s
    if run.prompts:
        share = run.concurrency / run.prompts
        ttft += share * (first_wave_ttft_s(run, dep, efficiency) - res.ttft_s)
    return Predicted(run, res.tpot_s, ttft, res.ttft_s)


def band_holds(hw=None) -> tuple[bool, ...]:
    """Per run: the measured output tokens/s inside what ``hw``'s (default: the shipped
    profile's) low and high efficiency bands predict (the same closed loop at each edge)."""
    out = []
    for r in RUNS:
        low, high = predict(r, hw, "low"), predict(r, hw, "high")
        out.append(low.tokens_per_s <= r.tokens_per_s <= high.tokens_per_s)
    return tuple(out)


def _assumed():
    """mi355x with the figures it had before these records (``ASSUMED``)."""
    return hardware(fp4=ASSUMED["matmul_fp4"],
                    lows=(ASSUMED["matmul_low"], ASSUMED["memory_low"]))  # fmt: skip


@cache
def before() -> tuple[Predicted, ...]:
    """Every run under the figures assumed before them (``ASSUMED``), with AMD's tuned
    attention kernels as kvcalc then assumed everywhere."""
    return tuple(predict(r, _assumed(), kernels="aiter") for r in RUNS)


@cache
def tuned() -> tuple[Predicted, ...]:
    """Every run under the shipped profile with AMD's tuned attention kernels (aiter): what
    kvcalc predicted before the ROCm kernel setting (issue 20, rocmattn round)."""
    return tuple(predict(r, kernels="aiter") for r in RUNS)


@cache
def walk_only() -> tuple[Predicted, ...]:
    """Every run under the shipped profile with the Triton decode walk and no prefill multiple
    (TRITON_PREFILL_SCALE 1): what kvcalc predicted before the amdttft round (issue 20)."""
    with _Constants(1.0):
        return tuple(predict(r) for r in RUNS)


SEQUENTIAL = (2.70e-6, 2.54)  # (tile [s], multiple [×]) fitted one after the other, before


@cache
def sequential() -> tuple[Predicted, ...]:
    """Every run at the Triton constants of the rocmattn and amdttft rounds (``SEQUENTIAL``:
    the tile on the blog's MI355X 64-request TPOT, then the multiple on its TTFT): what kvcalc
    predicted before the amdwalk round (issue 20)."""
    tile, scale = SEQUENTIAL
    with _Constants(scale, tile):
        return tuple(predict(r) for r in RUNS)


@cache
def after() -> tuple[Predicted, ...]:
    """Every run under the shipped mi355x profile."""
    return tuple(predict(r) for r in RUNS)


def _bisect(f, lo: float, hi: float) -> float:
    """The x in [lo, hi] where the increasing f crosses zero."""
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def fit() -> float:
    """The MXFP4 GEMMs' expected fraction (module docstring)."""
    row = next(r for r in RUNS if r.fit == "matmul_fp4")
    return _bisect(lambda f: predict(row, hardware(fp4=f)).tokens_error, 0.05, 0.9)


def kernel_cost_fit() -> float:
    """The per-kernel fixed cost [s] the llm-d 4,096 / 4,096 rows alone imply under AMD's tuned
    attention kernels: their signed median TPOT error zero (the AMD serving round's figure,
    reported, not shipped: module docstring)."""
    rows = [r for r in RUNS if r.id.startswith("llmd") and r.isl == r.osl == 4096]
    return _bisect(lambda k: statistics.median(predict(r, hardware(k), kernels="aiter").tpot_error
                                               for r in rows), 1e-6, 50e-6)  # fmt: skip


def decode_gap_s(run: Run, kernels: str = "aiter") -> float:
    """The measured TPOT less kvcalc's decode step alone at the run's concurrency and mean
    context (isl + osl / 2), vLLM's host time per step included [s]: what the run's decode
    steps take beyond kvcalc's (the median TPOT of a decode-heavy run is its decode step),
    with AMD's tuned attention kernels (the AMD serving round's figure) or ``kernels``."""
    from calc.deploy.engines import host_costs
    from calc.deploy.steps import step_of

    dep = _deployment(run, kernels=kernels)
    step = step_of(dep, batch=run.concurrency, ctx=run.isl + run.osl / 2)
    return run.tpot_s - float(step.time_s) - float(host_costs("vllm").step_host_s(run.concurrency))


# vLLM's ROCm attention blog (issue 20, rocmattn round): Qwen3-235B-A22B-Instruct-2507-FP8 at
# TP 8 + EP 8, 10K prompt / 1K output tokens, vLLM 0.14.0rc2 with VLLM_ROCM_USE_AITER=1 in every
# run and only --attention-backend switched. Per GPU and concurrency: ROCM_AITER_FA's TPOT [s]
# (its bar on the TPOT figure, 0 to 260 ms at 2.43 px/ms) and TRITON_ATTN's as printed beside
# its bar (× ROCM_AITER_FA's). The MI355X concurrency-64 row is the fit; the rest check it.
BLOG = (
    "https://github.com/vllm-project/vllm-project.github.io/blob/"
    "034b535bb5ada53514fac43e65d49baf387f13f2/_posts/2026-02-20-rocm-attention-backend.md"
)
BLOG_TPOT = (  # (hardware, concurrency, ROCM_AITER_FA TPOT [s], TRITON_ATTN / ROCM_AITER_FA)
    ("mi355x", 64, 39.8e-3, 1.05), ("mi355x", 128, 57.5e-3, 1.23),
    ("mi325x", 64, 45.6e-3, 1.17), ("mi325x", 128, 72.3e-3, 1.27),
    ("mi300x", 64, 46.0e-3, 1.28), ("mi300x", 128, 79.3e-3, 1.36),
)  # fmt: skip
BLOG_CTX = 10_000 + 1_000 / 2  # the mean context of a decode step: prompt + half the output


def _blog_steps(gpu: str, concurrency: int):
    """kvcalc's decode step of the blog's deployment on ``gpu`` at ``concurrency`` sequences
    and BLOG_CTX tokens, AMD's tuned attention (its roofline): (raw ops, op times [s])."""
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.steps import step_of

    dep = Deployment.build(load_model("qwen3-235b-a22b"), load_hardware(gpu), tp=8, ep=8,
                           weight_dtype="fp8-block128", kv_dtype="bf16",
                           engine=EngineSettings(name="vllm", version="0.14.0",
                                                 rocm_kernels="aiter"))  # fmt: skip
    step = step_of(dep, batch=concurrency, ctx=BLOG_CTX)
    return step.raw, [t.time_s for t in step.ops]


def walk_extra_s(gpu: str, concurrency: int, tile_s: float) -> float:
    """What the Triton decode kernel's serial walk at ``tile_s`` a tile adds to kvcalc's
    decode step of the blog's deployment [s] (calc.deploy.steps.walk_bound)."""
    from calc.deploy.engines.vllm.rocm_attention import TRITON_KEYS_PER_TILE_STEP
    from calc.deploy.steps import walk_bound

    raw, times = _blog_steps(gpu, concurrency)
    return sum(walk_bound(raw, times, tile_s, TRITON_KEYS_PER_TILE_STEP)) - sum(times)


def blog_checks() -> list[tuple[str, int, float, float, float]]:
    """Per blog row: (hardware, concurrency, measured TRITON_ATTN extra [s], kvcalc's extra at
    the shipped tile time [s], signed error of TRITON_ATTN's TPOT taken as ROCM_AITER_FA's
    measured TPOT + kvcalc's extra)."""
    from calc.deploy.engines.vllm.rocm_attention import TRITON_DECODE_TILE_S

    out = []
    for gpu, c, aiter_s, ratio in BLOG_TPOT:
        extra = walk_extra_s(gpu, c, TRITON_DECODE_TILE_S)
        err = (aiter_s + extra) / (ratio * aiter_s) - 1
        out.append((gpu, c, (ratio - 1) * aiter_s, extra, err))
    return out


# The blog's TTFT figure (assets/figures/2026-02-27-rocm-attention-backend/mha_ttft_comparison.png,
# the same runs as BLOG_TPOT; issue 20, amdttft round): TRITON_ATTN's TTFT as printed beside its
# bar (× ROCM_AITER_FA's), per GPU and concurrency. The MI355X concurrency-64 bar is the fit of
# the Triton prefill attention's multiple (TRITON_PREFILL_SCALE); the other five check it.
BLOG_TTFT = (  # (hardware, concurrency, TRITON_ATTN TTFT / ROCM_AITER_FA TTFT)
    ("mi355x", 64, 1.33), ("mi355x", 128, 1.28),
    ("mi325x", 64, 1.37), ("mi325x", 128, 1.35),
    ("mi300x", 64, 1.41), ("mi300x", 128, 1.42),
)  # fmt: skip
BLOG_BUDGET = 16_384  # the blog's --max-num-batched-tokens


class _Constants:
    """Within: calc.deploy.engines.vllm.rocm_attention's TRITON_PREFILL_SCALE set to ``scale``
    and TRITON_DECODE_TILE_S to ``tile_s`` where given (the fits' trial values and the figures
    of earlier rounds; restored on exit)."""

    def __init__(self, scale: float | None = None, tile_s: float | None = None):
        self.scale, self.tile_s = scale, tile_s

    def __enter__(self):
        import calc.deploy.engines.vllm.rocm_attention as ra

        self.keep = ra.TRITON_PREFILL_SCALE, ra.TRITON_DECODE_TILE_S
        if self.scale is not None:
            ra.TRITON_PREFILL_SCALE = self.scale
        if self.tile_s is not None:
            ra.TRITON_DECODE_TILE_S = self.tile_s

    def __exit__(self, *exc):
        import calc.deploy.engines.vllm.rocm_attention as ra

        ra.TRITON_PREFILL_SCALE, ra.TRITON_DECODE_TILE_S = self.keep


def blog_loop(gpu: str, concurrency: int, kernels: str, scale: float | None = None,
              tile_s: float | None = None):  # fmt: skip
    """kvcalc's closed loop (bench/validation_serving.py's ``Result``: TTFT and TPOT [s]) of
    the blog's deployment on ``gpu`` at ``concurrency`` requests of 10K prompt and 1K output
    tokens under ``kernels``: the blog's runs warmed up and left their first run out (its
    steady state), at the blog's --max-num-batched-tokens; ``scale``, ``tile_s``: the Triton
    prefill multiple and decode tile tried instead of the shipped ones."""
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings

    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import validation_serving as vs

    with _Constants(scale, tile_s):
        dep = Deployment.build(load_model("qwen3-235b-a22b"), load_hardware(gpu), tp=8, ep=8,
                               weight_dtype="fp8-block128", kv_dtype="bf16",
                               engine=EngineSettings(name="vllm", version="0.14.0",
                                                     rocm_kernels=kernels,
                                                     max_batched_tokens=BLOG_BUDGET))  # fmt: skip
        row = vs.Row(f"blog-{gpu}-c{concurrency}", "vllm", "qwen3-235b-a22b", gpu,
                     "fp8-block128", "bf16", 10_000, 1_000, concurrency, 8, 8, 0.0, 0.0,
                     "fp8", "0.14.0")  # fmt: skip
        return vs.predict(row, dep=dep)


@cache
def _blog_aiter(gpu: str, concurrency: int):
    """``blog_loop`` under AMD's tuned kernels (no Triton constant enters it)."""
    return blog_loop(gpu, concurrency, "aiter")


def blog_tpot_ratio(gpu: str, concurrency: int, scale: float | None = None,
                    tile_s: float | None = None) -> float:  # fmt: skip
    """kvcalc's closed-loop TPOT of the blog's deployment under Triton attention over its TPOT
    under AMD's tuned kernels [×]: the decode walk, and the other requests' prefills that ride
    in a request's decode steps (a TPOT is (latency − TTFT) / (output − 1))."""
    return (blog_loop(gpu, concurrency, "triton", scale, tile_s).tpot_s
            / _blog_aiter(gpu, concurrency).tpot_s)  # fmt: skip


def blog_ttft_ratio(gpu: str, concurrency: int, scale: float | None = None,
                    tile_s: float | None = None) -> float:  # fmt: skip
    """kvcalc's TTFT of the blog's deployment under Triton attention over its TTFT under AMD's
    tuned kernels [×]."""
    return (blog_loop(gpu, concurrency, "triton", scale, tile_s).ttft_s
            / _blog_aiter(gpu, concurrency).ttft_s)  # fmt: skip


def blog_errors(scale: float | None = None, tile_s: float | None = None):
    """Per bar of the blog (its TTFT figure, then its TPOT figure, in ``BLOG_TTFT`` order):
    (figure, hardware, concurrency, measured TRITON_ATTN / ROCM_AITER_FA, kvcalc's ratio,
    signed error) at the shipped Triton constants or the ones given."""
    tpot = {(g, c): r for g, c, _, r in BLOG_TPOT}
    out = []
    for gpu, c, ratio in BLOG_TTFT:
        k = blog_ttft_ratio(gpu, c, scale, tile_s)
        out.append(("TTFT", gpu, c, ratio, k, k / ratio - 1))
    for gpu, c, _ in BLOG_TTFT:
        k = blog_tpot_ratio(gpu, c, scale, tile_s)
        out.append(("TPOT", gpu, c, tpot[gpu, c], k, k / tpot[gpu, c] - 1))
    return out


def blog_sum_squares(scale: float | None = None, tile_s: float | None = None) -> float:
    """The sum of the squared signed errors of the blog's twelve bars (``blog_errors``)."""
    return sum(e[-1] ** 2 for e in blog_errors(scale, tile_s))


def _golden(f, lo: float, hi: float) -> float:
    """The x in [lo, hi] where the unimodal f is least (golden-section search)."""
    g = (5**0.5 - 1) / 2
    for _ in range(40):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        lo, hi = (lo, b) if f(a) < f(b) else (a, hi)
    return (lo + hi) / 2


def tile_bound_s(scale: float | None = None) -> float:
    """The largest decode tile time [s] at which the walk adds nothing to any of the blog's
    bars (every TTFT and TPOT ratio as with no walk at all): the bound the blog sets, at the
    shipped prefill multiple or ``scale``. The walk binds first at the MI355X 64-request bar."""
    flat = [e[4] for e in blog_errors(scale, 0.0)]

    def binds(t: float) -> float:
        moved = max(abs(e[4] - f) for e, f in zip(blog_errors(scale, t), flat, strict=True))
        return 1.0 if moved > 1e-9 else -1.0

    return _bisect(binds, 1e-7, 1e-4)


def triton_joint_fit() -> tuple[float, float]:
    """(decode tile [s], prefill multiple [×]) (calc.deploy.engines.vllm.rocm_attention
    TRITON_DECODE_TILE_S, TRITON_PREFILL_SCALE) fitted together: least squares over the blog's
    twelve bars (``blog_sum_squares``). The sum is flat in the tile up to ``tile_bound_s`` (the
    walk under kvcalc's roofline at every bar) and grows above it, so the prefill multiple is
    the least-squares one with no walk and the tile the bound at that multiple."""
    scale = _golden(lambda s: blog_sum_squares(s, 0.0), 1.0, 5.0)
    return tile_bound_s(scale), scale


def blog_ttft_checks() -> list[tuple[str, int, float, float, float]]:
    """Per bar of the blog's TTFT figure: (hardware, concurrency, measured TRITON_ATTN / AITER
    TTFT, kvcalc's ratio without the prefill multiple (the decode walk alone), kvcalc's ratio
    with the shipped one)."""
    return [(gpu, c, ratio, blog_ttft_ratio(gpu, c, 1.0), blog_ttft_ratio(gpu, c))
            for gpu, c, ratio in BLOG_TTFT]  # fmt: skip


def decode_gap_fit() -> tuple[float, float]:
    """(a [s], s [s per 1,000 tokens of context]): the least-squares line gap = a + s × ctx /
    1,000 through the scored llm-d rows' ``decode_gap_s`` (reported, not shipped: a step cost
    that grows with each sequence's context, where a per-kernel cost is flat)."""
    import numpy as np

    rows = [r for r in RUNS if r.id.startswith("llmd") and tpot_scored(r)]
    ctx = np.array([(r.isl + r.osl / 2) / 1000 for r in rows])
    gap = np.array([decode_gap_s(r) for r in rows])
    slope, intercept = np.polyfit(ctx, gap, 1)
    return float(intercept), float(slope)


def ttft_errors_if(prompts_per_concurrency: float) -> list[float]:
    """The llm-d rows' TTFT errors had every row stating no --num-prompts run
    ``prompts_per_concurrency`` × c prompts (reported, not shipped: only the 4,096 / 4,096
    concurrency 32 row's reproducer states its 128 = 4 × 32), with AMD's tuned attention
    kernels as in the AMD serving round."""
    out = []
    for r in RUNS:
        if r.id.startswith("llmd"):
            n = r.prompts or round(prompts_per_concurrency * r.concurrency)
            out.append(predict(replace(r, prompts=n), kernels="aiter").ttft_error)
    return out


def _pct(e: float | None) -> str:
    return "—" if e is None else f"{e:+.1%}"


def _summary(label: str, preds) -> str:
    tp = [p.tpot_error for p in preds if p.tpot_error is not None]
    tk = [p.tokens_error for p in preds]
    tpot = f"{statistics.median(tp):+.1%} ({len(tp)})" if tp else "—"
    return (f"| {label} | {len(preds)} | {tpot} | {statistics.median(tk):+.1%} | "
            f"{statistics.median(abs(e) for e in tk):.1%} |")  # fmt: skip


def _round_lines() -> list[str]:
    """The AMD serving round's findings (issue 20): the first wave, Little's law, the decode
    gap, the prompt count the unstated rows would need (all with AMD's tuned attention kernels,
    as that round predicted them)."""
    llmd = [p for p in tuned() if p.run.id.startswith("llmd")]  # the round's: tuned kernels
    gaps = {r.id: littles_law_gap(r) for r in RUNS}
    tol = LITTLE_TOLERANCE
    ratio = 1 + statistics.median(p.tokens_error for p in llmd)
    bad = [r for r in RUNS if r.tpot_s is not None and not tpot_scored(r)]
    a, slope = decode_gap_fit()
    scored = [r for r in RUNS if r.id.startswith("llmd") and tpot_scored(r)]
    ttft_all = statistics.median(p.ttft_error for p in llmd)
    upper = ttft_errors_if(1)
    short = [p.run for p, e in zip(llmd, upper, strict=True) if e < 0 and not p.run.prompts]
    dep = _deployment(scored[0])
    kv_ms = 16 * 1000 * float(dep.per_gpu.kv_bytes_per_token) / (
        float(dep.hardware.hbm_bandwidth_bytes_per_s) * dep.hardware.efficiency.memory.expected
    ) * 1e3
    lines = [
        "",
        "The AMD serving round (issue 20): what the llm-d rows' errors are made of.",
        "",
        "- Little's law: a closed loop of c requests lives c × osl / (output tokens/s) each,",
        "  which the run's TTFT + (osl − 1) × TPOT must match; every row with a TPOT does within",
        f"  {max(abs(g) for g in gaps.values() if g is not None and abs(g) <= tol):.1%} but "
        + ", ".join(f"{r.id} ({gaps[r.id]:+.1%})" for r in bad)
        + ", whose TPOT is shown and not scored.",
        "- The first wave: TTFT errors at N = c (every request in the burst), 4c (the",
        "  reproducer's ratio) and 10c (InferenceX's) for the rows stating no N, signed median",
        f"  {statistics.median(upper):+.1%}, {statistics.median(ttft_errors_if(4)):+.1%}"
        f" and {statistics.median(ttft_errors_if(10)):+.1%} (as shipped, only the stated N: "
        f"{ttft_all:+.1%}); each measured",
        "  TTFT lies inside what its unstated N allows but "
        + ", ".join(f"{r.isl:,} / {r.osl:,} at c{r.concurrency}" for r in short)
        + ", short even with every request in the burst: their long prefills run slow on this",
        "  stack (below).",
        "- The decode step: measured TPOT less kvcalc's decode step alone, per scored llm-d",
        "  row: " + ", ".join(f"{decode_gap_s(r) * 1e3:.1f} ms at {(r.isl + r.osl / 2) / 1e3:.1f}K"
                              f" × c{r.concurrency}" for r in scored) + ";",
        f"  a line through them: {a * 1e3:.2f} ms + {slope * 1e3:.2f} ms per 1,000 tokens of "
        "context. A cost that grows with",
        "  each sequence's context is its attention's, not a per-kernel cost (flat) nor the",
        f"  memory fraction (the KV read of 1,000 tokens at concurrency 16 is {kv_ms:.2f} ms at "
        "kvcalc's",
        "  bandwidth): vLLM 0.15.1 on ROCm without VLLM_ROCM_USE_AITER runs TRITON_ATTN (its",
        "  platforms/rocm.py default), the stack AMD's and InferenceX's tuned runs replace with",
        "  AITER's kernels. (These gaps are against kvcalc's step with AMD's tuned kernels; the",
        "  rocmattn round below models the Triton kernel's walk: `--rocm-kernels`.)",
        "- The same stack switch measured elsewhere (looked at, not fitted): "
        f"[vLLM pull 18686]({PR18686})",
        "  (MI300X, Llama-3.1-8B-Instruct-FP8-KV at TP 4, 2,048 / 1,024, concurrency 128, 1,280",
        "  prompts): output tokens/s 2,236.56 with AITER and 964.17 without, median TPOT 56.22",
        "  and 129.89 ms, median TTFT 1,041.87 and 2,621.44 ms (2.3x, 2.3x, 2.5x); "
        f"[vLLM issue 56945]({ISSUE56945})",
        "  (Qwen3.5-122B-A10B-FP8 at batch 1 on MI325X, the same on MI300X and MI355X): 57, 49 and",
        "  26 tokens/s at about 200, 2K and 12K prompt tokens without AITER, 98, 98 and 97 with",
        "  its unified attention, the gap growing with the context as the llm-d rows' does. The",
        f"  llm-d rows' own gap (output tokens/s 1 / {ratio:.3f} = {1 / ratio:.2f} of kvcalc's, "
        "signed median) has that sign and is smaller.",
        "",
    ]
    return lines


def _kernels_lines() -> list[str]:
    """The rocmattn round (issue 20): the llm-d rows with AMD's tuned attention kernels against
    vLLM's default Triton attention, the blog's fit and checks, the decode gap against the
    walk kvcalc now adds."""
    from calc.deploy.engines.vllm.rocm_attention import TRITON_DECODE_TILE_S

    lines = [
        "",
        "The ROCm kernel library (issue 20, rocmattn round): `--rocm-kernels aiter|triton`. A",
        "plain `vllm serve` on ROCm runs Triton unified attention (VLLM_ROCM_USE_AITER defaults",
        "to False; platforms/rocm.py falls back to TRITON_ATTN), whose decode kernel walks each",
        "sequence's keys in 16 segments of 16-key tiles one after another: a step's attention",
        f"takes at least keys / 256 × {TRITON_DECODE_TILE_S * 1e6:.2f} us per layer, the tile "
        f"time fitted to [vLLM's ROCm attention blog]({BLOG})",
        "(Qwen3-235B-A22B-FP8, TP 8 + EP 8, 10K / 1K, AITER on in both, only --attention-backend",
        "switched; first on its MI355X 64-request TPOT alone, since the amdwalk round with the",
        "prefill multiple on all twelve bars: below).",
        "The llm-d rows ran that default (no AITER variable); pull 25135 states AMD's tuned",
        "kernels (its build line sets VLLM_ROCM_USE_AITER=1). Signed errors, tuned (aiter) →",
        "as run:",
        "",
        "| record | TPOT aiter → as run | TTFT aiter → as run | out tok/s aiter → as run |",
        "|---|---:|---:|---:|",
    ]
    for a, b in zip(tuned(), after(), strict=True):
        lines.append(f"| {b.run.id} | {_pct(a.tpot_error)} → **{_pct(b.tpot_error)}** | "
                     f"{_pct(a.ttft_error)} → **{_pct(b.ttft_error)}** | "
                     f"{_pct(a.tokens_error)} → **{_pct(b.tokens_error)}** |")  # fmt: skip
    llmd = [(a, b) for a, b in zip(tuned(), after(), strict=True) if b.run.id.startswith("llmd")]

    def med(ps, key):
        xs = [getattr(p, key) for p in ps if getattr(p, key) is not None]
        return f"{statistics.median(xs):+.1%} ({len(xs)})"

    for key, name in (("tpot_error", "TPOT"), ("ttft_error", "TTFT"),
                      ("tokens_error", "output tokens/s")):  # fmt: skip
        lines.append(f"| llm-d signed median, {name} | {med([a for a, _ in llmd], key)} | "
                     f"**{med([b for _, b in llmd], key)}** | |")  # fmt: skip
    lines += [
        "",
        "The blog's TPOT rows against the walk alone (ROCM_AITER_FA's measured TPOT plus what",
        "the walk adds to kvcalc's decode step of that deployment at 10,500 tokens of context,",
        "the rocmattn round's check; the closed loop with the prefill multiple is below):",
        "",
        "| GPU | concurrency | TRITON_ATTN adds, measured | kvcalc's walk adds | TRITON_ATTN TPOT "
        "signed error |",
        "|---|---:|---:|---:|---:|",
    ]
    for gpu, c, measured, extra, err in blog_checks():
        lines.append(f"| {gpu} | {c} | {measured * 1e3:.1f} ms | {extra * 1e3:.1f} ms | "
                     f"**{err:+.1%}** |")  # fmt: skip
    lines += [
        "",
        "At the jointly fitted tile the walk stays under kvcalc's roofline at every bar of the",
        "blog (signed error = −(1 − 1 / ratio)): what Triton adds there is the prefill",
        "multiple's, in the closed loop (below).",
        "",
        "The llm-d decode gap (measured TPOT less kvcalc's tuned step, above) against the walk",
        "kvcalc now adds (at the row's concurrency and mean context):",
        "",
        "| record | gap, measured | walk adds |",
        "|---|---:|---:|",
    ]
    for r in RUNS:
        if r.id.startswith("llmd") and tpot_scored(r):
            walk = decode_gap_s(r) - decode_gap_s(r, kernels="triton")
            lines.append(f"| {r.id} | {decode_gap_s(r) * 1e3:.1f} ms | {walk * 1e3:.1f} ms |")
    lines.append("")
    return lines


def ttft_errors_at(prompts_per_concurrency: float) -> list[float]:
    """The llm-d rows' TTFT errors as shipped had every row stating no --num-prompts run
    ``prompts_per_concurrency`` × c prompts (its first wave at weight c / N)."""
    return [predict(replace(r, prompts=r.prompts or round(prompts_per_concurrency *
                                                          r.concurrency))).ttft_error
            for r in RUNS if r.id.startswith("llmd")]  # fmt: skip


def _prefill_lines() -> list[str]:
    """The amdttft round (issue 20): the Triton prefill multiple, its fit and checks on the
    blog's TTFT figure, the llm-d rows before and after, what their unstated prompt count
    leaves."""
    from calc.deploy.engines.vllm.rocm_attention import TRITON_PREFILL_SCALE

    lines = [
        "",
        "The Triton prefill (issue 20, amdttft round). A step holding a prompt runs the unified",
        "kernel's 2D path: blocks of 16 query rows (2 tokens × 8 heads of one KV head for",
        "Llama-3.3-70B) against tiles of 32 keys from the paged cache, where AMD's flash-attention",
        "kernel keeps 128 rows against 64 keys. Its prefill attention takes "
        f"{TRITON_PREFILL_SCALE:.2f} × kvcalc's",
        "attention roofline (fitted with the decode tile on the blog's twelve bars: the amdwalk",
        "round, below); the TTFT figure's bars:",
        "",
        "| GPU | concurrency | TRITON_ATTN / AITER TTFT, measured | kvcalc, walk only | kvcalc, "
        "with the prefill multiple | signed error |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for gpu, c, measured, walk, shipped in blog_ttft_checks():
        lines.append(f"| {gpu} | {c} | {measured:.2f} | {walk:.2f} | {shipped:.2f} | "
                     f"**{shipped / measured - 1:+.1%}** |")  # fmt: skip
    lines += [
        "",
        "The blog's TPOT bars in the same closed loop (a TPOT holds the other requests' prefills",
        "that ride in a request's decode steps, so the prefill multiple moves it too):",
        "",
        "| GPU | concurrency | TRITON_ATTN / AITER TPOT, measured | kvcalc, walk only | kvcalc, "
        "walk and prefill multiple | signed error |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for gpu, c, _, ratio in BLOG_TPOT:
        walk, both = blog_tpot_ratio(gpu, c, 1.0), blog_tpot_ratio(gpu, c)
        lines.append(f"| {gpu} | {c} | {ratio:.2f} | {walk:.2f} | {both:.2f} | "
                     f"**{both / ratio - 1:+.1%}** |")  # fmt: skip
    lines += [
        "",
        "The MI355X rows, walk only → with the prefill multiple (signed):",
        "",
        "| record | TTFT | TPOT | out tok/s |",
        "|---|---:|---:|---:|",
    ]
    lines += _moved_rows(walk_only(), after())
    at_c = ttft_errors_at(1)
    llmd = [r for r in RUNS if r.id.startswith("llmd")]
    lines += [
        "",
        "What is left is mostly the burst: had every row stating no --num-prompts run N = c, 4c",
        "or 10c prompts, the llm-d TTFT signed median would be "
        f"{statistics.median(at_c):+.1%}, {statistics.median(ttft_errors_at(4)):+.1%} and "
        f"{statistics.median(ttft_errors_at(10)):+.1%}; at N = c",
        "the long-prompt rows (16K / 2K at c4, 32K at c4, 64K at c2) are "
        + ", ".join(f"{e:+.1%}" for r, e in zip(llmd, at_c, strict=True)
                    if r.isl >= 16384 and r.concurrency <= 4)
        + " (before this round short even there).",
        "",
    ]
    return lines


def _joint_lines() -> list[str]:
    """The amdwalk round (issue 20): both Triton constants fitted together on the blog's twelve
    bars, each bar and each MI355X row at the sequential constants and at the joint ones."""
    from calc.deploy.engines.vllm.rocm_attention import (
        TRITON_DECODE_TILE_S,
        TRITON_PREFILL_SCALE,
    )

    tile0, scale0 = SEQUENTIAL
    lines = [
        "",
        "Both Triton constants fitted together (issue 20, amdwalk round;",
        "`python bench/validation_amd_serving.py --fit-triton`): least squares over the blog's",
        "twelve bars (TRITON_ATTN's TTFT and TPOT as multiples of ROCM_AITER_FA's, kvcalc's",
        "closed loop under both). The sum is flat in the tile while the walk stays under",
        f"kvcalc's roofline at every bar, up to {tile_bound_s() * 1e6:.2f} us (the MI355X "
        "64-request bar binds",
        "first), and grows above it: the tile is that bound, "
        f"{TRITON_DECODE_TILE_S * 1e6:.2f} us (the blog sets no lower one),",
        f"the prefill multiple {TRITON_PREFILL_SCALE:.2f} ×. Fitted one after the other on one "
        f"bar each they were {tile0 * 1e6:.2f} us",
        f"and {scale0:.2f} ×. Signed errors, sequential → joint:",
        "",
        "| figure | GPU | concurrency | measured | kvcalc, sequential | kvcalc, joint | signed "
        "error |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for a, b in zip(blog_errors(scale0, tile0), blog_errors(), strict=True):
        lines.append(f"| {b[0]} | {b[1]} | {b[2]} | {b[3]:.2f} | {a[4]:.2f} ({a[5]:+.1%}) | "
                     f"{b[4]:.2f} | **{b[5]:+.1%}** |")  # fmt: skip
    lines += [
        f"| sum of squares | | | | {blog_sum_squares(scale0, tile0):.4f} | "
        f"**{blog_sum_squares():.4f}** | |",
        "",
        "The MI355X rows (held out), sequential → joint (signed):",
        "",
        "| record | TTFT | TPOT | out tok/s |",
        "|---|---:|---:|---:|",
    ]
    lines += _moved_rows(sequential(), after())
    lines.append("")
    return lines


def _moved_rows(before: list, now: list) -> list[str]:
    """Table rows of the MI355X records' signed TTFT, TPOT and output tok/s errors, ``before``
    → ``now`` (predictions in the same order), then the llm-d rows' signed medians."""
    lines = [f"| {b.run.id} | {_pct(a.ttft_error)} → **{_pct(b.ttft_error)}** | "
             f"{_pct(a.tpot_error)} → **{_pct(b.tpot_error)}** | "
             f"{_pct(a.tokens_error)} → **{_pct(b.tokens_error)}** |"
             for a, b in zip(before, now, strict=True)]  # fmt: skip

    def med(ps, key):
        xs = [getattr(p, key) for p in ps if p.run.id.startswith("llmd")
              and getattr(p, key) is not None]  # fmt: skip
        return f"{statistics.median(xs):+.1%} ({len(xs)})"

    lines.append("| llm-d signed median | " + " | ".join(
        f"{med(before, k)} → **{med(now, k)}**"
        for k in ("ttft_error", "tpot_error", "tokens_error")) + " |")  # fmt: skip
    return lines


def render() -> list[str]:
    hw = hardware()
    lines = [
        "MI355X: published vLLM serving runs at a fixed concurrency (issue 20, round 20): the",
        f"[llm-d MI355X reference]({LLMD}) (Llama-3.3-70B FP8-KV, TP 8, plain vLLM 0.15.1, no",
        f"AITER) and [vLLM pull 25135]({PR25135}) (Llama-3.1-405B MXFP4 on one MI355X, AMD's",
        "355_wip build, concurrency 64). Each row was scored before anything changed (*before*:",
        f"MXFP4 GEMMs at the assumed {ASSUMED['matmul_fp4']:.2f} of the fp4 peak, bands' low "
        f"edges {ASSUMED['matmul_low']:.2f} matmul and {ASSUMED['memory_low']:.2f} memory); then "
        "one figure was fitted",
        "(`python bench/validation_amd_serving.py --fit`): the MXFP4 GEMMs' expected fraction,",
        f"{hw.efficiency.matmul_fp4.expected:.2f} of the fp4 peak, to pull 25135's output "
        "tokens/s (the fit column). TPOT is",
        "the run's median (llm-d) or mean (25135); output tokens/s is the whole deployment's.",
        "TTFT is the mean over the run's requests: where the run states its --num-prompts N",
        "(pull 25135: 320; the llm-d 4,096 / 4,096 concurrency-32 row's reproducer: 128), its",
        "first c requests, which `vllm bench serve` at --request-rate inf sends together, wait",
        "for each other's prefills, weighted c / N (issue 20, AMD serving round: below the",
        "tables); the throughput keeps the steady cycle (the burst adds no GPU work).",
        "",
        "| record | in / out | conc. | fit | TPOT ms pub. | TPOT before → after | TTFT s pub. "
        "| TTFT before → after | out tok/s pub. | tok/s before → after | in band |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for b, a, held in zip(before(), after(), band_holds(), strict=True):
        r = a.run
        tpot = "—" if r.tpot_s is None else f"{r.tpot_s * 1e3:.1f}"
        lines.append(
            f"| {r.id} | {r.isl:,} / {r.osl:,} | {r.concurrency} | {r.fit or 'held out'} | "
            f"{tpot} | {_pct(b.tpot_error)} → **{_pct(a.tpot_error)}** | {r.ttft_s:.2f} | "
            f"{_pct(b.ttft_error)} → **{_pct(a.ttft_error)}** | {r.tokens_per_s:,.1f} | "
            f"{_pct(b.tokens_error)} → **{_pct(a.tokens_error)}** | {'yes' if held else 'no'} |"
        )
    held_a = [p for p in after() if not p.run.fit]  # the llm-d rows: no figure moved them
    lines += [
        "",
        "| MI355X rows | n | TPOT signed median (rows) | out tok/s signed median | "
        "out tok/s median abs |",
        "|---|---:|---:|---:|---:|",
        _summary("llm-d, fp8 dense, held out, after", held_a),
        _summary("every row, before", before()),
        _summary("every row, after", after()),
        "",
        f"In band: the measured output tokens/s lies between kvcalc's at `--efficiency low` and "
        f"`high` in {sum(band_holds())} of {len(RUNS)} rows ({sum(band_holds(_assumed()))} "
        "before), the low edges of mi355x's",
        f"unmeasured bf16/fp8 and memory bands widened to {hw.efficiency.matmul.low:.2f} and "
        f"{hw.efficiency.memory.low:.2f} to hold the llm-d rows: on plain vLLM",
        "without AITER the GPU serves up to half what kvcalc expects of AMD's tuned builds.",
        f"A per-kernel cost fitted to the llm-d 4,096 / 4,096 rows' TPOT alone would be "
        f"{kernel_cost_fit() * 1e6:.1f} us",
        f"(the profile keeps the A100's {hw.kernel_overhead_s * 1e6:.1f} us): not shipped, as it "
        "would put kvcalc's TPOT floor",
        "for Llama-3.3-70B at TP 8 above the 10.4 ms that InferenceX's tuned MI355X runs reach",
        "(docs/validation/cross_vendor_runs.yaml); that cost is the stack's, not the GPU's.",
        "",
        "Left out: three llm-d rows whose total and output tokens/s contradict their stated",
        "lengths (1,024 in and 256 out make total / output 5.0): "
        + "; ".join(f"{w}: {t:,.1f} / {o:,.1f} = {t / o:.1f}" for w, o, t in LEFT_OUT)
        + ".",
        *_round_lines(),
        *_kernels_lines(),
        *_prefill_lines(),
        *_joint_lines(),
    ]
    return lines


if __name__ == "__main__":
    if sys.argv[1:] == ["--fit"]:
        print(f"matmul_fp4 expected {fit():.3f} (shipped); the llm-d rows' kernel cost "
              f"{kernel_cost_fit() * 1e6:.2f} us (not shipped)")  # fmt: skip
    elif sys.argv[1:] in (["--fit-triton"], ["--fit-triton-prefill"]):
        tile, scale = triton_joint_fit()
        print(f"Triton decode tile {tile * 1e6:.3f} us (the blog's bound), prefill attention "
              f"{scale:.3f} x its roofline, sum of squares {blog_sum_squares(scale, tile):.4f} "
              "(shipped: calc/deploy/engines/vllm/rocm_attention.py TRITON_DECODE_TILE_S, "
              "TRITON_PREFILL_SCALE)")  # fmt: skip
    else:
        sys.stdout.write("\n".join(render()))
