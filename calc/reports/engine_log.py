"""A serving engine's start-up log beside kvcalc's prediction of the same start-up, term by
term [bytes, blocks, tokens, requests]: the log's Deployment is built through the engine wing
(``calc.deploy.engines.fromlog``), and its ledger (the same one ``capacity`` reports) is put
beside each figure the log prints. Error = (predicted − printed) / printed."""

from __future__ import annotations

from dataclasses import dataclass

from calc.deploy.engines.fromlog import LogDeployment


@dataclass(frozen=True)
class LogReport:
    """The log's figures beside the prediction, term by term (bytes, tokens)."""

    built: LogDeployment
    prediction: object  # calc.deploy.engines.base.PoolPrediction
    rows: list[dict]
    fields: dict
    warnings: list[str]

    @property
    def facts(self):
        return self.built.facts


def _row(term: str, unit: str, predicted, printed) -> dict:
    error = None
    if printed not in (None, 0) and predicted is not None:
        error = (predicted - printed) / printed
    return {"term": term, "unit": unit, "predicted": predicted, "printed": printed, "error": error}


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
        _row("weights", "bytes", p.weights_bytes, g("weights_bytes")),
        _row("activation", "bytes", p.activation_bytes, g("activation_bytes")),
        _row("non_torch", "bytes", p.non_torch_bytes, g("non_torch_bytes")),
        _row("cuda_graphs", "bytes", p.cuda_graph_bytes, g("cuda_graph_bytes")),
        _row("kv_cache", "bytes", kv_pred, kv_printed),
        _row("blocks", "blocks", p.num_blocks, g("blocks")),
        _row("tokens", "tokens", p.tokens, g("tokens")),
        _row("max_concurrency", "requests", p.max_concurrency, g("max_concurrency")),
    ]
    ec = dep.engine_config
    fields = {
        "engine": facts.engine,
        "engine_version_printed": facts.version,
        "engine_version_modelled": ec.version,
        "model": dep.model.name,
        "hardware": dep.hardware.name,
        "tp": dep.tp,
        "pp": dep.pp,
        "memory_fraction": p.memory_fraction,
        "max_model_len": p.max_model_len,
        "kv_bytes_per_token_per_gpu": p.kv_bytes_per_token,
        "terms": rows,
    }
    warnings = list(built.warnings) + list(p.warnings)
    return LogReport(built, p, rows, fields, warnings)
