"""The parallel layout InferenceX's scripts ran, for the silicon-sample runs measured 2025-11-02
whose record states a layout the script did not run: writes
docs/validation/aiconfigurator_silicon_layout.csv (id, ep, attention_dp, moe_backend, rule), the
row mapping ``bench/validation_serving.py`` reads (issue 20, trtbigmoe and layoutrows rounds).

A dev script, not part of kvcalc (standard library only). The runs: aiconfigurator's
silicon_sample.csv runs of InferenceX (its dated export ``source_file=2026-04-06.csv``, and its
results database ``db-dump/…``, whose rows carry the same runs under a DeepSeek-V3 model path
and ``dsr1_`` ids) measured 2025-11-02, each stating MoE EP 1 and attention DP 1. Each script
(SemiAnalysisAI/InferenceX ``benchmarks/``) chose the expert parallelism, attention DP and MoE
backend itself, by the revision of the runs' date (main at @e06929c70, 2025-11-01; the rules
unchanged since @ec90f3fe7, 2025-09-18, and the same in ``.github/configs/nvidia-master.yaml``
of @17d5e204f, 2025-11-03):

- TensorRT-LLM DeepSeek-R1 NVFP4 on B200 (``dsr1_fp4_b200_trt_slurm.sh``): at TP 4, EP 4 above
  32 concurrent requests, with attention DP and the CUTLASS MoE at 256 (1k/1k, 1k/8k) or above
  32 (8k/1k); at TP 8, EP 8 above 8 (1k/1k), 16 (1k/8k) or 32 (8k/1k) requests, attention DP and
  CUTLASS at 256 (1k/1k, 1k/8k) or above 32 (8k/1k); the trtllm-gen MoE (``TRTLLM``) otherwise
  (trtbigmoe round).
- TensorRT-LLM DeepSeek-R1 fp8 on B200 (``dsr1_fp8_b200_trt_slurm.sh``): ``EP_SIZE=$TP`` always,
  the ``DEEPGEMM`` MoE, attention DP above 32 requests (1k/1k) or 64 (1k/8k, 8k/1k).
- TensorRT-LLM DeepSeek-R1 fp8 on H200 (``dsr1_fp8_h200_trt_slurm.sh``): ``EP_SIZE=$TP`` always,
  the ``CUTLASS`` MoE, attention DP above 64 requests (1k/1k, 1k/8k) or 32 (8k/1k).
- TensorRT-LLM gpt-oss-120b on H200 (``gptoss_fp4_h200_trt_slurm.sh``): ``--ep_size=$TP``,
  ``enable_attention_dp: false`` (layoutrows round). Its ``TRITON`` MoE is not one of the
  backends kvcalc times (CUTLASS, TRTLLM, DEEPGEMM): listed as none, the rows keep the engine's
  default curve as before.
- SGLang DeepSeek-R1 NVFP4 on B200 (``dsr1_fp4_b200_docker.sh``): ``--enable-ep-moe`` with
  ``--data-parallel-size=1``, which sets the expert-parallel size to the tensor-parallel size
  (SGLang's ``ServerArgs.__post_init__``); its MoE runner is the engine's own pick, not listed.

Read and found as stated: TensorRT-LLM gpt-oss on B200 (``gptoss_fp4_b200_trt_slurm.sh``: EP 1
below 256 requests, the sample's runs are 4-64) and vLLM's gpt-oss scripts on B200, H200 and
H100 (no ``--enable-expert-parallel``, no data parallel).

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
NEVER = 10**9  # a concurrency no run reaches: the script never turns the setting on
# B200 NVFP4 DeepSeek: (TP, ISL, OSL) -> (EP above this concurrency, attention DP and CUTLASS
# from this one)
RULE = {
    (4, 1024, 1024): (32, 256), (4, 1024, 8192): (32, 256), (4, 8192, 1024): (32, 33),
    (8, 1024, 1024): (8, 256), (8, 1024, 8192): (16, 256), (8, 8192, 1024): (32, 33),
}
# the scripts that set EP = TP at every concurrency: (engine, GPU, gemm quant, model family) ->
# (MoE backend or "" where the engine picks, {(ISL, OSL): attention DP above this concurrency})
EP_IS_TP = {
    ("trtllm", "b200_sxm", "fp8", "DeepSeek"):
        ("DEEPGEMM", {(1024, 1024): 32, (1024, 8192): 64, (8192, 1024): 64}),
    ("trtllm", "h200_sxm", "fp8", "DeepSeek"):
        ("CUTLASS", {(1024, 1024): 64, (1024, 8192): 64, (8192, 1024): 32}),
    ("trtllm", "h200_sxm", "nvfp4", "gpt-oss"): ("", {}),  # TRITON: not a backend kvcalc times
    ("sglang", "b200_sxm", "nvfp4", "DeepSeek"): ("", {}),
}  # fmt: skip


def layout_of(tp: int, isl: int, osl: int, concurrency: int) -> tuple[int, bool, str] | None:
    """(MoE EP, attention DP, MoE backend) InferenceX's B200 NVFP4 TensorRT-LLM DeepSeek script
    ran at ``tp`` and these lengths and concurrency (the module docstring), or None where it ran
    EP 1."""
    rule = RULE.get((tp, isl, osl))
    if rule is None or concurrency <= rule[0]:
        return None
    dp = concurrency >= rule[1]
    return tp, dp, "CUTLASS" if dp else "TRTLLM"


def script_layout(script: tuple[str, str, str, str], tp: int, isl: int, osl: int,
                  concurrency: int) -> tuple[int, bool, str] | None:  # fmt: skip
    """(MoE EP, attention DP, MoE backend) the InferenceX script ``script`` (engine, GPU, gemm
    quant, model family) ran at ``tp`` and these lengths and concurrency, or None where it ran
    the stated EP 1 without attention DP, or no script read covers it."""
    if script[:3] == ("trtllm", "b200_sxm", "nvfp4") and script[3] == "DeepSeek":
        return layout_of(tp, isl, osl, concurrency)
    rule = EP_IS_TP.get(script)
    if rule is None or tp == 1:
        return None
    backend, dp_above = rule
    return tp, concurrency > dp_above.get((isl, osl), NEVER), backend


def _script(r: dict) -> tuple[str, str, str, str]:
    family = "DeepSeek" if "DeepSeek" in r["model_path"] else r["model_path"].split("/")[-1][:7]
    return r["backend"], r["system"], r["gemm_quant_mode"], family


def layout_rows(sample: Path) -> list[tuple]:
    """(id, ep, attention_dp, moe_backend, rule) of every run in kvcalc's rows the module
    docstring names whose stated layout (EP 1, no attention DP) the script did not run."""
    with KVCALC_ROWS.open() as f:
        keep = {r["id"] for r in csv.DictReader(f)}
    out = []
    with sample.open() as f:
        for r in csv.DictReader(f):
            src = r["silicon_data_source"]
            if (r["id"] not in keep or not src.startswith(SOURCES)
                    or f"measured={MEASURED}" not in src
                    or r["moe_ep_size"] != "1" or r["attention_dp_size"] != "1"):  # fmt: skip
                continue
            c = re.search(r"silicon_concurrency=(\d+)", src)
            conc = int(c.group(1)) if c else int(r["batch_size"])
            script = _script(r)
            got = script_layout(script, int(r["tp_size"]), int(r["isl"]), int(r["osl"]), conc)
            if got is not None:
                ep, dp, backend = got
                rule = (f"{r['system'][:4]} {r['gemm_quant_mode']} {script[0]} {script[3]} "
                        f"TP {r['tp_size']}: EP {ep}" + (", attention DP" if dp else ""))
                out.append((r["id"], ep, int(dp), backend, rule))
    return sorted(out)


def main(argv: list[str]) -> int:
    return write_mapping(argv, "silicon_layout_rows.py", OUT,
                         ("id", "ep", "attention_dp", "moe_backend", "rule"), layout_rows,
                         "InferenceX runs")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
