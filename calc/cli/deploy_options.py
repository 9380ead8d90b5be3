"""Options several commands share beside the deployment and engine groups (those are declared
once in calc.deploy.options.OPTION_SPECS and added by calc.cli.option_groups)."""

from __future__ import annotations

from typing import Annotated

import typer

SharedPrefix = Annotated[
    int | None,
    typer.Option("--shared-prefix", help="Prompt tokens every one of --users shares."),
]
Users = Annotated[
    int | None, typer.Option("--users", help="Sequences sharing the --shared-prefix.")
]
UsdPerHour = Annotated[
    float | None,
    typer.Option("--usd-per-hour", help="Price per GPU-hour, overriding the profile's."),
]
Prompt = Annotated[
    int | None,
    typer.Option("--prompt", help="Prompt tokens (TTFT and input cost; default: --ctx)."),
]
MaxTpotMs = Annotated[
    float | None,
    typer.Option("--max-tpot-ms", help="Latency target: time per output token [ms]."),
]
MaxTtftMs = Annotated[
    float | None,
    typer.Option("--max-ttft-ms", help="Latency target: time to first token [ms]."),
]
Efficiency = Annotated[
    str,
    typer.Option(
        "--efficiency",
        help="Which achievable fraction of peak to use: peak|low|expected|high.",
    ),
]
