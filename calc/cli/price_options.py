"""The price options of ``plan``, ``cost`` and ``train``, declared once: the basis, stated
prices, and the owned hardware's TCO (capex [USD], years, power [kW], PUE, USD per kWh);
``calc.cli.option_groups.with_options(PRICE)`` makes them a command's typer options."""

from __future__ import annotations

from collections.abc import Mapping

from calc.deploy.options import Option

# in calc.deploy.pricing.PRICE_OPTIONS' order (tests/test_options.py)
PRICE = (
    Option(
        "price_basis", str, "neocloud_on_demand",
        "Which price of a GPU-hour: neocloud_on_demand (the default: a dated list price "
        "for most profiles, the median of several providers), hyperscaler_on_demand, "
        "marketplace_on_demand, spot, committed, committed_1yr, committed_3yr, owned_tco "
        "(SemiAnalysis's TCO model). A ranking never mixes bases.",
    ),
    Option(
        "price", str | None, None,
        "State a profile's price on the chosen basis [USD per GPU-hour], e.g. h100=2.99 "
        "(comma-separated for more).",
    ),
    Option(
        "usd_per_gpu_hour", float | None, None,
        "One price per GPU-hour for every profile, overriding theirs [USD].",
        ("--usd-per-hour",),
    ),
    Option(
        "derived_prices", bool, False,
        "Also use derived and placeholder prices (a ratio on another part's price, "
        "another part's price): left out unless asked, flagged when used.",
    ),
    Option(
        "capex_usd_per_gpu", str | None, None,
        "Owned hardware: purchase price per GPU (server share included) [USD], one figure "
        "or one per profile (h100=30000,b200=40000); prices a GPU-hour by TCO.",
        ("--gpu-price-usd",),
    ),
    Option(
        "years", float | None, None,
        "Owned hardware: service life the capex is spread over [years] (default 4).",
        ("--amortise-years",),
    ),
    Option(
        "power_kw_per_gpu", float | None, None,
        "Owned hardware: power per GPU incl. its share of the server [kW] (default: the "
        "profile's board power).",
    ),
    Option("pue", float | None, None,
           "Owned hardware: data-centre power usage effectiveness (default 1.3)."),
    Option("usd_per_kwh", float | None, None,
           "Owned hardware: electricity price [USD/kWh] (default 0.10)."),
)  # fmt: skip


def pricing_of(opts: Mapping[str, object], *, fallback: bool = False, utilisation=None):
    """The ``calc.deploy.pricing.Pricing`` of a command's price options (by name)."""
    from calc.deploy.pricing import PRICE_OPTIONS, pricing_from

    given = {k: opts[k] for k in PRICE_OPTIONS if opts.get(k) is not None}
    return pricing_from(**given, utilisation=utilisation, fallback=fallback)
