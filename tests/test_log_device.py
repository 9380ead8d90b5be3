"""The GPU a start-up log names (calc.deploy.engines.logdevice): each device line read from a
real log excerpt, the one name table `kvcalc score` and `kvcalc log` share
(calc.data.gpu_names), and the precedence --hardware > a device name > the memory total > h100."""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.data.gpu_names import hardware_for_gpu
from calc.deploy.engines.fromlog import deployment_from_log, read_log
from calc.deploy.engines.logdevice import device_names_in, gpu_of_log
from calc.reports import score

EXCERPTS = Path(__file__).resolve().parent / "data" / "engine_logs" / "excerpts"

# vLLM 0.10.2 on 2 x H200 (search index file 7292846353, the validation record
# vllm0102-2xh200-qwen3-next-80b-tp2): fused_moe.py's config file, named for the device
VLLM_MOE = ("(Worker_TP0 pid=1806413) INFO 10-23 15:14:29 [fused_moe.py:720] Using configuration "
            "from /data/aiuser3/LegalAI-DataPipeline/.venv/lib/python3.12/site-packages/vllm/"
            "model_executor/layers/fused_moe/configs/E=512,N=256,device_name=NVIDIA_H200.json "
            "for MoE layer.")  # fmt: skip
# vLLM's block-FP8 GEMM config (search index file 38628584938, a DeepGEMM check on an H100)
VLLM_FP8 = ("WARNING 02-26 19:12:19 [fp8_utils.py:458] Using default W8A8 Block FP8 kernel config. "
            "Performance might be sub-optimal! Config file not found at /home/mgoin/code/vllm/vllm/"
            "model_executor/layers/quantization/utils/configs/N=4096,K=7168,device_name="
            "NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8,block_shape=[128,128].json")  # fmt: skip
# SGLang on one H100 (search index file 69624180828, the record
# sglang-h100-qwen3-30b-a3b-fp8-tsk043), cut after the file name
SGLANG_MOE = ("[2026-08-27 03:45:56] Using default MoE kernel config. Performance might be "
              "sub-optimal! Config file not found at /sgl-workspace/sglang/python/sglang/srt/"
              "layers/moe/moe_runner/triton_utils/configs/triton_3_7_1/E=128,N=768,device_name="
              "NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8,block_shape=[128, 128].json")  # fmt: skip
# nvidia-smi on a DGX Station A100 (search index file 57978845466, the record
# vllm0191-a100-40g-qwen3-8b): four A100 40GB rows and the station's display GPU
SMI_A100 = ("|   4  NVIDIA A100-SXM4-40GB          On  | 00000000:C2:00.0 Off |"
            "                    0 |")
SMI_DISPLAY = ("|   3  NVIDIA DGX Display             On  | 00000000:C1:00.0 Off |"
               "                  N/A |")
# collect_env in vLLM issue forms: one GPU a line (search index file 30516319950), and a form
# that ran its lines together (search index file 56910307467, 8 x H100, first three shown)
COLLECT_ENV = "GPU models and configuration: GPU 0: NVIDIA H100 PCIe"
COLLECT_ENV_FLAT = ("CUDA_MODULE_LOADING set to: LAZY GPU models and configuration: GPU 0: NVIDIA "
                    "H100 80GB HBM3 GPU 1: NVIDIA H100 80GB HBM3 GPU 2: NVIDIA H100 80GB HBM3 "
                    "Nvidia driver version: 560.35.05")  # fmt: skip
# rocm-smi --showproductname on an MI300X (search index file 60804802875)
ROCM_SMI = "GPU[0]          : Card Series: AMD Instinct MI300X"
# trtllm-bench's MACHINE DETAILS line (calc/data/bench_results/trtllm_bench_text.py, from
# tensorrt_llm/bench/dataclasses/reporting.py)
TRTLLM_BENCH = "NVIDIA H100 80GB HBM3, memory 79.11 GB, 2.62 GHz"


@pytest.mark.parametrize(
    ("line", "names", "profile"),
    [
        (VLLM_MOE, ["NVIDIA_H200"], "h200"),
        (VLLM_FP8, ["NVIDIA_H100_80GB_HBM3"], "h100"),
        (SGLANG_MOE, ["NVIDIA_H100_80GB_HBM3"], "h100"),
        (SMI_A100, ["NVIDIA A100-SXM4-40GB"], "a100-40g"),
        (SMI_DISPLAY, ["NVIDIA DGX Display"], None),  # a name, no shipped profile
        (COLLECT_ENV, ["NVIDIA H100 PCIe"], "h100-pcie"),
        (COLLECT_ENV_FLAT, ["NVIDIA H100 80GB HBM3"] * 3, "h100"),
        (ROCM_SMI, ["AMD Instinct MI300X"], "mi300x"),
        (TRTLLM_BENCH, ["NVIDIA H100 80GB HBM3"], "h100"),
    ],
)
def test_each_device_line_of_a_real_log(line, names, profile):
    assert device_names_in(line) == names
    assert hardware_for_gpu(names[0]) == profile


def test_lines_that_name_no_device():
    # vLLM lines holding "NVIDIA"/"device" that name no GPU (the H200 log above)
    assert device_names_in("INFO 10-23 15:10:08 [__init__.py:216] Automatically detected "
                           "platform cuda.") == []  # fmt: skip
    assert device_names_in("Free memory on device (139.21/139.81 GiB) on startup.") == []
    assert device_names_in("| NVIDIA-SMI 535.247.01             Driver Version: 535.247.01   "
                           "CUDA Version: 12.2     |") == []  # fmt: skip


@pytest.mark.parametrize(
    ("name", "profile"),
    [
        ("NVIDIA A100-SXM4-80GB", "a100-80g"),
        ("NVIDIA A100 80GB PCIe", "a100-80g"),
        ("NVIDIA A100-PCIE-40GB", "a100-40g"),
        ("NVIDIA H100 NVL", None),  # 94 GB: not the H100 SXM's profile
        ("NVIDIA GH200 480GB", None),  # holds "h200": not the H200
        ("NVIDIA_H200", "h200"),  # vLLM's name for every H200 (fused_moe.py)
        ("NVIDIA GB200", "gb200"),
        ("NVIDIA B200", "b200"),
        ("NVIDIA_L4", "l4"),  # a config file's spelling
        ("NVIDIA L40S", "l40s"),
        ("NVIDIA L40", None),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000"),
        ("NVIDIA_GeForce_RTX_5090", "rtx-5090"),
        ("AMD_Instinct_MI325X", "mi325x"),  # vLLM's ROCm device-id table (platforms/rocm.py)
        ("AMD Instinct MI355X", "mi355x"),
        ("AMD Instinct MI300A", None),
    ],
)
def test_the_one_name_table(name, profile):
    assert hardware_for_gpu(name) == profile
    assert score.hardware_for_gpu is hardware_for_gpu  # kvcalc score reads the same table


def test_a_name_before_the_memory_total():
    # the name's profile, the memory total's named in one warning line
    hw, warnings = gpu_of_log(["NVIDIA A100-SXM4-80GB"], "h100")
    assert hw == "a100-80g"
    assert warnings == ["the log names the GPU 'NVIDIA A100-SXM4-80GB' (a100-80g) but prints "
                        "the memory total of h100: predicted for a100-80g (--hardware to "
                        "choose)"]  # fmt: skip
    assert gpu_of_log(["NVIDIA_H200"], "h200") == ("h200", [])  # both agree: nothing to say


def test_the_memory_total_then_h100():
    assert gpu_of_log([], "a100-40g") == ("a100-40g", [])
    hw, warnings = gpu_of_log([], None)
    assert hw == "h100"
    assert warnings == ["the log prints no GPU memory kvcalc recognises: predicted for h100 "
                        "(--hardware to choose)"]  # fmt: skip


def test_unknown_names_are_said():
    hw, warnings = gpu_of_log(["NVIDIA GH200 480GB"], None)
    assert hw == "h100"
    assert warnings == ["the log names the GPU 'NVIDIA GH200 480GB', which no shipped profile is, "
                        "and it prints no GPU memory kvcalc recognises: predicted for h100 "
                        "(--hardware to choose)"]  # fmt: skip
    hw, warnings = gpu_of_log(["NVIDIA H100 NVL"], "h100")
    assert hw == "h100"
    assert warnings == ["the log names the GPU 'NVIDIA H100 NVL', which no shipped profile is: "
                        "predicted for h100, the profile of the memory total it prints "
                        "(--hardware to choose)"]  # fmt: skip
    # an unknown name beside a known one is passed over (the DGX Station's display GPU)
    assert gpu_of_log(["NVIDIA DGX Display", "NVIDIA A100-SXM4-40GB"], None) == ("a100-40g", [])


def test_names_of_several_profiles():
    hw, warnings = gpu_of_log(["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB"], None)
    assert hw == "h100"
    assert warnings == ["the log names GPUs of several profiles (h100, a100-40g): predicted for "
                        "h100, the first (--hardware to choose)"]  # fmt: skip


def _a100_log() -> list[str]:
    # the A100 40GB start-up (vLLM 0.19.1, no memory total printed) with its note's nvidia-smi
    return [SMI_DISPLAY, SMI_A100, *(EXCERPTS / "vllm-a100-40g-qwen3-8b-0.19.1.log").read_text()
            .splitlines()]  # fmt: skip


def test_a_log_resolves_its_gpu_by_name():
    built = deployment_from_log("\n".join(_a100_log()))
    assert built.facts.devices == ["NVIDIA DGX Display", "NVIDIA A100-SXM4-40GB"]
    assert built.deployment.hardware.name == "a100-40g"
    assert not any("predicted for h100" in w for w in built.warnings)
    # without the nvidia-smi rows the same log falls back, as before
    bare = deployment_from_log((EXCERPTS / "vllm-a100-40g-qwen3-8b-0.19.1.log").read_text())
    assert bare.deployment.hardware.name == "h100"
    assert any("predicted for h100" in w for w in bare.warnings)


def test_hardware_given_wins():
    built = deployment_from_log("\n".join(_a100_log()), hardware="a100-80g")
    assert built.deployment.hardware.name == "a100-80g"
    assert not any("names the GPU" in w for w in built.warnings)


def test_a_wrapped_config_path_is_joined():
    # the vLLM line above cut inside its file name, as a terminal wraps a long line: the record
    # is joined whole
    at = VLLM_MOE.index("device_name=") + len("device_name=NVIDIA_H")
    lines = [VLLM_MOE[:at], VLLM_MOE[at:]]
    cut = [n for line in lines for n in device_names_in(line)]
    assert cut == []  # no piece holds the whole file name
    text = "\n".join([*lines, "INFO 10-23 15:14:30 [gpu_worker.py:298] Available KV cache "
                      "memory: 44.59 GiB"])  # fmt: skip
    assert read_log(text).devices == ["NVIDIA_H200"]
