"""The option groups of the commands (deployment, engine, prices), generated from their one
declaration (``calc.deploy.options.OPTION_SPECS``, ``calc.cli.price_options.PRICE``):
a decorator adds a group's options to a command's signature, where typer reads them, and
hands the command the values given as one ``Options`` object."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any

import typer

from calc.deploy.options import OPTION_SPECS, Option

# a command's parameters that say how to print its result: the groups go before them
RENDER_OPTIONS = ("fmt", "output", "explain", "report_file")

_BY_NAME = {s.name: s for s in OPTION_SPECS}
ENGINE_NAMES = (
    "engine", "engine_version", "mem_util", "block_size", "max_batched_tokens", "max_num_seqs",
    "activation", "overhead", "max_model_len", "chunked_prefill", "prefix_cache", "allreduce",
    "moe_a2a", "cuda_graphs", "moe_backend", "compile_cache", "rocm_kernels",
    "scheduler_recv_interval", "batch_wait_iters", "batch_wait_ratio", "mamba_ssm_dtype",
    "max_mamba_cache_size", "max_prefill_tokens",
)  # fmt: skip
# the model's placement and number formats, the step-time options and the calibration
DEPLOYMENT = tuple(s for s in OPTION_SPECS if s.name not in ENGINE_NAMES)
# the serving engine's settings (calc.deploy.deployment.EngineSettings)
ENGINE = tuple(_BY_NAME[n] for n in ENGINE_NAMES)


def specs(*names: str) -> tuple[Option, ...]:
    """The deployment options ``names``, declared in OPTION_SPECS."""
    return tuple(_BY_NAME[n] for n in names)


def without(group: Iterable[Option], *names: str) -> tuple[Option, ...]:
    """``group`` less the options ``names`` (a command where they mean nothing)."""
    missing = set(names) - {s.name for s in group}
    if missing:
        raise ValueError(f"not in the group: {sorted(missing)}")
    return tuple(s for s in group if s.name not in names)


def annotated(spec: Option) -> Any:
    """The typer annotation of ``spec``: its type, flags and help."""
    slashed = any("/" in a for a in spec.aliases)
    decls = spec.aliases if slashed else (spec.flag, *spec.aliases)
    if spec.hidden:
        return Annotated[spec.type, typer.Option(*decls, help=spec.help, hidden=True)]
    return Annotated[spec.type, typer.Option(*decls, help=spec.help)]


class Options(Mapping):  # a plain class: a dataclass costs start-up time to define
    """The group options a command was given, by name (every one, its default where not
    given); ``deployment`` those ``calc.api``'s functions take as ``**deployment``."""

    __slots__ = ("values",)

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.values = dict(values)

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def __iter__(self):
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def pick(self, names: Iterable[str]) -> dict[str, Any]:
        """The values of ``names`` that this command has."""
        return {n: self.values[n] for n in names if n in self.values}

    @property
    def deployment(self) -> dict[str, Any]:
        """The deployment and engine options (``calc.deploy.options.DeploymentOptions``)."""
        return self.pick(_BY_NAME)

    @property
    def prices(self) -> dict[str, Any]:
        """The price options (``calc.cli.price_options.PRICE``)."""
        from calc.cli.price_options import PRICE

        return self.pick(s.name for s in PRICE)


def with_options(*groups: Iterable[Option]) -> Callable:
    """Decorator: the command's typer signature gains the options of ``groups`` (before its
    render options, in the groups' order); the command, declaring a keyword-only ``options``
    parameter, receives them as one ``Options``."""
    added = [s for g in groups for s in g]

    def wrap(command: Callable) -> Callable:
        hints = typing.get_type_hints(command, include_extras=True)
        own = [
            p.replace(annotation=hints.get(p.name, p.annotation), kind=p.KEYWORD_ONLY)
            for p in inspect.signature(command).parameters.values()
            if p.name != "options"
        ]
        clash = {p.name for p in own} & {s.name for s in added}
        if clash:
            raise TypeError(f"{command.__name__} declares group options itself: {sorted(clash)}")
        at = next((i for i, p in enumerate(own) if p.name in RENDER_OPTIONS), len(own))
        generated = [
            inspect.Parameter(s.name, inspect.Parameter.KEYWORD_ONLY, default=s.default,
                              annotation=annotated(s))
            for s in added
        ]  # fmt: skip
        params = [*own[:at], *generated, *own[at:]]
        defaults = {s.name: s.default for s in added}

        @functools.wraps(command)
        def run(**given):
            options = Options({n: given.pop(n, d) for n, d in defaults.items()})
            return command(**given, options=options)

        run.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        return run

    return wrap
