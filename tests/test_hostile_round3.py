"""Issue 26 (hardening, round three): one regression test per failure class, through the CLI
as a user (or an attacker) meets it."""

from __future__ import annotations

import pytest


def one_line_error(r, code: int = 2) -> str:
    """The single ``kvcalc: error:`` line of a failed command (no traceback, one line)."""
    assert r.code == code, (r.code, r.out, r.err)
    assert "Traceback" not in r.err + r.out
    assert r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1, r.err
    return r.err


# --- plan: a rejected disaggregated family in the default table ------------------------------


def test_plan_table_shows_a_rejected_disaggregated_family(cli):
    # the ask: at 20 req/s of 4096 + 256 tokens no xPyD split of llama3-70b on H100
    # meets a 300 ms p99 TTFT, so the disaggregated families are rejected (never split into
    # P and D replicas); the table said KeyError 'prefill_replicas'
    # (issue 22: the two pools are now sized apart and meet it, so --max-gpus 64 rejects them)
    args = ("plan", "-m", "llama3-70b", "--rate", "20", "--prompt", "4096", "--gen", "256",
            "--ttft-p99", "300ms", "--tpot-p99", "30ms", "-H", "h100",
            "--method", "analytic", "--margin", "0", "--max-gpus", "64")  # fmt: skip
    data = cli(*args, "-f", "json").json()
    rejected = [r for r in data["rejected"] if r["mode"] == "disaggregated"]
    assert rejected and all("prefill_replicas" not in r for r in rejected)
    r = cli(*args)
    assert r.code == 0, r.err
    rows = [line for line in r.out.splitlines() if " disagg " in line]
    assert len(rows) == len(rejected)


# --- FORCE_COLOR: tables (and JSON/CSV) stay plain text --------------------------------------


@pytest.mark.parametrize("env", ["FORCE_COLOR", "TTY_COMPATIBLE", "CLICOLOR_FORCE"])
@pytest.mark.parametrize(
    "args",
    [
        ("memory", "-m", "llama3-8b", "--ctx", "128"),
        ("memory", "-m", "llama3-8b", "--ctx", "128", "-f", "json"),
        ("memory", "-m", "llama3-8b", "--ctx", "128", "-f", "csv"),
        ("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "128"),
        ("train", "-m", "llama3-8b", "-H", "h100", "--ctx", "128", "--explain"),
    ],
)
def test_forced_colour_writes_no_escape_codes(cli, monkeypatch, env, args):
    monkeypatch.setenv(env, "1")
    r = cli(*args)
    assert r.code == 0, r.err
    assert "\x1b" not in r.out and "\\x1b" not in r.out, r.out[:200]


# --- YAML: 1e1 is a number (YAML 1.1 made it a string) --------------------------------------


def test_yaml_exponent_numbers_are_numbers():
    from calc.data.yaml_io import _parse

    data = _parse("a: 1e1\nb: 2e-3\nc: 5E+9\nd: 3.2e1\ne: 1.25e1\nf: '1e1'\ng: 1e\nh: 1e23\n")
    # whole numbers with an exponent are exact ints (1e23 = 10^23, not the float 9.99...e22)
    assert data == {"a": 10, "b": 0.002, "c": 5_000_000_000, "d": 32, "e": 12.5, "f": "1e1",
                    "g": "1e", "h": 10**23}  # fmt: skip
    assert type(data["a"]) is int and type(data["b"]) is float


def test_yaml_exponent_numbers_in_model_hardware_and_spec_files(cli, tmp_path):
    from calc.data.registry import data_dir

    model = (data_dir("model_configs") / "llama3-8b.yaml").read_text()
    hw = (data_dir("hardware_profiles") / "h100.yaml").read_text()
    m = tmp_path / "m.yaml"
    m.write_text(model.replace("n_layers: 32 ", "n_layers: 3.2e1 "))  # an int field
    h = tmp_path / "h.yaml"
    h.write_text(hw.replace("usd_per_gpu_hour: 3.945", "usd_per_gpu_hour: 1e1"))  # a float
    ref = cli("cost", "-m", "llama3-8b", "-H", "h100", "--ctx", "128", "--usd-per-hour", "10",
              "-f", "json").json()  # fmt: skip
    got = cli("cost", "-m", m, "-H", h, "--ctx", "128", "-f", "json").json()
    assert got["usd_per_gpu_hour"] == 10  # 1e1 = 10 USD per GPU-hour
    assert got["usd_per_million_output_tokens"] == ref["usd_per_million_output_tokens"]
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "deployments:\n  - name: d1\n    model: llama3-8b\n    hardware: h100\n"
        "    workload: {ctx: 1e3, batch: 1e0}\n    requirements: {must_fit: true}\n"
    )
    r = cli("check", spec, "-f", "json")
    assert r.code == 0, r.err


# --- names and paths ------------------------------------------------------------------------


def test_model_and_hardware_paths_in_any_case_and_without_extension(cli, tmp_path):
    from calc.data.registry import data_dir

    upper = tmp_path / "MINE.YAML"
    upper.write_text((data_dir("model_configs") / "llama3-8b.yaml").read_text())
    bare = tmp_path / "mine"  # no extension: a file that exists is a file
    bare.write_text(upper.read_text())
    hw = tmp_path / "GPU.YML"
    hw.write_text((data_dir("hardware_profiles") / "h100.yaml").read_text())
    ref = cli("latency", "-m", "llama3-8b", "-H", "h100", "-f", "json").json()
    for model in (upper, bare):
        got = cli("latency", "-m", model, "-H", hw, "-f", "json")
        assert got.code == 0, got.err
        assert got.json()["tpot_s"] == ref["tpot_s"]
    one_line_error(cli("memory", "-m", tmp_path / "NOSUCH.YAML", "--ctx", "8"))


def test_check_spec_paths_are_relative_to_the_spec(cli, tmp_path, monkeypatch):
    from calc.data.registry import data_dir

    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "mine.yaml").write_text((data_dir("model_configs") / "llama3-8b.yaml").read_text())
    (folder / "gpu.yaml").write_text((data_dir("hardware_profiles") / "h100.yaml").read_text())
    (folder / "spec.yaml").write_text(
        "deployments:\n  - name: d1\n    model: mine.yaml\n    hardware: ./gpu.yaml\n"
        "    workload: {ctx: 1024, batch: 1}\n    requirements: {must_fit: true}\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the working directory has neither file
    r = cli("check", folder / "spec.yaml", "-f", "json")
    assert r.code == 0, r.err
    assert r.json()["passed"] is True


SECRET = "root:$6$SECRETHASH.abc/def:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"


@pytest.mark.parametrize("where", ["model", "hardware", "spec", "spec-model", "calibration"])
def test_errors_never_echo_a_file_that_is_not_a_kvcalc_file(cli, tmp_path, where):
    # as root, a spec pointed at /etc/shadow printed its first line (as an unknown field name)
    secret = tmp_path / "shadow"
    secret.write_text(SECRET)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"deployments:\n  - name: d1\n    model: {secret}\n    hardware: h100\n"
        "    workload: {ctx: 1024, batch: 1}\n    requirements: {must_fit: true}\n"
    )
    args = {
        "model": ("memory", "-m", secret, "--ctx", "8"),
        "hardware": ("latency", "-m", "llama3-8b", "-H", secret),
        "spec": ("check", secret),
        "spec-model": ("check", spec),
        "calibration": ("latency", "-m", "llama3-8b", "-H", "h100", "--calibration", secret),
    }[where]
    err = one_line_error(cli(*args)).replace(str(tmp_path), "")  # the path may say "root"
    assert "SECRET" not in err and "$6$" not in err and "root" not in err, err


def test_quoted_shows_words_and_numbers_only():
    from calc.output.safe_text import is_name, quoted

    assert quoted("relu") == "'relu'" and quoted(32.5) == "32.5" and quoted(None) == "None"
    assert quoted("root:$6$abc") == "a string of 11 characters"
    assert quoted("x" * 65) == "a string of 65 characters"
    assert is_name("n_layers") and not is_name("root:$6$x") and not is_name("a b")


# --- owned-hardware options without a purchase price: refused, never ignored -----------------

PLAN = ("plan", "-m", "llama3-8b", "-H", "h100", "--rate", "1", "--prompt", "64", "--gen", "4",
        "--ttft-p99", "1s", "--tpot-p99", "1s", "--method", "analytic")  # fmt: skip
TRAIN = ("train", "-m", "llama3-8b", "-H", "h100", "--tp", "2")


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ((*PLAN, "--pue", "2"), "--pue prices owned hardware"),
        ((*PLAN, "--usd-per-kwh", "1"), "--usd-per-kwh prices"),
        ((*PLAN, "--amortise-years", "2"), "--years prices"),
        ((*PLAN, "--pue", "2", "--usd-per-kwh", "1"), "--pue, --usd-per-kwh price owned"),
        ((*PLAN, "--power-kw-per-gpu", "1"), "give --capex-usd-per-gpu too"),
        ((*TRAIN, "--pue", "2"), "--pue prices owned hardware"),
        ((*TRAIN, "--years", "3"), "--years prices owned hardware"),
        ((*TRAIN, "--usd-per-kwh", "1"), "--usd-per-kwh prices owned hardware"),
        ((*TRAIN, "--utilization", "0.5"), "--utilization prices owned GPUs"),
    ],
)
def test_owned_hardware_options_without_a_price_are_refused(cli, args, named):
    assert named in one_line_error(cli(*args))


def test_owned_hardware_options_with_a_price_are_applied(cli):
    # plan: 30,000 / (4 × 8,766) + 0.7 kW × PUE × 0.10 $/kWh; PUE 1.3 → 0.8555 + 0.0910 =
    # 0.9465 $/GPU-h, PUE 2.0 → 0.8555 + 0.1400 = 0.9955 $/GPU-h (+0.049 $/h)
    owned = ("--capex-usd-per-gpu", "30000", "--power-kw-per-gpu", "0.7")
    base = cli(*PLAN, *owned, "-f", "json").json()["rows"][0]["usd_per_gpu_hour"]
    pue2 = cli(*PLAN, *owned, "--pue", "2", "-f", "json").json()["rows"][0]["usd_per_gpu_hour"]
    assert base == pytest.approx(30_000 / (4 * 8766) + 0.7 * 1.3 * 0.10)
    assert pue2 - base == pytest.approx(0.7 * (2.0 - 1.3) * 0.10)


# --- trace CSVs: line ends, long fields, and bounds by rows and bytes ------------------------

HEAD = "arrival_s,prompt_tokens,output_tokens"


@pytest.mark.parametrize(
    ("text", "n"),
    [
        (f"{HEAD}\r0,100,10\r1,200,20\r", 2),  # CR only (classic Mac)
        (f"{HEAD}\r\n0,100,10\r\n1,200,20", 2),  # CRLF, no final line end
        (f"{HEAD}\n0,100,10\r1,200,20\r\n2,300,30\n", 3),  # a mix
        (f"\ufeff{HEAD},note\n0,100,10,\"a, quoted\"\"note\"\n", 1),  # BOM, quoted field
        (f"\n\n{HEAD}\n\n0,100,10\n,,\n", 1),  # blank lines anywhere
    ],
)
def test_trace_line_ends(tmp_path, text, n):
    from calc.serve.workload import load_trace_csv

    f = tmp_path / "t.csv"
    f.write_bytes(text.encode())
    t = load_trace_csv(f)
    assert t.prompt == (100, 200, 300)[:n] and t.arrival_s == (0.0, 1.0, 2.0)[:n]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (f"{HEAD}\n0,100\r,10\n", "line 2: 2 fields"),  # a lone CR splits the row
        (f"{HEAD}\n0,100,10\n1,\"200,20\n", "line 3: malformed CSV"),  # unterminated quote
        (f"{HEAD}\n0,1\x00,10\n", "line 2: prompt_tokens"),  # a NUL byte
        (f"{HEAD}\n" + "0,1,1\n" * 3 + "x,1,1\n", "line 5: arrival_s 'x' is not a number"),
        ("arrival_s,prompt_tokens\n0,1\n", "missing column output_tokens"),
        ("\n\n", "empty file"),
    ],
)
def test_bad_traces_are_one_line(cli, tmp_path, text, needle):
    f = tmp_path / "t.csv"
    f.write_bytes(text.encode())
    err = one_line_error(cli("simulate", "-m", "llama3-8b", "-H", "h100", "--trace", f))
    assert needle in err and str(f) in err


def test_trace_fields_longer_than_the_csv_module_allows(cli, tmp_path):
    # the csv module's default field limit is 128 KiB (131,072): a 200,000-character note
    # column was a _csv.Error traceback; lines up to 1 MiB are read, a longer one is refused
    f = tmp_path / "t.csv"
    f.write_text(f"{HEAD},note\n0,100,10,{'x' * 200_000}\n1,100,10,y\n")
    r = cli("simulate", "-m", "llama3-8b", "-H", "h100", "--trace", f, "-f", "json")
    assert r.code == 0, r.err
    f.write_text(f"{HEAD},note\n0,100,10,{'x' * (1 << 20)}\n")
    assert "line 2: longer than 1,048,576 characters" in one_line_error(
        cli("simulate", "-m", "llama3-8b", "-H", "h100", "--trace", f)
    )


def test_a_trace_over_one_megabyte_is_read(tmp_path):
    from calc.serve.workload import load_trace_csv

    # 70,000 rows of "i/100,1000,100" ≈ 1.1 MB, refused before (a 1,000,000-byte cap)
    f = tmp_path / "t.csv"
    f.write_text(HEAD + "\n" + "".join(f"{i / 100},1000,100\n" for i in range(70_000)))
    assert f.stat().st_size > 1_000_000
    t = load_trace_csv(f)
    assert len(t) == 70_000 and t.arrival_s[-1] == 699.99


def test_trace_bounds_by_rows_and_bytes(tmp_path, monkeypatch):
    import calc.serve.workload as w
    from calc.errors import ConfigError

    # the bounds are MAX_REQUESTS rows (what -n allows) and 256 bytes a row on average
    assert w.MAX_TRACE_BYTES == w.MAX_REQUESTS * 256 == 256_000_000
    f = tmp_path / "t.csv"
    f.write_text(HEAD + "\n" + "0,1,1\n" * 11)
    monkeypatch.setattr(w, "MAX_REQUESTS", 10)
    with pytest.raises(ConfigError, match="more than 10 requests"):
        w.load_trace_csv(f)
    monkeypatch.setattr(w, "MAX_REQUESTS", 11)
    assert len(w.load_trace_csv(f)) == 11
    monkeypatch.setattr(w, "MAX_TRACE_BYTES", 50)  # 38 + 11 × 6 = 104 bytes
    with pytest.raises(ConfigError, match="104 bytes is too large for a request trace"):
        w.load_trace_csv(f)


def test_trace_read_in_pieces_keeps_a_crlf_split_between_them(tmp_path, monkeypatch):
    import calc.serve.workload as w

    monkeypatch.setattr(w, "_TEXT_CHARS", 7)  # pieces of 7 characters: CR and LF apart
    f = tmp_path / "t.csv"
    rows = "".join(f"{i},{i + 1},{i + 2}\r\n" for i in range(50))
    f.write_bytes(f"{HEAD}\r\n{rows}".encode())
    t = w.load_trace_csv(f)
    assert t.prompt == tuple(range(1, 51)) and t.gen == tuple(range(2, 52))


# --- messages name the flag the user gave, and the file -------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--gpus", "3"), "--gpus 3 (one tensor-parallel group) does not divide the 32 attention"),
        (("--gpus", "0"), "--gpus must be an integer in 1..4,096, got 0"),
        (("--gpus", "1000000"), "--gpus must be an integer in 1..4,096"),
        (("--gpus", "7", "--tp", "2"), "--gpus 7 is not a multiple of --tp 2"),
    ],
)
def test_gpus_errors_name_gpus(cli, args, needle):
    err = one_line_error(cli("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "128", *args))
    assert needle in err and "--tp 3" not in err


def test_a_config_json_without_model_type_is_named_not_none(cli, tmp_path):
    f = tmp_path / "config.json"
    f.write_text('{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096}')
    err = one_line_error(cli("import-hf", f))
    assert f"{f}: config.json has no 'model_type'" in err and "None" not in err


def test_calibration_without_hardware_is_refused_not_ignored(cli, tmp_path):
    # flops --calibration without --hardware read nothing and said nothing
    cal = tmp_path / "cal.yaml"
    cal.write_text("anything\n")
    err = one_line_error(cli("flops", "-m", "llama3-8b", "--calibration", cal))
    assert "--calibration corrects a --hardware profile" in err


def test_check_spec_load_simulations_are_bounded_in_all(cli, tmp_path):
    # 2 deployments × 600,000 requests = 1,200,000 > 1,000,000 simulated requests in all
    dep = ("  - name: d{i}\n    model: llama3-8b\n    hardware: h100\n"
           "    workload: {{ctx: 1024, rate: 1, requests: 600000}}\n"
           "    requirements: {{max_ttft_p99_s: 1}}\n")  # fmt: skip
    spec = tmp_path / "spec.yaml"
    spec.write_text("deployments:\n" + dep.format(i=1) + dep.format(i=2))
    err = one_line_error(cli("check", spec))
    assert "simulate 1,200,000 requests in all, more than 1,000,000" in err


@pytest.mark.parametrize(
    "args",
    [
        ("memory", "-m", "a" * 100_000, "--ctx", "8"),
        ("memory", "-m", "llama3-8b", "--ctx", "9" * 100_000),
        ("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "1", "--prompt", "x" * 100_000),
    ],
)
def test_a_huge_argument_is_elided_in_the_error(cli, args):
    err = one_line_error(cli(*args))
    assert len(err) < 2_000 and "characters)" in err  # the word with its quotes: 100,00x


def test_an_unexpected_exception_is_one_line(cli, monkeypatch):
    import calc.reports.memory

    def boom(*args, **kwargs):
        raise ValueError("an input nothing checked")

    monkeypatch.setattr(calc.reports.memory, "memory_report", boom)
    err = one_line_error(cli("memory", "-m", "llama3-8b", "--ctx", "8"))
    assert "internal error on this input (ValueError: an input nothing checked)" in err
    monkeypatch.setenv("KVCALC_TRACEBACK", "1")
    with pytest.raises(ValueError, match="nothing checked"):
        cli("memory", "-m", "llama3-8b", "--ctx", "8")
