"""kvcalc: analytic capacity and cost calculator for LLM inference (import package ``calc``)."""

__version__ = "0.1.0"
