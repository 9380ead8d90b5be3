"""docs/validation.md quotes kvcalc's predictions: recompute them so the page cannot go stale
when a formula or a hardware profile changes (the measured side is fixed published data), and
the page is what bench/validation_doc.py writes from its sections."""

from __future__ import annotations

from pathlib import Path

from calc.data.registry import load_hardware, load_model
from tests import reports as R

DOC = (Path(__file__).resolve().parent.parent / "docs" / "validation.md").read_text()
ROOT = Path(__file__).resolve().parent.parent


def _lat(model, hw, **kw):
    return R.latency(load_model(model), load_hardware(hw), **kw).fields


def test_rows_1_to_5_match_the_current_model():
    d = _lat("llama2-7b", "a100-80g", prompt=5, gen=200, batch=1)
    assert f"{d['e2e_tokens_per_s']:.1f} tokens/s" in DOC  # row 1
    d = _lat(str(ROOT / "docs/validation/llama2-70b.yaml"), "a100-80g", prompt=5, gen=200,
             batch=1, tp=8)  # fmt: skip
    assert f"{d['e2e_tokens_per_s']:.1f} tokens/s" in DOC  # row 2
    d = _lat("llama2-7b", "h100", prompt=128, gen=128, batch=768, weight_dtype="fp8",
             kv_dtype="fp8")  # fmt: skip
    assert f"{768 * 128 / d['e2e_s']:,.0f} tokens/s" in DOC  # row 3
    d = _lat("llama2-7b", "a100-80g", prompt=2048, gen=1, batch=1)
    assert f"{d['ttft_s'] * 1e3:.1f} ms" in DOC  # row 4
    d = _lat("llama2-7b", "h100", prompt=2048, gen=1, batch=1, weight_dtype="fp8", kv_dtype="fp8")
    assert f"{d['ttft_s'] * 1e3:.1f} ms" in DOC  # row 5


def test_row_6_attention_rate():
    f = R.flops(load_model("llama3-8b"), load_hardware("h100"), prompt=16384).fields
    op = next(o for o in f["prefill_ops"] if o["name"] == "attn_scores")
    assert f"{op['flops'] / op['time_s'] / 1e12:.2f} TFLOP/s" in DOC


def test_page_is_what_the_generator_writes():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "validation_doc", ROOT / "bench" / "validation_doc.py"
    )
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert DOC == gen.render(), "docs/validation.md is stale: run python bench/validation_doc.py"
