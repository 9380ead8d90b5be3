"""What a new user reads (the freshuser2 audit, session 17): a wrong name gives the closest
names and the command that lists them all, on one line, never the whole shipped list; large
dollar figures show cents."""

from __future__ import annotations

from calc.data.registry import hardware_names, model_names
from calc.errors import LONG_LIST, UnknownNameError, name_hint, not_one_of


def _one_line(r, code: int = 2) -> str:
    assert r.code == code, (r.code, r.out, r.err)
    assert "Traceback" not in r.err + r.out
    assert r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1, r.err
    return r.err


def test_an_unknown_model_names_the_closest_and_the_listing_command(cli):
    err = _one_line(cli("memory", "--model", "llama3-8bb", "--hardware", "h100", "--ctx", "128"))
    n = len(model_names())
    assert n > LONG_LIST  # the shipped list is too long for one line
    assert err == (
        "kvcalc: error: unknown model 'llama3-8bb'; did you mean 'llama3-8b', 'llama3.1-8b', "
        f"'llama3-70b'? List all {n} with `kvcalc models`. Or pass a path to a YAML file.\n"
    )


def test_an_unknown_model_with_nothing_close_still_points_to_the_listing(cli):
    err = _one_line(cli("memory", "--model", "zzz", "--ctx", "128"))
    assert err == (
        f"kvcalc: error: unknown model 'zzz'. List all {len(model_names())} with "
        "`kvcalc models`. Or pass a path to a YAML file.\n"
    )


def test_an_unknown_hardware_names_the_closest_and_the_listing_command(cli):
    err = _one_line(cli("latency", "--model", "llama3-8b", "--hardware", "h1000", "--ctx", "128"))
    assert "did you mean 'h100', 'h200'" in err
    assert f"List all {len(hardware_names())} with `kvcalc hardware`." in err
    assert "rtx-5090" not in err  # not the whole list


def test_a_short_set_is_listed_whole():
    # 3 names: listed, closest first
    assert name_hint("lo", ["low", "high", "expected"]) == (
        "; did you mean 'low'? Valid: expected, high, low."
    )
    err = UnknownNameError("recipe", "bf17", ["bf16", "fp32"])
    assert str(err) == "unknown recipe 'bf17'; did you mean 'bf16'? Valid: bf16, fp32."


def test_a_closed_set_names_the_closest(cli):
    assert not_one_of("--efficiency", "expect", ("expected", "low", "high", "peak")) == (
        "--efficiency 'expect' is not one of: expected, low, high, peak; did you mean 'expected'?"
    )
    err = _one_line(cli("cost", "--model", "llama3-8b", "--hardware", "h100", "--ctx", "128",
                        "--efficiency", "hihg"))  # fmt: skip
    assert err.endswith("; did you mean 'high'?\n")


def test_large_dollar_figures_show_cents():
    from calc.output.render import human

    # 15e12 tokens of a Llama 3 70B run cost about $18M: cents, not a hundredth of a cent
    assert human("run_usd", 17_989_225.0081) == "$17,989,225.01"
    assert human("usd_per_million_output_tokens", 1.52449) == "$1.5245"  # below $1,000: 4


def test_measure_cells_never_in_e_notation():
    from calc.measure.report import _cell

    # a 12-byte peak: 12 / 10^6 = 0.000012 MB at four significant digits
    assert _cell({"peak_memory_bytes": 12}, "peak_memory_bytes") == "0.00001200"
    # 247,500 FLOP/s / 10^9 = 0.0002475 GFLOP/s (e-notation starts below 10^-4)
    assert _cell({"achieved_flops_per_s": 247_500.0}, "achieved_flops_per_s") == "0.0002475"
    # 1.442e-12 s = 1.442e-6 µs: 0.000001442 µs
    assert _cell({"predicted_s": 1.442e-12}, "predicted_s") == "0.000001442 µs"


def test_a_log_whose_gpu_memory_fits_several_profiles_says_which_it_chose(cli):
    from pathlib import Path

    log = Path(__file__).parent / "data" / "engine_logs" / "vllm-a100-80g-llama31-8b-0.31.0.log"
    r = cli("log", log, "-m", "llama3.1-8b", "-f", "json")
    assert r.code == 0, r.err
    # 79.25 GiB printed: h100 and h100-pcie report 79.189 GiB, a100-80g 79.150 GiB, all within
    # 0.3 %; the nearest (h100) is chosen and the choice said, since the defaults differ by GPU
    assert ("kvcalc: warning: the log's GPU memory (79.25 GiB) is that of h100, h100-pcie, "
            "a100-80g: predicted for h100 (--hardware to choose)") in r.err  # fmt: skip
    r = cli("log", log, "-m", "llama3.1-8b", "-H", "a100-80g", "-f", "json")
    assert "is that of" not in r.err  # chosen: nothing to say


def test_one_sequence_is_singular_in_the_miss_line(cli):
    r = cli("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "100000000")
    # 10^8 tokens × 131,072 B = 13,107.20 GB for the one sequence asked; none fits
    assert "needs 13,107.20 GB of KV/state per GPU (1 sequence), the budget" in r.err
    assert "at most 0 sequences fit," in r.err
