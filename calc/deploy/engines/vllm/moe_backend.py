"""Which FlashInfer MXFP4 MoE kernels vLLM runs gpt-oss's routed experts on, where the user states
one (kvcalc's ``--moe-backend``): the runner's name and why, from the vLLM wheels (PyPI
``vllm==X``; issue 20, mxfp4big round).

vLLM's gpt-oss MXFP4 experts (``quantization/mxfp4.py``) pick their backend from environment
variables, not a server option (0.16.0 ``get_mxfp4_backend``, l. 103-161; 0.19.1
``fused_moe/oracle/mxfp4.py``, l. 280-340): on a CUDA GPU of the SM 10.x family with FlashInfer,
``VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1`` selects ``SM100_FI_MXFP4_MXFP8_TRTLLM`` (0.19.1:
``FLASHINFER_TRTLLM_MXFP4_MXFP8``): the activations quantised to MXFP8 (``mxfp8_quantize``)
before FlashInfer's trtllm-gen ``trtllm_fp4_block_scale_moe``; unset, the default is the same
kernel with bf16 activations (``SM100_FI_MXFP4_BF16``), which kvcalc's vLLM MXFP4 curve times
(its table: vLLM 0.24.0's ``vllm_gptossmxfp4moe_flashinfer_trtllm_mxfp4_bf16_…`` rows,
aiconfigurator-core 0.12.0).

The MXFP8 kernel has no rows in vLLM's table; SGLang's has them: its ``flashinfer_mxfp4`` runner
at the default precision calls the same ``mxfp8_quantize`` then ``trtllm_fp4_block_scale_moe``
(sglang 0.5.16 ``layers/quantization/mxfp4.py`` l. 1193-1213; aiconfigurator's collector times
it as ``w4a8_mxfp4_mxfp8``). Both tables' bf16 rows of that kernel agree at gpt-oss-120b's layer
(B200, 8,192 tokens, power-law routing: SGLang 3.240 ms, vLLM 3.242 ms), so the runner's curve
(``moe_runner.vllm.flashinfer_trtllm_mxfp4_mxfp8``) is fitted to SGLang's W4A8 rows
(tools/fit_kernels.py ``MOE_RUNNER_ROWS``). At 8,192 tokens they are 3.4 × faster than bf16
(0.945 against 3.240 ms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from calc.deploy.moe_pipeline import VLLM_MOE_BACKENDS

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

# the runners a user may state (kvcalc's --moe-backend; vLLM's own names of the backends, lower
# case: Mxfp4MoeBackend.FLASHINFER_TRTLLM_MXFP4_MXFP8, launched as the environment variable below,
# and FLASHINFER_TRTLLM_MXFP4_BF16, the default on SM 10.x, launched as it is and timed by vLLM's
# own MXFP4 curve: a log that names it, read by ``kvcalc log``, states what kvcalc times)
MXFP8_TRTLLM, BF16_TRTLLM = VLLM_MOE_BACKENDS
MXFP8_ENV = ("VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8", "1")
SM_MAJOR = 10  # is_device_capability_family(100)


class Runner(NamedTuple):
    """The runner of a deployment's routed experts and why, in words."""

    name: str
    why: str


def runner(dep: Deployment) -> Runner | None:
    """The stated MXFP8 runner of ``dep``'s MXFP4 routed experts, or None (nothing stated, or
    the bf16 default: vLLM's own MXFP4 curve times it)."""
    if dep.model.moe is None or dep.engine.moe_backend != MXFP8_TRTLLM:
        return None
    return Runner(MXFP8_TRTLLM, f"stated ({MXFP8_ENV[0]}={MXFP8_ENV[1]})")


def cannot_run(dep: Deployment) -> str | None:
    """Why vLLM cannot run ``dep``'s stated MoE backend, or None: both trtllm-gen MXFP4 kernels
    run MXFP4 experts (gpt-oss's) on SM 10.x GPUs only."""
    from calc.deploy.engines.gpus import compute_capability

    stated = dep.engine.moe_backend
    if stated not in VLLM_MOE_BACKENDS or dep.model.moe is None:
        return None
    fmt = dep.weight_dtypes.get("routed_experts")
    if fmt != "mxfp4":
        return (f"vLLM's {stated} MoE runs MXFP4 experts (gpt-oss's), not {fmt}: drop "
                "--moe-backend")  # fmt: skip
    cc = compute_capability(dep.hardware) if dep.hardware is not None else None
    if cc is None or cc[0] != SM_MAJOR:
        where = dep.hardware.name if dep.hardware is not None else "this GPU"
        return (f"vLLM's {stated} MoE (FlashInfer trtllm-gen) runs on SM 10.x GPUs only "
                f"(B200, GB200, B300, GB300), not {where}: drop --moe-backend")  # fmt: skip
    return None


def env(dep: Deployment) -> tuple[tuple[str, str], ...]:
    """The environment a stated runner needs at launch."""
    return (MXFP8_ENV,) if runner(dep) is not None else ()
