"""Every launch command kvcalc prints parses with the named engine release's own option table
(tests/data/engine_options/, captured from each release by tools/capture_engine_options.py)
and means the deployment: option names exist (no abbreviation an engine would find ambiguous),
values are among the choices, JSON and YAML configs hold only keys the release accepts, and the
parallel sizes of each command multiply to the GPUs it runs on, its copies to the row's GPUs."""

from __future__ import annotations

import json
import re
import shlex
from functools import cache
from pathlib import Path

import pytest
import yaml

from calc.data.engine_architectures import loads
from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import engine
from calc.deploy.engines.versions import parse_version
from calc.errors import InvalidInputError
from calc.reports.launch_flags import command_lines, launch_commands

TABLES = Path(__file__).resolve().parent / "data" / "engine_options"


@cache
def table_for(engine_name: str, release: str) -> dict:
    """The captured table of ``release``: its own, else the newest captured before it in the
    same minor series (a patch release keeps its minor's options)."""
    v = parse_version(release)
    found = []
    for p in TABLES.glob(f"{engine_name}-*.json"):
        pv = parse_version(p.stem.split("-", 1)[1])
        if pv <= v and pv[:2] == v[:2]:
            found.append((pv, p))
    assert found, f"no option table for {engine_name} {release}"
    return json.loads(max(found)[1].read_text())


def parse(argv: list[str], table: dict) -> dict:
    """argv after the program words, parsed as the release's parser would: {dest: value}
    (a flag: True); raises AssertionError with the engine's complaint."""
    options = table["options"]
    words = list(argv)
    program = table["command"]
    assert words[: len(program)] == program, (words[: len(program)], program)
    words = words[len(program) :]
    out: dict = {"_positional": []}
    i = 0
    while i < len(words):
        w = words[i]
        if not w.startswith("-") or w == "-":
            out["_positional"].append(w)
            i += 1
            continue
        name, eq, inline = w.partition("=")
        key = name.replace("_", "-") if table.get("underscores") and name.startswith("--") else name
        if key not in options:
            matches = [o for o in options if o.startswith(key)] if table["allow_abbrev"] else []
            assert matches, f"unrecognized argument: {name}"
            assert len(matches) == 1, f"ambiguous option: {name} could match {matches}"
            key = matches[0]
        takes, choices, dest = options[key]
        if takes:
            if eq:
                value = inline
            else:
                assert i + 1 < len(words), f"argument {name}: expected one argument"
                value = words[i + 1]
                i += 1
            if choices is not None:
                assert value in choices, f"argument {name}: invalid choice {value!r}"
            out[dest] = value
        else:
            assert not eq, f"argument {name}: ignored explicit argument {inline!r}"
            out[dest] = True
        i += 1
    assert len(out["_positional"]) <= max(1, len(table["positional"])), out["_positional"]
    return out


def check_files(command, table: dict) -> None:
    """The config files a command reads hold only keys its release accepts."""
    schema = (table.get("yaml_options") or {}).get("--extra_llm_api_options")
    for name, text in command.files:
        data = yaml.safe_load(text)
        if name.startswith("disagg"):
            assert {"context_servers", "generation_servers"} <= set(data)
            continue
        assert schema is not None
        for key, value in data.items():
            assert key in schema, f"{name}: unknown key {key}"
            if isinstance(schema[key], dict):
                for sub, v in value.items():
                    allowed = schema[key][sub]
                    assert sub in schema[key] and (not isinstance(allowed, list) or v in allowed)


def gpus_of(command, parsed: dict, dep: Deployment) -> int:
    """The GPUs a server command starts, read back from its own parallel sizes."""
    name = command.engine
    if name == "vllm":
        tp = int(parsed.get("tensor_parallel_size", 1))
        pp = int(parsed.get("pipeline_parallel_size", 1))
        dp = int(parsed.get("data_parallel_size_local", parsed.get("data_parallel_size", 1)))
        gpus = tp * pp * dp
        if "nnodes" in parsed:
            gpus //= int(parsed["nnodes"])
        if parsed.get("enable_expert_parallel"):  # EP spans the tp × dp group
            assert tp * int(parsed.get("data_parallel_size", 1)) == max(dep.tp, dep.ep)
        return gpus
    if name == "sglang":
        tp = int(parsed.get("tp_size", parsed.get("tensor_parallel_size", 1)))
        pp = int(parsed.get("pp_size", parsed.get("pipeline_parallel_size", 1)))
        dp = int(parsed.get("attn_dp_size", parsed.get("dp_size", 1)))
        if dp > 1:  # attention data parallel lives inside the tp group
            assert parsed.get("enable_dp_attention") or "attn_dp_size" in parsed
            assert tp % dp == 0 and tp // dp == dep.tp
        return tp * pp // int(parsed.get("nnodes", 1))
    tp = int(parsed.get("tensor_parallel_size", parsed.get("tp_size", 1)))
    pp = int(parsed.get("pipeline_parallel_size", parsed.get("pp_size", 1)))
    return tp * pp


def check(commands, dep: Deployment, row_gpus: int) -> None:
    release = dep.engine_config.version
    total = 0
    for c in commands:
        text = c.text()
        assert "\n" not in text and shlex.split(text) == list(c.argv)  # one line, pasteable
        if c.engine in ("ray",):  # Ray's own cluster commands (vLLM before 0.11.1)
            total += c.count * c.gpus
            continue
        argv = list(c.argv)
        if argv[:1] == ["mpirun"]:  # TensorRT-LLM across hosts: mpirun's words, then the server
            assert int(argv[argv.index("-n") + 1]) == c.gpus
            argv = argv[argv.index("trtllm-llmapi-launch") + 1 :]
        if argv[:2] == ["trtllm-serve", "disaggregated"]:
            check_files(c, {})
            continue
        table = table_for(c.engine, release)
        parsed = parse(argv, table)
        check_files(c, table)
        if parsed.get("distributed_executor_backend") == "ray":  # runs on the Ray cluster
            assert c.gpus == 0 and int(parsed["tensor_parallel_size"]) * int(
                parsed["pipeline_parallel_size"]) == dep.sharding.gpus  # fmt: skip
            continue
        if "kv_transfer_config" in parsed:
            spec = table["json_options"]["--kv-transfer-config"]
            kv = json.loads(parsed["kv_transfer_config"])
            assert set(kv) <= set(spec["fields"])
            assert kv["kv_role"] in spec["kv_role"]
            assert kv["kv_connector"] in spec["kv_connector"]
        assert gpus_of(c, parsed, dep) == c.gpus, (text, c.gpus)
        total += c.count * c.gpus
    assert total == row_gpus, (total, row_gpus, command_lines(commands))


def deployment(model, hw, engine_name, release, **kw):
    return Deployment.build(
        load_model(model), load_hardware(hw),
        engine=EngineSettings(name=engine_name, version=release, max_model_len=4096),
        **kw,
    )  # fmt: skip


# (model, GPU, layout) of every form a plan row can take
FORMS = {
    "dense tp4 × 3 replicas": ("llama3-70b", "h100", {"tp": 4}, {"replicas": 3}),
    "fp8 weights + fp8 KV": ("llama3-70b", "h100", {"tp": 2, "weight_dtype": "fp8",
                                                     "kv_dtype": "fp8"}, {"replicas": 1}),
    "tp8 × pp2 over two hosts": ("llama3.1-405b", "h100", {"tp": 8, "pp": 2}, {"replicas": 1}),
    "attention DP 8 + EP 8 × 2 replicas": ("deepseek-v3", "h200", {"tp": 1, "ep": 8},
                                           {"replicas": 2}),
    "attention DP 16 + EP 16 over two hosts": ("deepseek-v3", "h200", {"tp": 1, "ep": 16},
                                               {"replicas": 1}),
    "EP inside TP (tp 2 = ep 2)": ("mixtral-8x7b", "h100", {"tp": 2, "ep": 2}, {"replicas": 1}),
    "attention TP 2 x DP 4 + EP 8": ("deepseek-v3", "h200", {"tp": 2, "ep": 8}, {"replicas": 1}),
    "disaggregated 2P1D": ("llama3-70b", "h100", {"tp": 2}, {"prefill": 2, "decode": 1}),
    # a published pre-quantised checkpoint named as the model, its 16-bit KV stated
    "nvfp4 weights, published checkpoint": ("llama3.3-70b", "b200", {"tp": 2,
                                            "weight_dtype": "nvfp4"}, {"replicas": 1}),
    "nvfp4 weights, no published checkpoint": ("llama3-8b", "b200", {"tp": 1,
                                               "weight_dtype": "nvfp4"}, {"replicas": 1}),
}  # fmt: skip


def _releases(name: str) -> list[str]:
    """Every modelled release with a captured option table of its minor series."""
    out = []
    for r in engine(name).versions.releases:
        v = parse_version(r)
        if any(parse_version(p.stem.split("-", 1)[1])[:2] == v[:2]
               and parse_version(p.stem.split("-", 1)[1]) <= v
               for p in TABLES.glob(f"{name}-*.json")):  # fmt: skip
            out.append(r)
    return out


@pytest.mark.parametrize("engine_name", ["vllm", "sglang", "trtllm"])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_parses_on_every_release(engine_name, form):
    model, hw, layout, plan = FORMS[form]
    releases = _releases(engine_name)
    assert releases, engine_name
    for release in releases:
        dep = deployment(model, hw, engine_name, release, **layout)
        servers = plan.get("replicas", 0) + plan.get("prefill", 0) + plan.get("decode", 0)
        try:
            commands = launch_commands(dep, max_model_len=4096, **plan)
        except InvalidInputError as exc:
            if engine_name == "trtllm":  # its attention DP is one GPU a rank: no TP inside
                assert "attention TP 1" in str(exc) and dep.tp > 1 and dep.sharding.dp_attn > 1
                continue
            if "cannot load" in str(exc):  # a release older than the model (SGLang 0.4.0: V3)
                assert loads(engine_name, release, dep.model.architecture) is False, str(exc)
                assert release != releases[-1], str(exc)
                continue
            # refused only by a release whose parser lacks the option the form needs (SGLang
            # 0.4: pipeline parallel before 0.4.7, EP in 0.4.0, disaggregation before 0.4.5)
            needed = re.search(r"needs (--[a-z-]+)", str(exc))
            assert needed and needed.group(1) not in table_for(engine_name, release)["options"]
            assert release != releases[-1], str(exc)
            continue
        check(commands, dep, servers * dep.sharding.gpus)


def test_the_issue_s_wrong_forms_are_gone():
    # SGLang: never '--pp' (ambiguous in 0.5.2x: --pp-size, --pp-max-micro-batch-size ...),
    # attention DP + EP is --tp-size 8 with 8 attention-DP ranks, not '--tp 1 --ep 8 --dp 8'
    dep = deployment("deepseek-v3", "h200", "sglang", "0.5.23", tp=1, ep=8)
    argv = launch_commands(dep)[0].argv
    assert "--pp" not in argv and "--tp" not in argv
    assert argv[argv.index("--tp-size") + 1] == "8"
    assert argv[argv.index("--attn-dp-size") + 1] == "8"
    with pytest.raises(AssertionError, match="ambiguous option: --pp"):
        parse(["python", "-m", "sglang.launch_server", "--pp", "2"], table_for("sglang", "0.5.23"))
    # TensorRT-LLM: tp_size spans the attention-DP ranks; enable_attention_dp in its YAML
    dep = deployment("deepseek-v3", "h200", "trtllm", "1.2.1", tp=1, ep=8)
    c = launch_commands(dep)[0]
    assert c.argv[c.argv.index("--tp_size") + 1] == "8" and "enable_attention_dp: true" in \
        c.files[0][1]  # fmt: skip
    # two 8-GPU replicas of DeepSeek-R1 are two servers, not one 16-wide data-parallel group
    dep = deployment("deepseek-r1", "h200", "vllm", "0.33.0", tp=1, ep=8)
    commands = launch_commands(dep, replicas=2)
    assert [c.count for c in commands] == [2]
    assert commands[0].argv[commands[0].argv.index("--data-parallel-size") + 1] == "8"
    # a TP8 × PP2 405B is one command per host (0.11.1+), not one host's command
    dep = deployment("llama3.1-405b", "h100", "vllm", "0.33.0", tp=8, pp=2)
    commands = launch_commands(dep)
    assert [c.role for c in commands] == ["server, node 1 of 2", "server, node 2 of 2"]
    assert "--headless" in commands[1].argv


def test_a_model_name_that_reads_as_an_option_is_refused(tmp_path):
    from calc.errors import InvalidInputError

    src = Path(__file__).resolve().parent.parent / "model_configs" / "llama3-8b.yaml"
    text = src.read_text().replace("name: llama3-8b", "name: --trust-remote-code")
    text = "\n".join(x for x in text.splitlines() if not x.startswith("source:"))
    path = tmp_path / "m.yaml"
    path.write_text(text + "\nsource: local\n")
    dep = Deployment.build(load_model(str(path)), load_hardware("h100"))
    with pytest.raises(InvalidInputError, match="reads as an option"):
        launch_commands(dep)


def test_quoting_makes_a_command_safe_to_paste():
    from calc.deploy.engines.base import Command

    c = Command("vllm", "server", ("vllm", "serve", "org/model; rm -rf ~", "--x", "$(id)"))
    assert c.text() == "vllm serve 'org/model; rm -rf ~' --x '$(id)'"
    assert shlex.split(c.text()) == list(c.argv)


@pytest.mark.parametrize("engine_name", ["vllm", "sglang", "trtllm"])
def test_plan_prints_commands_that_parse(cli, engine_name):
    r = cli("plan", "-m", "llama3-70b", "-H", "h100", "--rate", "4", "--prompt", "1024",
            "--gen", "128", "--ttft-p99", "5s", "--tpot-p99", "100ms", "--engine", engine_name,
            "--method", "analytic", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    out = r.json()
    row = out["rows"][0]
    dep = Deployment.build(
        load_model("llama3-70b"), load_hardware("h100"), tp=row["tp"], pp=row["pp"],
        ep=row["ep"], weight_dtype=row["weight_dtype"], kv_dtype=row["kv_dtype"],
        engine=EngineSettings(name=engine_name),
    )  # fmt: skip
    from calc.deploy.engines.base import Command

    commands = [
        Command(engine_name if c["argv"][0] != "ray" else "ray", c["role"], tuple(c["argv"]),
                files=tuple(c["files"].items()), count=c["count"], gpus=c["gpus"])
        for c in out["launch_commands"]
    ]  # fmt: skip
    check(commands, dep, row["gpus"])
    # the table prints each command whole on one line, outside the tables
    t = cli("plan", "-m", "llama3-70b", "-H", "h100", "--rate", "4", "--prompt", "1024",
            "--gen", "128", "--ttft-p99", "5s", "--tpot-p99", "100ms", "--engine", engine_name,
            "--method", "analytic")  # fmt: skip
    for c in out["launch_commands"]:
        assert c["command"] in t.out.splitlines()


@pytest.mark.parametrize("engine_name", ["vllm", "sglang", "trtllm"])
@pytest.mark.parametrize("chunked", [None, True, False])
def test_chunked_prefill_is_stated_as_modelled(engine_name, chunked):
    # the command turns chunked prefill on exactly when the simulation schedules with it:
    # the engine's default (vLLM V1 and SGLang on, trtllm-serve off) unless asked otherwise
    from calc.serve.simulate import deployment_limits

    dep = Deployment.build(
        load_model("llama3-8b"), load_hardware("h100"),
        engine=EngineSettings(name=engine_name, chunked_prefill=chunked, max_model_len=4096),
    )  # fmt: skip
    modelled = deployment_limits(dep, 1000).chunked_prefill
    assert modelled == (chunked if chunked is not None else engine_name != "trtllm")
    c = launch_commands(dep)[0]
    parse(list(c.argv), table_for(engine_name, dep.engine_config.version))
    argv = list(c.argv)
    if engine_name == "vllm":
        assert ("--enable-chunked-prefill" in argv) == modelled
        assert ("--no-enable-chunked-prefill" in argv) == (not modelled)
    elif engine_name == "sglang":
        assert (int(argv[argv.index("--chunked-prefill-size") + 1]) > 0) == modelled
    else:
        files = dict(c.files)
        stated = yaml.safe_load(files.get("extra-llm-api-config.yaml", "")) or {}
        assert stated.get("enable_chunked_prefill", False) == modelled
        assert ("--extra_llm_api_options" in argv) == bool(files)


@pytest.mark.parametrize("engine_name", ["vllm", "sglang"])
def test_deepep_stated_where_the_step_time_charges_it(engine_name):
    # --moe-a2a deepep (EngineSettings.moe_a2a) under attention DP + EP: the command names the
    # DeepEP backend the step time charged (vLLM --all2all-backend from 0.11.1, SGLang
    # --moe-a2a-backend from 0.5.2), and still parses with every release's own option table
    flag = {"vllm": "--all2all-backend", "sglang": "--moe-a2a-backend"}[engine_name]
    for release in _releases(engine_name):
        dep = Deployment.build(
            load_model("deepseek-v3"), load_hardware("h200"), tp=1, ep=8,
            engine=EngineSettings(name=engine_name, version=release, max_model_len=4096,
                                  moe_a2a="deepep"),
        )  # fmt: skip
        options = table_for(engine_name, release)["options"]
        if not loads(engine_name, release, "DeepseekV3ForCausalLM"):  # SGLang 0.4.0: from 0.4.1
            assert engine_name == "sglang" and release == "0.4.0"  # it had no --ep-size either
            assert "--ep-size" not in options
            with pytest.raises(InvalidInputError, match="cannot load DeepseekV3ForCausalLM"):
                launch_commands(dep, max_model_len=4096)
            continue
        commands = launch_commands(dep, max_model_len=4096)
        check(commands, dep, dep.sharding.gpus)
        argv = commands[0].argv
        if flag in options:
            assert argv[argv.index(flag) + 1].startswith("deepep"), (release, argv)
        elif "--enable-deepep-moe" in options:  # SGLang 0.4.5-0.4.10: its own flag
            assert "--enable-deepep-moe" in argv and "--enable-ep-moe" not in argv, release
        else:  # a release without the option says how, in a note
            assert flag not in argv and any("DeepEP" in n for n in commands[0].notes), release
    # the default (gather) adds no backend flag
    dep = deployment("deepseek-v3", "h200", engine_name, "0.33.0" if engine_name == "vllm"
                     else "0.5.23", tp=1, ep=8)  # fmt: skip
    assert flag not in launch_commands(dep)[0].argv


def test_sglang_running_limit_stated_only_when_given():
    # SGLang sizes its running-request limit from its KV pool unless --max-running-requests
    # pins it (calc/deploy/engines/sglang: running_from_pool): the command pins it only when
    # the user stated --max-num-seqs, never at a stand-in below what the engine would take
    dep = deployment("llama3-70b", "h200", "sglang", "0.5.23", tp=4)
    assert "--max-running-requests" not in launch_commands(dep)[0].argv
    stated = Deployment.build(
        load_model("llama3-70b"), load_hardware("h200"), tp=4,
        engine=EngineSettings(name="sglang", version="0.5.23", max_model_len=4096,
                              max_num_seqs=512),
    )  # fmt: skip
    argv = launch_commands(stated)[0].argv
    assert argv[argv.index("--max-running-requests") + 1] == "512"


@pytest.mark.parametrize("engine_name", ["vllm", "sglang", "trtllm"])
@pytest.mark.parametrize("prefix_cache", [None, True, False])
def test_prefix_cache_is_stated_as_modelled(engine_name, prefix_cache):
    # --no-prefix-cache (EngineSettings.prefix_cache False) turns the engine's prefix cache off
    # in its command, on every release with an option table, and the command still parses:
    # SGLang --disable-radix-cache, vLLM --no-enable-prefix-caching, TensorRT-LLM
    # kv_cache_config.enable_block_reuse false; on or unset, the engine's default (on) stands
    off = prefix_cache is False
    for release in _releases(engine_name):
        dep = Deployment.build(
            load_model("llama3-8b"), load_hardware("h100"),
            engine=EngineSettings(name=engine_name, version=release, max_model_len=4096,
                                  prefix_cache=prefix_cache),
        )  # fmt: skip
        commands = launch_commands(dep, max_model_len=4096)
        check(commands, dep, dep.sharding.gpus)
        argv = list(commands[0].argv)
        if engine_name == "sglang":
            assert ("--disable-radix-cache" in argv) == off, release
        elif engine_name == "vllm":
            assert ("--no-enable-prefix-caching" in argv) == off, release
            assert "--enable-prefix-caching" not in argv
        else:
            files = dict(commands[0].files)
            stated = yaml.safe_load(files.get("extra-llm-api-config.yaml", "")) or {}
            cache = stated.get("kv_cache_config", {})
            assert cache.get("enable_block_reuse", True) == (not off), release
            assert ("--extra_llm_api_options" in argv) == bool(files)


@pytest.mark.parametrize("engine_name", ["vllm", "sglang", "trtllm"])
def test_quantised_rows_name_the_published_checkpoint(engine_name):
    # --weight-dtype nvfp4 on DeepSeek-R1: every engine loads NVIDIA's NVFP4 release, the one
    # the timed TensorRT-LLM B200 records ran (calc/data/quantised_checkpoints.yaml; none makes
    # NVFP4 at load time), never the fp8 repository it would run as released
    dep = deployment("deepseek-r1", "b200", engine_name, engine(engine_name).versions.newest,
                     tp=8, weight_dtype="nvfp4", kv_dtype="fp8")  # fmt: skip
    c = launch_commands(dep)[0]
    assert "nvidia/DeepSeek-R1-NVFP4" in c.argv and "deepseek-ai/DeepSeek-R1" not in c.argv
    assert any(n.startswith("nvidia/DeepSeek-R1-NVFP4: the published nvfp4") for n in c.notes)
    # fp8 from Llama 3.1 8B's bf16 weights: vLLM and SGLang quantise at load time (the base
    # repository, --quantization fp8); TensorRT-LLM loads NVIDIA's FP8 release of its Instruct
    # fine-tune (the same shapes), which the note says
    dep = deployment("llama3.1-8b", "h100", engine_name, engine(engine_name).versions.newest,
                     weight_dtype="fp8")  # fmt: skip
    c = launch_commands(dep)[0]
    if engine_name == "trtllm":
        assert c.argv[1] == "nvidia/Llama-3.1-8B-Instruct-FP8"
        assert any("made from meta-llama/Llama-3.1-8B-Instruct" in n for n in c.notes)
    else:
        assert "meta-llama/Llama-3.1-8B" in c.argv and c.argv[c.argv.index("--quantization")
                                                              + 1] == "fp8"  # fmt: skip
    # no published checkpoint of Llama 3 8B in NVFP4: a local folder of that format, never the
    # bf16 repository the engine would run unquantised
    dep = deployment("llama3-8b", "b200", engine_name, engine(engine_name).versions.newest,
                     weight_dtype="nvfp4")  # fmt: skip
    c = launch_commands(dep)[0]
    assert "./Meta-Llama-3-8B-nvfp4" in c.argv and "meta-llama/Meta-Llama-3-8B" not in c.argv


@pytest.mark.parametrize(("engine_name", "release", "stated"), [
    ("vllm", "0.33.0", "bfloat16"), ("vllm", "0.11.0", "bfloat16"), ("vllm", "0.10.1", None),
    ("sglang", "0.5.23", "bfloat16"), ("sglang", "0.5.4", "bfloat16"), ("sglang", "0.5.3", None),
    ("trtllm", "1.2.1", None),
])  # fmt: skip
def test_a_prequantised_checkpoint_keeps_the_16_bit_kv_cache_sized(engine_name, release, stated):
    # NVIDIA's NVFP4 releases ask for an fp8 KV cache (hf_quant_config.json kv_cache_quant_algo
    # FP8: tests/data/hf_configs/qwen3-235b-a22b-nvfp4), which the engines' 'auto' follows; a
    # row sized with a bf16 cache states bfloat16 where the release's parser takes it (vLLM
    # 0.11+, SGLang 0.5.4+), else a note says so
    dep = deployment("llama3.3-70b", "b200", engine_name, release, tp=2, weight_dtype="nvfp4")
    assert dep.kv_dtype == "bf16"
    commands = launch_commands(dep, max_model_len=4096)
    check(commands, dep, dep.sharding.gpus)
    c = commands[0]
    if engine_name == "trtllm":
        assert "dtype" not in dict(c.files).get("extra-llm-api-config.yaml", "")
    else:
        value = c.argv[c.argv.index("--kv-cache-dtype") + 1]
        assert value == (stated or "auto")
    assert any("bf16 KV cache sized" in n for n in c.notes) == (stated is None)
    # a row that sized an fp8 cache states fp8, with no note
    dep = deployment("llama3.3-70b", "b200", engine_name, release, tp=2, weight_dtype="nvfp4",
                     kv_dtype="fp8")  # fmt: skip
    c = launch_commands(dep, max_model_len=4096)[0]
    assert not any("KV cache sized" in n for n in c.notes)


@pytest.mark.parametrize("engine_name", ["vllm", "sglang", "trtllm"])
def test_servers_that_may_share_a_host_are_told_to_split_it(engine_name):
    # three TP-2 replicas of Llama 3 70B on 8-GPU H100 hosts: 8 // 2 = 4 fit one host, and
    # each engine takes GPU 0 onwards and its default port unless told; said once, on the
    # first command; a TP-8 replica fills its host, and one server shares nothing
    release = engine(engine_name).versions.newest
    said = "servers sharing a host (4 of these fit one)"
    dep = deployment("llama3-70b", "h100", engine_name, release, tp=2)
    for plan in ({"replicas": 3}, {"prefill": 2, "decode": 1}):
        commands = launch_commands(dep, **plan)
        assert any(n.startswith(said) for n in commands[0].notes)
        assert sum(any(n.startswith(said) for n in c.notes) for c in commands) == 1
    assert not any(n.startswith("servers sharing") for c in launch_commands(dep)
                   for n in c.notes)  # fmt: skip
    dep = deployment("llama3-70b", "h100", engine_name, release, tp=8)
    assert not any(n.startswith("servers sharing") for c in launch_commands(dep, replicas=3)
                   for n in c.notes)  # fmt: skip


def test_sglang_0_4_commands_mean_the_deployment():
    # SGLang 0.4 splits experts only beside --enable-ep-moe (0.4.10's get_moe_impl_class picks
    # EPMoE by enable_ep_moe; 0.5.3's by ep_size): --ep-size 8 alone would run the TP MoE
    dep = deployment("deepseek-v3", "h200", "sglang", "0.4.10", tp=1, ep=8)
    argv = launch_commands(dep)[0].argv
    assert "--enable-ep-moe" in argv and argv[argv.index("--ep-size") + 1] == "8"
    assert "--enable-ep-moe" not in launch_commands(
        deployment("deepseek-v3", "h200", "sglang", "0.5.23", tp=1, ep=8))[0].argv
    # no --pp-size before 0.4.7, so no pipeline parallel: refused with the release that has it
    dep = deployment("llama3.1-405b", "h100", "sglang", "0.4.6", tp=8, pp=2)
    with pytest.raises(InvalidInputError, match=r"needs --pp-size \(SGLang 0.4.7 and later\)"):
        launch_commands(dep)
    argv = launch_commands(deployment("llama3-70b", "h100", "sglang", "0.4.6", tp=2))[0].argv
    assert "--pp-size" not in argv and "--page-size" in argv  # page size from 0.4.4
    # fp8 KV: 0.4.0 and 0.4.1 take only fp8_e5m2 (one byte a value, as sized)
    dep = deployment("llama3-70b", "h100", "sglang", "0.4.1", tp=2, kv_dtype="fp8")
    argv = launch_commands(dep)[0].argv
    assert argv[argv.index("--kv-cache-dtype") + 1] == "fp8_e5m2"
    parse(list(argv), table_for("sglang", "0.4.1"))
    # disaggregation: 0.4.5 has the mode but no transfer-backend option (Mooncake only)
    dep = deployment("llama3-70b", "h100", "sglang", "0.4.5", tp=2)
    commands = launch_commands(dep, prefill=1, decode=1)
    check(commands, dep, 2 * dep.sharding.gpus)
    assert "--disaggregation-transfer-backend" not in commands[0].argv
    with pytest.raises(InvalidInputError, match="needs --disaggregation-mode"):
        launch_commands(deployment("llama3-70b", "h100", "sglang", "0.4.4", tp=2), prefill=1,
                        decode=1)  # fmt: skip


def test_sglang_running_limit_is_the_servers_total_under_attention_dp():
    # kvcalc's --max-num-seqs is each attention-DP rank's limit (calc/serve simulates each rank
    # with it); SGLang from 0.4.2 gives each DP worker max_running_requests // dp_size
    # (srt/managers/tp_worker.py), 0.4.0-0.4.1 the whole value: 64 a rank × 8 ranks = 512
    for release, stated in (("0.5.23", 512), ("0.4.2", 512), ("0.4.1", 64)):
        dep = Deployment.build(
            load_model("deepseek-v3"), load_hardware("h200"), tp=1, ep=8,
            engine=EngineSettings(name="sglang", version=release, max_model_len=4096,
                                  max_num_seqs=64),
        )  # fmt: skip
        assert dep.sharding.dp_attn == 8
        argv = launch_commands(dep)[0].argv
        assert argv[argv.index("--max-running-requests") + 1] == str(stated), release


def test_trtllm_refuses_attention_tp_inside_dp_ranks():
    # TensorRT-LLM's attention and KV cache manager take tp_size 1 under enable_attention_dp:
    # tp 2 × attention DP 4 would start as attention DP 8, another deployment
    dep = deployment("deepseek-v3", "h200", "trtllm", "1.2.1", tp=2, ep=8)
    with pytest.raises(InvalidInputError, match="attention TP 1"):
        launch_commands(dep)
    dep = deployment("deepseek-v3", "h200", "trtllm", "1.2.1", tp=1, ep=8)
    assert "enable_attention_dp: true" in dict(launch_commands(dep)[0].files)[
        "extra-llm-api-config.yaml"]  # fmt: skip


@pytest.mark.parametrize("engine_name", ["vllm", "sglang", "trtllm"])
def test_replicas_spanning_hosts_each_have_their_own_head(engine_name):
    # two TP8 × PP2 copies of Llama 3.1 405B on 8-GPU hosts: each copy spans 16 / 8 = 2 hosts
    # of its own, with its own head node (one --master-addr / --dist-init-addr each)
    release = engine(engine_name).versions.newest
    dep = deployment("llama3.1-405b", "h100", engine_name, release, tp=8, pp=2)
    commands = launch_commands(dep, replicas=2)
    notes = [n for c in commands for n in c.notes if "independent replicas" in n]
    assert notes == ["run 2 such servers behind a load balancer (independent replicas) (each "
                     "on 2 hosts of its own, head-node its first)"]  # fmt: skip
    dep = deployment("llama3-70b", "h100", engine_name, release, tp=4)
    notes = [n for c in launch_commands(dep, replicas=3) for n in c.notes
             if "independent replicas" in n]  # fmt: skip
    assert notes == ["run 3 such servers behind a load balancer (independent replicas)"]


@pytest.mark.parametrize("engine_name", ["vllm", "sglang", "trtllm"])
def test_a_16_bit_kv_cache_beside_a_checkpoint_asking_fp8_is_stated(engine_name):
    # a ModelOpt NVFP4 snapshot whose hf_quant_config.json says kv_cache_quant_algo FP8 (the
    # model's own cache is fp8), sized with --kv-dtype bf16: 'auto' would run fp8, so the
    # command names bfloat16 (TensorRT-LLM: a note); sized as released, 'auto' is right
    model = load_model(str(Path(__file__).resolve().parent / "data" / "hf_configs"
                           / "qwen3-235b-a22b-nvfp4"))  # fmt: skip
    assert model.kv_dtype == "fp8"
    release = engine(engine_name).versions.newest
    for kv, stated in (("bf16", "bfloat16"), (None, "auto")):
        settings = EngineSettings(name=engine_name, version=release)
        dep = Deployment.build(model, load_hardware("b200"), tp=4, kv_dtype=kv, engine=settings)
        c = launch_commands(dep, max_model_len=4096)[0]
        parse(list(c.argv), table_for(engine_name, release))
        if engine_name == "trtllm":
            assert any("bf16 KV cache sized" in n for n in c.notes) == (kv == "bf16")
        else:
            assert c.argv[c.argv.index("--kv-cache-dtype") + 1] == stated


def test_plan_ranks_no_disaggregated_row_the_release_cannot_start(cli):
    # qa4: SGLang 0.4.3 has no --disaggregation-mode (0.4.5 and later), yet plan ranked a 2P1D
    # row first and printed no launch command for it (only a warning); now the family is
    # rejected with the release's reason and the winner can be started
    # (Mixtral: 0.4.3 loads it; Qwen3 it cannot, test_plan_screens_a_release_older_than_the_model)
    args = ("plan", "-m", "mixtral-8x7b", "-H", "mi300x", "--rate", "4", "--prompt", "3000",
            "--gen", "300", "--ttft-p99", "3s", "--tpot-p99", "80ms", "--engine", "sglang",
            "--method", "analytic", "-f", "json")  # fmt: skip
    r = cli(*args, "--engine-version", "0.4.3")
    assert r.code == 0, r.err
    out = r.json()
    assert out["rows"] and all(x["mode"] == "aggregated" for x in out["rows"])
    assert out["launch_commands"] and "no launch command" not in r.err
    refused = [x for x in out["rejected"] if x["mode"] == "disaggregated"]
    assert refused and all(x["reason"] == "engine release" for x in refused)
    assert "--disaggregation-mode (SGLang 0.4.5 and later)" in refused[0]["detail"]
    # a release that has the option still sizes the disaggregated families
    new = cli(*args, "--engine-version", "0.4.5").json()
    assert not [x for x in new["rejected"] if x["reason"] == "engine release"]


@pytest.mark.parametrize("engine_name", ["sglang", "trtllm"])
def test_admission_settings_are_stated_and_parse(engine_name):
    # a stated --scheduler-recv-interval (SGLang) or batch wait (TensorRT-LLM) is printed on
    # every release whose parser has it and parses there (SGLang's captured tables have the
    # flag from 0.5.2, TensorRT-LLM's YAML keys from 1.1.0); a release without it refuses the
    # deployment at build time, one line naming the first release that has it
    stated = ({"recv_interval": 30} if engine_name == "sglang" else
              {"batch_wait_iters": 20, "batch_wait_ratio": 0.9})  # fmt: skip
    printed = refused = 0
    for release in _releases(engine_name):
        try:
            dep = Deployment.build(
                load_model("llama3-8b"), load_hardware("h100"),
                engine=EngineSettings(name=engine_name, version=release, max_model_len=4096,
                                      **stated),
            )  # fmt: skip
        except InvalidInputError as exc:
            since = "0.5.2" if engine_name == "sglang" else "1.1.0"
            assert f"--engine-version {since} or later" in str(exc), str(exc)
            assert parse_version(release) < parse_version(since)
            refused += 1
            continue
        commands = launch_commands(dep, max_model_len=4096)
        check(commands, dep, dep.sharding.gpus)
        argv = list(commands[0].argv)
        if engine_name == "sglang":
            assert argv[argv.index("--scheduler-recv-interval") + 1] == "30"
            assert "scheduler_recv_interval" in parse(argv, table_for("sglang", release))
        else:
            conf = yaml.safe_load(dict(commands[0].files)["extra-llm-api-config.yaml"])
            assert conf["batch_wait_timeout_iters"] == 20
            assert conf["batch_wait_max_tokens_ratio"] == 0.9
        printed += 1
    # SGLang: the 0.4 releases (11 tables) refuse it; TensorRT-LLM: 1.0.0 alone
    assert refused == (11 if engine_name == "sglang" else 1) and printed > 0


def test_admission_settings_unstated_print_nothing():
    # unstated, the engines' defaults stand (1 and 0): no flag, no YAML key
    for name in ("sglang", "trtllm"):
        dep = deployment("llama3-8b", "h100", name, engine(name).versions.newest)
        c = launch_commands(dep, max_model_len=4096)[0]
        assert "--scheduler-recv-interval" not in c.argv
        assert all("batch_wait" not in text for _, text in c.files)
