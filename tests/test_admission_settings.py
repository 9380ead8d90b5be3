"""The scheduler settings that hold new requests back, as engine settings end to end: SGLang's
--scheduler-recv-interval and TensorRT-LLM's batch waiting (EngineSettings recv_interval,
batch_wait_iters, batch_wait_ratio): validated in the engine wing, charged by the simulation
and latency's TTFT (calc.serve.admission_hold), carried by plan."""

from __future__ import annotations

import math

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings, Workload
from calc.deploy.engines.base import AdmissionHold
from calc.errors import InvalidInputError
from calc.serve.admission_hold import busy_share, held_s


def _dep(model="llama3-8b", hw="h100", **engine):
    return Deployment.build(load_model(model), load_hardware(hw), tp=engine.pop("tp", 1),
                            ep=engine.pop("ep", 1),
                            engine=EngineSettings(max_model_len=4096, **engine))  # fmt: skip


# -- the settings and their refusals ---------------------------------------------------------


@pytest.mark.parametrize(
    ("engine", "stated", "said"),
    [
        ("vllm", {"recv_interval": 10},
         "--scheduler-recv-interval is not a setting of vLLM (it has none that holds requests "
         "back): drop it"),
        ("trtllm", {"recv_interval": 10},
         "--scheduler-recv-interval is not a setting of TensorRT-LLM (its own: "
         "--batch-wait-iters, --batch-wait-ratio): drop it"),
        ("sglang", {"batch_wait_iters": 20, "batch_wait_ratio": 0.9},
         "--batch-wait-iters is not a setting of SGLang (its own: --scheduler-recv-interval)"),
        ("sglang", {"recv_interval": 0},
         "--scheduler-recv-interval must be an integer in 1..1,000,000, got 0"),
        ("trtllm", {"batch_wait_iters": 20, "batch_wait_ratio": 1.5},
         "--batch-wait-ratio must be in [0, 1], got 1.5"),
        ("trtllm", {"batch_wait_iters": 20},
         "--batch-wait-iters and --batch-wait-ratio go together"),
        ("trtllm", {"batch_wait_iters": 20, "batch_wait_ratio": 0.0},
         "--batch-wait-iters and --batch-wait-ratio go together"),
        ("trtllm", {"batch_wait_iters": 2.5, "batch_wait_ratio": 0.5},
         "--batch-wait-iters must be an integer in 1..1,000,000, got 2.5"),
    ],
)  # fmt: skip
def test_bad_settings_are_refused_with_one_line(engine, stated, said):
    with pytest.raises(InvalidInputError) as exc:
        EngineSettings(name=engine, **stated)
    assert said in str(exc.value) and "\n" not in str(exc.value)


def test_releases_without_the_setting_refuse_it():
    # SGLang's parser has --scheduler-recv-interval from 0.5.2 (tests/data/engine_options);
    # TensorRT-LLM's batch-wait keys are taken from 1.1.0 (rules.batch_wait_keys)
    with pytest.raises(InvalidInputError, match=r"^SGLang 0\.4\.10 has no "
                       r"--scheduler-recv-interval \(SGLang 0\.5\.2 and later\)"):  # fmt: skip
        _dep(name="sglang", version="0.4.10", recv_interval=10)
    with pytest.raises(InvalidInputError, match=r"^TensorRT-LLM 1\.0\.0 has no batch waiting"):
        _dep(name="trtllm", version="1.0.0", batch_wait_iters=20, batch_wait_ratio=0.9)
    assert _dep(name="sglang", version="0.5.2", recv_interval=10).engine_config.recv_interval == 10


def test_sglang_receive_interval_beside_attention_dp_from_0_5_16():
    # before 0.5.16 SchedulerRecvSkipper asserts enable_dp_attention off: DeepSeek-V3 at
    # tp 1, ep 8 (attention DP 8) cannot start with an interval; 0.5.16 can
    with pytest.raises(InvalidInputError, match=r"attention data parallel 8 .*0\.5\.16"):
        _dep("deepseek-v3", "h200", ep=8, name="sglang", version="0.5.15", recv_interval=10)
    dep = _dep("deepseek-v3", "h200", ep=8, name="sglang", version="0.5.16", recv_interval=10)
    assert dep.engine_model.admission_hold(dep).recv_interval == 10
    # an interval of 1 is SGLang's default (no skipper): any release from 0.5.2 takes it
    assert _dep("deepseek-v3", "h200", ep=8, name="sglang", version="0.5.15",
                recv_interval=1).engine_config.recv_interval == 1  # fmt: skip


def test_the_engine_wing_resolves_the_hold():
    # TensorRT-LLM's threshold is ratio × max_num_tokens: 0.9 × 8,192 = 7,372.8 tokens
    dep = _dep(name="trtllm", batch_wait_iters=20, batch_wait_ratio=0.9)
    assert dep.engine_model.admission_hold(dep) == AdmissionHold(1, 20, 0.9 * 8192)
    # a stated budget moves it: 0.5 × 16,384 = 8,192
    dep = _dep(name="trtllm", batch_wait_iters=20, batch_wait_ratio=0.5,
               max_batched_tokens=16384)  # fmt: skip
    assert dep.engine_model.admission_hold(dep).batch_wait_tokens == 8192
    # under attention DP the batch wait never runs (py_executor.py _schedule)
    dep = _dep("deepseek-v3", "h200", ep=8, name="trtllm", batch_wait_iters=20,
               batch_wait_ratio=0.9)  # fmt: skip
    assert dep.engine_model.admission_hold(dep).batch_wait_iters == 0
    # nothing stated: nothing held
    assert not _dep(name="sglang").engine_model.admission_hold(_dep(name="sglang")).holds


# -- the waits ------------------------------------------------------------------------------


def test_held_s_by_hand():
    # receive interval 10, 8 ms steps, always busy: (10 − 1) / 2 × 8 ms = 36 ms
    assert held_s(AdmissionHold(10), 8e-3, 1.0, 0.0, 1024) == pytest.approx(36e-3, rel=1e-12)
    # half the arrivals find the engine busy: 18 ms; none: 0
    assert held_s(AdmissionHold(10), 8e-3, 0.5, 0.0, 1024) == pytest.approx(18e-3, rel=1e-12)
    assert held_s(AdmissionHold(10), 8e-3, 0.0, 0.0, 1024) == 0.0
    # batch wait 20 steps of 10 ms, a prompt alone: 20 × 10 ms = 200 ms
    bw = AdmissionHold(1, 20, 14745.6)
    assert held_s(bw, 10e-3, 1.0, 0.0, 1024) == pytest.approx(0.2, rel=1e-12)
    # 0.5 prompts a step join it: m = ceil(14,745.6 / 1,024) = 15 prompts fill the threshold
    # after (15 − 1) / 0.5 = 28 steps > 20, so T = 20: 20 (1 + 0.5 × 20 / 2) / (1 + 0.5 × 20)
    # = 120 / 11 = 10.909 steps = 109.09 ms
    assert held_s(bw, 10e-3, 1.0, 0.5, 1024) == pytest.approx(120 / 11 * 10e-3, rel=1e-12)
    # a prompt at the threshold goes in at once
    assert held_s(bw, 10e-3, 1.0, 0.5, 16384) == 0.0


def test_busy_share():
    assert busy_share(3, True) == 1.0 and busy_share(0, True) == 0.0
    # open arrivals, a mean of 1 running: 1 − e^−1 = 0.6321
    assert busy_share(1.0, False) == pytest.approx(1 - math.exp(-1), rel=1e-12)


def test_latency_ttft_adds_the_mean_wait():
    from calc.reports.latency import latency_report

    work = Workload(ctx=1024 + 256, batch=8, prompt=1024, gen=256)
    plain = latency_report(_dep(name="sglang"), work).fields
    held = latency_report(_dep(name="sglang", recv_interval=10), work).fields
    # 7 others decode beside the prompt: (10 − 1) / 2 = 4.5 decode steps of tpot_s more
    assert held["ttft_s"] - plain["ttft_s"] == pytest.approx(4.5 * plain["tpot_s"], rel=1e-9)
    assert held["tpot_s"] == plain["tpot_s"]
    assert held["e2e_s"] - plain["e2e_s"] == pytest.approx(4.5 * plain["tpot_s"], rel=1e-9)
    # a batch of one: nothing runs beside it, the engine reads at once (an idle loop)
    one = Workload(ctx=1280, batch=1, prompt=1024, gen=256)
    assert latency_report(_dep(name="sglang", recv_interval=10), one).fields["ttft_s"] == \
        latency_report(_dep(name="sglang"), one).fields["ttft_s"]  # fmt: skip


def test_simulation_charges_the_wait():
    from calc.serve.simulate import simulate
    from calc.serve.workload import LengthDist, LoadSpec

    load = LoadSpec(rate_per_s=4.0, prompt=LengthDist.fixed(1024), gen=LengthDist.fixed(128),
                    n_requests=200)  # fmt: skip
    plain = simulate(_dep(name="sglang"), load, tokens=False)
    held = simulate(_dep(name="sglang", recv_interval=30), load, tokens=False)
    # each request reaches the engine later by the same mean wait (a constant shift at one
    # length), so the median TTFT grows and the TPOT stays within a few per cent
    assert held.ttft_s["p50"] > plain.ttft_s["p50"] + 1e-3
    assert held.tpot_s["p50"] == pytest.approx(plain.tpot_s["p50"], rel=0.05)


def test_plan_carries_the_setting_to_its_engine_only():
    from calc.reports.plan import PlanQuery, admission_of, build
    from calc.reports.plan_eval import Load
    from calc.reports.plan_types import Slo

    load = Load(rate_per_s=1.0, prompt=512, gen=64)
    slo = Slo(ttft_p99_s=2.0, tpot_p99_s=0.05)
    q = PlanQuery(models=("llama3-8b",), load=load, slo=slo, engines=("vllm", "sglang"),
                  admission=(("recv_interval", 10),))  # fmt: skip
    assert admission_of("sglang", q) == {"recv_interval": 10}
    assert admission_of("vllm", q) == {}
    with pytest.raises(InvalidInputError, match="none of the engines planned"):
        PlanQuery(models=("llama3-8b",), load=load, slo=slo, engines=("vllm",),
                  admission=(("recv_interval", 10),))  # fmt: skip
    assert build is not None


def test_cli_bad_value_is_one_line(cli):
    r = cli("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "1", "--prompt", "128",
            "--gen", "8", "--engine", "vllm", "--scheduler-recv-interval", "10")  # fmt: skip
    assert r.code == 2 and "Traceback" not in r.err
    assert r.err.strip().splitlines() == [
        "kvcalc: error: --scheduler-recv-interval is not a setting of vLLM (it has none that "
        "holds requests back): drop it"
    ]


def test_plan_analytic_estimate_adds_the_wait():
    from calc.deploy.steps import step_of
    from calc.reports.plan_eval import Load, analytic_eval

    plain, held = _dep(name="sglang"), _dep(name="sglang", recv_interval=10)
    # open arrivals: n* sequences decode; an arrival finds them busy with 1 − e^(−n*) and waits
    # (10 − 1) / 2 = 4.5 decode steps at ⌈n*⌉ sequences and the mean context 512 + 64 / 2
    load = Load(rate_per_s=2.0, prompt=512, gen=64)
    a, b = analytic_eval(plain, load), analytic_eval(held, load)
    n = a.decode_batch
    step = float(step_of(plain, "expected", batch=math.ceil(n), ctx=512 + 32).time_s)
    want = (1 - math.exp(-n)) * 4.5 * step
    assert b.ttft_s["p99"] - a.ttft_s["p99"] == pytest.approx(want, rel=1e-9)
    assert b.tpot_s == a.tpot_s
    # a closed loop of 8 users: the 7 others decode, 4.5 steps at 8 sequences
    load = Load(rate_per_s=None, prompt=512, gen=64, concurrency=8)
    a, b = analytic_eval(plain, load), analytic_eval(held, load)
    step = float(step_of(plain, "expected", batch=8, ctx=512 + 32).time_s)
    assert b.ttft_s["p50"] - a.ttft_s["p50"] == pytest.approx(4.5 * step, rel=1e-9)
