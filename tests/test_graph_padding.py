"""Padded CUDA-graph replays in the steady-state throughput (issue 20, round 7): a decode-only
step runs in the smallest captured graph holding its batch, its GEMMs, MoE layer and
collectives at the padded batch, attention at the real one; the steps that hold a prompt run
unpadded (TensorRT-LLM's ``cuda_graph_runner.py`` ``_get_padded_batch``)."""

from __future__ import annotations

import numpy as np
import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.host_costs import NONE
from calc.deploy.steps import captured_batch_sizes, padded_batch, padded_decode_s, step_of
from calc.reports import throughput as T

# the perf-overview page's llm_options.yml batch_sizes
SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192)


def _dep(model="llama3.1-8b", hw="h100", **kw):
    return Deployment.build(load_model(model), load_hardware(hw), **kw)


def test_padded_batch_by_hand():
    assert padded_batch(1567, SIZES, 8192) == 2048  # the next captured size
    assert padded_batch(2048, SIZES, 8192) == 2048  # captured: no padding
    assert padded_batch(300, SIZES, 8192) == 384
    assert padded_batch(9000, SIZES, 10_000) == 9000  # beyond the largest graph: unpadded
    # 1,500 + 548 padding > max_batch_size 1,536: TensorRT-LLM does not pad
    assert padded_batch(1500, SIZES, 1536) == 1500
    got = padded_batch(np.array([3.0, 129.0, 5000.0]), SIZES, 8192)
    assert got.tolist() == [4.0, 256.0, 8192.0]


def test_captured_sizes_by_hand():
    # trtllm-bench's Qwen3-30B-A3B 1000/1000 run: max_batch_size 1,792, max_num_tokens 3,328:
    # the largest pure-decode batch min(1,792, 3,328) = 1,792; the page's 2,048 ... 8,192 are
    # beyond it, so 1,792 is captured in their place (padding on)
    got = captured_batch_sizes(SIZES, 1792, 3328)
    assert got == (1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 1792)
    assert padded_batch(1570, got, 1792) == 1792
    # max_num_tokens binds: min(2,048, 1,000) = 1,000
    assert captured_batch_sizes(SIZES, 2048, 1000)[-2:] == (512, 1000)
    # the defaults of the page's own column: 2,048 is captured, nothing added
    assert captured_batch_sizes(SIZES, 2048, 8192)[-1] == 2048


def test_mixed_step_share_by_hand():
    # 1,567 sequences, 8 prompts a prefill step, 1,000 output tokens: 1,567 / 8 = 195.9
    # prefill steps of 999 decode steps = 0.1961
    assert T.mixed_step_share(1567, 8, 1000) == pytest.approx(1567 / 8 / 999)
    assert T.mixed_step_share(100, 1, 50) == 1.0  # 100 prompts one by one > 49 steps: all
    assert T.mixed_step_share(10, 1, 1) == 0.0  # no decode step


def test_padded_decode_step_between_the_real_and_the_padded_batch():
    dep = _dep(weight_dtype="fp8")
    real = float(step_of(dep, batch=1567, ctx=1500).time_s)
    full = float(step_of(dep, batch=2048, ctx=1500).time_s)
    got = float(padded_decode_s(dep, batch=1567, padded=2048, ctx=1500))
    assert real < got < full  # the GEMMs at 2,048 rows, attention at 1,567 sequences
    assert float(padded_decode_s(dep, batch=1567, padded=1567, ctx=1500)) == real


def test_throughput_pads_the_decode_only_steps():
    dep = _dep(weight_dtype="fp8", engine=EngineSettings(name="trtllm"))
    plain = T.serving_throughput(dep, prompt=1000, gen=1000, host=NONE)
    n = plain.concurrency  # the KV pool's 254 sequences, under max_batch_size 2,048
    assert n + 512 <= dep.engine_config.max_num_seqs
    # a graph of exactly n sequences: nothing padded
    same = T.serving_throughput(dep, prompt=1000, gen=1000, host=NONE, graph_batch_sizes=(n,))
    assert same.decode_s == pytest.approx(plain.decode_s, rel=1e-12)
    # the next graph 512 sequences larger: the decode-only steps replay it, the steps holding
    # one of the n / k prefill chunks of a cycle run unpadded; k prompts beside the n − k
    # decode tokens: k × 1,000 + (n − k) ≤ 8,192, k = floor((8,192 − n) / 999) = 7 at n 254
    pad = T.serving_throughput(dep, prompt=1000, gen=1000, host=NONE,
                               graph_batch_sizes=(n + 512,))  # fmt: skip
    k = (8192 - n) // 999
    assert k == 7 if n == 254 else 1 <= k <= 8
    mixed = n / k / 999
    real = float(step_of(dep, batch=n, ctx=1500).time_s)
    padded = float(padded_decode_s(dep, batch=n, padded=n + 512, ctx=1500))
    assert pad.decode_s == pytest.approx(999 * (mixed * real + (1 - mixed) * padded), rel=1e-12)
    assert pad.decode_s > plain.decode_s
    assert pad.prefill_s == pytest.approx(plain.prefill_s, rel=1e-12)
    # a largest graph below the batch: unpadded
    small = T.serving_throughput(dep, prompt=1000, gen=1000, host=NONE,
                                 graph_batch_sizes=(n - 1,))  # fmt: skip
    assert small.decode_s == pytest.approx(plain.decode_s, rel=1e-12)
    # a padded graph beyond max_batch_size: not padded
    capped = _dep(weight_dtype="fp8", engine=EngineSettings(name="trtllm", max_num_seqs=n))
    base = T.serving_throughput(capped, prompt=1000, gen=1000, host=NONE)
    over = T.serving_throughput(capped, prompt=1000, gen=1000, host=NONE,
                                graph_batch_sizes=(n + 512,))  # fmt: skip
    assert over.decode_s == pytest.approx(base.decode_s, rel=1e-12)


def test_sglang_prefill_graphs_off_under_pipeline_parallelism():
    """SGLang 0.5.22+ captures breakable prefill graphs on CUDA, but not by default under
    pipeline parallelism (arg_groups/cuda_graph_hook.py): a pass with a prompt is eager there,
    as before 0.5.22; vLLM's piecewise graphs hold mixed passes; TensorRT-LLM's are decode-only."""
    from calc.serve.graphs import decode_only

    def dep(engine, version, pp=1):
        return _dep("llama3.1-8b", "h100", pp=pp,
                    engine=EngineSettings(name=engine, version=version))  # fmt: skip

    assert decode_only(dep("sglang", "0.5.23")) is False
    assert decode_only(dep("sglang", "0.5.23", pp=2)) is True
    assert decode_only(dep("sglang", "0.5.22", pp=2)) is True
    assert decode_only(dep("sglang", "0.4.0")) is True
    assert decode_only(dep("vllm", "0.33.0", pp=2)) is False
    assert decode_only(dep("trtllm", None)) is True


def test_sglang_prefill_graphs_follow_the_pools_rule_from_0_5_10():
    """SGLang captures prefill graphs by default from 0.5.10 (piecewise, breakable from
    0.5.15), off on the layouts each release names (rules.prefill_graph_off, the rule its
    automatic mem_fraction_static reserves by): the step time follows the same rule (it took
    them from 0.5.22 only)."""
    from calc.serve.graphs import decode_only

    def dep(model, version, pp=1, tp=1):
        return _dep(model, "h200", tp=tp, pp=pp,
                    engine=EngineSettings(name="sglang", version=version))  # fmt: skip

    assert decode_only(dep("llama3.1-8b", "0.5.9")) is True  # before: decode graphs only
    assert decode_only(dep("llama3.1-8b", "0.5.10")) is False
    assert decode_only(dep("llama3.1-8b", "0.5.10", pp=2)) is True  # 0.5.10: off under PP
    assert decode_only(dep("llama3.1-8b", "0.5.15", pp=2)) is False  # 0.5.15 allows PP
    assert decode_only(dep("llama3.1-8b", "0.5.19", pp=2)) is True  # 0.5.19: off again
    # MLA: off from 0.5.15 to 0.5.16 (every MLA model), on from 0.5.18 (multimodal only off)
    assert decode_only(dep("deepseek-v3", "0.5.15", tp=8)) is True
    assert decode_only(dep("deepseek-v3", "0.5.18", tp=8)) is False
