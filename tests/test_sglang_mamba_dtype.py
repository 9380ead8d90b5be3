"""SGLang's ``--mamba-ssm-dtype`` and ``--max-mamba-cache-size`` (EngineSettings mamba_ssm_dtype,
max_mamba_cache_size): the bytes of a state slot, the slots and the running cap by release
(calc/deploy/engines/sglang/hybrid.py), their validation, launch flags and log reading."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.sglang import hybrid as h
from calc.deploy.engines.sglang.rules import VERSIONS
from calc.errors import InvalidInputError


def _dep(model="qwen3.5-397b-a17b", version="0.5.16", tp=8, ep=8, hw="h200", **engine):
    settings = EngineSettings(name="sglang", version=version, mem_util=0.8, **engine)
    return Deployment.build(load_model(model), load_hardware(hw), tp=tp, ep=ep,
                            weight_dtype="fp8-block128", engine=settings)  # fmt: skip


def test_bf16_state_per_request_at_tp8():
    # 45 DeltaNet layers at TP 8: conv 4,608 elements × 2 B = 9,216; recurrent 131,072 × 2 B
    # (bfloat16) = 262,144; 271,360 × 45 = 12,211,200 B (fp32: 24,007,680, test_sglang_hybrid)
    assert h.model_state_bytes(load_model("qwen3.5-397b-a17b"), 8, 1, 2) == 12_211_200


@pytest.mark.parametrize(("version", "config", "stated", "expected"), [
    ("0.5.8", "bf16", None, 4),  # 0.5.3-0.5.8: the option's default float32, config ignored
    ("0.5.9", "bf16", None, 2),  # from 0.5.9: the config's mamba_ssm_dtype
    ("0.5.16", None, None, 4),  # no config dtype: float32
    ("0.5.16", "fp32", "bf16", 2),  # the flag over the config
    ("0.5.8", None, "fp16", 2),
])  # fmt: skip
def test_recurrent_dtype_by_release(version, config, stated, expected):
    assert h.recurrent_state_bytes(VERSIONS.rules(version), config, stated) == expected


@pytest.mark.parametrize(("version", "radix", "slots", "paid", "cap"), [
    ("0.5.3", False, 40, 4_000, 40),  # the flag in place of 512; radix cache off: // 1
    ("0.5.5", True, 90, 9_000, 30),  # radix cache on: the split (9,000 // 100) overwrites it
    ("0.5.5", False, 40, 4_000, 40),  # radix cache off: the flag
    ("0.5.8", True, 40, 4_000, 13),  # from 0.5.7 the flag first: 40 // 3
    ("0.5.16", True, 40, 4_000, 8),  # extra_buffer: 40 // (3 + 2)
    ("0.5.23", True, 40, 4_100, 8),  # the padding slot paid: (40 + 1) × 100
])  # fmt: skip
def test_stated_slots_by_release(version, radix, slots, paid, cap):
    # budget 19,000 B at 100 B a slot; --max-mamba-cache-size 40 on one attention-DP rank
    pool = h.state_pool(VERSIONS.rules(version), 19_000, 100, radix_cache=radix,
                        max_running=None, max_cache=40)  # fmt: skip
    assert (pool.slots, pool.pool_bytes, pool.running_cap) == (slots, paid, cap)
    assert pool.kv_budget_bytes == 19_000 - paid


def test_bf16_state_nearly_doubles_the_slots_of_the_h200_cell():
    # the cookbook's H200 397B FP8 cell (--mamba-ssm-dtype bfloat16): a slot of 12,211,200 B
    # in place of 24,007,680; the same budget's share, 0.9 / 1.9 of it, in whole slots
    fp32 = _dep().engine_model.kv_pool(_dep())
    d = _dep(mamba_ssm_dtype="bfloat16")
    bf16 = d.engine_model.kv_pool(d)
    share = fp32.kv_budget_bytes + fp32.state_slots * 24_007_680  # the rest before the state
    assert d.engine.mamba_ssm_dtype == "bf16"
    assert bf16.state_slots == int(share * 0.9 / 1.9 // 12_211_200)
    assert fp32.state_slots == int(share * 0.9 / 1.9 // 24_007_680)
    # 1,346 -> 2,646 slots (24,007,680 / 12,211,200 = 1.97: the conv window stays bf16); the
    # rest holds the 64-wide FP32 RoPE table, 262,144 × 64 × 4 B = 64 MiB (1,342 and 2,638
    # with the whole head's 256 MiB: 201,326,592 B × 0.9 / 1.9 is 3.97 fp32 slots, 7.81 bf16)
    assert (fp32.state_slots, bf16.state_slots) == (1_346, 2_646)
    assert bf16.max_running_requests == bf16.state_slots // 5  # 0.5.16: 3 + 2 a request


def test_max_mamba_cache_size_is_the_servers_total():
    # --max-mamba-cache-size 800 at TP 8 / EP 8 (one attention-DP rank): 800 slots, 800 // 5
    d = _dep(max_mamba_cache_size=800)
    pool = d.engine_model.kv_pool(d)
    assert (pool.state_slots, pool.max_running_requests) == (800, 160)
    assert "as --max-mamba-cache-size states" in pool.warnings[0]


@pytest.mark.parametrize(("engine", "error"), [
    (dict(mamba_ssm_dtype="int8"),
     "--mamba-ssm-dtype 'int8' is not one of: float32, bfloat16, float16"),
    (dict(max_mamba_cache_size=0), "max-mamba-cache-size"),
    (dict(name="vllm", mamba_ssm_dtype="bf16"),
     "--mamba-ssm-dtype is not a setting of vLLM (SGLang's hybrid state pool): drop it"),
])  # fmt: skip
def test_bad_settings_are_refused(engine, error):
    with pytest.raises(InvalidInputError, match=error.replace("(", r"\(").replace(")", r"\)")):
        EngineSettings(**{"name": "sglang", **engine})


@pytest.mark.parametrize(("version", "engine", "error"), [
    ("0.4.10", dict(mamba_ssm_dtype="bf16"),
     "SGLang 0.4.10 has no --mamba-ssm-dtype (SGLang 0.5.2 and later)"),
    ("0.4.10", dict(max_mamba_cache_size=64),
     "SGLang 0.4.10 has no --max-mamba-cache-size (SGLang 0.5.2 and later)"),
    ("0.5.8", dict(mamba_ssm_dtype="float16"),
     "SGLang 0.5.8's --mamba-ssm-dtype takes float32 or bfloat16 (float16 from SGLang 0.5.9)"),
])  # fmt: skip
def test_releases_without_them_refuse(version, engine, error):
    with pytest.raises(InvalidInputError) as exc:
        _dep(version=version, **engine)
    assert str(exc.value).startswith(error)


def test_launch_command_states_them_and_parses():
    from calc.reports.launch_flags import launch_commands
    from tests.test_engine_commands import parse, table_for

    for release in ("0.5.9", "0.5.16", "0.5.23"):  # Qwen3.5 loads from 0.5.9
        d = _dep(version=release, mamba_ssm_dtype="bf16", max_mamba_cache_size=800)
        argv = list(launch_commands(d, max_model_len=4096)[0].argv)
        assert argv[argv.index("--mamba-ssm-dtype") + 1] == "bfloat16"
        assert argv[argv.index("--max-mamba-cache-size") + 1] == "800"
        parsed = parse(argv, table_for("sglang", release))
        assert {"mamba_ssm_dtype", "max_mamba_cache_size"} <= set(parsed)
    plain = launch_commands(_dep(), max_model_len=4096)[0].argv
    assert "--mamba-ssm-dtype" not in plain and "--max-mamba-cache-size" not in plain


def test_log_states_them():
    from calc.deploy.engines.fromlog import deployment_from_log

    # the command as typed (the flag), then SGLang's ServerArgs dump (the dtype; an unstated
    # size prints None)
    log = ("python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8 "
           "--max-mamba-cache-size 640\n"
           "SGLang version: 0.5.16\n[2026-05-01 01:00:00] server_args=ServerArgs("
           "model_path='Qwen/Qwen3.5-397B-A17B-FP8', tp_size=8, ep_size=8, "
           "mem_fraction_static=0.8, max_mamba_cache_size=None, mamba_ssm_dtype='bfloat16', "
           "enable_mixed_chunk=False)\n"
           "[TP0] KV Cache is allocated. #tokens: 400000, K size: 1.47 GB, V size: 1.47 GB\n")
    dep = deployment_from_log(log, model="qwen3.5-397b-a17b", hardware="h200").deployment
    assert (dep.engine.mamba_ssm_dtype, dep.engine.max_mamba_cache_size) == ("bf16", 640)
    # on a model without recurrent layers the settings size nothing: not carried
    plain = log.replace("Qwen/Qwen3.5-397B-A17B-FP8", "Qwen/Qwen3-8B").replace(", ep_size=8", "")
    d8 = deployment_from_log(plain, model="qwen3-8b", hardware="h200").deployment
    assert (d8.engine.mamba_ssm_dtype, d8.engine.max_mamba_cache_size) == (None, None)


def test_cli_takes_them_and_refuses_in_one_line(cli):
    base = ("capacity", "-m", "qwen3.5-27b", "-H", "h200", "--ctx", "8192",
            "--engine", "sglang", "--engine-version", "0.5.16")  # fmt: skip
    assert cli(*base, "--mamba-ssm-dtype", "bfloat16", "--max-mamba-cache-size", "64").code == 0
    r = cli(*base, "--mamba-ssm-dtype", "fp64")
    assert r.code == 2 and "Traceback" not in r.err
    assert r.err.strip().splitlines() == [
        "kvcalc: error: --mamba-ssm-dtype 'fp64' is not one of: float32, bfloat16, float16"
    ]


def test_check_spec_keys(tmp_path):
    # the check spec takes the same names as the CLI; a bad value is the CLI's one line
    from calc.errors import ConfigError
    from calc.reports.check_spec import load_spec, run_checks
    from tests.test_check_admission import _spec

    extra = "    mamba_ssm_dtype: bfloat16\n    max_mamba_cache_size: 64\n"
    spec = load_spec(_spec(tmp_path, "sglang", "0.5.23", extra))
    d = spec.deployments[0]
    assert (d.mamba_ssm_dtype, d.max_mamba_cache_size) == ("bfloat16", 64)
    bad = _spec(tmp_path, "sglang", "0.5.23", "    mamba_ssm_dtype: fp64\n")
    with pytest.raises(ConfigError, match=r"\(held\): --mamba-ssm-dtype 'fp64' is not one of: "
                                          "float32, bfloat16, float16"):  # fmt: skip
        run_checks(load_spec(bad), path=bad)
