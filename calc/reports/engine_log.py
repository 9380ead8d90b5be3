"""A serving engine's start-up log beside kvcalc's prediction of the same start-up, term by
term [bytes, blocks, tokens, requests]: the log's Deployment is built through the engine wing
(``calc.deploy.engines.fromlog``), and its ledger (the same one ``capacity`` reports) is put
beside each figure the log prints. Error = (predicted − printed) / printed."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from calc.deploy.engines.fromlog import LogDeployment
from calc.errors import InvalidInputError
from calc.output.result import Report


@dataclass(frozen=True)
class LogReport(Report):
    """``kvcalc log``'s result: the log's figures beside the prediction, term by term
    (``rows``: bytes, blocks, tokens, requests); ``figures``: the prediction's derivation."""

    built: LogDeployment | None = field(default=None, repr=False)  # the log's deployment
    prediction: Any = field(default=None, repr=False)  # calc.deploy.engines.base.PoolPrediction

    command = "log"

    @property
    def facts(self):
        """What the log states (calc.deploy.engines.fromlog.LogFacts)."""
        return self.built.facts  # type: ignore[union-attr]


def _row(term: str, unit: str, predicted, printed) -> dict:
    error = None
    if printed not in (None, 0) and predicted is not None:
        error = (predicted - printed) / printed
    return {"term": term, "unit": unit, "predicted": predicted, "printed": printed, "error": error}


def graph_estimate(p) -> float:
    """The CUDA graph estimate the release computes, as its log prints it ('Estimated CUDA
    graph memory') [bytes]: the ledger's ``cuda_graph_bytes`` where the release takes it from
    the budget (vLLM 0.20+), the estimate it leaves in the slack where it only prints it (vLLM
    0.18, 0.19), else ``cuda_graph_bytes`` (0: none computed)."""
    estimate = p.cuda_graph_estimate_bytes
    return p.cuda_graph_bytes if estimate is None else estimate


def log_report(built: LogDeployment) -> LogReport:
    """Each term of ``built``'s start-up (its ledger's prediction) beside the log's figure."""
    dep, facts = built.deployment, built.facts
    p = dep.per_gpu.prediction
    g = facts.printed.get
    # the KV figure the log prints: the budget before paging (vLLM) or the pool allocated
    printed_kv = [k for k in ("kv_budget_bytes", "kv_pool_bytes") if g(k) is not None]
    kv_term = dep.engine_model.kv_term()
    if printed_kv and kv_term not in printed_kv:
        kv_term = printed_kv[0]
    kv_pred = p.kv_budget_bytes if kv_term == "kv_budget_bytes" else p.kv_pool_bytes
    kv_printed = g(kv_term)
    rows = [
        _row("usable_memory", "bytes", p.usable_memory_bytes, g("total_memory_bytes")),
        # the load the log prints holds the RoPE table (vLLM's 'Model loading took', SGLang's
        # 'Load weight end'): the ledger's weights_bytes_per_gpu + rope_table_bytes
        _row("weights", "bytes", p.weights_bytes + p.rope_table_bytes, g("weights_bytes")),
        _row("activation", "bytes", p.activation_bytes, g("activation_bytes")),
        _row("non_torch", "bytes", p.non_torch_bytes, g("non_torch_bytes")),
        _row("cuda_graphs", "bytes", graph_estimate(p), g("cuda_graph_bytes")),
        _row("kv_cache", "bytes", kv_pred, kv_printed),
        _row("blocks", "blocks", p.num_blocks, g("blocks")),
        _row("tokens", "tokens", p.printed_tokens, g("tokens")),
        _row("max_concurrency", "requests", p.max_concurrency, g("max_concurrency")),
    ]
    ec = dep.engine_config
    fields = {
        "engine": facts.engine,
        "engine_version_printed": facts.version,
        "engine_version_modelled": ec.version,
        "engine_version_asked": ec.version_unmodelled,
        "model": dep.model.name,
        "hardware": dep.hardware.name,
        "tp": dep.tp,
        "pp": dep.pp,
        "memory_fraction": p.memory_fraction,
        "max_model_len": p.max_model_len,
        "kv_bytes_per_token_per_gpu": p.kv_bytes_per_token,
        "terms": rows,
    }
    warnings = list(built.warnings) + list(p.warnings) + _version_given(built)
    per_token = _per_token_warning(g("kv_pool_bytes"), g("tokens"), p.kv_bytes_per_token, dep)
    if per_token:
        warnings.append(per_token)
    return LogReport(fields, p.figures, warnings, rows, dep, built=built, prediction=p)


def _version_given(built: LogDeployment) -> list[str]:
    """A warning when --engine-version chose a release other than the one the log prints."""
    from calc.deploy.engines.versions import parse_version

    printed, ec = built.facts.version, built.deployment.engine_config
    if not printed or parse_version(printed) is None:
        return []
    release = built.deployment.engine_model.versions.resolve(printed).release
    if release == ec.version:
        return []
    return [f"the log prints {built.facts.engine} {printed}; predicted with {ec.version} "
            "(--engine-version)"]  # fmt: skip


# the log's pool bytes per token against kvcalc's beyond which the cache is another one: a
# format of another width (fp8 against bf16: x 2) or another layout, never GiB rounding
PER_TOKEN_TOLERANCE = 0.25


def _per_token_warning(pool_bytes, tokens, modelled_bytes: float, dep) -> str | None:
    """A warning where the pool the log prints (``pool_bytes`` for ``tokens``, TensorRT-LLM's
    and SGLang's allocation lines) holds a token in other bytes than the cache kvcalc sized:
    the tokens compared then measure the format, not the budget (an fp8 cache the log does not
    name, sized as bf16, is -50%)."""
    if not pool_bytes or not tokens or not modelled_bytes:
        return None
    printed = pool_bytes / tokens
    if abs(printed / modelled_bytes - 1) <= PER_TOKEN_TOLERANCE:
        return None
    return (
        f"the log's KV pool holds a token in {printed:,.0f} B ({pool_bytes / 2**30:.2f} GiB for "
        f"{tokens:,.0f} tokens), kvcalc's {dep.kv_dtype} cache in {modelled_bytes:,.0f} B: the "
        "log's cache is in another format or layout, so the tokens compare formats; give "
        "--kv-dtype (and --weight-dtype) as the server ran"
    )


def log_file_report(file: Path, *, engine=None, engine_version=None, calibration=None,
                    save_calibration=None, tp=None, pp=None, activation=None, overhead=None,
                    **given) -> LogReport:  # fmt: skip
    """The report of the log at ``file`` (``-``: stdin) with the options it does not state
    (``calc.api.log``'s: ``given`` holds model, hardware, weight_dtype, kv_dtype, mem_util,
    max_model_len, max_batched_tokens, max_num_seqs, block_size, compile_cache, moe_backend;
    ``activation`` and ``overhead``: sizes as "2GiB" or bytes, over a calibration's);
    ``calibration``: engine overheads a former ``save_calibration`` wrote, predicted with;
    ``save_calibration``: where to write this log's overheads (refused before the log is
    read if it cannot be written or is the calibration it reads)."""
    from calc.deploy.engines import engine_name
    from calc.deploy.engines.fromlog import deployment_from_log

    engine = None if engine is None else engine_name(engine)
    for flag, value in (("--tp", tp), ("--pp", pp)):
        if value is not None and not 0 < value <= 4096:
            raise InvalidInputError(f"{flag} must be an integer in 1..4,096, got {value}")
    if save_calibration is not None:
        from calc.output.render import check_output_path, check_yaml_output

        check_output_path(Path(save_calibration), "--save-calibration")
        check_yaml_output(save_calibration, "--save-calibration")
        if calibration is not None and same_file(Path(save_calibration), Path(calibration)):
            raise InvalidInputError(
                f"--save-calibration {save_calibration} is the --calibration file it reads; "
                "give it another path"
            )
    from calc.data.units import parse_bytes

    sizes = {flag: None if v is None else parse_bytes(v, flag)
             for flag, v in (("--activation", activation), ("--overhead", overhead))}  # fmt: skip
    facts = _facts(file, engine)
    cal = _overheads(calibration, facts.engine)
    if cal is not None:
        sizes["--activation"] = sizes["--activation"] or cal.activation_bytes
        sizes["--overhead"] = sizes["--overhead"] or cal.non_torch_bytes
    built = deployment_from_log(
        facts, version=engine_version, tp=tp, pp=pp, **given,
        activation_bytes=sizes["--activation"], overhead_bytes=sizes["--overhead"],
    )  # fmt: skip
    dep = built.deployment
    report = log_report(built)
    if cal is not None and (cal.hardware, cal.tp) != (dep.hardware.name, dep.tp):
        report = replace_warnings(report, [
            f"--calibration {calibration} was measured on {cal.hardware} at TP {cal.tp}, "
            f"not {dep.hardware.name} at TP {dep.tp}: its overheads may not apply"
        ])  # fmt: skip
    said = _release_note(calibration, cal, dep)
    if said:
        report = replace_warnings(report, [said])
    if save_calibration is not None:
        try:
            _save(Path(save_calibration), report, file)
        except InvalidInputError as exc:  # the report's warnings are said before the error
            exc.warnings = report.warnings  # type: ignore[attr-defined]
            raise
    return report


def replace_warnings(report: LogReport, first: list[str]) -> LogReport:
    """``report`` with the warnings ``first`` said before its own."""
    from dataclasses import replace

    return replace(report, warnings=(*first, *report.warnings))


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (existing or not)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except (OSError, ValueError):
        return str(a) == str(b)


def _facts(path: Path, engine: str | None):
    """The log's facts, streamed from ``path`` (a regular file) or from stdin for ``-``: one
    clear error, naming the file, for anything else."""
    from calc.deploy.engines.fromlog import read_log, read_log_file

    if str(path) == "-":
        from calc.output.safe_io import piped_stdin

        stream = piped_stdin("a start-up log", "kvcalc log - < startup.log")
        try:
            return read_log(stream, engine)
        except InvalidInputError as exc:
            raise InvalidInputError(f"stdin: {exc}") from None
    return read_log_file(path, engine)


def _release_note(calibration, cal, dep) -> str | None:
    """A warning where the ``--calibration`` file's engine release (recorded) is not the
    log's, as modelled releases: its overheads were another release's."""
    if cal is None or cal.engine_version is None:
        return None
    from calc.deploy.engines.versions import parse_version

    ec = dep.engine_config
    if parse_version(cal.engine_version) is None:
        return None
    theirs = dep.engine_model.versions.resolve(cal.engine_version).release
    if theirs == ec.version:
        return None
    return (f"--calibration {calibration} was measured on {dep.engine_model.title} "
            f"{cal.engine_version}, this log is {ec.version_asked or ec.version}: its overheads "
            "may not apply")  # fmt: skip


def _overheads(calibration, engine: str):
    """The engine overheads of a ``--calibration`` file (None without one), measured on
    ``engine``."""
    if calibration is None:
        return None
    from calc.data.calibration import load_engine_overheads

    cal = load_engine_overheads(calibration)
    if cal.engine != engine:
        raise InvalidInputError(
            f"--calibration {calibration} was measured on {cal.engine}, this log is {engine}"
        )
    return cal


def _save(path: Path, report: LogReport, file: Path) -> None:
    """The log's measured activation and non-torch memory, written for later predictions."""
    from calc.data.calibration import EngineOverheads, save_engine_overheads

    printed = report.facts.printed
    act, non_torch = printed.get("activation_bytes"), printed.get("non_torch_bytes")
    if act is None and non_torch is None:
        raise InvalidInputError(
            f"--save-calibration: {file} prints no activation or non-torch memory to save "
            "(vLLM prints both in its 'Memory profiling takes' line)"
        )
    f = report.fields
    save_engine_overheads(
        path,
        EngineOverheads(
            kind="kvcalc-engine-calibration",
            engine=f["engine"],
            engine_version=report.facts.version or f["engine_version_modelled"],
            hardware=f["hardware"],
            tp=f["tp"],
            pp=f["pp"],
            model=f["model"],
            activation_bytes=None if act is None else round(act),
            non_torch_bytes=None if non_torch is None else round(non_torch),
            source=str(file),
            created=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        ),
    )
