"""Issue 21, TensorRT-LLM with chunked prefill off (trtllm-serve's default): its PyTorch
backend refuses a prompt over max_num_tokens (tensorrt_llm/llmapi/llm.py _check_arguments, read
at NVIDIA/TensorRT-LLM 4c05a74), so the command kvcalc prints, the deployment it models (KV
pool, step budget) and the simulation must all hold the longest prompt the server accepts:
max_num_tokens follows the stated max model length unless the user states it, and a stated
budget below it is warned about, never silently printed."""

from __future__ import annotations

import pytest
import yaml

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.reports.launch_flags import launch_commands
from calc.serve.simulate import deployment_limits
from tests.test_engine_commands import parse, table_for

RELEASES = ("1.0.0", "1.1.0", "1.2.0", "1.2.1")


def _dep(**settings) -> Deployment:
    return Deployment.build(load_model("llama3.1-8b"), load_hardware("h100"),
                            engine=EngineSettings(name="trtllm", **settings))  # fmt: skip


def _flag(argv, name: str) -> int:
    return int(argv[argv.index(name) + 1])


@pytest.mark.parametrize("release", RELEASES)
def test_a_long_context_command_accepts_its_longest_prompt(release):
    # --max-model-len 32,768 > the default max_num_tokens 8,192: max_num_tokens = 32,768, so a
    # prompt of up to 32,767 tokens (one output token) is not refused by the server
    dep = _dep(version=release, max_model_len=32768)
    ec = dep.engine_config
    assert ec.max_batched_tokens == 32768 and not ec.chunked_prefill
    (c,) = launch_commands(dep)
    argv = list(c.argv)
    parse(argv, table_for("trtllm", release))  # still valid against the release's table
    assert _flag(argv, "--max_seq_len") == 32768 and _flag(argv, "--max_num_tokens") == 32768
    assert any("not the default 8,192" in n for n in c.notes)
    assert any("max_num_tokens sized to 32,768" in w for w in ec.warnings)
    # the simulation schedules with the same budget: a 30,000-token prompt is served, not
    # refused (30,000 + 100 <= 32,768 and 30,000 <= 32,768)
    import numpy as np

    lim = deployment_limits(dep, 30100)
    assert lim.max_batched_tokens == 32768 and not lim.chunked_prefill
    refused = lim.refused(np.array([30000]), np.array([100]), np.array([0]), lim.pool_blocks)
    assert not refused.any()


def test_the_pool_is_that_of_the_larger_profiling_pass():
    # max_num_tokens sizes TensorRT-LLM's profiling pass: the activation is linear in its
    # tokens, 8,192 → 32,768 is 4×; llama3.1-8b bf16 KV: 32 layers × 8 heads × 128 × 2 (K, V)
    # × 2 B = 131,072 B a token, 32-token blocks, fraction 0.9
    # (one dummy request in both passes: ceil(8,192 / 8,192) = ceil(32,768 / 32,768) = 1)
    short, long = _dep(), _dep(max_model_len=32768)
    p8, p32 = short.engine_model.kv_pool(short), long.engine_model.kv_pool(long)
    a8, a32 = p8.activation_bytes, p32.activation_bytes
    assert a8 == 8192 * 102_400  # 838,860,800 B: 102,400 B a token at 8,192 tokens
    assert a32 == 4 * a8  # 3,355,443,200 B
    # (3,355,443,200 − 838,860,800) × 0.9 / (131,072 × 32) = 2,264,924,160 / 4,194,304
    # = 540 blocks = 17,280 tokens fewer
    assert p8.tokens - p32.tokens == 17_280
    # the same server stated by hand (--max-batched-tokens 32768) is the same pool
    stated = _dep(max_model_len=32768, max_batched_tokens=32768)
    assert stated.engine_model.kv_pool(stated).tokens == p32.tokens


def test_a_stated_budget_below_the_longest_prompt_is_kept_and_warned(cli):
    dep = _dep(max_model_len=32768, max_batched_tokens=4096)
    ec = dep.engine_config
    assert ec.max_batched_tokens == 4096  # the user's value stands
    assert any("max_num_tokens 4,096 (--max-batched-tokens) is below max_seq_len 32,768" in w
               for w in ec.warnings)  # fmt: skip
    (c,) = launch_commands(dep)
    assert _flag(list(c.argv), "--max_num_tokens") == 4096
    assert any("refuses a prompt over max_num_tokens 4,096" in n for n in c.notes)
    # the command line says it too: one warning line, exit 0
    r = cli("capacity", "-m", "llama3.1-8b", "-H", "h100", "--engine", "trtllm", "--ctx",
            "20000", "--max-model-len", "32768", "--max-batched-tokens", "4096")  # fmt: skip
    assert r.code == 0 and "refuses a prompt over max_num_tokens 4,096" in r.err
    assert "Traceback" not in r.err


def test_the_default_server_notes_the_prompts_it_refuses():
    # no max model length stated: trtllm-serve's own defaults (max_seq_len = the model's
    # 131,072, max_num_tokens 8,192), which refuse prompts between them: said in a note
    dep = _dep()
    assert dep.engine_config.max_batched_tokens == 8192 and not dep.engine_config.warnings
    (c,) = launch_commands(dep)
    argv = list(c.argv)
    assert _flag(argv, "--max_seq_len") == 131072 and _flag(argv, "--max_num_tokens") == 8192
    assert any("refuses a prompt over max_num_tokens 8,192" in n for n in c.notes)


SHORT = ({"max_model_len": 4096}, {"max_model_len": 8192},
         {"max_model_len": 32768, "chunked_prefill": True})


@pytest.mark.parametrize("settings", SHORT)
def test_short_requests_and_chunked_prefill_keep_the_default(settings):
    # 4,096 and 8,192 fit the default 8,192; chunked prefill splits a longer prompt over steps
    dep = _dep(**settings)
    ec = dep.engine_config
    assert ec.max_batched_tokens == 8192 and not ec.warnings
    (c,) = launch_commands(dep)
    assert _flag(list(c.argv), "--max_num_tokens") == 8192
    assert not any("max_num_tokens" in n for n in c.notes)
    stated = yaml.safe_load(dict(c.files).get("extra-llm-api-config.yaml", "")) or {}
    assert stated.get("enable_chunked_prefill", False) == bool(settings.get("chunked_prefill"))


def _plan(cli, prompt: str, gen: str) -> dict:
    r = cli("plan", "-m", "llama3.1-8b", "-H", "h100", "--rate", "1", "--prompt", prompt,
            "--gen", gen, "--ttft-p99", "10s", "--tpot-p99", "100ms", "--engine", "trtllm",
            "--top", "1", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    return r.json()


def test_plan_sizes_the_winner_for_its_longest_prompt(cli):
    # prompt 16,000 + gen 500: the longest request 16,500 is --max_seq_len and --max_num_tokens
    # (before: --max_num_tokens 8,192, refusing every prompt); the simulation served it
    out = _plan(cli, "16000", "500")
    server = [c for c in out["launch_commands"] if "context" in c["role"] or
              c["role"] == "server"]  # fmt: skip
    assert server
    for c in server:
        argv = c["argv"]
        assert _flag(argv, "--max_seq_len") == 16500 and _flag(argv, "--max_num_tokens") == 16500
        assert any("not the default 8,192" in n for n in c["notes"])
    row = out["rows"][0]
    assert row["ttft_p99_s"] < 10  # served within the target, not refused


def test_plan_for_short_prompts_keeps_the_default(cli):
    # prompt 1,024 + gen 128 = 1,152 <= 8,192: the default budget, no note about it
    out = _plan(cli, "1024", "128")
    for c in out["launch_commands"]:
        if c["argv"][:1] == ["trtllm-serve"] and "--max_num_tokens" in c["argv"]:
            assert _flag(c["argv"], "--max_num_tokens") == 8192
            assert _flag(c["argv"], "--max_seq_len") == 1152
            assert not any("max_num_tokens" in n for n in c["notes"])


def test_a_log_s_server_keeps_the_default_budget_it_ran():
    # a TensorRT-LLM log that states max_seq_len 32,768 but not max_num_tokens: its server ran
    # the default 8,192 (not kvcalc's sizing), and refused the prompts between: both said
    from calc.deploy.engines.base import LogFacts
    from calc.deploy.engines.fromlog import deployment_from_log

    facts = LogFacts(engine="trtllm", version="1.2.1",
                     settings={"model": "meta-llama/Llama-3.1-8B-Instruct",
                               "max_model_len": 32768})  # fmt: skip
    found = deployment_from_log(facts, hardware="h100")
    assert found.deployment.engine_config.max_batched_tokens == 8192
    assert any("max_num_tokens 8,192 (--max-batched-tokens)" in w for w in found.warnings)
    assert any("max_num_tokens 8,192 (--max-batched-tokens)," in w and "1.2.1's defaults" in w
               for w in found.warnings)  # fmt: skip
