"""The mean time a new request waits before an engine's scheduler takes its prompt in, beyond the
running decode step it arrives in [s], under two scheduler settings that hold requests back on
purpose: SGLang's ``--scheduler-recv-interval`` and TensorRT-LLM's batch waiting.

**SGLang, ``--scheduler-recv-interval N``** (default 1). The scheduler reads new requests from
the tokenizer's socket only when a weighted count of the forwards since its last read reaches N
(sgl-project/sglang ``python/sglang/srt/managers/scheduler_recv_skipper.py``
``SchedulerRecvSkipper.handle``: a decode or target-verify forward weighs 1, an idle loop 1, any
other forward, a prefill among them, 1000). At light load the forwards are decodes, so requests
are read every N decode steps. A request sent at a time uniform over that cycle waits N / 2 steps
for the next read, where a read every step leaves it 1 / 2: (N − 1) / 2 steps more. The option
does not apply with attention data parallelism (the skipper asserts it off).

**TensorRT-LLM, ``batch_wait_timeout_iters T`` with ``batch_wait_max_tokens_ratio r``** (both 0
by default, off). When the scheduler has context requests beside running generation requests and
the tokens it would schedule (the prompts' tokens plus one a generation request) stay below
r × ``max_num_tokens``, the contexts are held back and a counter rises by one a step; they go in
once it reaches T or the tokens reach the threshold, and the counter restarts (NVIDIA/
TensorRT-LLM ``tensorrt_llm/_torch/pyexecutor/py_executor.py`` ``_waiting_requests``, called from
``_schedule`` only without attention DP and with generation requests running). A prompt that
arrives alone waits T decode steps. Prompts arriving during a wait join it: with a arrivals a
step (the running sequences finish and are replaced every cycle), a wait opened by one prompt
holds 1 + a T on average, the first T steps, the later ones T / 2 on average; the mean is
T (1 + a T / 2) / (1 + a T). When the prompts of a full wait would reach the threshold, the wait
closes at the arrival that reaches it, after (m − 1) / a steps for m = ⌈threshold / prompt⌉.
"""

from __future__ import annotations

import math


def recv_interval_wait_s(interval: int, step_s: float) -> float:
    """The extra mean wait of a request under SGLang's ``--scheduler-recv-interval`` [s]:
    (interval − 1) / 2 decode steps of ``step_s`` seconds (module docstring); 0 at interval 1.

    Example: interval 10, 8 ms steps: (10 − 1) / 2 × 8 ms = 36 ms.
    """
    return max(0, interval - 1) / 2 * step_s


def batch_wait_s(timeout_iters: int, step_s: float, arrivals_per_step: float, prompt: int,
                 threshold_tokens: float) -> float:  # fmt: skip
    """The mean wait of a prompt of ``prompt`` tokens under TensorRT-LLM's batch waiting [s]
    (module docstring): ``timeout_iters`` decode steps of ``step_s`` seconds for a prompt that
    arrives alone, less when ``arrivals_per_step`` other prompts join the wait, and none when
    one prompt alone reaches ``threshold_tokens`` (batch_wait_max_tokens_ratio ×
    max_num_tokens) or the option is off (``timeout_iters`` 0).

    Example: 20 iterations, 10 ms steps, a 1,024-token prompt alone: 20 × 10 ms = 200 ms.
    """
    if timeout_iters <= 0 or prompt >= threshold_tokens:
        return 0.0
    t = float(timeout_iters)
    a = max(0.0, arrivals_per_step)
    if a > 0:
        m = math.ceil(threshold_tokens / prompt)  # prompts that fill the threshold
        t = min(t, (m - 1) / a)
    return t * (1 + a * t / 2) / (1 + a * t) * step_s
