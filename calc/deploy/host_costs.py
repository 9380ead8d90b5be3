"""Host (CPU) time of a serving engine [s]: per engine step, per running sequence in a step, and
per request before its first token, by engine, version range and front-end: sourced data.

The GPU's step time (``calc.deploy.steps``) is not all a user waits for. Around it the engine's
host process schedules the next step, prepares its inputs, samples and hands each sequence's new
token to the front-end, which detokenises and streams it; before a request is scheduled at all
its prompt is received over HTTP and tokenised. Three figures describe it:

- ``per_step_s``: host time of one step the GPU waits for (not hidden behind the previous
  step's kernels), whatever the batch;
- ``per_sequence_s``: host time per running sequence per step the GPU waits for: behind the
  ``api`` front-end each sequence's new token is detokenised and streamed every step, in the
  engine's own process for SGLang and TensorRT-LLM (vLLM's API server is a process apart: 0);
  ``offline`` streams nothing (0); plus, behind every front-end, the engine core's own work
  per running sequence where it is serial with the GPU (SGLang 0.4.0: ``with_core``);
- ``per_request_s`` + ``per_prompt_token_s`` × prompt: a request's front-end time before the
  engine sees it (HTTP handling, tokenisation, queueing into the engine): added to its TTFT.

A step then takes GPU time + per_step_s + per_sequence_s × sequences (``step_host_s``): the
serving simulation adds it to every iteration (``calc.serve.steptime``) and the steady-state
throughput to every step of its cycle (``calc.reports.throughput``).

A fourth figure is host work the GPU does not wait for until it outlasts the step:

- ``loop_sequence_s``: the engine loop's host time per running sequence per step where an
  overlap scheduler runs it while the GPU computes the next step (TensorRT-LLM's PyExecutor:
  scheduling, ``_update_requests``, the sampler's bookkeeping, the responses, one Python thread
  per rank, measured; SGLang's scheduler process, ``event_loop_overlap``: the previous batch's
  result handled request by request, fitted), stated for an x86 host; ``cpu_factor`` scales
  it to the deployment's host CPU (``for_host_cpu``: the hardware profile's ``host_cpu``). A
  step then takes max(GPU time, loop_sequence_s × cpu_factor × the rank's sequences) + the
  serial terms above (``step_s``): hidden while shorter than the GPU's step, the whole loop
  beyond it. The steady-state throughput (``calc.reports.throughput``), the serving simulation
  (``calc.serve.steptime``: ``loop_floor_s``; a decode stretch runs one iteration at a time
  while the loop binds) and the silicon sample's closed form (``bench/validation_serving.py``)
  apply it (docs/step-time.md, trthost round).

Front-ends: ``api`` (the OpenAI-compatible HTTP server, streaming: what vLLM's and SGLang's
serving benchmarks and ``trtllm-serve`` measure) and ``offline`` (the engine's Python API fed
token ids: ``vllm bench throughput``, ``trtllm-bench``, SGLang's offline engine; no HTTP, no
tokenisation in the timed region, no streaming).

Sources (every figure below names its own):

- per-request front-end time: andyluo7/cpu-gpu-codesign-agentic-inference
  (RESULTS_SUMMARY.md, "Server Decomposition — HBM Prefix Cache", vLLM 0.19.0, single
  requests): HTTP overhead (tokenisation, scheduling, queue wait) 7, 15, 47 and 131 ms at 1K,
  8K, 32K and 100K-token prompts; the least-squares line through the four is 5.7 ms + 1.25 µs
  per prompt token (its own tokeniser benchmark: ~500k tokens/s encode on one core, 2.0 µs).
- per-step host time: fitted across the agg-mode serving runs of aiconfigurator's silicon
  sample (ai-dynamo/aiconfigurator ``aic-core/src/aiconfigurator_core/systems/silicon_sample.csv``:
  measured TPOT at fixed concurrency, training half), one figure per engine, jointly with the
  share of the kernels' measured fixed cost a serving step pays
  (``calc.deploy.rates.SERVING_FIXED_SHARE``), by ``bench/validation_serving.py --fit``: models
  of different kernel counts per step separate the two. vLLM 60 µs, TensorRT-LLM 0 (their
  async / overlap schedulers prepare step n + 1 while step n runs: nothing measurable is
  exposed), SGLang 0.725 ms. A per-sequence term was fitted too and came out at zero for vLLM
  and TensorRT-LLM and 14 µs for SGLang with no better fit (12.8% against 12.9% median |error|):
  left out. See docs/validation.md. These are the fit as it was at f287d8b (issue 20 round 2);
  later rounds' MoE modelling moved what the same fit gives (share 0.630 and 0.165 / 0.915 /
  0.070 ms from round 5, 0.585 at round 12, 0.560 and 0.365 / 1.290 / 0.195 ms since round 15;
  vLLM / SGLang / TensorRT-LLM). Refitted in round
  18 the held-out data got worse (held-out TPOT median |error| 12.6% -> 12.8%, the held-out
  TensorRT-LLM page +8.7% -> +9.2% signed), so the round-2 figures are kept; the fit is
  shallow (a 90% bootstrap interval of share 0.46-0.63, TensorRT-LLM 0-0.43 ms) and the fit of
  the day is stored in docs/validation/host_fit.yaml (docs/step-time.md, round 18).
- vLLM's host time per step before 0.10.0 (the vLLM engine's first ``host_steps`` row): vLLM
  0.8.3's V1 engine core (PyPI wheel, ``v1/engine/core.py`` ``EngineCore.step``) schedules,
  hands the scheduler output to the executor, which broadcasts it to every TP worker through a
  shared-memory queue and waits for the model runner's output (vllm-project/vllm PR #9856, the
  V1 multiprocessing TP executor: every worker runs ``_prepare_inputs`` and the sampler), and
  only then updates every running request from it (``v1/core/sched/scheduler.py``
  ``update_from_output``) and schedules the next step: no async scheduling exists in that
  release, so all of it is serial with the GPU, every step (the workers' input preparation, the
  sampler, the copy of the sampled ids to the host, the queue round trips, the scheduler's own
  pass). Async scheduling (vllm-project/vllm PR #19970, ``--async-scheduling`` from 0.10.0, on
  by default where supported by 0.33.0: ``config/vllm.py``) overlaps it with the next forward.
  Sizes of that idle time measured elsewhere: 4 ms of GPU idle per decode step in V0 of mid-2024
  (vllm-project/vllm issue #6854, nsys, before multi-step scheduling) and about 0.4 ms of
  scheduling and input preparation per step in a 2026 release (vllm-project/vllm PR #42131,
  B200); none at TP 8 on 0.8.x. One constant, 2.6 ms per step, for vLLM before 0.10.0: fitted on
  the published vLLM 0.8.3 Llama-3.3-70B TP 8 runs at 1, 4 and 16 requests/s (surajssd/llm-k8s
  01_tp8_pp1, 8 × A100 40GB, timed by the A100's measured kernel curves:
  hardware_profiles/a100-40g.yaml; the host time per step alone free,
  ``calc/reports/score_fit.py``): 2.57 ms, rounded. With the per-step, per-sequence and request
  times all free the same runs give 2.78 ms a step and 0 per sequence; the per-sequence time (52
  µs, with the request time free) leaves their TPOT 8% low at 1 and 4 requests/s and 4% high at
  16 (6.1% root mean square over the runs' figures, where the per-step time alone leaves 2.0%):
  the data see a cost per step, not per sequence. (Until the issue 20 host round this was 0.10
  ms per running sequence, ``with_core``, fitted with a GEMM multiplier on the same runs timed
  by copied efficiency bands, without the A100's measured curves: that fit's 1.29 × GEMM time
  stood for the curves' slower GEMMs and all-reduce; with them it is gone.) Where between 0.8.3
  and 0.11.2 it shrank is not measured: the boundary is async scheduling's release (0.10.0),
  kvcalc's first modelled release; aiconfigurator's silicon sample (vLLM 0.11.2, 0.12.0, 0.15.1
  and 0.18.0 on H100, H200 and B200, served through Dynamo, predicted at the latest release)
  fits the 60 µs above. It is the engine core's, not the front-end's (vLLM's API server
  detokenises and streams in a process apart), so it is charged behind every front-end.
- SGLang 0.4.0's per-sequence host time (``with_core``, the SGLang engine's
  ``host_core_sequence``): its scheduler process (0.4.0 wheel, ``srt/managers/scheduler.py``)
  handles each decode batch's result request by request (``process_batch_result_decode``: the
  token appended, the finish check, the KV of a finished request freed) and then builds one
  ``BatchTokenIDOut`` of per-request lists for the detokenizer process
  (``stream_output``: ``init_incremental_detokenize`` per request, every step at the default
  ``stream_interval`` 1) and sends it over ZMQ. The overlap scheduler (``event_loop_overlap``,
  on by default: ``disable_overlap_schedule`` False in ``srt/server_args.py``) runs that work
  after launching the next batch, on the GPU meanwhile; but the next batch is launched by a
  thread of the same process (``tp_worker_overlap_thread.py``, ``forward_thread_func_``:
  input ids resolved, the CUDA graph replayed, sampling, the copy to the host) that needs the
  interpreter lock the per-request loops hold, so that work still delays the GPU (the likely
  reason; not measured apart). Modelled as serial: the published runs' ITL rises 0.13 ms per
  sequence in flight at 8-52 in flight, where a GPU pass rises 0.03; a model hiding it behind
  the GPU pass (exposed max(0, 0.2-0.3 ms × sequences − the pass)) leaves the ITL at 1-4
  requests/s 7-27% low and at 8-16 requests/s 58-313% high (tried, not shipped). The offline
  engine runs the same scheduler and detokenizer: charged behind every front-end. One
  constant, 0.10 ms, for 0.4.0 (kvcalc's 0.4.0 row: releases below 0.4.1), fitted on the
  published Llama-3.3-70B TP 4 H200 runs at 1, 2, 4 requests/s
  (datacrunch-research/h200-benchmarks@c091ef5: 0.132 ms a sequence in flight less the
  simulated GPU's 0.031); held out, the 405B TP 8 runs at 1, 2 requests/s give 0.079 ms. Later
  releases keep the loops (0.5.23 ``scheduler_components/batch_result_processor.py``
  ``process_batch_result_decode``, ``output_streamer.py`` ``stream_output``) and nothing of
  them is measured here: aiconfigurator's silicon sample (predicted at the latest release)
  fits 14 µs for SGLang, no better fit (above), so none is modelled from 0.4.1.
- per-sequence host time under pipeline parallelism (``with_pipeline``, vLLM's V0 engine
  only): a fit, not a measured mechanism. The one set of runs it comes from, the published
  vLLM 0.8.3 Llama-3.3-70B TP 4 × PP 2 runs (surajssd/llm-k8s@58b61c5, two nodes of 4 ×
  A100 40GB, servers started with no ``--distributed-executor-backend``), ran the V0 engine:
  both server logs the publisher kept (``lws-run-1.sh``, ``lws-run-2.sh``) print "Pipeline
  Parallelism without Ray distributed executor is not supported by the V1 Engine. Falling
  back to V0", "Initializing a V0 LLM engine (v0.8.3)" and then V0's Ray executor
  (``ray_distributed_executor.py``, ``use_ray_spmd_worker: False``). What that path does per
  running sequence and step (vllm 0.8.3 PyPI wheel): the OpenAI server runs V0's
  ``AsyncLLMEngine`` in its own process under PP (``engine/multiprocessing/client.py``
  ``is_unsupported_config``: no separate engine process at PP > 1), so one interpreter
  serves HTTP, schedules every virtual engine (``engine/async_llm_engine.py``
  ``step_async``: one ``SequenceGroupMetadata`` per sequence group, with its token ids),
  detokenises and builds every output, and hosts stage 0's driver worker; async output
  processing is off under PP (``config.py``: ``use_async_output_proc`` set False at
  pipeline_parallel_size > 1), so that output work is serial with the GPU; the executor
  hands the whole ``ExecuteModelRequest`` to the driver worker of every stage, the later
  stages' through a Ray call (``executor/ray_distributed_executor.py``
  ``_driver_execute_model_async``, one lock per stage), and each driver rebuilds its model
  inputs from every sequence's metadata before its forward (``worker/worker_base.py``
  ``prepare_input``, ``worker/model_runner.py`` ``_prepare_model_input_tensors``: a loop
  over the sequence groups, no persistent batch) and broadcasts them to its TP group. That
  work grows with the sequences and, the rebuild and the Ray hand-off, with the stages. One
  constant, 0.38 ms per sequence per stage: fitted on the three steady runs of each network
  (the per-sequence time alone free beside the release's 2.6 ms a step, the A100's measured
  kernel curves; ``calc/reports/score_fit.py``) the per-sequence time is 0.715 ms
  (InfiniBand) and 0.803 ms (Ethernet), their mean 0.76 ms a sequence at PP 2, 0.38 ms over 2
  stages (until the issue 20 host round 0.325 ms, beside 0.10 ms of the engine core's, from
  a fit with a GEMM multiplier on the bands-timed A100); the per-stage scaling to other pp is
  bookkeeping: only PP 2 is measured. Held out, a third server of
  the same deployment (04_tp4_pp2_IB) is scored with it: bench/validation_score.py. The
  releases it is charged to are those whose PP runs V0 when no executor backend is given:
  vllm 0.8.3, 0.8.5 and 0.9.0 (``engine/arg_utils.py`` ``_is_v1_supported_oracle`` falls
  back unless the backend is set: to ray in 0.8.x, to ray, mp or external_launcher in
  0.9.0); 0.9.1, 0.9.2 and 0.10.0
  accept the default backend on V1 (read), and V1 under PP runs none of the above (its
  engine core in a process apart, the API server detokenising in its own, persistent input
  batches in the workers). Whether V1's PP path (Ray's compiled graph or the
  multiprocessing executor, the scheduler output passed stage to stage) has a cost per
  sequence and stage of its own is not measured in any run here: none is modelled from
  0.9.1 (until issue 23's twelfth round the constant was charged to every release, on the
  reading of 0.8.3's V1 compiled-graph path, which these runs did not take).
  See docs/score.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

FRONTENDS = ("api", "offline")


@dataclass(frozen=True)
class HostCosts:
    """Host time of one engine version behind one front-end [s] (see the module docstring)."""

    per_step_s: float
    per_sequence_s: float
    per_request_s: float
    per_prompt_token_s: float
    source: str
    loop_sequence_s: float = 0.0  # overlapped engine loop per sequence per step, x86 [s]
    cpu_factor: float = 1.0  # the host CPU's time for that loop against an x86 host's [-]

    def step_host_s(self, sequences):
        """Host time the GPU waits for in a step of ``sequences`` running sequences [s]."""
        return self.per_step_s + self.per_sequence_s * sequences

    def loop_s(self, rank_sequences):
        """The overlapped engine loop of one rank holding ``rank_sequences`` [s]."""
        return self.loop_sequence_s * self.cpu_factor * rank_sequences

    def step_s(self, gpu_s, sequences, rank_sequences=None):
        """A step of ``gpu_s`` on the GPU and ``sequences`` running sequences (each rank's loop
        ``rank_sequences``, default ``sequences``) [s]: max(GPU, the loop) + the serial host
        time (numbers or arrays that broadcast)."""
        import numpy as np

        ranks = sequences if rank_sequences is None else rank_sequences
        gpu = np.maximum(gpu_s, self.loop_s(ranks)) if self.loop_sequence_s else gpu_s
        return gpu + self.step_host_s(sequences)

    def for_host_cpu(self, cpu: str | None) -> HostCosts:
        """These costs on a host CPU of family ``cpu`` (a hardware profile's ``host_cpu``;
        None: x86): the overlapped loop scaled by ``CPU_FACTOR`` (set, not multiplied: applying
        it twice changes nothing)."""
        family = cpu or "x86"
        factor = CPU_FACTOR[family]
        if not self.loop_sequence_s or factor == self.cpu_factor:
            return self
        return replace(self, cpu_factor=factor,
                       source=f"{self.source}; on a {family} host × {factor:.2f} "
                       f"({CPU_FACTOR_SOURCE})")  # fmt: skip

    def request_host_s(self, prompt):
        """Front-end time of one request of ``prompt`` tokens before the engine sees it [s]."""
        return self.per_request_s + self.per_prompt_token_s * prompt


NONE = HostCosts(0.0, 0.0, 0.0, 0.0, "no host time")

# front-end time of one request (api): the vLLM 0.19.0 measurement, assumed for every engine
API_REQUEST_S = 5.7e-3
API_PROMPT_TOKEN_S = 1.25e-6
API_SOURCE = (
    "andyluo7/cpu-gpu-codesign-agentic-inference RESULTS_SUMMARY.md (vLLM 0.19.0: 7/15/47/131 ms "
    "at 1K/8K/32K/100K-token prompts -> 5.7 ms + 1.25 us/token)"
)
FIT_SOURCE = (
    "fitted at f287d8b (issue 20 round 2) by bench/validation_serving.py --fit as it was "
    "(aiconfigurator silicon_sample.csv, agg); kept in round 18 (the refit on today's step model, "
    "docs/validation/host_fit.yaml, is worse on the held-out data)"
)


@dataclass(frozen=True)
class VersionRange:
    """Versions ``low`` <= v < ``high`` (None: unbounded); compared numerically."""

    low: str | None = None
    high: str | None = None

    def holds(self, version: str | None) -> bool:
        if version is None:  # the latest modelled release
            return self.high is None
        v = _key(version)
        return (self.low is None or v >= _key(self.low)) and (
            self.high is None or v < _key(self.high)
        )


def _key(version: str) -> tuple[int, ...]:
    nums = [int(x) for x in re.findall(r"\d+", version)[:4]]
    return tuple(nums + [0] * (4 - len(nums)))


def core_sequence_s(rows: tuple[tuple[VersionRange, float], ...], version: str | None) -> float:
    """The engine core's host time per running sequence per step of ``version`` [s]: the first
    of ``rows`` (versions, seconds) whose range holds it, else 0 (module docstring)."""
    return next((s for r, s in rows if r.holds(version)), 0.0)


def with_core(
    costs: HostCosts, per_sequence_s: float, title: str, version: str | None
) -> HostCosts:
    """``costs`` plus the engine core's ``per_sequence_s`` per running sequence of a step,
    behind every front-end (module docstring; unchanged at 0)."""
    if not per_sequence_s:
        return costs
    return replace(
        costs,
        per_sequence_s=costs.per_sequence_s + per_sequence_s,
        source=f"{costs.source}; {title} {version} engine core: {per_sequence_s * 1e6:g} µs per "
        "sequence per step (calc.deploy.host_costs)",
    )


# ---------------------------------------------------------------------------------------------
# The overlapped engine loop per running sequence (issue 20, trthost round; docs/step-time.md)
#
# Measured on Grace: TensorRT-LLM's PyExecutor at 1,536 running sequences a rank (GB200, attention
# DP 2, max_batch_size 1,536, 3,072 concurrent 1k/1k requests) takes 44.53 ms a loop serving
# Llama-3.2-1B and 45.11 ms serving GPT-OSS-120B (NVIDIA/TensorRT-LLM PR #10273, "average per
# iteration host_step_time", its C++ scheduler, main of December 2025). Two models of 1B and 120B
# parameters at the same loop time: the loop is the host's, not the GPU's, so 44.53 ms / 1,536 =
# 29.0 µs a sequence (its per-step part is not separated: all of it charged per sequence).
# The same PyTorch host code on Grace takes 2.75× its time on an x86 host: a Linear forward's CPU
# time 37.08 µs on GB200 against 13.48 µs on an H100 DGX's Xeon Platinum 8480C
# (NVIDIA/TransformerEngine#2053; 33.17 µs on GH200, 2.46×); so 29.0 / 2.75 = 10.5 µs on x86.
LOOP_GRACE_MEASURED_S = 44.53e-3 / 1536
CPU_FACTOR = {"x86": 1.0, "grace": 37.08 / 13.48}
CPU_FACTOR_SOURCE = (
    "NVIDIA/TransformerEngine#2053: torch Linear forward CPU time 37.08 us on GB200 (Grace), "
    "13.48 us on an H100 DGX (Xeon Platinum 8480C)"
)
LOOP_SEQUENCE_X86_S = LOOP_GRACE_MEASURED_S / CPU_FACTOR["grace"]
LOOP_SOURCE = (
    "NVIDIA/TensorRT-LLM PR #10273: GB200 (Grace), 1,536 sequences a rank, host_step_time "
    "44.53 ms (Llama-3.2-1B) / 45.11 ms (GPT-OSS-120B) -> 29.0 us a sequence on Grace, "
    f"/ {CPU_FACTOR['grace']:.2f} on x86"
)


# SGLang's scheduler loop (issue 20, bigbatch round; docs/step-time.md). Its overlap scheduler
# (``event_loop_overlap``, on by default: sglang 0.5.16 ``srt/managers/scheduler.py``) launches
# batch i, then handles batch i − 1's result request by request (``process_batch_result``:
# the token appended, the finish check, the outputs streamed to the detokenizer) and forms
# batch i + 1, all in the one scheduler process of each rank, while batch i is on the GPU: a
# step takes the larger of the GPU's time and that loop. No measurement of the loop at large
# batch was found; one constant, fitted on the training half of aiconfigurator's silicon sample
# (``bench/validation_serving.py --fit``: ``fit_loop``, every other constant as shipped) on an
# x86 host, scaled on Grace as TensorRT-LLM's (CPU_FACTOR). The fit binds it on the rows whose
# GPU step is short beside their batch (Llama-3.1-8B on H200 at TP 4-8 and 512 in flight:
# measured 18-28 ms a step at 0.5.6.post2 whatever the TP, the GPU's 8-10 ms at TP 8).
SGLANG_LOOP_SEQUENCE_S = 40e-6
SGLANG_LOOP_SOURCE = (
    "fitted: bench/validation_serving.py --fit (fit_loop) on the training half of "
    "aiconfigurator's silicon_sample.csv (agg), SGLang rows; the scheduler's per-request loop "
    "under event_loop_overlap (sglang srt/managers/scheduler.py)"
)


def with_loop(costs: HostCosts, loop_sequence_s: float, title: str,
              version: str | None, source: str = LOOP_SOURCE) -> HostCosts:  # fmt: skip
    """``costs`` plus the overlapped engine loop's ``loop_sequence_s`` per running sequence of a
    step on an x86 host, behind every front-end (module docstring; unchanged at 0); ``source``:
    where the figure comes from."""
    if not loop_sequence_s:
        return costs
    return replace(
        costs,
        loop_sequence_s=costs.loop_sequence_s + loop_sequence_s,
        source=f"{costs.source}; {title} {version or 'latest'} engine loop (overlapped): "
        f"{loop_sequence_s * 1e6:.1f} µs per sequence per step on x86 ({source})",
    )


def with_pipeline(costs: HostCosts, pp: int, per_sequence_stage_s: float, title: str) -> HostCosts:
    """``costs`` under ``pp`` pipeline stages: ``per_sequence_stage_s`` × pp more host time per
    running sequence of a micro-batch step (module docstring; unchanged at pp 1 or a 0)."""
    if pp <= 1 or not per_sequence_stage_s:
        return costs
    extra_s = per_sequence_stage_s * pp
    return replace(
        costs,
        per_sequence_s=costs.per_sequence_s + extra_s,
        source=f"{costs.source}; {title} pipeline parallelism: {per_sequence_stage_s * 1e3:g} ms "
        f"per sequence per stage × {pp} (calc.deploy.host_costs)",
    )


def compose(
    title: str,
    version: str | None,
    frontend: str,
    rows: tuple[tuple, ...],
) -> HostCosts:
    """An engine's host costs from its table ``rows`` of (versions, per_step_s,
    per_sequence_s[, source]) — the engine step's host time and the api front-end's
    per-sequence streaming time, fitted (see the module docstring; a row without a source of
    its own is the silicon-sample fit, ``FIT_SOURCE``) — behind ``frontend``: the api
    front-end also adds its per-request time; offline streams nothing."""
    if frontend not in FRONTENDS:
        from calc.errors import InvalidInputError, not_one_of

        raise InvalidInputError(not_one_of("front-end", frontend, FRONTENDS))
    if not rows:
        return NONE
    row = next((r for r in rows if r[0].holds(version)), rows[-1])
    step, seq = row[1], row[2]
    source = row[3] if len(row) > 3 else FIT_SOURCE
    api = frontend == "api"
    return HostCosts(
        step,
        seq if api else 0.0,
        API_REQUEST_S if api else 0.0,
        API_PROMPT_TOKEN_S if api else 0.0,
        f"{title} {version or 'latest'} ({frontend}): step {source}"
        + (f"; request {API_SOURCE}" if api else ""),
    )


# ---------------------------------------------------------------------------------------------
# Eager prefill passes: the host time of issuing one layer, where a release runs its passes with
# a prompt without CUDA graphs (issue 20, moehost round; docs/step-time.md)
#
# SGLang's eager extend pass of DeepSeek-V3 (61 layers: MLA attention, 58 routed-MoE layers, 3
# dense) with one new token and one cached took 82.64 ms ("forward cost", the scheduler's log)
# and the same pass replayed as a prefill CUDA graph 23.10 ms (sgl-project/sglang PR #12160,
# logs of 2025-10-14 and 2025-10-16, "prefill latency is similar when new_tokens < 100"). A
# one-token pass's GPU work is at most the replay's 23.1 ms, so the eager pass is the host's:
# 82.64 ms / 61 = 1.355 ms a layer. kvcalc's kernel count for that pass (about 20 a layer ×
# ``calc.serve.graphs.EAGER_LAUNCH_S``) gives 0.59 ms a layer: the eager DeepSeek layer issues
# more host work than its counted kernels (the MLA split, RoPE, quantisation, the router's top-k,
# the MoE's permute and finalise, the shared expert, each a framework op). The CPU is unstated.
EAGER_MLA_MOE_LAYER_S = 82.64e-3 / 61
EAGER_MLA_MOE_SOURCE = (
    "sgl-project/sglang PR #12160: DeepSeek-V3 eager extend pass of 1 new token 82.64 ms, "
    "23.10 ms as a prefill CUDA graph; 82.64 ms / 61 layers = 1.355 ms a layer"
)

# The same layer on a Hopper (sm90) GPU, a fresh prompt's pass (issue 20, moefloor round): on one
# pair of 8 x H100 nodes (TP 16 over InfiniBand) the same harness measured DeepSeek-R1-0528 at
# concurrency 1 with 128-token prompts under vLLM, whose V1 engine replays such a pass as
# piecewise CUDA graphs, at a TTFT of 55.6 ms, and under SGLang of mid-2025, which issues it
# eagerly, at 179.7 ms (tenstorrent/tt-inference-server issue #356, report of 2025-07-17; SGLang's
# decode step the faster, 23.1 against 25.9 ms). The difference over the 61 layers, 2.03 ms a
# layer, is a lower bound on the eager layer's host time on that host (the graphed run pays its
# own pass, front end and all-reduces too); 179.7 ms / 61 = 2.95 ms would charge the whole TTFT
# to it. A fresh prompt takes SGLang's MHA prefill path (K and V up-projected per head) and, on
# sm90, the Triton fused MoE of several kernels, where sm100 runs the one-op trtllm-gen MoE and
# trtllm_mla (docs/step-time.md, dsr1ttft round): more framework ops a layer. Release, CPU
# unstated; applied to SGLang's DeepSeek-shaped layers on compute capability 9.x.
EAGER_MLA_MOE_LAYER_SM90_S = (179.7e-3 - 55.6e-3) / 61
EAGER_MLA_MOE_SM90_SOURCE = (
    "tenstorrent/tt-inference-server issue #356: DeepSeek-R1-0528 on 16 H100, 128-token prompts "
    "at concurrency 1, TTFT 179.7 ms under SGLang (eager prefill) and 55.6 ms under vLLM "
    "(piecewise graphs); (179.7 - 55.6) ms / 61 layers = 2.03 ms a layer, a lower bound"
)


def eager_prefill_layer_s(per_layer_s: float, mla: bool, moe: bool) -> float:
    """The host time of issuing one layer of an eager prefill pass [s]: ``per_layer_s``, the
    engine's measured figure for a DeepSeek-shaped layer, where the model's layers are of that
    kind (MLA attention and a routed MoE), else 0 (not measured: the pass's kernel count
    stands, ``calc.serve.graphs``)."""
    return float(per_layer_s) if (mla and moe) else 0.0


def eager_prefill_host_s(layers: float, per_layer_s: float, kernels_issue_s: float) -> float:
    """The host time of issuing an eager prefill pass of ``layers`` layers [s]: the larger of
    layers × ``per_layer_s`` (a measured layer, ``eager_prefill_layer_s``) and the pass's
    counted kernels' issue time ``kernels_issue_s`` (``calc.serve.graphs.eager_issue_s``)."""
    return max(float(layers) * float(per_layer_s), float(kernels_issue_s))
