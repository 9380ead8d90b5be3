"""The kernels of one fused-MoE layer as each engine runs it [kernels], and the default expert
imbalance under expert parallelism [×]: sourced data; each engine's pipeline is declared in its
wing module (``calc.deploy.engines``, ``Engine.moe``) from the counts below.

A MoE layer is not one grouped GEMM. Each engine launches a pipeline per layer:

- **vLLM** (``vllm/model_executor/layers/fused_moe/fused_moe.py``, ``fused_experts_impl``,
  vLLM 0.33.0 wheel; the Triton path SGLang ported): routing and top-k (``topk_softmax`` or
  the grouped top-k), ``moe_align_block_size`` (sort the routes by expert, pad each expert's
  rows to the GEMM block), the first grouped GEMM (gate and up, gathering the routed rows),
  the activation (``apply_moe_activation``: SiLU and the gating product), the second grouped
  GEMM (down, weighted by the router), ``moe_sum`` (the combine over top-k): 6 kernels; an
  fp8 or other quantised-activation path quantises the input and the intermediate
  (``moe_kernel_quantize_input`` twice): 8.
  The routing's own kernels changed with the release (issue 20, round 19; the wheels' ``fused_topk``
  and ``vllm_topk_softmax``): 0.8.3, 0.10.1 and 0.11.0 cast the router logits to fp32
  (``gating_output.float()``), run ``topk_softmax`` and renormalise in two more kernels
  (``topk_weights.sum``, the division): 4 kernels for the softmax top-k of Mixtral and Qwen3-MoE
  (both renormalise); from 0.12.0 (0.12.0, 0.15.1, 0.18.0 and 0.33.0 read) ``topk_softmax``
  takes the logits as they are and renormalises inside: 1 kernel. So 9 and 11 kernels up to 0.11,
  6 and 8 from 0.12 (``VLLM_FUSED_MOE``). The grouped top-k of DeepSeek-V2/V2.5 is torch code in
  0.11 (softmax, group max, two top-k, a scatter into a mask, masked_fill, casts: about a dozen
  kernels) and not counted apart: the same 4 / 1 are charged for it, a lower bound.
- **SGLang**: the same Triton pipeline (its ``fused_moe_triton``): 6 and 8.
- **TensorRT-LLM** (the CUTLASS MoE plugin; the kernels its "Scaling Expert Parallelism, Part
  2" blog names: ``expandInputRowsKernel``, ``doActivationKernel``,
  ``finalizeMoeRoutingKernel``): routing, the permutation (expand, with the quantisation
  fused in), the first grouped GEMM, the activation (quantisation fused), the second grouped
  GEMM, the finalize (un-permute and combine): 6 whatever the format.

Where a profile has a measured fused-MoE curve (``KernelCurves.moe``) the pipeline is timed by
it and these counts are not used, but for kernels the curve's measurement leaves out; elsewhere
each kernel pays the profile's fixed cost per kernel beside the grouped GEMMs' roofline. What
the engines' own curves hold (issue 20, round 19; ai-dynamo/aiconfigurator@095f58a51): vLLM's
are fitted to the ``moe/vllm/0.24.0`` tables, whose collector (``collector/vllm/collect_moe.py``,
``__compat__ = "vllm==0.24.0"``) builds every format through ``FusedMoE`` and times
``moe_module(hidden_states, router_logits)``: the routing is inside the measured time (the
tables' ``kernel_source`` names the layer's quantisation method, backend and experts class, e.g.
``vllm_fp8moe_triton_tritonexperts`` on H200). What a release runs beyond 0.24.0's routing is
charged beside the curve at the fixed cost each (``MoePipeline.outside_curve``): 0.10 and 0.11's
three extra kernels (the fp32 cast, the sum and the division), none from 0.12. gpt-oss's MXFP4
layer routes in its own kernels (``triton_kernels`` ``routing`` on Hopper, the trtllm-gen MXFP4
kernel's routing on Blackwell; ``gpt_oss_triton_kernels_moe.py``, ``quantization/mxfp4.py``),
not ``fused_topk``: nothing charged. (The same repository's earlier collector revisions, which
produced the 0.19.0 and 0.22.0 tables, ``kernel_source`` ``vllm_fused_moe``, computed the top-k
outside the timed ``fused_experts`` call; no shipped curve is fitted to those.) SGLang's
collector (``collector/sglang/collect_moe.py``, ``sglang==0.5.14``) calls ``select_experts``
inside its timed ``run_op`` (MXFP4: ``BypassedTopKOutput``, routed in the fused kernel): nothing
left out. The router GEMM is its own op for every engine. For TensorRT-LLM nothing launched per
MoE layer lies outside that curve but the router GEMM, charged as its own op: aiconfigurator's
collector (``collector/trtllm/collect_moe.py``) times ``moe.forward(hidden_states,
router_logits)`` of the module ``create_moe`` builds, the call the engine's layer makes after
its gate (``_torch/models/modeling_qwen3_moe.py``: ``self.gate``, then
``self.experts(hidden_states, router_logits, ...)``): routing, quantisation, expand, GEMMs,
activation and finalize are in the measured time (docs/step-time.md, issue 20 round 8).

TensorRT-LLM's MoE backend (``moe_config.backend``, ``EngineSettings.moe_backend``): its curves
are fitted to the CUTLASS MoE's tables (the engine's default, ``MoeConfig.backend = "CUTLASS"``
in 1.0-1.2). ``TRTLLM`` (trtllm-gen) on NVFP4 experts is timed at the CUTLASS time over the
measured ratio of the two kernels in the same tables, a power law of the rows each active
expert computes (``TRTLLM_GEN_FP4_SPEEDUP``, ``TRTLLM_GEN_FP4_DECAY``: 1.885 × m^-0.0966, m at
least 1); its fp8-block128 layer has no trtllm-gen rows in the tables and keeps the curve's
time, as ``DEEPGEMM`` does (B200's fp8-block curve is fitted to DeepGEMM rows already, docs/
step-time.md round 15). Which backend can run where: ``calc.deploy.engines.trtllm.moe_backend``.

Expert-parallel communication (attention data parallel over ``ep`` GPUs, ``ep > tp``): what
each engine runs by default, not what it can be told to run:

- **vLLM**: ``all2all_backend = "allgather_reducescatter"`` (``vllm/config/parallel.py``,
  0.33.0 wheel): every GPU all-gathers the step's tokens (16-bit hidden states), runs its
  experts on the routes that reach them, and reduce-scatters the 16-bit outputs.
- **SGLang**: ``moe_a2a_backend = "none"`` (``sglang/srt/server_args.py``, 0.5.23 wheel): the
  DP-attention gather and scatter of ``sglang/srt/layers/dp_attention.py``, the same traffic.
- **TensorRT-LLM**: the CUTLASS MoE (``_torch/modules/fused_moe/fused_moe_cutlass.py``
  ``forward_chunk``; two 1.0-era revisions and a 1.2-era one read, issue 20 round 14, alike)
  routes each rank's own tokens, then all-gathers, in one call, the activations, their scale
  factors, the top-k expert ids (int32) and the top-k routing weights (fp32), runs the fused
  op on every gathered row and reduce-scatters its output in the 16-bit dtype of the hidden
  states. What the activations are when gathered depends on the experts' format: per-tensor
  fp8 is quantised before the gather (``static_quantize_e4m3_per_tensor``: 1 byte an element,
  one static scale, nothing per token); NVFP4 too (``fp4_quantize``: half a byte and one fp8
  scale per 16), and W4A8 MXFP4 to MXFP8 (``mxfp8_quantize``: 1 byte and a scale per 32); fp8
  with 128-wide block scales is quantised inside the fused op ("handled in kernel"), so the
  gather moves the 16-bit hidden states; every other format likewise. With
  ``use_dp_padding`` every rank's rows are padded to the largest rank's first. On a
  multi-node NVLink domain (GB200/GB300 NVL72, MNNVL) it runs its one-sided all-to-all
  instead (``MnnvlMoe``), timed as DeepEP-style dispatch and combine.

DeepEP's kernels (SGLang ``--moe-a2a-backend deepep``, vLLM ``--all2all-backend deepep_*``,
TensorRT-LLM's wide EP) dispatch each token only to the GPUs holding its experts; the step
model times them from each engine's measured tables where a deployment runs them
(``calc.deploy.ops``, ``calc.deploy.rates``).

Expert imbalance: with experts spread over ``ep`` GPUs the busiest GPU's experts get more than
the mean of the routes. LMSYS's large-scale EP study (DeepSeek-V3, 4 × 8 H100, EP32 prefill,
``lm-sys/lm-sys.github.io`` blog/2025-05-05-large-scale-ep.md, "Overall Throughput" table)
measured 50,302 tokens/s per node with the default expert distribution against 59,337 with a
simulated perfect EPLB: the default distribution costs 59,337 / 50,302 = 1.18× the time. Taken
as the busiest GPU's routed work over the mean (the MoE layers set the pace under EP), the
default ``moe_imbalance`` is 1.18 whenever ep > 1 (1 with the experts on every GPU).

vLLM's shared expert (issue 20, vmoe round; the vLLM 0.16.0 wheel read: ``fused_moe/layer.py``
``forward_native``, ``forward_impl`` and ``_maybe_setup_shared_experts_stream``,
``modular_kernel.py``, ``fused_moe_method_base.py`` ``mk_owns_shared_expert``,
``quantization/fp8.py`` and ``modelopt.py``, ``input_quant_fp8.py``, ``activation.py``,
``config/vllm.py``, ``models/nemotron_h.py``): a layer with shared experts runs them inside the
``moe_forward_shared`` custom op, which Inductor does not compile, so their element-wise work
runs as eager PyTorch ops, one kernel each, where the same work in the compiled graph is fused.
A quantisation method with a modular kernel (``Fp8MoEMethod``, ModelOpt's fp8 and nvfp4 methods)
owns the shared expert and runs it on the main stream after the routed experts' finalize, so its
kernels add to the layer's; without one (16-bit experts) the shared expert runs on an aux stream
beside the routed ones up to 256 tokens (``VLLM_SHARED_EXPERTS_STREAM_TOKEN_THRESHOLD``): not
charged, kvcalc keeps its sequential count. Under Inductor the custom ops default to "none"
(``config/vllm.py``), so ``ReLUSquaredActivation`` runs ``torch.square(F.relu(x))`` and
``SiluAndMul`` ``F.silu(x[..., :d]) * x[..., d:]``: 2 kernels where kvcalc's FFN counts 1
(``VLLM_SHARED_ACTIVATION_EXTRA``). A per-tensor fp8 input scale is quantised by
``QuantFP8.forward_native``: x to fp32, the scale's reciprocal, the product, the clamp, the cast
to fp8: 5 kernels for a static scale (ModelOpt FP8, ``kFp8StaticTensorSym``; more for a dynamic
one) before each of the two GEMMs (``VLLM_SHARED_QUANT_KERNELS``); a checkpoint with 128-wide
block scales turns ``+quant_fp8`` on (one CUDA kernel, as in the compiled graph) and nvfp4
quantises in one CUDA kernel: not charged apart. Nemotron 3 Nano FP8: 2 GEMMs, 2 × 5
quantisations, relu and square: 14 kernels where kvcalc counted 3
(``VLLM_SHARED_EAGER_KERNELS``). Read at 0.16.0 only (``VLLM_SHARED_EAGER_SINCE``); earlier
releases are charged as before.

The engine's release: the fused-MoE curves are fitted to aiconfigurator's TensorRT-LLM
1.3.0rc20 tables; the releases kvcalc models (1.0.0 to 1.2.1) ran the same layer slower.
aiconfigurator's earlier wheels (PyPI ``aiconfigurator`` 0.2.0, 0.4.0 and 0.7.0) carry the same
collector's MoE tables for TensorRT-LLM 1.0.0rc3 (H100, H200), 1.0.0rc6 (B200, GB200) and
1.2.0rc5 (H100, H200, B200, GB200): on the same shapes, formats, parallelism and routing, at
64 tokens and more, the older release's time over 1.3.0rc20's, the median per GPU and format
and then over those (``tools/moe_release_ratio.py``), is 1.19 for 1.0 (12 GPU-format pairs,
1.08-1.25; power-law routing, the only rows 1.0 has) and 1.12 for 1.2 (balanced routing, 1.04
-1.47). Only 1.0's is applied (``TRTLLM_MOE_RELEASE_SCALE``: 1.0.x at 1.19, 1.1 on at 1): the
measured serving runs of 1.0 agree with it (aiconfigurator's silicon sample, 124 H100 fp8 MoE
runs of 1.0.0rc3: TPOT median -9.9% -> +1.2%; TensorRT-LLM 1.0's throughput table, every MoE
column), while those of 1.1 and 1.2 (B200 and H200) already come out slow at the 1.3 tables and
1.1 has no table. The GEMMs of the same wheels are left as they are: the 1.0 fp8 GEMM tables
are 1.15x the 1.3 ones on Hopper, but the dense fp8 rows of 1.0's throughput table already come
out 1-8% slow at the 1.3 curves (docs/step-time.md, round 12).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_EP_IMBALANCE = 1.18  # 59,337 / 50,302 (see the module docstring)

# the 16-bit hidden state a gather moves where nothing quantises it first [bytes/element]
HIDDEN_BYTES_PER_ELEMENT = 2.0
# what TensorRT-LLM's CUTLASS MoE all-gathers a hidden element as, by the experts' format
# [bytes/element] (see the module docstring): per-tensor fp8 (static scale, 1 byte), NVFP4
# (fp4 values and one fp8 scale per 16); fp8-block128 and the rest gather the 16-bit state
# MXFP4 experts: the W4A8 path kvcalc times them by on Blackwell (tools/fit_kernels.py
# MOE_ENGINE_PREFER) quantises to MXFP8 before the gather (1 B and a scale per 32); the W4A16
# path of GPUs without fp4 units would gather the 16-bit state (not distinguished)
TRTLLM_GATHER_BYTES = (("fp8", 1.0), ("fp8-tensor", 1.0), ("nvfp4", 0.5 + 1 / 16),
                       ("mxfp4", 1 + 1 / 32))  # fmt: skip
# beside each token, each of its top-k routes: an int32 expert id and an fp32 weight [bytes]
TRTLLM_GATHER_ROUTE_BYTES = 4 + 4

TRTLLM_GATHER_SOURCE = (
    "m0: the stage's tokens × (d_model × bytes an element as gathered + 8 B per route: int32"
    " expert id, fp32 weight); per-tensor fp8 1 B, NVFP4 0.5625 B, MXFP4 as MXFP8 1.03125 B,"
    " fp8-block128 and the rest the 16-bit state (quantised inside the fused op); m1: the"
    " 16-bit output reduce-scattered (TensorRT-LLM fused_moe_cutlass.py forward_chunk;"
    " calc/deploy/moe_pipeline.py TRTLLM_GATHER_BYTES)"
)

# TensorRT-LLM's MoE backends kvcalc times (``MoeConfig.backend``, see ``TRTLLM_BACKEND_SOURCE``)
# and the engine's default; the trtllm-gen NVFP4 MoE against the CUTLASS one the curves are
# fitted to: CUTLASS time / trtllm-gen time = speed-up × m^-decay, m the rows each active
# expert computes (at least 1), from aiconfigurator-core 0.12.0's B200 tables
# (b200_sxm/moe/trtllm/1.3.0rc20, balanced NVFP4 rows, ``moe_torch_flow_min_latency`` against
# ``moe_torch_flow_cutlass``, 12,015 pairs over 15 shapes; ``tools/fit_kernels.py
# --trtllm-gen-fit``): 1.885 at one row per expert (the measured median 1.97 at m <= 1) falling
# to 1.10 beyond 64 rows (measured 1.11)
TRTLLM_MOE_BACKENDS = ("CUTLASS", "TRTLLM", "DEEPGEMM")
TRTLLM_GEN_FP4_SPEEDUP = 1.885  # [×] CUTLASS / trtllm-gen at one row per active expert
TRTLLM_GEN_FP4_DECAY = 0.0966  # [1] the exponent of m it falls by
TRTLLM_BACKEND_SPEEDUPS = (("TRTLLM", "nvfp4", (TRTLLM_GEN_FP4_SPEEDUP, TRTLLM_GEN_FP4_DECAY)),)
TRTLLM_BACKEND_SOURCE = (
    "TensorRT-LLM MoeConfig.backend (llm_args.py; 1.0.0's published source: CUTLASS, CUTEDSL, "
    "WIDEEP, TRTLLM, DEEPGEMM, VANILLA, default CUTLASS; later revisions add TRITON) and "
    "create_moe.py get_moe_cls; trtllm-gen time: CUTLASS time / (1.885 × m^-0.0966), m the "
    "rows per active expert (aiconfigurator-core 0.12.0, B200 NVFP4 MoE tables, "
    "tools/fit_kernels.py --trtllm-gen-fit)"
)

# TensorRT-LLM's fused MoE at a release over the 1.3.0rc20 tables the curves are fitted to:
# (first release, ratio), oldest first (see the module docstring)
TRTLLM_MOE_RELEASE_SCALE = (((1, 0), 1.19), ((1, 1), 1.0))


@dataclass(frozen=True)
class MoePipeline:
    """Kernels of one fused-MoE layer: with 16-bit activations and with quantised ones."""

    kernels: int
    kernels_quantized: int
    source: str
    # under attention data parallel: "gather" (all-gather, reduce-scatter), "mnnvl" (an
    # all-to-all on a multi-node NVLink domain, a gather elsewhere) or "deepep"
    ep_comm: str = "gather"
    # bytes a hidden element the all-gather moves, by the experts' format ((format, bytes)
    # pairs; a format not listed: the 16-bit hidden state); () gathers the activations as they
    # are, with nothing beside them
    gather_bytes: tuple = ()
    gather_route_bytes: float = 0.0  # bytes gathered beside each route (expert id, weight)
    gather_source: str = ""  # what the gather moves and where that is read ("": 16-bit states)
    # the layer's time at a release over the tables its curves are fitted to: (first release,
    # ratio) pairs, oldest first; () where every release runs as measured
    release_scale: tuple = ()
    # the routing's kernels by release ((first release, kernels) pairs, oldest first), beside
    # ``kernels``; () where ``kernels`` counts them already
    routing: tuple = ()
    # the release the engine's own measured fused-MoE curves were collected at, its routing
    # inside them (None: no release's routing charged beside the curves), and the formats whose
    # layer routes in kernels of its own, not the top-k counted in ``routing``
    curve_release: str | None = None
    own_routing: tuple = ()
    # the MoE backends a user may state (the engine's names), the engine's default (the one
    # its curves time), and each other backend's time on a format as (backend, format,
    # (speed-up, decay)): the curve's time / (speed-up × m^-decay), m the rows per active
    # expert (at least 1); a backend or format not listed runs at the curve's time
    backends: tuple = ()
    default_backend: str | None = None
    backend_speedups: tuple = ()
    # the shared experts' kernels beyond an FFN's three where the engine runs them eagerly,
    # in order, inside its MoE op: the first release read so ((major, minor); None: never) and
    # the extra kernels by the shared experts' format ((format, kernels) pairs; a format not
    # listed: 0, e.g. one whose shared experts run beside the routed ones on another stream)
    shared_eager_since: tuple | None = None
    shared_eager_kernels: tuple = ()
    # the bytes those eager kernels move beyond what the GEMM curves charge, per element of the
    # shared experts' input (d_model) and of their intermediate (width): by format, the
    # quantisation's excess ((format, bytes) pairs), and the activation's by gating
    # ((gated, bytes) pairs), for the formats ``shared_eager_kernels`` lists
    shared_quant_bytes: tuple = ()
    shared_act_bytes: tuple = ()

    def kernels_for(self, weight_format: str | None, release: str | None = None) -> int:
        """Kernels of one MoE layer with experts in ``weight_format`` at the engine's
        ``release`` (None: the newest)."""
        base = self.kernels_quantized if weight_format in QUANTIZED_FORMATS else self.kernels
        return base + self.routing_at(release)

    def routing_at(self, release: str | None) -> int:
        """The routing's kernels at ``release`` beside ``kernels`` (None: the newest release's;
        older than every entry: the oldest's)."""
        if not self.routing:
            return 0
        from calc.deploy.engines.versions import parse_version

        v = parse_version(release) if release else None
        if v is None:
            return self.routing[-1][1]
        out = self.routing[0][1]
        for since, n in self.routing:
            if v >= since:
                out = n
        return out

    def outside_curve(self, weight_format: str | None, release: str | None = None) -> int:
        """Kernels of one MoE layer the engine's own measured curve leaves out, charged beside
        it at the fixed cost each: the routing kernels ``release`` runs beyond those of the
        release the curve was measured at (none for a format that routes in its own kernels)."""
        if self.curve_release is None or weight_format in self.own_routing:
            return 0
        return max(0, self.routing_at(release) - self.routing_at(self.curve_release))

    def shared_extra_kernels(self, weight_format: str | None, release: str | None = None) -> int:
        """Kernels the shared experts of one MoE layer launch beyond an FFN's three, with their
        weights in ``weight_format``, at the engine's ``release`` (None: the newest) [kernels];
        0 before ``shared_eager_since``."""
        if self.shared_eager_since is None:
            return 0
        from calc.deploy.engines.versions import parse_version

        v = parse_version(release) if release else None
        if v is not None and v < self.shared_eager_since:
            return 0
        return dict(self.shared_eager_kernels).get(weight_format, 0)

    def shared_extra_bytes(self, weight_format: str | None, gated: bool,
                           release: str | None = None) -> tuple[float, float]:  # fmt: skip
        """Bytes the shared experts' eager kernels of one MoE layer move beyond the GEMM
        curves' charge, per token: (per element of the input, per element of the
        intermediate) [B/element]; (0, 0) where ``shared_extra_kernels`` is 0."""
        if self.shared_extra_kernels(weight_format, release) == 0:
            return 0.0, 0.0
        quant = dict(self.shared_quant_bytes).get(weight_format, 0.0)
        return quant, quant + dict(self.shared_act_bytes).get(gated, 0.0)

    def gather_bytes_per_element(self, weight_format: str | None, d_model: int,
                                 top_k: int) -> float | None:  # fmt: skip
        """Bytes the all-gather moves per hidden element of a token whose experts are in
        ``weight_format`` [bytes/element]: the activations as gathered plus the token's
        ``top_k`` routes spread over its ``d_model`` elements; None where the engine gathers
        the activations as they are and nothing else."""
        if not self.gather_bytes and not self.gather_route_bytes:
            return None
        act = dict(self.gather_bytes).get(weight_format, HIDDEN_BYTES_PER_ELEMENT)
        return act + self.gather_route_bytes * top_k / d_model

    def backend_speedup(self, backend: str | None, weight_format: str | None):
        """(speed-up, decay) of ``backend`` on experts in ``weight_format`` against the
        curve's kernels (None: the default backend's, or one timed as the curve times it)."""
        for name, fmt, fit in self.backend_speedups:
            if name == (backend or self.default_backend) and fmt == weight_format:
                return fit
        return None

    def scale_at(self, release: str | None) -> float:
        """The fused-MoE curve's time ratio at the engine's ``release`` [×] (1 where the
        pipeline states none, or the release is older than every entry)."""
        from calc.deploy.engines.versions import parse_version

        v = parse_version(release) if release else None
        if v is None:
            return 1.0
        out = 1.0
        for since, ratio in self.release_scale:
            if v >= since:
                out = ratio
        return out


# the pipelines the modelled engines run
TRITON_FUSED_MOE = MoePipeline(6, 8, "vllm fused_moe.py fused_experts_impl (0.33.0)")
# vLLM's softmax top-k by release (the module docstring): 0.10-0.11 cast, topk_softmax, sum,
# divide; from 0.12.0 one topk_softmax that renormalises
VLLM_ROUTING = (((0, 10), 4), ((0, 12), 1))
# SGLang: the same pipeline; its --moe-runner-backend names a user may state (kvcalc's
# --moe-backend; which one runs by default: calc.deploy.engines.sglang.moe_runner)
SGLANG_MOE_RUNNERS = ("triton", "flashinfer_trtllm", "deep_gemm")
SGLANG_FUSED_MOE = MoePipeline(6, 8, TRITON_FUSED_MOE.source, backends=SGLANG_MOE_RUNNERS)
# the release of the tables vLLM's own fused-MoE curves are fitted to (moe/vllm/0.24.0)
VLLM_CURVE_RELEASE = "0.24.0"
# the shared experts run eagerly inside moe_forward_shared, after the routed experts, where a
# modular kernel owns them (the module docstring): read at 0.16.0. Per layer beyond the FFN's
# 3: the activation's second kernel (relu + square, silu + mul), and for per-tensor fp8
# QuantFP8.forward_native before each GEMM (to fp32, reciprocal, multiply, clamp, cast: 5 for a
# static scale, a lower bound for a dynamic one); block-128 fp8 and nvfp4 quantise in one CUDA
# kernel as in the compiled graph. 16-bit experts (no modular kernel): the aux stream, not charged
VLLM_SHARED_EAGER_SINCE = (0, 16)
VLLM_SHARED_ACTIVATION_EXTRA = 1
VLLM_SHARED_QUANT_KERNELS = 5  # per GEMM, per-tensor fp8
VLLM_SHARED_EAGER_KERNELS = (
    ("fp8-tensor", VLLM_SHARED_ACTIVATION_EXTRA + 2 * VLLM_SHARED_QUANT_KERNELS),
    ("fp8", VLLM_SHARED_ACTIVATION_EXTRA + 2 * VLLM_SHARED_QUANT_KERNELS),
    ("fp8-block128", VLLM_SHARED_ACTIVATION_EXTRA),
    ("nvfp4", VLLM_SHARED_ACTIVATION_EXTRA),
)
# the bytes of those kernels (issue 20, nemoload round; vLLM 0.16.0 input_quant_fp8.py
# QuantFP8.forward_native, activation.py): a static per-tensor quantisation reads the 16-bit
# tensor and writes fp32 (2 + 4), multiplies by the scale's reciprocal (4 + 4), clamps (4 + 4)
# and casts to fp8 (4 + 1): 27 B an element, of which the GEMM curves charge a fused pass's
# 3 (read 16-bit, write fp8): 24 more, on the input and on the intermediate. ReLU² as relu and
# square: 2 passes of 2 + 2 B (8); SiLU-and-mul: silu over the gate half (2 + 2) and the
# product (2 + 2 + 2): 10 B an intermediate element; the compiled FFN's activation is charged
# no bytes
VLLM_SHARED_QUANT_EXCESS = 27.0 - 3.0
VLLM_SHARED_QUANT_BYTES = (("fp8-tensor", VLLM_SHARED_QUANT_EXCESS),
                           ("fp8", VLLM_SHARED_QUANT_EXCESS))  # fmt: skip
VLLM_SHARED_ACT_BYTES = ((False, 8.0), (True, 10.0))
# vLLM's fused-MoE backends a user may state (its --moe-backend values kvcalc takes, and the two
# FlashInfer trtllm-gen MXFP4 kernels of gpt-oss's experts, set by environment: MXFP8 activations
# under VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1, bf16 the default); which one its oracle picks, and
# which curve times it: calc.deploy.engines.vllm.moe_backend
VLLM_MOE_BACKENDS = ("flashinfer_trtllm", "flashinfer_cutlass", "triton", "deep_gemm", "marlin",
                     "flashinfer_trtllm_mxfp4_mxfp8", "flashinfer_trtllm_mxfp4_bf16")
VLLM_FUSED_MOE = MoePipeline(
    5, 7, "vllm fused_moe.py fused_experts_impl (0.33.0) and fused_topk (0.10.1-0.33.0)",
    routing=VLLM_ROUTING, curve_release=VLLM_CURVE_RELEASE, own_routing=("mxfp4",),
    shared_eager_since=VLLM_SHARED_EAGER_SINCE, shared_eager_kernels=VLLM_SHARED_EAGER_KERNELS,
    shared_quant_bytes=VLLM_SHARED_QUANT_BYTES, shared_act_bytes=VLLM_SHARED_ACT_BYTES,
    backends=VLLM_MOE_BACKENDS,
)  # fmt: skip
CUTLASS_MOE = MoePipeline(6, 6, "TensorRT-LLM CUTLASS MoE (expand, activation, finalize)",
                          ep_comm="mnnvl", gather_bytes=TRTLLM_GATHER_BYTES,
                          gather_route_bytes=TRTLLM_GATHER_ROUTE_BYTES,
                          gather_source=TRTLLM_GATHER_SOURCE,
                          release_scale=TRTLLM_MOE_RELEASE_SCALE,
                          backends=TRTLLM_MOE_BACKENDS, default_backend="CUTLASS",
                          backend_speedups=TRTLLM_BACKEND_SPEEDUPS)  # fmt: skip
# the GPUs of an HGX board: an NVLink domain beyond it spans nodes (MNNVL)
HGX_GPUS = 8
# activation formats the engines quantise before a grouped GEMM (fp8 and 4-bit float GEMMs)
QUANTIZED_FORMATS = ("fp8", "fp8-tensor", "fp8-block128", "nvfp4", "mxfp4")


def backend_time_ratio(fit, rows_per_expert):
    """A backend's time over the curve's kernels at ``rows_per_expert`` (scalar or array):
    1 / (speed-up × max(1, m)^-decay); 1 where ``fit`` is None."""
    if fit is None:
        return 1.0
    import numpy as np

    speedup, decay = fit
    m = np.maximum(1.0, np.asarray(rows_per_expert, dtype=float))
    out = m**decay / speedup
    return float(out) if out.ndim == 0 else out


def default_moe_imbalance(ep: int) -> float:
    """The busiest GPU's routed tokens over the mean when the user states none [×]:
    ``DEFAULT_EP_IMBALANCE`` under expert parallelism (at most ep), 1 without it."""
    return 1.0 if ep <= 1 else min(float(ep), DEFAULT_EP_IMBALANCE)


EP_COMMS = ("gather", "deepep")  # what a user may state (EngineSettings.moe_a2a)


def ep_comm_of(pipeline: MoePipeline, domain_gpus: int | None, stated: str | None = None) -> str:
    """How the engine moves tokens to experts under attention data parallel on a GPU whose
    NVLink domain holds ``domain_gpus``: "gather", "deepep" (dispatch and combine) or "mnnvl"
    (TensorRT-LLM's NVLink all-to-all, dispatch and combine too); ``stated``: the user's
    choice, which wins."""
    if stated is not None:
        return stated
    if pipeline.ep_comm == "mnnvl":
        return "mnnvl" if (domain_gpus or 0) > HGX_GPUS else "gather"
    return pipeline.ep_comm
