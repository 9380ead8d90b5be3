"""The one way the commands without an API function (flops, speculate, plot) build their
``Deployment`` from the shared deployment options (``calc.cli.options`` and
``calc.cli.deploy_options``): ``calc.deploy.options.build_deployment``, its warnings printed."""

from __future__ import annotations


def deployment_of(options: dict, **extra):
    """``build_deployment`` from a command's parameters (``locals()``): the deployment options
    it has, by name, so every command passes the same options the same way; what the build
    assumed printed as warnings (before the error line, when it fails)."""
    from calc.cli.common import check_choice, warn
    from calc.deploy.options import OPTION_NAMES, build_deployment
    from calc.output.render import ROW_FORMATS

    check_choice("--format", options.get("fmt", "table"), ROW_FORMATS)  # jsonl: scalar fields
    given = {k: options[k] for k in OPTION_NAMES if k in options}
    notes: list[str] = []
    try:
        return build_deployment(given.pop("model"), given.pop("hardware", None), notes=notes,
                                **given, **extra)  # fmt: skip
    finally:
        warn(notes)
