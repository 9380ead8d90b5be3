"""SGLang's fused-MoE curves on B200 (issue 20, sgb200moe round; GB200, B300 and GB300 in the
sgtrtgen round): the block-fp8 curve fitted to the FlashInfer trtllm-gen rows SGLang 0.5.16 runs
for the DeepSeek and Qwen3-MoE families on SM100, the NVFP4 curve counting every route of the
batch; both against aiconfigurator's measured layer at Qwen3.5-397B-A17B's shape."""

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


def _holds_within_band(gpu, key, peak, weight_bytes, tokens, measured_us):
    """``gpu``'s SGLang ``key`` MoE curve times the Qwen3.5 layer within its band of the
    measured row, and counts every route (``routes: batch``)."""
    hw = load_hardware(gpu)
    curve = hw.kernels.moe_engine["sglang"][key]
    t = _qwen35_us(curve, hw.peak_flops_per_s[peak], hw.hbm_bandwidth_bytes_per_s, tokens,
                   weight_bytes)  # fmt: skip
    low, high = curve.band
    assert measured_us * low <= t <= measured_us * high, t
    assert curve.routes == "batch"


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
    _holds_within_band("b200", key, peak, weight_bytes, tokens, measured_us)


@pytest.mark.parametrize(
    ("key", "peak", "weight_bytes", "tokens", "measured_us"),
    [
        # issue 20, sgtrtgen round: GB200's curves refitted the same way (B300's and GB300's too).
        # aiconfigurator-core 0.12.0 gb200/moe/sglang/0.5.14/moe_perf.parquet, balanced rows at
        # this shape, moe_tp 4, moe_ep 1, sglang_flashinfer_trtllm_moe. fp8_block at 16,384
        # tokens: 1,803.6 µs (the table's twin row 1,804.0). The pooled curve before the round
        # took 3,257.9 µs (3,257.9 / 1,803.6 = 1.81 x, beyond its band's 1.264); the refit
        # 1,904.0 µs (1,904.0 / 1,803.6 = 1.056 x) inside [0.882, 1.161]:
        # 1,803.6 × 0.882 = 1,590.8 <= 1,904.0 <= 1,803.6 × 1.161 = 2,094.0
        ("fp8_block", "fp8", 1 + 4 / 128**2, 16384, 1803.6),
        # nvfp4 at 8,192 tokens: 541.6 µs. Before, local routes at 1.31 ps an element: 836.6 µs
        # (1.54 x, beyond its band's 1.218); the refit (every route, 0.31 ps) 517.5 µs
        # (0.955 x): 541.6 × 0.824 = 446.3 <= 517.5 <= 541.6 × 1.110 = 601.2
        ("fp4", "fp4", 0.5 + 1 / 16, 8192, 541.6),
    ],
)
def test_sglang_gb200_moe_curve_holds_the_qwen35_layer_within_its_band(
    key, peak, weight_bytes, tokens, measured_us
):
    _holds_within_band("gb200", key, peak, weight_bytes, tokens, measured_us)


def test_sm10_sglang_block_fp8_curves_are_the_trtllm_gen_rows():
    fk = load_script("tools/fit_kernels.py")
    # the trtllm-gen balanced fp8_block rows of each 0.5.14 table, the Triton rows left out
    # (pooled before the sgtrtgen round: 21,459 / 28,181 / 21,544 = these + 6,777 / 8,505 /
    # 6,777 Triton rows)
    for gpu, profile, rows in (("gb200", "gb200", "14,682"), ("b300_sxm", "b300", "19,676"),
                               ("gb300", "gb300", "14,767")):  # fmt: skip
        assert fk.MOE_ENGINE_BACKEND[(gpu, "sglang", "fp8_block")] == "flashinfer_trtllm"
        curve = load_hardware(profile).kernels.moe_engine["sglang"]["fp8_block"]
        assert f"flashinfer_trtllm rows ({rows} rows)" in curve.source
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
