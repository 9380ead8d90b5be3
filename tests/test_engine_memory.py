"""Engine memory models (calc.deploy.engines): each formula against hand arithmetic from the
engine's source, and the composed pool against the engines' own printed start-up figures."""

from __future__ import annotations

import dataclasses
import math

import pytest

import calc.deploy.engines.sglang.memory as sg
import calc.deploy.engines.trtllm.memory as trt
import calc.deploy.engines.vllm.memory as vl
from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import engine
from calc.deploy.engines.shape import (
    checkpoint_weights_bytes_per_gpu,
    hybrid_group_size,
    hybrid_groups,
    kv_shape,
    usable_memory_bytes,
)
from calc.errors import InvalidInputError, UnknownNameError
from tests import reports as R

GIB = 2**30


def pool(model, hw="h100", *, engine_name="vllm", version=None, tp=1, pp=1, weight_dtype=None,
         ep=1, kv_dtype=None, **settings):  # fmt: skip
    """The start-up prediction of ``model`` on ``hw`` (the ledger's own)."""
    dep = Deployment.build(
        load_model(model), load_hardware(hw), tp=tp, pp=pp, ep=ep, weight_dtype=weight_dtype,
        kv_dtype=kv_dtype, engine=EngineSettings(name=engine_name, version=version, **settings),
    )  # fmt: skip
    return dep.per_gpu.prediction


def test_vllm_num_blocks_and_tokens_llama3_8b():
    # page = 16 tokens × 2 × 8 heads × 128 × 2 B = 65,536 B; one page per layer per block
    page = vl.page_size_bytes(16, 2 * 8 * 128 * 2)
    assert page == 65_536
    # 58 GiB // 65,536 // 32 layers = 62,277,025,792 // 2,097,152 = 29,696 blocks
    assert vl.num_blocks(58 * GIB, page, 32) == 29_696
    assert vl.pool_tokens(29_696, 1, 16) == 475_136  # 29,696 × 16
    assert vl.num_blocks(-1, page, 32) == 0  # nothing left: no blocks, never negative


def test_vllm_sliding_window_blocks_per_request_gemma2():
    # min(4096 − 1 + 8192, 8192) = 8192 tokens → 512 blocks, + 1 a window can straddle
    assert vl.sliding_window_blocks_per_request(4096, 8192, 8192, 16) == 513
    # a short max_model_len caps it: cdiv(1000, 16) + 1 = 64
    assert vl.sliding_window_blocks_per_request(4096, 8192, 1000, 16) == 64
    # 0.26+ under async scheduling: two batches in flight, min(4,095 + 16,384, 32,768) = 20,479
    # tokens → cdiv(20,479, 16) = 1,280 blocks + 1
    assert vl.sliding_window_blocks_per_request(4096, 2 * 8192, 32768, 16) == 1281


def test_hybrid_groups_gemma2_and_the_ratio():
    # 21 full + 21 sliding layers: groups of 21, two groups, 21 layer slots
    assert hybrid_group_size([21, 21], 1.5) == 21
    assert hybrid_groups([21, 21], 21) == 2
    # 5 full + 25 sliding (Gemma 3 style): groups of 5 → 1 + 5 groups
    assert hybrid_group_size([5, 25], 1.5) == 5
    assert hybrid_groups([5, 25], 5) == 6
    # 12 sliding + 16 full: 16 < 12 × 1.5 = 18 → one group size of 16 (vLLM 0.18+), but not
    # at 1.25 (16 ≥ 15: groups of 12, 0.12-0.17) nor with the smallest kind alone (0.10-0.11)
    assert hybrid_group_size([12, 16], 1.5) == 16
    assert hybrid_group_size([12, 16], 1.25) == 12
    assert hybrid_group_size([12, 16], None) == 12
    shape = kv_shape(load_model("gemma-2-9b"), 1, 1, 2.0)
    assert (shape.layer_slots, shape.n_groups, shape.window) == (21, 2, 4096)
    assert shape.bytes_per_token_per_layer == 8192  # 2 × 8 heads × 256 × 2 B


def test_vllm_sampler_and_moe_workspace():
    # 1,024 rows × 128,256 vocab × 14.5 B = 1,904,345,088 B (Llama 3 vocabulary, 0.17+)
    assert vl.sampler_activation_bytes(1024, 128_256, 14.5) == 1024 * 128_256 * 14.5
    # Mixtral at TP 2: 8192 tokens × top-2 × (max(2 × 7168, 4096) + 7168) × 2 B = 704,643,072
    assert vl.moe_workspace_bytes(8192, 2, 7168, 4096) == 704_643_072
    # resident 2 × 8192 × 4096 × 2 = 134,217,728 B plus the larger temporary
    peak = vl.activation_peak_bytes(8192, 4096, 3 * 14336, 1024, 128_256, 14.5)
    assert peak == 134_217_728 + max(8192 * 3 * 14336 * 2, 1024 * 128_256 * 14.5)


def test_vllm_non_torch_by_release_and_layout():
    # 0.19: 0.25 GiB at TP 1; 0.55 GiB + the FlashInfer all-reduce fusion workspace 1.52 GiB
    # at TP 2 on Hopper, PP 1 (2.07 GiB, the llm-d 0.19 logs); pipeline stages do not fuse
    assert pool("llama3-8b", version="0.19").non_torch_bytes == round(0.25 * GIB)
    assert pool("llama3-8b", version="0.19", tp=2).non_torch_bytes == round(0.55 * GIB) + round(
        1.52 * GIB
    )
    assert pool("llama3-8b", version="0.19", pp=2).non_torch_bytes == round(0.25 * GIB)
    # 0.11: no fusion by default, 0.13 GiB at TP 1 and 0.55 GiB at TP 2 (llm-d 0.11 figures)
    assert pool("llama3-8b", version="0.11.0").non_torch_bytes == round(0.13 * GIB)
    assert pool("llama3-8b", version="0.11.0", tp=2).non_torch_bytes == round(0.55 * GIB)


def test_vllm_non_torch_and_sampler_change_at_their_release():
    # llm-d-planner's version sweep, Qwen3-14B on an H100: non-torch 0.13 GiB under 0.15.0-
    # 0.17.0, 0.25 GiB under 0.18.0; the dummy sampler at 38 B per logit through 0.16.0
    # (torch peak 5.64 GiB = 2 × 8,192 × 5,120 × 2 + 1,024 × 151,936 × 38 = 5.66 GiB), 14.5 B
    # from 0.17.0's Triton top-k/top-p (2.23 GiB)
    rules = engine("vllm").rules
    assert rules("0.17.0").non_torch_tp1_bytes == round(0.13 * GIB)
    # 0.18.0: 0.13 GiB + the graph estimate's capture in the window, 0.25 - 0.13 = 0.12 GiB
    assert rules("0.18.0").non_torch_tp1_bytes == round(0.13 * GIB)
    assert rules("0.18.0").graph_capture_residue_bytes == round(0.25 * GIB) - round(0.13 * GIB)
    assert pool("qwen3-14b", version="0.18.0").non_torch_bytes == round(0.25 * GIB)
    assert rules("0.16.0").sampler_bytes_per_logit == 38.0
    assert rules("0.12.0").sampler_bytes_per_logit == 38.0
    assert rules("0.17.0").sampler_bytes_per_logit == 14.5
    p = pool("qwen3-14b", version="0.16.0", mem_util=0.95, max_model_len=8192)
    assert p.activation_bytes == 2 * 8192 * 5120 * 2 + 1024 * 151_936 * 38.0


def test_vllm_rope_table_counts_with_the_weights():
    from calc.deploy.engines.vllm.pool import rope_cache_positions

    # base.py: a positions × rotary_dim table in the model dtype, one per distinct RoPE
    assert vl.rope_cache_bytes(8192, 128) == 8192 * 128 * 2
    # Llama 4 Scout (llama3 scaling keeps max_position_embeddings): 10,485,760 × 128 × 2
    # = 2,684,354,560 B = 2.50 GiB, what its 0.19.0 TP 4 log's 53.12 GiB holds beyond the
    # checkpoint's 50.60 GiB
    assert rope_cache_positions(load_model("llama4-scout")) == 10_485_760
    scout = pool("llama4-scout", version="0.19.0", tp=4, mem_util=0.95, max_model_len=8192)
    assert scout.rope_table_bytes == 2_684_354_560
    # Gemma 3 12B, linear scaling × 8: 131,072 × 8 = 1,048,576 rows × 256 × 2 = 536,870,912 B
    assert rope_cache_positions(load_model("gemma-3-12b")) == 1_048_576
    # DeepSeek-V3, YaRN: original 4,096 × 40 = 163,840 rows of the 64-wide rotary part
    ds = pool("deepseek-v3", version="0.19.0", tp=8, hw="h200")
    assert ds.rope_table_bytes == 163_840 * 64 * 2
    # a measured 'Model loading took' already holds it: not subtracted twice
    dep = Deployment.build(load_model("llama4-scout"), load_hardware("h100"), tp=4,
                           engine=EngineSettings(version="0.19.0"))  # fmt: skip
    measured = dep.engine_model.kv_pool(dep, weights_bytes=53.12 * GIB)
    assert measured.rope_table_bytes == 0


def test_sglang_fractions_and_pool():
    assert [sg.fraction_by_tp(t) for t in (1, 2, 4, 8, 16)] == [0.88, 0.87, 0.85, 0.81, 0.79]
    # pre = 80 − 2 = 78 GiB free before the weights: (78 − 50) − 78 × (1 − 0.9) = 20.2 GiB
    rest = sg.rest_memory_bytes(80 * GIB, 0.9, 50 * GIB, 2 * GIB)
    assert rest == pytest.approx(20.2 * GIB)
    # 20 GiB // 48,128 B per token
    assert sg.max_total_num_tokens(20 * GIB, 48_128) == 20 * GIB // 48_128


def test_trtllm_max_tokens_rounds_up_to_a_block():
    # 860,308 tokens → cdiv(860,308, 32) = 26,885 blocks → 860,320 tokens (the log's figure)
    assert trt.capped_tokens(10**7, 860_308, 32) == 860_320
    assert trt.capped_tokens(1000, 860_308, 32) == 1000  # the fraction is smaller
    assert trt.capped_tokens(1000, None, 32) == 1000


def test_settings_defaults_and_overrides():
    vllm = engine("vllm")
    s = vllm.config(EngineSettings(), None)  # the newest release, no GPU: a large GPU's batch
    assert (s.version, s.memory_fraction, s.block_size, s.max_batched_tokens, s.max_num_seqs) \
        == ("0.33.0", 0.92, 16, 8192, 1024)  # fmt: skip
    s = vllm.config(EngineSettings(version="0.19"), None)
    assert (s.version, s.memory_fraction) == ("0.19.1", 0.9)
    assert vllm.config(EngineSettings(mem_util=0.95), None).memory_fraction == 0.95
    assert engine("sglang").config(EngineSettings(name="sglang"), None).memory_fraction is None
    with pytest.raises(UnknownNameError, match="unknown engine 'vlm'"):
        engine("vlm")
    with pytest.raises(InvalidInputError, match="--engine 'vlm' is not one of"):
        EngineSettings(name="vlm")


def test_usable_memory_prefers_the_profile():
    hw = load_hardware("h100")
    # torch's total of an H100 80GB: 81,090 MiB × 1,048,576 = 85,029,027,840 B (79.19 GiB)
    assert usable_memory_bytes(hw) == 85_029_027_840
    # B200: 182,642 MiB × 1,048,576 = 191,514,017,792 B
    assert usable_memory_bytes(load_hardware("b200")) == 191_514_017_792


def test_fp8_checkpoint_keeps_vocab_tables_in_16_bit():
    cfg = load_model("llama3-8b")
    bf16 = checkpoint_weights_bytes_per_gpu(cfg, 1, 1, "bf16")
    assert bf16 == 8_030_261_248 * 2  # model card 8.03B parameters × 2 B
    fp8 = checkpoint_weights_bytes_per_gpu(cfg, 1, 1, "fp8-tensor")
    tables = 2 * 128_256 * 4096  # embedding + lm_head, untied: 1,050,673,152
    norms = 65 * 4096  # (32 layers × 2 + final) RMSNorm weights: 266,240
    # the linear layers at 1 B, plus 1 B more for each vocabulary-table and norm element kept
    # in bf16 (the per-tensor scales' 4 B each are left out of the per-element rate)
    assert fp8 == 8_030_261_248 + tables + norms


def test_predict_llama31_8b_tp1_matches_the_vllm_019_log():
    # vLLM 0.19.0, H100, util 0.95, max_model_len 8192: "GPU KV cache size: 476,016 tokens"
    p = pool("llama3-8b", version="0.19.0", mem_util=0.95, max_model_len=8192)
    assert p.tokens == pytest.approx(476_016, rel=0.003)
    assert p.max_concurrency == pytest.approx(58.11, rel=0.003)
    assert p.num_blocks * 16 == p.tokens
    assert p.cuda_graph_bytes == 0  # 0.19 captures its graphs after the pool
    assert set(p.sources) >= {"activation", "non_torch", "budget", "blocks", "tokens"}


def test_vllm_0_33_takes_the_cuda_graph_estimate_from_the_budget():
    p19 = pool("llama3-8b", version="0.19.1", mem_util=0.95, max_model_len=8192)
    p33 = pool("llama3-8b", version="0.33.0", mem_util=0.95, max_model_len=8192)
    # capture sizes with max_num_seqs 1,024: 1, 2, 4, 8..248 (31), 256..512 by 16 (17) = 51
    # piecewise and 51 full graphs; on an H100 the first FULL capture (FlashAttention 3's
    # split buffer 32 × 32 × 512 × 129 × 4 B = 258.0 MiB + its graph, 0.17 MiB × 32) is the
    # larger first capture, then 50 × (0.070 + 0.17) MiB × 32 layers (0.29+: the V2 runner
    # measures every PIECEWISE graph, 73,393 B per graph per layer; FULL still 0.17 MiB):
    # 270,532,608 + 5,704,256 + 50 × (2,348,576 + 5,704,256) = 678,878,464 B
    per_pw, per_full = 73_393 * 32, round(0.17 * 2**20) * 32
    expected = 32 * 32 * 512 * 129 * 4 + per_full + 50 * (per_pw + per_full)
    assert p33.cuda_graph_bytes == expected == 678_878_464
    # and the V2 runner's consumed memory: its penalty state, 1,024 requests × (128,256 +
    # ceil(128,256 / 32) = 4,008) × 4 B = 541,753,344 B, beside a non-torch of 129,465,876 B
    # in place of 0.19's 0.25 GiB = 268,435,456 B
    non_torch = 129_465_876 + 1024 * (128_256 + 4_008) * 4 - 268_435_456
    assert p19.kv_budget_bytes - p33.kv_budget_bytes == pytest.approx(expected + non_torch, abs=1)


def test_vllm_printed_tokens_by_release():
    # to 0.20 'GPU KV cache size' is blocks × block_size; from 0.21 (kv_cache_utils.py
    # _report_kv_cache_config) it is int(num_blocks / cdiv(max_model_len, 16) ×
    # max_model_len): at max_model_len 1,000 a request takes cdiv(1000, 16) = 63 blocks, so
    # the printed figure is blocks × 1000/63 = blocks × 15.873 where the pool holds blocks × 16
    for version in ("0.20.0", "0.21.0", "0.33.0"):
        p = pool("llama3-8b", version=version, mem_util=0.95, max_model_len=1000)
        assert p.tokens == p.num_blocks * 16
        assert p.max_concurrency == p.num_blocks / 63
        if version == "0.20.0":
            assert p.engine_printed_tokens is None and p.printed_tokens == p.tokens
        else:
            assert p.printed_tokens == int(p.num_blocks / 63 * 1000)
            assert p.printed_tokens < p.tokens
            assert (p.tokens - p.printed_tokens) / p.tokens == pytest.approx(1 - 1000 / 1008,
                                                                             abs=1e-4)
            assert any(f.key == "printed_tokens" for f in p.figures)
    # max_model_len a multiple of the block size: the two agree (8,192 / 16 = 512 blocks)
    p = pool("llama3-8b", version="0.33.0", mem_util=0.95, max_model_len=8192)
    assert p.printed_tokens == int(p.num_blocks / 512 * 8192) == p.num_blocks * 16


def test_predict_gemma2_hybrid_tokens_divide_by_groups():
    p = pool("gemma-2-9b", version="0.19", mem_util=0.95, max_model_len=8192)
    assert p.tokens == p.num_blocks // 2 * 16
    assert p.max_concurrency == pytest.approx(p.num_blocks / (512 + 513))
    # 0.26+: async scheduling keeps two batches in flight; the sliding group's reserve is
    # capped by max_model_len 8,192 here, so a request still takes 512 + 513 blocks
    p = pool("gemma-2-9b", version="0.33", mem_util=0.95, max_model_len=32768)
    # min(4,095 + 2 × 8,192, 32,768) = 20,479 → 1,280 + 1 sliding blocks + 2,048 full blocks
    assert p.max_concurrency == pytest.approx(p.num_blocks / (2048 + 1281))


def test_mla_block_size_by_release_and_gpu():
    # until 0.17 check_and_update_config forces FlashMLA's 64-token blocks on Hopper; on
    # Blackwell nothing in 0.10.0, CUTLASS MLA's 128 from 0.10.1, FlashInfer MLA's 64 from 0.15
    # (DeepSeek-V3's qk_nope_head_dim is 128)
    assert pool("deepseek-v3", "h200", version="0.11.1", tp=8).block_size == 64
    assert pool("deepseek-v3", "h200", version="0.17.0", tp=8).block_size == 64
    assert pool("deepseek-v3", "b200", version="0.10.0", tp=8).block_size == 16
    assert pool("deepseek-v3", "b200", version="0.11.0", tp=8).block_size == 128
    assert pool("deepseek-v3", "b200", version="0.15.0", tp=8).block_size == 64
    # from 0.18 the first backend by priority gives its preferred block: FLASH_ATTN_MLA
    # (multiples of 16: the default 16) on Hopper, FlashMLA's 64 with an fp8 KV cache (FA MLA
    # takes 16-bit caches only); FlashInfer MLA's smallest, 32, on Blackwell
    assert pool("deepseek-v3", "h200", version="0.19", tp=8).block_size == 16
    assert pool("deepseek-v3", "b200", version="0.33", tp=8).block_size == 32
    dep = Deployment.build(load_model("deepseek-v3"), load_hardware("h200"), tp=8, kv_dtype="fp8",
                           engine=EngineSettings(version="0.33"))  # fmt: skip
    assert dep.per_gpu.prediction.block_size == 64
    # a block the user set is kept
    assert pool("deepseek-v3", "b200", version="0.33", tp=8, block_size=64).block_size == 64


def test_sglang_does_not_subtract_activations():
    p = pool("llama3-8b", engine_name="sglang", version="0.4", tp=2)
    assert p.activation_bytes == 0 and p.memory_fraction == 0.87


def test_sglang_auto_fraction_from_its_reserve():
    rules = engine("sglang").rules("0.5.4")
    # H100 (nvidia-smi 81,559 MiB), the 60-90 GiB bucket: chunked_prefill_size 8,192 and the
    # decode graphs' max batch 256 below TP 4, 512 from TP 4
    assert sg.bucket_defaults(rules.buckets, 81_559, 2) == (8192, 256)
    assert sg.bucket_defaults(rules.buckets, 81_559, 8) == (8192, 512)
    assert sg.bucket_defaults(rules.buckets, 183_359, 8) == (16384, 512)  # B200 bucket
    # reserved = 512 + 1.5 × 8,192 + 2 × 256 + 1,024 × 2 × 1 / 8 = 13,568 MiB
    assert sg.reserved_memory_mib(81_559, 8192, 256, 2, 1) == 13_568
    # a small GPU: 512 + 1.5 × 2,048 + 2 × 8 + 128 = 3,728 MiB (no 10 GiB floor below 60 GiB)
    assert sg.reserved_memory_mib(16_000, 2048, 8, 1, 1) == 3_728
    # (81,559 − 13,568) / 81,559 = 0.83364 → 0.834
    assert sg.fraction_from_reserve(81_559, 13_568) == 0.834
    p = pool("llama3-8b", engine_name="sglang", version="0.5.4", tp=2)
    assert (p.version, p.memory_fraction) == ("0.5.4", 0.834)


def test_sglang_pre_load_memory_by_interconnect():
    # SGLang's baseline is the free memory after its parallel groups are built (0.5.23
    # distributed/bootstrap.py), the CUDA context in use: TP 1 0.38 GiB (the 0.4.1 H100 training
    # log: 79.19 − 78.81 'Load weight begin. avail mem', nothing allocated between); a TP group
    # inside an NVLink domain (HGX H100: 8 GPUs) the NCCL communicator and custom all-reduce too,
    # 1.88 GiB (the 4 × H100 Qwen3-235B FP8 training log: (79.19 − x) × 0.93 − 55.43 = 16.47
    # GiB, the weights with 0.29 GiB of allocator segment tails and the RoPE table); PCIe-only
    # cards (RTX 4090: a domain of 1) no custom all-reduce above two GPUs, 0.77
    # GiB (the 4 × RTX 5090 training record: (31.36 − x) × 0.88 − 15.50 = 11.42 GiB, x = 0.77)
    assert pool("llama3-8b", engine_name="sglang", version="0.4.1").non_torch_bytes == round(
        0.38 * GIB)  # fmt: skip
    # from 0.5.3 (torch 2.8 and later pinned) 0.71 GiB at TP 1: the 0.5.x H100 training log
    # sglang-h100-qwen3-30b-a3b-fp8-tsk043, 79.19 − 78.48 'Load weight begin. avail mem'
    assert pool("llama3-8b", engine_name="sglang", version="0.5.23").non_torch_bytes == round(
        0.71 * GIB)  # fmt: skip
    assert pool("llama3-8b", engine_name="sglang", version="0.5.23",
                tp=4).non_torch_bytes == round(1.88 * GIB)  # fmt: skip
    on_pcie = pool("llama3-8b", "rtx-4090", engine_name="sglang", version="0.5.23", tp=4)
    assert on_pcie.non_torch_bytes == round(0.77 * GIB)
    assert pool("llama3-8b", "rtx-4090", engine_name="sglang",
                version="0.5.23").non_torch_bytes == round(0.71 * GIB)  # fmt: skip


def test_sglang_tp1_pre_load_memory_by_release():
    # 0.4.0-0.4.10 keep 0.4.1's 0.38 GiB; 0.5.3 (the first release pinning torch 2.8) on 0.71
    from calc.deploy.engines.sglang.rules import VERSIONS

    assert VERSIONS.rules("0.4.10").non_torch_tp1_bytes == round(0.38 * GIB)
    assert VERSIONS.rules("0.5.3").non_torch_tp1_bytes == round(0.71 * GIB)
    assert VERSIONS.rules("0.5.23").non_torch_tp1_bytes == round(0.71 * GIB)
    # TP > 1: 1.88 GiB over NVLink (2.20 before the allocator's segment tails were modelled),
    # 0.77 on PCIe-only cards, both from 0.5.x records
    assert VERSIONS.rules("0.5.3").non_torch_tp_bytes == round(1.88 * GIB)
    assert VERSIONS.rules("0.5.3").non_torch_pcie_tp_bytes == round(0.77 * GIB)
    # the training record's pool, by hand, with the log's own weight load (29.15 GiB, which
    # holds the RoPE table, so none is charged beside it): (85,029,027,840 B / 2^30 = 79.19 −
    # 0.71) × 0.83 − 29.15 = 65.14 − 29.15 = 35.99 GiB; the log's pool 392,920 tokens ×
    # 98,304 B (48 layers × 2 × 4 heads × 128 × 2 B) = 35.97 GiB
    dep = Deployment.build(load_model("qwen3-30b-a3b"), load_hardware("h100"),
                           engine=EngineSettings(name="sglang", version="0.5.18",
                                                 mem_util=0.83))  # fmt: skip
    p = dep.engine_model.kv_pool(dep, weights_bytes=29.15 * GIB)
    assert p.kv_budget_bytes / GIB == pytest.approx(35.97, abs=0.02)


def test_sglang_rope_table_fp32_on_cuda_from_0_4_3():
    # Llama 3.1 8B (llama3 scaling keeps max_position_embeddings 131,072 rows × head_dim 128):
    # 0.4.1 builds it with vLLM's get_rope in bf16, 131,072 × 128 × 2 = 33,554,432 B; from 0.4.3
    # SGLang keeps it FP32 on CUDA, × 4 = 67,108,864 B
    assert pool("llama3.1-8b", engine_name="sglang", version="0.4.1").rope_table_bytes \
        == 33_554_432  # fmt: skip
    new = pool("llama3.1-8b", engine_name="sglang", version="0.5.23")
    assert new.rope_table_bytes == 67_108_864
    # it is charged before the pool: (79.19 GiB usable − non-torch) × fraction − weights − rope
    assert new.kv_budget_bytes == pytest.approx(
        (new.usable_memory_bytes - new.non_torch_bytes) * new.memory_fraction
        - new.weights_bytes - 67_108_864)  # fmt: skip
    # DeepSeek-V3 (YaRN: original 4,096 × 40 = 163,840 rows of the 64-wide rotary part), FP32
    ds = pool("deepseek-v3", "h200", engine_name="sglang", version="0.5.14", tp=8)
    assert ds.rope_table_bytes == 163_840 * 64 * 4
    # on ROCm the table is cast to the model dtype until 0.5.23 (HIP keeps FP32 from then)
    assert pool("llama3.1-8b", "mi300x", engine_name="sglang",
                version="0.5.19").rope_table_bytes == 33_554_432  # fmt: skip
    assert pool("llama3.1-8b", "mi300x", engine_name="sglang",
                version="0.5.23").rope_table_bytes == 67_108_864  # fmt: skip
    # --dtype float32 builds the model in FP32: 0.4.1's cast table is 131,072 × 128 × 4 B too
    assert pool("llama3.1-8b", engine_name="sglang", version="0.4.1",
                weight_dtype="fp32").rope_table_bytes == 67_108_864  # fmt: skip
    # a measured weight load ('Load weight end. mem usage') already holds it: not charged twice
    dep = Deployment.build(load_model("llama3.1-8b"), load_hardware("h100"),
                           engine=EngineSettings(name="sglang", version="0.5.23"))  # fmt: skip
    assert dep.engine_model.kv_pool(dep, weights_bytes=15 * GIB).rope_table_bytes == 0


def test_sglang_dp_attention_reserve_and_its_tp_group():
    # --tp 8 --dp 8 --enable-dp-attention on a B200 (183,359 MiB, chunk 16,384, max_bs 512):
    # 512 + 1.5 × 16,384 + 2 × 512 + 1,024 × 8 / 8 + 512 × 8 × (3 + 1.5: max_bs above 300)
    # = 512 + 24,576 + 1,024 + 1,024 + 18,432 = 45,568 MiB (server_args.py, from 0.5.3)
    assert sg.reserved_memory_mib(183_359, 16384, 512, 8, 1, dp_attention=8) == 45_568
    # kvcalc's tp 1 × ep 8 is SGLang's tp_size 8 with 8 attention-DP ranks: the reserve above,
    # (183,359 − 45,568) / 183,359 = 0.7515 → 0.751 (0.5.4), and the TP group's non-torch
    p = pool("deepseek-v3", "b200", engine_name="sglang", version="0.5.4", ep=8, kv_dtype="fp8")
    assert p.memory_fraction == 0.751 and p.non_torch_bytes == round(1.88 * GIB)
    # 0.5.3 serves DeepSeek's sparse attention (NSA) at a fixed 0.8 (server_args.py)
    assert pool("deepseek-v3.2", "b200", engine_name="sglang", version="0.5.3", ep=8,
                kv_dtype="fp8").memory_fraction == 0.8  # fmt: skip


def test_sglang_rtx_4090_buckets_by_release():
    # RTX 4090: 24,215 MiB as torch reports it (the profile), below 35 GiB
    gpu = usable_memory_bytes(load_hardware("rtx-4090")) / 2**20
    old = engine("sglang").rules("0.5.4").buckets
    new = engine("sglang").rules("0.5.23").buckets
    assert sg.bucket_defaults(old, gpu, 1) == (2048, 16)
    assert sg.bucket_defaults(new, gpu, 1) == (4096, 48)
    # 0.5.20's bucket without prefill graphs: 512 + 1.5 × 4,096 + 2 × 48 + 128 = 6,880 MiB;
    # (24,215 − 6,880) / 24,215 = 0.716 (0.720 on a card nvidia-smi shows as 24,564 MiB)
    assert sg.fraction_from_reserve(24_564, 6_880) == 0.72
    # but from 0.5.10 prefill graphs are on by default (breakable from 0.5.15): 50 sizes up
    # to 4,096 tokens × 8 MiB = 400 MiB more; (24,207 − 7,280) / 24,207 = 0.6993 → 0.699
    assert len(sg.prefill_graph_sizes(4096)) == 50
    for release in ("0.5.21", "0.5.23"):
        p = pool("llama3-8b", "rtx-4090", engine_name="sglang", version=release,
                 max_model_len=4096)  # fmt: skip
        assert p.memory_fraction == sg.fraction_from_reserve(gpu, 6_880 + 400) == 0.699


def test_vllm_batch_defaults_depend_on_the_gpu_and_release():
    vllm = engine("vllm")
    s = vllm.config(EngineSettings(), load_hardware("h100"))
    assert (s.max_batched_tokens, s.max_num_seqs) == (8192, 1024)
    # A100 80GB is excluded by name (vLLM PR #17885); L40S has 48 GB: 2048 / 256
    for gpu in ("a100-80g", "l40s"):
        s = vllm.config(EngineSettings(), load_hardware(gpu))
        assert (s.max_batched_tokens, s.max_num_seqs) == (2048, 256)
    # B200 (178.36 GiB >= 160 GiB): 16,384 from 0.28, 8,192 before
    b200 = load_hardware("b200")
    assert vllm.config(EngineSettings(), b200).max_batched_tokens == 16384
    assert vllm.config(EngineSettings(version="0.27"), b200).max_batched_tokens == 8192
    # an explicit setting wins over the GPU default
    s = vllm.config(EngineSettings(max_batched_tokens=4096), load_hardware("l40s"))
    assert s.max_batched_tokens == 4096


def test_vllm_mamba_hybrid_raises_the_attention_block():
    # Jamba v0.1 at TP 2: a Mamba-1 layer keeps (d_conv − 1) × d_inner/tp conv state plus
    # d_inner/tp × d_state SSM state: 3 × 4096 + 4096 × 16 = 77,824 elements × 2 B = 155,648 B;
    # attention: 4 KV heads × (128 + 128) × 2 B = 2,048 B per token per layer
    shape = kv_shape(load_model("jamba-v0.1"), 2, 1, 2.0)
    assert shape.mamba_state_bytes_per_layer == 155_648
    assert shape.bytes_per_token_per_layer == 2048
    # 16 × cdiv(155,648, 16 × 2,048) = 16 × 5 = 80 tokens per block
    assert vl.mamba_attention_block_size(16, 155_648, 2048) == 80
    # 4 attention + 28 Mamba layers: groups of 4 layers, 1 attention + 7 Mamba groups
    assert (shape.layer_slots, shape.full_groups, shape.mamba_groups) == (4, 1, 7)
    p = pool("jamba-v0.1", "h200", tp=2, max_model_len=8192)
    assert p.block_size == 80
    assert p.tokens == p.num_blocks // 8 * 80
    # one request: cdiv(8192, 80) = 103 attention blocks + 7 Mamba pages
    assert p.max_concurrency == pytest.approx(p.num_blocks / (103 + 7))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"mem_util": 1.5}, "--mem-util"),
        ({"block_size": 0}, "--block-size"),
        ({"max_tokens": 0}, "--max-tokens"),
    ],
)
def test_bad_settings_are_one_clear_error(settings, message):
    with pytest.raises(InvalidInputError, match=message):
        EngineSettings(**settings)


@pytest.mark.parametrize("engine_name", ["vllm", "sglang", "trtllm"])
@pytest.mark.parametrize("model", ["llama3-8b", "gemma-2-9b", "mixtral-8x7b", "jamba-v0.1"])
def test_explain_lines_evaluate_to_their_value(engine_name, model):
    """Each derivation's substituted arithmetic, evaluated, gives the reported figure."""
    import re

    kw = {"max_tokens": 50_000} if engine_name == "trtllm" else {}
    p = pool(model, "h200", engine_name=engine_name, tp=2, **kw)
    assert p.figures
    for f in p.figures:
        text = f.substituted.replace("×", "*").replace("−", "-")
        text = re.sub(r"\d{1,3}(?:,\d{3})+", lambda m: m.group(0).replace(",", ""), text)
        value = eval(text, {"__builtins__": {}, "max": max, "min": min, "floor": math.floor})
        assert value == pytest.approx(f.value, rel=1e-3), f.line()


def test_sglang_hybrid_swa_pool_splits_tokens_by_the_ratio():
    # Gemma 2 9B: 21 sliding + 21 full layers; a pool of 167,917 tokens over all 42 layers is
    # 167,917 × 42 = 7,052,514 token-layers; full = int(7,052,514 / (0.8 × 21 + 21 = 37.8))
    # = 186,574; sliding = int(186,574 × 0.8) = 149,259
    assert sg.swa_pool_tokens(167_917, 42, 21, 21, 0.8) == (186_574, 149_259)
    # through capacity (SGLang at 0.9): budget (85,029,027,840 − 762,356,695 non-torch, 0.71
    # GiB at TP 1 from 0.5.3) × 0.9 − 18,483,411,968 B of weights − 8,388,608 B of FP32 RoPE
    # table (8,192 × 256 × 4) − 13,468,672 B of allocator segment tails = 57,334,734,782 B
    # (floored) // 344,064 B per token (42 layers × 2 × 8 heads × 256 × 2 B) = 166,639 tokens
    # → 6,998,838 token-layers / 37.8 = the full layers' 185,154. The tails: the RoPE table's
    # temporaries (freqs, cos, sin: 8,192 × 128 × 4 B = 4 MiB each) and the 8 MiB table share
    # one 20 MiB segment (requests under 10 MiB), the table outliving them: 12 MiB; the 169 norms
    # (4 a layer × 42 + 1, 3,584 × 2 B each) fill 1,211,392 B of a 2 MiB small segment: 885,760
    # B; every other tensor is a whole number of 2 MiB (embedding 1,750 MiB, QKV 56, o 28,
    # gate/up 196, down 98): 12,582,912 + 885,760 = 13,468,672 B
    f = R.capacity(load_model("gemma-2-9b"), load_hardware("h100"), ctx=8192, engine="sglang",
                   mem_util=0.9).fields  # fmt: skip
    assert f["kv_budget_bytes"] == 57_334_734_782
    assert f["kv_cache_tokens"] == 185_154


def test_a_float_dtype_casts_every_component():
    # vLLM/SGLang build the model in --dtype: float32 upcasts the bf16 embeddings and lm_head
    # too ("Upcasting torch.bfloat16 to torch.float32"): 8,030,261,248 params × 4 B
    p = pool("llama3-8b", version="0.19", weight_dtype="fp32")
    assert p.weights_bytes == 8_030_261_248 * 4
    # the checkpoint's own dtype: as released (2 B a parameter)
    assert pool("llama3-8b", version="0.19", weight_dtype="bf16").weights_bytes == (
        8_030_261_248 * 2
    )


def test_gpt_oss_mxfp4_experts_as_vllm_loads_them():
    # gpt-oss-120b: 36 layers × 128 experts, hidden 2,880, expert width 2,880. The checkpoint:
    # 3 × 2,880 × 2,880 = 24,883,200 fp4 values per expert (0.5 B + one scale byte per 32 =
    # 0.53125 B each, biases counted the same: kvcalc's 60.71 GiB in all).
    # vLLM 0.11 on an H100 (the Triton backend): widths padded to 64 (2,880 already is), the
    # biases turned fp32 (2 × 2,880 + 2,880 = 8,640 of them, 4 B each) and the swizzled copy
    # of the scales kept beside the checkpoint's (rows padded to 256: 5,888 × 2,880 / 32 +
    # 3,072 × 2,880 / 32 = 806,400 B per expert):
    per_expert = 24_883_200 * 0.53125 + 8_640 * 4 + 806_400
    assert vl.mxfp4_experts_loaded_bytes(36, 128, 2880, 2880, 1, 64, 4, True) == pytest.approx(
        36 * 128 * per_expert
    )
    old = pool("gpt-oss-120b", version="0.11.0")
    # 60.71 GiB + 4,608 × (8,640 × (4 − 0.53125) + 806,400) B = 64.30 GiB (llm-d printed 64.38)
    assert old.weights_bytes / GIB == pytest.approx(64.303, abs=1e-3)
    # from 0.25 the checkpoint's scales are freed: the fp32 biases alone (60.84 GiB)
    assert pool("gpt-oss-120b", version="0.33.0").weights_bytes / GIB == pytest.approx(
        (65_190_340_224 + 4_608 * 8_640 * (4 - 0.53125)) / GIB
    )
    # on Blackwell (FlashInfer) 0.33 pads the expert width to 128 and the hidden size to 256:
    # 3 × 3,072 × 2,944 × 0.53125 + (2 × 2,944 + 3,072) × 2 B per expert
    b200 = pool("gpt-oss-120b", "b200", version="0.33.0").weights_bytes
    experts = 4_608 * (3 * 3072 * 2944 * 0.53125 + (2 * 2944 + 3072) * 2)
    assert b200 == pytest.approx(65_190_340_224 - 4_608 * 24_891_840 * 0.53125 + experts)
    # the MXFP4 kernels hold no fused-MoE workspace: the profiling peak is the hidden states
    # (2 × 8,192 × 2,880 × 2 B) and the sampler (1,024 rows × 201,088 × 38 B), 7.47 GiB
    assert old.activation_bytes == 2 * 8192 * 2880 * 2 + 1024 * 201_088 * 38.0


def test_meta_405b_fp8_keeps_attention_and_the_end_layers_in_bf16():
    # Meta's FP8 release (fbgemm_fp8; transformers' conversion script: "we don't quantize the
    # first and last layers as well as the lm_head. Also, we don't quantize the self_attn
    # layers"). Per GPU at TP 8:
    # embedding + lm_head 2 × 128,256 × 16,384 / 8 × 2 B         =  1,050,673,152
    # attention 126 × (2 × 16,384² + 2 × 16,384 × 1,024) / 8 × 2 B = 17,968,398,336
    # MLPs 126 × 3 × 16,384 × 53,248 / 8 = 41,221,619,712 params, 124 layers fp8 (1 B), 2 in
    #   bf16: × (124 + 2 × 2) / 126                                = 41,875,931,136
    # norms (2 × 126 + 1) × 16,384 × 2 B                           =      8,290,304
    # in all 60,903,292,928 B (56.72 GiB; every linear layer in fp8 would be 51.2 GB)
    import json

    from calc.data.hf_import import load_hf_config
    from calc.deploy.engines.fromlog import shipped_model_for

    p = pool("llama3.1-405b-fp8", tp=8, version="0.33.0")
    assert p.weights_bytes == 60_903_292_928
    assert shipped_model_for("meta-llama/Llama-3.1-405B-Instruct-FP8") == "llama3.1-405b-fp8"
    # the same layout from a config.json with the quantization block transformers writes
    excluded = ["model.layers.0", "model.layers.125", "lm_head"] + [
        f"model.layers.{i}.self_attn" for i in range(1, 125)
    ]
    config = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 16384,
        "intermediate_size": 53248, "num_attention_heads": 128, "num_hidden_layers": 126,
        "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
        "rms_norm_eps": 1e-5, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
        "rope_scaling": {"factor": 8.0, "original_max_position_embeddings": 8192,
                         "rope_type": "llama3", "low_freq_factor": 1.0, "high_freq_factor": 4.0},
        "quantization_config": {"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0,
                                "modules_to_not_convert": excluded},
    }  # fmt: skip
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "config.json"
        path.write_text(json.dumps(config))
        imported = load_hf_config(path, source="https://huggingface.co/x/y")
    dep = Deployment.build(imported, load_hardware("h100"), tp=8)
    assert dep.weights_bytes_per_gpu == 60_903_292_928


def test_trtllm_all_reduce_workspace_by_release():
    # CustomAllReduceHelper.allocate_allreduce_fusion_workspace: IPC buffers of size × TP,
    # Lamport buffers of 3 × size × TP, barriers of 256 × TP bytes on each GPU
    # 1.0.0: max_workspace_size_auto 16,000,000 B at TP <= 2: 4 × 16e6 × 2 + 512 = 128,000,512 B
    assert trt.allreduce_workspace_bytes(16_000_000, 2) == 128_000_512
    # ... 8,000,000 B above: TP 8: 4 × 8e6 × 8 + 2,048 = 256,002,048 B
    assert trt.allreduce_workspace_bytes(8_000_000, 8) == 256_002_048
    assert trt.allreduce_workspace_bytes(8_000_000, 1) == 0
    # the pool's non-torch term: TP 1 0.25 GiB; TP > 1 the context and NCCL communicator
    # (2.07 GiB, SGLang's pre-load figure) and the workspace: 1.0.0 TP 8 = 2.07 GiB +
    # 256,002,048 B
    nt = pool("llama3-8b", engine_name="trtllm", version="1.0.0", tp=8).non_torch_bytes
    assert nt == round(2.07 * GIB) + 256_002_048
    assert pool("llama3-8b", engine_name="trtllm", version="1.0.0").non_torch_bytes == round(
        0.25 * GIB)  # fmt: skip
    # 1.2.0: 64 MiB at every TP: TP 8 = 4 × 67,108,864 × 8 + 2,048 = 2 GiB + 2,048 B
    nt = pool("llama3-8b", engine_name="trtllm", version="1.2.0", tp=8).non_torch_bytes
    assert nt == round(2.07 * GIB) + 2 * GIB + 2_048
    # attention DP + EP: TensorRT-LLM's tp_size is the whole group (kvcalc tp 1 × ep 8 = 8)
    dsv3 = pool("deepseek-v3", "b200", engine_name="trtllm", version="1.0.0", ep=8)
    assert dsv3.non_torch_bytes == round(2.07 * GIB) + 256_002_048


def test_trtllm_pages_sparse_attention_64_tokens():
    # DeepSeek-V3.2's sparse attention (DSA) runs 64-token KV blocks in TensorRT-LLM (its
    # indexer's cache), the 32-token default raised; the command states it in the YAML
    from calc.reports.launch_flags import launch_commands

    p = pool("deepseek-v3.2", "b200", engine_name="trtllm", tp=8)
    assert p.block_size == 64 and p.tokens % 64 == 0
    assert pool("deepseek-v3", "b200", engine_name="trtllm", tp=8).block_size == 32
    dep = Deployment.build(load_model("deepseek-v3.2"), load_hardware("b200"), tp=8,
                           engine=EngineSettings(name="trtllm", max_model_len=4096))  # fmt: skip
    (c,) = launch_commands(dep)
    assert "tokens_per_block: 64" in dict(c.files)["extra-llm-api-config.yaml"]


def test_vllm_cuda_graph_capture_sizes_by_release_and_gpu():
    # _set_cudagraph_sizes: 1, 2, 4, steps of 8 below 256, steps of 16 to min(ceiling,
    # 2 × max_num_seqs, max_num_batched_tokens): 3 + 31 + 17 = 51 sizes to 512
    assert len(vl.cudagraph_capture_sizes(1024, 512, 8192)) == 51
    # the ceiling is 1,024 on data-center Blackwell from 0.28: 3 + 31 + 49 = 83 sizes
    assert len(vl.cudagraph_capture_sizes(1024, 1024, 16384)) == 83
    # a small max_num_batched_tokens caps them, and is captured itself: 1, 2, 4, 8, …, 96, 100
    assert vl.cudagraph_capture_sizes(256, 512, 100)[-2:] == [96, 100]
    # from 0.31 max_num_seqs gets its own graph when within the ceiling: 45 sequences cap the
    # grid at 2 × 45 = 90 (1, 2, 4, 8, …, 80, 88) and add 45 to it
    assert vl.cudagraph_capture_sizes(45, 512, 8192, add_max_seqs=True)[-2:] == [80, 88]
    assert 45 in vl.cudagraph_capture_sizes(45, 512, 8192, add_max_seqs=True)
    assert 45 not in vl.cudagraph_capture_sizes(45, 512, 8192)
    # each further graph costs at least 1 MiB (profile_cudagraph_memory's floor): 2 layers ×
    # 0.1 MiB < 1 MiB
    assert vl.per_graph_bytes(0.1 * 2**20, 2) == 2**20
    assert vl.per_graph_bytes(0.2 * 2**20, 32) == 6.4 * 2**20
    # max(first PIECEWISE, first FULL) + (n − 1) × per-graph per mode: the larger first capture
    # (FULL, 300) and (3 − 1) × 10 + (2 − 1) × 7 further
    assert vl.cudagraph_estimate_bytes(3, 2, 200, 300, 10, 7) == 300 + 20 + 7
    # no FULL graph: its first capture does not count
    assert vl.cudagraph_estimate_bytes(3, 0, 200, 300, 10, 7) == 200 + 20


def test_vllm_cuda_graph_first_captures_from_the_source():
    # FlashAttention 3's split accumulators (flash_attn.py, 32 splits for graphs), Llama 3.1 8B
    # at TP 1 (32 query heads of 128) and 512 tokens: 32 × 32 × 512 × (128 + 1) × 4 B
    # = 270,532,608 B = 258.0 MiB; the 0.19.0 log prints 260.00 MiB first-capture (FULL)
    split = vl.fa3_split_buffer_bytes(512, 32, 128, 32)
    assert split == 32 * 32 * 512 * 129 * 4 == 270_532_608
    # DeepSeek-V2-Lite's MLA on FLASH_ATTN_MLA: 16 heads, the 512-wide latent as value:
    # 32 × 16 × 512 × 513 × 4 = 537,919,488 B = 513.0 MiB (its log: 522.00 MiB)
    assert vl.fa3_split_buffer_bytes(512, 16, 512, 32) == 537_919_488
    # the first PIECEWISE capture: base + tokens × width × 2 B: 96 MiB + 512 × 43,008 × 2 B
    # = 96 + 42 = 138 MiB (Llama 3.1 8B's 3 × 14,336 gated FFN; its log: 138.00 MiB)
    assert vl.piecewise_first_capture_bytes(512, 43_008, 96 * 2**20) == 138 * 2**20


def test_vllm_cuda_graph_estimate_on_hopper_and_elsewhere():
    # Llama 3 8B under vLLM 0.33 (the H100's figure: the test above)
    mib = 2**20
    # the V2 runner (0.29+): 73,393 B per further PIECEWISE graph per layer, FULL 0.17 MiB
    per_pw, per_full = 73_393 * 32, round(0.17 * mib) * 32
    # on an A100 FlashAttention 2 sizes no split buffer: the first PIECEWISE capture
    # (96 MiB + 512 × 43,008 × 2 B = 138 MiB) is the larger one; the A100 gets 2,048 batched
    # tokens and 256 sequences (get_batch_defaults), so 51 PIECEWISE graphs to 512 and 35 FULL
    # to 256: 138 + 50 × 2.24 + 34 × 5.44 = 435 MiB
    a100 = pool("llama3-8b", "a100-80g", version="0.33.0", mem_util=0.95, max_model_len=8192)
    expected = 96 * mib + 512 * 43_008 * 2 + 50 * per_pw + 34 * per_full
    assert a100.cuda_graph_bytes == pytest.approx(expected, abs=64)


def test_enforce_eager_leaves_the_cuda_graph_estimate_in_the_budget(cli):
    # --enforce-eager (EngineSettings.cuda_graphs False): vLLM 0.33 captures no graph, so the
    # estimate the default run subtracts (the tests above: first captures + per-graph MiB)
    # stays in the KV budget: the budgets differ by exactly that estimate
    graphs = pool("llama3-8b", version="0.33.0", mem_util=0.95, max_model_len=8192)
    eager = pool("llama3-8b", version="0.33.0", mem_util=0.95, max_model_len=8192,
                 cuda_graphs=False)  # fmt: skip
    assert eager.cuda_graph_bytes == 0
    assert eager.kv_budget_bytes - graphs.kv_budget_bytes == pytest.approx(
        graphs.cuda_graph_bytes, abs=1
    )
    # the flag reaches the same setting from the command line
    args = ["-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "--engine-version", "0.33.0",
            "--mem-util", "0.95", "--max-model-len", "8192", "-f", "json"]  # fmt: skip
    import json

    on = json.loads(cli("capacity", *args).out)["kv_budget_bytes"]
    off = json.loads(cli("capacity", *args, "--enforce-eager").out)["kv_budget_bytes"]
    assert off - on == pytest.approx(graphs.cuda_graph_bytes, abs=1)


def _graph_numbers(model, hw="h100", version="0.33.0", cfg=None):
    """The numbers of the CUDA-graph figure (counts, split buffer) of ``model`` under vLLM."""
    dep = Deployment.build(
        cfg or load_model(model), load_hardware(hw),
        engine=EngineSettings(name="vllm", version=version, max_model_len=8192),
    )  # fmt: skip
    fig = next(f for f in dep.per_gpu.prediction.figures if f.key == "cuda_graph_bytes")
    return fig.numbers


def test_vllm_gpt_oss_config_hook_raises_the_capture_ceiling():
    # GptOssForCausalLMConfig sets max_cudagraph_capture_size = 1024 (0.11.1+): an explicit
    # ceiling, capped only by max_num_batched_tokens: 3 + 31 + (1024 − 256) / 16 + 1 = 83
    assert len(vl.cudagraph_capture_sizes(1024, 1024, 8192, explicit_max=True)) == 83
    # 2 × max_num_seqs does not cap it (128 sequences: the default grid stops at 256, 35 sizes)
    assert len(vl.cudagraph_capture_sizes(128, 1024, 8192, explicit_max=True)) == 83
    assert len(vl.cudagraph_capture_sizes(128, 512, 8192)) == 3 + 31 + 1
    # nor is max_num_seqs added (0.31's uniform decode size is set only for the default grid)
    assert 45 not in vl.cudagraph_capture_sizes(45, 1024, 8192, True, explicit_max=True)
    # max_num_batched_tokens still caps it and is captured: …, 576, 592, 600
    assert vl.cudagraph_capture_sizes(1024, 1024, 600, explicit_max=True)[-3:] == [576, 592, 600]
    # keyed on config.json's architecture: gpt-oss-20b on an H100 (max_num_seqs 1,024) gets 83
    # PIECEWISE and 83 FULL graphs (its 0.19.0 log: 'Overriding max cuda graph capture size
    # to 1024', 83 capture sizes, 83 graphs per mode), Llama 3 8B keeps 51 and 51
    oss, llama = _graph_numbers("gpt-oss-20b"), _graph_numbers("llama3-8b")
    assert (oss["piecewise"], oss["full"], oss["largest"]) == (83, 83, 1024)
    assert (llama["piecewise"], llama["full"], llama["largest"]) == (51, 51, 512)
    # the same model without the architecture field gets the platform ceiling
    plain = dataclasses.replace(load_model("gpt-oss-20b"), architecture=None)
    assert _graph_numbers(None, cfg=plain)["piecewise"] == 51
    # by release: 1,024 from 0.10.1, 992 in 0.11.0 only (81 graphs), 1,024 again from 0.11.1
    from calc.deploy.engines.vllm.rules import VERSIONS

    ceilings = {v: dict(VERSIONS.rules(v).graph_ceiling_by_arch).get("GptOssForCausalLM")
                for v in ("0.10.0", "0.10.1", "0.11.0", "0.11.1", "0.33.0")}  # fmt: skip
    assert ceilings == {"0.10.0": None, "0.10.1": 1024, "0.11.0": 992, "0.11.1": 1024,
                        "0.33.0": 1024}  # fmt: skip


def test_vllm_gemma3_prefix_lm_runs_triton_attn_without_a_split_buffer():
    # Gemma 3 (config.json model_type gemma3) is a multimodal prefix LM (is_mm_prefix_lm):
    # FLASH_ATTN takes it only as FA4, Hopper's FlashAttention is FA3, so the backend is
    # TRITON_ATTN and the first FULL capture holds no FA3 split accumulators
    assert _graph_numbers("gemma-3-12b")["split"] == 0
    # the same shape without the model_type runs FA3: 32 splits × 16 heads × 512 tokens ×
    # (256 + 1) × 4 B = 269,484,032 B (257 MiB)
    plain = dataclasses.replace(load_model("gemma-3-12b"), model_type=None)
    assert _graph_numbers(None, cfg=plain)["split"] == 32 * 16 * 512 * 257 * 4 == 269_484_032
    # before 0.13.0 no model is a prefix LM (the list starts there); the rule is read by
    # release, and the estimate itself only from 0.20
    from calc.deploy.engines.vllm.rules import VERSIONS

    assert VERSIONS.rules("0.12.0").mm_prefix_lm_types == ()
    assert "gemma3" in VERSIONS.rules("0.13.0").mm_prefix_lm_types
    assert "gemma3" in VERSIONS.rules("0.33.0").mm_prefix_lm_types


def test_vllm_v2_model_runner_by_release_and_architecture():
    # config/vllm.py _is_default_v2_model_runner_model, read in the 0.21.0-0.29.0 wheels:
    # (rules, architecture, moe, hybrid, attention_free, quantized)
    from calc.deploy.engines.vllm.rules import VERSIONS, runs_v2_model_runner

    def v2(release, arch, moe=False, hybrid=False, free=False, quantized=False):
        return runs_v2_model_runner(VERSIONS.rules(release), arch, moe, hybrid, free, quantized)

    assert not v2("0.21.0", "Qwen3ForCausalLM")  # VLLM_USE_V2_MODEL_RUNNER defaults to 0
    assert v2("0.22.0", "Qwen3ForCausalLM")  # the one listed architecture
    assert not v2("0.22.0", "Qwen3ForCausalLM", quantized=True)  # 0.22-0.23: not quantized
    assert not v2("0.22.0", "LlamaForCausalLM")
    assert v2("0.23.0", "LlamaForCausalLM") and not v2("0.23.0", "MixtralForCausalLM", moe=True)
    # 0.24.0: the list alone (MoE ones too); Qwen2 is not on it (the 0.24.0 Qwen2.5 log
    # prints its V1 estimate)
    assert v2("0.24.0", "Qwen2MoeForCausalLM", moe=True) and not v2("0.24.0", "Qwen2ForCausalLM")
    # 0.25.0+: every dense model, a listed MoE; never a hybrid (unlisted) nor attention-free
    assert v2("0.25.0", "Qwen2ForCausalLM") and v2("0.26.0", None)
    assert not v2("0.26.0", "MixtralForCausalLM", moe=True)
    assert not v2("0.26.0", "JambaForCausalLM", moe=True, hybrid=True)
    assert not v2("0.26.0", "MambaForCausalLM", free=True)


def test_vllm_v2_model_runner_takes_no_cuda_graph_estimate_until_0_29():
    # the V2 runner's profile_cudagraph_memory returns 0 in 0.22.0-0.28.0: Llama 3.1 8B on an
    # L40S (FlashAttention 2, no split buffer; 2,048 batched tokens and 256 sequences under
    # 70 GiB: 51 PIECEWISE graphs to 512, 35 FULL to 256) keeps V1's estimate at 0.21.0,
    # 138 MiB + 50 × 0.21 MiB × 32 + 34 × 0.17 MiB × 32 = 659 MiB (the A100 figure above), and
    # none at 0.26.0, so its budget is larger by that much and by the 0.12 GiB its capture
    # left in V1's non-torch increase (0.25 - 0.13 GiB, memlogs round; no other term of this
    # dense model changes between the two releases)
    mib = 2**20
    per_pw, per_full = round(0.21 * mib) * 32, round(0.17 * mib) * 32
    expected = 96 * mib + 512 * 43_008 * 2 + 50 * per_pw + 34 * per_full
    kw = {"mem_util": 0.9, "max_model_len": 4096, "max_num_seqs": 256}
    v1 = pool("llama3.1-8b", "l40s", version="0.21.0", **kw)
    v2 = pool("llama3.1-8b", "l40s", version="0.26.0", **kw)
    assert v1.cuda_graph_bytes == pytest.approx(expected, abs=64)
    assert v2.cuda_graph_bytes == 0
    residue = round(0.25 * GIB) - round(0.13 * GIB)
    assert v1.non_torch_bytes - v2.non_torch_bytes == residue
    assert v2.kv_budget_bytes - v1.kv_budget_bytes == pytest.approx(
        v1.cuda_graph_bytes + residue, abs=1
    )
    # from 0.29.0 the V2 runner estimates its graphs again, each further PIECEWISE graph at its
    # own 73,393 B a layer (vnew round): 96 MiB + 512 × 43,008 × 2 + 50 × 73,393 × 32 + 34 ×
    # 178,258 × 32 = 100,663,296 + 44,040,192 + 117,428,800 + 193,944,704 = 456,076,992 B
    v29 = pool("llama3.1-8b", "l40s", version="0.29.0", **kw)
    assert v29.cuda_graph_bytes == pytest.approx(456_076_992, abs=64)
    # a MoE model off the list stays on V1 at 0.26.0 and keeps its estimate
    assert pool("mixtral-8x7b", version="0.26.0", tp=2).cuda_graph_bytes > 0
    dep = Deployment.build(
        load_model("llama3.1-8b"), load_hardware("l40s"),
        engine=EngineSettings(name="vllm", version="0.26.0", **kw),
    )  # fmt: skip
    fig = next(f for f in dep.per_gpu.prediction.figures if f.key == "cuda_graph_bytes")
    assert "V2 model runner" in fig.substituted and fig.value == 0


def test_vllm_graph_capture_residue_only_where_the_capture_runs_in_the_window():
    # gpu_worker.py determine_available_memory: 0.18.0-0.26.x capture the graph estimate
    # inside memory_profiling, so its 0.12 GiB outside torch is in the non-torch increase at
    # TP 1: 0.13 + 0.12 = 0.25 GiB (Llama 3 8B runs the V1 runner in 0.19.0)
    assert pool("llama3-8b", version="0.19.0").non_torch_bytes == round(0.25 * GIB)
    # --enforce-eager captures nothing: 0.13 GiB
    eager = pool("llama3-8b", version="0.19.0", cuda_graphs=False)
    assert eager.non_torch_bytes == round(0.13 * GIB)
    # 0.26.0 runs a dense Llama on the V2 runner, whose profile_cudagraph_memory returns 0
    # (captures nothing): 0.13 GiB
    assert pool("llama3-8b", version="0.26.0").non_torch_bytes == round(0.13 * GIB)
    # 0.27.0 moved the capture after the window: no residue on the V1 runner either
    # (Qwen3-30B-A3B, a MoE model, runs the V1 runner in 0.26.0 and 0.27.0)
    rules = engine("vllm").rules
    assert rules("0.26.0").graph_capture_residue_bytes == round(0.25 * GIB) - round(0.13 * GIB)
    assert rules("0.27.0").graph_capture_residue_bytes == 0.0
    assert pool("qwen3-30b-a3b", version="0.26.0").non_torch_bytes == round(0.25 * GIB)
    assert pool("qwen3-30b-a3b", version="0.27.0").non_torch_bytes == round(0.13 * GIB)


def test_vllm_rocm_skips_the_graph_profile_from_0_18_to_0_25():
    # gpu_worker.py determine_available_memory runs profile_cudagraph_memory only where
    # `not current_platform.is_rocm()` (0.18.0-0.20.x) or `current_platform.is_cuda()`
    # (0.21.0-0.25.x); 0.26.0 takes ROCm in (`is_cuda_alike()`, vLLM pull 44825). Qwen3-30B-A3B
    # (MoE) runs the V1 runner through 0.27.0, so on CUDA its estimate and residue apply
    rules = engine("vllm").rules
    assert not rules("0.25.0").cudagraph_profiled_rocm and rules("0.26.0").cudagraph_profiled_rocm
    for version in ("0.18.0", "0.19.0", "0.20.0", "0.25.0"):
        amd = pool("qwen3-30b-a3b", "mi300x", version=version)
        # no dummy capture in the profiling window: the TP 1 non-torch figure alone, 0.13 GiB
        # (an H100 counts 0.13 + 0.12 = 0.25 GiB)
        assert amd.non_torch_bytes == round(0.13 * GIB), version
        assert pool("qwen3-30b-a3b", version=version).non_torch_bytes == round(0.25 * GIB)
        # no 'Estimated CUDA graph memory' printed (0.18, 0.19) or taken from the budget (0.20+)
        assert amd.cuda_graph_estimate_bytes is None and amd.cuda_graph_bytes == 0.0, version
    # 0.20.0 on an H100 takes its estimate from the budget
    assert pool("qwen3-30b-a3b", version="0.20.0").cuda_graph_bytes > 0
    # 0.26.0: the estimate and its residue (captured inside the window), as on CUDA
    amd026 = pool("qwen3-30b-a3b", "mi300x", version="0.26.0")
    assert amd026.non_torch_bytes == round(0.25 * GIB) and amd026.cuda_graph_bytes > 0
    # 0.27.0: the capture after the window: the estimate, no residue
    amd027 = pool("qwen3-30b-a3b", "mi300x", version="0.27.0")
    assert amd027.non_torch_bytes == round(0.13 * GIB) and amd027.cuda_graph_bytes > 0
    # 0.17.x profiled no graphs on any GPU: the same pool on both sides of the rule
    assert pool("qwen3-30b-a3b", "mi300x", version="0.17.0").cuda_graph_estimate_bytes is None


def test_vllm_pool_on_mi300x_term_by_term_minimax_m25_tp2():
    # the held-out AMD record vllm0171-2xmi300x-minimax-m25-tp2 (vllm-project/recipes pull 273:
    # MiniMax-M2.5 on 2 x MI300X, vLLM 0.17.1, defaults; it prints 497,600 tokens)
    p = pool("minimax-m2.5", "mi300x", version="0.17.1", tp=2)
    # torch on ROCm: total_memory 196,592 MB = 196,592 × 2^20 = 206,141,652,992 B
    assert p.usable_memory_bytes == 206_141_652_992
    # fp8-block128 experts and attention, bf16 embedding / lm_head / router / norms, per GPU:
    # 2 × 307,298,304 (200,064 × 3,072 / 2 rows × 2 B) + 1,365,579,264 + 112,367,665,152 +
    # 97,549,312 + 1,656,832 = 115,061,643,776 B
    assert p.weights_bytes == 115_061_643_776
    # one RoPE table: 196,608 positions × 64 (head 128 × partial_rotary_factor 0.5) × 2 B
    assert p.rope_table_bytes == 196_608 * 64 * 2 == 25_165_824
    # 8,192 tokens and 1,024 rows (MI300X: >= 70 GiB, not an A100): 2 × 8,192 × 3,072 × 2
    # + the fused-MoE workspace 8,192 × 8 × (max(2 × 768, 3,072) + 768) × 2 = 503,316,480
    # + max(8,192 × 7,168 × 2, 1,024 × 200,064 × 14.5 = 2,970,550,272)
    assert p.activation_bytes == 100_663_296 + 503_316_480 + 2_970_550_272 == 3_574_530_048
    # TP 2: the measured 0.55 GiB; no FlashInfer fusion workspace on an AMD GPU
    assert p.non_torch_bytes == round(0.55 * GIB) == 590_558_003
    # 0.17.x estimates no CUDA graphs
    assert p.cuda_graph_bytes == 0.0 and p.cuda_graph_estimate_bytes is None
    # 206,141,652,992 × 0.9 − 115,061,643,776 − 25,165,824 − 3,574,530,048 − 590,558,003
    # = 66,275,590,041.8 B
    assert p.kv_budget_bytes == pytest.approx(66_275_590_041.8, abs=1)
    # page 16 × 2 × (8 / 2) × 128 × 2 B = 32,768 B, 62 layers:
    # 66,275,590,041 // 32,768 // 62 = 32,622 blocks × 16 = 521,952 tokens (printed 497,600:
    # +4.89%, docs/engines.md's rocmpool round)
    assert (p.page_size_bytes, p.num_blocks, p.tokens) == (32_768, 32_622, 521_952)
