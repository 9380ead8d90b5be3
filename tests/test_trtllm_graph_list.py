"""TensorRT-LLM's default CUDA-graph list as a declared set (issue 20, round 17): llm_args.py
``CudaGraphConfig`` (max_batch_size 0 -> 128, enable_padding False) captures 1-31, 32, 64 and
128 sequences and replays them unpadded; a decode-only batch outside the list, and (decode-only
graphs) a step holding a prompt, is launched kernel by kernel: max(GPU time, kernels × 28.8 µs)
(``calc.serve.graphs``)."""

from __future__ import annotations

import numpy as np
import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.host_costs import NONE
from calc.deploy.steps import step_of
from calc.formulas.cuda_graphs import replays_graph
from calc.reports import throughput as T


def _qwen235(**engine):
    # the silicon sample's TensorRT-LLM 1.0.0rc3 layout: H100, attention TP 8 = MoE EP 8
    settings = EngineSettings(name="trtllm", version="1.0.0rc3", **engine)
    return Deployment.build(load_model("qwen3-235b-a22b"), load_hardware("h100"), tp=8, ep=8,
                            weight_dtype="fp8-block128", kv_dtype="fp8",
                            engine=settings)  # fmt: skip


def test_default_list_by_hand():
    # _generate_cuda_graph_batch_sizes(128, False): list(range(1, 32)) + [32, 64, 128]; powers
    # of two from 2^8 = 256 are beyond 128; trtllm-serve's max_batch_size 2,048 and
    # max_num_tokens 8,192 filter none: 31 + 3 = 34 sizes
    sizes = _qwen235().engine_model.cuda_graph_batch_sizes(_qwen235())
    assert sizes == (*range(1, 33), 64, 128)
    assert len(sizes) == 34
    # max_batch_size 100 < 128: 1-32, 64 kept and 100 itself in 128's place
    # (_filter_cuda_graph_batch_sizes)
    dep = _qwen235(max_num_seqs=100)
    assert dep.engine_model.cuda_graph_batch_sizes(dep) == (*range(1, 33), 64, 100)
    dep = _qwen235(cuda_graphs=False)
    assert dep.engine_model.cuda_graph_batch_sizes(dep) == ()  # every step eager


def test_other_engines_declare_no_list():
    # vLLM and SGLang keep their threshold (Engine.cuda_graph_tokens)
    for name in ("vllm", "sglang"):
        dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"),
                               engine=EngineSettings(name=name))  # fmt: skip
        assert dep.engine_model.cuda_graph_batch_sizes(dep) is None


def test_replays_graph_by_hand():
    sizes = (*range(1, 33), 64, 128)
    got = replays_graph(np.array([1.0, 32.0, 33.0, 63.0, 64.0, 65.0, 127.0, 128.0, 256.0]),
                        sizes, padded=False)  # fmt: skip
    assert got.tolist() == [True, True, False, False, True, False, False, True, False]
    # padded: anything up to the largest size rounds up to a graph; beyond it, eager
    assert replays_graph(65, sizes, padded=True)
    assert not replays_graph(129, sizes, padded=True)
    assert not replays_graph(1, (), padded=False)  # no graphs at all


def test_launch_time_by_hand():
    # Qwen3-235B-A22B's pass: 94 layers × 13 kernels (2 norms, QKV, 2 attention, O, router,
    # 6 of the CUTLASS MoE pipeline) + embedding + final norm + lm_head's 2 = 1,226 kernels;
    # × 28.8 µs = 35.3088 ms, whatever the batch
    step = step_of(_qwen235(), batch=100, ctx=192)
    assert T.launch_s(step) == pytest.approx(1226 * 28.8e-6, rel=1e-12)
    assert T.eager_step_s(0.0217, 0.0353088) == pytest.approx(0.0353088)
    assert T.eager_step_s(0.040, 0.0353088) == pytest.approx(0.040)


def test_a_batch_outside_the_list_runs_eager():
    dep = _qwen235()
    launch = 1226 * 28.8e-6  # 35.31 ms
    for cap, eager in ((64, False), (100, True), (128, False)):
        s = T.serving_throughput(dep, prompt=128, gen=128, max_concurrency=cap, host=NONE)
        gpu = float(step_of(dep, batch=cap, ctx=128 + 64).time_s)  # the mean context
        assert gpu < launch  # 21-22 ms on the GPU: the CPU's launch is the longer
        want = max(gpu, launch) if eager else gpu
        # 127 decode steps a cycle, one micro-batch
        assert s.decode_s == pytest.approx(127 * want, rel=1e-9)


def test_a_prompt_holding_step_waits_for_its_launch():
    # 4 sequences of 16 + 64 tokens: one step holds all 4 prompts (k = 4, budget
    # floor((8,192 - 4) / 15) = 545 >= 4), a pass of 64 prompt tokens beside no other decode;
    # launched eagerly it takes max(chunk + decode step, 35.31 ms), so the chunk is charged
    # max(chunk, 35.31 ms - decode step)
    dep = _qwen235()
    s = T.serving_throughput(dep, prompt=16, gen=64, max_concurrency=4, host=NONE)
    chunk = float(step_of(dep, batch=4, prompt=16).time_s)
    dec = float(step_of(dep, batch=4, ctx=16 + 32).time_s)
    launch = 1226 * 28.8e-6
    assert chunk < launch - dec  # the launch binds here
    assert s.prefill_s == pytest.approx(max(chunk, launch - dec), rel=1e-9)  # n / k = 1 chunk
    assert s.decode_s == pytest.approx(63 * dec, rel=1e-9)  # 4 is captured: replayed


def test_vllm_steady_state_unchanged():
    # no declared list: the decode step is its GPU time at any batch
    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"),
                           engine=EngineSettings(name="vllm"))  # fmt: skip
    s = T.serving_throughput(dep, prompt=128, gen=128, max_concurrency=100, host=NONE)
    gpu = float(step_of(dep, batch=100, ctx=192).time_s)
    assert s.decode_s == pytest.approx(127 * gpu, rel=1e-9)
