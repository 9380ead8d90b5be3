"""Shipped hardware profiles: validation, datasheet arithmetic, ridge points, hostile copies.

Every expected value is written as the datasheet arithmetic it comes from (see each YAML's comments
and docs/hardware.md). Peaks are DENSE: NVIDIA prints tensor peaks "with sparsity", halved here.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from calc.data.registry import data_dir, hardware_names, load_hardware
from calc.formulas.roofline import ridge_point

GiB = 2**30
TERA = 10**12
PETA = 10**15

SHIPPED = [
    "a100-40g",
    "a100-80g",
    "a10g",
    "b200",
    "b300",
    "gb200",
    "gb300",
    "h100",
    "h100-pcie",
    "h20",
    "h200",
    "l4",
    "l40s",
    "mi300x",
    "mi325x",
    "mi355x",
    "rtx-4090",
    "rtx-5090",
    "rtx-pro-6000",
]


def test_every_shipped_name_is_covered_here():
    assert hardware_names() == sorted(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_yaml_validates_through_load_hardware(name):
    hw = load_hardware(name)
    assert hw.name == name
    assert "bf16" in hw.peak_flops_per_s
    assert "dense" in hw.peak_note.lower()
    assert hw.source and hw.price_source and hw.efficiency.source and hw.prices


@pytest.mark.parametrize("path", sorted(data_dir("hardware_profiles").glob("*.yaml")))
def test_every_file_by_path_validates(path):
    # Loading by path goes through the same strict schema as loading by name.
    assert load_hardware(str(path)).name == path.stem


# --- memory capacity: the vendor's "GB" label counts 2^30-byte units on every shipped part ------

MEMORY_BYTES = {
    "a100-40g": 40 * GiB,  # 40 × 1,073,741,824 = 42,949,672,960 (5 HBM2 stacks × 8 GiB)
    "a100-80g": 80 * GiB,  # 80 × 1,073,741,824 = 85,899,345,920 (nvidia-smi: 81,920 MiB)
    "h100": 80 * GiB,  # 85,899,345,920 (nvidia-smi: 81,559 MiB usable)
    "h100-pcie": 80 * GiB,  # 85,899,345,920 (nvidia-smi: 81,559 MiB usable)
    "h200": 141 * GiB,  # 141 × 1,073,741,824 = 151,397,597,184 (nvidia-smi: 143,771 MiB)
    "b200": 180 * GiB,  # 180 × 1,073,741,824 = 193,273,528,320 (nvidia-smi: 183,359 MiB)
    "gb200": 186 * GiB,  # 186 × 1,073,741,824 = 199,715,979,264 (nvidia-smi: 189,471 MiB)
    "l40s": 48 * GiB,  # 48 × 1,073,741,824 = 51,539,607,552 (ECC off: 49,152 MiB)
    "mi300x": 192 * GiB,  # 192 × 1,073,741,824 = 206,158,430,208 (ROCm: VRAM 192 GiB)
    "mi325x": 256 * GiB,  # 256 × 1,073,741,824 = 274,877,906,944 (ROCm: VRAM 256 GiB)
    "h20": 96 * GiB,  # 96 × 1,073,741,824 = 103,079,215,104 (torch: 97,285 MiB)
    "b300": 288 * GiB,  # 288 × 1,073,741,824 = 309,237,645,312 (8 × 36 GiB HBM3e stacks)
    "gb300": 288 * GiB,  # 309,237,645,312 (nvidia-smi: 284,208 MiB)
    "mi355x": 288 * GiB,  # 309,237,645,312 (8 × 36 GiB HBM3E stacks)
    "l4": 24 * GiB,  # 24 × 1,073,741,824 = 25,769,803,776 (nvidia-smi: 23,034 MiB, ECC on)
    "a10g": 24 * GiB,  # 25,769,803,776 (nvidia-smi: 23,028 MiB, ECC on)
    "rtx-4090": 24 * GiB,  # 25,769,803,776 (nvidia-smi: 24,564 MiB)
    "rtx-5090": 32 * GiB,  # 32 × 1,073,741,824 = 34,359,738,368 (nvidia-smi: 32,607 MiB)
    "rtx-pro-6000": 96 * GiB,  # 103,079,215,104 (nvidia-smi: 97,887 MiB)
}

# What nvidia-smi / rocm reports as usable [MiB]: must exceed the label read as 10^9 bytes, which is
# what shows the label is GiB (e.g. H100: 81,559 MiB × 2^20 = 85.5e9 B > 80e9 B).
REPORTED_MIB = {
    # A100-SXM4-40GB: nvidia-smi '19478MiB / 40960MiB' on a 2020s driver (search index file
    # 55216552280; older drivers print 40,536 MiB, e.g. 7320613109): 40,960 MiB = 40 GiB exactly
    "a100-40g": 40_960,
    "a100-80g": 81_920,
    "h100": 81_559,
    "h100-pcie": 81_559,
    "h200": 143_771,
    "b200": 183_359,
    "gb200": 189_471,
    "l40s": 46_068,  # with ECC enabled
    "mi300x": 8 * 25_767_706_624 // 2**20,  # 8 CPX partitions of 25,767,706,624 B = 196,592 MiB
    "gb300": 284_208,
    "l4": 23_034,  # with ECC enabled
    "a10g": 23_028,  # with ECC enabled
    "rtx-4090": 24_564,
    "rtx-5090": 32_607,
    "rtx-pro-6000": 97_887,
}


@pytest.mark.parametrize("name", SHIPPED)
def test_memory_bytes_is_label_times_gib(name):
    hw = load_hardware(name)
    assert hw.memory_bytes == MEMORY_BYTES[name]
    assert hw.memory_label_unit == "GiB"
    label_number = int(hw.memory_label.split()[0])
    assert hw.memory_bytes == label_number * GiB


@pytest.mark.parametrize("name", sorted(REPORTED_MIB))
def test_reported_capacity_rules_out_decimal_gb(name):
    hw = load_hardware(name)
    label_number = int(hw.memory_label.split()[0])
    reported_bytes = REPORTED_MIB[name] * 2**20
    assert reported_bytes > label_number * 10**9  # more than the label read as GB
    assert reported_bytes <= hw.memory_bytes  # never more than the label read as GiB


# --- dense peaks, exactly as the datasheet arithmetic gives them ---------------------------------

DENSE_BF16 = {
    "a100-40g": 312 * TERA,  # the same GA100 die and clock as the 80GB part: 312 dense (624 / 2)
    "a100-80g": 312 * TERA,  # datasheet dense 312 (624 sparse / 2)
    "h100": 989_400 * 10**9,  # 1,978.9 sparse / 2 = 989.45; the whitepaper prints dense 989.4
    "h100-pcie": 1513 * TERA // 2,  # 1,513 sparse / 2 = 756.5 TFLOPS
    "h200": 989_400 * 10**9,  # same GH100 as H100 SXM: 989.4 TFLOPS
    "b200": 36 * PETA // 8 // 2,  # HGX B200 36 PF sparse / 8 GPUs / 2 = 2.25 PFLOPS
    "gb200": 360 * PETA // 72 // 2,  # NVL72 360 PF sparse / 72 GPUs / 2 = 2.5 PFLOPS
    "l40s": 362_050 * 10**9,  # datasheet dense 362.05 (733 sparse)
    "mi300x": 1_307_400 * 10**9,  # AMD dense 1,307.4 (2,614.9 with sparsity)
    "mi325x": 1_307_400 * 10**9,  # same CDNA 3 compute as MI300X
    "h20": 148 * TERA,  # H20 specification: 148 TFLOPS dense (about 15% of H100's 989.4)
    "b300": 36 * PETA // 8 // 2,  # HGX B300 36 PF sparse / 8 GPUs / 2 = 2.25 PFLOPS
    "gb300": 360 * PETA // 72 // 2,  # NVL72 360 PF sparse / 72 GPUs / 2 = 2.5 PFLOPS
    "mi355x": 5_033_200 * 10**9 // 2,  # FP8 dense 5,033.2 / 2 = 2,516.6 TFLOPS
    "l4": 242 * TERA // 2,  # datasheet 242* sparse / 2 = 121 TFLOPS
    "a10g": 70 * TERA,  # 80 SMs × 512 FLOP/clk × 1.71 GHz = 70.04 -> the published 70 TFLOPS
    # Ada whitepaper: FP16/BF16 with FP32 accumulate 330.4 sparse / 2 = 165.2, NOT 82.6 (that is the
    # FP32 shader rate and dense TF32) and NOT 330.3 (that is FP16 accumulate)
    "rtx-4090": 165_200 * 10**9,
    "rtx-5090": 209_500 * 10**9,  # FP32 accumulate: 419 sparse / 2 = 209.5 (GeForce half rate)
    # 4,000 AI TOPS FP4 sparse / 2 = 2,000 dense; FP8 = / 2, BF16 = / 2 again: 500
    "rtx-pro-6000": 4000 * TERA // 2 // 2 // 2,
}


@pytest.mark.parametrize("name", SHIPPED)
def test_bf16_dense_peak(name):
    hw = load_hardware(name)
    assert hw.peak_flops_per_s["bf16"] == DENSE_BF16[name]
    assert hw.peak_flops_per_s["fp16"] == DENSE_BF16[name]  # fp16 = bf16 rate on all of these


@pytest.mark.parametrize(
    ("name", "fp8"),
    [
        ("h100", 1_978_900 * 10**9),  # 3,957.8 sparse / 2 = 1,978.9 = 2 × 989.45 (rounded peaks)
        ("h200", 1_978_900 * 10**9),  # 3,958 sparse / 2
        ("h100-pcie", 1513 * TERA),  # 3,026 sparse / 2 = 1,513 = 2 × 756.5 exactly
        ("b200", 72 * PETA // 8 // 2),  # 72 PF sparse / 8 / 2 = 4.5 PF = 2 × 2.25 exactly
        ("gb200", 720 * PETA // 72 // 2),  # 720 PF sparse / 72 / 2 = 5 PF = 2 × 2.5 exactly
        ("h20", 296 * TERA),  # H20 specification 296 TFLOPS dense = 2 × 148
        ("b300", 72 * PETA // 8 // 2),  # HGX B300 72 PF sparse / 8 / 2 = 4.5 PF
        ("gb300", 720 * PETA // 72 // 2),  # NVL72 720 PF sparse / 72 / 2 = 5 PF
        ("mi355x", 5_033_200 * 10**9),  # AMD prints 5,033.2 (see the CU arithmetic test below)
        ("l4", 485 * TERA // 2),  # 485* sparse / 2 = 242.5
        ("rtx-4090", 330_300 * 10**9),  # FP32 accumulate 330.3 dense (660.6 with FP16 accumulate)
        ("rtx-5090", 419 * TERA),  # FP32 accumulate 419 dense (838 with FP16 accumulate)
        ("rtx-pro-6000", 1000 * TERA),  # FP4 dense 2,000 / 2
    ],
)
def test_fp8_dense_peak_hopper_blackwell(name, fp8):
    hw = load_hardware(name)
    assert hw.peak_flops_per_s["fp8"] == fp8


@pytest.mark.parametrize(
    "name", ["h100-pcie", "b200", "gb200", "h20", "b300", "gb300", "mi355x", "rtx-pro-6000"]
)
def test_fp8_is_exactly_twice_bf16_where_the_datasheet_is_exact(name):
    # 1,513 = 2 × 756.5; 4.5 PF = 2 × 2.25 PF; 5 PF = 2 × 2.5 PF
    peaks = load_hardware(name).peak_flops_per_s
    assert peaks["fp8"] == 2 * peaks["bf16"]
    if "int8" in peaks:  # Blackwell Ultra (B300/GB300) cut INT8: no figure stored
        assert peaks["int8"] == peaks["fp8"]


@pytest.mark.parametrize("name", ["h100", "h200"])
def test_hopper_sxm_fp8_twice_bf16_up_to_datasheet_rounding(name):
    # 1,978.9 vs 2 × 989.4 = 1,978.8: both are roundings of 2 × 989.45 (132 SMs × 4096 × 1.83 GHz)
    peaks = load_hardware(name).peak_flops_per_s
    assert peaks["fp8"] - 2 * peaks["bf16"] == 100 * 10**9  # 1,978.9 - 1,978.8 = 0.1 TFLOPS


@pytest.mark.parametrize("name", ["mi300x", "mi325x"])
def test_amd_fp8_twice_bf16_up_to_datasheet_rounding(name):
    # AMD prints 2,614.9 and 1,307.4: 2 × 1,307.4 = 2,614.8, off by the 0.1 TFLOPS rounding
    peaks = load_hardware(name).peak_flops_per_s
    assert peaks["fp8"] == 2_614_900 * 10**9
    assert peaks["fp8"] - 2 * peaks["bf16"] == 100 * 10**9


@pytest.mark.parametrize(
    ("name", "fp4"),
    [
        ("b200", 9 * PETA),  # HGX 144 PF sparse / 8 / 2 = 9 PF
        ("gb200", 10 * PETA),  # NVL72 1,440 PF sparse / 72 / 2 = 10 PF
        ("rtx-pro-6000", 4000 * TERA // 2),  # 4,000 AI TOPS (FP4, sparse) / 2 = 2,000
        ("mi355x", 2 * 5_033_200 * 10**9),  # MXFP4 = 2 × FP8 dense = 10,066.4
    ],
)
def test_fp4_dense_four_times_bf16(name, fp4):  # the 2:1 ladder FP4 -> FP8 -> BF16
    peaks = load_hardware(name).peak_flops_per_s
    assert peaks["fp4"] == fp4
    assert peaks["fp4"] == 4 * peaks["bf16"]


def test_mi355x_fp8_from_compute_units():
    # ISSCC 2026: 8 XCDs × 32 CUs = 256 CUs × 8,192 FP8 FLOP/clk × 2.4 GHz = 5,033.16 TFLOPS,
    # printed by AMD as 5,033.2
    fp8 = load_hardware("mi355x").peak_flops_per_s["fp8"]
    assert fp8 == pytest.approx(256 * 8192 * 2.4e9, rel=1e-5)


def test_geforce_fp32_accumulate_runs_at_half_rate():
    # GeForce tensor cores halve FP16/BF16/FP8 throughput with FP32 accumulate (what torch uses);
    # int8 and FP4 keep the full rate, so int8 = 2 × fp8 and fp4 = 8 × bf16 on these cards.
    p4090 = load_hardware("rtx-4090").peak_flops_per_s
    assert p4090["int8"] == 2 * p4090["fp8"]  # 660.6 = 2 × 330.3
    # 4 × 165.2 = 660.8: the whitepaper rounds 165.15 up (128 SMs × 512 × 2.52 GHz = 165.15)
    assert p4090["int8"] == pytest.approx(4 * p4090["bf16"], abs=0.2e12)
    assert p4090["tf32"] == p4090["fp32"] == 82_600 * 10**9  # 82.6: TF32 dense = FP32 shader rate
    p5090 = load_hardware("rtx-5090").peak_flops_per_s
    assert p5090["fp4"] == 3352 * TERA // 2  # 3,352 AI TOPS (FP4, with sparsity) / 2 = 1,676
    assert p5090["fp4"] == 8 * p5090["bf16"]  # 1,676 = 8 × 209.5
    assert p5090["int8"] == 2 * p5090["fp8"]  # 838 = 2 × 419
    # the professional GB202 (RTX PRO 6000) runs FP32 accumulate at full rate
    pro = load_hardware("rtx-pro-6000").peak_flops_per_s
    assert pro["fp4"] == 4 * pro["bf16"] and pro["int8"] == pro["fp8"]


@pytest.mark.parametrize(
    ("name", "fp4"),
    [
        ("b300", 105 * PETA // 8),  # HGX B300: 105 PF DENSE for 8 GPUs (144 sparse): 13.125 PF
        ("gb300", 1080 * PETA // 72),  # NVL72 prints 1,080 PF DENSE for 72 GPUs: 15 PF
    ],
)
def test_blackwell_ultra_fp4_dense_is_printed_not_halved(name, fp4):
    peaks = load_hardware(name).peak_flops_per_s
    assert peaks["fp4"] == fp4
    assert peaks["fp4"] > 4 * peaks["bf16"]  # 13.125 > 9 and 15 > 10: Blackwell Ultra's FP4 uplift


FP4_PARTS = {"b200", "gb200", "b300", "gb300", "mi355x", "rtx-5090", "rtx-pro-6000"}


def test_only_blackwell_and_cdna4_have_fp4_and_ampere_has_no_fp8():
    for name in SHIPPED:
        peaks = load_hardware(name).peak_flops_per_s
        assert ("fp4" in peaks) == (name in FP4_PARTS), name
    for ampere in ("a100-40g", "a100-80g", "a10g"):
        assert "fp8" not in load_hardware(ampere).peak_flops_per_s


@pytest.mark.parametrize("name", SHIPPED)
def test_peak_ladder_is_monotone(name):
    # Lower precision is never slower: fp32 <= tf32 <= bf16 <= fp8 <= fp4 where present.
    peaks = load_hardware(name).peak_flops_per_s
    ladder = [peaks[d] for d in ("fp32", "tf32", "bf16", "fp8", "fp4") if d in peaks]
    assert ladder == sorted(ladder)


# --- ridge points: dense bf16 peak / HBM bandwidth [FLOP/byte] ----------------------------------

RIDGE_BF16 = {
    "a100-40g": 312e12 / 1.555e12,  # = 200.643...: the same peak over HBM2's 1,555 GB/s
    "a100-80g": 312e12 / 2.039e12,  # = 153.016...
    "h100": 989.4e12 / 3.35e12,  # = 295.343...
    "h100-pcie": 756.5e12 / 2.0e12,  # = 378.25
    "h200": 989.4e12 / 4.8e12,  # = 206.125
    "b200": 2.25e15 / 7.7e12,  # = 292.207...
    "gb200": 2.5e15 / 8.0e12,  # = 312.5
    "l40s": 362.05e12 / 864e9,  # = 419.039...
    "mi300x": 1307.4e12 / 5.3e12,  # = 246.679...
    "mi325x": 1307.4e12 / 6.0e12,  # = 217.9
    "h20": 148e12 / 4.0e12,  # = 37: a compute-capped part, ridge far below H100's 295
    "b300": 2.25e15 / 8.0e12,  # = 281.25
    "gb300": 2.5e15 / 8.0e12,  # = 312.5
    "mi355x": 2516.6e12 / 8.0e12,  # = 314.575
    "l4": 121e12 / 300e9,  # = 403.333...
    "a10g": 70e12 / 600e9,  # = 116.666...
    "rtx-4090": 165.2e12 / 1008e9,  # = 163.888...
    "rtx-5090": 209.5e12 / 1792e9,  # = 116.908...
    "rtx-pro-6000": 500e12 / 1792e9,  # = 279.017...
}


@pytest.mark.parametrize("name", SHIPPED)
def test_ridge_point_bf16(name):
    hw = load_hardware(name)
    got = ridge_point(hw.peak_flops_per_s["bf16"], hw.hbm_bandwidth_bytes_per_s)
    assert got == pytest.approx(RIDGE_BF16[name], rel=1e-12)


def test_ridge_points_exact_where_the_quotient_is_exact():
    h200, gb200, h100p = (load_hardware(n) for n in ("h200", "gb200", "h100-pcie"))
    assert ridge_point(h200.peak_flops_per_s["bf16"], h200.hbm_bandwidth_bytes_per_s) == 206.125
    assert ridge_point(gb200.peak_flops_per_s["bf16"], gb200.hbm_bandwidth_bytes_per_s) == 312.5
    assert ridge_point(h100p.peak_flops_per_s["bf16"], h100p.hbm_bandwidth_bytes_per_s) == 378.25


# --- bandwidths, interconnect (per direction), price ---------------------------------------------

HBM_BANDWIDTH = {
    "a100-40g": 1_555 * 10**9,  # 1,555 GB/s HBM2 (A100 datasheet, 40GB SXM column)
    "a100-80g": 2_039 * 10**9,  # 2,039 GB/s
    "h100": 3_350 * 10**9,  # 3.35 TB/s
    "h100-pcie": 2_000 * 10**9,  # 2 TB/s
    "h200": 4_800 * 10**9,  # 4.8 TB/s
    "b200": 7_700 * 10**9,  # 7,680-bit × 3,996 MHz × 2 / 8 = 7.672 TB/s, published 7.7
    "gb200": 8_000 * 10**9,  # 576 TB/s / 72
    "l40s": 864 * 10**9,  # 864 GB/s GDDR6
    "mi300x": 5_300 * 10**9,  # 5.3 TB/s
    "mi325x": 6_000 * 10**9,  # 6 TB/s
    "h20": 4_000 * 10**9,  # 4.0 TB/s HBM3
    "b300": 8_000 * 10**9,  # 8 TB/s HBM3e
    "gb300": 8_000 * 10**9,  # NVL72 576 TB/s / 72
    "mi355x": 8_000 * 10**9,  # 8 TB/s HBM3E
    "l4": 300 * 10**9,  # 300 GB/s GDDR6
    "a10g": 12_500 * 384 // 8 * 10**6,  # 12.5 Gbps × 384 bit / 8 = 600 GB/s GDDR6
    "rtx-4090": 21_000 * 384 // 8 * 10**6,  # 21 Gbps × 384 bit / 8 = 1,008 GB/s GDDR6X
    "rtx-5090": 28_000 * 512 // 8 * 10**6,  # 28 Gbps × 512 bit / 8 = 1,792 GB/s GDDR7
    "rtx-pro-6000": 28_000 * 512 // 8 * 10**6,  # 1,792 GB/s GDDR7
}

INTERCONNECT_PER_DIRECTION = {
    "a100-40g": 600 * 10**9 // 2,  # NVLink 3, the same HGX A100 board: 600 / 2 = 300 GB/s
    "a100-80g": 600 * 10**9 // 2,  # NVLink 3: 600 GB/s bidirectional / 2
    "h100": 900 * 10**9 // 2,  # NVLink 4: 900 GB/s bidirectional / 2
    "h200": 900 * 10**9 // 2,
    "b200": 1800 * 10**9 // 2,  # NVLink 5: 1.8 TB/s bidirectional / 2
    "gb200": 1800 * 10**9 // 2,  # NVLink 5: 1.8 TB/s per GPU (NVL72 130 TB/s / 72 = 1.806) / 2
    "h100-pcie": 128 * 10**9 // 2,  # PCIe Gen5 x16: 128 GB/s bidirectional / 2
    "l40s": 64 * 10**9 // 2,  # PCIe Gen4 x16: 64 GB/s bidirectional / 2
    "mi300x": 7 * 128 * 10**9 // 2,  # 7 xGMI links × 128 GB/s bidirectional / 2 = 448 GB/s
    "mi325x": 7 * 128 * 10**9 // 2,
    "h20": 900 * 10**9 // 2,  # NVLink 4
    "b300": 1800 * 10**9 // 2,  # NVLink 5
    "gb300": 1800 * 10**9 // 2,
    "mi355x": 7 * 153_600 * 10**6 // 2,  # 7 links × 153.6 GB/s bidirectional / 2 = 537.6 GB/s
    "l4": 64 * 10**9 // 2,  # PCIe Gen4 x16
    "a10g": 64 * 10**9 // 2,
    "rtx-4090": 64 * 10**9 // 2,
    "rtx-5090": 128 * 10**9 // 2,  # PCIe Gen5 x16
    "rtx-pro-6000": 128 * 10**9 // 2,
}


@pytest.mark.parametrize("name", SHIPPED)
def test_hbm_bandwidth(name):
    assert load_hardware(name).hbm_bandwidth_bytes_per_s == HBM_BANDWIDTH[name]


@pytest.mark.parametrize("name", SHIPPED)
def test_interconnect_is_per_direction(name):
    got = load_hardware(name).interconnect_bandwidth_bytes_per_s
    assert got == INTERCONNECT_PER_DIRECTION[name]


@pytest.mark.parametrize("name", SHIPPED)
def test_latency_price_and_bands_are_plausible(name):
    hw = load_hardware(name)
    assert 1e-7 < hw.interconnect_latency_s < 1e-4  # 0.1 us .. 100 us per hop
    assert 0.5 <= hw.usd_per_hour < 20
    assert hw.price_date >= "2026"
    for band in (hw.efficiency.matmul, hw.efficiency.memory):
        assert band.low <= band.expected <= band.high <= 1


@pytest.mark.parametrize(
    ("name", "usd", "kind"),
    [
        # the neocloud on-demand basis: the median of the providers' lists (prices.yaml)
        ("h100", (3.90 + 3.99) / 2, "median"),  # 3.20 3.85 3.90 | 3.99 3.99 6.155
        ("h200", 4.50, "median"),  # 3.99 4.29 4.50 4.59 6.305
        ("b200", 6.79, "median"),  # 6.00 6.69 6.79 7.15 8.60
        ("gb200", 42.00 / 4, "list"),  # CoreWeave's 4-GPU GB200 NVL72 slice $42.00/h
        ("a100-80g", 2.30, "median"),  # 1.60 1.79 2.30 2.70 2.79
        ("a100-40g", 1.99, "list"),  # Lambda 1x A100 SXM 40GB (silybench, 2026-09-25)
        ("l40s", (1.50 + 1.55) / 2, "median"),  # 1.09 1.50 | 1.55 2.25
        ("mi300x", (1.85 + 2.59) / 2, "median"),  # 1.50 1.85 | 2.59 3.45
        ("mi325x", 1.95, "list"),  # TensorWave
        ("rtx-4090", 0.74, "list"),  # RunPod Secure Cloud
        ("rtx-pro-6000", 1.85, "median"),  # 1.57 1.85 2.50
        ("b300", 7.40, "list"),  # Hyperstack
    ],
)
def test_neocloud_prices(name, usd, kind):
    p = load_hardware(name).price("neocloud_on_demand")
    assert p.usd_per_gpu_hour == pytest.approx(usd, rel=1e-12) and p.kind == kind
    assert load_hardware(name).usd_per_hour == p.usd_per_gpu_hour  # the reference price


def test_price_blocks_are_what_the_tool_writes():
    # hardware_profiles/*.yaml prices and board power are tools/profile_prices.py's output from
    # docs/validation/prices.yaml and board_power.yaml
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, str(root / "tools" / "profile_prices.py"), "--check"],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0, r.stderr


def test_prices_without_a_list_say_what_they_are():
    # no public list on the default basis: the profile carries what exists, by its kind
    assert load_hardware("a10g").price("neocloud_on_demand") is None  # an AWS-only part
    assert load_hardware("a10g").price("hyperscaler_on_demand").usd_per_gpu_hour == 1.006
    assert load_hardware("h20").price("neocloud_on_demand").kind == "placeholder"  # H100's
    assert load_hardware("gb300").price("neocloud_on_demand").kind == "placeholder"  # GB200's
    mi = load_hardware("mi355x")
    assert mi.price("neocloud_on_demand").kind == "derived"  # 6.125 / 2.75 = 2.23
    assert mi.price("neocloud_on_demand").usd_per_gpu_hour == 2.23
    # SemiAnalysis's TCO model (InferenceX constants.ts): MI355X costh 1.48, GB300 1.2 × 2.21
    owned = mi.price("owned_tco")
    assert owned.usd_per_gpu_hour == 1.48 and owned.kind == "estimate"
    g = load_hardware("gb300").price("owned_tco")
    assert g.kind == "derived" and g.usd_per_gpu_hour == pytest.approx(1.2 * 2.21, rel=1e-12)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_price_has_basis_kind_source_and_date(name):
    hw = load_hardware(name)
    assert len({p.basis for p in hw.prices}) == len(hw.prices)  # one per basis
    for p in hw.prices:
        assert p.source and p.date and p.kind
        if p.kind in ("median", "derived", "placeholder"):
            assert p.rule


def test_matmul_high_matches_measured_mamf():
    # stas00/ml-engineering MAMF bf16 (achieved / dense peak): the band's high edge
    mamf = {
        "a100-80g": 271.2 / 312,  # 0.869
        "h100": 794.5 / 989.4,  # 0.803
        "b200": 1745.0 / 2250,  # 0.776
        "gb200": 1822.0 / 2500,  # 0.729
    }
    for name, frac in mamf.items():
        assert load_hardware(name).efficiency.matmul.high == pytest.approx(frac, abs=0.011), name


def test_amd_bands_are_fitted_or_marked_unmeasured():
    """Issue 20: the CDNA3 bands are fitted to published MI300X serving runs
    (bench/validation_amd.py); MI325X's and MI355X's bf16/fp8/memory bands are marked assumed
    (unmeasured) and wide enough to hold what MI300X shows (its fitted band) and the CDNA
    best-shape GEMM ceiling (MAMF 0.60 of the bf16 peak, MI325X 784.9 of 1,307.4 TFLOPS), never
    a copy; MI355X's MXFP4 band is fitted to a published MXFP4 run and says so band by band
    (bench/validation_amd_serving.py, tests/test_amd_serving.py)."""
    mi300x, mi325x, mi355x = (load_hardware(n) for n in ("mi300x", "mi325x", "mi355x"))
    assert mi300x.efficiency.provenance == "fitted"
    for hw in (mi325x, mi355x):
        e = hw.efficiency
        assert e.provenance == "assumed" and "UNMEASURED" in e.source, hw.name
        for key in ("matmul", "matmul_fp8", "memory"):
            band, fitted = getattr(e, key), getattr(mi300x.efficiency, key)
            assert band.low <= fitted.low and fitted.high <= band.high, (hw.name, key)
        assert e.matmul.high >= 0.45  # 0.60 ceiling of the best shape; serving shapes below it
    assert mi355x.provenance["efficiency.matmul_fp4"].kind == "fitted"
    assert "efficiency.matmul_fp4" not in mi325x.provenance  # no fp4 units on CDNA3


# --- usable memory: what torch reports (cudaMemGetInfo total), beside the label -----------------

MiB = 2**20
USABLE_MIB = {
    "a100-40g": 40_536,  # torch total_memory=40536MB (A100-SXM4-40GB): 39.59 GiB
    "h100": 81_090,  # torch total_memory=81090MB; vLLM: 75.23 GiB / 0.95 = 79.19 GiB = 81,090.6 MiB
    "h100-pcie": 81_090,  # ASSUMED equal to H100 SXM (same 81,559 MiB in nvidia-smi)
    "h200": 143_156,  # torch total_memory=143156MB
    "b200": 182_642,  # torch total_memory=182642MB
    "gb200": 189_471 - (183_359 - 182_642),  # DERIVED: nvidia-smi − B200's 717 MiB = 188,754
    # DERIVED: 270 GiB enabled (Verda) × B200's torch/label 182,642 / 184,320 = 273,963 exactly
    "b300": 270 * 1024 * 182_642 // 184_320,
    "gb300": 284_208 - (183_359 - 182_642),  # DERIVED: 283,491
    "a100-80g": round(79.15 * 1024),  # torch 79.15 GiB × 1024 = 81,049.6 -> 81,050
    "h20": 97_285,  # torch total_memory=97285MB
    "l40s": 45_455,  # vLLM's mem_get_info total 44.39 GiB (ECC on): 44.39 × 1024 = 45,455.4
    # cudaMemGetInfo total 23,659,151,360 B = 22,563 × 2^20 + 131,072 = 22,563.125 MiB (22.03
    # GiB in vLLM 0.29 logs, ECC on): not a whole MiB, so stated to the 1/8 MiB
    "l4": 22_563.125,
    "a10g": 22_587,  # torch total_memory=22587MB (ECC on)
    "rtx-4090": round(23.64 * 1024),  # torch 23.64 GiB -> 24,207
    "rtx-5090": round(31.36 * 1024),  # torch 31.36 GiB -> 32,113
    "rtx-pro-6000": round(94.97 * 1024),  # CUDA total 94.97 GiB -> 97,249
    "mi300x": 192 * 1024 - 16,  # ROCm torch total_memory=196592MB = 192 GiB − 16 MiB
    "mi325x": 256 * 1024 - 16,  # DERIVED: the MI300X's 16 MiB reserve on 256 GiB = 262,128
    "mi355x": 288 * 1024 - 16,  # DERIVED: 294,896
}


@pytest.mark.parametrize("name", SHIPPED)
def test_usable_memory_is_sourced_and_below_the_label(name):
    hw = load_hardware(name)
    assert hw.usable_memory_bytes == USABLE_MIB[name] * MiB  # exact bytes (whole MiB but L4)
    assert hw.usable_memory_bytes < hw.memory_bytes  # the driver keeps some: never the label
    assert hw.usable_memory_bytes > 0.9 * hw.memory_bytes  # ...but never much (ECC GDDR: 1/16)
    assert hw.budget_memory_bytes == hw.usable_memory_bytes
    assert hw.usable_memory_source
    derived = "DERIVED" in hw.usable_memory_source
    # the parts whose usable memory is derived, not read from a published torch/engine figure
    assert derived == (name in {"gb200", "b300", "gb300", "h100-pcie", "mi325x", "mi355x"}), name


def test_gb300_enables_279_gib_by_the_b200_ratio():
    # 279 GiB × B200's nvidia-smi/label ratio (183,359 / 184,320) = 284,206.45 MiB, against
    # 284,208 MiB in GB300 nvidia-smi outputs: the rule behind the B300 derivation holds to 2 MiB
    assert 279 * 1024 * 183_359 / 184_320 == pytest.approx(284_208, abs=2)
    assert load_hardware("b300").usable_memory_bytes < load_hardware("gb300").usable_memory_bytes


def test_h100_usable_memory_matches_the_vllm_logs():
    # vLLM 0.19 prints "Requested memory: 0.95 (util), 75.23 GiB" on H100: 75.23 / 0.95 = 79.19 GiB
    hw = load_hardware("h100")
    assert hw.usable_memory_bytes / 2**30 == pytest.approx(75.23 / 0.95, abs=0.01)
    assert hw.memory_bytes / 2**30 - hw.usable_memory_bytes / 2**30 == pytest.approx(0.81, abs=0.01)


@pytest.mark.parametrize("name", sorted(REPORTED_MIB))
def test_usable_never_exceeds_what_nvidia_smi_shows(name):
    # torch's total (cudaMemGetInfo) is at most the nvidia-smi total
    hw = load_hardware(name)
    assert hw.usable_memory_bytes <= REPORTED_MIB[name] * MiB


def test_a_profile_without_usable_memory_budgets_from_the_label(tmp_path):
    # An older user profile (no usable_memory_bytes) still loads; budgets use the label
    data = yaml.safe_load((data_dir("hardware_profiles") / "h100.yaml").read_text())
    for key in (
        "usable_memory_bytes",
        "usable_memory_source",
        "scale_up_domain_gpus",
        "interconnect_source",
        "scale_out",
    ):
        del data[key]
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    hw = load_hardware(str(path))
    assert hw.usable_memory_bytes is None and hw.budget_memory_bytes == 80 * GiB


# --- interconnect: scale-up domain and scale-out network, each sourced ----------------------------

DOMAIN = {
    "h100": 8, "h200": 8, "b200": 8, "b300": 8, "a100-80g": 8, "h20": 8,  # HGX boards: NVSwitch
    "a100-40g": 8,
    "gb200": 72, "gb300": 72,  # NVL72 racks
    "mi300x": 8, "mi325x": 8, "mi355x": 8,  # xGMI mesh on one UBB baseboard
    "h100-pcie": 1, "l40s": 1, "l4": 1, "a10g": 1,  # PCIe cards
    "rtx-4090": 1, "rtx-5090": 1, "rtx-pro-6000": 1,
}  # fmt: skip

SCALE_OUT_PER_DIRECTION = {
    "h100": 400 * 10**9 // 8,  # ConnectX-7 400 Gb/s per GPU = 50 GB/s
    "h200": 400 * 10**9 // 8,
    "h20": 400 * 10**9 // 8,
    "b200": 400 * 10**9 // 8,
    "gb200": 400 * 10**9 // 8,
    "b300": 800 * 10**9 // 8,  # ConnectX-8 800 Gb/s per GPU = 100 GB/s
    "gb300": 800 * 10**9 // 8,
    "a100-80g": 200 * 10**9 // 8,  # ConnectX-6 HDR 200 Gb/s per GPU = 25 GB/s
    "a100-40g": 200 * 10**9 // 8,  # the same DGX A100 fabric: 25 GB/s
    "h100-pcie": 400 * 10**9 // 8 // 2,  # one 400 Gb/s NIC per two cards = 25 GB/s
    "mi300x": 400 * 10**9 // 8,
    "mi325x": 400 * 10**9 // 8,
    "mi355x": 400 * 10**9 // 8,
    "rtx-pro-6000": 400 * 10**9 // 8,
    "l40s": 400 * 10**9 // 8 // 8,  # g6e.48xlarge 400 Gbps / 8 GPUs = 6.25 GB/s
    "l4": 100 * 10**9 // 8 // 8,  # g6.48xlarge 100 Gbps / 8 GPUs = 1.5625 GB/s
    "a10g": 100 * 10**9 // 8 // 8,  # g5.48xlarge 100 Gbps / 8 GPUs
    "rtx-4090": 100 * 10**9 // 8 // 8,  # assumed 100 GbE per 8-GPU host
    "rtx-5090": 100 * 10**9 // 8 // 8,
}


@pytest.mark.parametrize("name", SHIPPED)
def test_scale_up_domain_and_scale_out(name):
    hw = load_hardware(name)
    assert hw.scale_up_domain_gpus == DOMAIN[name]
    assert hw.interconnect_source
    out = hw.scale_out
    assert out is not None and out.fabric and out.source
    assert out.bandwidth_bytes_per_s == SCALE_OUT_PER_DIRECTION[name]
    assert out.latency_s == 4.0e-6  # NCCL tuning.cc hwLat[NET][Ring][LL128] = 4.0 us
    # leaving the node is never faster than staying in it: NIC below the scale-up link, slower hop
    assert out.bandwidth_bytes_per_s <= hw.interconnect_bandwidth_bytes_per_s
    assert out.latency_s > hw.interconnect_latency_s


@pytest.mark.parametrize("name", SHIPPED)
def test_every_figure_that_moves_a_speed_says_what_it_is(name):
    hw = load_hardware(name)
    for key in ("peak_flops_per_s", "hbm_bandwidth_bytes_per_s", "interconnect",
                "usable_memory_bytes", "scale_out", "kernel_overhead_s"):  # fmt: skip
        f = hw.provenance[key]
        assert f.kind in ("published", "measured", "fitted", "derived", "assumed", "copied")
        assert f.source and (f.kind != "copied" or f.copied_from)
    assert hw.efficiency.provenance or "efficiency" in hw.provenance


def test_board_power_is_sourced():
    # docs/validation/board_power.yaml: MLPerf v5.1 submitters' "B200 TGP 1000W", "GB200 TGP
    # 1200W", "MI355X TGP 1400W"; the H100 SXM 700 W (Hugging Face's hardware table)
    watts = {"b200": 1000, "gb200": 1200, "mi355x": 1400, "h100": 700, "h200": 700}
    for name, w in watts.items():
        bp = load_hardware(name).board_power
        assert bp.watts == w and bp.source
    assert load_hardware("a10g").board_power is None  # NVIDIA publishes no A10G figure


# --- a sparse-sized typo in shipped data is caught by the exact datasheet checks above ----------


def test_a_sparse_sized_bf16_would_fail_the_dense_check():
    # Doubling any shipped bf16 (the "with sparsity" figure) breaks DENSE_BF16 equality.
    for name in SHIPPED:
        sparse = 2 * load_hardware(name).peak_flops_per_s["bf16"]
        assert sparse != DENSE_BF16[name]


# --- hostile copies through the CLI: exit 2, one line naming the file and the field --------------


def _hostile(tmp_path, mutate, base="h100"):
    src = data_dir("hardware_profiles") / f"{base}.yaml"
    data = yaml.safe_load(src.read_text())
    mutate(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _set(key, value):
    def mutate(d):
        d[key] = value

    return mutate


def _peak(dtype, value):
    def mutate(d):
        d["peak_flops_per_s"][dtype] = value

    return mutate


def _drop_peak(dtype):
    def mutate(d):
        del d["peak_flops_per_s"][dtype]

    return mutate


def _price(**changes):
    def mutate(d):
        d["prices"][0].update(changes)

    return mutate


def _price_twice():
    def mutate(d):
        d["prices"].append(dict(d["prices"][0]))

    return mutate


def _drop(key):
    def mutate(d):
        del d[key]

    return mutate


def _drop_provenance(key):
    def mutate(d):
        del d["provenance"][key]

    return mutate


def _band(which, **edges):
    def mutate(d):
        d["efficiency"][which].update(edges)

    return mutate


HBM = "hbm_bandwidth_bytes_per_s"
HOSTILE = [
    ("negative bandwidth", _set(HBM, -3.35e12), HBM),
    ("NaN bandwidth", _set(HBM, math.nan), HBM),
    ("infinite peak", _peak("bf16", math.inf), "peak_flops_per_s"),
    ("negative peak", _peak("fp8", -1.9789e15), "peak_flops_per_s"),
    ("peak as text", _peak("bf16", "989 TFLOPS"), "peak_flops_per_s"),
    ("unknown dtype", _peak("bf16_sparse", 1.9789e15), "peak_flops_per_s"),
    ("sparse field", _set("peak_sparse", {"bf16": 1.9789e15}), "peak_sparse"),
    ("no bf16 peak", _drop_peak("bf16"), "peak_flops_per_s"),
    ("zero memory", _set("memory_bytes", 0), "memory_bytes"),
    ("memory as float", _set("memory_bytes", 8.0e10), "memory_bytes"),
    ("TB label unit", _set("memory_label_unit", "TB"), "memory_label_unit"),
    ("NaN interconnect", _set("interconnect_bandwidth_bytes_per_s", math.nan), "interconnect"),
    ("negative latency", _set("interconnect_latency_s", -5e-6), "interconnect_latency_s"),
    ("bad price date", _price(date="June 2025"), "prices.0.date"),
    ("free GPU", _price(usd_per_gpu_hour=0), "prices.0.usd_per_gpu_hour"),
    ("price with no basis", _price(basis="cheap"), "prices.0.basis"),
    ("two prices on a basis", _price_twice(), "one price per basis"),
    ("no provenance", _drop("provenance"), "provenance"),
    ("peak of no provenance", _drop_provenance("peak_flops_per_s"), "peak_flops_per_s"),
    ("efficiency > 1", _band("matmul", high=1.5), "efficiency.matmul.high"),
    ("usable above label", _set("usable_memory_bytes", 90 * GiB), "usable_memory_bytes"),
    ("usable as float", _set("usable_memory_bytes", 8.5e10), "usable_memory_bytes"),
    ("zero domain", _set("scale_up_domain_gpus", 0), "scale_up_domain_gpus"),
    ("scale-out unknown key", _set("scale_out", {"fabric": "IB", "gbps": 400}), "scale_out"),
    ("unordered band", _band("memory", low=0.95, expected=0.9), "efficiency.memory"),
]


@pytest.mark.parametrize(("case", "mutate", "field"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_profile_rejected_by_cli(cli, tmp_path, case, mutate, field):
    bad = _hostile(tmp_path, mutate)
    r = cli("memory", "--model", "llama3-8b", "--ctx", "1024", "--hardware", str(bad))
    assert r.code == 2, (case, r.out, r.err)
    lines = [ln for ln in r.err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, r.err  # one line, no traceback
    assert str(bad) in lines[0] or "bad.yaml" in lines[0]
    assert field in lines[0], lines[0]
    assert "Traceback" not in r.err


def test_a_valid_copy_still_loads_through_cli(cli, tmp_path):
    good = _hostile(tmp_path, lambda d: None)
    r = cli("memory", "--model", "llama3-8b", "--ctx", "1024", "--hardware", str(good))
    assert r.code == 0, r.err


# --- `kvcalc hardware` lists usable memory, the NVLink domain and the price source/date ---------


def test_hardware_listing_shows_usable_memory_domain_prices_and_provenance(cli, monkeypatch):
    out = cli("hardware", "-f", "json").json()["hardware"]
    rows = {r["name"]: r for r in out}
    assert sorted(rows) == sorted(SHIPPED)
    h100 = rows["h100"]
    assert h100["memory_bytes"] == 80 * GiB  # 85,899,345,920
    assert h100["usable_memory_bytes"] == 81_090 * MiB  # 85,029,027,840 (79.19 GiB)
    assert h100["scale_up_domain_gpus"] == 8
    assert h100["scale_out_bandwidth_bytes_per_s"] == 50 * 10**9
    assert h100["usd_per_gpu_hour"] == 3.945 and h100["price_basis"] == "neocloud_on_demand"
    assert h100["board_power_w"] == 700
    bases = [p["basis"] for p in h100["prices"]]
    assert bases[0] == "neocloud_on_demand" and "owned_tco" in bases
    prov = {p["figure"]: p for p in h100["provenance"]}
    assert prov["usable_memory_bytes"]["kind"] == "measured"
    assert (prov["kernel_overhead_s"]["kind"], prov["kernel_overhead_s"]["copied_from"]) == (
        "copied",
        "a100-80g",
    )
    assert prov["board_power_w"]["kind"] == "published" and prov["board_power_w"]["source"]
    assert rows["gb300"]["scale_up_domain_gpus"] == 72
    assert rows["rtx-4090"]["scale_up_domain_gpus"] == 1
    assert rows["mi355x"]["weakest_provenance"].startswith("assumed")  # its bands
    csv = cli("hardware", "-f", "csv").out
    assert "neocloud_on_demand $3.945 (median, 2026-11-09)" in csv
    monkeypatch.setenv("COLUMNS", "400")  # no header folds (calc.output.table_layout)
    table = cli("hardware").out
    for text in ("usable_memory_bytes", "scale_up_domain_gpus", "(79.19",
                 "neocloud_on_demand median 2026-11-09", "weakest_provenance"):  # fmt: skip
        assert text in table, text
