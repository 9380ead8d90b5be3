"""Hardening, round two (issue 14), through the CLI: what --output points at (FIFOs, devices,
the command's own inputs, long names, signals), what an input path is (regular files only,
never a blocking open, a size cap), numbers checked before arithmetic, no silent misreads
(duplicate keys, YAML 1.1 octal/base-60), and text from files made safe for terminals, SVG
and JUnit. Special files are made in a temp dir, never the real /dev entries."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import xml.dom.minidom
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

from calc.data.registry import data_dir

MODEL = (data_dir("model_configs") / "llama3-8b.yaml").read_text()
HF = Path(__file__).parent / "data" / "hf"
MEMORY = ("memory", "--model", "llama3-8b", "--ctx", "128")
SPEC = """deployments:
  - name: d1
    model: {model}
    hardware: h100
    workload: {{ctx: 1024, batch: 1}}
    requirements: {{must_fit: true}}
"""
CALIBRATION = """kind: kvcalc-calibration
hardware: h100
device: NVIDIA H100 80GB HBM3
created: "2026-01-01"
matmul: {low: 0.3, expected: 0.4, high: 0.5}
memory: {low: 0.4, expected: 0.44, high: 0.5}
"""


def one_line_error(r, *needles: str) -> None:
    assert r.code == 2, (r.code, r.out, r.err)
    assert "Traceback" not in r.err + r.out
    assert r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1, r.err
    for needle in needles:
        assert needle in r.err, r.err


@contextmanager
def unblock(fifo: Path, after_s: float = 20.0):
    """Should a regression open ``fifo`` for reading and block, a writer opens and closes
    it after ``after_s`` so the test fails on its assertions instead of hanging CI."""

    def release() -> None:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return  # nobody is blocked reading it: nothing to release
        os.close(fd)

    timer = threading.Timer(after_s, release)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def make_char_device(path: Path) -> Path:
    """A character device with /dev/null's numbers (1, 3), made in the temp dir (needs root
    and a container that allows it; skipped elsewhere)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        os.close(os.open(path, os.O_WRONLY))
    except (OSError, AttributeError) as exc:
        pytest.skip(f"cannot make a character device here: {exc}")
    return path


def make_socket(folder: Path, name: str = "s.yaml") -> Path:
    old = os.getcwd()
    os.chdir(folder)  # AF_UNIX paths are limited to ~108 bytes: bind by a short name
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(name)
        sock.close()
    finally:
        os.chdir(old)
    return folder / name


# ----------------------------------------------------------------------------------------
# 1. Output targets


def test_output_fifo_without_reader_is_refused_not_replaced(cli, tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    r = cli(*MEMORY, "-o", fifo)
    one_line_error(r, "no process is reading")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still a FIFO, not a regular file


def test_output_fifo_with_reader_is_written_in_place(cli, tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, as `cat fifo &` is
    try:
        r = cli(*MEMORY, "-f", "json", "-o", fifo)
        assert r.code == 0, r.err
        data = b""
        while chunk := os.read(reader, 65536):
            data += chunk
    finally:
        os.close(reader)
    assert json.loads(data)["kv_bytes_per_token"] == 131072  # 2 × 32 layers × 8 × 128 × 2 B
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo"]  # no temp file


def test_output_character_device_is_written_not_replaced(cli, tmp_path):
    null = make_char_device(tmp_path / "null")
    r = cli(*MEMORY, "-o", null)
    assert r.code == 0 and r.out == "", r.err
    assert stat.S_ISCHR(os.stat(null).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.format(model="llama3-8b"))
    r = cli("check", spec, "--junit", null, "-o", null)  # two outputs may share a device
    assert r.code == 0 and r.out == "", r.err


def test_output_dev_stdout_writes_to_stdout(cli):
    r = cli(*MEMORY, "-f", "json", "-o", "/dev/stdout")
    assert r.code == 0, r.err
    assert r.json()["kv_bytes_per_token"] == 131072


def test_output_dash_writes_to_stdout_not_a_file_named_dash(cli, tmp_path, monkeypatch):
    # qa: `-o -` (and `--per-request -`) wrote a file named "-" in the working folder, where
    # kvcalc reads "-" as standard input (log, score): "-" is standard output
    monkeypatch.chdir(tmp_path)
    r = cli(*MEMORY, "-f", "json", "-o", "-")
    assert r.code == 0, r.err
    assert r.json()["kv_bytes_per_token"] == 131072  # 2 × 8 × 128 × 2 B × 32 layers
    r = cli("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "2", "--prompt", "64",
            "--gen", "8", "--requests", "3", "--per-request", "-", "-o", "out.txt")  # fmt: skip
    assert r.code == 0, r.err
    assert [json.loads(line)["request"] for line in r.out.splitlines()] == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="Linux /proc")
def test_output_open_file_descriptor_is_written_in_place(cli, tmp_path):
    # `-o /dev/fd/3 3>file`: the shell opened the file; it is written through the fd, the
    # file (its inode) stays the one the shell holds, never renamed over
    out = tmp_path / "held.json"
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        inode = os.fstat(fd).st_ino
        r = cli(*MEMORY, "-f", "json", "-o", f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)
    assert r.code == 0, r.err
    assert json.loads(out.read_text())["ctx"] == 128 and out.stat().st_ino == inode


def test_output_socket_is_refused(cli, tmp_path):
    sock = make_socket(tmp_path, "out.sock")
    one_line_error(cli(*MEMORY, "-o", sock), "is a socket")


def test_output_that_is_the_model_input_is_refused(cli, tmp_path):
    model = tmp_path / "m.yaml"
    model.write_text(MODEL)
    r = cli("memory", "--model", model, "--ctx", "128", "-o", model)
    one_line_error(r, "is also an input of this command")
    assert model.read_text() == MODEL
    # through a symbolic link and a hard link to the same file, too
    (tmp_path / "link.yaml").symlink_to(model)
    os.link(model, tmp_path / "hard.yaml")
    for other in ("link.yaml", "hard.yaml"):
        r = cli("memory", "--model", tmp_path / other, "--ctx", "128", "-o", model)
        one_line_error(r, "is also an input")
        assert model.read_text() == MODEL


def test_a_file_read_by_one_command_may_be_written_by_the_next(cli, tmp_path):
    model = tmp_path / "m.yaml"
    model.write_text(MODEL)
    assert cli("memory", "--model", model, "--ctx", "8").code == 0
    r = cli(*MEMORY, "-f", "json", "-o", model)  # another run: m.yaml is not its input
    assert r.code == 0, r.err
    assert json.loads(model.read_text())["ctx"] == 128


def test_output_that_is_the_hardware_or_calibration_input_is_refused(cli, tmp_path):
    hw = tmp_path / "hw.yaml"
    hw.write_text((data_dir("hardware_profiles") / "h100.yaml").read_text())
    cal = tmp_path / "cal.yaml"
    cal.write_text(CALIBRATION)
    base = ("cost", "-m", "llama3-8b", "--ctx", "128")
    one_line_error(cli(*base, "-H", hw, "-o", hw), "is also an input")
    one_line_error(cli(*base, "-H", "h100", "--calibration", cal, "-o", cal), "also an input")
    assert cal.read_text() == CALIBRATION


def test_import_hf_onto_its_own_config_is_refused(cli, tmp_path):
    cfg = tmp_path / "config.json"
    text = (HF / "mistral-7b-v0.1.json").read_text()
    cfg.write_text(text)
    one_line_error(cli("import-hf", cfg, "-o", cfg), "is also an input")
    assert cfg.read_text() == text


def test_check_outputs_onto_the_spec_or_a_model_it_names_are_refused(cli, tmp_path):
    model = tmp_path / "m.yaml"
    model.write_text(MODEL)
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.format(model=model))
    before = {p: p.read_text() for p in (model, spec)}
    one_line_error(cli("check", spec, "--junit", spec), "--junit", "is also an input")
    one_line_error(cli("check", spec, "-o", model), "is also an input")
    assert {p: p.read_text() for p in (model, spec)} == before


def test_check_validates_every_output_before_writing_any(cli, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.format(model="llama3-8b"))
    junit = tmp_path / "junit.xml"
    junit.write_text("<previous/>\n")
    (tmp_path / "dir").mkdir()
    for bad in (tmp_path / "dir", tmp_path / "missing" / "out.json", spec):
        r = cli("check", spec, "--junit", junit, "-f", "json", "-o", bad)
        one_line_error(r, "--output")
        assert junit.read_text() == "<previous/>\n"  # the JUnit file was not written first
    r = cli("check", spec, "--junit", junit, "-o", junit)
    one_line_error(r, "is the same file as --junit")
    assert junit.read_text() == "<previous/>\n"
    r = cli("check", spec, "--junit", junit, "-f", "json", "-o", tmp_path / "out.json")
    assert r.code == 0, r.err
    assert xml.dom.minidom.parse(str(junit)).documentElement.tagName == "testsuites"


def test_output_through_a_symbolic_link_replaces_the_target_and_keeps_the_link(cli, tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old\n")
    link = tmp_path / "out.json"
    link.symlink_to(target)
    r = cli(*MEMORY, "-f", "json", "-o", link)
    assert r.code == 0, r.err
    assert link.is_symlink() and json.loads(target.read_text())["ctx"] == 128
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "real.json"]


def test_longest_legal_output_name_is_written(cli, tmp_path):
    # the temp file's name has a fixed short length: a 255-byte output name still works
    out = tmp_path / ("a" * 250 + ".json")
    r = cli(*MEMORY, "-f", "json", "-o", out)
    assert r.code == 0, r.err
    assert json.loads(out.read_text())["ctx"] == 128
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("b" * 300 + ".json", "too long"),  # past NAME_MAX (255 bytes)
        ("c/" * 2100 + "x.json", "too long"),  # past PATH_MAX (4,096 bytes)
    ],
)
def test_os_errors_on_output_paths_are_one_line(cli, tmp_path, name, needle):
    one_line_error(cli(*MEMORY, "-o", f"{tmp_path}/{name}"), needle)


SIGNAL_SCRIPT = """
import os, signal, sys
# the signal as a user's shell leaves it: a suite run under nohup or as `cmd &` in a script
# ignores SIGHUP or SIGINT, which this child inherits and kvcalc (rightly) keeps ignoring
if signal.getsignal(signal.{sig}) == signal.SIG_IGN:
    signal.signal(signal.{sig}, signal.default_int_handler if signal.{sig} == signal.SIGINT
                  else signal.SIG_DFL)
from calc.output import safe_io

def interrupted(fh, content):
    fh.write(b"half a file")
    fh.flush()
    os.kill(os.getpid(), signal.{sig})

safe_io._write_to = interrupted
from calc.cli import main
main(["memory", "--model", "llama3-8b", "--ctx", "8", "-o", sys.argv[1]])
"""


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
@pytest.mark.parametrize(
    ("sig", "status"), [("SIGTERM", -signal.SIGTERM), ("SIGHUP", -signal.SIGHUP), ("SIGINT", 130)]
)
def test_signal_during_write_removes_the_temp_file(tmp_path, sig, status):
    out = tmp_path / "out.txt"
    out.write_text("previous\n")
    script = SIGNAL_SCRIPT.format(sig=sig)
    p = subprocess.run([sys.executable, "-c", script, str(out)], capture_output=True, text=True)
    assert p.returncode == status, p.stderr
    assert "Traceback" not in p.stderr
    assert out.read_text() == "previous\n"
    assert [x.name for x in tmp_path.iterdir()] == ["out.txt"]  # no temp file left


# ----------------------------------------------------------------------------------------
# 2. Input paths


def _every_reader(path: Path, tmp_path: Path) -> dict[str, tuple]:
    """The CLI arguments that read ``path`` as each kind of input."""
    spec = tmp_path / "spec-naming-it.yaml"
    spec.write_text(SPEC.format(model=path))
    return {
        "model": ("memory", "--model", path, "--ctx", "128"),
        "hardware": ("memory", "--model", "llama3-8b", "--ctx", "128", "-H", path),
        "spec": ("check", path),
        "model named in a spec": ("check", spec),
        "calibration": ("cost", *MEMORY[1:], "-H", "h100", "--calibration", path),
        "config.json": ("import-hf", path),
    }


def test_fifo_inputs_are_refused_without_blocking(cli, tmp_path):
    fifo = tmp_path / "in.yaml"
    os.mkfifo(fifo)
    for what, args in _every_reader(fifo, tmp_path).items():
        with unblock(fifo):
            r = cli(*args)
        one_line_error(r, "is a FIFO (named pipe), expected a regular file")
        assert str(fifo) in r.err, what


def test_character_device_inputs_are_refused(cli, tmp_path):
    zero = tmp_path / "zero.yaml"
    try:  # /dev/zero's numbers (1, 5): read until memory runs out, were it read
        os.mknod(zero, stat.S_IFCHR | 0o444, os.makedev(1, 5))
    except (OSError, AttributeError) as exc:
        pytest.skip(f"cannot make a character device here: {exc}")
    for args in _every_reader(zero, tmp_path).values():
        one_line_error(cli(*args), "is a character device, expected a regular file")


def test_socket_and_directory_inputs_are_refused(cli, tmp_path):
    sock = make_socket(tmp_path)
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    for path, needle in ((sock, "is a socket"), (folder, "is a directory")):
        for args in _every_reader(path, tmp_path).values():
            one_line_error(cli(*args), needle, str(path))


def test_input_size_is_capped(cli, tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text(MODEL + "#" * 1_000_000 + "\n")
    one_line_error(cli("memory", "--model", big, "--ctx", "8"), "too large")


# ----------------------------------------------------------------------------------------
# 3. Validate before arithmetic


@pytest.mark.parametrize("size", ["1e400", "1e99999999", "9" * 5000 + "GB", "1e-99999999"])
def test_absurd_sizes_are_refused_before_arithmetic(cli, size):
    r = cli("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "128", "--overhead", size)
    one_line_error(r, "--overhead")


@pytest.mark.parametrize("ctx", ["9" * 5000, "1.." + "9" * 5000, "1..9:+" + "9" * 5000, "²", "١٢٣"])
def test_absurd_sweep_values_are_refused(cli, ctx):
    one_line_error(cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", ctx), "--ctx")


def _hf(tmp_path: Path, **changes) -> Path:
    data = json.loads((HF / "mistral-7b-v0.1.json").read_text())
    data.update(changes)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"head_dim": 0}, "head_dim"),  # was filled in as hidden_size / heads
        ({"num_attention_heads": 0}, "num_attention_heads"),  # a division by zero
        ({"hidden_size": "4096"}, "hidden_size"),
        ({"hidden_size": 4096.0}, "hidden_size"),
        ({"num_hidden_layers": True}, "num_hidden_layers"),
        ({"num_hidden_layers": 10**12}, "num_hidden_layers"),  # a per-layer list of 10^12
        ({"sliding_window": -1}, "sliding_window"),
        ({"tie_word_embeddings": "no"}, "tie_word_embeddings"),
        ({"layer_types": "full_attention"}, "layer_types"),
        ({"layer_types": [["full_attention"]] * 32}, "layer_types"),
        ({"layer_types": ["full_attention"] * 31}, "layer_types"),  # one short
        ({"layer_types": ["sliding_attention"] * 33}, "layer_types"),  # one long
        ({"model_type": ["mistral"]}, "model_type"),
    ],
)
def test_config_json_values_are_checked_before_use(cli, tmp_path, changes, key):
    path = _hf(tmp_path, **changes)
    r = cli("import-hf", path)
    one_line_error(r, str(path), repr(key))
    r = cli("memory", "--model", path, "--ctx", "8")  # the same through --model
    one_line_error(r, str(path), repr(key))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"model_type": "mistral", "hidden_size": 4096, "hidden_size": 8}', "duplicate key"),
        ('{"model_type": "mistral", "hidden_size": ' + "9" * 5000 + "}", "digits"),
        ('{"model_type": "mistral", "hidden_size": NaN}', "NaN"),
        ('{"model_type": "mistral", "hidden_size": Infinity}', "Infinity"),
    ],
)
def test_config_json_parse_is_strict(cli, tmp_path, text, needle):
    path = tmp_path / "config.json"
    path.write_text(text)
    one_line_error(cli("import-hf", path), str(path), needle)


def test_json_model_files_are_read_by_the_json_rules(cli, tmp_path):
    text = (HF / "mistral-7b-v0.1.json").read_text()
    path = tmp_path / "config.json"
    path.write_text(text.replace('"model_type"', '"_name_or_path": "org\\/name",\n"model_type"'))
    r = cli("memory", "--model", path, "--ctx", "8", "-f", "json")  # an escaped slash: legal JSON
    assert r.code == 0, r.err
    path.write_text(text.replace("{", '{"vocab_size": 7,', 1))
    one_line_error(cli("memory", "--model", path, "--ctx", "8"), "duplicate key 'vocab_size'")


# ----------------------------------------------------------------------------------------
# 4. No silent misreads


@pytest.mark.parametrize(
    ("old", "new", "needle"),
    [
        ("n_layers: 32 ", "n_layers: 040 ", "octal"),  # YAML 1.1 would read 32
        ("n_layers: 32 ", "n_layers: 0b100000 ", "binary"),
        ("n_layers: 32 ", "n_layers: 0:32 ", "n_layers"),  # a string, refused by the schema
        ("n_layers: 32 ", "n_layers: 1:30 ", "base-60"),  # YAML 1.1 would read 90
        ("d_model: 4096 ", "d_model: 1:8:16.0 ", "base-60"),  # a base-60 float
        ("n_layers: 32 ", "n_layers: " + "9" * 5000 + " ", "digits"),
        ("n_layers: 32 ", "n_layers: 32\nn_layers: 16\n#", "duplicate key 'n_layers'"),
        ("head_dim: 128 ", "head_dim: 0 ", "head_dim"),
        ("max_ctx: 8192 ", "max_ctx: 0 ", "max_ctx"),
        ("d_ffn: 14336 ", "d_ffn: 0 ", "d_ffn"),
    ],
)
def test_model_yaml_misreads_are_refused(cli, tmp_path, old, new, needle):
    assert old in MODEL
    path = tmp_path / "m.yaml"
    path.write_text(MODEL.replace(old, new))
    one_line_error(cli("memory", "--model", path, "--ctx", "8"), str(path), needle)


@pytest.mark.parametrize("n", [16, 48])
def test_model_yaml_layer_types_of_the_wrong_length_are_refused(cli, tmp_path, n):
    path = tmp_path / "m.yaml"
    path.write_text(MODEL + f"layer_types: [{', '.join(['full'] * n)}]\n")
    r = cli("memory", "--model", path, "--ctx", "8")
    one_line_error(r, str(path), f"layer_types has {n} entries, n_layers is 32")


def test_duplicate_keys_in_a_nested_mapping_and_a_spec_are_refused(cli, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.format(model="llama3-8b").replace("batch: 1}", "batch: 1, ctx: 9}"))
    one_line_error(cli("check", spec), "duplicate key 'ctx'")


def test_yaml_integers_that_stay_legal(cli, tmp_path):
    # underscores, 0 and hex are YAML 1.2 forms too: read as before
    path = tmp_path / "m.yaml"
    path.write_text(MODEL.replace("n_layers: 32 ", "n_layers: 0x20 ").replace(
        "vocab_size: 128256", "vocab_size: 128_256"))  # fmt: skip
    r = cli("memory", "--model", path, "--ctx", "8", "-f", "json")
    assert r.code == 0, r.err
    assert r.json()["params_total"] == 8030261248  # Llama 3 8B model card: 8.03 B


# ----------------------------------------------------------------------------------------
# 5. Bounded resources: per-layer lists only after the layer count is checked


def test_importer_refuses_a_huge_layer_count_before_any_per_layer_list(cli, tmp_path):
    # mistral with a sliding window builds ["sliding"] * n_layers: 10^9 entries were 8 GB
    path = _hf(tmp_path, num_hidden_layers=10**9, sliding_window=4096)
    one_line_error(cli("import-hf", path), "'num_hidden_layers'", "1..10,000")


def test_smallest_period_matches_the_definition():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from calc.data.hf_checks import smallest_period

    @settings(max_examples=100, deadline=None)
    @given(st.lists(st.sampled_from("ab"), min_size=1, max_size=24))
    def check(items):
        brute = next(
            p
            for p in range(1, len(items) + 1)
            if all(t == items[i % p] for i, t in enumerate(items))
        )
        assert smallest_period(items) == brute

    check()


# ----------------------------------------------------------------------------------------
# 6. Output for people stays safe

ESCAPES = "\x1b[2J\x1b]0;pwned\x07\x9b31m\u202e"


def _hostile_name_model(tmp_path: Path) -> Path:
    path = tmp_path / "m.yaml"
    quoted = json.dumps("Llama" + ESCAPES + "\x01<&>")  # a YAML double-quoted string
    path.write_text(MODEL.replace("display_name: Llama 3 8B", f"display_name: {quoted}"))
    return path


def _no_control(text: str) -> None:
    bad = [c for c in text if c in "\x1b\x07\x9b\u202e\x01"]
    assert not bad, repr(text)


def test_names_from_files_cannot_drive_the_terminal(cli, tmp_path):
    path = _hostile_name_model(tmp_path)
    for fmt in ("table", "csv", "json"):
        r = cli("memory", "--model", path, "--ctx", "8", "-f", fmt)
        assert r.code == 0, r.err
        _no_control(r.out)
    r = cli("memory", "--model", path, "--ctx", "8")
    assert "Llama\\x1b[2J" in r.out  # shown, as a visible escape


def test_error_lines_cannot_drive_the_terminal(cli, tmp_path):
    path = tmp_path / ("bad" + "\x1b[31m\n" + ".yaml")
    path.write_text("name: [\n")
    r = cli("memory", "--model", path, "--ctx", "8")
    one_line_error(r, "bad\\x1b[31m\\x0a.yaml")
    _no_control(r.err)
    r = cli("memory", "--model", "llama3-8b", "--ctx", "8", "--weight-dtype", "x\x1b[2J")
    one_line_error(r)
    _no_control(r.err)


def test_junit_is_valid_xml_whatever_the_names(cli, tmp_path):
    model = _hostile_name_model(tmp_path)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        SPEC.format(model=model).replace("ctx: 1024, batch: 1", "ctx: 8192, batch: 9999")
    )
    junit = tmp_path / "junit.xml"
    r = cli("check", spec, "--junit", junit)
    assert r.code == 1, r.err  # fails must_fit: a <failure> element with its message
    _no_control(r.out + r.err)
    assert xml.dom.minidom.parse(str(junit)).getElementsByTagName("failure")


def test_xml_safe_leaves_only_characters_xml_allows():
    from calc.output.safe_text import xml_safe

    text = xml_safe("<a b='" + ESCAPES + "\x01\x02\ufffe\ud800'>\t\n\u00e9\U0001f600</a>")
    xml.dom.minidom.parseString(text.encode("utf-8", "surrogatepass"))


def test_table_on_an_ascii_stdout(tmp_path):
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    p = subprocess.run(
        [sys.executable, "-m", "calc", "memory", "--model", "llama3-8b", "--ctx", "8"],
        capture_output=True,
        env=env,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.isascii() and b"| kv_bytes_per_token" in p.stdout  # ASCII borders


def test_import_hf_yaml_cannot_be_injected(cli, tmp_path):
    folder = tmp_path / "evil\nn_layers: 1\n#"
    folder.mkdir()
    cfg = folder / "config.json"
    cfg.write_text((HF / "mistral-7b-v0.1.json").read_text())
    for extra in ((), ("--source", "x\nvocab_size: 2\n\u2028d_ffn: 3\x85n_heads: 1")):
        out = tmp_path / "m.yaml"
        r = cli("import-hf", cfg, *extra, "-o", out)
        assert r.code == 0, r.err
        data = yaml.safe_load(out.read_text())
        assert (data["n_layers"], data["vocab_size"], data["d_ffn"]) == (32, 32000, 14336)
        assert cli("memory", "--model", out, "--ctx", "8").code == 0


PLOT_SCRIPT = """
import sys
from calc.cli import main
main(["plot", "memory", "--model", sys.argv[1], "-o", sys.argv[2]])
"""


def test_plot_ignores_matplotlibrc_and_runs_no_latex(tmp_path):
    pytest.importorskip("matplotlib")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "ran"
    for prog in ("latex", "dvipng", "gs", "dvisvgm"):  # what text.usetex would run
        exe = bin_dir / prog
        exe.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
        exe.chmod(0o755)
    (tmp_path / "matplotlibrc").write_text("text.usetex: True\nlines.linewidth: 40\n")
    model = _hostile_name_model(tmp_path)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env["MPLCONFIGDIR"] = str(tmp_path / "mplconfig")
    out = tmp_path / "kv.svg"
    p = subprocess.run(
        [sys.executable, "-c", PLOT_SCRIPT, str(model), str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert not marker.exists()
    xml.dom.minidom.parse(str(out))  # names with control characters: still valid XML


# --- round three (issue 26): read-only outputs, a swapped temp file, whole writes ---------


def test_a_read_only_output_file_is_refused_and_kept(cli, tmp_path):
    out = tmp_path / "keep.json"
    out.write_text("mine\n")
    out.chmod(0o444)  # refused for root too: the mode says read-only
    r = cli(*MEMORY, "-f", "json", "-o", out)
    one_line_error(r, str(out), "read-only (mode 0444)")
    assert out.read_text() == "mine\n" and stat.S_IMODE(out.stat().st_mode) == 0o444


def test_a_read_only_output_folder_is_refused(cli, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        r = cli(*MEMORY, "-o", folder / "x.txt")
        one_line_error(r, "read-only (mode 0555)")
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


def test_a_temp_file_swapped_for_a_link_changes_no_other_file(tmp_path):
    # a shared folder without the sticky bit: another user swaps kvcalc's temp file for a
    # link to a file of the victim while kvcalc writes; chmod by name would have made the
    # victim 0644 and the rename would have put the link in place of the output
    from calc.errors import InvalidInputError
    from calc.output.safe_io import write_output

    victim = tmp_path / "victim"
    victim.write_text("secret\n")
    victim.chmod(0o600)
    out = tmp_path / "out.txt"

    def swap(fh):
        fh.write(b"data\n")
        (tmp,) = tmp_path.glob(".kvcalc-*.tmp")
        tmp.unlink()
        tmp.symlink_to(victim)

    with pytest.raises(InvalidInputError, match="replaced kvcalc's temporary file"):
        write_output(out, swap)
    assert stat.S_IMODE(victim.stat().st_mode) == 0o600 and victim.read_text() == "secret\n"
    assert not out.exists()


def test_whole_writes_raise_where_a_short_write_would_lose_bytes(tmp_path):
    # RLIMIT_FSIZE of 1 KiB: the kernel writes 1,024 of 5,000 bytes and refuses the rest
    # (EFBIG; Python ignores SIGXFSZ); a plain buffered stdout reported 1,024 and exited 0
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))\n"
        "from calc.output.std_streams import discard_stdout, whole_stdout\n"
        "whole_stdout()\n"
        "sys.stdout.write('x' * 5000)\n"
        "try:\n"
        "    sys.stdout.flush()\n"
        "except OSError as exc:\n"
        "    print(exc.errno, file=sys.stderr)\n"
        "    discard_stdout()  # what is still buffered: no second error at exit\n"
    )
    out = tmp_path / "out.txt"
    with open(out, "wb") as fh:
        r = subprocess.run([sys.executable, "-c", code], stdout=fh, stderr=subprocess.PIPE)
    assert r.stderr.decode().strip() == "27"  # EFBIG: File too large
    assert out.stat().st_size == 1024


def test_two_outputs_of_simulate_or_score_naming_one_file_are_refused(cli, tmp_path):
    # qa (issue 23): `simulate --per-request F -o F` and `score --save-calibration F -o F` ran
    # with exit 0, one output written over the other; refused before any work, as check's
    # --junit and --output are, and the file the user had is kept
    keep = tmp_path / "keep.txt"
    keep.write_text("previous\n")
    sim = ("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "2", "--prompt", "64",
           "--gen", "8", "--requests", "20")  # fmt: skip
    one_line_error(cli(*sim, "--per-request", keep, "-o", keep), "is the same file as")
    data = Path(__file__).parent / "data"
    run = data / "bench_results" / "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json"
    a100 = data.parent.parent / "hardware_profiles" / "a100-40g.yaml"
    score = ("score", run, "-H", a100, "--tp", "8")
    one_line_error(cli(*score, "--save-calibration", keep, "-o", keep), "is the same file as")
    assert keep.read_text() == "previous\n"
    r = cli(*sim, "--per-request", tmp_path / "requests.jsonl", "-o", tmp_path / "table.txt")
    assert r.code == 0, r.err
    assert len((tmp_path / "requests.jsonl").read_text().splitlines()) == 20  # one per request


def test_stdin_named_twice_to_score_is_refused(cli, monkeypatch):
    # qa (issue 23): `kvcalc score - -` read the piped file as the first run, then said
    # "stdin: empty file" of the second: standard input holds one result file
    import io

    run = Path(__file__).parent / "data" / "bench_results"
    run = run / "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(run.read_bytes())))
    r = cli("score", "-", run, "-", "-H", "h100", "--tp", "8")
    one_line_error(r, "- (standard input) is named 2 times")
