"""vLLM's fused-MoE backend as an engine rule (calc/deploy/engines/vllm/moe_backend.py; issue 20
deliver 2, issue 21 deliver 1, vllmmoerule round): the oracle's pick by release, GPU family,
format and gating, each row beside the source lines it is read from (the vLLM wheels,
``pip download --no-deps vllm==X``); the curve that times it and the stand-in where kvcalc has
none; ``--moe-backend`` launched and parsed against the captured option tables; what a release or
GPU cannot run refused in one line; a log's oracle line taken into the Deployment."""

from __future__ import annotations

import re

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.fromlog import deployment_from_log
from calc.deploy.engines.vllm import moe_backend as mb
from calc.deploy.rates import curve_of
from calc.deploy.steps import step_of
from calc.errors import InvalidInputError
from calc.reports.launch_flags import launch_commands
from tests.test_engine_commands import check, parse, table_for

S9, S10, AMD = mb.SM90, mb.SM100, mb.ROCM


@pytest.mark.parametrize(
    ("release", "fam", "grp", "gated", "ep", "backend"),
    [
        # oracle/fp8.py select_fp8_moe_backend (0.16.0): AITER, FLASHINFER_TRTLLM,
        # FLASHINFER_CUTLASS, DEEPGEMM, ..., TRITON, ..., MARLIN, the first that supports the
        # layer; flashinfer_trtllm_moe.py _supports_current_device: family 100 only
        ((0, 16, 0), S10, "fp8", True, 1, "flashinfer_trtllm"),
        # ... its _supports_no_act_and_mul False ("Does not support non-gated MoE"):
        # flashinfer_cutlass_moe.py FlashInferExperts takes relu2_no_mul, per-tensor from 9.0
        ((0, 16, 0), S10, "fp8", False, 1, "flashinfer_cutlass"),
        # 0.17.0 experts/trtllm_fp8_moe.py _supports_no_act_and_mul True, RELU2_NO_MUL
        ((0, 17, 0), S10, "fp8", False, 1, "flashinfer_trtllm"),
        ((0, 33, 0), S10, "fp8", False, 1, "flashinfer_trtllm"),
        # FlashInferExperts._supports_quant_scheme: per-tensor fp8 from SM 9.0
        ((0, 16, 0), S9, "fp8", True, 1, "flashinfer_cutlass"),
        ((0, 33, 0), S9, "fp8", True, 8, "flashinfer_cutlass"),
        # block fp8: FlashInferExperts on SM 9.0 only (is_device_capability(90)) at 0.16.0
        ((0, 16, 0), S9, "fp8_block", True, 1, "flashinfer_cutlass"),
        # 0.17.0-0.33.0 oracle/fp8.py _get_priority_backends: "On Hopper for Block Fp8, prefer
        # Triton for TP and FI CUTLASS for EP" (moe_parallel_config.ep_size > 1)
        ((0, 17, 0), S9, "fp8_block", True, 1, "triton"),
        ((0, 33, 0), S9, "fp8_block", True, 8, "flashinfer_cutlass"),
        ((0, 16, 0), S10, "fp8_block", True, 1, "flashinfer_trtllm"),
        # non-gated block fp8 at 0.16: trtllm-gen, DeepGEMM (deep_gemm_moe.py) and Triton
        # (fused_moe.py TritonExperts) all _supports_no_act_and_mul False; MARLIN True
        ((0, 16, 0), S10, "fp8_block", False, 1, "marlin"),
        # oracle/unquantized.py: Triton unless VLLM_USE_FLASHINFER_MOE_FP16=1 (envs.py "0") to
        # 0.19.0; 0.20.0 _get_priority_backends: trtllm-gen first, FlashInfer last on SM 9.x
        ((0, 16, 0), S10, "bf16", True, 1, "triton"),
        ((0, 19, 0), S10, "bf16", True, 1, "triton"),
        ((0, 20, 0), S10, "bf16", True, 1, "flashinfer_trtllm"),
        ((0, 20, 0), S9, "bf16", True, 1, "triton"),
        # 0.20.0 experts/trtllm_bf16_moe.py _supports_no_act_and_mul False; 0.33.0 True
        ((0, 20, 0), S10, "bf16", False, 1, "flashinfer_cutlass"),
        ((0, 33, 0), S10, "bf16", False, 1, "flashinfer_trtllm"),
        # oracle/nvfp4.py: FLASHINFER_TRTLLM first; flashinfer_fp4_moe.py gated only at 0.16.0
        ((0, 16, 0), S10, "nvfp4", True, 1, "flashinfer_trtllm"),
        ((0, 16, 0), S10, "nvfp4", False, 1, "flashinfer_cutlass"),
        ((0, 17, 0), S10, "nvfp4", False, 1, "flashinfer_trtllm"),
        # every NVFP4 kernel but Marlin needs family 100 (cutlass_moe.py CutlassExpertsFp4)
        ((0, 16, 0), S9, "nvfp4", True, 1, "marlin"),
        # quantization/mxfp4.py get_mxfp4_backend: SM100_FI_MXFP4_BF16, SM 9.0 TRITON
        ((0, 16, 0), S10, "mxfp4", True, 1, "flashinfer_trtllm"),
        ((0, 16, 0), S9, "mxfp4", True, 1, "triton"),
        ((0, 16, 0), S9, "int4", True, 1, "marlin"),
        # envs.py VLLM_ROCM_USE_AITER default False: AITER off, Triton
        ((0, 16, 0), AMD, "fp8", True, 1, "triton"),
        ((0, 33, 0), AMD, "bf16", True, 1, "triton"),
    ],
)  # fmt: skip
def test_the_oracle_by_release_gpu_format_and_gating(release, fam, grp, gated, ep, backend):
    assert mb.auto(release, fam, grp, gated, ep)[0] == backend


def _dep(model="qwen3-30b-a3b", hw="h100", version="0.33.0", weight="fp8-block128", *, tp=2,
         ep=1, backend=None):  # fmt: skip
    return Deployment.build(load_model(model), load_hardware(hw), tp=tp, ep=ep,
                            weight_dtype=weight,
                            engine=EngineSettings(name="vllm", version=version,
                                                  moe_backend=backend))  # fmt: skip


def _routed(dep):
    step = step_of(dep, batch=8, ctx=2048)
    i = next(i for i, op in enumerate(step.raw) if op.name == "routed_experts")
    return curve_of(step.raw[i], step.rates)[0], step.rates


def test_a_backend_without_a_curve_says_which_stands_in():
    # 0.33.0 on H100 without EP runs Triton for block fp8; H100's vLLM fp8_block curve is fitted
    # to the FlashInfer CUTLASS rows alone: it stands in, and the rule says so
    dep = _dep()
    r = dep.engine_model.moe_runner(dep)
    assert (r.name, r.curve, r.stand_in) == ("triton", None, True)
    assert "fitted to flashinfer_cutlass rows) stands in" in r.why
    name, rates = _routed(dep)
    assert name == "moe@vllm.fp8_block" and rates.moe_runner == r  # --explain's "MoE runner"
    # under EP the same release runs FlashInfer CUTLASS: its own curve, nothing stands in
    ep = _dep(tp=2, ep=2)
    r = ep.engine_model.moe_runner(ep)
    assert (r.name, r.stand_in) == ("flashinfer_cutlass", False)
    # releases before 0.16.0 were not read: no rule, the format's curve as before
    assert _dep(version="0.15.0").engine_model.moe_runner(_dep(version="0.15.0")) is None
    # nor GPUs outside SM 9.0, SM 10.x and AMD's (Ada: L40S), though a stated Triton runs there
    assert _dep(hw="l40s", weight="fp8-tensor").engine_model.moe_runner(
        _dep(hw="l40s", weight="fp8-tensor")) is None  # fmt: skip
    assert _dep(hw="l40s", weight="fp8-tensor", backend="triton").engine.moe_backend == "triton"


def test_nemotron_moves_to_trtllm_gen_from_0_17():
    # the nemoload round's CUTLASS curve held at 0.16.0 only: 0.17.0's trtllm-gen takes ReLU²
    old, _ = _routed(_dep("nemotron-3-nano-30b-a3b", "b200", "0.16.0", "fp8-tensor"))
    new, _ = _routed(_dep("nemotron-3-nano-30b-a3b", "b200", "0.17.0", "fp8-tensor"))
    assert (old, new) == ("moe@vllm.fp8_cutlass", "moe@vllm.fp8")


@pytest.mark.parametrize("release", ["0.17.0", "0.33.0"])
@pytest.mark.parametrize("backend", ["flashinfer_cutlass", "triton", "deep_gemm"])
def test_the_stated_backend_is_launched_and_parses(release, backend):
    dep = _dep(version=release, backend=backend.upper())  # the log's spelling is taken too
    assert dep.engine.moe_backend == backend
    cmds = launch_commands(dep)
    check(cmds, dep, dep.sharding.gpus)  # every word against the release's captured table
    assert parse(list(cmds[0].argv), table_for("vllm", release))["moe_backend"] == backend
    assert not cmds[0].env


def test_every_backend_kvcalc_takes_is_a_moe_backend_value():
    # config/kernel.py MoEBackend (a pydantic Literal, not argparse choices): "auto",
    # "triton", "deep_gemm", "cutlass", "flashinfer_trtllm", "flashinfer_cutlass",
    # "flashinfer_cutedsl", "marlin", "aiter" in 0.17.0 (0.19.0 alike; 0.33.0 adds more)
    values = {"auto", "triton", "deep_gemm", "cutlass", "flashinfer_trtllm",
              "flashinfer_cutlass", "flashinfer_cutedsl", "marlin", "aiter"}  # fmt: skip
    # gpt-oss's two MXFP4 kernels are stated by environment, never as --moe-backend (MXFP4_ENV)
    assert set(mb.VLLM_MOE_BACKENDS) - set(mb.MXFP4_ENV) <= values
    assert set(mb.MXFP4_ENV) == {"flashinfer_trtllm_mxfp4_mxfp8", "flashinfer_trtllm_mxfp4_bf16"}
    assert "--moe-backend" not in table_for("vllm", "0.16.0")["options"]
    assert "--moe-backend" in table_for("vllm", "0.17.0")["options"]


def test_0_16_states_it_by_environment():
    # 0.16.0 oracle/fp8.py: VLLM_USE_FLASHINFER_MOE_FP8 set, VLLM_FLASHINFER_MOE_BACKEND
    # "throughput" -> FlashinferMoeBackend.CUTLASS (flashinfer_utils.py)
    dep = _dep(version="0.16.0", backend="flashinfer_cutlass")
    (cmd,) = launch_commands(dep)
    assert "--moe-backend" not in cmd.argv
    assert dict(cmd.env) == {"VLLM_USE_FLASHINFER_MOE_FP8": "1",
                             "VLLM_FLASHINFER_MOE_BACKEND": "throughput"}  # fmt: skip
    parse(list(cmd.argv), table_for("vllm", "0.16.0"))  # the rest parses as before


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        (dict(version="0.15.0", backend="triton"), "selection is not modelled"),
        (dict(version="0.16.0", weight="bf16", backend="triton"), "has no --moe-backend"),
        (dict(backend="flashinfer_trtllm"), "runs on SM 10.x GPUs, not h100"),
        (dict(hw="l40s", weight="fp8-tensor", backend="flashinfer_cutlass"),
         "runs on SM 9.0, SM 10.x, SM 12.x GPUs, not l40s (SM 8.x)"),
        (dict(hw="b200", backend="flashinfer_cutlass"),
         "does not run fp8-block128 experts on SM 10.x"),
        (dict(hw="b200", weight="nvfp4", backend="triton"), "does not run nvfp4 experts"),
        (dict(model="nemotron-3-nano-30b-a3b", weight="fp8-tensor", backend="triton"),
         "gated experts only"),
    ],
)  # fmt: skip
def test_what_cannot_run_is_refused_in_one_line(kwargs, said):
    with pytest.raises(InvalidInputError, match=re.escape(said)):
        _dep(**kwargs)


def test_the_cli_refuses_in_one_line(cli):
    r = cli("latency", "--model", "qwen3-30b-a3b", "-H", "h100", "--tp", "2", "--weight-dtype",
            "fp8-block128", "--engine", "vllm", "--engine-version", "0.33.0", "--moe-backend",
            "flashinfer_trtllm")  # fmt: skip
    assert r.code == 2 and "Traceback" not in r.err and "SM 10.x" in r.err
    assert len(r.err.strip().splitlines()) == 1
    r = cli("latency", "--model", "qwen3-30b-a3b", "-H", "h100", "--tp", "2", "--weight-dtype",
            "fp8-block128", "--engine", "vllm", "--engine-version", "0.33.0", "--moe-backend",
            "triton", "--explain")  # fmt: skip
    assert r.code == 0 and "MoE runner triton: stated" in r.out.replace("\n", " ")


# a vLLM 0.33.0 start-up log of Qwen3-30B-A3B-FP8 on B200, written from the format strings
# (entrypoints/utils.py "non-default args", oracle/fp8.py _make_log_backend, kv_cache_utils.py)
LOG = ("INFO [__init__.py:1] vLLM version 0.33.0\n"
       "INFO [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-30B-A3B-FP8', "
       "'tensor_parallel_size': 2}\n"
       "INFO [fp8.py:420] Using {b} Fp8 MoE backend out of potential backends: ['AITER', "
       "'FLASHINFER_TRTLLM', 'FLASHINFER_CUTLASS', 'DEEPGEMM', 'TRITON'].\n"
       "INFO [kv_cache_utils.py:1087] GPU KV cache size: 1,000,000 tokens\n")  # fmt: skip


def test_a_log_naming_the_backend_builds_it():
    built = deployment_from_log(LOG.replace("{b}", "FLASHINFER_TRTLLM"), hardware="b200",
                                weight_dtype="fp8-block128")  # fmt: skip
    dep = built.deployment
    assert dep.engine.moe_backend == "flashinfer_trtllm"
    assert not [w for w in built.warnings if "MoE" in w]  # B200's block-fp8 curve: its rows
    # Triton on B200: taken, and said (no curve of its own; trtllm-gen's stands in)
    built = deployment_from_log(LOG.replace("{b}", "TRITON"), hardware="b200",
                                weight_dtype="fp8-block128")  # fmt: skip
    assert built.deployment.engine.moe_backend == "triton"
    (w,) = [w for w in built.warnings if "MoE" in w]
    assert "taken as triton, which kvcalc does not time" in w and "stands in" in w
    # a backend kvcalc does not take (vLLM's own CUTLASS): the rule's pick, said
    built = deployment_from_log(LOG.replace("{b}", "VLLM_CUTLASS"), hardware="b200",
                                weight_dtype="fp8-block128")  # fmt: skip
    assert built.deployment.engine.moe_backend is None
    (w,) = [w for w in built.warnings if "MoE" in w]
    assert "VLLM_CUTLASS, which kvcalc does not time" in w and "flashinfer_trtllm" in w
