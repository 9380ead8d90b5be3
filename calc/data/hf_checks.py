"""Checks the types and ranges of a Hugging Face ``config.json``'s keys [elements, layers]
before the importer computes anything from them, so no value reaches a division, a list
multiplication or a loop over layers unchecked, and a bad value is named by file and key.
NaN and Infinity are read (real configs carry them in keys kvcalc never uses, e.g.
Nemotron-H's ``time_step_limit``) and refused here in every key kvcalc does use."""

from __future__ import annotations

import math
import reprlib
from collections.abc import Sequence
from typing import Any

from calc.errors import ConfigError

MAX_LAYERS = 10_000  # ModelConfig's bound on n_layers: checked before any per-layer list
MAX_SIZE = 1_000_000_000  # any width, count or length in a config.json

_LAYER_KEYS = ("num_hidden_layers", "n_layer")
_POSITIVE = (
    "hidden_size", "n_embed", "num_attention_heads", "n_head", "num_key_value_heads",
    "num_kv_heads", "head_dim", "attention_head_dim", "vocab_size", "max_position_embeddings",
    "intermediate_size", "ffn_hidden_size", "moe_intermediate_size", "sliding_window",
    "sliding_window_pattern", "_sliding_window_pattern", "attn_layer_period",
    "expert_layer_period", "num_local_experts", "num_experts", "num_experts_per_tok",
    "experts_per_token", "n_routed_experts", "kv_lora_rank", "q_lora_rank",
    "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "mamba_d_state", "mamba_d_conv",
    "mamba_expand", "mamba_dt_rank", "ssm_state_size", "conv_kernel", "mamba_num_heads",
    "mamba_head_dim", "n_groups", "attention_chunk_size", "decoder_sparse_step",
    "n_embd", "n_head", "num_layers", "n_positions", "kv_channels", "num_heads",
    "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
    "linear_value_head_dim", "linear_conv_kernel_dim", "full_attention_interval",
    "index_n_heads", "index_head_dim", "index_topk", "moe_latent_size",
    "interleave_moe_layer_step", "num_experts_per_token", "top_k_experts", "moe_top_k",
    "moe_num_experts", "intermediate_size_mlp", "mamba_n_groups", "max_sequence_length",
    "seq_length", "ffn_dim", "n_inner", "expert_intermediate_size", "n_group", "topk_group",
)  # fmt: skip
_NON_NEGATIVE = (
    "attn_layer_offset", "expert_layer_offset", "first_k_dense_replace", "max_window_layers",
    "n_shared_experts", "shared_expert_intermediate_size", "num_shared_experts",
    "moe_shared_expert_intermediate_size", "shared_intermediate_size", "first_k_dense",
    "num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_modules",
    "mtp_transformer_layers",
)  # fmt: skip
_BOOLS = (
    "tie_word_embeddings", "attention_bias", "mlp_bias", "use_sliding_window", "bias",
    "parallel_attn", "new_decoder_architecture", "multi_query", "mamba_conv_bias",
    "mamba_proj_bias", "use_conv_bias", "attn_output_gate", "use_qk_norm", "qk_layernorm",
    "use_routing_bias", "use_mtp",
)  # fmt: skip
_STRINGS = ("model_type", "torch_dtype", "dtype", "hybrid_override_pattern", "topk_method",
            "qk_norm_type", "mamba_ssm_dtype", "mamba_ssm_cache_dtype")  # fmt: skip

_short = reprlib.Repr()
_short.maxstring, _short.maxother, _short.maxlist, _short.maxdict = 40, 40, 4, 4


def _bad(where: str, key: str, expected: str, value: Any) -> ConfigError:
    if isinstance(value, float) and not math.isfinite(value):  # as the JSON file spells it
        shown = "NaN" if math.isnan(value) else ("-" if value < 0 else "") + "Infinity"
    else:
        shown = _short.repr(value)
    return ConfigError(f"{where}: config.json key {key!r} must be {expected} (got {shown})")


def check_int(data: dict[str, Any], where: str, key: str, lo: int, hi: int) -> None:
    """``data[key]``, when present and not null, is an integer (not a bool) in lo..hi; for
    nested sections too (``check_int(cfg["vision_config"], where, "hidden_size", 1, ...)``)."""
    v = data.get(key)
    if v is None:  # absent or null: the importer's documented default applies
        return
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _bad(where, key, f"an integer in {lo:,}..{hi:,}", v)


def check_hf_config(data: dict[str, Any], where: str) -> None:
    """Raise ConfigError naming ``where`` and the key for the first key of ``data`` whose
    type or range no supported family allows; the layer count first of all."""
    for key in _LAYER_KEYS:
        check_int(data, where, key, 1, MAX_LAYERS)
    for key in _POSITIVE:
        check_int(data, where, key, 1, MAX_SIZE)
    for key in _NON_NEGATIVE:
        check_int(data, where, key, 0, MAX_SIZE)
    for keys, kind, expected in ((_BOOLS, bool, "true or false"), (_STRINGS, str, "a string")):
        for key in keys:
            v = data.get(key)
            if v is not None and not isinstance(v, kind):
                raise _bad(where, key, expected, v)
    for key in ("mlp_only_layers", "layer_types", "no_rope_layers", "layers_block_type"):
        v = data.get(key)
        if v is not None and not isinstance(v, list):
            raise _bad(where, key, "a list", v)
    types = data.get("layer_types")
    if types is not None:
        if not all(isinstance(t, str) for t in types):
            raise _bad(where, "layer_types", "a list of strings", types)
        n_layers = data.get("num_hidden_layers")
        if n_layers is not None and len(types) != n_layers:
            raise ConfigError(
                f"{where}: config.json 'layer_types' has {len(types):,} entries, "
                f"'num_hidden_layers' is {n_layers:,}"
            )


def smallest_period(items: Sequence[Any]) -> int:
    """The least p with items[i] == items[i % p] for every i (Knuth-Morris-Pratt failure
    function: n − the longest proper prefix that is also a suffix), in O(n) steps."""
    n = len(items)
    if n == 0:
        return 1
    fail = [0] * n
    k = 0
    for i in range(1, n):
        while k and items[i] != items[k]:
            k = fail[k - 1]
        if items[i] == items[k]:
            k += 1
        fail[i] = k
    return n - fail[-1]
