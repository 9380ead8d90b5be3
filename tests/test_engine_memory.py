"""Engine memory models (calc.deploy.engine_memory): each formula against hand arithmetic from the
engine's source, and the composed pool against the engines' own printed start-up figures."""

from __future__ import annotations

import math

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.engine_memory import (
    DEFAULTS,
    EngineConfig,
    checkpoint_weights_bytes_per_gpu,
    engine_settings,
    kv_shape,
    predict_kv_pool,
    usable_memory_bytes,
)
from calc.deploy.engine_memory import sglang as sg
from calc.deploy.engine_memory import trtllm as trt
from calc.deploy.engine_memory import vllm as vl
from calc.errors import UnknownNameError
from tests import reports as R

GIB = 2**30


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


def test_vllm_hybrid_groups_gemma2():
    # 21 full + 21 sliding layers: groups of 21, two groups, 21 layer slots
    assert vl.hybrid_group_size([21, 21]) == 21
    assert vl.hybrid_groups([21, 21], 21) == 2
    # 5 full + 25 sliding (Gemma 3 style): groups of 5 → 1 + 5 groups
    assert vl.hybrid_group_size([5, 25]) == 5
    assert vl.hybrid_groups([5, 25], 5) == 6
    shape = kv_shape(load_model("gemma-2-9b"), 1, 1, 2.0)
    assert (shape.layer_slots, shape.n_groups, shape.window) == (21, 2, 4096)
    assert shape.bytes_per_token_per_layer == 8192  # 2 × 8 heads × 256 × 2 B


def test_vllm_sampler_and_moe_workspace():
    # 1,024 rows × 128,256 vocab × 14.5 B = 1,904,345,088 B (Llama 3 vocabulary)
    assert vl.sampler_activation_bytes(1024, 128_256) == 1024 * 128_256 * 14.5
    # Mixtral at TP 2: 8192 tokens × top-2 × (max(2 × 7168, 4096) + 7168) × 2 B = 704,643,072
    assert vl.moe_workspace_bytes(8192, 2, 7168, 4096) == 704_643_072
    # resident 2 × 8192 × 4096 × 2 = 134,217,728 B plus the larger temporary
    peak = vl.activation_peak_bytes(8192, 4096, 3 * 14336, 1024, 128_256)
    assert peak == 134_217_728 + max(8192 * 3 * 14336 * 2, 1024 * 128_256 * 14.5)


def test_vllm_non_torch_by_tp():
    assert vl.non_torch_bytes(1) == round(0.25 * GIB)
    assert vl.non_torch_bytes(2) == vl.non_torch_bytes(8) == round(2.07 * GIB)
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    p = predict_kv_pool(cfg, hw, settings=engine_settings("vllm"), pp=2)
    assert p.non_torch_bytes == round(0.25 * GIB)  # pipeline stages do not all-reduce


def test_sglang_auto_fraction_and_pool():
    assert [sg.auto_mem_fraction_static(t) for t in (1, 2, 4, 8, 16)] == [
        0.88, 0.87, 0.85, 0.81, 0.79
    ]  # fmt: skip
    # (80 − 50 − 2) − 80 × (1 − 0.9) = 20 GiB; 20 GiB // 48,128 B per token
    rest = sg.rest_memory_bytes(80 * GIB, 0.9, 50 * GIB, 2 * GIB)
    assert rest == pytest.approx(20 * GIB)
    assert sg.max_total_num_tokens(20 * GIB, 48_128) == 20 * GIB // 48_128


def test_trtllm_max_tokens_rounds_up_to_a_block():
    # 860,308 tokens → cdiv(860,308, 32) = 26,885 blocks → 860,320 tokens (the log's figure)
    assert trt.capped_tokens(10**7, 860_308, 32) == 860_320
    assert trt.capped_tokens(1000, 860_308, 32) == 1000  # the fraction is smaller
    assert trt.capped_tokens(1000, None, 32) == 1000


def test_settings_defaults_and_overrides():
    s = engine_settings("vllm")
    assert (s.memory_fraction, s.block_size, s.max_batched_tokens, s.max_num_seqs) == (
        0.9, 16, 8192, 1024
    )  # fmt: skip
    assert engine_settings("vllm", memory_fraction=0.95, block_size=None).memory_fraction == 0.95
    assert engine_settings("sglang").memory_fraction is None  # auto by TP
    assert isinstance(DEFAULTS[("trtllm", "1.0")], EngineConfig)
    with pytest.raises(UnknownNameError, match="unknown engine 'vlm'"):
        engine_settings("vlm")
    with pytest.raises(UnknownNameError, match=r"vllm version '0\.1'"):
        engine_settings("vllm", "0.1")


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
    # --weight-dtype re-quantises the linear layers only (calc.deploy.checkpoint): every parameter
    # at
    # 1 B, plus 1 B more for each vocabulary-table and norm element kept in bf16; fp8-tensor
    # adds 4 B per tensor scale, which the per-element rate leaves out
    assert fp8 == 8_030_261_248 + tables + norms


def test_predict_llama31_8b_tp1_matches_the_vllm_log():
    # vLLM 0.19.0, H100, util 0.95, max_model_len 8192: "GPU KV cache size: 476,016 tokens"
    p = predict_kv_pool(
        load_model("llama3-8b"),
        load_hardware("h100"),
        settings=engine_settings("vllm", memory_fraction=0.95, max_model_len=8192),
    )
    assert p.tokens == pytest.approx(476_016, rel=0.003)
    assert p.max_concurrency == pytest.approx(58.11, rel=0.003)
    assert p.num_blocks * 16 == p.tokens
    assert set(p.sources) >= {"activation", "non_torch", "budget", "blocks", "tokens"}


def test_predict_gemma2_hybrid_tokens_divide_by_groups():
    p = predict_kv_pool(
        load_model("gemma-2-9b"),
        load_hardware("h100"),
        settings=engine_settings("vllm", memory_fraction=0.95, max_model_len=8192),
    )
    assert p.tokens == p.num_blocks // 2 * 16
    assert p.max_concurrency == pytest.approx(p.num_blocks / (512 + 513))


def test_sglang_does_not_subtract_activations():
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    p = predict_kv_pool(cfg, hw, settings=engine_settings("sglang", "0.4"), tp=2)
    assert p.activation_bytes == 0 and p.memory_fraction == 0.87


def test_sglang_0_5_auto_fraction_from_its_reserve():
    # H100: 79.19 GiB = 81,090.6 MiB, the 60-90 GiB bucket: chunked_prefill_size 8,192 and
    # cuda_graph_max_bs 256 below TP 4, 512 from TP 4
    assert sg.bucket_defaults_0_5(81_090.6, 2) == (8192, 256)
    assert sg.bucket_defaults_0_5(81_090.6, 8) == (8192, 512)
    assert sg.bucket_defaults_0_5(183_359.0, 8) == (16384, 512)  # B200 bucket
    # reserved = 512 + 1.5 × 8,192 + 2 × 256 + 1,024 × 2 × 1 / 8 = 13,568 MiB
    assert sg.reserved_memory_mib(81_090.6, 8192, 256, 2, 1) == 13_568
    # a small GPU: 512 + 1.5 × 2,048 + 2 × 8 + 128 = 3,728 MiB (no 10 GiB floor below 60 GiB)
    assert sg.reserved_memory_mib(16_000, 2048, 8, 1, 1) == 3_728
    # (81,090.6 − 13,568) / 81,090.6 = 0.8327 → 0.833
    assert sg.auto_mem_fraction_static_0_5(81_090.6, 13_568) == 0.833
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    p = predict_kv_pool(cfg, hw, settings=engine_settings("sglang", hw=hw), tp=2)
    assert (p.version, p.memory_fraction) == ("0.5", 0.833)


def test_vllm_batch_defaults_depend_on_the_gpu():
    # H100 (79.19 GiB >= 70 GiB, not an A100): API server 8192 tokens, 1024 sequences
    s = engine_settings("vllm", hw=load_hardware("h100"))
    assert (s.max_batched_tokens, s.max_num_seqs) == (8192, 1024)
    # A100 80GB is excluded by name (vLLM PR #17885); L40S has 48 GB: 2048 / 256
    for gpu in ("a100-80g", "l40s"):
        s = engine_settings("vllm", hw=load_hardware(gpu))
        assert (s.max_batched_tokens, s.max_num_seqs) == (2048, 256)
    s = engine_settings("vllm", hw=load_hardware("h100"), entrypoint="llm_class")
    assert (s.max_batched_tokens, s.max_num_seqs) == (16384, 1024)
    # an explicit setting wins over the GPU default
    assert engine_settings("vllm", hw=load_hardware("l40s"), max_batched_tokens=4096)\
        .max_batched_tokens == 4096  # fmt: skip


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
    hw = load_hardware("h200")
    p = predict_kv_pool(
        load_model("jamba-v0.1"),
        hw,
        settings=engine_settings("vllm", hw=hw, max_model_len=8192),
        tp=2,
    )
    assert p.block_size == 80
    assert p.tokens == p.num_blocks // 8 * 80
    # one request: cdiv(8192, 80) = 103 attention blocks + 7 Mamba pages
    assert p.max_concurrency == pytest.approx(p.num_blocks / (103 + 7))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tp": 0}, "--tp"),
        (
            {
                "settings": EngineConfig(
                    engine="vllm",
                    version="0.19",
                    memory_fraction=1.5,
                    block_size=16,
                    max_batched_tokens=8192,
                    max_num_seqs=1024,
                )
            },
            "gpu_memory_utilization",
        ),
        ({"settings": engine_settings("vllm", block_size=0)}, "--block-size"),
    ],
)
def test_predict_rejects_bad_settings(kwargs, message):
    from calc.errors import InvalidInputError

    args = {"settings": engine_settings("vllm"), **kwargs}
    with pytest.raises(InvalidInputError, match=message):
        predict_kv_pool(load_model("llama3-8b"), load_hardware("h100"), **args)


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
@pytest.mark.parametrize("model", ["llama3-8b", "gemma-2-9b", "mixtral-8x7b", "jamba-v0.1"])
def test_explain_lines_evaluate_to_their_value(engine, model):
    """Each derivation's substituted arithmetic, evaluated, gives the reported figure."""
    import re

    hw = load_hardware("h200")
    kw = {"max_tokens": 50_000} if engine == "trtllm" else {}
    p = predict_kv_pool(load_model(model), hw, settings=engine_settings(engine, hw=hw, **kw), tp=2)
    assert p.figures
    for f in p.figures:
        text = f.substituted.replace("×", "*").replace("−", "-")
        text = re.sub(r"\d{1,3}(?:,\d{3})+", lambda m: m.group(0).replace(",", ""), text)
        value = eval(text, {"__builtins__": {}, "max": max, "min": min, "floor": math.floor})
        assert value == pytest.approx(f.value, rel=1e-3), f.line()


def test_sglang_hybrid_swa_pool_splits_tokens_by_the_ratio():
    from calc.deploy.engine_memory import sglang as sg

    # Gemma 2 9B: 21 sliding + 21 full layers; a pool of 167,917 tokens over all 42 layers is
    # 167,917 × 42 = 7,052,514 token-layers; full = int(7,052,514 / (0.8 × 21 + 21 = 37.8))
    # = 186,574; sliding = int(186,574 × 0.8) = 149,259
    assert sg.swa_pool_tokens(167_917, 42, 21, 21) == (186_574, 149_259)
    # through capacity (SGLang at 0.9): budget 57,774,277,632 B // 344,064 B per token
    # (42 layers × 2 × 8 heads × 256 × 2 B) = 167,917 tokens -> the full layers' 186,574
    f = R.capacity(load_model("gemma-2-9b"), load_hardware("h100"), ctx=8192, engine="sglang",
                   mem_util=0.9).fields  # fmt: skip
    assert f["kv_budget_bytes"] == 57_774_277_632
    assert f["kv_cache_tokens"] == 186_574
