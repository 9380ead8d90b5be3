"""Tokens [tokens] each kind of attention layer holds in its KV cache for a sequence of ctx.

A full-attention layer holds every token; a sliding-window layer at most its window W (plus
any StreamingLLM sink tokens); a chunked-local layer (Llama-4) at most one chunk. SSM and
MLP-only layers hold no KV at all (their fixed state is in calc/formulas/ssm.py). All functions take
plain numbers or numpy arrays of ``ctx`` and broadcast.

How engines charge windowed layers (what we follow, and where they differ):
- Hugging Face ``HybridCache``/``SlidingWindowLayer`` allocates exactly W slots per sliding
  layer, so a sequence costs min(ctx, W) tokens there: our figure.
- vLLM v1 (``SlidingWindowSpec``) frees blocks that fall wholly out of the window, so a
  decoding sequence holds min(ctx, W − 1 + 1) tokens rounded up to whole blocks, plus one
  block of slack while a block straddles the window edge; chunked-local layers
  (``ChunkedLocalAttentionSpec``) keep the current chunk's blocks. Block rounding is paging,
  which the capacity model adds; the byte counts here are the unpaged tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

from calc.formulas.elementwise import minimum


def cached_token_layers(ctx, n_full, windowed: Sequence[tuple[int, int]] = ()):
    """Σ over caching layers of the tokens each holds [token-layers].

    ``n_full`` full-attention layers hold ctx each; ``windowed`` is ((cap, n_layers), ...):
    n_layers layers that each hold min(ctx, cap). With no windowed layers this is
    ctx × n_full, the classic formula.
    """
    total = ctx * n_full
    for cap, n in windowed:
        total = total + n * minimum(ctx, cap)
    return total


def windowed_groups(layer_types, sliding_window=None, chunk_size=None, sink_tokens=0):
    """((cap, n_layers), ...) of the windowed layers in ``layer_types``: a sliding layer caches
    at most W + sink tokens; a chunked-local layer at most one chunk C (its exact occupancy is
    ((ctx − 1) mod C) + 1, but vLLM and HF size the local cache to C up front, so capacity is
    charged min(ctx, C))."""
    groups = []
    n_sliding = sum(1 for t in layer_types if t == "sliding")
    n_chunked = sum(1 for t in layer_types if t == "chunked")
    if n_sliding:
        groups.append((sliding_window + sink_tokens, n_sliding))
    if n_chunked:
        groups.append((chunk_size, n_chunked))
    return tuple(groups)
