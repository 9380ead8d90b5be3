"""vLLM (``vllm serve``): its releases 0.10.0 to 0.33.0 (``rules``), defaults by GPU, start-up
memory accounting (``memory``, ``pool``), scheduler policy, launch commands (``launch``) and
start-up log (``log``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from calc.deploy.engines.base import GIB, Engine, EngineDefaults, SchedulerPolicy
from calc.deploy.engines.shape import usable_memory_bytes
from calc.deploy.engines.vllm.accepts import KV_RULES, PAGE_RULES
from calc.deploy.engines.vllm.rocm_attention import ROCM_ATTN_SINCE
from calc.deploy.engines.vllm.rules import VERSIONS, VllmRules
from calc.deploy.host_costs import VersionRange
from calc.deploy.moe_pipeline import VLLM_FUSED_MOE

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

HUGE_GPU_BYTES = 160 * GIB  # get_batch_defaults: "GPUs like B200/B300 with >= 160GB memory"
# the first release whose async scheduling is on by default (0.13.0 and 0.14.0 wheels read)
ASYNC_SCHEDULING_SINCE = (0, 14, 0)
LARGE_GPU_BYTES = 70 * GIB  # "GPUs like H100 and MI300x", A100s excluded by name


def batch_defaults(rules: VllmRules, hw) -> tuple[int, int]:
    """vLLM's default (max_num_batched_tokens, max_num_seqs) for the API server on ``hw``
    (``EngineArgs.get_batch_defaults``: by the total memory torch reports; None: a large GPU)."""
    if hw is None:
        return rules.large_gpu_batch
    memory = usable_memory_bytes(hw)
    name = f"{getattr(hw, 'name', '')} {getattr(hw, 'display_name', '')}".lower()
    if rules.huge_gpu_batch is not None and memory >= HUGE_GPU_BYTES:
        return rules.huge_gpu_batch
    if memory >= LARGE_GPU_BYTES and "a100" not in name:
        return rules.large_gpu_batch
    return rules.small_gpu_batch


# where the host time per step of vLLM before 0.10.0 comes from (calc.deploy.host_costs)
HOST_STEP_V1_SYNC_SOURCE = (
    "fitted (issue 20 host round) on the published vLLM 0.8.3 Llama-3.3-70B TP 8 runs at 1, 4 "
    "and 16 requests/s (surajssd/llm-k8s@58b61c5 01_tp8_pp1, 8 × A100 40GB, the A100's measured "
    "kernel curves; calc/reports/score_fit.py, the host time per step alone free): 2.57 ms, "
    "rounded"
)


class VLLM(Engine):
    name: ClassVar[str] = "vllm"
    title: ClassVar[str] = "vLLM"
    fraction_name: ClassVar[str] = "gpu_memory_utilization"
    # the KV pages and KV-cache dtypes each release takes (vllm/accepts.py)
    page_rules = PAGE_RULES
    kv_rules = KV_RULES
    versions = VERSIONS
    # the Triton fused MoE and its release's top-k kernels; beside its measured curves (0.24.0,
    # routing inside) a release's extra routing kernels (calc.deploy.moe_pipeline)
    moe = VLLM_FUSED_MOE
    # host time the GPU waits for: 60 us per step (fitted with the kernels' fixed-cost share,
    # calc.deploy.host_costs): async scheduling overlaps the next step's preparation and the
    # API server streams in a process apart; before 0.10.0, 2.6 ms per step: no async
    # scheduling, the engine core schedules, broadcasts the scheduler output to every worker,
    # waits for the sampled tokens and updates every request while the GPU idles
    # (calc.deploy.host_costs: vLLM 0.8.3's source; fitted on the TP 8 runs with the A100's
    # measured kernel curves, issue 20 host round)
    host_steps = ((VersionRange(high="0.10.0"), 2.6e-3, 0.0, HOST_STEP_V1_SYNC_SOURCE),
                  (VersionRange(), 0.06e-3, 0.0))  # fmt: skip
    # no engine-core time per running sequence (host_core_sequence): the 0.10 ms a sequence
    # fitted for 0.8.3 on the bands-timed A100 comes out at 0 once its kernels are timed by
    # their measured curves and the step's host time above is free (calc.deploy.host_costs)
    # under PP, where the release falls back to its V0 engine when no executor backend is
    # given (0.8.3, 0.8.5, 0.9.0 read; 0.9.1 and later run PP on V1): V0's AsyncLLMEngine in
    # the API server's own process (no MQLLMEngine under PP), no async output processing,
    # each stage's driver worker rebuilding its inputs from every sequence's metadata each
    # step: 0.38 ms per sequence per stage (calc.deploy.host_costs: fitted on the published
    # TP 4 × PP 2 runs, which ran V0, beside the step's 2.6 ms: 715 and 803 µs a sequence at
    # PP 2); none modelled on V1
    host_pp_sequence_stage = ((VersionRange(high="0.9.1"), 0.38e-3),)
    # the same releases' V0 engine under PP runs in the API server's own process
    # (engine/multiprocessing/client.py is_unsupported_config: no MQLLMEngine at PP > 1, 0.8.3
    # read): one asyncio loop takes the requests in (HTTP, the serving layer's tokenisation)
    # and steps both virtual engines, so a burst's intake holds the engine's steps (the
    # published TP 4 × PP 2 bursts: the first 8, 7 and 4 requests sent, whose steps began at
    # once, got their first tokens at 288-476 ms, after the 236 ms intake; calc.serve.simulate)
    front_end_in_engine_pp = (VersionRange(high="0.9.1"),)
    # v1/core/sched/scheduler.py schedule() (0.8.3 and 0.33.0 read; every modelled release is
    # V1): the RUNNING requests are scheduled first, each decode's 1 token taken from
    # token_budget (max_num_batched_tokens), then the WAITING ones get min(their prompt,
    # what is left): with chunked prefill (V1's default) the prompts are chunked into M − n
    decode_in_token_budget = True
    # on AMD GPUs: Triton unified attention unless VLLM_ROCM_USE_AITER=1 below 0.19.0
    # (envs.py default False, platforms/rocm.py's last choice TRITON_ATTN); from 0.19.0
    # ROCM_ATTN heads rocm.py's priority list, ROCm's own paged-attention decode: the tuned
    # class, AITER or not (calc.deploy.engines.vllm.rocm_attention ROCM_ATTN_SINCE)
    rocm_kernels = ("aiter", "triton")
    rocm_kernels_default = "triton"
    rocm_kernels_by_release = ((VersionRange(low=ROCM_ATTN_SINCE), "aiter"),)

    def attention_walk(self, kernels):
        from calc.deploy.engines.vllm.rocm_attention import attention_walk

        return attention_walk(kernels)

    def prefill_attention_scale(self, kernels):
        from calc.deploy.engines.vllm.rocm_attention import prefill_attention_scale

        return prefill_attention_scale(kernels)

    def attention_kernel_sources(self, kernels):
        from calc.deploy.engines.vllm.rocm_attention import attention_kernel_sources

        return attention_kernel_sources(kernels)

    def defaults(self, rules: VllmRules, hw) -> EngineDefaults:
        tokens, seqs = batch_defaults(rules, hw)
        # V1: chunked prefill on by default
        return EngineDefaults(rules.gpu_memory_utilization, rules.block_size, tokens, seqs, True)

    def kv_pool(self, dep: Deployment, **measured):
        from calc.deploy.engines.vllm.pool import predict

        config = dep.engine_config
        return predict(dep, self.rules(config.version), config, **measured)

    def cold_compile_bytes(self, dep: Deployment) -> float:
        # a cold compile's benchmark copy where it is above the forward and sampler peak
        from calc.deploy.engines.vllm.pool import compile_copy_excess

        config = dep.engine_config
        return compile_copy_excess(dep, self.rules(config.version), config)

    def kv_term(self) -> str:
        return "kv_budget_bytes"  # "Available KV cache memory" is the budget before paging

    def scheduler(self, release: str) -> SchedulerPolicy:
        # v1/core/sched/scheduler.py: running requests first, chunked prefill, blocks
        # allocated as tokens come, recompute preemption of the last admitted. Async
        # scheduling, on by default from 0.14.0 (config/scheduler.py ``async_scheduling``
        # None → True in VllmConfig.__post_init__ unless non-EAGLE speculative decoding, a ray
        # executor or Mamba prefix caching; 0.13.0: False), gives the engine core a batch queue
        # of 2 (``max_concurrent_batches``): ``step_with_batch_queue`` schedules step k + 1
        # when step k is launched, so a request that arrives during step k joins step k + 2
        from calc.deploy.engines.versions import parse_version

        return SchedulerPolicy(
            "vllm v1: chunked prefill, allocate as needed, preempt newest",
            schedule_ahead=parse_version(release) >= ASYNC_SCHEDULING_SINCE,
        )

    def cuda_graph_tokens(self, dep: Deployment) -> int:
        # VllmConfig._set_cudagraph_sizes (memory.cudagraph_capture_sizes): V1's piecewise
        # graphs hold any pass of up to the largest size in tokens, decode or mixed (0.33
        # config/compilation.py: FULL_AND_PIECEWISE, the default, replays a decode batch as one
        # full graph and a mixed batch piecewise, attention between the pieces): no pass up to
        # that size is eager, so graphs_decode_only stays False
        from calc.deploy.engines.gpus import compute_capability
        from calc.deploy.engines.vllm.memory import cudagraph_capture_sizes

        ec = dep.engine_config
        rules = self.rules(ec.version)
        cc = compute_capability(dep.hardware) if dep.hardware is not None else None
        ceiling = rules.graph_ceiling_blackwell if cc is not None and cc[0] == 10 else 512
        sizes = cudagraph_capture_sizes(int(ec.max_num_seqs), ceiling,
                                        int(ec.max_batched_tokens), rules.graph_sizes_add_seqs)
        return int(sizes[-1])

    def moe_runner(self, dep: Deployment):
        # the oracle's backend by release, GPU family, format and gating, and the curve that
        # times it (vllm/moe_backend.py); the release asked for, as the MoE pipeline reads it
        from calc.deploy.engines.vllm.moe_backend import runner

        ec = dep.engine_config
        return runner(dep, ec.version_asked or ec.version)

    def cannot_run_moe_backend(self, dep: Deployment) -> str | None:
        from calc.deploy.engines.vllm.moe_backend import cannot_run

        ec = dep.engine_config
        return cannot_run(dep, ec.version_asked or ec.version)

    def cannot_take(self, dep: Deployment) -> str | None:
        # beside the KV page and dtype: the step budget SchedulerConfig refuses (accepts.py)
        from calc.deploy.engines.vllm.accepts import scheduler_refusal

        return super().cannot_take(dep) or scheduler_refusal(dep)

    def setting_notes(self, dep: Deployment, config) -> list[str]:
        from calc.deploy.engines.vllm.accepts import scheduler_note

        note = scheduler_note(dep, config)
        return [*super().setting_notes(dep, config), *([note] if note else [])]

    def launch(self, dep: Deployment, plan):
        from calc.deploy.engines.vllm.launch import commands

        return commands(dep, plan, self.rules(dep.engine_config.version))

    def log_reader(self):
        from calc.deploy.engines.vllm.log import VllmLogReader

        return VllmLogReader()


ENGINE = VLLM()
