"""Which fused-MoE backend vLLM's oracle picks for a deployment's routed experts, by release, GPU
family, the experts' weight format and their activation (gated or not), and which of kvcalc's
vLLM MoE curves times it; what ``--moe-backend`` a release takes and what it cannot run (issue 20
deliver 2, issue 21 deliver 1; vllmmoerule round). Read from the wheels (``pip download --no-deps
vllm==X``), 0.16.0, 0.17.0, 0.18.0, 0.19.0, 0.20.0 and 0.33.0:

- **fp8, per-tensor and 128-block** (``fused_moe/oracle/fp8.py`` ``select_fp8_moe_backend``):
  the first of AITER, FLASHINFER_TRTLLM, FLASHINFER_CUTLASS, DEEPGEMM, (VLLM_CUTLASS,) TRITON,
  MARLIN whose kernel class supports the layer. AITER: ROCm with ``VLLM_ROCM_USE_AITER=1`` only
  (``envs.py`` default False), so Triton on an AMD GPU. trtllm-gen (``flashinfer_trtllm_moe.py``
  ``is_supported_config_trtllm_fp8``; from 0.17.0 ``experts/trtllm_fp8_moe.py``): SM 10.x only;
  0.16.0 gated SiLU only (``_supports_no_act_and_mul`` False), 0.17.0 on also non-gated ReLU²
  (``RELU2_NO_MUL``). FlashInfer CUTLASS (``flashinfer_cutlass_moe.py`` ``FlashInferExperts``):
  per-tensor fp8 from SM 9.0, 128-block fp8 on SM 9.0 only, gated or not. From 0.17.0
  ``_get_priority_backends`` puts Triton first for 128-block fp8 on SM 9.0 without expert
  parallelism (FlashInfer CUTLASS first with it): "On Hopper for Block Fp8, prefer Triton for TP
  and FI CUTLASS for EP" (0.17.0-0.33.0). Triton (``fused_moe.py`` ``TritonExperts``) takes no
  non-gated layer; MARLIN (``fused_marlin_moe.py``) takes any, weight-only.
- **16-bit** (``oracle/unquantized.py`` ``select_unquantized_moe_backend``): Triton on CUDA in
  0.16.0-0.19.0 (FlashInfer's kernels only with ``VLLM_USE_FLASHINFER_MOE_FP16=1``, default 0);
  from 0.20.0 a priority list, FlashInfer trtllm-gen, FlashInfer CUTLASS, Triton, with both
  FlashInfer kernels moved last on SM 9.x ("slower than Triton"): SM 10.x runs trtllm-gen for
  gated SiLU experts (``experts/trtllm_bf16_moe.py``: 0.20.0 no non-gated, 0.33.0 ReLU² too;
  releases between not read, 0.33.0's taken from 0.33.0) and FlashInfer CUTLASS for non-gated
  ones before that.
- **NVFP4** (``oracle/nvfp4.py``): FLASHINFER_TRTLLM, FLASHINFER_CUTEDSL, FLASHINFER_CUTLASS,
  VLLM_CUTLASS, MARLIN: trtllm-gen on SM 10.x (``flashinfer_fp4_moe.py``: gated only at 0.16.0;
  ``experts/trtllm_nvfp4_moe.py`` non-gated too from 0.17.0), FlashInfer CUTLASS for 0.16.0's
  non-gated layers; every NVFP4 kernel but MARLIN needs SM 10.x, so MARLIN on SM 9.0.
- **MXFP4** (gpt-oss; 0.16.0 ``quantization/mxfp4.py`` ``get_mxfp4_backend``): SM 10.x
  FlashInfer's trtllm-gen MXFP4 × BF16 (``SM100_FI_MXFP4_BF16``), SM 9.0 the ``triton_kernels``
  MoE (``TRITON``), ROCm Triton.
- **int4** (weight-only, ``WNA16``): MARLIN.
- **MXFP4 stated by environment** (issue 20, mxfp4big round): gpt-oss's experts on SM 10.x run
  FlashInfer's trtllm-gen ``trtllm_fp4_block_scale_moe`` with bf16 activations by default
  (``FLASHINFER_TRTLLM_MXFP4_BF16``: kvcalc's MXFP4 curve's own rows) and with the activations
  quantised to MXFP8 first where ``VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1`` (0.16.0
  ``quantization/mxfp4.py`` ``get_mxfp4_backend``, ``SM100_FI_MXFP4_MXFP8_TRTLLM``; 0.19.1
  ``fused_moe/oracle/mxfp4.py``, ``FLASHINFER_TRTLLM_MXFP4_MXFP8``), as InferenceX's B200 gpt-oss
  scripts set it from their PR #48 (2025-09-24). vLLM's tables have no rows of the MXFP8 kernel;
  SGLang's ``flashinfer_mxfp4`` runner makes the same two calls (sglang 0.5.16
  ``layers/quantization/mxfp4.py``), so ``moe_runner.vllm.flashinfer_trtllm_mxfp4_mxfp8`` is
  fitted to its W4A8 rows (tools/fit_kernels.py ``MOE_RUNNER_ROWS``; both tables' bf16 rows of the
  kernel agree: B200, gpt-oss-120b's layer at 8,192 tokens, 3.240 and 3.242 ms). Both are stated
  by their variable at any release (none for the default), not by ``--moe-backend``.
- **MXFP4 on Marlin** (issue 20, marlinfp4 round): on SM 9.0 ``VLLM_MXFP4_USE_MARLIN=1`` puts
  gpt-oss's experts on ``MarlinExperts`` (``fused_marlin_moe.py``) with
  ``mxfp4_w4a16_moe_quant_config`` after ``prepare_moe_fp4_layer_for_marlin`` (0.18.0
  ``quantization/mxfp4.py`` ``get_mxfp4_backend``, ``select_gemm_impl``; the Triton kernel
  otherwise), as InferenceX's H100/H200 gpt-oss scripts set it; the compressed-tensors W4A4 MXFP4
  method runs the same experts class, quant config and repacking (0.18.0
  ``compressed_tensors_moe.py``), and vLLM 0.24.0's tables time that method's Marlin rows:
  ``moe_runner.vllm.marlin.mxfp4`` (H100, H200). 0.16.0-0.18.0's MXFP4 method reads no
  ``--moe-backend``; from 0.19.0 ``fused_moe/oracle/mxfp4.py`` maps ``--moe-backend marlin``
  to it (``map_mxfp4_backend``), and 0.33.0's ``envs.py`` no longer has the variable: stated by
  the variable before 0.19.0 and by the flag from 0.19.0 (``MXFP4_MARLIN_FLAG_SINCE``;
  0.19.0-0.20.0 honour both).

vLLM 0.10-0.15 were not read: the rule does not say (None) and the format's curve times them, as
before. Nor GPUs other than SM 9.0, SM 10.x and AMD's (Ampere, Ada, SM 12.x). The routing a
trtllm-gen kernel accepts (its ``_supports_routing_method``: per-tensor fp8 at 0.18.0-0.19.0
takes DeepSeekV3 and Llama4 routing only, 0.16.0 and 0.20.0 on Renormalize too) is not modelled:
kvcalc's model configs do not carry the router's scoring function.

kvcalc's vLLM curves (``KernelCurves.moe_engine.vllm``) are fitted to aiconfigurator's
``moe/vllm/0.24.0`` tables, whose ``kernel_source`` names the backend 0.24.0 ran: on SM 9.0
(H100, H200) 16-bit Triton, per-tensor fp8 FlashInfer CUTLASS, 128-block fp8 FlashInfer CUTLASS
(the fit keeps those rows; the table's Triton rows are not fitted), MXFP4 the ``triton_kernels``
MoE with some Marlin rows, int4 Marlin; on SM 10.x (B200, GB200, B300, GB300) 16-bit, fp8,
128-block fp8, NVFP4 and MXFP4 mostly trtllm-gen (the 16-bit, fp8 and NVFP4 curves pool a few
FlashInfer CUTLASS rows), ``fp8_cutlass`` the per-tensor FlashInfer CUTLASS rows alone, int4
Marlin (``OWN_CURVE``). Where vLLM picks a backend none of them times, the format's curve stands
in and the rule says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from calc.deploy.engines.base import MoeRunner
from calc.deploy.moe_pipeline import VLLM_MOE_BACKENDS

if TYPE_CHECKING:
    from calc.deploy.deployment import Deployment

# vLLM's --moe-backend values (config/kernel.py MoEBackend, 0.17.0-0.33.0) kvcalc takes
(FLASHINFER_TRTLLM, FLASHINFER_CUTLASS, TRITON, DEEP_GEMM, MARLIN, MXFP4_MXFP8,
 MXFP4_BF16) = VLLM_MOE_BACKENDS
# gpt-oss's two FlashInfer MXFP4 kernels, stated by environment, not --moe-backend (the
# docstring): the variables each needs at launch (the bf16 one is the default: none)
MXFP4_ENV = {MXFP4_MXFP8: (("VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8", "1"),), MXFP4_BF16: ()}
# Marlin's MXFP4 experts: the variable before 0.19.0, --moe-backend marlin from it (docstring)
MXFP4_MARLIN_ENV = (("VLLM_MXFP4_USE_MARLIN", "1"),)
MXFP4_MARLIN_FLAG_SINCE = (0, 19)

SM90, SM100, ROCM = "SM 9.0", "SM 10.x", "ROCm"
SM8X, SM120 = "SM 8.x", "SM 12.x"  # not ruled on (auto), but what a stated backend runs on
RULED = (SM90, SM100, ROCM)

# a backend that is another name of the kernel the format's curve is fitted to
SAME_KERNEL = {MXFP4_BF16: FLASHINFER_TRTLLM}

ORACLE_READ_SINCE = (0, 16)  # the first release whose selection was read (older: not ruled)
FLAG_SINCE = (0, 17, 0)  # --moe-backend (tests/data/engine_options/vllm-0.17.0.json on)
HOPPER_BLOCK_TRITON_SINCE = (0, 17)  # _get_priority_backends: Triton first for TP block fp8
TRTLLM_NONGATED_SINCE = (0, 17)  # trtllm-gen fp8 and NVFP4 take non-gated ReLU² experts
FP16_PRIORITY_SINCE = (0, 20)  # unquantized.py's priority list (trtllm-gen first on SM 10.x)
FP16_TRTLLM_NONGATED_SINCE = (0, 33)  # trtllm_bf16_moe.py takes ReLU² (0.20.0: not)

# kvcalc's format families (its weight-format names)
GROUPS = {None: "bf16", "bf16": "bf16", "fp16": "bf16", "fp32": "bf16", "fp8": "fp8",
          "fp8-tensor": "fp8", "fp8-block128": "fp8_block", "nvfp4": "nvfp4",
          "mxfp4": "mxfp4"}  # fmt: skip

# the backend whose rows the format's vLLM curve is fitted to, by GPU family (the docstring)
OWN_CURVE = {
    (SM90, "bf16"): TRITON, (SM90, "fp8"): FLASHINFER_CUTLASS,
    (SM90, "fp8_block"): FLASHINFER_CUTLASS, (SM90, "mxfp4"): TRITON, (SM90, "int4"): MARLIN,
    (SM100, "bf16"): FLASHINFER_TRTLLM, (SM100, "fp8"): FLASHINFER_TRTLLM,
    (SM100, "fp8_block"): FLASHINFER_TRTLLM, (SM100, "nvfp4"): FLASHINFER_TRTLLM,
    (SM100, "mxfp4"): FLASHINFER_TRTLLM, (SM100, "int4"): MARLIN,
}  # fmt: skip
# a backend's own curve where it is not the format's: (family, format, backend) -> curve key
BACKEND_CURVE = {(SM100, "fp8", FLASHINFER_CUTLASS): "fp8_cutlass"}

# the formats each backend runs, and the GPU families (the docstring's kernel classes)
RUNS = {
    FLASHINFER_TRTLLM: ({"bf16", "fp8", "fp8_block", "nvfp4", "mxfp4"}, {SM100}),
    FLASHINFER_CUTLASS: ({"bf16", "fp8", "fp8_block", "nvfp4"}, {SM90, SM100, SM120}),
    TRITON: ({"bf16", "fp8", "fp8_block", "mxfp4"}, {SM8X, SM90, SM100, SM120, ROCM}),
    DEEP_GEMM: ({"fp8_block"}, {SM90, SM100}),
    MARLIN: ({"fp8", "fp8_block", "nvfp4", "mxfp4", "int4"}, {SM8X, SM90, SM100, SM120}),
    MXFP4_MXFP8: ({"mxfp4"}, {SM100}),
    MXFP4_BF16: ({"mxfp4"}, {SM100}),
}  # fmt: skip
# a format a backend runs on some of its GPU families only (FlashInferExperts
# _supports_quant_scheme: 128-block fp8 on SM 9.0, NVFP4 from SM 10.0)
RUNS_ONLY = {(FLASHINFER_CUTLASS, "fp8_block"): SM90, (FLASHINFER_CUTLASS, "nvfp4"): SM100}


def family(hw) -> str | None:
    """``hw``'s GPU family as vLLM's kernel classes test it: "SM 9.0", "SM 10.x", "ROCm",
    "SM 8.x", "SM 12.x", or None (a GPU of no listed compute capability, or none given)."""
    from calc.deploy.engines.gpus import compute_capability, runs_rocm

    if hw is None:
        return None
    if runs_rocm(hw):
        return ROCM
    cc = compute_capability(hw)
    if cc is None:
        return None
    return SM90 if cc == (9, 0) else {8: SM8X, 10: SM100, 12: SM120}.get(cc[0])


def group(fmt: str | None) -> str | None:
    """kvcalc's weight format as the oracle's quantisation scheme (None: not ruled on)."""
    if fmt is not None and fmt.startswith("int4"):
        return "int4"
    return GROUPS.get(fmt)


# long: one branch per format, each the oracle's order for it (the module docstring)
def auto(v: tuple, fam: str, grp: str, gated: bool, ep: int) -> tuple[str, str] | None:
    """(backend, reason) vLLM release ``v`` picks with ``--moe-backend auto`` on ``fam`` for
    experts of format group ``grp``, or None where it was not read."""
    if fam == ROCM:
        return (TRITON, "AITER only with VLLM_ROCM_USE_AITER=1") if grp in (
            "bf16", "fp8", "fp8_block", "mxfp4") else None  # fmt: skip
    if grp == "int4":
        return MARLIN, "the WNA16 MoE"
    if grp == "mxfp4":
        return (FLASHINFER_TRTLLM, "mxfp4.py: FlashInfer MXFP4 x BF16") if fam == SM100 else \
            (TRITON, "mxfp4.py: the triton_kernels MoE")  # fmt: skip
    if grp == "bf16":
        if fam == SM100 and v >= FP16_PRIORITY_SINCE:
            if gated or v >= FP16_TRTLLM_NONGATED_SINCE:
                return FLASHINFER_TRTLLM, "unquantized.py: trtllm-gen first on SM 10.x"
            return FLASHINFER_CUTLASS, "trtllm-gen's 16-bit MoE takes gated SiLU experts only"
        if fam == SM100:
            return TRITON, "unquantized.py: FlashInfer's only with VLLM_USE_FLASHINFER_MOE_FP16=1"
        return TRITON, "unquantized.py: Triton (FlashInfer's last on SM 9.x from 0.20.0)"
    nongated_ok = v >= TRTLLM_NONGATED_SINCE
    if fam == SM100 and grp in ("fp8", "fp8_block", "nvfp4"):
        if gated or nongated_ok:
            return FLASHINFER_TRTLLM, "trtllm-gen first on SM 10.x"
        if grp == "fp8_block":
            return MARLIN, "trtllm-gen, DeepGEMM and Triton take gated experts only"
        return FLASHINFER_CUTLASS, "trtllm-gen takes gated SiLU experts only at this release"
    if grp == "nvfp4":
        return MARLIN, "every other NVFP4 MoE kernel needs SM 10.x"
    if grp == "fp8_block" and v >= HOPPER_BLOCK_TRITON_SINCE and gated:
        if ep > 1:
            return FLASHINFER_CUTLASS, "FlashInfer CUTLASS first for block fp8 under EP on SM 9.0"
        return TRITON, "Triton first for block fp8 without EP on SM 9.0"
    return FLASHINFER_CUTLASS, "FlashInfer CUTLASS: trtllm-gen needs SM 10.x"


def _runner_fitted(hw, backend: str, grp: str) -> bool:
    """Whether ``hw``'s profile fits ``backend``'s own curve for format group ``grp``
    (``KernelCurves.moe_runner.vllm.<backend>``: the MXFP8 trtllm-gen MXFP4 MoE on SM 10.x,
    Marlin's MXFP4 on H100 / H200), which calc.deploy.rates picks by the runner's name."""
    kernels = getattr(hw, "kernels", None)
    runners = (getattr(kernels, "moe_runner", None) or {}).get("vllm") or {}
    return grp in (runners.get(backend) or {})


def _timed(hw, fam: str | None, grp: str, backend: str) -> tuple[str | None, str | None]:
    """(curve key, stand-in note) of ``backend`` on ``hw`` (family ``fam``) for format group
    ``grp``: its own key where it has one beside the format's, else the format's curve (None)
    with a note where that curve times another backend's kernels."""
    key = BACKEND_CURVE.get((fam, grp, backend))
    if key is not None:
        return key, None
    if _runner_fitted(hw, backend, grp):
        return None, None  # its own runner curve in the profile
    own = OWN_CURVE.get((fam, grp))
    if own == SAME_KERNEL.get(backend, backend) or (fam == ROCM and backend == TRITON):
        return None, None  # its own rows (AMD: whatever the profile's curves time)
    if own is None:
        return None, (f"kvcalc has no vLLM curve of {grp} experts on {fam}: the curve "
                      "--explain names stands in")  # fmt: skip
    return None, (f"kvcalc has no curve of vLLM's {backend} MoE on {fam}: the format's curve "
                  f"(fitted to {own} rows) stands in")  # fmt: skip


def runner(dep: Deployment, release: str) -> MoeRunner | None:
    """The fused-MoE backend vLLM ``release`` runs ``dep``'s routed experts on, with the curve
    that times it, or None where the rule does not say (no routed experts, a release before
    0.16.0, a GPU family or format not read): the format's curve, as before."""
    from calc.deploy.engines.versions import parse_version

    grp = group(dep.weight_dtypes.get("routed_experts"))
    fam = family(dep.hardware)
    if dep.model.moe is None or grp is None or fam not in RULED:
        return None
    stated = dep.engine.moe_backend
    if stated is not None:
        picked, why = stated, "stated (--moe-backend, or the log's oracle line)"
    else:
        v = parse_version(release)
        if v is None or v < ORACLE_READ_SINCE:
            return None
        found = auto(v, fam, grp, dep.model.ffn_kind == "gated", dep.ep)
        if found is None:
            return None
        gate = "gated" if dep.model.ffn_kind == "gated" else "non-gated"
        picked, why = found[0], f"auto at {release} on {fam}, {gate} {grp} experts: {found[1]}"
    curve, note = _timed(dep.hardware, fam, grp, picked)
    return MoeRunner(picked, f"{why}; {note}" if note else why, curve, note is not None)


# 0.16.0 has no --moe-backend; select_fp8_moe_backend (oracle/fp8.py) reads the environment:
# VLLM_USE_FLASHINFER_MOE_FP8=1 with VLLM_FLASHINFER_MOE_BACKEND latency (trtllm-gen) or
# throughput (CUTLASS; flashinfer_utils.py get_flashinfer_moe_backend), VLLM_USE_DEEP_GEMM /
# VLLM_MOE_USE_DEEP_GEMM=1 (envs.py default 1), VLLM_TEST_FORCE_FP8_MARLIN=1; Triton once
# FlashInfer and DeepGEMM are both turned off (VLLM_CUTLASS is not offered by default)
ENV_0_16 = {
    FLASHINFER_TRTLLM: (("VLLM_USE_FLASHINFER_MOE_FP8", "1"),
                        ("VLLM_FLASHINFER_MOE_BACKEND", "latency")),
    FLASHINFER_CUTLASS: (("VLLM_USE_FLASHINFER_MOE_FP8", "1"),
                         ("VLLM_FLASHINFER_MOE_BACKEND", "throughput")),
    DEEP_GEMM: (("VLLM_USE_DEEP_GEMM", "1"), ("VLLM_MOE_USE_DEEP_GEMM", "1")),
    MARLIN: (("VLLM_TEST_FORCE_FP8_MARLIN", "1"),),
    TRITON: (("VLLM_USE_FLASHINFER_MOE_FP8", "0"), ("VLLM_USE_DEEP_GEMM", "0")),
}  # fmt: skip
ENV_FORMATS = ("fp8", "fp8_block")  # the formats whose selection reads those variables


def cannot_run(dep: Deployment, release: str) -> str | None:
    """Why vLLM ``release`` cannot run ``dep``'s stated backend (``EngineSettings.moe_backend``),
    or None: a release whose selection kvcalc has not read or that cannot be told the backend,
    a GPU family or expert format the backend's kernels do not take."""
    from calc.deploy.engines.versions import parse_version

    stated = dep.engine.moe_backend
    if stated is None or dep.model.moe is None:
        return None
    fmt = dep.weight_dtypes.get("routed_experts")
    grp = group(fmt)
    v = parse_version(release)
    if stated in MXFP4_ENV or (stated == MARLIN and grp == "mxfp4"):
        v = None  # stated by its environment variable (or flag) at any release: no version rule
    if v is not None and v < ORACLE_READ_SINCE:
        return (f"vLLM {release}'s MoE backend selection is not modelled (kvcalc reads it from "
                "0.16.0): drop --moe-backend")  # fmt: skip
    if v is not None and v < FLAG_SINCE and grp not in ENV_FORMATS:
        return (f"vLLM {release} has no --moe-backend (from 0.17.0); only its fp8 experts' "
                f"backend is set by environment variables, not {fmt}'s: drop "
                "--moe-backend")  # fmt: skip
    formats, families = RUNS[stated]
    fam = family(dep.hardware)
    if fam is not None and fam not in families:
        named = ", ".join(f for f in (SM8X, SM90, SM100, SM120, ROCM) if f in families)
        return (f"vLLM's {stated} MoE runs on {named} GPUs, not "
                f"{dep.hardware.name} ({fam}): drop --moe-backend")  # fmt: skip
    only = RUNS_ONLY.get((stated, grp))
    if (grp is not None and grp not in formats) or (fam is not None and only not in (None, fam)):
        where = f" on {fam}" if only is not None else ""
        return f"vLLM's {stated} MoE does not run {fmt} experts{where}: drop --moe-backend"
    if stated in (TRITON, DEEP_GEMM) and dep.model.ffn_kind != "gated":
        return (f"vLLM's {stated} MoE takes gated experts only (no act-and-mul layer): drop "
                "--moe-backend")  # fmt: skip
    return None


def launch(dep: Deployment, release: str) -> tuple[list[str], tuple[tuple[str, str], ...]]:
    """(arguments, environment) that state ``dep``'s backend to vLLM ``release``:
    ``--moe-backend X`` from 0.17.0, ``ENV_0_16``'s variables before, gpt-oss's MXFP4 kernels
    their ``MXFP4_ENV`` at any release, Marlin's MXFP4 ``MXFP4_MARLIN_ENV`` before 0.19.0;
    nothing unstated."""
    from calc.deploy.engines.versions import parse_version

    stated = dep.engine.moe_backend
    if stated is None or dep.model.moe is None:
        return [], ()
    if stated in MXFP4_ENV:
        return [], MXFP4_ENV[stated]
    v = parse_version(release)
    if stated == MARLIN and group(dep.weight_dtypes.get("routed_experts")) == "mxfp4":
        if v is not None and v < MXFP4_MARLIN_FLAG_SINCE:
            return [], MXFP4_MARLIN_ENV
        return ["--moe-backend", stated], ()
    if v is not None and v < FLAG_SINCE:
        return [], ENV_0_16[stated]
    return ["--moe-backend", stated], ()
