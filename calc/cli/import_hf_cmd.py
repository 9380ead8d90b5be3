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
    """Convert a Hugging Face config.json (llama, llama4, mistral, mistral3, mixtral, phi3,
    qwen2/3(+moe), deepseek_v2/v3, gemma2/3, gpt_oss, jamba, nemotron_h, falcon) into a model
    YAML, validated before writing. Multimodal configs add their vision tower;
    quantization_config becomes per-component weight formats (weight_dtypes).

    Example: kvcalc import-hf path/to/config.json -o my-model.yaml
    """
    from calc.data.hf_import import load_hf_config, load_hf_model, to_yaml
    from calc.output.render import write_atomic
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
    text = to_yaml(cfg)
    if output is None:
        typer.echo(text, nl=False)
        return
    write_atomic(output, text)  # all or nothing: a failed conversion never touches output
    typer.echo(printable(f"wrote {output} ({cfg.name}: {cfg.n_layers} layers)"), err=True)
