"""Options declared once (issue 27 item 2): the deployment, engine and price options are one
table each (calc.deploy.options.OPTION_SPECS, calc.cli.price_options.PRICE), and every sizing
command takes the same options by construction (calc.cli.option_groups)."""

from __future__ import annotations

import inspect
import json

import pytest
import typer

from calc.cli.app import build_app
from calc.cli.option_groups import DEPLOYMENT, ENGINE, Options, specs, with_options, without
from calc.cli.price_options import PRICE
from calc.deploy.options import OPTION_SPECS, OPTIONS

# the commands that size one deployment take every deployment and engine option
SIZING = ("memory", "capacity", "latency", "roofline", "cost", "simulate", "speculate")


def _params(command: str) -> dict:
    """flag -> click parameter of ``kvcalc COMMAND``."""
    click = typer.main.get_command(build_app([command]))
    (cmd,) = click.commands.values()  # type: ignore[attr-defined]
    return {flag: p for p in cmd.params for flag in (*p.opts, *p.secondary_opts)}


def test_the_table_is_deployment_options_in_order():
    assert tuple(s.name for s in OPTION_SPECS) == OPTIONS
    assert {s.name for s in DEPLOYMENT} | {s.name for s in ENGINE} == set(OPTIONS)
    assert not {s.name for s in DEPLOYMENT} & {s.name for s in ENGINE}


def test_defaults_are_the_builders():
    """Each option's default is build_deployment's (engine options: EngineSettings')."""
    from calc.deploy.deployment import EngineSettings
    from calc.deploy.options import build_deployment

    builders = {
        **inspect.signature(build_deployment).parameters,
        **inspect.signature(EngineSettings.from_options).parameters,
    }
    for s in OPTION_SPECS:
        assert builders[s.name].default == s.default, s.name


def test_price_table_is_price_options_in_order():
    from calc.deploy.pricing import PRICE_OPTIONS

    assert tuple(s.name for s in PRICE) == PRICE_OPTIONS


@pytest.mark.parametrize("command", SIZING)
def test_every_sizing_command_takes_the_whole_group(command):
    params = _params(command)
    for s in (*DEPLOYMENT, *ENGINE):
        p = params[s.flag]
        assert p.help == s.help, (command, s.flag)
        assert p.default == s.default, (command, s.flag)
    assert "--no-chunked-prefill" in params


@pytest.mark.parametrize("command", ("cost", "plan", "train"))
def test_price_commands_take_every_price_flag(command):
    params = _params(command)
    for s in PRICE:
        for flag in (s.flag, *s.aliases):
            assert params[flag].help == s.help, (command, flag)


def test_sweep_takes_the_whole_engine_group():
    params = _params("sweep")
    for s in ENGINE:
        assert params[s.flag].help == s.help and params[s.flag].default == s.default
    assert "--no-chunked-prefill" in params


def test_sweep_takes_every_deployment_option_but_its_grid_lists():
    """--tp, --pp, --weight-dtype and --kv-dtype are the grid's lists (sweep's own SWEEP);
    every other deployment option is the table's, one value for every row."""
    params = _params("sweep")
    for s in without(DEPLOYMENT, "tp", "pp", "weight_dtype", "kv_dtype"):
        assert params[s.flag].help == s.help and params[s.flag].default == s.default


def test_train_options_are_the_apis_in_its_order():
    """train's options (calc.cli.train_options.TRAIN) are calc.api.train's keywords with its
    defaults, in its order, and the command takes each one (a hidden one stays hidden)."""
    import calc.api
    from calc.cli.train_options import TRAIN

    api = inspect.signature(calc.api.train).parameters
    names = [n for n in api if n not in ("model", "hardware") and n not in {s.name for s in PRICE}]
    assert [s.name for s in TRAIN] == names
    params = _params("train")
    for s in TRAIN:
        assert api[s.name].default == s.default, s.name
        p = params[(s.aliases or (s.flag,))[0].split("/")[0]]
        assert p.help == s.help and p.default == s.default and p.hidden == s.hidden, s.name


def test_chunked_prefill_flag_reaches_the_scheduler(cli):
    """trtllm-serve does not chunk prompts by default: a 12,000-token prompt past its 8,192
    max_batched_tokens is refused; --chunked-prefill splits it and the run is served."""
    args = ["simulate", "--model", "qwen3-8b", "--hardware", "h100", "--engine", "trtllm",
            "--rate", "1", "--requests", "5", "--prompt", "12000", "--gen", "4",
            "-f", "json"]  # fmt: skip
    refused = cli(*args)
    assert refused.code == 2
    assert "chunked prefill off" in refused.err
    served = cli(*args, "--chunked-prefill")
    assert served.code == 0, served.err
    fields = json.loads(served.out)
    assert (fields["n_requests"], fields["rejected_requests"]) == (5, 0)


def test_no_chunked_prefill_matches_the_api(cli):
    """The CLI's --no-chunked-prefill is the API's chunked_prefill=False, key for key."""
    import calc

    args = ["latency", "--model", "llama3-8b", "--hardware", "h100", "--prompt", "4096",
            "--gen", "16", "--max-batched-tokens", "2048", "-f", "json"]  # fmt: skip
    out = cli(*args, "--no-chunked-prefill")
    assert out.code == 0, out.err
    api = calc.latency("llama3-8b", "h100", prompt=4096, gen=16, max_batched_tokens=2048,
                       chunked_prefill=False)  # fmt: skip
    assert json.loads(out.out) == json.loads(json.dumps(api.to_dict()))


def test_the_decorator_hands_one_options_object():
    seen = {}

    @with_options(specs("tp", "engine"))
    def job(model: str, fmt: str = "table", *, options: Options) -> None:
        seen.update(model=model, options=options)

    names = list(inspect.signature(job).parameters)
    assert names == ["model", "tp", "engine", "fmt"]  # the group before the render options
    job(model="m", tp=2)  # an option not given takes its default
    assert dict(seen["options"]) == {"tp": 2, "engine": "vllm"}
    assert seen["options"].deployment == {"tp": 2, "engine": "vllm"}


def test_a_command_cannot_declare_a_group_option_twice():
    with pytest.raises(TypeError, match="tp"):

        @with_options(specs("tp"))
        def job(tp: int = 1, *, options: Options) -> None: ...


def test_without_refuses_a_name_not_in_the_group():
    with pytest.raises(ValueError):
        without(ENGINE, "tp")


def test_no_command_passes_its_locals():
    """A command hands its options on by name (issue 27: no ``locals()`` a reader cannot
    follow)."""
    import ast
    from pathlib import Path

    cli = Path(__file__).resolve().parent.parent / "calc" / "cli"
    found = [
        f"{p.name}:{node.lineno}"
        for p in sorted(cli.glob("*.py"))
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "locals"
    ]
    assert not found


@pytest.mark.parametrize("command", (*SIZING, "sweep"))
def test_every_sizing_command_takes_no_prefix_cache(command):
    params = _params(command)
    assert params["--no-prefix-cache"] is params["--prefix-cache"]
    assert params["--prefix-cache"].default is None  # the engine's own default


def test_prefix_cache_reaches_engine_settings():
    """The API keyword and the CLI's Options build the same EngineSettings.prefix_cache."""
    from calc.deploy.deployment import EngineSettings
    from calc.deploy.options import build_deployment

    for given in (None, True, False):
        dep = build_deployment("llama3-8b", "h100", engine="sglang", prefix_cache=given)
        assert dep.engine.prefix_cache is given
        assert EngineSettings.of({"engine": "sglang", "prefix_cache": given}).prefix_cache is given
    from calc.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="did you mean 'prefix_cache'"):
        build_deployment("llama3-8b", "h100", prefix_caching=False)


def test_no_prefix_cache_selects_sglang_s_ignore_eos_admission(cli):
    """SGLang without its radix cache admits a request only if every running one can finish
    at its fixed output length (PrefillAdder.add_one_req_ignore_eos): nothing admitted is
    retracted later. The default (radix cache on) admits by the new-token ratio and, on a
    pool a quarter of the H100 holds, retracts running requests as they grow (6 here)."""
    import calc

    args = ["simulate", "--model", "llama3-8b", "--hardware", "h100", "--engine", "sglang",
            "--mem-util", "0.25", "--rate", "50", "--requests", "60", "--prompt", "1000",
            "--gen", "1500", "-f", "json"]  # fmt: skip
    default = cli(*args)
    off = cli(*args, "--no-prefix-cache")
    assert default.code == 0 and off.code == 0, (default.err, off.err)
    on, no = json.loads(default.out), json.loads(off.out)
    assert on["preemptions"] > 0
    assert no["preemptions"] == 0
    assert on["kv_pool_blocks"] == no["kv_pool_blocks"]  # the same pool, another admission
    assert json.loads(cli(*args, "--prefix-cache").out) == on  # on is the default
    api = calc.simulate("llama3-8b", "h100", rate=50, requests=60, prompt=1000, gen=1500,
                        engine="sglang", mem_util=0.25, prefix_cache=False)  # fmt: skip
    assert json.loads(json.dumps(api.to_dict())) == no


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--model", "llama3-8b", "--hardware", "h100", "--rate", "5", "--requests",
         "20", "--prompt", "500", "--gen", "100", "--prefix-shared", "0.5"],
        ["score", "tests/data/bench_results/sglang-2024-12_llama-3.3-70b_tp4_h200_online.jsonl",
         "-m", "llama3.3-70b", "-H", "h200", "--tp", "4", "--engine", "sglang",
         "--prefix-cached", "0.3"],
    ],
)  # fmt: skip
def test_prefix_hits_without_a_prefix_cache_are_refused(cli, args):
    """Prefix-cache hits (--prefix-shared, --prefix-cached) on a server without a prefix
    cache contradict each other: one error line, exit 2; either alone runs."""
    bad = cli(*args, "--no-prefix-cache")
    assert bad.code == 2
    assert "without a prefix cache" in bad.err and "Traceback" not in bad.err
    assert cli(*args).code == 0
