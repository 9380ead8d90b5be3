"""What a new user reads (the freshuser audit, session 16): usage errors point to the
command's own --help, config errors read without pydantic's wording, table cells keep two
significant digits and no e-notation, errors that round to zero show no minus sign, and the
"does not fit" line states the arithmetic the ledger does."""

from __future__ import annotations

from pathlib import Path

from calc.data.registry import data_dir
from calc.output.render import human, signed_percent

MODEL = (data_dir("model_configs") / "llama3-8b.yaml").read_text()
LOG = Path(__file__).parent / "data" / "engine_logs" / "vllm-h100-llama31-8b-tp1.log"


def _one_line(r, code: int = 2) -> str:
    assert r.code == code, (r.code, r.out, r.err)
    assert "Traceback" not in r.err + r.out
    assert r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1, r.err
    return r.err


def test_missing_option_value_points_to_the_commands_help(cli):
    # the parser's own error carries no context: the command on the line is named
    err = _one_line(cli("memory", "-m", "llama3-8b", "-H", "h100", "--ctx"))
    assert err == ("kvcalc: error: Option '--ctx' requires an argument. "
                   "(see: kvcalc memory --help)\n")  # fmt: skip
    err = _one_line(cli("speculate", "-m", "llama3-70b", "--mtp"))
    assert err.endswith("(see: kvcalc speculate --help)\n")
    err = _one_line(cli("--no-such-flag"))
    assert err.endswith("(see: kvcalc --help)\n")


def test_a_rule_across_fields_reads_without_pydantics_prefix(cli, tmp_path):
    path = tmp_path / "kv7.yaml"
    path.write_text(MODEL.replace("n_kv_heads: 8 ", "n_kv_heads: 7 "))
    err = _one_line(cli("memory", "--model", path, "--ctx", "128"))
    # 32 query heads over 7 KV heads: 32 / 7 is no whole group
    assert err == f"kvcalc: error: {path}: n_heads (32) is not divisible by n_kv_heads (7)\n"


def test_a_file_of_comments_only_is_named_as_such(cli, tmp_path):
    path = tmp_path / "comments.yaml"
    path.write_text("# a profile whose fields were cut off\n# nothing else\n")
    err = _one_line(cli("memory", "--model", "llama3-8b", "--ctx", "128", "--hardware", path))
    assert err == (f"kvcalc: error: {path}: no fields (comments only, or null), "
                   "expected a mapping of fields\n")  # fmt: skip
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    err = _one_line(cli("memory", "--model", empty, "--ctx", "128"))
    assert err == f"kvcalc: error: {empty}: empty file, expected a mapping of fields\n"


def test_bytes_keep_two_significant_digits():
    # a KV block of Llama 3 70B at TP 4: 16 tokens × 81,920 B = 1,310,720 B ("0.001 GB" before)
    assert human("kv_block_bytes", 1_310_720) == "1,310,720 B"
    # from 10^7 B the GB figure has two digits at 3 decimals: 98,829,061 B = 0.099 GB
    # (98,829,061 / 2^30 = 0.0920 GiB)
    assert human("headroom_bytes_per_gpu", 98_829_061) == "0.099 GB  (0.092 GiB)"
    # compact tables show 2 decimals, so whole bytes up to 10^8: 80 × 2 × 8,192 × 2 B
    # = 2,621,440 B of decode all-reduce ("0.00 GB" before)
    assert human("bytes", 2_621_440.0, compact=True) == "2,621,440 B"
    # 5 × 2^30 = 5,368,709,120 B = 5.37 GB = 5.00 GiB
    assert human("bytes", 5 * 2**30, compact=True) == "5.37 GB (5.00 GiB)"
    assert human("kv_bytes_per_token", 4096) == "4,096 B"  # below 10^6 as before


def test_flops_never_in_e_notation():
    # 754,974,720 FLOP = 754.97 MFLOP (was "7.55e+08 FLOP" beside "3.36 GFLOP")
    assert human("flops", 754_974_720) == "754.97 MFLOP"
    assert human("flops", 3_355_443_200) == "3.36 GFLOP"
    assert human("flops", 0) == "0 FLOP"
    assert human("flops", 123_456) == "123,456 FLOP"


def test_an_error_that_rounds_to_zero_has_no_minus_sign():
    # usable memory 85,029,027,840 B predicted against 85,029,049,915.28 B printed:
    # (85,029,027,840 − 85,029,049,915.28) / 85,029,049,915.28 = −2.6e-7, "+0.00%"
    assert signed_percent(-2.596e-7, 2) == "+0.00%"
    assert signed_percent(-0.0176, 2) == "-1.76%"
    assert signed_percent(0.005, 1) == "+0.5%"


def test_log_table_shows_no_negative_zero(cli):
    r = cli("log", LOG)
    assert r.code == 0, r.err
    assert "-0.00%" not in r.out and "+0.00%" in r.out  # usable memory: −2.6e-7


def test_weights_that_leave_no_budget_state_the_memory_they_meet(cli):
    r = cli("memory", "-m", "llama3-70b", "-H", "h100", "--ctx", "8192")
    assert r.code == 0, r.err
    # 70,553,706,496 params × 2 B = 141.11 GB of bf16 weights on one GPU; the H100 profile's
    # usable memory 85,029,027,840 B = 85.03 GB of 80 × 2^30 = 85.90 GB; vLLM's fraction
    # 0.92 applies to the usable memory (the old line wrote "85.03 GB (0.92 × 85.90 GB)")
    assert ("needs 141.11 GB of weights" in r.err
            and "h100 has 85.03 GB usable (of 85.90 GB), and vllm at memory fraction 0.92 "
            "leaves no KV budget" in r.err), r.err  # fmt: skip


def test_a_batch_no_context_fits_says_so(cli):
    r = cli("cost", "-m", "llama3-70b", "-H", "h100", "--tp", "4", "--ctx", "4096",
            "--prompt", "1024", "--batch", "100000")  # fmt: skip
    assert r.code == 0, r.err
    # 100,000 sequences over a 36.85 GB budget: even one block each (16 × 81,920 B =
    # 1,310,720 B) is 131 GB, so no context fits (the old line: "the largest --ctx is 0")
    assert "at --batch 100,000 no --ctx fits" in r.err and "largest --ctx is 0" not in r.err


def test_an_empty_result_object_is_named(cli, tmp_path):
    path = tmp_path / "obj.json"
    path.write_text("{}\n")
    err = _one_line(cli("score", path))
    assert f"{path}: not a benchmark result kvcalc knows (an empty object);" in err


def test_plan_empty_hardware_list_is_an_error(cli):
    err = _one_line(cli("plan", "--model", "llama3-70b", "--rate", "1", "--prompt", "512",
                        "--gen", "64", "--ttft-p99", "2s", "--tpot-p99", "50ms",
                        "-H", ""))  # fmt: skip
    assert err == "kvcalc: error: --hardware '': empty name in the list\n"


def test_plan_past_the_context_limit_says_why_once(cli):
    r = cli("plan", "--model", "llama3-70b", "--rate", "1", "--prompt", "200000", "--gen", "256",
            "--ttft-p99", "2s", "--tpot-p99", "50ms", "-H", "h100")  # fmt: skip
    assert r.code == 0, r.err
    # 200,000 + 256 = 200,256 tokens against Llama 3 70B's 8,192
    assert ("kvcalc: warning: a 200,256-token request (--prompt + --gen) exceeds llama3-70b's "
            "context limit 8,192: no deployment of it can serve it") in r.err  # fmt: skip
    assert "relax the SLOs" not in r.err  # the generic advice would not help


def test_range_errors_state_the_value(cli):
    err = _one_line(cli("speculate", "-m", "llama3-70b", "-H", "h100", "--tp", "4",
                        "--draft", "llama3-8b", "--gamma", "4", "--alpha", "1.5"))  # fmt: skip
    assert err == "kvcalc: error: --alpha (acceptance rate) must be in 0..1, got 1.5\n"
    err = _one_line(cli("log", LOG, "--tp", "0"))
    assert err == "kvcalc: error: --tp must be an integer in 1..4,096, got 0\n"  # as memory's


def test_a_table_is_not_written_under_a_data_name(cli, tmp_path):
    out = tmp_path / "out.json"
    out.write_text("existing\n")
    err = _one_line(cli("memory", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "-o", out))
    assert err == (f"kvcalc: error: --output {out}: a .json name, but --format table writes "
                   "text; give -f json (or name the file .txt)\n")  # fmt: skip
    assert out.read_text() == "existing\n"  # untouched
    err = _one_line(cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024",
                        "-o", tmp_path / "grid.parquet"))  # fmt: skip
    assert "give -f parquet" in err and not (tmp_path / "grid.parquet").exists()
    # a .txt name, or the format the name says, is written
    assert cli("memory", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024",
               "-o", tmp_path / "out.txt").code == 0  # fmt: skip
    assert cli("memory", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "-f", "json",
               "-o", out).code == 0  # fmt: skip
    assert out.read_text().startswith("{")


def test_a_deployment_note_is_said_once_per_file(cli):
    runs = Path(__file__).parent / "data" / "bench_results"
    path = runs / "sglang-2024-12_llama-3.3-70b_tp4_h200_online.jsonl"
    r = cli("score", path, "-m", "llama3.3-70b", "-H", "h200", "--tp", "4")
    assert r.code == 0, r.err
    # the file holds 7 runs, each served by SGLang as the file says: one line, not seven
    assert r.err.count("deployment: engine sglang from the result file") == 1, r.err
    assert f"{path}#1 and 6 more runs: deployment:" in r.err


def test_latency_names_the_lengths_it_was_given(cli):
    # ctx is derived: 1,000,000,000 + 1 = 1,000,000,001 tokens, one past the sanity bound
    # 10^9; the line said "--ctx must be an integer ..., got 1000000001" to a user who gave none
    err = _one_line(cli("latency", "-m", "llama3-70b", "-H", "h100", "--tp", "4",
                        "--prompt", "1000000000", "--gen", "1"))  # fmt: skip
    assert err == ("kvcalc: error: --prompt + --gen must be at most 1,000,000,000 tokens, "
                   "got 1,000,000,001\n")  # fmt: skip


def test_check_warns_of_a_context_past_the_models_limit(cli, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "deployments:\n"
        "  - name: too-long\n    model: llama3-70b\n    hardware: h100\n    tp: 4\n"
        "    workload: {ctx: 100000, batch: 1}\n    requirements: {must_fit: true}\n"
    )
    r = cli("check", spec)
    # the KV fits (100,000 × 81,920 B = 8.19 GB per GPU) but Llama 3 70B's context is 8,192:
    # memory and capacity warn of it, and so does check now (it passed without a word)
    assert r.code == 0, r.err
    assert ("kvcalc: warning: too-long: ctx 100,000 exceeds llama3-70b's max context of 8,192"
            in r.err), r.err  # fmt: skip


def test_a_rate_per_gpu_shows_its_unit():
    # 68.16 tokens/s over 4 GPUs = 17.04 tokens/s per GPU: "17.0/s" like its neighbour
    # output_tokens_per_s, not a bare "17.04"
    assert human("output_tokens_per_s_per_gpu", 17.04089978181533) == "17.0/s"
    assert human("output_tokens_per_s", 68.16359912726132) == "68.2/s"


def test_a_long_link_folds_in_its_cell_not_the_table():
    from calc.output.render import kv_text

    url = ("https://github.com/SemiAnalysisAI/InferenceX-app/blob/"
           "77ca49a679198bbf593bd1a57fe26a27c9967bb3/packages/app/src/lib/constants.ts")
    # a 124-character link is wider than a 120-column terminal: the field/value table was
    # transposed into "row 1 … row 37" columns with a one-letter "f i e l d" column
    text = kv_text({"price_basis": "owned_tco", "price_source": f"SemiAnalysis h100 costh, {url}"},
                   "cost", width=120)  # fmt: skip
    assert "row 1" not in text and "│ price_source" in text, text
    assert max(len(line) for line in text.splitlines()) <= 120


def test_a_long_phrase_wraps_in_a_field_value_table():
    from calc.output.render import kv_table, print_table

    # score's run table at 80 columns: "Poisson at 1 requests/s as the client sent them: sglang
    # bench_serving's own draw" is one 81-character piece (no "(" nor ";" to break at): the
    # table was transposed into "row 1 … row 16" columns beside a one-letter "f i e l d" one
    arrivals = ("Poisson at 1 requests/s as the client sent them: sglang bench_serving's own "
                "draw (seed 1, its default)")  # fmt: skip
    text = print_table(kv_table({"tool": "sglang bench_serving", "max_num_seqs": 4096,
                                 "arrivals": arrivals}, "a run"), 80)  # fmt: skip
    assert "row 1" not in text and "│ arrivals" in text and "4,096" in text, text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_lengths_drawn_one_way_are_said_once(cli):
    path = Path(__file__).parent / "data" / "bench_results" / (
        "vllm-0.5.4_llama-3.1-8b-fp8_tp1_h100-sxm_sharegpt_10-prompts.json")
    d = cli("score", path, "-H", "h100", "-f", "json").json()
    # both lengths are the file's own per-request lists: one account, not the same one twice
    assert d["runs"][0]["lengths"] == "prompts and outputs as recorded per request", d["runs"][0]


def test_per_request_lines_are_not_written_under_a_csv_name(cli, tmp_path):
    out = tmp_path / "pr.csv"
    err = _one_line(cli("simulate", "-m", "llama3-8b", "-H", "h100", "--prompt", "500", "--gen",
                        "50", "--rate", "2", "-n", "20", "--per-request", out))  # fmt: skip
    assert err == (f"kvcalc: error: --per-request {out}: a .csv name, but --per-request writes "
                   "JSON Lines (one JSON object a line); name the file .jsonl\n")  # fmt: skip
    assert not out.exists()


def test_yaml_is_not_written_under_a_json_name(cli, tmp_path):
    # `import-hf -o m.json` wrote YAML that `--model m.json` then refused as malformed JSON
    # (kvcalc reads a .json file by the JSON rules); the same for a calibration
    cfg = Path(__file__).parent / "data" / "hf_configs" / "phi-2" / "config.json"
    out = tmp_path / "m.json"
    err = _one_line(cli("import-hf", cfg, "-o", out))
    assert err == (f"kvcalc: error: --output {out}: a .json name, but --output writes YAML "
                   "(kvcalc reads a .json file as JSON); name the file .yaml\n")  # fmt: skip
    assert not out.exists()
    cal = tmp_path / "cal.json"
    err = _one_line(cli("log", LOG, "--save-calibration", cal))
    assert "--save-calibration writes YAML" in err and not cal.exists()
    assert cli("import-hf", cfg, "-o", tmp_path / "m.yaml").code == 0


def test_plot_past_the_context_limit_says_so(cli):
    r = cli("plot", "capacity", "-m", "llama3-70b", "-H", "h100", "--tp", "4",
            "--max-ctx", "100000")  # fmt: skip
    assert r.code == 0, r.err
    # Llama 3 70B's context is 8,192: a curve out to 100,000 was drawn without a word
    assert ("kvcalc: warning: --max-ctx 100,000 exceeds llama3-70b's max context of 8,192: "
            "the curve past it is hypothetical") in r.err  # fmt: skip
