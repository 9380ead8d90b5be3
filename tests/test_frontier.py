"""Throughput per GPU against tokens/s per user (calc.reports.frontier, `kvcalc plot frontier`):
the concurrencies, the Pareto selection by hand, each point against the steady-state model's
own figures and `kvcalc cost`'s at the engine's concurrency."""

from __future__ import annotations

import itertools
import json

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment
from calc.deploy.steps import step_of
from calc.reports.frontier import (
    FrontierPoint,
    concurrency_levels,
    deployment_curve,
    pareto,
    pareto_xy,
)


def test_concurrency_levels():
    assert concurrency_levels(5) == [1, 2, 4, 5]
    assert concurrency_levels(8) == [1, 2, 4, 8]
    assert concurrency_levels(1) == [1]
    assert concurrency_levels(0) == []


def _p(series, user, gpu):
    return FrontierPoint(series, 1, user, gpu)


def test_pareto_keeps_what_nothing_beats_on_both_axes():
    pts = [
        _p("a", 10, 100),
        _p("a", 20, 60),
        _p("b", 15, 90),  # beaten by nothing: between a's two points
        _p("b", 12, 50),  # beaten by a(20, 60) and b(15, 90)
        _p("c", 5, 120),
        _p("c", 5, 110),  # beaten by c(5, 120): same x, less y
    ]
    front = pareto(pts)
    assert [(p.series, p.serving_output_tokens_per_s_per_user) for p in front] == [
        ("c", 5),
        ("a", 10),
        ("b", 15),
        ("a", 20),
    ]
    idx = pareto_xy([10, 20, 15, 12, 5, 5], [100, 60, 90, 50, 120, 110])
    assert idx.tolist() == [4, 0, 2, 1]


def _dep():
    return Deployment.build(load_model("llama3-8b"), load_hardware("h100"))


def test_one_sequence_is_its_prefill_and_decode_steps():
    dep = _dep()
    first = deployment_curve(dep, prompt=1024, gen=256, label="tp 1")[0]
    assert first.concurrency == 1
    # one sequence per cycle: the prefill of its 1,024-token prompt (one chunk of one prompt,
    # 1,024 <= max_batched_tokens) + 255 decode steps of batch 1 at the mean context
    # 1,024 + 256 / 2 = 1,152, each step plus the engine's host time of a one-sequence step
    # (calc.deploy.host_costs); tokens/s per user = 256 / cycle
    host = dep.engine_model.host_costs(dep.engine_config.version).step_host_s(1)
    prefill_s = float(step_of(dep, batch=1, prompt=1024).time_s) + host
    decode_s = 255 * (float(step_of(dep, batch=1, ctx=1152).time_s) + host)
    assert first.serving_output_tokens_per_s_per_user == pytest.approx(
        256 / (prefill_s + decode_s), rel=1e-9
    )
    # one GPU, one sequence: the same figure per GPU
    assert first.serving_output_tokens_per_s_per_gpu == pytest.approx(
        first.serving_output_tokens_per_s_per_user, rel=1e-12
    )


def test_curve_ends_at_costs_serving_figures(cli):
    dep = _dep()
    pts = deployment_curve(dep, prompt=1024, gen=256, label="tp 1")
    r = cli(*"cost -m llama3-8b -H h100 --ctx 1280 --prompt 1024 -f json".split())
    assert r.code == 0, r.err
    cost = json.loads(r.out)
    last = pts[-1]
    assert last.concurrency == cost["serving_concurrency"]
    assert last.serving_output_tokens_per_s_per_gpu == pytest.approx(
        cost["serving_output_tokens_per_s_per_gpu"], rel=1e-12
    )
    for a, b in itertools.pairwise(pts):  # more load: faster per GPU, slower per user
        assert b.concurrency > a.concurrency
        assert b.serving_output_tokens_per_s_per_gpu > a.serving_output_tokens_per_s_per_gpu
        assert b.serving_output_tokens_per_s_per_user < a.serving_output_tokens_per_s_per_user
    for p in pts:  # per GPU = per user × sequences / GPUs (one GPU here)
        assert p.serving_output_tokens_per_s_per_gpu == pytest.approx(
            p.serving_output_tokens_per_s_per_user * p.concurrency, rel=1e-12
        )


def test_plot_frontier_rows_and_layouts(cli):
    r = cli(*"plot frontier -m llama3-70b -H h100 --tp 1,2,4 -f json".split())
    assert r.code == 0, r.err
    rows = json.loads(r.out)["rows"]
    # tp 1: 141 GB of bf16 weights leave no room on one 80 GiB H100: no curve
    assert {x["series"] for x in rows} == {"tp 2", "tp 4"}
    # tp 4 at 8 sequences is on the frontier (tp 2 at 4 sequences is slower both ways)
    on = {(x["series"], x["serving_concurrency"]) for x in rows if x["on_frontier"]}
    assert ("tp 4", 8) in on and ("tp 2", 4) not in on
    r = cli(*"plot frontier -m llama3-70b -H h100 --tp 1,2".split())
    assert r.code == 0, r.err
    assert "left out: tp 1: not one request of 1,280 tokens fits" in r.out
    assert "Pareto frontier" in r.out


def test_plot_frontier_needs_hardware(cli):
    r = cli("plot", "frontier", "-m", "llama3-8b")
    assert r.code == 2
    assert r.err == "kvcalc: error: plot frontier needs --hardware (see `kvcalc hardware`)\n"


def test_plot_frontier_says_what_it_left_out(cli):
    # qa4: the data formats dropped a --tp size (tp 1: no room; tp 3: does not divide the
    # heads) without a word, and with every size left out the chart, the JSON and the PNG came
    # out empty with exit 0
    r = cli(*"plot frontier -m llama3-70b -H h100 --tp 1,2,4 -f csv".split())
    assert r.code == 0, r.err
    assert "left out: tp 1: not one request of 1,280 tokens fits" in r.err
    for fmt in ("table", "json"):
        r = cli(*f"plot frontier -m qwen3-30b-a3b -H h100 --tp 3 -f {fmt}".split())
        assert r.code == 2 and len(r.err.strip().splitlines()) == 1, (fmt, r.err)
        assert "nothing to plot" in r.err and "--tp 3 does not divide" in r.err, r.err
