"""Issue 26: the larger hostile corpus, generated from the CLI itself so that a new option or
command is covered without a new line here: absurd numbers on every option of every command,
every file input given a directory, a FIFO, /dev/zero, a binary file, an empty file and a
huge line, and every output flag given a path that cannot or must not be written. Each run
is a result or one ``kvcalc: error:`` line with exit 2; no traceback, nothing destroyed, no
temp file left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typer

from calc.cli.app import COMMANDS, build_app
from tests.hostile_corpus import every_command

ABSURD = ["nan", "-1", "0", "1e308", "99999999999999999999999"]
PARAMS = {
    name: [p for p in command.params if p.opts[0].startswith("--")]
    for name, command in typer.main.get_command(build_app()).commands.items()
}


def outcome(r, command: str) -> None:
    assert "Traceback" not in r.out + r.err, r.err[-1000:]
    if r.code == 0 or (r.code == 1 and command == "check"):
        return
    lines = [x for x in r.err.splitlines() if not x.startswith("kvcalc: warning: ")]
    assert r.code == 2 and len(lines) == 1 and lines[0].startswith("kvcalc: error: "), (
        r.code, r.err[-500:])  # fmt: skip


def test_the_corpus_covers_every_command():
    assert set(PARAMS) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - {"measure"}))
def test_absurd_numbers_on_every_option(cli, tmp_path, command):
    base = every_command(tmp_path)[command]
    tried = 0
    for p in PARAMS[command]:
        if p.is_flag or getattr(p.type, "name", "") == "path":
            continue  # booleans take no value; paths are the file corpus below
        for value in ABSURD:
            outcome(cli(*base, p.opts[0], value), command)
            tried += 1
    assert tried >= 5 * len(ABSURD) or command in ("models", "hardware", "import-hf", "check")


@pytest.mark.parametrize(
    "args",
    [("--repeats", "0"), ("--repeats", "99999999999"), ("--warmup", "-1"),
     ("--max-spread", "nan"), ("--max-spread", "inf"), ("--batch", "0"),
     ("--batch", "1e308"), ("--ctx", "99999999999"), ("--gemm-m", "-1"), ("--device", "tpu"),
     ("--dtype", "fp4"), ("--device", "cuda")],
)  # fmt: skip
def test_measure_arguments_are_refused_before_any_kernel(cli, args):
    # checked before torch is imported: no kernel runs, whether torch is installed or not
    r = cli("measure", "-m", "llama3-8b", "--device", "cpu", "--quick", *args)
    outcome(r, "measure")
    assert r.code == 2


def special_files(tmp_path: Path) -> dict[str, Path]:
    d = tmp_path / "special"
    d.mkdir()
    (d / "dir.yaml").mkdir()
    os.mkfifo(d / "fifo.yaml")
    (d / "empty.yaml").write_bytes(b"")
    (d / "binary.yaml").write_bytes(bytes(range(256)) * 64)
    (d / "hugeline.yaml").write_bytes(b"a: " + b"x" * 3_000_000 + b"\n")
    return {
        "directory": d / "dir.yaml",
        "fifo": d / "fifo.yaml",
        "dev_zero": Path("/dev/zero"),
        "binary": d / "binary.yaml",
        "empty": d / "empty.yaml",
        "huge_line": d / "hugeline.yaml",
        "missing": d / "missing.yaml",
    }


FILE_INPUTS = {
    "memory": ["--model", "--hardware"], "capacity": ["--model", "--hardware", "--calibration"],
    "cost": ["--model", "--hardware", "--calibration"],
    "sweep": ["--model", "--hardware", "--calibration"],
    "flops": ["--model"], "latency": ["--model", "--hardware", "--calibration"],
    "speculate": ["--model", "--draft"], "plot": ["--model"], "train": ["--model", "--hardware"],
    "simulate": ["--model", "--hardware", "--trace", "--calibration"], "plan": ["--model"],
    "log": [None, "--model", "--calibration"], "check": [None, "--calibration"],
    "import-hf": [None], "measure": ["--model"],
    "score": [None, "--model", "--hardware", "--log", "--calibration"],
}  # fmt: skip


def with_file(base: tuple[str, ...], flag: str | None, path: Path) -> list[str]:
    args = list(base)
    if flag is None:  # the command's file argument
        args[1] = str(path)
        return args
    short = {"--model": "-m", "--hardware": "-H"}.get(flag)
    for f in (flag, short):
        if f in args:
            args[args.index(f) + 1] = str(path)
            return args
    return [*args, flag, str(path)]


@pytest.mark.parametrize("command", sorted(FILE_INPUTS))
def test_every_file_input_refuses_what_is_not_a_file(cli, tmp_path, command):
    base = every_command(tmp_path).get(command)
    if command == "measure":
        base = ("measure", "-m", "llama3-8b", "--device", "cpu", "--quick")
    files = special_files(tmp_path)
    assert set(COMMANDS) - {"models", "hardware", "roofline"} <= set(FILE_INPUTS)
    for flag in FILE_INPUTS[command]:
        for kind, path in files.items():
            r = cli(*with_file(base, flag, path))
            outcome(r, command)
            assert r.code == 2, (command, flag, kind, r.err)
            assert str(path) in r.err, (command, flag, kind, r.err)


OUTPUTS = {
    "memory": ["--output"], "sweep": ["--output"], "plan": ["--output"], "simulate": ["--output"],
    "log": ["--output", "--save-calibration"], "check": ["--output", "--junit"],
    "import-hf": ["--output"], "plot": ["--output"], "train": ["--output"],
    "score": ["--output", "--save-calibration"],
}  # fmt: skip


def bad_outputs(tmp_path: Path) -> dict[str, Path]:
    d = tmp_path / "outs"
    d.mkdir()
    (d / "dir").mkdir()
    os.mkfifo(d / "fifo")
    (d / "ro.txt").write_text("keep\n")
    (d / "ro.txt").chmod(0o444)
    (d / "file").write_text("keep\n")
    (d / "link_dir").symlink_to(d / "dir")
    (d / "dangling").symlink_to(d / "nowhere" / "x")
    return {
        "directory": d / "dir",
        "fifo without a reader": d / "fifo",
        "read-only file": d / "ro.txt",
        "missing folder": d / "nowhere" / "x",
        "under a file": d / "file" / "x",
        "name too long": d / ("x" * 300),
        "link to a directory": d / "link_dir",
        "dangling link into nowhere": d / "dangling",
    }


@pytest.mark.parametrize("command", sorted(OUTPUTS))
def test_every_output_flag_refuses_what_cannot_be_written(cli, tmp_path, command):
    base = every_command(tmp_path)[command]
    for flag in OUTPUTS[command]:
        d = tmp_path / flag.strip("-")
        d.mkdir()
        for kind, path in bad_outputs(d).items():
            r = cli(*base, flag, path)
            outcome(r, command)
            assert r.code == 2, (command, flag, kind)
            outs = d / "outs"
            assert (outs / "ro.txt").read_text() == "keep\n"
            assert (outs / "file").read_text() == "keep\n"
            assert not [p for p in outs.rglob(".kvcalc-*")], (command, flag, kind)
