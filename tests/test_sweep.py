"""`kvcalc sweep`: range parsing, the grid, agreement with capacity/cost (same formulas),
vectorisation (one latency call per group, not per row), CSV/JSON and atomic output."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest

import calc.reports.cost
from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import EngineSettings
from calc.reports.cost import operating_point
from calc.reports.sweep import COLUMNS, parse_values, sweep
from tests import reports as R


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1024..131072:x2", [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]),
        ("1..10:+3", [1, 4, 7, 10]),
        ("1..4", [1, 2, 3, 4]),
        ("1,2,4..16:x2", [1, 2, 4, 8, 16]),
        ("8, 4, 8", [8, 4]),  # order kept, duplicates dropped
        ("100..1000:x10", [100, 1000]),
        ("3..20:x3", [3, 9]),  # 27 > 20
    ],
)
def test_parse_values(text, expected):
    assert parse_values(text, "--ctx") == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty item"),
        ("1..", "cannot read '1..'"),
        ("8..4", "the start exceeds the end"),
        ("0..8:x2", "a geometric range starts above 0"),
        ("1..8:x1", "the factor must exceed 1"),
        ("0,1", "values must be positive"),
        ("1..100000000", "more than 10,000,000 values"),
        ("abc", "cannot read 'abc'"),
    ],
)
def test_parse_values_errors(cli, text, message):
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", text)
    assert r.code == 2 and message in r.err and "Traceback" not in r.err


def test_grid_shape_and_order():
    r = sweep(["llama3-8b", "llama3-70b"], ["h100"], ctx=[1024, 2048], batch=[1, 2, 4], tp=[1, 4])
    assert r.n_rows == 2 * 1 * 2 * 2 * 3  # models × hw × tp × ctx × batch = 24
    assert list(r.columns) == list(COLUMNS)
    assert r.columns["model"][:12].tolist() == ["llama3-8b"] * 12
    assert r.columns["batch"][:3].tolist() == [1, 2, 4]  # batch varies fastest
    assert r.columns["ctx"][:6].tolist() == [1024] * 3 + [2048] * 3
    assert r.columns["tp"][:12].tolist() == [1] * 6 + [4] * 6


def test_rows_agree_with_capacity_and_cost():
    cfg, hw = load_model("llama3-70b"), load_hardware("h100")
    r = sweep(["llama3-70b"], ["h100"], ctx=[1000, 8192], batch=[1, 61], tp=[4],
              weight_dtypes=["fp8"], kv_dtypes=["fp8"])  # fmt: skip
    for row in r.rows():
        cap = R.capacity(cfg, hw, ctx=row["ctx"], batch=row["batch"], tp=4,
                              weight_dtype="fp8", kv_dtype="fp8").fields  # fmt: skip
        for key in ("kv_budget_bytes", "kv_cache_tokens", "max_concurrency", "fits"):
            assert row[key] == cap[key], key
        assert row["kv_bytes_per_sequence_per_gpu"] == cap["kv_bytes_per_sequence_per_gpu"]
        assert row["weights_bytes_per_gpu"] == cap["weights_bytes_per_gpu"]
        dep = R.deployment(cfg, hw, tp=4, weight_dtype="fp8", kv_dtype="fp8")
        point = operating_point(dep, batch=row["batch"], ctx=row["ctx"], prompt=row["ctx"])
        for key in ("tpot_s", "ttft_one_prompt_s", "output_tokens_per_s_per_gpu",
                    "usd_per_million_output_tokens", "usd_per_million_input_tokens"):  # fmt: skip
            assert row[key] == pytest.approx(point[key], rel=1e-12), key


def test_hand_values_llama3_8b():
    r = sweep(["llama3-8b"], ["h100"], ctx=[8192], batch=[54, 55],
              engine=EngineSettings(version="0.19", activation_bytes=2**30,
                                    overhead_bytes=2**29))  # fmt: skip
    a, b = r.rows()
    # vLLM 0.19: budget 0.9 × 85,029,027,840 − 16,060,522,496 − 2^30 − 2^29 − the RoPE table
    # 8,192 × 128 × 2 = 2,097,152 = 58,852,892,672;
    # 8192 × 131,072 = 1,073,741,824 B per sequence -> 54 fit, 55 do not
    assert a["kv_budget_bytes"] == 58_852_892_672
    assert a["kv_bytes_per_sequence_per_gpu"] == 1_073_741_824
    assert a["kv_cache_bytes_per_gpu"] == 54 * 1_073_741_824
    assert a["max_concurrency"] == 54
    # vLLM: 58,852,892,672 // 65,536 // 32 layers = 28,063 blocks × 16
    assert a["kv_cache_tokens"] == 449_008
    assert a["fits"] is True and b["fits"] is False


def test_vectorised_one_latency_call_per_group(monkeypatch):
    calls = []
    real = calc.reports.cost.tpot_at

    def counting(*args, **kw):
        calls.append(np.shape(args[1]))
        return real(*args, **kw)

    monkeypatch.setattr(calc.reports.cost, "tpot_at", counting)
    r = sweep(["llama3-8b"], ["h100", "h200"], ctx=list(range(1, 201)), batch=list(range(1, 51)),
              tp=[1, 2])  # fmt: skip
    assert r.n_rows == 2 * 2 * 200 * 50  # 40,000 rows
    assert len(calls) == 4  # one call per (hardware, tp) group, each over a 200 × 50 grid


def test_no_latency_columns(cli):
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "--no-latency", "-f", "csv")
    header = r.out.splitlines()[0].split(",")
    assert "tpot_s" not in header and "max_concurrency" in header


def test_csv_header_units_and_neutralised_cells(cli, tmp_path):
    src = (Path(__file__).resolve().parent.parent / "model_configs" / "llama3-8b.yaml").read_text()
    evil = tmp_path / "evil.yaml"
    evil.write_text(src.replace("name: llama3-8b", 'name: "=HYPERLINK(1),x"'))
    out = tmp_path / "grid.csv"
    r = cli("sweep", "-m", evil, "-H", "h100", "--ctx", "1024,2048", "--batch", "1..3",
            "-f", "csv", "-o", out)  # fmt: skip
    assert r.code == 0, r.err
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert rows[0] == list(COLUMNS)
    assert len(rows) == 1 + 6
    assert rows[1][0] == "'=HYPERLINK(1),x"  # neutralised, and quoted around the comma
    assert rows[1][list(COLUMNS).index("fits")] == "true"
    assert not list(tmp_path.glob(".grid.csv.*"))  # no temp file left behind


def test_json(cli):
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "--batch", "1,2", "-f",
            "json")  # fmt: skip
    out = r.json()
    assert out["n_rows"] == 2 and len(out["rows"]) == 2
    contract = {"kv_budget_bytes", "kv_cache_tokens", "max_concurrency",
                "output_tokens_per_s_per_gpu", "usd_per_million_output_tokens",
                "usd_per_million_input_tokens"}  # fmt: skip
    assert contract <= set(out["rows"][0])


def test_table_shows_first_rows(cli):
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1..60")
    assert r.code == 0 and "showing the first 50 of 60 rows" in r.err


def test_failed_run_keeps_existing_output(cli, tmp_path):
    out = tmp_path / "grid.csv"
    out.write_text("old\n")
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "x", "-f", "csv", "-o", out)
    assert r.code == 2 and out.read_text() == "old\n"
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "8", "-f", "csv", "-o",
            tmp_path / "missing" / "g.csv")  # fmt: skip
    assert r.code == 2 and "does not exist" in r.err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--ctx", "1..100000", "--batch", "1..1000"], "more than 50,000,000"),
        (["--ctx", "8", "--weight-dtype", "fp7"], "unknown weight dtype 'fp7'"),
        (["--ctx", "8", "--engine", "tgi"], "--engine 'tgi' is not one of"),
        (["--ctx", "8", "-m", "llama3-8b,"], "empty name"),
    ],
)
def test_errors(cli, args, message):
    base = ["sweep", "-m", "llama3-8b", "-H", "h100"]
    r = cli(*base, *args)
    assert r.code == 2 and message in r.err


def test_quantised_formats_match_capacity(cli):
    from calc.data.registry import load_hardware, load_model

    fmts = ("--weight-dtype", "fp8-block128", "--kv-dtype", "fp8-token-head")
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "--batch", "1", *fmts,
            "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    row = r.json()["rows"][0]
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    cap = R.capacity(
        cfg, hw, ctx=1024, weight_dtype="fp8-block128", kv_dtype="fp8-token-head"
    ).fields
    # the same bytes as capacity (scales included): one code path for the formats
    for key in ("weights_bytes_per_gpu", "kv_bytes_per_sequence_per_gpu", "max_concurrency"):
        assert row[key] == cap[key], key


def test_calibration_from_other_hardware_warns(cli, tmp_path):
    cal = tmp_path / "cal.yaml"
    cal.write_text(
        "kind: kvcalc-calibration\nhardware: h200\ndevice: NVIDIA H200\n"
        "created: '2026-11-29'\nmatmul: {low: 0.5, expected: 0.6, high: 0.7}\n"
        "memory: {low: 0.7, expected: 0.8, high: 0.9}\n"
    )
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "--batch", "1",
            "--calibration", cal, "-f", "csv")  # fmt: skip
    assert r.code == 0
    assert "measured on 'h200'" in r.err and "h100" in r.err


@pytest.mark.parametrize(
    "layout",
    [
        {"tp": 2, "gpus": 8},  # 4 data-parallel replicas of tp 2
        {"gpus": 4},  # alone: one tensor-parallel group of 4
        {"ep": 2},  # experts over 2 GPUs, attention data parallel 2 / tp 1
        {"tp": 2, "dp": 2},
    ],
)
def test_ep_dp_gpus_rows_equal_cost(layout):
    """sweep takes --ep/--dp/--gpus as every sizing command does: a row is cost's figures for
    the same deployment (the same Deployment, built from the same options)."""
    import calc.api

    grid = calc.api.sweep("mixtral-8x7b", "h100", ctx=4096, batch="1,16", **layout)
    for row in grid.fields["rows"]:
        cost = calc.api.cost("mixtral-8x7b", "h100", ctx=4096, batch=row["batch"],
                             **layout).to_dict()  # fmt: skip
        for key in ("tp", "gpus", "kv_cache_tokens", "max_concurrency", "fits",
                    "weights_bytes_per_gpu"):  # fmt: skip
            assert row[key] == cost[key], key
        for key in ("tpot_s", "output_tokens_per_s_per_gpu", "usd_per_million_output_tokens"):
            assert row[key] == pytest.approx(cost[key], rel=1e-12), key


# each option changes the row (first case: int4 weights run their matmuls in fp8, not bf16;
# second: the busiest of 2 expert-parallel GPUs gets 1.5x the mean tokens), and the row is
# cost's for the same options
@pytest.mark.parametrize(
    "model, given, base",
    [
        ("llama3-8b", {"weight_dtype": "int4", "compute_dtype": "fp8"}, {"weight_dtype": "int4"}),
        ("mixtral-8x7b", {"ep": 2, "moe_imbalance": 1.5}, {"ep": 2}),
    ],
)
def test_compute_dtype_moe_imbalance_rows_equal_cost(model, given, base):
    import calc.api

    rows = calc.api.sweep(model, "h100", ctx=4096, batch="1,16", **given).fields["rows"]
    plain = calc.api.sweep(model, "h100", ctx=4096, batch="1,16", **base).fields["rows"]
    for row, other in zip(rows, plain, strict=True):
        assert row["tpot_s"] != other["tpot_s"]  # the option reached the step time
        cost = calc.api.cost(model, "h100", ctx=4096, batch=row["batch"], **given).to_dict()
        keys = ("tpot_s", "ttft_one_prompt_s", "output_tokens_per_s_per_gpu",
                "usd_per_million_output_tokens", "serving_output_tokens_per_s_per_gpu")  # fmt: skip
        for key in keys:
            assert row[key] == pytest.approx(cost[key], rel=1e-12), key


def test_max_model_len_chunked_prefill_reach_the_engine(cli):
    """--max-model-len and --chunked-prefill set the engine of every row, as cost's: no sweep
    column depends on them today (the contiguous preallocation is capacity's; chunking is the
    scheduler's, in simulate and score), and each row stays cost's for the same options."""
    import calc.api
    from calc.reports.sweep import grid_of

    given = {"engine": "trtllm", "max_model_len": 2048, "chunked_prefill": True}
    grid = grid_of("llama3.1-8b", "h100", "1024,2048", batch="1,8", **given)
    for dep, *_ in grid.groups:
        assert (dep.engine_config.max_model_len, dep.engine_config.chunked_prefill) == (2048, True)
    rows = calc.api.sweep("llama3.1-8b", "h100", ctx="1024,2048", batch="1,8", **given)
    for row in rows.fields["rows"]:
        cost = calc.api.cost("llama3.1-8b", "h100", ctx=row["ctx"], batch=row["batch"],
                             **given).to_dict()  # fmt: skip
        for key in ("kv_cache_tokens", "max_concurrency", "fits"):
            assert row[key] == cost[key], key
        assert row["tpot_s"] == pytest.approx(cost["tpot_s"], rel=1e-12)
    r = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "--no-chunked-prefill",
            "--max-model-len", "0", "-f", "csv")  # fmt: skip
    assert r.code == 2 and "max-model-len" in r.err and "Traceback" not in r.err, r.err


def test_gpus_beside_tp_lists():
    # --tp 1,2 --gpus 4: each row has 4 GPUs, tp 1 × 4 replicas and tp 2 × 2 replicas (not
    # the shorthand --gpus = --tp, which only holds with no --tp/--pp/--dp at all)
    grid = sweep(["llama3-8b"], ["h100"], ctx=[1024], batch=[1], tp=[1, 2], gpus=4)
    assert grid.columns["tp"].tolist() == [1, 2]
    assert grid.columns["gpus"].tolist() == [4, 4]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--tp", "4", "--gpus", "6"], "--gpus 6 is not a multiple of --tp 4 × --pp 1"),
        (["--gpus", "5000"], "--gpus must be an integer in 1..4,096"),
        (["--ep", "0"], "--ep must be an integer in 1..4,096"),
        (["--tp", "2", "--ep", "4", "--dp", "4"], "--dp 4 with --ep 4 --tp 2"),
        # alone it is the tensor-parallel size, and the error names the flag given, as memory's
        (["--gpus", "3"], "--gpus 3 (one tensor-parallel group) does not divide the 32 attention"),
    ],
)
def test_ep_dp_gpus_errors(cli, args, message):
    r = cli("sweep", "-m", "mixtral-8x7b", "-H", "h100", "--ctx", "1024", *args)
    assert r.code == 2 and message in r.err, r.err


def test_a_calibration_moves_only_its_own_gpu_in_a_grid_of_several(cli, tmp_path):
    # qa4: a calibration made on h200 applied to every GPU of `-H h100,h200` (the h100 rows
    # moved too, with a warning), where plan applies it to the profile it was made on alone;
    # with one GPU in the grid it still applies (and warns), as latency does
    cal = tmp_path / "cal.yaml"
    cal.write_text(
        "kind: kvcalc-calibration\nhardware: h200\ndevice: NVIDIA H200\n"
        "created: '2026-11-29'\nmatmul: {low: 0.2, expected: 0.3, high: 0.4}\n"
        "memory: {low: 0.3, expected: 0.4, high: 0.5}\n"
    )
    args = ("sweep", "-m", "llama3-8b", "-H", "h100,h200", "--ctx", "1024", "--batch", "1",
            "-f", "json")  # fmt: skip
    plain = {x["hardware"]: x["tpot_s"] for x in cli(*args).json()["rows"]}
    r = cli(*args, "--calibration", cal)
    assert r.code == 0, r.err
    cal_rows = {x["hardware"]: x["tpot_s"] for x in r.json()["rows"]}
    assert cal_rows["h100"] == plain["h100"]  # not the profile it was made on: untouched
    assert cal_rows["h200"] > 1.5 * plain["h200"]  # memory 0.4 of HBM against the profile's
    assert "measured on 'h200'" not in r.err
    alone = cli("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "1024", "--batch", "1",
                "-f", "json", "--calibration", cal)  # fmt: skip
    assert alone.json()["rows"][0]["tpot_s"] > 1.5 * plain["h100"]
    assert "measured on 'h200'" in alone.err


def test_the_calibrated_rows_say_so_in_a_calibrated_column(cli, tmp_path):
    # qa (issue 23): sweep applied --calibration with no column saying which rows it moved,
    # where plan marks its calibrated rows; the column comes last, the original order kept
    cal = tmp_path / "cal.yaml"
    cal.write_text(
        "kind: kvcalc-calibration\nhardware: h200\ndevice: NVIDIA H200\n"
        "created: '2026-11-29'\nmatmul: {low: 0.2, expected: 0.3, high: 0.4}\n"
        "memory: {low: 0.3, expected: 0.4, high: 0.5}\n"
    )
    args = ("sweep", "-m", "llama3-8b", "-H", "h100,h200", "--ctx", "1024", "--batch", "1")
    r = cli(*args, "-f", "csv", "--calibration", cal)
    assert r.code == 0, r.err
    head, *rows = [line.split(",") for line in r.out.splitlines()]
    assert head[-1] == "calibrated" and head[: len(head) - 1] == list(COLUMNS)[:-1]
    flags = {row[head.index("hardware")]: row[-1] for row in rows}
    assert flags == {"h100": "false", "h200": "true"}  # only the profile it was made on
    plain = cli(*args, "-f", "json").json()["rows"]
    assert [x["calibrated"] for x in plain] == [False, False]
    assert "calibrated" in list(COLUMNS)
