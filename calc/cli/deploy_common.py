"""The one way every command builds its ``Deployment`` from the shared deployment options
(``calc.cli.options`` and ``calc.cli.deploy_options``)."""

from __future__ import annotations

from calc.errors import InvalidInputError


def resolve_gpus(tp: int, pp: int, dp: int | None, gpus: int | None) -> tuple[int, int | None]:
    """(tp, dp) with ``--gpus N``, the deployment's GPUs in all, applied. Alone it is a stated
    shorthand for ``--tp N`` (serving engines shard a model over one tensor-parallel group
    first); beside --tp/--pp the remaining factor is data-parallel replicas (as in `train`)."""
    if gpus is None:
        return tp, dp
    from calc.data.limits import MAX_PARALLEL, check_positive_int

    if tp == 1 and pp == 1 and dp is None:
        check_positive_int("gpus", gpus, MAX_PARALLEL)  # it is the tensor-parallel size
        return gpus, None
    check_positive_int("gpus", gpus, MAX_PARALLEL * MAX_PARALLEL)  # tp × pp × dp
    if gpus % (tp * pp):
        raise InvalidInputError(f"--gpus {gpus} is not a multiple of --tp {tp} × --pp {pp}")
    if dp is not None and dp != gpus // (tp * pp):
        raise InvalidInputError(f"--gpus {gpus} disagrees with --tp {tp} × --pp {pp} × --dp {dp}")
    return tp, gpus // (tp * pp)


# the deployment options a command may take (its other parameters are not the deployment's)
OPTION_NAMES = (
    "model", "hardware", "fmt", "tp", "pp", "ep", "dp", "gpus", "weight_dtype", "kv_dtype",
    "compute_dtype", "engine", "engine_version", "mem_util", "block_size", "max_batched_tokens",
    "max_num_seqs", "activation", "overhead", "max_model_len", "calibration", "allreduce",
    "moe_imbalance",
)  # fmt: skip


def deployment_of(options: dict, **extra):
    """``build_deployment`` from a command's parameters (``locals()``): the deployment options
    it has, by name, so every command passes the same options the same way."""
    given = {k: options[k] for k in OPTION_NAMES if k in options}
    return build_deployment(given.pop("model"), given.pop("hardware", None), **given, **extra)


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
    engine_version: str | None = None,
    mem_util: float | None = None,
    block_size: int | None = None,
    max_batched_tokens: int | None = None,
    max_num_seqs: int | None = None,
    activation: str | None = None,
    overhead: str | None = None,
    max_model_len: int | None = None,
    calibration=None,
    layout=None,
    allreduce: str | None = None,
    moe_imbalance: float | None = None,
):
    """The Deployment of a command's options (model and hardware loaded, calibration applied,
    sizes parsed, everything validated once)."""
    from calc.cli.common import calibrated_hardware, check_choice, warn_model
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.output.render import ROW_FORMATS

    check_choice("--format", fmt, ROW_FORMATS)  # jsonl: one line of the scalar fields
    if calibration is not None and not hardware:  # it calibrates a profile: none to calibrate
        raise InvalidInputError(
            "--calibration corrects a --hardware profile's efficiencies: give --hardware too"
        )
    settings = EngineSettings.of(locals())
    cfg = load_model(model)
    warn_model(cfg)
    hw = None
    if hardware:
        hw = calibrated_hardware(load_hardware(hardware), calibration)
    lay = layout(cfg) if layout is not None else None
    tp_given = tp
    tp, dp = resolve_gpus(tp, pp, dp, gpus)
    try:
        dep = Deployment.build(
            cfg,
            hw,
            tp=tp,
            pp=pp,
            ep=ep,
            dp=dp,
            weight_dtype=weight_dtype,
            kv_dtype=kv_dtype,
            compute_dtype=compute_dtype,
            layout=lay,
            engine=settings,
            moe_imbalance=moe_imbalance,
        )
    except InvalidInputError as exc:
        if gpus is None or tp == tp_given:
            raise
        # --gpus N alone became the tensor-parallel size: name the flag the user gave
        import re

        text = re.sub(rf"--tp {tp}\b", f"--gpus {gpus} (one tensor-parallel group)", str(exc))
        raise InvalidInputError(text) from None
    warn_engine(dep)
    return dep


def warn_engine(dep) -> None:
    """Say on stderr when the engine release asked for is not modelled (every command that
    builds a deployment says it, once)."""
    from calc.cli.common import warn

    warn(list(dep.engine_config.warnings))
