"""docs/validation.md (its training section) quotes kvcalc's training estimates: regenerate it
and compare, so the page cannot go stale when a formula, a model config or a hardware profile
changes."""

from __future__ import annotations

from pathlib import Path

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent


def _script():
    return load_script("bench/train_validation.py")


def test_training_validation_doc_is_current():
    doc = (ROOT / "docs" / "validation.md").read_text()
    assert _script().render().strip("\n")[1:] in doc, (
        "docs/validation.md is stale: run `python bench/validation_doc.py`"
    )


def test_every_row_has_a_source_and_a_signed_error():
    rows = _script().rows()
    assert len(rows) >= 10
    for r in rows:
        assert r.source and r.published > 0 and r.predicted > 0
        assert -1 < r.error < 1, (r.quantity, r.error)  # no row off by a factor of 2


def test_megatron_formula_rewrite_matches_hand_arithmetic():
    # Megatron's weight+optimizer bytes for the CI model, PP 4: TP-split (attention
    # 2·4096²·(1 + 8/32) = 41,943,040 + MLP 2·4096·16384 = 134,217,728) × 32 / 4
    # = 1,409,286,144, + the embedding 4096 × 131,200 = 537,395,200, + replicated LayerNorms
    # (2·4096·2 × 32 + 2·4096) / 4 = 133,120 → 1,946,814,464 params × (6 + 12/2) B
    w_opt, act = _script().megatron_theoretical_bytes(
        layers=32, hidden=4096, heads=32, query_groups=8, kv_channels=128, ffn=16384,
        vocab=131200, seq=8192, micro_batch=1, tp=1, pp=4, vp=8, dp=2, microbatches=4,
    )  # fmt: skip
    assert w_opt == 23_361_773_568
    # activations: 8192·4096·34 × 32 layers + 8·8192·4 + 8192·4096·4 = 36,641,701,888,
    # × (1 + 3/32) × 1.05
    assert act == 36_641_701_888 * (1 + 3 / 32) * 1.05
