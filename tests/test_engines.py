"""Engine KV budgets (vLLM, SGLang, TensorRT-LLM) as the ledger applies them, with
hand-derived values. The engines' own accounting is tested term by term in
tests/test_engine_memory.py; here: the budget formulas and that `capacity` uses them."""

from __future__ import annotations

import pytest

import calc.deploy.engines.sglang.memory as sg
import calc.deploy.engines.trtllm.memory as trt
import calc.deploy.engines.vllm.memory as vl

U = 85_029_027_840  # H100 80GB as torch reports it: 81,090 MiB
W = 16_060_522_496  # Llama 3 8B bf16: 8,030,261,248 params × 2 bytes
A = 1_073_741_824  # 1 GiB activation peak
OV = 536_870_912  # 0.5 GiB non-torch


def test_vllm_budget():
    # 0.9 × 85,029,027,840 = 76,526,125,056; − 16,060,522,496 − 1,073,741,824 − 536,870,912
    # = 58,854,989,824
    got = vl.available_kv_bytes(vl.requested_memory_bytes(U, 0.9), W, A, OV)
    assert got == pytest.approx(58_854_989_824, abs=1)


def test_sglang_budget_leaves_activations_to_the_static_remainder():
    # the free memory before the weights, pre = U − O = 84,492,156,928; (pre − W) − pre × 0.1
    # = 0.9 × 84,492,156,928 − 16,060,522,496 = 76,042,941,235.2 − 16,060,522,496
    # = 59,982,418,739.2 (no activation term; the non-torch share scaled by the fraction)
    assert sg.rest_memory_bytes(U, 0.9, W, OV) == pytest.approx(59_982_418_739.2, abs=1)


def test_trtllm_budget_is_a_fraction_of_what_is_free():
    # U − W − A − O = 67,357,892,608; × 0.9 = 60,622,103,347.2
    free = trt.free_memory_bytes(U, W, A, OV)
    assert free == 67_357_892_608
    assert free * 0.9 == pytest.approx(60_622_103_347.2, abs=1)


def test_engines_through_the_cli(cli):
    args = ["capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "--mem-util", "0.9"]
    args += ["--overhead", "0.5GiB", "-f", "json"]
    version = {"vllm": "0.19", "sglang": "0.5.23", "trtllm": "1.0"}
    budgets = {e: cli(*args, "--engine", e, "--engine-version", version[e]).json()
               ["kv_budget_bytes"] for e in vl_sg_trt()}  # fmt: skip
    assert budgets == {
        # vLLM subtracts its modelled profiling peak, 2,038,562,816 B (tests/test_capacity.py),
        # and the RoPE table built with the model, 8,192 × 128 × 2 = 2,097,152 B:
        # 76,526,125,056 − 16,060,522,496 − 2,097,152 − 2,038,562,816 − 536,870,912
        # = 57,888,071,680
        "vllm": 57_888_071_680,
        # see test_sglang_budget…: no activation peak; less the RoPE table, FP32 on CUDA from
        # 0.4.3, 8,192 × 128 × 4 = 4,194,304 B, and the allocator's segment tails the weight
        # load holds (tests/test_sglang_weight_segments.py): the table's 2 MiB temporaries
        # (freqs, cos, sin) and the 4 MiB table share a 20 MiB segment, 16 MiB unused while the
        # table lives, and 65 norms × 8,192 B = 532,480 B of a 2 MiB small segment leave
        # 1,564,672 B (every projection and the embedding are whole 2 MiB): 16,777,216 +
        # 1,564,672 = 18,341,888 B; 59,982,418,739.2 − 4,194,304 − 18,341,888 (floored)
        "sglang": 59_959_882_547,
        # TensorRT-LLM's profiling pass: dummy requests of max_seq_len (Llama 3 8B's 8,192)
        # within max_num_tokens 8,192: one request, one row of logits; the widest layer sets
        # the peak: 134,217,728 + 8,192 × 43,008 × 2 = 838,860,800 B of activation;
        # 0.9 × (85,029,027,840 − 16,060,522,496 − 838,860,800 − 536,870,912)
        # = 0.9 × 67,592,773,632 = 60,833,496,268.8 -> floor
        "trtllm": 60_833_496_268,
    }
    r = cli(*args, "--engine", "tgi")
    assert r.code == 2
    assert "--engine 'tgi' is not one of: vllm, sglang, trtllm" in r.err


def vl_sg_trt():
    return ("vllm", "sglang", "trtllm")


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
    requested = vl.requested_memory_bytes(79.18, 0.9)
    got = vl.available_kv_bytes(requested, weights_gib, activation_gib, non_torch_gib)
    assert got == pytest.approx(kv_gib, abs=0.011)  # the log rounds each figure to 0.01 GiB
