"""The one way every command builds its ``Deployment`` from the shared deployment options
(``calc.cli.options`` and ``calc.cli.deploy_options``)."""

from __future__ import annotations

from calc.errors import InvalidInputError


def resolve_tp(tp: int, gpus: int | None) -> int:
    """``--gpus N`` is a stated shorthand for ``--tp N`` (one tensor-parallel group)."""
    if gpus is None:
        return tp
    if tp not in (1, gpus):
        raise InvalidInputError(f"--gpus {gpus} and --tp {tp} disagree: --gpus N means --tp N")
    return gpus


def build_deployment(
    model: str,
    hardware: str | None,
    *,
    fmt: str = "table",
    tp: int = 1,
    pp: int = 1,
    ep: int = 1,
    dp: int | None = None,
    gpus: int | None = None,
    weight_dtype: str | None = None,
    kv_dtype: str | None = None,
    compute_dtype: str | None = None,
    engine: str = "vllm",
    mem_util: float = 0.9,
    block_size: int = 16,
    max_batched_tokens: int = 8192,
    activation: str | None = None,
    overhead: str = "0.5GiB",
    max_model_len: int | None = None,
    calibration=None,
    layout=None,
):
    """The Deployment of a command's options (model and hardware loaded, calibration applied,
    sizes parsed, everything validated once)."""
    from calc.cli.common import calibrated_hardware, check_choice
    from calc.deployment import Deployment, EngineSettings
    from calc.registry import load_hardware, load_model
    from calc.render import FORMATS
    from calc.units import parse_bytes

    check_choice("--format", fmt, FORMATS)
    settings = EngineSettings(
        name=engine,
        mem_util=mem_util,
        block_size=block_size,
        max_batched_tokens=max_batched_tokens,
        activation_bytes=None if activation is None else parse_bytes(activation, "--activation"),
        overhead_bytes=parse_bytes(overhead, "--overhead"),
        max_model_len=max_model_len,
    )
    cfg = load_model(model)
    hw = None
    if hardware:
        hw = calibrated_hardware(load_hardware(hardware), calibration)
    lay = layout(cfg) if layout is not None else None
    return Deployment.build(
        cfg,
        hw,
        tp=resolve_tp(tp, gpus),
        pp=pp,
        ep=ep,
        dp=dp,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        compute_dtype=compute_dtype,
        layout=lay,
        engine=settings,
    )
