"""`kvcalc plot` takes the deployment and engine options of the one table (issue 27 item 2):
each chart that draws a deployment draws the one every sizing command builds from the same
options (capacity: `capacity`'s max concurrency; roofline: `latency`'s ops; frontier: `cost`'s
serving figures at the engine's own concurrency); `plot memory` refuses what it cannot draw."""

from __future__ import annotations

import pytest
import typer

import calc.api
from calc.cli.app import build_app
from calc.cli.option_groups import DEPLOYMENT, ENGINE, without


def _params() -> dict:
    click = typer.main.get_command(build_app(["plot"]))
    (cmd,) = click.commands.values()  # type: ignore[attr-defined]
    return {flag: p for p in cmd.params for flag in (*p.opts, *p.secondary_opts)}


def test_plot_takes_the_table():
    """Every option of the table but --tp (the frontier's list) and --gpus (memory's GPUs in
    all, default 1), with the table's help and default."""
    params = _params()
    for s in (*without(DEPLOYMENT, "tp", "gpus"), *ENGINE):
        assert params[s.flag].help == s.help and params[s.flag].default == s.default, s.flag
    assert "--no-chunked-prefill" in params and "--enforce-eager" in params


def _plot(cli, kind: str, *args) -> list[dict]:
    r = cli("plot", kind, *args, "-f", "json")
    assert r.code == 0, r.err
    return r.json()["rows"]


# each set changes the KV pool of Llama 3 8B on one H100 (a different pool, or the same pool
# over pages of another size, or the layers split over two GPUs); the options that change no
# pool here (--max-num-seqs, --allreduce, --max-model-len, --no-chunked-prefill) still reach it
# through the same Deployment as capacity's
CAPACITY = [
    ("--pp", "2"),
    ("--mem-util", "0.8"),
    ("--block-size", "1024"),  # a 512-token request holds a whole 1024-token page
    ("--activation", "6GiB"),
    ("--overhead", "3GiB"),
    ("--max-batched-tokens", "65536"),
    ("--engine", "sglang"),
    ("--enforce-eager",),
    ("--kv-dtype", "fp8"),
]


def _api_options(args) -> dict:
    out, i = {}, 0
    while i < len(args):
        name = args[i].lstrip("-").replace("-", "_")
        if name == "enforce_eager":
            out["cuda_graphs"], i = False, i + 1
            continue
        value = args[i + 1]
        out[name] = int(value) if value.isdigit() else value
        out[name] = float(value) if name == "mem_util" else out[name]
        i += 2
    return out


@pytest.mark.parametrize("args", CAPACITY, ids=[a[0] for a in CAPACITY])
def test_capacity_is_capacitys(cli, args):
    base = ("-m", "llama3-8b", "-H", "h100", "--max-ctx", "4096")
    rows = [r for r in _plot(cli, "capacity", *base, *args) if r["own"]]
    plain = [r for r in _plot(cli, "capacity", *base) if r["own"]]
    assert [r["max_concurrency"] for r in rows] != [r["max_concurrency"] for r in plain]
    options = _api_options(args)
    for row in rows:
        cap = calc.api.capacity("llama3-8b", "h100", ctx=row["ctx"], **options).to_dict()
        assert row["max_concurrency"] == cap["max_concurrency"], (args, row["ctx"])


ROOFLINE = [
    ("mixtral-8x7b", ("--ep", "2", "--moe-imbalance", "1.5"), ("--ep", "2")),
    ("llama3-8b", ("--weight-dtype", "int4", "--compute-dtype", "fp8"),
     ("--weight-dtype", "int4")),
    ("llama3-8b", ("--kv-dtype", "fp8"), ()),
]  # fmt: skip


@pytest.mark.parametrize("model, args, base", ROOFLINE, ids=[" ".join(c[1]) for c in ROOFLINE])
def test_roofline_ops_are_latencys(cli, model, args, base):
    """The decode ops drawn are `latency`'s at the same context (8192) for the same options;
    the option changes at least one of them."""
    common = ("-m", model, "-H", "h100", "--ctx", "8192", "--prompt", "1024")
    rows = {r["name"]: r for r in _plot(cli, "roofline", *common, *args) if r["phase"] == "decode"}
    plain = {r["name"]: r for r in _plot(cli, "roofline", *common, *base) if r["phase"] == "decode"}
    assert any(rows[n]["time_s"] != plain[n]["time_s"] for n in rows if n in plain)
    r = cli("latency", *common, *args, "-f", "json")
    assert r.code == 0, r.err
    ops = {o["name"]: o for o in r.json()["ops"]}
    for name, row in rows.items():
        assert row["time_s"] == pytest.approx(ops[name]["time_s"], rel=1e-12), name


@pytest.mark.parametrize(
    "args", [("--pp", "2"), ("--max-num-seqs", "64"), ("--engine", "sglang")], ids=str
)
def test_frontier_last_point_is_costs_serving(cli, args):
    """The curve's last point is the engine's own concurrency: `cost`'s serving figures for
    requests of 1024 + 256 tokens (ctx 1280) with the same options."""
    rows = _plot(cli, "frontier", "-m", "llama3-8b", "-H", "h100", "--tp", "1", *args)
    last = rows[-1]
    options = _api_options(args)
    cost = calc.api.cost("llama3-8b", "h100", ctx=1280, prompt=1024, **options).to_dict()
    assert last["serving_concurrency"] == cost["serving_concurrency"]
    assert last["serving_output_tokens_per_s_per_gpu"] == pytest.approx(
        cost["serving_output_tokens_per_s_per_gpu"], rel=1e-12
    )
    plain = _plot(cli, "frontier", "-m", "llama3-8b", "-H", "h100", "--tp", "1")[-1]
    key = "serving_output_tokens_per_s_per_gpu"
    assert plain[key] != last[key]


def test_calibration_reaches_the_roofline(cli, tmp_path):
    # a calibration of matmuls at 0.5 and memory at 0.7 (expected) slows every op; the ops
    # drawn are latency's with the same file
    cal = tmp_path / "cal.yaml"
    cal.write_text(
        "kind: kvcalc-calibration\nhardware: h100\ndevice: NVIDIA H100\n"
        "created: '2026-11-29'\nmatmul: {low: 0.4, expected: 0.5, high: 0.6}\n"
        "memory: {low: 0.6, expected: 0.7, high: 0.8}\n"
    )
    common = ("-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "--prompt", "1024")
    rows = [r for r in _plot(cli, "roofline", *common, "--calibration", str(cal))
            if r["phase"] == "decode"]  # fmt: skip
    plain = [r for r in _plot(cli, "roofline", *common) if r["phase"] == "decode"]
    assert [r["time_s"] for r in rows] != [r["time_s"] for r in plain]
    r = cli("latency", *common, "--calibration", str(cal), "-f", "json")
    ops = {o["name"]: o["time_s"] for o in r.json()["ops"]}
    for row in rows:
        assert row["time_s"] == pytest.approx(ops[row["name"]], rel=1e-12)


@pytest.mark.parametrize("args", [("--mem-util", "0.8"), ("--pp", "2"), ("--engine", "sglang")])
def test_memory_refuses_what_it_does_not_draw(cli, args):
    r = cli("plot", "memory", "-m", "llama3-8b", "-H", "h100", *args)
    assert r.code == 2 and "Traceback" not in r.err
    assert r.err.startswith("kvcalc: error: plot memory draws KV bytes") and args[0] in r.err


def test_roofline_warns_of_a_release_not_modelled(cli):
    # the roofline draws the engine's deployment too (its MoE kernels, its CUDA graphs): a
    # release kvcalc does not model is said once, as capacity and frontier say it
    r = cli("plot", "roofline", "-m", "llama3-8b", "-H", "h100", "--engine-version", "0.34",
            "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    lines = [ln for ln in r.err.splitlines() if "0.34" in ln]
    assert len(lines) == 1 and lines[0].startswith("kvcalc: warning: "), r.err
