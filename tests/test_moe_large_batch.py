"""TensorRT-LLM's fused-MoE curve at the token counts of the v1.0 throughput table's EP rows
(1,024-16,384 tokens gathered into each MoE layer a decode step, up to 65,536 in a prefill step)
against aiconfigurator's measured 1.3.0rc20 tables (issue 20, round 16; tools/moe_large_batch.py,
docs/step-time.md)."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.rates import op_time
from calc.deploy.steps import step_of


def _layer_us(hardware: str, fmt: str, tokens: int) -> float:
    """Qwen3-235B-A22B's routed experts, attention DP over 8 GPUs with EP 8, one decode step of
    ``tokens`` gathered tokens, balanced routing, at the 1.3 tables' speed (release 1.2.1: no
    release factor) [µs per layer]."""
    dep = Deployment.build(load_model("qwen3-235b-a22b"), load_hardware(hardware), ep=8,
                           weight_dtype=fmt, kv_dtype="fp8", moe_imbalance=1.0,
                           engine=EngineSettings(name="trtllm", version="1.2.1"))  # fmt: skip
    step = step_of(dep, batch=tokens, ctx=1500)
    op = next(o for o in step.raw if o.name == "routed_experts")
    return float(op_time(op, step.rates)) / op.layers * 1e6


# aiconfigurator-core 0.12.0, systems/data/<gpu>/moe/trtllm/1.3.0rc20/moe_perf.parquet, the
# default CUTLASS rows (kernel_source moe_torch_flow_cutlass) of Qwen3-235B-A22B's layer
# (hidden 4,096, 128 experts of 1,536, top-8, moe_tp 1, moe_ep 8, balanced) [µs]
MEASURED = {
    ("h200", "fp8-tensor"): {2048: 160.0, 4096: 217.8, 8192: 379.2, 16384: 713.9},
    ("b200", "nvfp4"): {2048: 111.2, 4096: 166.0, 8192: 256.3, 16384: 446.9},
}


@pytest.mark.parametrize("gpu_fmt", list(MEASURED))
def test_the_curve_holds_at_the_pages_decode_token_counts(gpu_fmt):
    # the page's Qwen3-235B rows decode 1,832-16,384 sequences over 8 ranks (padded to the
    # captured graphs: 2,048-16,384 tokens into each MoE layer); the curve is within 10% of
    # each measured row there (h200: -3.3%, +4.9%, +3.4%, +2.7%; b200: -9.2%, -7.6%, +2.6%,
    # +8.6%)
    for tokens, measured_us in MEASURED[gpu_fmt].items():
        assert _layer_us(*gpu_fmt, tokens) == pytest.approx(measured_us, rel=0.10)


def test_beyond_the_table_the_curve_continues_the_tables_last_segment():
    # a prefill step gathers up to 8 × 8,192 = 65,536 tokens, four times the table's last row.
    # The table's last segment on H200: (713.9 - 379.2) / (16,384 - 8,192) = 0.04086 µs a
    # token; continued: 713.9 + 49,152 × 0.04086 = 2,722 µs at 65,536 tokens
    continued_us = 713.9 + (65536 - 16384) * (713.9 - 379.2) / (16384 - 8192)
    assert continued_us == pytest.approx(2722, abs=1)
    assert _layer_us("h200", "fp8-tensor", 65536) == pytest.approx(continued_us, rel=0.05)
    # (kvcalc: 2,807.6 µs, +3.1%); and it grows linearly, not faster: 4× the tokens, 3.83×
    # the time (the fixed and per-expert costs do not grow)
    ratio = _layer_us("h200", "fp8-tensor", 65536) / _layer_us("h200", "fp8-tensor", 16384)
    assert 3.6 < ratio < 4.0
