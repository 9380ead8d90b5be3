"""Memory of one training step on the busiest GPU [bytes]: weights, gradients and optimizer
states by precision recipe and sharding (DDP, ZeRO-1/2/3 = FSDP), activations per layer by
layer type with none/selective/full recomputation and FlashAttention, and LoRA/QLoRA.

Every function takes plain numbers and returns bytes (or parameters); ``calc.training.report``
composes them for a model.

Model states [1] (Adam/AdamW: two moments per parameter):

============================ ======= ===== ====== ======= ==========================
recipe                       weights grads master moments bytes / param (no sharding)
============================ ======= ===== ====== ======= ==========================
fp32                         4       4     0      2 × 4   16
bf16 (ZeRO/DeepSpeed, FSDP)  2       2     4      2 × 4   16   ([1] §3.1: 2 + 2 + 12)
bf16-fp32-grads (Megatron)   2       4     4      2 × 4   18   ([2] ``18`` bytes)
fp8 (fp8 weights [3])        1       4     4      2 × 4   17
fp8-bf16-moments ([4])       1       4     4      2 × 2   13
============================ ======= ===== ====== ======= ==========================

ZeRO stage z over ``dp`` data-parallel ranks [1]: z ≥ 1 shards master weights and moments,
z ≥ 2 also the gradients, z = 3 (FSDP full shard) also the 16-bit weights. Megatron's
distributed optimizer is ZeRO-1 ([2]: ``6 + 12 / dp``).

Activations [5] (Korthikanti et al. 2022, §4): the tensors autograd keeps for the backward
pass of one micro-batch, per layer, as tokens × width × bytes (t = tokens of the micro-batch
on this GPU = micro_batch × ctx / cp). The paper's GPT layer is 34·t·d + 5·n_heads·ctx·t
bytes (16-bit, with dropout); this module counts the same tensors for each layer kind:

- attention: the norm's input, the QKV input, Q, K, V (GQA: n_kv_heads wide), the output
  projection's input; without FlashAttention the softmax output (2 B) and, with dropout, its
  mask (1 B) and output (2 B) per head per query-key pair (eager attention materialises the
  full ctx × ctx matrix, sliding windows included); with FlashAttention [6] only the fp32
  log-sum-exp per head per token; with dropout a 1-byte mask of the block output.
- MLA: as attention, plus the compressed q and kv latents (norm input and up-projection
  input each) and the shared RoPE key; Q and K are n_heads × (nope + rope) wide.
- dense FFN: the norm's input, fc1's input, fc1's output and fc2's input: plain MLP 2 × d_ffn,
  gated (SwiGLU) 3 × d_ffn wide (gate ‖ up, then the product; the fused SwiGLU of
  Megatron-Core recomputes SiLU in the backward pass), plus a dropout mask.
- MoE FFN: the norm's input, the router input and its fp32 logits, the k dispatched copies of
  each token (expert input and output) and each expert's FFN as above for k × t tokens, plus
  the shared experts as dense FFNs.
- Mamba/Mamba-2 (approximate): norm and in_proj inputs, in_proj output, conv output, scan
  output and out_proj input (the selective-scan kernel recomputes its states [7]).

Activations are 16-bit under every recipe but fp32 (fp8 recipes keep bf16 activations; a
framework that caches fp8 copies of the matmul inputs needs less). LoRA/QLoRA keep the same
activations as full training (the frozen matmuls' inputs are the adapters' inputs too) plus
the r-wide x·A of every adapted matrix; QLoRA's transient dequantised copy of one weight
matrix is not counted.

Tensor parallelism splits the tensors between the column- and row-parallel matmuls by tp;
the hidden-width tensors (norm inputs, matmul inputs, masks) are split only with sequence
parallelism ([5] Table 2: 10 + 24/t without it). Selective recomputation [5] §5 drops the
attention-core terms (the ctx × ctx matrices); full recomputation keeps each layer's input
(t × d) and re-materialises one layer at a time in the backward pass (its full set is
counted once in the peak).

Pipeline: under 1F1B the first stage holds min(m, pp) micro-batches in flight and the last
one (which also holds the logits) one; the interleaved schedule with v chunks raises the
first stage's count by a factor 1 + (pp − 1)/(pp · v) [2] [8]. The busier of the two is
reported.

References: [1] Rajbhandari et al. 2020, "ZeRO", §3.1 and Figure 1. [2] NVIDIA Megatron-LM,
megatron/training/theoretical_memory_usage.py and
megatron/core/tensor_parallel/cross_entropy.py. [3] Megatron-LM ``--fp8-param-gather``
(fp8 parameters, fp32 main grads and master weights). [4] DeepSeek-AI 2024, "DeepSeek-V3",
§3.3.2 (BF16 AdamW moments, FP32 master weights and gradients). [5] Korthikanti et al. 2022,
"Reducing Activation Recomputation in Large Transformer Models", §4, Table 2. [6] Dao et al.
2022, "FlashAttention", §3.1 (backward recomputes S from Q, K and the softmax statistics).
[7] Gu & Dao 2023, "Mamba", §3.3.2. [8] Narayanan et al. 2021, "Efficient Large-Scale Language
Model Training on GPU Clusters Using Megatron-LM", §2.2.
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.errors import UnknownNameError


@dataclass(frozen=True)
class Recipe:
    """Bytes per parameter of each model state under a precision recipe [bytes]."""

    name: str
    weight_bytes: float  # the working copy the forward pass reads
    grad_bytes: float
    master_bytes: float  # fp32 master copy (0 when the weights are fp32 already)
    moment_bytes: float  # each of Adam's two moments
    compute_dtype: str  # tensor-core dtype of the matmuls (the peak that times them)

    @property
    def optimizer_bytes(self) -> float:
        """Master weights and the two Adam moments, per parameter [bytes]."""
        return self.master_bytes + 2 * self.moment_bytes

    @property
    def bytes_per_param(self) -> float:
        return self.weight_bytes + self.grad_bytes + self.optimizer_bytes


RECIPES: dict[str, Recipe] = {
    r.name: r
    for r in (
        Recipe("fp32", 4, 4, 0, 4, "fp32"),
        Recipe("bf16", 2, 2, 4, 4, "bf16"),
        Recipe("bf16-fp32-grads", 2, 4, 4, 4, "bf16"),
        Recipe("fp8", 1, 4, 4, 4, "fp8"),
        Recipe("fp8-bf16-moments", 1, 4, 4, 2, "fp8"),
    )
}
ZERO_STAGES = (0, 1, 2, 3)
RECOMPUTE = ("none", "selective", "full")

# QLoRA's NF4 with double quantization [QLoRA, Dettmers et al. 2023, §3]: 4-bit payload, one
# 8-bit absmax per 64 weights, one fp32 constant per 256 of those: 4 + 8/64 + 32/(64·256) bits.
NF4_BYTES_PER_ELEMENT = (4 + 8 / 64 + 32 / (64 * 256)) / 8  # 0.515869140625
# LoRA adapters: weights and grads in fp32 (PEFT's default, autocast_adapter_dtype) or bf16
# (QLoRA's qlora.py casts them to bf16), with two fp32 Adam moments and no separate master
# copy: 16 or 12 bytes per adapter parameter.
ADAPTER_WEIGHT_BYTES = {"fp32": 4, "bf16": 2}
ADAPTER_MOMENT_BYTES = 2 * 4


def recipe(name: str) -> Recipe:
    try:
        return RECIPES[name]
    except KeyError:
        raise UnknownNameError("recipe", name, RECIPES) from None


# Model states ------------------------------------------------------------------------------


def weight_state_bytes(params, weight_bytes, dp, zero_stage):
    """The 16-bit (or fp8/fp32) working weights [bytes]: sharded over dp only at ZeRO-3."""
    return params * weight_bytes / (dp if zero_stage >= 3 else 1)


def grad_state_bytes(params, grad_bytes, dp, zero_stage):
    """Gradients [bytes]: sharded over dp from ZeRO-2."""
    return params * grad_bytes / (dp if zero_stage >= 2 else 1)


def optimizer_state_bytes(params, optimizer_bytes, dp, zero_stage):
    """Master weights and Adam moments [bytes]: sharded over dp from ZeRO-1."""
    return params * optimizer_bytes / (dp if zero_stage >= 1 else 1)


def model_state_bytes_per_param(weight_bytes, grad_bytes, optimizer_bytes, dp, zero_stage):
    """Bytes of model state per parameter per GPU: [1] Figure 1 (2 + 2 + K with K = 12:
    16 at DDP, 4 + 12/N at ZeRO-1, 2 + 14/N at ZeRO-2, 16/N at ZeRO-3)."""
    return (
        weight_state_bytes(1, weight_bytes, dp, zero_stage)
        + grad_state_bytes(1, grad_bytes, dp, zero_stage)
        + optimizer_state_bytes(1, optimizer_bytes, dp, zero_stage)
    )


# Activations, one layer, one micro-batch --------------------------------------------------


def _split(replicated, sharded, tp, sequence_parallel):
    """Per-GPU bytes of a layer whose TP-region tensors split by tp; the hidden-width ones
    split only with sequence parallelism."""
    return replicated / (tp if sequence_parallel else 1) + sharded / tp


def attention_core_bytes(tokens, ctx, n_heads, act_bytes, flash, dropout, recompute):
    """The attention core's own stored tensors [bytes]: FlashAttention keeps one fp32
    log-sum-exp per head per token; eager attention the ctx × ctx softmax output per head
    (2 B per pair at 16 bits) and, with dropout, its mask (1 B) and output (2 B) [5]:
    5·n_heads·ctx·tokens. Selective recomputation keeps none of them."""
    if recompute != "none":
        return 0
    if flash:
        return 4 * tokens * n_heads
    return tokens * n_heads * ctx * (act_bytes + dropout * (1 + act_bytes))


def attention_activation_bytes(
    tokens, ctx, d_model, n_heads, n_kv_heads, k_head_dim, v_head_dim, *, act_bytes=2,
    flash=True, dropout=False, recompute="none", tp=1, sequence_parallel=True, extra_norms=0,
):  # fmt: skip
    """Stored activations of one GQA/MHA/MQA attention block [bytes] (see module docstring):
    replicated (norm input, QKV input, dropout mask): t·d·(2a + dropout) + extra norms;
    split by tp: t·(h·dk + kv·(dk + dv) + h·dv)·a + the attention core.

    GPT (MHA, dropout, eager, a = 2) gives 11·t·d + 5·h·ctx·t + the 2·t·d norm input [5]."""
    replicated = tokens * d_model * ((2 + extra_norms) * act_bytes + dropout)
    sharded = tokens * (
        n_heads * k_head_dim + n_kv_heads * (k_head_dim + v_head_dim) + n_heads * v_head_dim
    ) * act_bytes + attention_core_bytes(tokens, ctx, n_heads, act_bytes, flash, dropout, recompute)
    return _split(replicated, sharded, tp, sequence_parallel)


def mla_activation_bytes(
    tokens, ctx, d_model, n_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim,
    qk_rope_head_dim, v_head_dim, *, act_bytes=2, flash=True, dropout=False, recompute="none",
    tp=1, sequence_parallel=True,
):  # fmt: skip
    """Stored activations of one MLA block [bytes]: replicated norm and down-projection inputs
    (2·d), the latents (q_lora and kv_lora, each as norm input and up-projection input) and
    the RoPE key; split by tp: Q and K (h·(nope + rope) each), V and the output projection
    input (h·v each) and the core. The latents are replicated over TP (as their
    projections are)."""
    qk = qk_nope_head_dim + qk_rope_head_dim
    replicated = tokens * (
        d_model * (2 * act_bytes + dropout)
        + (2 * q_lora_rank + 2 * kv_lora_rank + qk_rope_head_dim) * act_bytes
    )
    sharded = tokens * n_heads * (2 * qk + 2 * v_head_dim) * act_bytes + attention_core_bytes(
        tokens, ctx, n_heads, act_bytes, flash, dropout, recompute
    )
    # the latents are replicated even under sequence parallelism: count them at full size
    latents = tokens * (2 * q_lora_rank + 2 * kv_lora_rank + qk_rope_head_dim) * act_bytes
    return _split(replicated - latents, sharded, tp, sequence_parallel) + latents


def ffn_activation_bytes(
    tokens, d_model, d_ffn, gated, *, act_bytes=2, dropout=False, tp=1, sequence_parallel=True,
    extra_norms=0,
):  # fmt: skip
    """Stored activations of one dense FFN block [bytes]: replicated norm and fc1 inputs and a
    dropout mask, t·d·(2a + dropout); split by tp: fc1 output and fc2 input,
    t·(2 + gated)·d_ffn·a. GPT (plain, d_ffn = 4d, a = 2, dropout): 5·t·d + 16·t·d [5]."""
    replicated = tokens * d_model * ((2 + extra_norms) * act_bytes + dropout)
    sharded = tokens * (2 + gated) * d_ffn * act_bytes
    return _split(replicated, sharded, tp, sequence_parallel)


def moe_activation_bytes(
    tokens, d_model, n_routed_experts, experts_per_token, d_expert_ffn, n_shared_experts,
    d_shared_ffn, gated, *, act_bytes=2, dropout=False, tp=1, sequence_parallel=True,
    extra_norms=0,
):  # fmt: skip
    """Stored activations of one MoE block [bytes], balanced routing: replicated norm and
    router inputs, fp32 router logits (t·E·4) and a dropout mask; per GPU the k dispatched
    copies of its tokens (expert input and output, 2·k·t·d·a) and the experts' fc1 output and
    fc2 input (k·t·(2 + gated)·d_expert·a), plus the shared experts' (t·(2 + gated)·d_shared·a
    each). Under EP each rank receives as many token copies as it sends (balanced)."""
    replicated = tokens * (
        d_model * ((2 + extra_norms) * act_bytes + dropout) + 4 * n_routed_experts
    )
    routed = experts_per_token * tokens * (2 * d_model + (2 + gated) * d_expert_ffn) * act_bytes
    shared = n_shared_experts * tokens * (2 + gated) * d_shared_ffn * act_bytes
    return _split(replicated, routed + shared, tp, sequence_parallel)


def ssm_activation_bytes(
    tokens, d_model, in_proj_width, conv_width, d_inner, *, act_bytes=2, tp=1,
    sequence_parallel=True,
):  # fmt: skip
    """Stored activations of one Mamba block [bytes] (approximate): replicated norm and
    in_proj inputs (2·t·d·a); split by tp: in_proj output, conv output, scan output and
    out_proj input, t·(in_proj + conv + 2·d_inner)·a."""
    replicated = 2 * tokens * d_model * act_bytes
    sharded = tokens * (in_proj_width + conv_width + 2 * d_inner) * act_bytes
    return _split(replicated, sharded, tp, sequence_parallel)


def checkpoint_bytes(tokens, d_model, act_bytes=2, tp=1, sequence_parallel=True):
    """Full recomputation keeps each layer's input only: t·d·a [bytes] (split by tp with
    sequence parallelism) [5] Table 2: 2·s·b·h."""
    return _split(tokens * d_model * act_bytes, 0, tp, sequence_parallel)


def embedding_activation_bytes(tokens, d_model, dropout=False):
    """First stage: the int64 token ids (8·t) and, with dropout, the embedding's dropout mask
    (t·d) [2]."""
    return 8 * tokens + dropout * tokens * d_model


def output_activation_bytes(tokens, d_model, vocab_size, act_bytes=2, tp=1,
                            sequence_parallel=True):  # fmt: skip
    """Last stage, at the loss [bytes]: the final norm's input and the lm_head's input (t·d·a
    each), and the logits, vocabulary-parallel: the 16-bit logits (t·V·a / tp) live while
    the cross-entropy makes the fp32 copy it turns into the softmax it keeps for the backward
    pass (t·V·4 / tp) [2]: 6·t·V / tp at 16 bits (4·t·V / tp when the logits are fp32)."""
    logits = tokens * vocab_size * (4 + (act_bytes if act_bytes < 4 else 0))
    return _split(2 * tokens * d_model * act_bytes, logits, tp, sequence_parallel)


# Pipeline --------------------------------------------------------------------------------


def in_flight_microbatches(pp, microbatches, virtual_stages=1):
    """Micro-batches whose activations the first stage holds at its peak, in whole-stage
    units: 1F1B min(m, pp) [8]; interleaved with v > 1 chunks the warm-up keeps
    2(pp − 1) + (v − 1)·pp + 1 chunk-micro-batches in flight, pp + (pp − 1)/v stages' worth
    ([2]: pp · (1 + (pp − 1)/(pp · v))), at most all m of them."""
    if pp == 1:
        return 1
    if virtual_stages > 1:
        return min(microbatches, pp + (pp - 1) / virtual_stages)
    return min(microbatches, pp)


def in_flight_microbatches_last_stage(pp, microbatches, virtual_stages=1):
    """The same for the last stage: 1F1B one micro-batch; interleaved (v − 1)·pp + 1
    chunk-micro-batches, ((v − 1)·pp + 1)/v stages' worth, at most m."""
    if pp == 1 or virtual_stages == 1:
        return 1
    return min(microbatches, ((virtual_stages - 1) * pp + 1) / virtual_stages)


# LoRA / QLoRA ------------------------------------------------------------------------------


def lora_params(rank, d_in, d_out):
    """One LoRA adapter on a d_in × d_out matrix: A (d_in × r) and B (r × d_out):
    r · (d_in + d_out) [params] (Hu et al. 2021, §4.1)."""
    return rank * (d_in + d_out)
