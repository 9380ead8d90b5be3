"""The operations of one prefill or one decode step on one GPU, with FLOPs [FLOP] and bytes
moved [bytes] per op, summed over the layers that have the op.

It composes the formulas of ``calc.formulas.flops`` (FLOPs) with weight, KV and activation sizes; it
adds no FLOP arithmetic of its own. Inputs may be ints or numpy arrays (batch, ctx, prompt)
that broadcast, so the same ops serve ``decode_step`` and the vectorised ``tpot_s``.

Bytes moved by a matmul op = its weights (read once per step for the whole batch) + its input
and output activations (read and written once: the op's intermediates stay on chip, which is
what fused serving kernels do) + for attention the KV cache (read once per sequence, written
once per new token). Attention is one fused kernel (FlashAttention/FlashMLA: the scores never
reach HBM); its KV traffic is split between ``attn_scores`` and ``attn_values`` in proportion
to their FLOPs, so both have the kernel's arithmetic intensity and the sum of their two
roofline times equals the fused kernel's. At prefill each K/V byte is counted once (the
re-reads of K/V tiles by later query blocks hit L2 and are not counted).

Per-layer types (one source of truth: the config's ``layers``, ``n_layers_of``,
``has_ffn``/``is_moe_layer``, as ``calc.formulas.params`` counts parameters): Q/K/V/O projections
run
on the attention layers only (full, sliding, chunked); the attention products of each layer
cover the keys it attends to (``calc.formulas.flops``: ctx for full layers, min(ctx, W [+ sinks])
for
sliding ones, its own chunk so far for chunked-local ones); Mamba/Mamba-2 layers have their
own ops (in_proj, conv1d, x/dt projections, scan, out_proj); dense and MoE FFNs run on the
layers that have them. The KV read at decode is the attended tokens × the per-GPU bytes of
one cached token-layer of the ``AttentionLayout``; for full and sliding layers that is exactly
the layout's ``cached_token_layers`` (a chunked layer reads its chunk so far, while the
layout charges capacity for the whole chunk).

SSM layers at decode read their weights once per step and each sequence's fixed conv and SSM
state once and write it back once (the state never grows with ctx); at prefill they write
each sequence's final state once. Their conv1d and scan ops are marked ``attention``: like
attention they are work per sequence (a decode token updates its own sequence's state; a prompt
chunk runs the chunked scan once over its tokens), so the serving step table
(``calc.serve.steptime``) times them with attention, per sequence and per prompt chunk, and
not per token of the pass (a prompt chunk of k tokens is not k sequences' state updates).
The recurrent work (Mamba-1 selective scan, Mamba-2 state update at decode, the conv1d) runs
on CUDA cores in fp32 (mamba_ssm and causal-conv1d kernels), so it is timed at the fp32 peak;
Mamba-2's chunked SSD prefill is matmuls, timed at the 16-bit peak like attention. The gated
DeltaNet layers' conv1d and delta rule are per-sequence work in the same way.

Choices where the issue is silent:

- lm_head: computed only for the last token of each prompt at prefill (vLLM and SGLang
  compute only the logits they sample from); for every sequence at each decode step.
- Embedding: a gather of ``tokens`` rows; the rest of the table is not read.
- Norms: one op over all layers: their weights and activations read and written are
  counted; their FLOPs (about 4 per element) are not, like every element-wise op's
  (``calc.formulas.flops`` counts matmuls and attention only), so they are timed by bytes.
- MoE: the router and shared experts see every token; routed experts read the weights of the
  expected number of distinct experts the batch touches (``expected_active_experts``), under
  expert parallelism those of the GPU that touches the most of its own
  (``busiest_active_experts``: each MoE layer ends in a collective, so the slowest GPU sets
  the layer's time), and compute ``experts_per_token`` expert FFNs per token.
- Activations are 16-bit in HBM (4 bytes only when computing in fp32); fp8 GEMMs quantise
  their inputs on the fly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from calc.data.model_schema import ModelConfig
from calc.deploy.parallel import Sharding, sharded_layout
from calc.formulas import flops as F
from calc.formulas.attention_layout import AttentionLayout
from calc.formulas.elementwise import cdiv
from calc.formulas.params import attention_norm_params

COMPUTE = "compute"
# kernels of one FFN (dense, shared or the routed experts' grouped GEMMs): the gate/up GEMM,
# the activation (and gating product) and the down GEMM
FFN_KERNELS = 3
# kernels of one Mamba-2 layer's state update beyond its projections and conv1d, the same in
# vLLM (mamba_mixer2.py), SGLang and TensorRT-LLM, which run the reference SSD kernels
# (state-spaces/mamba ssd_combined.py, selective_state_update.py) and a separate gated norm:
# at decode selective_state_update, then the gated RMSNorm (Mixer2RMSNormGated, the norm of
# y · silu(z)); at prefill the chunked scan's five (_chunk_cumsum_fwd, _chunk_state_fwd,
# _state_passing_fwd, _bmm_chunk_fwd, _chunk_scan_fwd), the final state's scatter into the
# cache (ssm_state[state_indices] = varlen_states) and the gated RMSNorm
MAMBA2_DECODE_SCAN_KERNELS = 2
MAMBA2_PREFILL_SCAN_KERNELS = 7
# kernels of one gated DeltaNet layer's delta-rule op beyond its projections and conv1d, at
# decode and prefill alike (SGLang 0.5.16 models/qwen3_5.py Qwen3_5GatedDeltaNet.forward and
# layers/attention/linear/gdn_backend.py): the split of the qkvz / ba projections into the
# conv's input, z, b and a (fused_qkvzba_split_reshape_cat_contiguous where n_v / n_k is 1, 2
# or 4, else the contiguous copies and a cat: at least one kernel), the delta rule (at decode
# the packed decode kernel with the gating fused in; at prefill fused_gdn_gating, the chunked
# rule's own kernels being in its measured time, calc.formulas.delta_rule_time), then the
# gated RMSNorm (fla layernorm_gated, y · silu(z))
GDN_SCAN_KERNELS = 3
ALLREDUCE = "allreduce"
ALL_TO_ALL = "all_to_all"
P2P = "p2p"


@dataclass(frozen=True)
class Op:
    """One operation on one GPU, summed over the layers that have it.

    ``kind`` is ``compute`` (timed by the roofline) or a collective (``allreduce``,
    ``all_to_all``, ``p2p``: timed by ``calc.deploy.parallel``), in which case ``bytes`` is the
    total
    payload of ``count`` collectives over a group of ``group`` GPUs.
    """

    name: str
    flops: Any
    bytes: Any
    weight_bytes: Any = 0
    kv_bytes: Any = 0
    kind: str = COMPUTE
    group: int = 1
    count: Any = 0
    # attention, and the SSM mixers' state work: per-sequence work (keys or a recurrent state),
    # which the serving step table keeps apart from the per-token ops (calc.serve.steptime);
    # timed at the 16-bit peak unless ``vector`` (see calc.reports.latency)
    attention: bool = False
    # an SSM mixer's conv or scan (Mamba, Mamba-2, gated DeltaNet; ``attention`` too): a step
    # calibration leaves it unscaled (calc.deploy.step_calibration, class ``other``)
    state: bool = False
    vector: bool = False  # CUDA-core fp32 work (SSM scans, conv1d): timed at the fp32 peak
    kernels: Any = 0  # GPU kernels the op stands for, summed over its layers (fixed cost each)
    # a GEMM over weights: their checkpoint format (picks the tensor-core dtype and, for
    # weight-only formats, the kernel's streaming efficiency), its rows M per GEMM (tokens;
    # tokens per expert for routed experts) and whether it is a MoE grouped GEMM
    fmt: str | None = None
    gemm_m: Any = None
    grouped: bool = False
    # for the kernel curves (calc.deploy.rates): the layers the op is summed over, its GEMMs'
    # (n, k) in one layer, an attention op's sequences and prompt length (None at decode) and
    # layout ("gqa" or "mla"), a MoE op's routes × d_model over its layers (an all-to-all's:
    # the busiest GPU's tokens × d_model over its layers, and ``fanout``: the GPUs a token is
    # sent to and its experts, the copies of DeepEP's normal and low-latency kernels)
    layers: Any = 0
    gemm_shapes: tuple = ()
    seqs: Any = None
    prompt: Any = None
    attn_kind: str | None = None
    route_elements: Any = 0
    # a MoE op's routes × d_model of every token the GPU holds over its layers (all experts';
    # ``route_elements`` where the GPU receives only its own experts' routes)
    batch_route_elements: Any = 0
    # a MoE op's active local experts (the distinct experts of this GPU that get a token,
    # ``expected_active_experts``; the busiest GPU's under expert parallelism,
    # ``busiest_active_experts``) summed over its layers: the curve's per-expert cost
    active_experts: Any = 0
    fanout: tuple = ()
    # an expert-parallel op: "deepep" or "mnnvl" (dispatch and combine to the experts' GPUs:
    # DeepEP's kernels, TensorRT-LLM's NVLink all-to-all) or "gather"
    # (all-gather of every token, reduce-scatter of the outputs: ``phase_bytes`` per call)
    comm: str | None = None
    phase_bytes: tuple = ()
    # of ``kernels``, those a measured kernel curve timing the op leaves out (the routing
    # kernels an older vLLM release runs beyond its curve's), summed over its layers: at the
    # fixed cost each beside the curve (calc.deploy.rates.curve_time)
    curve_kernels: Any = 0
    # a decode attention op's keys per sequence summed over its layers (windows applied; None
    # elsewhere): the length of the serial walk a latency-bound kernel makes
    # (calc.deploy.steps, EngineSettings.rocm_kernels)
    keys: Any = None
    # of ``bytes``, those element-wise kernels outside the op's kernel curve move (an engine's
    # eager shared-expert quantisation and activation), summed over its layers: at the
    # memory rate beside the curve (calc.deploy.rates.curve_time)
    eager_bytes: Any = 0
    # a measured lower bound of the op's time at every band but the speed of light [s], in
    # place of its roofline where longer (the chunked gated-DeltaNet and Mamba-2 SSD prefills,
    # whose serial walks over chunks no roofline sees: calc.formulas.delta_rule_time,
    # calc.formulas.ssd_time); None: the roofline
    floor_s: Any = None


@dataclass(frozen=True)
class Sizes:
    """Bytes per element of the weights, the KV cache, the activations and the SSM state
    (``state``: None means the KV's)."""

    weight: float
    kv: float
    act: float
    state: float | None = None
    # bytes per weight of each component (calc.deploy.checkpoint names); None: ``weight`` for all
    components: Mapping[str, float] | None = field(default=None, compare=False)
    # format of each component's weights (calc.deploy.checkpoint); None: unknown (plain GEMMs)
    formats: Mapping[str, str] | None = field(default=None, compare=False)
    fmt: str | None = None  # the format of the component ``of`` selected

    @property
    def ssm_state(self) -> float:
        return self.kv if self.state is None else self.state

    def of(self, component: str) -> Sizes:
        """These sizes with the weights of ``component`` (its checkpoint format); made once per
        component (a deployment's sizes serve every step asked of it:
        ``calc.deploy.steps.op_setup``)."""
        made = self._of
        out = made.get(component)
        if out is None:
            fmt = None if self.formats is None else self.formats[component]
            if self.components is None:
                out = replace(self, fmt=fmt)
            else:
                out = replace(self, weight=self.components[component], fmt=fmt)
            made[component] = out
        return out

    @cached_property
    def _of(self) -> dict[str, Sizes]:
        """``of``'s results by component (kept beside the frozen fields, never compared)."""
        return {}


def _linear(name, tokens, d_in, d_out, layers, z: Sizes, flops=None, extra_params=0):
    """A projection over ``layers`` layers: FLOPs from calc.formulas.flops, weights d_in·d_out once,
    activations in and out."""
    fl = F.linear_flops(tokens, d_in, d_out) if flops is None else flops
    w = (d_in * d_out + extra_params) * z.weight
    act = tokens * (d_in + d_out) * z.act
    return Op(
        name,
        layers * fl,
        layers * (w + act),
        weight_bytes=layers * w,
        kernels=layers,
        fmt=z.fmt,
        gemm_m=tokens,
        layers=layers,
        gemm_shapes=((d_out, d_in),),
    )


def _attention(score_flops, value_flops, kv_bytes, act_bytes, weight_bytes=0, layers=0,
               **shape):  # fmt: skip
    """Split a fused attention kernel's traffic by FLOP share (see the module docstring).

    All arguments are totals over the attention layers; ``weight_bytes`` (learned sink
    logits) are read by the scores. Kernels: per layer the rotary/KV-cache write and the fused
    attention, both charged to the scores. ``shape``: the sequences, prompt length and layout
    the kernel curves read (``Op.seqs``, ``Op.prompt``, ``Op.attn_kind``)."""
    s, v = score_flops, value_flops
    total = kv_bytes + act_bytes
    share = s / (s + v)
    return [
        Op(
            "attn_scores",
            s,
            total * share + weight_bytes,
            weight_bytes=weight_bytes,
            kv_bytes=kv_bytes * share,
            attention=True,
            kernels=2 * layers,
            layers=layers,
            **shape,
        ),
        Op(
            "attn_values",
            v,
            total * (1 - share),
            kv_bytes=kv_bytes * (1 - share),
            attention=True,
            layers=layers,
            **shape,
        ),
    ]


def attended_token_layers(cfg: ModelConfig, n, decode: bool):
    """Σ over the attention layers of ``cfg`` of the query-key pairs of one sequence:
    at decode the keys the new token attends to at context ``n``; at prefill the pairs of a
    causal prompt of ``n`` tokens. Full, sliding and chunked layers each by their own rule
    (``calc.formulas.flops``); SSM and MLP-only layers have none."""
    full = cfg.n_layers_of("full")
    sliding = cfg.n_layers_of("sliding")
    chunked = cfg.n_layers_of("chunked")
    if cfg.indexer is not None:  # sparse attention: each query attends to its top-k keys
        k = cfg.indexer.topk
        total = full * (F.sliding_decode_pairs(n, k) if decode else F.sliding_causal_pairs(n, k))
    else:
        total = full * (F.decode_pairs(n) if decode else F.causal_pairs(n))
    if sliding:
        w = cfg.sliding_window + cfg.sink_tokens
        total = total + sliding * (
            F.sliding_decode_pairs(n, w) if decode else F.sliding_causal_pairs(n, w)
        )
    if chunked:
        c = cfg.attention_chunk_size
        total = total + chunked * (
            F.chunked_decode_pairs(n, c) if decode else F.chunked_causal_pairs(n, c)
        )
    return total


# long: one op list per attention layout (GQA, MLA decode, MLA prefill), in run order
def _attention_block(cfg, s: Sharding, layout, *, tokens, batch, ctx, prompt, decode, z):
    """Projections and attention of the attention layers for ``tokens`` tokens on one GPU.

    ``decode``: one token per sequence at context ``ctx``; else ``prompt`` tokens per sequence.
    ``pairs`` and the KV read are totals over the attention layers (windows applied).
    """
    L, d, h = cfg.n_attention_layers, cfg.d_model, s.n_heads
    if L == 0:
        return []
    z = z.of("attention")
    # bytes of one cached token of one layer on this GPU (KV heads per GPU)
    per_token_layer = sharded_layout(layout, s, 1).kv_bytes_per_token_per_layer(z.kv)
    kv_write = L * tokens * per_token_layer
    token_layers = attended_token_layers(cfg, ctx if decode else prompt, decode)
    pairs = batch * token_layers
    # sparse attention reads the top-k tokens' latents; the indexer reads every index key
    read_per_token_layer = per_token_layer - layout.index_bytes_per_token_per_layer
    kv_read = batch * token_layers * read_per_token_layer if decode else 0
    sinks = L * s.n_heads * cfg.attention_sinks * z.weight
    ops = []
    if cfg.mla is None:
        dk, dv, kv = cfg.k_head_dim, cfg.v_head_dim, s.n_kv_heads
        gate = h * dk * cfg.attn_output_gate  # Qwen3-Next's per-head output gate, from q_proj
        qkv_out = h * dk + kv * (dk + dv) + gate
        bias = qkv_out * cfg.qkv_bias
        qkv = _linear(
            "qkv_proj",
            tokens,
            d,
            qkv_out,
            L,
            z,
            flops=F.qkv_proj_flops(tokens, d, h, kv, dk, dv) + F.linear_flops(tokens, d, gate),
            extra_params=bias,
        )
        ops.append(qkv)
        # Q in, O out; at prefill K and V are read from the projection output once.
        act = tokens * h * (dk + dv) * z.act + (0 if decode else tokens * kv * (dk + dv) * z.act)
        ops += _attention(
            F.attn_score_flops(pairs, h, dk),
            F.attn_value_flops(pairs, h, dv),
            kv_read + kv_write,
            L * act,
            sinks,
            L,
            seqs=batch,
            prompt=None if decode else prompt,
            attn_kind="gqa",
            keys=token_layers if decode else None,
        )
        ops.append(
            _linear(
                "o_proj",
                tokens,
                h * dv,
                d,
                L,
                z,
                flops=F.o_proj_flops(tokens, h, dv, d),
                extra_params=d * cfg.o_bias,
            )
        )
        return ops
    m = cfg.mla
    r, rope, nope, dv = m.kv_lora_rank, m.qk_rope_head_dim, m.qk_nope_head_dim, m.v_head_dim
    if m.q_lora_rank:
        ql = m.q_lora_rank
        ops.append(_linear("q_down", tokens, d, ql, L, z, flops=F.mla_q_down_flops(tokens, d, ql)))
        q_in = ql
    else:
        q_in = d
    ops.append(
        _linear(
            "q_up",
            tokens,
            q_in,
            h * (nope + rope),
            L,
            z,
            flops=F.mla_q_up_flops(tokens, q_in, h, nope, rope),
        )
    )
    ops.append(
        _linear(
            "kv_down",
            tokens,
            d,
            r + rope,
            L,
            z,
            flops=F.mla_kv_down_flops(tokens, d, r, rope),
        )
    )
    if decode:  # absorbed form: attention runs on the cached latent
        absorb = Op("q_absorb", L * F.mla_q_absorb_flops(tokens, h, nope, r), 0)
        ops.append(_relayer(absorb, tokens, h * nope, h * r, r * h * nope, L, z))
        act = tokens * h * (r + rope + r) * z.act  # latent-space query in, latent output out
        ops += _attention(
            F.mla_absorbed_score_flops(pairs, h, r, rope),
            F.mla_absorbed_value_flops(pairs, h, r),
            kv_read + kv_write,
            L * act,
            sinks,
            L,
            seqs=batch,
            attn_kind="mla",
        )
        ops.append(
            _relayer(
                Op("v_absorb", L * F.mla_v_absorb_flops(tokens, h, r, dv), 0),
                tokens,
                h * r,
                h * dv,
                r * h * dv,
                L,
                z,
            )
        )
    else:  # explicit form: per-head K and V from the latent
        ops.append(
            _linear(
                "kv_up",
                tokens,
                r,
                h * (nope + dv),
                L,
                z,
                flops=F.mla_kv_up_flops(tokens, r, h, nope, dv),
            )
        )
        act = tokens * h * ((nope + rope) * 2 + dv * 2) * z.act  # Q, K in; V in, O out
        ops += _attention(
            F.attn_score_flops(pairs, h, nope + rope),
            F.attn_value_flops(pairs, h, dv),
            kv_write,
            L * act,
            sinks,
            L,
            seqs=batch,
            prompt=prompt,
            attn_kind="mla",
        )
    ops.append(_linear("o_proj", tokens, h * dv, d, L, z, flops=F.o_proj_flops(tokens, h, dv, d)))
    return ops


def _relayer(op: Op, tokens, act_in, act_out, params, layers, z: Sizes) -> Op:
    """``op`` with the bytes of a per-head batched matmul: ``params`` weights, activations
    ``act_in`` and ``act_out`` elements per token, over ``layers`` layers."""
    w = params * z.weight
    return Op(
        op.name,
        op.flops,
        layers * (w + tokens * (act_in + act_out) * z.act),
        weight_bytes=layers * w,
        kernels=layers,
    )


# long: the SSM layer's ops in the order they run (projections, conv, scan, gate, out): one list
def _ssm_block(cfg, s: Sharding, *, tokens, batch, prompt, decode, z):
    """The Mamba/Mamba-2 layers for ``tokens`` tokens of ``batch`` sequences on one GPU (its
    1/tp share of the channels/heads, ``calc.formulas.ssm.mixer_shape``), summed over those layers.

    Weights: each part of ``calc.formulas.ssm.layer_ssm_params`` once per step (the scan op carries
    A_log, D, dt_bias and the inner norms: the mixer's parameters less its projections and
    conv). State: at decode each sequence's conv state ((K−1) × conv channels) and SSM state
    (E × N, in the recurrent dtype) read once and written once; at prefill the final state
    written once. Kernels: Mamba-2's scan op stands for the state update and the gated norm
    (``MAMBA2_DECODE_SCAN_KERNELS``, ``MAMBA2_PREFILL_SCAN_KERNELS``). Mamba-2's chunked SSD
    prefill takes at least its measured time (``Op.floor_s``: ``calc.formulas.ssd_time``).
    """
    z = z.of("ssm")
    from calc.formulas.ssd_time import chunked_ssd_s
    from calc.formulas.ssm import layer_ssm_params, mixer_shape, recurrent_bytes_per_element

    ops = []
    c = cfg.ssm
    if c is None:
        return ops
    d = cfg.d_model
    rw = 2 if decode else 1  # decode reads and writes the state; prefill writes it
    for kind in ("mamba", "mamba2"):
        n = cfg.n_layers_of(kind)
        if not n:
            continue
        m = mixer_shape(cfg, kind, s.tp)
        E, N, K, G, H = m.d_inner, m.d_state, m.d_conv, m.n_groups, m.n_heads
        if kind == "mamba2":
            w_in = 2 * E + 2 * G * N + H  # z, x, B, C, dt
            in_flops = F.mamba2_in_proj_flops(tokens, d, E, G, N, H)
            if decode:
                scan_flops = F.mamba2_decode_scan_flops(tokens, E, N)
            else:
                scan_flops = batch * F.mamba2_prefill_scan_flops(prompt, E, N, G)
            scan_in = E + H + 2 * G * N + E  # x, dt, B, C, z (the gated norm)
        else:
            w_in = 2 * E  # x, z
            in_flops = F.mamba1_in_proj_flops(tokens, d, E)
            scan_flops = F.mamba1_scan_flops(tokens, E, N)
            scan_in = E + E + 2 * N + E  # x, Δ, B, C, z (the gate)
        bias_in = c.proj_bias * w_in
        in_proj = _linear(
            f"{kind}_in_proj", tokens, d, w_in, n, z, flops=in_flops, extra_params=bias_in
        )
        conv_params = m.conv_dim * K + c.conv_bias * m.conv_dim
        conv_state = batch * (K - 1) * m.conv_dim * z.ssm_state
        conv = Op(
            f"{kind}_conv1d",
            n * F.conv1d_flops(tokens, m.conv_dim, K),
            n * (conv_params * z.weight + rw * conv_state + tokens * 2 * m.conv_dim * z.act),
            weight_bytes=n * conv_params * z.weight,
            vector=True,
            kernels=n,
            attention=True,  # a sequence's conv state (module docstring)
            state=True,
        )
        ops += [in_proj, conv]
        proj_params = d * w_in + c.proj_bias * w_in + conv_params + E * d + c.proj_bias * d
        if kind == "mamba":
            R = m.dt_rank
            xdt = _linear(
                f"{kind}_x_dt_proj",
                tokens,
                E,
                R + 2 * N,
                n,
                z,
                flops=F.mamba1_x_dt_proj_flops(tokens, E, N, R),
                extra_params=R * E + E,  # dt_proj weight and bias
            )
            # dt_proj's output Δ (E per token) is written too
            xdt = replace(xdt, bytes=xdt.bytes + n * tokens * E * z.act)
            ops.append(xdt)
            proj_params += E * (R + 2 * N) + R * E + E
        rest = layer_ssm_params(cfg, kind, s.tp) - proj_params  # A_log, D, dt_bias, norms
        # the recurrent state in its own dtype (the config's recurrent_dtype: Nemotron-H's
        # mamba_ssm_cache_dtype fp32, which vLLM's NemotronHForCausalLMConfig applies), as the
        # ledger holds it
        ssm_state = batch * E * N * recurrent_bytes_per_element(cfg, z.ssm_state)
        floor = None  # the chunked SSD prefill's measured time (calc.formulas.ssd_time)
        if kind == "mamba2":
            per_layer = MAMBA2_DECODE_SCAN_KERNELS if decode else MAMBA2_PREFILL_SCAN_KERNELS
            if not decode:
                floor = n * chunked_ssd_s(batch * prompt, H, E // H, N)
        else:  # Mamba-1: one selective scan (its z gate fused in)
            per_layer = 1
        ops.append(
            Op(
                f"{kind}_scan",
                n * scan_flops,
                n * (rest * z.weight + rw * ssm_state + tokens * (scan_in + E) * z.act),
                weight_bytes=n * rest * z.weight,
                kernels=per_layer * n,
                # a sequence's recurrent state (module docstring); Mamba-2's chunked SSD
                # prefill is matmuls (tensor cores, the 16-bit peak), the rest fp32
                attention=True,
                state=True,
                vector=kind == "mamba" or decode,
                floor_s=floor,
            )
        )
        ops.append(
            _linear(
                f"{kind}_out_proj",
                tokens,
                E,
                d,
                n,
                z,
                flops=F.ssm_out_proj_flops(tokens, E, d),
                extra_params=c.proj_bias * d,
            )
        )
    return ops


def _ffn_shapes(d: int, width: int, gated: bool) -> tuple:
    """The (n, k) of an FFN's two GEMMs: the (fused gate and) up projection, then the down."""
    return (((2 if gated else 1) * width, d), (d, width))


# long: dense FFN, router, routed and shared experts in the order they run: one list
def _ffn_block(cfg, s: Sharding, *, tokens, stage_tokens, z, imbalance=1.0, moe_kernels=None,
               moe_outside_curve=0, shared_extra_kernels=0, shared_extra_bytes=(0.0, 0.0),
               moe_comm="deepep"):  # fmt: skip
    """Dense FFN layers, and for MoE layers the router, routed and shared experts.

    ``tokens``: tokens this GPU's attention replica processes; ``stage_tokens``: tokens of the
    whole stage (all replicas), which the routed experts of all ``ep`` GPUs share;
    ``imbalance``: the busiest GPU's routed tokens over the mean under expert parallelism;
    ``moe_kernels``: one MoE layer's kernels, ``moe_outside_curve`` of them outside the engine's
    measured fused-MoE curve (``calc.deploy.moe_pipeline``); ``shared_extra_kernels``: the
    kernels one layer's shared experts launch beyond an FFN's (an engine's eager MoE op), and
    ``shared_extra_bytes`` what they move per element of the input and of the intermediate;
    ``moe_comm``: the expert-parallel traffic (``_comm_ops``); without a dispatch (ep <= tp,
    or the all-gather) every GPU holds all the stage's tokens, not only its experts' routes.
    """
    gated = cfg.ffn_kind == "gated"
    n_mat = 2 + gated
    d = cfg.d_model
    ops = []
    if cfg.n_dense_ffn_layers:
        n = cfg.n_dense_ffn_layers
        zf = z.of("dense_ffn")
        w = (n_mat * d * s.d_ffn + cfg.ffn_bias * (s.d_ffn * (1 + gated) + d)) * zf.weight
        act = tokens * 2 * d * z.act
        ops.append(
            Op(
                "ffn",
                n * F.ffn_flops(tokens, d, s.d_ffn, gated),
                n * (w + act),
                weight_bytes=n * w,
                kernels=FFN_KERNELS * n,
                fmt=zf.fmt,
                gemm_m=tokens,
                layers=n,
                gemm_shapes=_ffn_shapes(d, s.d_ffn, gated),
            )
        )
    m = cfg.moe
    if m is not None and cfg.n_moe_layers:
        n = cfg.n_moe_layers
        E, k = m.n_routed_experts, m.experts_per_token
        ops.append(
            _linear(
                "router",
                tokens,
                d,
                E,
                n,
                z.of("router"),
                flops=F.router_flops(tokens, d, E),
                # the shared experts' d -> 1 gate (Qwen3-Next) rides with the router
                extra_params=E * m.router_bias
                + d * (m.shared_expert_gate and m.n_shared_experts > 0),
            )
        )
        if m.d_latent:  # latent MoE: into and out of the experts' space, every token
            ops.append(_linear_latent(tokens, d, m.d_latent, n, z.of("routed_experts")))
        # routes of the whole stage spread evenly over the ep GPUs
        routes = stage_tokens * k / s.ep * imbalance if s.ep > 1 else tokens * k
        # the experts whose weights the busiest GPU streams: every MoE layer ends in a
        # collective (the all-reduce, or the combine), so each layer waits for the GPU that
        # touches the most of its own experts (``busiest_active_experts``, under the model's
        # group-limited routing; the mean needs no groups: ``calc.formulas.expert_routing``)
        touched = (
            F.busiest_active_experts(E, k, stage_tokens, s.ep, m.n_expert_groups,
                                     m.expert_groups_per_token) if s.ep > 1
            else s.n_experts * F.expected_active_experts(E, k, tokens) / E
        )  # fmt: skip
        zr = z.of("routed_experts")
        de = m.d_latent or d  # the experts' width in and out (latent MoE: d_latent)
        w = (
            touched
            * (n_mat * de * s.d_expert_ffn + cfg.ffn_bias * (s.d_expert_ffn * (1 + gated) + de))
            * zr.weight
        )
        ops.append(
            Op(
                "routed_experts",
                n * F.ffn_flops(routes, de, s.d_expert_ffn, gated),
                n * (w + routes * 2 * de * z.act),
                weight_bytes=n * w,
                # the fused-MoE pipeline's kernels (calc.deploy.moe_pipeline), or an FFN's
                kernels=(FFN_KERNELS if moe_kernels is None else moe_kernels) * n,
                curve_kernels=moe_outside_curve * n,
                fmt=zr.fmt,
                gemm_m=routes / touched,  # rows of each touched expert's GEMM (mean)
                grouped=True,
                layers=n,
                route_elements=n * routes * d,
                batch_route_elements=n * d * (
                    stage_tokens * k if s.ep > 1 and (s.ep <= s.tp or moe_comm == "gather")
                    else routes
                ),
                active_experts=n * touched,
            )
        )
        if m.n_shared_experts:
            zs = z.of("shared_experts")
            w = m.n_shared_experts * n_mat * d * s.d_shared_ffn * zs.weight
            per_in, per_mid = shared_extra_bytes
            eager = n * tokens * (per_in * d + per_mid * m.n_shared_experts * s.d_shared_ffn)
            ops.append(
                Op(
                    "shared_experts",
                    n * F.shared_expert_flops(tokens, m.n_shared_experts, d, s.d_shared_ffn, gated),
                    n * (w + tokens * 2 * d * z.act) + eager,
                    weight_bytes=n * w,
                    eager_bytes=eager,
                    kernels=(FFN_KERNELS + shared_extra_kernels) * n,
                    fmt=zs.fmt,
                    gemm_m=tokens,
                    layers=n,
                    gemm_shapes=_ffn_shapes(d, m.n_shared_experts * s.d_shared_ffn, gated),
                )
            )
    return ops


def _linear_latent(tokens, d, d_latent, layers, z: Sizes) -> Op:
    """A latent MoE's two projections (d -> d_latent before the experts, back after) per MoE
    layer, replicated on every GPU."""
    down = _linear("latent_proj", tokens, d, d_latent, layers, z)
    return replace(down, flops=2 * down.flops, bytes=2 * down.bytes,
                   weight_bytes=2 * down.weight_bytes, kernels=2 * layers)  # fmt: skip


def _indexer_block(cfg, s: Sharding, layout, *, tokens, batch, ctx, prompt, decode, z):
    """DeepSeek sparse attention's lightning indexer in every attention layer, replicated on
    each GPU (vLLM deepseek_v2.py ``Indexer``): its projections (wq_b from the q latent, wk and
    the head weights from the hidden state), then fp8 scores of every query against every
    cached index key (n_heads × head_dim per pair, all ``ctx`` keys, not only the top-k) and
    the top-k selection. At decode each sequence reads all its index keys; the keys written
    per token are in the attention block's KV write."""
    ix = cfg.indexer
    if ix is None or cfg.mla is None:
        return []
    L, d = cfg.n_attention_layers, cfg.d_model
    q_in = cfg.mla.q_lora_rank or d
    za = z.of("attention")
    n, hd = ix.n_heads, ix.head_dim
    ops = [
        _linear("indexer_q", tokens, q_in, n * hd, L, za),
        _linear("indexer_k_weights", tokens, d, hd + n, L, za),
    ]
    pairs = batch * L * (F.decode_pairs(ctx) if decode else F.causal_pairs(prompt))
    keys = batch * L * ctx * layout.index_bytes_per_token_per_layer if decode else 0
    ops.append(
        Op(
            "indexer_scores",
            F.attn_score_flops(pairs, n, hd),
            keys + tokens * L * (n * hd + n) * z.act,
            kv_bytes=keys,
            attention=True,
            kernels=2 * L,  # the scores and the top-k selection
        )
    )
    return ops


def _linear_attention_block(cfg, s: Sharding, *, tokens, batch, prompt, decode, z):
    """The gated DeltaNet layers for ``tokens`` tokens of ``batch`` sequences on one GPU (its
    1/tp share of the heads, ``calc.formulas.ssm.mixer_shape``), summed over those layers.

    Weights: in_proj_qkvz and in_proj_ba, the conv1d, dt_bias / A_log / the norm, out_proj,
    each once per step (their sum is ``calc.formulas.ssm.layer_ssm_params``). State: at decode
    each sequence's conv state and its n_v × d_v × d_k delta-rule state read once and written
    once, each in its own dtype; at prefill the final state written once. The delta rule does
    per state element what Mamba-2's SSD update does (decay, rank-1 write, read-out), so its
    FLOPs are Mamba-2's scan FLOPs over the same state (``calc.formulas.flops``); the chunked
    prefill runs as matmuls (tensor cores) and takes at least its measured time (``Op.floor_s``:
    ``calc.formulas.delta_rule_time``), the decode update on CUDA cores. Kernels: the delta-rule
    op stands for the projections' split, the rule and the gated norm (``GDN_SCAN_KERNELS``)."""
    n = cfg.n_layers_of("linear_attention")
    if not n:
        return []
    from calc.formulas.delta_rule_time import chunked_delta_rule_s
    from calc.formulas.ssm import layer_ssm_params, mixer_shape, recurrent_bytes_per_element

    z = z.of("ssm")
    d = cfg.d_model
    m = mixer_shape(cfg, "linear_attention", s.tp)
    E, N, K, G, H = m.d_inner, m.d_state, m.d_conv, m.n_groups, m.n_heads
    rw = 2 if decode else 1  # decode reads and writes the state; prefill writes it
    w_in = 2 * G * N + 2 * E + 2 * H  # q, k, v, z, then b and a
    ops = [_linear("gdn_in_proj", tokens, d, w_in, n, z)]
    conv_params = m.conv_dim * K
    conv_state = batch * m.conv_elements * z.ssm_state
    ops.append(
        Op(
            "gdn_conv1d",
            n * F.conv1d_flops(tokens, m.conv_dim, K),
            n * (conv_params * z.weight + rw * conv_state + tokens * 2 * m.conv_dim * z.act),
            weight_bytes=n * conv_params * z.weight,
            vector=True,
            kernels=n,
            attention=True,  # a sequence's conv state (module docstring)
            state=True,
        )
    )
    rest = layer_ssm_params(cfg, "linear_attention", s.tp) - d * w_in - conv_params - E * d
    state = batch * m.recurrent_elements * recurrent_bytes_per_element(cfg, z.ssm_state)
    floor = None
    if decode:
        scan_flops = F.mamba2_decode_scan_flops(tokens, E, N)
    else:
        scan_flops = batch * F.mamba2_prefill_scan_flops(prompt, E, N, G)
        la = cfg.linear_attention
        floor = n * chunked_delta_rule_s(batch, prompt, H, la.key_head_dim, la.value_head_dim)
    ops.append(
        Op(
            "gdn_delta_rule",
            n * scan_flops,
            n * (rest * z.weight + rw * state + tokens * (m.conv_dim + 2 * H + 2 * E) * z.act),
            weight_bytes=n * rest * z.weight,
            kernels=GDN_SCAN_KERNELS * n,
            attention=True,  # a sequence's state (module docstring); at prefill matmuls
            state=True,
            vector=decode,
            floor_s=floor,  # the chunked rule's measured time (calc.formulas.delta_rule_time)
        )
    )
    out = _linear("gdn_out_proj", tokens, E, d, n, z, flops=F.ssm_out_proj_flops(tokens, E, d))
    ops.append(out)
    return ops


def dispatch_ranks_per_token(n_experts: int, k: int, ep: int) -> float:
    """Expected distinct GPUs a token's k experts live on when ``n_experts`` experts are spread
    evenly over ``ep`` GPUs and the k are drawn without replacement:
    ep × (1 − C(E − E/ep, k) / C(E, k)) [GPUs]. DeepEP sends a token once per destination GPU,
    not once per expert."""
    per = n_experts / ep
    miss = 1.0
    for i in range(k):  # C(E − E/ep, k) / C(E, k) as a product
        miss *= max(0.0, (n_experts - per - i) / (n_experts - i))
    return ep * (1 - miss)


def _gather_op(cfg, s: Sharding, stage_tokens, z, gather_bytes=None) -> Op:
    """The all-gather of every token of the stage to every GPU before each MoE layer and the
    reduce-scatter of the experts' partial outputs after it (vLLM's allgather_reducescatter,
    SGLang's DP-attention gather, TensorRT-LLM off a multi-node NVLink domain): each call's
    buffer holds all stage_tokens × d_model, whatever the routing (no imbalance)."""
    n = cfg.n_moe_layers
    elems = stage_tokens * cfg.d_model
    ag = elems * (z.act if gather_bytes is None else gather_bytes)
    rs = elems * z.act
    return Op("ep_gather_scatter", 0, n * (ag + rs), kind=ALL_TO_ALL, group=s.ep, count=2 * n,
              layers=n, comm="gather", phase_bytes=(ag, rs))  # fmt: skip


# DeepEP's dispatch sends fp8 activations with one fp32 scale per 128 channels; its combine
# returns bf16 (deepseek-ai/DeepEP README: "FP8 dispatching and BF16 combining") [bytes/element]
DISPATCH_BYTES_PER_ELEMENT = 1 + 4 / 128
COMBINE_BYTES_PER_ELEMENT = 2


# a norm over all q heads and one over all k heads (MiniMax-M2's qk_norm_type per_layer) under
# TP: each GPU holds 1/tp of the heads, so each attention layer all-reduces the two fp32
# variances of every token (vLLM 0.16.0 linear_attn.py MiniMaxText01RMSNormTP.forward_qk:
# torch.cat([q_var, k_var]) then tensor_model_parallel_all_reduce) [bytes per token]
QK_VARIANCE_BYTES = 2 * 4


def layer_qk_norm_reduced(cfg, s: Sharding) -> bool:
    """Whether each attention layer all-reduces its q/k norm's variances: a norm over the whole
    layer's heads (``qk_norm_scope`` "layer") split over tp > 1 GPUs."""
    return s.tp > 1 and bool(cfg.qk_norm) and cfg.qk_norm_scope == "layer"


def _comm_ops(cfg, s: Sharding, *, tokens, stage_tokens, z, imbalance=1.0, prompt=None,
              moe_comm="deepep", gather_bytes=None):  # fmt: skip
    """All-reduces (tp), expert-parallel traffic (ep) and stage sends (pp) of one forward pass
    (``prompt``: None at decode; ``moe_comm``: "deepep", "mnnvl" or "gather", ``gather_bytes``: the
    all-gather's bytes per element, None for the activations')."""
    d = cfg.d_model
    hidden = tokens * d * z.act
    ops = []
    if s.tp > 1:
        # one after each mixer (attention or SSM) and one after each FFN: 2 per layer for a
        # transformer; one per block for Nemotron-H, whose layers hold a mixer or an FFN
        mixers = cfg.n_attention_layers + cfg.n_layers_of("mamba", "mamba2", "linear_attention")
        count = mixers + cfg.n_dense_ffn_layers + cfg.n_moe_layers
        ops.append(Op("tp_allreduce", 0, count * hidden, kind=ALLREDUCE, group=s.tp, count=count))
        if layer_qk_norm_reduced(cfg, s):
            L = cfg.n_attention_layers
            ops.append(Op("qk_norm_allreduce", 0, L * tokens * QK_VARIANCE_BYTES, kind=ALLREDUCE,
                          group=s.tp, count=L))  # fmt: skip
    if s.ep > s.tp and cfg.moe is not None and moe_comm == "gather":
        ops.append(_gather_op(cfg, s, stage_tokens, z, gather_bytes))
    elif s.ep > s.tp and cfg.moe is not None:
        # dispatch and combine; with ep = tp (no data-parallel attention) every GPU already
        # holds all tokens and the experts' partial outputs join the layer's all-reduce, as
        # vLLM does (all-to-all only with dp > 1): no all-to-all is charged
        # DeepEP-style: each GPU sends its share of the stage's tokens once to every GPU that
        # holds one of their experts (fp8 + scales), and receives the results back (bf16); the
        # busiest GPU's traffic scales with the imbalance. Dispatch and combine per MoE layer.
        n = cfg.n_moe_layers
        m = cfg.moe
        own = stage_tokens / s.ep * imbalance * d  # the busiest GPU's tokens × d_model
        ranks = dispatch_ranks_per_token(m.n_routed_experts, m.experts_per_token, s.ep)
        per_layer = own * ranks * (DISPATCH_BYTES_PER_ELEMENT + COMBINE_BYTES_PER_ELEMENT)
        ops.append(Op("ep_all_to_all", 0, n * per_layer, kind=ALL_TO_ALL, group=s.ep, count=2 * n,
                      layers=n, prompt=prompt, route_elements=n * own,
                      fanout=(ranks, m.experts_per_token), comm=moe_comm))  # fmt: skip
    if s.pp > 1:
        count = s.pp - 1
        # group: the GPUs the pipeline spans (a send crosses the network when it exceeds the
        # scale-up domain)
        span = max(s.tp, s.ep) * s.pp
        ops.append(Op("pp_send", 0, count * hidden, kind=P2P, group=span, count=count))
    return ops


def _embedding_and_norms(cfg: ModelConfig, s: Sharding, z: Sizes, tokens: int) -> list[Op]:
    """The embedding lookup and every norm of a pass of ``tokens`` tokens on one GPU."""
    d = cfg.d_model
    layernorm = cfg.norm == "layernorm"
    n_norms = cfg.n_layers * cfg.norms_per_layer + 1
    norm_w = n_norms * d * (1 + layernorm)
    # the latents' own norms (MLA), q/k norms, the sparse-attention indexer's key norm
    norm_w += cfg.n_attention_layers * attention_norm_params(cfg)
    ze, zn = z.of("embedding").weight, z.of("norms").weight
    # a layer-wide q/k norm under TP: the variances' kernel before the all-reduce, which no
    # compiler fuses with the scaling after it (QK_VARIANCE_BYTES)
    qk_split = cfg.n_attention_layers if layer_qk_norm_reduced(cfg, s) else 0
    return [
        Op(
            "embedding",
            0,
            tokens * d * (ze + z.act),
            weight_bytes=tokens * d * ze,
            kernels=1,
        ),
        Op(  # element-wise: FLOPs not counted (see calc.formulas.flops), their traffic is
            "norms",
            0,
            norm_w * zn + n_norms * 2 * tokens * d * z.act,
            weight_bytes=norm_w * zn,
            kernels=n_norms + qk_split,
        ),
    ]


def forward_ops(
    cfg: ModelConfig,
    s: Sharding,
    layout: AttentionLayout,
    z: Sizes,
    *,
    batch,
    ctx=None,
    prompt=None,
    imbalance: float = 1.0,
    moe_kernels: int | None = None,
    moe_outside_curve: int = 0,
    moe_comm: str = "deepep",
    gather_bytes: float | None = None,
    shared_extra_kernels: int = 0,
    shared_extra_bytes: tuple = (0.0, 0.0),
) -> list[Op]:
    """The ops of one decode step (``ctx`` given) or one prefill (``prompt`` given) on one GPU.

    ``batch`` sequences in the stage; each attention replica serves ceil(batch / dp_attn).
    Decode processes one token per sequence at context ``ctx``; prefill ``prompt`` tokens per
    sequence. Layers are summed over the whole model (all pipeline stages), since a token
    passes through every stage in turn.
    """
    decode = ctx is not None
    b = cdiv(batch, s.dp_attn)
    tokens = b if decode else b * prompt
    stage_tokens = batch if decode else batch * prompt
    d = cfg.d_model
    ops = _embedding_and_norms(cfg, s, z, tokens)
    ops += _attention_block(
        cfg, s, layout, tokens=tokens, batch=b, ctx=ctx, prompt=prompt, decode=decode, z=z
    )
    ops += _indexer_block(
        cfg, s, layout, tokens=tokens, batch=b, ctx=ctx, prompt=prompt, decode=decode, z=z
    )
    ops += _ssm_block(cfg, s, tokens=tokens, batch=b, prompt=prompt, decode=decode, z=z)
    ops += _linear_attention_block(
        cfg, s, tokens=tokens, batch=b, prompt=prompt, decode=decode, z=z
    )
    ops += _ffn_block(cfg, s, tokens=tokens, stage_tokens=stage_tokens, z=z, imbalance=imbalance,
                      moe_kernels=moe_kernels, moe_outside_curve=moe_outside_curve,
                      shared_extra_kernels=shared_extra_kernels,
                      shared_extra_bytes=shared_extra_bytes, moe_comm=moe_comm)  # fmt: skip
    # lm_head: every sequence's one token at decode; only the last prompt token at prefill
    ops.append(
        _linear(
            "lm_head",
            b,
            d,
            s.vocab,
            1,
            z.of("embedding" if cfg.tie_embeddings else "lm_head"),
            flops=F.lm_head_flops(b, d, s.vocab),
            extra_params=s.vocab * cfg.lm_head_bias,  # Phi-2's output bias
        )
    )
    lm = ops[-1]
    ops[-1] = replace(lm, kernels=lm.kernels + 1)  # and the sampler
    ops += _comm_ops(cfg, s, tokens=tokens, stage_tokens=stage_tokens, z=z, imbalance=imbalance,
                     prompt=prompt, moe_comm=moe_comm, gather_bytes=gather_bytes)  # fmt: skip
    return ops
