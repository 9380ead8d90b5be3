"""Helpers the deployment commands share: model + calibrated hardware, sizes in bytes."""

from __future__ import annotations


def load_deployment(model: str, hardware: str, *, fmt: str, engine: str, calibration=None):
    """(ModelConfig, HardwareProfile with ``calibration`` applied) for the command's options."""
    from calc.calibration import apply_calibration, load_calibration
    from calc.cli.common import check_choice
    from calc.engines import ENGINE_NAMES
    from calc.registry import load_hardware, load_model
    from calc.render import FORMATS

    check_choice("--format", fmt, FORMATS)
    check_choice("--engine", engine, ENGINE_NAMES)
    cfg = load_model(model)
    hw = load_hardware(hardware)
    if calibration is not None:
        hw = apply_calibration(hw, load_calibration(calibration), calibration)
    return cfg, hw


def sizes(activation: str | None, overhead: str) -> tuple[int | None, int]:
    """--activation and --overhead as bytes."""
    from calc.units import parse_bytes

    act = None if activation is None else parse_bytes(activation, "--activation")
    return act, parse_bytes(overhead, "--overhead")
