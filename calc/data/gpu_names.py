"""The shipped hardware profile a GPU's name is, as tools and engines print the name: nvidia-smi
and torch ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB"), vLLM's and SGLang's kernel-config
file names (spaces as underscores: "NVIDIA_H100_80GB_HBM3", "AMD_Instinct_MI300X"), the AMD
market names. One table, read by ``kvcalc score`` (a benchmark file's GPU) and ``kvcalc log``
(a start-up log's device lines)."""

from __future__ import annotations

import re

# (pattern over the name lower-cased with "_" and "-" as spaces, profile; None: a GPU with no
# shipped profile, named so that it is not taken for the profile a looser pattern gives), first
# match wins. The memory in the name separates the A100s (40 GB vs 80 GB) and the H100 NVL
# (94 GB, not shipped) from the H100 SXM; the GH200 and GB200/GB300 superchips' names hold
# "h200"/"b200"/"b300", so those patterns start at a word boundary.
_GPUS: tuple[tuple[str, str | None], ...] = (
    (r"\bgb300", "gb300"), (r"\bgb200", "gb200"), (r"\bgh200", None),
    (r"\bb300", "b300"), (r"\bb200", "b200"),
    (r"\bh100.*\bnvl\b", None), (r"\bh100.*pcie", "h100-pcie"), (r"\bh100\b", "h100"),
    (r"\bh200\b", "h200"), (r"\bh20\b", "h20"),
    (r"\ba100.*\b80\s?gb?\b", "a100-80g"), (r"\ba100.*\b40\s?gb?\b", "a100-40g"),
    (r"\ba10g\b", "a10g"), (r"\bl40s\b", "l40s"), (r"\bl4\b", "l4"),
    (r"\brtx pro 6000\b", "rtx-pro-6000"), (r"\brtx 5090\b", "rtx-5090"),
    (r"\brtx 4090\b", "rtx-4090"),
    (r"\bmi355", "mi355x"), (r"\bmi325", "mi325x"), (r"\bmi300x", "mi300x"),
)  # fmt: skip
_SEPARATORS = re.compile(r"[_\-]+")


def normal_gpu_name(name: str) -> str:
    """``name`` lower-cased, its underscores and hyphens as single spaces (the kernel-config
    file names' spelling read as nvidia-smi's)."""
    return " ".join(_SEPARATORS.sub(" ", name).lower().split())


def hardware_for_gpu(name: str | None) -> str | None:
    """The shipped hardware profile a recorded GPU name is (None: none known, or a GPU kvcalc
    ships no profile for: GH200, H100 NVL)."""
    if not name:
        return None
    low = normal_gpu_name(name)
    for pattern, profile in _GPUS:
        if re.search(pattern, low):
            return profile
    return None
