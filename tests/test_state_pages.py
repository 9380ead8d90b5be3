"""Engine page rules of the new state kinds (calc/deploy/state_pages.py) against the public
start-up logs of docs/validation/engine_logs_models.yaml: gated DeltaNet pages on vLLM and
DeepSeek sparse-attention pages on SGLang, with the arithmetic beside each figure."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from calc.data.hf_import import load_hf_config
from calc.data.registry import load_hardware, load_model
from calc.deploy import state_pages as sp
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.shape import kv_shape
from calc.deploy.engines.vllm import memory as v
from calc.formulas.attention_layout import attention_layout
from calc.formulas.elementwise import cdiv

ROOT = Path(__file__).resolve().parent.parent
RECORDS = yaml.safe_load((ROOT / "docs" / "validation" / "engine_logs_models.yaml").read_text())
GIB = 2**30


def _record(rid):
    return next(r for r in RECORDS["records"] if r["id"] == rid)


@pytest.mark.parametrize(
    "rid", ["vllm-5090-qwen36-35b-a3b-nvfp4-a", "vllm-5090-qwen36-35b-a3b-nvfp4-b"]
)
def test_qwen36_35b_vllm_pages_reproduce_the_log(rid):
    r = _record(rid)
    cfg = load_hf_config(ROOT / r["kvcalc_model"])
    shape = kv_shape(cfg, 1, 1, 1.0)  # fp8 KV
    # attention: 2 KV heads × (256 + 256) × 1 B = 1,024 B per token per layer
    assert shape.bytes_per_token_per_layer == 1024
    # DeltaNet state: conv 3 × (2·16·128 + 32·128 = 8,192) × 2 B = 49,152 + recurrent
    # 32 × 128 × 128 × 4 B (fp32, mamba_ssm_dtype) = 2,097,152 → 2,146,304 B
    assert shape.mamba_state_bytes_per_layer == 2_146_304
    # 16 × ⌈2,146,304 / (16 × 1,024)⌉ = 16 × 131 = 2,096 tokens; page 2,096 × 1,024 B
    block = v.mamba_attention_block_size(16, 2_146_304, 1024)
    assert block == 2096
    # 10 attention + 30 DeltaNet layers: groups of 10 → 1 full group + 3 state groups
    assert (shape.layer_slots, shape.full_groups, shape.mamba_groups) == (10, 1, 3)
    blocks = int(v.num_blocks(int(r["reported"]["available_kv_cache_gib"] * GIB),
                              block * 1024, 10))  # fmt: skip
    # per request at 131,072: ⌈131,072 / 2,096⌉ = 63 + 3 state groups × 2 (prefix caching)
    per_request = cdiv(131072, block) + 3 * sp.vllm_state_blocks_per_request(True)
    assert per_request == 69
    tokens = sp.vllm_printed_tokens(blocks / per_request, 131072)
    assert tokens == r["reported"]["kv_cache_tokens"]  # 567,978 and 569,878
    assert round(blocks / per_request, 2) == r["reported"]["max_concurrency"]


def test_qwen35_27b_block_sizes_from_the_logs():
    cfg = load_model("qwen3.5-27b")
    # state 3 × 10,240 × 2 + 48 × 128 × 128 × 4 = 3,207,168 B
    bf16, fp8 = kv_shape(cfg, 1, 1, 2.0), kv_shape(cfg, 1, 1, 1.0)
    assert bf16.mamba_state_bytes_per_layer == 3_207_168
    # bf16 KV: 4 × 512 × 2 = 4,096 B per token: 16 × ⌈3,207,168 / 65,536⌉ = 16 × 49 = 784
    assert v.mamba_attention_block_size(16, 3_207_168, bf16.bytes_per_token_per_layer) == 784
    # fp8 KV: 2,048 B per token: 16 × ⌈3,207,168 / 32,768⌉ = 16 × 98 = 1,568 tokens; the state
    # page padded to 1,568 × 2,048 = 3,211,264 B: +0.13% (vLLM: "Padding mamba page size by
    # 0.13%")
    assert v.mamba_attention_block_size(16, 3_207_168, fp8.bytes_per_token_per_layer) == 1568
    assert round((1568 * 2048 / 3_207_168 - 1) * 100, 2) == 0.13


def test_deepseek_v32_sglang_pool_bytes():
    r = _record("sglang-8xb200-deepseek-v32-exp-dp8")
    layout = attention_layout(load_model("deepseek-v3.2"))
    cell = layout.kv_bytes_per_token(1.0)
    assert cell == 61 * (656 + 132) == 48_068
    latent = cell - 61 * 132  # 61 × 656 = 40,016
    rep = r["reported"]
    # SGLang allocates its pool + one page (64 tokens): (975,424 + 64) × 48,068 B = 43.67 GiB
    assert round((rep["kv_cache_tokens"] + 64) * cell / GIB, 2) == rep["kv_size_gb"]
    # before the PR the pool was sized on the latents alone: (1,462,784 + 64) × 40,016 B
    # = 54.52 GiB printed, 65.49 GiB with the index keys it also allocated
    assert round((rep["before_pr_kv_cache_tokens"] + 64) * latent / GIB, 2) == rep[
        "before_pr_kv_size_gb"
    ]
    assert round((rep["before_pr_kv_cache_tokens"] + 64) * cell / GIB, 2) == rep[
        "before_pr_kv_size_with_index_gb"
    ]


def test_sparse_models_page_64_tokens_on_vllm_and_sglang():
    cfg, hw = load_model("deepseek-v3.2"), load_hardware("b200")
    for engine in ("vllm", "sglang"):
        dep = Deployment.build(cfg, hw, tp=8, kv_dtype="fp8", engine=EngineSettings(name=engine))
        pool = dep.per_gpu.prediction
        assert pool.block_size == 64 and pool.tokens % 64 == 0
        assert pool.kv_bytes_per_token == 48_068  # 61 × (656 + 132)
    assert sp.sparse_block_size(16) == 64 and sp.sparse_block_size(128) == 128
