"""SGLang 0.4.0's host time per running sequence (calc/deploy/engines/sglang): its source, the
ITL of the published December 2024 runs against the requests in flight."""

import json
from pathlib import Path

import numpy as np
import pytest

from calc.deploy.engines import engine as get_engine

DATA = Path(__file__).parent / "data" / "bench_results"


def test_the_measured_itl_slope_it_comes_from():
    # Llama-3.3-70B TP 4 on H200 at 1, 2, 4 requests/s: in flight = rate × mean E2E
    # (1 × 7.84 s, 2 × 8.54 s, 4 × 12.90 s = 7.8, 17.1, 51.6); ITL median 13.6, 14.8, 19.4 ms:
    # least-squares slope 0.132 ms per sequence in flight; the simulation's GPU passes rise
    # 0.031 ms (docs/validation.md), leaving 0.10 ms of host time per sequence
    rows = [json.loads(x) for x in
            (DATA / "sglang-2024-12_llama-3.3-70b_tp4_h200_online.jsonl").read_text().splitlines()]
    rows = [r for r in rows if r["request_rate"] in (1.0, 2.0, 4.0)][:3]
    flight = [r["request_rate"] * r["mean_e2e_latency_ms"] / 1e3 for r in rows]
    itl = [r["median_itl_ms"] for r in rows]
    assert flight == pytest.approx([7.84, 17.08, 51.59], abs=0.01)
    slope_ms = np.polyfit(flight, itl, 1)[0]
    assert slope_ms == pytest.approx(0.132, abs=5e-4)
    host = get_engine("sglang").host_costs("0.4.0")
    assert host.per_sequence_s == pytest.approx(round(slope_ms - 0.031, 2) * 1e-3)


def test_only_0_4_0_and_behind_every_front_end():
    sglang = get_engine("sglang")
    # SGLang 0.4.0: 0.10 ms per running sequence a step, the scheduler process's per-request
    # loop and stream_output (0.4.0 scheduler.py process_batch_result_decode): the same behind
    # the API server and the offline engine, and charged once (not front-end + core: 0.20 ms)
    for frontend in ("api", "offline"):
        assert sglang.host_costs("0.4.0", frontend).per_sequence_s == pytest.approx(0.10e-3)
        # 0.4.1 on: none modelled (the silicon sample's fit: 14 µs, no better fit)
        assert sglang.host_costs("0.4.1", frontend).per_sequence_s == 0.0
        assert sglang.host_costs(None, frontend).per_sequence_s == 0.0
    assert sglang.host_costs("0.4.0").per_step_s == sglang.host_costs(None).per_step_s
    # a decode step of 52 sequences (the 4/s run's mean in flight): 0.725 ms + 52 × 0.10 ms
    # = 5.925 ms of host time under 0.4.0, 0.725 ms under 0.5.23
    assert sglang.host_costs("0.4.0").step_host_s(52) == pytest.approx(5.925e-3)
    assert sglang.host_costs("0.5.23").step_host_s(52) == pytest.approx(0.725e-3)
    # offline: the same step, no request time (no HTTP, no tokenising in the timed region)
    off = sglang.host_costs("0.4.0", "offline")
    assert off.step_host_s(52) == pytest.approx(5.925e-3) and off.per_request_s == 0
    assert "SGLang 0.4.0 engine core: 100 µs per sequence" in sglang.host_costs("0.4.0").source
