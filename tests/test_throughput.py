"""Steady-state serving throughput (calc.reports.throughput): the formulas by hand, the
composition over a deployment from step_of, and cost == sweep == latency at one operating
point."""

from __future__ import annotations

import numpy as np
import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings, Workload
from calc.deploy.host_costs import NONE, HostCosts
from calc.deploy.steps import generation_time_of, step_of
from calc.reports import throughput as T


def _dep(model="llama3.1-8b", hw="h100", **kw):
    return Deployment.build(load_model(model), load_hardware(hw), **kw)


def test_formulas_by_hand():
    assert T.concurrency_per_group(1024, 248) == 248  # the KV pool binds
    assert T.concurrency_per_group(2048, 3848) == 2048  # the engine's cap binds
    # floor(8192 / 1000) = 8 prompts per chunk; a prompt longer than M goes alone
    assert T.prompts_per_chunk(1000, 8192, 248) == 8
    assert T.prompts_per_chunk(20000, 8192, 44) == 1
    assert T.prompts_per_chunk(128, 8192, 10) == 10  # fewer sequences than 8192 / 128 = 64
    assert T.micro_batch(7, 2) == 4  # ceil(7 / 2)
    # decode tokens in the budget (TensorRT-LLM): k × 1,000 + (1,567 − k) ≤ 8,192,
    # k = floor((8,192 − 1,567) / 999) = floor(6.63) = 6 (8 without them)
    assert T.budget_prompts_per_chunk(1000, 8192, 1567) == 6
    # 128-token prompts beside 2,048 sequences: floor((8,192 − 2,048) / 127) = 48 (not 64)
    assert T.budget_prompts_per_chunk(128, 8192, 2048) == 48
    assert T.budget_prompts_per_chunk(128, 8192, 10) == 10  # every sequence fits
    assert T.budget_prompts_per_chunk(20000, 8192, 44) == 1  # longer than M: alone, chunked
    # 5,000-token prompts: one joins beside at most 8,192 − 5,000 = 3,192 decodes: 3,193
    assert T.budget_concurrency(4000, 5000, 8192) == 3193
    assert T.budget_concurrency(2000, 5000, 8192) == 2000  # the pool binds first
    assert T.budget_concurrency(44, 20000, 8192) == 44  # longer than M: unchanged
    assert T.budget_prompts_per_chunk(5000, 8192, 3193) == 1  # (8,192 − 3,193) / 4,999 = 1.0
    # (129 − 1) steps × 2 micro-batches × 10 ms / pp 2 = 1.28 s
    assert T.decode_cycle_s(129, 0.01, 2, 2) == pytest.approx(1.28)
    # 248 / 8 = 31 chunks × 0.1 s / pp 1 = 3.1 s
    assert T.prefill_cycle_s(248, 8, 0.1, 1) == pytest.approx(3.1)
    # 248 sequences × 1,000 tokens / 23 s / 1 GPU = 10,782.6 tokens/s
    assert T.tokens_per_s_per_gpu(248, 1000, 23, 1) == pytest.approx(10782.608695652174)
    # $6.155 / 3600 / 10,000 tokens/s × 10^6 = $0.17097
    assert T.usd_per_million_tokens(6.155, 10_000) == pytest.approx(0.170972222)
    assert T.serving_gen(1000, 2000) == 1000  # ctx − prompt
    assert T.serving_gen(2000, 2000) == 1  # prompt = ctx: one token (the prefill's)
    assert T.serving_gen(1000, 2000, 7) == 7


def test_composition_from_step_times():
    """vLLM on H100: concurrency = min(1,024 max_num_seqs, KV pool at 2,000 tokens); the cycle is
    n / k prefill chunks of k prompts (its V1 scheduler charges the n − k running decodes
    first: k = floor((8,192 − n) / 999), 7 at n = 251) plus 999 decode steps at the mean
    context 1,500."""
    dep = _dep(weight_dtype="fp8")
    ec = dep.engine_config
    n = min(ec.max_num_seqs, int(dep.per_gpu.max_concurrency(2000)))
    s = T.serving_throughput(dep, prompt=1000, gen=1000, host=NONE)  # the GPU's time alone
    assert s.concurrency == n
    k = (ec.max_batched_tokens - n) // 999  # k × 1,000 + (n − k) ≤ M
    assert k < ec.max_batched_tokens // 1000  # fewer than the 8 the budget holds alone
    prefill = n / k * float(step_of(dep, batch=k, prompt=1000).time_s)
    decode = 999 * float(step_of(dep, batch=n, ctx=1500).time_s)
    assert s.prefill_s == pytest.approx(prefill, rel=1e-12)
    assert s.decode_s == pytest.approx(decode, rel=1e-12)
    assert s.output_tokens_per_s_per_gpu == pytest.approx(n * 1000 / (prefill + decode))
    assert s.input_tokens_per_s_per_gpu == pytest.approx(s.output_tokens_per_s_per_gpu)
    # prefill charged: slower than the decode-only batch / TPOT at the same point
    assert s.output_tokens_per_s_per_gpu < n / float(step_of(dep, batch=n, ctx=1500).time_s)


def test_mean_context_equals_the_exact_sum_of_decode_steps():
    """A decode step's time is affine in its context (the KV read grows one token a step), so
    (gen − 1) × TPOT(prompt + gen / 2) is Σ_j TPOT(prompt + j) exactly."""
    dep = _dep(weight_dtype="fp8")
    exact = generation_time_of(dep, prompt=1000, gen=1000, batch=64)
    mean = 999 * float(step_of(dep, batch=64, ctx=1500).time_s)
    assert mean == pytest.approx(exact, rel=1e-9)


def test_engine_cap_and_pool():
    trt = _dep(weight_dtype="fp8-tensor", kv_dtype="fp8", engine=EngineSettings(name="trtllm"))
    assert T.serving_throughput(trt, prompt=128, gen=128).concurrency == 2048  # max_batch_size
    capped = _dep(weight_dtype="fp8", engine=EngineSettings(max_num_seqs=16))
    assert T.serving_throughput(capped, prompt=1000, gen=1000).concurrency == 16


def test_pipeline_micro_batches():
    """pp 2: the sequences run as 2 micro-batches of ceil(n / 2), each piece of work costing
    its all-stage time / 2."""
    dep = _dep("llama3-70b", weight_dtype="fp8", tp=2, pp=2)
    s = T.serving_throughput(dep, prompt=1000, gen=1000, host=NONE)
    n = s.concurrency
    micro = -(-n // 2)
    decode = 999 * np.ceil(n / micro) * float(step_of(dep, batch=micro, ctx=1500).time_s) / 2
    assert s.decode_s == pytest.approx(decode, rel=1e-12)
    k = min(n, 8)
    assert s.prefill_s == pytest.approx(
        n / k * float(step_of(dep, batch=k, prompt=1000).time_s) / 2, rel=1e-12
    )
    assert s.output_tokens_per_s_per_gpu == pytest.approx(n * 1000 / s.cycle_s / 4)


def test_arrays_broadcast_and_none_fits():
    dep = _dep(weight_dtype="fp8")
    s = T.serving_throughput(dep, prompt=np.array([[1000], [500]]), gen=np.array([[1000], [10]]))
    one = T.serving_throughput(dep, prompt=500, gen=10)
    assert s.output_tokens_per_s_per_gpu[1, 0] == pytest.approx(one.output_tokens_per_s_per_gpu)
    big = _dep("llama3-70b")  # 141 GB of bf16 weights on one 80 GB GPU
    assert T.serving_throughput(big, prompt=1000, gen=1000) is None
    fields = T.serving_fields(big, prompt=1000, gen=1000, usd_per_hour=2.0)
    assert set(fields) == set(T.KEYS + T.PRICE_KEYS)
    assert all(v is None for v in fields.values())


def test_cost_sweep_latency_agree(cli):
    """One operating point, three commands, one steady-state figure."""
    at = ("-m", "llama3.1-8b", "-H", "h100", "--weight-dtype", "fp8", "-f", "json")
    lat = cli("latency", *at, "--prompt", 1000, "--gen", 1000).json()
    cost = cli("cost", *at, "--prompt", 1000, "--ctx", 2000).json()
    (row,) = cli("sweep", *at, "--prompt", 1000, "--ctx", 2000).json()["rows"]
    for key in T.KEYS:
        assert cost[key] == pytest.approx(lat[key], rel=1e-12), key
        assert row[key] == pytest.approx(lat[key], rel=1e-12), key
    for key in T.PRICE_KEYS:
        assert row[key] == pytest.approx(cost[key], rel=1e-12), key
    # $/Mtok output = usd_per_hour / 3600 / tokens/s × 10^6
    assert cost["usd_per_million_output_tokens_serving"] == pytest.approx(
        cost["usd_per_gpu_hour"] / 3600 / cost["serving_output_tokens_per_s_per_gpu"] * 1e6
    )


def test_cost_report_library():
    from calc.reports.cost import cost_report

    dep = _dep(weight_dtype="fp8")
    f = cost_report(dep, Workload(ctx=2000, prompt=1000)).fields
    s = T.serving_throughput(dep, prompt=1000, gen=1000)
    assert f["gen"] == 1000
    assert f["serving_output_tokens_per_s_per_gpu"] == s.output_tokens_per_s_per_gpu


def test_host_time_adds_to_every_step_of_the_cycle():
    """The engine's host time per step and per sequence (calc.deploy.host_costs) adds to each
    decode step and each prefill chunk of the cycle: per_step + per_sequence × its sequences."""
    dep = _dep(weight_dtype="fp8")
    host = HostCosts(1e-3, 2e-6, 0.0, 0.0, "test")
    gpu = T.serving_throughput(dep, prompt=1000, gen=1000, host=NONE)
    both = T.serving_throughput(dep, prompt=1000, gen=1000, host=host)
    n = gpu.concurrency
    k = (dep.engine_config.max_batched_tokens - n) // 999  # vLLM: the decodes in the budget
    # 999 decode steps of n sequences; n / k chunks of k prompts
    assert both.decode_s - gpu.decode_s == pytest.approx(999 * (1e-3 + 2e-6 * n), rel=1e-9)
    assert both.prefill_s - gpu.prefill_s == pytest.approx(n / k * (1e-3 + 2e-6 * k), rel=1e-9)


def test_trtllm_counts_decode_tokens_in_its_budget():
    """TensorRT-LLM's microBatchScheduler charges each running decode one token against
    max_num_tokens: fewer prompts per step, and long prompts cap the sequences a step holds."""
    trt = _dep(weight_dtype="fp8", engine=EngineSettings(name="trtllm"))
    assert trt.engine_model.decode_in_token_budget
    s = T.serving_throughput(trt, prompt=5000, gen=500, host=NONE)
    m = trt.engine_config.max_batched_tokens
    assert s.concurrency <= m - 5000 + 1  # 3,193 at 8,192
    # at most one 5,000-token prompt a step beside the others' decodes
    n = s.concurrency
    k = int(T.budget_prompts_per_chunk(5000, m, n))
    assert k == (m - n) // 4999
    assert s.prefill_s == pytest.approx(n / k * float(step_of(trt, batch=k, prompt=5000).time_s))


def test_vllm_counts_decode_tokens_in_its_budget():
    """vLLM's V1 scheduler (v1/core/sched/scheduler.py) takes the running requests' tokens from
    token_budget before the waiting prompts; chunked prefill (its default) chunks them into
    what is left. SGLang's PrefillAdder does so only with --enable-mixed-chunk (off)."""
    dep = _dep(weight_dtype="fp8")  # vLLM 0.33 on H100: M = 8,192, pool 251 at 2,000 tokens
    assert dep.engine_model.decode_in_token_budget
    assert dep.engine_config.chunked_prefill
    assert dep.engine_config.max_batched_tokens == 8192
    sgl = _dep(weight_dtype="fp8", engine=EngineSettings(name="sglang"))
    assert not sgl.engine_model.decode_in_token_budget
    # n = 200: 8 prompts × 1,000 + 192 decodes = 8,192 ≤ M: k = 8 (floor(7,992 / 999) = 8)
    # n = 201: 8 × 1,000 + 193 = 8,193 > M: k = floor(7,991 / 999) = 7; without the decodes
    # both would hold floor(8,192 / 1,000) = 8
    for n, k in ((200, 8), (201, 7)):
        s = T.serving_throughput(dep, prompt=1000, gen=1000, host=NONE, max_concurrency=n)
        assert s.concurrency == n
        chunk_s = float(step_of(dep, batch=k, prompt=1000).time_s)
        assert s.prefill_s == pytest.approx(n / k * chunk_s, rel=1e-12)
    # chunked: a prompt that does not fit beside the decodes is chunked, nothing capped
    small = _dep(weight_dtype="fp8", engine=EngineSettings(max_batched_tokens=2048))
    s = T.serving_throughput(small, prompt=1900, gen=10, host=NONE)
    assert s.concurrency > 149  # the KV pool's, not 2,048 − 1,900 + 1 = 149 (whole prompts)


def test_trtllm_budget_cap_only_without_chunked_prefill():
    """With chunked prefill on, a prompt is chunked into what the decodes leave: no cap."""
    eng = dict(name="trtllm", max_batched_tokens=2048)
    chunked = _dep(weight_dtype="fp8", engine=EngineSettings(**eng, chunked_prefill=True))
    whole = _dep(weight_dtype="fp8", engine=EngineSettings(**eng))
    assert not whole.engine_config.chunked_prefill  # the engine's default
    # a 1,900-token prompt fits beside at most 2,048 − 1,900 = 148 decodes: 149 sequences
    a = T.serving_throughput(whole, prompt=1900, gen=10, host=NONE)
    b = T.serving_throughput(chunked, prompt=1900, gen=10, host=NONE)
    assert b.concurrency > 149  # the KV pool's, uncapped
    assert a.concurrency == 149
