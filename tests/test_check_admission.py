"""`kvcalc check`: a spec states the settings that hold new requests back
(scheduler_recv_interval, batch_wait_iters, batch_wait_ratio), validated as the CLI's options
are and charged as the CLI charges them."""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.errors import ConfigError
from calc.reports.check_spec import load_spec, run_checks

# Llama 3 8B on one H100 under a light load (12 requests/s of 512 + 64 tokens, 120 requests)
LOAD = """
deployments:
  - name: held
    model: llama3-8b
    hardware: h100
    engine: {engine}
    engine_version: "{version}"
{extra}    workload: {{ctx: 576, prompt: 512, gen: 64, rate: 12, requests: 120, seed: 3}}
    requirements: {{max_ttft_p50_s: 10, max_tpot_p50_s: 10}}
"""


def _spec(tmp_path: Path, engine: str, version: str, extra: str = "") -> Path:
    p = tmp_path / "spec.yaml"
    p.write_text(LOAD.format(engine=engine, version=version, extra=extra))
    return p


def _figures(cli, path: Path) -> dict:
    r = cli("check", path, "-f", "json")
    assert r.code == 0, r.err
    return {row["requirement"]: row["figure"] for row in r.json()["results"]}


def _simulated(cli, *options: str) -> dict:
    r = cli("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "12", "--prompt", "512",
            "--gen", "64", "-n", "120", "--seed", "3", *options, "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    return r.json()


@pytest.mark.parametrize(
    ("engine", "version", "extra", "flags"),
    [
        ("sglang", "0.5.23", "    scheduler_recv_interval: 30\n",
         ("--scheduler-recv-interval", "30")),
        ("trtllm", "1.1.0", "    batch_wait_iters: 20\n    batch_wait_ratio: 0.9\n",
         ("--batch-wait-iters", "20", "--batch-wait-ratio", "0.9")),
    ],
)  # fmt: skip
def test_a_spec_is_charged_as_the_cli(cli, tmp_path, engine, version, extra, flags):
    plain = _figures(cli, _spec(tmp_path, engine, version))
    held = _figures(cli, _spec(tmp_path, engine, version, extra))
    # the wait is added before the prefill: the median TTFT rises (30 steps of an interval
    # wait 14.5 on average; 20 steps of a batch wait up to 20), the TPOT does not move much
    assert held["max_ttft_p50_s"] > plain["max_ttft_p50_s"]
    sim = _simulated(cli, "--engine", engine, "--engine-version", version, *flags)
    assert held["max_ttft_p50_s"] == pytest.approx(sim["ttft_p50_s"], rel=1e-12)
    assert held["max_tpot_p50_s"] == pytest.approx(sim["tpot_p50_s"], rel=1e-12)


def test_the_keys_are_in_the_schema(tmp_path):
    spec = load_spec(_spec(tmp_path, "sglang", "0.5.23", "    scheduler_recv_interval: 4\n"))
    assert spec.deployments[0].scheduler_recv_interval == 4


@pytest.mark.parametrize(
    ("engine", "version", "extra", "said"),
    [
        # the CLI's own messages (calc.deploy.deployment._check_admission)
        ("sglang", "0.5.23", "    scheduler_recv_interval: 0\n", "scheduler-recv-interval"),
        ("trtllm", "1.1.0", "    batch_wait_iters: 20\n", "go together"),
        ("trtllm", "1.1.0", "    batch_wait_iters: 20\n    batch_wait_ratio: 1.5\n",
         "--batch-wait-ratio must be in [0, 1], got 1.5"),
        ("vllm", "0.19", "    scheduler_recv_interval: 4\n",
         "--scheduler-recv-interval is not a setting of vLLM"),
        ("sglang", "0.5.23", "    batch_wait_iters: 20\n    batch_wait_ratio: 0.5\n",
         "--batch-wait-iters is not a setting of SGLang"),
        # a release before the option (the wing's refusal, as the CLI's)
        ("trtllm", "1.0.0", "    batch_wait_iters: 20\n    batch_wait_ratio: 0.5\n",
         "batch_wait_timeout_iters"),
    ],
)  # fmt: skip
def test_bad_values_are_one_line_exit_2(cli, tmp_path, engine, version, extra, said):
    path = _spec(tmp_path, engine, version, extra)
    with pytest.raises(ConfigError, match="deployments\\[0\\] \\(held\\)") as exc:
        run_checks(load_spec(path), path=path)
    assert said in str(exc.value) and "\n" not in str(exc.value)
    r = cli("check", path)
    assert r.code == 2 and "Traceback" not in r.err and said in r.err


def test_a_value_of_the_wrong_type_is_a_spec_error(cli, tmp_path):
    path = _spec(tmp_path, "sglang", "0.5.23", "    scheduler_recv_interval: often\n")
    with pytest.raises(ConfigError, match="scheduler_recv_interval"):
        load_spec(path)
    r = cli("check", path)
    assert r.code == 2 and "Traceback" not in r.err
