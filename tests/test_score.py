"""`kvcalc score` (issue 23): the replay of a run's workload, the prediction equal to `simulate`
by hand, the calibration fit recovering known parameters and refusing what the runs cannot
constrain, and the calibration applied by every command (exact arithmetic on the step)."""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from calc.data.bench_results import read_results
from calc.data.bench_results.run import BenchRun
from calc.data.hardware_schema import StepCalibration
from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.step_calibration import op_class
from calc.deploy.steps import step_of
from calc.errors import InvalidInputError
from calc.reports.score import hardware_for_gpu, model_for, score_run
from calc.reports.score_fit import fit
from calc.reports.score_workload import replay
from tests.test_bench_results import DATA, GUIDELLM, SGLANG, VLLM_QPS4

A100_40G = Path(__file__).resolve().parents[1] / "hardware_profiles/a100-40g.yaml"
LOG_TP2 = Path(__file__).parent / "data" / "engine_logs" / "vllm-h100-llama31-8b-tp2.log"


# ---------------------------------------------------------------------------------------------
# The replay


def test_replay_keeps_recorded_lengths_and_draws_arrivals_at_the_rate():
    (run,) = read_results(VLLM_QPS4)
    # a client of vLLM 0.10 or later (PR #21108, 2025-07-17: gaps rescaled to the rate): a
    # file dated after it
    run = replace(run, client_draw=None)
    rep = replay(run, seed=3)
    assert rep.prompt.tolist() == list(run.prompt_tokens)
    assert rep.max_in_flight is None
    # Poisson at 4/s, 200 requests: the first at 0 s, the gaps scaled to a mean of exactly
    # 1/4 s, so the last is sent at 199 / 4 = 49.75 s
    assert rep.arrival_s[0] == 0 and rep.arrival_s[-1] == pytest.approx(49.75)
    assert np.all(np.diff(rep.arrival_s) >= 0)
    assert "Poisson at 4 requests/s" in rep.arrivals


def test_an_old_vllm_client_is_replayed_with_its_own_unscaled_gaps(tmp_path):
    # the file is dated 20250414: benchmark_serving.py before the rescaling slept
    # np.random.gamma(1, 1 / 4) after each send, numpy seeded with --seed 0
    (run,) = read_results(VLLM_QPS4)
    assert run.client_draw is not None and run.client_draw.seed == 0
    rep = replay(run, seed=3)  # the client's seed, not the replay's
    # numpy's legacy generator seeded 0: its first standard exponential is 0.7958745 (the
    # first gamma(1) draw), at 4/s a gap of 0.7958745 / 4 = 0.1989686 s
    assert rep.arrival_s[0] == 0 and rep.arrival_s[1] == pytest.approx(0.7958745 / 4, rel=1e-6)
    # unscaled: the 199 gaps sum to what the draw gives, 49.1 s, not 199 / 4 = 49.75 s
    assert rep.arrival_s[-1] == pytest.approx(49.1, abs=0.05)
    assert "as the client sent them" in rep.arrivals and "seed 0" in rep.arrivals
    # a failed request drew its gap too: the replay of the successes cannot follow the draw
    assert "as the client sent them" not in replay(replace(run, failed=1)).arrivals
    # a file dated after 2025-07-17 keeps the rescaled draw
    obj = json.loads(VLLM_QPS4.read_text())
    later = tmp_path / "later.json"
    later.write_text(json.dumps({**obj, "date": "20250801-120000"}))
    (run2,) = read_results(later)
    assert run2.client_draw is None
    assert replay(run2).arrival_s[-1] == pytest.approx(49.75)


def test_sglang_random_lengths_are_the_clients_own_where_they_sum_to_the_totals(tmp_path):
    runs = read_results(SGLANG)
    # 300 requests at 1/s: bench_serving (seed 1) drew lengths whose sums are the file's totals
    # 152,612 input and 160,347 output tokens (an output of 0 tokens, if any, replayed as 1)
    rep = replay(runs[0])
    assert runs[0].client_draw is not None and runs[0].client_draw.seed == 1
    assert int(rep.prompt.sum()) == 152_612 == runs[0].total_input_tokens
    assert abs(int(rep.gen.sum()) - 160_347) <= int((rep.gen == 1).sum())
    assert "as the client drew them" in rep.lengths and "as the client sent them" in rep.arrivals
    # a file whose totals the draw does not reproduce is replayed from the stated settings
    line = json.loads(SGLANG.read_text().splitlines()[0])
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({**line, "total_input_tokens": 152_613}) + "\n")
    (run,) = read_results(other)
    assert run.client_draw is None
    assert "the dataset's settings" in replay(run).lengths


def test_replay_of_stated_lengths_and_all_at_once():
    runs = read_results(SGLANG)
    rep = replay(replace(runs[0], client_draw=None), seed=0)
    # random 1024/1024 at range ratio 0: uniform 1 … 1024 for both
    assert rep.prompt.min() >= 1 and rep.prompt.max() <= 1024 and rep.gen.max() <= 1024
    assert 440 < rep.prompt.mean() < 580  # 300 draws of mean 512.5, sd 296: ±3.4 sd
    offline = read_results(DATA / "sglang-2024-12_llama-3.3-70b_tp4_h200_offline.jsonl")[0]
    assert not replay(offline).arrival_s.any()  # request_rate Infinity: all at 0 s
    # ShareGPT run: no per-request or stated lengths, the totals' mean for every request:
    # 269,081 / 1,200 = 224.23 -> 224
    assert set(replay(runs[5]).prompt.tolist()) == {224}


def test_replay_keeps_the_client_concurrency():
    (run,) = read_results(GUIDELLM)
    rep = replay(run)
    assert rep.max_in_flight is None  # recorded send times already waited for the slot
    assert rep.arrival_s.tolist() == list(run.start_s)
    rerun = replace(run, start_s=None)
    assert replay(rerun).max_in_flight == 1 and not replay(rerun).arrival_s.any()


def test_replay_refuses_bad_settings():
    (run,) = read_results(VLLM_QPS4)
    with pytest.raises(InvalidInputError, match="--prefix-cached"):
        replay(run, cached_fraction=1.5)
    empty = replace(run, prompt_tokens=None, output_tokens=None, total_input_tokens=None,
                    completed=10)  # fmt: skip
    with pytest.raises(InvalidInputError, match="--prompt"):
        replay(empty)


def test_names_of_models_and_gpus():
    assert model_for("meta-llama/Llama-3.3-70B-Instruct") == "llama3.3-70b"
    assert model_for("deepseek-ai/DeepSeek-V2.5") == "deepseek-v2"
    assert model_for("org/unknown-model") is None
    assert hardware_for_gpu("NVIDIA H100 80GB HBM3") == "h100"
    assert hardware_for_gpu("NVIDIA H100 PCIe") == "h100-pcie"
    assert hardware_for_gpu("NVIDIA A100-SXM4-80GB") == "a100-80g"
    assert hardware_for_gpu("AMD Instinct MI300X") == "mi300x"
    # the 40 GB part has its own profile since the newgpus round (before: None)
    assert hardware_for_gpu("NVIDIA A100-SXM4-40GB") == "a100-40g"
    assert hardware_for_gpu("NVIDIA GeForce RTX 3090") is None  # no shipped profile


# ---------------------------------------------------------------------------------------------
# The score is `simulate` on the same requests


def _replay_trace(tmp_path):
    """The vLLM QPS-4 run's replay (seed 0) written as a `simulate --trace` CSV."""
    (run,) = read_results(VLLM_QPS4)
    rep = replay(run, seed=0)
    trace = tmp_path / "trace.csv"
    with trace.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["arrival_s", "prompt_tokens", "output_tokens"])
        for a, p, g in zip(rep.arrival_s, rep.prompt, rep.gen, strict=True):
            w.writerow([repr(float(a)), int(p), int(g)])
    return trace


def test_uncalibrated_score_is_simulate_by_hand(cli, tmp_path):
    # the run's replay written as a trace and simulated with `kvcalc simulate --trace`: the
    # same requests on the same deployment give the same figures as the score's predictions
    trace = _replay_trace(tmp_path)
    dep = ("-H", str(A100_40G), "--tp", "8")
    s = cli("score", VLLM_QPS4, *dep, "-f", "json")
    assert s.code == 0, s.err
    by_hand = cli("simulate", "-m", "llama3.3-70b", *dep, "--trace", trace, "-f", "json")
    assert by_hand.code == 0, by_hand.err
    sim = by_hand.json()
    pred = {(m["metric"], m["stat"]): m for m in s.json()["metrics"]}
    for (metric, stat), key in (
        (("ttft", "p50"), "ttft_p50_s"),
        (("ttft", "p99"), "ttft_p99_s"),
        (("tpot", "avg"), "tpot_avg_s"),
        (("itl", "p50"), "itl_p50_s"),
        (("output_tokens_per_s", ""), "served_output_tokens_per_s"),
    ):
        assert pred[(metric, stat)]["predicted"] == pytest.approx(sim[key], rel=1e-9), key
    # error = (predicted − measured) / measured, measured as the file states it (49.50 ms)
    row = pred[("ttft", "p50")]
    assert row["measured"] == pytest.approx(0.04950005649993727)
    assert row["error"] == pytest.approx((row["predicted"] - row["measured"]) / row["measured"])


@pytest.mark.parametrize(
    "given",
    [
        ("--gpus", "16"),  # beside the file's --tp 8: 2 data-parallel replicas
        ("--activation", "6GiB", "--overhead", "2GiB"),  # measured, over the estimates
    ],
)
def test_gpus_activation_overhead_are_simulates(cli, tmp_path, given):
    """score takes --gpus, --activation and --overhead as every sizing command: its
    predictions are `simulate`'s on the same requests with the same options."""
    trace = _replay_trace(tmp_path)
    dep = ("-H", str(A100_40G), "--tp", "8", *given)
    s = cli("score", VLLM_QPS4, *dep, "-f", "json")
    assert s.code == 0, s.err
    sim = cli("simulate", "-m", "llama3.3-70b", *dep, "--trace", trace, "-f", "json")
    assert sim.code == 0, sim.err
    pred = {(m["metric"], m["stat"]): m["predicted"] for m in s.json()["metrics"]}
    assert pred[("ttft", "p50")] == pytest.approx(sim.json()["ttft_p50_s"], rel=1e-9)
    assert pred[("tpot", "avg")] == pytest.approx(sim.json()["tpot_avg_s"], rel=1e-9)
    if given[0] == "--gpus":
        assert s.json()["runs"][0]["dp"] == 2  # 16 / (tp 8 × pp 1)


def test_overhead_reaches_the_pool(cli):
    # 70B bf16 over 8 A100-40GB: 70.6e9 × 2 B / 8 ≈ 17.6 GB of weights a GPU; 30 GiB of
    # non-torch memory on top leaves no KV pool under vLLM's 0.9 × 40 GiB: refused in one line
    r = cli("score", VLLM_QPS4, "-H", str(A100_40G), "--tp", "8", "--overhead", "30GiB")
    assert r.code == 2 and "Traceback" not in r.err, r.err
    assert r.err.strip().splitlines()[-1].startswith("kvcalc: error:") and "no KV pool" in r.err


def test_score_cli_formats_and_explain(cli):
    base = ("score", VLLM_QPS4, "-H", str(A100_40G), "--tp", "8")
    table = cli(*base)
    assert table.code == 0 and "predicted vs measured" in table.out and "ttft p50" in table.out
    rows = list(csv.DictReader(cli(*base, "-f", "csv").out.splitlines()))
    assert {r["metric"] for r in rows} >= {"ttft", "tpot", "itl", "requests_per_s"}
    d = cli(*base, "--explain", "-f", "json").json()
    assert any("ttft_p50 error = (predicted − measured) / measured" in x for x in d["derivation"])
    assert d["runs"][0]["model"] == "llama3.3-70b"  # the file's model id, mapped
    assert d["runs"][0]["max_batched_tokens"] == 2048  # vLLM's default on an A100


def test_score_reports_the_running_limit_it_simulated(cli):
    # SGLang 0.4.0 without --max-running-requests: min(pool // 2, clamp(pool / 131,072 × 512,
    # 2,048, 4,096)); Llama-3.3-70B on 4 × H200 has a pool of ~1.1 M tokens (≥ 1,048,576 =
    # 131,072 × 4,096 / 512): 4,096. A stated --max-num-seqs is the limit
    base = ("score", SGLANG, "-m", "llama3.3-70b", "-H", "h200", "--tp", "4", "--engine",
            "sglang", "--engine-version", "0.4.0", "-f", "json")  # fmt: skip
    r = cli(*base)
    assert r.code == 0, r.err
    assert {run["max_num_seqs"] for run in r.json()["runs"]} == {4096}
    r = cli(*base, "--max-num-seqs", "512")
    assert {run["max_num_seqs"] for run in r.json()["runs"]} == {512}


def test_deployment_from_a_startup_log(cli):
    # the log states tp 2, gpu_memory_utilization 0.95, max_model_len 8192 and the pool it
    # allocated: 1,044,688 tokens = 65,293 blocks of 16; its model (Llama-3.1-8B) is used
    # over the file's (no --model given)
    r = cli("score", VLLM_QPS4, "-H", "h100", "--log", LOG_TP2, "-f", "json")
    assert r.code == 0, r.err
    run = r.json()["runs"][0]
    assert run["tp"] == 2 and run["model"] == "llama3.1-8b"
    assert "tp 2 from the start-up log" in r.err


def test_a_startup_log_of_an_eager_server_is_scored_eager(cli, tmp_path):
    # the same log with --enforce-eager in its non-default args: every pass eager, so each
    # decode pass takes at least its kernels' launch time (calc/serve/graphs.py) and the TPOT
    # can only rise; a note says so
    text = LOG_TP2.read_text().replace("'enable_prefix_caching': False}",
                                       "'enable_prefix_caching': False, 'enforce_eager': True}")
    eager_log = tmp_path / "eager.log"
    eager_log.write_text(text)
    base = ("score", VLLM_QPS4, "-H", "h100", "-f", "json")
    graphs = cli(*base, "--log", LOG_TP2).json()["metrics"]
    r = cli(*base, "--log", eager_log)
    assert r.code == 0, r.err
    eager = r.json()["metrics"]

    def tpot(rows):
        return next(x["predicted"] for x in rows if (x["metric"], x["stat"]) == ("tpot", "avg"))

    assert tpot(eager) > tpot(graphs)
    assert "every pass eager (the start-up log's --enforce-eager)" in r.err


def test_missing_model_or_hardware_one_line(cli, tmp_path):
    doc = json.loads(VLLM_QPS4.read_text())
    doc["model_id"] = doc["tokenizer_id"] = "org/some-private-model"
    f = tmp_path / "run.json"
    f.write_text(json.dumps(doc))
    r = cli("score", f, "-H", "h100")
    assert r.code == 2 and "give --model" in r.err and r.err.count("\n") == 1
    r = cli("score", VLLM_QPS4)
    assert r.code == 2 and "give --hardware" in r.err


def test_goodput_where_the_file_states_slos():
    # SGLang's goodput fields (sglang/benchmark/goodput.py): goodput_slos_ms and
    # request_goodput; the prediction counts requests within every SLO / makespan
    line = json.loads(SGLANG.read_text().splitlines()[0])
    line.update(goodput_slos_ms={"ttft": 200.0, "tpot": 50.0}, request_goodput=0.9)
    from calc.data.bench_results import parse_results

    (run,) = parse_results(json.dumps(line).encode(), "g.jsonl")
    assert run.slo_s == {"ttft": pytest.approx(0.2), "tpot": pytest.approx(0.05)}
    dep = Deployment.build(load_model("llama3.3-70b"), load_hardware("h200"), tp=4)
    s = score_run(run, dep, replay(run))
    good = next(r for r in s.rows if r["metric"] == "goodput_requests_per_s")
    want = s.sim.goodput_requests_per_s_e2e(0.2, 0.05, None)
    assert good["predicted"] == pytest.approx(want) and good["measured"] == 0.9


# ---------------------------------------------------------------------------------------------
# The fit


def _synthetic_runs(dep_true, rates=(2.0, 8.0)):
    """Runs 'measured' on kvcalc itself at a known calibration: 300 requests of prompts
    uniform in 200 … 2,000 and outputs in 50 … 200 tokens (seeded)."""
    runs = []
    rng = np.random.default_rng(0)
    prompt = tuple(int(x) for x in rng.integers(200, 2001, 300))
    gen = tuple(int(x) for x in rng.integers(50, 201, 300))
    for rate in rates:
        base = BenchRun(source=f"synthetic@{rate}", tool="test", rate_per_s=rate, completed=300,
                        prompt_tokens=prompt, output_tokens=gen)  # fmt: skip
        s = score_run(base, dep_true, replay(base))
        sim = s.sim
        # TTFT's mean, not its median: a median moves in steps of one iteration as the
        # parameters move (a request lands before or after an iteration's end), a mean
        # smoothly, so the fit can be held to the exact parameters
        measured = {"ttft_avg_s": sim.ttft_s["mean"], "tpot_avg_s": sim.tpot_s["mean"],
                    "output_tokens_per_s": sim.output_tokens_per_s}  # fmt: skip
        runs.append(replace(base, measured=measured))
    return runs


def test_fit_recovers_a_known_calibration():
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    true = StepCalibration(gemm=1.3, host_step_s=0.002)
    dep_true = Deployment.build(cfg, replace(hw, step_calibration=true))
    dep = Deployment.build(cfg, hw)
    runs = _synthetic_runs(dep_true)
    res = fit([(r, dep, replay(r), None) for r in runs], ("gemm", "host"))
    # found within what the simulation's steps allow (module docstring of score_fit): the
    # residuals fall from several % to below 0.5 %
    assert res.multipliers["gemm"] == pytest.approx(1.3, rel=0.03)
    assert res.host_step_s == pytest.approx(0.002, rel=0.1)
    assert res.rms_after < 0.005 < max(abs(v) for d in res.before for v in d.values())


def test_fit_refuses_what_the_runs_cannot_constrain():
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    dep = Deployment.build(cfg, hw)
    runs = _synthetic_runs(dep, rates=(2.0,))
    items = [(r, dep, replay(r), None) for r in runs]
    with pytest.raises(InvalidInputError, match=r"--fit moe: the runs cannot constrain it.*no MoE"):
        fit(items, ("gemm", "moe"))
    with pytest.raises(InvalidInputError, match=r"--fit communication.*no collectives"):
        fit(items, ("communication",))
    # the vLLM run at 4 requests/s with every prompt in the prefix cache (the prompts of the
    # run before it): its four figures (TTFT p50, TPOT mean, throughput and, host_seq fitted,
    # TPOT p99) cannot constrain five parameters, whatever the step model; without host_seq
    # the TPOT p99 is not a figure: three cannot constrain four
    (run,) = read_results(VLLM_QPS4)
    a100 = Deployment.build(load_model("llama3.3-70b"), load_hardware(str(A100_40G)), tp=8)
    cached = [(run, a100, replay(run, cached_fraction=1.0), None)]
    with pytest.raises(InvalidInputError, match=r"4 measured figures cannot constrain 5"):
        fit(cached, ("gemm", "attention", "host", "host_seq", "request"))
    with pytest.raises(InvalidInputError, match=r"3 measured figures cannot constrain 4"):
        fit(cached, ("gemm", "attention", "host", "request"))


def test_save_calibration_round_trip(cli, tmp_path):
    out = tmp_path / "cal.yaml"
    # the release before vLLM's async scheduling default (0.14.0), as the run's 0.8.3 had none
    base = ("score", VLLM_QPS4, "-H", str(A100_40G), "--tp", "8", "--engine-version", "0.13.0")
    r = cli(*base, "--prefix-cached", "1", "--fit", "gemm,attention,host,host_seq,request",
            "--save-calibration", out, "-f", "json")  # fmt: skip
    assert r.code == 2 and not out.exists()
    assert "measured figures cannot constrain" in r.err
    r = cli(*base, "--fit", "gemm,request", "--save-calibration", out, "-f", "json")
    assert r.code == 0, r.err
    cal = yaml.safe_load(out.read_text())
    assert cal["kind"] == "kvcalc-calibration" and cal["hardware"] == "a100-40g"
    assert cal["fit"]["parameters"] == ["gemm", "request"]
    # what the runs share is recorded, and a command of the same is told nothing more
    assert (cal["engine"], cal["engine_version"], cal["model"], cal["dtype"]) == (
        "vllm", "0.13.0", "llama3.3-70b", "bf16")
    assert r.json()["fit"]["rms_residual"] < 0.1
    # applied: the same run scored with it is closer on the fitted figures
    again = cli(*base, "--calibration", out, "-f", "json")
    assert again.code == 0 and again.json()["runs"][0]["calibrated"] is True
    assert "was fitted to" not in again.err
    err = {(m["metric"], m["stat"]): abs(m["error"]) for m in again.json()["metrics"]}
    before = {(m["metric"], m["stat"]): abs(m["error"]) for m in r.json()["metrics"]}
    assert err[("ttft", "p50")] < before[("ttft", "p50")]
    # fitting on top of a calibration is refused
    r = cli(*base, "--calibration", out, "--save-calibration", tmp_path / "x.yaml")
    assert r.code == 2 and "leave out --calibration" in r.err


# ---------------------------------------------------------------------------------------------
# The calibration in every command


def _cal_file(tmp_path, **fields) -> Path:
    doc = {"kind": "kvcalc-calibration", "hardware": "h100", "device": "test",
           "created": "2026-12-01", **fields}  # fmt: skip
    p = tmp_path / "cal.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


def test_step_calibration_arithmetic():
    # TPOT(calibrated) = Σ op × its class's multiplier + host + rows × host_per_seq:
    # with gemm × 2, attention × 1.5, host 1 ms and 10 µs per sequence at batch 8
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    plain = step_of(Deployment.build(cfg, hw), batch=8, ctx=2048)
    cal = StepCalibration(gemm=2.0, attention=1.5, host_step_s=1e-3, host_per_seq_s=1e-5)
    step = step_of(Deployment.build(cfg, replace(hw, step_calibration=cal)), batch=8, ctx=2048)
    by_class: dict = {}
    for op, t in zip(plain.raw, plain.ops, strict=True):
        by_class[op_class(op)] = by_class.get(op_class(op), 0.0) + t.time_s
    want = (2.0 * by_class["gemm"] + 1.5 * by_class["attention"] + by_class.get("other", 0)
            + 1e-3 + 8 * 1e-5)  # fmt: skip
    assert step.time_s == pytest.approx(want, rel=1e-12)
    assert [o.name for o in step.ops][-2:] == ["host", "host_rows"]


def test_calibration_reaches_latency_simulate_cost(cli, tmp_path):
    cal = _cal_file(tmp_path, op_multipliers={"gemm": 1.5}, host_step_s=0.002, request_s=0.05)
    dep = ("-m", "llama3-8b", "-H", "h100")
    lat = [cli("latency", *dep, "--prompt", "1000", "--gen", "100", *x, "-f", "json").json()
           for x in ((), ("--calibration", cal))]  # fmt: skip
    assert lat[1]["tpot_s"] > lat[0]["tpot_s"] + 0.002
    sim = [cli("simulate", *dep, "--rate", "0.1", "-n", "5", "--prompt", "100", "--gen", "8",
               "--arrival", "constant", *x, "-f", "json").json()
           for x in ((), ("--calibration", cal))]  # fmt: skip
    # a lone request: its TTFT grows by the request latency (50 ms) and its calibrated prefill
    assert sim[1]["ttft_p50_s"] > sim[0]["ttft_p50_s"] + 0.05
    cost = [cli("cost", *dep, "--ctx", "2048", *x, "-f", "json").json()
            for x in ((), ("--calibration", cal))]  # fmt: skip
    assert cost[1]["usd_per_million_output_tokens"] > cost[0]["usd_per_million_output_tokens"]


def test_plan_marks_the_calibrated_rows(cli, tmp_path):
    cal = _cal_file(tmp_path, op_multipliers={"gemm": 1.2}, host_step_s=0.001)
    args = (
        "plan",
        "-m",
        "llama3-8b",
        "-H",
        "h100,a100-80g",
        "--rate",
        "2",
        "--prompt",
        "500",
        "--gen",
        "100",
        "--ttft-p99",
        "5s",
        "--tpot-p99",
        "200ms",
        "--method",
        "analytic",
    )
    r = cli(*args, "--calibration", cal, "-f", "json")
    assert r.code == 0, r.err
    rows = r.json()["rows"]
    assert {row["hardware"] for row in rows if row["calibrated"]} == {"h100"}
    assert any(not row["calibrated"] for row in rows)
    assert "(calibrated)" in cli(*args, "--calibration", cal).out
    r = cli(*args[:4], "a100-80g", *args[5:], "--calibration", cal)
    assert r.code == 2 and "add it to --hardware" in r.err


def test_tpot_tail_lets_one_run_constrain_a_per_sequence_cost():
    # vLLM 0.8.3 Llama-3.3-70B TP 8 on A100 40GB at 4 requests/s (prompts cached from the run
    # before): its TTFT p50, TPOT mean and throughput, all at one load, cannot tell a
    # per-sequence host time from a GEMM multiplier; the TPOT p99 (requests decoded while the
    # run's load peaks) can. The figure enters only a fit of host_seq.
    from calc.reports.score_fit import fit_figures

    (run,) = read_results(VLLM_QPS4)
    assert fit_figures(run) == [("ttft", "p50"), ("tpot", "avg"), ("output_tokens_per_s", ""),
                                ("tpot", "p99")]  # fmt: skip
    assert fit_figures(run, ("gemm", "request")) == fit_figures(run)[:3]
    # the release before vLLM's async scheduling default (0.14.0), as the run's 0.8.3 had none
    engine = EngineSettings(name="vllm", version="0.13.0")
    dep = Deployment.build(load_model("llama3.3-70b"), load_hardware(str(A100_40G)), tp=8,
                           engine=engine)
    res = fit([(run, dep, replay(run, cached_fraction=1.0), None)])
    # the three are accepted (a fit the figures cannot constrain is refused); on the A100's
    # measured kernel curves (issue 20 host round) the per-sequence time it finds is 0 µs
    # (77 µs and gemm × 1.35 on the copied bands before), the step's shortfall in the multiplier
    assert res.parameters == ("gemm", "host_seq", "request")
    assert 0 <= res.host_per_seq_s < 20e-6 and 1.0 < res.multipliers["gemm"] < 1.3
    # carried to the same deployment at 16 requests/s (about 2.4x the requests in flight):
    # TTFT p50, TPOT mean and output throughput within 10%
    (other,) = read_results(DATA / "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-16.json")
    cal = StepCalibration(gemm=res.multipliers["gemm"], host_per_seq_s=res.host_per_seq_s,
                          request_s=res.request_s, source="test")  # fmt: skip
    cdep = Deployment.build(load_model("llama3.3-70b"),
                            replace(dep.hardware, step_calibration=cal), tp=8,
                            engine=engine)  # fmt: skip
    rows = {(r["metric"], r["stat"]): r["error"]
            for r in score_run(other, cdep, replay(other, cached_fraction=1.0)).rows}  # fmt: skip
    for key in (("ttft", "p50"), ("tpot", "avg"), ("output_tokens_per_s", "")):
        assert abs(rows[key]) <= 0.10, (key, rows[key])


def test_a_file_without_tpot_is_fitted_to_its_e2e_mean_not_its_itl_median():
    # SGLang 0.4's bench_serving records the ITL median and the E2E mean, no TPOT: the E2E mean
    # (TTFT + TPOT × (output - 1) averaged) stands in for the TPOT mean, not the ITL median,
    # a quantile that flips by a whole prefill as the share of gaps carrying one crosses half
    from calc.reports.score_fit import TPOT_STAND_INS, fit_figures

    rows = (DATA / "sglang-2024-12_llama-3.3-70b_tp4_h200_online.jsonl").read_text()
    run = read_results(DATA / "sglang-2024-12_llama-3.3-70b_tp4_h200_online.jsonl")[3]
    assert json.loads(rows.splitlines()[3])["request_rate"] == 8.0 and run.rate_per_s == 8.0
    assert run.measured["itl_p50_s"] and run.measured["e2e_avg_s"]
    assert not run.measured.get("tpot_avg_s") and not run.measured.get("itl_avg_s")
    assert fit_figures(run, ("gemm", "request")) == [
        ("ttft", "p50"), ("e2e", "avg"), ("output_tokens_per_s", "")]  # fmt: skip
    # nearest first: a pooled ITL mean (every gap counted) before the E2E mean
    assert TPOT_STAND_INS.index(("itl", "avg")) < TPOT_STAND_INS.index(("e2e", "avg"))
    assert TPOT_STAND_INS.index(("e2e", "avg")) < TPOT_STAND_INS.index(("itl", "p50"))
    with_mean = replace(run, measured={**run.measured, "itl_avg_s": 0.1})
    assert fit_figures(with_mean, ("gemm", "request"))[1] == ("itl", "avg")
    # the measured E2E mean of that run: 52,064.8 ms over 2,400 requests of 1,218,922 output
    # tokens (507.9 a request): 102.5 ms an output token, where the ITL median is 70.8 ms
    per_token_ms = run.measured["e2e_avg_s"] * 1e3 / (1_218_922 / 2_400)
    assert per_token_ms == pytest.approx(102.5, abs=0.1)
    assert run.measured["itl_p50_s"] * 1e3 == pytest.approx(70.76, abs=0.01)


def test_each_run_states_the_engine_release_it_was_replayed_on(cli):
    # qa4: a vLLM result file records no release, so the replay uses the newest modelled one
    # (its max_num_seqs and step rules), and neither the table nor the JSON said which
    dep = ("-H", str(A100_40G), "--tp", "8")
    newest = cli("score", VLLM_QPS4, *dep, "-f", "json")
    assert newest.code == 0, newest.err
    assert newest.json()["runs"][0]["engine_version"] == "0.33.0"
    old = cli("score", VLLM_QPS4, *dep, "--engine-version", "0.10.0", "-f", "json")
    assert old.json()["runs"][0]["engine_version"] == "0.10.0"
    table = cli("score", VLLM_QPS4, *dep)
    assert "engine_version" in table.out and "0.33.0" in table.out


def test_a_fit_that_moves_most_figures_away_from_the_runs_says_so(cli, tmp_path):
    # qa4: the four vLLM 0.8.3 TP 8 runs with the all-at-once burst among them (its TTFT median
    # +566% before the fit: the newest release's max_num_seqs 256 queues the burst) gave
    # gemm × 0.62 and moved 9 of 16 figures further from the runs (TPOT mean at 1/s
    # -22% → -44%) while the rms fell (the burst's +566% → +410%): the fit said nothing
    runs = [DATA / f"vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-{q}.json"
            for q in ("01", "04", "16", "inf")]  # fmt: skip
    out = tmp_path / "cal.yaml"
    # the release before vLLM's async scheduling default (0.14.0), as the runs' 0.8.3 had none
    r = cli("score", *runs, "-H", str(A100_40G), "--tp", "8", "--engine-version", "0.13.0",
            "--save-calibration", out, "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    assert "the fit moves 9 of 16 figures further from the runs" in r.err, r.err
    assert "qps-inf.json" in r.err.split("the fit moves")[1]  # the run that set it, named
    # without the burst, on the A100's measured kernel curves (issue 20 host round), the 16/s
    # run replayed at 0.13.0 with its prompts uncached (the server had them
    # cached: bench/validation_score.py replays them so) is 49% slow on TTFT before the fit
    # (43% before the runs were replayed with their client's own send gaps, issue 23's score
    # round) and pulls it: 6 of 9 figures further (were 5), that run named
    r3 = cli("score", *runs[:3], "-H", str(A100_40G), "--tp", "8", "--engine-version", "0.13.0",
             "--fit", "gemm,request", "-f", "json")  # fmt: skip
    assert r3.code == 0, r3.err
    assert "the fit moves 6 of 9 figures further from the runs" in r3.err, r3.err
    assert "qps-16.json" in r3.err.split("the fit moves")[1]
    # without it too the fit carries: no such warning
    r2 = cli("score", *runs[:2], "-H", str(A100_40G), "--tp", "8", "--engine-version", "0.13.0",
             "--fit", "gemm,request", "-f", "json")  # fmt: skip
    assert r2.code == 0, r2.err
    assert "further from the runs" not in r2.err


def test_score_reads_stdin(cli, monkeypatch):
    """``kvcalc score -`` reads the result file from a pipe: the same figures as the path."""
    import io
    import json

    path = DATA / "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json"
    args = ("-H", str(A100_40G), "--tp", "8", "--format", "json")
    by_path = json.loads(cli("score", path, *args).out)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    r = cli("score", "-", *args)
    assert r.code == 0, r.err
    piped = json.loads(r.out)
    assert piped["runs"][0]["source"] == "stdin"
    predicted = [m["predicted"] for m in by_path["metrics"]]
    assert [m["predicted"] for m in piped["metrics"]] == predicted
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    r = cli("score", "-", *args)
    assert r.code == 2 and r.err.count("\n") == 1 and "stdin: empty file" in r.err


def test_whole_prompts_over_the_default_budget_are_replayed_as_served():
    # a TensorRT-LLM run (chunked prefill off, the release's max_num_tokens 8,192 when the file
    # states none) whose prompts of 9,000 tokens were served: its server's budget held them, so
    # the replay serves all four requests rather than refusing the two long ones
    from calc.deploy.deployment import EngineSettings

    run = BenchRun(source="f.json", tool="trtllm-bench", backend="trtllm", completed=4,
                   prompt_tokens=(9000, 500, 9000, 500), output_tokens=(64, 64, 64, 64),
                   start_s=(0.0, 0.1, 0.2, 0.3))  # fmt: skip
    dep = Deployment.build(load_model("llama3.1-8b"), load_hardware("h100"),
                           engine=EngineSettings(name="trtllm"))  # fmt: skip
    assert dep.engine_config.max_batched_tokens == 8192 and not dep.engine_config.chunked_prefill
    s = score_run(run, dep, replay(run))
    assert s.sim.rejected == 0 and s.sim.n_requests == 4


def test_a_log_that_contradicts_the_file_and_a_default_engine_are_said():
    from calc.reports.score import deployment_options

    (run,) = read_results(VLLM_QPS4)  # records Llama-3.3-70B, vllm bench serve
    given = {"model": None, "hardware": "h100", "engine": None}
    _, notes = deployment_options(run, given, {"model": "llama3.1-8b", "engine": "vllm"})
    assert ("the start-up log's model llama3.1-8b is used, though the result file records "
            "llama3.3-70b (--model to choose)") in notes  # fmt: skip
    # --model given: the user chose, nothing to say
    _, notes = deployment_options(run, {**given, "model": "llama3.1-8b"},
                                  {"model": "llama3.1-8b", "engine": "vllm"})  # fmt: skip
    assert not any("though the result file" in n for n in notes)
    # a file whose tool names no engine: replayed as vLLM, and said
    bare = BenchRun(source="f.json", tool="aiperf", model="meta-llama/Llama-3.1-8B-Instruct")
    options, notes = deployment_options(bare, given)
    assert options["engine"] is None
    assert "engine vllm, the default: the file names none (--engine to choose)" in notes
