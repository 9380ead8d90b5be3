"""Fits each engine's own GEMM curve (``kernels.gemm_engine`` of a hardware profile) to that
engine's GEMM rows timed in CUDA graphs, where the pooled ``gemm`` curve leaves them out.

Run:
    pip download --no-deps aiconfigurator==0.7.0 -d /tmp/wheels
    python tools/fit_engine_gemm.py --legacy-wheel /tmp/wheels/aiconfigurator-0.7.0-*.whl
        [--write]   (replaces the ``gemm_engine`` block of H100, H200 and their copies)

Why these rows (issue 20, vfp8 round; docs/step-time.md). vLLM's block-fp8 linears
(``W8A8BlockFp8LinearOp``: the activation's group quantisation, then DeepGEMM's ``fp8_gemm_nt``
when ``deep_gemm`` imports and N % 64 = K % 128 = 0, else CUTLASS) are left out of the pooled
``gemm.fp8_block`` curve, because aiconfigurator's collector times them eagerly from its vLLM
0.19.0 data on (``use_cuda_graph=gemm_type != "fp8_block"``, ai-dynamo/aiconfigurator
``collector/vllm/collect_gemm.py`` from 4bed48d96): host-bound rows. Its vLLM 0.12.0 and 0.14.0
tables were collected before that (the collector at bec0beb8b and 5ef50c9b9: six
``RowParallelLinear`` layers of distinct weights, bf16 activations, ``VLLM_USE_DEEP_GEMM=1``,
replayed in one CUDA graph, the latency / 6): GPU time of the layer as vLLM runs it. Those
tables ship as CSV text in the ``aiconfigurator`` 0.7.0 wheel (``aiconfigurator/systems/data/
<gpu>/vllm/<release>/gemm_perf.txt``), not in the aiconfigurator-core wheel ``fit_kernels.py``
reads. The curve's form and fit are ``fit_kernels.fit_gemm``'s (the weights streamed at the
GPU's bf16 curve's fraction; each row range weighed alike).
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import fit_kernels as FK  # noqa: E402

LEGACY_WHEEL = "aiconfigurator 0.7.0"
LEGACY_DATA = "aiconfigurator/systems/data"
# engine -> (its GEMM dtypes fitted here, the releases whose rows were timed in CUDA graphs)
ENGINE_GEMM = {"vllm": (("fp8_block",), ("0.12.0", "0.14.0"))}
ENGINE_GEMM_GPUS = ("h100_sxm", "h200_sxm")
BLOCK = "gemm_engine"


def engine_gemm_frame(wheel: Path, gpu: str, fw: str, releases, dtype: str):
    """The rows of ``fw``'s GEMM tables at ``releases`` on ``gpu`` of dtype ``dtype`` (None:
    no such table)."""
    import pandas as pd

    z = zipfile.ZipFile(wheel)
    names = set(z.namelist())
    parts = []
    for v in releases:
        path = f"{LEGACY_DATA}/{gpu}/{fw}/{v}/gemm_perf.txt"
        if path not in names:
            continue
        f = pd.read_csv(io.BytesIO(z.read(path)))
        f = f[f.gemm_dtype == dtype].copy()
        f["source"] = f"gemm/{fw}/{v}/gemm_perf.txt ({LEGACY_WHEEL}, CUDA graphs)"
        f["fw"] = f"{fw}-graphs"  # not "vllm": fit_gemm leaves vLLM's eager rows out by name
        parts.append(f)
    return pd.concat(parts, ignore_index=True) if parts else None


def fit_engine_gemm(wheel: Path, gpu: str) -> dict:
    """{engine: {key: (curve, stats)}} on ``gpu``."""
    prof = FK.load_profile(FK.GPUS[gpu][0])
    peaks = {k: float(v) for k, v in prof["peak_flops_per_s"].items()}
    bw = float(prof["hbm_bandwidth_bytes_per_s"])
    stream = float(prof["kernels"]["gemm"]["bf16"]["memory"])
    out: dict = {}
    for fw, (dtypes, releases) in ENGINE_GEMM.items():
        for dtype in dtypes:
            f = engine_gemm_frame(wheel, gpu, fw, releases, dtype)
            if f is None:
                continue
            peak = peaks[FK.GEMM_DTYPES[dtype][1]]
            res = FK.fit_gemm(f, peak, bw, FK.GPUS[gpu][1], dtype, stream)
            if res:
                out.setdefault(fw, {})[res[0]] = (res[1], res[2])
    return out


def block_lines(fits: dict, prov: str) -> list[str]:
    lines = ["  # each engine's own GEMMs where the pooled curve leaves its rows out",
             f"  {BLOCK}:"]  # fmt: skip
    for fw in sorted(fits):
        lines.append(f"    {fw}:")
        for key, (curve, st) in fits[fw].items():
            stat = f"gemm@{fw}.{key}"
            lines.append(FK._curve_line({"stats": {stat: st}}, stat, key, curve, prov, "      "))
    return lines


def copied_stats(fits: dict) -> dict:
    """``fits`` with each band widened as a copied profile's (``fit_kernels.COPY_BAND``)."""
    out: dict = {}
    for fw, per in fits.items():
        for key, (curve, st) in per.items():
            st = dict(st)
            st["band_low"] = round(min(st["band_low"], 1.0) * FK.COPY_BAND[0], 3)
            st["band_high"] = round(max(st["band_high"], 1.0) * FK.COPY_BAND[1], 3)
            out.setdefault(fw, {})[key] = (curve, st)
    return out


def shipped_block(profile: str | None) -> list[str]:
    """The ``gemm_engine`` block of ``profile`` as shipped (a full ``fit_kernels`` refit keeps
    it: it reads no legacy wheel); [] where it has none."""
    path = ROOT / "hardware_profiles" / f"{profile}.yaml"
    if profile is None or not path.exists():
        return []
    lines = path.read_text().splitlines()
    start = _block_start(lines)
    return [] if start is None else lines[start:_block_end(lines, start)]


def _block_start(lines: list[str]) -> int | None:
    for i, line in enumerate(lines):
        if line == f"  {BLOCK}:":
            return i - 1 if i and lines[i - 1].startswith("  # each engine's own GEMMs") else i
    return None


def _block_end(lines: list[str], start: int) -> int:
    i = start + 1
    while i < len(lines) and (lines[i].startswith("    ") or lines[i] == f"  {BLOCK}:"):
        i += 1
    return i


def write_block(profile: str, new: list[str]) -> None:
    """Replace ``profile``'s ``gemm_engine`` block, or put it after the ``gemm:`` curves."""
    path = ROOT / "hardware_profiles" / f"{profile}.yaml"
    lines = path.read_text().split("\n")
    start = _block_start(lines)
    if start is not None:
        lines[start:_block_end(lines, start)] = new
    else:
        at = lines.index("  gemm:") + 1
        while re.match(r"^    \S", lines[at]):
            at += 1
        lines[at:at] = new
    path.write_text("\n".join(lines))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--legacy-wheel", type=Path, required=True,
                    help="the aiconfigurator 0.7.0 wheel")  # fmt: skip
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    for gpu in ENGINE_GEMM_GPUS:
        name = FK.GPUS[gpu][0]
        fits = fit_engine_gemm(args.legacy_wheel, gpu)
        targets = [(name, block_lines(fits, "fitted"))]
        targets += [(copy, block_lines(copied_stats(fits), "copied"))
                    for copy, (sib, _, _) in FK.COPIES.items() if sib == name]  # fmt: skip
        for target, lines in targets:
            print(f"{target}:")
            print("\n".join(lines))
            if args.write:
                write_block(target, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
