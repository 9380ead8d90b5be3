"""TensorRT-LLM's fused-MoE layer at its older releases over the 1.3.0rc20 tables kvcalc's MoE
curves are fitted to [×]: the ratios behind ``calc.deploy.moe_pipeline.TRTLLM_MOE_RELEASE_SCALE``.

A dev script, not part of kvcalc: it needs pandas and pyarrow (as tools/fit_kernels.py) and the
wheels of aiconfigurator (Apache-2.0), which carry the collector's measured tables:

- ``aiconfigurator-core`` 0.12.0: ``systems/data/<gpu>/moe/trtllm/1.3.0rc20/moe_perf.parquet``
  (what the curves are fitted to; TensorRT-LLM's default CUTLASS rows,
  ``moe_torch_flow_cutlass``);
- ``aiconfigurator`` 0.7.0: ``systems/data/<gpu>/trtllm/<release>/moe_perf.txt`` for 1.0.0rc3
  (H100, H200), 1.0.0rc6 (B200, GB200) and 1.2.0rc5 (the four); the regular kernels
  (``moe_torch_flow``; the min-latency NVFP4 rows left out, as in the fit).

Rows are matched on format, tokens, hidden and expert widths, top-k, experts, MoE TP and EP and
routing; at 64 tokens and more. 1.0 has power-law routing only (``power_law_1.01``), 1.2 has
balanced rows (what the curves are fitted to). Each release line's ratio is the median over GPU
and format of that pair's median ratio (each GPU-format pair counts once).

    pip download --no-deps aiconfigurator==0.7.0 aiconfigurator-core==0.12.0 -d /tmp/wheels
    /tmp/fitvenv/bin/python tools/moe_release_ratio.py \
        --new /tmp/wheels/aiconfigurator_core-0.12.0-*.whl \
        --old /tmp/wheels/aiconfigurator-0.7.0-py3-none-any.whl
"""

from __future__ import annotations

import argparse
import io
import statistics
import zipfile

KEYS = ["moe_dtype", "num_tokens", "hidden_size", "inter_size", "topk", "num_experts",
        "moe_tp_size", "moe_ep_size", "distribution"]  # fmt: skip
# aiconfigurator-core's system name -> aiconfigurator 0.7.0's
GPUS = {"h100_sxm": "h100_sxm", "h200_sxm": "h200_sxm", "b200_sxm": "b200_sxm",
        "gb200": "gb200_sxm"}  # fmt: skip
MIN_TOKENS = 64
NEW = "1.3.0rc20"


def _tables(new_wheel: str, old_wheel: str):
    """(gpu, release, matched frame with columns old, new) for every older release found."""
    import pandas as pd

    znew, zold = zipfile.ZipFile(new_wheel), zipfile.ZipFile(old_wheel)
    names = zold.namelist()
    for gpu, old_gpu in GPUS.items():
        path = f"aiconfigurator_core/systems/data/{gpu}/moe/trtllm/{NEW}/moe_perf.parquet"
        new = pd.read_parquet(io.BytesIO(znew.read(path)))
        new = new[new.kernel_source == "moe_torch_flow_cutlass"].groupby(KEYS).latency.min()
        prefix = f"aiconfigurator/systems/data/{old_gpu}/trtllm/"
        for name in sorted(n for n in names if n.startswith(prefix) and n.endswith("moe_perf.txt")):
            release = name[len(prefix):].split("/")[0]
            old = pd.read_csv(io.BytesIO(zold.read(name)))
            old = old[old.kernel_source == "moe_torch_flow"].copy()
            old["moe_dtype"] = old.moe_dtype.replace({"float16": "bfloat16"})
            both = old.groupby(KEYS).latency.min().to_frame("old").join(
                new.to_frame("new"), how="inner").reset_index()  # fmt: skip
            yield gpu, release, both[both.num_tokens >= MIN_TOKENS]


def ratios(new_wheel: str, old_wheel: str) -> dict[str, tuple[float, dict]]:
    """Per release line ("1.0", "1.2"): (the median of the GPU-format medians, those medians)."""
    pairs: dict[str, dict] = {}
    for gpu, release, both in _tables(new_wheel, old_wheel):
        line = ".".join(release.split(".")[:2])
        dist = "balanced" if (both.distribution == "balanced").any() else "power_law_1.01"
        rows = both[both.distribution == dist]
        for fmt, g in rows.groupby("moe_dtype"):
            pairs.setdefault(line, {}).setdefault((gpu, fmt), []).extend(g.old / g.new)
    out = {}
    for line, by in pairs.items():
        med = {k: statistics.median(v) for k, v in by.items()}
        out[line] = (statistics.median(med.values()), med)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--new", required=True, help="aiconfigurator_core 0.12.0 wheel")
    ap.add_argument("--old", required=True, help="aiconfigurator 0.7.0 wheel")
    a = ap.parse_args()
    for line, (ratio, med) in sorted(ratios(a.new, a.old).items()):
        print(f"TensorRT-LLM {line} over {NEW}: {ratio:.2f} (median of {len(med)} GPU-format "
              f"medians, {min(med.values()):.2f}-{max(med.values()):.2f})")  # fmt: skip
        for (gpu, fmt), r in sorted(med.items()):
            print(f"  {gpu:9s} {fmt:10s} {r:.3f}")


if __name__ == "__main__":
    main()
