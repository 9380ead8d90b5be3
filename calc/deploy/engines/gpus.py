"""The CUDA compute capability of the shipped GPU profiles (major, minor), which the engines
branch on when they choose kernels (vLLM's MLA backend and its block size, the FlashInfer
all-reduce fusion): NVIDIA's CUDA GPUs table (developer.nvidia.com/cuda-gpus). None: not a
CUDA GPU (AMD) or a profile not listed here."""

from __future__ import annotations

COMPUTE_CAPABILITY: dict[str, tuple[int, int]] = {
    "a10g": (8, 6),
    "a100-40g": (8, 0),
    "a100-80g": (8, 0),
    "l4": (8, 9),
    "l40s": (8, 9),
    "rtx-4090": (8, 9),
    "h100": (9, 0),
    "h100-pcie": (9, 0),
    "h20": (9, 0),
    "h200": (9, 0),
    "b200": (10, 0),
    "gb200": (10, 0),
    "b300": (10, 3),
    "gb300": (10, 3),
    "rtx-5090": (12, 0),
    "rtx-pro-6000": (12, 0),
}


def runs_rocm(hw) -> bool:
    """Whether ``hw`` is an AMD GPU (the engines run their ROCm builds and kernels there)."""
    return str(getattr(hw, "vendor", "")).upper() == "AMD"


def compute_capability(hw) -> tuple[int, int] | None:
    """(major, minor) of ``hw``'s GPU, or None when it is not a listed CUDA GPU."""
    return COMPUTE_CAPABILITY.get(getattr(hw, "name", ""))


# nvidia-smi memory.total [MiB] where a source prints it (SGLang sizes its defaults by it):
# H100 SXM 80GB HBM3 81,559 MiB and B200 183,359 MiB (docs/hardware.md, "the driver total")
NVIDIA_SMI_TOTAL_MIB: dict[str, int] = {"h100": 81_559, "b200": 183_359}


def smi_total_mib(hw) -> float:
    """The device memory nvidia-smi reports [MiB]: the listed figure, else torch's total (the
    driver keeps a few hundred MiB more than torch sees)."""
    name = getattr(hw, "name", "")
    if name in NVIDIA_SMI_TOTAL_MIB:
        return float(NVIDIA_SMI_TOTAL_MIB[name])
    return int(hw.budget_memory_bytes) / 2**20
