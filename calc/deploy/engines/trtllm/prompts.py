"""TensorRT-LLM's step budget and the longest prompt it accepts [tokens].

With chunked prefill off (``trtllm-serve``'s default) the PyTorch backend refuses, before it
schedules anything, a request whose prompt is longer than ``max_num_tokens``
(``tensorrt_llm/llmapi/llm.py`` ``BaseLLM._check_arguments``: "The sum of prompt length (...),
query length (...) should not exceed max_num_tokens (...)", an HTTP 400 from ``trtllm-serve``;
generation-only requests of a disaggregated decode server are not checked). A prompt under
``max_seq_len`` is otherwise accepted, so a server started with ``--max_seq_len 163840
--max_num_tokens 8192`` refuses every prompt over 8,192 tokens.

kvcalc therefore sizes ``max_num_tokens`` (``EngineConfig.max_batched_tokens``: the profiling
pass, hence the KV pool, the step table and the simulation's whole-prompt limit) to the
deployment's stated max model length (the workload's longest request in ``plan``, or
``--max-model-len``) when chunked prefill is off and the user did not state it; a stated
``--max-batched-tokens`` below that length is kept, with a warning that the engine refuses
the longer prompts. With no max model length stated, the release's default (8,192) stands,
as ``trtllm-serve`` runs it; a start-up log's deployment states the budget its server ran
(``calc.deploy.engines.fromlog``: the log's, else the release's default)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from calc.deploy.deployment import EngineSettings
    from calc.deploy.engines.base import EngineConfig


def refusal(budget: int, max_seq_len: int) -> str:
    """What the engine does to the prompts between ``budget`` and ``max_seq_len`` [tokens]."""
    return (f"with chunked prefill off TensorRT-LLM refuses a prompt over max_num_tokens "
            f"{budget:,} (HTTP 400), though max_seq_len {max_seq_len:,} admits it")  # fmt: skip


def sized_for_prompts(ec: EngineConfig, settings: EngineSettings, default: int) -> EngineConfig:
    """``ec`` with ``max_batched_tokens`` raised to the stated max model length where chunked
    prefill is off and neither the user nor a log stated it (a warning says so); a stated
    budget below that length keeps its value and gets a warning. ``default``: the release's
    max_num_tokens."""
    longest = settings.max_model_len
    if ec.chunked_prefill or longest is None or longest <= ec.max_batched_tokens:
        return ec
    if settings.max_batched_tokens is not None:
        why = (f"max_num_tokens {ec.max_batched_tokens:,} (--max-batched-tokens) is below "
               f"max_seq_len {longest:,} (--max-model-len): "
               f"{refusal(ec.max_batched_tokens, longest)}; raise --max-batched-tokens or "
               "turn on --chunked-prefill")  # fmt: skip
        return replace(ec, warnings=(*ec.warnings, why))
    note = (f"TensorRT-LLM max_num_tokens sized to {longest:,} (the max model length; the "
            f"release's default is {default:,}): {refusal(default, longest)}, so the KV pool "
            "and step times are those of a server that accepts it (--max-batched-tokens or "
            "--chunked-prefill to choose otherwise)")  # fmt: skip
    return replace(ec, max_batched_tokens=int(longest), warnings=(*ec.warnings, note))
