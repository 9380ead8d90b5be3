"""Storage bytes [bytes] of quantized weights and KV caches, scales and zero points included.

A format is a payload of ``bits`` per element plus, per group of elements, a scale (and for
asymmetric integer formats a zero point), plus optionally one per-tensor scale. Bytes are
counted exactly per matrix (``matrix_bytes``); ``weight_bytes_per_element`` gives the exact
per-element rate of a matrix whose dimensions are whole multiples of the group (true of the
shipped models' projections), which the memory model multiplies by the parameter count.

Weight formats (group along the input dimension unless stated):

=============== ======= ============================================ =========================
name            payload  scales (per group)                            bytes / element
=============== ======= ============================================ =========================
fp8-tensor      8 bit    one fp32 per tensor                            1 (+ 4 B per tensor)
fp8-block128    8 bit    one fp32 per 128×128 block [1]                 1 + 4/16384
int8-channel    8 bit    one bf16 per output channel (k = in width)     1 + 2/k
int4-g128       4 bit    fp16 scale + 4-bit zero per 128 (GPTQ/AWQ [2])  0.5 + 2.5/128
int4-g128-sym   4 bit    fp16 scale per 128                             0.5 + 2/128
int{4,8}-g{32,64,128}[-sym]  the same rule for GPTQ/AWQ's other bit widths and groups: an fp16
                scale and (unless -sym) a zero of the payload's width per group
fp4-g128        4 bit    bf16 scale per 128                             0.5 + 2/128
mxfp4           4 bit    E8M0 (1 B) per 32 [3]                          0.5 + 1/32 (4.25 bit)
nvfp4           4 bit    FP8 E4M3 per 16 + fp32 per tensor [4]          0.5 + 1/16 (4.5 bit)
mxfp8           8 bit    E8M0 (1 B) per 32 [3]                          1 + 1/32 (8.25 bit)
nf4-g64         4 bit    fp32 absmax per 64 (bitsandbytes 4-bit [6])    0.5 + 4/64 (4.5 bit)
=============== ======= ============================================ =========================

KV-cache formats (group = one token's head, ``head_width`` elements: head_dim, or for MLA
the latent + RoPE key):

fp8-token-head (1 B + one fp32 scale per token per head), int8-token-head and
int4-token-head (payload + fp16 scale + fp16 zero point per token per head, as LMDeploy's
int8/int4 KV [5]). The plain dtypes (fp32 … int4, fp4) carry no scales.

[1] DeepSeek-V3 ``quantization_config`` weight_block_size [128, 128], fp32 ``weight_scale_inv``.
[2] AutoGPTQ/AutoAWQ: fp16 ``scales`` [in/g, out] and int32-packed 4-bit ``qzeros``.
[3] OCP Microscaling Formats (MX) v1.0: 32-element blocks, one E8M0 shared scale.
[4] NVIDIA NVFP4 (Blackwell): 16-element blocks with an E4M3 scale, plus an fp32 tensor scale.
[5] LMDeploy docs, "INT4/INT8 KV Cache": per-head per-token asymmetric quantization.
[6] bitsandbytes ``Linear4bit``: NF4/FP4 blocks of 64 with an fp32 absmax each (double
    quantisation stores the absmax in 8 bit; not modelled, so this is its upper bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from calc.data.dtypes import BYTES_PER_ELEMENT
from calc.errors import InvalidInputError, UnknownNameError


@dataclass(frozen=True)
class Format:
    """Payload bits per element, and what each group of ``group`` elements adds."""

    name: str
    bits: int
    group: int | None = None  # elements per scale; None: no group scale; 0: per row (k)
    scale_bytes: float = 0.0  # per group
    zero_bytes: float = 0.0  # per group (asymmetric formats)
    tensor_bytes: int = 0  # per tensor (per-tensor scale)
    block_2d: bool = False  # group is a group × group tile (fp8-block128)

    def per_element(self, k: int | None = None) -> float:
        """Bytes per element of a matrix whose dims are multiples of the group [bytes]."""
        payload = self.bits / 8
        if self.group is None:
            return payload
        group = k if self.group == 0 else self.group
        if group is None:
            raise InvalidInputError(f"{self.name}: per-row scales need the row width k")
        if self.block_2d:
            group = group * group
        return payload + (self.scale_bytes + self.zero_bytes) / group


WEIGHT_FORMATS: dict[str, Format] = {
    "fp8-tensor": Format("fp8-tensor", 8, tensor_bytes=4),
    "fp8-block128": Format("fp8-block128", 8, 128, 4, block_2d=True),
    "int8-channel": Format("int8-channel", 8, 0, 2),
    "int4-g128": Format("int4-g128", 4, 128, 2, 0.5),
    "int4-g128-sym": Format("int4-g128-sym", 4, 128, 2),
    "fp4-g128": Format("fp4-g128", 4, 128, 2),
    "mxfp4": Format("mxfp4", 4, 32, 1),
    "nvfp4": Format("nvfp4", 4, 16, 1, tensor_bytes=4),
    "mxfp8": Format("mxfp8", 8, 32, 1),
    "nf4-g64": Format("nf4-g64", 4, 64, 4),
}
# GPTQ/AWQ's other widths and groups: fp16 scale + a zero point of the payload width per group
for _bits in (4, 8):
    for _group in (32, 64, 128):
        _name = f"int{_bits}-g{_group}"
        WEIGHT_FORMATS.setdefault(_name, Format(_name, _bits, _group, 2, _bits / 8))
        WEIGHT_FORMATS.setdefault(f"{_name}-sym", Format(f"{_name}-sym", _bits, _group, 2))
KV_FORMATS: dict[str, Format] = {
    "fp8-token-head": Format("fp8-token-head", 8, 0, 4),
    "int8-token-head": Format("int8-token-head", 8, 0, 2, 2),
    "int4-token-head": Format("int4-token-head", 4, 0, 2, 2),
}
_PLAIN = {n: Format(n, round(b * 8)) for n, b in BYTES_PER_ELEMENT.items()}


def _lookup(name: str, table: dict[str, Format], kind: str) -> Format:
    if name in _PLAIN:
        return _PLAIN[name]
    if name in table:
        return table[name]
    raise UnknownNameError(kind, name, [*_PLAIN, *table])


def weight_format(name: str) -> Format:
    return _lookup(name, WEIGHT_FORMATS, "weight dtype")


def kv_format(name: str) -> Format:
    return _lookup(name, KV_FORMATS, "KV-cache dtype")


def is_plain(name: str) -> bool:
    return name in _PLAIN


def matrix_bytes(rows: int, cols: int, fmt: str) -> int:
    """Exact bytes of one rows × cols weight matrix (cols = input width, the group axis):
    payload ceil(rows·cols·bits/8) + scales/zeros per (partial) group + per-tensor scale."""
    f = weight_format(fmt)
    payload = math.ceil(rows * cols * f.bits / 8)
    if f.group is None:
        groups = 0
    elif f.block_2d:
        groups = math.ceil(rows / f.group) * math.ceil(cols / f.group)
    elif f.group == 0:
        groups = rows
    else:
        groups = rows * math.ceil(cols / f.group)
    return payload + math.ceil(groups * (f.scale_bytes + f.zero_bytes)) + f.tensor_bytes


def weight_bytes_per_element(fmt: str, k: int | None = None) -> float:
    """Weight bytes per parameter of ``fmt`` [bytes], scales included (k: row width for
    per-channel formats)."""
    return weight_format(fmt).per_element(k)


def kv_bytes_per_element(fmt: str, head_width: int | None = None) -> float:
    """KV bytes per cached element of ``fmt`` [bytes]; token-head formats add their scale
    (and zero point) once per ``head_width`` elements."""
    return kv_format(fmt).per_element(head_width)
