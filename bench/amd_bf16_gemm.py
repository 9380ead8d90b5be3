"""The bf16 GEMM band of the CDNA3 profiles [fraction of the bf16 dense peak], derived from
mi300x's fitted fp8 band by the measured rate of 8-bit against bf16 GEMMs on the same shapes on
gfx942 (issue 20 deliver 4, amdband round; docs/step-time.md).

Run: python bench/amd_bf16_gemm.py

Why: no bf16 MI300X serving run outside the held-out rows was ever fitted; until this round the
mi300x profile's bf16 ``matmul`` band was the fp8 rows' fitted fraction copied (the fit set both
bands to one number), which says a bf16 GEMM reaches the same fraction of its peak as an fp8 one,
i.e. runs exactly half as fast. Measured kernels say otherwise.

The rule: a bf16 GEMM runs ``r`` times slower than an 8-bit GEMM of the same shape, so its
fraction of the bf16 peak is the fp8 fraction x (fp8 peak / bf16 peak) / r = fp8 fraction x 2 /
r (CDNA3: 2,614.9 / 1,307.4 TFLOPS dense). ``r`` is measured: AITER's CK batched GEMM tuner's own
times on gfx942 with 304 CUs (MI300X / MI325X) for the same (batch, M, N, K) in bf16 and in
a8w8 (int8 rowwise scales: CDNA3's int8 and fp8 dense peaks are the same 2,614.9 T(FL)OPS, one
MFMA rate), ROCm/aiter aiter/configs/bf16_tuned_batched_gemm.csv and a8w8_tuned_batched_gemm.csv
(read at e4048607a5), at M >= 1,024 rows (a prefill chunk or a max-load step's tokens; the
fitted throughput rows run there). Expected: the median r; low: the fp8 low over the largest r;
high: the fp8 high over the smallest r, held at the part's measured best-shape bf16 GEMM (MAMF);
rounded outward to 0.01 (expected to the nearest).

Siblings: the NVIDIA profiles' measured best-shape ratio (stas00/ml-engineering MAMF, fp8_e4m3
against bf16 on the same GPU: H100 SXM 1,402.6 / 794.5, H200 1,453.4 / 794.5, B200 3,432.5 /
1,745.0) lies inside the measured gfx942 range, so the band holds them too.
"""

from __future__ import annotations

import math
import statistics
import sys

FP8_OVER_BF16_PEAK = 2_614.9 / 1_307.4  # CDNA3 dense peaks (MI300X, MI325X): 2.0001
MIN_ROWS = 1024  # the M from which a pair counts (a prefill chunk, a max-load step)

# (B, M, N, K): (bf16 us, a8w8 us), the tuners' measured times on gfx942, 304 CUs
# (bf16_tuned_batched_gemm.csv / a8w8_tuned_batched_gemm.csv @ e4048607a5)
PAIRS = {
    (16, 1024, 1280, 8192): (773.6965, 457.3867),
    (16, 2048, 1280, 8192): (1381.6015, 831.9798),
    (16, 4096, 1280, 8192): (2666.4169, 1490.3195),
    (16, 8192, 1280, 8192): (5488.8801, 2894.8037),
    (16, 16384, 1280, 8192): (11248.3376, 5696.639),
    (16, 1024, 8192, 1024): (594.1558, 426.5342),
    (16, 2048, 8192, 1024): (1133.4458, 823.4174),
    (16, 4096, 8192, 1024): (2168.7724, 1583.6971),
    (16, 8192, 8192, 1024): (4318.3042, 3131.9626),
    (16, 16384, 8192, 1024): (8164.1629, 6094.2926),
}
# the measured best-shape bf16 GEMM of each CDNA3 part, of its 1,307.4 TFLOPS bf16 peak
# (stas00/ml-engineering MAMF table, the profiles' efficiency.source): a band's ceiling
MAMF = {"mi300x": 781.9 / 1307.4, "mi325x": 784.9 / 1307.4}  # 0.598, 0.600
# CDNA4 (MI355X): no bf16 GEMM or 8-bit pair measured at serving shapes; the gfx942 rule and
# the CDNA3 ceiling ASSUMED for it (its bf16 : fp8 peaks are 1 : 2 as well)
ASSUMED_CEILING = {"mi355x": 0.60}
# the NVIDIA siblings' measured fp8 / bf16 best-shape rates (MAMF, the profiles' high edges)
SIBLINGS = {"h100": 1402.6 / 794.5, "h200": 1453.4 / 794.5, "b200": 3432.5 / 1745.0}


def ratios() -> list[float]:
    """r = bf16 time / 8-bit time of every measured pair at M >= ``MIN_ROWS`` (same FLOPs)."""
    return [b / a for (_, m, _, _), (b, a) in PAIRS.items() if m >= MIN_ROWS]


def bf16_expected(fp8_expected: float) -> float:
    """The rule's bf16 fraction for an fp8 one, unrounded (bench/validation_amd.py's fit)."""
    return fp8_expected * FP8_OVER_BF16_PEAK / statistics.median(ratios())


def tflops(shape: tuple[int, int, int, int], us: float) -> float:
    """The rate of a batched GEMM of ``shape`` (B, M, N, K) done in ``us`` [TFLOP/s]."""
    b, m, n, k = shape
    return 2 * b * m * n * k / (us * 1e-6) / 1e12


def _floor(x: float) -> float:
    return math.floor(x * 100) / 100


def _ceil(x: float) -> float:
    return math.ceil(x * 100) / 100


def bf16_band(fp8_low: float, fp8_expected: float, fp8_high: float,
              ceiling: float = 1.0) -> tuple[float, float, float]:
    """(low, expected, high) of the bf16 band from the fp8 one by the rule (module docstring),
    high held at ``ceiling``, the GPU's measured best-shape bf16 GEMM (no serving shape beats
    it)."""
    r = ratios()
    scale = FP8_OVER_BF16_PEAK
    high = min(_ceil(fp8_high * scale / min(r)), round(ceiling, 2))
    return (_floor(fp8_low * scale / max(r)), round(bf16_expected(fp8_expected), 2),
            high)  # fmt: skip


def render() -> str:
    from calc.data.registry import load_hardware

    lines = ["| B, M, N, K | bf16 us | TFLOP/s | a8w8 us | TOP/s | r |",
             "|---|---:|---:|---:|---:|---:|"]
    for shape, (b, a) in PAIRS.items():
        lines.append(f"| {shape} | {b:,.1f} | {tflops(shape, b):.0f} | {a:,.1f} | "
                     f"{tflops(shape, a):.0f} | {b / a:.3f} |")  # fmt: skip
    r = ratios()
    siblings = ", ".join(f"{k} {v:.3f}" for k, v in SIBLINGS.items())
    lines.append(f"\nr: median {statistics.median(r):.3f}, {min(r):.3f}-{max(r):.3f} over "
                 f"{len(r)} pairs; siblings {siblings}")  # fmt: skip
    for name, ceiling in (MAMF | ASSUMED_CEILING).items():
        e = load_hardware(name).efficiency
        f, m = e.matmul_fp8, e.matmul
        derived = bf16_band(f.low, f.expected, f.high, ceiling)
        lines.append(f"{name}: fp8 {f.low}/{f.expected}/{f.high} -> rule {derived}; "
                     f"profile bf16 {m.low}/{m.expected}/{m.high}")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(render() + "\n")
