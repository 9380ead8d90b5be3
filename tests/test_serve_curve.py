"""The latency-vs-rate curve (calc/serve/curve.py): rates parsed, one simulation per rate on
the same requests, the highest rate meeting the SLOs."""

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment
from calc.errors import InvalidInputError
from calc.serve.curve import latency_vs_rate, parse_rates
from calc.serve.simulate import simulate
from calc.serve.workload import LengthDist, LoadSpec


def test_parse_rates():
    assert parse_rates("1:4:1") == [1, 2, 3, 4]
    assert parse_rates("0.5:1.5:0.5") == [0.5, 1.0, 1.5]
    assert parse_rates("5,1,2,2") == [1, 2, 5]  # sorted, once each
    for bad in ("", "1:2", "4:1:1", "1:5:0", "0,1", "a:b:c", "1:1e9:1"):
        with pytest.raises(InvalidInputError, match="--sweep-rate"):
            parse_rates(bad)


def test_curve_is_one_simulation_per_rate():
    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"))
    load = LoadSpec(rate_per_s=1.0, prompt=LengthDist.fixed(1024), gen=LengthDist.fixed(64),
                    n_requests=200)  # fmt: skip
    curve = latency_vs_rate(dep, load, [2.0, 50.0, 400.0], seed=3)
    assert curve.rates == [2.0, 50.0, 400.0]
    # each point is what simulate gives at that rate and seed
    alone = simulate(dep, load.with_rate(50.0), seed=3)
    assert curve.points[1].result.ttft_s == alone.ttft_s
    p99 = curve.series("ttft_s", "p99")
    assert p99[0] < p99[1] < p99[2]  # the tail grows with the load
    assert curve.points[2].result.saturated and not curve.points[0].result.saturated
    # the highest unsaturated rate whose p99 TTFT meets 10 × the low-load p99
    assert curve.max_rate_meeting(ttft_slo_s=10 * p99[0]) in (2.0, 50.0)
    assert curve.max_rate_meeting(ttft_slo_s=p99[0] / 10) is None
