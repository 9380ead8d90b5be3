"""Price of one GPU-hour [USD/h]: a cloud list price (the hardware profile's ``usd_per_hour``, or
one the user states) or the total cost of owning the GPU (TCO): its purchase spread over its
service life plus the electricity it draws, facility overhead included:

    USD per GPU-hour = capex / (years × 8,766 h) + power [kW] × PUE × USD per kWh

(8,766 = 365.25 days × 24 h, a year with its leap day). Staff, network and floor space are not
in it: add them to the capex or the power price if they matter. The hardware profiles state no
board power (TDP), so ``--power-kw-per-gpu`` must be given with ``--capex-usd-per-gpu``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from calc.errors import InvalidInputError

HOURS_PER_YEAR = 8766  # 365.25 × 24
DEFAULT_AMORTISE_YEARS = 4.0  # a common depreciation schedule for data-centre GPUs
DEFAULT_PUE = 1.3  # power usage effectiveness of a typical air-cooled data centre
DEFAULT_USD_PER_KWH = 0.10  # industrial electricity, order of magnitude


def capex_usd_per_hour(capex_usd, amortise_years):
    """Purchase spread over the service life [USD/h]: capex / (years × 8,766)."""
    return capex_usd / (amortise_years * HOURS_PER_YEAR)


def power_usd_per_hour(power_kw, pue, usd_per_kwh):
    """Electricity of one GPU, facility overhead included [USD/h]: kW × PUE × USD/kWh."""
    return power_kw * pue * usd_per_kwh


def owned_usd_per_gpu_hour(capex_usd, amortise_years, power_kw, pue, usd_per_kwh):
    """Total cost of owning one GPU for an hour [USD/h]: capex part + power part."""
    return capex_usd_per_hour(capex_usd, amortise_years) + power_usd_per_hour(
        power_kw, pue, usd_per_kwh
    )


def _check(flag: str, value, lo: float, hi: float, lo_open: bool = True) -> None:
    bad = not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value)
    if bad or (value <= lo if lo_open else value < lo) or value > hi:
        bracket = "(" if lo_open else "["
        raise InvalidInputError(f"{flag} must be in {bracket}{lo:g}, {hi:g}], got {value!r}")


@dataclass(frozen=True, kw_only=True)
class Pricing:
    """How a GPU-hour is priced: the profile's list price (``usd_per_hour`` None), a stated
    price, or owned hardware (``capex_usd_per_gpu`` given)."""

    usd_per_hour: float | None = None
    capex_usd_per_gpu: float | None = None
    amortise_years: float | None = None  # owned only; None: DEFAULT_AMORTISE_YEARS
    power_kw_per_gpu: float | None = None
    pue: float | None = None  # owned only; None: DEFAULT_PUE
    usd_per_kwh: float | None = None  # owned only; None: DEFAULT_USD_PER_KWH

    def __post_init__(self) -> None:
        if self.usd_per_hour is not None:
            _check("--usd-per-hour", self.usd_per_hour, 0, 10_000)
        stated = [
            flag
            for flag, value in (
                ("--amortise-years", self.amortise_years),
                ("--power-kw-per-gpu", self.power_kw_per_gpu),
                ("--pue", self.pue),
                ("--usd-per-kwh", self.usd_per_kwh),
            )
            if value is not None
        ]
        if stated and self.capex_usd_per_gpu is None:  # would be ignored: a silent wrong answer
            needed = "--capex-usd-per-gpu" + (
                " and --power-kw-per-gpu" if self.power_kw_per_gpu is None else ""
            )
            raise InvalidInputError(
                f"{', '.join(stated)} price{'s' * (len(stated) == 1)} owned hardware: give "
                f"{needed} too, or leave {'it' if len(stated) == 1 else 'them'} out"
            )
        for name, default in (
            ("amortise_years", DEFAULT_AMORTISE_YEARS),
            ("pue", DEFAULT_PUE),
            ("usd_per_kwh", DEFAULT_USD_PER_KWH),
        ):
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)  # frozen: set once, here
        _check("--amortise-years", self.amortise_years, 0, 50)
        _check("--pue", self.pue, 1, 5, lo_open=False)
        _check("--usd-per-kwh", self.usd_per_kwh, 0, 100, lo_open=False)
        if self.capex_usd_per_gpu is not None:
            if self.usd_per_hour is not None:
                raise InvalidInputError(
                    "give --usd-per-hour (a rented GPU) or --capex-usd-per-gpu (an owned one), "
                    "not both"
                )
            _check("--capex-usd-per-gpu", self.capex_usd_per_gpu, 0, 10_000_000)
            if self.power_kw_per_gpu is None:
                raise InvalidInputError(
                    "--capex-usd-per-gpu needs --power-kw-per-gpu (the hardware profiles state "
                    "no board power), e.g. 0.7 for an H100 SXM"
                )
        if self.power_kw_per_gpu is not None:
            _check("--power-kw-per-gpu", self.power_kw_per_gpu, 0, 100)

    @property
    def owned(self) -> bool:
        return self.capex_usd_per_gpu is not None

    def usd_per_gpu_hour(self, hw) -> float:
        """The price of one GPU-hour of ``hw`` under this pricing [USD/h]."""
        if self.owned:
            return owned_usd_per_gpu_hour(
                self.capex_usd_per_gpu,
                self.amortise_years,
                self.power_kw_per_gpu,
                self.pue,
                self.usd_per_kwh,
            )
        return hw.usd_per_hour if self.usd_per_hour is None else self.usd_per_hour

    def describe(self) -> str:
        if self.owned:
            return (
                f"owned: ${self.capex_usd_per_gpu:,.0f} / ({self.amortise_years:g} y × "
                f"{HOURS_PER_YEAR:,} h) + {self.power_kw_per_gpu:g} kW × PUE {self.pue:g} × "
                f"${self.usd_per_kwh:g}/kWh"
            )
        if self.usd_per_hour is not None:
            return f"stated: ${self.usd_per_hour:g} per GPU-hour"
        return "the hardware profile's list price per GPU-hour"
