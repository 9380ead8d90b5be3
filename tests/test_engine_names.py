"""The names users give the engines (issue 21 audit item 4): TensorRT-LLM as "tensorrt", "trt",
"tensorrt-llm" or "TRT-LLM" is trtllm in every command; any other name is one error line (exit
2) naming the nearest engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.deploy.engines import engine_name
from calc.errors import InvalidInputError

TRT_LOG = Path(__file__).parent / "data" / "engine_logs" / "trtllm-h100-llama31-8b-fp8.log"


@pytest.mark.parametrize(
    "given, name",
    [("tensorrt", "trtllm"), ("trt", "trtllm"), ("tensorrt-llm", "trtllm"), ("TRT-LLM", "trtllm"),
     ("TensorRT-LLM", "trtllm"), ("trtllm", "trtllm"), ("vLLM", "vllm"), ("SGLang", "sglang")],
)  # fmt: skip
def test_aliases(given, name):
    assert engine_name(given) == name


@pytest.mark.parametrize("given, near", [("vlm", "vllm"), ("sglng", "sglang"), ("trtlm", "trtllm")])
def test_an_unknown_name_suggests_the_nearest(given, near):
    with pytest.raises(InvalidInputError, match=f"did you mean '{near}'"):
        engine_name(given)


@pytest.mark.parametrize("given", ["tensorrt", "TRT-LLM"])
def test_capacity_and_log_take_an_alias(cli, given):
    r = cli("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "--engine", given,
            "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    assert r.json()["engine"] == "trtllm"
    r = cli("log", TRT_LOG, "-m", "llama3-8b", "--engine", given, "-f", "json")
    assert r.code == 0, r.err
    assert r.json()["engine"] == "trtllm"


@pytest.mark.parametrize("command", [
    ("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192"),
    ("log", str(TRT_LOG), "-m", "llama3-8b"),
])  # fmt: skip
def test_an_unknown_engine_is_one_error_line_with_the_nearest(cli, command):
    r = cli(*command, "--engine", "vlm")
    assert r.code == 2
    assert r.err.strip().splitlines() == [
        "kvcalc: error: --engine 'vlm' is not one of: vllm, sglang, trtllm (did you mean 'vllm'?)"
    ]
