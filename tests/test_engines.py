"""Engine KV-budget definitions (vLLM, SGLang, TensorRT-LLM) with hand-derived values."""

from __future__ import annotations

import pytest

from calc.engines import (
    ENGINES,
    engine_kv_budget_bytes,
    sglang_kv_budget_bytes,
    trtllm_kv_budget_bytes,
    vllm_kv_budget_bytes,
)
from calc.errors import UnknownNameError

M = 85_899_345_920  # H100 80 GiB = 80 × 2^30
W = 16_060_522_496  # Llama 3 8B bf16: 8,030,261,248 params × 2 bytes
A = 1_073_741_824  # 1 GiB activation peak
OV = 536_870_912  # 0.5 GiB non-torch


def test_vllm_budget():
    # 0.9 × 85,899,345,920 = 77,309,411,328; − 16,060,522,496 − 1,073,741,824 − 536,870,912
    # = 59,638,276,096
    assert vllm_kv_budget_bytes(M, 0.9, W, A, OV) == pytest.approx(59_638_276_096, abs=1)


def test_sglang_budget_leaves_activations_to_the_static_remainder():
    # (M − W − O) − M × 0.1 = 0.9 M − W − O = 77,309,411,328 − 16,060,522,496 − 536,870,912
    # = 60,712,017,920 (activations not subtracted)
    assert sglang_kv_budget_bytes(M, 0.9, W, A, OV) == pytest.approx(60_712_017_920, abs=1)
    assert sglang_kv_budget_bytes(M, 0.9, W, 0, OV) == sglang_kv_budget_bytes(M, 0.9, W, A, OV)


def test_trtllm_budget_is_a_fraction_of_what_is_free():
    # M − W − A − O = 68,228,210,688; × 0.9 = 61,405,389,619.2
    assert trtllm_kv_budget_bytes(M, 0.9, W, A, OV) == pytest.approx(61_405_389_619.2, abs=1)


def test_dispatch_and_unknown_engine():
    got = engine_kv_budget_bytes("vllm", M, 0.9, W, A, OV)
    assert got == vllm_kv_budget_bytes(M, 0.9, W, A, OV)
    with pytest.raises(UnknownNameError, match="unknown engine 'vlm'; did you mean 'vllm'"):
        engine_kv_budget_bytes("vlm", M, 0.9, W, A, OV)


def test_every_engine_cites_its_source_file():
    for eng in ENGINES.values():
        assert ".py" in eng.source or ".md" in eng.source


def test_engines_through_the_cli(cli):
    args = ["capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192"]
    args += ["--activation", "1GiB", "--overhead", "0.5GiB", "-f", "json"]
    budgets = {e: cli(*args, "--engine", e).json()["kv_budget_bytes"] for e in ENGINES}
    assert budgets == {
        "vllm": 59_638_276_096,  # see test_vllm_budget
        "sglang": 60_712_017_920,  # see test_sglang_budget…
        "trtllm": 61_405_389_619,  # floor(61,405,389,619.2)
    }
    r = cli(*args, "--engine", "tgi")
    assert r.code == 2
    assert "--engine 'tgi' is not one of: vllm, sglang, trtllm" in r.err


@pytest.mark.parametrize(
    "weights_gib, activation_gib, non_torch_gib, kv_gib",
    [
        # llm-d/llm-d-benchmark config_explorer/empirical-vllm-memory-results.md: vLLM start-up
        # logs on H100 (79.18 GiB total, gpu_memory_utilization 0.9 -> 71.262 GiB)
        (14.99, 4.76, 0.13, 51.38),  # Llama-3.1-8B: 71.262 − 14.99 − 4.76 − 0.13 = 51.382
        (13.47, 7.38, 0.13, 50.28),  # GPT-OSS-20B: 71.262 − 13.47 − 7.38 − 0.13 = 50.282
        (33.88, 4.84, 0.55, 32.0),  # Llama-3.3-70B-FP8 TP2: 71.262 − 33.88 − 4.84 − 0.55 = 31.992
    ],
)
def test_vllm_formula_reproduces_logged_kv_memory(
    weights_gib, activation_gib, non_torch_gib, kv_gib
):
    got = vllm_kv_budget_bytes(79.18, 0.9, weights_gib, activation_gib, non_torch_gib)
    assert got == pytest.approx(kv_gib, abs=0.011)  # the log rounds each figure to 0.01 GiB
