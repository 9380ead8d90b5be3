"""`kvcalc log` on wrapped logs (issue 21, Deliver 3): every shipped start-up log folded at a
terminal's or ``fold``'s width, with CRLF line ends, or behind a log collector's prefix, gives
the same JSON report as the log itself; a settings dict wrapped over many lines keeps every
setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.deploy.engines.fromlog import read_log
from calc.deploy.engines.logscan import with_continuations, wrap_width
from tests.test_engine_log import RUNS

LOGS = sorted((Path(__file__).parent / "data" / "engine_logs").glob("*.log"))
# the model and settings each log leaves unsaid (as tests/test_engine_log.py runs them)
ARGS = {name: ("-m", model, *extra) for name, (model, extra) in RUNS.items()}
ARGS["vllm-24gb-qwen3-8b-lmcache3430"] = ("-m", "docs/validation/qwen3-8b.yaml")
ARGS["vllm-a100-80g-llama31-8b-0.31.0"] = ("-m", "llama3.1-8b", "--hardware", "a100-80g")
TP2 = Path(__file__).parent / "data" / "engine_logs" / "vllm-h100-llama31-8b-tp2.log"


def fold(text: str, width: int) -> str:
    """``fold -w width``: every line cut into pieces of ``width`` characters."""
    out = []
    for line in text.splitlines():
        out += [line[i : i + width] for i in range(0, len(line), width)] or [""]
    return "\n".join(out) + "\n"


def _report(cli, path: Path, *args: str) -> dict:
    r = cli("log", path, "-f", "json", *args)
    assert r.code == 0, r.err
    report = r.json()
    report.pop("log", None)  # the file's name
    return report


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.stem)
def test_every_shipped_log_folded_reads_as_itself(cli, tmp_path, log):
    text = log.read_text()
    assert all(line.isascii() for line in text.splitlines())  # fold counts bytes: same here
    args = ARGS.get(log.stem, ())
    want = _report(cli, log, *args)
    variants = {f"fold{w}": fold(text, w) for w in (60, 80, 100, 120)}
    variants["crlf"] = text.replace("\n", "\r\n")
    variants["crlf-fold80"] = fold(text, 80).replace("\n", "\r\n")
    # docker compose puts its prefix on every piece of a line it splits
    variants["docker-fold100"] = "".join(f"vllm-1  | {p}\n" for p in fold(text, 100).splitlines())
    for name, body in variants.items():
        path = tmp_path / f"{name}.log"
        path.write_bytes(body.encode())
        assert _report(cli, path, *args) == want, name


def test_a_tp2_log_folded_at_100_keeps_its_tensor_parallel_size(cli, tmp_path):
    # the audit's case: the non-default args dict (226 characters) over three lines at 100
    path = tmp_path / "tp2.log"
    path.write_text(fold(TP2.read_text(), 100))
    assert len(fold(TP2.read_text(), 100).splitlines()) > len(TP2.read_text().splitlines())
    r = cli("log", path, "-f", "json")
    assert r.code == 0, r.err
    assert "tensor_parallel_size" not in r.err  # stated, not a default taken
    assert read_log(path.read_text()).settings["tp"] == 2


def test_a_prefixed_record_joins_all_its_pieces():
    # a vLLM line behind its process prefix, cut into five pieces of 30 characters: one record
    line = ("(APIServer pid=123) INFO 11-02 10:00:00 [api_server.py:1] non-default args: "
            "{'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'tensor_parallel_size': 4}")
    pieces = [line[i : i + 30] for i in range(0, len(line), 30)]
    records = list(with_continuations([*pieces, "(APIServer pid=123) INFO next record"]))
    assert [r.text for r in records] == [line, "(APIServer pid=123) INFO next record"]
    assert read_log([*pieces, "GPU KV cache size: 100 tokens"]).settings["tp"] == 4


def test_separate_records_are_not_joined():
    # each line starts with a record prefix (vLLM, SGLang, TensorRT-LLM, uvicorn, a date): none
    # is joined to the one before
    lines = [
        "INFO 11-02 10:00:00 [a.py:1] one",
        "(EngineCore pid=9) WARNING 11-02 10:00:01 [b.py:2] two",
        "[2025-11-02 10:00:02 TP0] three",
        "[TensorRT-LLM][INFO] four",
        "[11/02/2025-10:00:03] [TRT-LLM] [I] five",
        "INFO:     127.0.0.1:5000 - six",
        "2025-11-02 10:00:04,123 seven",
    ]
    assert [r.text for r in with_continuations(lines)] == lines


def test_unprefixed_lines_are_joined_only_at_the_wrap_width():
    # a log without prefixes: lines of different lengths are separate records; an open bracket
    # joins the next line; the longest length, twice, is the wrap width
    separate = ["Model loading took 14.99 GiB memory", "GPU KV cache size: 476,016 tokens"]
    assert wrap_width(separate) is None
    assert [r.text for r in with_continuations(separate)] == separate
    dict_lines = ["non-default args: {'model_tag': 'x',", " 'tensor_parallel_size': 2}", "end"]
    assert [r.text for r in with_continuations(dict_lines)] == ["".join(dict_lines[:2]), "end"]
    wrapped = ["a" * 50, "b" * 50, "c" * 7, "GPU KV cache size: 10 tokens"]
    assert wrap_width(wrapped) == 50
    assert [r.text for r in with_continuations(wrapped)] == ["a" * 50 + "b" * 50 + "c" * 7,
                                                             wrapped[3]]


def test_an_sglang_server_args_dump_wrapped_over_many_lines_keeps_its_settings():
    # SGLang's "server_args=ServerArgs(...)" behind its prefix, cut at 40 columns: every piece
    # after the first starts with no prefix and joins the record
    line = ("[2025-11-02 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-32B', "
            "tokenizer_path='Qwen/Qwen3-32B', mem_fraction_static=0.83, tp_size=4, dp_size=1, "
            "chunked_prefill_size=8192, context_length=32768)")
    pieces = [line[i : i + 40] for i in range(0, len(line), 40)]
    allocated = ("[2025-11-02 10:00:05 TP0] KV Cache is allocated. #tokens: 1000, K size: "
                 "1.00 GB, V size: 1.00 GB")
    s = read_log([*pieces, allocated], "sglang").settings
    assert (s["tp"], s["memory_fraction"], s["max_batched_tokens"]) == (4, 0.83, 8192)
    assert s["max_model_len"] == 32768


def test_an_unclosed_bracket_does_not_swallow_the_rest_of_a_log():
    # a log without prefixes whose first line leaves a bracket open, then 100,000 characters of
    # noise: the joined record ends at MAX_LINE_CHARS and the start-up lines after it still read
    text = TP2.read_text()
    noisy = "Loading model (step 1 of\n" + ("x" * 99 + "\n") * 1000 + text
    assert read_log(noisy).settings == read_log(text).settings
    assert read_log(noisy).printed == read_log(text).printed
