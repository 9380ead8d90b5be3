"""Which MoE backend (TensorRT-LLM ``moe_config.backend``) each of aiconfigurator's silicon-sample
runs from SemiAnalysisAI/InferenceX's DeepSeek-R1 scripts set: writes
docs/validation/aiconfigurator_silicon_moe_backend.csv (id, backend, measured date, rule), the
row mapping ``bench/validation_serving.py`` reads (issue 20, TensorRT-LLM MoE-backend round).

A dev script, not part of kvcalc (standard library only). A run is InferenceX's when its
``silicon_data_source`` is one of the dated InferenceX exports (``source_file=2026-03-25.csv``,
``2026-04-06.csv``) and names no image or TensorRT-LLM's release image, in the docker or the
enroot spelling of InferenceX's launchers (``nvcr.io/nvidia/tensorrt-llm/release:…``,
``nvcr.io#nvidia/tensorrt-llm/release:…``); the exports' runs on NVIDIA Dynamo's
``ai-dynamo/tensorrtllm-runtime`` images and the gap-analysis files are another harness and get
no backend (the engine's default, CUTLASS). The rule, read in InferenceX's benchmarks/
dsr1_fp4_b200_trt*.sh, dsr1_fp8_b200_trt*.sh and dsr1_fp8_h200_trt*.sh (with their _mtp
variants) at every revision from 2025-11 to 2026-02 (bench/validation_sources.py):

- B200 NVFP4: ``TRTLLM`` (trtllm-gen) with attention TP, ``CUTLASS`` with attention DP;
- B200 fp8: ``DEEPGEMM`` before InferenceX#594 (ec7bafaae, merged 2026-01-29), from its sweep
  on ``TRTLLM`` with attention TP and ``DEEPGEMM`` with attention DP;
- H200 fp8: ``CUTLASS``.

The attention DP is the record's; for the B200 NVFP4 runs measured 2025-11-02, whose records
state a layout the script never ran, tools/silicon_layout_rows.py lists the layout and backend
the script ran, which bench/validation_serving.py reads in place of this file's (issue 20,
trtbigmoe round).

And the MoE kernels of InferenceX's gpt-oss-120b vLLM runs on B200 (issue 20, mxfp4big round):
``benchmarks/gptoss_fp4_b200_docker.sh`` and ``_slurm.sh`` export
``VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1`` from InferenceX#48 (5e92867f4, 2025-09-24) at every
revision since (``benchmarks/single_node/gptoss_fp4_b200.sh`` from 2026-01-22, InferenceX#789
at the runs' v0.15.1 image: "Keep VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1 for Blackwell"): vLLM's
``flashinfer_trtllm_mxfp4_mxfp8`` (calc/deploy/engines/vllm/moe_backend.py). A run is
InferenceX's here when its source is one of the dated exports and names no image or a
``vllm/vllm-openai`` one (the master config's ``gptoss-fp4-b200-vllm`` image).

And on H100 and H200 (issue 20, marlinfp4 round): ``benchmarks/gptoss_fp4_h100_docker.sh``,
``gptoss_fp4_h100_slurm.sh`` and ``gptoss_fp4_h200_slurm.sh`` export ``VLLM_MXFP4_USE_MARLIN=1``
from InferenceX#327 (4e52ed4c6, merged 2026-01-02: "Add VLLM_MXFP4_USE_MARLIN=1 to H100 and
H200 benchmark scripts"), ``benchmarks/single_node/gptoss_fp4_h100.sh`` and ``_h200.sh`` after
InferenceX#406 (2026-01-22) and at 626932a11 (2026-03-27, the v0.18.0 runs' day): vLLM's Marlin
MXFP4 MoE (``marlin``). The runs measured before (2025-11-02 to 2025-12-08, v0.11.2 or no image)
ran vLLM's default there, the Triton kernel, and get no backend.

    python tools/silicon_moe_backend_rows.py /path/to/aiconfigurator/silicon_sample.csv
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from silicon_rows import ROOT, attention_dp, deepseek_trt_runs, kept_runs, write_mapping

OUT = ROOT / "docs" / "validation" / "aiconfigurator_silicon_moe_backend.csv"

INFERENCEX_EXPORTS = ("source_file=2026-03-25.csv", "source_file=2026-04-06.csv")
INFERENCEX_IMAGES = ("nvcr.io/nvidia/tensorrt-llm/release:", "nvcr.io#nvidia/tensorrt-llm/release:")
PR594_MERGED = "2026-01-29"  # InferenceX#594: the B200 fp8 scripts from DEEPGEMM to TRTLLM
PR48_MERGED = "2025-09-24"  # InferenceX#48: the B200 gpt-oss vLLM scripts export the MXFP8 MoE
VLLM_IMAGE = "vllm/vllm-openai:"
GPTOSS_MXFP8 = "flashinfer_trtllm_mxfp4_mxfp8"
PR327_MERGED = "2026-01-02"  # InferenceX#327: the H100/H200 gpt-oss vLLM scripts set Marlin
# the InferenceX gpt-oss vLLM scripts' MoE backend by GPU: (set from, backend, rule)
GPTOSS_BACKENDS = {
    "b200_sxm": (PR48_MERGED, GPTOSS_MXFP8,
                 "b200 gpt-oss vLLM, VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1"),
    "h100_sxm": (PR327_MERGED, "marlin", "h100 gpt-oss vLLM, VLLM_MXFP4_USE_MARLIN=1"),
    "h200_sxm": (PR327_MERGED, "marlin", "h200 gpt-oss vLLM, VLLM_MXFP4_USE_MARLIN=1"),
}


def backend_of(system: str, fmt: str, attention_dp: bool, measured: str) -> tuple[str, str] | None:
    """(backend, rule) the InferenceX DeepSeek-R1 script of ``system`` and ``fmt`` set on the
    ``measured`` day (ISO date), or None where no script read covers it."""
    if system == "b200_sxm" and fmt == "nvfp4":
        return ("CUTLASS", "b200 nvfp4, attention DP") if attention_dp else (
            "TRTLLM", "b200 nvfp4, attention TP")  # fmt: skip
    if system == "b200_sxm" and fmt == "fp8":
        if measured < PR594_MERGED:
            return "DEEPGEMM", "b200 fp8, before InferenceX#594"
        return ("DEEPGEMM", "b200 fp8 from InferenceX#594, attention DP") if attention_dp else (
            "TRTLLM", "b200 fp8 from InferenceX#594, attention TP")  # fmt: skip
    if system == "h200_sxm" and fmt == "fp8":
        return "CUTLASS", "h200 fp8"
    return None


def is_inferencex(source: str) -> bool:
    """Whether a run's ``silicon_data_source`` is an InferenceX export run on its own image."""
    if not source.startswith(INFERENCEX_EXPORTS):
        return False
    image = re.search(r"image=([^;]+)", source)
    return image is None or image.group(1).strip().startswith(INFERENCEX_IMAGES)


def gptoss_vllm_rows(sample: Path) -> list[tuple[str, str, str, str]]:
    """(id, backend, measured date, rule) of every InferenceX gpt-oss vLLM run on B200 in
    kvcalc's rows measured from InferenceX#48 on, on H100 and H200 from InferenceX#327 on (the
    module docstring)."""
    out = []
    for r, measured in kept_runs(sample, "vllm", "gpt-oss-120b"):
        image = re.search(r"image=([^;]+)", r["silicon_data_source"])
        since, backend, rule = GPTOSS_BACKENDS.get(r["system"], ("9999", None, None))
        if (measured < since or not r["silicon_data_source"].startswith(INFERENCEX_EXPORTS)
                or (image is not None and not image.group(1).strip().startswith(VLLM_IMAGE))):
            continue
        out.append((r["id"], backend, measured, rule))
    return out


def backend_rows(sample: Path) -> list[tuple[str, str, str, str]]:
    """(id, backend, measured date, rule) of every InferenceX TensorRT-LLM DeepSeek-R1 run and
    gpt-oss vLLM B200, H100 and H200 run in kvcalc's rows that set a backend."""
    out = gptoss_vllm_rows(sample)
    for r, measured in deepseek_trt_runs(sample):
        if r["model_path"] != "deepseek-ai/DeepSeek-R1" or not is_inferencex(
                r["silicon_data_source"]):  # fmt: skip
            continue
        got = backend_of(r["system"], r["gemm_quant_mode"], attention_dp(r), measured)
        if got is not None:
            out.append((r["id"], got[0], measured, got[1]))
    return sorted(out)


def main(argv: list[str]) -> int:
    return write_mapping(argv, "silicon_moe_backend_rows.py", OUT,
                         ("id", "moe_backend", "measured", "rule"), backend_rows,
                         "InferenceX runs")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
