"""`kvcalc import-hf`: convert a Hugging Face config.json into a kvcalc model YAML."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer


def import_hf(
    config: Annotated[
        str,
        typer.Argument(
            help="Path to a Hugging Face config.json or a snapshot folder holding one, or "
            "hf:org/name (needs the hf extra)."
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the YAML here (atomically); default stdout."),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Model name (default: the folder or file name).")
    ] = None,
    source: Annotated[
        str | None, typer.Option("--source", help="Upstream URL to record as `source:`.")
    ] = None,
) -> None:
    """Convert a Hugging Face config.json into a model YAML, validated before writing. The
    architecture is read from the config's keys (layer types, attention kind: GQA, MLA,
    sparse attention, gated DeltaNet, Mamba; MoE shape; MTP); an unknown model_type is read
    the same way, with a warning naming each assumption. Multimodal configs add their vision
    tower; quantization_config (or a snapshot's ModelOpt hf_quant_config.json) becomes
    per-component weight formats (weight_dtypes) and the KV dtype it asks for.

    Example: kvcalc import-hf path/to/config.json -o my-model.yaml
    """
    from calc.data.hf_import import load_hf_config, load_hf_model, to_yaml
    from calc.output.render import check_yaml_output, write_atomic
    from calc.output.safe_io import check_output
    from calc.output.safe_text import printable

    if output is not None:
        check_output(output)  # before any work
    if config.startswith("hf:"):
        cfg = load_hf_model(config)
        if name or source:
            cfg = replace(
                cfg,
                **{
                    k: v
                    for k, v in (("name", name), ("display_name", name), ("source", source))
                    if v
                },
            )
    else:
        cfg = load_hf_config(config, name=name, source=source)
    from calc.cli.common import warn_model

    warn_model(cfg)
    text = to_yaml(cfg)
    if output is None:
        typer.echo(text, nl=False)
        return
    check_output(output)  # again, the config now read: an output onto it says so first
    check_yaml_output(output, "--output")
    write_atomic(output, text)  # all or nothing: a failed conversion never touches output
    typer.echo(printable(f"wrote {output} ({cfg.name}: {cfg.n_layers} layers)"), err=True)
