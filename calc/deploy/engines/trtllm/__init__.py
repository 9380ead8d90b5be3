"""TensorRT-LLM (``trtllm-serve``, PyTorch backend): its releases 1.0.0 to 1.2.1 (``rules``),
defaults, start-up memory accounting (``memory``, ``pool``), scheduler policy, launch commands
(``launch``) and start-up log (``log``, which also reads 0.x lines)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from calc.deploy.engines.base import AdmissionHold, Engine, EngineDefaults, SchedulerPolicy
from calc.deploy.engines.trtllm.accepts import KV_RULES, PAGE_RULES
from calc.deploy.engines.trtllm.rules import VERSIONS
from calc.deploy.host_costs import LOOP_SEQUENCE_X86_S, VersionRange
from calc.deploy.moe_pipeline import CUTLASS_MOE
from calc.formulas.cuda_graphs import captured_batch_sizes

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment


# CudaGraphConfig's default capture list (cuda_graph_batch_sizes): 1-31, 32, 64, 128 sequences
DEFAULT_GRAPH_BATCH_SIZES = (*range(1, 32), 32, 64, 128)


class TensorRTLLM(Engine):
    name: ClassVar[str] = "trtllm"
    title: ClassVar[str] = "TensorRT-LLM"
    fraction_name: ClassVar[str] = "free_gpu_memory_fraction"
    vendors: ClassVar[tuple[str, ...]] = ("NVIDIA",)  # CUDA only: no ROCm build
    # the KV pages and KV-cache dtypes each release takes (trtllm/accepts.py)
    page_rules = PAGE_RULES
    kv_rules = KV_RULES
    versions = VERSIONS
    # host time the GPU waits for: none (0 per step) (fitted with the kernels' fixed-cost share,
    # calc.deploy.host_costs): its overlap scheduler prepares step n + 1 while n runs
    host_steps = ((VersionRange(), 0.0, 0.0),)
    # the PyExecutor's loop per running sequence per step, overlapped with the GPU's step and
    # exposed beyond it (calc.deploy.host_costs.with_loop; x86 figure, scaled on Grace): measured
    # on main of December 2025 (between 1.2.0rc6 and 1.2.0), charged to every modelled release
    # (others not measured; PRs before and after it took per-request Python out of the loop, so
    # at 1.0 it is likely a lower bound)
    host_loop_sequence: ClassVar[tuple[tuple[VersionRange, float], ...]] = (
        (VersionRange(), LOOP_SEQUENCE_X86_S),
    )
    moe = CUTLASS_MOE  # routing, expand (+ quantise), GEMM, activation, GEMM, finalize
    # batch_wait_timeout_iters, batch_wait_max_tokens_ratio (calc.serve.admission)
    admission_settings: ClassVar[tuple[str, ...]] = ("batch_wait_iters", "batch_wait_ratio")

    caps_pool_tokens = True  # KvCacheConfig.max_tokens
    # microBatchScheduler.cpp (MicroBatchScheduler::operator(), bound into the PyExecutor): a
    # generation request costs beamWidth + draft tokens (1) against maxNumTokens in the same
    # loop that admits the context requests, which break at the first that does not fit
    decode_in_token_budget = True

    def defaults(self, rules, hw) -> EngineDefaults:
        return EngineDefaults(rules.free_gpu_memory_fraction, rules.tokens_per_block,
                              rules.max_num_tokens, rules.max_batch_size,
                              rules.chunked_prefill)  # fmt: skip

    def config(self, settings, hw):
        # with chunked prefill off a prompt over max_num_tokens is refused (llm.py
        # _check_arguments): the budget follows the stated max model length (prompts.py)
        from calc.deploy.engines.trtllm.prompts import sized_for_prompts

        ec = super().config(settings, hw)
        return sized_for_prompts(ec, settings, self.rules(ec.version).max_num_tokens)

    def kv_pool(self, dep: Deployment, **measured):
        from calc.deploy.engines.trtllm.pool import predict

        config = dep.engine_config
        return predict(dep, self.rules(config.version), config, **measured)

    def scheduler(self, release: str) -> SchedulerPolicy:
        # serve.py: CapacitySchedulerPolicy.GUARANTEED_NO_EVICT: a request is admitted only
        # when the pool holds all of its prompt + output, so nothing is preempted;
        # microBatchScheduler.cpp: without chunked prefill (serve.py's default) a prompt runs
        # whole in one iteration, charged at its length against max_num_tokens
        return SchedulerPolicy("trtllm: GUARANTEED_NO_EVICT, whole requests reserved",
                               reserve_whole_request=True)  # fmt: skip

    def cuda_graph_tokens(self, dep: Deployment) -> int | None:
        # llm_args.py CudaGraphConfig (1.0): graphs on by default (default_factory), for batches
        # of decoding requests only; batch_sizes from max_batch_size (default 0 -> 128) and
        # enable_padding (default False): 1-31, 32, 64, 128 unpadded, a batch not in the list
        # eager. trtllm-bench (bench/benchmark/utils/general.py get_settings): padded up to its
        # own max_batch_size; the perf-overview page (v1.0): padded, batch_sizes 1 ... 8,192.
        # No threshold (None): one cannot hold the default list's gaps; the list itself is
        # declared (cuda_graph_batch_sizes, issue 20 round 17)
        return None

    def cuda_graph_batch_sizes(self, dep: Deployment) -> tuple[int, ...]:
        # llm_args.py CudaGraphConfig (the 1.0 and later revisions read; the flat fields before
        # it, cuda_graph_max_batch_size / cuda_graph_padding_enabled, generated the same list):
        # batch_sizes None and max_batch_size 0 -> 128, enable_padding False, so
        # _generate_cuda_graph_batch_sizes(128, False) gives 1-31, 32, 64, 128 (powers of two
        # from 256: none up to 128), replayed unpadded; model_engine.py
        # _filter_cuda_graph_batch_sizes keeps those up to min(max_batch_size, max_num_tokens)
        # (captured_batch_sizes). 1.0.0rc3 sits between NVIDIA/TensorRT-LLM#5480 (graphs on by
        # default) and #6003 (padding_enabled renamed enable_padding, default False in both);
        # a decode-only batch outside the list runs eagerly (issue 20, round 17)
        ec = dep.engine_config
        if not ec.cuda_graphs:
            return ()
        return captured_batch_sizes(DEFAULT_GRAPH_BATCH_SIZES, ec.max_num_seqs,
                                    ec.max_batched_tokens)  # fmt: skip

    def graphs_decode_only(self, dep) -> bool:
        # CudaGraphConfig: "enabled for batches that consist of decoding requests *only*"
        return True

    def launch(self, dep: Deployment, plan):
        from calc.deploy.engines.trtllm.launch import commands

        return commands(dep, plan, self.rules(dep.engine_config.version))

    def log_reader(self):
        from calc.deploy.engines.trtllm.log import TrtllmLogReader

        return TrtllmLogReader()

    def cannot_run_moe_backend(self, dep: Deployment) -> str | None:
        from calc.deploy.engines.trtllm.moe_backend import cannot_run

        return cannot_run(dep)

    def admission_hold(self, dep: Deployment) -> AdmissionHold:
        # py_executor.py _schedule: the batch wait (_waiting_requests) runs only without
        # attention DP (its ranks balance their contexts by attention_dp_config instead), and
        # only beside running generation requests (calc.serve.admission_hold)
        hold = super().admission_hold(dep)
        return hold._replace(batch_wait_iters=0) if dep.sharding.dp_attn > 1 else hold

    def cannot_hold_back(self, dep: Deployment) -> str | None:
        from calc.deploy.engines.trtllm.launch import cannot_batch_wait

        return cannot_batch_wait(dep, self.rules(dep.engine_config.version))

    def cannot_start(self, dep: Deployment) -> str | None:
        from calc.deploy.engines.trtllm.launch import cannot_start

        return cannot_start(dep, self.rules(dep.engine_config.version))


ENGINE = TensorRTLLM()
