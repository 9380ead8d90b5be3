"""The GPU a start-up log names: the device names its lines print (``device_names_in``), and
the shipped profile a log resolves to with the warning it owes (``gpu_of_log``): a device name
before the memory total the log prints, the memory total before the h100 fallback.

The lines that name the device, each read from the source that prints it:

- vLLM's and SGLang's kernel-config files are named for the device, spaces as underscores
  (``E=512,N=256,device_name=NVIDIA_H200.json``): vLLM ``fused_moe.py get_config_file_name``
  ("Using configuration from ... for MoE layer." / "Using default MoE config ... Config file
  not found at ...") and ``quantization/utils/fp8_utils.py`` (block-FP8 GEMM, "Using default
  W8A8 Block FP8 kernel config ..."); SGLang ``fused_moe_triton_config.py`` ("Using MoE kernel
  config from ...", "Config file not found at ..."). vLLM names every H200 "NVIDIA_H200" and
  ROCm GPUs by its device-id table ("AMD_Instinct_MI300X").
- nvidia-smi's table row (``|   0  NVIDIA A100-SXM4-40GB          On  | ...``), nvidia-smi -L
  (``GPU 0: NVIDIA H100 80GB HBM3 (UUID: ...)``) and PyTorch's collect_env, which vLLM's and
  SGLang's issue forms ask for (``GPU models and configuration: GPU 0: NVIDIA H100 PCIe``),
  pasted with a log.
- trtllm-bench's MACHINE DETAILS line (``NVIDIA H100 80GB HBM3, memory 79.11 GB, 2.62 GHz``,
  ``tensorrt_llm/bench/dataclasses/reporting.py``).
- an AMD market name anywhere in a line (rocm-smi / amd-smi "AMD Instinct MI300X").
"""

from __future__ import annotations

import re

# one search per line: does it hold any of the phrases below (most lines hold none)
DEVICE_ANCHOR = re.compile(r"device_name=|GPU \d+: |NVIDIA |AMD[ _]Instinct")
# a kernel-config file name: read in a record joined whole too (a long path a terminal wrapped)
CONFIG_FILE = (re.compile(r"device_name=([A-Za-z0-9_\-]+?)(?:,|\.json)"),)
# each read in one line as printed (a pasted table's rows are not joined to the record before)
DEVICE_LINES = (
    *CONFIG_FILE,
    re.compile(r"^\|\s+\d+\s+((?:NVIDIA|Tesla)\s.+?)\s+(?:On|Off)\s+\|"),
    # each GPU of a list, also where an issue form ran collect_env's lines together
    re.compile(r"\bGPU \d+: ((?:NVIDIA|Tesla|AMD)\s[^(\n]*?)"
               r"(?=\s*(?:\(UUID|\bGPU \d+:|Nvidia driver|$))"),
    re.compile(r"^\s*(NVIDIA\s[^,]+), memory [0-9.]+ GB"),
    re.compile(r"\b(AMD[ _]Instinct[ _]MI\d{3}[A-Za-z]*)"),
)
MAX_DEVICE_NAME = 60  # characters kept of a name (a damaged line cannot fill a warning)


def device_names_in(text: str, patterns: tuple[re.Pattern, ...] = DEVICE_LINES) -> list[str]:
    """The device names one log line prints (none for most lines), as printed, by the first
    of ``patterns`` that finds any."""
    if DEVICE_ANCHOR.search(text) is None:
        return []
    for pattern in patterns:
        found = [m.group(1).strip()[:MAX_DEVICE_NAME] for m in pattern.finditer(text)]
        if found:
            return found
    return []


def gpu_of_log(names: list[str], by_memory: str | None) -> tuple[str, list[str]]:
    """(the shipped profile, the warnings) of a log that names the devices ``names`` and whose
    memory total is profile ``by_memory`` (None: it prints none kvcalc recognises). The first
    name with a shipped profile wins; a memory total that is another profile's, names of
    several profiles, or names of no shipped profile are each said in one line; with neither a
    known name nor a memory total, h100."""
    from calc.data.gpu_names import hardware_for_gpu

    known = {n: hardware_for_gpu(n) for n in names}
    profiles = list(dict.fromkeys(p for p in known.values() if p is not None))
    unknown = [n for n, p in known.items() if p is None]
    warnings = []
    if profiles:
        chosen = profiles[0]
        named = next(n for n, p in known.items() if p == chosen)
        if len(profiles) > 1:
            several = ", ".join(profiles)
            warnings.append(f"the log names GPUs of several profiles ({several}): predicted "
                            f"for {chosen}, the first (--hardware to choose)")  # fmt: skip
        if by_memory is not None and by_memory != chosen:
            warnings.append(f"the log names the GPU {named!r} ({chosen}) but prints the memory "
                            f"total of {by_memory}: predicted for {chosen} (--hardware to "
                            "choose)")  # fmt: skip
        return chosen, warnings
    said = f"the log names the GPU {', '.join(map(repr, unknown))}, which no shipped profile " \
        "is" if unknown else ""  # fmt: skip
    if by_memory is not None:
        if said:
            warnings.append(f"{said}: predicted for {by_memory}, the profile of the memory "
                            "total it prints (--hardware to choose)")  # fmt: skip
        return by_memory, warnings
    lead = f"{said}, and it prints" if said else "the log prints"
    warnings.append(f"{lead} no GPU memory kvcalc recognises: predicted for h100 (--hardware "
                    "to choose)")  # fmt: skip
    return "h100", warnings
