"""The held-out published runs of current engines (issue 20, newruns round;
docs/validation/published_runs_2026.yaml, bench/validation_newruns.py): the dataset loads, every
row names a listed source and predicts, the measured throughput is derived as the source states,
and every source is on bench/validation_sources.py's list. No golden error: nothing is fitted."""

from __future__ import annotations

import math

import pytest

from tests.scripts import load_script


@pytest.fixture(scope="module")
def newruns():
    return load_script("bench/validation_newruns.py")


def test_dataset_loads_with_its_sources(newruns):
    runs = newruns.runs()
    sources = newruns.sources()
    assert len(runs) >= 15  # the brief's 15-40 rows
    assert len({r.id for r in runs}) == len(runs)
    for r in runs:
        assert r.source in sources, r.id
        assert r.engine in ("vllm", "sglang"), r.id
        assert r.measured["tpot_s"] > 0 and r.measured["ttft_s"] > 0, r.id


def test_cookbook_throughput_is_the_files_formula(newruns):
    run = next(r for r in newruns.runs() if r.id == "sgl-qwen3.5-27b-fp8-b200-tp1-c1024")
    # tokens_per_sec_per_gpu = output tok/s / (tp × nnodes) × (isl + osl) / osl, inverted:
    # 16,623 × 1 GPU × 1,024 / (8,192 + 1,024) = 16,623 / 9 = 1,847.0 output tokens/s
    assert run.output_tokens_per_s == pytest.approx(1847.0, abs=0.05)
    tp8 = next(r for r in newruns.runs() if r.id == "sgl-qwen3.5-397b-fp8-h200-tp8ep8-c1024")
    # TP 8 × EP 8 is 8 GPUs (attention TP over the same 8): 3,340 × 8 / 9 = 2,968.9 tokens/s
    assert tp8.gpus == 8
    assert tp8.output_tokens_per_s == pytest.approx(2968.9, abs=0.05)


def test_decoding_batch_is_littles_law(newruns):
    # 1,847 output tokens/s at a TPOT of 28.91 ms: 1,847 × 0.02891 = 53.4 requests decoding
    assert newruns.decoding_batch(1847.0, 0.02891) == pytest.approx(53.40, abs=0.01)


def test_every_row_predicts(newruns):
    res = newruns.results()
    assert len(res) == len(newruns.runs())
    for r in res:
        for fig in ("tpot", "ttft", "tokens"):
            e = r.error(fig)
            assert math.isfinite(e) and e > -1, (r.run.id, fig)


def test_sources_are_listed(newruns):
    # held out from here on: every source of the dataset is on the sources list, so a later
    # check on published runs knows to look elsewhere
    listed = str(load_script("bench/validation_sources.py").LOOKED_AT)
    for key, src in newruns.sources().items():
        url = src["url"].split("://", 1)[1]
        stem = url.split("/blob/main/", 1)[-1] if "github.com" in url else url
        assert stem in listed, key


def test_section_renders(newruns):
    text = newruns.render()
    assert text.startswith("## Held out: published runs of current engines")
    for r in newruns.runs():
        assert f"| {r.id} |" in text
