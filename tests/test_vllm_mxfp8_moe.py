"""vLLM's FlashInfer trtllm-gen MXFP4 MoE with MXFP8 activations as a stated MoE backend
(``--moe-backend flashinfer_trtllm_mxfp4_mxfp8``: calc/deploy/engines/vllm/moe_backend.py), its
curve (``moe_runner.vllm.flashinfer_trtllm_mxfp4_mxfp8``, fitted to SGLang's W4A8 rows of the same
FlashInfer kernel), its launch, its log line, and InferenceX's gpt-oss B200 runs that set it
(tools/silicon_moe_backend_rows.py). Issue 20, mxfp4big round."""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.fromlog import deployment_from_log, read_log
from calc.deploy.rates import curve_of
from calc.deploy.steps import step_of
from calc.errors import InvalidInputError
from calc.reports.launch_flags import launch_commands
from tests.test_engine_commands import check
from tests.test_trt_moe_backend_rows import synthetic_sample

ROOT = Path(__file__).resolve().parent.parent
MXFP8 = "flashinfer_trtllm_mxfp4_mxfp8"
BF16 = "flashinfer_trtllm_mxfp4_bf16"


def _dep(hw: str = "b200", backend: str | None = MXFP8, model: str = "gpt-oss-120b", **kw):
    return Deployment.build(load_model(model), load_hardware(hw),
                            engine=EngineSettings(name="vllm", moe_backend=backend, **kw))


def _experts(dep, **counts):
    step = step_of(dep, "expected", **counts)
    (i,) = [k for k, op in enumerate(step.raw) if op.name == "routed_experts"]
    return step.raw[i], float(step.ops[i].time_s), step.rates


def test_the_stated_backend_takes_its_own_curve():
    op, _, r = _experts(_dep(), batch=1, prompt=8192)
    name, curve = curve_of(op, r)
    assert name == f"moe@vllm.mxfp4.{MXFP8}"
    assert curve.peak == "fp8"  # its compute fraction is of the fp8 peak (MXFP8 activations)
    op, _, r = _experts(_dep(backend=None), batch=1, prompt=8192)
    assert curve_of(op, r)[0] == "moe@vllm.mxfp4"  # unstated: vLLM's bf16-activation default


def test_the_spelling_is_the_engines_own():
    # vLLM's enum value FLASHINFER_TRTLLM_MXFP4_MXFP8, any case, is the same backend
    assert _dep(backend="FLASHINFER_TRTLLM_MXFP4_MXFP8").engine.moe_backend == MXFP8


def test_an_8k_prompt_pass_is_the_tables_ratio_faster():
    # aiconfigurator 0.12.0, B200, gpt-oss-120b's layer (2880 x 2880, 128 experts, top 4, MoE TP
    # 1), 8,192 tokens, power-law routing: W4A8 0.945 ms (SGLang 0.5.14) against W4A16 3.242 ms
    # (vLLM 0.24.0): 0.945 / 3.242 = 0.29. kvcalc's two curves at the same pass: within 0.2-0.4
    _, fast, _ = _experts(_dep(), batch=1, prompt=8192)
    _, slow, _ = _experts(_dep(backend=None), batch=1, prompt=8192)
    assert 0.2 < fast / slow < 0.4


@pytest.mark.parametrize(("hw", "model", "says"), [
    # trtllm-gen: is_device_capability_family(100)
    ("h100", "gpt-oss-120b", r"runs on SM 10\.x GPUs, not h100"),
    ("b200", "mixtral-8x7b", "does not run bf16 experts"),  # bf16 experts: not the MXFP4 method
])  # fmt: skip
def test_refused_where_vllm_cannot_run_it(hw, model, says):
    with pytest.raises(InvalidInputError, match=says):
        _dep(hw=hw, model=model)


def test_another_name_is_refused_with_the_ones_it_times():
    # vLLM's backends kvcalc takes (calc.deploy.moe_pipeline VLLM_MOE_BACKENDS): the oracle's five
    # --moe-backend values, then gpt-oss's two MXFP4 kernels
    with pytest.raises(InvalidInputError, match=f"modelled MoE backends: flashinfer_trtllm, "
                       f"flashinfer_cutlass, triton, deep_gemm, marlin, {MXFP8}, {BF16}"):
        _dep(backend="cutlass_fp4")
    # a name it takes, on experts it cannot run (DeepGEMM: 128-block fp8 only): refused too
    with pytest.raises(InvalidInputError, match="deep_gemm MoE does not run mxfp4 experts"):
        _dep(backend="deep_gemm")


def test_the_bf16_default_stated_is_the_default():
    # vLLM's default on SM 10.x (FLASHINFER_TRTLLM_MXFP4_BF16): its own MXFP4 curve, no variable
    dep = _dep(backend=BF16)
    op, t, r = _experts(dep, batch=1, prompt=8192)
    assert curve_of(op, r)[0] == "moe@vllm.mxfp4"
    assert t == _experts(_dep(backend=None), batch=1, prompt=8192)[1]
    assert launch_commands(dep)[0].env == ()
    with pytest.raises(InvalidInputError, match=r"runs on SM 10\.x GPUs, not h200"):
        _dep(hw="h200", backend=BF16)


@pytest.mark.parametrize("release", ["0.15.1", "0.19.0"])
def test_launch_sets_the_variable(release):
    dep = _dep(version=release)
    cmds = launch_commands(dep)
    # the argv parsed against the release's captured options (check reads the words alone)
    check([replace(c, env=()) for c in cmds], dep, dep.sharding.gpus)
    assert cmds[0].text().startswith("VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1 vllm serve ")
    assert ("VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8", "1") in cmds[0].env
    assert ("VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8", "1") not in launch_commands(
        _dep(backend=None, version=release))[0].env  # fmt: skip


def test_the_log_line_of_the_oracle_states_it():
    # vllm 0.19.1 fused_moe/oracle/mxfp4.py _make_log_backend: f"Using '{backend.value}' Mxfp4
    # MoE backend."
    text = ("INFO [utils.py:233] non-default args: {'model_tag': 'openai/gpt-oss-120b', "
            "'model': 'openai/gpt-oss-120b'}\n"
            "INFO [mxfp4.py:359] Using 'FLASHINFER_TRTLLM_MXFP4_MXFP8' Mxfp4 MoE backend.\n"
            "INFO [kv_cache_utils.py:1087] GPU KV cache size: 1,000,000 tokens\n")  # fmt: skip
    built = deployment_from_log(read_log(text), hardware="b200")
    assert built.deployment.engine.moe_backend == MXFP8
    assert not [w for w in built.warnings if "MoE" in w]  # stated: nothing assumed
    bf16 = text.replace("MXFP4_MXFP8", "MXFP4_BF16")  # the default's line: the default's curve
    built = deployment_from_log(read_log(bf16), hardware="b200")
    assert built.deployment.engine.moe_backend == BF16
    assert not [w for w in built.warnings if "MoE" in w]


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_inferencex_gptoss_b200_runs_from_its_pr48(tmp_path, monkeypatch):
    rows = _tool("silicon_moe_backend_rows")
    src = "source_file=2026-03-25.csv; measured=2026-02-25T19:02:12Z"
    runs = [
        ("a", "vllm", "openai/gpt-oss-120b", "b200_sxm", "nvfp4", "1",
         src + "; image=vllm/vllm-openai:v0.15.1"),
        ("b", "vllm", "openai/gpt-oss-120b", "b200_sxm", "nvfp4", "1",
         "source_file=2026-04-06.csv; measured=2025-11-02T00:00:00.000Z"),  # no image: #48 on
        # Hopper: Marlin, from InferenceX#327 (2026-01-02; the marlinfp4 round)
        ("c", "vllm", "openai/gpt-oss-120b", "h100_sxm", "nvfp4", "1", src),
        ("d", "vllm", "openai/gpt-oss-120b", "b200_sxm", "nvfp4", "1",
         "source_file=2026-04-06.csv; measured=2025-09-20T00:00:00Z"),  # before #48
        ("e", "vllm", "openai/gpt-oss-120b", "b200_sxm", "nvfp4", "1",
         "source_file=/x/b200/vllm.csv; measured=2026-02-25"),  # not an InferenceX export
    ]
    got = rows.backend_rows(synthetic_sample(tmp_path, monkeypatch, "abcde", runs))
    assert [(r[0], r[1]) for r in got] == [("a", MXFP8), ("b", MXFP8), ("c", "marlin")]


def test_the_runner_line_goes_beside_another_engines(tmp_path, monkeypatch):
    fit = _tool("fit_kernels")
    (tmp_path / "hardware_profiles").mkdir()
    prof = tmp_path / "hardware_profiles" / "x.yaml"
    prof.write_text("kernels:\n  moe_engine:\n    vllm:\n      mxfp4: {a: 1}\n"
                    "  moe_runner:\n    sglang:\n      triton:\n        fp8_block: {b: 2}\n"
                    "  engine_scale:\n    vllm: {}\n")  # fmt: skip
    monkeypatch.setattr(fit, "ROOT", tmp_path)
    fit._put_runner_line("x", "vllm", MXFP8, "        mxfp4: {c: 3}")
    fit._put_runner_line("x", "vllm", MXFP8, "        mxfp4: {c: 4}")  # replaced, not added
    assert prof.read_text() == (
        "kernels:\n  moe_engine:\n    vllm:\n      mxfp4: {a: 1}\n"
        "  moe_runner:\n    sglang:\n      triton:\n        fp8_block: {b: 2}\n"
        f"    vllm:\n      {MXFP8}:\n        mxfp4: {{c: 4}}\n"
        "  engine_scale:\n    vllm: {}\n")  # fmt: skip
