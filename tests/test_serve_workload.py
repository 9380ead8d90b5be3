"""Workloads (calc/serve/workload.py): length distributions, arrivals, traces, human times."""

import numpy as np
import pytest

from calc.errors import ConfigError, InvalidInputError
from calc.serve.workload import (
    LengthDist,
    LoadSpec,
    load_trace_csv,
    parse_duration_s,
    sample_requests,
)


def test_length_dists():
    rng = np.random.default_rng(0)
    assert LengthDist.parse("2048").sample(rng, 3).tolist() == [2048] * 3
    u = LengthDist.parse("uniform:100:200").sample(rng, 10_000)
    assert u.min() >= 100 and u.max() <= 200 and abs(u.mean() - 150) < 2
    # lognormal with mean 2048, cv 0.5: σ_log² = ln(1.25), sample mean and cv close
    ln = LengthDist.parse("lognormal:2048:0.5").sample(rng, 200_000)
    assert ln.mean() == pytest.approx(2048, rel=0.01)
    assert ln.std() / ln.mean() == pytest.approx(0.5, rel=0.02)
    h = LengthDist.histogram([10, 20, 20]).sample(rng, 30_000)
    assert set(h.tolist()) == {10, 20} and (h == 20).mean() == pytest.approx(2 / 3, abs=0.02)
    assert LengthDist.parse("lognormal:2048:0.5").mean == 2048


@pytest.mark.parametrize(
    "text", ["0", "-5", "abc", "uniform:5", "uniform:9:3", "lognormal:0:1", "lognormal:10:-1",
             "gamma:1:2", "1.5", "nan"],
)  # fmt: skip
def test_bad_length_is_one_clear_error(text):
    with pytest.raises(InvalidInputError, match="--prompt"):
        LengthDist.parse(text, "--prompt")


def test_poisson_arrivals_rate_and_seed():
    spec = LoadSpec(rate_per_s=10.0, prompt=LengthDist.fixed(100), gen=LengthDist.fixed(10),
                    n_requests=20_000)  # fmt: skip
    a, p, g = sample_requests(spec, seed=1)
    assert a.size == 20_000 and np.all(np.diff(a) >= 0)
    assert (a.size - 1) / (a[-1] - a[0]) == pytest.approx(10.0, rel=0.03)
    a2, _, _ = sample_requests(spec, seed=1)
    a3, _, _ = sample_requests(spec, seed=2)
    assert np.array_equal(a, a2) and not np.array_equal(a, a3)
    assert p.dtype == np.int64 and g.dtype == np.int64


def test_duration_bounds_arrivals():
    spec = LoadSpec(rate_per_s=5.0, arrival="constant", prompt=LengthDist.fixed(1),
                    gen=LengthDist.fixed(1), duration_s=10.0)  # fmt: skip
    a, _, _ = sample_requests(spec)
    assert a.size == 50 and a[-1] == pytest.approx(9.8)  # 0, 0.2, … 9.8


def test_load_spec_errors():
    with pytest.raises(InvalidInputError, match="rate"):
        LoadSpec(prompt=LengthDist.fixed(1), gen=LengthDist.fixed(1))
    with pytest.raises(InvalidInputError, match="--rate"):
        LoadSpec(rate_per_s=-1.0, prompt=LengthDist.fixed(1), gen=LengthDist.fixed(1))
    with pytest.raises(InvalidInputError, match="prefix"):
        LoadSpec(rate_per_s=1.0, prompt=LengthDist.fixed(1), gen=LengthDist.fixed(1),
                 prefix_shared_fraction=1.0)  # fmt: skip
    with pytest.raises(InvalidInputError, match="arrival"):
        LoadSpec(rate_per_s=1.0, arrival="bursty", prompt=LengthDist.fixed(1),
                 gen=LengthDist.fixed(1))  # fmt: skip


def test_trace_csv(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("user,arrival_s,prompt_tokens,output_tokens\na,1.5,100,10\nb,0.5,200,20\n")
    t = load_trace_csv(f)
    assert t.arrival_s == (0.5, 1.5) and t.prompt == (200, 100) and t.gen == (20, 10)
    assert t.notes and "sorted" in t.notes[0]
    a, p, _ = sample_requests(LoadSpec(arrival=t))
    assert a.tolist() == [0.0, 1.0] and p.tolist() == [200, 100]
    # lengths from the trace as a histogram, Poisson arrivals
    spec = LoadSpec(rate_per_s=2.0, prompt=LengthDist.histogram(t.prompt),
                    gen=LengthDist.histogram(t.gen), n_requests=50)  # fmt: skip
    _, p2, _ = sample_requests(spec)
    assert set(p2.tolist()) <= {100, 200}


@pytest.mark.parametrize(
    "text,match",
    [
        ("", "empty file"),
        ("arrival_s,prompt_tokens\n0,1\n", "missing column output_tokens"),
        ("arrival_s,prompt_tokens,output_tokens\n", "no requests"),
        ("arrival_s,prompt_tokens,output_tokens\n-1,10,10\n", "line 2: arrival_s '-1'"),
        ("arrival_s,prompt_tokens,output_tokens\nsoon,10,10\n", "not a number"),
        ("arrival_s,prompt_tokens,output_tokens\n0,10.5,10\n", "whole number"),
        ("arrival_s,prompt_tokens,output_tokens\n0,10,0\n", "output_tokens '0'"),
        ("arrival_s,prompt_tokens,output_tokens\n0,10\n", "2 fields"),
        ("arrival_s,prompt_tokens,output_tokens\n0,inf,1\n", "prompt_tokens"),
    ],
)
def test_bad_trace_is_one_clear_error(tmp_path, text, match):
    f = tmp_path / "bad.csv"
    f.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_trace_csv(f)


def test_durations():
    assert parse_duration_s("2s", "--x") == 2.0
    assert parse_duration_s("50ms", "--x") == pytest.approx(0.05)
    assert parse_duration_s("200us", "--x") == pytest.approx(2e-4)
    assert parse_duration_s("1.5min", "--x") == 90.0
    assert parse_duration_s(1.5, "--x") == 1.5  # a Python number is seconds
    # a bare number in text names both readings (issue 22: --tpot-p99 40 meant 40 s)
    with pytest.raises(InvalidInputError, match=r"--x 40: a time needs its unit: 40s or 40ms\?"):
        parse_duration_s("40", "--x")
    for bad in ("0s", "-1s", "fast", "2 hours", "nan"):
        with pytest.raises(InvalidInputError, match="--x"):
            parse_duration_s(bad, "--x")
