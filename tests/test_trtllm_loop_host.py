"""TensorRT-LLM's overlapped engine loop per running sequence (calc/deploy/host_costs.py
``with_loop``, the TensorRT-LLM wing's ``host_loop_sequence``) and the hardware profiles' host
CPU: hidden behind the GPU's step while shorter, the whole step beyond it, 2.75x on Grace."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from calc.data.hardware_schema import HardwareProfile
from calc.data.registry import load_hardware, load_model
from calc.data.yaml_io import validate
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import host_costs
from calc.deploy.host_costs import (
    CPU_FACTOR,
    LOOP_GRACE_MEASURED_S,
    LOOP_SEQUENCE_X86_S,
    NONE,
)
from calc.errors import ConfigError
from calc.reports.throughput import serving_throughput

ROOT = Path(__file__).resolve().parent.parent


def test_the_measured_loop_and_the_grace_factor():
    # NVIDIA/TensorRT-LLM PR #10273: 44.53 ms a loop at 1,536 sequences a rank on GB200:
    # 44.53 / 1536 = 0.028991 ms = 28.99 us a sequence on Grace
    assert LOOP_GRACE_MEASURED_S == pytest.approx(28.99e-6, abs=0.01e-6)
    # NVIDIA/TransformerEngine#2053: 37.08 us on GB200 / 13.48 us on a Xeon 8480C = 2.7507
    assert CPU_FACTOR["grace"] == pytest.approx(2.7507, abs=1e-4)
    assert CPU_FACTOR["x86"] == 1.0
    # 28.99 / 2.7507 = 10.54 us on an x86 host
    assert LOOP_SEQUENCE_X86_S == pytest.approx(10.54e-6, abs=0.01e-6)


def test_only_tensorrt_llm_runs_the_loop_beside_the_gpu_behind_every_front_end():
    for frontend in ("api", "offline"):
        trt = host_costs("trtllm", frontend=frontend)
        assert trt.loop_sequence_s == pytest.approx(LOOP_SEQUENCE_X86_S)
        assert "PR #10273" in trt.source
        assert host_costs("vllm", frontend=frontend).loop_sequence_s == 0
        assert host_costs("sglang", frontend=frontend).loop_sequence_s == 0
    # charged to every modelled release (measured on a later one: 1.0's loop is at least this)
    assert host_costs("trtllm", "1.0.0").loop_sequence_s == pytest.approx(LOOP_SEQUENCE_X86_S)


def test_the_loop_is_hidden_while_shorter_than_the_gpu_step():
    trt = host_costs("trtllm", frontend="offline")  # serial host time 0 (fitted)
    grace = trt.for_host_cpu("grace")
    # 1,536 sequences: x86 10.54 us x 1536 = 16.19 ms < a 20 ms GPU step: the GPU's 20 ms
    assert trt.step_s(20e-3, 1536) == pytest.approx(20e-3)
    # on Grace 28.99 us x 1536 = 44.53 ms > 20 ms: the loop's 44.53 ms
    assert grace.step_s(20e-3, 1536) == pytest.approx(44.53e-3, rel=1e-9)
    # each rank's loop holds its own sequences: 768 a rank on Grace, 22.27 ms > 20 ms
    assert grace.step_s(20e-3, 1536, 768) == pytest.approx(44.53e-3 / 2, rel=1e-9)
    # the serial terms still add: a 1 ms step and 2 us a sequence on top of the 44.53 ms
    serial = replace(grace, per_step_s=1e-3, per_sequence_s=2e-6)
    assert serial.step_s(20e-3, 1536) == pytest.approx(44.53e-3 + 1e-3 + 1536 * 2e-6)
    # no loop: the old sum, GPU + serial host
    assert NONE.step_s(20e-3, 1536) == pytest.approx(20e-3)


def test_the_cpu_factor_is_set_not_multiplied():
    trt = host_costs("trtllm")
    once = trt.for_host_cpu("grace")
    assert once.cpu_factor == pytest.approx(2.7507, abs=1e-4)
    assert once.for_host_cpu("grace") == once  # applied twice: the same
    assert once.for_host_cpu("x86").cpu_factor == 1.0
    assert trt.for_host_cpu(None) == trt  # a profile that states none: x86
    vllm = host_costs("vllm")
    assert vllm.for_host_cpu("grace") == vllm  # no loop to scale


def test_profiles_state_their_host_cpu():
    for name in ("gb200", "gb300"):  # a Grace superchip's GPUs
        hw = load_hardware(name)
        assert hw.host_cpu == "grace" and "Grace" in hw.host_cpu_source
    for name in ("b200", "h100", "h200", "l40s"):  # HGX boards and PCIe servers: x86
        assert load_hardware(name).host_cpu == "x86"


def test_an_unknown_host_cpu_is_refused():
    # the shipped file with one key changed: one error line naming the file and the key
    data = yaml.safe_load((ROOT / "hardware_profiles" / "b200.yaml").read_text())
    data["host_cpu"] = "sparc"
    with pytest.raises(ConfigError, match=r"mine\.yaml.*host_cpu"):
        validate(HardwareProfile, data, "mine.yaml")


def _qwen3(hw: str):
    return Deployment.build(load_model("qwen3-30b-a3b"), load_hardware(hw),
                            weight_dtype="nvfp4", kv_dtype="fp8",
                            engine=EngineSettings(name="trtllm", version="1.0.0"))  # fmt: skip


def test_steady_state_decode_waits_for_the_loop_on_grace_only():
    # Qwen3-30B-A3B on one GPU at 128/128 (the v1.0 page's row): 2,048 sequences, one rank
    gb200 = _qwen3("gb200")
    host = host_costs("trtllm", frontend="offline")
    with_loop = serving_throughput(gb200, prompt=128, gen=128, host=host)
    without = serving_throughput(gb200, prompt=128, gen=128, host=replace(host, loop_sequence_s=0))
    n = with_loop.concurrency
    assert n == without.concurrency == 2048
    # every decode step takes at least the loop: 127 steps x 2048 x 28.99 us = 7.54 s a cycle
    assert with_loop.decode_s >= 127 * 2048 * LOOP_GRACE_MEASURED_S * (1 - 1e-9)
    assert without.decode_s < 127 * 2048 * LOOP_GRACE_MEASURED_S  # the GPU alone is shorter
    assert with_loop.output_tokens_per_s_per_gpu < without.output_tokens_per_s_per_gpu
    # on B200 (x86) the same loop, 2048 x 10.54 us = 21.6 ms, hides behind the GPU's step
    b200 = _qwen3("b200")
    on_x86 = serving_throughput(b200, prompt=128, gen=128, host=host)
    no_loop = serving_throughput(b200, prompt=128, gen=128, host=replace(host, loop_sequence_s=0))
    assert on_x86.decode_s == pytest.approx(no_loop.decode_s, rel=1e-12)
