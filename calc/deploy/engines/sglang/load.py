"""SGLang's weight load on one GPU as its allocator sees it [bytes]: the tensors the model's
construction requests, in order, and the segment bytes they leave reserved beyond their own
(``calc.deploy.engines.sglang.segments``), the part of 'Load weight end ... mem usage' that is
not the weights or the RoPE table.

Shapes per rank, from SGLang's layers (0.5.4, 0.5.13.post1, 0.5.19 ``srt/layers``; 0.4.x the
same): ``VocabParallelEmbedding`` and ``ParallelLMHead`` hold the vocabulary padded to 64
(64 × TP when that does not divide by TP) over TP; ``QKVParallelLinear`` one merged
(heads/TP + 2 × max(1, kv_heads/TP)) × head_dim by d_model weight (K/V heads replicated below
one per rank); ``RowParallelLinear`` the output projection; ``MergedColumnParallelLinear``
gate and up as one 2 × d_ffn/TP weight; ``FusedMoE`` w13 [experts/EP, 2 × d_expert/(TP/EP),
d_model] and w2 [experts/EP, d_model, d_expert/(TP/EP)], each with its scales; norms and the
router replicated. Block-fp8 scales are fp32 [ceil(rows/128), ceil(cols/128)] per matrix; any
other scaled format's scales and zeros are one further tensor of their bytes
(``calc.formulas.quant.matrix_bytes``). The RoPE table (``rope_table``) comes after layer 0's
output projection, with the temporaries ``_compute_cos_sin_cache`` builds and frees on the GPU:
freqs [positions, rotary/2] fp32, its cos and sin, their concatenation [positions, rotary] fp32
(cast to the model dtype and the fp32 copy freed where the release casts it).

Models kvcalc does not lay out tensor by tensor here (MLA, Mamba and linear-attention mixers,
vision and audio towers, attention-DP's replicated embedding) get no allocator term: None.
"""

from __future__ import annotations

import math

from calc.deploy.engines.sglang.segments import replay
from calc.formulas.quant import matrix_bytes, weight_format

VOCAB_PADDING = 64  # DEFAULT_VOCAB_PADDING_SIZE (layers/vocab_parallel_embedding.py)


def padded_vocab_rows(vocab: int, tp: int) -> int:
    """Rows of the embedding (and lm_head) on one rank [rows]: the vocabulary padded to 64,
    or to 64 × TP when the padded size does not divide by TP, over TP."""
    pad = VOCAB_PADDING
    if math.ceil(vocab / pad) * pad % tp:
        pad *= tp
    return math.ceil(vocab / pad) * pad // tp


def matrix_requests(tag: str, rows: int, cols: int, fmt: str, count: int = 1) -> list:
    """The requests of ``count`` stacked rows × cols matrices in ``fmt`` [bytes]: the payload,
    then the scales (block fp8: [ceil(rows/128), ceil(cols/128)] fp32; others: the scale and
    zero bytes ``matrix_bytes`` adds to the payload)."""
    f = weight_format(fmt)
    payload = math.ceil(rows * cols * f.bits / 8)
    out = [(tag, count * payload)]
    scales = matrix_bytes(rows, cols, fmt) - payload
    if scales:
        out.append((f"{tag}.scale", count * scales))
    return out


def _supported(cfg, dp_attn: int) -> bool:
    return not (cfg.mla is not None or cfg.ssm is not None or cfg.linear_attention is not None
                or cfg.vision is not None or cfg.audio is not None or dp_attn > 1
                or cfg.n_attention_layers != cfg.n_layers)  # fmt: skip


def construction_requests(cfg, dtypes: dict, tp: int, ep: int, rope_positions: int,
                          rope_bytes: int) -> list:  # fmt: skip
    """Every GPU request and free of building ``cfg`` on one rank, in order: ``(tag, bytes)``
    for a tensor, ``(tag, None)`` for a freed temporary."""
    d, hd, dtype = cfg.d_model, cfg.head_dim, cfg.dtype
    norm = math.ceil(d * weight_format(dtypes.get("norms", dtype)).bits / 8)
    vocab_rows = padded_vocab_rows(cfg.vocab_size, tp)
    ev = matrix_requests("embed", vocab_rows, d, dtypes["embedding"])
    q, kv = cfg.n_heads // tp, max(1, cfg.n_kv_heads // tp)
    for i in range(cfg.n_layers):
        if cfg.qk_norm:
            ev += [(f"{i}.q_norm", hd * 2), (f"{i}.k_norm", hd * 2)]
        ev += matrix_requests(f"{i}.qkv", (q + 2 * kv) * hd, d, dtypes["attention"])
        if cfg.qkv_bias:
            ev.append((f"{i}.qkv_bias", (q + 2 * kv) * hd * 2))
        ev += matrix_requests(f"{i}.o", d, q * hd, dtypes["attention"])
        if i == 0 and cfg.rotary_width:
            ev += _rope_requests(rope_positions, cfg.rotary_width, rope_bytes)
        if cfg.is_moe_layer(i):
            m = cfg.moe
            experts, width = math.ceil(m.n_routed_experts / ep), m.d_expert_ffn // max(1, tp // ep)
            ev += matrix_requests(f"{i}.router", m.n_routed_experts, d, dtypes["router"])
            ev += matrix_requests(f"{i}.w13", 2 * width, d, dtypes["routed_experts"], experts)
            ev += matrix_requests(f"{i}.w2", d, width, dtypes["routed_experts"], experts)
            if m.n_shared_experts:
                shared = m.n_shared_experts * (m.d_shared_expert_ffn or m.d_expert_ffn) // tp
                ev += matrix_requests(f"{i}.shared_gate_up", 2 * shared, d,
                                      dtypes["shared_experts"])  # fmt: skip
                ev += matrix_requests(f"{i}.shared_down", d, shared, dtypes["shared_experts"])
        elif cfg.has_ffn(i):
            width = cfg.d_ffn // tp
            up = 2 * width if cfg.ffn_kind == "gated" else width
            ev += matrix_requests(f"{i}.gate_up", up, d, dtypes["dense_ffn"])
            ev += matrix_requests(f"{i}.down", d, width, dtypes["dense_ffn"])
        ev += [(f"{i}.norm{n}", norm) for n in range(cfg.norms_per_layer)]
    ev.append(("final_norm", norm))
    if not cfg.tie_embeddings:
        ev += matrix_requests("lm_head", vocab_rows, d, dtypes["lm_head"])
    return ev


def _rope_requests(positions: int, rotary: int, table_bytes: int) -> list:
    """The RoPE table and the temporaries that build it (``_compute_cos_sin_cache``)."""
    half = positions * rotary // 2 * 4
    ev = [("rope.t", positions * 4), ("rope.freqs", half), ("rope.cos", half),
          ("rope.sin", half), ("rope.cat", 2 * half)]  # fmt: skip
    ev += [("rope.t", None), ("rope.freqs", None), ("rope.cos", None), ("rope.sin", None)]
    if table_bytes != 4:  # cast to the model dtype, the fp32 copy dropped
        ev += [("rope.table", positions * rotary * table_bytes), ("rope.cat", None)]
    return ev


def allocator_overhead_bytes(cfg, dtypes: dict, tp: int, ep: int, dp_attn: int,
                             rope_positions: int, rope_bytes: int) -> float | None:  # fmt: skip
    """Bytes the weight load reserves beyond its live tensors [bytes]: the allocator's segments
    left after ``empty_cache`` less the tensors' own bytes; None for a layout not laid out here."""
    if not _supported(cfg, dp_attn):
        return None
    key = (repr(cfg), tuple(sorted(dtypes.items())), tp, ep, rope_positions,
           rope_bytes)  # fmt: skip
    if key not in _CACHE:  # a plan's search asks for the same layout many times
        reserved, live = replay(construction_requests(cfg, dtypes, tp, ep, rope_positions,
                                                      rope_bytes))  # fmt: skip
        _CACHE[key] = float(reserved - live)
    return _CACHE[key]


_CACHE: dict = {}
