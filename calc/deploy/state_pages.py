"""How serving engines page the caches of the new attention and state kinds [bytes, tokens]:
sparse attention's latent and indexer keys, gated DeltaNet's fixed state, as pure functions the
engine models (calc.deploy.engines) call.

Read from the engines' source (vLLM 0.33, vllm/; SGLang 0.5.23, python/sglang/srt/):

- DeepSeek sparse attention (DeepSeek-V3.2, GLM-5). vLLM gives every MLA layer two caches,
  the latent (``MLAAttentionSpec``: 576 elements per token, or 656 B in its ``fp8_ds_mla``
  layout of fp8 values, fp32 scales per 128 and a bf16 RoPE key; v1/attention/backends/mla/
  flashmla_sparse.py) and the indexer's keys (``DeepseekV32IndexerCache``: head_dim fp8 bytes
  and a fp32 scale per 128, 132 B; model_executor/models/deepseek_v2.py). Both are full
  attention, so they share one KV-cache group (``UniformTypeKVCacheSpecs``, whose page is the
  sum of its layers' pages): a block of every layer costs block_size × (latent + index
  bytes). The FlashMLA-sparse and indexer kernels take blocks of 64 tokens
  (``get_supported_kernel_block_sizes``), so vLLM raises the default 16 to 64
  (platforms/interface.py ``update_block_size_for_backend``: "Setting kv cache block size to
  64"). SGLang's NSA pool holds the same 656 + 132 B per token per layer in pages of 64.
- Gated DeltaNet (Qwen3-Next, Qwen3.5). vLLM treats it as a Mamba-type layer
  (``MambaSpec`` with ``gated_delta_net_state_shape``): one page of state per request per
  layer group, the conv state in the model dtype (``mamba_cache_dtype`` auto) and the
  recurrent state in ``mamba_ssm_cache_dtype`` (the config's ``mamba_ssm_dtype`` for Qwen3.5,
  model_executor/models/config.py). The attention block is raised until one attention page
  holds one layer's state (the Mamba rule, calc.deploy.engines.vllm.memory
  ``mamba_attention_block_size``): Qwen3.6-27B's 3,207,168-byte state over 4,096 bytes per
  token gives the 784-token block its vLLM log prints.
"""

from __future__ import annotations

from calc.data.dtypes import bytes_per_element
from calc.data.model_schema import SSM_LAYER_TYPES, ModelConfig
from calc.formulas.elementwise import cdiv

# vLLM's FlashMLA-sparse and DeepSeek-V3.2 indexer kernels: blocks of a multiple of 64 tokens
SPARSE_BLOCK_TOKENS = 64


def attention_bytes_per_token_per_layer(cfg: ModelConfig, tp: int, kv_bytes_per_element):
    """One token in one caching layer on one of ``tp`` GPUs [bytes]: K and V of this GPU's
    KV heads (split, or replicated when fewer than tp), or MLA's latent (held whole) and, with
    sparse attention, its indexer key (calc.formulas.attention_layout)."""
    from dataclasses import replace

    from calc.formulas.attention_layout import attention_layout

    layout = attention_layout(cfg)
    if cfg.mla is None:
        layout = replace(layout, n_kv_heads=cdiv(cfg.n_kv_heads, tp))
    return layout.kv_bytes_per_token_per_layer(kv_bytes_per_element)


def state_layers(kinds) -> int:
    """Layers among ``kinds`` that keep a fixed state (Mamba, Mamba-2, gated DeltaNet)."""
    return sum(1 for k in kinds if k in SSM_LAYER_TYPES)


def state_bytes_per_layer(cfg: ModelConfig, tp: int, kinds) -> float:
    """One request's state in the largest state layer among ``kinds`` on one GPU [bytes]:
    conv state in its dtype (calc.formulas.ssm.ssm_state_dtype of the model dtype, as vLLM's
    mamba_cache_dtype auto), recurrent state in the config's recurrent dtype."""
    from calc.formulas.ssm import layer_state_bytes, ssm_state_dtype

    present = sorted({k for k in kinds if k in SSM_LAYER_TYPES})
    if not present:
        return 0.0
    conv = bytes_per_element(ssm_state_dtype(cfg, cfg.dtype))
    return max(layer_state_bytes(cfg, k, tp, conv) for k in present)


def sparse_block_size(block_size: int) -> int:
    """The KV block of a sparse-attention model [tokens]: the configured block raised to a
    multiple of 64 (vLLM's and SGLang's sparse-MLA and indexer kernels)."""
    return cdiv(block_size, SPARSE_BLOCK_TOKENS) * SPARSE_BLOCK_TOKENS


# vLLM's Mamba-type groups (Mamba, gated DeltaNet) per request: one state page, or with prefix
# caching (mamba_cache_mode "align") two: the running state and the last block boundary's
# (v1/kv_cache_interface.py MambaSpec.max_memory_usage_bytes: page × (2 + speculative blocks))
MAMBA_BLOCKS_PER_REQUEST = 1
MAMBA_ALIGN_BLOCKS_PER_REQUEST = 2


def vllm_state_blocks_per_request(prefix_caching: bool, speculative_tokens: int = 0) -> int:
    """Blocks one request holds in each of vLLM's state (Mamba / gated DeltaNet) groups."""
    base = MAMBA_ALIGN_BLOCKS_PER_REQUEST if prefix_caching else MAMBA_BLOCKS_PER_REQUEST
    return base + speculative_tokens


def vllm_printed_tokens(max_concurrency, max_model_len) -> int:
    """"GPU KV cache size" as vLLM >= 0.21 prints it [tokens]: int(max concurrency ×
    max_model_len) (v1/core/kv_cache_utils.py ``get_kv_cache_capacity``), where 0.20 printed
    blocks // groups × block_size."""
    return int(max_concurrency * max_model_len)
