"""Which of aiconfigurator's silicon-sample runs used MTP speculative decoding: writes
docs/validation/aiconfigurator_silicon_mtp.csv (id, draft tokens, measured date, sweep), the
row mapping ``bench/validation_serving.py`` reads (issue 20, TensorRT-LLM MTP round).

A dev script, not part of kvcalc (standard library only). The sample's TensorRT-LLM DeepSeek-R1
runs come from SemiAnalysisAI/InferenceX's single-node sweeps: their ``silicon_data_source``
names InferenceX's images (``nvcr.io#nvidia/tensorrt-llm/release:1.2.0rc6.post3``, the enroot
spelling of its launchers), its config ids (``db-dump``) and each run's ``measured`` date. The
date is the day InferenceX merged the pull request whose sweep ran it. Three of those pull
requests ran only MTP configurations (``spec-decoding: mtp`` in .github/configs/
nvidia-master.yaml; scripts benchmarks/dsr1_*_trt_mtp*.sh write ``speculative_config:
decoding_type: MTP, num_nextn_predict_layers: 3``, 1 with ``enable_attention_dp``):

- #392, bf3456727, merged 2026-01-14 UTC: adds dsr1-fp4-b200-trt-mtp, dsr1-fp8-b200-trt-mtp and
  dsr1-fp8-h200-trt-mtp (image 1.1.0rc2.post2);
- #632, 5d517074c, 2026-02-05: dsr1-fp8-b200-trt-mtp to image 1.2.0rc6.post3;
- #642, 0aae52d4c, 2026-02-06: dsr1-fp4-b200-trt-mtp to image 1.2.0rc6.post3 (the only
  configurations that ran 1.2.0rc6.post3 until #1488/#1489 moved them to 1.3.0rc14).

A run of the sample is an MTP run when it is a DeepSeek-R1 TensorRT-LLM run on that GPU and
format measured on that sweep's day. Check: every pair of runs in the sample with the same GPU,
release, format, lengths, concurrency and layout but two TPOTs (29 pairs) has its faster run in
an MTP sweep and its slower one outside (the slower 1.20-2.15x the faster).

    python tools/silicon_mtp_rows.py /path/to/aiconfigurator/silicon_sample.csv
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KVCALC_ROWS = ROOT / "docs" / "validation" / "aiconfigurator_silicon_agg.csv"
OUT = ROOT / "docs" / "validation" / "aiconfigurator_silicon_mtp.csv"

# (measured date, system, gemm_quant_mode) -> the InferenceX pull request whose sweep it was
MTP_SWEEPS = {
    ("2026-01-14", "b200_sxm", "nvfp4"): "InferenceX#392",
    ("2026-01-14", "b200_sxm", "fp8"): "InferenceX#392",
    ("2026-01-14", "h200_sxm", "fp8"): "InferenceX#392",
    ("2026-02-05", "b200_sxm", "fp8"): "InferenceX#632",
    ("2026-02-06", "b200_sxm", "nvfp4"): "InferenceX#642",
}
MTP_DRAFTS, MTP_DRAFTS_ATTENTION_DP = 3, 1  # num_nextn_predict_layers in those scripts


def mtp_rows(sample: Path) -> list[tuple[str, int, str, str]]:
    """(id, draft tokens, measured date, sweep) of every MTP run in kvcalc's rows."""
    with KVCALC_ROWS.open() as f:
        keep = {r["id"] for r in csv.DictReader(f)}
    with sample.open() as f:
        runs = list(csv.DictReader(f))
    out = []
    for r in runs:
        if r["id"] not in keep or r["backend"] != "trtllm" or "DeepSeek-R1" not in r["model_path"]:
            continue
        m = re.search(r"measured=(\d{4}-\d\d-\d\d)", r["silicon_data_source"])
        sweep = m and MTP_SWEEPS.get((m.group(1), r["system"], r["gemm_quant_mode"]))
        if sweep:
            dp = int(r["attention_dp_size"] or 1) > 1
            out.append((r["id"], MTP_DRAFTS_ATTENTION_DP if dp else MTP_DRAFTS, m.group(1), sweep))
    return sorted(out)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tools/silicon_mtp_rows.py SILICON_SAMPLE_CSV", file=sys.stderr)
        return 2
    rows = mtp_rows(Path(argv[0]))
    with OUT.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(("id", "mtp_draft_tokens", "measured", "sweep"))
        w.writerows(rows)
    print(f"{len(rows)} MTP runs -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
