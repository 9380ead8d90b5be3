"""The log readers on lines of newer engine releases, taken from real start-up logs (issue 21,
eleventh round): vLLM's 'Free memory on device' start-up report in its 0.10 and 0.2x-0.33
forms and its refusal, 0.19's utilisation notice, 0.31's one-line pool; TensorRT-LLM 1.1's
estimation pass. Each excerpt under tests/data/engine_logs/ (and its excerpts/ folder) names
its source below (all of
them are listed in bench/validation_sources.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.deploy.engines.fromlog import hardware_of, read_log

LOGS = Path(__file__).resolve().parent / "data" / "engine_logs"
GIB = 2**30


def _read(name: str):
    """An excerpt under engine_logs/ (a log kvcalc can predict: every such log is also run
    whole and wrapped by tests/test_log_wrapped.py) or engine_logs/excerpts/ (one that names
    no shipped model or GPU, or prints the banner's block characters)."""
    path = LOGS / f"{name}.log"
    return read_log((path if path.exists() else LOGS / "excerpts" / f"{name}.log").read_text())


def test_vllm_0_10_startup_report_gives_the_gpu_and_the_terms():
    # search index file 7292846353 (vLLM 0.10.2, Qwen3-Next-80B-A3B at TP 2): the report
    # "Free memory on device (139.21/139.81 GiB) ... Actual usage is 74.28 GiB for weight,
    # 5.58 GiB for peak activation, 1.38 GiB for non-torch memory ... Current kv cache memory
    # in use is 47878721024 bytes." Before this round none of it was read: no GPU, no
    # activation, no non-torch figure.
    r = _read("vllm-2xh200-qwen3-next-tp2-0.10.2")
    assert r.version == "0.10.2"
    assert r.printed["total_memory_bytes"] == pytest.approx(139.81 * GIB)
    assert hardware_of(r) == "h200"  # 139.81 GiB: the H200's 139.80 GiB within 0.3 %
    assert r.settings["memory_fraction"] == 0.9  # "utilization is (0.9, 125.83 GiB)"
    # "Model loading took 74.2812 GiB" has more digits than the report's 74.28: it wins
    assert r.printed["weights_bytes"] == pytest.approx(74.2812 * GIB)
    assert r.printed["activation_bytes"] == pytest.approx(5.58 * GIB)
    assert r.printed["non_torch_bytes"] == pytest.approx(1.38 * GIB)
    # "Available KV cache memory: 44.59 GiB" first; the report's 47,878,721,024 B is the
    # same budget: 47,878,721,024 / 2^30 = 44.59 GiB
    assert r.printed["kv_budget_bytes"] == pytest.approx(44.59 * GIB)
    assert 47_878_721_024 / GIB == pytest.approx(44.59, abs=0.005)
    assert r.printed["tokens"] == 973_760


def test_vllm_report_in_gib_form_without_other_lines():
    # noonghunna/club-3090 pull request 1139, turn 1 (2026-09-02, two RTX 3090s at TP 2): the
    # later form, "Actual usage is 15.25 GiB for consumed memory (weights + non-torch)" and
    # "Current kv cache memory in use is 4.76 GiB"; the log excerpt holds nothing else, and
    # was "not a vLLM log" to kvcalc before
    r = _read("vllm-2x3090-startup-report-pr1139")
    assert r.engine == "vllm"
    assert r.settings == {"memory_fraction": 0.92}
    assert r.printed["total_memory_bytes"] == pytest.approx(23.56 * GIB)
    assert r.printed["total_consumed_bytes"] == pytest.approx(15.25 * GIB)
    assert r.printed["kv_budget_bytes"] == pytest.approx(4.76 * GIB)
    # the report's peak activation (1.66 GiB) includes the applied CUDA-graph estimate
    # (gpu_worker.py: transient peak + estimate): not read as the activation
    assert "activation_bytes" not in r.printed


def test_vllm_refusal_names_total_memory_and_utilisation():
    # the refusal as quoted in a public repository's log classifier (search index file
    # 68907005610), formatted by vllm 0.33.0 v1/worker/utils.py with the device's name
    text = ("(EngineCore_DP0 pid=1) ERROR 09-01 10:00:00 [core.py:1] ValueError: Free memory on "
            "device cuda:0 (27.28/31.86 GiB) on startup is less than desired GPU memory "
            "utilization (0.97, 30.9 GiB). Decrease GPU memory utilization or reduce GPU memory "
            "used by other processes.\n")  # fmt: skip
    r = read_log(text)
    assert r.settings["memory_fraction"] == 0.97
    assert r.printed["total_memory_bytes"] == pytest.approx(31.86 * GIB)
    assert 0.97 * 31.86 == pytest.approx(30.9, abs=0.01)  # the requested 30.9 GiB it prints


def test_vllm_0_19_notice_states_the_utilisation():
    # search index file 57978845466 (vLLM 0.19.1, Qwen3-8B on an A100 40GB, defaults): the
    # utilisation is in no settings line, only in "increase --gpu-memory-utilization from
    # 0.9000 to 0.9596"; 0.9596 − 0.9000 = 0.0596 = the 2.35 GiB estimate / the total memory
    r = _read("vllm-a100-40g-qwen3-8b-0.19.1")
    assert r.version == "0.19.1"
    assert r.settings["memory_fraction"] == 0.9
    assert r.settings["max_model_len"] == 40960  # "Maximum concurrency for 40,960 tokens"
    assert r.printed["cuda_graph_bytes"] == pytest.approx(2.35 * GIB)
    assert r.printed["tokens"] == 140_960
    assert 2.35 / (0.9596 - 0.9) == pytest.approx(39.4, abs=0.05)  # GiB, the A100 40GB


def test_vllm_0_31_pool_and_concurrency_on_one_line():
    # search index file 70347757402 (a lab's vLLM 0.31.0 smoke run on an H200, 2026-10-08):
    # 0.31+ prints "GPU KV cache size: N tokens, Maximum concurrency for M tokens per
    # request: Xx" as one line (kv_cache_utils.py update_kv_cache_capacity)
    r = _read("vllm-h200-qwen25-7b-awq-0.31.0")
    assert r.version == "0.31.0"
    assert r.printed["tokens"] == 651_504
    assert r.printed["max_concurrency"] == 159.06
    assert r.settings["max_model_len"] == 4096
    assert r.printed["weights_bytes"] == pytest.approx(5.38 * GIB)
    assert r.printed["kv_budget_bytes"] == pytest.approx(34.79 * GIB)
    # 159.06 × 4,096 = 651,509.8: the printed pool is int(concurrency × max_model_len) of
    # the unrounded concurrency
    assert 159.06 * 4096 == pytest.approx(651_504, abs=21)


def test_trtllm_1_1_estimation_pass_is_not_read_as_settings():
    # search index file 2263047771 (TensorRT-LLM 1.1.0rc3, gpt-oss-120b on a DGX Spark,
    # 2025-12-20): two passes. The first caps its profiling cache at max_tokens 8224 and
    # max_seq_len 8224; after the estimation pass ("available KV cache memory when
    # calculating max tokens: 5.95 GiB") the engine sets max_tokens to its own estimate,
    # 86,711 (_util.py), and caps max_seq_len to the pool, 86,720. Before this round kvcalc
    # took 86,711 as the user's max_tokens (so it "predicted" the log's own pool) and 86,720
    # as the user's max_model_len.
    r = _read("trtllm-gb10-gpt-oss-120b-1.1rc3")
    assert r.engine == "trtllm" and r.version == "1.1.0rc3"
    assert "max_tokens" not in r.settings
    assert "max_model_len" not in r.settings
    assert r.printed["max_tokens_engine"] == 86_711
    assert r.printed["max_seq_len_adjusted"] == 86_720
    assert r.settings["memory_fraction"] == 0.9  # 0.8999999761581421, a float32 0.9
    # the last allocation is the pool: 5.95 GiB for 86,720 tokens
    assert r.printed["tokens"] == 86_720
    assert r.printed["kv_pool_bytes"] == pytest.approx(5.95 * GIB)
    # 86,711 tokens × 73,728 B ('kv size is 73728') = 5.954 GiB, the estimate it prints
    assert 86_711 * 73_728 / GIB == pytest.approx(5.95, abs=0.005)
    assert r.printed["total_memory_bytes"] == pytest.approx(119.70 * GIB)  # "device total"
    # "Memory dynamically allocated during inference (inside torch) ...: 0.85 GiB"
    assert r.printed["activation_bytes"] == pytest.approx(0.85 * GIB)


def test_trtllm_warning_alone_keeps_max_tokens():
    # a log without the estimation pass (the training record's excerpt): its max_tokens may
    # be the user's, so it stays a setting (tests/data/engine_logs/trtllm-h100-llama31-8b-fp8)
    r = _read("trtllm-h100-llama31-8b-fp8")
    assert r.settings["max_tokens"] == 860_308


def test_trtllm_runtime_total_and_later_warning_total():
    # the C++ runtime's line in TensorRT-LLM's memory reference page (NVIDIA/TensorRT-LLM
    # docs/source/reference/memory.md, search index file 5516360)
    text = ("[TensorRT-LLM][INFO] Memory usage when calculating max tokens in paged kv cache: "
            "total: 79.10 GiB, available: 70.48 GiB\n"
            "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 63.44 GiB for max tokens in paged "
            "KV cache (259840).\n")  # fmt: skip
    r = read_log(text)
    assert r.printed["total_memory_bytes"] == pytest.approx(79.10 * GIB)
    assert r.printed["tokens"] == 259_840
    # later 1.x builds end the warning with the memory they saw, as resource_manager.py
    # formats it (search index file 56304441455: "... with free memory {free} GiB of total
    # memory {total}GiB, respectively)"); the figures are the test's own
    later = ("[TRT-LLM] [W] Both free_gpu_memory_fraction and max_tokens are set (to 0.9 and "
             "86711.5 with free memory 6.61GiB of total memory 79.19GiB, respectively). The "
             "smaller value will be used.\n"
             "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 5.95 GiB for max tokens in paged "
             "KV cache (86720).\n")  # fmt: skip
    r = read_log(later)
    assert r.printed["total_memory_bytes"] == pytest.approx(79.19 * GIB)
    assert hardware_of(r) == "h100"  # 79.19 GiB, the H100's torch total


def test_meta_llama_names_map_to_the_shipped_llama():
    # search index file 34342936495 (vLLM 0.15.1 on an A100 40GB): the model is a local clone
    # of meta-llama/Meta-Llama-3.1-8B-Instruct, the name Meta published Llama 3.1 under
    # (renamed Llama-3.1-8B-Instruct since); kvcalc's llama3.1-8b is sourced from
    # meta-llama/Llama-3.1-8B, so only the stem without "Meta-" matches it
    from calc.deploy.engines.fromlog import shipped_model_for

    path = "/home/admin_iloh_altostrat_com/models/Meta-Llama-3.1-8B-Instruct"
    assert shipped_model_for(path) == "llama3.1-8b"
    assert shipped_model_for("meta-llama/Meta-Llama-3.1-70B-Instruct") == "llama3.1-70b"
    # Llama 3 kept its "Meta-" name, and its shipped source has it: still itself
    assert shipped_model_for("meta-llama/Meta-Llama-3-8B-Instruct") == "llama3-8b"
