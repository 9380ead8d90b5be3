"""`kvcalc log` options for the settings a log omits (issue 21 audit item 2): each default
taken is named with the option that supplies it; given, the option is used and the warning
drops it; bad values are one error line."""

from __future__ import annotations

from pathlib import Path

import pytest

TP1 = Path(__file__).parent / "data" / "engine_logs" / "vllm-h100-llama31-8b-tp1.log"
GIB = 2**30


def _terms(r) -> dict:
    return {t["term"]: t for t in r.json()["terms"]}


def test_each_default_names_its_option(cli):
    r = cli("log", TP1, "-f", "json")
    assert r.code == 0, r.err
    assert "tensor_parallel_size 1 (--tp)" in r.err
    assert "max_num_batched_tokens 8,192 (--max-batched-tokens)" in r.err
    assert "max_num_seqs 1,024 (--max-num-seqs)" in r.err


def test_given_options_are_used_and_not_warned(cli):
    base = cli("log", TP1, "-f", "json")
    r = cli("log", TP1, "-f", "json", "--tp", "1", "--max-batched-tokens", "4096",
            "--max-num-seqs", "256")  # fmt: skip
    assert r.code == 0, r.err
    assert "does not state" not in r.err
    # a smaller profiling pass: the predicted activation peak is smaller than at 8,192 tokens
    assert _terms(r)["activation"]["predicted"] < _terms(base)["activation"]["predicted"]


def test_activation_overhead_and_fraction_replace_the_modelled_terms(cli):
    r = cli("log", TP1, "-f", "json", "--activation", "2GiB", "--overhead", "1GiB",
            "--mem-util", "0.9")  # fmt: skip
    assert r.code == 0, r.err
    t = _terms(r)
    assert t["activation"]["predicted"] == 2 * GIB  # as given
    assert t["non_torch"]["predicted"] == 1 * GIB
    assert r.json()["memory_fraction"] == 0.9  # over the log's 0.95


def test_max_model_len_and_block_size_override_the_log(cli):
    r = cli("log", TP1, "-f", "json", "--max-model-len", "4096", "--block-size", "32")
    assert r.code == 0, r.err
    assert r.json()["max_model_len"] == 4096  # the log states 8,192


@pytest.mark.parametrize("args, message", [
    (("--activation", "banana"), "--activation 'banana' is not a size"),
    (("--mem-util", "2"), "--mem-util must be a fraction in (0, 1]"),
    (("--max-num-seqs", "0"), "--max-num-seqs must be an integer"),
    (("--overhead", "-1GiB"), "--overhead '-1GiB' is not a size"),
])  # fmt: skip
def test_bad_values_are_one_error_line(cli, args, message):
    r = cli("log", TP1, *args)
    assert r.code == 2
    errors = [x for x in r.err.splitlines() if x.startswith("kvcalc: error:")]
    assert len(errors) == 1 and message in errors[0], r.err
    assert "Traceback" not in r.err
