"""Op times [s] of a forward pass under a step calibration: each op's roofline time × the
multiplier of its class, plus one fixed host time per forward pass (the ``StepCalibration``
of the hardware profile, fitted by ``kvcalc score --save-calibration``).

Classes: ``gemm`` (GEMMs over weights: QKV, output, dense and shared-expert FFN, router,
lm_head), ``moe`` (the routed experts' grouped GEMMs), ``attention`` (the attention kernels),
``communication`` (collectives and pipeline sends), ``other`` (norms, embedding, element-wise
and SSM ops: never scaled). The host time is one op of its own, ``host`` (no FLOPs, no bytes),
so every report that sums a step's ops (TPOT, TTFT, the simulation's iteration table) counts it
once per forward pass. The host time per sequence is another, ``host_rows``: the per-sequence
time × the rows the lm_head samples (every decode token, each completed prompt), counted with
the lm_head where a report splits a step (``calc.serve.steptime``).
"""

from __future__ import annotations

from calc.deploy.ops import COMPUTE, Op

CLASSES = ("gemm", "attention", "moe", "communication")
HOST = "host"  # the kind and name of the host-time op
HOST_ROWS = "host_rows"  # the name of the per-sequence host-time op (kind HOST)


def op_class(op: Op) -> str:
    """The calibration class of ``op`` (module docstring)."""
    if op.kind == HOST:
        return HOST
    if op.kind != COMPUTE:
        return "communication"
    if op.attention and not op.state:  # an SSM mixer's state work is ``other``
        return "attention"
    if op.grouped:
        return "moe"
    if op.fmt is not None and not op.vector:
        return "gemm"
    return "other"


def multiplier(op: Op, cal) -> float:
    """The factor ``cal`` applies to ``op``'s time (1 for other ops and host ops)."""
    return {"gemm": cal.gemm, "attention": cal.attention, "moe": cal.moe,
            "communication": cal.communication}.get(op_class(op), 1.0)  # fmt: skip


def host_op(name: str = HOST) -> Op:
    """An op that stands for host time (no FLOPs, no bytes)."""
    return Op(name, 0, 0, kind=HOST)


def calibrated(raw: list[Op], times: list, timings: list, cal):
    """(ops, times, timings) of a step with ``cal`` (a ``StepCalibration``) applied: each time ×
    its class's multiplier, and the host ops appended where their times are not 0
    (``timings``: the step's ``OpTiming`` rows, rebuilt with the new times)."""
    from dataclasses import replace

    rows = sampled_rows(raw)
    times = [t * multiplier(op, cal) for op, t in zip(raw, times, strict=True)]
    timings = [replace(x, time_s=t) for x, t in zip(timings, times, strict=True)]
    for name, t in ((HOST, cal.host_step_s), (HOST_ROWS, cal.host_per_seq_s * rows)):
        if (cal.host_step_s if name == HOST else cal.host_per_seq_s) and timings:
            timings = [*timings, replace(timings[0], name=name, flops=0, bytes=0,
                                         arithmetic_intensity=None, bound=None, time_s=t,
                                         kind=HOST)]  # fmt: skip
            raw = [*raw, host_op(name)]
            times = [*times, t]
    return raw, times, timings


def sampled_rows(raw: list[Op]):
    """Sequences a step samples a token for: the lm_head's rows (0 without one)."""
    rows = next((op.gemm_m for op in raw if op.name == "lm_head"), None)
    return 0 if rows is None else rows
