"""Capacity: KV budget, pool, concurrency (boundary pair), max ctx, TP/PP/MLA, paging."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calc.data.registry import load_hardware, load_model
from calc.deploy.checkpoint import model_weight_bytes
from calc.deploy.ledger import (
    kv_heads_per_gpu,
    paged_tokens,
    pool_units,
)
from calc.formulas.elementwise import cdiv
from calc.formulas.params import model_params
from tests import reports as R

LLAMA8 = load_model("llama3-8b")
H100 = load_hardware("h100")
# Llama 3 8B bf16 KV per token: 2 × 32 layers × 8 kv heads × 128 × 2 bytes = 131,072 B
KV_TOKEN = 131_072
# vLLM budget with --activation 1GiB --overhead 0.5GiB on one H100, whose memory as torch
# reports it is 81,090 MiB = 85,029,027,840 B (the profile's usable_memory_bytes):
# 0.9 × 85,029,027,840 = 76,526,125,056; − 16,060,522,496 − 1,073,741,824 − 536,870,912
# − the RoPE cos/sin table vLLM builds with the model, 8,192 positions × 128 × 2 B = 2,097,152
# = 58,852,892,672
BUDGET = 58_852_892_672


def report(**kw):
    # vLLM 0.19's rules (gpu_memory_utilization 0.9, no CUDA-graph reserve): the arithmetic above
    base = dict(ctx=8192, activation_bytes=2**30, overhead_bytes=2**29, version="0.19")
    return R.capacity(LLAMA8, H100, **{**base, **kw}).fields


def test_budget_pool_and_concurrency():
    f = report()
    assert f["weights_bytes_per_gpu"] == 16_060_522_496  # 8,030,261,248 params × 2 bytes
    assert f["usable_memory_bytes"] == 85_029_027_840  # 81,090 MiB, as torch reports it
    assert f["kv_budget_bytes"] == BUDGET
    assert f["kv_bytes_per_token_per_gpu"] == KV_TOKEN
    assert f["kv_block_bytes"] == 2_097_152  # 16 × 131,072
    # vLLM: budget // page // layers = 58,852,892,672 // 65,536 (16 tokens × 4,096 B) // 32
    # = 898,024 // 32 = 28,063 blocks (28,063 × 2,097,152 = 58,851,835,904 ≤ budget)
    assert f["kv_cache_blocks"] == 28_063
    assert f["kv_cache_tokens"] == 449_008  # 28,063 × 16
    # one 8192-token sequence = 8192 × 131,072 = 1,073,741,824 B; 58,852,892,672 / that = 54.8
    assert f["kv_bytes_per_sequence_per_gpu"] == 1_073_741_824
    assert f["max_concurrency"] == 54


def test_boundary_pair_max_concurrency_fits_one_more_does_not():
    # 54 × 1,073,741,824 = 57,982,058,496 ≤ 58,852,892,672 < 59,055,800,320 = 55 × 1,073,741,824
    assert report(batch=54)["fits"] is True
    assert report(batch=55)["fits"] is False


def test_boundary_pair_through_the_cli(cli):
    args = ["capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "--activation", "1GiB"]
    args += ["--overhead", "0.5GiB", "--engine-version", "0.19", "-f", "json"]
    ok = cli(*args, "--batch", "54")
    assert ok.code == 0 and ok.json()["fits"] is True and ok.json()["max_concurrency"] == 54
    miss = cli(*args, "--batch", "55")
    assert miss.code == 0 and miss.json()["fits"] is False
    assert "at --ctx 8,192 at most 54 sequences fit" in miss.err


def test_max_ctx_at_batch_boundary():
    f = report(batch=64)
    # budget / 64 = 919,609,216 B = 7,016.06 tokens -> whole 16-token blocks: 7,008
    assert f["max_ctx_at_batch"] == 7_008
    assert 64 * 7_008 * KV_TOKEN <= BUDGET < 64 * (7_008 + 16) * KV_TOKEN


def test_max_ctx_at_batch_capped_at_the_context_limit():
    # budget / 4 = 14,713,747,456 B = 112,257 tokens (112,256 in whole blocks), but
    # Llama 3 8B's max_position_embeddings is 8,192: the reported maximum stops there
    assert LLAMA8.context_limit == 8192
    assert report(batch=4)["max_ctx_at_batch"] == 8192


def test_paged_against_contiguous():
    f = report(ctx=1000)
    # paged: ceil(1000 / 16) = 63 blocks = 1008 tokens; 1008 × 131,072 = 132,120,576 B
    assert f["kv_bytes_per_sequence_per_gpu"] == 132_120_576
    # floor(58,852,892,672 / 132,120,576) = 445
    assert f["max_concurrency"] == 445
    assert f["paged_waste_bytes_per_sequence"] == 1_048_576  # 8 tokens × 131,072
    # contiguous preallocates max_model_len 8192 tokens: 54 sequences,
    # wasting (8192 − 1000) × 131,072 = 942,669,824 B each
    assert f["max_concurrency_contiguous"] == 54
    assert f["contiguous_waste_bytes_per_sequence"] == 942_669_824
    assert f["contiguous_waste_bytes"] == 54 * 942_669_824
    assert f["paged_waste_bytes"] == 445 * 1_048_576


def test_activation_and_non_torch_from_the_engine_model():
    # vLLM's profiling pass (calc/deploy/engines/vllm/memory.py) for Llama 3 8B at TP 1:
    # resident 2 × 8,192 × 4,096 × 2 = 134,217,728 B plus the larger of the widest layer
    # 8,192 × 43,008 (gated FFN 3 × 14,336) × 2 = 704,643,072 and the sampler pass
    # 1,024 rows × 128,256 × 14.5 B = 1,904,345,088: 2,038,562,816 B
    f = R.capacity(LLAMA8, H100, ctx=8192).fields
    assert f["activation_peak_bytes"] == 2_038_562_816
    # vLLM 0.29+ (the V2 runner): non-torch 129,465,876 B at TP 1 plus the sampler's penalty
    # state, 1,024 requests × (128,256 + ceil(128,256 / 32) = 4,008) × 4 B = 541,753,344 B
    assert f["overhead_bytes"] == 129_465_876 + 541_753_344


def test_tensor_parallel_splits_heads_and_weights():
    assert kv_heads_per_gpu(8, 4) == 2
    assert kv_heads_per_gpu(8, 16) == 1  # replicated past the head count
    f = R.capacity(load_model("llama3-70b"), H100, ctx=8192, tp=4).fields
    # Llama 3 70B: 2 × 80 × 8 × 128 × 2 = 327,680 B/token; 2 of 8 heads per GPU -> 81,920
    assert f["kv_bytes_per_token_per_gpu"] == 81_920
    assert f["gpus"] == 4


def test_mla_latent_is_not_split_by_tp():
    ds = load_model("deepseek-v3")
    for tp in (1, 8):
        f = R.capacity(ds, load_hardware("h200"), ctx=4096, tp=tp).fields
        # (512 + 64) × 2 bytes × 61 layers = 70,272 B/token on every rank
        assert f["kv_bytes_per_token_per_gpu"] == 70_272


def test_pipeline_parallel_most_loaded_stage():
    f = report(pp=3)
    # ceil(32 / 3) = 11 layers: 2 × 8 × 128 × 2 × 11 = 45,056 B/token
    assert f["kv_bytes_per_token_per_gpu"] == 45_056
    # the busiest stage (calc.deploy.parallel, as `kvcalc latency`): 11 layers × (attention
    # 41,943,040
    # + FFN 176,160,768) = 2,399,141,888; its norms (11 × 2 + 1 final) × 4,096 = 94,208;
    # one vocab matrix 525,336,576 → 2,924,572,672 params × 2 bytes
    assert f["weights_bytes_per_gpu"] == 5_849_145_344
    lat = R.latency(LLAMA8, H100, prompt=8, gen=1, batch=1, pp=3).fields
    assert lat["weights_bytes_per_gpu"] == f["weights_bytes_per_gpu"]  # one formula for both


def test_formulas_broadcast_over_arrays():
    import numpy as np

    assert cdiv(np.array([1, 16, 17]), 16).tolist() == [1, 1, 2]
    assert paged_tokens(np.array([1, 16, 17]), 16).tolist() == [16, 16, 32]
    assert pool_units(np.array([-5, 0, 31]), 10).tolist() == [0, 0, 3]


def test_does_not_fit_reports_and_warns(cli):
    r = cli("capacity", "-m", "llama3-70b", "-H", "h100", "--ctx", "8192", "-f", "json")
    assert r.code == 0
    assert r.json()["max_concurrency"] == 0 and r.json()["kv_cache_tokens"] == 0
    assert "does not fit" in r.err and "raise --tp/--pp" in r.err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--mem-util", "1.5"], "--mem-util must be a fraction in (0, 1]"),
        (["--block-size", "0"], "--block-size must be an integer in 1.."),
        (["--pp", "33"], "--pp 33 exceeds the 32 layers of llama3-8b"),
        (["--overhead", "lots"], "--overhead 'lots' is not a size"),
        (["--shared-prefix", "100"], "--shared-prefix and --users go together"),
        (["--format", "xml"], "--format 'xml' is not one of"),
    ],
)
def test_bad_input_is_one_line_exit_2(cli, args, message):
    r = cli("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", *args)
    assert r.code == 2
    assert message in r.err
    assert "Traceback" not in r.err


def test_csv_and_explain(cli, tmp_path):
    out = tmp_path / "cap.csv"
    r = cli("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "-f", "csv", "-o", out)
    assert r.code == 0
    header, _row = out.read_text().splitlines()
    assert header.startswith("model,hardware,engine,tp,pp,ep,dp,gpus,")
    assert "kv_budget_bytes" in header.split(",") and "max_concurrency" in header.split(",")
    r = cli("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "8192", "--explain")
    # vLLM pages the pool: blocks per KV cache group × block size (calc.deploy.engines)
    assert "kv_cache_tokens = blocks // groups × block_size" in r.out


@settings(max_examples=40, deadline=None)
# block sizes the modelled vLLM release starts with (multiples of 16; --block-size 1 is refused
# since the engineopts round, tests/test_engine_accepts.py)
@given(ctx=st.integers(1, 200_000), batch=st.integers(1, 64), bs=st.sampled_from([16, 32, 64]))
def test_properties_fit_at_max_and_monotone(ctx, batch, bs):
    f = report(ctx=ctx, block_size=bs)
    n = f["max_concurrency"]
    seq = cdiv(ctx, bs) * bs * KV_TOKEN
    assert n * seq <= BUDGET < (n + 1) * seq
    assert report(ctx=ctx + bs, block_size=bs)["max_concurrency"] <= n
    m = report(ctx=ctx, batch=batch, block_size=bs)["max_ctx_at_batch"]
    assert batch * m * KV_TOKEN <= BUDGET
    # the reported maximum is the context limit, or one block more would not fit
    assert m == LLAMA8.context_limit or BUDGET < batch * (m + bs) * KV_TOKEN


@pytest.mark.parametrize("name", ["llama3-70b", "deepseek-v3", "mixtral-8x7b", "jamba-v0.1"])
def test_weights_per_gpu_agree_with_latency(name):
    cfg, h200 = load_model(name), load_hardware("h200")
    # one GPU holds the whole model: params × bytes per param
    one = R.capacity(cfg, h200, ctx=1024, weight_dtype="bf16").fields["weights_bytes_per_gpu"]
    assert one == 2 * model_params(cfg).total
    for tp in (4, 8):
        cap = R.capacity(cfg, h200, ctx=1024, tp=tp).fields["weights_bytes_per_gpu"]
        lat = R.latency(cfg, h200, prompt=8, gen=1, batch=1, tp=tp).fields[
            "weights_bytes_per_gpu"
        ]
        assert cap == lat  # the same key means the same figure in every command
        # replicated norms/router/latent projections: at least an even 1/tp share of the
        # checkpoint's bytes (DeepSeek-V3: fp8-block128 linear layers, bf16 embeddings)
        assert cap >= sum(model_weight_bytes(cfg).values()) / tp


def test_vllm_counts_requests_in_its_blocks_gemma2():
    # vLLM 0.19's start-up log of Gemma 2 9B on an H100 at gpu_memory_utilization 0.95,
    # max_model_len 8192 (../shared/validation, record vllm-h100-gemma2-9b) prints
    # "GPU KV cache size: 168,880 tokens" and "Maximum concurrency for 8,192 tokens: 20.6x".
    # Its 21 sliding + 21 full layers form two KV cache groups of 21 layer slots:
    # 21,110 blocks = 2 groups × 10,555 → 10,555 × 16 = 168,880 tokens. A request of 8,192
    # tokens takes ceil(8,192 / 16) = 512 full-group blocks and, in the sliding group, its
    # window plus one prefill chunk: ceil(min(4,095 + 8,192, 8,192) / 16) + 1 = 513 blocks,
    # 1,025 in all: floor(21,110 / 1,025) = 20 (20.6) sequences — not the 27 that
    # window-capped KV bytes alone would give.
    # kvcalc's weights (17.21 GiB) plus the RoPE table (8,192 × 256 × 2 B = 4 MiB) land 0.01
    # GiB under the log's 17.22: a budget one pair of blocks short, 21,108 blocks = 2 × 10,554
    # → 168,864 tokens, within one block of 16 tokens of the log.
    f = R.capacity(load_model("gemma-2-9b"), H100, ctx=8192, mem_util=0.95,
                   version="0.19").fields  # fmt: skip
    assert abs(f["kv_cache_tokens"] - 168_880) <= 16
    assert f["max_concurrency"] == 20
