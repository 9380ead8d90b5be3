"""SGLang's weight load beyond the weights (calc.deploy.engines.sglang.segments, .load): the
caching allocator's rules against hand arithmetic from c10/cuda/CUDACachingAllocator.cpp, and
the segment tails of whole models against the 'Load weight end ... mem usage' SGLang prints."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.checkpoint import resolved_dtypes
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.sglang.load import allocator_overhead_bytes, padded_vocab_rows
from calc.deploy.engines.sglang.segments import allocation_size, replay, round_size

MIB, GIB = 2**20, 2**30


def test_segment_sizes_by_request():
    # kSmallSize 1 MiB -> a 2 MiB small segment; under kMinLargeAlloc 10 MiB -> a 20 MiB
    # segment; from 10 MiB the request rounded up to 2 MiB
    assert allocation_size(MIB) == 2 * MIB
    assert allocation_size(MIB + 512) == 20 * MIB
    assert allocation_size(10 * MIB - 512) == 20 * MIB
    assert allocation_size(10 * MIB) == 10 * MIB
    assert allocation_size(10 * MIB + 512) == 12 * MIB
    # requests are whole 512 B blocks: 1 B -> 512, 513 -> 1,024
    assert (round_size(1), round_size(513)) == (512, 1024)


def test_best_fit_split_and_empty_cache():
    # 8 MiB opens a 20 MiB segment, its 12 MiB tail (over 1 MiB: split) then holds a 10 MiB
    # request; the 2 MiB left is reserved but unused: 20 MiB reserved, 18 MiB live
    assert replay([("o", 8 * MIB), ("qkv", 10 * MIB)]) == (20 * MIB, 18 * MIB)
    # a tail of exactly 1 MiB is not split off: 25 MiB takes a 26 MiB block whole, and the next
    # 1 MiB + 512 B request opens its own 20 MiB segment
    assert replay([("a", 25 * MIB), ("b", MIB + 512)]) == (46 * MIB, 26 * MIB + 512)
    # a segment left with nothing live goes back at empty_cache; the 20 MiB one holding the
    # live 8 MiB stays
    assert replay([("tmp", 4 * MIB), ("keep", 8 * MIB), ("tmp", None)]) == (20 * MIB, 8 * MIB)
    assert replay([("big", 12 * MIB), ("big", None)]) == (0, 0)


def test_vocabulary_padding_per_rank():
    # 151,936 is a multiple of 64 and of 64 × 4: 151,936 / 4 = 37,984 rows a rank; 1,000 pads
    # to 1,024, which 3 does not divide, so to 192: 1,152 / 3 = 384 (vocab_parallel_embedding.py)
    assert padded_vocab_rows(151_936, 4) == 37_984
    assert padded_vocab_rows(1_000, 3) == 384


def test_qwen3_32b_tp4_segment_tails():
    # per layer: QKV (16 + 2 × 2 heads) × 128 × 5,120 × 2 B = 25 MiB in a 26 MiB block (1 MiB
    # left, not split), o 20 MiB exact, gate/up 2 × 6,400 × 5,120 × 2 B = 125 MiB in 126, down
    # 62.5 MiB in 64: 3.5 MiB × 64 layers = 234,881,024 B; embedding and lm_head 37,984 × 5,120
    # × 2 B = 388,956,160 B in 372 MiB: 1,114,112 B each; the small pool's 2 MiB segment holds
    # 64 × (2 × 256 + 2 × 10,240) + 10,240 = 1,353,728 B: 743,424; the RoPE temporaries'
    # segments (10, 10, 10 MiB) are returned: 234,881,024 + 2 × 1,114,112 + 743,424 =
    # 237,852,672 B = 0.2215 GiB, the 15.50 − 15.28 GiB the 4 × RTX 5090 run prints beyond
    # kvcalc's weights and table
    cfg = load_model("qwen3-32b")
    got = allocator_overhead_bytes(cfg, resolved_dtypes(cfg), 4, 1, 1, 40_960, 4)
    assert got == 237_852_672


def test_qwen3_8b_tp1_leaves_little():
    # Qwen3-8B at TP 1: the projections are whole 2 MiB multiples (QKV 48 MiB, o 32, gate/up
    # 192, down 96); the embedding and lm_head, 151,936 × 4,096 × 2 B = 1,187 MiB each, take
    # 1,188 MiB segments whole (1 MiB left, not split): 2 × 1,048,576 B; the small pool's one 2
    # MiB segment holds 36 × (2 × 256 + 2 × 8,192) + 8,192 = 616,448 B: 1,480,704 B; the 20 MiB
    # RoPE table (40,960 × 128 × 4 B) is a whole segment and its three 10 MiB temporaries'
    # segments are returned: 2,097,152 + 1,480,704 = 3,577,856 B (0.003 GiB: the B200 log
    # prints 15.28 GiB, kvcalc's weights and table 15.276 before)
    cfg = load_model("qwen3-8b")
    got = allocator_overhead_bytes(cfg, resolved_dtypes(cfg), 1, 1, 1, 40_960, 4)
    assert got == 3_577_856


def test_layouts_not_laid_out_get_no_term():
    # MLA (DeepSeek-V3) and Mamba hybrids (Nemotron-H) are not laid out tensor by tensor: None,
    # and the pool charges nothing
    cfg = load_model("deepseek-v3")
    assert allocator_overhead_bytes(cfg, resolved_dtypes(cfg), 8, 1, 1, 163_840, 4) is None
    cfg = load_model("nemotron-h-56b")
    assert allocator_overhead_bytes(cfg, resolved_dtypes(cfg), 1, 1, 1, 8_192, 4) is None
    # nor MoE DeltaNet hybrids (Qwen3-Next: Qwen2MoeSparseMoeBlock builds its experts before
    # the router and may fuse the shared expert into them)
    cfg = load_model("qwen3-next-80b-a3b")
    assert allocator_overhead_bytes(cfg, resolved_dtypes(cfg), 2, 1, 1, 262_144, 4) is None


@pytest.mark.parametrize(
    ("model", "tp", "weight_dtype", "printed_gib"),
    [
        # 'Load weight end ... mem usage' (issue 21's SGLang records): 4 × RTX 5090 Qwen3-32B
        # TP 4 15.50; 4 × RTX 4090 Qwen3-14B TP 4 7.08; H100 Qwen3-30B-A3B-FP8 TP 1 29.15
        ("qwen3-32b", 4, None, 15.50),
        ("qwen3-14b", 4, None, 7.08),
        ("qwen3-30b-a3b", 1, "fp8-block128", 29.15),
    ],
)
def test_sglang_weight_load_meets_the_printed_load(model, tp, weight_dtype, printed_gib):
    # weights + the allocator's tails + the FP32 RoPE table, within the log's 0.01 GiB rounding
    dep = Deployment.build(load_model(model), load_hardware("h100"), tp=tp,
                           weight_dtype=weight_dtype,
                           engine=EngineSettings(name="sglang", version="0.5.13"))  # fmt: skip
    p = dep.engine_model.kv_pool(dep)
    assert (p.weights_bytes + p.rope_table_bytes) / GIB == pytest.approx(printed_gib, abs=0.011)


def test_gated_deltanet_layer_requests():
    # Qwen3.5-27B's DeltaNet mixer at TP 1 in fp8-block128 (SGLang 0.5.18 Qwen3_5GatedDeltaNet):
    # key dim 16 × 128 = 2,048, value dim 48 × 128 = 6,144; conv1d (2 × 2,048 + 6,144) × 4 ×
    # 2 B = 81,920 (bf16, no quant_config); in_proj_qkvz (2 × 2,048 + 2 × 6,144) = 16,384 rows
    # × 5,120 × 1 B = 83,886,080, scales 128 × 40 × 4 B = 20,480; in_proj_ba 96 × 5,120 =
    # 491,520, scales 1 × 40 × 4 = 160; dt_bias 48 × 2 = 96; A_log 48 × 4 = 192; the gated
    # norm 128 × 2 = 256; out_proj 5,120 × 6,144 = 31,457,280, scales 40 × 48 × 4 = 7,680
    from calc.deploy.engines.sglang.load import _gdn_requests

    cfg = load_model("qwen3.5-27b")
    got = _gdn_requests("0", cfg.linear_attention, 5_120,
                        resolved_dtypes(cfg, "fp8-block128"), 1)  # fmt: skip
    assert [r for _, r in got] == [81_920, 83_886_080, 20_480, 491_520, 160, 96, 192, 256,
                                   31_457_280, 7_680]  # fmt: skip
    # at TP 2 (bf16) every per-rank shape halves: conv1d 40,960, in_proj_ba 48 × 5,120 × 2 B =
    # 491,520
    half = dict(_gdn_requests("0", cfg.linear_attention, 5_120, resolved_dtypes(cfg), 2))
    assert (half["0.conv1d"], half["0.in_proj_ba"]) == (40_960, 491_520)


def test_qwen35_text_segment_tails():
    # Qwen3.5-27B without its vision tower, fp8-block128 at TP 1: down 5,120 × 17,408 × 1 B =
    # 85 MiB in an 86 MiB block (1 MiB left, not split) × 64 layers = 64 MiB; embedding and
    # lm_head 248,320 × 5,120 × 2 B = 2,425 MiB in 2,426: 1 MiB each; the RoPE temporaries
    # freqs, cos and sin (262,144 × 32 × 4 B = 32 MiB each) are freed and their segments then
    # hold three 30 MiB out_proj / o_proj (2 MiB left each, split, free): 6 MiB; 72 MiB in all.
    # The small pool: per DeltaNet layer 81,920 + 20,480 + 491,520 + 160 + 96 + 192 + 256 +
    # 7,680 = 602,304 B × 48; per attention layer QKV scales 112 × 40 × 4 = 17,920, o 7,680,
    # q/k norms 2 × 512: 26,624 × 16; per layer gate/up scales 272 × 40 × 4 = 43,520, down 40 ×
    # 136 × 4 = 21,760, two norms 20,480: 85,760 × 64; the final norm 10,240: 34,835,456 B in
    # 17 segments of 2 MiB (35,651,584): 816,128. 72 MiB + 816,128 = 76,313,600 B
    import dataclasses

    cfg = dataclasses.replace(load_model("qwen3.5-27b"), vision=None)
    got = allocator_overhead_bytes(cfg, resolved_dtypes(cfg, "fp8-block128"), 1, 1, 1,
                                   262_144, 4)  # fmt: skip
    assert got == 72 * MIB + 816_128


def test_qwen38_fp8_weight_load_meets_the_printed_load():
    # the held-out SGLang 0.5.18 H100 log (Qwen3.8-27B-FP8, Qwen3.5-27B's shapes) prints 'mem
    # usage=28.47 GB'; kvcalc's weights and 64 MiB RoPE table are 28.34 GiB, and the vision
    # tower (built first, bf16) and language model's tails add 0.10 GiB: 28.45, within 0.03
    # (the vision tower's own 8,192 × 36 FP32 RoPE table, 1.1 MiB, is not charged)
    dep = Deployment.build(load_model("qwen3.5-27b"), load_hardware("h100"), tp=1,
                           weight_dtype="fp8-block128",
                           engine=EngineSettings(name="sglang", version="0.5.18"))  # fmt: skip
    p = dep.engine_model.kv_pool(dep)
    assert (p.weights_bytes + p.rope_table_bytes) / GIB == pytest.approx(28.47, abs=0.03)
    assert (p.weights_bytes + p.rope_table_bytes) / GIB > 28.40  # 28.34 without the tails
