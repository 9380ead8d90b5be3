"""Speculative decoding and MTP: expected tokens per step, speedup, extra memory."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from calc.errors import InvalidInputError
from calc.reports.speculative import (
    expected_tokens_per_step,
    leviathan_speedup,
    speculative_step_s,
    speedup,
)


def test_expected_tokens():
    # (1 − 0.8^5) / (1 − 0.8) = (1 − 0.32768) / 0.2 = 3.3616
    assert expected_tokens_per_step(0.8, 4) == pytest.approx(3.3616, rel=1e-12)
    assert expected_tokens_per_step(1.0, 4) == 5  # α = 1: γ + 1
    assert expected_tokens_per_step(0.0, 4) == 1  # nothing accepted: the target's own token
    assert expected_tokens_per_step(0.5, 0) == 1  # γ = 0: plain decoding


def test_expected_tokens_arrays():
    # γ = 2: α 0 → 1; α 0.5 → (1 − 0.125)/0.5 = 1.75; α 1 → 3
    got = expected_tokens_per_step(np.array([0.0, 0.5, 1.0]), 2)
    assert got.tolist() == [1.0, 1.75, 3.0]


def test_speedup_formulas():
    # step = 4 × 0.005 + 0.021 = 0.041 s; speedup = 3.3616 × 0.02 / 0.041 = 1.63980...
    assert speculative_step_s(4, 0.005, 0.021) == pytest.approx(0.041)
    assert speedup(0.8, 4, 0.02, 0.005, 0.021) == pytest.approx(3.3616 * 0.02 / 0.041, rel=1e-12)
    # Leviathan closed form, c = 0.25: 3.3616 / (4 × 0.25 + 1) = 1.6808
    assert leviathan_speedup(0.8, 4, 0.25) == pytest.approx(1.6808, rel=1e-12)
    assert speedup(0.8, 4, 0.02, 0.005) == pytest.approx(leviathan_speedup(0.8, 4, 0.25))


@given(st.floats(0, 1), st.integers(0, 16))
def test_bounds(alpha, gamma):
    e = expected_tokens_per_step(alpha, gamma)
    assert 1 - 1e-9 <= e <= gamma + 1 + 1e-9


@pytest.mark.parametrize("alpha, gamma", [(1.5, 2), (-0.1, 2), (0.5, -1), (0.5, 1.5)])
def test_rejects(alpha, gamma):
    with pytest.raises(InvalidInputError):
        expected_tokens_per_step(alpha, gamma)


def test_cli_draft(cli):
    r = cli(
        "speculate", "-m", "llama3-70b", "--draft", "llama3-8b", "-H", "h100", "--tp", "4",
        "--gamma", "4", "--alpha", "0.8", "-f", "json",
    )  # fmt: skip
    assert r.code == 0, r.err
    d = r.json()
    assert d["expected_tokens_per_step"] == pytest.approx(3.3616)
    # draft weights 8,030,261,248 × 2 B; draft KV 4,096 tokens × 131,072 B = 536,870,912
    assert d["draft_weights_bytes"] == 16_060_522_496
    assert d["draft_kv_cache_bytes"] == 536_870_912
    assert d["extra_memory_bytes"] == 16_060_522_496 + 536_870_912
    step = 4 * d["draft_step_s"] + d["verify_step_s"]
    assert d["speedup"] == pytest.approx(d["expected_tokens_per_step"] * d["target_step_s"] / step)
    assert d["verify_step_s"] >= d["target_step_s"]


def test_cli_mtp(cli):
    r = cli(
        "speculate", "-m", "deepseek-v3", "--mtp", "1", "-H", "h200", "--tp", "8",
        "--gamma", "1", "--alpha", "0.85", "-f", "json",
    )  # fmt: skip
    assert r.code == 0, r.err
    d = r.json()
    assert d["expected_tokens_per_step"] == pytest.approx(1.85)  # 1 + 0.85
    assert d["draft_step_s"] == pytest.approx(d["target_step_s"] / 61)  # one of 61 layers


def test_cli_errors(cli):
    r = cli("speculate", "-m", "llama3-8b", "-H", "h100", "--gamma", "4", "--alpha", "1.5",
            "--draft", "llama3-8b")  # fmt: skip
    assert r.code == 2 and "--alpha" in r.err
    r = cli("speculate", "-m", "llama3-8b", "-H", "h100", "--gamma", "4", "--alpha", "0.5")
    assert r.code == 2 and "exactly one of --draft" in r.err
    r = cli("speculate", "-m", "llama3-70b", "-H", "h100", "--gamma", "4", "--alpha", "0.5",
            "--draft", "mistral-7b")  # fmt: skip
    assert r.code == 0 and "same tokenizer" in r.err


def test_help_has_example(cli):
    for cmd in ("speculate", "import-hf"):
        r = cli(cmd, "--help")
        assert r.code == 0 and "Example: kvcalc" in r.out


def test_verification_reads_each_sequences_kv_once():
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment
    from calc.deploy.steps import step_of
    from calc.reports.speculative import kv_read_once_bytes, verify_step_time_s

    # 10 GB moved, 5 of them KV read once per position at γ = 4: 10 − 5 × 4 / 5 = 6 GB
    assert kv_read_once_bytes(10e9, 5e9, 4) == pytest.approx(6e9)
    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"))
    plain = float(step_of(dep, batch=32, ctx=8192).time_s)
    # γ = 0: the verification step is the plain decode step
    assert verify_step_time_s(dep, "expected", batch=32, ctx=8192, gamma=0) == pytest.approx(
        plain, rel=1e-12
    )
    per_position = float(step_of(dep, batch=32 * 5, ctx=8192).time_s)
    once = verify_step_time_s(dep, "expected", batch=32, ctx=8192, gamma=4)
    assert plain <= once < per_position  # the KV of 8,192 tokens is no longer read 5 times


def test_draft_has_its_own_tensor_parallelism(cli):
    at = ("speculate", "-m", "llama3-70b", "--draft", "llama3-8b", "-H", "h100", "--tp", "4",
          "--gamma", "4", "--alpha", "0.8", "-f", "json")  # fmt: skip
    one, four = cli(*at).json(), cli(*at, "--draft-tp", "4").json()
    assert one["draft_tp"] == 1 and four["draft_tp"] == 4
    assert four["draft_step_s"] < one["draft_step_s"]  # a quarter of the weights per GPU
    assert four["verify_step_s"] == one["verify_step_s"]  # the target is unchanged
    r = cli(*at, "--draft-tp", "3")
    assert r.code == 2 and r.err.startswith("kvcalc: error: --draft-tp 3:")


@pytest.mark.parametrize("draft_tp", ["8", "2"])
def test_draft_tp_is_one_or_the_targets(cli, draft_tp):
    # qa4: --draft-tp 8 beside --tp 4 was taken (the draft timed on 8 GPUs of a 4-GPU
    # deployment); the help and vLLM's draft_tensor_parallel_size allow 1 or the target's TP
    r = cli("speculate", "-m", "llama3-70b", "--draft", "llama3-8b", "-H", "h100", "--tp", "4",
            "--gamma", "4", "--alpha", "0.8", "--draft-tp", draft_tp)  # fmt: skip
    assert r.code == 2 and "--draft-tp" in r.err and "1 GPU or the target's --tp 4" in r.err, r.err
    assert len(r.err.strip().splitlines()) == 1
    ok = cli("speculate", "-m", "llama3-70b", "--draft", "llama3-8b", "-H", "h100", "--tp", "4",
             "--gamma", "4", "--alpha", "0.8", "--draft-tp", "4")  # fmt: skip
    assert ok.code == 0, ok.err
