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
        "kvcalc: error: --engine 'vlm' is not one of: vllm, sglang, trtllm; did you mean 'vllm'?"
    ]


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
@pytest.mark.parametrize(
    "model, released, other",
    # Llama 3 8B's config.json torch_dtype is bfloat16; DeepSeek-R1's linear layers are the
    # 128x128-block fp8 of its quantization_config (weight_block_size [128, 128])
    [("llama3-8b", "bf16", "int4-g128"), ("deepseek-r1", "fp8-block128", "int4-g128")],
)
def test_launch_commands_serve_the_release_when_its_own_format_is_named(engine, model, released,
                                                                        other):
    # audit item 3: every caller of the engine wing's commands (report_runs, capacity's report,
    # plan), not plan alone: --weight-dtype naming the released format serves the published
    # repository with no quantisation flag and no "quantised to" / ModelOpt note
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.engines.launch import timed_format
    from calc.reports.launch_flags import launch_commands

    cfg = load_model(model)
    hw = load_hardware("h200")
    tp = 1 if model == "llama3-8b" else 8
    repo = "/".join(cfg.source.split("huggingface.co/")[1].split("/")[:2])

    def build(weight_dtype):
        return Deployment.build(cfg, hw, tp=tp, weight_dtype=weight_dtype,
                                engine=EngineSettings(name=engine, max_model_len=4096))  # fmt: skip

    named = build(released)
    assert timed_format(named) is None
    (c,) = launch_commands(named)
    assert repo in c.argv
    assert "--quantization" not in c.argv
    assert not any("quantised to" in n or "ModelOpt" in n for n in c.notes)
    # another format still names what to serve
    assert timed_format(build(other)) == other
    (o,) = launch_commands(build(other))
    assert any(other in n for n in o.notes)
