"""TensorRT-LLM's overlapped engine loop per running sequence (calc/deploy/host_costs.py
``with_loop``, the TensorRT-LLM wing's ``host_loop_sequence``) and the hardware profiles' host
CPU: hidden behind the GPU's step while shorter, the whole step beyond it, 2.75x on Grace."""

from __future__ import annotations

from dataclasses import dataclass, replace
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
from calc.serve.steptime import AffineStepTime

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


def test_tensorrt_llm_runs_its_measured_loop_beside_the_gpu_behind_every_front_end():
    for frontend in ("api", "offline"):
        trt = host_costs("trtllm", frontend=frontend)
        assert trt.loop_sequence_s == pytest.approx(LOOP_SEQUENCE_X86_S)
        assert "PR #10273" in trt.source
        assert host_costs("vllm", frontend=frontend).loop_sequence_s == 0
        # SGLang's loop is its own fitted figure (tests/test_sglang_loop_host.py)
        assert "PR #10273" not in host_costs("sglang", frontend=frontend).source
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


# ---------------------------------------------------------------------------------------------
# The serving simulation: an iteration waits for the loop where it outlasts the GPU's work


@dataclass(frozen=True)
class _LoopedStep(AffineStepTime):
    """The toy iteration time with an engine loop of ``loop_s`` a sequence beside it."""

    loop_s: float = 0.0

    def loop_floor_s(self, b: int) -> float:
        return self.loop_s * b

    def iteration_s(self, b, ctx_sum, chunks, rows) -> float:
        gpu = super().iteration_s(b, ctx_sum, chunks, rows)
        return max(gpu, self.loop_s * (b + len(chunks))) if gpu else 0.0


@pytest.mark.parametrize("seed", range(24))
def test_fast_loop_matches_the_reference_with_an_engine_loop(seed):
    # 8 ms a sequence against 10 ms + 1 ms a token + 10 us a key: at 2 sequences the loop's
    # 16 ms binds below 400 keys and lets go beyond, so the fast loop's stretches and the
    # reference's iterations both cross the floor (it moves the schedule of 18 of the 24)
    from calc.serve.scheduler import run_group
    from tests.serve_reference import (
        assert_same_schedule,
        random_scenario,
        simulate_group_reference,
    )

    arrival, prompt, gen, shared, lim, _ = random_scenario(seed)
    step = _LoopedStep(fixed_s=0.01, per_token_s=0.001, per_ctx_s=1e-5, loop_s=0.008)
    a = run_group(arrival, prompt, gen, shared, lim, step)
    b = simulate_group_reference(arrival, prompt, gen, shared, lim, step)
    assert_same_schedule(a, b)


def test_a_loop_bound_stretch_by_hand():
    # 4 requests of 1-token prompts and 4 output tokens, all at 0; 10 ms + 10 us a key, loop
    # 5 ms a sequence: their prefill (4 chunks) takes max(10 ms, 4 x 5 ms) = 20 ms (first tokens
    # at 20 ms); each decode of the 4 (contexts 2, 3, 4: 8, 12, 16 keys) takes max(10.08 ...
    # 10.16 ms, 20 ms) = 20 ms: tokens at 40, 60, 80 ms, the last at 80 ms
    from calc.serve.scheduler import run_group
    from calc.serve.simulate import Limits

    lim = Limits(pool_blocks=100, block_size=4, max_batched_tokens=100, max_num_seqs=8)
    step = _LoopedStep(fixed_s=0.01, per_ctx_s=1e-5, loop_s=0.005)
    out = run_group([0.0] * 4, [1] * 4, [4] * 4, [0] * 4, lim, step)
    assert out.first_token == pytest.approx([0.02] * 4)
    assert out.finish == pytest.approx([0.08] * 4)
    # without the loop: 10 ms + 10 us x keys a step (prefill 10 ms; decodes 10.08, 10.12, 10.16)
    plain = run_group([0.0] * 4, [1] * 4, [4] * 4, [0] * 4, lim,
                      AffineStepTime(fixed_s=0.01, per_ctx_s=1e-5))  # fmt: skip
    assert plain.finish == pytest.approx([0.01 + 0.01008 + 0.01012 + 0.01016] * 4)


def test_the_step_table_times_the_loop_on_the_profiles_host():
    from calc.serve.steptime import step_table

    for hw, per_seq in (("gb200", LOOP_GRACE_MEASURED_S), ("b200", LOOP_SEQUENCE_X86_S)):
        table = step_table(_qwen3(hw), max_tokens=2048, max_ctx=4096)
        # the api front-end's serial time is 0 for TensorRT-LLM: the floor is the loop alone
        assert table.loop_floor_s(2048) == pytest.approx(2048 * per_seq)  # 59.4 / 21.6 ms
        decode = table.iteration_s(2048, 2048 * 192, (), 2048)  # 128/128's mean context
        assert decode >= 2048 * per_seq * (1 - 1e-12)
    # GB200 at 2,048 sequences: the loop's 59.4 ms outlasts the GPU's decode step
    gb = step_table(_qwen3("gb200"), max_tokens=2048, max_ctx=4096)
    assert gb.iteration_s(2048, 2048 * 192, (), 2048) == pytest.approx(2048 * LOOP_GRACE_MEASURED_S)
    assert gb.decode_s(2048) + gb.ctx_slope(2048) * 2048 * 192 < 2048 * LOOP_GRACE_MEASURED_S
