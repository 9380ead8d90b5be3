"""Checks each engine's own graph-timed attention rows against kvcalc's pooled attention curves
(× that engine's ``engine_scale``), by context (or prompt) length band: the vattn round's study
(issue 20; docs/step-time.md). It fits nothing and writes nothing.

Run:
    pip download --no-deps aiconfigurator==0.7.0 aiconfigurator==0.10.0 \
        aiconfigurator-core==0.12.0 -d /tmp/wheels
    python tools/study_engine_attention.py --wheels /tmp/wheels/aiconfigurator*.whl
        [--kv-heads]   (only vLLM's Hopper decode rows by KV heads: the collector artifact)

The tables (ai-dynamo/aiconfigurator, Apache-2.0): the ``aiconfigurator`` 0.7.0 wheel ships
CSV text (``aiconfigurator/systems/data/<gpu>/<engine>/<release>/*_attention_perf.txt``:
vLLM 0.12.0 / 0.14.0, SGLang 0.5.6.post2 / 0.5.8.post1, TensorRT-LLM 1.0.0rc3 / 1.2.0rc5),
0.10.0 parquet in the same layout (vLLM 0.14.0 / 0.18.0 / 0.19.0, SGLang 0.5.9 / 0.5.10,
TensorRT-LLM 1.3.0rc10), ``aiconfigurator-core`` 0.12.0 parquet under ``attention/`` (vLLM
0.24.0, SGLang 0.5.14, TensorRT-LLM 1.3.0rc20: the tables ``fit_kernels.py`` pools). Every
attention collector of those releases times its kernel with ``collector.helper.
benchmark_with_power``'s default, a CUDA-graph replay (aiconfigurator's vLLM ``collect_attn.py``
at e954ae4c4, 5ef50c9b9 and d5bad971c; the eager exception of 4bed48d96 is the block-fp8 GEMM's
alone). Where two wheels ship one release the newest wheel's rows are read.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import fit_kernels as FK  # noqa: E402

K = FK.K
STUDY_GPUS = ("h100_sxm", "h200_sxm", "b200_sxm")
DECODE_BANDS = ((1, 1024), (1025, 4096), (4097, 16384), (16385, 10**7))
PREFILL_BANDS = ((1, 1024), (1025, 4096), (4097, 16384), (16385, 10**7))
KV16 = ("float16", "bfloat16")
# a table's path in each wheel -> (gpu, engine, release, table)
PATTERNS = (
    re.compile(
        r"aiconfigurator_core/systems/data/([^/]+)/attention/([^/]+)/([^/]+)/"
        r"(generation|context)_attention_perf\.parquet$"
    ),
    re.compile(
        r"aiconfigurator/systems/data/([^/]+)/([^/]+)/([^/]+)/"
        r"(generation|context)_attention_perf\.(?:txt|parquet)$"
    ),
)


def table_index(wheels) -> dict:
    """(gpu, engine, release, phase) -> (wheel, member): the newest wheel's copy of each."""
    out: dict = {}
    for wheel in sorted(wheels, key=lambda p: FK._version_key(p.name)):
        for name in zipfile.ZipFile(wheel).namelist():
            for pat in PATTERNS:
                if m := pat.match(name):
                    out[m.groups()] = (wheel, name)
    return out


def read_table(wheel: Path, name: str):
    import pandas as pd

    raw = io.BytesIO(zipfile.ZipFile(wheel).read(name))
    f = pd.read_parquet(raw) if name.endswith(".parquet") else pd.read_csv(raw)
    if "window_size" in f:
        f = f[f.window_size == 0]
    return f


def decode_ratio(f, prof: dict, engine: str, kv: str):
    """Measured / (pooled curve × the engine's scale) of each decode row with KV dtype ``kv``
    (``fit_kernels.fit_decode_attention``'s FLOPs and bytes), and the rows' batch and context."""
    key = "fp8" if kv == "fp8" else "bf16"
    f = f[f.kv_cache_dtype.isin(KV16)] if key == "bf16" else f[f.kv_cache_dtype == "fp8"]
    kern = prof["kernels"]
    if key not in kern.get("decode_attention", {}) or len(f) == 0:
        return None
    c = kern["decode_attention"][key]
    scale = kern.get("engine_scale", {}).get(engine, {}).get(f"decode_attention.{key}", 1.0)
    kvb = 1.0 if key == "fp8" else 2.0
    b, ctx, hq, hk, hd = (
        f[x].to_numpy(dtype=float)
        for x in ("batch_size", "step", "num_heads", "num_key_value_heads", "head_dim")
    )
    moved = b * (ctx + 1) * hk * hd * 2 * kvb + b * hq * hd * 2 * 2
    pred = scale * K.decode_attention_time_s(
        4 * b * ctx * hq * hd,
        moved,
        b,
        flops_per_s=float(prof["peak_flops_per_s"]["bf16"]),
        bytes_per_s=float(prof["hbm_bandwidth_bytes_per_s"]),
        compute=c["compute"],
        memory=c["memory"],
        fixed_s=c["fixed_s"],
        per_sequence_s=c["per_sequence_s"],
        sharpness=c["sharpness"],
    )
    return f.latency.to_numpy() * 1e-3 / pred, b, ctx


def prefill_ratio(f, prof: dict, engine: str):
    """Measured / (pooled prefill curve × the engine's scale) of each 16-bit KV context row."""
    f = f[f.kv_cache_dtype.isin(KV16)]
    kern = prof["kernels"]
    if "bf16" not in kern.get("prefill_attention", {}) or len(f) == 0:
        return None
    c = kern["prefill_attention"]["bf16"]
    scale = kern.get("engine_scale", {}).get(engine, {}).get("prefill_attention.bf16", 1.0)
    b, p, hq, hk, hd = (
        f[x].to_numpy(dtype=float)
        for x in ("batch_size", "isl", "num_heads", "num_key_value_heads", "head_dim")
    )
    pred = scale * K.prefill_attention_time_s(
        4 * b * hq * hd * p * (p + 1) / 2,
        b * p * (hq * hd * 4 + 4 * hk * hd * 2),
        p,
        flops_per_s=float(prof["peak_flops_per_s"]["bf16"]),
        bytes_per_s=float(prof["hbm_bandwidth_bytes_per_s"]),
        compute=c["compute"],
        memory=c["memory"],
        fixed_s=c["fixed_s"],
        prompt_half=c["prompt_half"],
        sharpness=c["sharpness"],
    )
    return f.latency.to_numpy() * 1e-3 / pred, b, p


def _cells(r, b, n, bands, small_batch: bool) -> str:
    sel = b <= 64 if small_batch else np.ones_like(b, dtype=bool)
    out = [f"all {np.median(r):.2f} ({len(r)})"]
    for lo, hi in bands:
        s = sel & (n >= lo) & (n <= hi)
        out.append(f"{np.median(r[s]):.2f}" if s.sum() >= 20 else "-")
    return " | ".join(out)


def study(wheels) -> str:
    index = table_index(wheels)
    head = (
        "| GPU | engine | release | table | all rows (n) | ≤1k | 1-4k | 4-16k | >16k |\n"
        "|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for (gpu, engine, release, phase), (wheel, name) in sorted(
        index.items(), key=lambda kv: (kv[0][0], kv[0][1], FK._version_key(kv[0][2]), kv[0][3])
    ):
        if gpu not in STUDY_GPUS or engine not in FK.FRAMEWORKS:
            continue
        prof = FK.load_profile(FK.GPUS[gpu][0])
        f = read_table(wheel, name)
        if phase == "generation":
            for kv in ("bf16", "fp8"):
                got = decode_ratio(f, prof, engine, kv)
                if got is not None:
                    cells = _cells(*got, DECODE_BANDS, True)
                    lines.append(f"| {gpu} | {engine} | {release} | decode {kv} | {cells} |")
        else:
            got = prefill_ratio(f, prof, engine)
            if got is not None:
                cells = _cells(*got, PREFILL_BANDS, False)
                lines.append(f"| {gpu} | {engine} | {release} | prefill bf16 | {cells} |")
    return "\n".join(lines)


def kv_head_split(wheels, engine: str = "vllm") -> str:
    """``engine``'s 16-bit decode rows on Hopper, measured / (pooled curve × scale) at batch ≤ 64
    by KV heads and context band: a table timed with FA3 scheduler metadata sized for other
    head counts than the kernel runs (aiconfigurator's collector before a924baa01 sized it for
    its placeholder model's 16 query / 8 KV heads) is off only where the heads differ."""
    index = table_index(wheels)
    lines = [
        "| GPU | release | KV heads | ≤1k | 1-4k | 4-16k | >16k |",
        "|---|---|---|---|---|---|---|",
    ]
    for (gpu, fw, release, phase), (wheel, name) in sorted(index.items()):
        if fw != engine or phase != "generation" or gpu not in STUDY_GPUS[:2]:
            continue
        f = read_table(wheel, name)
        f = f[f.kv_cache_dtype.isin(KV16)]
        r, b, ctx = decode_ratio(f, FK.load_profile(FK.GPUS[gpu][0]), engine, "bf16")
        hk = f.num_key_value_heads.to_numpy()
        for h in (1, 2, 4, 8):
            cells = []
            for lo, hi in DECODE_BANDS:
                s = (hk == h) & (b <= 64) & (ctx >= lo) & (ctx <= hi)
                cells.append(f"{np.median(r[s]):.2f}" if s.sum() >= 20 else "-")
            lines.append(f"| {gpu} | {release} | {h} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--wheels",
        type=Path,
        nargs="+",
        required=True,
        help="aiconfigurator 0.7.0 / 0.10.0 and aiconfigurator-core 0.12.0 wheels",
    )
    ap.add_argument(
        "--kv-heads", action="store_true", help="only vLLM's Hopper decode rows split by KV heads"
    )
    args = ap.parse_args(argv)
    print(kv_head_split(args.wheels) if args.kv_heads else study(args.wheels))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
