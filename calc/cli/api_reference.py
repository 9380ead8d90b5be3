"""Generates the Python API reference (docs/api.md) from the API's own docstrings and
signatures, each argument's help from the option of the same name in the command's ``--help``
(one text for both) and each result's outputs from the name registry (docs/names.md).

Run: python -m calc.cli.api_reference > docs/api.md   (a test checks the file is current)
"""

from __future__ import annotations

import inspect
from dataclasses import fields


def cli_options(command: str) -> dict[str, object]:
    """The click parameters of ``kvcalc COMMAND`` by their Python names."""
    import typer.main

    from calc.cli.app import build_app

    group = typer.main.get_command(build_app([command]))
    return {p.name: p for p in group.commands[command].params}  # type: ignore[attr-defined]


def _flag(param) -> str:
    opts = [o for o in getattr(param, "opts", []) if o.startswith("--")]
    return f"`{opts[0]}`" if opts else "argument"


def _help(param) -> str:
    return " ".join((getattr(param, "help", None) or "").split()).replace("|", "\\|")


def _default(value) -> str:
    if value is inspect.Parameter.empty:
        return "required"
    return f"`{value!r}`"


def deployment_defaults() -> dict[str, object]:
    """``DeploymentOptions``' defaults: ``build_deployment``'s, the engine's options those of
    ``EngineSettings.from_options``."""
    from calc.deploy.deployment import EngineSettings
    from calc.deploy.options import OPTIONS, build_deployment

    params = {
        **inspect.signature(build_deployment).parameters,
        **inspect.signature(EngineSettings.from_options).parameters,
    }
    return {k: params[k].default for k in OPTIONS}


def _params_table(fn, command: str) -> list[str]:
    help_of = cli_options(command)
    rows = ["| argument | default | CLI option | meaning |", "| --- | --- | --- | --- |"]
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind is p.VAR_KEYWORD:
            rows.append(f"| `**{name}` | | | {_var_keyword(fn, name)} |")
            continue
        cli = help_of.get(name)
        flag, text = (_flag(cli), _help(cli)) if cli is not None else ("—", "(API only)")
        rows.append(f"| `{name}` | {_default(p.default)} | {flag} | {text} |")
    return rows


def _var_keyword(fn, name: str) -> str:
    hint = str(inspect.signature(fn).parameters[name].annotation)
    if "DeploymentOptions" in hint:
        return "the deployment options (`DeploymentOptions`, below)"
    return "see the description above"


def _deployment_section() -> list[str]:
    from calc.deploy.options import OPTIONS

    help_of = cli_options("simulate") | cli_options("memory")
    out = [
        "## DeploymentOptions\n",
        "The deployment options of `memory`, `capacity`, `latency`, `cost` and `simulate` "
        "(and, as documented there, `score` and `sweep`), keyword arguments by the CLI's "
        "names; an unknown name is refused with the closest ones "
        "(`calc.errors.UnknownNameError`).\n",
        "| argument | default | CLI option | meaning |",
        "| --- | --- | --- | --- |",
    ]
    defaults = deployment_defaults()
    for name in OPTIONS:
        cli = help_of.get(name)
        flag, text = (_flag(cli), _help(cli)) if cli is not None else ("—", _api_only(name))
        out.append(f"| `{name}` | {_default(defaults[name])} | {flag} | {text} |")
    return out


def _api_only(name: str) -> str:
    """The meaning of a deployment option no command declares yet: the comment beside its key
    in ``DeploymentOptions`` (API only)."""
    from calc.deploy.options import DeploymentOptions

    return f"{_field_note(DeploymentOptions, name)} (API only)"


def _report_section() -> list[str]:
    from calc.output.result import Report

    out = ["## Report\n", inspect.getdoc(Report) or "", "",
           inspect.getdoc(inspect.getmodule(Report)) or "", "",
           "| attribute | meaning |", "| --- | --- |"]  # fmt: skip
    for f in fields(Report):
        out.append(f"| `{f.name}` | {_field_note(Report, f.name)} |")
    for name, member in inspect.getmembers(Report, inspect.isfunction):
        if not name.startswith("_"):
            doc = " ".join((inspect.getdoc(member) or "").split())
            out.append(f"| `{name}{inspect.signature(member)}` | {doc} |")
    return out


def _field_note(cls, name: str) -> str:
    """The comment beside a dataclass field in its source (its meaning and unit)."""
    src = inspect.getsource(cls)
    for line in src.splitlines():
        stripped = line.strip()
        if stripped.startswith(f"{name}:") and "#" in stripped:
            return stripped.split("#", 1)[1].strip().replace("|", "\\|")
    return ""


def _errors_section() -> list[str]:
    from calc import api

    out = ["## Errors\n", "Bad input raises one of these (``calc.errors``), with the one line "
           "the CLI prints after `kvcalc: error:`; warnings said before it are in its "
           "``warnings`` attribute.\n", "| error | when |", "| --- | --- |"]  # fmt: skip
    for name in api.__all__:
        obj = getattr(api, name)
        if isinstance(obj, type) and issubclass(obj, api.KvcalcError):
            out.append(f"| `{name}` | {' '.join((inspect.getdoc(obj) or '').split())} |")
    return out


def _outputs(command: str) -> str:
    from calc.output.names import NAMES

    keys = [k for k, n in NAMES.items() if command in n.commands]
    return ", ".join(f"`{k}`" for k in keys)


def reference() -> str:
    from calc import api

    out = [
        "# kvcalc Python API\n",
        "Generated from the docstrings by `python -m calc.cli.api_reference > docs/api.md`; a "
        "test fails when it is out of date. Arguments mean what the CLI option of the same "
        "name means (docs/cli.md); outputs are the keys of docs/names.md.\n",
        inspect.getdoc(api) or "",
        "",
        "Public names (`calc.__all__`, `calc.api.__all__`): "
        + ", ".join(f"`{n}`" for n in api.__all__)
        + ".\n",
    ]
    for name in api.JOBS:
        fn = getattr(api, name)
        out += [f"## {name}\n", "```python", f"calc.{name}{_signature(fn)}", "```\n",
                inspect.getdoc(fn) or "", "", *_params_table(fn, name), ""]  # fmt: skip
        result = _result_class(fn)
        out += [f"Returns `{result.__name__}`: {' '.join(inspect.getdoc(result).split())} "
                f"Its outputs (docs/names.md): {_outputs(name)}.\n"]  # fmt: skip
    out += [*_deployment_section(), "", *_report_section(), "", *_errors_section(), ""]
    return "\n".join(out).rstrip() + "\n"


def _signature(fn) -> str:
    sig = inspect.signature(fn)
    parts = []
    star = False
    for p in sig.parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        elif p.default is p.empty:
            parts.append(p.name)
        else:
            parts.append(f"{p.name}={p.default!r}")
    ret = sig.return_annotation
    return f"({', '.join(parts)}) -> {ret if isinstance(ret, str) else ret.__name__}"


def _result_class(fn):
    """The class ``fn`` returns (its return annotation, resolved in calc.api's imports)."""
    from typing import get_type_hints

    import calc.api as api

    ns = {}
    for module in ("capacity", "check_spec", "cost", "engine_log", "latency", "memory",
                   "score_report", "sweep_io"):  # fmt: skip
        ns.update(vars(__import__(f"calc.reports.{module}", fromlist=["_"])))
    ns.update(vars(__import__("calc.serve.report", fromlist=["_"])))
    ns.update(vars(__import__("calc.training.report", fromlist=["_"])))
    ns.update(vars(api))
    return get_type_hints(fn, globalns=ns).get("return")


if __name__ == "__main__":
    print(reference(), end="")
