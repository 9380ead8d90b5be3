"""Shipped hardware profiles: validation, datasheet arithmetic, ridge points, hostile copies.

Every expected value is written as the datasheet arithmetic it comes from (see each YAML's comments
and docs/hardware.md). Peaks are DENSE: NVIDIA prints tensor peaks "with sparsity", halved here.
"""

from __future__ import annotations

import math

import pytest
import yaml

from calc.registry import data_dir, hardware_names, load_hardware
from calc.roofline import ridge_point

GiB = 2**30
TERA = 10**12
PETA = 10**15

SHIPPED = [
    "a100-80g",
    "b200",
    "gb200",
    "h100",
    "h100-pcie",
    "h200",
    "l40s",
    "mi300x",
    "mi325x",
]


def test_every_shipped_name_is_covered_here():
    assert hardware_names() == sorted(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_yaml_validates_through_load_hardware(name):
    hw = load_hardware(name)
    assert hw.name == name
    assert "bf16" in hw.peak_flops_per_s
    assert "dense" in hw.peak_note.lower()
    assert hw.source and hw.price_source and hw.efficiency.source


@pytest.mark.parametrize("path", sorted(data_dir("hardware_profiles").glob("*.yaml")))
def test_every_file_by_path_validates(path):
    # Loading by path goes through the same strict schema as loading by name.
    assert load_hardware(str(path)).name == path.stem


# --- memory capacity: the vendor's "GB" label counts 2^30-byte units on every shipped part ------

MEMORY_BYTES = {
    "a100-80g": 80 * GiB,  # 80 × 1,073,741,824 = 85,899,345,920 (nvidia-smi: 81,920 MiB)
    "h100": 80 * GiB,  # 85,899,345,920 (nvidia-smi: 81,559 MiB usable)
    "h100-pcie": 80 * GiB,  # 85,899,345,920 (nvidia-smi: 81,559 MiB usable)
    "h200": 141 * GiB,  # 141 × 1,073,741,824 = 151,397,597,184 (nvidia-smi: 143,771 MiB)
    "b200": 180 * GiB,  # 180 × 1,073,741,824 = 193,273,528,320 (nvidia-smi: 183,359 MiB)
    "gb200": 186 * GiB,  # 186 × 1,073,741,824 = 199,715,979,264 (nvidia-smi: 189,471 MiB)
    "l40s": 48 * GiB,  # 48 × 1,073,741,824 = 51,539,607,552 (ECC off: 49,152 MiB)
    "mi300x": 192 * GiB,  # 192 × 1,073,741,824 = 206,158,430,208 (ROCm: VRAM 192 GiB)
    "mi325x": 256 * GiB,  # 256 × 1,073,741,824 = 274,877,906,944 (ROCm: VRAM 256 GiB)
}

# What nvidia-smi / rocm reports as usable [MiB]: must exceed the label read as 10^9 bytes, which is
# what shows the label is GiB (e.g. H100: 81,559 MiB × 2^20 = 85.5e9 B > 80e9 B).
REPORTED_MIB = {
    "a100-80g": 81_920,
    "h100": 81_559,
    "h100-pcie": 81_559,
    "h200": 143_771,
    "b200": 183_359,
    "gb200": 189_471,
    "l40s": 46_068,  # with ECC enabled
    "mi300x": 8 * 25_767_706_624 // 2**20,  # 8 CPX partitions of 25,767,706,624 B = 196,592 MiB
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
    "a100-80g": 312 * TERA,  # datasheet dense 312 (624 sparse / 2)
    "h100": 989_400 * 10**9,  # 1,978.9 sparse / 2 = 989.45; the whitepaper prints dense 989.4
    "h100-pcie": 1513 * TERA // 2,  # 1,513 sparse / 2 = 756.5 TFLOPS
    "h200": 989_400 * 10**9,  # same GH100 as H100 SXM: 989.4 TFLOPS
    "b200": 36 * PETA // 8 // 2,  # HGX B200 36 PF sparse / 8 GPUs / 2 = 2.25 PFLOPS
    "gb200": 360 * PETA // 72 // 2,  # NVL72 360 PF sparse / 72 GPUs / 2 = 2.5 PFLOPS
    "l40s": 362_050 * 10**9,  # datasheet dense 362.05 (733 sparse)
    "mi300x": 1_307_400 * 10**9,  # AMD dense 1,307.4 (2,614.9 with sparsity)
    "mi325x": 1_307_400 * 10**9,  # same CDNA 3 compute as MI300X
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
    ],
)
def test_fp8_dense_peak_hopper_blackwell(name, fp8):
    hw = load_hardware(name)
    assert hw.peak_flops_per_s["fp8"] == fp8


@pytest.mark.parametrize("name", ["h100-pcie", "b200", "gb200"])
def test_fp8_is_exactly_twice_bf16_where_the_datasheet_is_exact(name):
    # 1,513 = 2 × 756.5; 4.5 PF = 2 × 2.25 PF; 5 PF = 2 × 2.5 PF
    peaks = load_hardware(name).peak_flops_per_s
    assert peaks["fp8"] == 2 * peaks["bf16"]
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


@pytest.mark.parametrize(("name", "fp4"), [("b200", 9 * PETA), ("gb200", 10 * PETA)])
def test_blackwell_fp4_dense(name, fp4):
    # B200: HGX 144 PF sparse / 8 / 2 = 9 PF; GB200: NVL72 1,440 PF sparse / 72 / 2 = 10 PF
    peaks = load_hardware(name).peak_flops_per_s
    assert peaks["fp4"] == fp4
    assert peaks["fp4"] == 4 * peaks["bf16"]


def test_only_blackwell_has_fp4_and_ampere_has_no_fp8():
    for name in SHIPPED:
        peaks = load_hardware(name).peak_flops_per_s
        assert ("fp4" in peaks) == (name in {"b200", "gb200"}), name
    assert "fp8" not in load_hardware("a100-80g").peak_flops_per_s


@pytest.mark.parametrize("name", SHIPPED)
def test_peak_ladder_is_monotone(name):
    # Lower precision is never slower: fp32 <= tf32 <= bf16 <= fp8 <= fp4 where present.
    peaks = load_hardware(name).peak_flops_per_s
    ladder = [peaks[d] for d in ("fp32", "tf32", "bf16", "fp8", "fp4") if d in peaks]
    assert ladder == sorted(ladder)


# --- ridge points: dense bf16 peak / HBM bandwidth [FLOP/byte] ----------------------------------

RIDGE_BF16 = {
    "a100-80g": 312e12 / 2.039e12,  # = 153.016...
    "h100": 989.4e12 / 3.35e12,  # = 295.343...
    "h100-pcie": 756.5e12 / 2.0e12,  # = 378.25
    "h200": 989.4e12 / 4.8e12,  # = 206.125
    "b200": 2.25e15 / 7.7e12,  # = 292.207...
    "gb200": 2.5e15 / 8.0e12,  # = 312.5
    "l40s": 362.05e12 / 864e9,  # = 419.039...
    "mi300x": 1307.4e12 / 5.3e12,  # = 246.679...
    "mi325x": 1307.4e12 / 6.0e12,  # = 217.9
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
    "a100-80g": 2_039 * 10**9,  # 2,039 GB/s
    "h100": 3_350 * 10**9,  # 3.35 TB/s
    "h100-pcie": 2_000 * 10**9,  # 2 TB/s
    "h200": 4_800 * 10**9,  # 4.8 TB/s
    "b200": 7_700 * 10**9,  # 7,680-bit × 3,996 MHz × 2 / 8 = 7.672 TB/s, published 7.7
    "gb200": 8_000 * 10**9,  # 576 TB/s / 72
    "l40s": 864 * 10**9,  # 864 GB/s GDDR6
    "mi300x": 5_300 * 10**9,  # 5.3 TB/s
    "mi325x": 6_000 * 10**9,  # 6 TB/s
}

INTERCONNECT_PER_DIRECTION = {
    "a100-80g": 600 * 10**9 // 2,  # NVLink 3: 600 GB/s bidirectional / 2
    "h100": 900 * 10**9 // 2,  # NVLink 4: 900 GB/s bidirectional / 2
    "h200": 900 * 10**9 // 2,
    "b200": 1800 * 10**9 // 2,  # NVLink 5: 1.8 TB/s bidirectional / 2
    "gb200": 1800 * 10**9 // 2,  # NVLink 5: 1.8 TB/s per GPU (NVL72 130 TB/s / 72 = 1.806) / 2
    "h100-pcie": 128 * 10**9 // 2,  # PCIe Gen5 x16: 128 GB/s bidirectional / 2
    "l40s": 64 * 10**9 // 2,  # PCIe Gen4 x16: 64 GB/s bidirectional / 2
    "mi300x": 7 * 128 * 10**9 // 2,  # 7 xGMI links × 128 GB/s bidirectional / 2 = 448 GB/s
    "mi325x": 7 * 128 * 10**9 // 2,
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
    assert 0.5 < hw.usd_per_hour < 20
    assert hw.price_date >= "2026-01"
    for band in (hw.efficiency.matmul, hw.efficiency.memory):
        assert band.low <= band.expected <= band.high <= 1


@pytest.mark.parametrize(
    ("name", "usd"),
    [
        ("h100", 49.24 / 8),  # CoreWeave 8× HGX H100 $49.24/h -> 6.155
        ("h200", 50.44 / 8),  # 8× HGX H200 $50.44/h -> 6.305
        ("b200", 68.80 / 8),  # 8× B200 $68.80/h -> 8.60
        ("gb200", 42.00 / 4),  # 4-GPU GB200 NVL72 slice $42.00/h -> 10.50
        ("a100-80g", 21.60 / 8),  # 8× A100 80GB $21.60/h -> 2.70
        ("l40s", 18.00 / 8),  # 8× L40S $18.00/h -> 2.25
    ],
)
def test_per_gpu_price_is_instance_price_over_gpus(name, usd):
    assert load_hardware(name).usd_per_hour == pytest.approx(usd, rel=1e-12)


def test_matmul_high_matches_measured_mamf():
    # stas00/ml-engineering MAMF bf16 (achieved / dense peak): the band's high edge
    mamf = {
        "a100-80g": 271.2 / 312,  # 0.869
        "h100": 794.5 / 989.4,  # 0.803
        "b200": 1745.0 / 2250,  # 0.776
        "gb200": 1822.0 / 2500,  # 0.729
        "mi325x": 784.9 / 1307.4,  # 0.600
    }
    for name, frac in mamf.items():
        assert load_hardware(name).efficiency.matmul.high == pytest.approx(frac, abs=0.011), name


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
    ("bad price date", _set("price_date", "June 2025"), "price_date"),
    ("free GPU", _set("usd_per_hour", 0), "usd_per_hour"),
    ("efficiency > 1", _band("matmul", high=1.5), "efficiency.matmul.high"),
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
