"""Which measured fused-MoE kernels the curves are fitted to (tools/fit_kernels.py
moe_default_path) and what that gives TensorRT-LLM's NVFP4 MoE on B200: the engine's default
CUTLASS path, not the min-latency kernels it runs only with ``enable_min_latency``."""

from __future__ import annotations

import math

import pytest

from calc.data.registry import load_hardware
from calc.formulas import kernel_curves as K
from tests.scripts import load_script


def _fit_kernels():
    pytest.importorskip("pandas")
    return load_script("tools/fit_kernels.py")


def test_default_path_keeps_the_engines_defaults_and_drops_opt_in_kernels():
    fk = _fit_kernels()  # skips without pandas (the test extra has it)
    import pandas as pd

    sources = [
        "moe_torch_flow_cutlass",  # TensorRT-LLM's default (moe_backend CUTLASS)
        "moe_torch_flow_min_latency",  # only with enable_min_latency (Llama 4, opt-in)
        "moe_torch_flow_nongated",  # non-gated experts: not the gated FFN modelled
        "sglang_fused_moe_triton",  # SGLang's default Triton runner
        "sglang_flashinfer_cutlass_moe",  # an SGLang flag, off by default
        "deepgemm",  # the only fp8-block rows TensorRT-LLM has on Blackwell
        "vllm_fused_moe",
    ]
    keep = fk.moe_default_path(pd.DataFrame({"kernel_source": sources})).tolist()
    assert keep == [True, False, False, True, False, True, True]


def _moe_us(curve, peak_flops_per_s, bytes_per_s, tokens, hidden, inter, topk, experts):
    """The fitter's model of one balanced fused-MoE layer on one GPU [µs]."""
    routes = tokens * topk
    touched = min(experts, routes)
    flops = 2 * 3 * routes * hidden * inter
    moved = touched * 3 * hidden * inter * (0.5 + 1 / 16) + routes * hidden * 2 * 2  # NVFP4
    return 1e6 * K.moe_time_s(
        flops, moved, routes / touched, routes * hidden, flops_per_s=peak_flops_per_s,
        bytes_per_s=bytes_per_s, compute=curve.compute, memory=curve.memory,
        fixed_s=curve.fixed_s, per_route_element_s=curve.per_route_element_s,
        tile_m=curve.tile_m, sharpness=curve.sharpness,
    )  # fmt: skip


def test_b200_trtllm_nvfp4_moe_curve_follows_the_regular_cutlass_kernels():
    # Llama 4 Scout's MoE layer (hidden 5,120, expert FFN 8,192, 16 experts, top-1;
    # meta-llama/Llama-4-Scout-17B-16E config.json) at 512 tokens on one B200, balanced routing,
    # aiconfigurator-core 0.12.0 b200_sxm/moe/trtllm/1.3.0rc20/moe_perf.parquet, nvfp4:
    # moe_torch_flow_cutlass 452.7 µs, moe_torch_flow_min_latency 184.5 µs. The curve must sit
    # nearer the regular kernels (what TensorRT-LLM runs by default) than the min-latency ones:
    # above their geometric mean sqrt(452.7 × 184.5) = 289.0 µs (fitted to both pooled it gave
    # 238.7 µs; fitted to the default path 358.2 µs).
    hw = load_hardware("b200")
    curve = hw.kernels.moe_engine["trtllm"]["fp4"]
    t = _moe_us(curve, hw.peak_flops_per_s["fp4"], hw.hbm_bandwidth_bytes_per_s,
                512, 5120, 8192, 1, 16)  # fmt: skip
    assert t > math.sqrt(452.7 * 184.5)
    assert t < 452.7 * curve.band[1]  # and not slower than the kernels themselves beyond its band
    assert "(13,986 rows)" in curve.source  # the 26,001 pooled rows less 12,015 min-latency ones
