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
    assert len(runs) >= 25 + 20  # the newruns round's 25 rows and newruns2's 20-40
    assert len({r.id for r in runs}) == len(runs)
    for r in runs:
        assert r.source in sources, r.id
        assert r.engine in ("vllm", "sglang"), r.id
        assert r.measured["tpot_s"] > 0, r.id
        # a TTFT where the source states one (InferenceX #828 / #1053 state none)
        assert r.measured.get("ttft_s", 1) > 0, r.id


def test_cookbook_throughput_is_the_files_formula(newruns):
    run = next(r for r in newruns.runs() if r.id == "sgl-qwen3.5-27b-fp8-b200-tp1-c1024")
    # tokens_per_sec_per_gpu = output tok/s / (tp × nnodes) × (isl + osl) / osl, inverted:
    # 16,623 × 1 GPU × 1,024 / (8,192 + 1,024) = 16,623 / 9 = 1,847.0 output tokens/s
    assert run.output_tokens_per_s == pytest.approx(1847.0, abs=0.05)
    tp8 = next(r for r in newruns.runs() if r.id == "sgl-qwen3.5-397b-fp8-h200-tp8ep8-c1024")
    # TP 8 × EP 8 is 8 GPUs (attention TP over the same 8): 3,340 × 8 / 9 = 2,968.9 tokens/s
    assert tp8.gpus == 8
    assert tp8.output_tokens_per_s == pytest.approx(2968.9, abs=0.05)


def test_per_gpu_throughput_is_scaled_by_the_gpus(newruns):
    run = next(r for r in newruns.runs() if r.id == "ix870-dsr1-fp8-h200-tp8-1k1k-c8")
    # "Output tput/GPU" 74.6 tokens/s × 8 GPUs (TP 8) = 596.8 tokens/s of the deployment
    assert run.output_tokens_per_s == pytest.approx(596.8, abs=1e-9)
    ep = next(r for r in newruns.runs() if r.id == "ix832-minimax-m2.5-fp8-h100-tp4ep4-1k1k-c4")
    # TP 4 with EP 4 is 4 GPUs: 72.2 × 4 = 288.8 tokens/s
    assert ep.gpus == 4
    assert ep.output_tokens_per_s == pytest.approx(288.8, abs=1e-9)


def test_range_ratio_lengths_span_the_clients_range(newruns):
    # InferenceX's client draws from [int(1,024 × 0.8), 1,024] = [819, 1,024]; five evenly
    # spaced quantiles: 819, 870.25, 921.5, 972.75, 1,024 → rounded 819, 870, 922, 973, 1,024
    # (np.rint rounds 921.5 to the even 922)
    assert list(newruns.lengths(1024, 5, 0.8)) == [819, 870, 922, 973, 1024]
    assert list(newruns.lengths(1024, 3, None)) == [1024, 1024, 1024]


def test_groups_name_vendor_and_hybrids(newruns):
    by_id = {r.id: r for r in newruns.runs()}
    # MI300X is AMD's; gpt-oss's routed experts are MXFP4 (fp4); no recurrent layer
    assert by_id["ix1053-gptoss120b-mi300x-tp1-1k1k-c64"].group == "AMD fp4 MoE vllm"
    # Nemotron 3 Nano has Mamba2 layers beside attention
    nano = by_id["vultr-nemotron3-nano-fp8-b200-tp2-c1"]
    assert nano.group == "NVIDIA fp8 MoE-hybrid vllm"


def test_missing_ttft_is_left_out_not_counted(newruns):
    res = {r.run.id: r for r in newruns.results()}
    assert res["ix828-gptoss120b-h100-tp8-1k1k-c4"].error("ttft") is None
    assert res["ix828-gptoss120b-h100-tp8-1k1k-c4"].error("tpot") is not None


def test_decoding_batch_is_littles_law(newruns):
    # 1,847 output tokens/s at a TPOT of 28.91 ms: 1,847 × 0.02891 = 53.4 requests decoding
    assert newruns.decoding_batch(1847.0, 0.02891) == pytest.approx(53.40, abs=0.01)


def test_kv_sequences_are_whole_runs_of_the_length(newruns):
    # a pool of 643,000 tokens holds 643,000 / (8,192 + 1,024) = 69.77 sequences of 9,216
    assert newruns.kv_sequences(643_000, 9216) == pytest.approx(69.77, abs=0.005)


def test_sglang_pool_limits_are_the_modelled_pool(newruns):
    by_id = {r.id: r for r in newruns.runs()}
    run = by_id["sgl-qwen3.5-397b-bf16-h200-tp8-c1024"]
    cap, seqs = newruns.sglang_pool_limits(run)
    g = newruns.deployment(run).per_gpu
    # 0.5.16 with the radix cache: 3 slots a running request + 2 ping-pong slots
    # (extra_buffer under the overlap scheduler), so the cap is the state slots // 5
    assert cap == g.state_slots // 5
    assert seqs == pytest.approx(g.kv_cache_blocks * g.block_size / (8192 + 1024))
    # the NVFP4 cell: --disable-radix-cache --max-running-requests 128: one slot a request
    cap4, _ = newruns.sglang_pool_limits(by_id["sgl-qwen3.5-397b-fp4-b200-tp4-c1024"])
    assert cap4 == 128
    # not a hybrid model, or not SGLang: no limits
    assert newruns.sglang_pool_limits(by_id["ix828-gptoss120b-h100-tp8-1k1k-c4"]) is None


def test_every_row_predicts(newruns):
    res = newruns.results()
    assert len(res) == len(newruns.runs())
    for r in res:
        for fig in ("tpot", "ttft", "tokens"):
            e = r.error(fig)
            if e is None:  # a figure the source does not state
                assert fig == "ttft" and "ttft_s" not in r.run.measured, r.run.id
                continue
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
    # the hybrid diagnostic states kvcalc's two limits and its retractions
    assert "| running cap | KV pool sequences | retractions |" in text
