"""The price options of ``plan``, ``cost`` and ``train``, defined once: the basis, stated prices,
and the owned hardware's TCO (capex, years, power in kW, PUE, USD per kWh)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import typer

PriceBasis = Annotated[
    str,
    typer.Option(
        "--price-basis",
        help="Which price of a GPU-hour: neocloud_on_demand (the default: a dated list price "
        "for most profiles, the median of several providers), hyperscaler_on_demand, "
        "marketplace_on_demand, spot, committed, committed_1yr, committed_3yr, owned_tco "
        "(SemiAnalysis's TCO model). A ranking never mixes bases.",
    ),
]
Price = Annotated[
    str | None,
    typer.Option(
        "--price",
        help="State a profile's price on the chosen basis [USD per GPU-hour], e.g. h100=2.99 "
        "(comma-separated for more).",
    ),
]
UsdPerGpuHour = Annotated[
    float | None,
    typer.Option(
        "--usd-per-gpu-hour",
        "--usd-per-hour",
        help="One price per GPU-hour for every profile, overriding theirs [USD].",
    ),
]
DerivedPrices = Annotated[
    bool,
    typer.Option(
        "--derived-prices",
        help="Also use derived and placeholder prices (a ratio on another part's price, "
        "another part's price): left out unless asked, flagged when used.",
    ),
]
CapexUsdPerGpu = Annotated[
    str | None,
    typer.Option(
        "--capex-usd-per-gpu",
        "--gpu-price-usd",
        help="Owned hardware: purchase price per GPU (server share included) [USD], one figure "
        "or one per profile (h100=30000,b200=40000); prices a GPU-hour by TCO.",
    ),
]
Years = Annotated[
    float | None,
    typer.Option(
        "--years",
        "--amortise-years",
        help="Owned hardware: service life the capex is spread over [years] (default 4).",
    ),
]
PowerKwPerGpu = Annotated[
    float | None,
    typer.Option(
        "--power-kw-per-gpu",
        help="Owned hardware: power per GPU incl. its share of the server [kW] (default: the "
        "profile's board power).",
    ),
]
Pue = Annotated[
    float | None,
    typer.Option(
        "--pue", help="Owned hardware: data-centre power usage effectiveness (default 1.3)."
    ),
]
UsdPerKwh = Annotated[
    float | None,
    typer.Option(
        "--usd-per-kwh", help="Owned hardware: electricity price [USD/kWh] (default 0.10)."
    ),
]

def pricing_of(opts: Mapping[str, object], *, fallback: bool = False, utilisation=None):
    """The ``calc.deploy.pricing.Pricing`` of a command's price options (its ``locals()``)."""
    from calc.deploy.pricing import PRICE_OPTIONS, pricing_from

    given = {k: opts[k] for k in PRICE_OPTIONS if opts.get(k) is not None}
    return pricing_from(**given, utilisation=utilisation, fallback=fallback)
