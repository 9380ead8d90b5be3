"""`kvcalc log`: the settings that hold new requests back (SGLang's scheduler_recv_interval,
TensorRT-LLM's batch wait) read where the log states them and carried by its Deployment."""

from __future__ import annotations

import pytest

from calc.deploy.engines.fromlog import deployment_from_log, read_log

# the pool line of tests/test_engine_log.py's Qwen3-8B server (0.5.x memory_pool.py's format)
SG_POOL = "[TP0] KV Cache is allocated. #tokens: 400000, K size: 27.47 GB, V size: 27.47 GB\n"
# 0.5.20-0.5.23 print the resolved settings as a dict: entrypoints/engine.py
# logger.info(f"server_args={server_args.resolved_dict()}") (0.5.20), through
# _server_args_for_logging in 0.5.22/0.5.23; a Python dict's repr ("'key': value")
SG_DICT = ("[2026-05-01 01:00:00] server_args={{'model_path': 'Qwen/Qwen3-8B', 'tp_size': 2, "
           "'mem_fraction_static': 0.85, 'context_length': 4096, 'chunked_prefill_size': 8192, "
           "'page_size': 1, 'disable_cuda_graph': False, 'scheduler_recv_interval': {n}, "
           "'enable_mixed_chunk': False}}\n")  # fmt: skip
# before 0.5.20 the dataclass's repr (the form tests/test_engine_log.py reads)
SG_REPR = ("[2025-11-02 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, "
           "mem_fraction_static=0.85, num_continuous_decode_steps=1, scheduler_recv_interval={n}, "
           "enable_mixed_chunk=False)\n")  # fmt: skip


def _sglang(version: str, line: str) -> str:
    return f"SGLang version: {version}\n{line}{SG_POOL}"


@pytest.mark.parametrize(
    ("version", "form"), [("0.5.23", SG_DICT), ("0.5.20", SG_DICT), ("0.5.10", SG_REPR)]
)
def test_sglang_recv_interval_from_its_settings_dump(version, form):
    log = _sglang(version, form.format(n=10))
    facts = read_log(log)
    assert facts.engine == "sglang"
    assert facts.settings["recv_interval"] == 10
    assert (facts.settings["tp"], facts.settings["memory_fraction"]) == (2, 0.85)
    dep = deployment_from_log(log, hardware="h100").deployment
    assert dep.engine.recv_interval == 10
    # the wing's hold: a read of new requests every 10 decode steps (calc.serve.admission)
    assert dep.engine_model.admission_hold(dep).recv_interval == 10


def test_the_dict_dump_states_the_other_settings_too():
    # 0.5.20+'s dict was not read before: its context length and step budget now are, so the
    # defaults warning no longer names them
    d = deployment_from_log(_sglang("0.5.23", SG_DICT.format(n=1)), hardware="h100")
    s = d.facts.settings
    assert (s["max_model_len"], s["max_batched_tokens"], s["block_size"]) == (4096, 8192, 1)
    assert s["enforce_eager"] is False
    assert not any("does not state" in w for w in d.warnings)


def test_sglang_interval_one_is_the_default_left_unset():
    # 1 is SGLang's own default (0.5.23 arg_groups/fields/schedule.py: "= 1"): nothing held,
    # nothing added to the launch command, and no warning (as for any unstated default)
    plain = deployment_from_log(_sglang("0.5.23", ""), model="qwen3-8b", hardware="h100")
    one = deployment_from_log(_sglang("0.5.23", SG_DICT.format(n=1)), hardware="h100")
    assert one.facts.settings["recv_interval"] == 1
    assert one.deployment.engine.recv_interval is None
    assert plain.deployment.engine.recv_interval is None
    assert not any("recv" in w for w in plain.warnings + one.warnings)


def test_sglang_recv_interval_from_the_launch_command():
    # the flag as `python -m sglang.launch_server` takes it (0.5.23 ServerArgs' CLI:
    # --scheduler-recv-interval, the name of the field with dashes)
    log = ("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 "
           "--scheduler-recv-interval 4\n" + SG_POOL)  # fmt: skip
    assert deployment_from_log(log, hardware="h100").deployment.engine.recv_interval == 4


# TensorRT-LLM's PyTorch backend as update_executor_config logs it
# (tensorrt_llm/_torch/pyexecutor/config.py:
# logger.info(f"{executor_config.pytorch_backend_config}"), the PyTorchConfig dataclass's repr,
# its fields in their order); the pool lines are
# tests/data/engine_logs/trtllm-h100-llama31-8b-fp8.log's
def _trtllm(iters, ratio) -> str:
    return (
        "[TensorRT-LLM] TensorRT-LLM version: 1.1.0\n"
        "[12/20/2025-04:20:21] [TRT-LLM] [I] PyTorchConfig(extra_resource_managers={}, "
        "use_cuda_graph=True, cuda_graph_batch_sizes=None, cuda_graph_max_batch_size=0, "
        "attention_dp_enable_balance=False, attention_dp_time_out_iters=50, "
        "attention_dp_batching_wait_iters=10, max_num_tokens=8192, batch_wait_timeout_ms=0, "
        f"batch_wait_timeout_iters={iters}, batch_wait_max_tokens_ratio={ratio}, "
        "attn_backend='TRTLLM', moe_backend='CUTLASS')\n"
        "[TensorRT-LLM][INFO] Number of tokens per block: 32.\n"
        "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 52.51 GiB for max tokens in paged KV "
        "cache (860320).\n"
    )


def test_trtllm_batch_wait_from_its_backend_config():
    d = deployment_from_log(_trtllm(20, 0.9), model="llama3-8b", hardware="h100")
    e = d.deployment.engine
    assert (e.batch_wait_iters, e.batch_wait_ratio) == (20, 0.9)
    # the other attention-DP keys beside them are not taken for the batch wait
    assert "attention_dp_batching_wait_iters" not in d.facts.settings
    hold = d.deployment.engine_model.admission_hold(d.deployment)
    # threshold 0.9 × max_num_tokens 8,192 (the same repr's) = 7,372.8 tokens
    assert hold.batch_wait_iters == 20
    assert hold.batch_wait_tokens == pytest.approx(0.9 * 8192)


@pytest.mark.parametrize(("iters", "ratio"), [(0, 0.0), (20, 0.0), (0, 0.5)])
def test_trtllm_batch_wait_off_is_the_default(iters, ratio):
    # either at 0 ends the wait at once (py_executor.py _waiting_requests stops when the steps
    # reach the timeout or the tokens the threshold): the engine's default, nothing held
    d = deployment_from_log(_trtllm(iters, ratio), model="llama3-8b", hardware="h100")
    e = d.deployment.engine
    assert (e.batch_wait_iters, e.batch_wait_ratio) == (None, None)
    assert not any("batch_wait" in w for w in d.warnings)


def test_a_ratio_above_one_in_a_log_is_not_a_setting():
    # the setting is a share of max_num_tokens in [0, 1] (the field's comment in PyTorchConfig):
    # a damaged line's 1.5 is not read, and the timeout alone holds nothing back
    facts = read_log(_trtllm(20, 1.5))
    assert "batch_wait_ratio" not in facts.settings
    d = deployment_from_log(facts, model="llama3-8b", hardware="h100")
    assert d.deployment.engine.batch_wait_iters is None


def test_the_dict_dump_wrapped_over_many_lines_keeps_its_settings():
    # as tests/test_log_wrapped.py's ServerArgs dump: cut at 40 columns, the pieces join
    line = SG_DICT.format(n=10).rstrip("\n")
    pieces = [line[i : i + 40] for i in range(0, len(line), 40)]
    s = read_log([*pieces, SG_POOL.rstrip("\n")], "sglang").settings
    assert (s["tp"], s["memory_fraction"], s["recv_interval"]) == (2, 0.85, 10)
