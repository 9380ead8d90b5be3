"""The time of one continuous-batching iteration [s] of a sequence group, from a small table of
vectorised ``calc.deploy.steps.step_of`` calls (calling ``step_of`` per iteration would be far
too slow for a simulation).

An iteration is one forward pass over ``n`` tokens: ``b`` decode tokens (one per running
sequence, sequence i attending to c_i keys, C = Σ c_i) and prefill chunks (chunk j: k_j new
prompt tokens after h_j tokens already cached). ``step_of``'s ops split into three parts:

- **token ops** (everything but attention, lm_head and sampler: embedding, norms, the QKV,
  output and FFN GEMMs, the collectives, SSM layers): a function of the tokens in the pass
  only, tabulated exactly for every n in 0 … max_batched_tokens:
  ``L[n] = Σ non-attention op times of step_of(batch = n × dp_attn, ctx = 1)``;
- **lm_head and sampler**: the rows that get logits (every decode token, and the last token of
  each prompt that completes in this pass), tabulated ``H[r]`` for r = 0 … rows;
- **attention**: at decode memory-bound (the KV read), so affine in the attended keys for a
  given batch, ``a_b + γ_b × C``, a_b and γ_b from step_of at two contexts for every batch b
  (so an efficiency that varies with the batch is kept); α, the attention kernels' fixed
  cost, is a_b extrapolated to b = 0 from batches 1 and 2; at prefill a chunk's attention is the
  attention of a prompt of h + k tokens less that of h tokens (the causal pairs of the
  chunk's queries),
  ``Ap(h + k) − Ap(h)`` with ``Ap(p)`` = the attention ops of step_of(batch = dp_attn,
  prompt = p) less α, tabulated on a geometric grid of p and interpolated linearly (Ap is
  quadratic in p; on a grid of ratio 1.15 the interpolation error is below 0.3%).

So ``time = L[n] + H[rows] + a_b + γ_b C + Σ_j (Ap(h_j + k_j) − Ap(h_j))`` (α in place of
a_b + γ_b C without decode tokens). It equals
``step_of`` exactly for a decode step of any batch and context where the attention is memory
bound (``tests/test_serve_steptime.py``: within 0.5%) and for one prefill of p ≤ max batched
tokens (within 0.5% off the grid, exact on it); a mixed step reads the weights once (the token
ops see b + Σk tokens), as a real engine's fused pass does. Sliding-window layers make decode
attention sub-linear in C beyond the window; γ is taken below it (an upper bound).

Host time (``calc.deploy.host_costs``): every iteration also waits for the engine's host work
not hidden behind the GPU, ``per_step + per_sequence × sequences`` (the decode sequences and
the prompts with a chunk in the pass), added to the GPU time above; an engine loop that runs
beside the GPU's step (TensorRT-LLM's overlap scheduler, ``loop_s`` per sequence on the
profile's host CPU, × pp stages: each rank's loop serves every micro-batch) makes the iteration
max(its GPU time, the loop) before that (``loop_floor_s``: a decode stretch runs one iteration
at a time while the loop binds, the closed form beyond); each request's front-end time before
the engine sees it (HTTP, tokenisation) is ``request_s(prompt)``, which the simulation adds to
its TTFT.

CUDA graphs (``calc.serve.graphs``): a pass larger than the largest batch the engine captured
(``graph_tokens``), or outside the list it declares (TensorRT-LLM's ``graph_sizes``), or
(decode-only graphs: TensorRT-LLM, SGLang before its prefill graphs) with a prompt chunk, runs
eagerly: the CPU launches each of the pass's kernels itself, ``eager_s`` = kernels ×
``EAGER_LAUNCH_S``, and the GPU waits where that is longer than its own work. Such a pass takes
``max(G0, eager_s) + γ_b C + host`` with G0 the pass's time less its decode attention's γ_b C
(its token ops, lm_head rows, a_b or α and the chunks' attention): the issue time takes the
place of the context-free work it hides, and the KV read, growing with the context, still
follows (an upper bound by at most γ_b C, which keeps a decode stretch affine in the keys, as
the simulation sums it). ``eager_s`` is per pipeline stage (each stage's CPU launches its own
layers). An eager pass with a prompt chunk issues at least the engine's measured host time per
layer where it has one (``eager_prefill_s``: SGLang's DeepSeek-V3 layer, 1.355 ms,
``calc.deploy.host_costs.EAGER_MLA_MOE_LAYER_S``; on a Hopper GPU 2.03 ms,
``EAGER_MLA_MOE_LAYER_SM90_S``).

Pipeline parallelism: ``step_of`` times a token through all stages; an iteration of one
micro-batch takes that whole time (the simulation keeps pp micro-batches in flight,
``calc.serve.simulate``). Attention data parallelism inside an expert group (ep > tp): each rank
is one sequence group, stepped in lockstep with equally loaded peers (batch × dp_attn).
"""

from __future__ import annotations

import bisect
import math
import sys
from dataclasses import dataclass

from calc.deploy.deployment import Deployment
from calc.deploy.host_costs import NONE, HostCosts

# grid ratio of the prefill-attention table (see the module docstring)
PREFILL_GRID_RATIO = 1.15
PREFILL_MEMO_MAX = 65536  # prompt lengths whose Ap(p) a table keeps at most


@dataclass(frozen=True, eq=False)
class StepTable:
    """Iteration time [s] of one sequence group (see the module docstring)."""

    tokens_s: object  # L[n], n = 0 … N (numpy float64)
    rows_s: object  # H[r], r = 0 … R
    attn_fixed_s: float  # α: the attention kernels' fixed cost (a pass without decode tokens)
    attn_base_s: object  # a_b, b = 0 … R: decode attention of b tokens less γ_b × C
    attn_per_token_s: object  # γ_b, b = 0 … R: per attended key of a decode token
    prefill_grid: object  # p values (0 first)
    prefill_attn_s: object  # Ap(p) on the grid
    host: HostCosts = NONE  # the engine's host time per step, sequence and request
    # the largest pass replayed as a CUDA graph [tokens] (None: never eager; 0: no graphs),
    # whether a pass with a prompt chunk is always eager, and an eager pass's issue time [s]
    graph_tokens: int | None = None
    graph_decode_only: bool = False
    eager_s: float = 0.0
    # an eager pass with a prompt chunk: its issue time where the engine's is measured per layer
    # (``Engine.eager_prefill_layer_s``: SGLang's DeepSeek layer) [s]; 0: ``eager_s`` alone
    eager_prefill_s: float = 0.0
    # the engine's declared capture list (TensorRT-LLM), replayed unpadded: a decode pass of a
    # batch outside it is eager too (None: the threshold alone)
    graph_sizes: tuple | None = None
    # pipeline stages: each rank's engine loop handles every micro-batch in flight, so a
    # micro-batch's iteration waits for that many of its loops (calc.deploy.host_costs.loop_s)
    loop_stages: int = 1

    def __post_init__(self) -> None:
        # plain lists of floats: a simulation indexes them once per iteration (faster than
        # numpy scalars); float64's tolist, each entry float(x) exactly
        import numpy as np

        for name in ("tokens_s", "rows_s", "prefill_grid", "prefill_attn_s", "attn_base_s",
                     "attn_per_token_s"):  # fmt: skip
            values = np.asarray(getattr(self, name), dtype=np.float64).tolist()
            object.__setattr__(self, f"_{name}", values)
        # eager passes: above this many tokens, or with a prompt chunk where only decode is
        # captured (plain attributes: checked once per iteration)
        top = self.graph_tokens
        object.__setattr__(self, "_eager_top", sys.maxsize if top is None else int(top))
        object.__setattr__(self, "_eager_chunks", top is not None and self.graph_decode_only)
        object.__setattr__(self, "_eager_prefill", max(self.eager_s, self.eager_prefill_s))
        sizes = None if self.graph_sizes is None else frozenset(int(x) for x in self.graph_sizes)
        object.__setattr__(self, "_graph_sizes", sizes)
        # the overlapped engine loop per sequence of an iteration [s] (0: none)
        object.__setattr__(self, "_loop_s", self.host.loop_s(1) * self.loop_stages)
        object.__setattr__(self, "_prefill_memo", {})  # p -> Ap(p), filled as asked
        # the host's time per step and per sequence (read once per iteration)
        object.__setattr__(self, "_host_step_s", self.host.per_step_s)
        object.__setattr__(self, "_host_seq_s", self.host.per_sequence_s)

    def _tokens(self, n: int) -> float:
        L = self._tokens_s
        if n < len(L):
            return L[n]
        # beyond the table (not reached by the simulation): in proportion to the tokens
        return L[-1] * n / (len(L) - 1)

    def _rows(self, r: int) -> float:
        H = self._rows_s
        if r < len(H):
            return H[r]
        return H[-1] * r / (len(H) - 1)

    def prefill_attn(self, p: float) -> float:
        """Ap(p) [s], linear between the grid's points (constant beyond its last); each p
        computed once (a simulation asks for the same few prompt lengths again and again)."""
        memo = self._prefill_memo
        hit = memo.get(p)
        if hit is None:
            if len(memo) >= PREFILL_MEMO_MAX:  # many lengths (a long trace): start again
                memo.clear()
            hit = memo[p] = self._prefill_attn(p)
        return hit

    def _prefill_attn(self, p: float) -> float:
        xs, ys = self._prefill_grid, self._prefill_attn_s
        i = bisect.bisect_right(xs, p)
        if i >= len(xs):
            return ys[-1]
        if i == 0:
            return ys[0]
        x0, x1 = xs[i - 1], xs[i]
        return ys[i - 1] + (ys[i] - ys[i - 1]) * (p - x0) / (x1 - x0)

    def _attn(self, b: int) -> tuple[float, float]:
        """(a_b, γ_b) of a decode batch of ``b`` (the last entry's beyond the table)."""
        A, G = self._attn_base_s, self._attn_per_token_s
        if b < len(A):
            return A[b], G[b]
        return A[-1] * b / (len(A) - 1), G[-1]

    def eager(self, n: int, chunks: bool) -> bool:
        """Whether a pass of ``n`` tokens (``chunks``: with a prompt chunk) runs eagerly."""
        return self._no_graph(n) or (chunks and self._eager_chunks)

    def _no_graph(self, n: int) -> bool:
        """Whether a pass of ``n`` tokens has no captured graph (beyond the largest, or outside
        a declared list)."""
        return n > self._eager_top or (self._graph_sizes is not None and n not in self._graph_sizes)

    def decode_s(self, b: int) -> float:
        """A decode-only iteration of ``b`` sequences less its γ_b × C term [s]."""
        host = self.host.per_step_s + self.host.per_sequence_s * b
        gpu = self._tokens(b) + self._rows(b) + self._attn(b)[0]
        if self._no_graph(b):
            gpu = max(gpu, self.eager_s)
        return gpu + host

    def loop_floor_s(self, b: int) -> float:
        """The least a decode-only iteration of ``b`` sequences takes when the engine's
        overlapped loop outlasts its GPU work (the loop + the serial host time) [s]; 0: no
        loop. The iteration takes max(decode_s(b) + γ_b C, this): a decode stretch runs one
        iteration at a time while the floor binds (``calc.serve.iteration.decode_stretch``)."""
        if not self._loop_s:
            return 0.0
        return self._loop_s * b + self.host.per_step_s + self.host.per_sequence_s * b

    def request_s(self, prompt):
        """Front-end time of requests of ``prompt`` tokens before the engine sees them [s]."""
        return self.host.request_host_s(prompt)

    def ctx_slope(self, b: int) -> float:
        """Time per attended key of a decode token in a batch of ``b``, γ_b [s]."""
        return self._attn(b)[1]

    def iteration_s(self, b: int, ctx_sum: float, chunks, rows: int) -> float:
        """One iteration: ``b`` decode tokens attending to ``ctx_sum`` keys in all, the prefill
        ``chunks`` ((h, k) pairs) and ``rows`` lm_head rows [s]."""
        n = b
        keys = 0.0  # the decode attention's γ_b C
        if b:
            A = self._attn_base_s
            if b < len(A):  # ``_attn``, inlined
                attn, keys = A[b], self._attn_per_token_s[b] * ctx_sum
            else:
                a, gamma = self._attn(b)
                attn, keys = a, gamma * ctx_sum
        else:
            attn = self.attn_fixed_s
        if chunks:
            prefill_attn = self.prefill_attn
            for h, k in chunks:
                n += k
                attn += prefill_attn(h + k) - (prefill_attn(h) if h else 0.0)
        if n == 0:
            return 0.0
        host = self._host_step_s + self._host_seq_s * (b + len(chunks))
        gpu = self._tokens(n) + self._rows(rows) + attn
        if self._no_graph(n) or (chunks and self._eager_chunks):
            gpu = max(gpu, self._eager_prefill if chunks else self.eager_s)
        if self._loop_s:  # the engine loop beside the GPU's step: hidden while shorter
            return max(gpu + keys, self._loop_s * (b + len(chunks))) + host
        return gpu + keys + host


def _split(step):
    """(attention time, lm_head + sampler time, the rest) of a step, each a number or an
    array (``Op.attention`` marks the attention ops)."""
    attn = lm = rest = 0.0
    for timing, op in zip(step.ops, step.raw, strict=True):
        if op.attention:
            attn = attn + timing.time_s
        elif op.name in ("lm_head", "host_rows"):  # per row sampled (step calibration)
            lm = lm + timing.time_s
        else:
            rest = rest + timing.time_s
    return attn, lm, rest


def step_table(
    dep: Deployment,
    efficiency: str = "expected",
    *,
    max_tokens: int | None = None,
    max_rows: int | None = None,
    max_ctx: int = 131072,
    frontend: str = "api",
    host: HostCosts | None = None,
) -> StepTable:
    """The iteration-time table of ``dep`` (one sequence group), for passes of up to
    ``max_tokens`` tokens (default: the engine's max batched tokens), ``max_rows`` logits rows
    (default: min(max sequences, max tokens)) and contexts up to ``max_ctx``; ``host``: the
    engine's host costs (default: ``dep``'s engine and version behind ``frontend``)."""
    import numpy as np

    from calc.deploy.steps import step_of

    ec = dep.engine_config
    n_max = int(max_tokens or ec.max_batched_tokens)
    r_max = int(max_rows or min(ec.max_num_seqs, n_max))
    dpa = dep.sharding.dp_attn
    n = np.arange(1, n_max + 1, dtype=np.float64)
    dec = step_of(dep, efficiency, batch=n * dpa, ctx=1.0)
    tokens = np.concatenate([[0.0], np.asarray(_split(dec)[2], dtype=np.float64)])
    # lm_head rows: a prefill pass of r prompts of one token has r rows; its time is the
    # lm_head op alone (the other ops are in L)
    r = np.arange(1, r_max + 1, dtype=np.float64)
    pre = step_of(dep, efficiency, batch=r * dpa, prompt=1.0)
    rows = np.concatenate([[0.0], np.asarray(_split(pre)[1], dtype=np.float64)])
    # decode attention of b tokens: a_b + γ_b C (memory bound: affine in the keys), from two
    # contexts at every batch b; α from batches 1 and 2 (a_b affine in b there)
    c1, c2 = 1024.0, 2048.0
    window = dep.model.sliding_window
    if window:
        c1, c2 = max(1.0, window / 4), max(2.0, window / 2)
    a1 = np.asarray(_split(step_of(dep, efficiency, batch=r * dpa, ctx=c1))[0], dtype=np.float64)
    a2 = np.asarray(_split(step_of(dep, efficiency, batch=r * dpa, ctx=c2))[0], dtype=np.float64)
    gamma = (a2 - a1) / (r * (c2 - c1))
    base = a1 - gamma * r * c1
    fixed = float(base[0] - (base[1] - base[0])) if len(base) > 1 else float(base[0])
    # prefill attention on a geometric grid of prompt lengths
    top = max(int(max_ctx), 16)
    steps = math.ceil(math.log(top / 16) / math.log(PREFILL_GRID_RATIO)) + 1
    grid = np.unique(np.rint(np.geomspace(16, top, steps + 1)))
    grid = np.concatenate([np.arange(1.0, 16.0), grid])
    pf = step_of(dep, efficiency, batch=dpa, prompt=grid)
    ap = np.asarray(_split(pf)[0], dtype=np.float64) - fixed
    if host is None:
        host = dep.engine_model.host_costs(dep.engine_config.host_release, frontend, dep.pp)
    host = host.for_host_cpu(dep.hardware.host_cpu if dep.hardware is not None else None)
    from calc.serve.graphs import decode_only, eager_issue_s, graph_sizes, graph_tokens

    kernels = sum(float(np.max(op.kernels)) for op in dec.raw)  # a pass's, whatever its batch
    # a pass with a prompt, eager: the engine's measured layer where it has one (issue 20,
    # moehost round: calc.deploy.host_costs.eager_prefill_host_s), per pipeline stage
    from calc.deploy.host_costs import eager_prefill_host_s

    stages = max(dep.pp, 1)
    eager_prefill = eager_prefill_host_s(dep.model.n_layers / stages,
                                         dep.engine_model.eager_prefill_layer_s(dep),
                                         eager_issue_s(kernels / stages))  # fmt: skip
    return StepTable(
        tokens_s=tokens,
        rows_s=rows,
        attn_fixed_s=fixed,
        attn_base_s=np.concatenate([[fixed], base]),
        attn_per_token_s=np.concatenate([[0.0], gamma]),
        prefill_grid=np.concatenate([[0.0], grid]),
        prefill_attn_s=np.concatenate([[0.0], ap]),
        host=host,
        graph_tokens=graph_tokens(dep),
        graph_decode_only=decode_only(dep),
        eager_s=eager_issue_s(kernels / max(dep.pp, 1)),
        eager_prefill_s=eager_prefill,
        graph_sizes=graph_sizes(dep) if dep.engine_config.cuda_graphs else None,
        loop_stages=stages,
    )


@dataclass(frozen=True)
class AffineStepTime:
    """A toy iteration time for tests and hand-worked schedules [s]:
    ``fixed + per_token × (b + Σk) + per_ctx × C`` (no attention term for prefill chunks)."""

    fixed_s: float
    per_token_s: float = 0.0
    per_ctx_s: float = 0.0

    def decode_s(self, b: int) -> float:
        return self.fixed_s + self.per_token_s * b

    def ctx_slope(self, b: int) -> float:
        return self.per_ctx_s

    def loop_floor_s(self, b: int) -> float:
        return 0.0

    def iteration_s(self, b, ctx_sum, chunks, rows) -> float:
        n = b + sum(k for _, k in chunks)
        return self.fixed_s + self.per_token_s * n + self.per_ctx_s * ctx_sum
