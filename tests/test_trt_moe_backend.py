"""TensorRT-LLM's MoE backend as a setting (``--moe-backend``, MoeConfig.backend): the
trtllm-gen NVFP4 time from its measured ratio to the CUTLASS MoE, the rules that refuse a
backend the GPU or the experts' format cannot run, and the launch YAML that states it."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.moe_pipeline import (
    CUTLASS_MOE,
    TRTLLM_GEN_FP4_DECAY,
    TRTLLM_GEN_FP4_SPEEDUP,
    backend_time_ratio,
)
from calc.deploy.steps import step_of
from calc.errors import InvalidInputError
from calc.reports.launch_flags import launch_commands
from tests.test_engine_commands import check

FIT = (TRTLLM_GEN_FP4_SPEEDUP, TRTLLM_GEN_FP4_DECAY)


def _dep(backend=None, hw="b200", fmt="nvfp4", engine="trtllm", model="deepseek-r1", **kw):
    settings = EngineSettings(name=engine, moe_backend=backend)
    return Deployment.build(load_model(model), load_hardware(hw), tp=8, weight_dtype=fmt,
                            engine=settings, **kw)  # fmt: skip


def _experts(dep, batch=32):
    step = step_of(dep, batch=batch, ctx=2048)
    i = next(k for k, o in enumerate(step.raw) if o.name == "routed_experts")
    return step.raw[i], step.ops[i].time_s


def test_ratio_golden_values():
    # at or below one row per active expert the fitted speed-up alone: 1 / 1.885 = 0.530504
    assert backend_time_ratio(FIT, 1.0) == pytest.approx(0.530504, rel=1e-5)
    assert backend_time_ratio(FIT, 0.25) == pytest.approx(0.530504, rel=1e-5)  # m floored at 1
    # 4 rows: 4^0.0966 = exp(0.0966 × 1.386294) = exp(0.133916) = 1.143299; / 1.885 = 0.606524
    assert backend_time_ratio(FIT, 4.0) == pytest.approx(0.606524, rel=1e-5)
    # 64 rows: 64^0.0966 = exp(0.0966 × 4.158883) = exp(0.401748) = 1.494435; / 1.885 = 0.792804
    assert backend_time_ratio(FIT, 64.0) == pytest.approx(0.792804, rel=1e-5)
    assert backend_time_ratio(None, 4.0) == 1.0


def test_the_pipeline_times_only_trtllm_gen_nvfp4():
    assert CUTLASS_MOE.default_backend == "CUTLASS"
    assert CUTLASS_MOE.backend_speedup(None, "nvfp4") is None  # the default: the curve's
    assert CUTLASS_MOE.backend_speedup("CUTLASS", "nvfp4") is None
    assert CUTLASS_MOE.backend_speedup("TRTLLM", "nvfp4") == FIT
    # no trtllm-gen rows for fp8 block scales in the tables: timed as the curve times it
    assert CUTLASS_MOE.backend_speedup("TRTLLM", "fp8-block128") is None
    assert CUTLASS_MOE.backend_speedup("DEEPGEMM", "fp8-block128") is None


def test_default_and_cutlass_time_the_same_and_trtllm_is_faster():
    _, default = _experts(_dep(None))
    _, cutlass = _experts(_dep("cutlass"))  # names are read in any case
    op, gen = _experts(_dep("TRTLLM"))
    assert default == cutlass
    # the routed experts' time scales by the ratio at the op's rows per active expert
    assert gen / cutlass == pytest.approx(backend_time_ratio(FIT, op.gemm_m), rel=1e-9)
    assert gen < cutlass
    # the other ops do not move: the step differs by the routed experts alone
    a = step_of(_dep(None), batch=32, ctx=2048)
    b = step_of(_dep("TRTLLM"), batch=32, ctx=2048)
    assert a.time_s - b.time_s == pytest.approx(cutlass - gen, rel=1e-9)


def test_fp8_block_with_trtllm_keeps_the_curve():
    _, cutlass = _experts(_dep(None, fmt="fp8-block128"))
    _, gen = _experts(_dep("TRTLLM", fmt="fp8-block128"))
    _, deepgemm = _experts(_dep("DEEPGEMM", fmt="fp8-block128"))
    assert gen == cutlass == deepgemm


@pytest.mark.parametrize("kw, why", [
    (dict(backend="TRTLLM", hw="h200"),
     "TRTLLM MoE backend (trtllm-gen) runs on SM 100/103 GPUs only"),
    (dict(backend="TRTLLM", fmt="fp8"), "runs NVFP4, fp8-block128 and MXFP4 experts, not fp8"),
    (dict(backend="DEEPGEMM"), "DEEPGEMM MoE backend runs fp8-block128 or 16-bit experts"),
    (dict(backend="WIDEEP"), "is not one of TensorRT-LLM's modelled MoE backends"),
    # vLLM takes its own --moe-backend values (vllmmoerule round), not TensorRT-LLM's
    (dict(backend="TRTLLM", engine="vllm"), "is not one of vLLM's modelled MoE backends"),
])  # fmt: skip
def test_refused(kw, why):
    with pytest.raises(InvalidInputError, match=re.escape(why)):
        _dep(**kw)


def test_cli_refusal_is_one_line():
    out = subprocess.run(
        [sys.executable, "-m", "calc", "latency", "-m", "deepseek-r1", "-H", "h200",
         "--tp", "8", "--engine", "trtllm", "--moe-backend", "TRTLLM"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode != 0
    lines = [x for x in out.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "SM 100/103" in lines[0] and "Traceback" not in out.stderr


def _yaml(dep):
    cmds = launch_commands(dep)
    check(cmds, dep, dep.sharding.gpus)  # every command parses with the release's own table
    files = dict(cmds[0].files)
    return yaml.safe_load(files.get("extra-llm-api-config.yaml", "")) or {}


def test_launch_states_a_backend_other_than_the_default():
    assert _yaml(_dep("TRTLLM"))["moe_config"] == {"backend": "TRTLLM"}
    assert _yaml(_dep("DEEPGEMM", fmt="fp8-block128"))["moe_config"] == {"backend": "DEEPGEMM"}
    assert "moe_config" not in _yaml(_dep("CUTLASS"))  # the engine's default: nothing said
    assert "moe_config" not in _yaml(_dep(None))
    for release in ("1.0.0", "1.1.0", "1.2.0", "1.2.1"):
        dep = Deployment.build(load_model("deepseek-r1"), load_hardware("b200"), tp=8,
                               weight_dtype="nvfp4",
                               engine=EngineSettings(name="trtllm", version=release,
                                                     moe_backend="TRTLLM"))  # fmt: skip
        assert _yaml(dep)["moe_config"]["backend"] == "TRTLLM", release
