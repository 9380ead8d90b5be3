"""Quantized weight and KV formats: exact bytes with scale overhead, never bits / 8."""

from __future__ import annotations

import pytest

from calc.data.dtypes import bytes_per_element
from calc.errors import UnknownNameError
from calc.formulas.quant import kv_bytes_per_element, matrix_bytes, weight_bytes_per_element


@pytest.mark.parametrize(
    "fmt, expected",
    [
        ("bf16", 2.0),
        ("int4", 0.5),  # plain: no scales
        ("fp8-block128", 1 + 4 / 16384),  # one fp32 per 128 × 128 block
        ("int4-g128", 0.5 + 2.5 / 128),  # fp16 scale + 4-bit zero per 128 = 4.15625 bits
        ("int4-g128-sym", 0.5 + 2 / 128),
        ("fp4-g128", 0.5 + 2 / 128),
        ("mxfp4", 0.53125),  # 4 + 8/32 = 4.25 bits
        ("nvfp4", 0.5625),  # 4 + 8/16 = 4.5 bits
    ],
)
def test_bytes_per_element(fmt, expected):
    assert weight_bytes_per_element(fmt) == expected


def test_per_channel_needs_row_width():
    # int8 + one bf16 scale per 4,096-wide row: 1 + 2/4096
    assert weight_bytes_per_element("int8-channel", k=4096) == 1 + 2 / 4096


def test_matrix_bytes_exact():
    # 4096 × 4096 fp8-block128: 16,777,216 B + 32 × 32 blocks × 4 B = 16,781,312
    assert matrix_bytes(4096, 4096, "fp8-block128") == 16_781_312
    # partial blocks round up: 4097 × 4096 → 33 × 32 blocks: 16,781,312 + 4,096 + 128
    assert matrix_bytes(4097, 4096, "fp8-block128") == 16_777_216 + 4096 + 33 * 32 * 4
    # mxfp4 2880 × 2880: 4,147,200 B payload + 2880 × 90 blocks × 1 B = 4,406,400
    assert matrix_bytes(2880, 2880, "mxfp4") == 4_406_400
    # nvfp4 adds one fp32 tensor scale: 16 × 16 → 128 + 16 × 1 × 1 + 4 = 148
    assert matrix_bytes(16, 16, "nvfp4") == 148
    # int4-g128 4096 × 4096: 8,388,608 + 4096 × 32 groups × 2.5 B = 8,716,288
    assert matrix_bytes(4096, 4096, "int4-g128") == 8_716_288
    # fp8 per tensor: 1,000,000 B + 4
    assert matrix_bytes(1000, 1000, "fp8-tensor") == 1_000_004
    # int8 per channel: 1,000 × 1,000 + 1,000 rows × 2 B
    assert matrix_bytes(1000, 1000, "int8-channel") == 1_002_000


def test_kv_formats():
    # fp8 + fp32 scale per token per 128-wide head: 1 + 4/128
    assert kv_bytes_per_element("fp8-token-head", 128) == 1.03125
    # int8 + fp16 scale + fp16 zero: 1 + 4/128; int4: 0.5 + 4/128
    assert kv_bytes_per_element("int8-token-head", 128) == 1.03125
    assert kv_bytes_per_element("int4-token-head", 128) == 0.53125
    assert kv_bytes_per_element("fp8") == 1.0


def test_plain_dtypes_unchanged():
    assert bytes_per_element("int4") == 0.5 and bytes_per_element("bf16") == 2.0
    with pytest.raises(UnknownNameError):
        weight_bytes_per_element("int3")


def test_memory_cli_formats(cli):
    r = cli(
        "memory", "--model", "llama3-8b", "--ctx", "8192",
        "--weight-dtype", "int4-g128", "--kv-dtype", "fp8-token-head", "-f", "json",
    )  # fmt: skip
    assert r.code == 0, r.err
    d = r.json()
    # the linear layers 8,030,261,248 − 1,050,939,392 (embedding, lm_head, norms: bf16)
    # = 6,979,321,856 params × (0.5 + 2.5/128 = 0.51953125) = 3,625,975,808 B
    # + 1,050,939,392 × 2 = 2,101,878,784 B -> 5,727,854,592 B
    assert d["weights_bytes"] == 5_727_854_592
    # 2 × 8 × 128 × (1 + 4/128) = 2,112 B per token per layer
    assert d["kv_bytes_per_token_per_layer"] == 2112
    r = cli("memory", "--model", "llama3-8b", "--ctx", "8", "--kv-dtype", "mxfp4")
    assert r.code == 2 and "unknown KV-cache dtype 'mxfp4'" in r.err
