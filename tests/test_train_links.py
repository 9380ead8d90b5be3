"""The link each training collective crosses (calc/training/links.py): golden values with
their hand arithmetic beside them. Profile figures: h100.yaml (NVLink 450 GB/s a direction,
1.9 us a ring step, 8-GPU domain; scale-out 50 GB/s a GPU, 4.0 us a step; NCCL's measured
8-GPU reduce-scatter [20.34 us, 327.5 GB/s] and all-gather [22.62 us, 322.0 GB/s] segments)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from calc.data.registry import load_hardware, load_model
from calc.training.links import group_link, network_bytes_per_s, step_links
from calc.training.report import TrainSetup, train_report

UP = (450e9, 1.9e-6)  # h100 NVLink: rate a direction, one LL128 ring step
NET = (50e9, 4.0e-6)  # h100 scale-out: one 400 Gb/s NIC a GPU, NCCL's NET ring step


def test_zero3_on_one_board_runs_on_nvlink():
    # the audit's case: llama3-8b, 8 × H100, ZeRO-3 (DP 8). Before: 843 ms of DP traffic at
    # 50 GB/s, 664 ms of it exposed, a 933 ms step.
    r = train_report(load_model("llama3-8b"), load_hardware("h100"),
                     TrainSetup(dp=8, zero=3))  # fmt: skip
    f = r.fields
    grads = 8_030_261_248 * 2  # bf16 gradients of every parameter: 16,060,522,496 B
    # reduce-scatter of the grads + 2 all-gathers of the (bf16, same size) weights, on NCCL's
    # measured 8-GPU curves (the large-message segment is the least time at 16 GB):
    #   20.34 us + 7/8 × 16,060,522,496 / 327.5e9 = 0.042931 s
    #   22.62 us + 7/8 × 16,060,522,496 / 322.0e9 = 0.043665 s each
    rs = 20.34e-6 + 7 / 8 * grads / 327.5e9
    ag = 22.62e-6 + 7 / 8 * grads / 322.0e9
    assert f["dp_comm_per_step_s"] == pytest.approx(rs + 2 * ag)  # 0.1303 s
    assert f["dp_comm_per_step_s"] == pytest.approx(0.1303, abs=1e-4)
    # hidden behind the backward: 0.1303 < ⅔ × 0.2693 s of compute, so the step is the
    # micro-batch alone
    assert f["dp_comm_exposed_s"] == 0
    assert f["step_s"] == f["microbatch_s"]
    fig = next(x for x in r.figures if x.key == "dp_comm_per_step_s")
    assert "over 8 ranks on the scale-up link (NCCL's measured curves)" in fig.substituted


def test_a_group_inside_one_domain_takes_the_scale_up_link():
    link = group_link(8, 1, 8, UP, NET)  # 8 × 1 = 8 ranks ≤ the 8-GPU board
    assert (link.nodes, link.bandwidth_bytes_per_s, link.latency_s) == (1, 450e9, 1.9e-6)
    # no measured curve given: the ring, 2·7/8 × 1e9 / 450e9 + 14 × 1.9 us = 4.4154 ms
    assert link.allreduce_s(1e9) == pytest.approx(2 * 7 / 8 * 1e9 / 450e9 + 14 * 1.9e-6)
    # a reduce-scatter is half of it: 7/8 × 1e9 / 450e9 + 7 × 1.9 us
    assert link.reduce_scatter_s(1e9) == pytest.approx(7 / 8 * 1e9 / 450e9 + 7 * 1.9e-6)


def test_dp_over_two_boards_runs_through_eight_nics():
    # DP 16 (TP 1): 8 ranks on each of 2 boards; the ring's channels leave by 8 NICs:
    # min(450, 8 × 50) = 400 GB/s; steps: 16 − 2 = 14 NVLink hops and 1 network hop of 15:
    # (14 × 1.9 + 4.0) / 15 = 2.04 us the mean step
    link = group_link(16, 1, 8, UP, NET)
    assert (link.nodes, link.per_node) == (2, 8)
    assert link.bandwidth_bytes_per_s == 400e9
    assert link.latency_s == pytest.approx(2.04e-6)
    # all-reduce of 1e9 B: 2·15/16 × 1e9/400e9 + 30 × 2.04 us = 4.6875 + 0.0612 ms
    assert link.allreduce_s(1e9) == pytest.approx(4.6875e-3 + 30 * 2.04e-6)


def test_dp_under_tp8_has_one_rank_a_board():
    # TP 8 fills the board; DP 2 pairs rank r with r + 8 on the other board: one NIC, 50 GB/s,
    # every step a network step (4.0 us)
    link = group_link(2, 8, 8, UP, NET)
    assert (link.nodes, link.per_node) == (2, 1)
    assert (link.bandwidth_bytes_per_s, link.latency_s) == (50e9, 4.0e-6)


def test_pipeline_sends_cross_only_when_the_stages_span_boards():
    h100 = load_hardware("h100")
    # TP 2 × PP 4 = 8 GPUs, one board: a send of 1e8 B at 450 GB/s + 1.9 us
    inside = step_links(h100, TrainSetup(tp=2, pp=4), 50e9).pp
    assert inside.send_s(1e8) == pytest.approx(1e8 / 450e9 + 1.9e-6)
    # TP 8 × PP 2: the next stage is on the next board, through the sender's NIC:
    # 1e8 / 50e9 + 4.0 us = 2.004 ms
    across = step_links(h100, TrainSetup(tp=8, pp=2), 50e9).pp
    assert across.send_s(1e8) == pytest.approx(2.004e-3)
    # the TP group itself stays on NVLink
    assert step_links(h100, TrainSetup(tp=8, pp=2), 50e9).tp.nodes == 1


def test_the_network_rate_comes_from_the_option_then_the_profile():
    assert network_bytes_per_s(load_hardware("h100"), None, 50e9) == 50e9  # 400 Gb/s / 8
    assert network_bytes_per_s(load_hardware("a100-80g"), None, 50e9) == 25e9  # 200 Gb/s / 8
    assert network_bytes_per_s(load_hardware("a100-80g"), 100e9, 50e9) == 100e9  # the option
    # and --network-bandwidth reaches a group that crosses: DP 16 at 8 × 10 GB/s = 80 GB/s
    f = train_report(load_model("llama3-8b"), load_hardware("h100"),
                     TrainSetup(dp=16, network_bytes_per_s=10e9)).fields  # fmt: skip
    grads = 8_030_261_248 * 2
    lat = (14 * 1.9e-6 + 1 * 4.0e-6) / 15
    assert f["dp_comm_per_step_s"] == pytest.approx(2 * 15 / 16 * grads / 80e9 + 30 * lat)


def test_no_stated_domain_keeps_the_earlier_rule():
    # a profile without scale_up_domain_gpus: TP stays on the scale-up link, DP crosses
    hw = SimpleNamespace(interconnect_bandwidth_bytes_per_s=450e9, interconnect_latency_s=1.9e-6,
                         scale_out=None, scale_up_domain_gpus=None, kernels=None)  # fmt: skip
    links = step_links(hw, TrainSetup(tp=4, dp=2), 50e9)
    assert links.tp.bandwidth_bytes_per_s == 450e9
    # DP 2 at the network's 50 GB/s, the profile's one step (no scale_out latency given)
    assert (links.dp.bandwidth_bytes_per_s, links.dp.latency_s) == (50e9, 1.9e-6)


def test_across_boards_no_faster_than_the_measured_curve_inside_one():
    # ZeRO-3 over DP 16 on two H100 boards: 8 NICs × 50 = 400 GB/s, capped by NCCL's measured
    # best inside a board at 8 GPUs (reduce-scatter 327.5, all-gather 322.0 GB/s); mean step
    # (14 × 1.9 + 4.0) / 15 = 2.04 us, 15 steps each
    f = train_report(load_model("llama3-8b"), load_hardware("h100"),
                     TrainSetup(dp=16, zero=3)).fields  # fmt: skip
    grads = 8_030_261_248 * 2  # 16,060,522,496 B, the bf16 weights the same
    rs = 15 / 16 * grads / 327.5e9 + 15 * 2.04e-6  # 0.046005 s
    ag = 15 / 16 * grads / 322.0e9 + 15 * 2.04e-6  # 0.046790 s
    assert f["dp_comm_per_step_s"] == pytest.approx(rs + 2 * ag)  # 0.1396 s
    # more than the same traffic on one board's 8 GPUs (0.1303 s, the test above)
    assert f["dp_comm_per_step_s"] > 0.1303
