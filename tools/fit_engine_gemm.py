"""Fits each engine's own GEMM curve (``kernels.gemm_engine`` of a hardware profile) to that
engine's GEMM rows timed in CUDA graphs, where the pooled ``gemm`` curve leaves them out.

Run:
    pip download --no-deps aiconfigurator==0.7.0 -d /tmp/wheels
    python tools/fit_engine_gemm.py --legacy-wheel /tmp/wheels/aiconfigurator-0.7.0-*.whl
        [--write]   (replaces the ``gemm_engine`` block of H100, H200 and their copies)
        [--study]   (only the vfp8 round's checks: the GEMM and decode-attention rows against
                     the pooled curves, docs/step-time.md)

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


STUDY_RANGES = ((1, 16), (17, 64), (65, 256), (257, 1024), (1025, 8192))


def _legacy_rows(wheel: Path, gpu: str, release: str, table: str, keep):
    import pandas as pd

    path = f"{LEGACY_DATA}/{gpu}/vllm/{release}/{table}.txt"
    f = pd.read_csv(io.BytesIO(zipfile.ZipFile(wheel).read(path)))
    return f[keep(f)]


def study(wheel: Path) -> str:
    """The vfp8 round's two checks: vLLM's graph-timed block-fp8 GEMM rows against the pooled
    ``gemm.fp8_block`` curve (measured − curve and measured / curve by rows m, weights of 8-134
    M elements), and its decode-attention rows against the pooled curve × vLLM's scale."""
    import numpy as np

    K = FK.K
    out = []
    for gpu, releases in (("h200_sxm", ("0.12.0",)), ("h100_sxm", ("0.12.0", "0.14.0"))):
        prof = FK.load_profile(FK.GPUS[gpu][0])
        kern, bw = prof["kernels"], float(prof["hbm_bandwidth_bytes_per_s"])
        _, pk, w, a, q = FK.GEMM_DTYPES["fp8_block"]
        c = dict(kern["gemm"]["fp8_block"])
        for v in releases:
            f = _legacy_rows(wheel, gpu, v, "gemm_perf", lambda f: f.gemm_dtype == "fp8_block")
            m, n, k = (f[x].to_numpy(dtype=float) for x in ("m", "n", "k"))
            t = f.latency.to_numpy() * 1e-3
            pred = K.gemm_time_s(
                m, n, k, flops_per_s=float(prof["peak_flops_per_s"][pk]), bytes_per_s=bw,
                weight_bytes_per_element=w, act_bytes_per_element=a,
                quantize_bytes_per_element=q, compute=c["compute"], memory=c["memory"],
                fixed_s=c["fixed_s"], tile_m=c["tile_m"], tile_n=c["tile_n"],
                k_half=c["k_half"], sharpness=c["sharpness"], sms=FK.GPUS[gpu][1],
            )  # fmt: skip
            mid = (n * k >= 4096 * 2048) & (n * k <= 16384 * 8192)
            cells = []
            for lo, hi in STUDY_RANGES:
                s = (m >= lo) & (m <= hi) & mid
                cells.append(f"m {lo}-{hi}: {np.median(t[s] - pred[s]) * 1e6:+.1f} us, "
                             f"{np.median(t[s] / pred[s]):.2f} x")  # fmt: skip
            out.append(f"gemm {gpu} vllm {v}: " + "; ".join(cells))
            out.append(_attention_line(wheel, gpu, v, prof))
    return "\n".join(out)


def _attention_line(wheel: Path, gpu: str, v: str, prof: dict) -> str:
    import numpy as np

    kv16 = ("float16", "bfloat16")
    f = _legacy_rows(wheel, gpu, v, "generation_attention_perf",
                     lambda f: f.kv_cache_dtype.isin(kv16))  # fmt: skip
    c = prof["kernels"]["decode_attention"]["bf16"]
    scale = prof["kernels"]["engine_scale"]["vllm"]["decode_attention.bf16"]
    b, ctx, hq, hk, hd = (f[x].to_numpy(dtype=float) for x in
                          ("batch_size", "step", "num_heads", "num_key_value_heads", "head_dim"))
    t = f.latency.to_numpy() * 1e-3
    moved = b * (ctx + 1) * hk * hd * 4 + b * hq * hd * 4  # fit_kernels' bytes, 16-bit KV
    pred = scale * FK.K.decode_attention_time_s(
        4 * b * ctx * hq * hd, moved, b, flops_per_s=float(prof["peak_flops_per_s"]["bf16"]),
        bytes_per_s=float(prof["hbm_bandwidth_bytes_per_s"]), compute=c["compute"],
        memory=c["memory"], fixed_s=c["fixed_s"], per_sequence_s=c["per_sequence_s"],
        sharpness=c["sharpness"],
    )  # fmt: skip
    r = t / pred
    cells = [f"all {np.median(r):.2f} (p25 {np.quantile(r, 0.25):.2f}, "
             f"p75 {np.quantile(r, 0.75):.2f})"]  # fmt: skip
    for lo, hi in ((1, 1024), (1025, 4096), (4097, 10**9)):
        s = (ctx >= lo) & (ctx <= hi) & (b <= 64)
        cells.append(f"batch <= 64, ctx {lo}-{hi}: {np.median(r[s]):.2f}")
    return f"decode attention {gpu} vllm {v}, measured / curve: " + "; ".join(cells)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--legacy-wheel", type=Path, required=True,
                    help="the aiconfigurator 0.7.0 wheel")  # fmt: skip
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--study", action="store_true",
                    help="only the vfp8 round's checks against the pooled curves")  # fmt: skip
    args = ap.parse_args(argv)
    if args.study:
        print(study(args.legacy_wheel))
        return 0
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
