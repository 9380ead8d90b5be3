"""Issue 21, TensorRT-LLM releases: every modelled release has its own ``trtllm-serve`` option
table, read from that release's published CLI reference (NVIDIA/TensorRT-LLM gh-pages
``<version>/commands/trtllm-serve/trtllm-serve.html``, sphinx-click's rendering of the
release's serve.py) by tools/capture_engine_options.py; the YAML keys kvcalc writes are the
ones each release's llm_args.py accepts; the architecture table records that no release's
model registry was read at a dated commit (so nothing is refused for it)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

from calc.data.engine_architectures import _table, loads, refusal
from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import engine
from calc.deploy.engines.versions import parse_version
from calc.errors import InvalidInputError
from calc.reports.launch_flags import launch_commands
from tests.test_engine_commands import check, parse, table_for

ROOT = Path(__file__).resolve().parent.parent
TABLES = ROOT / "tests" / "data" / "engine_options"
RELEASES = engine("trtllm").versions.releases


def _capture():
    spec = importlib.util.spec_from_file_location(
        "capture_engine_options", ROOT / "tools" / "capture_engine_options.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("release", RELEASES)
def test_every_release_has_its_own_table_from_its_own_page(release):
    # no release borrows another's table (1.1.0 and 1.2.0 had none): the page read is the
    # release's own, at a gh-pages commit, and names the TensorRT-LLM commit it was built from
    table = json.loads((TABLES / f"trtllm-{release}.json").read_text())
    assert table["version"] == release
    assert table_for("trtllm", release)["version"] == release
    meta = table["meta"]
    assert meta["repo"] == "NVIDIA/TensorRT-LLM"
    assert meta["path"] == f"{release}/commands/trtllm-serve/trtllm-serve.html"
    assert re.fullmatch(r"[0-9a-f]{40}", meta["commit"])
    assert re.fullmatch(r"[0-9a-f]{7,40}", meta["built_from_commit"])
    assert table["positional"] == ["model"] and not table["allow_abbrev"]


# (release, options, the build commit its page names): 1.0.0 and 1.1.0 list 22 option entries
# with one name each (tokenizer, host, port, backend, log_level, max_beam_width,
# max_batch_size, max_num_tokens, max_seq_len, tp_size, pp_size, ep_size, cluster_size,
# gpus_per_node, kv_cache_free_gpu_memory_fraction, num_postprocess_workers,
# trust_remote_code, extra_llm_api_options, reasoning_parser, metadata_server_config_file,
# server_role, fail_fast_on_attention_window_too_large) = 22; 1.2.0 and 1.2.1 list 32 entries,
# 7 of them with a second name (tensor_parallel_size/tp_size, pipeline_parallel_size/pp_size,
# context_parallel_size/cp_size, moe_expert_parallel_size/ep_size,
# moe_cluster_parallel_size/cluster_size, free_gpu_memory_fraction/
# kv_cache_free_gpu_memory_fraction, config/extra_llm_api_options): 32 + 7 = 39
@pytest.mark.parametrize(("release", "count", "built"), [
    ("1.0.0", 22, "ae8270b"), ("1.1.0", 22, "48b7b5d"), ("1.2.0", 39, "dbdb13b"),
    ("1.2.1", 39, "376f7e1"),
])  # fmt: skip
def test_option_tables_as_published(release, count, built):
    table = table_for("trtllm", release)
    assert len(table["options"]) == count
    assert table["meta"]["built_from_commit"] == built
    options = table["options"]
    # what kvcalc prints is in every release, each taking a value
    for flag in ("--backend", "--tp_size", "--pp_size", "--ep_size", "--max_seq_len",
                 "--max_num_tokens", "--max_batch_size", "--kv_cache_free_gpu_memory_fraction",
                 "--extra_llm_api_options"):  # fmt: skip
        assert options[flag][0] == 1, (release, flag)
    assert options["--trust_remote_code"][0] == 0  # a flag
    # --config and --enable_chunked_prefill from 1.2.0 only: chunked prefill goes in the YAML
    new_in_12 = parse_version(release) >= (1, 2, 0)
    assert ("--config" in options) == new_in_12
    assert ("--enable_chunked_prefill" in options) == new_in_12
    if new_in_12:  # click's parameter is the first name: tp_size is tensor_parallel_size
        assert options["--tp_size"][2] == "tensor_parallel_size"
        assert options["--extra_llm_api_options"][2] == "config"


def test_backend_choices_changed_after_1_0():
    # 1.0.0's page: "Options: pytorch | trt"; 1.1.0's: "pytorch | tensorrt | _autodeploy"
    assert table_for("trtllm", "1.0.0")["options"]["--backend"][1] == ["pytorch", "trt"]
    assert table_for("trtllm", "1.1.0")["options"]["--backend"][1] == [
        "pytorch", "tensorrt", "_autodeploy"]  # fmt: skip
    argv = ["trtllm-serve", "m", "--backend", "tensorrt"]
    with pytest.raises(AssertionError, match="invalid choice 'tensorrt'"):
        parse(argv, table_for("trtllm", "1.0.0"))
    assert parse(argv, table_for("trtllm", "1.1.0"))["backend"] == "tensorrt"
    with pytest.raises(AssertionError, match="unrecognized argument: --config"):
        parse(["trtllm-serve", "m", "--config", "x.yaml"], table_for("trtllm", "1.1.0"))


# a page shaped as sphinx-click renders one (written for this test): an entry's names, each
# "--x" in a sig-name span, ", " between them, "<metavar>" when it takes a value
DT = '<dt class="sig sig-object std" id="cmdoption-trtllm-serve-{}">\n'
NAME = '<span class="sig-name descname"><span class="pre">{}</span></span>'
COMMA = ('<span class="sig-prename descclassname"></span><span class="sig-prename '
         'descclassname"><span class="pre">,</span> </span>')  # fmt: skip
METAVAR = '<span class="sig-prename descclassname"> <span class="pre">&lt;{}&gt;</span></span>'
CHOICES = ('<dd><p>help</p><dl class="field-list simple"><dt class="field-odd">Options'
           '<span class="colon">:</span></dt>\n<dd class="field-odd"><p>{}</p></dd></dl></dd>\n')
PAGE = "".join([
    '<meta name="docsearch:version" content="9.9.0" />\n',
    '<section id="trtllm-serve-disaggregated">', DT.format("disaggregated-c"),
    NAME.format("-c"), COMMA, NAME.format("--config_file"), METAVAR.format("config_file"),
    "</dt></section>\n",
    '<section id="trtllm-serve-serve">\n',
    DT.format("serve-tensor_parallel_size"), NAME.format("--tensor_parallel_size"), COMMA,
    NAME.format("--tp_size"), METAVAR.format("tensor_parallel_size"), "</dt>\n",
    "<dd><p>Tensor parallelism size.</p></dd>\n",
    DT.format("serve-backend"), NAME.format("--backend"), METAVAR.format("backend"), "</dt>\n",
    CHOICES.format("pytorch | tensorrt"),
    DT.format("serve-trust_remote_code"), NAME.format("--trust_remote_code"), "</dt>\n",
    DT.format("serve-arg-MODEL"), NAME.format("MODEL"), "</dt>\n",
    "</section>\n",
    '<p>This page is generated by TensorRT-LLM commit <a href="https://github.com/NVIDIA/'
    'TensorRT-LLM/tree/abc1234">abc1234</a>.</p>\n',
])  # fmt: skip


def test_capture_reads_a_sphinx_click_page():
    cap = _capture()
    options, positional = cap.sphinx_click_options(PAGE)
    # only the serve section: --config_file belongs to the disaggregated subcommand
    assert options == {
        "--tensor_parallel_size": [1, None, "tensor_parallel_size"],
        "--tp_size": [1, None, "tensor_parallel_size"],
        "--backend": [1, ["pytorch", "tensorrt"], "backend"],
        "--trust_remote_code": [0, None, "trust_remote_code"],
    }
    assert positional == ["model"]
    table = cap.trtllm_docs_table(PAGE, "9.9.0", "f" * 40)
    assert table["subcommands"]["disaggregated"] == {"-c": [1, None, "config_file"],
                                                     "--config_file": [1, None, "config_file"]}
    assert table["meta"]["built_from_commit"] == "abc1234"
    assert table["meta"]["path"] == "9.9.0/commands/trtllm-serve/trtllm-serve.html"
    with pytest.raises(SystemExit, match=r"documents 9\.9\.0, not 1\.1\.0"):
        cap.trtllm_docs_table(PAGE, "1.1.0", "f" * 40)
    with pytest.raises(SystemExit, match="no <section"):
        cap.sphinx_click_options(PAGE.replace("trtllm-serve-serve\"", "x\"", 1))


def test_yaml_keys_follow_each_release():
    # KvCacheConfig.tokens_per_block: absent from 1.0.0's llm_args.py, int = 32 from 1.1.0's
    for release in RELEASES:
        keys = table_for("trtllm", release)["yaml_options"]["--extra_llm_api_options"]
        cache = keys["kv_cache_config"]
        assert ("tokens_per_block" in cache) == (release != "1.0.0"), release
        assert cache["dtype"] == ["auto", "fp8"] and "enable_block_reuse" in cache
        assert keys["cache_transceiver_config"]["backend"] == ["DEFAULT", "UCX", "NIXL", "MPI"]


def _dsa(release):
    return Deployment.build(load_model("deepseek-v3.2"), load_hardware("h200"), tp=1, ep=8,
                            engine=EngineSettings(name="trtllm", version=release,
                                                  max_model_len=4096))  # fmt: skip


def test_sparse_attention_blocks_need_tokens_per_block():
    # DeepSeek-V3.2 pages its KV in 64-token blocks (TensorRT-LLM's 32 raised to a multiple of
    # 64: ceil(32 / 64) x 64 = 64), stated as kv_cache_config.tokens_per_block, which 1.0.0's
    # KvCacheConfig (a StrictBaseModel) refuses: the release cannot start it as sized
    dep = _dsa("1.0.0")
    why = ("TensorRT-LLM 1.0.0 cannot state the 64-token KV blocks of deepseek-v3.2's sparse "
           "attention: its KvCacheConfig has no tokens_per_block (from 1.1.0); use "
           "--engine-version 1.1.0 or later")  # fmt: skip
    assert dep.engine_model.cannot_start(dep) == why
    with pytest.raises(InvalidInputError, match=re.escape(why)):
        launch_commands(dep, max_model_len=4096)
    for release in RELEASES[1:]:
        dep = _dsa(release)
        assert dep.engine_model.cannot_start(dep) is None
        commands = launch_commands(dep, max_model_len=4096)
        check(commands, dep, dep.sharding.gpus)  # parses with the release's own table
        stated = yaml.safe_load(dict(commands[0].files)["extra-llm-api-config.yaml"])
        assert stated["kv_cache_config"]["tokens_per_block"] == 64
        assert stated["enable_attention_dp"] is True


def test_a_dense_model_is_unaffected_on_1_0():
    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"),
                           engine=EngineSettings(name="trtllm", version="1.0.0"))  # fmt: skip
    assert dep.engine_model.cannot_start(dep) is None
    assert "tokens_per_block" not in "".join(t for _, t in launch_commands(dep)[0].files)


def test_architecture_table_records_every_release_unread():
    # tensorrt_llm/_torch/models could not be read at a commit tied to a release: each modelled
    # release is recorded as not read (null), no architecture is listed, nothing is refused
    entry = _table()["trtllm"]
    assert entry["releases"] == list(RELEASES)
    assert entry["read"] == {r: None for r in RELEASES}
    assert entry["architectures"] == {}
    why = entry["meta"]["not read, because"]
    # the release commits tried: 1.0.0's (tensorrtllm_backend v1.0.0 pin, the commit its docs
    # name) and 1.1.0's (tensorrtllm_backend r25.12 pin)
    assert "ae8270b713446948246f16fadf4e2a32e35d0f62" in why
    assert "9bab773cb5d367a705d7727807ccde1de7ec1b21" in why
    for arch in ("GptOssForCausalLM", "Qwen3MoeForCausalLM", "Llama4ForConditionalGeneration",
                 "Qwen3NextForCausalLM"):  # fmt: skip
        assert loads("trtllm", "1.0.0", arch) is None
        assert refusal("trtllm", "1.0.0", arch) is None
    dep = Deployment.build(load_model("gpt-oss-20b"), load_hardware("h100"),
                           engine=EngineSettings(name="trtllm", version="1.0.0"))  # fmt: skip
    assert dep.engine_model.cannot_load(dep) is None


@pytest.mark.parametrize("release", RELEASES)
def test_disaggregated_commands_parse_and_mean_the_row(release):
    # 2 context + 1 generation servers of Llama 3 70B at TP 2: the workers parse with the
    # release's serve table (tests/test_engine_commands.check: 3 servers x 2 GPUs = 6), the
    # router with its disaggregated table (-c/--config_file in every release's page), and the
    # router's config counts the servers started: 2 context, 1 generation
    dep = Deployment.build(load_model("llama3-70b"), load_hardware("h100"), tp=2,
                           engine=EngineSettings(name="trtllm", version=release,
                                                 max_model_len=4096))  # fmt: skip
    commands = launch_commands(dep, max_model_len=4096, prefill=2, decode=1)
    check(commands, dep, 3 * 2)
    router = next(c for c in commands if c.role == "router")
    table = table_for("trtllm", release)
    sub = {"command": ["trtllm-serve", "disaggregated"], "allow_abbrev": False,
           "positional": [], "options": table["subcommands"]["disaggregated"]}  # fmt: skip
    parsed = parse(list(router.argv), sub)
    config = yaml.safe_load(dict(router.files)[parsed["config_file"]])
    assert config["context_servers"]["num_instances"] == 2
    assert config["generation_servers"]["num_instances"] == 1
    workers = {c.role: c for c in commands if c.role != "router"}
    assert [c.count for c in workers.values()] == [2, 1]
    for c in workers.values():  # each worker exchanges KV through the cache transceiver
        stated = yaml.safe_load(next(t for _, t in c.files))
        assert stated["cache_transceiver_config"]["backend"] == "DEFAULT"


PLANS = {
    # dense, aggregated (TP replicas, fp8 weights from a local ModelOpt checkpoint)
    "llama3-70b": ("-H", "h100", "--rate", "4", "--prompt", "1024", "--gen", "128",
                   "--ttft-p99", "5s", "--tpot-p99", "100ms"),
    # MoE: disaggregated, context TP 8 / EP 8 and generation attention DP 8 + EP 8
    "deepseek-r1": ("-H", "h200", "--rate", "8", "--prompt", "2000", "--gen", "500",
                    "--ttft-p99", "3s", "--tpot-p99", "60ms"),
}  # fmt: skip


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("model", sorted(PLANS))
def test_plan_prints_commands_each_release_parses(cli, release, model):
    from calc.deploy.engines.base import Command

    r = cli("plan", "-m", model, *PLANS[model], "--engine", "trtllm", "--engine-version",
            release, "--method", "analytic", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    out = r.json()
    row = out["rows"][0]
    commands = [Command("trtllm", c["role"], tuple(c["argv"]),
                        files=tuple(c["files"].items()), count=c["count"], gpus=c["gpus"])
                for c in out["launch_commands"]]  # fmt: skip
    assert commands, out.get("launch_note")
    dep = Deployment.build(load_model(model), load_hardware(PLANS[model][1]), tp=row["tp"],
                           pp=row["pp"], ep=row["ep"], weight_dtype=row["weight_dtype"],
                           kv_dtype=row["kv_dtype"],
                           engine=EngineSettings(name="trtllm", version=release))  # fmt: skip
    check(commands, dep, row["gpus"])  # every server parses with this release's table
    table = table_for("trtllm", release)
    for c in commands:
        if c.role == "router":
            sub = {"command": ["trtllm-serve", "disaggregated"], "allow_abbrev": False,
                   "positional": [], "options": table["subcommands"]["disaggregated"]}  # fmt: skip
            assert parse(list(c.argv), sub)["config_file"] in dict(c.files)
