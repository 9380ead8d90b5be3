"""SGLang's scheduler loop per running sequence (calc/deploy/host_costs.py
``SGLANG_LOOP_SEQUENCE_S``, the SGLang wing's ``host_loop_sequence``; issue 20, bigbatch round):
run by its overlap scheduler beside the GPU's step, so hidden while shorter than it and the
whole step beyond it, from 0.4.1 (0.4.0 keeps its serial per-sequence time), 2.75x on Grace."""

from __future__ import annotations

import pytest

from calc.deploy.engines import host_costs
from calc.deploy.host_costs import CPU_FACTOR, SGLANG_LOOP_SEQUENCE_S


def test_the_fitted_loop_and_its_source():
    # bench/validation_serving.py --fit (fit_loop): 40 us a sequence on x86, the 1 us grid's
    # least soft-L1 cost over the SGLang training rows (docs/validation/host_fit.yaml)
    assert SGLANG_LOOP_SEQUENCE_S == pytest.approx(40e-6)
    for frontend in ("api", "offline"):
        sg = host_costs("sglang", frontend=frontend)
        assert sg.loop_sequence_s == pytest.approx(40e-6)
        assert "fit_loop" in sg.source and "event_loop_overlap" in sg.source


def test_releases_before_the_overlap_loop_keep_the_serial_time():
    # 0.4.0: its 0.10 ms a sequence stays serial (host_core_sequence), no overlapped loop
    old = host_costs("sglang", "0.4.0")
    assert old.loop_sequence_s == 0
    assert old.per_sequence_s == pytest.approx(0.10e-3)
    # 0.4.1 on: the loop, nothing serial per sequence
    new = host_costs("sglang", "0.4.1")
    assert new.loop_sequence_s == pytest.approx(40e-6)
    assert new.per_sequence_s == 0


def test_the_loop_binds_only_beyond_the_gpu_step():
    sg = host_costs("sglang", frontend="offline")
    serial = sg.per_step_s  # 0.725 ms a step (fitted at f287d8b)
    assert serial == pytest.approx(0.725e-3)
    # 128 sequences: 40 us x 128 = 5.12 ms < a 10 ms GPU step: 10 + 0.725 = 10.725 ms
    assert sg.step_s(10e-3, 128) == pytest.approx(10.725e-3)
    # 512 sequences: 40 us x 512 = 20.48 ms > 10 ms: 20.48 + 0.725 = 21.205 ms
    assert sg.step_s(10e-3, 512) == pytest.approx(21.205e-3)
    # one past the break-even: 10 ms / 40 us = 250 sequences ties, 251 binds (10.04 ms)
    assert sg.step_s(10e-3, 250) == pytest.approx(10.725e-3)
    assert sg.step_s(10e-3, 251) == pytest.approx(10.04e-3 + 0.725e-3)


def test_on_grace_the_loop_scales_by_the_cpu_factor():
    grace = host_costs("sglang", frontend="offline").for_host_cpu("grace")
    # 40 us x 2.7507 = 110.03 us a sequence; 128 of them 14.08 ms > a 10 ms step
    assert grace.loop_s(128) == pytest.approx(40e-6 * CPU_FACTOR["grace"] * 128)
    assert grace.step_s(10e-3, 128) == pytest.approx(128 * 110.03e-6 + 0.725e-3, rel=1e-4)
