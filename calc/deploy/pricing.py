"""The price of one GPU-hour [USD per GPU-hour] a command charges: a profile's price on one basis
(neocloud on-demand, hyperscaler on-demand, committed, owned TCO, ...), a price the user states,
or the cost of owning the GPU (``calc.formulas.tco``: capex over its life, power × PUE × USD/kWh).

One ``Pricing`` serves ``plan``, ``cost`` and ``train``, built from one option set
(``--price-basis``, ``--price NAME=USD``, ``--usd-per-gpu-hour``, ``--derived-prices``, and the
owned hardware's ``--capex-usd-per-gpu``, ``--years``, ``--power-kw-per-gpu``, ``--pue``,
``--usd-per-kwh``):

- a ranking prices every GPU on one basis (``basis``; default neocloud on-demand: the one basis
  with a dated list price for most shipped profiles); a profile with no price on it is left out
  of the ranking, and said so;
- derived and placeholder prices (a ratio applied to another part's price, another part's
  price) are left out unless ``derived`` is set, and flagged when used;
- ``--price h100=2.99`` states one profile's price on the ranking's basis; ``--usd-per-gpu-hour``
  states it for every profile;
- owned hardware (``capex_usd_per_gpu``): the TCO formula, power per GPU = the profile's board
  power unless stated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from calc.errors import InvalidInputError, not_one_of

DEFAULT_BASIS = "neocloud_on_demand"
OWNED = "owned"  # the basis of a price computed from the user's capex (not a profile price)
DEFAULT_YEARS = 4.0  # a common depreciation schedule for data-centre GPUs
DEFAULT_PUE = 1.3  # power usage effectiveness of a typical air-cooled data centre
DEFAULT_USD_PER_KWH = 0.10  # industrial electricity, order of magnitude


def bases() -> tuple[str, ...]:
    """The price bases a profile may carry (``calc.data.hardware_schema.PriceBasis``)."""
    from typing import get_args

    from calc.data.hardware_schema import PriceBasis

    return get_args(PriceBasis)


def _check(flag: str, value, lo: float, hi: float, lo_open: bool = True) -> None:
    bad = not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value)
    if bad or (value <= lo if lo_open else value < lo) or value > hi:
        bracket = "(" if lo_open else "["
        raise InvalidInputError(f"{flag} must be in {bracket}{lo:g}, {hi:g}], got {value!r}")


def parse_named_prices(text: str | None, flag: str, hi: float) -> dict[str, float]:
    """``h100=2.99,b200=5.10`` → {name: USD}; a bad item is one clear error."""
    out: dict[str, float] = {}
    if text is None:
        return out
    for item in str(text).split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise InvalidInputError(
                f"{flag} {item!r}: expected NAME=USD, e.g. h100=2.99 (comma-separated for more)"
            )
        try:
            usd = float(value)
        except ValueError:
            raise InvalidInputError(f"{flag} {item!r}: {value!r} is not a number of USD") from None
        _check(f"{flag} {name.strip()}", usd, 0, hi)
        out[name.strip()] = usd
    return out


@dataclass(frozen=True, kw_only=True)
class Owned:
    """Owned GPUs: the purchase price per GPU (one figure, or one per profile by name), its
    service life, the power per GPU (None: the profile's board power), PUE and electricity."""

    capex_usd_per_gpu: float | dict = 0.0
    years: float = DEFAULT_YEARS
    power_kw_per_gpu: float | None = None
    pue: float = DEFAULT_PUE
    usd_per_kwh: float = DEFAULT_USD_PER_KWH
    utilisation: float = 1.0  # the share of its life the GPU is busy (train --utilization)

    def __post_init__(self) -> None:
        capex = self.capex_usd_per_gpu
        for v in capex.values() if isinstance(capex, dict) else (capex,):
            _check("--capex-usd-per-gpu", v, 0, 10_000_000)
        _check("--years", self.years, 0, 50)
        _check("--pue", self.pue, 1, 5, lo_open=False)
        _check("--usd-per-kwh", self.usd_per_kwh, 0, 100, lo_open=False)
        _check("--utilization", self.utilisation, 0, 1)
        if self.power_kw_per_gpu is not None:
            _check("--power-kw-per-gpu", self.power_kw_per_gpu, 0, 100)

    def capex_of(self, hw) -> float | None:
        c = self.capex_usd_per_gpu
        return c.get(hw.name) if isinstance(c, dict) else c

    def power_kw_of(self, hw) -> float | None:
        """Power per GPU [kW]: the stated figure, else the profile's board power."""
        if self.power_kw_per_gpu is not None:
            return self.power_kw_per_gpu
        return None if hw.board_power_w is None else hw.board_power_w / 1000


@dataclass(frozen=True)
class PriceChoice:
    """The price one GPU-hour of one profile is charged [USD per GPU-hour], and what it is."""

    usd_per_gpu_hour: float
    basis: str  # a PriceBasis, or "owned" (the user's capex)
    kind: str  # a PriceKind, or "stated" (given on the command line) / "tco" (owned)
    source: str
    date: str | None = None
    flagged: bool = False  # a derived or placeholder price used because it was asked for

    def describe(self) -> str:
        flag = " (flagged: not a price of this part)" if self.flagged else ""
        date = f", {self.date}" if self.date else ""
        return f"${self.usd_per_gpu_hour:,.4g} per GPU-hour, {self.basis} {self.kind}{date}{flag}"


@dataclass(frozen=True, kw_only=True)
class Pricing:
    """How a GPU-hour is priced (module docstring)."""

    basis: str = DEFAULT_BASIS
    overrides: dict = field(default_factory=dict)  # --price NAME=USD
    usd_per_gpu_hour: float | None = None  # --usd-per-gpu-hour: every profile
    derived: bool = False  # --derived-prices: also derived and placeholder prices (flagged)
    owned: Owned | None = None
    # a command about one GPU (cost, train): a profile with no price on the basis falls back to
    # its reference price, said so (``fallback_note``); a ranking never falls back
    fallback: bool = False

    def __post_init__(self) -> None:
        if self.basis not in bases():
            raise InvalidInputError(
                not_one_of("--price-basis", self.basis, bases())
            )
        if self.usd_per_gpu_hour is not None:
            _check("--usd-per-gpu-hour", self.usd_per_gpu_hour, 0, 10_000)
            if self.owned is not None:
                raise InvalidInputError(
                    "give --usd-per-gpu-hour (a rented GPU) or --capex-usd-per-gpu (an owned "
                    "one), not both"
                )
        for name, usd in self.overrides.items():
            _check(f"--price {name}", usd, 0, 10_000)

    def describe(self) -> str:
        """One line: what every price of this pricing is."""
        if self.owned is not None:
            o = self.owned
            c = o.capex_usd_per_gpu
            capex = (
                ", ".join(f"{k} ${v:,.0f}" for k, v in c.items())
                if isinstance(c, dict)
                else f"${c:,.0f}"
            )
            power = "board power" if o.power_kw_per_gpu is None else f"{o.power_kw_per_gpu:g} kW"
            util = f" × {o.utilisation:g} busy" if o.utilisation != 1 else ""
            return (
                f"owned: capex {capex} / ({o.years:g} y × 8,766 h{util}) + {power} × PUE "
                f"{o.pue:g} × ${o.usd_per_kwh:g}/kWh per GPU-hour"
            )
        if self.usd_per_gpu_hour is not None:
            return f"stated: ${self.usd_per_gpu_hour:g} per GPU-hour for every GPU"
        extra = f"; stated: {', '.join(f'{k} ${v:g}' for k, v in self.overrides.items())}" * bool(
            self.overrides
        )
        unlisted = (
            "derived and placeholder prices included (flagged)"
            if self.derived
            else "derived and placeholder prices left out"
        )
        return f"{self.basis} per GPU-hour ({unlisted}){extra}"

    @property
    def basis_name(self) -> str:
        """The basis every price of this pricing is on: ``basis``, or ``owned``."""
        return OWNED if self.owned is not None else self.basis

    def price_of(self, hw) -> PriceChoice | None:
        """The price of one GPU-hour of ``hw``; None where it has none on this basis (or only a
        derived or placeholder one and ``derived`` is off)."""
        from calc.data.hardware_schema import UNLISTED_PRICE_KINDS
        from calc.formulas.tco import owned_usd_per_gpu_hour

        if self.owned is not None:
            o = self.owned
            capex, power = o.capex_of(hw), o.power_kw_of(hw)
            if capex is None or power is None:
                return None
            usd = owned_usd_per_gpu_hour(capex, o.years, power, o.pue, o.usd_per_kwh,
                                         o.utilisation)  # fmt: skip
            src = (
                f"${capex:,.0f} / ({o.years:g} y × 8,766 h"
                + (f" × {o.utilisation:g}" if o.utilisation != 1 else "")
                + f") + {power:g} kW × {o.pue:g} × ${o.usd_per_kwh:g}/kWh"
            )
            return PriceChoice(usd, OWNED, "tco", src)
        if self.usd_per_gpu_hour is not None:
            return PriceChoice(self.usd_per_gpu_hour, self.basis, "stated", "--usd-per-gpu-hour")
        if hw.name in self.overrides:
            return PriceChoice(self.overrides[hw.name], self.basis, "stated", "--price")
        p = hw.price(self.basis)
        if p is not None and (p.kind not in UNLISTED_PRICE_KINDS or self.derived):
            return PriceChoice(p.usd_per_gpu_hour, p.basis, p.kind, p.source, p.date,
                               p.kind in UNLISTED_PRICE_KINDS)  # fmt: skip
        if self.fallback:
            r = hw.prices[0]
            return PriceChoice(r.usd_per_gpu_hour, r.basis, r.kind, r.source, r.date,
                               r.kind in UNLISTED_PRICE_KINDS)  # fmt: skip
        return None

    def missing(self, hw) -> str:
        """Why ``hw`` has no price under this pricing, with what would price it."""
        from calc.data.hardware_schema import UNLISTED_PRICE_KINDS

        if self.owned is not None:
            if self.owned.capex_of(hw) is None:
                return f"no --capex-usd-per-gpu for {hw.name}"
            return f"{hw.name} states no board power: give --power-kw-per-gpu"
        p = hw.price(self.basis)
        others = ", ".join(q.basis for q in hw.prices if q.kind not in UNLISTED_PRICE_KINDS)
        hint = f"--price {hw.name}=USD" + (f" or --price-basis {others}" if others else "")
        if p is not None and p.kind in UNLISTED_PRICE_KINDS:
            return (
                f"{hw.name}'s {self.basis} price is {p.kind} (${p.usd_per_gpu_hour:g}: "
                f"{p.rule or p.source}): add --derived-prices to use it, or {hint}"
            )
        return f"{hw.name} has no {self.basis} price: {hint}"

    def fallback_note(self, hw, choice: PriceChoice) -> str | None:
        """A warning when a one-GPU command charged ``hw`` off the asked basis."""
        if choice.basis in (self.basis, OWNED) or choice.kind == "stated":
            return None
        return (
            f"{hw.name} has no usable {self.basis} price: charged its {choice.basis} "
            f"{choice.kind} price ${choice.usd_per_gpu_hour:g} per GPU-hour (--price-basis or "
            "--usd-per-gpu-hour to choose)"
        )

    def power_kw(self, hw) -> float | None:
        """Power per GPU for the energy per token [kW]: the owned figure, else board power."""
        if self.owned is not None:
            return self.owned.power_kw_of(hw)
        return None if hw.board_power_w is None else hw.board_power_w / 1000

    @property
    def pue(self) -> float:
        return self.owned.pue if self.owned is not None else DEFAULT_PUE


# the price options of plan, cost and train (their CLI flags: --price-basis, --price, ...)
PRICE_OPTIONS = (
    "price_basis",
    "price",
    "usd_per_gpu_hour",
    "derived_prices",
    "capex_usd_per_gpu",
    "years",
    "power_kw_per_gpu",
    "pue",
    "usd_per_kwh",
)
_OWNED_FLAGS = {
    "years": "--years",
    "power_kw_per_gpu": "--power-kw-per-gpu",
    "pue": "--pue",
    "usd_per_kwh": "--usd-per-kwh",
    "utilisation": "--utilization",
}


def _capex(text) -> float | dict[str, float]:
    """``--capex-usd-per-gpu``: one figure (30000) or one per profile (h100=30000,b200=40000)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    s = str(text).strip()
    if "=" in s:
        return parse_named_prices(s, "--capex-usd-per-gpu", 10_000_000)
    try:
        return float(s.replace("_", "").replace(",", ""))
    except ValueError:
        raise InvalidInputError(
            f"--capex-usd-per-gpu {s!r}: expected USD per GPU (30000) or NAME=USD per profile "
            "(h100=30000,b200=40000)"
        ) from None


def pricing_from(
    *,
    price_basis: str | None = None,
    price: str | None = None,
    usd_per_gpu_hour: float | None = None,
    derived_prices: bool = False,
    capex_usd_per_gpu: str | float | None = None,
    years: float | None = None,
    power_kw_per_gpu: float | None = None,
    pue: float | None = None,
    usd_per_kwh: float | None = None,
    utilisation: float | None = None,
    fallback: bool = False,
) -> Pricing:
    """The ``Pricing`` of the price options of ``plan``, ``cost`` and ``train`` (the CLI's
    ``--price-basis``, ``--price``, ``--usd-per-gpu-hour``, ``--derived-prices`` and the owned
    hardware's terms); an owned-hardware term without ``capex_usd_per_gpu`` is refused (it
    would be ignored: a silent wrong answer)."""
    terms = {"years": years, "power_kw_per_gpu": power_kw_per_gpu, "pue": pue,
             "usd_per_kwh": usd_per_kwh, "utilisation": utilisation}  # fmt: skip
    given = {k: v for k, v in terms.items() if v is not None}
    owned = None
    if capex_usd_per_gpu is not None:
        owned = Owned(capex_usd_per_gpu=_capex(capex_usd_per_gpu), **given)
    elif given:
        stated = [_OWNED_FLAGS[k] for k in given]
        raise InvalidInputError(
            f"{', '.join(stated)} price{'s' * (len(stated) == 1)} owned hardware: give "
            f"--capex-usd-per-gpu too, or leave {'it' if len(stated) == 1 else 'them'} out"
        )
    return Pricing(
        basis=str(price_basis or DEFAULT_BASIS),
        overrides=parse_named_prices(price, "--price", 10_000),
        usd_per_gpu_hour=usd_per_gpu_hour,
        derived=bool(derived_prices),
        owned=owned,
        fallback=fallback,
    )
