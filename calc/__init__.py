"""kvcalc: analytic capacity and cost calculator for LLM inference (import package ``calc``).

The Python API is ``calc.api``, re-exported here: ``import calc as kvcalc`` then
``kvcalc.memory("llama3-70b", ctx=8192, hardware="h100", gpus=4)`` (docs/api.md). It is
imported on first use, so the command line does not pay for it.
"""

__version__ = "0.1.0"

__all__ = [  # the API's public names (calc.api.__all__ is this list less __version__)
    "ConfigError",
    "DeploymentOptions",
    "InvalidInputError",
    "KvcalcError",
    "MissingDependencyError",
    "PlanResult",
    "Report",
    "UnknownNameError",
    "__version__",
    "capacity",
    "check",
    "cost",
    "latency",
    "log",
    "memory",
    "plan",
    "score",
    "simulate",
    "sweep",
    "train",
]


def __getattr__(name: str):
    """The API's names (``calc.api.__all__``), imported on first use."""
    if name in __all__:
        from calc import api

        return getattr(api, name)
    raise AttributeError(f"module 'calc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
