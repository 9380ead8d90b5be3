"""`kvcalc log` and `kvcalc capacity` under bad input (issue 21, eighth round): every kind of
wrong file, stream and --engine-version gives one `kvcalc: error:` line and exit 2, or a result
with a warning, never a traceback."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from calc.deploy.engines.fromlog import _printed_release
from calc.deploy.engines.versions import parse_version

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "data" / "engine_logs"
VLLM_LOG = LOGS / "vllm-h100-llama31-8b-tp1.log"  # prints no version of its own
CAPACITY = ("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "-f", "json")


def _one_error_line(r, message: str) -> None:
    assert r.code == 2, (r.code, r.err)
    errors = [ln for ln in r.err.splitlines() if not ln.startswith("kvcalc: warning:")]
    assert len(errors) == 1 and errors[0].startswith("kvcalc: error:"), r.err
    assert message in errors[0], r.err
    assert "Traceback" not in r.err


@pytest.mark.parametrize(
    "text",
    [
        "0..19",  # a doubled dot used to read as "0", the newest 0.x, silently
        "99999999999999999999",  # used to read as 9999 (its first four digits)
        "0.19\x01",  # a control character after the number
        "\uff10.\uff11\uff19",  # full-width digits (str.isdigit, not ASCII)
        "",
        "abc",
        "-1",
        "0.19.0.",
        "1.2.3.4.5",
    ],
)
def test_a_version_that_is_not_one_is_refused_by_capacity_and_log(cli, text):
    assert parse_version(text) is None
    _one_error_line(cli(*CAPACITY, "--engine-version", text), "is not a version number")
    # `log --engine-version ""` used to fall back to the log's version without a word
    _one_error_line(cli("log", VLLM_LOG, "--engine-version", text), "is not a version number")


@pytest.mark.parametrize(
    ("engine", "text", "release"),
    [
        ("vllm", "0.19.0rc1", "0.19.0"),
        ("vllm", "v0.19.0", "0.19.0"),
        ("vllm", " 0.19 ", "0.19.1"),  # a prefix: the newest 0.19 release modelled
        ("vllm", "0.11.1.dev0+gb8b302cde.d20251103", "0.11.1"),
        ("vllm", "0.10.1.1", "0.10.1.1"),
        ("sglang", "0.5.4.post1", "0.5.4"),
        ("trtllm", "1.0.0rc4", "1.0.0"),
    ],
)
def test_build_tags_name_their_release(cli, engine, text, release):
    r = cli(*CAPACITY, "--engine", engine, "--engine-version", text)
    assert r.code == 0, r.err
    assert r.json()["engine_version"] == release
    assert "not modelled" not in r.err


@pytest.mark.parametrize("text", ["0.999", "1.0", "9999"])
def test_an_unmodelled_version_is_predicted_with_the_nearest_and_said(cli, text):
    # above every modelled vLLM release: the newest, with a warning, in both commands
    for r in (cli(*CAPACITY, "--engine-version", text),
              cli("log", VLLM_LOG, "-f", "json", "--engine-version", text)):  # fmt: skip
        assert r.code == 0, r.err
        assert f"vllm {text} is not modelled: using the nearest modelled release 0.33.0" in r.err


def test_a_printed_version_kvcalc_cannot_read_falls_back_to_its_numbers(cli, tmp_path):
    assert _printed_release("0.19.0-1") == "0.19.0"
    assert _printed_release("v0.11.0") == "v0.11.0"
    assert _printed_release(None) is None
    log = tmp_path / "v.log"
    log.write_text("INFO vLLM API server version 0.19.0-1\n" + VLLM_LOG.read_text())
    r = cli("log", log, "-f", "json")
    assert r.code == 0, r.err
    out = r.json()
    assert out["engine_version_printed"] == "0.19.0-1"
    assert out["engine_version_modelled"] == "0.19.0"


def test_a_forced_engine_that_is_not_the_logs_says_so(cli):
    # a vLLM log read as SGLang: not "not a vLLM, SGLang or TensorRT-LLM log"
    r = cli("log", VLLM_LOG, "--engine", "sglang")
    _one_error_line(r, "not a SGLang start-up log")
    assert "without --engine sglang kvcalc detects the engine" in r.err
    _one_error_line(cli("log", VLLM_LOG, "--engine", "trtllm"), "not a TensorRT-LLM start-up log")


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty: no lines to read"),  # '-' with nothing on stdin
        (b"\x00\x01\x02\xff" * 64, "binary data (a NUL byte)"),
        (b"\xff\xfe\xfd GPU \xc3\x28 KV\n", "not a vLLM, SGLang or TensorRT-LLM start-up log"),
        # another program's log
        (b"llama_model_load: loaded meta data with 25 key-value pairs\n",
         "not a vLLM, SGLang or TensorRT-LLM start-up log"),
        # a vLLM line with no figure of the ones kvcalc reads
        ("INFO vLLM \u00e9\u200b Model loading took \uff11\uff14 GiB memory\n".encode(),
         "prints no KV-cache or memory figure"),
    ],
)
def test_bad_streams_on_stdin(cli, monkeypatch, data, message):
    _stdin(monkeypatch, data)
    _one_error_line(cli("log", "-"), message)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty: no lines to read"),
        (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)), "binary data (a NUL byte)"),
    ],
)
def test_bad_files(cli, tmp_path, content, message):
    path = tmp_path / "start\u00fcp.log"  # a non-ASCII name is named back as it is
    path.write_bytes(content)
    r = cli("log", path)
    _one_error_line(r, message)
    assert "start\u00fcp.log" in r.err


def test_a_file_that_cannot_be_read(cli, tmp_path, monkeypatch):
    # as root a mode-000 file is still readable: the OS refusal is simulated at the open
    import os

    path = tmp_path / "locked.log"
    path.write_text(VLLM_LOG.read_text())
    real_open = os.open

    def refuse(p, *a, **k):
        if str(p) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(p, *a, **k)

    monkeypatch.setattr(os, "open", refuse)
    _one_error_line(cli("log", path), "cannot read")


def test_a_truncated_log_gives_a_result_with_warnings(cli, tmp_path):
    # cut before the KV-cache lines: the weights line is still read and compared, and every
    # setting the cut-off lines would have stated is a named default
    text = VLLM_LOG.read_text()
    cut = text[: text.index("Memory profiling takes")]
    path = tmp_path / "cut.log"
    path.write_text(cut + "INFO 04-22 16:05 [gpu_worker.py] Memory prof")  # mid-line
    r = cli("log", path, "-f", "json")
    assert r.code == 0, r.err
    assert "kvcalc: warning:" in r.err and "Traceback" not in r.err
    terms = {t["term"]: t for t in r.json()["terms"]}
    assert terms["weights"]["printed"] is not None
    assert terms["tokens"]["printed"] is None


def test_a_large_log_is_streamed_to_its_end(cli, tmp_path):
    # 50 MB of noise before the start-up lines: read a piece at a time, the figures found
    noise = b"INFO 04-22 16:04:33 [core.py:105] " + b"x" * 90 + b"\n"
    path = tmp_path / "big.log"
    with path.open("wb") as fh:
        fh.write(noise * (50_000_000 // len(noise) + 1))
        fh.write(VLLM_LOG.read_bytes())
    assert path.stat().st_size > 50_000_000
    r = cli("log", path, "-f", "json")
    assert r.code == 0, r.err
    terms = {t["term"]: t for t in r.json()["terms"]}
    assert terms["tokens"]["printed"] == 476_016


def test_stdin_closed_or_a_terminal_is_refused(cli, monkeypatch):
    # `kvcalc log - <&-`: Python's sys.stdin is None (was an internal error)
    monkeypatch.setattr("sys.stdin", None)
    _one_error_line(cli("log", "-"), "stdin: closed")

    class Terminal(io.TextIOWrapper):
        def isatty(self) -> bool:
            return True

    # a terminal: reading would wait for someone to type a log
    monkeypatch.setattr("sys.stdin", Terminal(io.BytesIO(b"")))
    _one_error_line(cli("log", "-"), "stdin: is a terminal")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"\x00\x01\x02\x03" * 16, "binary file"),
        (b"name: [\n", "malformed YAML"),
        (b"- 1\n- 2\n", "expected a mapping of fields"),
        # full-width digits are not an integer; the value is described, not echoed
        ("name: x\nn_layers: \uff13\uff12\n".encode(), "got a string of 2 characters"),
    ],
)
def test_capacity_refuses_bad_model_and_hardware_files(cli, tmp_path, content, message):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    _one_error_line(cli("capacity", "-m", path, "-H", "h100", "--ctx", "8192"), message)
    if message in ("empty file", "binary file", "malformed YAML"):
        _one_error_line(cli("capacity", "-m", "llama3-8b", "-H", path, "--ctx", "8192"), message)


def test_capacity_refuses_a_directory_and_a_missing_file(cli, tmp_path):
    _one_error_line(cli("capacity", "-m", "llama3-8b", "-H", tmp_path, "--ctx", "8192"),
                    "is a directory")  # fmt: skip
    _one_error_line(cli("capacity", "-m", tmp_path / "no.yaml", "-H", "h100", "--ctx", "8192"),
                    "no such file")  # fmt: skip
