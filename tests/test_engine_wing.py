"""The engine wing (calc.deploy.engines): nothing outside it branches on an engine's name; every
engine answers the one interface; releases resolve to modelled ones (the nearest, with a
warning, in every command); each rule holds from the release whose source has it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from calc.deploy.deployment import EngineSettings
from calc.deploy.engines import NAMES, all_engines, engine
from calc.deploy.engines.versions import parse_version
from tests.scripts import load_script

CALC = Path(__file__).resolve().parent.parent / "calc"
WING = CALC / "deploy" / "engines"


def _branches_on_names(tree: ast.AST) -> list[int]:
    """Lines that compare with, test membership of, or key a dict by an engine's name."""
    names = set(NAMES)

    def is_name(node) -> bool:
        return isinstance(node, ast.Constant) and node.value in names

    def holds_name(node) -> bool:
        return isinstance(node, ast.Tuple | ast.List | ast.Set) and any(map(is_name, node.elts))

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(is_name(x) or holds_name(x) for x in operands):
                lines.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(k is not None and is_name(k) for k in node.keys):
            lines.append(node.lineno)
        elif isinstance(node, ast.Subscript) and is_name(node.slice):
            lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and is_name(node.value):
            lines.append(node.lineno)
    return lines


def test_no_module_outside_the_wing_branches_on_an_engine_name():
    found = []
    for path in sorted(CALC.rglob("*.py")):
        if WING in path.parents:
            continue
        for line in _branches_on_names(ast.parse(path.read_text())):
            found.append(f"{path.relative_to(CALC.parent)}:{line}")
    assert not found, "engine-name branches outside calc/deploy/engines:\n  " + "\n  ".join(found)


def test_the_check_finds_a_branch():
    tree = ast.parse('if dep.engine.name == "trtllm":\n    pass\nx = {"sglang": 1}[e]\n')
    assert _branches_on_names(tree) == [1, 3]


@pytest.mark.parametrize("e", all_engines(), ids=lambda e: e.name)
def test_every_engine_answers_the_interface(e):
    from calc.data.registry import load_hardware

    newest = e.versions.newest
    config = e.config(EngineSettings(name=e.name), load_hardware("h100"))
    assert config.engine == e.name and config.version == newest
    assert e.scheduler(newest).name
    api, offline = e.host_costs(newest, "api"), e.host_costs(newest, "offline")
    # the fitted host table (calc.deploy.host_costs): a host time per step or sequence (0
    # where the fit finds none exposed, TensorRT-LLM's overlap scheduler); behind the api
    # front-end each request's HTTP and tokenisation time, offline none
    assert api.step_host_s(8) >= 0 and api.request_host_s(1000) > 0
    assert offline.request_host_s(1000) == 0 and offline.per_sequence_s == 0
    assert e.moe.kernels_for(None) >= 6  # routing, permute, two grouped GEMMs, activation, combine
    assert e.log_reader().engine == e.name
    assert e.fraction_name and e.title
    # every rule change is at a modelled release, in release order
    releases = [parse_version(r) for r in e.versions.releases]
    assert releases == sorted(releases)
    for c in e.versions.changes:
        assert c.since in e.versions.releases and c.source


@pytest.mark.parametrize(
    ("name", "asked", "release", "warned"),
    [
        ("vllm", None, "0.33.0", False),  # the default: the newest
        ("vllm", "0.19", "0.19.1", False),  # a prefix names the newest release of it
        ("vllm", "0.11.1rc2.dev19+g1234", "0.11.1", False),  # a build of a release
        ("vllm", "0.15.2", "0.15.1", True),  # not a release: the one in force before it
        ("vllm", "0.34.0", "0.33.0", True),  # newer than modelled
        ("vllm", "0.9.2", "0.10.0", True),  # older
        ("sglang", "0.5.4.post1", "0.5.4", False),
        ("sglang", "0.5.2", "0.4.10", True),
        ("trtllm", "0.21.0", "1.0.0", True),  # TensorRT-LLM 0.x: the oldest modelled
        ("trtllm", "1.2", "1.2.1", False),
    ],
)
def test_releases_resolve(name, asked, release, warned):
    found = engine(name).versions.resolve(asked)
    assert found.release == release
    assert (found.warning is not None) == warned
    if warned:
        # outside the range the nearest; inside it the release before, said as such (0.5.2
        # runs as 0.4.10 though 0.5.3 is nearer by number)
        inside = (name, asked) in (("vllm", "0.15.2"), ("sglang", "0.5.2"))
        said = (f"{release}, the newest modelled release before it" if inside
                else f"the nearest modelled release {release}")  # fmt: skip
        assert f"{name} {asked} is not modelled: using {said} (modelled: " in found.warning


def _sizing_commands(hw: str) -> list[tuple[str, ...]]:
    """capacity, memory, cost and latency of Llama 3 8B on ``hw``."""
    at = ("-m", "llama3-8b", "-H", hw)
    return [(c, *at, "--ctx", "1024") for c in ("capacity", "memory", "cost")] + [
        ("latency", *at, "--prompt", "128", "--gen", "8")
    ]


def test_every_command_warns_for_an_unmodelled_release(cli):
    for args in _sizing_commands("h100"):
        r = cli(*args, "--engine-version", "0.9.2")
        assert r.code == 0, r.err
        assert "vllm 0.9.2 is not modelled: using the nearest modelled release 0.10.0" in r.err
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "--batch", "1",
            "--engine-version", "0.9.2", "-f", "csv")  # fmt: skip
    assert r.code == 0 and r.err.count("vllm 0.9.2 is not modelled") == 1
    r = cli("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "--engine-version", "x")
    assert r.code == 2 and "is not a version number" in r.err


def test_an_engine_refuses_hardware_it_does_not_run_on(cli):
    # TensorRT-LLM is CUDA only: on the AMD MI300X every command is one error line (exit 2),
    # not a TensorRT-LLM figure for a deployment that cannot exist; plan says so rather than
    # "see the rejected families" over an empty search
    for args in (
        *_sizing_commands("mi300x"),
        ("plan", "-m", "llama3-8b", "-H", "mi300x", "--rate", "1", "--prompt", "128",
         "--gen", "8", "--ttft-p99", "2s", "--tpot-p99", "50ms"),
    ):  # fmt: skip
        r = cli(*args, "--engine", "trtllm")
        assert r.code == 2, (args, r.err)
        assert r.err.startswith("kvcalc: error: ") and "Traceback" not in r.err
        assert "mi300x" in r.err and "AMD" in r.err
        assert cli(*args, "--engine", "vllm").code == 0
    assert engine("trtllm").vendors == ("NVIDIA",)
    assert all(engine(n).vendors == () for n in ("vllm", "sglang"))


def test_check_says_it_too(cli, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "deployments:\n  - name: a\n    model: llama3-8b\n    hardware: h100\n"
        "    engine_version: '0.9.2'\n    workload: {ctx: 1024, batch: 1}\n"
        "    requirements: {must_fit: true}\n"
    )
    r = cli("check", spec, "-f", "json")
    assert r.code == 0 and "vllm 0.9.2 is not modelled" in r.err


@pytest.mark.parametrize(
    ("release", "field", "before", "after"),
    [
        # each rule, one release before the one whose wheel first has it, and that release
        ("0.20.0", "gpu_memory_utilization", 0.9, 0.92),  # vllm/config/cache.py
        ("0.20.0", "cudagraph_estimate", False, True),  # vllm/envs.py default "1"
        ("0.28.0", "huge_gpu_batch", None, (16384, 1024)),  # arg_utils.py >= 160 GiB tier
        ("0.26.0", "async_in_flight", False, True),  # kv_cache_interface.py max_in_flight
        ("0.18.0", "hybrid_ratio", 1.25, 1.5),  # kv_cache_utils.py
        ("0.12.0", "hybrid_ratio", None, 1.25),
        ("0.17.0", "sampler_kernel", "torch-sort", "triton"),  # topk_topp_triton.py
        ("0.11.1", "sampler_kernel", "flashinfer", "torch-sort"),
        ("0.27.0", "accounting", "torch_peak", "total_consumed"),  # mem_utils.py
    ],
)
def test_vllm_rules_change_at_their_release(release, field, before, after):
    e = engine("vllm")
    releases = e.versions.releases
    prev = releases[releases.index(release) - 1]
    assert getattr(e.rules(prev), field) == before
    assert getattr(e.rules(release), field) == after


@pytest.mark.parametrize(
    ("release", "field", "check"),
    [
        ("0.5.5", "buckets", lambda b: b[1][2] == 24),  # A10/4090 bucket max_bs 16 -> 24
        ("0.5.20", "buckets", lambda b: b[1][1:] == (4096, 48, 160)),
        ("0.5.10", "prefill_graph_off", lambda o: o is not None),  # piecewise prefill graphs
    ],
)
def test_sglang_rules_change_at_their_release(release, field, check):
    e = engine("sglang")
    releases = e.versions.releases
    prev = releases[releases.index(release) - 1]
    assert check(getattr(e.rules(release), field))
    assert not check(getattr(e.rules(prev), field))


def test_scheduler_policies_come_from_the_engines():
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment
    from calc.serve.simulate import deployment_limits

    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    for name, reserve, prefill_first in (("vllm", False, False), ("sglang", False, True),
                                         ("trtllm", True, False)):  # fmt: skip
        dep = Deployment.build(cfg, hw, engine=EngineSettings(name=name))
        lim = deployment_limits(dep, 1000)
        assert (lim.reserve_whole_request, lim.prefill_first) == (reserve, prefill_first)


def test_engines_page_is_current():
    root = Path(__file__).resolve().parent.parent
    module = load_script("bench/engines_doc.py")
    assert (root / "docs" / "engines.md").read_text() == module.render(), (
        "docs/engines.md is stale: run python bench/engines_doc.py > docs/engines.md"
    )
