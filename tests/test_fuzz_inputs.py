"""Fuzz targets (issue 26, deliver 3) for the inputs the hostile corpora aim at beyond the
loaders of tests/test_fuzz_loaders.py: the trace CSV reader, the engine start-up log parsers as
`kvcalc log` reads them (every log in tests/data/engine_logs as a seed), and the option parsers
of `plan` and `simulate`. Each runs in the suite derandomized (the same inputs every run) with a
bounded number of examples, a few seconds of work; for a longer random campaign:
``KVCALC_FUZZ_EXAMPLES=2000 KVCALC_FUZZ_RANDOM=1 pytest tests/test_fuzz_inputs.py``.

An outcome is a result (the output parses) or one ``kvcalc: error:`` line with exit 2 after
any warnings; a traceback, another exit status, a broken line or a hang fails the target.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calc.errors import ConfigError

EXAMPLES = int(os.environ.get("KVCALC_FUZZ_EXAMPLES", "40"))
RANDOM = os.environ.get("KVCALC_FUZZ_RANDOM") == "1"
LOGS = Path(__file__).parent / "data" / "engine_logs"


def fuzz_settings(examples: int):
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def check_outcome(r, results=(0,), parse=json.loads) -> None:
    assert "Traceback" not in r.out + r.err, r.err[-2000:]
    if r.code in results:
        parse(r.out)  # a result parses
        return
    assert r.code == 2, (r.code, r.err[-500:])
    lines = r.err.splitlines()
    assert lines and lines[-1].startswith("kvcalc: error: "), r.err[-500:]
    assert all(x.startswith("kvcalc: warning: ") for x in lines[:-1]), r.err[-500:]
    assert r.err.count("\n") == len(lines)  # no line broken by a newline from the input


# ----------------------------------------------------------------------------------------
# Values a user (or an attacker) types

NUMBERS = [
    "0", "-1", "1", "2", "7", "1.5", "0.5", "1e3", "1e-9", "1e308", "-1e308", "1e400", "nan",
    "NaN", "inf", "-inf", "Infinity", "99999999999999999999999", "0x10", "1_000", "", " ", " 5",
    "5 ", "\u0661", "1e", "--1", "+3", "1,2", "\x00", "\x1b[2J", "9" * 400,
]  # fmt: skip
DURATIONS = ["1s", "50ms", "200us", "2", "0s", "-1s", "1e400s", "nan", "infs", "1min", "soon",
             "", "1e-12s", "1e9s", "5 ms", "ms"]  # fmt: skip
LENGTHS = ["64", "2048", "uniform:100:4000", "uniform:9:3", "lognormal:2048:0.5",
           "lognormal:x:1", "lognormal:1e9:1", "gamma:1:2", "fixed:8", "uniform:1", "0",
           "1e6", "histogram:1"]  # fmt: skip
numbers = st.sampled_from(NUMBERS) | st.integers(-(2**70), 2**70).map(str) | st.floats().map(
    repr
)
durations = st.sampled_from(DURATIONS) | numbers
lengths = st.sampled_from(LENGTHS) | numbers


def options(spec: dict[str, st.SearchStrategy], required: set[str]) -> st.SearchStrategy:
    """A list of command-line arguments: each required option (almost always) and each other
    option (sometimes) with a drawn value, in a drawn order."""

    @st.composite
    def build(draw) -> list[str]:
        chosen = []
        for flag, values in spec.items():
            p = 0.95 if flag in required else 0.3
            if draw(st.floats(0, 1)) < p:
                value = draw(values)
                chosen.append([flag] if value is None else [flag, value])
        order = draw(st.permutations(chosen)) if chosen else []
        return [a for pair in order for a in pair]

    return build()


# ----------------------------------------------------------------------------------------
# Trace CSV reader

HEAD = "arrival_s,prompt_tokens,output_tokens"
TRACES = [
    f"{HEAD}\n0,512,64\n0.5,1024,128\n1.25,2048,16\n",
    f"user,{HEAD},note\na,0.1,100,10,\"x, y\"\nb,0.2,200,20,z\n",
    f"\ufeff{HEAD}\r\n3,10,1\r\n1,20,2\r\n2,30,3\r\n",  # out of order, CRLF, BOM
]
CELLS = ["0", "1", "-1", "1.5", "1e3", "1e400", "nan", "inf", "", " ", "x", '"', '""', "\r",
         "\n", "\r\n", ",", "\x00", "0x10", "1_0", "9" * 40, "\ufeff", "1e-300",
         "1000000000.5"]  # fmt: skip


@st.composite
def traces(draw) -> bytes:
    text = draw(st.sampled_from(TRACES))
    op = draw(st.sampled_from(["cells", "lines", "ends", "splice"]))
    if op == "cells":  # one to three cells replaced by a nasty value
        rows = [r.split(",") for r in text.split("\n")]
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(rows) - 1))
            if rows[i]:
                j = draw(st.integers(0, len(rows[i]) - 1))
                rows[i][j] = draw(st.sampled_from(CELLS) | st.text(max_size=6))
        text = "\n".join(",".join(r) for r in rows)
    elif op == "lines":  # lines deleted, duplicated or swapped
        lines = text.split("\n")
        for _ in range(draw(st.integers(1, 3))):
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            kind = draw(st.sampled_from(["del", "dup", "swap"]))
            if kind == "del" and len(lines) > 1:
                del lines[i]
            elif kind == "dup":
                lines.insert(i, lines[j])
            else:
                lines[i], lines[j] = lines[j], lines[i]
        text = "\n".join(lines)
    elif op == "ends":  # every line end one of LF, CRLF, CR, or none
        end = draw(st.sampled_from(["\r", "\r\n", "\n\n", "\r\r\n", ""]))
        text = text.replace("\r\n", "\n").replace("\n", end)
    raw = text.encode("utf-8", "surrogatepass")
    if op == "splice":
        start = draw(st.integers(0, len(raw)))
        end = draw(st.integers(start, min(len(raw), start + 16)))
        raw = raw[:start] + draw(st.binary(max_size=16)) + raw[end:]
    return raw


def test_fuzz_trace_csv_reader(tmp_path):
    from calc.serve.workload import MAX_CTX, load_trace_csv

    path = tmp_path / "trace.csv"

    @fuzz_settings(EXAMPLES * 5)
    @given(traces())
    def target(raw: bytes) -> None:
        path.write_bytes(raw)
        try:
            t = load_trace_csv(path)
        except ConfigError as exc:
            message = str(exc)
            assert message.startswith(str(path)) and "\n" not in message, message
            return
        assert len(t) >= 1 and list(t.arrival_s) == sorted(t.arrival_s)
        assert all(1 <= n <= MAX_CTX for n in t.prompt + t.gen)
        assert all(0 <= a <= 1e9 for a in t.arrival_s)

    target()


def test_fuzz_trace_through_simulate(cli, tmp_path):
    path = tmp_path / "trace.csv"

    @fuzz_settings(EXAMPLES // 2)
    @given(traces())
    def target(raw: bytes) -> None:
        path.write_bytes(raw)
        check_outcome(cli("simulate", "-m", "llama3-8b", "-H", "h100", "--trace", path,
                          "-f", "json"))  # fmt: skip

    target()


# ----------------------------------------------------------------------------------------
# Engine start-up logs (`kvcalc log`)

LOG_SEEDS = sorted(p.name for p in LOGS.glob("*.log"))
LOG_TOKENS = ["0", "-1", "1e400", "nan", "inf", "99999999999999999999", "0.0", "", "\x1b[2J",
              "GiB", "\r", "\t", "é", "1e-9", "3.5.7", "None"]  # fmt: skip


@st.composite
def logs(draw) -> bytes:
    text = (LOGS / draw(st.sampled_from(LOG_SEEDS))).read_text()
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["number", "delete", "duplicate", "truncate", "long"]))
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if not lines:
            break
        if op == "number":  # a number in a line replaced by a nasty token
            import re

            spots = list(re.finditer(r"\d+(\.\d+)?", lines[i]))
            if spots:
                m = draw(st.sampled_from(spots))
                token = draw(st.sampled_from(LOG_TOKENS))
                lines[i] = lines[i][: m.start()] + token + lines[i][m.end() :]
        elif op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[draw(st.integers(0, len(lines) - 1))])
        elif op == "truncate":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        else:  # a long line (the parsers must stay linear in it)
            lines[i] = lines[i].rstrip("\n") + "x" * draw(st.integers(1000, 100_000)) + "\n"
    raw = "".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        start = draw(st.integers(0, len(raw)))
        raw = raw[:start] + draw(st.binary(max_size=24)) + raw[start:]
    return raw


@pytest.mark.parametrize("model", [None, "llama3-8b"])
def test_fuzz_engine_logs(cli, tmp_path, model):
    path = tmp_path / "engine.log"
    extra = ("-m", model) if model else ()

    @fuzz_settings(EXAMPLES)
    @given(logs())
    def target(raw: bytes) -> None:
        path.write_bytes(raw)
        check_outcome(cli("log", path, *extra, "-f", "json"))

    target()


# ----------------------------------------------------------------------------------------
# `plan` and `simulate` options

FORMATS = st.sampled_from(["json", "json", "csv", "table", "yaml", ""])
PLAN = {
    "-m": st.sampled_from(
        ["llama3-8b", "qwen3-30b-a3b", "llama3-8b,llama3-8b", "", "nope", ",", "hf:x"]
    ),
    "--rate": numbers,
    "--prompt": lengths,
    "--gen": lengths,
    "--ttft-p99": durations,
    "--tpot-p99": durations,
    "-H": st.sampled_from(["h100", "h100,h200", "b200", ",", "", "nope"]),
    "--engine": st.sampled_from(["vllm", "sglang", "trtllm", "vllm,sglang", "", "x"]),
    "--method": st.sampled_from(["analytic", "analytic", "analytic", "simulation", "auto", "x"]),
    "--max-gpus": numbers,
    "--budget-usd-per-hour": numbers,
    "--top": numbers,
    "--usd-per-hour": numbers,
    "--capex-usd-per-gpu": numbers,
    "--power-kw-per-gpu": numbers,
    "--pue": numbers,
    "--usd-per-kwh": numbers,
    "--amortise-years": numbers,
    "--seed": numbers,
    "--efficiency": st.sampled_from(["low", "expected", "high", "peak", "x"]),
    "--no-disaggregation": st.none(),
    "-f": FORMATS,
}
SIMULATE = {
    "-m": st.sampled_from(["llama3-8b", "qwen3-30b-a3b", "", "nope"]),
    "-H": st.sampled_from(["h100", "b200", "", "nope"]),
    "--rate": numbers,
    "-n": st.sampled_from(["1", "5", "20", "0", "-1", "1e9", "10000000", "x", ""]),
    "--prompt": lengths,
    "--gen": lengths,
    "--arrival": st.sampled_from(["poisson", "constant", "bursty", ""]),
    "--duration": durations,
    "--ttft-slo": durations,
    "--tpot-slo": durations,
    "--prefix-shared": numbers,
    "--sweep-rate": st.sampled_from(["1:4:1", "5:1:1", "0:10:0", "1,2", "a,b", "1:100000:1"]),
    "--seed": numbers,
    "--tp": numbers,
    "--gpus": numbers,
    "--max-model-len": numbers,
    "--mem-util": numbers,
    "--efficiency": st.sampled_from(["low", "expected", "high", "peak", "x"]),
    "-f": FORMATS,
}


def _parse_for(args: list[str]):
    fmt = args[args.index("-f") + 1] if "-f" in args else "table"
    return json.loads if fmt == "json" else str


@pytest.mark.parametrize(
    ("command", "spec", "required"),
    [
        ("plan", PLAN, {"-m", "--rate", "--prompt", "--gen", "--ttft-p99", "--tpot-p99", "-H",
                        "--method"}),
        ("simulate", SIMULATE, {"-m", "-H", "--rate", "-n"}),
    ],
)  # fmt: skip
def test_fuzz_options(cli, command, spec, required):
    @fuzz_settings(EXAMPLES)
    @given(options(spec, required))
    def target(args: list[str]) -> None:
        if command == "simulate" and "--sweep-rate" in args and "-f" not in args:
            args = [*args, "-f", "json"]  # a latency-rate chart needs a terminal or a file
        check_outcome(cli(command, *args), parse=_parse_for(args))

    target()
