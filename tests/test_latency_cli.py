"""`kvcalc latency` / `kvcalc roofline` / `kvcalc flops` through the CLI."""

from __future__ import annotations

import pytest

CONTRACT = (
    "decode_flops_per_token",
    "prefill_flops",
    "ttft_s",
    "tpot_s",
    "e2e_s",
    "output_tokens_per_s",
)
OP_KEYS = {"name", "flops", "bytes", "arithmetic_intensity", "bound", "time_s"}


def test_latency_json_contract(cli):
    r = cli(
        "latency",
        "--model",
        "llama3-70b",
        "--hardware",
        "h100",
        "--tp",
        "4",
        "--prompt",
        "1024",
        "--gen",
        "128",
        "--format",
        "json",
    )
    assert r.code == 0, r.err
    d = r.json()
    for key in CONTRACT:
        assert isinstance(d[key], int | float), key
    assert d["ops"] and all(OP_KEYS <= set(op) for op in d["ops"])
    assert {op["name"] for op in d["ops"]} >= {"qkv_proj", "attn_scores", "ffn", "tp_allreduce"}
    assert d["tpot_speed_of_light_s"] < d["tpot_s"] <= d["tpot_high_s"]
    assert d["ctx"] == 1152  # prompt + gen


def test_roofline_is_an_alias(cli):
    args = ("--model", "llama3-8b", "--hardware", "a100-80g", "--format", "json")
    assert cli("roofline", *args).json() == cli("latency", *args).json()


def test_latency_table_explain_and_csv(cli):
    r = cli("latency", "--model", "mixtral-8x7b", "--hardware", "h100", "--tp", "2", "--explain")
    assert r.code == 0, r.err
    assert "tpot_s" in r.out and "routed_experts" in r.out and "Derivation:" in r.out
    assert "ridge_point_flop_per_byte = peak FLOP/s / bw B/s (bf16 peak over HBM" in r.out
    r = cli("latency", "--model", "llama3-8b", "--hardware", "h100", "--format", "csv")
    header, row = r.out.splitlines()
    assert "tpot_s" in header.split(",") and len(header.split(",")) == len(row.split(","))


def test_latency_explain_json_has_derivation(cli):
    d = cli(
        "latency", "--model", "llama3-8b", "--hardware", "h100", "--format", "json", "--explain"
    ).json()
    assert any(line.startswith("e2e_s = ttft + Σ") for line in d["derivation"])


def test_latency_output_file(cli, tmp_path):
    out = tmp_path / "lat.json"
    r = cli(
        "latency",
        "--model",
        "llama3-8b",
        "--hardware",
        "h100",
        "--format",
        "json",
        "--output",
        str(out),
    )
    assert r.code == 0 and r.out == ""
    assert '"tpot_s"' in out.read_text()


def test_efficiency_flags_and_calibration(cli, tmp_path):
    base = ("latency", "--model", "llama3-8b", "--hardware", "h100", "--format", "json")
    d = cli(*base, "--mem-eff", "0.5", "--matmul-eff", "0.5").json()
    # half the bandwidth, plus 292 kernels × 5.6 us = 1.6352 ms (32 layers × 9 + 4)
    assert d["tpot_s"] == pytest.approx(2 * d["tpot_speed_of_light_s"] + 292 * 5.6e-6, rel=1e-3)
    cal = tmp_path / "cal.yaml"
    cal.write_text(
        "kind: kvcalc-calibration\nhardware: h100\ndevice: NVIDIA H100 80GB HBM3\n"
        "created: '2025-06-01'\nmatmul: {low: 0.5, expected: 0.6, high: 0.7}\n"
        "memory: {low: 0.7, expected: 0.8, high: 0.9}\n"
    )
    d = cli(*base, "--calibration", str(cal)).json()
    assert (d["matmul_efficiency"], d["memory_efficiency"]) == (0.6, 0.8)


def test_explain_names_the_calibration_an_ops_multiplier_comes_from(cli, tmp_path):
    # qa (issues 20, 23): with a `score --save-calibration` file the times carried its
    # multiplier (× 1.5) while each op's source line named only the kernel curve: where the
    # 1.5 came from was not said
    cal = tmp_path / "runs.yaml"
    cal.write_text(
        "kind: kvcalc-calibration\nhardware: h100\ndevice: benchmark runs\n"
        "created: '2026-12-01'\nkernels: []\nop_multipliers: {gemm: 1.5}\n"
    )
    base = ("latency", "-m", "llama3-8b", "-H", "h100", "--explain")
    sources = {
        line.split(" = ")[0].strip(): line
        for line in cli(*base, "--calibration", cal).out.splitlines()
        if line.strip().startswith("source.decode.")
    }
    assert f"× 1.5: calibration {cal}" in sources["source.decode.qkv_proj"]  # a GEMM
    assert "calibration" not in sources["source.decode.attn_scores"]  # attention: × 1
    plain = cli(*base).out
    assert "calibration" not in plain


def test_explain_names_the_source_of_a_calibrations_host_time(cli, tmp_path):
    # qa (issue 20): a step calibration adds host ops (host, host_rows) to every step; each
    # had its arithmetic but, alone of all ops, no source line
    cal = tmp_path / "runs.yaml"
    cal.write_text(
        "kind: kvcalc-calibration\nhardware: h100\ndevice: benchmark runs\n"
        "created: '2026-12-01'\nhost_step_s: 0.001\nhost_per_seq_s: 0.00001\n"
    )
    r = cli("latency", "-m", "llama3-8b", "-H", "h100", "--calibration", cal, "--explain")
    assert r.code == 0, r.err
    sources = {
        line.split(" = ")[0].strip(): line
        for line in r.out.splitlines()
        if line.strip().startswith("source.")
    }
    for phase in ("decode", "prefill"):
        for op in ("host", "host_rows"):
            assert f"calibration {cal}" in sources[f"source.{phase}.{op}"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--tp", "3"), "--tp 3 does not divide the 64 attention heads"),
        (("--ep", "2"), "needs a mixture-of-experts model"),
        (("--matmul-eff", "1.5"), "--matmul-eff must be a fraction of peak"),
        (("--gen", "0"), "--gen must be an integer"),
        (("--weight-dtype", "int3"), "unknown weight dtype 'int3'"),
        (("--hardware", "h1000"), "unknown hardware 'h1000'"),
        (("--calibration", "nope.yaml"), "nope.yaml: no such file"),
        # qa: the decode ctx (prompt + gen) was checked first, naming --ctx, not given
        (("--prompt", "10000000000"), "--prompt must be an integer in 1..1,000,000,000, got"),
    ],
)
def test_latency_errors_are_one_line(cli, args, message):
    r = cli("latency", "--model", "llama3-70b", "--hardware", "h100", *args)
    assert r.code == 2
    assert message in r.err and "Traceback" not in r.err
    assert r.err.count("\n") == 1


def test_does_not_fit_is_a_warning_not_an_error(cli):
    r = cli("latency", "--model", "llama3-70b", "--hardware", "h100", "--format", "json")
    assert r.code == 0 and "does not fit" in r.err and r.json()["fits"] is False


def test_flops_command(cli):
    r = cli("flops", "--model", "llama3-70b", "--prompt", "1", "--ctx", "1", "--format", "json")
    assert r.code == 0, r.err
    d = r.json()
    # 136,902,082,560 (linear, 80 layers) + 2,101,346,304 (lm_head) + 2,621,440 (attention)
    assert d["decode_flops_per_token"] == 139_006_050_304
    assert d["prefill_flops"] == 139_006_050_304  # one token: prefill = one decode step
    assert all(op["bound"] is None for op in d["ops"])  # no hardware: no bound, no time
    r = cli("flops", "--model", "deepseek-v3", "--hardware", "h200", "--tp", "8", "--explain")
    assert r.code == 0 and "q_absorb" in r.out and "kv_up" in r.out


@pytest.mark.parametrize("command", ["latency", "roofline", "flops"])
def test_help_ends_with_an_example(cli, command):
    r = cli(command, "--help")
    assert (
        r.code == 0
        and f"Example: kvcalc {command if command != 'roofline' else 'latency'}" in r.out
    )


def test_flops_gen_and_end_to_end_flops(cli):
    r = cli("flops", "-m", "llama3-8b", "--prompt", "100", "--gen", "3", "-f", "json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["ctx"] == 103 and d["gen"] == 3  # the last decode step: prompt + gen
    # one more key per decode step adds 4 × 32 layers × 32 heads × 128 = 524,288 FLOP, so
    # F(101) = F(103) − 2 × 524,288 and F(102) = F(103) − 524,288;
    # e2e = prefill + F(101) + F(102) (the prefill makes the first of the 3 tokens)
    f103 = d["decode_flops_per_token"]
    assert d["e2e_flops"] == d["prefill_flops"] + (f103 - 2 * 524_288) + (f103 - 524_288)
    one = cli("flops", "-m", "llama3-8b", "--prompt", "100", "-f", "json").json()
    assert one["ctx"] == 101 and one["e2e_flops"] == one["prefill_flops"]
    assert cli("flops", "-m", "llama3-8b", "--gen", "0").code == 2


def test_cost_warns_for_its_default_prompt_over_the_step_budget(cli):
    # cost's prompt is --ctx where --prompt is not given: 20,000 tokens whole in one step
    # against TensorRT-LLM's 8,192-token budget (chunked prefill off) is refused as with
    # --prompt 20000; at --ctx 8192 the default prompt fits (= the budget)
    common = ["--model", "llama3.1-8b", "--hardware", "h100", "--engine", "trtllm"]
    r = cli("cost", *common, "--ctx", "20000")
    assert r.code == 0 and "a 20,000-token prompt exceeds trtllm" in r.err
    assert "step budget" not in cli("cost", *common, "--ctx", "8192").err


@pytest.mark.parametrize("command", ["latency", "cost"])
def test_whole_prompt_over_step_budget_warns(cli, command):
    # TensorRT-LLM's defaults: max_num_tokens 8,192, chunked prefill off, so a prompt runs whole
    # in one step; 20,000 > 8,192 is refused by the engine, 8,192 itself fits (= the budget)
    length = ["--gen", "2000"] if command == "latency" else ["--ctx", "22000"]
    common = ["--model", "llama3.1-8b", "--hardware", "h100", "--engine", "trtllm", *length]
    r = cli(command, *common, "--prompt", "20000")
    assert r.code == 0
    assert "a 20,000-token prompt exceeds trtllm" in r.err and "8,192-token step budget" in r.err
    assert "8,192-token step budget" not in cli(command, *common, "--prompt", "8192").err
    # chunked prefill on: the prompt is split over steps, nothing to warn about
    on = cli(command, *common, "--prompt", "20000", "--chunked-prefill")
    assert on.code == 0 and "step budget" not in on.err
    # a larger budget holds it whole: 20,000 <= 24,000
    big = cli(command, *common, "--prompt", "20000", "--max-batched-tokens", "24000")
    assert "step budget" not in big.err


@pytest.mark.parametrize(("model", "hw", "tp"), [("qwen3-30b-a3b", "h100", "1"),
                                                 ("deepseek-v3", "b200", "8"),
                                                 ("qwen3-30b-a3b", "mi300x", "2")])  # fmt: skip
def test_explain_names_every_ops_source(cli, model, hw, tp):
    # qa4 (issue 20 done-when): every op's time names where its rate comes from; the ops without
    # a kernel curve (embedding, norms, MLA absorbs, every op on MI300X) had no source line
    d = cli("latency", "-m", model, "-H", hw, "--tp", tp, "--prompt", "1024", "--gen", "64",
            "--explain", "-f", "json").json()  # fmt: skip
    lines = d["derivation"]
    ops = {x.split(".time_s")[0] for x in lines if x.startswith(("decode.", "prefill."))
           and ".time_s = " in x}  # fmt: skip
    sources = {x.split(" = ")[0].removeprefix("source.") for x in lines
               if x.startswith("source.")}  # fmt: skip
    assert ops and ops <= sources, sorted(ops - sources)
    for x in lines:
        if x.startswith("source.") and "curve " not in x:  # a roofline or a link: its inputs
            assert "(" in x and hw in x, x


@pytest.mark.parametrize("command", [
    ("latency", "--prompt", "9000", "--gen", "256"),  # 9,256 tokens a request
    ("memory", "--ctx", "9256"),
    # freshuser: capacity and cost said only that preallocation was resized, not the refusal
    ("capacity", "--ctx", "9256"),
    ("cost", "--ctx", "9256", "--prompt", "1024"),
])  # fmt: skip
def test_a_request_over_the_stated_max_model_len_is_warned(cli, command):
    # qa4: a server started with --max-model-len 4096 refuses a 9,256-token request (vLLM: "This
    # model's maximum context length is 4096 tokens"); latency and memory printed its figures
    # without a word (capacity and cost warned); within the model's 131,072 no other warning
    r = cli(*command, "-m", "llama3.1-8b", "-H", "h100", "--max-model-len", "4096")
    assert r.code == 0, r.err
    assert "9,256 tokens exceeds --max-model-len 4,096" in r.err, r.err
    ok = cli(*command, "-m", "llama3.1-8b", "-H", "h100", "--max-model-len", "16384")
    assert ok.code == 0 and "max-model-len" not in ok.err, ok.err


@pytest.mark.parametrize("prompt", ["-1", "-1023", "10000000000"])
def test_flops_names_the_prompt_it_was_given(cli, prompt):
    # qa: `flops --prompt -1` said "--ctx must be an integer in 1..1,000,000,000, got 0":
    # neither the flag given nor its value (ctx is prompt + gen, gen 1 by default)
    r = cli("flops", "--model", "llama3-8b", "--prompt", prompt)
    assert r.code == 2 and r.err.count("\n") == 1
    assert f"--prompt must be an integer in 1..1,000,000,000, got {prompt}" in r.err, r.err


def test_explain_names_the_band_a_gemm_is_timed_on(cli):
    # issue 20 (amd round): mi355x's fp4 GEMM band is fitted (efficiency.matmul_fp4 in its
    # provenance) while its other bands are assumed; --explain named only the block's
    # "assumed" for every op, the fp4 GEMMs included
    d = cli("latency", "-m", "llama3.1-8b", "-H", "mi355x", "--weight-dtype", "mxfp4",
            "--prompt", "1024", "--gen", "64", "--explain", "-f", "json").json()  # fmt: skip
    src = {x.split(" = ")[0]: x for x in d["derivation"] if x.startswith("source.decode.")}
    assert "(efficiency.matmul_fp4), expected (fitted)" in src["source.decode.qkv_proj"]
    assert "(efficiency), expected (assumed)" in src["source.decode.norms"]  # not a GEMM
    bf16 = cli("latency", "-m", "llama3.1-8b", "-H", "mi355x", "--prompt", "1024", "--gen",
               "64", "--explain", "-f", "json").json()  # fmt: skip
    q = next(x for x in bf16["derivation"] if x.startswith("source.decode.qkv_proj"))
    # a bf16 GEMM: its own band's entry (amdband round: mi355x's bf16 band, assumed)
    assert "(efficiency.matmul), expected (assumed)" in q


def test_explain_states_the_rocm_kernels_walk_and_prefill_multiple(cli):
    # issue 20: on an AMD GPU under vLLM's Triton attention (its default below 0.19.0) the
    # decode walk and the prefill multiple changed the attention ops' times while --explain
    # printed the bare roofline formula and source (its arithmetic did not give the time it
    # printed)
    args = ("latency", "-m", "llama3-70b", "-H", "mi355x", "--tp", "8", "--prompt", "4096",
            "--gen", "256", "--explain", "-f", "json")  # fmt: skip
    d = cli(*args, "--engine-version", "0.18.0").json()
    lines = {x.split(" = ")[0]: x for x in d["derivation"]}
    walk = lines["decode.attn_scores.time_s"]
    # keys walked: 80 layers × (4,096 + 256) tokens of context = 348,160 (one sequence)
    assert "tile_s s × keys keys / keys_per_tile − values_s s" in walk
    assert "2.18e-06 s × 348,160 keys / 256" in walk
    assert "serial walk, fitted: vLLM's ROCm attention blog" in lines["source.decode.attn_scores"]
    pre = lines["prefill.attn_scores.time_s"]
    assert ") × prefill_scale" in pre and ") × 2.96" in pre, pre
    assert "prefill kernel's multiple" in lines["source.prefill.attn_values"]
    # the printed time is the walk's: 2.18 µs × 348,160 / 256 = 2.9648 ms less attn_values's
    # own time (its roofline, tens of µs), above the roofline + 160 × 5.6 µs = 0.9 ms
    t = float(walk.rsplit(" = ", 1)[1].split()[0])
    assert 2.89e-3 < t < 2.9648e-3, walk
    # AMD's tuned kernels (stated, or the newest vLLM's default ROCM_ATTN): the roofline
    # alone, nothing stated
    for extra in (("--rocm-kernels", "aiter"), ()):
        text = "\n".join(cli(*args, *extra).json()["derivation"])
        assert "keys_per_tile" not in text and "prefill_scale" not in text
        assert "serial walk" not in text and "prefill kernel's multiple" not in text
