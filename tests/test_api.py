"""The Python API (calc.api, re-exported from calc; issue 27).

(a) the public names: ``calc.__all__`` is the API's, every name resolves and is documented;
(b) for every job, the API's result equals the CLI's ``-f json`` key for key, in order, value
    for value (``to_dict()``; ``to_dict(explain=True)`` with ``--explain``), and its warnings
    are what the CLI prints;
(c) every option of a command is an argument of its function, by the same name, with the
    same default;
(d) bad input: the CLI's typed error, the same line;
(e) results: frozen, outputs as attributes, ``to_pandas()`` (or the typed error without
    pandas), the example script runs, docs/api.md is current.
"""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import calc
from calc import api

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
LOG = DATA / "engine_logs" / "vllm-h100-llama31-8b-tp2.log"
RUN = DATA / "bench_results" / "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json"
SPEC = ROOT / "examples" / "check-spec.yaml"
JOBS = ("memory", "capacity", "latency", "cost", "sweep", "plan", "simulate", "train", "log",
        "score", "check")  # fmt: skip


def _kind(x) -> type:
    """A JSON value's type; 50 and 50.0 are one kind (a setting echoes the number given: the
    CLI parses --max-tpot-ms 50 as 50.0, the API keeps the caller's 50), True is not 1."""
    return float if type(x) is int else type(x)


def same(a, b, path: str = "") -> list[str]:
    """Where ``a`` and ``b`` differ, in value or in kind (``_kind``)."""
    if _kind(a) is not _kind(b):
        return [f"{path}: {a!r} ({type(a).__name__}) vs {b!r} ({type(b).__name__})"]
    if isinstance(a, dict):
        if list(a) != list(b):
            return [f"{path}: keys {list(a)} vs {list(b)}"]
        return [d for k in a for d in same(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} vs {len(b)} items"]
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in same(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} vs {b!r}"]


# job, CLI arguments, the API call (function name, positional, keywords), --explain
CASES = [
    ("memory", ["-m", "llama3-70b", "--ctx", "8192", "-b", "4", "-H", "h100", "--gpus", "4"],
     ("llama3-70b", 8192, 4), {"hardware": "h100", "gpus": 4}, True),
    ("memory", ["-m", "deepseek-v3", "--ctx", "4096", "--attention", "gqa", "--kv-heads", "8"],
     ("deepseek-v3", 4096), {"attention": "gqa", "kv_heads": 8}, False),
    ("capacity", ["-m", "mixtral-8x7b", "-H", "h100", "--tp", "2", "--ctx", "4096",
                  "--shared-prefix", "1000", "--users", "4", "--engine", "sglang"],
     ("mixtral-8x7b", "h100", 4096), {"tp": 2, "shared_prefix": 1000, "users": 4,
                                      "engine": "sglang"}, True),
    ("latency", ["-m", "llama3-70b", "-H", "h100", "--tp", "4", "--prompt", "1000", "--gen",
                 "100", "-b", "2", "--max-num-seqs", "64"],
     ("llama3-70b", "h100"), {"tp": 4, "prompt": 1000, "gen": 100, "batch": 2,
                              "max_num_seqs": 64}, True),
    ("cost", ["-m", "llama3-70b", "-H", "h100", "--tp", "4", "--ctx", "4096", "--max-tpot-ms",
              "50", "--activation", "2GiB"],
     ("llama3-70b", "h100", 4096), {"tp": 4, "max_tpot_ms": 50, "activation": "2GiB"}, True),
    ("sweep", ["-m", "llama3-8b", "-H", "h100,h200", "--tp", "1,2", "--ctx", "1024..8192:x2",
               "-b", "1,64"],
     ("llama3-8b", ["h100", "h200"], "1024..8192:x2"), {"tp": [1, 2], "batch": "1,64"}, False),
    ("plan", ["-m", "llama3-8b", "-H", "h100", "--rate", "2", "--prompt", "1000", "--gen",
              "100", "--ttft-p99", "5s", "--tpot-p99", "200ms", "--method", "analytic"],
     ("llama3-8b", 2, 1000, 100, "5s", "200ms"), {"hardware": "h100", "method": "analytic"},
     True),
    ("simulate", ["-m", "llama3-8b", "-H", "h100", "--rate", "2", "--prompt",
                  "uniform:100:2000", "--gen", "64", "-n", "40", "--ttft-slo", "2s"],
     ("llama3-8b", "h100", 2, "uniform:100:2000", 64), {"requests": 40, "ttft_slo": "2s"},
     False),
    ("simulate", ["-m", "llama3-8b", "-H", "h100", "--sweep-rate", "1,8", "--prompt", "500",
                  "--gen", "64", "-n", "30", "--tpot-slo", "50ms"],
     ("llama3-8b", "h100"), {"sweep_rate": "1,8", "prompt": 500, "gen": 64, "requests": 30,
                             "tpot_slo": "50ms"}, False),
    ("train", ["-m", "llama3-70b", "-H", "h100", "--tp", "8", "--pp", "4", "--gpus", "1024",
               "--zero", "1", "--recompute", "selective", "--tokens", "15e12", "--mfu", "0.4"],
     ("llama3-70b", "h100"), {"tp": 8, "pp": 4, "gpus": 1024, "zero": 1,
                              "recompute": "selective", "tokens": 15e12, "mfu": 0.4}, True),
    ("train", ["-m", "mixtral-8x7b", "-H", "h100", "--ep", "2", "--tp", "2", "--dp", "2",
               "--zero", "3", "--finetune", "qlora", "--tokens", "1e9", "--gpu-price-usd",
               "30000", "--power-w", "1000"],
     ("mixtral-8x7b", "h100"), {"ep": 2, "tp": 2, "dp": 2, "zero": 3, "finetune": "qlora",
                                "tokens": 1e9, "capex_usd_per_gpu": 30000, "power_kw_per_gpu": 1.0},
     True),
    ("log", [str(LOG), "-m", "llama3-8b"], (LOG,), {"model": "llama3-8b"}, True),
    ("score", [str(RUN), "-H", "h100", "--tp", "8", "--fit", "gemm,request"],
     (RUN,), {"hardware": "h100", "tp": 8, "fit": "gemm,request"}, True),
    ("check", [str(SPEC)], (SPEC,), {}, False),
]  # fmt: skip


def test_every_job_is_compared():
    assert api.JOBS == JOBS
    assert {c[0] for c in CASES} == set(JOBS)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_api_equals_the_cli_json(cli, case):
    job, argv, args, kwargs, explain = case
    extra = ["--explain"] if explain else []
    r = cli(job, *argv, "-f", "json", *extra)
    assert r.code in (0, 1), r.err  # check: 1 when a requirement fails
    result = getattr(calc, job)(*args, **kwargs)
    diffs = same(result.to_dict(explain=explain), r.json())
    assert not diffs, f"{job}: API vs CLI:\n  " + "\n  ".join(diffs[:20])
    # the warnings the CLI printed are the result's, in order
    printed = [ln.removeprefix("kvcalc: warning: ") for ln in r.err.splitlines()]
    assert printed == list(result.warnings)


# -- (a) the public names ------------------------------------------------------------------


def test_public_names():
    # calc.api.__all__ is calc.__all__ less the version (declared once, in calc/__init__.py):
    # every name is defined in calc.api, and every public function and class it defines is
    # listed
    assert all(name in vars(api) for name in api.__all__)
    defined = {
        n for n, v in vars(api).items()
        if (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__ == "calc.api"
        and not n.startswith("_")
    }  # fmt: skip
    assert defined <= set(api.__all__)
    assert set(JOBS) <= set(api.__all__)
    for name in calc.__all__:
        obj = getattr(calc, name)
        assert obj is (calc.__version__ if name == "__version__" else getattr(api, name))
        if name != "__version__":
            assert inspect.getdoc(obj), f"calc.{name} has no docstring"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        calc.nothing  # noqa: B018


def test_importing_calc_imports_no_report():
    """``import calc`` (what the CLI imports first) leaves the API, reports and numpy
    unimported until a name is used."""
    code = ("import sys, calc; print(sorted(m for m in sys.modules if m.startswith('calc') "
            "or m == 'numpy'))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['calc']"


# -- (c) the same options, the same defaults -----------------------------------------------

# options a command prints with, or that only the command line has (a mode of the command)
CLI_ONLY = {"fmt", "output", "explain", "report_file", "jobs", "junit", "schema", "example"}


@pytest.mark.parametrize("job", JOBS)
def test_every_option_is_an_argument_with_the_same_default(job):
    from calc.cli.api_reference import deployment_defaults
    from calc.cli.app import COMMANDS
    from calc.deploy.options import OPTIONS
    from calc.reports.sweep import ENGINE_OPTIONS

    module, name = COMMANDS[job]
    command = getattr(__import__(f"calc.cli.{module}", fromlist=[name]), name)
    fn = getattr(api, job)
    params = inspect.signature(fn).parameters
    keywords = {"sweep": ENGINE_OPTIONS, "score": api._SCORE_OPTIONS}.get(job, OPTIONS)
    defaults = deployment_defaults()
    for opt, p in inspect.signature(command).parameters.items():
        if opt in CLI_ONLY or (job, opt) == ("check", "spec"):  # optional for --schema only
            continue
        if opt in params:
            want = params[opt].default
        else:
            assert any(q.kind is q.VAR_KEYWORD for q in params.values()), f"{job}: no {opt}"
            assert opt in keywords, f"calc.{job} does not take {opt}"
            want = None if job == "score" else defaults.get(opt)
        got = p.default
        if got is inspect.Parameter.empty:
            assert want is inspect.Parameter.empty, f"{job} {opt}: required by the CLI only"
        else:
            assert got == want, f"{job} {opt}: CLI default {got!r}, API default {want!r}"


# -- (d) bad input: the same typed error ---------------------------------------------------

ERRORS = [
    ("memory", ["-m", "nope", "--ctx", "10"], ("nope", 10), {}),
    ("memory", ["-m", "llama3-8b", "--ctx", "10", "-H", "h100", "--tp", "3"],
     ("llama3-8b", 10), {"hardware": "h100", "tp": 3}),
    ("capacity", ["-m", "llama3-8b", "-H", "h100", "--ctx", "0"], ("llama3-8b", "h100", 0), {}),
    ("latency", ["-m", "llama3-8b", "-H", "h100", "--tp", "2", "--gpus", "4", "--pp", "2",
                 "--dp", "2"], ("llama3-8b", "h100"), {"tp": 2, "gpus": 4, "pp": 2, "dp": 2}),
    ("cost", ["-m", "llama3-8b", "-H", "h100", "--ctx", "100", "--efficiency", "best"],
     ("llama3-8b", "h100", 100), {"efficiency": "best"}),
    ("train", ["-m", "llama3-8b", "-H", "h100", "--years", "3"], ("llama3-8b", "h100"),
     {"years": 3}),
    ("simulate", ["-m", "llama3-8b", "-H", "h100"], ("llama3-8b", "h100"), {}),
    ("sweep", ["-m", "llama3-8b", "-H", "h100", "--ctx", "0..4"], ("llama3-8b", "h100", "0..4"),
     {}),
    ("check", [str(ROOT / "missing.yaml")], (ROOT / "missing.yaml",), {}),
]  # fmt: skip


@pytest.mark.parametrize("case", ERRORS, ids=[f"{c[0]}-{i}" for i, c in enumerate(ERRORS)])
def test_bad_input_is_the_same_typed_error(cli, case):
    job, argv, args, kwargs = case
    r = cli(job, *argv)
    assert r.code == 2
    with pytest.raises(calc.KvcalcError) as info:
        getattr(calc, job)(*args, **kwargs)
    assert r.err.splitlines()[-1] == f"kvcalc: error: {info.value}"


def test_an_unknown_keyword_names_the_closest_option():
    with pytest.raises(calc.UnknownNameError, match=r"unknown deployment option 'tpp'; did you "
                       r"mean 'tp', 'pp'\?"):  # fmt: skip
        calc.memory("llama3-8b", 1024, tpp=2)
    with pytest.raises(calc.UnknownNameError, match="unknown sweep option 'moe_imbalence'"):
        calc.sweep("llama3-8b", "h100", 1024, moe_imbalence=2)


def test_warnings_said_before_an_error_travel_with_it(cli, tmp_path):
    """An engine release not modelled is said, then the error: the CLI prints both, the API
    error carries the warning (``exc.warnings``)."""
    argv = ["-m", "llama3-8b", "-H", "h100", "--ctx", "0", "--engine-version", "0.1"]
    r = cli("capacity", *argv)
    assert r.code == 2
    with pytest.raises(calc.InvalidInputError) as info:
        calc.capacity("llama3-8b", "h100", 0, engine_version="0.1")
    lines = r.err.splitlines()
    assert lines[-1] == f"kvcalc: error: {info.value}"
    assert lines[:-1] == [f"kvcalc: warning: {w}" for w in info.value.warnings]
    assert info.value.warnings  # the release is named


# -- (e) the results -----------------------------------------------------------------------


def test_a_result_is_frozen_typed_and_reads_its_outputs():
    r = calc.memory("llama3-8b", 4096, 2)
    # llama3-8b: 32 layers × 8 KV heads × 128 head_dim, bf16 K and V:
    # 2 × 32 × 8 × 128 × 2 B = 131,072 B per token; 2 sequences × 4,096 tokens:
    # 131,072 × 8,192 = 1,073,741,824 B
    assert r.kv_bytes_per_token == 131_072
    assert r.kv_cache_bytes == 1_073_741_824
    assert r.kv_cache_bytes == r.fields["kv_cache_bytes"] == r.to_dict()["kv_cache_bytes"]
    assert isinstance(r, calc.Report) and type(r).command == "memory"
    assert "kv_cache_bytes" in dir(r)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.fields = {}  # type: ignore[misc]
    with pytest.raises(AttributeError, match="MemoryReport has no output 'tpot_s'"):
        r.tpot_s  # noqa: B018
    assert r.deployment.model.name == "llama3-8b"
    assert r.derivation() == [f.line() for f in r.figures] and r.derivation()
    assert "derivation" not in r.to_dict() and "derivation" in r.to_dict(explain=True)


def test_to_pandas_is_the_csv_table(cli):
    pd = pytest.importorskip("pandas")
    sim = calc.simulate("llama3-8b", "h100", sweep_rate="1,4", prompt=500, gen=32, requests=20)
    frame = sim.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == list(sim.rows[0]) and len(frame) == 2
    one = calc.latency("llama3-8b", "h100").to_pandas()
    assert len(one) == 1 and one["tpot_s"][0] == calc.latency("llama3-8b", "h100").tpot_s
    grid = calc.sweep("llama3-8b", "h100", [1024, 2048], batch=[1, 8])
    frame = grid.to_pandas()
    # 2 ctx × 2 batch = 4 rows; integer columns stay integers
    assert len(frame) == 4 and frame["ctx"].tolist() == [1024, 1024, 2048, 2048]
    assert frame["max_concurrency"].tolist() == [r["max_concurrency"] for r in grid.rows]


def test_to_pandas_without_pandas_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas fails
    with pytest.raises(calc.MissingDependencyError, match=r"pip install 'kvcalc\[pandas\]'"):
        calc.memory("llama3-8b", 1024).to_pandas()


def test_the_example_runs():
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "api_example.py")],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    jobs = [ln.split(":")[0] for ln in lines if not ln.startswith(" ")]
    assert jobs == ["memory", "capacity", "latency", "cost", "sweep", "plan", "simulate",
                    "train", "check", "error"]  # fmt: skip
    assert "--tp 3 does not divide the 64 attention heads of llama3-70b" in lines[-1]


def test_docs_page_is_current():
    from calc.cli.api_reference import reference

    page = ROOT / "docs" / "api.md"
    assert page.read_text() == reference(), (
        "docs/api.md is stale: run `python -m calc.cli.api_reference > docs/api.md`"
    )


def test_the_engine_options_are_enginesettings():
    """build_deployment passes the engine's options on to EngineSettings.from_options, which
    holds their defaults: the two name lists are one."""
    from calc.deploy.deployment import EngineSettings
    from calc.deploy.options import ENGINE_OPTIONS, OPTIONS

    params = set(inspect.signature(EngineSettings.from_options).parameters) - {"flag"}
    assert set(ENGINE_OPTIONS) == params
    assert set(ENGINE_OPTIONS) <= set(OPTIONS)
    with pytest.raises(calc.UnknownNameError, match="unknown engine option 'mem_utl'"):
        from calc.deploy.options import build_deployment

        build_deployment("llama3-8b", mem_utl=0.9)
