"""--report FILE.html on plan, simulate, sweep and check: one self-contained file (no script, no
reference outside itself, a Content-Security-Policy that forbids fetching), every text from the
input escaped, the flags of a launch command kept whole; and, in a real headless Chromium
(tests/headless.py: skipped only where no Chromium is installed; CI installs Debian's), each
report renders with no console error, requests nothing but itself, and its screenshots on screen
and as printed are not blank."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from calc.output.html_report import (
    Commands,
    Document,
    Facts,
    Table,
    command_html,
    render_html,
)
from calc.reports.report_views import generic_document
from tests.headless import find_chromium

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = "llama<script>alert(1)</script>&\"x'"

PLAN = ("plan", "-m", "llama3-70b", "-H", "h100,h200", "--rate", "10", "--prompt", "2048",
        "--gen", "256", "--ttft-p99", "2s", "--tpot-p99", "50ms", "--top", "4")  # fmt: skip
SIMULATE = ("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "20", "--prompt",
            "lognormal:1024:0.5", "--gen", "128", "-n", "300", "--ttft-slo", "1s",
            "--tpot-slo", "50ms")  # fmt: skip
SIM_SWEEP = ("simulate", "-m", "llama3-8b", "-H", "h100", "--prompt", "1024", "--gen", "128",
             "-n", "200", "--sweep-rate", "5,20,40", "--tpot-slo", "50ms")  # fmt: skip
SWEEP = ("sweep", "-m", "llama3-8b,llama3-70b", "-H", "h100", "--tp", "1,4", "--ctx",
         "1024..8192:x2", "--batch", "1..256:x4", "-f", "csv")  # fmt: skip
CHECK = ("check", str(ROOT / "examples" / "check-spec.yaml"))
CHECK_LOAD = ("check", str(ROOT / "examples" / "check-load.yaml"))
# a real vllm bench serve result (tests/data/bench_results/README.md) on its A100-40GB profile
SCORE = ("score", str(ROOT / "tests" / "data" / "bench_results" /
                      "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-01.json"),
         "-H", "a100-40g", "--tp", "8",
         "-f", "json")  # fmt: skip


REPORTS = {  # name -> (arguments, exit codes): each command's report, written once
    "plan": (PLAN, (0,)),
    "simulate": (SIMULATE, (0,)),
    "simulate-curve": (SIM_SWEEP, (0,)),
    "sweep": (SWEEP, (0,)),
    "check": (CHECK, (1,)),  # the example fails on purpose
    "check-load": (CHECK_LOAD, (1,)),
    "score": (SCORE, (0,)),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """Every report of ``REPORTS``, written by the CLI in this process."""
    from calc.cli import main

    where = tmp_path_factory.mktemp("reports")
    out = {}
    for name, (args, codes) in REPORTS.items():
        path = where / f"{name}.html"
        try:
            main([*args, "--report", str(path)])
            code = 0
        except SystemExit as exc:
            code = exc.code
        assert code in codes, (name, code)
        _self_contained(path.read_text())
        out[name] = path
    return out


def _self_contained(html: str) -> None:
    """No script, no reference to anything outside the file, the CSP that forbids fetching."""
    low = html.lower()
    assert "<script" not in low and "javascript:" not in low
    for pattern in (r"\ssrc\s*=", r"\shref\s*=", r"url\(", r"@import", r"<link", r"<iframe",
                    r"<object", r"<embed", r"<img"):  # fmt: skip
        assert not re.search(pattern, low), pattern
    assert "content-security-policy" in low and "default-src 'none'" in html
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")


def _report(cli, tmp_path, args, name="r.html", code=(0,)):
    out = tmp_path / name
    r = cli(*args, "--report", out)
    assert r.code in code, r.err
    html = out.read_text()
    _self_contained(html)
    return html


# ---------------------------------------------------------------------------------------
# The file


def test_plan_report_has_the_answer_tables_charts_and_launch_command(reports):
    html = reports["plan"].read_text()
    import re

    # the answer in one sentence: GPUs × hardware (layout, dtypes) for the model on the engine
    assert re.search(r'<p class="answer pass">\d+ × \S+ \(.* for llama3-70b on vllm ', html)
    for heading in ("Ranked deployments", "Rejected families", "TTFT p99 against the request "
                    "rate", "TPOT p99 against the request rate", "Tokens/s per GPU against "
                    "tokens/s per user", "Provenance: where the figures come from",
                    "Prices (per GPU-hour, as dated)", "Confidence", "Launch the winner",
                    "Derivation (--explain)"):  # fmt: skip
        assert heading in html, heading
    assert html.count('<svg class="chart"') == 3
    assert '<span class="arg">vllm</span> <span class="arg">serve</span>' in html
    # a flag and its value stay in one span (never wrapped apart)
    assert re.search(r'<span class="arg">--tensor-parallel-size [1-8]</span>', html)
    assert "https://www.nvidia.com/en-us/data-center/h200/" in html  # the H200 datasheet


def test_plan_report_marks_a_calibrated_row_as_the_terminal_table_does(cli, tmp_path):
    # qa (issue 23): with --calibration the terminal's ranked table said "h100 (calibrated)"
    # and the report's ranked table said "h100": the row did not show it was calibrated
    cal = tmp_path / "cal.yaml"
    cal.write_text("kind: kvcalc-calibration\nhardware: h100\ndevice: test\n"
                   "created: '2026-12-01'\nop_multipliers: {gemm: 1.2}\n")  # fmt: skip
    html = _report(cli, tmp_path, ("plan", "-m", "llama3-8b", "-H", "h100", "--rate", "2",
                                   "--prompt", "500", "--gen", "100", "--ttft-p99", "5s",
                                   "--tpot-p99", "200ms", "--method", "analytic", "--top", "2",
                                   "--calibration", cal))  # fmt: skip
    ranked = html[html.index("Ranked deployments") : html.index("Rejected families")]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", ranked)
    assert cells.count("h100 (calibrated)") == 2 and "h100" not in cells


def test_simulate_reports(reports):
    html = reports["simulate"].read_text()
    assert "At 20 requests/s: p99 TTFT" in html
    assert html.count('<svg class="chart"') == 3  # TTFT, TPOT against the rate; the frontier
    assert "the simulation (p50)" in html
    html = reports["simulate-curve"].read_text()
    assert "Highest rate meeting the SLOs at p99" in html
    assert html.count('<svg class="chart"') == 3 * 2 + 1  # p50, p90, p99 pairs; the frontier


def test_score_report(reports):
    html = reports["score"].read_text()
    # 12 figures of one run: TTFT/TPOT/ITL mean, p50, p99 and three throughputs
    assert re.search(r'<p class="answer">1 run scored: median \|error\| [0-9.]+% over 12 figures',
                     html)  # fmt: skip
    for word in ("predicted", "measured", "error", "vllm bench serve"):
        assert word in html, word


def test_sweep_and_check_reports(reports):
    html = reports["sweep"].read_text()
    # 2 models × 2 tp × 4 ctx (1,024 .. 8,192) × 5 batches (1, 4, 16, 64, 256) = 80 rows
    assert '<p class="answer">80 rows, ' in html
    assert "The frontier&#x27;s rows" in html and html.count('<svg class="chart"') == 1
    html = reports["check"].read_text()
    assert '<p class="answer fail">6 passed, 1 failed: llama3.1-8b-h100 must_fit</p>' in html
    assert '<tr class="fail">' in html and "Launch commands" in html


def test_every_text_from_the_input_is_escaped(cli, tmp_path):
    src = (ROOT / "model_configs" / "llama3-8b.yaml").read_text()
    model = tmp_path / "m.yaml"
    model.write_text(
        src.replace("name: llama3-8b", f"name: {json.dumps(HOSTILE)}", 1).replace(
            "display_name: Llama 3 8B", f"display_name: {json.dumps(HOSTILE)}", 1
        )
    )
    html = _report(cli, tmp_path, ("simulate", "-m", str(model), "-H", "h100", "--rate", "5",
                                   "--prompt", "500", "--gen", "50", "-n", "50"))  # fmt: skip
    assert "llama&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;x&#x27;" in html


def test_control_characters_are_visible_escapes():
    doc = Document("t\x1b[2J", "a\x00b", [Facts("f", [("k", "v\x07")])])
    html = render_html(doc)
    assert "\x1b" not in html and "\x00" not in html and "\x07" not in html
    assert "t\\x1b[2J" in html and "v\\x07" in html


def test_launch_flags_stay_whole():
    html = command_html("vllm serve org/m --tensor-parallel-size 4 --enable-expert-parallel "
                        "--kv-transfer-config '{\"kv_role\": \"kv_both\"}'")  # fmt: skip
    spans = re.findall(r'<span class="arg">(.*?)</span>', html)
    assert spans == [
        "vllm",
        "serve",
        "org/m",
        "--tensor-parallel-size 4",
        "--enable-expert-parallel",
        "--kv-transfer-config &#x27;{&quot;kv_role&quot;: &quot;kv_both&quot;}&#x27;",
    ]
    assert 'class="cmd"' in html  # user-select: all, white-space: nowrap per flag (the CSS)


def test_generic_document_renders_any_report():
    """What `score` (or any new command) passes: its fields, records and figures."""
    from calc.output.derivation import figure

    fields = {"model": "m", "error_pct": 3.5, "source": "a log", "rows": [{"a": 1, "b": 2.5}]}
    doc = generic_document("kvcalc x", fields, figures=[figure("y", 6, "B", "{a} × {b}", a=2, b=3)],
                           warnings=["w"])  # fmt: skip
    kinds = [type(b).__name__ for b in doc.blocks]
    assert kinds == ["Facts", "Table", "Table", "Table", "Lines", "Lines"]
    html = render_html(doc)
    _self_contained(html)
    assert "y = a × b = 2 × 3 = 6 B" in html and "<td>a log</td>" in html


@pytest.mark.parametrize(
    "name, message",
    [("r.txt", "a report is one HTML file; name it FILE.html"), ("missing/r.html",
                                                                  "does not exist")],
)  # fmt: skip
def test_bad_report_path_is_refused_before_any_work(cli, tmp_path, name, message):
    r = cli(*PLAN, "--report", tmp_path / name)
    assert r.code == 2 and message in r.err and len(r.err.splitlines()) == 1


def test_report_and_output_cannot_be_one_file(cli, tmp_path):
    out = tmp_path / "x.html"
    out.write_text("mine")
    r = cli(*SWEEP[:-2], "-f", "json", "-o", out, "--report", out)
    assert r.code == 2 and "is the same file as --output" in r.err
    assert out.read_text() == "mine"


def test_existing_report_untouched_when_writing_fails(cli, tmp_path, monkeypatch):
    import calc.output.html_report as hr

    out = tmp_path / "r.html"
    out.write_text("mine")

    def broken(doc):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(hr, "render_html", broken)
    r = cli(*SIMULATE, "--report", out)
    assert r.code == 2 and "No space left on device" in r.err
    assert out.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


def test_tables_cap_their_rows():
    rows = [{"i": i} for i in range(600)]
    html = render_html(Document("t", "a", [Table("many", rows), Commands("c", ["x --y 1"])]))
    assert html.count("<tr>") == 500 + 1 and "100 more rows not shown" in html


# ---------------------------------------------------------------------------------------
# In a real browser

CHROMIUM = find_chromium()
ARG_LINES = (
    "Array.from(document.querySelectorAll('code.cmd .arg')).map(e => e.getClientRects().length)"
)
CHARTS = "document.querySelectorAll('svg.chart').length"
WIDE = "document.documentElement.scrollWidth"


def test_reports_render_in_headless_chromium(reports, tmp_path):
    if CHROMIUM is None:
        if os.environ.get("KVCALC_REQUIRE_CHROMIUM"):  # CI: .ci/run installs it
            pytest.fail("KVCALC_REQUIRE_CHROMIUM is set but no chromium is on PATH")
        pytest.skip("no chromium on PATH (apt-get install chromium; CI installs Debian's)")
    from tests.headless import Browser, ink_fraction

    bad = tmp_path / "bad.html"  # what the checks must catch: a request, an error, no ink
    bad.write_text('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png">'
                   '<script>console.error("boom")</script></body></html>')  # fmt: skip
    with Browser() as browser:
        page = browser.open(bad)
        assert "http://127.0.0.1:9/x.png" in page.requests
        assert any("boom" in e for e in page.console_errors), page.console_errors
        assert ink_fraction(page.screenshot_png)[0] < 0.01
        for name, path in reports.items():
            page = browser.open(path, expressions=("document.title", CHARTS),
                                narrow_width=420, narrow_expressions=(ARG_LINES,))  # fmt: skip
            assert page.console_errors == [], (name, page.console_errors)
            assert page.requests == [path.resolve().as_uri()], (name, page.requests)
            assert page.values["document.title"] == f"kvcalc {name.split('-')[0]}"
            assert page.values[CHARTS] >= 1, name
            # a launch command's flag never breaks across lines, even 420 px wide
            assert set(page.values[ARG_LINES] or [1]) == {1}, (name, page.values[ARG_LINES])
            for png in (page.screenshot_png, page.print_screenshot_png):
                ink, colours = ink_fraction(png)
                assert ink > 0.03 and colours > 50, (name, ink, colours)  # text, tables, charts


def test_terminal_launch_command_pastes_back_whole():
    import shlex

    from calc.output.shell import continued

    cmd = (
        "vllm serve meta-llama/Meta-Llama-3-70B --tensor-parallel-size 1 --pipeline-parallel-size"
        " 1 --data-parallel-size 1 --max-model-len 2304 --gpu-memory-utilization 0.9 "
        "--kv-cache-dtype fp8 --max-num-batched-tokens 8192 --max-num-seqs 1024 --quantization fp8"
    )
    text = continued(cmd)
    lines = text.splitlines()
    assert len(lines) > 1 and all(len(x) <= 78 for x in lines)
    assert all(x.endswith(" \\") for x in lines[:-1])
    assert not any(x.rstrip(" \\").endswith(("--max-model-len", "--quantization")) for x in lines)
    assert shlex.split(text.replace("\\\n", " ")) == shlex.split(cmd)  # what a shell runs


def test_reports_of_the_edge_cases(cli, tmp_path):
    """A trace without --rate, a sweep without latency columns, a plan nothing meets, a check
    of training fits: each still writes its page."""
    trace = tmp_path / "trace.csv"
    trace.write_text("arrival_s,prompt_tokens,output_tokens\n0,100,20\n0.5,200,30\n1.0,150,10\n")
    html = _report(cli, tmp_path, ("simulate", "-m", "llama3-8b", "-H", "h100", "--trace",
                                   trace), "trace.html")  # fmt: skip
    assert '<p class="answer">At ' in html and "requests/s served" in html
    html = _report(cli, tmp_path, (*SWEEP[:-2], "--no-latency", "-f", "csv", "-o",
                                   tmp_path / "g.csv"), "nolat.html")  # fmt: skip
    assert '<p class="answer">80 rows, ' in html  # 2 models × 2 tp × 4 ctx × 5 batches
    html = _report(cli, tmp_path, ("plan", "-m", "llama3-70b", "-H", "l4", "--rate", "10",
                                   "--prompt", "2048", "--gen", "256", "--ttft-p99", "100ms",
                                   "--tpot-p99", "5ms"), "none.html")  # fmt: skip
    assert '<p class="answer fail">No deployment meets the targets' in html
    html = _report(cli, tmp_path, ("check", ROOT / "examples" / "check-train.yaml"),
                   "train.html", code=(1,))  # fmt: skip
    assert "training_fit" in html and '<tr class="fail">' in html
