"""kvcalc plot: the data behind each chart (hand arithmetic), terminal charts, PNG/SVG files and
the error paths (bad kind, bad extension, unwritable path, existing file left untouched)."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.steps import decode_step
from calc.reports.plot_data import (
    attention_layouts,
    capacity_data,
    ctx_grid,
    memory_data,
    roofline_data,
    roofline_polyline,
)
from tests import reports as R
from tests.bands import bands

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _series(data, kind):
    return next(s for s in data.series if s.kind == kind)


# ---------------------------------------------------------------------------------------
# Data


def test_ctx_grid_powers_of_two_then_the_max():
    assert ctx_grid(8192) == [512, 1024, 2048, 4096, 8192]
    assert ctx_grid(3000) == [512, 1024, 2048, 3000]
    assert ctx_grid(100) == [100]  # a max below the first power: just the max


def test_memory_series_llama3_70b_every_kind():
    d = memory_data(load_model("llama3-70b"))
    assert d.ctxs[-1] == 8192  # llama3-70b.yaml max_ctx (Llama 3, not 3.1)
    at = {s.kind: dict(s.points)[8192] for s in d.series}
    # GQA (own): 2 × 80 layers × 8 kv heads × 128 × 2 bytes = 327,680 B/token; × 8,192
    assert at["gqa"] == 327_680 * 8_192 == 2_684_354_560
    # MHA what-if: 2 × 80 × 64 heads × 128 × 2 = 2,621,440 B/token; × 8,192
    assert at["mha"] == 2_621_440 * 8_192 == 21_474_836_480
    # MQA what-if: 2 × 80 × 1 × 128 × 2 = 40,960 B/token; × 8,192
    assert at["mqa"] == 40_960 * 8_192 == 335_544_320
    # MLA what-if (DeepSeek-V3's latent): (512 + 64) × 2 bytes × 80 layers = 92,160; × 8,192
    assert at["mla"] == 92_160 * 8_192 == 754_974_720
    own = [s for s in d.series if s.own]
    assert [s.kind for s in own] == ["gqa"] and "model's own" in own[0].label
    assert d.kv_budget_bytes is None  # no hardware, no line


def test_memory_budget_line_is_memory_minus_weights():
    d = memory_data(load_model("llama3-70b"), load_hardware("h100"), gpus=4, batch=2)
    # 4 × 80 GiB = 4 × 85,899,345,920 = 343,597,383,680 B
    assert d.memory_capacity_bytes == 343_597_383_680
    # 70,553,706,496 params × 2 bytes (bf16) = 141,107,412,992 B
    assert d.weights_bytes == 141_107_412_992
    assert d.kv_budget_bytes == 343_597_383_680 - 141_107_412_992 == 202_489_970_688
    # batch 2 doubles every point: 2 × 327,680 × 512
    assert dict(_series(d, "gqa").points)[512] == 2 * 327_680 * 512


def test_memory_own_layout_counts_sliding_windows():
    d = memory_data(load_model("gemma-2-27b"))
    own = next(s for s in d.series if s.own)
    assert "23 of 46 layers windowed at 4,096" in own.label
    # 2 × 16 kv heads × 128 × 2 bytes = 8,192 B per token-layer;
    # ctx 8,192: 23 full layers × 8,192 + 23 sliding layers × 4,096 = 282,624 token-layers
    assert dict(own.points)[8192] == 8_192 * 282_624 == 2_315_255_808
    # below the window every layer grows: 46 × 2,048 token-layers at ctx 2,048
    assert dict(own.points)[2048] == 8_192 * 46 * 2_048


def test_attention_layouts_skip_a_gqa_that_cannot_divide_the_heads():
    labels = [label for label, _, _ in attention_layouts(load_model("falcon-7b"))]
    # falcon-7b: 71 query heads (prime), so no 8-head GQA what-if; MQA is its own layout
    assert labels == [
        "MHA, 71 KV heads",
        "MQA, 1 KV head (model's own)",
        "MLA, latent 512 + rope 64",
    ]
    kinds = [lay.kind for _, lay, _ in attention_layouts(load_model("llama2-7b"), kv_heads=4)]
    assert kinds == ["mha", "gqa", "mqa", "mla"]


def test_roofline_polyline_corners():
    # peak 100 FLOP/s, 10 B/s: ridge at 10 FLOP/B
    assert roofline_polyline(100, 10, 1, 100) == [(1, 10), (10.0, 100), (100, 100)]
    # range entirely below the ridge: one straight slope
    assert roofline_polyline(100, 10, 0.1, 5) == [(0.1, 1.0), (5, 50)]


def test_roofline_data_llama3_70b_h100():
    cfg, hw = load_model("llama3-70b"), bands("h100")
    d = roofline_data(cfg, hw, batch=1, ctx=4096, prompt=1024)
    assert d.compute_dtype == "bf16" and [c.dtype for c in d.ceilings] == ["bf16"]
    c = d.ceilings[0]
    # ridge = 989.4e12 FLOP/s / 3.35e12 B/s = 295.34 FLOP/B
    assert c.ridge_point == pytest.approx(989.4e12 / 3.35e12, rel=1e-12)
    # expected: 0.75 × 989.4e12 = 742.05e12 FLOP/s; 0.84 × 3.35e12 = 2.814e12 B/s
    assert c.expected_flops_per_s == pytest.approx(742.05e12, rel=1e-12)
    assert d.expected_bytes_per_s == pytest.approx(2.814e12, rel=1e-12)
    ffn = next(p for p in d.points if p.phase == "decode" and p.name == "ffn")
    # 2 FLOP × 3 matrices × 8,192 × 28,672 × 80 layers × 1 token = 112,742,891,520
    assert ffn.flops == 112_742_891_520
    # memory-bound: attained = FLOPs / (bytes at the expected bandwidth + 80 layers × 3
    # kernels × 5.6 us of fixed cost)
    assert ffn.bound == "memory"
    t = ffn.flops / ffn.arithmetic_intensity / 2.814e12 + 240 * 5.6e-6
    assert ffn.flops_per_s == pytest.approx(ffn.flops / t, rel=1e-9)
    # the points are decode_step's compute ops with FLOPs (embedding and norms have none)
    dec = decode_step(cfg, hw, batch=1, ctx=4096)
    placed = [p.name for p in d.points if p.phase == "decode"]
    assert placed == [op.name for op in dec.ops if op.flops]
    assert "decode embedding" in d.omitted and "decode norms" in d.omitted
    # prefill ffn is compute-bound: the expected roof, less its 240 kernels' fixed cost (1,024
    # rows are whole 64-row tiles: no padding)
    pre_ffn = next(p for p in d.points if p.phase == "prefill" and p.name == "ffn")
    assert pre_ffn.bound == "compute"
    t = pre_ffn.flops / 742.05e12 + 240 * 5.6e-6
    assert pre_ffn.flops_per_s == pytest.approx(pre_ffn.flops / t, rel=1e-9)


def test_roofline_fp8_adds_the_bf16_attention_roof():
    d = roofline_data(load_model("llama3-70b"), load_hardware("h100"), weight_dtype="fp8")
    assert [c.dtype for c in d.ceilings] == ["fp8", "bf16"]
    assert d.ceilings[0].peak_flops_per_s == 1_978_900_000_000_000  # h100.yaml dense fp8


def test_capacity_series_is_capacity_reports_max_concurrency():
    cfg, hw = load_model("llama3-70b"), load_hardware("h100")
    d = capacity_data(cfg, hw, tp=4)
    gqa = dict(_series(d, "gqa").points)
    rep = R.capacity(cfg, hw, ctx=8192, tp=4).fields
    assert gqa[8192] == rep["max_concurrency"]
    assert d.kv_budget_bytes == rep["kv_budget_bytes"]
    # per GPU: 327,680 B/token × 2/8 KV heads = 81,920 B/token; × 8,192 (whole 16-token pages)
    # = 671,088,640 B per sequence; concurrency = floor(budget / that)
    assert gqa[8192] == d.kv_budget_bytes // 671_088_640
    for s in d.series:  # never rises with ctx
        ys = [y for _, y in s.points]
        assert ys == sorted(ys, reverse=True), s.label


# ---------------------------------------------------------------------------------------
# Terminal charts


def _narrow(out: str) -> None:
    too_long = [line for line in out.splitlines() if len(line) > 100]
    assert not too_long, too_long


def test_terminal_memory_chart(cli):
    r = cli("plot", "memory", "--model", "llama3-70b", "--hardware", "h100", "--gpus", "4")
    assert r.code == 0, r.err
    for text in (
        "KV cache vs context: llama3-70b",
        "KV cache [GB = 10^9 B], log",
        "MHA, 64 KV heads",
        "GQA, 8 KV heads (model's own)",
        "MQA, 1 KV head",
        "MLA, latent 512 + rope 64",
        "4 × h100 memory − weights = 202.5 GB",  # 202,489,970,688 B
        "context [tokens], log scale",
        "2.684",  # the GQA cell at 8K: 2,684,354,560 B = 2.684 GB
    ):
        assert text in r.out, text
    _narrow(r.out)


def test_terminal_roofline_chart(cli):
    r = cli("plot", "roofline", "--model", "llama3-70b", "--hardware", "h100", "--batch", "8")
    assert r.code == 0, r.err
    for text in (
        "Roofline: llama3-70b on h100",
        "bf16 peak roofline: 989 TFLOP/s, ridge 295 FLOP/B",
        "bf16 expected-efficiency roofline",
        "arithmetic intensity [FLOP/byte]",
        "d1",
        "p1",
        "dec ffn",
        "pre attn_scores",
        "compute",
        "memory",
    ):
        assert text in r.out, text
    _narrow(r.out)


def test_terminal_capacity_chart(cli):
    r = cli("plot", "capacity", "--model", "llama3-70b", "--hardware", "h100", "--tp", "4")
    assert r.code == 0, r.err
    for text in ("Max concurrency vs context", "max concurrent sequences", "KV budget", "* GQA"):
        assert text in r.out, text
    _narrow(r.out)


def test_terminal_chart_needs_no_matplotlib():
    code = (
        "import sys\n"
        "sys.modules['matplotlib'] = None\n"  # any import of it fails
        "from calc.cli import main\n"
        "try:\n"
        "    main(['plot', 'memory', '--model', 'llama3-8b'])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
    )
    root = Path(__file__).resolve().parent.parent
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=False
    )
    assert r.returncode == 0, r.stderr
    assert "GQA, 8 KV heads (model's own)" in r.stdout


# ---------------------------------------------------------------------------------------
# Files


@pytest.mark.parametrize("kind", ["roofline", "memory", "capacity"])
def test_png_written(cli, tmp_path, kind):
    pytest.importorskip("matplotlib")
    out = tmp_path / f"{kind}.png"
    r = cli("plot", kind, "--model", "llama3-8b", "--hardware", "h100", "--output", out)
    assert r.code == 0, r.err
    assert out.read_bytes()[:8] == PNG_MAGIC
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]  # no temp file left


def test_svg_written(cli, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "kv.svg"
    r = cli("plot", "memory", "--model", "gemma-2-27b", "-H", "h100", "-o", out)
    assert r.code == 0, r.err
    assert ET.parse(out).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    assert "model's own" in out.read_text()


def test_existing_file_replaced_whole(cli, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "r.png"
    out.write_bytes(b"old")
    r = cli("plot", "roofline", "--model", "llama3-8b", "--hardware", "h100", "-o", out)
    assert r.code == 0, r.err
    assert out.read_bytes()[:8] == PNG_MAGIC


# ---------------------------------------------------------------------------------------
# Errors


def test_bad_kind(cli):
    r = cli("plot", "pie", "--model", "llama3-8b")
    assert r.code == 2
    assert r.err == (
        "kvcalc: error: plot kind 'pie' is not one of: roofline, memory, capacity, frontier\n"
    )


def test_roofline_needs_hardware(cli):
    r = cli("plot", "roofline", "--model", "llama3-8b")
    assert r.code == 2
    assert r.err == "kvcalc: error: plot roofline needs --hardware (see `kvcalc hardware`)\n"


def test_bad_extension_leaves_existing_file(cli, tmp_path):
    out = tmp_path / "chart.pdf"
    out.write_text("mine")
    r = cli("plot", "memory", "--model", "llama3-8b", "-o", out)
    assert r.code == 2
    assert "unsupported extension '.pdf'; use .png or .svg" in r.err
    assert len(r.err.splitlines()) == 1
    assert out.read_text() == "mine"


@pytest.mark.parametrize(
    "where, message",
    [("missing/chart.png", "does not exist"), ("adir.png", "is a directory")],
)
def test_unwritable_output(cli, tmp_path, where, message):
    (tmp_path / "adir.png").mkdir()
    r = cli("plot", "memory", "--model", "llama3-8b", "-o", tmp_path / where)
    assert r.code == 2 and message in r.err and len(r.err.splitlines()) == 1
    assert "Traceback" not in r.err


def test_existing_file_untouched_on_error(cli, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    out = tmp_path / "kv.png"
    out.write_bytes(b"keep me")
    r = cli("plot", "memory", "--model", "no-such-model", "-o", out)  # fails before drawing
    assert r.code == 2 and "unknown model" in r.err
    assert out.read_bytes() == b"keep me"

    def disk_full(self, *a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", disk_full)  # fails while writing
    r = cli("plot", "memory", "--model", "llama3-8b", "-o", out)
    assert r.code == 2
    assert r.err == f"kvcalc: error: --output {out}: cannot write: No space left on device\n"
    assert out.read_bytes() == b"keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kv.png"]  # temp file removed


def test_missing_matplotlib_is_one_line(cli, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "kv.png"
    r = cli("plot", "memory", "--model", "llama3-8b", "-o", out)
    assert r.code == 2
    assert r.err == (
        "kvcalc: error: matplotlib is not installed; install it with: pip install 'kvcalc[plot]'\n"
    )
    assert not out.exists()


def test_help_ends_with_example(cli):
    r = cli("plot", "--help")
    assert r.code == 0
    assert "Example: kvcalc plot roofline --model llama3-70b --hardware h100" in r.out


def test_capacity_passes_on_capacity_warnings_once(cli):
    # a tp the heads cannot be split over is refused, as by `kvcalc latency` and the engines
    r = cli("plot", "capacity", "--model", "llama3-8b", "--hardware", "h100", "--tp", "3")
    assert r.code == 2 and "--tp 3 does not divide the 32 attention heads" in r.err
    # warnings (here: does not fit) are passed on once, not once per ctx and kind
    r = cli("plot", "capacity", "--model", "llama3.1-405b", "--hardware", "h100")
    assert r.code == 0 and r.err.count("does not fit: llama3.1-405b needs") == 1
    assert "not one sequence fits" in r.out


def test_max_ctx_zero_is_refused(cli):
    r = cli("plot", "memory", "--model", "llama3-8b", "--max-ctx", "0")
    assert r.code == 2
    assert r.err == "kvcalc: error: --max-ctx must be an integer in 1..1,000,000,000, got 0\n"


def test_plot_data_as_csv_and_json(cli, tmp_path):
    import csv
    import io

    r = cli("plot", "memory", "--model", "llama3-70b", "--max-ctx", "8192", "-f", "csv")
    assert r.code == 0, r.err
    rows = list(csv.DictReader(io.StringIO(r.out)))
    own = [x for x in rows if x["own"] == "true" and x["ctx"] == "8192"]
    # the model's own GQA at 8,192 tokens: 327,680 B/token × 8,192 = 2,684,354,560 (whole bytes)
    assert own[0]["kv_cache_bytes"] == "2684354560"
    out = tmp_path / "roofline.json"
    r = cli("plot", "roofline", "-m", "llama3-70b", "-H", "h100", "-f", "json", "-o", out)
    assert r.code == 0, r.err
    import json

    ops = json.loads(out.read_text())["rows"]
    assert {"decode", "prefill"} == {op["phase"] for op in ops}
    assert all(op["arithmetic_intensity"] > 0 for op in ops)


# ---------------------------------------------------------------------------------------
# The drawn SVG: tick labels read as numbers, no text cut off or over another


TICK = r"^(\d[\d,]*(\.\d+)?|\.\d+)( ?[kKMGTP])?( ?m?s)?$"
SUFFIX = {"k": 1e3, "K": 1024, "M": 2**20, "G": 1e9, "T": 1e12, "P": 1e15}


def _tick_value(text: str) -> float:
    import re

    m = re.match(r"^([\d,.]+) ?([kKMGTP]?) ?(m?s)?$", text)
    assert m, text
    v = float(m.group(1).replace(",", "")) * SUFFIX.get(m.group(2), 1)
    return v / 1e3 if m.group(3) == "ms" else v


def _check_svg(path):
    import re

    from tests.svg_text import read

    page, texts = read(path)
    assert texts, "no text read from the SVG"
    for t in texts:
        assert t.box.inside(page, slack=0.5), f"cut off: {t.source!r} at {t.box} of {page}"
        assert "$" not in t.drawn and "\\" not in t.drawn, (t.source, t.drawn)
        assert "?" not in t.drawn, (t.source, t.drawn)  # every glyph decoded
    for a_i, a in enumerate(texts):
        for b in texts[a_i + 1 :]:
            assert a.box.overlap(b.box) < 0.5, f"{a.source!r} overlaps {b.source!r}"
    ticks = {"x": [], "y": []}
    for t in texts:
        if re.match(r"^[xy]tick_", t.parent):
            assert re.match(TICK, t.drawn), f"tick label {t.drawn!r} is not a number"
            ticks[t.parent[0]].append(t)
    for axis, key in (("x", lambda t: t.box.x0), ("y", lambda t: -t.box.y0)):
        assert ticks[axis], f"no {axis} tick labels"
        by_axes: dict[str, list] = {}  # a figure of two charts: each its own run of values
        for t in ticks[axis]:
            by_axes.setdefault(t.axes, []).append(t)
        for run in by_axes.values():
            values = [_tick_value(t.drawn) for t in sorted(run, key=key)]
            assert values == sorted(values) and len(set(values)) == len(values), values
    return texts


@pytest.mark.parametrize(
    "args",
    [
        ("roofline", "-m", "llama3-70b", "-H", "h100"),
        ("roofline", "-m", "llama3-8b,mixtral-8x7b", "-H", "h100", "--weight-dtype", "fp8"),
        ("memory", "-m", "llama3-70b", "-H", "h100", "--gpus", "4"),
        ("memory", "-m", "gemma-2-27b,llama3-8b,deepseek-v3", "-H", "h200"),
        ("capacity", "-m", "llama3.1-405b", "-H", "h100"),  # not one sequence fits: a note
        ("capacity", "-m", "llama3-8b,llama3-70b,mixtral-8x7b", "-H", "h100", "--tp", "2"),
        ("frontier", "-m", "llama3-70b", "-H", "h100"),
        ("frontier", "-m", "llama3-8b,qwen3-32b", "-H", "h200", "--tp", "1,2"),
    ],
)
def test_svg_ticks_are_numbers_and_no_text_is_cut_or_covered(cli, tmp_path, args):
    pytest.importorskip("matplotlib")
    out = tmp_path / "chart.svg"
    r = cli("plot", *args, "-o", out)
    assert r.code == 0, r.err
    texts = _check_svg(out)
    ys = [t for t in texts if t.parent.startswith("ytick")]
    assert len(ys) >= 2  # a log axis labelled at two values at least


def test_svg_latency_vs_rate_ticks(cli, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "curve.svg"
    r = cli("simulate", "-m", "llama3-8b", "-H", "h100", "--prompt", "1024", "--gen", "128",
            "--requests", "200", "--sweep-rate", "5,20,60", "--ttft-slo", "2s",
            "--tpot-slo", "50ms", "-o", out)  # fmt: skip
    assert r.code == 0, r.err
    _check_svg(out)


def test_log_tick_values():
    from calc.output.svg_chart import log_ticks

    assert log_ticks(0.1, 10_000) == [0.1, 1, 10, 100, 1000, 10_000]
    # fewer than three decades inside: 1-2-5 steps
    assert log_ticks(4, 110) == [5, 10, 20, 50, 100]
    assert log_ticks(0.02, 0.09) == pytest.approx([0.02, 0.05])


def test_names_with_dollars_are_drawn_as_written(tmp_path):
    """mathtext stays on for the tick formatter; text from files is escaped instead."""
    pytest.importorskip("matplotlib")
    import dataclasses

    from calc.output.plot import memory_figure, save_atomic
    from tests.svg_text import read

    d = memory_data(load_model("llama3-8b"))
    d = dataclasses.replace(d, model="my$x^2$model")
    out = tmp_path / "m.svg"
    save_atomic(memory_figure(d), out)
    _, texts = read(out)
    title = next(t for t in texts if t.source.startswith("KV cache vs context"))
    assert "my$x^2$model" in title.drawn
    import matplotlib

    assert matplotlib.rcParams["text.parse_math"] is True
