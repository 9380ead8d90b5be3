"""Options several commands share beside the deployment, engine and price groups (those are
declared once in calc.deploy.options.OPTION_SPECS and calc.cli.price_options.PRICE and added by
calc.cli.option_groups), declared the same way: name, type, default, help."""

from __future__ import annotations

from calc.cli.option_groups import annotated
from calc.deploy.options import Option

USD_PER_HOUR = Option("usd_per_hour", float | None, None,
                      "Price per GPU-hour, overriding the profile's.")  # fmt: skip
EFFICIENCY = Option("efficiency", str, "expected",
                    "Which achievable fraction of peak to use: peak|low|expected|high.")
SharedPrefix, Users, UsdPerHour, Prompt, MaxTpotMs, MaxTtftMs, Efficiency = map(
    annotated,
    (
        Option("shared_prefix", int | None, None, "Prompt tokens every one of --users shares."),
        Option("users", int | None, None, "Sequences sharing the --shared-prefix."),
        USD_PER_HOUR,
        Option("prompt", int | None, None, "Prompt tokens (TTFT and input cost; default: --ctx)."),
        Option("max_tpot_ms", float | None, None, "Latency target: time per output token [ms]."),
        Option("max_ttft_ms", float | None, None, "Latency target: time to first token [ms]."),
        EFFICIENCY,
    ),
)  # fmt: skip
