"""bench/pp_step_curve.py: a burst's tokens placed in time from each request's TTFT and gaps, and
the requests decoding per virtual engine in each window counted from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scripts import load_script


def _curve():
    return load_script("bench/pp_step_curve.py")


def _burst(tmp_path: Path) -> Path:
    # two requests sent at 0 s: A's first token at 0.51 s then 200 gaps of 20 ms (tokens at
    # 0.51 + 0.02 k, k = 0 … 200: its last at 4.51 s); B's first at 0.51 s then 50 gaps of
    # 80 ms (its last at 0.51 + 50 × 0.08 = 4.51 s); prompts 10 and 20 tokens
    data = {
        "ttfts": [0.51, 0.51],
        "itls": [[0.02] * 200, [0.08] * 50],
        "input_lens": [10, 20],
    }
    path = tmp_path / "burst.json"
    path.write_text(json.dumps(data))
    return path


def test_windows_place_tokens_and_count_the_requests_decoding(tmp_path):
    curve = _curve()
    rows = curve.windows(_burst(tmp_path), pp=2, width_s=1.0)
    # windows from 1 s (the first is the intake): [1, 2), [2, 3), [3, 4) hold 50 of A's gaps
    # and 12-13 of B's (over 40); [4, 5) holds A's k = 175 … 200 (26) and B's k = 44 … 50
    # (7): 33, under 40, dropped
    assert [a for a, *_ in rows] == [1.0, 2.0, 3.0]
    for _a, per_ve, _ctx, gap in rows:
        # both requests decode throughout (first token 0.51 s, last 4.51 s): 2 over 2 engines
        assert per_ve == pytest.approx(1.0)
        # 50 gaps of 20 ms and 12 or 13 of 80 ms: the median is 20 ms
        assert gap == pytest.approx(0.02)
    # the mean context in [1, 2): A's tokens k = 25 … 74 (0.51 + 0.02 k in [1, 2)), contexts
    # 10 + k, mean 10 + 49.5 = 59.5, 50 of them; B's k = 7 … 18 (0.51 + 0.08 k in [1, 2)),
    # contexts 20 + k, mean 20 + 12.5 = 32.5, 12 of them:
    # (50 × 59.5 + 12 × 32.5) / 62 = (2,975 + 390) / 62 = 54.27
    assert rows[0][2] == pytest.approx(3365 / 62, rel=1e-9)


def test_windows_count_only_requests_still_decoding(tmp_path):
    curve = _curve()
    data = {
        # A: first token at 0.51 s, 200 gaps of 20 ms (its last at 0.51 + 200 × 0.02 = 4.51 s);
        # B: first token at 0.51 s, 5 gaps of 80 ms, done at 0.91 s (before the first window)
        "ttfts": [0.51, 0.51],
        "itls": [[0.02] * 200, [0.08] * 5],
        "input_lens": [10, 20],
    }
    path = tmp_path / "burst.json"
    path.write_text(json.dumps(data))
    rows = curve.windows(path, pp=1, width_s=1.0)
    # [1, 2), [2, 3), [3, 4): 50 of A's gaps each (0.51 + 0.02 k in [1, 2): k = 25 … 74), over
    # 40; [4, 5): 26 (k = 175 … 200), dropped
    assert [a for a, *_ in rows] == [1.0, 2.0, 3.0]
    # A alone decoding at pp 1: 1 a virtual engine; every gap 20 ms
    assert [r[1] for r in rows] == pytest.approx([1.0, 1.0, 1.0])
    assert [r[3] for r in rows] == pytest.approx([0.02, 0.02, 0.02])
