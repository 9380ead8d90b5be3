"""The MoE backend a start-up log names (issue 21, sglogmoe round): SGLang's resolved
``moe_runner_backend`` (its ServerArgs dump, the 0.5.20+ ``server_args={...}`` dict, the model
overrides' "Use X as MoE runner backend" line, the command line) into
``EngineSettings.moe_backend``, launched back with ``--moe-runner-backend``; vLLM's oracle line
naming the backend it chose read and said; a warning where a MoE log names none.

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


@pytest.mark.parametrize(
    ("line", "backend"),
    [
        (VLLM_FP8, "FLASHINFER_CUTLASS"),
        # 0.16.0 oracle/nvfp4.py: f"Using '{backend.value}' NvFp4 MoE backend out of potential
        # backends: {available_backend_strs}."
        ("INFO [nvfp4.py:141] Using 'FLASHINFER_TRTLLM' NvFp4 MoE backend out of potential "
         "backends: ['FLASHINFER_TRTLLM', 'FLASHINFER_CUTLASS'].", "FLASHINFER_TRTLLM"),
        # 0.16.0 oracle/unquantized.py: f"Using {backend.value} backend for Unquantized MoE"
        ("INFO [unquantized.py:65] Using TRITON backend for Unquantized MoE", "TRITON"),
        # 0.33.0 oracle/unquantized.py: f"Using {backend.value} Unquantized MoE backend out of
        # potential backends: ..."; oracle/int_wna16.py f"Using '{backend.value}' WNA16 MoE
        # backend."
        ("INFO [unquantized.py:266] Using FLASHINFER_CUTLASS Unquantized MoE backend out of "
         "potential backends: ['TRITON'].", "FLASHINFER_CUTLASS"),
        ("INFO [int_wna16.py:287] Using 'MARLIN' WNA16 MoE backend.", "MARLIN"),
    ],
)
def test_vllm_reads_the_backend_its_oracle_chose(line, backend):
    args = ("INFO [utils.py:233] non-default args: {'model_tag': 'Qwen/Qwen3-235B-A22B-Instruct"
            "-2507-FP8', 'model': 'Qwen/Qwen3-235B-A22B-Instruct-2507-FP8', "
            "'tensor_parallel_size': 8, 'moe_backend': 'auto'}\n")  # fmt: skip
    kv = "INFO [kv_cache_utils.py:1087] GPU KV cache size: 1,000,000 tokens\n"
    facts = read_log(args + line + "\n" + kv)
    assert facts.settings["moe_backend"] == backend  # what ran beats the stated auto
    built = deployment_from_log(facts, hardware="h100")
    (w,) = _moe_warnings(built)
    assert f"names vLLM's MoE backend {backend}" in w
    # vLLM's one backend kvcalc times as a setting is gpt-oss's MXFP8 one (mxfp4big round)
    assert "which kvcalc does not time (it times flashinfer_trtllm_mxfp4_mxfp8, " \
        "flashinfer_trtllm_mxfp4_bf16)" in w  # fmt: skip


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
