"""SGLang (``python -m sglang.launch_server``): its releases 0.4.0 to 0.5.23 (``rules``),
defaults by GPU memory, start-up memory accounting (``memory``, ``pool``; hybrid models' state
pool: ``hybrid``), scheduler policy,
launch commands (``launch``) and start-up log (``log``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import calc.deploy.engines.sglang.memory as sm
from calc.deploy.engines.base import (
    Engine,
    EngineConfig,
    EngineDefaults,
    FutureTokens,
    PrefillInputLimit,
    SchedulerPolicy,
)
from calc.deploy.engines.gpus import smi_total_mib
from calc.deploy.engines.sglang.accepts import KV_RULES, PAGE_RULES
from calc.deploy.engines.sglang.rules import RUNNING_SPLIT_SINCE, VERSIONS
from calc.deploy.host_costs import SGLANG_LOOP_SEQUENCE_S, SGLANG_LOOP_SOURCE, VersionRange
from calc.deploy.moe_pipeline import SGLANG_FUSED_MOE

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

# server_args.py: chunked_prefill_size 8192 without a GPU to size it by (0.4's fixed default);
# max_running_requests is derived from the pool at start-up (RUNNING_FROM_POOL, applied by the
# simulation, which knows the pool); 1024 stands in where no pool is at hand (launch commands)
DEFAULT_CHUNK = 8192
DEFAULT_RUNNING = 1024
# 0.4.0 model_runner.py init_memory_pool: max_num_reqs = min(max(int(max_total_num_tokens /
# context_len × 512), 2048), 4096); tp_worker.py: max_running_requests = min(max_total_num_tokens
# // 2, req_to_token_pool.size = max_num_reqs + 1); 0.5.23 pool_configurator.py
# _resolve_max_running_requests_per_worker: the same without the extra slot (kvcalc: without)
RUNNING_FROM_POOL = (512, 2048, 4096)
# before 0.5.3 (0.4.0 server_args.py __post_init__): cuda_graph_max_bs 160, or 8 on GPUs under
# 25,000 MiB; cuda_graph_runner.py captures 1, 2, 4, 8, 16, ... up to it, decode passes only
GRAPH_MAX_BS_0_4 = 160
GRAPH_MAX_BS_0_4_SMALL = 8
GRAPH_SMALL_BELOW_MIB_0_4 = 25_000


class SGLang(Engine):
    name: ClassVar[str] = "sglang"
    title: ClassVar[str] = "SGLang"
    fraction_name: ClassVar[str] = "mem_fraction_static"
    # on AMD GPUs an MHA model's attention backend is "aiter" when none is stated (0.4.10
    # model_runner.py: ``elif _is_hip: server_args.attention_backend = "aiter"``); its own
    # Triton backend is not modelled
    rocm_kernels: ClassVar[tuple[str, ...]] = ("aiter",)
    rocm_kernels_default: ClassVar[str | None] = "aiter"
    # --scheduler-recv-interval (new requests read every N decode steps; calc.serve.admission)
    admission_settings: ClassVar[tuple[str, ...]] = ("recv_interval",)
    # --mamba-ssm-dtype, --max-mamba-cache-size (hybrid models' state pool: sglang/hybrid.py)
    state_settings: ClassVar[tuple[str, ...]] = ("mamba_ssm_dtype", "max_mamba_cache_size")
    # --max-prefill-tokens (one prefill batch's new prompt tokens: prefill_input_limit)
    prefill_settings: ClassVar[tuple[str, ...]] = ("max_prefill_tokens",)
    # the KV pages and KV-cache dtypes each release takes (sglang/accepts.py)
    page_rules = PAGE_RULES
    kv_rules = KV_RULES
    versions = VERSIONS
    # host time the GPU waits for: 0.725 ms per step (fitted with the kernels' fixed-cost share,
    # calc.deploy.host_costs): what its overlap scheduler leaves exposed
    host_steps = ((VersionRange(), 0.725e-3, 0.0),)
    # 0.4.0 (December 2024): 0.10 ms per running sequence a step, the scheduler process's own
    # per-request work (0.4.0 scheduler.py process_batch_result_decode and stream_output: a
    # loop over every request of the batch, then one BatchTokenIDOut to the detokenizer over
    # ZMQ), behind every front-end (its offline Engine runs the same scheduler and
    # detokenizer): serial with the GPU although event_loop_overlap runs it while the next
    # batch is on the GPU (calc.deploy.host_costs: the ITL median of the published
    # Llama-3.3-70B TP 4 H200 runs, datacrunch-research/h200-benchmarks@c091ef5, 1, 2,
    # 4 requests/s: 13.6, 14.8, 19.4 ms at 7.8, 17.1, 51.6 in flight, rate x mean E2E, rises
    # 0.132 ms per sequence in flight, the simulation's GPU passes 0.031: 0.101 ms, least
    # squares, within its CUDA graphs; held out, the same files' 405B TP 8 runs at 1,
    # 2 requests/s give 0.079 ms: bench/validation_score.py)
    host_core_sequence = ((VersionRange(high="0.4.1"), 0.10e-3),)
    # from 0.4.1: the scheduler's per-request loop over a batch's result (process_batch_result,
    # stream_output) and the next batch's forming, run by event_loop_overlap while the GPU
    # computes: exposed only beyond the GPU's step (calc.deploy.host_costs
    # SGLANG_LOOP_SEQUENCE_S: fitted, issue 20 bigbatch round)
    host_loop_sequence = ((VersionRange(low="0.4.1"), SGLANG_LOOP_SEQUENCE_S),)
    host_loop_source = SGLANG_LOOP_SOURCE
    moe = SGLANG_FUSED_MOE  # its fused_moe_triton: vLLM's Triton pipeline
    # 0.5.23 managers/schedule_policy.py PrefillAdder: rem_chunk_tokens (chunked_prefill_size)
    # loses the running decodes (num_mixed_decode_tokens = running_bs, scheduler.py) only
    # with --enable-mixed-chunk, off by default (arg_groups/fields/schedule.py): a prefill
    # batch holds prompts alone, its whole budget theirs
    decode_in_token_budget = False

    def defaults(self, rules, hw) -> EngineDefaults:
        chunk = DEFAULT_CHUNK
        if rules.auto_fraction == "reserve" and hw is not None:
            chunk, _ = sm.bucket_defaults(rules.buckets, smi_total_mib(hw), 1)
        # mem_fraction_static None: SGLang's own choice by GPU and TP (pool.auto_fraction);
        # chunked prefill on (chunked_prefill_size set)
        return EngineDefaults(None, rules.page_size, chunk, DEFAULT_RUNNING, True)

    def rank_batched_tokens(self, config: EngineConfig, dp_attn: int) -> int:
        """SGLang divides chunked_prefill_size among the attention-DP ranks
        (``sglang/srt/arg_groups/parallel_hook.py`` ``_handle_data_parallelism``, 0.5.23
        wheel: chunked_prefill_size // attn_dp_size) [tokens]."""
        return max(1, config.max_batched_tokens // dp_attn)

    def rank_running_requests(self, stated: int, dp_attn: int, release: str) -> int:
        """SGLang's ``--max-running-requests`` is the server's total: from 0.4.2 each
        attention-DP worker takes it // dp_size (0.5.4 ``srt/managers/tp_worker.py``; 0.5.23
        ``srt/model_executor/pool_configurator.py``: max(1, max_running_requests //
        attn_dp_size)); 0.4.0 and 0.4.1 gave every worker the whole figure [requests]."""
        from calc.deploy.engines.versions import parse_version

        if dp_attn <= 1 or parse_version(release) < RUNNING_SPLIT_SINCE:
            return stated
        return max(1, stated // dp_attn)

    def kv_pool(self, dep: Deployment, **measured):
        from calc.deploy.engines.sglang.pool import predict

        config = dep.engine_config
        return predict(dep, self.rules(config.version), config, **measured)

    def scheduler(self, release: str) -> SchedulerPolicy:
        # srt/managers/scheduler.py get_next_batch_to_run: a prefill batch whenever one can be
        # formed (the decoders wait), else a decode batch (no --enable-mixed-chunk);
        # schedule_policy.py PrefillAdder: room for the running requests' future tokens
        rules = self.rules(self.versions.resolve(release).release)
        return SchedulerPolicy(
            "sglang: prefill batches first, room for the running requests' future tokens",
            prefill_first=True,
            future_tokens=FutureTokens(
                page_reserve=rules.admission_page,
                own_steps=rules.ignore_eos_rule != "0.4.0",
                exact_reserve=0 if rules.ignore_eos_rule == "0.4.0" else 1,
                input_gate=rules.ignore_eos_rule != "0.4.0",
                retract_headroom=rules.retract_headroom,
            ),
            running_from_pool=RUNNING_FROM_POOL,
            # event_loop_overlap (disable_overlap_schedule False by default from 0.4.0): batch
            # k + 1 is formed and launched before batch k's results are processed, so a request
            # that arrives during batch k first joins batch k + 2
            schedule_ahead=True,
        )

    def prefill_input_limit(self, dep: Deployment) -> PrefillInputLimit:
        # managers/scheduler.py get_new_batch_prefill: PrefillAdder(rem_input_tokens=
        # max_prefill_tokens), the server's figure on every attention-DP rank (not divided as
        # chunked_prefill_size is); the test before each request by release (rules.py)
        rules = self.rules(self.versions.resolve(dep.engine_config.version).release)
        stated = dep.engine.max_prefill_tokens
        tokens = rules.max_prefill_tokens if stated is None else int(stated)
        return PrefillInputLimit(tokens, rules.prefill_input_check)

    def cuda_graph_tokens(self, dep: Deployment) -> int:
        # decode graphs up to cuda_graph_max_bs sequences: the user's (a start-up log's), else
        # the release's default by GPU memory (and TP from 0.5.3)
        ec = dep.engine_config
        if ec.cuda_graph_max_bs:
            return int(ec.cuda_graph_max_bs)
        rules = self.rules(ec.version)
        mib = smi_total_mib(dep.hardware) if dep.hardware is not None else float("inf")
        if rules.auto_fraction == "reserve":
            return int(sm.bucket_defaults(rules.buckets, mib, dep.tp)[1])
        return GRAPH_MAX_BS_0_4_SMALL if mib < GRAPH_SMALL_BELOW_MIB_0_4 else GRAPH_MAX_BS_0_4

    def eager_prefill_layer_s(self, dep) -> float:
        # a DeepSeek-V3 layer's eager extend pass: 1.355 ms (calc.deploy.host_costs
        # EAGER_MLA_MOE_LAYER_S, sgl-project/sglang PR #12160); on a Hopper GPU a fresh prompt's
        # layer, at least 2.03 ms (EAGER_MLA_MOE_LAYER_SM90_S: the same-host vLLM / SGLang pair
        # of tt-inference-server issue #356; sm90's Triton fused MoE and MHA prefill path, moefloor
        # round); other layers: not measured
        from calc.deploy.engines.gpus import compute_capability
        from calc.deploy.host_costs import (
            EAGER_MLA_MOE_LAYER_S,
            EAGER_MLA_MOE_LAYER_SM90_S,
            eager_prefill_layer_s,
        )

        cfg = dep.model
        cc = compute_capability(dep.hardware) if dep.hardware is not None else None
        hopper = cc is not None and cc[0] == 9
        per_layer = EAGER_MLA_MOE_LAYER_SM90_S if hopper else EAGER_MLA_MOE_LAYER_S
        return eager_prefill_layer_s(per_layer, cfg.mla is not None, cfg.moe is not None)

    def graphs_decode_only(self, dep) -> bool:
        # prefill graphs captured by default from 0.5.10 (piecewise, breakable from 0.5.15),
        # off on the layouts each release turns them off for (rules.prefill_graph_off: the
        # same rule as the automatic mem_fraction_static's reserve for them; 0.5.22 and 0.5.23
        # arg_groups/cuda_graph_hook.py apply_cuda_graph_compatibility)
        from calc.deploy.engines.sglang.pool import prefill_graphs_on

        cfg = dep.model
        rules = self.rules(self.versions.resolve(dep.engine_config.version).release)
        deepep = dep.ep > 1 and dep.engine.moe_a2a == "deepep"
        return not prefill_graphs_on(rules, dep.pp, cfg.mla is not None,
                                     bool(getattr(cfg, "vision", None)), dep.sharding.dp_attn,
                                     cfg.indexer is not None, deepep)  # fmt: skip

    def moe_runner(self, dep: Deployment):
        # --moe-runner-backend auto by release, GPU and architecture (sglang/moe_runner.py)
        from calc.deploy.engines.sglang.moe_runner import runner

        return runner(dep, dep.engine_config.version)

    def moe_runner_past_overrides(self, dep: Deployment):
        # a ServerArgs dump's 'auto': create_moe_runner's pick (Triton; DeepGEMM under DeepEP)
        from calc.deploy.engines.sglang.moe_runner import runner

        return runner(dep, dep.engine_config.version, overrides=False)

    def cannot_run_moe_backend(self, dep: Deployment) -> str | None:
        from calc.deploy.engines.sglang.moe_runner import cannot_run

        return cannot_run(dep, dep.engine_config.version)

    def cannot_start(self, dep: Deployment) -> str | None:
        from calc.deploy.engines.sglang.launch import cannot_start

        return cannot_start(dep)

    def cannot_hold_back(self, dep: Deployment) -> str | None:
        from calc.deploy.engines.sglang.launch import cannot_recv_interval

        return cannot_recv_interval(dep)

    def cannot_size_state(self, dep: Deployment) -> str | None:
        from calc.deploy.engines.sglang.launch import cannot_state_settings

        return cannot_state_settings(dep)

    def cannot_disaggregate(self, dep: Deployment) -> str | None:
        from calc.deploy.engines.sglang.launch import cannot_disaggregate

        return cannot_disaggregate(dep)

    def launch(self, dep: Deployment, plan):
        from calc.deploy.engines.sglang.launch import commands

        return commands(dep, plan, self.rules(dep.engine_config.version))

    def log_reader(self):
        from calc.deploy.engines.sglang.log import SglangLogReader

        return SglangLogReader()


ENGINE = SGLang()
