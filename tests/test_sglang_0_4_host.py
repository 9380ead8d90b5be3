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


def test_only_0_4_0_and_only_behind_the_api():
    sglang = get_engine("sglang")
    assert sglang.host_costs("0.4.0", "offline").per_sequence_s == 0.0
    assert sglang.host_costs("0.4.1").per_sequence_s == 0.0
    assert sglang.host_costs(None).per_sequence_s == 0.0
    assert sglang.host_costs("0.4.0").per_step_s == sglang.host_costs(None).per_step_s
