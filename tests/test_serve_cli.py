"""`kvcalc simulate`: one rate, the rate sweep as a text chart, PNG and SVG, JSON and CSV, a
trace, and its one-line errors."""

import csv
import io
import xml.etree.ElementTree as ET

import pytest

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
BASE = ("simulate", "-m", "llama3-8b", "-H", "h100", "--prompt", "1024", "--gen", "64")


def test_one_rate_json(cli):
    r = cli(*BASE, "--rate", "2", "-n", "100", "--ttft-slo", "2s", "--tpot-slo", "50ms",
            "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    d = r.json()
    assert d["n_requests"] == 100 and d["rate_per_s"] == 2
    assert d["ttft_slo_s"] == 2 and d["tpot_slo_s"] == pytest.approx(0.05)
    assert d["ttft_p50_s"] <= d["ttft_p90_s"] <= d["ttft_p99_s"]
    assert d["tpot_p50_s"] <= d["tpot_p99_s"] < 0.05
    assert d["saturated"] is False and d["saturation_reason"] == ""
    assert 0 < d["goodput_requests_per_s"] <= d["served_requests_per_s"]
    assert 0 <= d["kv_pool_occupancy_mean"] < 1
    # a low rate: each request's output tokens / makespan ≈ served rate × 64
    assert d["served_output_tokens_per_s"] == pytest.approx(64 * d["served_requests_per_s"])


def test_one_rate_table_and_saturation_warning(cli):
    r = cli(*BASE, "--rate", "500", "-n", "300")
    assert r.code == 0, r.err
    assert "kvcalc: warning: saturated: arrivals at" in r.err
    assert "ttft_p99_s" in r.out


def test_sweep_text_chart(cli):
    r = cli(*BASE, "--sweep-rate", "1:4:1", "-n", "60", "--ttft-slo", "1s", "--tpot-slo",
            "30ms")  # fmt: skip
    assert r.code == 0, r.err
    out = r.out
    assert out.startswith("Latency vs request rate: Llama 3 8B")
    assert "TTFT [s], log" in out and "TPOT [s], log" in out
    assert "###  TTFT p99" in out and "ooo  TPOT p50" in out and "~~~  TTFT SLO 1 s" in out
    assert "request rate [requests/s], log scale" in out
    table = out[out.index("  rate/s  TTFT p50") :].splitlines()
    assert [ln.split()[0] for ln in table[1:5]] == ["1", "2", "3", "4"]
    assert "highest rate meeting the SLOs at p99 (not saturated): 4 requests/s" in out
    assert max(len(ln) for ln in out.splitlines()) <= 100


def test_sweep_text_table_shows_the_itl_tail_beside_tpot(cli, monkeypatch):
    # qa (issue 23): the rate table showed TTFT and TPOT only; a long prefill stalling the
    # decodes shows in the ITL tail, which JSON and CSV had and the table did not
    args = (*BASE, "--sweep-rate", "1,2", "-n", "30")
    rows = cli(*args, "-f", "json").json()["rows"]
    out = cli(*args).out
    head, *table = out[out.index("  rate/s  TTFT p50") :].splitlines()
    assert head.split()[:10] == ["rate/s", "TTFT", "p50", "p90", "p99", "TPOT", "p50", "p90",
                                 "p99", "ITL"]  # fmt: skip
    for line, row in zip(table[:2], rows, strict=True):
        itl = row["itl_p99_s"] * 1e3  # below a second: shown in ms, 3 significant digits
        assert line[68:78].strip() == f"{itl:.3g} ms", line  # 8 + 6 columns of 10
    assert max(len(ln) for ln in out.splitlines()) <= 100


def test_sweep_csv_and_json(cli):
    r = cli(*BASE, "--sweep-rate", "1,3,2", "-n", "30", "-f", "csv")
    assert r.code == 0, r.err
    rows = list(csv.DictReader(io.StringIO(r.out)))
    assert [float(x["rate_per_s"]) for x in rows] == [1, 2, 3]  # sorted, deduplicated
    r = cli(*BASE, "--sweep-rate", "1,3", "-n", "30", "-f", "json")
    d = r.json()
    assert [x["rate_per_s"] for x in d["rows"]] == [1, 3]
    assert d["max_rate_meeting_slo_per_s"] == 3  # no SLO: the highest unsaturated rate


@pytest.mark.parametrize("ext", ["png", "svg"])
def test_sweep_chart_file(cli, tmp_path, ext):
    pytest.importorskip("matplotlib")
    out = tmp_path / f"curve.{ext}"
    r = cli(*BASE, "--sweep-rate", "1:3:1", "-n", "30", "--ttft-slo", "1s", "-o", out)
    assert r.code == 0, r.err
    if ext == "png":
        assert out.read_bytes()[:8] == PNG_MAGIC
    else:
        assert ET.parse(out).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_sweep_refuses_other_chart_formats(cli, tmp_path):
    r = cli(*BASE, "--sweep-rate", "1:3:1", "-o", tmp_path / "c.pdf")
    assert r.code == 2 and "use .png or .svg" in r.err


def test_trace(cli, tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("arrival_s,prompt_tokens,output_tokens\n1,100,5\n0,200,5\n2,300,5\n")
    r = cli("simulate", "-m", "llama3-8b", "-H", "h100", "--trace", f, "-f", "json")
    assert r.code == 0, r.err
    assert "rows were not in arrival order; sorted by arrival_s" in r.err
    d = r.json()
    assert d["n_requests"] == 3 and d["arrival"] == "trace" and d["rate_per_s"] is None
    assert d["prompt_dist"] == "trace"


def test_bad_trace_is_one_line(cli, tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("arrival_s,prompt_tokens\n0,10\n")
    r = cli("simulate", "-m", "llama3-8b", "-H", "h100", "--trace", f)
    assert r.code == 2 and r.err.count("\n") == 1
    assert r.err.startswith("kvcalc: error: ") and "missing column output_tokens" in r.err


def test_needs_a_rate(cli):
    r = cli("simulate", "-m", "llama3-8b", "-H", "h100")
    assert r.code == 2 and "needs --rate" in r.err
