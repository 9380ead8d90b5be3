"""FLOPs per trained token [FLOP] and the time of one optimizer step [s] of a training setup:
model and recomputation FLOPs, compute at the profile's efficiency, tensor-, expert-, pipeline-
and data-parallel communication, the pipeline bubble and the MFU; each with its derivation."""

from __future__ import annotations

from dataclasses import dataclass, field

from calc.data.hardware_schema import HardwareProfile
from calc.data.model_schema import ModelConfig
from calc.errors import InvalidInputError
from calc.output.derivation import Figure, figure, figures
from calc.training import flops as tf
from calc.training import memory as tm
from calc.training import time as tt
from calc.training.links import GroupLink, StepLinks, network_bytes_per_s, step_links
from calc.training.setup import NETWORK_BYTES_PER_S, TrainSetup


@dataclass(frozen=True)
class Flops:
    """FLOPs per trained token [FLOP/token]."""

    matmul_params: int  # parameters in matmuls [params]
    matmul_forward: float  # forward matmuls
    attention_forward: float  # forward attention (scores and values)
    forward: float
    model: float  # forward + backward, as MFU counts them
    recompute: float  # recomputation and FlashAttention's backward scores
    hardware: float  # model + recompute: what the GPUs run
    figures: list[Figure] = field(default_factory=list)


@dataclass(frozen=True)
class Step:
    """One optimizer step [s] and its parts."""

    microbatches: int
    global_batch: int  # sequences per step
    tokens: int  # tokens per step
    compute_mb: float  # compute of one micro-batch
    tp_mb: float  # tensor-parallel all-reduces per micro-batch
    ep_mb: float  # expert-parallel all-to-alls per micro-batch
    pp_mb: float  # pipeline sends per micro-batch
    microbatch_s: float
    bubble: float  # the pipeline's idle fraction
    dp_s: float  # data-parallel gradient traffic per step
    dp_exposed_s: float  # its part not hidden behind the backward pass
    step_s: float
    peak_flops_per_s: float  # the matmuls' peak [FLOP/s]
    mfu: float
    figures: list[Figure] = field(default_factory=list)


def flops_per_token(cfg: ModelConfig, s: TrainSetup, p) -> Flops:
    """Model and hardware FLOPs per token; ``p`` the model's parameter counts."""
    n_mm = tf.matmul_params(p.active, p.embedding, p.norms, cfg.tie_embeddings)
    attn_fwd = attn_scores = 0
    for kind in cfg.layers:
        if kind in ("full", "sliding", "chunked"):
            pairs = tf.layer_pairs(kind, s.ctx, cfg.sliding_window, cfg.attention_chunk_size)
            attn_fwd += tf.attention_forward_flops(
                pairs, cfg.n_heads, cfg.k_head_dim, cfg.v_head_dim
            )
            attn_scores += 2 * pairs * cfg.n_heads * cfg.k_head_dim
    attn_fwd_tok = attn_fwd / s.ctx
    scores_tok = attn_scores / s.ctx
    mm_fwd = tf.forward_matmul_flops_per_token(n_mm)
    fwd = mm_fwd + attn_fwd_tok
    model_tok = tf.training_flops_per_token(fwd)
    extra_tok = tf.recompute_flops_per_token(s.recompute, mm_fwd, attn_fwd_tok, scores_tok, s.flash)
    figs = [
        figure(
            "model_flops_per_token",
            model_tok,
            "FLOP",
            "6 × {matmul_params} + 3 × {attention_forward_per_token}",
            matmul_params=n_mm,
            attention_forward_per_token=attn_fwd_tok,
        ),
        figure(
            "recompute_flops_per_token",
            extra_tok,
            "FLOP",
            {
                "full": "{matmul_forward} + {attention_forward}",
                "selective": "{attention_forward}" if not s.flash else "0",
                "none": "0",
            }[s.recompute]
            + (" + {flash_backward_scores}" if s.flash else ""),
            matmul_forward=mm_fwd,
            attention_forward=attn_fwd_tok,
            flash_backward_scores=scores_tok,
        ),
    ]
    return Flops(n_mm, mm_fwd, attn_fwd_tok, fwd, model_tok, extra_tok, model_tok + extra_tok,
                 figs)  # fmt: skip


def peak_flops_per_s(hw: HardwareProfile, dtype: str) -> float:
    """The tensor-core peak training runs its matmuls at in ``dtype`` [FLOP/s]."""
    if dtype == "fp32" and "tf32" in hw.peak_flops_per_s:
        dtype = "tf32"  # fp32 training runs its matmuls in TF32 on the tensor cores
    try:
        return hw.peak_flops_per_s[dtype]
    except KeyError:
        raise InvalidInputError(
            f"{hw.name} has no {dtype} tensor-core peak; use a bf16 --recipe"
        ) from None


def step_time(cfg: ModelConfig, hw: HardwareProfile, s: TrainSetup, f: Flops, *, rcp, act,
              states, lps: int) -> Step:  # fmt: skip
    """One optimizer step: ``f`` the FLOPs per token, ``rcp`` the precision recipe, ``act``
    the stored activations (calc.training.activations), ``states`` the model states
    (calc.training.states), ``lps`` layers per stage."""
    from calc.deploy.rates import efficiencies

    mm_frac, _ = efficiencies(hw, s.efficiency)
    peak_mm = peak_flops_per_s(hw, rcp.compute_dtype)
    peak_attn = peak_flops_per_s(hw, "fp32" if s.recipe == "fp32" else "bf16")
    m = act.microbatches
    global_batch = m * s.micro_batch * s.dp
    tokens_step = global_batch * s.ctx
    mm_tok = 3 * f.matmul_forward + (f.matmul_forward if s.recompute == "full" else 0)
    per_gpu_step = tokens_step / s.gpus
    compute_mb = (
        tt.compute_time_s(mm_tok * per_gpu_step, peak_mm, mm_frac)
        + tt.compute_time_s((f.hardware - mm_tok) * per_gpu_step, peak_attn, mm_frac)
    ) / m
    links = step_links(hw, s, network_bytes_per_s(hw, s.network_bytes_per_s, NETWORK_BYTES_PER_S))
    tp_mb, ep_mb, pp_mb = _comm_per_microbatch(cfg, s, act, lps, links)
    mb_s = compute_mb + tp_mb + ep_mb + pp_mb
    grad_msg = (
        states.params_gpu * rcp.grad_bytes
        if s.finetune == "full"
        else states.adapter_gpu * tm.ADAPTER_WEIGHT_BYTES[s.adapter_dtype]
    )
    weight_msg = states.params_gpu * states.weight_bytes
    dp_s = tt.dp_comm_per_step_s(grad_msg, weight_msg, s.zero, links.dp)
    dp_exposed = max(0.0, dp_s - compute_mb * 2 / 3)
    step_s = tt.pipeline_step_s(mb_s, s.pp, m, s.virtual_stages) + dp_exposed
    step = Step(
        m, global_batch, tokens_step, compute_mb, tp_mb, ep_mb, pp_mb, mb_s,
        tt.bubble_fraction(s.pp, m, s.virtual_stages), dp_s, dp_exposed, step_s, peak_mm,
        tt.mfu(f.model * tokens_step, s.gpus, peak_mm, step_s),
    )  # fmt: skip
    step.figures.append(_dp_figure(s.zero, links.dp, grad_msg, weight_msg, dp_s))
    step.figures.extend(_step_figures(s, f, step))
    return step


def _comm_per_microbatch(cfg: ModelConfig, s: TrainSetup, act, lps: int, links: StepLinks):
    """(tensor-, expert-, pipeline-parallel communication) of one micro-batch [s], each on
    its group's link."""
    tokens_mb, act_b = act.tokens_mb, act.act_bytes
    tp_mb = tt.tp_comm_per_microbatch_s(
        tokens_mb, cfg.d_model, act_b, lps, links.tp, s.recompute == "full"
    )
    ep_mb = 0.0
    if s.ep > 1 and cfg.moe is not None:
        ep_mb = tt.ep_comm_per_microbatch_s(
            tokens_mb, cfg.d_model, act_b, cfg.moe.experts_per_token,
            min(lps, cfg.n_moe_layers), links.ep,
        )  # fmt: skip
    pp_mb = tt.pp_comm_per_microbatch_s(tokens_mb, cfg.d_model, act_b, s.pp, links.pp)
    return tp_mb, ep_mb, pp_mb


def _dp_figure(zero: int, link: GroupLink, grad_bytes, weight_bytes, dp_s) -> Figure:
    """The data-parallel traffic of one step with its collectives, the group and its link."""
    if zero < 2:
        formula = "all-reduce({grads}) over {n} ranks on the {link}"
    elif zero == 2:
        formula = "reduce-scatter({grads}) over {n} ranks on the {link}"
    else:
        formula = ("reduce-scatter({grads}) + 2 × all-gather({weights}) over {n} ranks on the "
                   "{link}")  # fmt: skip
    return figure("dp_comm_per_step_s", dp_s, "s", formula, grads=grad_bytes,
                  weights=weight_bytes, n=link.n, link=link.where)  # fmt: skip


def _step_figures(s: TrainSetup, f: Flops, st: Step) -> list[Figure]:
    """The microbatch time, the pipeline bubble, the step time and the MFU, with their terms."""
    m, pp, v = st.microbatches, s.pp, s.virtual_stages
    return figures(
        ("microbatch_s", st.microbatch_s, "s", "{compute} + {tp_comm} + {ep_comm} + {pp_comm}",
         {"compute": st.compute_mb, "tp_comm": st.tp_mb, "ep_comm": st.ep_mb,
          "pp_comm": st.pp_mb}),
        ("bubble_fraction", st.bubble, "", "({pp} − 1) / ({v} × {m} + {pp} − 1)",
         {"pp": pp, "v": v, "m": m}),
        ("step_s", st.step_s, "s",
         "({m} + ({pp} − 1) / {v}) × {microbatch_s} + max(0, {dp_comm} − ⅔ × {compute})",
         {"m": m, "pp": pp, "v": v, "microbatch_s": st.microbatch_s, "dp_comm": st.dp_s,
          "compute": st.compute_mb}),
        ("mfu", st.mfu, "",
         "{model_flops_per_token} × {tokens_per_step} / ({gpus} × {peak} × {step_s})",
         {"model_flops_per_token": f.model, "tokens_per_step": st.tokens, "gpus": s.gpus,
          "peak": st.peak_flops_per_s, "step_s": st.step_s}),
    )  # fmt: skip
