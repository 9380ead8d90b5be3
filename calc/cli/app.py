"""The typer application: one line per command names the module and function that run it.

Commands are registered lazily: ``build_app(["memory"])`` imports and inspects only the
command being run (typer inspects every registered signature at start-up, ~1.5 ms each),
while ``app`` (or ``build_app()``) has them all, for `kvcalc --help`, the CLI reference and
the tests.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module

import typer

from calc import __version__

# command name -> (module under calc.cli, function); one line per command.
COMMANDS: dict[str, tuple[str, str]] = {
    "memory": ("memory_cmd", "memory"),
    "models": ("listing_cmd", "models"),
    "hardware": ("listing_cmd", "hardware"),
    "capacity": ("capacity_cmd", "capacity"),
    "check": ("check_cmd", "check"),
    "cost": ("cost_cmd", "cost"),
    "sweep": ("sweep_cmd", "sweep"),
    "flops": ("flops_cmd", "flops"),
    "latency": ("latency_cmd", "latency"),
    "roofline": ("latency_cmd", "latency"),
    "import-hf": ("import_hf_cmd", "import_hf"),
    "speculate": ("speculate_cmd", "speculate"),
    "measure": ("measure_cmd", "measure"),
    "plot": ("plot_cmd", "plot"),
    "log": ("log_cmd", "log"),
    "train": ("train_cmd", "train"),
    "simulate": ("simulate_cmd", "simulate"),
    "plan": ("plan_cmd", "plan"),
    "score": ("score_cmd", "score"),
}

HELP = (
    "Capacity and cost calculator for LLM inference: parameters, KV cache, FLOPs, "
    "roofline latency, concurrency and dollars per token, from YAML model configs and "
    "hardware profiles."
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kvcalc {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """kvcalc: size, time and price LLM inference before you deploy it."""


def build_app(names: Iterable[str] | None = None) -> typer.Typer:
    """The kvcalc app with the commands ``names`` (default: all of them, in order)."""
    app = typer.Typer(
        name="kvcalc",
        help=HELP,
        no_args_is_help=True,
        # the completion options belong to `kvcalc` alone: not built to run a command
        add_completion=names is None,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    app.callback()(_root)
    for name in COMMANDS if names is None else names:
        module, func = COMMANDS[name]
        app.command(name)(getattr(import_module(f"calc.cli.{module}"), func))
    return app


def __getattr__(name: str) -> typer.Typer:
    if name == "app":  # the full app, built on first use
        globals()["app"] = full = build_app()
        return full
    raise AttributeError(name)
