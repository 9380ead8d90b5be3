"""The link each collective of a training step crosses [bytes/s, s] and one collective's time
on it [s], from the layout of the ranks and the profile's scale-up domain and network.

Ranks are laid out as Megatron-Core lays them by default (``initialize_model_parallel``,
``order="tp-cp-ep-dp-pp"``): TP innermost (consecutive ranks), then CP, then DP, PP outermost;
PyTorch FSDP and DeepSpeed ZeRO, data-parallel alone, shard over consecutive ranks the same
way. So a TP group is ``tp`` consecutive ranks, the gradients' group (DP × CP) ``dp × cp``
ranks ``tp`` apart, a pipeline ``pp`` ranks ``tp × cp × dp`` apart, and an expert-parallel
group ``ep`` consecutive ranks (experts whole on each rank, expert TP 1, as the memory model
shards them: calc.training.states).

A group of ``n`` ranks ``s`` apart lies in ``n × s`` consecutive ranks. It stays inside one
scale-up domain of ``D`` GPUs (NVLink/NVSwitch, xGMI: ``scale_up_domain_gpus``) when
``n × s ≤ D`` (the blocks aligned with the domains, as powers of two are on 8-GPU boards),
and its collectives run on that link: at the profile's measured NCCL curves where they have
its GPU count (``kernels.allreduce.nccl``, ``kernels.gather``), else the ring at the link's
rate. Beyond it each domain holds ``g = min(n, max(1, D // s))`` of the
group's ranks and the collective crosses the scale-out network [1]:

- NCCL's ring runs its channels through the NICs of those ``g`` GPUs (one NIC per GPU in the
  profiles' ``scale_out``), so its bus bandwidth is ``min(scale-up rate, g × network rate per
  GPU)`` (tuning.cc: ``busBw = nChannels × speedInter`` across nodes), and no more than the
  measured curve's best bus bandwidth at ``g`` GPUs where the profile has one (the ring's
  scale-up leg runs as it does inside a domain); a group with one rank per domain (DP under
  TP 8 on 8-GPU boards) runs at one NIC's rate;
- its ring steps are ``n − nodes`` scale-up hops and ``nodes − 1`` network hops for a
  reduce-scatter or an all-gather, twice as many of each for an all-reduce (tuning.cc's
  latency ``(nsteps − nInterSteps) × intraLat + nInterSteps × interLat``): the mean hop is
  ``((n − nodes) × α_up + (nodes − 1) × α_net) / (n − 1)``;
- a pipeline send and an all-to-all leave through the sender's own NIC: the network's rate
  per GPU. A pipeline whose stages span domains is paced by its slowest boundary, one that
  crosses.

Where the profile states no domain, TP and EP stay on the scale-up link and DP and PP cross
the network (kvcalc's rule before this module). The network rate is ``--network-bandwidth``
where given, else the profile's ``scale_out`` rate, else 50 GB/s.

References: [1] NVIDIA/nccl@01afd20a src/graph/tuning.cc ``ncclTopoTuneModel`` (bus bandwidth
from ``nChannels × speedInter`` across nodes; the ring's nsteps 2(n − 1) for all-reduce,
n − 1 for reduce-scatter and all-gather; the latency split between intra- and inter-node
steps).
"""

from __future__ import annotations

from dataclasses import dataclass

from calc.deploy.parallel import all_to_all_time_s, p2p_time_s, ring_allreduce_time_s
from calc.formulas import kernel_curves as kc
from calc.formulas.elementwise import cdiv


@dataclass(frozen=True)
class GroupLink:
    """The link one group's collectives cross: ``n`` ranks over ``nodes`` scale-up domains,
    the ring's bus bandwidth [bytes/s] and mean step [s], one GPU's own rate for sends and
    all-to-alls [bytes/s], and the measured NCCL curves where the group stays in one domain."""

    n: int
    nodes: int
    per_node: int  # the group's ranks in one domain
    bandwidth_bytes_per_s: float
    latency_s: float
    p2p_bytes_per_s: float
    p2p_latency_s: float
    # the profile's KernelCurves: the collective's time inside one domain, a cap on the ring's
    # rate across domains
    curves: object = None

    @property
    def where(self) -> str:
        """The link in words."""
        if self.nodes == 1:
            measured = self._segments(getattr(self.curves, "allreduce", None), "nccl")
            return "scale-up link" + (" (NCCL's measured curves)" if measured else "")
        ranks = f"{self.per_node} rank" + ("s" if self.per_node > 1 else "")
        return f"network ({self.nodes} domains, {ranks} each)"

    def _segments(self, table, key: str, n: int | None = None):
        curve = None if table is None else table.get(key)
        return None if curve is None else curve.segments.get(self.n if n is None else n)

    def _ring_bandwidth(self, table, key: str) -> float:
        """The ring's bus bandwidth across domains [bytes/s]: no more than the measured
        curve's best within one domain at the ranks a domain holds, where it has them (the
        scale-up leg of the ring runs as it does inside one)."""
        segs = self._segments(table, key, self.per_node)
        best = max(bw for _, bw in segs) if segs else self.bandwidth_bytes_per_s
        return min(self.bandwidth_bytes_per_s, best)

    def allreduce_s(self, message_bytes):
        """One all-reduce of ``message_bytes`` over the group [s]."""
        if self.n == 1:
            return 0.0
        table = getattr(self.curves, "allreduce", None)
        segs = self._segments(table, "nccl") if self.nodes == 1 else None
        if segs:
            return min(kc.allreduce_segment_time_s(message_bytes, self.n, lat, bw)
                       for lat, bw in segs)  # fmt: skip
        return ring_allreduce_time_s(
            message_bytes, self.n, self._ring_bandwidth(table, "nccl"), self.latency_s
        )

    def _half(self, key: str, message_bytes):
        """A reduce-scatter or all-gather (``key``) of a ``message_bytes`` buffer [s]: the
        measured curve, else half the ring all-reduce ((n − 1)/n · M / B + (n − 1) · α)."""
        if self.n == 1:
            return 0.0
        table = getattr(self.curves, "gather", None)
        segs = self._segments(table, key) if self.nodes == 1 else None
        if segs:
            return min(kc.gather_segment_time_s(message_bytes, self.n, lat, bw)
                       for lat, bw in segs)  # fmt: skip
        return (
            ring_allreduce_time_s(
                message_bytes, self.n, self._ring_bandwidth(table, key), self.latency_s
            )
            / 2
        )

    def reduce_scatter_s(self, message_bytes):
        return self._half("reduce_scatter", message_bytes)

    def all_gather_s(self, message_bytes):
        return self._half("all_gather", message_bytes)

    def all_to_all_s(self, message_bytes):
        """An all-to-all of ``message_bytes`` per GPU over the group [s]."""
        return all_to_all_time_s(message_bytes, self.n, self.p2p_bytes_per_s, self.p2p_latency_s)

    def send_s(self, message_bytes):
        """One send between neighbouring ranks of the group [s]."""
        return p2p_time_s(message_bytes, self.p2p_bytes_per_s, self.p2p_latency_s)


def group_link(n: int, stride: int, domain: int | None, up: tuple[float, float],
               net: tuple[float, float], curves=None) -> GroupLink:  # fmt: skip
    """The link of ``n`` ranks ``stride`` apart with ``domain`` GPUs to a scale-up domain
    (None: every group of two or more crosses), ``up`` and ``net`` the scale-up link's and
    the network's (rate per GPU per direction [bytes/s], one ring step [s])."""
    if n <= 1 or (domain is not None and n * stride <= domain):
        return GroupLink(n, 1, n, up[0], up[1], up[0], up[1], curves)
    per_node = 1 if domain is None else min(n, max(1, domain // stride))
    nodes = cdiv(n, per_node)
    latency = ((n - nodes) * up[1] + (nodes - 1) * net[1]) / (n - 1)
    return GroupLink(n, nodes, per_node, min(up[0], per_node * net[0]), latency, net[0],
                     net[1], curves)  # fmt: skip


@dataclass(frozen=True)
class StepLinks:
    """The links of one training step's groups."""

    tp: GroupLink
    ep: GroupLink
    pp: GroupLink
    dp: GroupLink


def step_links(hw, s, network_bytes_per_s: float) -> StepLinks:
    """The links of setup ``s`` on profile ``hw`` (see the module docstring); the network's
    rate per GPU ``network_bytes_per_s``."""
    up = (hw.interconnect_bandwidth_bytes_per_s, hw.interconnect_latency_s)
    out = hw.scale_out
    net = (network_bytes_per_s, hw.interconnect_latency_s if out is None else out.latency_s)
    domain = hw.scale_up_domain_gpus
    inner = s.gpus if domain is None else domain  # no stated domain: TP and EP stay inside
    curves = hw.kernels
    return StepLinks(
        tp=group_link(s.tp, 1, inner, up, net, curves),
        ep=group_link(s.ep, 1, inner, up, net, curves),
        pp=group_link(s.pp, s.tp * s.cp * s.dp, domain, up, net, curves),
        dp=group_link(s.dp * s.cp, s.tp, domain, up, net, curves),
    )


def network_bytes_per_s(hw, given: float | None, default: float) -> float:
    """The network's rate per GPU per direction [bytes/s]: ``given`` (--network-bandwidth),
    else the profile's scale-out rate, else ``default``."""
    if given is not None:
        return given
    return default if hw.scale_out is None else hw.scale_out.bandwidth_bytes_per_s
