"""SGLang's fused-MoE curves on B200 (issue 20, sgb200moe round): the block-fp8 curve fitted to
the FlashInfer trtllm-gen rows SGLang 0.5.16 runs for the DeepSeek and Qwen3-MoE families on
SM100, the NVFP4 curve counting every route of the batch; both against aiconfigurator's
measured layer at Qwen3.5-397B-A17B's shape."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware
from calc.formulas import kernel_curves as K
from tests.scripts import load_script

# Qwen3.5-397B-A17B's experts (model_configs/qwen3.5-397b-a17b.yaml): hidden 4,096, expert FFN
# 1,024, 512 experts, top-10; at MoE TP 4 each GPU holds a 256-wide slice of every expert
HIDDEN, INTER, EXPERTS, TOPK, TP = 4096, 1024, 512, 10, 4


def _qwen35_us(curve, peak, bytes_per_s, tokens, weight_bytes):
    """The fitter's model (tools/fit_kernels.py ``_shipped_moe_s``) of one balanced layer at
    Qwen3.5-397B's shape, MoE TP 4, no EP, on one GPU [µs]: every route local and of the batch."""
    routes = tokens * TOPK
    touched = min(EXPERTS, routes)  # the table's balanced routing
    inter = INTER / TP
    flops = 2 * 3 * routes * HIDDEN * inter
    moved = touched * 3 * HIDDEN * inter * weight_bytes + routes * HIDDEN * 4
    return 1e6 * K.moe_time_s(
        flops, moved, routes / touched, routes * HIDDEN, touched, flops_per_s=peak,
        bytes_per_s=bytes_per_s, compute=curve.compute, memory=curve.memory,
        fixed_s=curve.fixed_s, per_route_element_s=curve.per_route_element_s,
        tile_m=curve.tile_m, sharpness=curve.sharpness, per_expert_s=curve.per_expert_s,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("key", "peak", "weight_bytes", "tokens", "measured_us"),
    [
        # aiconfigurator-core 0.12.0 b200_sxm/moe/sglang/0.5.14/moe_perf.parquet, balanced rows
        # at this shape, moe_tp 4, moe_ep 1, sglang_flashinfer_trtllm_moe. The curve before the
        # round (pooled with the Triton rows) took 355 µs at 96 tokens (+28%) and 2,358 µs at
        # 16,384 (+24%), both beyond its band's upper end (1.238)
        ("fp8_block", "fp8", 1 + 4 / 128**2, 96, 278.1),
        ("fp8_block", "fp8", 1 + 4 / 128**2, 16384, 1898.4),
        # the same table's nvfp4 rows: before, with the per-route term over local routes (1.68
        # ps an element, paid at every route under MoE TP), 947 µs at 8,192 tokens (+63%) and
        # 1,720 µs at 16,384 (+81%) against the band's 1.223. (At 96 tokens the refit is +13%,
        # was +3%: the price of the batch count at decode, docs/step-time.md.)
        ("fp4", "fp4", 0.5 + 1 / 16, 8192, 579.9),
        ("fp4", "fp4", 0.5 + 1 / 16, 16384, 951.0),
    ],
)
def test_sglang_b200_moe_curve_holds_the_qwen35_layer_within_its_band(
    key, peak, weight_bytes, tokens, measured_us
):
    hw = load_hardware("b200")
    curve = hw.kernels.moe_engine["sglang"][key]
    t = _qwen35_us(curve, hw.peak_flops_per_s[peak], hw.hbm_bandwidth_bytes_per_s, tokens,
                   weight_bytes)  # fmt: skip
    low, high = curve.band
    assert measured_us * low <= t <= measured_us * high
    assert curve.routes == "batch"


def test_b200_sglang_block_fp8_curve_is_the_trtllm_gen_rows():
    hw = load_hardware("b200")
    curve = hw.kernels.moe_engine["sglang"]["fp8_block"]
    # 11,043 balanced flashinfer_trtllm rows of the 15,552 the pooled fit took (the rest Triton)
    assert "flashinfer_trtllm rows (11,043 rows)" in curve.source
    fk = load_script("tools/fit_kernels.py")
    assert fk.MOE_ENGINE_BACKEND[("b200_sxm", "sglang", "fp8_block")] == "flashinfer_trtllm"


def test_route_count_by_engine_and_format():
    fk = load_script("tools/fit_kernels.py")
    assert fk.moe_route_count("trtllm", "fp8_block") == "batch"  # every engine's block fp8
    assert fk.moe_route_count("sglang", "fp4") == "batch"  # SGLang's NVFP4 (trtllm-gen rows)
    assert fk.moe_route_count("trtllm", "fp4") == "local"  # not refitted: its held fit stands
    assert fk.moe_route_count("vllm", "fp4") == "local"
    assert fk.moe_route_count("sglang", "bf16") == "local"
