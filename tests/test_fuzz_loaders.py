"""Fuzz targets, one per loader (model YAML, hardware YAML, config.json, check spec with
and without load SLOs, calibration, engine calibration), driven by hypothesis through the
CLI: each input is a real file mutated three ways (a value in the parsed mapping, a raw
value token in the text, a splice of arbitrary bytes). Any outcome other than a valid result
or one ``kvcalc: error:`` line with exit 2 fails: a traceback, a hang, an exit status of 1
outside `check`, output that does not parse.

The number of examples is bounded so the suite stays fast (``FUZZ_EXAMPLES`` per target and
strategy, derandomized: CI sees the same inputs every run). For a longer, random campaign:
``KVCALC_FUZZ_EXAMPLES=2000 KVCALC_FUZZ_RANDOM=1 pytest tests/test_fuzz_loaders.py``.

Adding a loader is one entry in LOADERS: its seed files, a suffix, the CLI arguments that
read the file and the exit statuses that count as a result.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calc.data.registry import data_dir

FUZZ_EXAMPLES = int(os.environ.get("KVCALC_FUZZ_EXAMPLES", "12"))
RANDOM = os.environ.get("KVCALC_FUZZ_RANDOM") == "1"
HF = Path(__file__).parent / "data" / "hf"
LOGS = Path(__file__).parent / "data" / "engine_logs"
LOG_TP1 = str(LOGS / "vllm-h100-llama31-8b-tp1.log")

SPEC = """deployments:
  - name: llama3-70b-fp8-h100x4
    model: llama3-70b
    hardware: h100
    tp: 4
    weight_dtype: fp8
    kv_dtype: fp8
    engine: vllm
    mem_util: 0.9
    overhead: 0.5GiB
    workload: {ctx: 8192, prompt: 2048, batch: 64}
    requirements:
      must_fit: true
      min_concurrency: 64
      max_tpot_ms: 60
      max_ttft_ms: 1000
      max_usd_per_million_output_tokens: 2.0
  - name: llama3-8b-h100
    model: llama3-8b
    hardware: h100
    workload: {ctx: 32768, batch: 16}
    requirements: {must_fit: true, min_concurrency: 8}
"""
SPEC_LOAD = """deployments:
  - name: llama3-8b-h100-load
    model: llama3-8b
    hardware: h100
    workload: {ctx: 4096, prompt: "uniform:100:2000", gen: 64, rate: 4.0, requests: 50, seed: 1}
    requirements: {max_ttft_p99_s: 2.0, max_tpot_p99_s: 0.05, max_ttft_p50_s: 1.0}
"""
ENGINE_CALIBRATION = """kind: kvcalc-engine-calibration
engine: vllm
engine_version: '0.19'
hardware: h100
tp: 1
pp: 1
model: llama3-8b
activation_bytes: 2029372047
non_torch_bytes: 268435456
source: vllm-h100-llama31-8b-tp1.log
created: '2026-12-01T22:22:22Z'
"""
CALIBRATION = """kind: kvcalc-calibration
hardware: h100
device: NVIDIA H100 80GB HBM3
created: "2026-01-01"
matmul: {low: 0.3, expected: 0.4, high: 0.5}
memory: {low: 0.4, expected: 0.44, high: 0.5}
kernels:
  - {kernel: gemm, bound: compute, size_range: "batch 1-8", achieved_fraction: 0.4, samples: 3}
"""


@dataclass(frozen=True)
class Loader:
    """A file kvcalc reads: seed texts, the file name to write, the CLI arguments that read
    it (``{path}`` is replaced), the exit statuses that are results, and how the result
    printed on stdout is parsed (it must parse)."""

    seeds: tuple[str, ...]
    filename: str
    argv: tuple[str, ...]
    results: tuple[int, ...] = (0,)
    parse: Callable[[str], object] = json.loads
    structured: bool = True  # the seeds are YAML/JSON mappings (a log is plain text)


def _shipped(folder: str, *names: str) -> tuple[str, ...]:
    return tuple((data_dir(folder) / f"{n}.yaml").read_text() for n in names)


LOADERS = {
    "model_yaml": Loader(
        _shipped("model_configs", "llama3-8b", "deepseek-v3", "jamba-v0.1", "gemma-3-27b"),
        "model.yaml",
        ("memory", "--model", "{path}", "--ctx", "4096", "-H", "h100", "-f", "json"),
    ),
    "hardware_yaml": Loader(
        _shipped("hardware_profiles", "h100", "mi300x"),
        "hw.yaml",
        ("cost", "-m", "llama3-8b", "-H", "{path}", "--ctx", "4096", "-f", "json"),
    ),
    "config_json": Loader(
        tuple(
            (HF / f).read_text()
            for f in ("mistral-7b-v0.1.json", "deepseek-v2.json", "jamba-v0.1.json")
        ),
        "config.json",
        ("import-hf", "{path}"),
        parse=yaml.safe_load,
    ),
    "check_spec": Loader((SPEC,), "spec.yaml", ("check", "{path}", "-f", "json"), (0, 1)),
    "check_spec_under_load": Loader(
        (SPEC_LOAD,), "spec.yaml", ("check", "{path}", "-f", "json"), (0, 1)
    ),
    "engine_calibration": Loader(
        (ENGINE_CALIBRATION,),
        "engine-cal.yaml",
        ("log", LOG_TP1, "--calibration", "{path}", "-f", "json"),
    ),
    "calibration": Loader(
        (CALIBRATION,),
        "cal.yaml",
        ("latency", "-m", "llama3-8b", "-H", "h100", "--calibration", "{path}", "-f", "json"),
    ),
    "engine_log": Loader(
        tuple((LOGS / f).read_text() for f in ("vllm-h100-llama31-8b-tp2.log",
                                                "trtllm-h100-llama31-8b-fp8.log")),
        "engine.log",
        ("log", "{path}", "-m", "llama3-8b", "-f", "json"),
        structured=False,
    ),
}

# ----------------------------------------------------------------------------------------
# Strategies

NASTY_TOKENS = [
    "0", "-1", "010", "0b11", "0x10", "1:30", "1e400", "-.inf", ".nan", "~", "null", "yes",
    "9" * 400, "1e99999999", "[]", "{}", "[1, [2, [3]]]", "*a", "&a 1", "!!binary aGk=",
    "!!python/name:os.system", '"\\x1b[2J"', '"\\u202e"', "''", "|\n  x", "true", "2.5",
    "4294967296", "18446744073709551617", "-0", "NaN", "Infinity", '"a": 1',
]  # fmt: skip

scalars = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1, 2, 3, 7, 2**31, 2**63, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=12),
    st.sampled_from(NASTY_TOKENS),
)
values = st.recursive(
    scalars,
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4)
    ),
    max_leaves=8,
)


def _paths(obj: object, prefix: tuple = ()) -> list[tuple]:
    """Every key path into a parsed mapping (the containers' own paths too)."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


def _parent(obj: object, path: tuple) -> object | None:
    for p in path[:-1]:
        try:
            obj = obj[p]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            return None
    return obj


@st.composite
def structured(draw, seed: str, is_json: bool) -> str:
    """The seed's mapping with one to three keys set to arbitrary values, deleted or added."""
    obj = json.loads(seed) if is_json else yaml.safe_load(seed)
    obj = copy.deepcopy(obj)
    paths = [p for p in _paths(obj) if p]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        parent = _parent(obj, path)
        op = draw(st.sampled_from(["set", "set", "delete", "add"]))
        if isinstance(parent, dict) and op == "delete":
            parent.pop(path[-1], None)
        elif isinstance(parent, dict) and op == "add":
            parent[draw(st.text(max_size=10))] = draw(values)
        elif isinstance(parent, dict) or (
            isinstance(parent, list) and isinstance(path[-1], int) and path[-1] < len(parent)
        ):
            parent[path[-1]] = draw(values)  # type: ignore[index]
    if is_json:
        return json.dumps(obj, indent=1)  # NaN and Infinity come out as bare tokens
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True)


_VALUE = re.compile(r"(?m)^(\s*(?:- )?\"?[A-Za-z_][\w.]*\"?\s*:\s*)([^\n{\[]+?)(,?)$")


@st.composite
def raw_token(draw, seed: str) -> str:
    """The seed's text with one to three scalar values replaced by a raw token (YAML 1.1
    forms, huge digit strings, tags, aliases, escape sequences...), exactly as written."""
    text = seed
    for _ in range(draw(st.integers(1, 3))):
        spots = list(_VALUE.finditer(text))
        if not spots:
            break
        m = draw(st.sampled_from(spots))
        token = draw(st.sampled_from(NASTY_TOKENS) | st.text(max_size=12))
        text = text[: m.start(2)] + token + text[m.end(2) :]
    return text


@st.composite
def spliced(draw, seed: str) -> bytes:
    """The seed's bytes with a slice replaced by arbitrary bytes (or cut short)."""
    raw = seed.encode()
    start = draw(st.integers(0, len(raw)))
    end = draw(st.integers(start, min(len(raw), start + 64)))
    return raw[:start] + draw(st.binary(max_size=32)) + raw[end:]


def _mutations(loader: Loader) -> st.SearchStrategy:
    is_json = loader.filename.endswith(".json")
    return st.one_of(
        *(structured(s, is_json) for s in loader.seeds if loader.structured),
        *(raw_token(s) for s in loader.seeds),
        *(spliced(s) for s in loader.seeds),
    )


# ----------------------------------------------------------------------------------------
# The target


def _check_outcome(loader: Loader, r) -> None:
    assert "Traceback" not in r.out + r.err, r.err
    if r.code in loader.results:
        loader.parse(r.out)  # a valid result parses
        return
    assert r.code == 2, (r.code, r.err[-500:])
    lines = r.err.splitlines()
    errors = [ln for ln in lines if ln.startswith("kvcalc: error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], r.err[-500:]
    assert all(ln.startswith("kvcalc: warning: ") for ln in lines[:-1]), r.err[-500:]
    assert r.err.count("\n") == len(lines)  # no line broken by a newline taken from a file


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_fuzz_loader(cli, tmp_path, name):
    loader = LOADERS[name]
    path = tmp_path / loader.filename
    argv = [a.replace("{path}", str(path)) for a in loader.argv]

    @settings(
        max_examples=FUZZ_EXAMPLES * 3,  # three strategies
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(_mutations(loader))
    def target(content: str | bytes) -> None:
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogatepass")
        path.write_bytes(content)
        _check_outcome(loader, cli(*argv))

    target()


def test_fuzz_seeds_are_valid_results(cli, tmp_path):
    """Each seed as it is gives a result: the mutations start from valid inputs."""
    for name, loader in LOADERS.items():
        path = tmp_path / loader.filename
        argv = [a.replace("{path}", str(path)) for a in loader.argv]
        for seed in loader.seeds:
            path.write_text(seed)
            r = cli(*argv)
            assert r.code in loader.results, (name, r.err)
            loader.parse(r.out)
