"""Helpers the deployment commands share: model + calibrated hardware, and the engine options
(sizes parsed to bytes)."""

from __future__ import annotations


def load_deployment(model: str, hardware: str, *, fmt: str, engine: str, calibration=None):
    """(ModelConfig, HardwareProfile with ``calibration`` applied) for the command's options."""
    from calc.cli.common import calibrated_hardware, check_choice
    from calc.engines import ENGINE_NAMES
    from calc.registry import load_hardware, load_model
    from calc.render import FORMATS

    check_choice("--format", fmt, FORMATS)
    check_choice("--engine", engine, ENGINE_NAMES)
    cfg = load_model(model)
    return cfg, calibrated_hardware(load_hardware(hardware), calibration)


def engine_options(
    engine: str,
    mem_util: float,
    block_size: int,
    max_batched_tokens: int,
    activation: str | None,
    overhead: str,
) -> dict:
    """The engine keywords of capacity_report, cost_report and sweep, with --activation and
    --overhead parsed to bytes."""
    from calc.units import parse_bytes

    return {
        "engine": engine,
        "mem_util": mem_util,
        "block_size": block_size,
        "max_batched_tokens": max_batched_tokens,
        "activation_bytes": None if activation is None else parse_bytes(activation, "--activation"),
        "overhead_bytes": parse_bytes(overhead, "--overhead"),
    }
