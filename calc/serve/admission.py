"""The mean time a new request waits before an engine's scheduler takes its prompt in, beyond the
running decode step it arrives in [s], under three scheduler settings that hold requests back on
purpose: SGLang's ``--scheduler-recv-interval``, TensorRT-LLM's batch waiting and its
attention-DP balance.

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

**TensorRT-LLM, ``attention_dp_config: {enable_balance, timeout_iters T, batching_wait_iters
B}``** (off by default; T 50 and B 10 when only ``enable_balance`` is given; all three from
release 1.0, NVIDIA/TensorRT-LLM#6061). Under attention DP each iteration the ranks all-gather
how many context and generation requests their schedulers picked
(``py_executor.py`` ``_balance_adp_requests``, called from ``_schedule`` only with attention DP
and the balance on; the batch wait above is then off). While some rank has no context request
(or one has no free slot) every rank holds its contexts and a shared counter rises by one an
iteration, in iterations with no context anywhere too; the contexts go in once the counter
reaches T, or at once when some rank has no generation request, and the counter restarts.
When every rank has one, the counter restarts and the contexts go in after B more such
iterations (B 0: at once). New requests go only to ranks below the even share of active
requests, the fewest active tokens first (``executor_request_queue.py``
``_balance_requests_across_ranks``, ``expected_num_active_requests``), so in a closed loop a new
request lands on the rank whose request just finished, a rank drawn uniformly among D. From a
release, the arrivals that cover all D ranks number D·H_D on average (the coupon collector,
H_D = 1 + 1/2 + … + 1/D), taking D·H_D / a iterations at a arrivals an iteration. The window
from one release to the next is L = D·H_D / a + B where that is under T, else T; an arrival at
a uniform time in it waits L / 2 on average.

A benchmark of a fixed number of prompts does not reach that steady rate: its c clients send
their first prompts together (every rank takes one, nothing is held) and each sends its next
when its last ends, so round k of the replacements arrives as the sum of k request lifetimes
ends. With outputs drawn uniformly over a spread of w decode steps (``--random-range-ratio``)
that sum spreads over w √k steps (a uniform of the same variance), at most one lifetime (the
loop's cycle, once the rounds have mixed), so round k arrives at a = c / min(w √k, cycle) an
iteration. Checked against an iteration-by-iteration replay of the rule
(bench/adp_balance_replay.py: c clients of 10 prompts, each new request to the rank with the
fewest active, outputs uniform over [0.8, 1] × the output length; 11 cases, D 2-8, c 32-256, 1k
and 8k outputs): the round model is within −23% … +18% of the replay's mean wait, the steady
window alone +13% … +129%.
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


def adp_balance_wait_s(ranks: int, timeout_iters: int, batching_wait_iters: int, step_s: float,
                       arrivals_per_step: float) -> float:  # fmt: skip
    """The mean wait of a new prompt under TensorRT-LLM's attention-DP balance [s] (module
    docstring): half the window L between two releases, L = ``ranks`` · H_ranks / a +
    ``batching_wait_iters`` decode steps of ``step_s`` seconds where the arrivals (a =
    ``arrivals_per_step`` over all ranks) cover every rank within ``timeout_iters``, else
    ``timeout_iters``; 0 for one rank or a timeout of 0 (each iteration releases).

    Example: 8 ranks, T 60, B 0, 0.25 arrivals a step: 8 × H_8 / 0.25 = 8 × 2.718 / 0.25 = 87
    steps > 60, so L = 60 and 20 ms steps wait 60 / 2 × 20 ms = 600 ms.
    """
    if ranks <= 1 or timeout_iters <= 0:
        return 0.0
    a = max(0.0, arrivals_per_step)
    cover = ranks * sum(1.0 / k for k in range(1, ranks + 1)) / a if a > 0 else math.inf
    # (a = inf, arrivals all at once: the ranks are covered at once, cover 0)
    window = cover + batching_wait_iters if cover < timeout_iters else float(timeout_iters)
    return window / 2 * step_s


def adp_balance_rounds_wait_s(ranks: int, timeout_iters: int, batching_wait_iters: int,
                              step_s: float, clients: int, rounds: int, spread_steps: float,
                              cycle_steps: float) -> float:  # fmt: skip
    """The mean wait of a prompt under TensorRT-LLM's attention-DP balance over a closed-loop
    benchmark of ``rounds`` prompts from each of ``clients`` clients [s] (module docstring):
    the first round held by nothing, round k (1 … rounds − 1) arriving at clients /
    min(``spread_steps`` √k, ``cycle_steps``) an iteration, each round's window from
    ``adp_balance_wait_s``; the mean over all rounds' prompts.

    Example: 8 ranks, T 60, B 0, 256 clients of 10 prompts, outputs spread over 205 steps, a
    cycle of 1,024: round 1 arrives at 256 / 205 = 1.25 an iteration, 8 × 2.718 / 1.25 = 17.4
    steps to cover the ranks, a wait of 8.7 steps; … round 9 at 256 / 615 = 0.42, 52 steps, 26.
    """
    total = 0.0
    for k in range(1, max(1, rounds)):
        width = min(spread_steps * math.sqrt(k), cycle_steps)
        rate = clients / width if width > 0 else math.inf
        total += adp_balance_wait_s(ranks, timeout_iters, batching_wait_iters, step_s, rate)
    return total / max(1, rounds)
