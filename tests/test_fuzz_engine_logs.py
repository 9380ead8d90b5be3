"""Fuzz targets for every engine's start-up log reader (fixed seed, a few seconds): any text,
made of random characters and of the phrases each reader keys on (numbers cut, repeated,
out of range, lines wrapped anywhere), is read to facts whose settings have the right types,
or refused with one InvalidInputError line; never another exception, never a wrong type."""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from calc.deploy.engines import all_engines
from calc.deploy.engines.fromlog import deployment_from_log, read_log
from calc.deploy.engines.logscan import with_continuations
from calc.errors import KvcalcError

PHRASES = {
    "vllm": [
        "GPU KV cache size: ", " tokens", "non-default args: {", "'tensor_parallel_size': ",
        "'gpu_memory_utilization': ", "Model loading took ", " GiB memory", "Available KV "
        "cache memory: ", "Estimated CUDA graph memory: ", " GiB total", "Maximum concurrency "
        "for ", " tokens per request: ", "x", "Requested memory: ", " (util), ", "total "
        "consumed (from mem_get_info): ", "The current --gpu-memory-utilization=", "with "
        "config: model='", "tensor_parallel_size=", "vLLM API server version ", "vllm serve ",
        "--tensor-parallel-size ", "Chunked prefill is enabled with max_num_batched_tokens=",
    ],
    "sglang": [
        "KV Cache is allocated. #tokens: ", ", K size: ", " GB, V size: ", " GB", ", KV size: ",
        "ServerArgs(model_path='", "tp_size=", "mem_fraction_static=", "Load weight end. ",
        "avail mem=", " GB, mem usage=", "python -m sglang.launch_server ", "--tp-size ",
        "--mem-fraction-static ", "max_total_num_tokens=", "Init torch distributed ends. mem "
        "usage=",
    ],
    "trtllm": [
        "[TensorRT-LLM][INFO] ", "[TRT-LLM] [I] ", "Allocated ", " GiB for max tokens in paged "
        "KV cache (", "free_gpu_memory_fraction and max_tokens are set (to ", " and ",
        "Number of tokens per block: ", "max_seq_len=", "max_num_tokens=", "max_num_requests=",
        "TensorRT-LLM version: ", "trtllm-serve ", "--tp_size ", "fraction is set ",
    ],
}  # fmt: skip
NUMBERS = ["0", "1", "-1", "8,192", "58.11", "99999999999999999999", "1e400", "0.95", "nan",
           "1,044,688", "3.5.1", "", "2.13", ","]  # fmt: skip
EXPECTED_TYPES = {
    "tp": int, "pp": int, "dp": int, "ep": int, "max_model_len": int, "max_batched_tokens": int,
    "max_num_seqs": int, "block_size": int, "max_tokens": int, "cuda_graph_max_bs": int,
    "memory_fraction": float, "enforce_eager": bool, "expert_parallel": bool,
    "dp_attention": bool, "prefix_caching": bool,
}  # fmt: skip


def texts(engine_name: str):
    piece = st.one_of(
        st.text(max_size=20),
        st.sampled_from(PHRASES[engine_name]),
        st.sampled_from(NUMBERS),
        st.sampled_from(["\n", "\n", "\r\n", " "]),
    )
    return st.lists(piece, max_size=40).map("".join)


def _check(facts) -> None:
    for key, value in facts.settings.items():
        if key in EXPECTED_TYPES:
            assert type(value) is EXPECTED_TYPES[key], (key, value)
            if key == "memory_fraction":
                assert 0 < value <= 1
            elif type(value) is int:
                assert 0 < value < 10**12
        else:
            assert isinstance(value, str) and 0 < len(value) <= 300
    assert facts.printed


@pytest.mark.parametrize("e", all_engines(), ids=lambda e: e.name)
def test_fuzz_each_reader(e):
    @seed(20261201)
    @settings(max_examples=120, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
    @given(texts(e.name))
    def run(text):
        reader = e.log_reader()
        for line in with_continuations(text.splitlines()):
            reader.feed(line)  # a reader alone never raises
        try:
            facts = read_log(text, e.name)
        except KvcalcError as exc:
            assert "\n" not in str(exc)
            return
        _check(facts)
        try:  # and the Deployment it describes is built, or refused in one line
            deployment_from_log(facts, model="llama3-8b", hardware="h100")
        except KvcalcError as exc:
            assert "\n" not in str(exc)

    run()


@seed(20261202)
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(st.binary(max_size=400))
def test_fuzz_binary_streams(raw):
    try:
        facts = read_log(io.BytesIO(raw))
    except KvcalcError as exc:
        assert "\n" not in str(exc)
    else:
        _check(facts)
