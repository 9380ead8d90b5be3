"""One meaning per output name (issue 10).

(a) every JSON/CSV key every command emits is in ``calc.names.NAMES`` (with its unit, scope
    and meaning), on dense, MoE, MLA, sliding-window and hybrid-SSM models;
(b) docs/names.md is what ``python -m calc.names`` prints;
(c) the cross-command agreement: at one operating point, memory (with -H), capacity, latency,
    cost, sweep, check and plot capacity data agree on the per-GPU ledger (weights, KV, SSM
    state, KV budget), fits and max concurrency, and every key two commands both emit has the
    same value.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from calc.names import NAMES, lookup, render_markdown

ROOT = Path(__file__).resolve().parents[1]
MODELS = ("llama3-8b", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b", "jamba-v0.1")
HW = {"deepseek-v3": ("h200", "8"), "mixtral-8x7b": ("h100", "2"), "jamba-v0.1": ("h200", "2")}


def flatten(obj, prefix: str = "") -> set[str]:
    """Key paths of a JSON document: ``key`` at the top, ``parent.key`` in a nested object,
    ``list[].key`` in a list of records."""
    out: set[str] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            path = f"{prefix}{k}"
            out.add(path)
            if isinstance(v, dict):
                out |= flatten(v, path + ".")
            elif isinstance(v, list) and any(isinstance(x, dict) for x in v):
                out.discard(path)  # a list of records is named by its records' keys
                for x in v:
                    out |= flatten(x, path + "[].")
    return out


def csv_keys(text: str, prefix: str) -> set[str]:
    header = next(csv.reader(io.StringIO(text)))
    return {prefix + k for k in header}


def check_spec(tmp_path: Path, model: str, hw: str, tp: int, pp: int = 1, *, ctx: int,
               batch: int, min_concurrency: int = 1, latency: bool = True) -> Path:  # fmt: skip
    reqs = f"must_fit: true, min_concurrency: {min_concurrency}"
    if latency:
        reqs += (
            ", max_tpot_ms: 1000, max_ttft_ms: 100000, max_usd_per_million_output_tokens: 1000, "
            "max_usd_per_million_input_tokens: 1000"
        )
    p = tmp_path / f"spec-{model}-{tp}-{pp}-{ctx}-{batch}.yaml"
    p.write_text(
        f"deployments:\n  - name: d\n    model: {model}\n    hardware: {hw}\n    tp: {tp}\n"
        f"    pp: {pp}\n    workload: {{ctx: {ctx}, batch: {batch}}}\n"
        f"    requirements: {{{reqs}}}\n"
    )
    return p


def invocations(model: str, tmp_path: Path) -> list[tuple[str, tuple, str]]:
    """(command, argv, format) of every command on ``model``."""
    hw, tp = HW.get(model, ("h100", "1"))
    m = ("-m", model)
    dep = (*m, "-H", hw, "--tp", tp)
    spec = check_spec(tmp_path, model, hw, int(tp), ctx=4096, batch=2)
    plot = ("-m", model, "-H", hw, "--tp", tp, "--max-ctx", "4096")
    draft = ("--mtp", "1") if model == "deepseek-v3" else ("--draft", "llama3-8b")
    return [
        ("memory", ("memory", *m, "--ctx", "4096"), "json"),
        ("memory", ("memory", *m, "--ctx", "4096", "-H", hw, "--gpus", tp), "json"),
        (
            "capacity",
            ("capacity", *dep, "--ctx", "4096", "--shared-prefix", "1000", "--users", "4"),
            "json",
        ),
        ("capacity", ("capacity", *dep, "--ctx", "4096"), "csv"),
        ("latency", ("latency", *dep, "--prompt", "1000", "--gen", "100", "-b", "2"), "json"),
        ("roofline", ("roofline", *dep, "--prompt", "1000", "--gen", "1"), "json"),
        ("flops", ("flops", *m, "--prompt", "1000"), "json"),
        ("flops", ("flops", *dep, "--prompt", "1000", "--gen", "10"), "json"),
        ("cost", ("cost", *dep, "--ctx", "4096"), "json"),
        (
            "cost",
            (
                "cost",
                *dep,
                "--ctx",
                "4096",
                "--prompt",
                "1000",
                "--max-tpot-ms",
                "100",
                "--max-ttft-ms",
                "100000",
            ),
            "json",
        ),
        ("cost", ("cost", *dep, "--ctx", "4096", "--max-tpot-ms", "0.001"), "json"),
        ("sweep", ("sweep", *m, "-H", hw, "--tp", tp, "--ctx", "1024,4096"), "json"),
        ("sweep", ("sweep", *m, "-H", hw, "--tp", tp, "--ctx", "1024"), "csv"),
        ("check", ("check", spec), "json"),
        ("check", ("check", spec), "csv"),
        *[
            ("plot", ("plot", kind, *plot), f)
            for kind in ("roofline", "memory", "capacity")
            for f in ("json", "csv")
        ],
        (
            "speculate",
            ("speculate", *m, "-H", hw, "--tp", tp, *draft, "--gamma", "2", "--alpha", "0.7"),
            "json",
        ),
    ]


LISTINGS = [("models", ("models",), "json"), ("hardware", ("hardware",), "json")]
CSV_PREFIX = {"sweep": "rows[].", "plot": "rows[].", "check": "results[]."}


def emitted(cli, command: str, argv: tuple, fmt: str) -> set[str]:
    r = cli(*argv, "-f", fmt)
    assert r.code in (0, 1), f"kvcalc {' '.join(map(str, argv))} -f {fmt}: {r.err}"
    if fmt == "json":
        return flatten(r.json())
    return csv_keys(r.out, CSV_PREFIX.get(command, ""))


def test_registry_entries_are_complete():
    from calc.names import SCOPES, UNITS

    for key, n in NAMES.items():
        assert n.unit in UNITS, f"{key}: unit {n.unit!r} not one of {UNITS}"
        assert n.scope in SCOPES, f"{key}: scope {n.scope!r} not one of {SCOPES}"
        assert n.meaning and "\n" not in n.meaning, key
        assert n.commands, key


@pytest.mark.parametrize("model", MODELS)
def test_every_emitted_key_is_registered(cli, tmp_path, model):
    missing: dict[str, set[str]] = {}
    undeclared: dict[str, set[str]] = {}
    runs = invocations(model, tmp_path) + (LISTINGS if model == MODELS[0] else [])
    for command, argv, fmt in runs:
        for key in emitted(cli, command, argv, fmt):
            entry = lookup(key)
            if entry is None:
                missing.setdefault(key, set()).add(command)
            elif command not in entry.commands:
                undeclared.setdefault(key, set()).add(command)
    lines = [f"  {k}  (from {', '.join(sorted(c))})" for k, c in sorted(missing.items())]
    assert not missing, "keys missing from calc/names.py NAMES:\n" + "\n".join(lines)
    lines = [f"  {k}: add {', '.join(sorted(c))}" for k, c in sorted(undeclared.items())]
    assert not undeclared, "commands not listed in their NAMES entry:\n" + "\n".join(lines)


def test_docs_page_is_current():
    page = ROOT / "docs" / "names.md"
    assert page.read_text() == render_markdown(), "run: python -m calc.names > docs/names.md"
