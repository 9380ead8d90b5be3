"""The typer application: one line per command registers it (commands live in own modules)."""

from __future__ import annotations

import typer

from calc import __version__
from calc.cli import (
    capacity_cmd,
    check_cmd,
    cost_cmd,
    flops_cmd,
    import_hf_cmd,
    latency_cmd,
    listing_cmd,
    measure_cmd,
    memory_cmd,
    plot_cmd,
    speculate_cmd,
    sweep_cmd,
)

app = typer.Typer(
    name="kvcalc",
    help="Capacity and cost calculator for LLM inference: parameters, KV cache, FLOPs, "
    "roofline latency, concurrency and dollars per token, from YAML model configs and "
    "hardware profiles.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kvcalc {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """kvcalc: size, time and price LLM inference before you deploy it."""


app.command("memory")(memory_cmd.memory)
app.command("models")(listing_cmd.models)
app.command("hardware")(listing_cmd.hardware)
app.command("capacity")(capacity_cmd.capacity)
app.command("check")(check_cmd.check)
app.command("cost")(cost_cmd.cost)
app.command("sweep")(sweep_cmd.sweep)
app.command("flops")(flops_cmd.flops)
app.command("latency")(latency_cmd.latency)
app.command("roofline")(latency_cmd.latency)
app.command("import-hf")(import_hf_cmd.import_hf)
app.command("speculate")(speculate_cmd.speculate)
app.command("measure")(measure_cmd.measure)
app.command("plot")(plot_cmd.plot)
