"""SGLang's ``--max-prefill-tokens`` (EngineSettings.max_prefill_tokens): one prefill batch's new
prompt tokens (``PrefillAdder.rem_input_tokens``) in the serving simulation by release
(calc/serve/policies.py PrefillFirst, the engine wing's ``prefill_input_limit``), its
validation, launch flag, log reading, CLI option and check-spec key."""

from __future__ import annotations

from dataclasses import replace

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.errors import InvalidInputError
from calc.serve.scheduler import Limits, PrefillInputLimit, run_group
from tests.test_serve_simulate import AffineStepTime

STEP = AffineStepTime(fixed_s=0.01, per_token_s=0.001, per_ctx_s=0.0)
# random_scenario seeds whose schedule the bound moves: with chunked prefill, 0.5.13+'s test
# (26), "ge" (46), "gt" (198); without it (230, 250, 2070 in the same order)
SEEDS = (26, 46, 198, 230, 250, 2070)


def _admitted(prompt: int, n: int, cap: PrefillInputLimit | None, chunk: int = 64,
              chunked: bool = True) -> list[float]:  # fmt: skip
    """When each of ``n`` requests of ``prompt`` tokens (2 outputs), all sent at 0 s, is admitted
    by SGLang's rules on a pool that holds them all (1-token pages)."""
    lim = Limits(pool_blocks=10_000, block_size=1, max_batched_tokens=chunk, max_num_seqs=100,
                 prefill_first=True, chunked_prefill=chunked, prefill_input=cap)  # fmt: skip
    out = run_group([0.0] * n, [prompt] * n, [2] * n, [0] * n, lim, STEP)
    return out.admitted


def _batches(times: list[float]) -> list[int]:
    """Requests per admission time, in order: each prefill batch's size."""
    sizes: dict[float, int] = {}
    for t in times:
        sizes[round(t, 9)] = sizes.get(round(t, 9), 0) + 1
    return list(sizes.values())


@pytest.mark.parametrize(("check", "sizes"), [
    # 8-token prompts, 16 tokens a batch, 64-token chunks: 0.5.13+ adds 8 (16 - 8 = 8 left),
    # 8 more (0 left: the batch ends); 0.4.8-0.5.12 refuse the second (8 >= 8 left);
    # 0.4.0-0.4.7 take it (8 > 8 is false) and end at 0
    ("unchunked", [2, 2]),
    ("ge", [1, 1, 1, 1]),
    ("gt", [2, 2]),
])  # fmt: skip
def test_batch_sizes_by_release(check, sizes):
    assert _batches(_admitted(8, 4, PrefillInputLimit(16, check))) == sizes


def test_without_the_bound_the_chunk_alone_limits_the_batch():
    # 4 × 8 = 32 tokens within the 64-token chunk: one batch
    assert _batches(_admitted(8, 4, None)) == [4]


@pytest.mark.parametrize(("check", "sizes"), [
    # 10-token prompts, 16 a batch: 0.5.13+ checks only after a request, so the second
    # overruns it (10 + 10 = 20 > 16); the earlier releases refuse it first (10 >= 6 left)
    ("unchunked", [2, 2]),
    ("ge", [1, 1, 1, 1]),
    ("gt", [1, 1, 1, 1]),
])  # fmt: skip
def test_the_last_request_overruns_only_from_0_5_13(check, sizes):
    assert _batches(_admitted(10, 4, PrefillInputLimit(16, check))) == sizes


def test_without_chunked_prefill_0_5_13_tests_first_too():
    # chunked prefill off (rem_chunk_tokens None): 0.5.13+'s test before the request applies,
    # 10 >= 6 left, one prompt a batch
    cap = PrefillInputLimit(16, "unchunked")
    assert _batches(_admitted(10, 4, cap, chunked=False)) == [1, 1, 1, 1]


def test_without_chunked_prefill_prompts_go_whole_past_the_step_budget():
    # --chunked-prefill-size -1 with an 8-token --max-batched-tokens: 10-token prompts are
    # neither refused nor split; 16 a batch, "ge": 10 (6 left), the next refused (10 >= 6);
    # 6-token prompts: 6 (10 left), 6 (4 left), the third refused (6 >= 4)
    cap = PrefillInputLimit(16, "ge")
    assert _batches(_admitted(10, 4, cap, chunk=8, chunked=False)) == [1, 1, 1, 1]
    assert _batches(_admitted(6, 4, cap, chunk=8, chunked=False)) == [2, 2]


def test_a_first_request_over_the_bound_is_taken_whole():
    # a 40-token prompt against 16 tokens a batch, 64-token chunks: taken alone, unchunked
    # (one batch each), under every release's test
    for check in ("unchunked", "ge", "gt"):
        assert _batches(_admitted(40, 2, PrefillInputLimit(16, check))) == [1, 1]


def test_pages_count_whole_from_0_4_8():
    # 4-token pages, 6-token prompts: each takes 8 tokens (two pages) off 16: under "ge" the
    # second is refused (8 >= 8 left); "gt" counts tokens (6 > 10 is false: taken, 4 left,
    # and the third: 6 > 4, refused)
    def batches(check):
        lim = Limits(pool_blocks=1_000, block_size=4, max_batched_tokens=64, max_num_seqs=100,
                     prefill_first=True, prefill_input=PrefillInputLimit(16, check))  # fmt: skip
        return _batches(run_group([0.0] * 4, [6] * 4, [2] * 4, [0] * 4, lim, STEP).admitted)

    assert batches("ge") == [1, 1, 1, 1]
    assert batches("gt") == [2, 2]


@pytest.mark.parametrize("seed", SEEDS)  # the bound moves these schedules
def test_fast_loop_matches_the_reference_where_the_bound_binds(seed):
    # random_scenario's SGLang seeds carry a bound (each release's test; chunked prefill off on
    # those divisible by 5); the aggregate loop and the one-by-one reference give the same
    # schedule, not the unbounded one
    from tests.serve_reference import assert_same_schedule, random_scenario
    from tests.serve_reference import simulate_group_reference as reference

    arrival, prompt, gen, shared, lim, _ = random_scenario(seed)
    assert lim.prefill_input is not None
    a = run_group(arrival, prompt, gen, shared, lim, STEP)
    assert_same_schedule(a, reference(arrival, prompt, gen, shared, lim, STEP))
    free = run_group(arrival, prompt, gen, shared, replace(lim, prefill_input=None), STEP)
    assert free.admitted != a.admitted


def _dep(version="0.5.16", engine="sglang", **settings):
    es = EngineSettings(name=engine, version=version, **settings)
    return Deployment.build(load_model("llama3-8b"), load_hardware("h100"), engine=es)


@pytest.mark.parametrize(("version", "stated", "expected"), [
    ("0.4.0", None, PrefillInputLimit(16384, "gt")),
    ("0.4.8", None, PrefillInputLimit(16384, "ge")),
    ("0.5.12", None, PrefillInputLimit(16384, "ge")),
    ("0.5.13", None, PrefillInputLimit(16384, "unchunked")),
    ("0.5.23", 131072, PrefillInputLimit(131072, "unchunked")),
])  # fmt: skip
def test_the_simulation_takes_the_release_default_or_the_stated_bound(version, stated, expected):
    from calc.serve.simulate import deployment_limits

    d = _dep(version, max_prefill_tokens=stated)
    assert deployment_limits(d, 1000).prefill_input == expected


def test_other_engines_have_none():
    from calc.serve.simulate import deployment_limits

    assert deployment_limits(_dep("0.11.0", "vllm"), 1000).prefill_input is None
    with pytest.raises(InvalidInputError) as exc:
        EngineSettings(name="vllm", max_prefill_tokens=4096)
    assert str(exc.value).startswith("--max-prefill-tokens is not a setting of vLLM")
    with pytest.raises(InvalidInputError, match="max-prefill-tokens must be an integer"):
        EngineSettings(name="sglang", max_prefill_tokens=0)


def test_launch_command_states_it_and_parses():
    from calc.reports.launch_flags import launch_commands
    from tests.test_engine_commands import parse, table_for

    for release in ("0.4.0", "0.5.16", "0.5.23"):
        argv = list(launch_commands(_dep(release, max_prefill_tokens=131072),
                                    max_model_len=4096)[0].argv)  # fmt: skip
        assert argv[argv.index("--max-prefill-tokens") + 1] == "131072"
        assert "max_prefill_tokens" in parse(argv, table_for("sglang", release))
    assert "--max-prefill-tokens" not in launch_commands(_dep(), max_model_len=4096)[0].argv


def test_log_states_it():
    from calc.deploy.engines.fromlog import deployment_from_log

    log = ("SGLang version: 0.5.16\n[2026-05-01 01:00:00] server_args=ServerArgs("
           "model_path='meta-llama/Meta-Llama-3-8B', tp_size=1, mem_fraction_static=0.8, "
           "chunked_prefill_size=8192, max_prefill_tokens=131072, enable_mixed_chunk=False)\n"
           "[TP0] KV Cache is allocated. #tokens: 400000, K size: 24.41 GB, V size: 24.41 GB\n")
    dep = deployment_from_log(log, model="llama3-8b", hardware="h100").deployment
    assert dep.engine.max_prefill_tokens == 131072
    flag = "python3 -m sglang.launch_server --model-path x --max-prefill-tokens 32768\n" + log
    flag = flag.replace(", max_prefill_tokens=131072", "")
    assert deployment_from_log(flag, model="llama3-8b",
                               hardware="h100").deployment.engine.max_prefill_tokens == 32768


def test_cli_takes_it_and_refuses_in_one_line(cli):
    base = ("simulate", "-m", "llama3-8b", "-H", "h100", "--prompt", "4096", "--gen", "16",
            "--rate", "8", "--duration", "2s", "-f", "json")  # fmt: skip
    assert cli(*base, "--engine", "sglang", "--max-prefill-tokens", "131072").code == 0
    r = cli(*base, "--engine", "vllm", "--max-prefill-tokens", "8192")
    assert r.code == 2 and "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert "--max-prefill-tokens is not a setting of vLLM" in r.err


def test_check_spec_key(tmp_path):
    from calc.reports.check_spec import load_spec
    from tests.test_check_admission import _spec

    spec = load_spec(_spec(tmp_path, "sglang", "0.5.23", "    max_prefill_tokens: 131072\n"))
    assert spec.deployments[0].max_prefill_tokens == 131072
