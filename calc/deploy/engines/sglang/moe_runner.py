"""Which fused-MoE kernels (``--moe-runner-backend``) an SGLang release runs for a deployment's
block-fp8 routed experts: the runner's name and why, read from each release's wheel (PyPI
``sglang==X``; issue 20, sgrunner round).

``--moe-runner-backend`` defaults to ``auto``. For experts of ``Fp8MoEMethod`` (a checkpoint with
``quant_method: fp8`` and 128 × 128 weight blocks, kvcalc's fp8-block128) ``auto`` becomes
DeepGEMM under an all-to-all dispatch (DeepEP, and later Mooncake / NIXL) and Triton
(``fused_moe_triton``) otherwise (``layers/quantization/fp8.py`` ``create_moe_runner``, alike in
the 0.5.4, 0.5.16 and 0.5.23 wheels): what Hopper runs in every release. On compute capability
10.x (B200, GB200, B300, GB300: ``is_sm100_supported``, majors [10]) a model override turns
``auto`` into ``flashinfer_trtllm`` (FlashInfer's trtllm-gen fused MoE) for some architectures
when the quantization is ``fp8`` and no all-to-all backend is set:

- 0.5.4 (``server_args.py`` ``_handle_model_specific_adjustments``): DeepseekV3ForCausalLM with
  ``modelopt_fp4`` only: block-fp8 experts run Triton.
- 0.5.5: DeepseekV3ForCausalLM with fp8, modelopt_fp8 or modelopt_fp4 (DeepSeek-V3/R1, Kimi K2).
- 0.5.6: Qwen3MoeForCausalLM, Qwen3VLMoeForConditionalGeneration and Qwen3NextForCausalLM
  with fp8 or modelopt_fp4.
- 0.5.9: Qwen3_5MoeForConditionalGeneration (beside Qwen3-Next), and the DeepSeek list gains
  KimiK25ForConditionalGeneration and GlmMoeDsaForCausalLM (GLM-5).
- 0.5.12: DeepseekV32ForCausalLM (DeepSeek-V3.2) joins the DeepSeek list.
- 0.5.15 moves the overrides to ``arg_groups/overrides.py`` (``_deepseek_moe_quant_resolution``,
  ``_qwen3_moe_family_overrides``), 0.5.23 to ``arg_groups/model_overrides/``; the lists above
  hold for kvcalc's architectures through 0.5.23 (0.5.14, 0.5.16, 0.5.18, 0.5.23 read).

Never for block-fp8 experts of GLM-4.5/4.6 (Glm4MoeForCausalLM: only modelopt_fp4, and in 0.5.16
also none), Llama 4 (only a stated ``--quantization fp8`` / ``modelopt_fp8``, which the
override reads before the checkpoint's), MiniMax-M2 (0.5.18, 0.5.23: ``flashinfer_trtllm_routed``
for modelopt_fp4 only), Mixtral or DeepSeek-V2: Triton there. Other expert formats are not ruled on
here (their curves are one kernel's each).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from calc.deploy.engines.base import MoeRunner

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

TRITON = "triton"
TRTLLM_GEN = "flashinfer_trtllm"
DEEP_GEMM = "deep_gemm"
# the runners a user may state (--moe-backend, launched as --moe-runner-backend)
RUNNERS = (TRITON, TRTLLM_GEN, DEEP_GEMM)
# (first release, architectures) whose block-fp8 experts run flashinfer_trtllm on SM 10.x by
# default from that release on (the module docstring)
TRTLLM_GEN_FP8_SINCE = (
    ((0, 5, 5), ("DeepseekV3ForCausalLM",)),
    ((0, 5, 6), ("Qwen3MoeForCausalLM", "Qwen3VLMoeForConditionalGeneration",
                 "Qwen3NextForCausalLM")),
    ((0, 5, 9), ("Qwen3_5MoeForConditionalGeneration", "KimiK25ForConditionalGeneration",
                 "GlmMoeDsaForCausalLM")),
    ((0, 5, 12), ("DeepseekV32ForCausalLM",)),
)  # fmt: skip
TRTLLM_GEN_SM_MAJOR = 10


# the runner of a deployment's routed experts and why, in words (the wing's one record)
Runner = MoeRunner


def trtllm_gen_architectures(release: str) -> tuple[str, ...]:
    """The architectures whose block-fp8 experts SGLang ``release`` runs on trtllm-gen on SM
    10.x by default."""
    from calc.deploy.engines.versions import parse_version

    v = parse_version(release)
    return tuple(a for since, archs in TRTLLM_GEN_FP8_SINCE if v >= since for a in archs)


def runner(dep: Deployment, release: str, *, overrides: bool = True) -> Runner | None:
    """The fused-MoE runner SGLang ``release`` runs ``dep``'s block-fp8 routed experts on, or
    None where kvcalc does not rule on it (no routed experts, another format, an AMD GPU).
    ``overrides`` False: ``auto`` as ``create_moe_runner`` resolves it once the model overrides
    have passed it by (a log's ServerArgs printing 'auto': the overrides did not fire)."""
    from calc.deploy.engines.gpus import compute_capability, runs_rocm

    if dep.model.moe is None or dep.weight_dtypes.get("routed_experts") != "fp8-block128":
        return None
    hw = dep.hardware
    if hw is not None and runs_rocm(hw):
        return None
    stated = dep.engine.moe_backend
    if stated is not None:
        return Runner(stated, "stated (--moe-runner-backend)")
    if dep.ep > 1 and dep.engine.moe_a2a == "deepep":
        return Runner(DEEP_GEMM, "auto under --moe-a2a-backend deepep (fp8.py create_moe_runner)")
    arch = dep.model.architecture
    cc = compute_capability(hw) if hw is not None else None
    if overrides and cc is not None and cc[0] == TRTLLM_GEN_SM_MAJOR and arch in \
            trtllm_gen_architectures(release):  # fmt: skip
        return Runner(TRTLLM_GEN, f"auto on SM 10.x for {arch} with fp8 at {release}")
    where = "SM 10.x" if cc is not None and cc[0] == TRTLLM_GEN_SM_MAJOR else "this GPU"
    return Runner(TRITON, f"auto on {where} for {arch} with fp8 at {release}")


# the first release whose parser has --moe-runner-backend (tests/data/engine_options/sglang-*.json)
RUNNER_FLAG_SINCE = (0, 5, 2)


def cannot_run(dep: Deployment, release: str) -> str | None:
    """Why SGLang ``release`` cannot run ``dep``'s stated runner (``EngineSettings.moe_backend``),
    or None: a release before the option, trtllm-gen off SM 10.x, DeepGEMM on experts other
    than block fp8."""
    from calc.deploy.engines.gpus import compute_capability
    from calc.deploy.engines.versions import parse_version

    stated = dep.engine.moe_backend
    if stated is None or dep.model.moe is None:
        return None
    if parse_version(release) < RUNNER_FLAG_SINCE:
        return (f"SGLang {release} has no --moe-runner-backend (from 0.5.2; it runs Triton): "
                "drop --moe-backend")  # fmt: skip
    cc = compute_capability(dep.hardware) if dep.hardware is not None else None
    if stated == TRTLLM_GEN and cc is not None and cc[0] != TRTLLM_GEN_SM_MAJOR:
        return (f"SGLang's flashinfer_trtllm MoE runner (trtllm-gen) runs on SM 10.x GPUs only "
                f"(B200, GB200, B300, GB300), not {dep.hardware.name}: state --moe-backend "
                "triton")  # fmt: skip
    fmt = dep.weight_dtypes.get("routed_experts")
    if stated == DEEP_GEMM and fmt != "fp8-block128":
        return (f"SGLang's deep_gemm MoE runner runs fp8-block128 experts, not {fmt}: state "
                "--moe-backend triton")  # fmt: skip
    return None
