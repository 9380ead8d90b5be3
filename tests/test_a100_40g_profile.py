"""The shipped A100 SXM4 40GB profile (hardware_profiles/a100-40g.yaml; newgpus round): its key
figures by hand, a roofline decode step at its own bandwidth, and the GPU names and memory totals
that map to it (kvcalc score's recorded GPU names, kvcalc log's printed totals)."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.engines.fromlog import hardware_of
from calc.deploy.engines.gpus import compute_capability
from calc.deploy.steps import decode_step
from calc.formulas.params import model_params
from calc.reports.score import hardware_for_gpu


def test_memory_and_bandwidth_by_hand():
    hw = load_hardware("a100-40g")
    # 40 GiB of HBM2 = 40 × 2^30 = 42,949,672,960 B (5 stacks × 8 GiB)
    assert hw.memory_bytes == 42_949_672_960
    # torch total_memory=40536MB: 40,536 × 2^20 = 42,505,076,736 B = 39.59 GiB, the pool's budget
    assert hw.usable_memory_bytes == hw.budget_memory_bytes == 42_505_076_736
    # A100 datasheet, 40GB SXM: 1,555 GB/s, against the 80GB part's 2,039 GB/s
    assert hw.hbm_bandwidth_bytes_per_s == 1_555_000_000_000
    assert load_hardware("a100-80g").hbm_bandwidth_bytes_per_s == 2_039_000_000_000
    # the same GA100 die: the same dense bf16 peak (108 SMs × 2,048 FLOP/clk × 1.41 GHz ≈ 312 T)
    assert hw.peak_flops_per_s == load_hardware("a100-80g").peak_flops_per_s
    assert hw.peak_flops_per_s["bf16"] == 312 * 10**12
    assert compute_capability(hw) == (8, 0)  # sm_80, as the 80GB part


def test_llama31_8b_bf16_batch1_speed_of_light_decode_step():
    cfg, hw = load_model("llama3.1-8b"), load_hardware("a100-40g")
    p = model_params(cfg)
    # weights read per step: all but the 128,256 × 4,096 = 525,336,576-parameter embedding table
    # (one row gathered): (8,030,261,248 − 525,336,576) × 2 B = 15,009,849,344 B
    weights = (p.total - p.embedding) * 2
    assert weights == 15_009_849_344
    # KV read at ctx 4,096: 32 layers × 2 × 8 heads × 128 × 2 B = 131,072 B/token × 4,096
    # = 536,870,912 B
    kv = 131_072 * 4096
    sol = decode_step(cfg, hw, batch=1, ctx=4096, efficiency="peak")
    # batch 1 is memory-bound everywhere (intensity ≈ 1-8 FLOP/B, ridge 312e12 / 1.555e12 = 200.6)
    assert all(o.bound == "memory" for o in sol.ops)
    assert sol.time_s == pytest.approx(sol.bytes / 1.555e12, rel=1e-12)
    # (15,009,849,344 + 536,870,912) B = 15,546,720,256 B / 1.555e12 B/s = 9.99789 ms
    assert (weights + kv) / 1.555e12 == pytest.approx(0.00999789084, rel=1e-9)
    weight_part = sum(o.weight_bytes for o in sol.raw)
    kv_part = sum(o.kv_bytes for o in sol.raw)
    assert weight_part == weights + 4096 * 2  # + the one embedding row gathered
    assert kv_part == kv + 131_072  # + the new token's K/V written
    # activations (each op's inputs and outputs) are < 0.03% of the traffic: 3.57 MB of 15.55 GB
    assert (sol.bytes - weight_part - kv_part) / sol.bytes < 3e-4
    assert sol.time_s == pytest.approx((weights + kv) / 1.555e12, rel=3e-4)
    # the 80GB part moves the same bytes at 2,039 GB/s: 2,039 / 1,555 = 1.3113 × faster
    sol80 = decode_step(cfg, load_hardware("a100-80g"), batch=1, ctx=4096, efficiency="peak")
    assert sol.time_s / sol80.time_s == pytest.approx(2039 / 1555, rel=1e-12)


def test_recorded_gpu_names_map_to_the_40gb_part():
    # nvidia-smi and torch spell it "NVIDIA A100-SXM4-40GB" (older drivers "A100-SXM4-40GB")
    assert hardware_for_gpu("NVIDIA A100-SXM4-40GB") == "a100-40g"
    assert hardware_for_gpu("A100-SXM4-40GB") == "a100-40g"
    assert hardware_for_gpu("NVIDIA A100-SXM4-80GB") == "a100-80g"  # unchanged


class _Facts:
    def __init__(self, total):
        self.printed = {"total_memory_bytes": total}


def test_a_log_printing_the_40gb_total_reads_as_a100_40g():
    # kvcalc log maps a printed device total to the profile whose torch total is within 0.3%:
    # 39.59 GiB (vLLM's 'Free memory on device (…/39.59 GiB)') → 40,536 MiB → a100-40g
    assert hardware_of(_Facts(39.59 * 2**30)) == "a100-40g"
    # 39.43 GiB (what the vLLM 0.19.1 A100 40GB log's utilisation notice implies: 2.35 / 0.0596)
    # is 0.4% below: no profile, as before (the reader does not derive a total from the notice)
    assert hardware_of(_Facts(2.35 / 0.0596 * 2**30)) is None
