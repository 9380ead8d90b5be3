"""The one way the commands without an API function (flops, speculate) build their
``Deployment`` from the option groups they were given (``calc.cli.option_groups``):
``calc.deploy.options.build_deployment``, its warnings printed."""

from __future__ import annotations


def deployment_of(model: str, hardware: str | None, fmt: str, options):
    """``build_deployment`` of ``model`` on ``hardware`` with the command's group ``options``
    (a ``calc.cli.option_groups.Options``), after checking ``fmt``; what the build assumed
    printed as warnings (before the error line, when it fails)."""
    from calc.cli.common import check_choice, warn
    from calc.deploy.options import build_deployment
    from calc.output.render import ROW_FORMATS

    check_choice("--format", fmt, ROW_FORMATS)  # jsonl: scalar fields
    notes: list[str] = []
    try:
        return build_deployment(model, hardware, notes=notes, **options.deployment)
    finally:
        warn(notes)
