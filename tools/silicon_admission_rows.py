"""Which of aiconfigurator's silicon-sample runs held new requests back by a scheduler setting
(``calc.serve.admission``): writes docs/validation/aiconfigurator_silicon_admission.csv (id,
recv_interval, batch_wait_iters, measured, rule), the row mapping ``bench/validation_serving.py``
reads (issue 20, MoE TTFT round).

A dev script, not part of kvcalc (standard library only). The runs are SemiAnalysisAI/
InferenceX's: its dated exports (``source_file=2026-03-25.csv``, ``2026-04-06.csv``) and the
``db-dump`` rows of the same sweeps (lmsysorg/sglang images; their figures repeat the exports'
to every digit). The rules, read in InferenceX's scripts at every revision (bench/
validation_sources.py):

- SGLang DeepSeek-R1 on B200 and B300 (benchmarks/dsr1_fp4_b200*.sh, dsr1_fp8_b200*.sh,
  dsr1_fp4_b300.sh, dsr1_fp8_b300.sh): ``--scheduler-recv-interval 10`` below concurrency 16 and
  30 from 16, in the NVFP4 scripts since 2025-09-20 and the fp8 ones since 2026-01-21 (between
  2025-12-31 and 2026-01-21 one revision of the fp8 docker script set the variable without the
  flag: fp8 runs before 2026-01-21 get none). The H200 scripts (dsr1_fp8_h200*.sh) never set it.
- TensorRT-LLM Llama-3.1-70B (benchmarks/70b_fp8_b200_trt_slurm.sh, 70b_fp8_h200_trt_slurm.sh,
  70b_fp4_b200_trt_slurm.sh and _docker.sh, InferenceX#148, authored 2025-10-29): for 1k/1k below
  TP 8, ``batch_wait_timeout_iters: 20`` and ``batch_wait_max_tokens_ratio: 0.9`` beside
  ``--max_num_tokens 16384`` ("For 1k/1k, use batch_wait_max_tokens_ratio and
  batch_wait_timeout_iters will improve the performance").

    python tools/silicon_admission_rows.py /path/to/aiconfigurator/silicon_sample.csv
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from silicon_rows import ROOT, agg_runs, write_mapping

OUT = ROOT / "docs" / "validation" / "aiconfigurator_silicon_admission.csv"
EXPORTS = ("source_file=2026-03-25.csv", "source_file=2026-04-06.csv")
SGLANG_RECV_SINCE = {"nvfp4": "2025-09-20", "fp8": "2026-01-21"}  # first revision with the flag
LLAMA_BATCH_WAIT_SINCE = "2025-10-29"  # InferenceX#148, authored


def _measured(source: str) -> str | None:
    m = re.search(r"measured=(\d{4}-\d\d-\d\d)", source)
    return m.group(1) if m else None


def _concurrency(run: dict) -> int:
    m = re.search(r"silicon_concurrency=(\d+)", run["silicon_data_source"])
    return int(m.group(1)) if m else int(run["batch_size"])


def _inferencex_sglang(run: dict) -> bool:
    src = run["silicon_data_source"]
    image = re.search(r"(?:image=)?(lmsysorg/sglang:[^;,]+)", src)
    if src.startswith(EXPORTS):
        return "image=" not in src or image is not None
    return src.startswith("db-dump/") and image is not None and run["id"].startswith("dsr1_")


def rule_of(run: dict) -> tuple[int, int, str] | None:
    """(recv_interval, batch_wait_iters, rule) of an upstream run, or None where no rule read
    covers it (the engine's defaults: 1 and 0)."""
    measured = _measured(run["silicon_data_source"])
    if measured is None or int(run["attention_dp_size"] or 1) > 1:
        return None
    system, fmt = run["system"], run["gemm_quant_mode"]
    if (run["backend"] == "sglang" and system in ("b200_sxm", "b300_sxm")
            and ("DeepSeek-R1" in run["model_path"] or run["id"].startswith("dsr1_"))
            and _inferencex_sglang(run) and fmt in SGLANG_RECV_SINCE
            and measured >= SGLANG_RECV_SINCE[fmt]):  # fmt: skip
        c = _concurrency(run)
        n = 10 if c < 16 else 30
        return n, 0, f"{system} {fmt} sglang, concurrency {'< 16' if c < 16 else '>= 16'}"
    if (run["backend"] == "trtllm" and "Llama-3.1-70B" in run["model_path"]
            and run["silicon_data_source"].startswith(EXPORTS)
            and run["isl"] == "1024" and run["osl"] == "1024" and int(run["tp_size"]) < 8
            and measured >= LLAMA_BATCH_WAIT_SINCE):  # fmt: skip
        return 1, 20, "llama 70b trtllm 1k/1k below TP 8"
    return None


def admission_rows(sample: Path) -> list[tuple]:
    """(id, recv_interval, batch_wait_iters, measured, rule) of kvcalc's rows that a rule
    covers."""
    out = []
    for run in agg_runs(sample):
        got = rule_of(run)
        if got is not None:
            out.append((run["id"], got[0], got[1], _measured(run["silicon_data_source"]),
                        got[2]))  # fmt: skip
    return sorted(out)


def main(argv: list[str]) -> int:
    return write_mapping(argv, "silicon_admission_rows.py", OUT,
                         ("id", "recv_interval", "batch_wait_iters", "measured", "rule"),
                         admission_rows, "InferenceX runs")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
