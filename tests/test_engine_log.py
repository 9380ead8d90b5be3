"""`kvcalc log`: parsing real start-up logs (fixtures are the training records' log lines),
the term-by-term comparison, the engine calibration round trip, and hostile text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calc.errors import InvalidInputError
from calc.reports.engine_log import parse_log

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "data" / "engine_logs"
GIB = 2**30

# log -> (kvcalc model, extra CLI options the log leaves unsaid)
RUNS = {
    "vllm-h100-llama31-8b-tp1": ("llama3-8b", []),
    "vllm-h100-llama31-8b-tp1-kvfp8": ("llama3-8b", []),
    "vllm-h100-llama31-8b-tp2": ("llama3-8b", []),
    "vllm-h100-llama31-8b-tp4": ("llama3-8b", []),
    "vllm-h100-qwen25-7b-tp1": ("qwen2.5-7b", []),
    "vllm-h100-qwen3-8b-tp1": ("docs/validation/qwen3-8b.yaml", []),
    "vllm-h100-mixtral-8x7b-tp2": ("mixtral-8x7b", []),
    "vllm-h100-phi-4": ("docs/validation/phi-4.yaml", []),
    "vllm-h100-gemma2-9b": ("gemma-2-9b", []),
    "vllm-h100-deepseek-v2-lite": ("docs/validation/deepseek-v2-lite.yaml", []),
    "vllm-80gb-llama3-8b-pr10511": ("llama3-8b", []),
    "sglang-4xh100-qwen3-235b-fp8-tp4": (
        "docs/validation/qwen3-235b-a22b.yaml",
        ["--weight-dtype", "fp8-block128"],
    ),
    "trtllm-h100-llama31-8b-fp8": (
        "llama3-8b",
        ["--weight-dtype", "fp8-tensor", "--kv-dtype", "fp8"],
    ),
}


def _text(name: str) -> str:
    return (LOGS / f"{name}.log").read_text()


def test_vllm_log_settings_and_printed_figures():
    r = parse_log(_text("vllm-h100-llama31-8b-tp2"))
    assert r.engine == "vllm"
    assert r.settings == {
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "tp": 2,
        "memory_fraction": 0.95,
        "max_model_len": 8192,
    }
    assert r.printed["tokens"] == 1_044_688  # "GPU KV cache size: 1,044,688 tokens"
    assert r.printed["blocks"] == 65_293
    assert r.printed["weights_bytes"] == pytest.approx(7.51 * GIB)
    assert r.printed["activation_bytes"] == pytest.approx(1.89 * GIB)
    assert r.printed["non_torch_bytes"] == pytest.approx(2.07 * GIB)
    assert r.printed["kv_cache_bytes"] == pytest.approx(63.76 * GIB)
    assert r.printed["max_concurrency"] == 127.53
    assert r.printed["total_memory_bytes"] == pytest.approx(75.23 / 0.95 * GIB)


def test_sglang_and_trtllm_logs():
    s = parse_log(_text("sglang-4xh100-qwen3-235b-fp8-tp4"))
    assert s.engine == "sglang"
    assert (s.settings["tp"], s.settings["memory_fraction"]) == (4, 0.93)
    assert s.printed["tokens"] == 367_404
    assert s.printed["kv_cache_bytes"] == pytest.approx((8.23 + 8.23) * GIB)
    t = parse_log(_text("trtllm-h100-llama31-8b-fp8"))
    assert t.engine == "trtllm"
    assert t.settings["max_tokens"] == 860_308 and t.settings["block_size"] == 32
    assert t.settings["memory_fraction"] == 0.8
    assert t.printed["tokens"] == 860_320


def test_vllm_v0_profile_table():
    r = parse_log(_text("vllm-80gb-llama3-8b-pr10511"))
    assert r.settings["memory_fraction"] == 0.9
    assert r.printed["kv_cache_bytes"] == pytest.approx(53.29 * GIB)
    assert r.printed["non_torch_bytes"] == pytest.approx(1.79 * GIB)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_training_log_reproduces_its_table(cli, name):
    model, extra = RUNS[name]
    r = cli("log", LOGS / f"{name}.log", "-m", ROOT / model if "/" in model else model,
            *extra, "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    terms = {t["term"]: t for t in r.json()["terms"]}
    printed = terms["tokens"]["printed"]
    if printed is not None:
        assert abs(terms["tokens"]["error"]) < 0.03  # the max error
    kv = terms["kv_cache"]
    assert kv["printed"] is not None and abs(kv["error"]) < 0.03


def test_table_and_csv(cli):
    r = cli("log", LOGS / "vllm-h100-llama31-8b-tp1.log")
    assert r.code == 0, r.err
    assert "476,016" in r.out and "tokens" in r.out and "GiB" in r.out
    r = cli("log", LOGS / "vllm-h100-llama31-8b-tp1.log", "-f", "csv")
    assert r.out.splitlines()[0] == "term,unit,predicted,printed,error"
    assert len(r.out.splitlines()) == 9  # header + 8 terms


def test_save_and_use_calibration(cli, tmp_path):
    cal = tmp_path / "h100-vllm.yaml"
    log = LOGS / "vllm-h100-deepseek-v2-lite.log"
    model = ROOT / "docs/validation/deepseek-v2-lite.yaml"
    r = cli("log", log, "-m", model, "--save-calibration", cal, "-f", "json")
    assert r.code == 0, r.err
    text = cal.read_text()
    assert "kind: kvcalc-engine-calibration" in text
    r = cli("log", log, "-m", model, "--calibration", cal, "-f", "json")
    terms = {t["term"]: t for t in r.json()["terms"]}
    assert terms["activation"]["error"] == pytest.approx(0, abs=1e-9)  # measured, not modelled
    assert terms["non_torch"]["error"] == pytest.approx(0, abs=1e-9)
    # the same environment's figures from a TRT log (which prints none) cannot be saved
    r = cli("log", LOGS / "trtllm-h100-llama31-8b-fp8.log", "-m", "llama3-8b",
            "--save-calibration", tmp_path / "x.yaml")  # fmt: skip
    assert r.code == 2 and "prints no activation" in r.err
    assert not (tmp_path / "x.yaml").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope.log"], "no such file"),
        (["tests/data/engine_logs/vllm-h100-phi-4.log"], "pass --model"),
        (["tests/data/engine_logs/vllm-h100-phi-4.log", "--engine", "foo"], "--engine"),
        (["tests/data/engine_logs/vllm-h100-llama31-8b-tp1.log", "--tp", "0"], "--tp"),
        (["pyproject.toml"], "not a vLLM, SGLang or TensorRT-LLM start-up log"),
    ],
)
def test_bad_input_is_one_line(cli, args, message):
    r = cli("log", *[ROOT / a if a.endswith((".log", ".toml")) else a for a in args])
    assert r.code == 2
    assert r.err.startswith("kvcalc: error:") and message in r.err
    assert "Traceback" not in r.err and r.err.count("\n") == 1


MARKERS = [
    "GPU KV cache size: ",
    "non-default args: ",
    "Model loading took ",
    "KV Cache is allocated. #tokens: ",
    "[TensorRT-LLM][INFO] Allocated ",
    "torch peak memory increase: ",
    "Maximum concurrency for ",
    "--tp ",
    " GiB",
    "{'tensor_parallel_size': ",
    "non-default args: {'max_num_batched_tokens': 0, 'block_size': 99999999999}\n",
    "non-default args: {'tensor_parallel_size': 3, 'gpu_memory_utilization': 1e-9}\n",
    "Requested memory: 0.000001 (util), 0.00 GiB\n",
    "\n",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.text(max_size=40), st.sampled_from(MARKERS)), max_size=12))
def test_fuzz_any_text_parses_or_raises_one_error(parts):
    text = "".join(parts)
    try:
        reading = parse_log(text)
    except InvalidInputError as exc:
        assert "\n" not in str(exc)
    else:
        assert reading.printed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(st.lists(st.one_of(st.text(max_size=30), st.sampled_from(MARKERS)), max_size=8))
def test_fuzz_cli_result_or_one_error_line(cli, tmp_path, parts):
    path = tmp_path / "fuzz.log"
    path.write_text("".join(parts), encoding="utf-8", errors="surrogatepass")
    r = cli("log", path, "-m", "llama3-8b", "-f", "json")
    if r.code == 0:
        assert r.json()["terms"]
    else:
        assert r.code == 2, r.err
        assert r.err.startswith("kvcalc: error:") and "Traceback" not in r.err


def test_config_dumps_of_vllm_and_sglang():
    # the formats of vLLM's "Initializing a V1 LLM engine ... with config:" line and SGLang's
    # "server_args=ServerArgs(...)" / "Load weight end" lines (shortened)
    v = parse_log(
        "INFO [core.py:77] Initializing a V1 LLM engine (v0.19.0) with config: "
        "model='Qwen/Qwen3-8B', dtype=torch.bfloat16, max_seq_len=4096, "
        "tensor_parallel_size=2, pipeline_parallel_size=1, quantization=None, "
        "kv_cache_dtype=auto\n"
        "INFO Chunked prefill is enabled with max_num_batched_tokens=2048.\n"
        "INFO [kv_cache_utils.py:1] GPU KV cache size: 476,016 tokens\n"
    )
    assert v.version == "0.19.0"
    assert v.settings == {
        "model": "Qwen/Qwen3-8B",
        "tp": 2,
        "pp": 1,
        "max_model_len": 4096,
        "kv_cache_dtype": "auto",
        "max_batched_tokens": 2048,
    }
    s = parse_log(
        "server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, "
        "mem_fraction_static=0.85, max_running_requests=None, page_size=1)\n"
        "[TP0] Load weight end. type=Qwen3ForCausalLM, avail mem=63.62 GB, mem usage=7.72 GB.\n"
        "[TP0] KV Cache is allocated. #tokens: 400000, K size: 27.47 GB, V size: 27.47 GB\n"
    )
    assert s.engine == "sglang"
    assert s.settings == {"model": "Qwen/Qwen3-8B", "tp": 2, "memory_fraction": 0.85,
                          "block_size": 1}  # fmt: skip
    assert s.printed["weights_bytes"] == pytest.approx(7.72 * GIB)


def test_calibration_from_another_environment_warns(cli, tmp_path):
    cal = tmp_path / "c.yaml"
    log = LOGS / "vllm-h100-llama31-8b-tp1.log"
    assert cli("log", log, "--save-calibration", cal, "-f", "json").code == 0
    r = cli("log", LOGS / "vllm-h100-llama31-8b-tp2.log", "--calibration", cal, "-f", "json")
    assert r.code == 0 and "measured on h100 at TP 1, not h100 at TP 2" in r.err


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"model": "RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic"}, "fp8-tensor"),
        ({"model": "meta-llama/Llama-3.1-8B-Instruct", "quantization": "fp8"}, "fp8-tensor"),
        ({"model": "RedHatAI/Qwen2.5-7B-Instruct-quantized.w8a8"}, "int8-channel"),
        ({"model": "Qwen/Qwen2.5-7B-Instruct-AWQ"}, "int4-g128"),
        ({"model": "openai/gpt-oss-20b", "quantization": "mxfp4"}, "mxfp4"),
        ({"model": "meta-llama/Llama-3.1-8B-Instruct", "dtype": "float32"}, "fp32"),
        ({"model": "meta-llama/Llama-3.1-8B-Instruct", "dtype": "bfloat16"}, None),
        ({"model": "meta-llama/Llama-3.1-8B-Instruct"}, None),
    ],
)
def test_weight_dtype_from_the_log(settings, expected):
    from calc.reports.engine_log import weight_dtype_of

    assert weight_dtype_of(settings) == expected


def test_known_model_ids_name_shipped_models():
    from calc.data.registry import model_names
    from calc.reports.engine_log import KNOWN_MODELS, shipped_model_for

    assert set(KNOWN_MODELS.values()) <= set(model_names())
    assert shipped_model_for("/models/meta-llama/Llama-3.1-8B-Instruct/") == "llama3-8b"
    assert shipped_model_for("google/gemma-2-9b-it") == "gemma-2-9b"
    assert shipped_model_for("someone/unknown") is None
