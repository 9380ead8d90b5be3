"""Attention data parallelism under load: each rank's own KV pool as TensorRT-LLM sizes it
(the experts / ep and the replicated rest, the MoE workspace of the gathered tokens, NCCL's
reserve), each rank's own prefill budget in the steady-state throughput, and the
max_batch_size / max_num_tokens trtllm-bench runs the published throughput table with."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.host_costs import NONE
from calc.deploy.steps import step_of
from calc.reports import throughput as T
from tests.scripts import load_script

GIB = 2**30


def _qwen_ep8(engine="trtllm", hw="h100", **kw):
    """Qwen3-235B-A22B (config.json: hidden 4,096, 94 layers, 64 q / 4 kv heads of 128, 128
    experts of moe_intermediate 1,536, top-8, vocab 151,936, untied) on 8 GPUs: tp 1 × ep 8."""
    return Deployment.build(
        load_model("qwen3-235b-a22b"), load_hardware(hw), tp=1, ep=8,
        weight_dtype="fp8-tensor" if engine == "trtllm" else "fp8", kv_dtype="fp8",
        engine=EngineSettings(name=engine, **kw),
    )  # fmt: skip


def test_trtllm_pool_of_one_attention_dp_rank_by_hand():
    dep = _qwen_ep8()
    assert dep.sharding.dp_attn == 8
    p = dep.per_gpu.prediction
    # weights as loaded under EP 8 (fp8 linear layers, 16-bit embeddings, router and norms):
    # experts 94 × 128 × 3 × 4,096 × 1,536 / 8 = 28,387,049,472 B (one GPU's 16 experts)
    # attention 94 × (4,096 × 8,192 + 2 × 4,096 × 512 + 8,192 × 4,096) = 6,702,497,792 B
    # embedding + lm_head 2 × 151,936 × 4,096 × 2 = 2,489,319,424 B
    # router 94 × 4,096 × 128 × 2 = 98,566,144 B; norms (94 × 2 + 1) × 4,096 × 2 = 1,548,288 B;
    # q/k norms 94 × 2 × 128 × 2 = 48,128 B                          sum 37,679,029,248 B
    weights = 28_387_049_472 + 6_702_497_792 + 2_489_319_424 + 98_566_144 + 1_548_288 + 48_128
    assert p.weights_bytes == weights == 37_679_029_248
    # the profiling pass of max_num_tokens 8,192 on every rank; the MoE sees 8 × 8,192 gathered
    # tokens: 65,536 × top-8 × (max(2 × 1,536, 4,096) + 1,536) × 2 B = 5,905,580,032 B
    # + resident 2 × 8,192 × 4,096 × 2 = 134,217,728 B
    # + the widest layer max(8,192 × (2 × 8,192 + 512 + 512) × 2, 1 × 151,936 × 14.5)
    #   = 285,212,672 B                                          = 6,325,010,432 B
    assert p.activation_bytes == 5_905_580_032 + 134_217_728 + 285_212_672
    # non-torch: the multi-GPU context and NCCL figure (2.07 GiB = 2,222,645,576 B), not the
    # single GPU's 0.25 GiB, plus the all-reduce fusion workspace of TensorRT-LLM's tp_size 8
    # group (the newest release, 1.2.1: 64 MiB; 4 × 67,108,864 × 8 + 256 × 8 = 2,147,485,696 B)
    assert p.non_torch_bytes == round(2.07 * GIB) + 2_147_485_696 == 4_370_131_272
    # pool: 0.9 × (85,029,027,840 − 37,679,029,248 − 6,325,010,432 − 4,370,131,272)
    #     = 32,989,371,199.2 B; a block of 32 tokens × 94 × 2 × 4 × 128 × 1 B = 3,080,192 B:
    #       10,710 blocks = 342,720 tokens
    assert p.usable_memory_bytes == 85_029_027_840
    assert p.kv_budget_bytes == pytest.approx(32_989_371_199.2)
    assert p.tokens == 10_710 * 32 == 342_720
    # one rank holds 342,720 // 2,176 = 157 sequences of 128 + 2,048 tokens; the replica 8 ×
    s = T.serving_throughput(dep, prompt=128, gen=2048, host=NONE)
    assert s.concurrency == 8 * 157


def test_prefill_budget_per_attention_dp_rank():
    """TensorRT-LLM: every rank's scheduler takes max_num_tokens (8,192): floor(8,192 / 5,000)
    = 1 prompt per rank, 8 in a replica's step; n / 1 steps per cycle, n sequences per rank."""
    dep = _qwen_ep8()
    s = T.serving_throughput(dep, prompt=5000, gen=500, host=NONE)
    n = s.concurrency // 8  # per rank
    chunk = float(step_of(dep, batch=8, prompt=5000).time_s)
    assert s.prefill_s == pytest.approx(n * chunk, rel=1e-12)
    # one step with a prompt on every rank is cheaper than eight steps of one prompt each
    # (the replica's prefill held one rank's budget before)
    assert chunk < 8 * float(step_of(dep, batch=1, prompt=5000).time_s)


def test_sglang_divides_its_chunk_among_the_ranks():
    """SGLang: chunked_prefill_size 8,192 // 8 ranks = 1,024 tokens per rank
    (_handle_data_parallelism): floor(1,024 / 1,000) = 1 prompt per rank."""
    dep = _qwen_ep8("sglang", hw="h200", max_batched_tokens=8192)
    assert dep.engine_model.rank_batched_tokens(dep.engine_config, 8) == 1024
    s = T.serving_throughput(dep, prompt=1000, gen=1000, host=NONE)
    n = s.concurrency // 8
    chunk = float(step_of(dep, batch=8, prompt=1000).time_s)
    assert s.prefill_s == pytest.approx(n * chunk, rel=1e-12)
    trt = _qwen_ep8(hw="h200")  # TensorRT-LLM: floor(8,192 / 1,000) = 8 prompts per rank
    assert trt.engine_model.rank_batched_tokens(trt.engine_config, 8) == 8192


def _bench():
    return load_script("bench/validation_throughput.py")


def test_trtllm_bench_settings_by_hand():
    """trtllm-bench's heuristic (bench/build/tuning.py) for Qwen3-235B-A22B FP8 on 8 H100s:
    235,093,634,560 params × 1 B; 8 × 85,029,027,840 B of device memory; a token's KV
    2 × 94 × max(8, 4) × 128 × 1 B = 192,512 B (at least one kv head per TP rank)."""
    vt = _bench()
    row = vt.Row("q", "qwen3-235b-a22b", "h100", 1, "fp8-tensor", "fp8", 128, 2048, 1, ep=8)
    # R = 0.9 × (680,232,222,720 − 235,093,634,560) / (192,512 × 2,176) = 956.4 requests:
    # batch 128 × ceil(956.4 / 128) = 1,024; tokens 956.4 × (1 + 128 / 2,048) = 1,016 → 2,048
    assert vt.bench_settings(row) == (1024, 2048)
    row = vt.Row("q", "qwen3-235b-a22b", "h100", 1, "fp8-tensor", "fp8", 5000, 500, 1, ep=8)
    # R = 400,624,729,344 / (192,512 × 5,500) = 378.4: batch 128 × 3 = 384; tokens 378.4 × 11
    # = 4,162 → 512 × 9 = 4,608; chunked prefill off: max(4,608, 5,000 + 384) = 5,384
    assert vt.bench_settings(row) == (384, 5384)
    row = vt.Row("l", "llama3.1-8b", "h100", 1, "fp8-tensor", "fp8", 128, 128, 1)
    # the cap: R ≫ 4,096 → batch 4,096; tokens 4,096 × 2 = 8,192
    assert vt.bench_settings(row) == (4096, 8192)


def test_silicon_records_stating_attention_dp_as_moe_tp_times_ep_read_as_their_twins():
    # issue 20 round 15: silicon_sample.csv's ..._tp8_ep8_1538 states tp 1, attention_dp 64,
    # moe_tp 8, moe_ep 8, concurrency 4; ..._tp8_0_ep8_0_1022 states tp 1, attention_dp 8,
    # moe_tp 1, moe_ep 8, concurrency 32; both measured TTFT 3,116.185 ms and TPOT 18.1819 ms.
    # Read alike: DP 64 / 8 = 8 ranks, EP 8 on 8 GPUs, the benchmark's 4 × 64 = 32 × 8 = 256
    vs = load_script("bench/validation_serving.py")
    rows = {r.id: r for r in vs.rows()}
    a = rows["2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_agg_1024x8192_c256_tp8_ep8_1538"]
    b = rows["2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_agg_1024x8192_c256_tp8_0_ep8_0_1022"]
    assert (a.tp, a.ep, a.concurrency) == (1, 8, 256)
    assert (b.tp, b.ep, b.concurrency) == (1, 8, 256)
    assert (a.ttft_s, a.tpot_s) == (b.ttft_s, b.tpot_s)
    assert (a.ttft_s, a.tpot_s) == pytest.approx((3.116185, 0.0181819))
    # gpt-oss-120b ..._tp2_ep2_1741: attention_dp 4 beside moe_tp 2 × moe_ep 2, concurrency
    # 64: DP 2 / EP 2 on 2 GPUs, 64 × 4 = 256 requests (its twin ..._1009: 128 × 2)
    g = next(r for k, r in rows.items() if k.endswith("_tp2_ep2_1741"))
    assert (g.tp, g.ep, g.concurrency) == (1, 2, 256)
