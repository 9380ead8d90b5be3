"""The engine wing: everything kvcalc knows about each serving engine (vLLM, SGLang,
TensorRT-LLM), one sub-package per engine behind one interface (``base.Engine``): its releases
and the rules of each (defaults, start-up memory accounting, KV paging, scheduler policy, host
costs, launch commands, start-up log). Nothing outside this package branches on an engine's
name (tests/test_engine_wing.py); every other module asks ``engine(name)``.

``calc.deploy.engines.fromlog.deployment_from_log`` builds a Deployment from a start-up log.
"""

from __future__ import annotations

from calc.deploy.engines.base import Engine, EngineConfig, PoolPrediction
from calc.deploy.host_costs import HostCosts
from calc.errors import InvalidInputError, UnknownNameError

NAMES = ("vllm", "sglang", "trtllm")
# the names users give each engine, lower case without "-", "_", "." or spaces (TensorRT-LLM
# calls itself "TensorRT-LLM" and "TRT-LLM"; its server is trtllm-serve)
ALIASES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "trtllm", "tensorrtllm": "trtllm",
           "tensorrt": "trtllm", "trt": "trtllm"}  # fmt: skip


def engine_name(text: str, flag: str = "--engine") -> str:
    """kvcalc's name of the engine a user names (``ALIASES``: "TRT-LLM", "tensorrt" ->
    trtllm); any other name is an InvalidInputError naming the nearest engine."""
    import difflib

    key = "".join(c for c in str(text).strip().lower() if c not in "-_. ")
    if key in ALIASES:
        return ALIASES[key]
    shown = repr(text) if len(str(text)) <= 60 else f"{str(text)[:40]!r}…"
    near = difflib.get_close_matches(key[:60], list(ALIASES), n=1, cutoff=0.0)
    hint = f"; did you mean {ALIASES[near[0]]!r}?" if near else ""  # as calc.errors.not_one_of
    raise InvalidInputError(f"{flag} {shown} is not one of: {', '.join(NAMES)}{hint}")


def engine(name: str) -> Engine:
    """The engine called ``name`` (vllm, sglang, trtllm)."""
    if name == "vllm":
        from calc.deploy.engines.vllm import ENGINE
    elif name == "sglang":
        from calc.deploy.engines.sglang import ENGINE
    elif name == "trtllm":
        from calc.deploy.engines.trtllm import ENGINE
    else:
        raise UnknownNameError("engine", name, NAMES)
    return ENGINE


def all_engines() -> list[Engine]:
    return [engine(n) for n in NAMES]


def host_costs(name: str, version: str | None = None, frontend: str = "api") -> HostCosts:
    """The host costs of the engine called ``name`` at ``version`` (None: the latest) behind
    ``frontend`` (``Engine.host_costs``; the figures: ``calc.deploy.host_costs``)."""
    return engine(name).host_costs(version, frontend)


def moe_kernels(name: str, weight_format: str | None, release: str | None = None) -> int:
    """Kernels of one MoE layer under the engine called ``name`` (at ``release``; None: its
    newest) with experts in ``weight_format`` (its ``Engine.moe`` pipeline,
    ``calc.deploy.moe_pipeline``)."""
    return engine(name).moe.kernels_for(weight_format, release)


__all__ = [
    "NAMES",
    "Engine",
    "EngineConfig",
    "PoolPrediction",
    "all_engines",
    "engine",
    "engine_name",
    "host_costs",
    "moe_kernels",
]
