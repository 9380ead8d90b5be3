"""Which of TensorRT-LLM's MoE backends (``moe_config.backend``) can run a deployment's routed
experts, and what its extra-options YAML states for it. Read from NVIDIA/TensorRT-LLM's
``tensorrt_llm/_torch/modules/fused_moe``: ``create_moe.py`` ``get_moe_cls`` builds
``TRTLLMGenFusedMoE`` for ``TRTLLM`` only when the experts are fp8 with block scales, NVFP4 or
one of the MXFP4 modes (any other format falls back to ``CutlassFusedMoE`` with a warning), and
``TRTLLMGenFusedMoE`` runs on SM 100 and 103 alone (its ``can_implement``: "TRTLLMGenFusedMoE
only supports SM in {100, 103}", the trtllm-gen kernels are built for those); ``DEEPGEMM``
builds ``DeepGemmFusedMoE``, whose ``_get_quant_method`` takes fp8 block scales or unquantised
experts and raises for any other quantisation. ``CUTLASS`` (the default) runs every format
kvcalc times."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

# the expert formats each non-default backend runs (kvcalc's format names)
TRTLLM_GEN_FORMATS = ("nvfp4", "fp8-block128", "mxfp4")
DEEPGEMM_FORMATS = ("fp8-block128", "bf16", "fp16")
TRTLLM_GEN_SM = ((10, 0), (10, 3))  # B200, GB200 (SM 100); B300, GB300 (SM 103)


def cannot_run(dep: Deployment) -> str | None:
    """Why the stated backend cannot run ``dep``'s routed experts, or None (none stated, the
    default, a model without routed experts, or it can)."""
    backend = dep.engine.moe_backend
    if backend in (None, "CUTLASS") or dep.model.moe is None:
        return None
    fmt = dep.weight_dtypes.get("routed_experts")
    if backend == "TRTLLM":
        if fmt not in TRTLLM_GEN_FORMATS:
            return (f"TensorRT-LLM's TRTLLM MoE backend (trtllm-gen) runs NVFP4, fp8-block128 "
                    f"and MXFP4 experts, not {fmt} (the engine falls back to CUTLASS): state "
                    "--moe-backend CUTLASS")  # fmt: skip
        if dep.hardware is not None:
            from calc.deploy.engines.gpus import compute_capability

            cc = compute_capability(dep.hardware)
            if cc not in TRTLLM_GEN_SM:
                return (f"TensorRT-LLM's TRTLLM MoE backend (trtllm-gen) runs on SM 100/103 "
                        f"GPUs only (B200, GB200, B300, GB300), not {dep.hardware.name}: "
                        "state --moe-backend CUTLASS")  # fmt: skip
    if backend == "DEEPGEMM" and fmt not in DEEPGEMM_FORMATS:
        return (f"TensorRT-LLM's DEEPGEMM MoE backend runs fp8-block128 or 16-bit experts, "
                f"not {fmt}: state --moe-backend CUTLASS")  # fmt: skip
    return None


def yaml_lines(dep: Deployment) -> list[str]:
    """The extra-options YAML's ``moe_config`` for a stated backend other than the default
    (nothing for CUTLASS, the engine's default, or a model without routed experts)."""
    backend = dep.engine.moe_backend
    if backend in (None, dep.engine_model.moe.default_backend) or dep.model.moe is None:
        return []
    return ["moe_config:", f"  backend: {backend}"]
