"""A large detailed vLLM result file read without parsing its per-request inter-token gaps
(calc/data/bench_results ``_without_gaps``, the `kvcalc score` speed path): the same runs as a
whole parse, and a file whose gaps are damaged or of another shape read whole (the same error)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calc.data import bench_results
from calc.data.bench_results import parse_results
from calc.errors import ConfigError

DATA = Path(__file__).parent / "data" / "bench_results"
VLLM_QPS4 = DATA / "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json"


def _detailed(gaps_per_request: int = 700) -> dict:
    """The real 0.8.3 file with an ``itls`` list per request added: 200 × 700 gaps of
    ``0.0123456789`` (14 bytes with the comma) = 1.96 MB, over the 1 MiB threshold."""
    doc = json.loads(VLLM_QPS4.read_text())
    doc["itls"] = [[0.0123456789] * gaps_per_request for _ in range(200)]
    return doc


def _read(raw: bytes, name: str = "f.json") -> str:
    """The runs read (their repr: every field, BenchRun compares by identity) or the error."""
    try:
        return repr(parse_results(raw, name))
    except ConfigError as exc:
        return f"ConfigError: {exc}"


def _whole(raw: bytes, monkeypatch) -> str:
    """``_read`` with the gap-skipping path off: every file parsed whole."""
    with monkeypatch.context() as m:
        m.setattr(bench_results, "_GAPS_FROM_BYTES", 1 << 62)
        return _read(raw)


def test_large_file_reads_as_a_whole_parse(monkeypatch):
    raw = json.dumps(_detailed()).encode()
    assert len(raw) > 1 << 20  # takes the lean path
    lean = bench_results._without_gaps(raw.decode())
    assert lean is not None and '"itls": null' in lean and len(lean) < 200_000
    assert _read(raw) == _whole(raw, monkeypatch)
    assert _read(raw).startswith("[BenchRun(")


def test_small_file_parsed_whole():
    text = VLLM_QPS4.read_text()
    assert len(text) < 1 << 20 and bench_results._without_gaps(text) is None


@pytest.mark.parametrize(
    ("change", "refused"),
    [
        (lambda s: s.replace("[0.0123456789, ", "[[0.0123456789], ", 1), False),  # deeper
        (lambda s: s.replace("0.0123456789", '"x"', 1), False),  # a string among the numbers
        (lambda s: s[: len(s) // 2], True),  # truncated inside the gaps
        (lambda s: s.replace('"itls": [[', '"itls": [[1], 2], [[', 1), True),  # junk after
    ],
)
def test_other_gaps_read_whole(change, refused, monkeypatch):
    raw = change(json.dumps(_detailed())).encode()
    got = _read(raw)
    # the same runs, or the same error line (its position in the file as written), as whole
    assert got == _whole(raw, monkeypatch)
    assert got.startswith("ConfigError: f.json: not valid JSON") == refused
