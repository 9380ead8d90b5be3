"""Parallelism: per-GPU shard sizes [elements, params] and collective times [s]. The memory
of the busiest GPU is the ledger's (``calc.deploy.ledger``).

Layout of a deployment (the conventions vLLM and SGLang use):

- ``--tp N`` (tensor parallel) splits every attention layer by heads and every FFN by its
  intermediate width over N GPUs. KV heads are split too; when a model has fewer KV heads
  than N each GPU holds one KV head (replicated N / n_kv_heads times), so GQA/MQA KV does
  not shrink below one head per GPU. MLA's latent is shared by all heads and is replicated on
  every GPU, as are the MLA down-projections (W_DQ, W_DKV), the norms and the MoE router.
  Vocabulary-parallel embedding and lm_head split the vocabulary. Each layer ends its
  attention and its FFN with an all-reduce of the hidden states: two per layer.
- ``--pp N`` (pipeline parallel) gives each stage ceil(n_layers / N) consecutive layers; one
  token still passes every stage, so a decode step's latency is the sum over all layers plus
  N − 1 stage-to-stage sends. Pipelining micro-batches raises throughput, not per-token
  latency, and is not modelled.
- ``--ep N`` (expert parallel) spreads the routed experts over N GPUs, whole (not split by
  width). When N > tp the extra factor N / tp is data parallelism of the attention (each
  replica serves batch / (N / tp) sequences), as in DeepSeek-V3's deployment. Dispatch and
  combine are two all-to-alls per MoE layer.

GPUs used = max(tp, ep) × pp. Collective times (interconnect bandwidth per direction B, a
per-hop latency α, a message of M bytes, N GPUs):

- ring all-reduce: 2(N−1)/N · M / B + 2(N−1) · α (reduce-scatter then all-gather, N−1 steps
  each);
- all-to-all (pairwise exchange): (N−1)/N · M / B + (N−1) · α;
- point-to-point send: M / B + α.

The interconnect rate is used at face value (no efficiency factor): the efficiency bands of a
profile describe the HBM and the tensor cores, not NVLink.

Serving steps (``calc.deploy.rates``) time a tensor-parallel all-reduce with NCCL's own cost
model instead of the bare ring (``allreduce_time_s``): for each protocol (LL, LL128, Simple) a
base latency, 2(N−1) hops of the protocol's per-hop latency and the ring's 2(N−1)/N · M at the
fraction of the link bandwidth the protocol reaches; NCCL runs the protocol of least time for
each message size, so decode-sized messages (kilobytes) take LL and prefill-sized ones Simple.
A group larger than the profile's scale-up domain (``scale_up_domain_gpus``: HGX 8, NVL72 72)
crosses the scale-out network: its inter-node hops take the network's latency and the ring its
bandwidth (``scale_out``), as NCCL's model does; an all-to-all whose group crosses uses the
scale-out bandwidth and latency, and so does every stage send of a pipeline whose GPUs
(max(tp, ep) × pp) span more than one domain (an upper bound: sends inside a domain are
charged at the network's rate too).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from calc.data.limits import MAX_PARALLEL, check_positive_int
from calc.data.model_schema import ModelConfig
from calc.errors import InvalidInputError
from calc.formulas.attention_layout import AttentionLayout
from calc.formulas.elementwise import cdiv
from calc.formulas.params import (
    attention_params,
    ffn_params,
    mla_attention_params,
    norm_params,
)


def ring_allreduce_time_s(message_bytes, n, bandwidth_bytes_per_s, latency_s):
    """Ring all-reduce of ``message_bytes`` over ``n`` GPUs [s]: 2(n−1)/n · M / B + 2(n−1)·α."""
    if n == 1:
        return 0 * message_bytes
    return 2 * (n - 1) / n * message_bytes / bandwidth_bytes_per_s + 2 * (n - 1) * latency_s


def all_to_all_time_s(message_bytes, n, bandwidth_bytes_per_s, latency_s):
    """All-to-all where each GPU holds ``message_bytes`` to scatter over ``n`` GPUs [s]:
    (n−1)/n · M / B + (n−1)·α (the 1/n addressed to itself stays local)."""
    if n == 1:
        return 0 * message_bytes
    return (n - 1) / n * message_bytes / bandwidth_bytes_per_s + (n - 1) * latency_s


def p2p_time_s(message_bytes, bandwidth_bytes_per_s, latency_s):
    """One point-to-point send (pipeline stage to stage) [s]: M / B + α."""
    return message_bytes / bandwidth_bytes_per_s + latency_s


@dataclass(frozen=True)
class Protocol:
    """One NCCL protocol's ring cost terms (NVIDIA/nccl src/graph/tuning.cc)."""

    name: str
    base_s: float  # baseLat[Ring][p]: fixed latency of one collective [s]
    nvlink_hop: float  # hwLat[NVLink][Ring][p] / hwLat[NVLink][Ring][LL128]
    net_hop: float  # hwLat[NET][Ring][p] / hwLat[NET][Ring][LL128]
    bandwidth_fraction: float  # of the link's bus bandwidth the protocol reaches (all-reduce)


# NVIDIA/nccl@01afd20a77b5804e0ecf1042509dd9d20ebf9e93 src/graph/tuning.cc: baseLat Ring
# {LL 3.6, LL128 10.0, Simple 8.4} us; hwLat NVLink Ring {0.47, 1.9, 3.4} us, NET Ring
# {2.7, 4.0, 9.6} us; busBw × 1/4 for LL all-reduce, × 0.92 (120/128) for LL128. The profiles
# give the LL128 hop (interconnect_latency_s, scale_out.latency_s); the other protocols' hops
# scale by NCCL's ratios.
NCCL_PROTOCOLS = (
    Protocol("LL", 3.6e-6, 0.47 / 1.9, 2.7 / 4.0, 0.25),
    Protocol("LL128", 10.0e-6, 1.0, 1.0, 0.92),
    Protocol("Simple", 8.4e-6, 3.4 / 1.9, 9.6 / 4.0, 1.0),
)
LL_MULTINODE_INTRA_HOP = 1.8  # tuning.cc: intraLat *= 1.8 for LL when nNodes > 1


def from_lower(message_bytes, lo: float | None, strict: bool = False):
    """Whether a message is at or above a stage's lower end ``lo`` (above it where ``strict``;
    None: no lower end); element-wise for arrays."""
    if lo is None:
        return message_bytes >= 0
    return message_bytes > lo if strict else message_bytes >= lo


@dataclass(frozen=True)
class ArStage:
    """One algorithm in an engine's order of choice for an all-reduce: ``own`` (its one-shot /
    two-shot kernels: vLLM's custom all-reduce, FlashInfer's), ``symm`` (PyTorch symmetric
    memory: multimem/NVLS where ``multimem``, else two-shot through peer memory) or ``nccl``;
    it takes a message below ``max_bytes`` (up to it where ``inclusive``; None: any size);
    ``curve``: the engine whose own measured all-reduce curve times the stage
    (``KernelCurves.allreduce_engine``; None: ``allreduce.custom``)."""

    algorithm: str
    max_bytes: float | None = None
    inclusive: bool = False
    multimem: bool = False
    curve: str | None = None

    def fits(self, message_bytes):
        if self.max_bytes is None:
            return message_bytes >= 0
        if self.inclusive:
            return message_bytes <= self.max_bytes
        return message_bytes < self.max_bytes


@dataclass(frozen=True)
class Link:
    """The links one GPU's collectives use: the scale-up link (per direction [bytes/s], one
    LL128 ring hop [s]) within ``domain_gpus`` GPUs, and the scale-out network beyond it;
    ``custom``: the engine's own all-reduce kernels may run inside the domain; ``multicast``:
    the switch reduces and multicasts (NVLS)."""

    bandwidth_bytes_per_s: float
    latency_s: float
    domain_gpus: int | None = None
    net_bandwidth_bytes_per_s: float | None = None
    net_latency_s: float | None = None
    custom: bool = False
    multicast: bool = False
    custom_inclusive: bool = False  # the engine's kernels take a message of their buffer's size
    # the engine release's declared choice by group size (``ArStage``s in its order of choice;
    # None: least time over NCCL and the engine's kernels below their buffer)
    route: tuple[tuple[int, tuple[ArStage, ...] | None], ...] | None = None

    def stages(self, n: int) -> tuple[ArStage, ...] | None:
        """The declared all-reduce choice for a group of ``n`` GPUs (None: none declared; a
        size the route leaves out takes its ``ANY_OTHER`` entry, else ``DEFAULT_STAGES``; an
        ``ANY_OTHER`` of None leaves those sizes undeclared)."""
        if self.route is None:
            return None
        route = dict(self.route)
        return route.get(n, route.get(ANY_OTHER, DEFAULT_STAGES))

    def nodes(self, n: int) -> int:
        """Scale-up domains a group of ``n`` GPUs spans (1 without a known network)."""
        if self.domain_gpus is None or self.net_bandwidth_bytes_per_s is None:
            return 1
        return cdiv(n, self.domain_gpus)

    def crossing(self, n: int) -> tuple[float, float]:
        """(bandwidth, latency) of a group of ``n`` GPUs: the network's when it spans nodes."""
        if self.nodes(n) > 1:
            return self.net_bandwidth_bytes_per_s, self.net_latency_s
        return self.bandwidth_bytes_per_s, self.latency_s


@dataclass(frozen=True)
class AllReduceCost:
    """One all-reduce under one protocol or algorithm: time = latency_s + steps / n · M /
    bandwidth, for messages below ``max_bytes`` (up to it where ``inclusive``; None: any size;
    beyond, never chosen)."""

    protocol: str
    latency_s: float
    steps: int
    n: int
    bandwidth_bytes_per_s: float
    max_bytes: float | None = None
    inclusive: bool = False  # a message of max_bytes itself is taken (TensorRT-LLM)
    # a declared choice's lower end: messages from min_bytes (above it where min_exclusive)
    min_bytes: float | None = None
    min_exclusive: bool = False

    def time_s(self, message_bytes):
        t = self.latency_s + self.steps / self.n * message_bytes / self.bandwidth_bytes_per_s
        if self.max_bytes is None and self.min_bytes is None:
            return t
        fits = message_bytes >= 0
        if self.max_bytes is not None:
            fits = ArStage("", self.max_bytes, self.inclusive).fits(message_bytes)
        if self.min_bytes is not None:
            fits = fits & from_lower(message_bytes, self.min_bytes, self.min_exclusive)
        if hasattr(message_bytes, "shape"):
            import numpy as np

            return np.where(fits, t, np.inf)
        return t if fits else math.inf


# The engines' own all-reduce kernels inside one NVLink domain (vLLM csrc/custom_all_reduce.cuh,
# ported by SGLang; TensorRT-LLM's ONESHOT/TWOSHOT strategies), an α–β model each. A barrier
# is a flag written to every peer over NVLink and polled: one LL-protocol hop (NCCL's
# hwLat[NVLink][Ring][LL], 0.47 / 1.9 of the profile's LL128 hop).
#   one-shot: every GPU reads all n − 1 peers' whole buffers and reduces: 2 barriers +
#     (n − 1) · M / B;
#   two-shot: reduce-scatter then all-gather through peer memory: 3 barriers +
#     2 (n − 1) / n · M / B;
#   NVLS (multimem, where the switch reduces and multicasts): 2 barriers + 2 (n − 1) / n · M / B
#     (the switch saves the GPUs' reduction work and hops, not link bytes: nccl-tests on an
#     8 × H100 board put NVLS all-reduce's bus bandwidth near 480 GB/s, about the link's 450
#     GB/s per direction, against ~360 GB/s for the ring).
# One-shot and two-shot run below vLLM's buffer, 8 MiB (custom_all_reduce.py max_size); the
# engine picks by message size, which the least time stands for here. A message of 8 MiB or
# more goes to NCCL in vLLM and SGLang: should_custom_ar returns inp_size < max_size (vllm
# 0.8.3 distributed/device_communicators/custom_all_reduce.py; SGLang 0.4.0's copy,
# srt/distributed/device_communicators/custom_all_reduce.py, the same), so a pass of exactly
# 8 MiB a rank (Llama-3.1-405B's 256 tokens × 16,384 × 2 bytes) runs NCCL there (SGLang
# takes it on its kernels from 0.5.9: inp_size <= max_size). The releases' declared choices
# (``engine_route``) replace this default: TensorRT-LLM's AUTO stops at its 8,000,000 B
# workspace above TP 2, so that 8 MiB pass runs NCCL there too.
CUSTOM_MAX_BYTES = 8 * 1024 * 1024


# TensorRT-LLM keeps a message of exactly its buffer on its own kernels: its
# AllreducePlugin::selectImplementation goes to the ring only when messageSize >
# maxWorkspaceSize (cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp)
CUSTOM_INCLUSIVE_ENGINES = ("trtllm",)


def custom_fits(message_bytes, engine: str | None = None):
    """Whether ``engine``'s own all-reduce takes a message of ``message_bytes``: below
    ``CUSTOM_MAX_BYTES`` (vLLM, SGLang), up to it (TensorRT-LLM); element-wise for arrays."""
    return ArStage("own", CUSTOM_MAX_BYTES, engine in CUSTOM_INCLUSIVE_ENGINES).fits(message_bytes)


BARRIER_HOP = 0.47 / 1.9

# an engine with no declared choice for a group size: its own kernels below their 8 MiB
# buffer, NCCL beyond
DEFAULT_STAGES = (ArStage("own", CUSTOM_MAX_BYTES), ArStage("nccl"))
# a route's entry for every group size it does not list (an engine whose own kernels run at
# listed world sizes only: the others take NCCL)
ANY_OTHER = 0
NCCL_ONLY = (ArStage("nccl"),)


def stage_windows(stages) -> list[tuple[ArStage, float | None, bool]]:
    """Each stage of an order of choice with the messages it actually takes: (stage, lower
    end, lower end excluded), the lower end being the largest limit of the stages before it
    (a message an earlier stage takes never reaches a later one); stages left nothing drop."""
    out, lo, strict = [], None, False
    for st in stages:
        if st.max_bytes is not None and lo is not None and (
            st.max_bytes < lo or (st.max_bytes == lo and (strict or not st.inclusive))
        ):
            continue
        out.append((st, lo, strict))
        if st.max_bytes is None:
            break
        if lo is None or st.max_bytes > lo or (st.max_bytes == lo and st.inclusive):
            lo, strict = st.max_bytes, st.inclusive
    return out


def engine_route(rules, capability: tuple[int, int] | None, rocm: bool = False):
    """An engine release's declared all-reduce choice on a GPU of compute ``capability``
    (``rocm``: an AMD GPU), as ``Link.route`` takes it, from its rules' ``allreduce_*``
    fields: vLLM's (``calc.deploy.engines.vllm.rules``), SGLang's and TensorRT-LLM's
    (``_sglang_route``, ``_trtllm_route``); None where the rules declare none (the least time
    stands for the engine's choice)."""
    if hasattr(rules, "allreduce_custom_bytes"):
        return _sglang_route(rules, rocm)
    if hasattr(rules, "allreduce_auto_max"):
        return _trtllm_route(rules)
    if not hasattr(rules, "allreduce_custom_max"):
        return None
    key = "" if capability is None else f"{capability[0]}.{capability[1]}"

    def table(name):
        return dict(dict(getattr(rules, name)).get(key, ()))

    fi, custom, symm = (table(f"allreduce_{k}_max") for k in ("flashinfer", "custom", "symm"))
    multimem = dict(rules.allreduce_symm_multimem).get(key, ())
    sizes = rules.allreduce_custom_world_sizes
    route = []
    for n in sorted(set(fi) | set(custom) | set(symm) | set(sizes)):
        stages = []
        if n in fi:
            stages.append(ArStage("own", fi[n], True))
        if n in sizes:  # custom_all_reduce.py _SUPPORTED_WORLD_SIZES
            stages.append(ArStage("own", custom.get(n, CUSTOM_MAX_BYTES)))
        if n in symm:
            stages.append(ArStage("symm", symm[n], rules.allreduce_symm_inclusive, n in multimem))
        stages.append(ArStage("nccl"))
        route.append((n, tuple(stages)))
    return (*route, (ANY_OTHER, NCCL_ONLY))


def _sglang_route(rules, rocm: bool):
    """SGLang's choice: its custom all-reduce (vLLM's kernels) up to its buffer at the world
    sizes it supports, NCCL beyond and at any other size."""
    buffer = rules.allreduce_custom_rocm_bytes if rocm else rules.allreduce_custom_bytes
    own = ArStage("own", buffer, rules.allreduce_custom_inclusive)
    return (*((n, (own, ArStage("nccl"))) for n in rules.allreduce_custom_world_sizes),
            (ANY_OTHER, NCCL_ONLY))  # fmt: skip


def _trtllm_route(rules):
    """TensorRT-LLM's AUTO choice: its one-shot/two-shot kernels up to ``allreduce_auto_max``
    (inclusive) at the group sizes it lists, NCCL beyond; other sizes undeclared (MNNVL and
    NCCL's symmetric kernels are not modelled: the least time stands for them)."""
    own = rules.allreduce_curve  # its measured table's curve, where the profile has one
    stages = [(n, (ArStage("own", b, True, curve=own), ArStage("nccl")))
              for n, b in rules.allreduce_auto_max]  # fmt: skip
    return (*stages, (ANY_OTHER, None))


def custom_allreduce_costs(n: int, link: Link) -> list[AllReduceCost]:
    """The engine's one-shot, two-shot and (with multicast) NVLS costs over ``n`` GPUs, or
    none when the group leaves the NVLink domain or the engine runs NCCL alone."""
    inside = link.domain_gpus is not None and 2 <= n <= link.domain_gpus
    if not link.custom or not inside:
        return []
    hop, bw = link.latency_s * BARRIER_HOP, link.bandwidth_bytes_per_s
    upto = link.custom_inclusive
    costs = [
        AllReduceCost("one-shot", 2 * hop, n * (n - 1), n, bw, CUSTOM_MAX_BYTES, upto),
        AllReduceCost("two-shot", 3 * hop, 2 * (n - 1), n, bw, CUSTOM_MAX_BYTES, upto),
    ]
    if link.multicast:
        costs.append(AllReduceCost("NVLS", 2 * hop, 2 * (n - 1), n, bw))
    return costs


def _nccl_costs(n: int, link: Link) -> list[AllReduceCost]:
    nodes = link.nodes(n)
    steps = 2 * (n - 1)
    inter = 2 * (nodes - 1)
    bw = link.net_bandwidth_bytes_per_s if nodes > 1 else link.bandwidth_bytes_per_s
    costs = []
    for p in NCCL_PROTOCOLS:
        intra_hop = link.latency_s * p.nvlink_hop
        if nodes > 1 and p.name == "LL":
            intra_hop *= LL_MULTINODE_INTRA_HOP
        lat = p.base_s + (steps - inter) * intra_hop
        if inter:
            lat += inter * link.net_latency_s * p.net_hop
        costs.append(AllReduceCost(p.name, lat, steps, n, bw * p.bandwidth_fraction))
    return costs


def _declared_costs(n: int, link: Link, stages) -> list[AllReduceCost]:
    """The cost terms of a declared order of choice: each stage's algorithm(s) over the
    messages it takes (``stage_windows``); the engine's kernels only inside the domain."""
    inside = link.custom and link.domain_gpus is not None and 2 <= n <= link.domain_gpus
    hop, bw = link.latency_s * BARRIER_HOP, link.bandwidth_bytes_per_s
    out = []
    for st, lo, strict in stage_windows(stages if inside else (ArStage("nccl"),)):
        if st.algorithm == "nccl":
            terms = _nccl_costs(n, link)
        elif st.algorithm == "symm" and st.multimem and link.multicast:
            terms = [AllReduceCost("NVLS", 2 * hop, 2 * (n - 1), n, bw)]
        elif st.algorithm == "symm":
            terms = [AllReduceCost("symm two-shot", 3 * hop, 2 * (n - 1), n, bw)]
        else:
            terms = [AllReduceCost("one-shot", 2 * hop, n * (n - 1), n, bw),
                     AllReduceCost("two-shot", 3 * hop, 2 * (n - 1), n, bw)]  # fmt: skip
        out += [replace(c, max_bytes=st.max_bytes, inclusive=st.inclusive, min_bytes=lo,
                        min_exclusive=strict) for c in terms]  # fmt: skip
    return out


def allreduce_costs(n: int, link: Link) -> list[AllReduceCost]:
    """The all-reduce cost terms over ``n`` GPUs on ``link``: the engine release's declared
    choice by message size where ``link.route`` gives one, else NCCL's ring for each
    protocol and the engine's own kernels (least time)."""
    stages = link.stages(n)
    if stages is not None:
        return _declared_costs(n, link, stages)
    return _nccl_costs(n, link) + custom_allreduce_costs(n, link)


def allreduce_cost(message_bytes: float, n: int, link: Link) -> AllReduceCost:
    """The protocol or algorithm picked for one all-reduce of ``message_bytes`` (least time:
    NCCL's protocols, and the engine's own kernels where ``link`` allows them)."""
    return min(allreduce_costs(n, link), key=lambda c: c.time_s(message_bytes))


def allreduce_time_s(message_bytes, n: int, link: Link):
    """All-reduce of ``message_bytes`` over ``n`` GPUs [s]: the least time over NCCL's
    protocols and the engine's own kernels (``allreduce_costs``; element-wise for arrays); 0
    for one GPU."""
    if n == 1:
        return 0 * message_bytes
    times = [c.time_s(message_bytes) for c in allreduce_costs(n, link)]
    if hasattr(message_bytes, "shape"):
        import numpy as np

        return np.minimum.reduce(times)
    return min(times)


def _check_ssm_tp(cfg: ModelConfig, tp: int) -> None:
    """TP splits a Mamba mixer by inner channels (Mamba-1) or heads (Mamba-2); Mamba-2's B/C
    groups split too, or are replicated when there is a single group (vLLM's rule)."""
    from calc.formulas.ssm import ssm_d_inner

    la = cfg.linear_attention
    if la is not None and tp > 1 and (la.n_value_heads % tp or la.n_key_heads % tp):
        raise InvalidInputError(
            f"--tp {tp} must divide the {la.n_key_heads} key and {la.n_value_heads} value "
            f"heads of {cfg.name}'s linear-attention layers"
        )
    s = cfg.ssm
    if s is None or tp == 1:
        return
    if cfg.n_layers_of("mamba2"):
        if s.n_heads % tp:
            raise InvalidInputError(
                f"--tp {tp} does not divide the {s.n_heads} Mamba-2 heads of {cfg.name}"
            )
        if s.n_groups % tp and s.n_groups != 1:
            raise InvalidInputError(
                f"--tp {tp} must divide the {s.n_groups} Mamba-2 B/C groups of {cfg.name} "
                "(or the model must have a single group, which is replicated)"
            )
    if cfg.n_layers_of("mamba") and ssm_d_inner(s, cfg.d_model) % tp:
        raise InvalidInputError(
            f"--tp {tp} does not divide the {ssm_d_inner(s, cfg.d_model)} Mamba inner "
            f"channels of {cfg.name}"
        )


@dataclass(frozen=True)
class Sharding:
    """Per-GPU shapes of one model under tp × pp × ep (see the module docstring)."""

    tp: int
    pp: int
    ep: int
    gpus: int
    dp_attn: int  # attention replicas inside one stage (ep / tp when ep > tp)
    n_heads: int  # query heads per GPU
    n_kv_heads: int  # KV heads per GPU (>= 1: replicated when fewer than tp); MLA: 1 latent
    d_ffn: int  # dense FFN width per GPU
    n_experts: int  # routed experts per GPU
    d_expert_ffn: int  # width of one routed expert on a GPU
    d_shared_ffn: int  # width of one shared expert on a GPU
    vocab: int  # vocabulary rows per GPU (embedding and lm_head)
    layers_per_stage: int


def shard(cfg: ModelConfig, *, tp: int = 1, pp: int = 1, ep: int = 1) -> Sharding:
    """Validate ``tp``/``pp``/``ep`` for ``cfg`` and return the per-GPU shapes."""
    for name, value in (("tp", tp), ("pp", pp), ("ep", ep)):
        check_positive_int(name, value, MAX_PARALLEL)
    if cfg.n_heads % tp:
        ok = [n for n in range(1, min(cfg.n_heads, 64) + 1) if cfg.n_heads % n == 0]
        raise InvalidInputError(
            f"--tp {tp} does not divide the {cfg.n_heads} attention heads of {cfg.name}; "
            f"use one of: {', '.join(map(str, ok))}"
        )
    kv = cfg.n_kv_heads
    if cfg.mla is None and (kv % tp if kv >= tp else tp % kv):
        raise InvalidInputError(
            f"--tp {tp} must divide the {kv} KV heads of {cfg.name} or be a multiple of it "
            "(KV heads are split, or replicated when fewer than --tp)"
        )
    _check_ssm_tp(cfg, tp)
    if pp > cfg.n_layers:
        raise InvalidInputError(f"--pp {pp} exceeds the {cfg.n_layers} layers of {cfg.name}")
    moe = cfg.moe
    if ep > 1:
        if moe is None:
            raise InvalidInputError(
                f"--ep {ep} needs a mixture-of-experts model; {cfg.name} is dense"
            )
        if moe.n_routed_experts % ep:
            raise InvalidInputError(
                f"--ep {ep} must divide the {moe.n_routed_experts} routed experts of {cfg.name}"
            )
        if max(tp, ep) % min(tp, ep):
            raise InvalidInputError(f"--ep {ep} and --tp {tp}: one must be a multiple of the other")
    ffn_tp = 1 if ep > 1 else tp  # experts are whole under EP, split by width under TP
    return Sharding(
        tp=tp,
        pp=pp,
        ep=ep,
        gpus=max(tp, ep) * pp,
        dp_attn=max(1, ep // tp),
        n_heads=cfg.n_heads // tp,
        n_kv_heads=1 if cfg.mla is not None else cdiv(kv, tp),
        d_ffn=cdiv(cfg.d_ffn, tp),
        n_experts=0 if moe is None else moe.n_routed_experts // ep,
        d_expert_ffn=0 if moe is None else cdiv(moe.d_expert_ffn, ffn_tp),
        d_shared_ffn=0 if moe is None else cdiv(moe.shared_ffn, tp),
        vocab=cdiv(cfg.vocab_size, tp),
        layers_per_stage=cdiv(cfg.n_layers, pp),
    )


def sharded_layout(layout: AttentionLayout, s: Sharding, n_layers: int) -> AttentionLayout:
    """The per-GPU cached-attention shape: KV heads per GPU over ``n_layers`` layers (MLA's
    latent is not split). KV sizes then come from the layout itself, never re-derived.

    ``n_layers`` counts model layers. Where not every model layer is a full-attention KV
    layer (sliding/chunked windows, SSM or MLP-only layers), the layout's caching layers and
    window groups are scaled by n_layers / model layers: one layer is the per-layer average,
    so ``L ×`` it is the model's exact total.
    """
    kv_heads = s.n_kv_heads if layout.kind != "mla" else 1
    total = layout.n_model_layers or layout.n_layers
    if not layout.windowed and layout.n_layers == total:
        return replace(layout, n_kv_heads=kv_heads, n_layers=n_layers, n_model_layers=n_layers)
    return replace(
        layout,
        n_kv_heads=kv_heads,
        n_layers=layout.n_layers * n_layers / total,
        windowed=tuple((cap, n * n_layers / total) for cap, n in layout.windowed),
        n_model_layers=n_layers,
    )


def layer_attention_params_per_gpu(cfg: ModelConfig, s: Sharding) -> int:
    """Attention weights of one layer held by one GPU [params] (q/k norms replicate; learned
    sinks split with the heads; a sparse-attention indexer is replicated)."""
    from calc.formulas.params import layer_indexer_params, layer_qk_norm_params

    extra = (
        layer_qk_norm_params(cfg) + s.n_heads * cfg.attention_sinks + layer_indexer_params(cfg)
    )
    if cfg.mla is not None:
        m = cfg.mla
        return extra + mla_attention_params(
            cfg.d_model,
            s.n_heads,
            m.kv_lora_rank,
            m.q_lora_rank or 0,
            m.qk_rope_head_dim,
            m.qk_nope_head_dim,
            m.v_head_dim,
        )
    return extra + attention_params(
        cfg.d_model, s.n_heads, s.n_kv_heads, cfg.k_head_dim, cfg.qkv_bias, cfg.o_bias,
        cfg.attn_output_gate,
    )  # fmt: skip


def params_per_gpu_by_component(cfg: ModelConfig, s: Sharding) -> dict[str, int]:
    """Weights on the busiest GPU by component [params] (the names of
    ``calc.deploy.checkpoint.COMPONENTS``): its stage's layers (MoE layers first, since they are the
    heaviest), its shard of each, the embedding and lm_head (both at pp = 1; one vocabulary
    table at the first/last stage when pp > 1), the norms, and its 1/tp share of the
    vision/audio towers (held by the first stage; counted on the busiest GPU as an upper
    bound).

    At tp = pp = ep = 1 each entry equals ``calc.deploy.checkpoint.params_by_component(cfg)``'s.
    """
    from calc.formulas.params import (
        expert_params,
        latent_projection_params,
        router_params,
        tower_config_params,
    )

    gated = cfg.ffn_kind == "gated"
    d = cfg.d_model
    layers = s.layers_per_stage
    if cfg.layers == ("full",) * cfg.n_layers and cfg.ffn_per_layer:
        n_moe = min(layers, cfg.n_moe_layers)
        n_dense = layers - n_moe
        n_attn, ssm = layers, 0
    else:  # hybrid / patterned models: the busiest stage of contiguous layers, exactly
        from calc.data.model_schema import SSM_LAYER_TYPES
        from calc.formulas.ssm import layer_ssm_params

        def stage(k: int) -> tuple[int, int, int, int]:
            idx = range(k * layers, min((k + 1) * layers, cfg.n_layers))
            moe = sum(1 for i in idx if cfg.is_moe_layer(i))
            dense = sum(1 for i in idx if cfg.has_ffn(i)) - moe
            attn = sum(1 for i in idx if cfg.layers[i] in ("full", "sliding", "chunked"))
            # SSM mixers split over TP by heads/channels (calc.formulas.ssm.mixer_shape)
            ssm_p = sum(
                layer_ssm_params(cfg, cfg.layers[i], s.tp)
                for i in idx
                if cfg.layers[i] in SSM_LAYER_TYPES
            )
            return moe, dense, attn, ssm_p

        n_moe, n_dense, n_attn, ssm = max(
            (stage(k) for k in range(cdiv(cfg.n_layers, layers))),
            key=lambda t: (t[0], t[1] + t[2], t[3]),
        )
    routed = shared = router = 0
    if cfg.moe is not None:
        m = cfg.moe
        # latent MoE: experts in the latent space, its two projections replicated
        routed = s.n_experts * expert_params(cfg, s.d_expert_ffn) + latent_projection_params(
            d, m.d_latent
        )
        shared = m.n_shared_experts * ffn_params(d, s.d_shared_ffn, gated)
        router = router_params(
            d, m.n_routed_experts, m.router_bias, m.shared_expert_gate and m.n_shared_experts > 0
        )
    from calc.formulas.params import attention_norm_params

    table = s.vocab * d
    attn_norms = n_attn * attention_norm_params(cfg)  # replicated, stored as norms
    return {
        "embedding": table,
        "lm_head": (table if s.pp == 1 and not cfg.tie_embeddings else 0)
        + s.vocab * cfg.lm_head_bias,
        "attention": n_attn * layer_attention_params_per_gpu(cfg, s) - attn_norms,
        "dense_ffn": n_dense * ffn_params(d, s.d_ffn, gated, cfg.ffn_bias),
        "routed_experts": n_moe * routed,
        "shared_experts": n_moe * shared,
        "router": n_moe * router,
        "ssm": ssm,
        "norms": (layers * cfg.norms_per_layer + 1) * norm_params(d, cfg.norm == "layernorm")
        + attn_norms,
        "vision": cdiv(tower_config_params(cfg.vision), s.tp),
        "audio": cdiv(tower_config_params(cfg.audio), s.tp),
    }


def params_per_gpu(cfg: ModelConfig, s: Sharding) -> int:
    """Weights on the busiest GPU [params]: the sum of ``params_per_gpu_by_component``.

    At tp = pp = ep = 1 this equals ``model_params(cfg).total``.
    """
    return sum(params_per_gpu_by_component(cfg, s).values())
