"""`kvcalc log` and the engine wing's log readers: parsing real start-up logs (fixtures are the
training records' log lines), every release's lines (wrapped, the CUDA-graph estimate, "total
consumed", the utilisation printed later), the Deployment a log describes, the term-by-term
comparison, the calibration round trip, stdin, and hostile text."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from calc.deploy.engines.fromlog import deployment_from_log, read_log, shipped_model_for
from calc.deploy.engines.logscan import MAX_LINE_CHARS, iter_binary_lines
from calc.errors import InvalidInputError

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "data" / "engine_logs"
GIB = 2**30

# the vLLM H100 training logs ran 0.19.0 (docs/validation/engine_logs_train.yaml), which their
# lines do not print: without it `kvcalc log` takes the newest release, whose V2 runner keeps
# a penalty state of max_num_seqs × vocab × 4 B (1.0 GiB for Gemma 2's 256,000-token vocabulary
# at 1,024 requests) that 0.19.0 never allocated
V19 = ["--engine-version", "0.19.0"]

# log -> (kvcalc model, extra CLI options the log leaves unsaid)
RUNS = {
    "vllm-h100-llama31-8b-tp1": ("llama3-8b", V19),
    "vllm-h100-llama31-8b-tp1-kvfp8": ("llama3-8b", V19),
    "vllm-h100-llama31-8b-tp2": ("llama3-8b", V19),
    "vllm-h100-llama31-8b-tp4": ("llama3-8b", V19),
    "vllm-h100-qwen25-7b-tp1": ("qwen2.5-7b", V19),
    "vllm-h100-qwen3-8b-tp1": ("docs/validation/qwen3-8b.yaml", V19),
    "vllm-h100-mixtral-8x7b-tp2": ("mixtral-8x7b", V19),
    "vllm-h100-phi-4": ("docs/validation/phi-4.yaml", V19),
    "vllm-h100-gemma2-9b": ("gemma-2-9b", V19),
    "vllm-h100-deepseek-v2-lite": ("docs/validation/deepseek-v2-lite.yaml", V19),
    "vllm-80gb-llama3-8b-pr10511": ("llama3-8b", ["--engine-version", "0.10"]),
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
    r = read_log(_text("vllm-h100-llama31-8b-tp2"))
    assert r.engine == "vllm"
    assert r.settings == {
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "tp": 2,
        "memory_fraction": 0.95,
        "max_model_len": 8192,
        "prefix_caching": False,
    }
    assert r.printed["tokens"] == 1_044_688  # "GPU KV cache size: 1,044,688 tokens"
    assert r.printed["blocks"] == 65_293
    assert r.printed["weights_bytes"] == pytest.approx(7.51 * GIB)
    assert r.printed["activation_bytes"] == pytest.approx(1.89 * GIB)
    assert r.printed["non_torch_bytes"] == pytest.approx(2.07 * GIB)
    assert r.printed["kv_budget_bytes"] == pytest.approx(63.76 * GIB)
    assert r.printed["max_concurrency"] == 127.53
    assert r.printed["total_memory_bytes"] == pytest.approx(75.23 / 0.95 * GIB)


def test_sglang_and_trtllm_logs():
    s = read_log(_text("sglang-4xh100-qwen3-235b-fp8-tp4"))
    assert s.engine == "sglang"
    assert (s.settings["tp"], s.settings["memory_fraction"]) == (4, 0.93)
    assert s.printed["tokens"] == 367_404
    assert s.printed["kv_pool_bytes"] == pytest.approx((8.23 + 8.23) * GIB)
    t = read_log(_text("trtllm-h100-llama31-8b-fp8"))
    assert t.engine == "trtllm"
    assert t.settings["max_tokens"] == 860_308 and t.settings["block_size"] == 32
    assert t.settings["memory_fraction"] == 0.8
    assert t.printed["tokens"] == 860_320


def test_vllm_v0_profile_table():
    r = read_log(_text("vllm-80gb-llama3-8b-pr10511"))
    assert r.settings["memory_fraction"] == 0.9
    assert r.printed["kv_budget_bytes"] == pytest.approx(53.29 * GIB)
    assert r.printed["non_torch_bytes"] == pytest.approx(1.79 * GIB)


# the lines of later releases as their source formats them (vllm/v1/worker/gpu_worker.py,
# gpu_model_runner.py, vllm/utils/mem_utils.py of 0.27-0.33); the figures are the test's own
# (a format check: no public 0.33 log of a shipped model was found, docs/validation.md)
VLLM_033 = "".join(
    [
        "INFO 09-20 10:00:00 [api_server.py:1880] vLLM API server version 0.33.0\n",
        (
            "INFO 09-20 10:00:00 [utils.py:233] non-default args: {'model_tag': 'meta-llama/L"
            "lama-3.1-8B-Instruct', 'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_l"
            "en': 8192}\n"
        ),
        (
            "INFO 09-20 10:00:01 [scheduler.py:238] Chunked prefill is enabled with max_num_b"
            "atched_tokens=8192.\n"
        ),
        "INFO 09-20 10:00:01 [vllm.py:790] Asynchronous scheduling is enabled.\n",
        (
            "(EngineCore pid=1) INFO 09-20 10:00:30 [gpu_model_runner.py:4820] Model loading "
            "took 14.99 GiB memory and 26.9 seconds\n"
        ),
        (
            "(EngineCore pid=1) DEBUG 09-20 10:01:00 [gpu_worker.py:760] Memory profiling tak"
            "es 12.10 seconds. Total non KV cache memory: 17.37GiB; torch peak memory increas"
            "e: 2.15GiB; total consumed (from mem_get_info): 15.43GiB; weights memory: 14.99G"
            "iB.\n"
        ),
        (
            "(EngineCore pid=1) INFO 09-20 10:01:02 [gpu_model_runner.py:6303] Profiling CUDA"
            " graph memory: PIECEWISE=51 (largest=512), FULL=51 (largest=512)\n"
        ),
        (
            "(EngineCore pid=1) INFO 09-20 10:01:04 [gpu_model_runner.py:6400] Estimated CUDA"
            " graph memory: 0.85 GiB total\n"
        ),
        (
            "(EngineCore pid=1) INFO 09-20 10:01:04 [gpu_worker.py:774] Available KV cache me"
            "mory: 54.63 GiB\n"
        ),
        (
            "(EngineCore pid=1) INFO 09-20 10:01:04 [gpu_worker.py:789] CUDA graph memory pro"
            "filing is enabled (default since v0.21.0). The current --gpu-memory-utilization="
            "0.9200 is equivalent to --gpu-memory-utilization=0.9093 without CUDA graph memor"
            "y profiling. To maintain the same effective KV cache size as before, increase --"
            "gpu-memory-utilization to 0.9307. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_"
            "CUDAGRAPHS=0.\n"
        ),
        (
            "(EngineCore pid=1) INFO 09-20 10:01:04 [kv_cache_utils.py:1733] GPU KV cache siz"
            "e: 447,536 tokens\n"
        ),
        (
            "(EngineCore pid=1) INFO 09-20 10:01:04 [kv_cache_utils.py:1734] Maximum concurre"
            "ncy for 8,192 tokens per request: 54.63x\n"
        ),
    ]
)


def test_later_releases_lines():
    r = read_log(VLLM_033)
    assert r.version == "0.33.0"
    # the utilisation is printed only in the CUDA-graph line, after the pool
    assert r.settings["memory_fraction"] == 0.92
    assert r.settings["max_batched_tokens"] == 8192
    assert r.printed["cuda_graph_bytes"] == pytest.approx(0.85 * GIB)
    assert r.printed["cuda_graphs_piecewise"] == 51
    # 0.27+: the transient peak = non-KV − total consumed = 17.37 − 15.43 = 1.94 GiB; the
    # non-torch (and kept buffers) = total consumed − weights = 15.43 − 14.99 = 0.44 GiB
    assert r.printed["activation_bytes"] == pytest.approx(2.15 * GIB)  # printed as such
    assert r.printed["non_torch_bytes"] == pytest.approx(0.44 * GIB)
    assert r.printed["async_scheduling"] is True


def test_wrapped_lines_are_joined():
    # an issue's log wrapped at 80 columns: a figure split over two lines is still read
    text = (
        "(EngineCore pid=1) INFO 09-20 10:01:04 [kv_cache_utils.py:1733] GPU KV cache size: 44\n"
        "7,536 tokens\n"
        "(EngineCore pid=1) INFO 09-20 10:01:04 [gpu_worker.py:774] Available KV cache memory: 5\n"
        "4.63 GiB\n"
        "INFO non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 81\n"
        "92}\n"
    )
    r = read_log(text)
    assert r.printed["tokens"] == 447_536
    assert r.printed["kv_budget_bytes"] == pytest.approx(54.63 * GIB)


def test_0_33_log_and_capacity_agree():
    """`kvcalc log` on a 0.33 log builds the Deployment `capacity --engine-version 0.33` builds
    from the same settings: the same pool, to the token (their agreement with real 0.33 logs
    is docs/validation.md's to report)."""
    built = deployment_from_log(VLLM_033, hardware="h100")
    dep = built.deployment
    assert (dep.engine_config.version, dep.engine_config.memory_fraction) == ("0.33.0", 0.92)
    from calc.deploy.options import build_deployment

    again = build_deployment("llama3.1-8b", "h100", engine_version="0.33", max_model_len=8192)
    assert dep.per_gpu.pool_tokens == again.per_gpu.pool_tokens
    assert dep.per_gpu.kv_budget_bytes == again.per_gpu.kv_budget_bytes
    # the report puts the same prediction beside the printed figures
    from calc.reports.engine_log import log_report

    rows = {r["term"]: r for r in log_report(built).rows}
    assert rows["tokens"]["predicted"] == again.per_gpu.pool_tokens
    assert rows["tokens"]["printed"] == 447_536


def test_a_version_given_over_the_one_the_log_prints_is_said():
    # qa (issue 21): `kvcalc log LOG --engine-version 0.19` on a log that prints v0.33.0
    # predicted 0.19.1's pool with no word of the mismatch (only two table rows differed)
    from calc.reports.engine_log import log_report

    built = deployment_from_log(VLLM_033, hardware="h100", version="0.19")
    said = [w for w in log_report(built).warnings if "the log prints vllm 0.33.0" in w]
    assert said == ["the log prints vllm 0.33.0; predicted with 0.19.1 (--engine-version)"]
    for same in (None, "0.33", "0.33.0"):  # the release it prints: nothing to say
        built = deployment_from_log(VLLM_033, hardware="h100", version=same)
        assert not [w for w in log_report(built).warnings if "the log prints vllm" in w]


def test_0_33_log_compares_the_printed_tokens_by_the_releases_formula():
    """From 0.21 vLLM prints int(max_concurrency × max_model_len), not blocks × block_size: at
    max_model_len 1,000 a request takes cdiv(1000, 16) = 63 blocks, so the log's figure is
    int(blocks / 63 × 1000), 1000/1008 of the pool; the report compares that with the log and
    the ledger keeps the pool in blocks."""
    text = VLLM_033.replace("'max_model_len': 8192", "'max_model_len': 1000")
    built = deployment_from_log(text, hardware="h100")
    from calc.reports.engine_log import log_report

    per_gpu = built.deployment.per_gpu
    blocks = per_gpu.prediction.num_blocks
    assert per_gpu.pool_tokens == blocks * 16
    rows = {r["term"]: r for r in log_report(built).rows}
    assert rows["tokens"]["predicted"] == int(blocks / 63 * 1000)
    assert rows["max_concurrency"]["predicted"] == blocks / 63


def test_newest_real_log_and_capacity_agree(cli):
    """The newest release with a real public start-up log in the validation set (vLLM 0.21 or
    later: LMCache issue 3430, Qwen3-8B on a 24 GB GPU, docs/validation/engine_logs_versions.yaml):
    `kvcalc log` and `kvcalc capacity` at that release and the log's settings predict the same
    pool to the token, and both are within 3% of the 46,368 tokens the log prints where the
    compile cache was warm. The excerpt does not say whether torch.compile ran cold: the
    default (cold) counts Inductor's benchmark copy of the embedding table, 151,936 × 4,096 ×
    2 B + 2 × 2,048 × 4,096 × 2 B = 1.190 GiB, above the profile's 0.557 GiB peak."""
    path = LOGS / "vllm-24gb-qwen3-8b-lmcache3430.log"
    facts = read_log(path.read_text())
    # the utilisation is printed only in the CUDA-graph line; max_model_len only in the
    # concurrency line ("Maximum concurrency for 16,384 tokens per request")
    assert facts.settings["memory_fraction"] == 0.9764
    assert facts.settings["max_model_len"] == 16_384
    assert facts.printed["cuda_graph_bytes"] == pytest.approx(0.52 * GIB)
    common = ["-m", "qwen3-8b", "--hardware", "rtx-4090", "--engine-version", "0.21", "-f", "json"]
    tokens = {}
    for state in ("warm", "cold"):
        log = cli("log", path, *common, "--compile-cache", state)
        assert log.code == 0, log.err
        terms = {t["term"]: t for t in log.json()["terms"]}
        cap = cli("capacity", *common, "--mem-util", "0.9764", "--max-model-len", "16384",
                  "--ctx", "16384", "--compile-cache", state)  # fmt: skip
        assert cap.code == 0, cap.err
        assert terms["tokens"]["predicted"] == cap.json()["kv_cache_tokens"]
        assert terms["tokens"]["printed"] == 46_368
        tokens[state] = cap.json()["kv_cache_tokens"]
    assert abs(tokens["warm"] - 46_368) / 46_368 < 0.03
    # cold: the activation term (151,936 + 2 × 2,048) × 4,096 × 2 = 1,278,214,144 B against
    # the warm 597,540,864 B, so 680,673,280 B less budget; a block is 36 layers × 16 tokens ×
    # 2 × 8 heads × 128 × 2 B = 2,359,296 B: 6,772,948,858 // 2,359,296 = 2,870 blocks warm,
    # 6,092,275,578 // 2,359,296 = 2,582 cold, 288 × 16 = 4,608 tokens fewer
    assert tokens["warm"] - tokens["cold"] == 4_608
    plain = cli("log", path, *common)
    assert plain.code == 0, plain.err
    assert "whether torch.compile compiled afresh" in plain.err  # the default is said
    assert plain.json()["terms"] == cli("log", path, *common, "--compile-cache", "cold").json()[
        "terms"
    ]


def test_sglang_gke_log_and_capacity_agree(cli):
    # RyanRosario/llm-d's GKE guide (SGLang 0.5.19, Qwen3-32B on one H100): its manifest's
    # arguments and its weight line; the pool it reports (39,078 tokens) is a held-out record
    # of docs/validation.md, so only the agreement of the two paths is asserted here
    path = LOGS / "sglang-h100-qwen3-32b-gke.log"
    facts = read_log(path.read_text())
    assert facts.engine == "sglang"
    assert facts.settings["memory_fraction"] == 0.9
    assert facts.settings["max_model_len"] == 8192
    assert facts.printed["weights_bytes"] == pytest.approx(61.07 * GIB)
    common = ["--hardware", "h100", "--engine-version", "0.5.19", "-f", "json"]
    log = cli("log", path, *common)
    assert log.code == 0, log.err
    terms = {t["term"]: t for t in log.json()["terms"]}
    cap = cli("capacity", "-m", "qwen3-32b", "--engine", "sglang", *common, "--mem-util", "0.9",
              "--max-model-len", "8192", "--ctx", "8192")  # fmt: skip
    assert cap.code == 0, cap.err
    assert terms["tokens"]["predicted"] == cap.json()["kv_cache_tokens"]


def test_concurrency_line_states_max_model_len_only_when_nothing_else_does():
    # kv_cache_utils.py prints model_config.max_model_len in 'Maximum concurrency for N tokens
    # per request': read as the setting when no settings line states one, never over one
    alone = read_log("GPU KV cache size: 46,368 tokens\n"
                     "Maximum concurrency for 16,384 tokens per request: 2.83x\n")  # fmt: skip
    assert alone.settings["max_model_len"] == 16_384
    stated = read_log(
        "INFO non-default args: {'model': 'Qwen/Qwen3-8B', 'max_model_len': 8192}\n"
        "GPU KV cache size: 46,368 tokens\n"
        "Maximum concurrency for 16,384 tokens per request: 2.83x\n"
    )
    assert stated.settings["max_model_len"] == 8192


def test_every_training_log_reproduces_its_table(cli):
    for name, (model, extra) in sorted(RUNS.items()):
        r = cli("log", LOGS / f"{name}.log", "-m", ROOT / model if "/" in model else model,
                *extra, "-f", "json")  # fmt: skip
        assert r.code == 0, (name, r.err)
        terms = {t["term"]: t for t in r.json()["terms"]}
        printed = terms["tokens"]["printed"]
        if printed is not None:
            assert abs(terms["tokens"]["error"]) < 0.03, name  # the max error
        kv = terms["kv_cache"]
        assert kv["printed"] is not None, name
        if name != "vllm-80gb-llama3-8b-pr10511":  # V0: another accounting (validation.md)
            assert abs(kv["error"]) < 0.03, name


def test_table_and_csv(cli):
    r = cli("log", LOGS / "vllm-h100-llama31-8b-tp1.log")
    assert r.code == 0, r.err
    assert "476,016" in r.out and "tokens" in r.out and "GiB" in r.out
    r = cli("log", LOGS / "vllm-h100-llama31-8b-tp1.log", "-f", "csv")
    assert r.out.splitlines()[0] == "term,unit,predicted,printed,error"
    assert len(r.out.splitlines()) == 10  # header + 9 terms


def test_defaults_taken_are_named(cli):
    # the 0.19 log prints no version, batch limits nor GPU memory line of its own release:
    # each default taken is in one warning, the version in another
    r = cli("log", LOGS / "vllm-h100-llama31-8b-tp1.log", "-f", "json")
    assert r.code == 0
    assert "the log prints no vLLM version: predicted with 0.33.0" in r.err
    assert "the log does not state tensor_parallel_size 1 (--tp), max_num_batched_tokens 8,192 " \
        "(--max-batched-tokens), max_num_seqs 1,024 (--max-num-seqs)" in r.err  # fmt: skip
    assert r.json()["hardware"] == "h100"  # from 'Requested memory: 0.95 (util), 75.23 GiB'


def _stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


def test_stdin(cli, monkeypatch):
    _stdin(monkeypatch, _text("vllm-h100-llama31-8b-tp1"))
    r = cli("log", "-", "-f", "json")
    assert r.code == 0, r.err
    assert r.json()["terms"][7]["printed"] == 476_016


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
    # the same path for the calibration and the report would lose the calibration: refused
    r = cli("log", log, "-m", model, "--save-calibration", cal, "-o", cal)
    assert r.code == 2 and "are the same file" in r.err and r.err.count("\n") == 1
    assert cal.read_text() == text  # untouched
    # a TensorRT-LLM log prints no overheads to save
    r = cli("log", LOGS / "trtllm-h100-llama31-8b-fp8.log", "-m", "llama3-8b",
            "--save-calibration", tmp_path / "x.yaml")  # fmt: skip
    assert r.code == 2 and "prints no activation" in r.err
    assert not (tmp_path / "x.yaml").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope.log"], "no such file"),
        (["tests/data/engine_logs/vllm-h100-deepseek-v2-lite.log"], "pass --model"),
        (["tests/data/engine_logs/vllm-h100-phi-4.log", "--engine", "foo"], "--engine"),
        (["tests/data/engine_logs/vllm-h100-llama31-8b-tp1.log", "--tp", "0"], "--tp"),
        (["pyproject.toml"], "not a vLLM, SGLang or TensorRT-LLM start-up log"),
        (["tests/data"], "is a directory"),
    ],
)
def test_bad_input_is_one_line(cli, args, message):
    r = cli("log", *[ROOT / a if a.endswith((".log", ".toml")) or "/" in a else a
                     for a in args])  # fmt: skip
    assert r.code == 2
    assert r.err.startswith("kvcalc: error:") and message in r.err, r.err
    assert "Traceback" not in r.err and r.err.count("\n") == 1


def test_binary_and_nul_bytes_are_refused():
    with pytest.raises(InvalidInputError, match="NUL byte"):
        list(iter_binary_lines(io.BytesIO(b"GPU KV cache size: 1 tokens\n\x00\x01")))


def test_lines_are_bounded():
    # a 3 MB line is cut to MAX_LINE_CHARS; the lines after it are still read
    raw = b"x" * 3_000_000 + b"\nGPU KV cache size: 1,234 tokens\n"
    lines = list(iter_binary_lines(io.BytesIO(raw)))
    assert len(lines) == 2 and len(lines[0]) == MAX_LINE_CHARS
    assert read_log(io.BytesIO(raw)).printed["tokens"] == 1234
    # the same from text
    assert read_log(raw.decode()).printed["tokens"] == 1234


def test_work_is_linear_in_the_log():
    """No pattern backtracks: a long line of the characters the patterns match is read in
    one pass (the regex engine's steps grow with the line, not its square). Checked by the
    matcher's own behaviour on growing inputs, not by a clock (bench/log_bench.py times it)."""
    import re

    from calc.deploy.engines.logscan import NUM

    pattern = re.compile(r"GPU KV cache size: " + NUM + r" tokens")
    # a pathological line for a backtracking pattern: many digits and commas, no "tokens"
    for n in (1_000, 10_000):
        line = "GPU KV cache size: " + "1," * n
        assert pattern.search(line) is None  # bounded quantifiers: each start tries <= 52 steps


def test_config_dumps_of_vllm_and_sglang():
    v = read_log(
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
        "dtype": "torch.bfloat16",
        "max_batched_tokens": 2048,
    }
    s = read_log(
        "server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, "
        "mem_fraction_static=0.85, max_running_requests=None, page_size=1)\n"
        "[TP0] Load weight end. type=Qwen3ForCausalLM, avail mem=63.62 GB, mem usage=7.72 GB.\n"
        "[TP0] KV Cache is allocated. #tokens: 400000, K size: 27.47 GB, V size: 27.47 GB\n"
    )
    assert s.engine == "sglang"
    assert s.settings == {"model": "Qwen/Qwen3-8B", "tp": 2, "memory_fraction": 0.85,
                          "block_size": 1}  # fmt: skip
    assert s.printed["weights_bytes"] == pytest.approx(7.72 * GIB)


def test_sglang_pool_line_with_its_dtype_is_read():
    # later 0.5.x releases print the dtype first (0.5.23 mem_cache/memory_pool.py); the figures
    # are the RyanRosario/llm-d guide's Qwen3-32B on one H100 (0.5.19): 39,078 tokens of
    # 64 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 262,144 B = 9.54 GiB, K and V 4.77 each
    r = read_log(
        "[2026-05-01 01:03:00] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 39078, "
        "K size: 4.77 GB, V size: 4.77 GB\n"
        "[2026-05-01 01:03:00] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 5, "
        "KV size: 0.01 GB\n"
    )
    assert r.engine == "sglang"
    assert r.printed["tokens"] == 5  # the last pool line printed wins, MLA's form included
    first = read_log("KV Cache is allocated. dtype: torch.bfloat16, #tokens: 39078, "
                     "K size: 4.77 GB, V size: 4.77 GB\n")  # fmt: skip
    assert first.printed["tokens"] == 39078
    assert first.printed["kv_pool_bytes"] == pytest.approx(9.54 * GIB)


def test_calibration_from_another_environment_warns(cli, tmp_path):
    cal = tmp_path / "c.yaml"
    log = LOGS / "vllm-h100-llama31-8b-tp1.log"
    assert cli("log", log, "--save-calibration", cal, "-f", "json").code == 0
    r = cli("log", LOGS / "vllm-h100-llama31-8b-tp2.log", "--calibration", cal, "-f", "json")
    assert r.code == 0 and "measured on h100 at TP 1, not h100 at TP 2" in r.err


def test_an_unmodelled_release_warns(cli, monkeypatch):
    text = _text("vllm-h100-llama31-8b-tp1").replace(
        "non-default args", "vLLM API server version 0.7.3\nINFO non-default args"
    )
    _stdin(monkeypatch, text)
    r = cli("log", "-", "-f", "json")
    assert r.code == 0
    assert "vllm 0.7.3 is not modelled: using the nearest modelled release 0.10.0" in r.err
    assert r.json()["engine_version_modelled"] == "0.10.0"


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
    from calc.deploy.engines.fromlog import weight_dtype_of

    assert weight_dtype_of(settings) == expected


@pytest.mark.parametrize(
    ("model_id", "shipped"),
    [
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3.1-8b"),  # the source's repo + -Instruct
        ("/models/meta-llama/Llama-3.1-8B-Instruct/", "llama3.1-8b"),  # a local path
        ("/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/ab12", "qwen3-8b"),
        ("meta-llama/Meta-Llama-3-8B-Instruct", "llama3-8b"),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"),
        ("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "llama3.3-70b"),  # another organisation
        ("Qwen/Qwen3-30B-A3B-Instruct-2507", "qwen3-30b-a3b"),
        ("google/gemma-2-9b-it", "gemma-2-9b"),
        ("openai/gpt-oss-120b", "gpt-oss-120b"),
        ("mistralai/Mistral-7B-Instruct-v0.3", None),  # v0.3 is not the shipped v0.1
        ("someone/unknown", None),
    ],
)
def test_model_ids_map_to_shipped_models_by_their_source(model_id, shipped):
    assert shipped_model_for(model_id) == shipped


def _sglang_dp_log(version: str, parallel: str, running: str = "1024") -> str:
    # a DeepSeek-V3 server on 8 GPUs, attention DP over all 8 (figures the test's own)
    return (
        f"SGLang version: {version}\n"
        f"server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8, {parallel}, "
        f"ep_size=8, max_running_requests={running}, page_size=1, quantization='fp8')\n"
        "[TP0] KV Cache is allocated. #tokens: 400000, KV size: 26.17 GB\n"
    )


@pytest.mark.parametrize(
    ("version", "parallel", "per_rank"),
    [
        # from 0.4.2 each attention-DP worker takes max_running_requests // dp_size (0.5.4
        # srt/managers/tp_worker.py): 1,024 // 8 = 128 a rank
        ("0.5.4", "dp_size=8, enable_dp_attention=True", 128),
        # 0.5.22+ spells it attn_dp_size (dp_size 1 beside it); 0.5.23 pool_configurator.py:
        # max(1, 1,024 // 8) = 128
        ("0.5.23", "dp_size=1, attn_dp_size=8", 128),
        # 0.4.1 gave every worker the whole figure
        ("0.4.1", "dp_size=8, enable_dp_attention=True", 1024),
    ],
)
def test_sglang_max_running_requests_is_the_servers_total_under_attention_dp(
    version, parallel, per_rank
):
    dep = deployment_from_log(_sglang_dp_log(version, parallel), hardware="h200").deployment
    assert (dep.tp, dep.sharding.dp_attn) == (1, 8)  # tp_size 8 over 8 attention-DP ranks
    assert dep.engine_config.max_num_seqs == per_rank


def test_sglang_running_limit_given_on_the_command_line_is_kvcalcs_own():
    # --max-num-seqs to `kvcalc log` is already one rank's limit: not divided
    text = _sglang_dp_log("0.5.23", "dp_size=1, attn_dp_size=8")
    dep = deployment_from_log(text, hardware="h200", max_num_seqs=50).deployment
    assert dep.engine_config.max_num_seqs == 50
    # without the setting SGLang sizes it from its pool (kvcalc's per-rank default stands)
    unset = deployment_from_log(_sglang_dp_log("0.5.23", "dp_size=1, attn_dp_size=8", "None"),
                                hardware="h200").deployment  # fmt: skip
    assert unset.engine_config.max_num_seqs == 1024


def test_log_warns_when_its_pool_holds_a_token_in_other_bytes(cli):
    # the TensorRT-LLM log allocates 52.51 GiB for 860,320 tokens: 52.51 x 2^30 / 860,320
    # = 65,536 B a token = 32 layers x 8 KV heads x 128 x 2 (K, V) x 1 B, an fp8 cache; sized as
    # Llama 3.1 8B's released bf16 (131,072 B) the tokens compare formats (-53%): said so
    log = LOGS / "trtllm-h100-llama31-8b-fp8.log"
    r = cli("log", log, "-m", "llama3.1-8b")
    assert r.code == 0
    assert "KV pool holds a token in 65,536 B" in r.err and "bf16 cache in 131,072 B" in r.err
    # sized as the server ran, nothing to say
    assert "KV pool holds" not in cli("log", log, "-m", "llama3.1-8b", "--kv-dtype", "fp8").err


@pytest.mark.parametrize(
    ("printed", "refused"),
    [
        ("-5", "tokens -5"),  # a count is never negative
        ("100000000000000000000000", "tokens 100,000,000,000,000,000,000,000"),  # > 10^12
        ("168,880", None),  # the shipped log's own figure
    ],
)
def test_implausible_printed_figures_are_refused(cli, tmp_path, printed, refused):
    text = (LOGS / "vllm-h100-gemma2-9b.log").read_text()
    assert "GPU KV cache size: 168,880 tokens" in text
    log = tmp_path / "edited.log"
    log.write_text(text.replace("168,880 tokens", f"{printed} tokens"))
    r = cli("log", log)
    if refused is None:
        assert r.code == 0, r.err
        return
    assert r.code == 2 and r.err.count("\n") == 1
    assert refused in r.err and "no engine start-up prints" in r.err


def test_a_negative_memory_figure_is_read():
    # vLLM prints a negative KV memory when the weights leave none: a size may be negative
    facts = read_log("Available KV cache memory: -3.5 GiB\nGPU KV cache size: 0 tokens\n")
    assert facts.printed["kv_budget_bytes"] == -3.5 * 2**30 and facts.printed["tokens"] == 0


@pytest.mark.parametrize("text", ["", "\n  \n"])
def test_empty_stdin_is_said_empty(cli, monkeypatch, text):
    """An empty pipe is empty input, not "not a start-up log" (nothing was read at all)."""
    _stdin(monkeypatch, text)
    r = cli("log", "-")
    assert r.code == 2 and r.err.count("\n") == 1
    assert r.err.startswith("kvcalc: error: stdin: empty: no lines to read")


def test_current_release_log_and_capacity_agree(cli):
    """Issue 21's vnew round: a vLLM 0.31.0 start-up log (Llama 3.1 8B on an A100 80GB, vLLM's
    defaults, held out; docs/validation/engine_logs_versions.yaml vllm0310-a100-80g-llama31-8b).
    `kvcalc log` at 0.31 and at the current release 0.33 and `kvcalc capacity --engine-version
    0.33` with the log's settings predict the same pool, within 1% of the 460,496 tokens printed.
    The terms: 0.92 × 79.15 GiB requested; weights 14.958 GiB + the RoPE table 131,072 × 128 ×
    2 B = 32 MiB, the 15.0 GiB 'Model loading took' prints; the cold compile's copy of the
    embedding table; non-torch 256 MiB; the CUDA graph estimate below."""
    path = LOGS / "vllm-a100-80g-llama31-8b-0.31.0.log"
    common = ["-m", "llama3.1-8b", "--hardware", "a100-80g", "-f", "json"]
    tokens = {}
    for version in ("0.31", "0.33"):
        log = cli("log", path, *common, "--engine-version", version)
        assert log.code == 0, log.err
        terms = {t["term"]: t for t in log.json()["terms"]}
        assert terms["tokens"]["printed"] == 460_496
        assert terms["activation"]["predicted"] == 1_084_227_584  # (128,256 + 4,096) × 4,096 × 2
        # V2 runner (0.29+): first PIECEWISE capture 100,663,296 + 512 × 43,008 × 2 =
        # 144,703,488 B; 50 further PIECEWISE graphs × 32 layers × 73,393 B = 117,428,800 B;
        # 34 further FULL graphs × 32 layers × 178,258 B (0.17 MiB) = 193,944,704 B
        assert terms["cuda_graphs"]["predicted"] == 144_703_488 + 117_428_800 + 193_944_704
        tokens[version] = terms["tokens"]["predicted"]
    cap = cli("capacity", *common, "--engine", "vllm", "--engine-version", "0.33",
              "--max-model-len", "131072", "--ctx", "131072")  # fmt: skip
    assert cap.code == 0, cap.err
    assert tokens["0.31"] == tokens["0.33"] == cap.json()["kv_cache_tokens"]
    assert abs(tokens["0.33"] - 460_496) / 460_496 < 0.01


def test_calibration_from_another_release_warns(cli, tmp_path):
    # the overheads file records its release; read against a log run as another modelled
    # release, one warning line says so (the same release: nothing)
    cal = tmp_path / "c.yaml"
    log = LOGS / "vllm-h100-llama31-8b-tp1.log"
    assert cli("log", log, "--save-calibration", cal, "-f", "json").code == 0
    doc = yaml.safe_load(cal.read_text())
    r = cli("log", log, "--calibration", cal, "-f", "json")
    assert r.code == 0 and "this log is" not in r.err
    doc["engine_version"] = "0.10.0"
    cal.write_text(yaml.safe_dump(doc))
    r = cli("log", log, "--calibration", cal, "-f", "json")
    assert r.code == 0
    said = [w for w in r.err.splitlines() if "was measured on vLLM 0.10.0" in w]
    assert len(said) == 1 and said[0].endswith(": its overheads may not apply"), r.err
