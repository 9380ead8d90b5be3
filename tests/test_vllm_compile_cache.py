"""vLLM's cold torch.compile at start-up (issue 21): from 0.11.1 Inductor benchmarks the
embedding kernel on a random copy of its table inside the memory profile
(calc/deploy/engines/vllm/rules.py, memory.compile_benchmark_bytes); a compile loaded from
the cache, or an eager engine, benchmarks nothing. The log reader records which start it was,
the Deployment carries it (``compile_cache``), and a log that does not say is taken as cold
with a warning."""

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.fromlog import deployment_from_log, read_log
from calc.deploy.engines.vllm import memory as vm
from calc.deploy.engines.vllm.rules import VERSIONS
from calc.errors import InvalidInputError

COMPILED = ("(EngineCore pid=11072) INFO 09-12 17:54:39 [backends.py:393] Compiling a graph for "
            "compile range (1, 2048) takes 27.59 s")  # fmt: skip
LOADED = ("(EngineCore pid=3380462) INFO 06-25 17:21:56 [backends.py:285] Directly load the "
          "compiled graph(s) for compile range (1, 2048) from the cache, took 1.122 s")  # fmt: skip
BANNER = "(APIServer pid=1) INFO 09-12 17:53:05 [api_utils.py:347]  ▄▄ ▄█ █     █  version 0.29.0"
ARGS = ("(APIServer pid=1) INFO 09-12 17:53:05 [api_utils.py:286] non-default args: "
        "{'model_tag': 'Qwen/Qwen3-14B', 'model': 'Qwen/Qwen3-14B'}")  # fmt: skip
POOL = ("(EngineCore pid=1) INFO 09-12 17:10:24 [kv_cache_utils.py:2032] GPU KV cache size: "
        "72,496 tokens, Maximum concurrency for 40,960 tokens per request: 1.77x")  # fmt: skip


def _activation(version: str, **engine) -> float:
    dep = Deployment.build(load_model("qwen3-14b"), load_hardware("l40s"),
                           engine=EngineSettings(version=version, **engine))  # fmt: skip
    return dep.per_gpu.prediction.activation_bytes


def test_the_rule_starts_at_0_11_1():
    # 0.11.0 pins torch 2.8.0, below the torch >= 2.9 that turns combo kernels on
    assert VERSIONS.rules("0.11.0").compile_benchmark_copy is False
    for release in ("0.11.1", "0.19.0", "0.29.0", "0.33.0"):
        assert VERSIONS.rules(release).compile_benchmark_copy is True


def test_copy_bytes():
    # Qwen3-14B at 2,048 tokens: (151,936 + 2 × 2,048) × 5,120 × 2 B = 156,032 × 10,240
    # = 1,597,767,680 B (1.488 GiB; the 0.29.0 L40S log's transient peak: 1.48 GiB)
    assert vm.compile_benchmark_bytes(151_936, 5_120, 2_048) == 1_597_767_680
    # in fp32 (Llama 3.1 8B, 8,192 tokens): (128,256 + 16,384) × 4,096 × 4 = 2,369,781,760 B
    # (2.207 GiB; vLLM 0.19.0's fp32 log prints a 2.21 GiB torch peak)
    assert vm.compile_benchmark_bytes(128_256, 4_096, 8_192, 4) == 2_369_781_760


def test_table_rows_are_padded_then_sharded():
    assert vm.embedding_rows_per_gpu(151_936, 1) == 151_936  # a multiple of 64 already
    assert vm.embedding_rows_per_gpu(128_256, 4) == 32_064  # 128,256 / 4
    assert vm.embedding_rows_per_gpu(32_001, 1) == 32_064  # padded up to 501 × 64


def test_cold_compile_sets_the_peak_where_the_table_outweighs_the_sampler():
    # L40S defaults (2,048 tokens, 256 rows): the forward and sampler pass is 2 × 2,048 ×
    # 5,120 × 2 + 256 × 151,936 × 14.5 = 41,943,040 + 563,986,432 = 605,929,472 B
    warm = 605_929_472
    assert _activation("0.29.0", compile_cache="warm") == pytest.approx(warm)
    assert _activation("0.29.0", compile_cache="cold") == 1_597_767_680
    assert _activation("0.29.0") == 1_597_767_680  # the default is cold
    assert _activation("0.29.0", cuda_graphs=False) == pytest.approx(warm)  # eager: no compile
    # 0.11.0: no copy; its sampler keeps 38 B per logit: 41,943,040 + 256 × 151,936 × 38
    assert _activation("0.11.0") == pytest.approx(41_943_040 + 1_478_033_408)


def test_the_sampler_hides_the_copy_at_large_batches():
    # Llama 3 8B on an H100 (8,192 tokens, 1,024 rows): 2 × 8,192 × 4,096 × 2 + 1,024 ×
    # 128,256 × 14.5 = 134,217,728 + 1,904,345,088 = 2,038,562,816 B, above the copy's
    # (128,256 + 16,384) × 4,096 × 2 = 1,184,890,880 B: cold and warm alike (0.19.0's logs
    # print 1.89 GiB either way)
    for state in ("cold", "warm"):
        engine = EngineSettings(version="0.29.0", compile_cache=state)
        dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"), engine=engine)
        assert dep.per_gpu.prediction.activation_bytes == pytest.approx(2_038_562_816)


def _state(*lines: str):
    return read_log([BANNER, *lines, POOL]).settings.get("compile_cache")


def test_log_reader_records_the_compile():
    assert _state(COMPILED) == "cold"
    assert _state(LOADED) == "warm"
    # a compile of any graph (the backbone loaded, another compiled) is a cold start
    assert _state(LOADED, COMPILED) == "cold"
    assert _state(COMPILED, LOADED) == "cold"
    older = "INFO 10-08 06:06:51 [backends.py:215] Compiling a graph for dynamic shape takes 16 s"
    assert _state(older) == "cold"
    assert _state() is None


def _warned(built) -> bool:
    return any("whether torch.compile compiled afresh" in w for w in built.warnings)


def test_a_log_that_does_not_say_is_taken_cold_and_warned():
    silent = deployment_from_log(read_log([BANNER, ARGS, POOL]), hardware="l40s")
    assert silent.deployment.engine_config.compile_cache == "cold"
    assert _warned(silent)
    cold = deployment_from_log(read_log([BANNER, ARGS, COMPILED, POOL]), hardware="l40s")
    warm = deployment_from_log(read_log([BANNER, ARGS, LOADED, POOL]), hardware="l40s")
    assert not _warned(cold) and not _warned(warm)
    assert warm.deployment.engine_config.compile_cache == "warm"
    assert warm.deployment.per_gpu.prediction.activation_bytes == pytest.approx(605_929_472)
    given = deployment_from_log(read_log([BANNER, ARGS, POOL]), hardware="l40s",
                                compile_cache="warm")  # fmt: skip
    assert not _warned(given) and given.deployment.engine_config.compile_cache == "warm"
    # where the sampler's peak hides the copy (an H100's 8,192 tokens and 1,024 rows: 2 ×
    # 8,192 × 5,120 × 2 + 1,024 × 151,936 × 14.5 B = 2,311 MiB against a copy of (151,936 +
    # 16,384) × 5,120 × 2 B = 1,644 MiB) the state changes nothing
    hidden = deployment_from_log(read_log([BANNER, ARGS, POOL]), hardware="h100")
    assert not _warned(hidden)
    # a release without the copy has nothing to warn about
    older = deployment_from_log(read_log([BANNER, ARGS, POOL]), hardware="l40s", version="0.11.0")
    assert not _warned(older)


def test_bad_value_is_one_clear_error(cli):
    with pytest.raises(InvalidInputError, match="'lukewarm' is not one of: cold, warm"):
        EngineSettings(compile_cache="lukewarm")
    base = ("-m", "qwen3-14b", "-H", "l40s", "--ctx", "4096")
    r = cli("capacity", *base, "--compile-cache", "lukewarm")
    assert r.code == 2
    assert "not one of: cold, warm" in r.err
    assert "Traceback" not in r.err


def test_capacity_takes_the_cold_default(cli):
    base = ("-m", "qwen3-14b", "-H", "l40s", "--ctx", "4096", "--engine-version", "0.29",
            "-f", "json")  # fmt: skip
    plain, cold, warm = (
        cli("capacity", *base, *extra).json()["kv_cache_tokens"]
        for extra in ((), ("--compile-cache", "cold"), ("--compile-cache", "warm"))
    )
    assert plain == cold < warm
