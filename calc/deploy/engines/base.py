"""The one interface every serving engine of the wing implements (``Engine``), and the records
it returns: its settings with the release's defaults resolved (``EngineConfig``), its KV pool at
start-up [bytes, blocks, tokens] (``PoolPrediction``), its scheduler policy, its per-step host
costs [s], its launch commands and what it reads in a start-up log (``LogFacts``).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from calc.deploy.engines.paging import Paging
from calc.deploy.host_costs import (
    LOOP_SOURCE,
    HostCosts,
    VersionRange,
    compose,
    core_sequence_s,
    with_core,
    with_loop,
    with_pipeline,
)
from calc.deploy.moe_pipeline import TRITON_FUSED_MOE, MoePipeline

if TYPE_CHECKING:
    import re

    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.engines.versions import VersionTable

GIB = 2**30
MIB = 2**20


@dataclass(frozen=True, kw_only=True)
class EngineConfig:
    """One engine's start-up settings at one release, every default resolved (kvcalc's names;
    the engine's own name of ``memory_fraction`` is ``Engine.fraction_name``). What a user set,
    None for "the engine's default", is ``calc.deploy.deployment.EngineSettings``;
    ``Engine.config`` resolves it into this."""

    engine: str  # vllm, sglang, trtllm
    version: str  # the modelled release whose rules apply (e.g. "0.33.0")
    memory_fraction: float | None  # None: the engine's automatic choice (SGLang)
    block_size: int  # tokens per KV page (SGLang: page_size)
    max_batched_tokens: int  # tokens of the profiling forward pass (chunked prefill budget)
    max_num_seqs: int  # sequences a step may hold; rows of the sampler's profiling pass
    cuda_graphs: bool = True
    # torch.compile at start-up: "cold" (compiled afresh) or "warm" (loaded from the cache)
    compile_cache: str = "cold"
    max_model_len: int | None = None  # None: the model's max_ctx
    max_tokens: int | None = None  # TensorRT-LLM KvCacheConfig.max_tokens cap
    cuda_graph_max_bs: int | None = None  # SGLang: None = its default by GPU and TP
    # prompts split over steps of max_batched_tokens (False: each prompt in one step, at most
    # max_batched_tokens long)
    chunked_prefill: bool = True
    version_asked: str | None = None  # what the user or the log named (None: the default)
    # the kernel library of its attention on an AMD GPU ("aiter", "triton"; None: the engine
    # states none: it does not run on AMD GPUs)
    rocm_kernels: str | None = None
    # the scheduler settings that hold new requests back (EngineSettings; calc.serve.admission):
    # SGLang's --scheduler-recv-interval (1: a read every loop), TensorRT-LLM's
    # batch_wait_timeout_iters and batch_wait_max_tokens_ratio (0: off)
    recv_interval: int = 1
    batch_wait_iters: int = 0
    batch_wait_ratio: float = 0.0
    warnings: tuple[str, ...] = ()  # a release not modelled, defaults that may not hold

    @property
    def host_release(self) -> str:
        """The release whose host costs apply (``calc.deploy.host_costs``, by version range):
        the one asked for where it lies outside the modelled release it maps to (vLLM 0.8.3
        runs 0.10.0's memory rules but keeps its own host time), else the modelled one."""
        from calc.deploy.engines.versions import parse_version

        asked = parse_version(self.version_asked) if self.version_asked else None
        if asked is None or parse_version(self.version)[: len(asked)] == asked:
            return self.version
        return self.version_asked

    @property
    def version_unmodelled(self) -> str | None:
        """The release asked for where kvcalc models it as another (vLLM 0.5.4 -> 0.10.0), else
        None (not asked, a modelled release, or a prefix or build of one: 0.19, 0.10.0rc1)."""
        return self.version_asked if self.host_release != self.version else None


@dataclass(frozen=True)
class PoolPrediction:
    """Every term of one engine's start-up memory on the busiest GPU (bytes unless named)."""

    engine: str
    version: str
    memory_fraction: float
    usable_memory_bytes: int  # what torch reports for the device
    weights_bytes: float
    activation_bytes: float  # torch peak of the profiling pass (0 where not subtracted)
    non_torch_bytes: float
    cuda_graph_bytes: float  # subtracted before the pool (0: captured after it, in the slack)
    kv_budget_bytes: float
    kv_bytes_per_token: float  # one token over this GPU's KV layers
    page_size_bytes: float  # one block of one layer
    num_blocks: int
    tokens: int  # the pool [tokens]: its blocks × tokens per block (per KV group)
    max_concurrency: float  # requests of max_model_len tokens at once
    max_model_len: int
    block_size: int  # tokens per block as the engine runs it
    sources: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    figures: list = field(default_factory=list)  # calc.output.derivation.Figure, for --explain
    paging: Paging | None = None  # the block accounting per request (None: by bytes)
    # RoPE's cos/sin table, built with the model and counted in vLLM's 'Model loading took'
    # but not a weight (0 where the engine's accounting has none or the weights are measured)
    rope_table_bytes: float = 0.0
    # the token count the engine's start-up log prints, by its own formula (None: ``tokens``;
    # vLLM 0.21+: int(max_concurrency × max_model_len))
    engine_printed_tokens: int | None = None
    # a recurrent-state pool apart from the KV pool (SGLang on hybrid models): its slots
    # [requests], and the cap they put on running requests (None: the state is in the KV
    # budget, or there is none)
    state_slots: int | None = None
    max_running_requests: int | None = None
    # what the engine sets apart from the budget for that state pool [bytes] (0: none)
    state_pool_bytes: float = 0.0
    # what the engine's memory fraction holds back from the budget, by its own formula [bytes]
    # (vLLM usable × (1 − f); SGLang (usable − non-torch) × (1 − f); TensorRT-LLM the free
    # memory × (1 − f)): the budget is usable − this − every other term above
    fraction_reserve_bytes: float = 0.0
    # the CUDA graph estimate the release computes and prints at start-up, whether or not it
    # takes it from the budget (vLLM 0.18-0.19 print it and leave it; None: none computed)
    cuda_graph_estimate_bytes: float | None = None

    @property
    def printed_tokens(self) -> int:
        """The token count the engine prints at start-up [tokens] (what a log is compared
        with): ``tokens`` unless the release prints another figure."""
        return self.tokens if self.engine_printed_tokens is None else self.engine_printed_tokens

    @property
    def kv_pool_bytes(self) -> float:
        """Bytes the pool's tokens take [bytes] (the budget less the rounding to blocks)."""
        return self.tokens * self.kv_bytes_per_token


class MoeRunner(NamedTuple):
    """The fused-MoE kernels (the engine's backend or runner) a deployment's routed experts run
    on, as the engine's own rule picks them (``Engine.moe_runner``), and how kvcalc times them."""

    name: str  # the engine's name for the backend (its launch option's value)
    why: str  # why it runs, in words (the release's rule, or "stated")
    # the engine's own MoE curve key that times this backend where it is not the format's
    # (``KernelCurves.moe_engine``: vLLM's "fp8_cutlass"); None: the format's curve
    curve: str | None = None
    # True where kvcalc has no curve of this backend's kernels: another backend's curve stands
    # in (``why`` names it)
    stand_in: bool = False


class AdmissionHold(NamedTuple):
    """What holds a new request back before the engine's scheduler takes its prompt in, as the
    engine applies it to one deployment (``Engine.admission_hold``; the waits they cause:
    ``calc.serve.admission``): a read of new requests every ``recv_interval`` decode steps
    (SGLang; 1: every step), and contexts held beside running generation requests for up to
    ``batch_wait_iters`` steps while the scheduled tokens stay below ``batch_wait_tokens``
    (TensorRT-LLM; 0: off) [steps, tokens]."""

    recv_interval: int = 1
    batch_wait_iters: int = 0
    batch_wait_tokens: float = 0.0

    @property
    def holds(self) -> bool:
        """Whether anything is held back at all."""
        return self.recv_interval > 1 or (self.batch_wait_iters > 0 and self.batch_wait_tokens > 0)


class PrefillInputLimit(NamedTuple):
    """The new prompt tokens one prefill batch takes in (SGLang's ``--max-prefill-tokens``,
    ``PrefillAdder.rem_input_tokens``; ``calc.serve.policies.PrefillFirst``) [tokens]: each
    request added takes its chunk's tokens off ``tokens`` (in whole pages where ``paged``),
    and the batch ends once none are left; a waiting request is first refused, the batch not
    empty, when its prompt tokens left exceed (``check`` "gt") or reach ("ge") the tokens
    left, or reach them only without chunked prefill ("unchunked"). A first request is
    always taken, whatever its length."""

    tokens: int
    check: str = "unchunked"

    @property
    def paged(self) -> bool:
        """Whether tokens are counted in whole pages (from the "ge" rule's release on)."""
        return self.check != "gt"


class EngineDefaults(NamedTuple):
    """A release's start-up defaults on one GPU (``memory_fraction`` None: the engine chooses
    it itself, SGLang)."""

    memory_fraction: float | None
    block_size: int
    max_batched_tokens: int
    max_num_seqs: int
    chunked_prefill: bool


class StartupTerms(NamedTuple):
    """What an engine takes from one GPU's memory before its KV pool, and the budget left
    [bytes] (``memory_fraction``: the engine's own fraction setting, as it applied it)."""

    memory_fraction: float
    usable_memory_bytes: int
    weights_bytes: float
    activation_bytes: float
    non_torch_bytes: float
    cuda_graph_bytes: float
    kv_budget_bytes: float


class PoolBlocks(NamedTuple):
    """How an engine cuts its budget into blocks [tokens, bytes, blocks]: ``block_size`` tokens
    a block, ``page_size_bytes`` a block of one layer, the blocks, the tokens it prints and the
    requests of ``max_model_len`` tokens they hold at once."""

    block_size: int
    page_size_bytes: float
    num_blocks: int
    tokens: int
    max_concurrency: float
    max_model_len: int


def pool_prediction(
    engine: str, version: str, bytes_per_token: float, terms: StartupTerms, blocks: PoolBlocks,
    *, sources: dict, warnings: list | None = None, figures: list | None = None,
    paging: Paging | None = None, rope_table_bytes: float = 0.0,
    printed_tokens: int | None = None, state_slots: int | None = None,
    max_running_requests: int | None = None, state_pool_bytes: float = 0.0,
    fraction_reserve_bytes: float = 0.0, cuda_graph_estimate_bytes: float | None = None,
) -> PoolPrediction:  # fmt: skip
    """One engine's ``PoolPrediction`` from its start-up terms and its blocks (the one place
    every engine's prediction is put together)."""
    return PoolPrediction(
        engine=engine, version=version, kv_bytes_per_token=bytes_per_token,
        **terms._asdict(), **blocks._asdict(), sources=sources, warnings=warnings or [],
        figures=figures or [], paging=paging, rope_table_bytes=rope_table_bytes,
        engine_printed_tokens=printed_tokens, state_slots=state_slots,
        max_running_requests=max_running_requests, state_pool_bytes=state_pool_bytes,
        fraction_reserve_bytes=fraction_reserve_bytes,
        cuda_graph_estimate_bytes=cuda_graph_estimate_bytes,
    )  # fmt: skip


@dataclass(frozen=True)
class FutureTokens:
    """SGLang's admission estimate of the running requests' future tokens (its ``environ.py``
    and ``srt/managers/schedule_policy.py``): ``new_token_ratio`` starts at ``init_ratio``,
    decays to ``init_ratio × min_ratio_factor`` over ``decay_steps`` decode batches, and after
    a retraction is re-estimated with ``retract_steps`` more tokens per request; remaining
    outputs are clipped at ``clip`` tokens; ``page_reserve``: each admission also reserves one
    page (``per_req_token_overhead``). Requests that run to their max_new_tokens (``ignore_eos``,
    as ``bench_serving`` sends) on a server without a prefix cache (``--disable-radix-cache``)
    are admitted by ``add_one_req_ignore_eos`` instead: the running requests, sorted by tokens
    left, must each fit their remaining decode steps in the pool as the shorter ones free
    theirs; ``own_steps``: each one's own tokens left (0.5.23), else the next one's (0.4.0);
    ``exact_reserve``: tokens kept per request (``IGNORE_EOS_RESERVE_TOKENS``); ``input_gate``:
    the prompt (and its page) must first fit the remaining total (0.5.23
    ``can_allocate_prefill``). ``retract_headroom``: a retraction goes on until ``retract_steps``
    free tokens a remaining request are left (0.4.0), else until the step's new pages fit."""

    init_ratio: float = 0.7  # SGLANG_INIT_NEW_TOKEN_RATIO × schedule_conservativeness 1.0
    min_ratio_factor: float = 0.14  # SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR
    decay_steps: int = 600  # SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS
    clip: int = 4096  # SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION
    retract_steps: int = 20  # SGLANG_RETRACT_DECODE_STEPS
    page_reserve: bool = True
    own_steps: bool = True
    exact_reserve: int = 1
    input_gate: bool = True
    retract_headroom: bool = False


@dataclass(frozen=True)
class SchedulerPolicy:
    """What ``calc.serve`` needs to schedule like the engine: its admission and batching rules
    (the algorithms live in ``calc.serve.policies``; this selects among them)."""

    name: str
    # admission reserves a request's whole KV (prompt + output) and nothing is ever preempted
    reserve_whole_request: bool = False
    # an iteration is a prefill batch whenever a prompt can be admitted (decoders wait), with
    # room for the running requests' future tokens (SGLang)
    prefill_first: bool = False
    future_tokens: FutureTokens = field(default_factory=FutureTokens)
    # running requests when the user sets none, derived from the KV pool at start-up:
    # (slots per context length of pool tokens, floor, ceiling), the limit
    # min(pool tokens // 2, clamp(int(pool tokens / context length × slots), floor, ceiling))
    # (SGLang); None: the configured max_num_seqs
    running_from_pool: tuple[int, int, int] | None = None
    # the scheduler forms the next batch while the GPU runs the current one (SGLang's overlap
    # scheduler): an arrival waits for the batch already formed
    schedule_ahead: bool = False

    def running_limit(self, pool_tokens: int, context_len: int) -> int | None:
        """The running-request limit the engine derives from a pool of ``pool_tokens`` [tokens]
        at a context length of ``context_len`` [tokens]; None where it derives none."""
        if self.running_from_pool is None:
            return None
        per_context, floor, ceiling = self.running_from_pool
        slots = min(max(int(pool_tokens / context_len * per_context), floor), ceiling)
        return max(1, min(slots, pool_tokens // 2))


@dataclass(frozen=True)
class Command:
    """One command to run: who runs it (``role``: "server", "node 1 of 2", "prefill",
    "decode", "router", ...), its argv (every word from input quoted when printed), the
    environment it needs, the files it reads (name, text) and what it cannot say (notes)."""

    engine: str
    role: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    count: int = 1  # identical copies to run (independent replicas), each its own server
    gpus: int = 0  # GPUs one copy of this command runs on (0: none, e.g. a router)

    def text(self) -> str:
        """The command on one line, safe to paste into a POSIX shell (shlex-quoted)."""
        env = [f"{k}={shlex.quote(v)}" for k, v in self.env]
        return " ".join([*env, shlex.join(self.argv)])

    def to_dict(self) -> dict:
        return {
            "role": self.role,
            "count": self.count,
            "gpus": self.gpus,
            "command": self.text(),
            "argv": list(self.argv),
            "files": {name: text for name, text in self.files},
            "notes": list(self.notes),
        }


@dataclass
class LogFacts:
    """What one start-up log states. ``settings`` uses kvcalc's names (tp, pp, dp, ep,
    memory_fraction, max_model_len, max_batched_tokens, max_num_seqs, block_size,
    kv_cache_dtype, dtype, quantization, max_tokens, model, enforce_eager); ``printed`` holds
    the engine's figures in bytes/tokens (weights_bytes, activation_bytes, non_torch_bytes,
    cuda_graph_bytes, kv_budget_bytes or kv_pool_bytes, tokens, blocks, max_concurrency,
    concurrency_at_tokens, total_memory_bytes); ``devices``: the GPU names its lines print, in
    order, each once (``calc.deploy.engines.logdevice``)."""

    engine: str
    version: str | None = None
    settings: dict = field(default_factory=dict)
    printed: dict = field(default_factory=dict)
    lines_read: int = 0
    notes: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)


class LogReader:
    """An engine's start-up log reader: feed it every line holding one of ``anchors``
    (``feed``), then read ``facts()``. A line holding one of ``markers`` adds ``per_marker``
    to ``evidence`` (that the log is this engine's); the first of ``versions`` that matches
    gives the release; ``read`` (one per engine) takes the rest and says whether the line
    held a fact."""

    engine: ClassVar[str]
    anchors: ClassVar[tuple[str, ...]]
    markers: ClassVar[tuple[str, ...]]
    versions: ClassVar[tuple[re.Pattern, ...]]
    per_marker: ClassVar[int] = 1

    def __init__(self) -> None:
        self.f = LogFacts(engine=self.engine)
        self.evidence = 0

    def feed(self, line) -> None:
        text = line.text
        if any(m in text for m in self.markers):
            self.evidence += self.per_marker
        hit = self.read(line)
        if self.f.version is None:
            m = next((m for p in self.versions if (m := p.search(text)) is not None), None)
            if m is not None:
                self.f.version = m.group(1)
                hit = True
        self.f.lines_read += hit

    def read(self, line) -> bool:
        raise NotImplementedError

    def facts(self) -> LogFacts:
        return self.f


class Engine:
    """A serving engine: its releases and, per release, its defaults, start-up memory
    accounting, KV paging, scheduler policy, host costs, launch commands and start-up log.
    One subclass per engine (``calc.deploy.engines.vllm``, ``.sglang``, ``.trtllm``)."""

    name: ClassVar[str]
    title: ClassVar[str]  # as the engine spells itself
    fraction_name: ClassVar[str]  # the engine's name of the memory fraction setting
    versions: ClassVar[VersionTable]
    # (versions, per_step_s, per_sequence_s[, source]): the host time of a step and, behind the
    # api front-end, per running sequence (calc.deploy.host_costs: fitted, sourced there; a row
    # without a source is the silicon-sample fit)
    host_steps: ClassVar[tuple[tuple, ...]] = ()
    # (versions, seconds): the engine core's host time per running sequence per step where it
    # is serial with the GPU, behind every front-end (calc.deploy.host_costs.with_core)
    host_core_sequence: ClassVar[tuple[tuple[VersionRange, float], ...]] = ()
    # (versions, seconds): under pipeline parallelism, host time per running sequence per
    # pipeline stage added to per_sequence_s × pp, for the releases whose PP path has it
    # (calc.deploy.host_costs.with_pipeline; none: not modelled)
    host_pp_sequence_stage: ClassVar[tuple[tuple[VersionRange, float], ...]] = ()
    # (versions, seconds): the engine loop's host time per running sequence per step on an x86
    # host where an overlap scheduler runs it beside the GPU's step, and where that figure comes
    # from (calc.deploy.host_costs.with_loop: exposed only beyond the GPU's step)
    host_loop_sequence: ClassVar[tuple[tuple[VersionRange, float], ...]] = ()
    host_loop_source: ClassVar[str] = LOOP_SOURCE
    # the releases whose engine, under pipeline parallelism, runs in the API front-end's own
    # process (one interpreter takes requests in and steps the engine: calc.serve's
    # Limits.intake_stalls_engine; none: the engine runs apart)
    front_end_in_engine_pp: ClassVar[tuple[VersionRange, ...]] = ()
    moe: ClassVar[MoePipeline] = TRITON_FUSED_MOE  # the fused-MoE layer's kernels

    # the kernel libraries its attention can run on an AMD GPU that kvcalc models (the names
    # of EngineSettings.rocm_kernels; () where the engine does not run on AMD GPUs) and the one
    # it runs when none is stated, from its own source: ``rocm_kernels_default`` unless a
    # release range of ``rocm_kernels_by_release`` (versions, name) holds the release
    rocm_kernels: ClassVar[tuple[str, ...]] = ()
    rocm_kernels_default: ClassVar[str | None] = None
    rocm_kernels_by_release: ClassVar[tuple[tuple[VersionRange, str], ...]] = ()
    # the EngineSettings that hold new requests back which the engine has (recv_interval,
    # batch_wait_iters, batch_wait_ratio; calc.serve.admission); () where it has none of them
    admission_settings: ClassVar[tuple[str, ...]] = ()
    # the EngineSettings of a hybrid model's recurrent-state pool the engine has
    # (mamba_ssm_dtype, max_mamba_cache_size); () where it has none of them
    state_settings: ClassVar[tuple[str, ...]] = ()
    # the EngineSettings that bound one prefill batch's prompt tokens which the engine has
    # (max_prefill_tokens; Engine.prefill_input_limit); () where it has none of them
    prefill_settings: ClassVar[tuple[str, ...]] = ()

    # (versions, calc.deploy.engines.accepts.PageRule): the KV page sizes each range of
    # releases takes, and (versions, accepts.KvRule): the KV-cache dtypes it has a value for;
    # () where not declared (nothing refused)
    page_rules: ClassVar[tuple] = ()
    kv_rules: ClassVar[tuple] = ()

    def rules(self, release: str):
        return self.versions.rules(release)

    def cannot_take(self, dep: Deployment) -> str | None:
        """Why ``dep``'s engine release refuses its stated KV page (``page_rules``) or its KV
        dtype (``kv_rules``), or None (``calc.deploy.engines.accepts``)."""
        from calc.deploy.engines.accepts import refusal

        return refusal(dep)

    def setting_notes(self, dep: Deployment, config: EngineConfig) -> list[str]:
        """What ``dep``'s engine release (``config``: its settings resolved) takes of those
        settings but may not run as kvcalc sized it (a page its kernels may refuse, a cache
        that stores more than kvcalc sizes)."""
        from calc.deploy.engines.accepts import notes

        return notes(dep, config.version)

    def rocm_default(self, release: str | None) -> str | None:
        """The kernel library ``release``'s attention runs on an AMD GPU when none is stated:
        the first range of ``rocm_kernels_by_release`` that holds it, else
        ``rocm_kernels_default``."""
        found = (name for r, name in self.rocm_kernels_by_release if r.holds(release))
        return next(found, self.rocm_kernels_default)

    def _rocm_default(self, release: str, hw) -> str | None:
        """``rocm_default(release)`` on an AMD GPU, None on any other or none."""
        from calc.deploy.engines.gpus import runs_rocm

        return self.rocm_default(release) if hw is not None and runs_rocm(hw) else None

    def attention_walk(self, kernels: str | None):
        """(seconds per tile, keys per program per tile) of the decode attention kernel that
        ``kernels`` (EngineSettings.rocm_kernels) runs where that kernel is bound by one
        workgroup's serial walk over the keys rather than by bandwidth, or None: the kernel
        is timed as kvcalc times attention (its roofline at the profile's bands)."""
        return None

    def prefill_attention_scale(self, kernels: str | None):
        """The time of the prefill attention kernel that ``kernels`` (EngineSettings.
        rocm_kernels) runs against kvcalc's attention roofline [×], or None: the roofline."""
        return None

    def attention_kernel_sources(self, kernels: str | None):
        """(source of ``attention_walk``'s tile time, source of ``prefill_attention_scale``)
        under ``kernels``, for ``--explain``; None where neither applies."""
        return None

    # whether the engine caps its pool at a token count (TensorRT-LLM's max_tokens)
    caps_pool_tokens: ClassVar[bool] = False
    # whether a step's running decode requests count against its token budget before the
    # prompts (calc.reports.throughput.budget_prompts_per_chunk)
    decode_in_token_budget: ClassVar[bool] = False

    def config(self, settings: EngineSettings, hw) -> EngineConfig:
        """The settings of ``settings.version`` on ``hw`` (None: no GPU) with the user's
        values over the release's defaults (``defaults``)."""
        found = self.versions.resolve(settings.version)
        d = self.defaults(self.rules(found.release), hw)
        chunked = settings.chunked_prefill
        if chunked is None:
            chunked = d.chunked_prefill
        return EngineConfig(
            engine=self.name,
            version=found.release,
            version_asked=found.asked,
            memory_fraction=settings.mem_util or d.memory_fraction,
            block_size=settings.block_size or d.block_size,
            max_batched_tokens=settings.max_batched_tokens or d.max_batched_tokens,
            max_num_seqs=settings.max_num_seqs or d.max_num_seqs,
            cuda_graphs=settings.cuda_graphs is not False,
            compile_cache=settings.compile_cache or "cold",
            max_model_len=settings.max_model_len,
            max_tokens=settings.max_tokens if self.caps_pool_tokens else None,
            chunked_prefill=chunked,
            rocm_kernels=settings.rocm_kernels or self._rocm_default(found.release, hw),
            recv_interval=settings.recv_interval or 1,
            batch_wait_iters=settings.batch_wait_iters or 0,
            batch_wait_ratio=settings.batch_wait_ratio or 0.0,
            warnings=(found.warning,) if found.warning else (),
        )

    def defaults(self, rules, hw) -> EngineDefaults:
        """What the release (``rules``) starts with on ``hw`` (None: no GPU) when the user
        sets nothing."""
        raise NotImplementedError

    def kv_pool(self, dep: Deployment, **measured) -> PoolPrediction:
        """The KV pool of ``dep``'s busiest GPU at start-up. ``measured`` (weights_bytes,
        activation_bytes, non_torch_bytes, usable_bytes) replace the modelled terms."""
        raise NotImplementedError

    def scheduler(self, release: str) -> SchedulerPolicy:
        raise NotImplementedError

    def host_costs(self, release: str | None, frontend: str = "api", pp: int = 1) -> HostCosts:
        """Per-step, per-sequence and per-request CPU costs of ``release`` (None: the latest)
        behind ``frontend`` ("api" or "offline"), from ``host_steps``, and under ``pp``
        pipeline stages the release's ``host_pp_sequence_stage`` per sequence per stage, plus
        the engine core's ``host_core_sequence`` and the overlapped loop's
        ``host_loop_sequence`` of the release (``calc.deploy.host_costs``)."""
        costs = compose(self.title, release, frontend, self.host_steps)
        core_s = core_sequence_s(self.host_core_sequence, release)
        costs = with_core(costs, core_s, self.title, release)
        pp_s = core_sequence_s(self.host_pp_sequence_stage, release)
        costs = with_pipeline(costs, pp, pp_s, self.title)
        loop_s = core_sequence_s(self.host_loop_sequence, release)
        return with_loop(costs, loop_s, self.title, release, self.host_loop_source)

    def front_end_in_engine(self, release: str | None, pp: int) -> bool:
        """Whether ``release`` under ``pp`` pipeline stages runs its engine in the API
        front-end's process (``front_end_in_engine_pp``), so the front-end's intake of
        requests stalls the engine."""
        return pp > 1 and any(r.holds(release) for r in self.front_end_in_engine_pp)

    def eager_prefill_layer_s(self, dep: Deployment) -> float:
        """The host time of issuing one layer of an eager pass with a prompt [s], where the
        engine's is measured for ``dep``'s kind of layer (``calc.deploy.host_costs``
        ``eager_prefill_layer_s``); 0: not measured, the pass's counted kernels stand."""
        return 0.0

    def cuda_graph_tokens(self, dep: Deployment) -> int | None:
        """The largest pass ``dep``'s engine replays as a CUDA graph at its default capture
        sizes [tokens] (None: not modelled; ``calc.serve.graphs`` says what a larger pass costs)."""
        return None

    def cuda_graph_batch_sizes(self, dep: Deployment) -> tuple[int, ...] | None:
        """The decode batches ``dep``'s engine captures at its defaults, where it declares a
        set rather than a threshold [sequences per rank], ascending; each replayed unpadded, a
        decode-only batch outside it eager (() without graphs; None: not declared, the
        threshold of ``cuda_graph_tokens`` holds)."""
        return None

    def rank_batched_tokens(self, config: EngineConfig, dp_attn: int) -> int:
        """Tokens one attention-data-parallel rank's step may hold [tokens]: each rank runs
        its own scheduler with the whole ``max_batched_tokens`` (TensorRT-LLM's PyExecutor
        per rank, vLLM's data-parallel engine cores)."""
        return config.max_batched_tokens

    # the GPU vendors the engine runs on (a profile's ``vendor``, upper case); () for any
    vendors: ClassVar[tuple[str, ...]] = ()

    def runs_on(self, hw) -> bool:
        """Whether the engine runs on ``hw``'s GPUs at all (its vendors; any where none is
        declared)."""
        return not self.vendors or str(hw.vendor).upper() in self.vendors

    def moe_runner(self, dep: Deployment):
        """The fused-MoE kernels ``dep``'s routed experts run on, as (name, why) in the
        engine's own words, where the engine picks them by model and GPU and the profile may
        hold a curve for each (``KernelCurves.moe_runner``); None: the engine's own curve as it
        is."""
        return None

    def moe_runner_past_overrides(self, dep: Deployment):
        """``moe_runner`` where the engine's log prints its MoE backend setting resolved and
        still 'auto' (the release's model overrides left it): the kernels the layer's own
        ``auto`` picks; by default ``moe_runner``'s."""
        return self.moe_runner(dep)

    def cannot_run_moe_backend(self, dep: Deployment) -> str | None:
        """Why ``dep``'s stated MoE backend (``EngineSettings.moe_backend``) cannot run its
        routed experts on its GPU, or None (nothing stated, or it can)."""
        return None

    def admission_hold(self, dep: Deployment) -> AdmissionHold:
        """What holds ``dep``'s new requests back (``AdmissionHold``): its stated settings as
        its engine config resolved them, the batch-wait threshold
        ``batch_wait_ratio × max_batched_tokens`` [tokens]."""
        ec = dep.engine_config
        return AdmissionHold(ec.recv_interval, ec.batch_wait_iters,
                             ec.batch_wait_ratio * ec.max_batched_tokens)  # fmt: skip

    def prefill_input_limit(self, dep: Deployment) -> PrefillInputLimit | None:
        """The new prompt tokens one prefill batch of ``dep`` takes in (``PrefillInputLimit``),
        or None where the engine bounds them only by its step budget."""
        return None

    def cannot_hold_back(self, dep: Deployment) -> str | None:
        """Why ``dep``'s engine release cannot run its stated admission settings
        (``admission_settings``: a release without them, a layout that refuses them), or None."""
        return None

    def cannot_size_state(self, dep: Deployment) -> str | None:
        """Why ``dep``'s engine release cannot take its stated state-pool settings
        (``state_settings``: a release before the option, a value its parser refuses), or
        None."""
        return None

    def cannot_start(self, dep: Deployment) -> str | None:
        """Why ``dep``'s engine release cannot start its layout (a parallel form its argument
        parser lacks, a mapping it refuses), or None where it can: what ``plan`` screens
        before it ranks and the launch builder raises."""
        return None

    def cannot_load(self, dep: Deployment) -> str | None:
        """Why ``dep``'s engine release cannot load its model's architecture (config.json
        ``architectures[0]``; calc.data.engine_architectures, read from each release's wheel),
        naming the releases that can, or None: where it can, the model states no
        architecture, or the engine's table or the architecture is unknown."""
        from calc.data.engine_architectures import loads, refusal
        from calc.deploy.engines.versions import parse_version

        ec, arch = dep.engine_config, dep.model.architecture
        why = refusal(self.name, ec.version, arch)
        asked = parse_version(ec.host_release)
        if why is None or asked is None or asked <= parse_version(ec.version):
            return why
        # a release between two modelled ones (SGLang 0.5.0 runs as 0.4.10): where the next
        # modelled release loads it, whether this one does is unknown: not refused
        rel = self.versions.releases
        after = rel.index(ec.version) + 1
        return why if after >= len(rel) or not loads(self.name, rel[after], arch) else None

    def cannot_disaggregate(self, dep: Deployment) -> str | None:
        """Why ``dep``'s engine release cannot run prefill/decode-disaggregated servers (an
        option its argument parser lacks), or None where it can: what ``plan`` screens before
        it sizes a disaggregated family."""
        return None

    def rank_running_requests(self, stated: int, dp_attn: int, release: str) -> int:
        """The running-request limit one attention-data-parallel rank holds when the server is
        started with ``stated`` [requests] (what its log or command states): the setting itself
        where each rank's scheduler takes it whole; an engine that splits it among the ranks
        says so."""
        return stated

    def graphs_decode_only(self, dep: Deployment) -> bool:
        """Whether ``dep``'s engine release captures decode passes only (a pass with a prompt
        chunk eager) on its layout (pipeline stages, attention, a multimodal model)."""
        return False

    def launch(self, dep: Deployment, plan) -> list[Command]:
        """The commands that start ``dep`` as ``plan`` (calc.deploy.engines.launch.LaunchPlan)
        says: one per node, role or replica set."""
        raise NotImplementedError

    def log_reader(self):
        """A fresh reader of this engine's start-up lines (``feed(line)``, ``facts()``)."""
        raise NotImplementedError

    def cold_compile_bytes(self, dep: Deployment) -> float:
        """What a cold torch.compile adds to ``dep``'s start-up memory over a warm one
        [bytes] (0: the release compiles nothing at start-up, or nothing that counts)."""
        return 0.0

    def kv_term(self) -> str:
        """Which predicted term the log's KV figure is: "kv_budget_bytes" (what is left for KV
        before paging) or "kv_pool_bytes" (the pool allocated)."""
        return "kv_pool_bytes"
