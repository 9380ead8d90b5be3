"""Steady-state serving throughput of a deployment under load [tokens/s per GPU]: continuous
batching with chunked prefill, the engine's cap on sequences and its KV pool, prefill and
decode sharing the GPU, and pipelined micro-batches under PP.

The engine serves requests of ``prompt`` input and ``gen`` output tokens at maximum load (an
offline benchmark: trtllm-bench throughput, vLLM's benchmark_throughput). In steady state:

- **concurrency**: each sequence group (a replica, or an attention-DP rank inside an expert
  group) holds n = min(max_num_seqs, sequences of prompt + gen tokens its KV pool holds)
  sequences. The pool is reserved for the whole request, prompt + gen tokens, as TensorRT-LLM's
  default GUARANTEED_NO_EVICT scheduler does (and as vLLM needs to avoid preemption). The
  deployment holds n × groups; a replica's step processes n × dp_attn of them.
- **one cycle** serves every sequence of a replica once from its first prompt token to its last
  output token. Its time is the prefill of the replica's prompts plus its decode steps; the two
  share the GPU (chunked prefill puts prompt chunks into the decode steps' batches), so their
  times add (the weights a mixed step reads once are a small part of a compute-bound
  prefill chunk; adding is the conservative side).
- **chunked prefill**: a step holds at most ``max_batched_tokens`` (M) tokens, so prompts of
  P ≤ M tokens are prefilled k = min(n, floor(M / P)) at a time, in n / k chunks of k prompts;
  a prompt longer than M is prefilled one at a time (its chunks attend to the cached prefix:
  the same FLOPs as one prefill of P tokens). Under attention data parallelism every rank
  runs its own scheduler with its own budget M_rank (``Engine.rank_batched_tokens``: M for
  TensorRT-LLM's PyExecutor per rank and vLLM's data-parallel engine cores, M / dp_attn for
  SGLang, which divides its chunked_prefill_size among the ranks): k = min(n,
  floor(M_rank / P)) prompts on each of the replica's dp_attn ranks, k × dp_attn a step, in
  n / k chunks.
- **decode tokens in the budget** (TensorRT-LLM and vLLM, ``Engine.decode_in_token_budget``;
  TensorRT-LLM's ``microBatchScheduler.cpp`` charges each running generation request one token
  against max_num_tokens before the context requests it admits, vLLM's V1
  ``v1/core/sched/scheduler.py`` takes the running requests' tokens from its token_budget
  before the waiting ones; SGLang only with --enable-mixed-chunk, off): a step holding k
  prompts of P ≤ M tokens also holds the n − k other sequences' decode tokens (n per
  pipeline micro-batch), so k × P + n − k ≤ M: k = floor((M − n) / (P − 1)), at least 1.
  Without chunked prefill (TensorRT-LLM's default), where not one prompt fits beside the
  n − 1 decodes a freed slot waits until enough sequences finish: the group holds at most
  M − P + 1 sequences (``budget_concurrency``); with it (vLLM's default) the prompt is
  chunked into what the decodes leave. A prompt longer than M (chunked) is unchanged.
- **decode**: the gen − 1 steps after the prefill (which gives the first token) at contexts
  P + 1 … P + gen − 1; a step's time is affine in its context (the KV read grows by one token
  per step), so their sum is (gen − 1) × TPOT(ctx = P + gen / 2), the mean context.
- **host time**: every step also waits for the engine's host work not hidden behind the GPU
  (``calc.deploy.host_costs``: per step, and per sequence in the step), added to the step's
  GPU time; an engine loop that runs beside the GPU's step (TensorRT-LLM's overlap scheduler:
  ``loop_sequence_s`` per sequence of a rank, scaled to the profile's ``host_cpu``) makes a
  decode step max(GPU time, the loop) before that; a request's front-end time (HTTP,
  tokenisation) runs beside the engine and costs no throughput.
- **padded CUDA graphs** (where the run states them, ``graph_batch_sizes``): TensorRT-LLM
  replays a decode-only step in the smallest captured graph holding each rank's batch, padded
  with dummy requests (not beyond max_batch_size; a size asked beyond min(max_batch_size,
  max_num_tokens) is replaced by that bound); its GEMMs, MoE layer and collectives run at
  the padded batch, attention at the real one. The share (n / k) / (gen − 1) of decode steps
  that also hold a prefill chunk is not decode-only and runs unpadded.
- **CUDA graphs** (the engine's declared capture list, ``Engine.cuda_graph_batch_sizes``, or
  the run's stated padded ``graph_batch_sizes``): a decode-only step whose per-rank batch has
  no graph (unpadded: not itself a captured size, TensorRT-LLM's default 1-31, 32, 64, 128;
  padded: beyond the largest) is launched kernel by kernel and takes max(its GPU time, kernels
  × 28.8 µs) (``calc.serve.graphs``); with decode-only graphs a step holding a prompt chunk
  does too: the pass of the chunk and the running sequences' decode tokens takes max(their GPU
  time, its launch), so the chunk costs max(chunk, launch − decode step). Engines that
  declare a threshold instead (vLLM, SGLang) are timed as replays.
- **pipeline parallelism**: ``step_of`` times a token through all pp stages (a latency). Under
  load the stages work on different micro-batches at once, so every piece of work costs its
  all-stage time / pp: decode runs the replica's sequences as pp micro-batches of
  ceil(n / pp), one round of all micro-batches per token, taking ceil(n / micro) ×
  TPOT(micro) / pp; prefill chunks likewise take their time / pp.

Then, per GPU of a deployment of G GPUs (``groups`` sequence groups, each n sequences):

    output tokens/s per GPU = n × groups × gen / cycle / G
    input tokens/s per GPU  = n × groups × prompt / cycle / G
    USD per million tokens  = usd_per_hour / 3600 / (tokens/s per GPU) × 10^6

with the whole GPU time charged to the output tokens (``..._output_tokens_serving``) or to all
tokens, prompt and output (``..._tokens_serving``). The formula functions take plain numbers or
numpy arrays (they broadcast).
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.deploy.deployment import Deployment

SECONDS_PER_HOUR = 3600


# ---------------------------------------------------------------------------------------------
# Formulas (plain numbers or numpy arrays)


def concurrency_per_group(max_num_seqs, pool_sequences):
    """Sequences one sequence group holds at steady state: min(engine cap, KV pool) [seqs]."""
    import numpy as np

    return np.minimum(max_num_seqs, pool_sequences)


def prompts_per_chunk(prompt, max_batched_tokens, sequences):
    """Prompts one chunked-prefill step holds: min(n, floor(M / P)), at least 1 [prompts]."""
    import numpy as np

    return np.maximum(1, np.minimum(sequences, max_batched_tokens // prompt))


def budget_concurrency(sequences, prompt, max_batched_tokens):
    """Sequences a step holds when its decode tokens count against M: a prompt of P ≤ M
    tokens joins beside at most M − P decodes: min(n, M − P + 1), at least 1; n for P > M
    [seqs]."""
    import numpy as np

    cap = np.maximum(1, max_batched_tokens - prompt + 1)
    return np.where(prompt <= max_batched_tokens, np.minimum(sequences, cap), sequences)


def budget_prompts_per_chunk(prompt, max_batched_tokens, sequences):
    """Prompts one step holds beside the other sequences' decode tokens: k × P + (n − k) ≤ M,
    k = floor((M − n) / (P − 1)) within [1, n] (n for P = 1); 1 for P > M [prompts]."""
    import numpy as np

    room = np.maximum(max_batched_tokens - sequences, 0)
    k = np.floor_divide(room, np.maximum(prompt - 1, 1))
    k = np.where(prompt <= 1, sequences, k)
    return np.where(prompt <= max_batched_tokens, np.clip(k, 1, np.maximum(sequences, 1)), 1)


def micro_batch(sequences, pp):
    """Sequences of one pipeline micro-batch: ceil(n / pp) [seqs]."""
    return -(-sequences // pp)


def decode_cycle_s(gen, tpot_mean_ctx_s, n_micro, pp):
    """Decode time of one cycle [s]: (gen − 1) × n_micro × TPOT(micro, P + gen / 2) / pp."""
    return (gen - 1) * n_micro * tpot_mean_ctx_s / pp


def prefill_cycle_s(sequences, per_chunk, chunk_s, pp):
    """Prefill time of one cycle [s]: n / k chunks × chunk time / pp."""
    return sequences / per_chunk * chunk_s / pp


def mixed_step_share(sequences, per_chunk, gen):
    """Share of a cycle's decode steps that also hold a prefill chunk: (n / k) / (gen − 1), at
    most 1 (0 for gen 1) [fraction]. Such a step is not decode-only: TensorRT-LLM runs it
    without its (padded) decode graphs."""
    import numpy as np

    steps = np.maximum(gen - 1, 1)
    return np.where(gen > 1, np.minimum(1.0, sequences / per_chunk / steps), 0.0)


def eager_step_s(gpu_s, launch_s):
    """A step launched kernel by kernel [s]: max(its GPU time, the CPU's launch time); the
    launches run ahead of the GPU asynchronously (``calc.serve.graphs``)."""
    import numpy as np

    return np.maximum(gpu_s, launch_s)


def launch_s(step) -> float:
    """The CPU time to launch a pass's kernels one by one [s]: ``Op.kernels`` summed over its
    ops × ``calc.serve.graphs.EAGER_LAUNCH_S`` (whatever its batch: the kernel count is)."""
    import numpy as np

    from calc.serve.graphs import eager_issue_s

    return eager_issue_s(sum(float(np.max(op.kernels)) for op in step.raw))


def tokens_per_s_per_gpu(sequences, tokens_per_sequence, cycle_s, gpus):
    """Tokens/s per GPU: sequences × tokens each / cycle time / GPUs."""
    return sequences * tokens_per_sequence / cycle_s / gpus


def usd_per_million_tokens(usd_per_hour_per_gpu, tokens_per_s_per_gpu):
    """Price of a million tokens [USD]: usd_per_hour / 3600 / (tokens/s) × 10^6."""
    return usd_per_hour_per_gpu / SECONDS_PER_HOUR / tokens_per_s_per_gpu * 1e6


# ---------------------------------------------------------------------------------------------
# Over a deployment

KEYS = (
    "serving_concurrency",
    "serving_cycle_s",
    "serving_output_tokens_per_s_per_gpu",
    "serving_input_tokens_per_s_per_gpu",
)
PRICE_KEYS = ("usd_per_million_output_tokens_serving", "usd_per_million_tokens_serving")


@dataclass(frozen=True)
class Serving:
    """Steady-state figures (numbers, or arrays shaped as prompt and gen broadcast)."""

    concurrency: object  # sequences in flight, whole deployment
    prefill_s: object  # prefill time of one cycle [s]
    decode_s: object  # decode time of one cycle [s]
    output_tokens_per_s_per_gpu: object
    input_tokens_per_s_per_gpu: object

    @property
    def cycle_s(self):
        return self.prefill_s + self.decode_s

    def fields(self, usd_per_hour: float | None = None) -> dict:
        out = {
            "serving_concurrency": self.concurrency,
            "serving_cycle_s": self.cycle_s,
            "serving_output_tokens_per_s_per_gpu": self.output_tokens_per_s_per_gpu,
            "serving_input_tokens_per_s_per_gpu": self.input_tokens_per_s_per_gpu,
        }
        if usd_per_hour is not None:
            out["usd_per_million_output_tokens_serving"] = usd_per_million_tokens(
                usd_per_hour, self.output_tokens_per_s_per_gpu
            )
            out["usd_per_million_tokens_serving"] = usd_per_million_tokens(
                usd_per_hour, self.output_tokens_per_s_per_gpu + self.input_tokens_per_s_per_gpu
            )
        return out


def serving_gen(prompt, ctx, gen=None):
    """Output tokens of a request: ``gen`` where given, else ctx − prompt, at least 1."""
    import numpy as np

    if gen is not None:
        return gen
    if np.ndim(prompt) == 0 and np.ndim(ctx) == 0:
        return max(1, int(ctx) - int(prompt))
    return np.maximum(1, ctx - prompt)


def serving_throughput(
    dep: Deployment,
    *,
    prompt,
    gen,
    efficiency: str = "expected",
    max_concurrency=None,
    host=None,
    graph_batch_sizes=None,
) -> Serving | None:
    """Steady-state throughput of ``dep`` serving requests of ``prompt`` + ``gen`` tokens
    (numbers or arrays that broadcast). None (scalars) when not one sequence fits; arrays
    give NaN there. ``max_concurrency`` (sequences per sequence group, a number or an array
    that broadcasts) caps the load below the engine's own, as a benchmark client's
    concurrency does. ``host``: the engine's host costs (default: ``dep``'s engine and
    version, ``calc.deploy.host_costs``). ``graph_batch_sizes``: the decode CUDA graphs the
    engine captured with padding on (ascending, sequences per rank), each decode step replayed
    in the smallest that holds it (``calc.deploy.steps.padded_decode_s``); None: no padding."""
    import numpy as np

    if host is None:
        host = dep.engine_model.host_costs(dep.engine_config.host_release, pp=dep.pp)

    scalar = np.ndim(prompt) == 0 and np.ndim(gen) == 0 and np.ndim(max_concurrency) == 0
    p = np.asarray(prompt, dtype=np.float64)
    g = np.asarray(gen, dtype=np.float64)
    cap = np.asarray(np.inf if max_concurrency is None else max_concurrency, dtype=np.float64)
    p, g, cap = np.broadcast_arrays(p, g, cap)
    ec = dep.engine_config
    pool = np.asarray(dep.per_gpu.max_sequences_per_gpu((p + g).astype(np.int64)))
    n_group = np.minimum(concurrency_per_group(ec.max_num_seqs, pool), cap).astype(np.float64)
    fits = n_group >= 1
    n_group = np.where(fits, n_group, 1.0)
    pp = dep.pp
    dp = dep.sharding.dp_attn
    m_rank = dep.engine_model.rank_batched_tokens(ec, dp)
    budget = dep.engine_model.decode_in_token_budget
    if budget and not ec.chunked_prefill:  # a whole prompt waits for M − P decodes or fewer
        n_group = np.minimum(n_group, budget_concurrency(n_group / pp, p, m_rank) * pp)
    local = n_group * dep.sharding.dp_attn  # sequences one replica steps together
    micro = micro_batch(local, pp)
    n_micro = np.ceil(local / micro)
    # each attention-DP rank schedules its own step (its engine's share of M tokens): a
    # replica's prefill step holds k prompts on every one of its dp_attn ranks
    if budget:
        k = budget_prompts_per_chunk(p, m_rank, np.ceil(n_group / pp)) * dp
    else:
        k = prompts_per_chunk(p, m_rank, n_group) * dp
    gpu_s, chunk_gpu_s = _graph_step_s(dep, efficiency, micro, k, p, g, local,
                                       graph_batch_sizes)  # fmt: skip
    # the engine loop overlapped with the GPU's step (calc.deploy.host_costs): each rank runs
    # its own, over its local / dp sequences a round of the n_micro micro-batches, while each
    # stage computes n_micro × gpu_s / pp: a step's share is local / dp × pp / n_micro of them
    host = host.for_host_cpu(dep.hardware.host_cpu if dep.hardware is not None else None)
    tpot = host.step_s(gpu_s, micro, local / dp * pp / n_micro)
    decode_s = decode_cycle_s(g, tpot, n_micro, pp)
    chunk_s = chunk_gpu_s + host.step_host_s(k)
    prefill_s = prefill_cycle_s(local, k, chunk_s, pp)
    cycle = prefill_s + decode_s
    total = local * dep.replicas
    out_tps = tokens_per_s_per_gpu(total, g, cycle, dep.gpus)
    in_tps = tokens_per_s_per_gpu(total, p, cycle, dep.gpus)
    if scalar:
        if not bool(fits):
            return None
        return Serving(int(total), float(prefill_s), float(decode_s), float(out_tps), float(in_tps))
    nan = np.nan
    return Serving(
        np.where(fits, total, 0).astype(np.int64),
        np.where(fits, prefill_s, nan),
        np.where(fits, decode_s, nan),
        np.where(fits, out_tps, nan),
        np.where(fits, in_tps, nan),
    )


def _graph_step_s(dep: Deployment, efficiency, micro, k, p, g, local, graph_batch_sizes):
    """(the decode step, a prefill chunk of k prompts) on the GPU [s] as the engine's CUDA
    graphs run them (module docstring): the run's stated ``graph_batch_sizes`` padded, else the
    engine's declared default list unpadded, else (a threshold engine) as replays."""
    import numpy as np

    from calc.deploy.steps import captured_batch_sizes, padded_batch, padded_decode_s, step_of
    from calc.formulas.cuda_graphs import replays_graph
    from calc.serve.graphs import decode_only

    ec = dep.engine_config
    dp = dep.sharding.dp_attn
    step = step_of(dep, efficiency, batch=micro, ctx=p + g / 2)
    gpu_s = step.time_s
    chunk = step_of(dep, efficiency, batch=k, prompt=p)
    chunk_gpu_s = chunk.time_s
    padding = graph_batch_sizes is not None
    if padding:  # the run's stated graphs, padded
        sizes = captured_batch_sizes(graph_batch_sizes, ec.max_num_seqs, ec.max_batched_tokens)
    else:  # the engine's declared default graphs, unpadded (None: its threshold, not here)
        sizes = dep.engine_model.cuda_graph_batch_sizes(dep)
    if sizes is None:
        return gpu_s, chunk_gpu_s
    # a decode-only step without its graph, and (decode-only graphs) a step holding a prompt,
    # is launched kernel by kernel
    replay = replays_graph(micro / dp, sizes, padding)
    if decode_only(dep):  # one pass: the chunk and the other sequences' decode tokens
        chunk_gpu_s = eager_step_s(chunk_gpu_s, launch_s(chunk) - gpu_s)
    gpu_s = np.where(replay, gpu_s, eager_step_s(gpu_s, launch_s(step)))
    if padding:  # each rank's batch padded to its next captured graph
        padded = padded_batch(micro / dp, sizes, ec.max_num_seqs) * dp
        pad_s = padded_decode_s(dep, efficiency, batch=micro, padded=padded, ctx=p + g / 2)
        pad_s = np.where(replay, pad_s, gpu_s)
        mixed = mixed_step_share(local, k, g)  # the steps holding a prompt run unpadded
        gpu_s = mixed * gpu_s + (1 - mixed) * pad_s
    return gpu_s, chunk_gpu_s


def serving_fields(dep: Deployment, *, prompt, gen, efficiency="expected", usd_per_hour=None):
    """The report keys (``KEYS``, and ``PRICE_KEYS`` with a price) at one operating point;
    None values when not one sequence fits."""
    s = serving_throughput(dep, prompt=prompt, gen=gen, efficiency=efficiency)
    if s is None:
        keys = KEYS + (PRICE_KEYS if usd_per_hour is not None else ())
        return dict.fromkeys(keys)
    return s.fields(usd_per_hour)
