"""The training report: memory per GPU [bytes], FLOPs [FLOP], step and run time [s], cost
[USD] of one training or fine-tuning setup, each figure with its derivation.

It composes the parts each module sizes: the model states (calc.training.states), the stored
activations (calc.training.activations), FLOPs and the step time (calc.training.step) and the
run (calc.training.run), over the formulas of calc.training.memory, .flops, .time and .cost and
the shards of calc.deploy.parallel; it adds no arithmetic of its own beyond summing parts.
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.data.hardware_schema import HardwareProfile
from calc.data.model_schema import ModelConfig
from calc.output.derivation import figure, whole
from calc.output.result import Report
from calc.training import cost as tc
from calc.training import flops as tf
from calc.training import memory as tm
from calc.training.activations import Activations, stage_activations
from calc.training.setup import (  # noqa: F401 (the report's setup, imported from here too)
    FINETUNE,
    LORA_TARGETS,
    MAX_TOKENS,
    NETWORK_BYTES_PER_S,
    SCHEDULES,
    TrainSetup,
    check_setup,
)
from calc.training.states import States, model_states
from calc.training.step import Flops, Step, flops_per_token, step_time


def usable_memory_bytes(hw: HardwareProfile) -> int:
    """Memory one GPU offers a training process [bytes]: what torch reports as the device's
    total (the profile's usable memory), as for serving (the one place that reads it)."""
    return hw.budget_memory_bytes


@dataclass(frozen=True)
class TrainReport(Report):
    """``kvcalc train``'s result: memory per GPU and its fit, FLOPs per token, the step time
    and, with tokens, the run's time and cost."""

    command = "train"


@dataclass(frozen=True)
class _Memory:
    """The busiest GPU's memory in all and its fit."""

    total: int  # [bytes]
    capacity: int  # usable memory of one GPU [bytes]
    fits: bool
    static: int  # all but the activations [bytes]
    max_micro_batch: int  # the largest micro-batch that fits [sequences]


def train_report(cfg: ModelConfig, hw: HardwareProfile, s: TrainSetup) -> TrainReport:
    """Memory per GPU and its fit, FLOPs, step time, run time and cost of training ``cfg`` on
    ``hw`` as ``s`` describes."""
    from calc.deploy.parallel import shard
    from calc.formulas.params import model_params

    check_setup(cfg.n_layers, cfg.name, s)
    rcp = tm.recipe(s.recipe)
    sh = shard(cfg, tp=s.tp, pp=s.pp, ep=s.ep)
    p = model_params(cfg)
    lps = sh.layers_per_stage
    states = model_states(cfg, s, sh, p, rcp, range(min(lps, cfg.n_layers)))
    act = stage_activations(cfg, s, lps)
    mem = _memory(hw, s, states, act)
    figs = [*states.figures, *act.figures, _total_figure(s, states, act, mem)]
    f = flops_per_token(cfg, s, p)
    step = step_time(cfg, hw, s, f, rcp=rcp, act=act, states=states, lps=lps)
    figs += f.figures + step.figures
    fields = _fields(cfg, hw, s, p, states, act, mem, f, step)
    if s.tokens is not None:
        from calc.training.run import run_fields

        run, run_figs, run_notes = run_fields(hw, s, f.model, step)
        fields.update(run)
        figs += run_figs
    else:
        run_notes = []
    return TrainReport(fields, figs, [*run_notes, *_warnings(cfg, hw, s, lps, mem)])


def _memory(hw: HardwareProfile, s: TrainSetup, st: States, act: Activations) -> _Memory:
    total = whole(st.weights + st.grads + st.optim + st.gather + act.total + s.overhead_bytes)
    capacity = usable_memory_bytes(hw)
    # activations grow with the micro-batch: the largest one that fits
    act_per_seq = act.total / s.micro_batch
    static = total - act.total
    max_mb = max(0, int((capacity - static) // act_per_seq)) if act_per_seq else 0
    return _Memory(total, capacity, total <= capacity, static, max_mb)


def _total_figure(s: TrainSetup, st: States, act: Activations, mem: _Memory):
    return figure(
        "total_bytes_per_gpu", mem.total, "bytes",
        "{weights} + {grads} + {optimizer} + {gathered} + {activations} + {overhead}",
        weights=st.weights, grads=st.grads, optimizer=st.optim, gathered=st.gather,
        activations=act.total, overhead=s.overhead_bytes,
    )  # fmt: skip


def _fields(cfg, hw, s: TrainSetup, p, st: States, act: Activations, mem: _Memory, f: Flops,
            step: Step) -> dict:  # fmt: skip
    """The report's keys in output order (docs/names.md), the run's apart."""
    return {
        "model": cfg.name,
        "hardware": hw.name,
        "finetune": s.finetune,
        "recipe": s.recipe,
        "zero_stage": s.zero,
        "recompute": s.recompute,
        "flash_attention": s.flash,
        "ctx": s.ctx,
        "micro_batch": s.micro_batch,
        "global_batch": step.global_batch,
        "microbatches": step.microbatches,
        "tp": s.tp,
        "pp": s.pp,
        "cp": s.cp,
        "ep": s.ep,
        "dp": s.dp,
        "gpus": s.gpus,
        "params_total": p.total,
        "params_trainable": st.trainable,
        "params_per_gpu": st.params_gpu,
        "weights_bytes_per_gpu": st.weights,
        "grads_bytes_per_gpu": st.grads,
        "optimizer_bytes_per_gpu": st.optim,
        "gathered_weights_bytes_per_gpu": st.gather,
        "activation_bytes_per_layer": whole(act.per_layer),
        "activation_bytes_per_gpu": act.total,
        "activation_stage": act.stage,
        "overhead_bytes_per_gpu": s.overhead_bytes,
        "total_bytes_per_gpu": mem.total,
        "memory_bytes_per_gpu": mem.capacity,
        "headroom_bytes_per_gpu": whole(mem.capacity - mem.total),
        "fits": mem.fits,
        "max_micro_batch_that_fits": mem.max_micro_batch,
        "matmul_params": f.matmul_params,
        "model_flops_per_token": whole(f.model),
        "forward_flops_per_token": whole(f.forward),
        "backward_flops_per_token": whole(tf.backward_flops_per_token(f.forward)),
        "recompute_flops_per_token": whole(f.recompute),
        "hardware_flops_per_token": whole(f.hardware),
        "tokens_per_step": step.tokens,
        "microbatch_s": step.microbatch_s,
        "bubble_fraction": step.bubble,
        "tp_comm_per_microbatch_s": step.tp_mb,
        "ep_comm_per_microbatch_s": step.ep_mb,
        "pp_comm_per_microbatch_s": step.pp_mb,
        "dp_comm_per_step_s": step.dp_s,
        "dp_comm_exposed_s": step.dp_exposed_s,
        "step_s": step.step_s,
        "mfu": step.mfu,
        "tokens_per_s_per_gpu": tc.tokens_per_s_per_gpu(step.tokens, step.step_s, s.gpus),
    }


def _warnings(cfg: ModelConfig, hw: HardwareProfile, s: TrainSetup, lps: int,
              mem: _Memory) -> list[str]:  # fmt: skip
    warnings = []
    if s.ctx > cfg.max_ctx:
        warnings.append(f"--ctx {s.ctx:,} exceeds {cfg.name}'s max context of {cfg.max_ctx:,}")
    if s.cp > 1 and not s.flash:
        warnings.append(
            "--cp with --no-flash: each GPU keeps its queries' scores against all --ctx keys "
            "(context parallelism is normally ring attention over FlashAttention)"
        )
    if cfg.n_layers % s.pp:
        warnings.append(
            f"--pp {s.pp} does not divide the {cfg.n_layers} layers; the first stage holds "
            f"{lps} of them"
        )
    if not mem.fits:
        warnings.append(_does_not_fit(hw, s, mem))
    return warnings


def _does_not_fit(hw: HardwareProfile, s: TrainSetup, mem: _Memory) -> str:
    """The warning of a setup that does not fit: needed vs available and what to change."""
    fixes = []
    if s.zero < 3:
        fixes.append("raise --zero")
    if s.recompute != "full":
        fixes.append("use --recompute full")
    fixes.append("raise --tp/--pp or --gpus")
    if s.finetune != "qlora":
        fixes.append("use --finetune " + ("lora or qlora" if s.finetune == "full" else "qlora"))
    largest = (
        f"the largest --micro-batch that fits is {mem.max_micro_batch:,}"
        if mem.max_micro_batch
        else f"not even --micro-batch 1 fits (all but activations need "
        f"{mem.static / 2**30:,.2f} GiB)"
    )
    return (
        f"does not fit: needs {mem.total / 2**30:,.2f} GiB per GPU, {hw.name} has "
        f"{mem.capacity / 2**30:,.2f} GiB; {largest} ({', '.join(fixes)})"
    )
