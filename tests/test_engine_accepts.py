"""An engine setting the named release refuses is one error line and exit 2 (its KV page
size, its KV-cache dtype, vLLM's step budget below its sequences); one it takes but may not
run is a warning; and the wing's tables of what each release takes agree with the option
tables captured from each release (tests/data/engine_options/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import all_engines, engine
from calc.deploy.engines.accepts import kv_rule, page_rule
from calc.reports.launch_flags import launch_commands

TABLES = Path(__file__).resolve().parent / "data" / "engine_options"
BASE = ("memory", "-m", "llama3-8b", "-H", "h100", "--ctx", "4096", "-f", "json")


def _refused(cli, *args) -> str:
    r = cli(*BASE, *args)
    assert r.code == 2, r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    return lines[0]


def _warned(cli, *args) -> str:
    r = cli(*BASE, *args)
    assert r.code == 0, r.err
    return r.err


def test_vllm_block_sizes(cli):
    # 0.18.0+: the parser takes any int > 0; the attention kernels page in multiples of 16
    assert _refused(cli, "--block-size", "7") == (
        "kvcalc: error: --block-size 7: vLLM 0.33.0 starts only with a --block-size that is a "
        "multiple of 16 (its CUDA attention kernels (FlashAttention, FlashInfer, Triton) page "
        "in multiples of 16 tokens)"
    )
    assert _warned(cli, "--block-size", "48").strip() == ""  # 48 = 3 × 16: taken, no word
    # 0.11.0's parser: choices 1, 8, 16, 32, 64, 128 (256 came at 0.11.1)
    err = _refused(cli, "--block-size", "256", "--engine-version", "0.11.0")
    assert err.endswith("vLLM 0.11.0's --block-size takes only 1, 8, 16, 32, 64, 128")
    assert _warned(cli, "--block-size", "256", "--engine-version", "0.11.1").strip() == ""
    # 8 is among 0.17.0's choices, but not a multiple of 16: a warning
    err = _warned(cli, "--block-size", "8", "--engine-version", "0.17.0")
    assert "kvcalc: warning: --block-size 8: vLLM 0.17.0's parser takes it" in err


def test_vllm_kv_dtypes(cli):
    assert _refused(cli, "--kv-dtype", "fp4") == (
        "kvcalc: error: --kv-dtype fp4: vLLM 0.33.0 has no --kv-cache-dtype value for it (the "
        "KV dtypes it takes: bf16, fp16, fp8, fp8-token-head, int4-token-head, int8-token-head)"
    )
    assert _refused(cli, "--kv-dtype", "int8").startswith("kvcalc: error: --kv-dtype int8:")
    err = _refused(cli, "--kv-dtype", "fp8-token-head", "--engine-version", "0.19.0")
    assert err.endswith("(the KV dtypes it takes: bf16, fp16, fp8); vLLM 0.20.0 and later have it")
    # taken from 0.20.0, and the command names it as vLLM does (not plain fp8)
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    dep = Deployment.build(cfg, hw, kv_dtype="fp8-token-head",
                           engine=EngineSettings(version="0.20.0"))  # fmt: skip
    argv = launch_commands(dep)[0].argv
    assert argv[argv.index("--kv-cache-dtype") + 1] == "fp8_per_token_head"


def test_vllm_step_budget_below_its_sequences(cli):
    # SchedulerConfig: max_num_batched_tokens >= max_num_seqs (0.33.0 on an H100: 1,024)
    err = _refused(cli, "--max-batched-tokens", "128")
    assert err.startswith("kvcalc: error: vLLM 0.33.0 refuses --max-batched-tokens 128 below "
                          "--max-num-seqs 1,024")  # fmt: skip
    assert _warned(cli, "--max-batched-tokens", "128", "--max-num-seqs", "128").strip() == ""
    # chunked prefill off with a budget below the max model length (llama3-8b: 8,192): warned
    err = _warned(cli, "--max-batched-tokens", "2048", "--no-chunked-prefill")
    assert "vLLM 0.33.0 refuses to start with --max-batched-tokens 2,048 below its max model " \
           "length 8,192" in err  # fmt: skip


def test_sglang_pages_and_kv_dtypes(cli):
    err = _refused(cli, "--engine", "sglang", "--engine-version", "0.4.3", "--block-size", "16")
    assert err == ("kvcalc: error: --block-size 16: SGLang 0.4.3 has no --page-size (its pages "
                   "hold 1 token); use --engine-version 0.4.4 or later")  # fmt: skip
    assert _warned(cli, "--engine", "sglang", "--block-size", "7").strip() == ""  # any int > 0
    # fp4_e2m1 at 0.5.5-0.5.20, with a 1-byte scale per 16 values: 0.5 / (0.5 + 1/16) = 0.889,
    # about 11% fewer tokens than kvcalc's plain fp4 sizes
    err = _warned(cli, "--engine", "sglang", "--engine-version", "0.5.10", "--kv-dtype", "fp4")
    assert "--kv-dtype fp4 (--kv-cache-dtype fp4_e2m1): SGLang's fp4_e2m1 cache keeps" in err
    err = _refused(cli, "--engine", "sglang", "--engine-version", "0.5.23", "--kv-dtype", "fp4")
    assert "SGLang 0.5.23 has no --kv-cache-dtype value for it" in err
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    dep = Deployment.build(cfg, hw, kv_dtype="fp4",
                           engine=EngineSettings(name="sglang", version="0.5.10"))  # fmt: skip
    argv = launch_commands(dep)[0].argv
    assert argv[argv.index("--kv-cache-dtype") + 1] == "fp4_e2m1"


def test_trtllm_tokens_per_block(cli):
    err = _refused(cli, "--engine", "trtllm", "--block-size", "48")
    assert err.startswith("kvcalc: error: --block-size 48: TensorRT-LLM 1.2.1's "
                          "kv_cache_config.tokens_per_block must be a power of two")  # fmt: skip
    err = _refused(cli, "--engine", "trtllm", "--engine-version", "1.0.0", "--block-size", "64")
    assert err.endswith("use --engine-version 1.1.0 or later")
    assert _refused(cli, "--engine", "trtllm", "--kv-dtype", "int8").startswith(
        "kvcalc: error: --kv-dtype int8: TensorRT-LLM 1.2.1 has no kv_cache_config.dtype value")
    # a stated block reaches the YAML the command reads
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    dep = Deployment.build(cfg, hw, engine=EngineSettings(name="trtllm", block_size=64))
    files = dict(launch_commands(dep)[0].files)
    assert "  tokens_per_block: 64" in "".join(files.values())


def _table(name: str, release: str) -> dict | None:
    p = TABLES / f"{name}-{release}.json"
    return json.loads(p.read_text()) if p.exists() else None


@pytest.mark.parametrize("e", all_engines(), ids=lambda e: e.name)
def test_the_wing_agrees_with_the_captured_tables(e):
    """Every captured release: the parser's page choices are the wing's; a page option absent
    from the parser is a release whose pages hold a fixed count; every KV value the wing names
    is among the parser's choices."""
    checked = 0
    for release in e.versions.releases:
        table = _table(e.name, release)
        if table is None:
            continue
        page, kv = page_rule(e, release), kv_rule(e, release)
        if e.name == "trtllm":
            cache = table["yaml_options"]["--extra_llm_api_options"]["kv_cache_config"]
            assert ("tokens_per_block" in cache) == (page.only is None), release
            kv_choices = cache["dtype"]
        else:
            opt = table["options"].get(page.flag)
            assert (opt is None) == (page.only is not None), release
            if opt is not None:
                choices = opt[1] and tuple(sorted(int(c) for c in opt[1]))
                assert choices == (page.choices and tuple(sorted(page.choices))), release
            kv_choices = table["options"][kv.flag][1]
        if kv_choices is not None:  # vLLM 0.33.0's parser lists none
            assert set(kv.names.values()) <= set(kv_choices), release
        checked += 1
    assert checked >= 4


def test_every_engine_declares_its_rules():
    for name in ("vllm", "sglang", "trtllm"):
        e = engine(name)
        assert all(page_rule(e, r) and kv_rule(e, r) for r in e.versions.releases), name
