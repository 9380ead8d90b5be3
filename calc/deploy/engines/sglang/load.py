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

Dense gated-DeltaNet hybrids (Qwen3.5-27B; issue 21's gdnseg round, SGLang 0.5.18
``models/qwen3_5.py``, ``qwen3_next.py``): each DeltaNet layer's conv1d, in_proj_qkvz,
in_proj_ba, dt_bias, A_log, gated norm and out_proj, the attention layers' QKV with the gated
q, the RoPE table first in the first attention layer and the q/k norms after the FFN, and
their vision tower in Qwen-VL's order before the language model (``qwen3_vl.py``).

Models kvcalc does not lay out tensor by tensor here (MLA, Mamba mixers, MoE DeltaNet hybrids
such as Qwen3-Next and Qwen3.5-397B, whose ``Qwen2MoeSparseMoeBlock`` builds the experts
before the router and may fuse the shared expert into them, other models' vision towers,
audio towers, attention-DP's replicated embedding) get no allocator term: None.
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
    hybrid = cfg.linear_attention is not None
    if hybrid and (set(cfg.layers) - {"full", "linear_attention"} or cfg.moe is not None):
        return False  # Qwen2MoeSparseMoeBlock's order and shared-expert fusion: not laid out
    return not (cfg.mla is not None or cfg.ssm is not None or cfg.audio is not None
                or (cfg.vision is not None and not hybrid) or dp_attn > 1
                or (cfg.n_attention_layers != cfg.n_layers and not hybrid))  # fmt: skip


def construction_requests(cfg, dtypes: dict, tp: int, ep: int, rope_positions: int,
                          rope_bytes: int) -> list:  # fmt: skip
    """Every GPU request and free of building ``cfg`` on one rank, in order: ``(tag, bytes)``
    for a tensor, ``(tag, None)`` for a freed temporary."""
    d, dtype = cfg.d_model, cfg.dtype
    hybrid = cfg.linear_attention is not None
    norm = math.ceil(d * weight_format(dtypes.get("norms", dtype)).bits / 8)
    vocab_rows = padded_vocab_rows(cfg.vocab_size, tp)
    ev = _tower_requests(cfg.vision, dtypes.get("vision", dtype), tp) if hybrid else []
    ev += matrix_requests("embed", vocab_rows, d, dtypes["embedding"])
    first_attention = cfg.layers.index("full") if hybrid and "full" in cfg.layers else 0
    for i in range(cfg.n_layers):
        rope = []
        if i == first_attention and cfg.rotary_width:
            rope = _rope_requests(rope_positions, cfg.rotary_width, rope_bytes)
        if cfg.layers[i] == "linear_attention":
            ev += _gdn_requests(f"{i}", cfg.linear_attention, d, dtypes, tp)
        else:
            ev += _attention_requests(f"{i}", cfg, dtypes, tp, rope)
        ev += _ffn_requests(f"{i}", cfg, dtypes, tp, ep)
        ev += [(f"{i}.norm{n}", norm) for n in range(cfg.norms_per_layer)]
        if hybrid and cfg.qk_norm and cfg.layers[i] != "linear_attention":
            ev += [(f"{i}.q_norm", cfg.head_dim * 2), (f"{i}.k_norm", cfg.head_dim * 2)]
    ev.append(("final_norm", norm))
    if not cfg.tie_embeddings:
        ev += matrix_requests("lm_head", vocab_rows, d, dtypes["lm_head"])
    return ev


def _attention_requests(tag: str, cfg, dtypes: dict, tp: int, rope: list) -> list:
    """One attention mixer: q/k norms, merged QKV (Qwen3.5's gated q twice as wide), its bias,
    the output projection; the RoPE table after layer 0's o_proj, or first in a hybrid
    (Qwen3-Next, Qwen3.5) attention layer, whose q/k norms come after its FFN
    (``construction_requests``)."""
    hd, fmt = cfg.head_dim, dtypes["attention"]
    hybrid = cfg.linear_attention is not None
    q, kv = cfg.n_heads // tp, max(1, cfg.n_kv_heads // tp)
    rows = (q * (1 + cfg.attn_output_gate) + 2 * kv) * hd
    ev = list(rope) if hybrid else []
    if cfg.qk_norm and not hybrid:
        ev += [(f"{tag}.q_norm", hd * 2), (f"{tag}.k_norm", hd * 2)]
    ev += matrix_requests(f"{tag}.qkv", rows, cfg.d_model, fmt)
    if cfg.qkv_bias:
        ev.append((f"{tag}.qkv_bias", rows * 2))
    ev += matrix_requests(f"{tag}.o", cfg.d_model, q * hd, fmt)
    return ev if hybrid else ev + list(rope)


def _gdn_requests(tag: str, la, d: int, dtypes: dict, tp: int) -> list:
    """One gated DeltaNet mixer (SGLang 0.5.18 models/qwen3_5.py Qwen3_5GatedDeltaNet,
    qwen3_next.py Qwen3GatedDeltaNet): the conv1d weight [(2 key + value dims)/TP, kernel] in
    the model dtype (no quant_config), in_proj_qkvz [(2 key + 2 value dims)/TP, d] and
    in_proj_ba [2 × value heads/TP, d] merged, dt_bias [value heads/TP] (bf16) and A_log
    (fp32), the gated norm [value_head_dim], out_proj [d, value dim/TP]."""
    fmt, model = dtypes["ssm"], 2  # the conv1d, dt_bias and norm in the 16-bit model dtype
    key, value = la.n_key_heads * la.key_head_dim // tp, la.n_value_heads * la.value_head_dim // tp
    heads = la.n_value_heads // tp
    ev = [(f"{tag}.conv1d", (2 * key + value) * la.conv_kernel * model)]
    ev += matrix_requests(f"{tag}.in_proj_qkvz", 2 * key + 2 * value, d, fmt)
    ev += matrix_requests(f"{tag}.in_proj_ba", 2 * heads, d, fmt)
    ev += [(f"{tag}.dt_bias", heads * model), (f"{tag}.A_log", heads * 4),
           (f"{tag}.gated_norm", la.value_head_dim * model)]  # fmt: skip
    return ev + matrix_requests(f"{tag}.out_proj", d, value, fmt)


def _ffn_requests(tag: str, cfg, dtypes: dict, tp: int, ep: int) -> list:
    """One layer's FFN: an MoE's router, fused w13 and w2 per local expert and shared experts,
    or a dense FFN's merged gate/up and down."""
    d, i = cfg.d_model, int(tag)
    if cfg.is_moe_layer(i):
        m = cfg.moe
        experts, width = math.ceil(m.n_routed_experts / ep), m.d_expert_ffn // max(1, tp // ep)
        ev = matrix_requests(f"{tag}.router", m.n_routed_experts, d, dtypes["router"])
        ev += matrix_requests(f"{tag}.w13", 2 * width, d, dtypes["routed_experts"], experts)
        ev += matrix_requests(f"{tag}.w2", d, width, dtypes["routed_experts"], experts)
        if m.n_shared_experts:
            shared = m.n_shared_experts * (m.d_shared_expert_ffn or m.d_expert_ffn) // tp
            ev += matrix_requests(f"{tag}.shared_gate_up", 2 * shared, d,
                                  dtypes["shared_experts"])  # fmt: skip
            ev += matrix_requests(f"{tag}.shared_down", d, shared, dtypes["shared_experts"])
        return ev
    if not cfg.has_ffn(i):
        return []
    width = cfg.d_ffn // tp
    up = 2 * width if cfg.ffn_kind == "gated" else width
    ev = matrix_requests(f"{tag}.gate_up", up, d, dtypes["dense_ffn"])
    return ev + matrix_requests(f"{tag}.down", d, width, dtypes["dense_ffn"])


def _tower_requests(t, fmt: str, tp: int) -> list:
    """A vision tower in Qwen-VL's build order (SGLang 0.5.18 models/qwen3_vl.py
    Qwen3VLMoeVisionModel, built before the language model, never quantised): the patch
    convolution and its bias, the position table, per block two norms, QKV [3d/TP, d], proj
    [d, d/TP], fc1 [(1 + gated) × d_ffn/TP, d], fc2 [d, d_ffn/TP] with their biases, then the
    merger's norms and matrices; none without a tower."""
    if t is None:
        return []
    d, f, b = t.d_model, t.d_ffn, t.bias
    norm = [d * 2] * (1 + (t.norm == "layernorm"))  # weight (and bias) [d]
    ev = matrix_requests("v.patch", d, t.n_channels * t.patch_size**2, fmt)
    ev += [("v.patch_bias", d * 2)] * t.patch_bias
    ev += [("v.pos", math.ceil(t.n_positions / VOCAB_PADDING) * VOCAB_PADDING // tp * d * 2)]
    for n in range(t.n_layers):
        ev += [(f"v{n}.norm{k}", x) for k, x in enumerate(norm + norm)]
        for name, rows, cols in (("qkv", 3 * d // tp, d), ("proj", d, d // tp),
                                 ("fc1", (1 + (t.ffn_kind == "gated")) * f // tp, d),
                                 ("fc2", d, f // tp)):  # fmt: skip
            ev += matrix_requests(f"v{n}.{name}", rows, cols, fmt)
            ev += [(f"v{n}.{name}.bias", rows * 2)] * b
    ev += [(f"v.merger_norm{k}", w * 2) for k, w in enumerate(t.projector_norms or ())]
    for k, (i, o) in enumerate(t.projector or ()):
        ev += matrix_requests(f"v.merger{k}", o // tp if k == 0 else o, i if k == 0 else i // tp,
                              fmt)  # fmt: skip
        ev += [(f"v.merger{k}.bias", (o // tp if k == 0 else o) * 2)] * t.projector_bias
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
