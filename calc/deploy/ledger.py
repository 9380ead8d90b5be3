"""The per-GPU memory ledger [bytes] of a deployment's busiest GPU: weights (each component in
its checkpoint format), KV cache and SSM state per sequence, activation peak, non-torch memory,
the engine's KV budget and pool, and the one verdict ``fits`` every command reports.

The engine's terms (the device memory torch reports, the activation peak of its profiling
pass, non-torch memory, budget, pool) are its own start-up accounting
(``calc.deploy.engines``); a measured activation peak or non-torch memory replaces the
modelled one.

``fits`` means: the sequences this GPU serves, each paged to whole KV blocks plus its fixed
SSM state, fit in the KV budget the engine leaves after weights, activation peak and
non-torch memory. A GPU serves ceil(batch / sequence groups) sequences (replicas ×
attention-DP ranks, ``calc.deploy.deployment``).

KV and SSM state per GPU are exact per pipeline stage: each stage holds a contiguous run of
ceil(n_layers / pp) layers (``calc.deploy.parallel``), and its KV is the attention layout's
own formula over that stage's caching layers (windowed layers stop growing at their window;
sparse-attention layers add their indexer keys) with this GPU's KV heads (max of 1 and
n_kv_heads / tp, replicated when tp > n_kv_heads; MLA's latent is held whole by every TP
rank). The busiest stage is the one whose sequence
costs most at the queried context; with pp > 1 the ledger pairs it with the heaviest stage's
weights (``calc.deploy.parallel.params_per_gpu``), an upper bound when those are different
stages.

The formula functions take plain numbers or numpy arrays (``calc.reports.sweep`` evaluates
grids).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from calc.formulas.elementwise import cdiv, maximum, minimum

if TYPE_CHECKING:
    from calc.data.model_schema import ModelConfig
    from calc.deploy.deployment import Deployment
    from calc.formulas.attention_layout import AttentionLayout


# ---------------------------------------------------------------------------------------------
# Formulas (plain numbers or numpy arrays)


def kv_heads_per_gpu(n_kv_heads, tp):
    """KV heads one TP rank caches: ceil(n_kv_heads / tp), at least 1 (replicated when
    tp > heads)."""
    return maximum(cdiv(n_kv_heads, tp), 1)


def paged_tokens(ctx, block_size):
    """Tokens a paged cache reserves for a sequence of ``ctx`` tokens: whole blocks."""
    return cdiv(ctx, block_size) * block_size


def pool_units(budget_bytes, unit_bytes):
    """Whole units (blocks, sequences) of ``unit_bytes`` that fit in ``budget_bytes``; 0 if the
    budget is negative."""
    return maximum(budget_bytes, 0) // unit_bytes


def waste_bytes(reserved_tokens, used_tokens, kv_bytes_per_token):
    """Reserved but unused KV [bytes]: (reserved − used) tokens × bytes per token."""
    return (reserved_tokens - used_tokens) * kv_bytes_per_token


def sequences_per_gpu(batch, groups):
    """Sequences one GPU serves when ``batch`` is spread over ``groups``: ceil(batch / groups)."""
    return cdiv(batch, groups)


# ---------------------------------------------------------------------------------------------
# Pipeline stages


def stage_ranges(n_layers: int, pp: int) -> list[range]:
    """Layer indices of each pipeline stage: contiguous runs of ceil(n_layers / pp) layers."""
    per = cdiv(n_layers, pp)
    return [range(k * per, min((k + 1) * per, n_layers)) for k in range(cdiv(n_layers, per))]


@dataclass(frozen=True)
class Stage:
    """What one GPU of one pipeline stage caches per sequence."""

    layout: AttentionLayout  # the stage's caching layers with this GPU's KV heads
    ssm_state_bytes_per_sequence: float

    def sequence_bytes(self, ctx, kv_bytes_per_element):
        return self.layout.kv_bytes_per_sequence(ctx, kv_bytes_per_element) + (
            self.ssm_state_bytes_per_sequence
        )


def gpu_stages(
    cfg: ModelConfig, layout: AttentionLayout, *, tp: int, pp: int, state_bytes_per_element
) -> list[Stage]:
    """Per-stage KV layouts and recurrent state (Mamba, gated DeltaNet) of one GPU under
    tp × pp; ``state_bytes_per_element`` is the conv state's (the recurrent state's dtype
    comes from the config, ``calc.formulas.ssm.recurrent_bytes_per_element``)."""
    from calc.data.model_schema import ATTENTION_LAYER_TYPES, SSM_LAYER_TYPES
    from calc.formulas.layer_pattern import windowed_groups
    from calc.formulas.ssm import layer_state_bytes

    heads = 1 if layout.kind == "mla" else int(kv_heads_per_gpu(layout.n_kv_heads, tp))
    types = cfg.layers
    stages = []
    for idx in stage_ranges(cfg.n_layers, pp):
        kinds = [types[i] for i in idx]
        local = replace(
            layout,
            n_kv_heads=heads,
            n_layers=sum(1 for t in kinds if t in ATTENTION_LAYER_TYPES),
            windowed=windowed_groups(
                kinds, cfg.sliding_window, cfg.attention_chunk_size, cfg.sink_tokens
            ),
            n_model_layers=len(kinds),
        )
        # Mamba / gated DeltaNet state: conv part in the state dtype, recurrent part in its own
        state = sum(
            layer_state_bytes(cfg, t, tp, state_bytes_per_element)
            for t in kinds
            if t in SSM_LAYER_TYPES
        )
        stages.append(Stage(local, state))
    return stages


# ---------------------------------------------------------------------------------------------
# The ledger


@dataclass(frozen=True)
class LedgerAt:
    """The ledger of the busiest GPU at one operating point: what every command reports under
    the same names (``fields()``), typed for the reports that compose it.

    Its terms are whole bytes and sum exactly to the budget (``budget_terms``)::

        kv_budget_bytes = usable_memory_bytes − memory_fraction_reserve_bytes
                          − weights_bytes_per_gpu − rope_table_bytes − activation_peak_bytes
                          − overhead_bytes − cuda_graph_bytes − state_pool_bytes
    """

    usable_memory_bytes: int  # the device's memory as torch reports it
    memory_fraction_reserve_bytes: int  # held back by the engine's memory fraction
    weights_bytes_per_gpu: int
    rope_table_bytes: int
    activation_peak_bytes: int
    overhead_bytes: int
    cuda_graph_bytes: int  # the CUDA graph estimate taken from the budget (vLLM 0.20+)
    state_pool_bytes: int  # a recurrent-state pool set apart before the budget (SGLang)
    kv_budget_bytes: int
    kv_cache_bytes_per_gpu: float  # this GPU's sequences, unpaged
    ssm_state_bytes_per_gpu: float
    kv_cache_tokens: int
    max_concurrency: int  # sequences of ctx tokens the deployment holds
    fits: bool

    def fields(self) -> dict:
        from dataclasses import asdict

        from calc.output.derivation import whole

        return {k: whole(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class PerGpu:
    """The memory ledger of the busiest GPU of a deployment [bytes], and the questions every
    command asks of it (fit, concurrency, longest context)."""

    memory_bytes: float  # the device's memory as the profile labels it
    usable_memory_bytes: float  # the device's memory as torch reports it (engines budget it)
    mem_util: float  # the engine's memory fraction (given, or its default)
    params: int  # weights held [params]
    weights_bytes: float
    activation_peak_bytes: float
    activation_estimated: bool  # False: given (--activation)
    overhead_bytes: float  # non-torch memory (CUDA context, NCCL, custom all-reduce)
    kv_budget_bytes: int  # what the engine leaves for KV (and SSM state); floored
    pool_tokens: int  # the KV pool the engine allocates (and prints) [tokens]
    block_size: int
    groups: int  # sequence groups of the deployment (replicas × attention-DP ranks)
    kv_bytes_per_element: float
    stages: tuple[Stage, ...]
    figures: tuple = ()  # the engine model's derivations (calc.output.derivation.Figure)
    notes: tuple[str, ...] = ()  # what the engine model could not model here
    # the engine's block pool (calc.deploy.engines.base.Paging): requests are counted in its
    # blocks (hybrid layer groups, sliding-window pages per request); None: by bytes
    paging: object = None
    # every term of the engine's start-up accounting (calc.deploy.engines.base.PoolPrediction)
    prediction: object = None

    # -- per sequence ---------------------------------------------------------------------

    def kv_bytes_per_sequence(self, ctx):
        """KV of one sequence of ``ctx`` tokens on this GPU [bytes] (unpaged; busiest stage)."""
        return _stage_max(s.layout.kv_bytes_per_sequence(ctx, self.kv_bytes_per_element)
                          for s in self.stages)  # fmt: skip

    @property
    def kv_bytes_per_token(self) -> float:
        """KV one more token adds on this GPU below every window [bytes]."""
        return max(s.layout.kv_bytes_per_token(self.kv_bytes_per_element) for s in self.stages)

    @property
    def kv_block_bytes(self) -> float:
        """KV of one block of ``block_size`` tokens on this GPU [bytes]."""
        return self.kv_bytes_per_sequence(self.block_size)

    @property
    def ssm_state_bytes_per_sequence(self) -> float:
        """Fixed Mamba conv + SSM state of one sequence on this GPU [bytes]."""
        return max(s.ssm_state_bytes_per_sequence for s in self.stages)

    def sequence_bytes(self, ctx):
        """What one sequence of ``ctx`` tokens holds on this GPU [bytes]: its KV paged to whole
        blocks plus its SSM state (busiest stage); under vLLM, the blocks its pool reserves
        for the request (hybrid layer groups padded, a sliding-window group's window plus one
        prefill chunk, a Mamba group's state page) × the bytes of a block."""
        if self.paging is not None:
            return self.paging.blocks_per_request(ctx) * self.paging.block_bytes
        tokens = paged_tokens(ctx, self.block_size)
        return _stage_max(s.sequence_bytes(tokens, self.kv_bytes_per_element)
                          for s in self.stages)  # fmt: skip

    # -- per GPU, per deployment ----------------------------------------------------------

    def sequences(self, batch):
        """Sequences this GPU serves of a deployment batch: ceil(batch / groups)."""
        return sequences_per_gpu(batch, self.groups)

    def kv_cache_bytes(self, ctx, batch):
        """KV of this GPU's sequences [bytes], unpaged."""
        return self.kv_bytes_per_sequence(ctx) * self.sequences(batch)

    def ssm_state_bytes(self, batch):
        return self.ssm_state_bytes_per_sequence * self.sequences(batch)

    @property
    def runtime_reserve_bytes(self) -> float:
        """Activation peak + framework overhead [bytes]."""
        return self.activation_peak_bytes + self.overhead_bytes

    @property
    def kv_cache_tokens(self) -> int:
        """The KV pool of this GPU [tokens], as the engine pages it (``calc.deploy.engines``)."""
        return self.pool_tokens

    @property
    def kv_cache_blocks(self) -> int:
        return self.pool_tokens // self.block_size

    def max_sequences_per_gpu(self, ctx):
        """Sequences of ``ctx`` tokens one GPU holds: floor(budget / sequence bytes), or under
        vLLM floor(blocks / blocks per request)."""
        if self.paging is not None:
            return pool_units(self.paging.num_blocks, self.paging.blocks_per_request(ctx))
        slots = self.state_slots
        if slots is not None:  # the state in a pool of its own: KV in the budget, one slot each
            kv = self.sequence_bytes(ctx) - self.ssm_state_bytes_per_sequence
            return minimum(pool_units(self.kv_budget_bytes, kv), slots)
        return pool_units(self.kv_budget_bytes, self.sequence_bytes(ctx))

    @property
    def state_slots(self) -> int | None:
        """Slots of the engine's recurrent-state pool where it is apart from the KV budget
        (SGLang on hybrid models) [requests]; None where the state is in the budget."""
        return getattr(self.prediction, "state_slots", None)

    def _holds(self, n, ctx) -> bool:
        """Whether ``n`` sequences of ``ctx`` tokens fit on this GPU."""
        if self.paging is not None:
            return n * self.paging.blocks_per_request(ctx) <= self.paging.num_blocks
        if self.state_slots is not None:
            return n <= self.max_sequences_per_gpu(ctx)
        return n * self.sequence_bytes(ctx) <= self.kv_budget_bytes

    def max_concurrency(self, ctx):
        """Sequences of ``ctx`` tokens the deployment holds: per GPU × groups."""
        return self.max_sequences_per_gpu(ctx) * self.groups

    def fits(self, ctx, batch):
        """The verdict: ``batch`` sequences of ``ctx`` tokens fit in the KV budget."""
        return (self.kv_budget_bytes > 0) & (
            self.sequences(batch) <= self.max_sequences_per_gpu(ctx)
        )

    def budget_terms(self) -> dict[str, int]:
        """What the engine takes from the device's memory before its KV budget, in whole bytes
        (each term rounded), keyed by the ledger's names, from ``usable_memory_bytes`` (first)
        down to ``kv_budget_bytes`` (last): the first less every other term is the budget,
        exactly. ``memory_fraction_reserve_bytes`` is what is left once the others are
        counted: the engine's fraction's share (``PoolPrediction.fraction_reserve_bytes``) plus
        the flooring of the budget and the rounding of the terms to whole bytes (under a byte
        each)."""
        p = self.prediction
        terms = {
            "weights_bytes_per_gpu": self.weights_bytes,
            "rope_table_bytes": getattr(p, "rope_table_bytes", 0.0),
            "activation_peak_bytes": self.activation_peak_bytes,
            "overhead_bytes": self.overhead_bytes,
            "cuda_graph_bytes": getattr(p, "cuda_graph_bytes", 0.0),
            "state_pool_bytes": getattr(p, "state_pool_bytes", 0.0),
        }
        terms = {k: round(v) for k, v in terms.items()}
        usable = round(self.usable_memory_bytes)
        reserve = usable - sum(terms.values()) - self.kv_budget_bytes
        return {"usable_memory_bytes": usable, "memory_fraction_reserve_bytes": reserve,
                **terms, "kv_budget_bytes": self.kv_budget_bytes}  # fmt: skip

    def at(self, ctx: int, batch: int) -> LedgerAt:
        """The ledger at ``batch`` sequences of ``ctx`` tokens."""
        return LedgerAt(
            **self.budget_terms(),
            kv_cache_bytes_per_gpu=self.kv_cache_bytes(ctx, batch),
            ssm_state_bytes_per_gpu=self.ssm_state_bytes(batch),
            kv_cache_tokens=self.kv_cache_tokens,
            max_concurrency=int(self.max_concurrency(ctx)),
            fits=bool(self.fits(ctx, batch)),
        )

    def max_ctx(self, batch, limit: int) -> int:
        """Longest context (whole blocks, at most ``limit``) at which ``batch`` fits; 0 if
        none (bisection: windowed layers stop growing, so no closed form)."""
        n = self.sequences(batch)
        b = self.block_size
        if self.kv_budget_bytes <= 0 or not self._holds(n, b):
            return 0
        lo, hi = 1, cdiv(limit, b)  # in blocks
        if self._holds(n, hi * b):
            return hi * b
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self._holds(n, mid * b):
                lo = mid
            else:
                hi = mid
        return lo * b


def _stage_max(values):
    values = list(values)
    if len(values) == 1:
        return values[0]
    out = values[0]
    for v in values[1:]:
        out = maximum(out, v)
    return out


def per_gpu_ledger(dep: Deployment) -> PerGpu:
    """The ledger of ``dep``'s busiest GPU (``dep.hardware`` must be set). The engine's terms
    (usable memory, weights as the checkpoint loads, activation peak, non-torch memory,
    budget, pool) are its start-up accounting, ``Engine.kv_pool`` (``calc.deploy.engines``); a
    measured activation peak or non-torch memory (``--activation``, ``--overhead``) replaces
    the modelled one."""
    from calc.deploy.parallel import params_per_gpu

    cfg, hw, eng = dep.model, dep.hardware, dep.engine
    assert hw is not None  # Deployment.per_gpu checks
    pred = dep.engine_model.kv_pool(
        dep, activation_bytes=eng.activation_bytes, non_torch_bytes=eng.overhead_bytes
    )
    stages = gpu_stages(
        cfg, dep.layout, tp=dep.tp, pp=dep.pp, state_bytes_per_element=dep.state_bytes_per_element
    )
    return PerGpu(
        memory_bytes=hw.memory_bytes,
        usable_memory_bytes=pred.usable_memory_bytes,
        mem_util=pred.memory_fraction,
        params=params_per_gpu(cfg, dep.sharding),
        weights_bytes=pred.weights_bytes,
        activation_peak_bytes=pred.activation_bytes,
        activation_estimated=eng.activation_bytes is None,
        overhead_bytes=pred.non_torch_bytes,
        # floored to whole bytes, as vLLM's int(available_kv_cache_memory)
        kv_budget_bytes=math.floor(pred.kv_budget_bytes),
        pool_tokens=pred.tokens,
        block_size=pred.block_size,
        groups=dep.sequence_groups,
        kv_bytes_per_element=dep.kv_bytes_per_element,
        stages=tuple(stages),
        figures=tuple(pred.figures),
        notes=tuple(pred.warnings),
        paging=pred.paging,
        prediction=pred,
    )
