"""The MoE backend a start-up log names (issue 21, sglogmoe round): SGLang's resolved
``moe_runner_backend`` (its ServerArgs dump, the 0.5.20+ ``server_args={...}`` dict, the model
overrides' "Use X as MoE runner backend" line, the command line) into
``EngineSettings.moe_backend``, launched back with ``--moe-runner-backend``; vLLM's oracle line
naming the backend it chose read into the same setting (vllmmoerule round; said where kvcalc
times it by another backend's curve); a warning where a MoE log names none.

Log lines here are either copied from public logs (named) or written from the engine's own
format string (the file and release named beside each)."""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.deploy.engines.fromlog import deployment_from_log, read_log
from calc.reports.launch_flags import launch_commands
from tests.test_engine_commands import check, parse, table_for

LOGS = Path(__file__).resolve().parent / "data" / "engine_logs"
QWEN = "Qwen/Qwen3-235B-A22B-FP8"  # Qwen3MoeForCausalLM, 128 × 128 block-fp8 experts
# the pool line every SGLang release prints (mem_cache/memory_pool.py), figures invented
POOL = "[2026-05-01 01:00:02 TP0] KV Cache is allocated. #tokens: 400000, K size: 24.41 GB, " \
    "V size: 24.41 GB\n"  # fmt: skip


def _dump(release: str, runner: str | None) -> str:
    """SGLang ``release``'s settings line as engine.py logs it: ``logger.info(f"{server_args=}")``
    prints the dataclass repr (0.5.16), 0.5.20+ ``server_args={resolved_dict()}``."""
    field = "" if runner is None else runner
    if tuple(int(n) for n in release.split(".")) >= (0, 5, 20):
        tail = "" if runner is None else f", 'moe_runner_backend': '{field}'"
        return (f"SGLang version: {release}\n[2026-05-01 01:00:00] server_args={{'model_path': "
                f"'{QWEN}', 'tp_size': 4, 'mem_fraction_static': 0.8{tail}}}\n" + POOL)
    tail = "" if runner is None else f", moe_runner_backend='{field}'"
    return (f"SGLang version: {release}\n[2026-05-01 01:00:00] server_args=ServerArgs("
            f"model_path='{QWEN}', tp_size=4, mem_fraction_static=0.8{tail}, "
            "max_prefill_tokens=16384)\n" + POOL)


def _built(text: str, hw: str = "b200"):
    return deployment_from_log(text, hardware=hw, weight_dtype="fp8-block128")


def _moe_warnings(built) -> list[str]:
    return [w for w in built.warnings if "MoE" in w]


@pytest.mark.parametrize(("release", "runner"), [("0.5.16", "triton"),
                                                 ("0.5.16", "flashinfer_trtllm"),
                                                 ("0.5.23", "triton"),
                                                 ("0.5.23", "flashinfer_trtllm")])  # fmt: skip
def test_the_dump_states_the_runner_and_launch_round_trips(release, runner):
    built = _built(_dump(release, runner))
    dep = built.deployment
    assert dep.engine.moe_backend == runner
    assert not _moe_warnings(built)  # stated: nothing assumed
    cmds = launch_commands(dep)
    check(cmds, dep, dep.sharding.gpus)  # parsed against the release's captured options
    argv = list(cmds[0].argv)
    assert argv[argv.index("--moe-runner-backend") + 1] == runner
    assert parse(argv, table_for("sglang", release))["moe_runner_backend"] == runner


def test_the_overrides_line_names_the_runner_over_a_stated_auto():
    # 0.5.23 arg_groups/model_overrides/qwen3_moe.py: logger.info("Use flashinfer_trtllm as MoE
    # runner backend on sm100 for " f"{hf_config.architectures[0]}"); the command said auto
    line = "[2026-05-01 00:59:59] Use flashinfer_trtllm as MoE runner backend on sm100 for " \
        "Qwen3MoeForCausalLM\n"  # fmt: skip
    cmd = f"python3 -m sglang.launch_server --model-path {QWEN} --tp 4 --moe-runner-backend auto\n"
    text = cmd + line + "SGLang version: 0.5.23\n" + POOL
    assert read_log(text).settings["moe_backend"] == "flashinfer_trtllm"
    assert _built(text).deployment.engine.moe_backend == "flashinfer_trtllm"
    # the same command with the dump after it: the dump's resolved value beats the flag's auto
    text = cmd + _dump("0.5.16", "flashinfer_trtllm")
    assert read_log(text).settings["moe_backend"] == "flashinfer_trtllm"
    # a command's auto alone is unresolved: kvcalc's rule, said as stated (no warning)
    built = _built(cmd + "SGLang version: 0.5.16\n" + POOL)
    assert built.deployment.engine.moe_backend is None and not _moe_warnings(built)


def test_a_resolved_auto_is_the_layers_own_pick():
    # ServerArgs prints 'auto' after the overrides ran: on B200 at 0.5.16 kvcalc's rule takes
    # flashinfer_trtllm for Qwen3MoeForCausalLM, so the overrides did not fire (another
    # quantization, an all-to-all backend): fp8.py create_moe_runner's auto, Triton
    built = _built(_dump("0.5.16", "auto"))
    assert built.deployment.engine.moe_backend == "triton"
    (w,) = _moe_warnings(built)
    assert "resolved and still auto" in w and "did not pick flashinfer_trtllm" in w
    # on H100 the rule is Triton already: nothing to change, nothing said
    built = _built(_dump("0.5.16", "auto"), hw="h100")
    assert built.deployment.engine.moe_backend is None and not _moe_warnings(built)


def test_no_runner_stated_warns_with_the_rule_taken():
    built = _built(_dump("0.5.16", None))
    assert built.deployment.engine.moe_backend is None
    (w,) = _moe_warnings(built)
    assert "does not state the MoE runner (moe_runner_backend)" in w
    assert "timed as flashinfer_trtllm (auto on SM 10.x for Qwen3MoeForCausalLM" in w
    assert "--moe-backend" in w
    # a public log (tests/test_engine_log.py's sglang-4xh100-qwen3-235b-fp8-tp4): a launch
    # command without the flag and the pool line; on H100 the rule is Triton
    public = deployment_from_log(LOGS / "sglang-4xh100-qwen3-235b-fp8-tp4.log", hardware="h100",
                                 weight_dtype="fp8-block128")  # fmt: skip
    (w,) = _moe_warnings(public)
    assert "timed as triton (auto on this GPU for Qwen3MoeForCausalLM" in w


def test_a_runner_kvcalc_does_not_time_or_cannot_run_is_said():
    built = _built(_dump("0.5.16", "flashinfer_cutlass"))
    assert built.deployment.engine.moe_backend is None
    (w,) = _moe_warnings(built)
    assert "flashinfer_cutlass, which kvcalc does not time" in w
    # trtllm-gen on H100 (a log from another GPU read with --hardware h100): said, not an error
    built = _built(_dump("0.5.16", "flashinfer_trtllm"), hw="h100")
    assert built.deployment.engine.moe_backend is None
    (w,) = _moe_warnings(built)
    assert "SM 10.x GPUs only" in w


def test_a_dense_model_is_not_told_about_moe():
    text = ("SGLang version: 0.5.16\nserver_args=ServerArgs(model_path='meta-llama/Meta-Llama-3-8B"
            "', tp_size=1, mem_fraction_static=0.8, moe_runner_backend='auto')\n" + POOL)
    built = deployment_from_log(text, model="llama3-8b", hardware="h100")
    assert built.deployment.engine.moe_backend is None and not _moe_warnings(built)


# vllm-project/vllm issue 34249 (2026-02-10, vLLM 0.15.2rc1.dev152, H100 × 8), the selection
# line as the issue quotes it (fused_moe/oracle/fp8.py _make_log_backend)
VLLM_FP8 = ("(Worker_TP0_EP0 pid=955) INFO 02-10 20:34:43 [fp8.py:329] Using FLASHINFER_CUTLASS "
            "Fp8 MoE backend out of potential backends: ['AITER', 'FLASHINFER_TRTLLM', "
            "'FLASHINFER_CUTLASS', 'DEEPGEMM', 'BATCHED_DEEPGEMM', 'TRITON', 'BATCHED_TRITON', "
            "'MARLIN'].")  # fmt: skip


# (the oracle's line, what it names, the GPU the log is read for, what the Deployment takes,
# what the MoE warning says: None for nothing said). The model id's "FP8" sizes per-tensor fp8
# experts; no release printed: the newest, 0.33.0. kvcalc's H100 fp8 curve is fitted to
# FlashInfer CUTLASS rows, B200's to trtllm-gen's (calc/deploy/engines/vllm/moe_backend.py)
@pytest.mark.parametrize(
    ("line", "backend", "hw", "taken", "said"),
    [
        (VLLM_FP8, "FLASHINFER_CUTLASS", "h100", "flashinfer_cutlass", None),
        # 0.16.0 oracle/nvfp4.py: f"Using '{backend.value}' NvFp4 MoE backend out of potential
        # backends: {available_backend_strs}."
        ("INFO [nvfp4.py:141] Using 'FLASHINFER_TRTLLM' NvFp4 MoE backend out of potential "
         "backends: ['FLASHINFER_TRTLLM', 'FLASHINFER_CUTLASS'].", "FLASHINFER_TRTLLM", "b200",
         "flashinfer_trtllm", None),
        # 0.16.0 oracle/unquantized.py: f"Using {backend.value} backend for Unquantized MoE"
        ("INFO [unquantized.py:65] Using TRITON backend for Unquantized MoE", "TRITON", "h100",
         "triton", "which kvcalc does not time"),
        # 0.33.0 oracle/unquantized.py: f"Using {backend.value} Unquantized MoE backend out of
        # potential backends: ..."; oracle/int_wna16.py f"Using '{backend.value}' WNA16 MoE
        # backend."
        ("INFO [unquantized.py:266] Using FLASHINFER_CUTLASS Unquantized MoE backend out of "
         "potential backends: ['TRITON'].", "FLASHINFER_CUTLASS", "h100", "flashinfer_cutlass",
         None),
        ("INFO [int_wna16.py:287] Using 'MARLIN' WNA16 MoE backend.", "MARLIN", "h100", "marlin",
         "which kvcalc does not time"),
    ],
)  # fmt: skip
def test_vllm_reads_the_backend_its_oracle_chose(line, backend, hw, taken, said):
    args = ("INFO [utils.py:233] non-default args: {'model_tag': 'Qwen/Qwen3-235B-A22B-Instruct"
            "-2507-FP8', 'model': 'Qwen/Qwen3-235B-A22B-Instruct-2507-FP8', "
            "'tensor_parallel_size': 8, 'moe_backend': 'auto'}\n")  # fmt: skip
    kv = "INFO [kv_cache_utils.py:1087] GPU KV cache size: 1,000,000 tokens\n"
    facts = read_log(args + line + "\n" + kv)
    assert facts.settings["moe_backend"] == backend  # what ran beats the stated auto
    built = deployment_from_log(facts, hardware=hw)
    assert built.deployment.engine.moe_backend == taken  # the Deployment takes it
    found = _moe_warnings(built)
    if said is None:
        assert not found
    else:
        (w,) = found
        assert f"names vLLM's MoE backend {backend}: taken as {taken}, {said}" in w
        assert "stands in" in w


def test_the_check_spec_key_builds_and_launches_the_runner():
    from calc.reports.check_spec import Deployment as Spec
    from calc.reports.check_spec import build_deployment

    spec = Spec(name="q235", model="qwen3-235b-a22b", hardware="b200", tp=4,
                weight_dtype="fp8-block128", engine="sglang", engine_version="0.5.23",
                moe_backend="triton", workload={"batch": 8, "ctx": 4096},
                requirements={"max_tpot_ms": 100})  # fmt: skip
    dep = build_deployment(spec)
    assert dep.engine.moe_backend == "triton"
    argv = list(launch_commands(dep)[0].argv)
    assert parse(argv, table_for("sglang", "0.5.23"))["moe_runner_backend"] == "triton"


def test_the_log_command_takes_the_option_over_the_log(cli, tmp_path):
    log = tmp_path / "sglang.log"
    log.write_text(_dump("0.5.16", None))
    base = ("log", str(log), "-H", "b200", "--weight-dtype", "fp8-block128", "-f", "json")
    r = cli(*base, "--moe-backend", "triton")
    assert r.code == 0 and "MoE runner" not in r.out + r.err  # stated: no default taken
    built = deployment_from_log(log, hardware="b200", weight_dtype="fp8-block128",
                                moe_backend="triton")  # fmt: skip
    assert built.deployment.engine.moe_backend == "triton"
    # the option is checked as every command checks it: trtllm-gen off SM 10.x, one line
    r = cli(*base[:3], "h100", *base[4:], "--moe-backend", "flashinfer_trtllm")
    assert r.code == 2 and "Traceback" not in r.err and "SM 10.x" in r.err
    assert len(r.err.strip().splitlines()) == 1


# TensorRT-LLM (trtlogmoe round): the PyTorch backend's settings line, the PyTorchConfig
# dataclass's repr that update_executor_config logs (tensorrt_llm/_torch/pyexecutor/config.py:
# logger.info(f"{executor_config.pytorch_backend_config}")); its moe_backend field is the
# extra options' moe_config.backend (llmapi/llm_args.py TorchLlmArgs.get_pytorch_backend_config:
# moe_backend=self.moe_config.backend), printed at its default 'CUTLASS' too.
# A real line: search index file 2263047771 (TensorRT-LLM 1.1.0rc3, gpt-oss-120b on a DGX
# Spark, 2025-12-20; the same log as tests/data/engine_logs/excerpts/trtllm-gb10-gpt-oss-120b-
# 1.1rc3.log), copied as printed through enable_mixed_sampler, the rest of the repr cut
TRT_REAL = (
    "[TensorRT-LLM] TensorRT-LLM version: 1.1.0rc3\n"
    "[12/20/2025-04:20:19] [TRT-LLM] [I] PyTorchConfig(extra_resource_managers={}, "
    "use_cuda_graph=True, cuda_graph_batch_sizes=[1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, "
    "80, 88, 96, 104, 112, 120, 128], cuda_graph_max_batch_size=128, "
    "cuda_graph_padding_enabled=True, disable_overlap_scheduler=True, moe_max_num_tokens=None, "
    "moe_load_balancer=None, attention_dp_enable_balance=False, attention_dp_time_out_iters=50, "
    "attention_dp_batching_wait_iters=10, batch_wait_timeout_ms=0, attn_backend='TRTLLM', "
    "moe_backend='CUTLASS', moe_disable_finalize_fusion=False, enable_mixed_sampler=False)\n"
    "[TensorRT-LLM][INFO] Number of tokens per block: 32.\n"
    "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 5.95 GiB for max tokens in paged KV cache "
    "(86720).\n"
)


def _trt(backend: str) -> str:
    """The real line above with another ``moe_config.backend`` in it."""
    return TRT_REAL.replace("moe_backend='CUTLASS'", f"moe_backend='{backend}'")


def test_trtllm_reads_the_backend_its_backend_config_prints():
    facts = read_log(TRT_REAL)
    assert facts.engine == "trtllm" and facts.settings["moe_backend"] == "CUTLASS"
    # attn_backend='TRTLLM' just before it is another key, not the MoE backend
    built = deployment_from_log(TRT_REAL, model="gpt-oss-120b", hardware="b200")
    assert built.deployment.engine.moe_backend == "CUTLASS"
    assert not _moe_warnings(built)  # stated: nothing assumed


def test_trtllm_trtllm_gen_backend_is_taken_and_launched_back():
    # DeepSeek-V3's fp8 block-scaled experts on B200: TRTLLM builds TRTLLMGenFusedMoE
    # (create_moe.py get_moe_cls: fp8 block scales are among its formats)
    built = deployment_from_log(_trt("TRTLLM"), model="deepseek-v3", hardware="b200",
                                weight_dtype="fp8-block128", tp=8)  # fmt: skip
    dep = built.deployment
    assert dep.engine.moe_backend == "TRTLLM"
    assert not _moe_warnings(built)
    # launched back as the extra options' moe_config (trtllm/moe_backend.py yaml_lines)
    files = "\n".join(text for c in launch_commands(dep) for _, text in c.files)
    assert "moe_config:\n  backend: TRTLLM" in files


def test_trtllm_backend_kvcalc_does_not_time_is_said():
    # CUTEDSL (create_moe.py: CuteDslFusedMoE) is a backend kvcalc has no curve for
    built = deployment_from_log(_trt("CUTEDSL"), model="deepseek-v3", hardware="b200",
                                weight_dtype="fp8-block128", tp=8)  # fmt: skip
    assert built.deployment.engine.moe_backend is None
    (w,) = _moe_warnings(built)
    assert "names TensorRT-LLM's MoE backend CUTEDSL, which kvcalc does not time" in w
    assert "CUTLASS, TRTLLM, DEEPGEMM" in w
    # TRTLLM on H100 (trtllm-gen is SM 100/103 only): said, timed by the default
    built = deployment_from_log(_trt("TRTLLM"), model="deepseek-v3", hardware="h100",
                                weight_dtype="fp8-block128", tp=8)  # fmt: skip
    assert built.deployment.engine.moe_backend is None
    (w,) = _moe_warnings(built)
    assert "SM 100/103 GPUs only" in w


# SGLang's MoE all-to-all (trtlogmoe round): ServerArgs' moe_a2a_backend field ('none' by
# default, 'deepep', and the transports of the 0.5.16 / 0.5.21 option tables), on the 0.5.16
# repr and the 0.5.20+ resolved dict as every field is; lines written from engine.py's
# format strings (as _dump above), DeepSeek-V3 under DP attention over 8 GPUs. Each dump carries
# the draft model's speculative_moe_a2a_backend (0.5.23 arg_groups/fields/spec.py) before it at
# another value: a key ending in the same name, not read
DSV3 = "deepseek-ai/DeepSeek-V3"


def _dp_dump(release: str, a2a: str | None, *, dp: int = 8) -> str:
    attn, draft = dp > 1, "mooncake" if a2a == "deepep" else "deepep"
    if tuple(int(n) for n in release.split(".")) >= (0, 5, 20):
        tail = "" if a2a is None else f", 'moe_a2a_backend': '{a2a}'"
        return (f"SGLang version: {release}\n[2026-05-01 01:00:00] server_args={{'model_path': "
                f"'{DSV3}', 'tp_size': 8, 'dp_size': {dp}, 'ep_size': 8, "
                f"'speculative_moe_a2a_backend': '{draft}', "
                f"'enable_dp_attention': {attn}, 'mem_fraction_static': 0.8{tail}}}\n" + POOL)
    tail = "" if a2a is None else f", moe_a2a_backend='{a2a}'"
    return (f"SGLang version: {release}\n[2026-05-01 01:00:00] server_args=ServerArgs("
            f"model_path='{DSV3}', tp_size=8, dp_size={dp}, ep_size=8, "
            f"speculative_moe_a2a_backend='{draft}', "
            f"enable_dp_attention={attn}, mem_fraction_static=0.8{tail})\n" + POOL)


def _a2a_warnings(built) -> list[str]:
    return [w for w in built.warnings if "all-to-all" in w]


@pytest.mark.parametrize(("release", "said", "taken"), [("0.5.16", "deepep", "deepep"),
                                                        ("0.5.16", "none", "gather"),
                                                        ("0.5.23", "deepep", "deepep"),
                                                        ("0.5.23", "none", "gather")])  # fmt: skip
def test_sglang_a2a_backend_is_read_into_moe_a2a(release, said, taken):
    built = deployment_from_log(_dp_dump(release, said), hardware="h200",
                                weight_dtype="fp8-block128")  # fmt: skip
    dep = built.deployment
    # tp_size 8 with 8 attention-DP ranks: attention tp 8 / 8 = 1, experts over ep 8
    assert (dep.tp, dep.ep) == (1, 8)
    assert dep.engine.moe_a2a == taken
    assert not _a2a_warnings(built)
    # launched back: deepep as --moe-a2a-backend deepep, gather as no flag (SGLang's 'none')
    argv = list(launch_commands(dep)[0].argv)
    parsed = parse(argv, table_for("sglang", release))
    assert parsed.get("moe_a2a_backend", "none") == said


def test_sglang_a2a_backend_from_the_command_line():
    log = ("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 "
           "--enable-dp-attention --ep-size 8 --moe-a2a-backend deepep\n" + POOL)  # fmt: skip
    built = deployment_from_log(log, hardware="h200", weight_dtype="fp8-block128")
    assert built.deployment.engine.moe_a2a == "deepep"
    # the setting reaches the step model: DeepEP's dispatch and combine are timed from its
    # own tables, the gather from the all-gather and reduce-scatter, so the steps differ
    from calc.deploy.steps import step_of

    gather = deployment_from_log(log.replace("deepep", "none"), hardware="h200",
                                 weight_dtype="fp8-block128").deployment  # fmt: skip
    assert gather.engine.moe_a2a == "gather"
    assert step_of(built.deployment, batch=64, ctx=4096).time_s != \
        step_of(gather, batch=64, ctx=4096).time_s  # fmt: skip


def test_sglang_a2a_backend_kvcalc_does_not_time_is_said():
    built = deployment_from_log(_dp_dump("0.5.16", "mooncake"), hardware="h200",
                                weight_dtype="fp8-block128")  # fmt: skip
    assert built.deployment.engine.moe_a2a is None  # the engine's default traffic
    (w,) = _a2a_warnings(built)
    assert "MoE all-to-all backend mooncake, which kvcalc does not time" in w
    # without expert parallel (tp 8, no DP attention, ep 1) it moves nothing: not said, unset
    text = _dp_dump("0.5.16", "mooncake", dp=1).replace("ep_size=8", "ep_size=1")
    built = deployment_from_log(text, hardware="h200", weight_dtype="fp8-block128")
    assert built.deployment.ep == 1 and built.deployment.engine.moe_a2a is None
    assert not _a2a_warnings(built)
