"""The two readings of the v1.0 throughput page's nested enable_attention_dp (issue 20, round 19;
tools/moe_attention_dp_reading.py, docs/step-time.md): the alternative reading changes only the
attention layout, and the later page's figures it sets beside the 1.0 ones name real rows."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


def _tool():
    spec = importlib.util.spec_from_file_location(
        "moe_attention_dp_reading", ROOT / "tools" / "moe_attention_dp_reading.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_attention_tp_reading_changes_only_the_attention_layout():
    tool = _tool()
    rows = tool.ep_rows()
    # 7 EP columns (Scout H200/H100 EP4, Qwen3-235B B200/H200/H100 EP8, Maverick B200/H200 EP8)
    # with 10 + 8 + 10 + 10 + 7 + 8 + 10 = 63 published figures
    assert len(rows) == 63
    for row in rows:
        alt = tool.attention_tp(row)
        assert (alt.tp, alt.ep) == (row.ep, row.ep)  # tp N, ep N: no attention DP
        assert row.tp == 1  # as modelled: tp 1, ep N, attention DP over the N GPUs
        assert alt.id == row.id and alt.model == row.model and alt.hardware == row.hardware
        assert alt.published_output_tokens_per_s == row.published_output_tokens_per_s


def test_later_page_pairs_name_rows_of_the_same_layout():
    from validation_heldout import rows

    by_id = {r.id: r for r in rows()}
    tool = _tool()
    for rid, gpus, _ in tool.LATER_PAGE:
        row = by_id[rid]  # a KeyError when a row is renamed
        assert (row.prompt, row.gen) == (1000, 1000)
        assert max(row.tp, row.ep) * row.pp == gpus  # the same GPU count on both pages
    # Qwen3-235B-A22B H100 EP8: the later page's 1,932 per GPU × 8 = 15,456 against the 1.0
    # page's 14,898: 15,456 / 14,898 = 1.0375
    rid, gpus, per_gpu = tool.LATER_PAGE[0]
    assert gpus * per_gpu / by_id[rid].published_output_tokens_per_s == pytest.approx(
        1.0375, abs=5e-4
    )
