"""Files a new user gives or asks for (the freshuser2 audit, session 17): an empty .json read
as empty, not as malformed JSON; a model config given as a calibration named as no calibration;
data written only under a name that promises its format, and a file that was there before a
refused command left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.data.registry import data_dir

DEP = ("-m", "llama3-8b", "-H", "h100", "--ctx", "2048")


def _one_line(r, code: int = 2) -> str:
    assert r.code == code, (r.code, r.out, r.err)
    assert "Traceback" not in r.err + r.out
    assert r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1, r.err
    return r.err


def test_an_empty_json_file_is_named_empty(cli, tmp_path):
    empty = tmp_path / "cal.json"
    empty.write_text("\n")
    err = _one_line(cli("latency", *DEP, "--calibration", empty))
    assert err == f"kvcalc: error: {empty}: empty file, expected a mapping of fields\n"


def test_a_model_config_is_no_calibration(cli):
    model = data_dir("model_configs") / "llama3-8b.yaml"
    err = _one_line(cli("latency", *DEP, "--calibration", model))
    assert err == (f"kvcalc: error: {model}: not a kvcalc calibration file (no 'kind: "
                   "kvcalc-calibration'): make one with kvcalc score or kvcalc measure "
                   "--save-calibration\n")  # fmt: skip


@pytest.mark.parametrize(
    ("command", "fmt", "name", "fix"),
    [
        ("latency", "csv", "out.json", "give -f json (or name the file .csv)"),
        ("cost", "json", "out.csv", "give -f csv (or name the file .json)"),
        ("sweep", "csv", "out.json", "give -f json (or name the file .csv)"),
        ("sweep", "jsonl", "out.csv", "give -f csv (or name the file .jsonl)"),
        ("latency", "json", "out.png", "name the file .json"),
        ("measure", "csv", "out.json", "give -f json (or name the file .csv)"),  # before a kernel
    ],
)
def test_data_is_not_written_under_another_formats_name(cli, tmp_path, command, fmt, name, fix):
    out = tmp_path / name
    out.write_text("kept\n")  # a file the user had: a refused command leaves it
    err = _one_line(cli(command, *DEP, "-f", fmt, "-o", out))
    words = {"csv": "CSV", "json": "JSON", "jsonl": "JSON Lines"}[fmt]
    suffix = out.suffix
    assert err == (f"kvcalc: error: --output {out}: a {suffix} name, but --format {fmt} "
                   f"writes {words}; {fix}\n")  # fmt: skip
    assert out.read_text() == "kept\n"


def test_a_name_that_promises_no_format_takes_any(cli, tmp_path):
    out = tmp_path / "out.yaml"  # JSON is YAML: written
    assert cli("latency", *DEP, "-f", "json", "-o", out).code == 0
    assert out.read_text().startswith("{")


def test_an_empty_or_binary_config_json_is_named_as_json(cli, tmp_path):
    empty = tmp_path / "config.json"
    empty.write_text("")
    err = _one_line(cli("import-hf", empty))
    assert err == f"kvcalc: error: {empty}: empty file, expected JSON\n"
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\x7fELF\x00\x01")
    err = _one_line(cli("import-hf", binary))
    assert err == f"kvcalc: error: {binary}: binary file, expected JSON text\n"


def test_a_fit_of_too_few_figures_names_the_default_and_a_smaller_fit(cli, tmp_path):
    data = Path(__file__).parent / "data" / "bench_results"
    run = data / "trtllm-bench-1.1.0rc2_llama-3.2-3b_tp1_rtx-pro-6000_conc8.txt"
    cal = tmp_path / "cal.yaml"
    cal.write_text("kept\n")
    err = _one_line(cli("score", run, "-H", "rtx-pro-6000", "-m", data / "llama-3.2-3b.yaml",
                        "--save-calibration", cal))  # fmt: skip
    # the one printed report gives the fit 2 figures, fewer than the 3 default parameters
    assert err == ("kvcalc: error: --fit gemm,host_seq,request: 2 measured figures cannot "
                   "constrain 3 parameters (--fit's default is gemm,host_seq,request); name "
                   "fewer (e.g. --fit gemm) or add runs\n")  # fmt: skip
    assert cal.read_text() == "kept\n"


def test_score_refuses_a_data_name_of_another_format_before_the_replays(cli, tmp_path):
    run = Path(__file__).parent / "data" / "bench_results" / (
        "vllm-0.5.4_llama-3.1-8b-fp8_tp1_h100-sxm_sharegpt_10-prompts.json")
    out = tmp_path / "s.json"
    err = _one_line(cli("score", run, "-H", "h100", "-f", "csv", "-o", out))
    assert err == (f"kvcalc: error: --output {out}: a .json name, but --format csv writes CSV; "
                   "give -f json (or name the file .csv)\n")  # fmt: skip
    assert not out.exists()


def test_a_deployment_the_file_makes_impossible_names_what_the_file_gave(cli):
    data = Path(__file__).parent / "data" / "bench_results"
    run = data / "trtllm-bench-1.1.0rc1_deepseek-r1-0528-nvfp4_tp4_ep4_gb200_1k1k.txt"
    # the report records ep 4 (DeepSeek-R1's experts); with a dense --model that cannot be
    err = _one_line(cli("score", run, "-H", "h100", "-m", "qwen3-8b"))
    assert err.startswith(
        f"kvcalc: error: {run}: --ep 4 needs a mixture-of-experts model; qwen3-8b is dense "
        "(the result file gave engine trtllm, tp 4, "
    )
    assert "ep 4," in err


SCORED = Path(__file__).parent / "data" / "bench_results" / (
    "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json"
)


def test_a_result_file_without_a_release_says_which_was_replayed(cli):
    # the file records no vLLM release ("date": "20250414-..." only): kvcalc replays the newest
    # modelled one and says so with the file's date; named with --engine-version, nothing said
    from calc.deploy.engines import engine

    newest = engine("vllm").versions.newest
    r = cli("score", SCORED, "-H", "a100-40g", "--tp", "8", "-f", "json")
    assert r.code == 0, r.err
    assert (f"engine_version {newest}, the newest modelled: the file records no release (the "
            "file is dated 2025-04-14); --engine-version to choose") in r.err  # fmt: skip
    r = cli("score", SCORED, "-H", "a100-40g", "--tp", "8", "--engine-version", "0.10.0",
            "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    assert "the file records no release" not in r.err
