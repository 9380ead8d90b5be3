"""Whether a hardware profile carries a --calibration file's figures [flag]: what the reports
say of a row a calibration moved (plan, sweep, latency, cost, simulate)."""

from __future__ import annotations


def is_calibrated(hw) -> bool:
    """Whether a profile carries a calibration file's figures (bands or a step calibration);
    False without hardware."""
    if hw is None:
        return False
    return hw.step_calibration is not None or hw.efficiency.source.startswith("calibration")
