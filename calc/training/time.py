"""Time of a training run [s]: from a stated MFU, or from the compute model (per-GPU FLOPs at
an achievable fraction of peak) with the pipeline bubble and the communication of TP, PP and
DP (the collective formulas of calc/deploy/parallel.py).

Pipeline bubble [1] (m micro-batches per step, p stages, forward + backward of one
micro-batch on one stage t): GPipe and 1F1B both idle (p − 1)·t per step of m·t useful work,
so the bubble's share of the step is (p − 1)/(m + p − 1). With the interleaved schedule each
stage holds v model chunks; the bubble shrinks to (p − 1)·t/v: share (p − 1)/(v·m + p − 1).

Communication per micro-batch (t tokens, d_model, a bytes per activation):

- TP: two all-reduces of t·d·a per layer in the forward pass and two in the backward (with
  sequence parallelism a reduce-scatter + all-gather pair, the same bytes) [2]; two more per
  layer in a recomputed forward. On the critical path.
- EP: dispatch and combine, two all-to-alls of the k routed copies (k·t·d·a) per MoE layer
  forward and two backward.
- PP: one send of t·d·a per stage boundary forward and one back, per micro-batch.
- CP: the ring exchange of K/V blocks overlaps the attention it feeds; it is not charged.
- DP: one ring all-reduce of the gradients per step (ZeRO-2/3: a reduce-scatter, half of it,
  plus ZeRO-3's all-gather of the weights twice: forward and backward [3]). It overlaps
  the backward pass; what is exposed is max(0, t_dp − the backward of one micro-batch).

Only the matmuls, attention and these collectives are charged; element-wise kernels (norms,
dropout, activations), the optimizer step and framework overhead are not, so the compute
model is optimistic (42-53 % fast against Megatron-LM's own CI runs on H100,
docs/validation-training.md); a stated MFU times a budget more safely.

Each collective runs on the link its group crosses (calc.training.links): the scale-up link
(NVLink/NVSwitch, xGMI) while the group's ranks sit in one scale-up domain, at the profile's
measured NCCL curves where it has them, the scale-out network beyond it.

References: [1] Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU
Clusters Using Megatron-LM", §2.2.1-2.2.2. [2] Korthikanti et al. 2022, §4.2.2.
[3] Rajbhandari et al. 2020, "ZeRO", §7 (ZeRO-3: 1.5× the DDP volume).
"""

from __future__ import annotations


def bubble_fraction(pp, microbatches, virtual_stages=1):
    """Share of a pipelined step spent idle: (p − 1)/(v·m + p − 1) (v = 1: 1F1B) [1]."""
    return (pp - 1) / (virtual_stages * microbatches + pp - 1)


def pipeline_step_s(microbatch_s, pp, microbatches, virtual_stages=1):
    """One step of m micro-batches of ``microbatch_s`` each on one stage, bubble included:
    (m + (p − 1)/v) · t [s]."""
    return (microbatches + (pp - 1) / virtual_stages) * microbatch_s


def compute_time_s(flops, peak_flops_per_s, fraction):
    """FLOPs at a fraction of peak [s]."""
    return flops / (peak_flops_per_s * fraction)


def tp_comm_per_microbatch_s(tokens, d_model, act_bytes, layers, link, recompute_full=False):
    """TP all-reduces of one micro-batch on one stage: (4, or 6 with full recomputation)
    × layers all-reduces of t·d·a over the TP group's ``link`` (calc.training.links) [s]."""
    n = (6 if recompute_full else 4) * layers
    return n * link.allreduce_s(tokens * d_model * act_bytes)


def ep_comm_per_microbatch_s(tokens, d_model, act_bytes, experts_per_token, moe_layers, link):
    """EP all-to-alls of one micro-batch on one stage: 4 × moe_layers all-to-alls of the
    k·t·d·a bytes of routed token copies over the EP group's ``link`` [s]."""
    message = experts_per_token * tokens * d_model * act_bytes
    return 4 * moe_layers * link.all_to_all_s(message)


def pp_comm_per_microbatch_s(tokens, d_model, act_bytes, pp, link):
    """Activations forward and their gradients back across one stage boundary on the
    pipeline's ``link`` [s] (zero without pipelining)."""
    if pp == 1:
        return 0.0
    return 2 * link.send_s(tokens * d_model * act_bytes)


def dp_comm_per_step_s(grad_bytes, weight_bytes, zero_stage, link):
    """Gradient synchronisation of one step over the data-parallel group's ``link`` [s]: an
    all-reduce of the gradients (ZeRO-2/3: a reduce-scatter); ZeRO-3 adds two all-gathers of
    the weights (forward and backward). On a ring a reduce-scatter or an all-gather is half
    an all-reduce: (n − 1)/n · M / B + (n − 1) · α."""
    if zero_stage < 2:
        return link.allreduce_s(grad_bytes)
    out = link.reduce_scatter_s(grad_bytes)
    return out + (2 * link.all_gather_s(weight_bytes) if zero_stage == 3 else 0)


def time_at_mfu_s(model_flops, gpus, peak_flops_per_s, mfu):
    """Wall time of ``model_flops`` on ``gpus`` GPUs at a model-FLOPs utilisation [s]."""
    return model_flops / (gpus * peak_flops_per_s * mfu)


def mfu(model_flops, gpus, peak_flops_per_s, seconds):
    """Model-FLOPs utilisation: model FLOPs / (gpus · peak · s)."""
    return model_flops / (gpus * peak_flops_per_s * seconds)
