"""The type of every layer [one per layer] of a Hugging Face config, read from what the config
says: an explicit ``layer_types`` list, a hybrid pattern string, an interval of full-attention
layers, or the family's documented sliding/chunked rule.

In order of precedence:

- ``layer_types`` (Transformers' per-layer list): full_attention, sliding_attention,
  chunked_attention, linear_attention (gated DeltaNet), mamba / mamba2;
- ``hybrid_override_pattern`` (Nemotron-H): M Mamba-2, * attention, - MLP, E MoE; or
  transformers v5's ``layers_block_type`` list (mamba, attention, mlp, moe);
- ``linear_attn_config`` (Kimi Linear): 1-based ``full_attn_layers`` / ``kda_layers``;
- ``full_attention_interval`` (Qwen3-Next without layer_types): every interval-th layer full
  attention, the rest gated DeltaNet;
- the family rules: mistral/mixtral/phi3 with a ``sliding_window`` slide in every layer;
  qwen* slide only with ``use_sliding_window`` in layers >= ``max_window_layers``; gemma2
  alternates local/global from layer 0; gemma3 is global every ``sliding_window_pattern``-th
  layer; gpt_oss alternates; jamba places attention every ``attn_layer_period`` from
  ``attn_layer_offset``; llama4 chunks its RoPE layers (``no_rope_layers``).

None means every layer is full attention.
"""

from __future__ import annotations

from calc.data.hf_keys import HfConfig
from calc.errors import ConfigError

LAYER_TYPES = {
    "full_attention": "full",
    "attention": "full",
    "global_attention": "full",
    "sliding_attention": "sliding",
    "local_attention": "sliding",
    "chunked_attention": "chunked",
    "linear_attention": "linear_attention",
    "mamba": "mamba",
    "mamba2": "mamba2",
    # DeepSeek sparse attention is full MLA attention with an indexer (GLM-5.2's layer_types)
    "deepseek_sparse_attention": "full",
}
# transformers v5's Nemotron-H ``layers_block_type`` (its "mamba" is Mamba-2)
BLOCK_TYPES = {"mamba": "mamba2", "attention": "full", "mlp": "mlp", "moe": "moe"}
PATTERN = {"M": "mamba2", "*": "full", "-": "mlp", "E": "moe"}


def _explicit(c: HfConfig, explicit: list) -> list[str]:
    try:
        return [LAYER_TYPES[t] for t in explicit]
    except KeyError as exc:
        raise ConfigError(
            f"{c.where}: layer type {exc.args[0]!r} is not supported "
            f"(known: {', '.join(LAYER_TYPES)})"
        ) from None


def _pattern(c: HfConfig, pattern: str, n_layers: int) -> list[str]:
    bad = sorted(set(pattern) - set(PATTERN))
    if bad:
        raise ConfigError(
            f"{c.where}: hybrid_override_pattern symbol(s) {', '.join(bad)} not supported "
            "(known: M Mamba-2, * attention, - MLP, E MoE)"
        )
    if len(pattern) != n_layers:
        raise ConfigError(
            f"{c.where}: hybrid_override_pattern has {len(pattern)} layers, "
            f"num_hidden_layers is {n_layers}"
        )
    return [PATTERN[ch] for ch in pattern]


def _kimi_linear(c: HfConfig, la: dict, n_layers: int) -> list[str]:
    """Kimi Linear's 1-based layer lists: KDA (linear attention) and full (MLA) layers."""
    full = la.get("full_attn_layers") or []
    kda = la.get("kda_layers") or []
    if not all(isinstance(i, int) and 1 <= i <= n_layers for i in [*full, *kda]):
        raise ConfigError(f"{c.where}: linear_attn_config layer lists must be 1..{n_layers}")
    out = ["full"] * n_layers
    for i in kda:
        out[i - 1] = "linear_attention"
    return out


def layer_types(c: HfConfig, family: str, n_layers: int) -> list[str] | None:
    """The type of each layer, or None (all full attention)."""
    explicit = c.get("layer_types")
    if explicit is not None:
        return _explicit(c, explicit)
    pattern = c.get("hybrid_override_pattern")
    if pattern is not None:
        return _pattern(c, pattern, n_layers)
    blocks = c.get("layers_block_type")
    if isinstance(blocks, list):
        try:
            return [BLOCK_TYPES[b] for b in blocks]
        except (KeyError, TypeError):
            raise ConfigError(
                f"{c.where}: layers_block_type entries must be one of {', '.join(BLOCK_TYPES)}"
            ) from None
    hybrid = c.get("hybrid_layer_pattern")
    if isinstance(hybrid, list) and len(hybrid) == n_layers and set(hybrid) <= {0, 1}:
        c.assume("hybrid_layer_pattern: 1 read as a sliding-window layer, 0 as full attention, "
                 "every layer with the full layers' KV heads")  # fmt: skip
        return ["sliding" if h else "full" for h in hybrid]
    la = c.get("linear_attn_config")
    if isinstance(la, dict) and (la.get("kda_layers") or la.get("full_attn_layers")):
        return _kimi_linear(c, la, n_layers)
    if c.has("linear_num_value_heads") or c.has("linear_num_key_heads"):
        every = c.get("full_attention_interval")
        if every is None:
            every = 4
            c.assume("full_attention_interval absent: every 4th layer full attention "
                     "(Qwen3NextConfig's default)")  # fmt: skip
        return ["full" if (i + 1) % every == 0 else "linear_attention" for i in range(n_layers)]
    window = c.get("sliding_window")
    if family in ("mistral", "mixtral", "phi3") and window:
        return ["sliding"] * n_layers
    if family == "llama4_text":
        chunk = c.get("attention_chunk_size")
        no_rope = c.get("no_rope_layers")  # 1: RoPE (chunked local) layer, 0: NoPE global
        if not chunk:
            return None
        if isinstance(no_rope, list) and len(no_rope) == n_layers:
            return ["chunked" if r else "full" for r in no_rope]
        every = c.get("no_rope_layer_interval", 4)
        return ["full" if (i + 1) % every == 0 else "chunked" for i in range(n_layers)]
    if family.startswith(("qwen", "mimo")) and c.get("use_sliding_window", False) and window:
        first = c.get("max_window_layers", 0)
        return ["sliding" if i >= first else "full" for i in range(n_layers)]
    if family == "gemma2":
        c.need("sliding_window", "Gemma 2's local layers")
        return ["sliding" if i % 2 == 0 else "full" for i in range(n_layers)]
    if family in ("gemma3", "gemma3_text"):
        c.need("sliding_window", "Gemma 3's local layers")
        period = c.get("sliding_window_pattern") or c.need("_sliding_window_pattern")
        return ["full" if (i + 1) % period == 0 else "sliding" for i in range(n_layers)]
    if family == "gpt_oss":
        c.need("sliding_window", "gpt-oss's banded layers")
        return ["sliding" if i % 2 == 0 else "full" for i in range(n_layers)]
    if family == "jamba":
        period = c.need("attn_layer_period", "the attention/Mamba layout")
        offset = c.need("attn_layer_offset", "the attention/Mamba layout")
        return ["full" if i % period == offset else "mamba" for i in range(n_layers)]
    if family == "nemotron_h":
        c.need("hybrid_override_pattern", "the hybrid layer layout")
    return None
