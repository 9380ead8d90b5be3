"""CUDA graphs and eager passes (calc/serve/graphs.py, calc/serve/steptime.py): the largest
captured batch per engine and release from the engines' sources, the launch time per kernel
against its source, and an eager pass's time in the iteration table."""

from dataclasses import replace

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.host_costs import NONE
from calc.deploy.steps import step_of
from calc.serve.graphs import EAGER_LAUNCH_S, decode_only, eager_issue_s, graph_tokens
from calc.serve.steptime import step_table
from tests.scripts import load_script

A100_40G = "a100-40g"


def _dep(model, hw, tp=1, pp=1, **engine):
    return Deployment.build(load_model(model), load_hardware(hw), tp=tp, pp=pp,
                            engine=EngineSettings(**engine))  # fmt: skip


def test_sglang_0_4_captures_up_to_160():
    # sglang 0.4.0 server_args.py __post_init__: cuda_graph_max_bs = 160 on GPUs of 25,000 MiB
    # or more (an H200 has 143,771 MiB), 8 below; cuda_graph_runner.py: no prefill graphs
    dep = _dep("llama3.3-70b", "h200", tp=4, name="sglang", version="0.4")
    assert graph_tokens(dep) == 160
    assert decode_only(dep)


def test_sglang_0_4_small_gpu_captures_up_to_8():
    # an RTX 4090 (24,564 MiB) is under 25,000 MiB: cuda_graph_max_bs 8
    dep = _dep("llama3-8b", "rtx-4090", name="sglang", version="0.4")
    assert graph_tokens(dep) == 8


def test_vllm_captures_up_to_512_tokens_of_any_pass():
    # VllmConfig._set_cudagraph_sizes: up to min(512, 2 × max_num_seqs, max_num_batched_tokens)
    # (an A100's 2,048 batched tokens and 256 sequences: min(512, 512, 2048) = 512); piecewise
    # graphs of mixed passes too
    dep = _dep("llama3.3-70b", A100_40G, tp=8, name="vllm")
    assert graph_tokens(dep) == min(512, 2 * dep.engine_config.max_num_seqs,
                                    dep.engine_config.max_batched_tokens)  # fmt: skip
    assert not decode_only(dep)


def test_no_graphs_is_all_eager_and_trtllm_to_128():
    assert graph_tokens(_dep("llama3-8b", "h100", name="vllm", cuda_graphs=False)) == 0
    # TensorRT-LLM's default list 1-31, 32, 64, 128 (issue 20, round 17): its largest
    assert graph_tokens(_dep("llama3-8b", "h100", name="trtllm")) == 128
    assert graph_tokens(_dep("llama3-8b", "h100", name="trtllm", cuda_graphs=False)) == 0


def test_launch_time_per_kernel_is_its_source():
    # Llama-3.1-8B decode on one H100 SXM: 8.4 ms eager (cloudai.pt): eager, the pass is the
    # CPU's, so the kernels kvcalc counts in it × the launch time is 8.4 ms (292 × 28.8 µs =
    # 8.41 ms)
    dep = _dep("llama3.1-8b", "h100")
    kernels = sum(float(op.kernels) for op in step_of(dep, batch=1, ctx=1.0).raw)
    assert kernels == 292
    assert eager_issue_s(kernels) == pytest.approx(8.4e-3, rel=0.005)
    assert EAGER_LAUNCH_S == pytest.approx(8.4e-3 / 292, rel=0.005)


def test_eager_pass_waits_for_the_cpu():
    # SGLang 0.4, Llama-3.3-70B, TP 4 on H200: 724 kernels a pass (80 layers × 9 + 4), so an
    # eager pass is issued in 724 × 28.8 µs = 20.85 ms
    dep = _dep("llama3.3-70b", "h200", tp=4, name="sglang", version="0.4")
    tab = step_table(dep, max_ctx=4096, host=NONE)
    assert tab.eager_s == pytest.approx(724 * 28.8e-6)
    graphed = step_of(dep, batch=160, ctx=1.0).time_s  # within the graphs: the GPU's time
    assert tab.decode_s(160) == pytest.approx(float(graphed), rel=5e-3)
    # one more sequence: the GPU needs less than 20.85 ms, so the pass takes the CPU's time
    assert tab.decode_s(161) == pytest.approx(tab.eager_s)
    assert tab.decode_s(161) > tab.decode_s(160)
    # the KV read still follows: + γ_161 × C
    c = 161 * 1000
    assert tab.iteration_s(161, c, [], 161) == pytest.approx(tab.eager_s + tab.ctx_slope(161) * c)
    # a pass with a prompt chunk is eager (no prefill graphs): at least the issue time
    assert tab.iteration_s(0, 0, [(0, 16)], 1) == pytest.approx(tab.eager_s)


def test_a_pass_slower_than_its_issue_keeps_its_gpu_time():
    # 4,096 prompt tokens of Llama-3.3-70B on TP 4: far more than 20.85 ms of GPU work
    dep = _dep("llama3.3-70b", "h200", tp=4, name="sglang", version="0.4")
    tab = step_table(dep, max_ctx=8192, host=NONE)
    eager = tab.iteration_s(0, 0, [(0, 4096)], 1)
    graphed = step_table(dep, max_ctx=8192, host=NONE)
    object.__setattr__(graphed, "graph_tokens", None)
    assert eager == pytest.approx(graphed.iteration_s(0, 0, [(0, 4096)], 1))
    assert eager > 2 * tab.eager_s


def test_eager_issue_is_per_pipeline_stage():
    one = step_table(_dep("llama3.3-70b", "h200", tp=4, name="sglang", version="0.4"),
                     max_ctx=4096, host=NONE)  # fmt: skip
    two = step_table(_dep("llama3.3-70b", "h200", tp=4, pp=2, name="sglang", version="0.4"),
                     max_ctx=4096, host=NONE)  # fmt: skip
    assert two.eager_s == pytest.approx(one.eager_s / 2)


def test_trtllm_captures_decode_only_batches():
    # llm_args.py CudaGraphConfig: graphs "enabled for batches that consist of decoding
    # requests *only*"; the default list (max_batch_size 0 -> 128, unpadded) is declared: a
    # decode pass of 33-63, 65-127 or more than 128 sequences is eager (issue 20, round 17)
    dep = _dep("llama3-8b", "h100", name="trtllm")
    assert decode_only(dep)
    assert graph_tokens(dep) == 128
    table = step_table(dep, max_tokens=256, max_rows=256, max_ctx=4096, host=NONE)
    eager = table.eager_s  # 292 kernels × 28.8 µs = 8.41 ms (the module's own count)
    assert eager == pytest.approx(292 * 28.8e-6)
    for b, replayed in ((32, True), (33, False), (64, True), (100, False), (128, True),
                        (129, False)):  # fmt: skip
        assert table.eager(b, chunks=False) is (not replayed)
    assert table.eager(1, chunks=True)  # a pass with a prompt: eager whatever its size
    # the same table without graphs declared: every decode pass its GPU time
    gpu = replace(table, graph_sizes=None, graph_tokens=None)
    assert table.decode_s(64) == gpu.decode_s(64)  # captured: replayed
    assert table.decode_s(100) == pytest.approx(max(gpu.decode_s(100), eager))
    assert gpu.decode_s(100) < eager  # llama3-8b on one H100 at 100: the CPU's launch binds


def _bench_module(name):
    return load_script(f"bench/{name}.py")


def test_perf_overview_decode_batches_fit_its_captured_graphs():
    # the premise of "no eager decode step" on TensorRT-LLM's perf-overview rows (v1.0 page,
    # llm_options.yml: enable_padding, batch_sizes up to 8,192): every row's decode batch per
    # attention-DP rank and pipeline micro-batch, at the engine's defaults and at
    # trtllm-bench's settings (max_batch_size at most 4,096), is at most 8,192
    vt = _bench_module("validation_throughput")
    vh = _bench_module("validation_heldout")
    largest = 0
    for row in (*vt.ROWS, *vh.rows()):
        for bench in (False, True):
            result = vt.predict(row, bench=bench)
            dep = vt.deployment(row, bench)
            per_rank = result.concurrency / (dep.replicas * dep.sharding.dp_attn)
            largest = max(largest, -(-per_rank // dep.pp))
    assert 0 < largest <= 8192
