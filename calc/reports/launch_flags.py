"""The launch commands of a deployment, as its engine's wing builds them
(``calc.deploy.engines``: one command per server, node or role, each valid for the engine
release's parser), and their fields and text for a report. The values are kvcalc's own
(the deployment's sharding, its resolved engine settings and its ledger's memory fraction), so
the commands and the figures describe the same servers."""

from __future__ import annotations

from calc.deploy.deployment import Deployment
from calc.deploy.engines.base import Command
from calc.deploy.engines.launch import LaunchPlan
from calc.errors import InvalidInputError


def launch_commands(
    dep: Deployment,
    *,
    replicas: int = 1,
    max_model_len: int | None = None,
    prefill: int = 0,
    decode: int = 0,
) -> list[Command]:
    """The commands that start ``dep`` as ``replicas`` independent servers, or as ``prefill``
    + ``decode`` disaggregated servers, for requests of at most ``max_model_len`` tokens."""
    why = dep.engine_model.cannot_load(dep)  # a release older than the model cannot run it
    if why is not None:
        raise InvalidInputError(why)
    plan = LaunchPlan(replicas=replicas, max_model_len=max_model_len, prefill=prefill,
                      decode=decode)  # fmt: skip
    return dep.engine_model.launch(dep, plan)


def command_lines(commands: list[Command]) -> list[str]:
    """The commands as text for a terminal: each role, then its command on one line (never
    wrapped: a shell joins nothing), then the files it reads and its notes."""
    lines: list[str] = []
    for c in commands:
        times = f" × {c.count}" if c.count > 1 else ""
        gpus = f", {c.gpus} GPU{'s' if c.gpus > 1 else ''}" if c.gpus else ""
        lines.append(f"# {c.role}{times}{gpus}")
        lines.append(c.text())
        for name, text in c.files:
            lines.append(f"# {name}:")
            lines += [f"#   {x}" for x in text.splitlines()]
        lines += [f"# note: {n}" for n in c.notes]
    return lines


def parse_launch(argv: list[str]) -> dict:
    """The flags of a launch command as {flag: value} (a bare flag: True); the positional
    words before the first flag under '_' (read back by the tests)."""
    out: dict = {"_": []}
    i = 0
    while i < len(argv):
        word = argv[i]
        if word.startswith("--"):
            if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                out[word] = argv[i + 1]
                i += 2
                continue
            out[word] = True
        else:
            out["_"].append(word)
        i += 1
    return out
