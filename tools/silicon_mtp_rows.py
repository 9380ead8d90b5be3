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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from silicon_rows import ROOT, attention_dp, deepseek_trt_runs, write_mapping

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
    out = []
    for r, measured in deepseek_trt_runs(sample):
        sweep = MTP_SWEEPS.get((measured, r["system"], r["gemm_quant_mode"]))
        if sweep:
            drafts = MTP_DRAFTS_ATTENTION_DP if attention_dp(r) else MTP_DRAFTS
            out.append((r["id"], drafts, measured, sweep))
    return sorted(out)


def main(argv: list[str]) -> int:
    return write_mapping(argv, "silicon_mtp_rows.py", OUT,
                         ("id", "mtp_draft_tokens", "measured", "sweep"), mtp_rows, "MTP runs")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
