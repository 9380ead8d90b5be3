"""Fits each engine's own GEMM curve (``kernels.gemm_engine`` of a hardware profile) to that
engine's GEMM rows timed in CUDA graphs, where the pooled ``gemm`` curve leaves them out.

Run:
    pip download --no-deps aiconfigurator==0.7.0 -d /tmp/wheels
    pip download --no-deps aiconfigurator-core==0.12.0 -d /tmp/wheels
    python tools/fit_engine_gemm.py --legacy-wheel /tmp/wheels/aiconfigurator-0.7.0-*.whl
        [--write]   (replaces vLLM's curves in the ``gemm_engine`` block of H100, H200 and their
                     copies; other engines' curves stay as shipped)
        [--study]   (only the vfp8 round's checks: the GEMM and decode-attention rows against
                     the pooled curves, docs/step-time.md)
    python tools/fit_engine_gemm.py --wheel /tmp/wheels/aiconfigurator_core-0.12.0-*.whl
        [--write]   (SGLang's curves on every GPU with SGLang GEMM tables, and their copies:
                     the sggemm round; fit_kernels.py's venv, it reads parquet)

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

SGLang's (issue 20, sggemm round). aiconfigurator-core 0.12.0's SGLang GEMM tables
(``<gpu>/gemm/sglang/<release>/gemm_perf.parquet``; the collector ``collector/sglang/
collect_gemm.py`` at e23be5a79: up to six GEMMs of distinct weights replayed in one CUDA graph,
the activation's quantisation inside the timed op) time what SGLang 0.5.16 runs by default,
read in its wheel: bf16 ``F.linear`` (cuBLAS); block-fp8 ``sglang_per_token_group_quant_fp8``
then DeepGEMM's ``gemm_nt_f8f8bf16`` (``_dispatch_auto_backend``: DeepGEMM whenever
``deep_gemm`` imports, and sglang 0.5.16 requires ``sgl-deep-gemm``; sm90 and sm100);
per-tensor fp8 ``sgl_per_token_quant_fp8`` then ``sgl_kernel.fp8_scaled_mm`` (``apply_fp8_linear``'s
CUTLASS path on sm89 / sm90 / sm120); NVFP4 FlashInfer ``mm_fp4`` with the CuTe-DSL backend on
sm100 and CUTLASS on sm120 (``initialize_fp4_gemm_config``'s auto). Left out
(``CORE_SKIP``): per-tensor fp8 on sm100 (B200, B300, GB200, GB300), where ModelOpt's FP8
linear runs FlashInfer's ``bmm_fp8`` instead (``ModelOptFp8LinearMethod.enable_flashinfer_bmm``).
They are pooled into ``gemm`` too; fitted alone, every dtype takes the same form and rules as
vLLM's (the stream fraction of the GPU's pooled bf16 curve, each row range weighed alike), and
ships only where it fits SGLang's rows better than the pooled curve (``pooled_error``).
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
# engine -> its GEMM dtypes fitted from the aiconfigurator-core wheel's tables (the newest
# release of each GPU), and the (GPU, dtype) pairs whose rows time a kernel the engine's
# current release does not run by default (module docstring)
CORE_ENGINE_GEMM = {"sglang": ("bfloat16", "fp8", "fp8_block", "nvfp4")}
CORE_SKIP = {"sglang": {(g, "fp8") for g in ("b200_sxm", "b300_sxm", "gb200", "gb300")}}


def fit_core_engine_gemm(tables, gpu: str) -> dict:
    """{engine: {key: (curve, stats)}} on ``gpu`` from the aiconfigurator-core wheel's tables
    (``fit_kernels.Tables``)."""
    prof = FK.load_profile(FK.GPUS[gpu][0])
    peaks = {k: float(v) for k, v in prof["peak_flops_per_s"].items()}
    bw = float(prof["hbm_bandwidth_bytes_per_s"])
    stream = float(prof["kernels"]["gemm"]["bf16"]["memory"])
    out: dict = {}
    for fw, dtypes in CORE_ENGINE_GEMM.items():
        g = tables.newest(gpu, "gemm", "gemm_perf", (fw,), by="gemm_dtype")
        if g is None:
            continue
        for dtype in dtypes:
            peak_key = FK.GEMM_DTYPES[dtype][1]
            if (gpu, dtype) in CORE_SKIP.get(fw, ()) or peak_key not in peaks:
                continue
            res = FK.fit_gemm(g, peaks[peak_key], bw, FK.GPUS[gpu][1], dtype, stream)
            own = res and round(res[2]["median_abs_error"], 3)
            if res and own < pooled_error(g, prof, dtype, FK.GPUS[gpu][1]):
                out.setdefault(fw, {})[res[0]] = (res[1], res[2])
    return out


def pooled_error(frame, prof: dict, dtype: str, sms: int) -> float:
    """The median |measured / curve − 1| of ``frame``'s rows of ``dtype`` (m <= 16,384, as
    ``fit_gemm`` keeps them) under the profile's pooled curve (inf where it has none). An
    engine's own curve ships only where it fits that engine's rows better (strictly, at the
    stats' 3 digits): where it does not, the pooled curve stands for the engine as well."""
    import numpy as np

    key, peak_key, w, a, q = FK.GEMM_DTYPES[dtype]
    c = prof["kernels"]["gemm"].get(key)
    if c is None:
        return float("inf")
    f = frame[(frame.gemm_dtype == dtype) & (frame.m <= 16384)]
    m, n, k = (f[x].to_numpy(dtype=float) for x in ("m", "n", "k"))
    r = f.latency.to_numpy() * 1e-3 / FK.K.gemm_time_s(
        m, n, k, flops_per_s=float(prof["peak_flops_per_s"][peak_key]),
        bytes_per_s=float(prof["hbm_bandwidth_bytes_per_s"]), weight_bytes_per_element=w,
        act_bytes_per_element=a, quantize_bytes_per_element=q, compute=c["compute"],
        memory=c["memory"], fixed_s=c["fixed_s"], tile_m=c["tile_m"], tile_n=c["tile_n"],
        k_half=c["k_half"], sharpness=c["sharpness"], sms=sms,
    )  # fmt: skip
    return round(float(np.median(np.abs(r - 1))), 3)


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


def block_lines(fits: dict, prov: str, keep: dict | None = None) -> list[str]:
    """The ``gemm_engine`` block of ``fits``; ``keep`` ({engine: its lines}): the shipped
    curves of the engines not refitted now, kept as they are."""
    lines = ["  # each engine's own GEMMs where the pooled curve leaves its rows out or",
             "  # the engine's own rows differ from it",
             f"  {BLOCK}:"]  # fmt: skip
    for fw in sorted({*fits, *(keep or {})}):
        if fw not in fits:
            lines += keep[fw]
            continue
        if not fits[fw]:  # refitted, and no curve of its own kept
            continue
        lines.append(f"    {fw}:")
        for key, (curve, st) in fits[fw].items():
            stat = f"gemm@{fw}.{key}"
            lines.append(FK._curve_line({"stats": {stat: st}}, stat, key, curve, prov, "      "))
    return lines


def shipped_engines(profile: str) -> dict:
    """{engine: its lines (the ``    <engine>:`` line and its curves)} of ``profile``'s shipped
    ``gemm_engine`` block."""
    out: dict = {}
    fw = None
    for line in shipped_block(profile):
        if line.startswith("    ") and not line.startswith("     "):
            fw = line.strip().rstrip(":")
        if fw is not None:
            out.setdefault(fw, []).append(line)
    return out


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
            while i and lines[i - 1].startswith("  # "):  # its comment lines
                i -= 1
            return i
    return None


def _block_end(lines: list[str], start: int) -> int:
    i = lines.index(f"  {BLOCK}:", start) + 1
    while i < len(lines) and lines[i].startswith("    "):
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
    ap.add_argument("--legacy-wheel", type=Path, help="the aiconfigurator 0.7.0 wheel (vLLM)")
    ap.add_argument("--wheel", type=Path,
                    help="the aiconfigurator-core 0.12.0 wheel (SGLang)")  # fmt: skip
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--study", action="store_true",
                    help="only the vfp8 round's checks against the pooled curves")  # fmt: skip
    args = ap.parse_args(argv)
    if args.study and args.legacy_wheel:
        print(study(args.legacy_wheel))
        return 0
    if not (args.legacy_wheel or args.wheel):
        ap.error("give --legacy-wheel, --wheel or both")
    fits: dict = {}
    if args.legacy_wheel:
        for gpu in ENGINE_GEMM_GPUS:
            fits.setdefault(gpu, {}).update(fit_engine_gemm(args.legacy_wheel, gpu))
    if args.wheel:
        tables = FK.Tables(args.wheel)
        for gpu in FK.GPUS:
            own = fit_core_engine_gemm(tables, gpu)
            for fw in CORE_ENGINE_GEMM:
                fits.setdefault(gpu, {}).setdefault(fw, {}).update(own.get(fw, {}))
    for gpu, per_gpu in fits.items():
        name = FK.GPUS[gpu][0]
        targets = [(name, per_gpu, "fitted")]
        targets += [(copy, copied_stats(per_gpu), "copied")
                    for copy, (sib, _, _) in FK.COPIES.items() if sib == name]  # fmt: skip
        for target, per, prov in targets:
            keep = {fw: v for fw, v in shipped_engines(target).items() if fw not in per}
            lines = block_lines(per, prov, keep)
            print(f"{target}:")
            print("\n".join(lines))
            if args.write:
                write_block(target, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
