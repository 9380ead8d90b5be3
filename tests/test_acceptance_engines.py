"""Acceptance checks of the engine releases as a new user meets them (issue 21): every command
that applies an engine's accounting takes --engine-version and warns when it names a release
that is not modelled; `plot capacity` draws what `capacity` computes at the same release."""

from __future__ import annotations

import json

import pytest

NOT_MODELLED = "vllm 0.34 is not modelled: using the nearest modelled release"


def _own_at(out: str, ctx: int) -> int:
    rows = json.loads(out)["rows"]
    (row,) = [r for r in rows if r["own"] and r["ctx"] == ctx]
    return row["max_concurrency"]


@pytest.mark.parametrize("kind", ["capacity", "frontier"])
def test_plot_warns_of_a_release_not_modelled(cli, kind):
    r = cli("plot", kind, "-m", "llama3-8b", "-H", "h100", "--engine-version", "0.34",
            "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    lines = [ln for ln in r.err.splitlines() if NOT_MODELLED in ln]
    assert len(lines) == 1 and lines[0].startswith("kvcalc: warning: "), r.err


def test_plot_capacity_draws_the_named_release(cli):
    # the model's own series at ctx 8,192 is `capacity`'s max_concurrency at the same release:
    # its pool in tokens // 8,192 (vLLM 0.11 and 0.33 differ in their defaults, docs/engines.md)
    seen = {}
    for release in ("0.11", "0.33"):
        p = cli("plot", "capacity", "-m", "llama3-8b", "-H", "h100", "--engine-version", release,
                "-f", "json")  # fmt: skip
        c = cli("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192",
                "--engine-version", release, "-f", "json")  # fmt: skip
        assert p.code == 0 and c.code == 0, p.err + c.err
        cap = json.loads(c.out)
        assert _own_at(p.out, 8192) == cap["max_concurrency"] == cap["kv_cache_tokens"] // 8192
        seen[release] = cap["kv_cache_tokens"]
    assert seen["0.11"] != seen["0.33"]  # the option reaches the accounting


def test_plot_refuses_a_version_that_is_not_one(cli):
    r = cli("plot", "capacity", "-m", "llama3-8b", "-H", "h100", "--engine-version", "banana")
    assert r.code == 2
    assert r.err.strip().splitlines()[-1].startswith("kvcalc: error: vllm version 'banana'")


@pytest.mark.parametrize(("tp", "head"), [(1, "# server, 1 GPU"), (2, "# server, 2 GPUs")])
def test_launch_heading_counts_gpus_in_english(tp, head):
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.reports.launch_flags import command_lines, launch_commands

    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"), tp=tp,
                           engine=EngineSettings(name="vllm", max_model_len=4096))  # fmt: skip
    assert command_lines(launch_commands(dep))[0] == head


@pytest.mark.parametrize("engine_name", ["vllm", "sglang", "trtllm"])
def test_plan_serves_the_checkpoint_as_released_when_its_own_format_is_named(cli, engine_name):
    # Llama 3 8B is released in bf16 (its config.json torch_dtype): --weight-dtype bf16 names
    # that checkpoint, so the command serves the published repository, quantises nothing, and
    # the ranked rows are those of --weight-dtype released (checkpoint.resolved_dtypes: the
    # same formats)
    args = ("plan", "-m", "llama3-8b", "-H", "h100", "--rate", "1", "--prompt", "512",
            "--gen", "64", "--ttft-p99", "5s", "--tpot-p99", "200ms", "--engine", engine_name,
            "--kv-dtype", "bf16", "--top", "1", "-f", "json")  # fmt: skip
    named = cli(*args, "--weight-dtype", "bf16")
    default = cli(*args, "--weight-dtype", "released")
    assert named.code == 0 and default.code == 0, named.err + default.err
    doc = json.loads(named.out)
    assert doc["rows"] == json.loads(default.out)["rows"]
    (command,) = doc["launch_commands"]
    assert "meta-llama/Meta-Llama-3-8B" in command["argv"]
    assert "--quantization" not in command["argv"]
    assert not any("quantised to bf16" in n or "ModelOpt bf16" in n for n in command["notes"])
