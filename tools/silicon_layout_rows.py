"""The parallel layout InferenceX's DeepSeek-R1 NVFP4 TensorRT-LLM script on B200 ran, for the
silicon-sample runs whose record states a layout no revision of that script ran: writes
docs/validation/aiconfigurator_silicon_layout.csv (id, ep, attention_dp, moe_backend, rule), the
row mapping ``bench/validation_serving.py`` reads (issue 20, trtbigmoe round).

A dev script, not part of kvcalc (standard library only). The runs: aiconfigurator's
silicon_sample.csv TensorRT-LLM B200 NVFP4 DeepSeek runs of InferenceX (its dated export
``source_file=2026-04-06.csv``, and its results database ``db-dump/…``, whose rows carry the
same runs under a DeepSeek-V3 model path and ``dsr1_`` ids) measured 2025-11-02, each stating
TP 4 or 8, MoE EP 1 and attention DP 1. InferenceX's script chose the expert parallelism,
attention DP and MoE backend from TP, the lengths and the concurrency itself at
SemiAnalysisAI/InferenceX@ec90f3fe7 (2025-09-18, ``benchmarks/dsr1_fp4_b200_trt_slurm.sh``:
``EP_SIZE``, ``DP_ATTENTION``, ``MOE_BACKEND``), and its master config gave the same EP and DP
with the script the same backend from @35bc387ff (2025-10-16) to @17d5e204f (2025-11-03,
``.github/configs/nvidia-master.yaml`` ``dsr1-fp4-b200-trt``): at TP 4, EP 4 above 32
concurrent requests, with attention DP and the CUTLASS MoE at 256 (1k/1k, 1k/8k) or above 32
(8k/1k); at TP 8, EP 8 above 8 (1k/1k), 16 (1k/8k) or 32 (8k/1k) requests, attention DP and
CUTLASS at 256 (1k/1k, 1k/8k) or above 32 (8k/1k); the trtllm-gen MoE (``TRTLLM``) otherwise.
No revision ran EP 1 at those concurrencies: the records state the launcher's TP alone.

    python tools/silicon_layout_rows.py /path/to/aiconfigurator/silicon_sample.csv
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from silicon_rows import KVCALC_ROWS, ROOT, write_mapping

OUT = ROOT / "docs" / "validation" / "aiconfigurator_silicon_layout.csv"

SOURCES = ("source_file=2026-04-06.csv", "db-dump/")  # InferenceX's export and its database
MEASURED = "2025-11-02"
# (TP, ISL, OSL) -> (EP above this concurrency, attention DP and CUTLASS from this one)
RULE = {
    (4, 1024, 1024): (32, 256), (4, 1024, 8192): (32, 256), (4, 8192, 1024): (32, 33),
    (8, 1024, 1024): (8, 256), (8, 1024, 8192): (16, 256), (8, 8192, 1024): (32, 33),
}


def layout_of(tp: int, isl: int, osl: int, concurrency: int) -> tuple[int, bool, str] | None:
    """(MoE EP, attention DP, MoE backend) InferenceX's B200 NVFP4 script ran at ``tp`` and
    these lengths and concurrency (the module docstring), or None where it ran EP 1."""
    rule = RULE.get((tp, isl, osl))
    if rule is None or concurrency <= rule[0]:
        return None
    dp = concurrency >= rule[1]
    return tp, dp, "CUTLASS" if dp else "TRTLLM"


def layout_rows(sample: Path) -> list[tuple]:
    """(id, ep, attention_dp, moe_backend, rule) of every run in kvcalc's rows the module
    docstring names whose stated layout (EP 1, no attention DP) the script did not run."""
    with KVCALC_ROWS.open() as f:
        keep = {r["id"] for r in csv.DictReader(f)}
    out = []
    with sample.open() as f:
        for r in csv.DictReader(f):
            src = r["silicon_data_source"]
            if (r["id"] not in keep or r["backend"] != "trtllm" or "DeepSeek" not in r["model_path"]
                    or r["system"] != "b200_sxm" or r["gemm_quant_mode"] != "nvfp4"
                    or not src.startswith(SOURCES) or f"measured={MEASURED}" not in src
                    or r["moe_ep_size"] != "1" or r["attention_dp_size"] != "1"):  # fmt: skip
                continue
            c = re.search(r"silicon_concurrency=(\d+)", src)
            conc = int(c.group(1)) if c else int(r["batch_size"])
            got = layout_of(int(r["tp_size"]), int(r["isl"]), int(r["osl"]), conc)
            if got is not None:
                ep, dp, backend = got
                rule = f"b200 nvfp4 TP {r['tp_size']}: EP {ep}" + (", attention DP" if dp else "")
                out.append((r["id"], ep, int(dp), backend, rule))
    return sorted(out)


def main(argv: list[str]) -> int:
    return write_mapping(argv, "silicon_layout_rows.py", OUT,
                         ("id", "ep", "attention_dp", "moe_backend", "rule"), layout_rows,
                         "InferenceX runs")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
