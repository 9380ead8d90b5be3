"""`kvcalc log`: an engine's start-up log beside kvcalc's prediction of the same start-up."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from calc.cli import options as o
from calc.cli.option_groups import annotated, specs

# the engine settings a log may omit, from the declared option table (calc.deploy.options)
(MemUtil, MaxModelLen, MaxBatchedTokens, MaxNumSeqs, BlockSize, Activation, Overhead,
 CompileCache, MoeBackend) = map(
    annotated,
    specs("mem_util", "max_model_len", "max_batched_tokens", "max_num_seqs", "block_size",
          "activation", "overhead", "compile_cache", "moe_backend"),
)  # fmt: skip


def _table(report, title: str):
    from rich.console import Group

    from calc.output.render import kv_table, rows_table, signed_percent

    def cell(unit: str, value):
        if value is None:
            return ""
        if unit == "bytes":
            return f"{value / 2**30:,.2f} GiB"
        if unit == "requests":
            return f"{value:,.2f}"
        return f"{value:,.0f}"

    rows = [
        {
            "term": r["term"],
            "predicted": cell(r["unit"], r["predicted"]),
            "printed": cell(r["unit"], r["printed"]),
            "error": "" if r["error"] is None else signed_percent(r["error"], 2),
        }
        for r in report.rows
    ]
    head = {k: v for k, v in report.fields.items() if k != "terms"}
    return Group(kv_table(head, title), rows_table(rows, "Predicted vs printed (GiB = 2^30 B)"))


# long: its typer options are declared in its signature (issue 27 item 2 generates them)
def log(
    file: Annotated[
        Path, typer.Argument(help="Start-up log of vLLM, SGLang or TensorRT-LLM ('-': stdin).")
    ],
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="kvcalc model of the log (name, YAML or config.json path); default: the "
            "shipped model whose source repository the log's model id names.",
        ),
    ] = None,
    hardware: Annotated[
        str | None,
        typer.Option(
            "--hardware",
            "-H",
            help="GPU profile; default: the profile whose memory the log prints, else h100.",
        ),
    ] = None,
    tp: Annotated[int | None, typer.Option("--tp", help="TP size if the log does not say.")] = None,
    pp: Annotated[int | None, typer.Option("--pp", help="PP size if the log does not say.")] = None,
    engine: Annotated[
        str | None, typer.Option("--engine", help="vllm, sglang or trtllm (default: detected).")
    ] = None,
    engine_version: Annotated[
        str | None,
        typer.Option(
            "--engine-version",
            help="Engine release whose rules apply (default: the one the log prints, else the "
            "newest modelled).",
        ),
    ] = None,
    weight_dtype: o.WeightDtype = None,
    kv_dtype: Annotated[
        str | None,
        typer.Option("--kv-dtype", help="KV cache dtype if the log does not say (auto, fp8)."),
    ] = None,
    mem_util: MemUtil = None,
    max_model_len: MaxModelLen = None,
    max_batched_tokens: MaxBatchedTokens = None,
    max_num_seqs: MaxNumSeqs = None,
    block_size: BlockSize = None,
    activation: Activation = None,
    overhead: Overhead = None,
    compile_cache: CompileCache = None,
    moe_backend: MoeBackend = None,
    calibration: Annotated[
        Path | None,
        typer.Option(
            "--calibration",
            help="Engine overheads saved by `kvcalc log --save-calibration` to predict with.",
        ),
    ] = None,
    save_calibration: Annotated[
        Path | None,
        typer.Option(
            "--save-calibration",
            help="Write the log's activation and non-torch memory to this YAML for later "
            "predictions on the same engine, GPU and TP.",
        ),
    ] = None,
    fmt: o.Format = "table",
    output: o.Output = None,
    explain: o.Explain = False,
) -> None:
    """Read an engine start-up log; show its memory figures beside kvcalc's prediction.

    The log's Deployment is built through the engine wing, as every command builds one: its
    settings over the engine release's defaults (a warning names each default taken). Each
    term (usable memory, weights, activation peak, non-torch memory, CUDA graphs, KV cache,
    blocks, tokens, max concurrency) is predicted from the settings only, never from the
    printed figures, and shown with the error (predicted − printed) / printed. A setting the
    log omits (or states wrongly) is given by its option (--tp, --mem-util, --max-model-len,
    --max-batched-tokens, --max-num-seqs, --block-size, --compile-cache, --moe-backend;
    --activation and --overhead replace the modelled terms); the warning names the option for
    each default taken.

    Example: kvcalc log vllm-startup.log --hardware h100
    """
    from calc.api import log as run
    from calc.cli.common import check_choice, emit_report
    from calc.errors import InvalidInputError
    from calc.output.render import FORMATS
    from calc.reports.engine_log import same_file

    check_choice("--format", fmt, FORMATS)
    if save_calibration is not None and output is not None and same_file(save_calibration, output):
        raise InvalidInputError(
            f"--save-calibration and --output are the same file ({save_calibration}): the "
            "report would overwrite the calibration; give them different paths"
        )
    report = run(
        file, model=model, hardware=hardware, tp=tp, pp=pp, engine=engine,
        engine_version=engine_version, weight_dtype=weight_dtype, kv_dtype=kv_dtype,
        calibration=calibration, save_calibration=save_calibration, mem_util=mem_util,
        max_model_len=max_model_len, max_batched_tokens=max_batched_tokens,
        max_num_seqs=max_num_seqs, block_size=block_size, activation=activation,
        overhead=overhead, compile_cache=compile_cache, moe_backend=moe_backend,
    )  # fmt: skip
    dep, facts = report.deployment, report.facts
    name = "stdin" if str(file) == "-" else file.name
    title = f"{facts.engine} start-up log {name}: {dep.model.display_name} on {dep.hardware.name}"
    emit_report(report, fmt, output, title=title, table=lambda: _table(report, title),
                explain=explain)  # fmt: skip
